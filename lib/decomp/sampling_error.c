/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error estimates of the decomposition's outputs from sampled data
 * (include/lth/sampling_error.h, docs/sampled-data.md).
 *
 * The decomposition runs on a copy of the system whose blocks read views of
 * the sampled data sets (lib/decomp/samples_wrap.c: as blocks, behind mass
 * matrices, scaled views or in equation-form coefficients); a data set's
 * view can add a perturbation to its Taylor coefficients.  At t, for each
 * sampled data set b and each order m = 0..r-1 of its input jet, the
 * perturbation is
 *     delta_m = (est_m / m!) * D_m / max|D_m|,   D_m = alt_m - chosen_m,
 * est_m the data set's error estimate of derivative m and alt the
 * alternative fit (lth_samples_error_jet): the estimated size in the
 * estimated pattern (all entries est_m / m! when D_m vanishes).  The
 * outputs' absolute changes are summed over b and m, entry by entry: a
 * first-order estimate that does not count on cancellation between the data
 * sets' errors.
 */
#include "lth/sampling_error.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/samples.h"
#include "samples_wrap.h"

/* Blocks of at most this many entries are perturbed entry by entry. */
#define LTH_DECOMP_ERROR_ENTRYWISE 16

struct lth_decomp_error {
  const lth_system *sys;
  lth_system *view; /* views of sys's blocks */
  swrap **list;     /* the sampled blocks' views */
  int nlist;
  int r, s, m, K; /* K = r - 1: input jet order */
  lth_decomp_ws *ws;
  lth_point *pt0, *pt1;
  size_t nout; /* doubles of one set of canonical outputs */
  size_t off[LTH_NOUT + 1];
  int rows[LTH_NOUT], cols[LTH_NOUT];
  double *out0, *out1, *acc, *IP; /* nout, nout, nout, m x m */
  double *work;                   /* sampled blocks' estimate scratch */
  lth_jet chosen, alt;
  double *est; /* K + 1 */
};

static const char *out_names[LTH_NOUT] = {"P", "Ahat", "g", "Bhat", "q", "G"};

const char *lth_decomp_output_name(int which) {
  return which >= 0 && which < LTH_NOUT ? out_names[which] : NULL;
}

void lth_decomp_error_free(lth_decomp_error *de) {
  if (!de) {
    return;
  }
  lth_point_free(de->pt0);
  lth_point_free(de->pt1);
  lth_decomp_ws_free(de->ws);
  lth_system_free(de->view);
  free(de->list);
  free(de->out0);
  free(de->work);
  lth_jet_release(&de->chosen);
  lth_jet_release(&de->alt);
  free(de->est);
  free(de);
}

/* Sizes of the outputs and the largest sampled block and scratch. */
static lth_status sizes(lth_decomp_error *de, size_t *wsz, int *maxent, lth_error *err) {
  int m = de->m, s = de->s;
  int r[LTH_NOUT] = {m, m, m, s, s, s}, c[LTH_NOUT] = {m, m, 1, m, 1, m};
  de->off[0] = 0;
  for (int k = 0; k < LTH_NOUT; k++) {
    de->rows[k] = r[k];
    de->cols[k] = c[k];
    de->off[k + 1] = de->off[k] + (size_t)r[k] * (size_t)c[k];
  }
  de->nout = de->off[LTH_NOUT];
  *wsz = 1;
  *maxent = 1;
  for (int b = 0; b < de->nlist; b++) {
    const lth_source *sp = de->list[b]->samp;
    size_t w = lth_samples_error_work_size(sp, de->K);
    size_t f = lth_source_work_size(sp, de->K);
    *wsz = w > *wsz ? w : *wsz;
    *wsz = f > *wsz ? f : *wsz;
    int ne = lth_source_rows(sp) * lth_source_cols(sp);
    *maxent = ne > *maxent ? ne : *maxent;
    if (lth_samples_max_order(sp) < de->K) {
      return lth_error_set(err, LTH_EORDER,
                           "sampled data give derivatives up to order %d, the decomposition "
                           "needs %d",
                           lth_samples_max_order(sp), de->K);
    }
  }
  return LTH_OK;
}

