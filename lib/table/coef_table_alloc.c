/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A coefficient table's life (include/lth/table.h): options, allocation of
 * the builder's work space and of one decomposition workspace per thread,
 * and release (joining the pool's threads).  Building is lib/table/coef_table.c
 * and lib/table/coef_table_split.c, evaluation lib/table/coef_table_cheb.c. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coef_table_impl.h"
#include "lth/defaults.h"
#include "lth/conditioning.h"
#include "core/errors.h"
#include "decomp/decomp_bytes.h"

#define TAB_MIN_TOL 1e-15 /* below it the panels chase rounding */

void lth_table_opts_init(lth_table_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->tol = LTH_DEFAULT_TABLE_TOL;
  opts->jet_order = -1;
  opts->outputs = 1;
}

static void set_fields(lth_table *tab) {
  int m = tab->lay.m, s = tab->lay.s, off = 0;
  int rows[TAB_NFIELDS] = {m, m, m, s, s, s}, cols[TAB_NFIELDS] = {m, 1, m, m, 1, m};
  tab->lay.nfields = tab->o.outputs ? TAB_NFIELDS : TAB_P + 1;
  for (int f = 0; f < tab->lay.nfields; f++) {
    tab->lay.fld[f] = (tab_field){.off = off, .rows = rows[f], .cols = cols[f]};
    off += rows[f] * cols[f];
    if (f == TAB_P) tab->lay.E_rhs = off;
  }
  tab->lay.E = off;
}

/* Bytes of the builder's own arrays (alloc_work: V, F, C, the magnitudes),
 * without the threads' workspaces. */
static size_t builder_bytes(const lth_table *tab) {
  size_t E = (size_t)tab->lay.E, nd = (size_t)tab_dmax(tab) + 1;
  size_t doubles = E * (size_t)(tab->lay.jet + 1) * (TAB_NMAX + 1) + 2 * E * nd + 2 * nd;
  return doubles * sizeof(double) + (TAB_NMAX + 1) * sizeof(int);
}

/* Bytes of one thread: its decomposition workspace and point. */
static size_t thread_bytes(const lth_table *tab) {
  return lth_decomp_ws_bytes(tab->sys, tab->lay.jet) + lth_point_bytes(tab->sys, tab->lay.jet);
}

/* The memory budget counts everything the table allocates, and is checked
 * before anything large is: a table whose work arrays alone exceed it is
 * refused here (LTH_ENOMEM; auto integration decomposes directly instead,
 * lib/ivp/ivp_coef.c).  The work arrays grow like s^2 times the nodes of a
 * panel (the index-3 chain with s = 1003: 8 GB), so at that size a table
 * cannot be had within 1 GiB at all.  Room is kept for as many threads'
 * workspaces as fit in half the budget (at most TAB_NMAX / 2), from the sizes
 * alone: the coefficients get the rest whatever the thread count, so one and
 * several threads build the same table and run out at the same place. */
static lth_status fit_budget(lth_table *tab, lth_error *err) {
  size_t base = builder_bytes(tab), per = thread_bytes(tab), max = tab->o.max_bytes;
  tab->store.work1 = base + per;
  if (tab->store.work1 >= max) {
    return lth_error_set(
        err, LTH_ENOMEM,
        "a coefficient table of this system (s = %d, state dimension %d) needs "
        "%.1f MB of work space, more than its memory budget of %.1f MB "
        "(lth_table_opts.max_bytes, lth-solve --table-memory): decompose directly instead",
        tab->lay.s, tab->lay.m, 1e-6 * (double)tab->store.work1, 1e-6 * (double)max);
  }
  size_t room = base < max / 2 ? (max / 2 - base) / per : 0;
  int cap = room < 1 ? 1 : (room > TAB_NMAX / 2 ? TAB_NMAX / 2 : (int)room);
  if (tab->thr.nthreads > cap) tab->thr.nthreads = cap;
  tab->store.work = base + (size_t)cap * per;
  return LTH_OK;
}

static lth_status alloc_work(lth_table *tab, lth_error *err) {
  LTH_ERROR_RECORD(err);
  size_t E = (size_t)tab->lay.E, nd = (size_t)tab_dmax(tab) + 1;
  tab->cur.V = malloc(E * (size_t)(tab->lay.jet + 1) * (TAB_NMAX + 1) * sizeof(double));
  tab->cur.F = malloc(E * nd * sizeof(double));
  tab->cur.C = malloc(E * nd * sizeof(double));
  tab->cur.mag = malloc(nd * sizeof(double));
  tab->cur.mag_rhs = malloc(nd * sizeof(double));
  tab->thr.todo = malloc((TAB_NMAX + 1) * sizeof(int));
  tab->cur.node_err = malloc((TAB_NMAX + 1) * sizeof(lth_error));
  tab->bld.enc = lth_enclose_alloc(tab->sys, tab_dmax(tab), err);
  if (!tab->bld.enc) {
    return LTH_ENOMEM;
  }
  tab_threads *th = &tab->thr;
  th->ws = calloc((size_t)th->nthreads, sizeof *th->ws);
  th->pt = calloc((size_t)th->nthreads, sizeof *th->pt);
  th->tasks = calloc((size_t)th->nthreads, sizeof *th->tasks);
  int ok = tab->cur.V && tab->cur.F && tab->cur.C && tab->cur.mag && tab->cur.mag_rhs && th->todo &&
           tab->cur.node_err && th->ws && th->pt && th->tasks;
  for (int lev = 0; ok && lev < TAB_LEVELS; lev++) {
    ok = (tab->lay.T[lev] = tab_transform_get(tab->lay.nmin << lev, tab->lay.jet)) != NULL;
  }
  if (!ok) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a coefficient table");
  }
  for (int k = 0; k < th->nthreads; k++) {
    th->tasks[k] = (tab_task){.tab = tab, .tid = k};
    tab->thr.ws[k] = lth_decomp_ws_alloc_scaled(tab->sys, tab->lay.jet, tab->o.chain_scale, err);
    tab->thr.pt[k] = tab->thr.ws[k] ? lth_point_alloc(tab->sys, tab->lay.jet, err) : NULL;
    if (!tab->thr.pt[k]) {
      return lth_error_status(err);
    }
    if (tab->o.cond_max > 0) {
      lth_decomp_ws_set_cond_max(tab->thr.ws[k], tab->o.cond_max);
    }
  }
  return LTH_OK;
}

