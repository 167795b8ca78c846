/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A coefficient table's life (include/lth/table.h): options, allocation of
 * the builder's work space and of one decomposition workspace per thread,
 * and release (stopping the helper threads).  Building is lib/table/coef_table.c
 * and lib/table/coef_table_split.c, evaluation lib/table/coef_table_cheb.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/blas_threads.h"
#include "coef_table_impl.h"
#include "system/system_scale.h"

#define TAB_DEFAULT_TOL 1e-12
#define TAB_MIN_TOL 1e-15
#define TAB_DEFAULT_TARGET 24
#define TAB_DEFAULT_JET 1

void lth_table_opts_init(lth_table_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->tol = TAB_DEFAULT_TOL;
  opts->jet_order = -1;
  opts->outputs = 1;
}

static void set_fields(lth_table *tab) {
  int m = tab->m, s = tab->s, off = 0;
  int rows[TAB_NFIELDS] = {m, m, m, s, s, s}, cols[TAB_NFIELDS] = {m, 1, m, m, 1, m};
  tab->nfields = tab->o.outputs ? TAB_NFIELDS : TAB_P + 1;
  for (int f = 0; f < tab->nfields; f++) {
    tab->fld[f] = (tab_field){off, rows[f], cols[f]};
    off += rows[f] * cols[f];
    if (f == TAB_P) tab->E_rhs = off;
  }
  tab->E = off;
}

static lth_status alloc_work(lth_table *tab, lth_error *err) {
  size_t E = (size_t)tab->E, nd = (size_t)tab_dmax(tab) + 1;
  tab->V = malloc(E * (size_t)(tab->jet + 1) * (TAB_NMAX + 1) * sizeof(double));
  tab->F = malloc(E * nd * sizeof(double));
  tab->C = malloc(E * nd * sizeof(double));
  tab->mag = malloc(nd * sizeof(double));
  tab->mag_rhs = malloc(nd * sizeof(double));
  tab->todo = malloc((TAB_NMAX + 1) * sizeof(int));
  tab->enc = lth_enclose_alloc(tab->sys, tab_dmax(tab), err);
  if (!tab->enc) {
    return LTH_ENOMEM;
  }
  tab->ws = calloc((size_t)tab->nthreads, sizeof *tab->ws);
  tab->pt = calloc((size_t)tab->nthreads, sizeof *tab->pt);
  int ok = tab->V && tab->F && tab->C && tab->mag && tab->mag_rhs && tab->todo && tab->ws && tab->pt;
  for (int lev = 0; ok && lev < TAB_LEVELS; lev++) {
    ok = (tab->T[lev] = tab_transform_get(tab->nmin << lev, tab->jet)) != NULL;
  }
  if (!ok) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a coefficient table");
  }
  for (int k = 0; k < tab->nthreads; k++) {
    tab->ws[k] = lth_decomp_ws_alloc_shared(tab->sys, tab->jet, err);
    tab->pt[k] = tab->ws[k] ? lth_point_alloc(tab->sys, tab->jet, err) : NULL;
    if (!tab->pt[k]) {
      return err ? err->status : LTH_ENOMEM;
    }
    if (tab->o.cond_max > 0) {
      lth_decomp_ws_set_cond_max(tab->ws[k], tab->o.cond_max);
    }
  }
  return LTH_OK;
}

lth_table *lth_table_alloc(const lth_system *sys, double t_lo, double t_hi,
                           const lth_table_opts *opts, lth_error *err) {
  if (!(t_lo < t_hi) || !isfinite(t_lo) || !isfinite(t_hi)) {
    lth_error_set(err, LTH_EINVAL, "coefficient table over [%g, %g]: need t_lo < t_hi", t_lo,
                  t_hi);
    return NULL;
  }
  if (lth_system_validate(sys, err) != LTH_OK) {
    return NULL;
  }
  lth_table *tab = calloc(1, sizeof *tab);
  if (!tab) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a coefficient table");
    return NULL;
  }
  if (opts) {
    tab->o = *opts;
  } else {
    lth_table_opts_init(&tab->o);
  }
  lth_table_opts *o = &tab->o;
  o->tol = o->tol > 0 ? fmax(o->tol, TAB_MIN_TOL) : TAB_DEFAULT_TOL;
  o->deriv = o->deriv ? 1 : 0;
  o->target_degree = o->target_degree > 0 ? o->target_degree : TAB_DEFAULT_TARGET;
  o->jet_order = o->jet_order < 0 ? TAB_DEFAULT_JET : (o->jet_order > TAB_MAXJET ? TAB_MAXJET : o->jet_order);
  tab->jet = o->jet_order;
  tab->nmin = tab->jet == 0 ? 8 : 4;
  o->max_bytes = o->max_bytes ? o->max_bytes : ((size_t)1 << 30);
  tab->sys = sys;
  tab->t_lo = t_lo;
  tab->t_hi = t_hi;
  tab->covered = t_lo;
  tab->min_width = o->min_width > 0 ? o->min_width : 1e-10 * (t_hi - t_lo);
  tab->span = t_hi - t_lo;
  tab->m = lth_system_state_dim(sys);
  tab->s = lth_system_size(sys);
  /* OpenMP decides how many threads (OMP_NUM_THREADS); the table runs them as
   * its own helpers, see the job board in lib/table/coef_table_impl.h */
  tab->nthreads = lth_threads_available(o->threads);
  if (tab->nthreads < 1) tab->nthreads = 1;
  if (tab->nthreads > TAB_NMAX / 2) tab->nthreads = TAB_NMAX / 2;
  pthread_mutex_init(&tab->mu, NULL);
  pthread_cond_init(&tab->cv, NULL);
  pthread_cond_init(&tab->cv_done, NULL);
  set_fields(tab);
  tab->out_density = o->outputs ? INFINITY : 0.0;
  tab->outs_now = o->outputs;
  tab->rows_now = tab->E;
  if (alloc_work(tab, err) != LTH_OK) {
    lth_table_free(tab);
    return NULL;
  }
  return tab;
}

void tab_set_output_density(lth_table *tab, double per_unit_t) {
  tab->out_density = tab->o.outputs ? fmax(per_unit_t, 0.0) : 0.0;
}

void lth_table_free(lth_table *tab) {
  if (!tab) {
    return;
  }
  pthread_mutex_lock(&tab->mu);
  tab->stop = 1;
  pthread_cond_broadcast(&tab->cv);
  pthread_mutex_unlock(&tab->mu);
  for (int k = 0; k < tab->nhelpers; k++) {
    pthread_join(tab->helpers[k], NULL);
  }
  free(tab->helpers);
  pthread_mutex_destroy(&tab->mu);
  pthread_cond_destroy(&tab->cv);
  pthread_cond_destroy(&tab->cv_done);
  for (int k = 0; tab->ws && k < tab->nthreads; k++) {
    lth_decomp_ws_free(tab->ws[k]);
    if (tab->pt) lth_point_free(tab->pt[k]);
  }
  free(tab->ws);
  free(tab->pt);
  free(tab->todo);
  free(tab->V);
  free(tab->F);
  free(tab->C);
  free(tab->mag);
  free(tab->mag_rhs);
  free(tab->panels);
  lth_enclose_free(tab->enc);
  tab_store_free(tab);
  free(tab);
}

double lth_table_covered(const lth_table *tab) { return tab->covered; }