lth_decomp_error *lth_decomp_error_alloc(const lth_system *sys, lth_error *err) {
  lth_decomp_error *de = calloc(1, sizeof *de);
  if (!de) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  de->sys = sys;
  de->r = lth_system_index(sys);
  de->s = lth_system_size(sys);
  de->m = lth_system_state_dim(sys);
  de->K = de->r - 1;
  de->view = swrap_system(sys, -2, de->K, &de->list, &de->nlist, err);
  size_t wsz = 0;
  int maxent = 0;
  lth_status st = de->view ? sizes(de, &wsz, &maxent, err) : LTH_ENOMEM;
  if (st == LTH_OK) {
    de->ws = lth_decomp_ws_alloc(de->view, 0, err);
    de->pt0 = de->ws ? lth_point_alloc(de->view, 0, err) : NULL;
    de->pt1 = de->pt0 ? lth_point_alloc(de->view, 0, err) : NULL;
    st = de->pt1 ? LTH_OK : LTH_ENOMEM;
  }
  if (st == LTH_OK) {
    de->out0 = malloc((3 * de->nout + (size_t)de->m * (size_t)de->m + 1) * sizeof *de->out0);
    de->work = malloc(wsz * sizeof *de->work);
    de->est = malloc((size_t)(de->K + 1) * sizeof *de->est);
    st = de->out0 && de->work && de->est ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) {
    de->out1 = de->out0 + de->nout;
    de->acc = de->out1 + de->nout;
    de->IP = de->acc + de->nout;
    st = lth_jet_init(&de->chosen, maxent, 1, de->K, err);
  }
  if (st == LTH_OK) {
    st = lth_jet_init(&de->alt, maxent, 1, de->K, err);
  }
  if (st != LTH_OK) {
    lth_decomp_error_free(de);
    return NULL;
  }
  return de;
}

void lth_decomp_error_set_cond_max(lth_decomp_error *de, double cond_max) {
  lth_decomp_ws_set_cond_max(de->ws, cond_max);
}

int lth_decomp_error_nsampled(const lth_decomp_error *de) { return de->nlist; }

/* P, Ahat (I - P), g, Bhat (I - P), q, G of pt into v. */
static void canonical(lth_decomp_error *de, const lth_point *pt, double *v) {
  int m = de->m, s = de->s;
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) {
      double p = LTH_JET_AT(&pt->P, 0, i, j);
      v[de->off[LTH_OUT_P] + (size_t)i + (size_t)j * m] = p;
      de->IP[i + (size_t)j * m] = (i == j) - p;
    }
  }
  if (m > 0) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, 1.0, LTH_JET_COEF(&pt->Ahat, 0),
                pt->Ahat.ld, de->IP, m, 0.0, v + de->off[LTH_OUT_AHAT], m);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, s, m, m, 1.0, LTH_JET_COEF(&pt->Bhat, 0),
                pt->Bhat.ld, de->IP, m, 0.0, v + de->off[LTH_OUT_BHAT], s);
  }
  for (int i = 0; i < m; i++) {
    v[de->off[LTH_OUT_G] + (size_t)i] = LTH_JET_AT(&pt->g, 0, i, 0);
  }
  for (int i = 0; i < s; i++) {
    v[de->off[LTH_OUT_Q] + (size_t)i] = LTH_JET_AT(&pt->q, 0, i, 0);
    for (int j = 0; j < m; j++) {
      v[de->off[LTH_OUT_GMAT] + (size_t)i + (size_t)j * s] = LTH_JET_AT(&pt->G, 0, i, j);
    }
  }
}

/* The jets of block w's sampled data over de's storage (column-major). */
static void data_jets(lth_decomp_error *de, const swrap *w, lth_jet *ch, lth_jet *alt) {
  int sr = lth_source_rows(w->samp), sc = lth_source_cols(w->samp);
  *ch = lth_jet_wrap(de->chosen.c, sr, sc, sr, de->chosen.stride, de->K);
  *alt = lth_jet_wrap(de->alt.c, sr, sc, sr, de->alt.stride, de->K);
  ch->maxorder = alt->maxorder = de->K;
}

/* Error estimate, chosen and alternative coefficients of block w at t. */
static lth_status block_data(lth_decomp_error *de, const swrap *w, double t, lth_error *err) {
  lth_jet ch, alt;
  data_jets(de, w, &ch, &alt);
  lth_status st = lth_samples_error_jet(w->samp, t, de->K, de->est, &alt, de->work, err);
  return st == LTH_OK ? lth_source_fill(w->samp, t, de->K, &ch, de->work, err) : st;
}

/* The perturbation of data set w's coefficient m: entry `only` of the data
 * (row-major index), or all of them (only < 0); see the file comment.
 * Returns 0 when it is zero (nothing to do). */