lth_table *lth_table_alloc(const lth_system *sys, double t_lo, double t_hi,
                           const lth_table_opts *opts, lth_error *err) {
  if (!(t_lo < t_hi) || !isfinite(t_lo) || !isfinite(t_hi)) {
    lth_error_set(err, LTH_EINVAL, "coefficient table over [%g, %g]: need t_lo < t_hi", t_lo, t_hi);
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
  o->tol = o->tol > 0 ? fmax(o->tol, TAB_MIN_TOL) : LTH_DEFAULT_TABLE_TOL;
  o->deriv = o->deriv ? 1 : 0;
  o->target_degree = o->target_degree > 0 ? o->target_degree : LTH_DEFAULT_TABLE_DEGREE;
  o->jet_order = o->jet_order < 0 ? LTH_DEFAULT_TABLE_JET
                                  : (o->jet_order > TAB_MAXJET ? TAB_MAXJET : o->jet_order);
  tab->lay.jet = o->jet_order;
  tab->lay.nmin = tab->lay.jet == 0 ? 8 : 4;
  o->max_bytes = o->max_bytes ? o->max_bytes : LTH_DEFAULT_TABLE_MAX_BYTES;
  if (!(o->chain_scale > 0)) { /* one scan for the table's threads and its split parts */
    o->chain_scale = lth_pi_interval_scale(sys);
  }
  tab->sys = sys;
  tab->lay.t_lo = t_lo;
  tab->lay.t_hi = t_hi;
  tab->bld.covered = t_lo;
  tab->o.min_width = o->min_width > 0 ? o->min_width : 1e-10 * (t_hi - t_lo);
  tab->lay.span = t_hi - t_lo;
  tab->lay.m = lth_system_state_dim(sys);
  tab->lay.s = lth_system_size(sys);
  /* threads: o->threads, else lth's default (LTH_NUM_THREADS, the CPUs);
   * their pool is made at the first parallel step (lib/table/coef_table.c) */
  tab->thr.nthreads = lth_threads_available(o->threads);
  if (tab->thr.nthreads > TAB_NMAX / 2) tab->thr.nthreads = TAB_NMAX / 2;
  pthread_mutex_init(&tab->thr.mu, NULL);
  pthread_cond_init(&tab->thr.done_cv, NULL);
  set_fields(tab);
  if (fit_budget(tab, err) != LTH_OK) {
    lth_table_free(tab);
    return NULL;
  }
  tab->bld.out_density = o->outputs ? INFINITY : 0.0;
  tab->cur.outs_now = o->outputs;
  tab->cur.rows_now = tab->lay.E;
  if (alloc_work(tab, err) != LTH_OK) {
    lth_table_free(tab);
    return NULL;
  }
  return tab;
}

void lth_table_set_output_density(lth_table *tab, double per_unit_t) {
  tab->bld.out_density = tab->o.outputs ? fmax(per_unit_t, 0.0) : 0.0;
}

void lth_table_free(lth_table *tab) {
  if (!tab) {
    return;
  }
  lth_pool_free(tab->thr.pool);
  pthread_mutex_destroy(&tab->thr.mu);
  pthread_cond_destroy(&tab->thr.done_cv);
  for (int k = 0; tab->thr.ws && k < tab->thr.nthreads; k++) {
    lth_decomp_ws_free(tab->thr.ws[k]);
    if (tab->thr.pt) lth_point_free(tab->thr.pt[k]);
  }
  free(tab->thr.ws);
  free(tab->thr.pt);
  free(tab->thr.todo);
  free(tab->thr.tasks);
  free(tab->cur.V);
  free(tab->cur.F);
  free(tab->cur.C);
  free(tab->cur.mag);
  free(tab->cur.mag_rhs);
  free(tab->cur.node_err);
  free(tab->store.panels);
  lth_enclose_free(tab->bld.enc);
  tab_store_free(tab);
  free(tab);
}

double lth_table_covered(const lth_table *tab) { return tab->bld.covered; }