static int set_delta(lth_decomp_error *de, swrap *w, int m, int only) {
  lth_jet ch, alt;
  data_jets(de, w, &ch, &alt);
  size_t sz = (size_t)w->rows * (size_t)w->cols;
  double fact = 1.0, dmax = 0.0, nz = 0.0;
  for (int k = 2; k <= m; k++) {
    fact *= k;
  }
  for (int j = 0; j < ch.cols; j++) {
    for (int i = 0; i < ch.rows; i++) {
      dmax = fmax(dmax, fabs(LTH_JET_AT(&alt, m, i, j) - LTH_JET_AT(&ch, m, i, j)));
    }
  }
  double size = de->est[m] / fact;
  memset(w->delta, 0, sz * (size_t)(w->dorder + 1) * sizeof *w->delta);
  for (int j = 0; j < ch.cols; j++) {
    for (int i = 0; i < ch.rows; i++) {
      if (only >= 0 && i * ch.cols + j != only) {
        continue;
      }
      double d = LTH_JET_AT(&alt, m, i, j) - LTH_JET_AT(&ch, m, i, j);
      double x = dmax > 0.0 ? size * d / dmax : size;
      w->delta[(size_t)m * sz + (size_t)i + (size_t)j * (size_t)w->rows] = x;
      nz += fabs(x);
    }
  }
  return nz > 0.0;
}

/* Decompose with the perturbation of w set and add |change| to acc. */
static lth_status perturbed(lth_decomp_error *de, swrap *w, double t, lth_error *err) {
  w->active = 1;
  lth_status st = lth_decomp_at(de->ws, t, de->pt1, err);
  w->active = 0;
  if (st == LTH_OK) {
    canonical(de, de->pt1, de->out1);
    for (size_t k = 0; k < de->nout; k++) {
      de->acc[k] += fabs(de->out1[k] - de->out0[k]);
    }
  }
  return st;
}

/* Every perturbation of block w (see the file comment). */
static lth_status block_error(lth_decomp_error *de, swrap *w, double t, lth_error *err) {
  int ne = lth_source_rows(w->samp) * lth_source_cols(w->samp);
  lth_status st = block_data(de, w, t, err);
  for (int m = 0; m <= de->K && st == LTH_OK; m++) {
    if (ne > LTH_DECOMP_ERROR_ENTRYWISE) {
      st = set_delta(de, w, m, -1) ? perturbed(de, w, t, err) : LTH_OK;
      continue;
    }
    for (int e = 0; e < ne && st == LTH_OK; e++) {
      st = set_delta(de, w, m, e) ? perturbed(de, w, t, err) : LTH_OK;
    }
  }
  return st;
}

lth_status lth_decomp_error_at(lth_decomp_error *de, double t, lth_decomp_errest *out,
                               lth_error *err) {
  memset(out, 0, sizeof *out);
  out->t = t;
  out->nsampled = de->nlist;
  lth_status st = lth_decomp_at(de->ws, t, de->pt0, err);
  if (st != LTH_OK) {
    return st;
  }
  canonical(de, de->pt0, de->out0);
  memset(de->acc, 0, de->nout * sizeof *de->acc);
  for (int b = 0; b < de->nlist && st == LTH_OK; b++) {
    swrap *w = de->list[b];
    st = block_error(de, w, t, err);
    if (st != LTH_OK) {
      lth_error_prefix(err,
                       "error estimate of the sampled data in %c(%d%s%.0d): ", w->bj ? 'A' : 'f',
                       w->bi, w->bj ? "," : "", w->bj);
    }
  }
  for (int k = 0; k < LTH_NOUT && st == LTH_OK; k++) {
    double amax = 0.0, vmax = 0.0;
    for (size_t e = de->off[k]; e < de->off[k + 1]; e++) {
      amax = fmax(amax, de->acc[e]);
      vmax = fmax(vmax, fabs(de->out0[e]));
    }
    out->abs[k] = amax;
    out->rel[k] = amax / fmax(1.0, vmax);
    out->overall = fmax(out->overall, out->rel[k]);
  }
  return st;
}

const lth_point *lth_decomp_error_point(const lth_decomp_error *de) { return de->pt0; }

const double *lth_decomp_error_entries(const lth_decomp_error *de, int which, int *rows,
                                       int *cols) {
  if (which < 0 || which >= LTH_NOUT) {
    return NULL;
  }
  *rows = de->rows[which];
  *cols = de->cols[which];
  return de->acc + de->off[which];
}
