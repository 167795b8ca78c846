/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Decomposition results (lth_point, include/lth/decomp.h): allocation and copy. */
#include "lth/decomp.h"

#include <math.h>
#include <stdlib.h>

#include "decomp_bytes.h"
#include "decomp_impl.h"

static int imin(int a, int b) { return a < b ? a : b; }

static lth_status point_jets(lth_point *pt, const lth_system *sys, int order, lth_error *err) {
  int r = pt->r, s = pt->s, m = pt->m, nr = lth_system_block_size(sys, r);
  lth_status st = LTH_OK;
  struct {
    lth_jet *J;
    int rows, cols;
  } list[] = {{&pt->Pi, nr, nr}, {&pt->P, m, m}, {&pt->Ahat, m, m}, {&pt->g, m, 1},
              {&pt->Bhat, s, m}, {&pt->q, s, 1}, {&pt->G, s, m}};
  for (size_t k = 0; k < sizeof list / sizeof list[0] && st == LTH_OK; k++) {
    st = lth_jet_init(list[k].J, list[k].rows, list[k].cols, order, err);
  }
  for (int i = 1; i < r && st == LTH_OK; i++) {
    int rows = i == 1 ? nr : lth_system_block_size(sys, i - 1);
    st = lth_jet_init(&pt->Q[i - 1], rows, lth_system_block_size(sys, i), order, err);
  }
  return st;
}

/* The doubles of point_jets' list, for memory budgets (lth_point_bytes). */
size_t lth_point_bytes(const lth_system *sys, int order) {
  size_t r = (size_t)lth_system_index(sys), s = (size_t)lth_system_size(sys);
  size_t m = (size_t)lth_system_state_dim(sys), nr = (size_t)lth_system_block_size(sys, (int)r);
  size_t n = nr * nr + 2 * m * m + m + 2 * s * m + s;
  for (size_t i = 1; i < r; i++) {
    size_t rows = i == 1 ? nr : (size_t)lth_system_block_size(sys, (int)i - 1);
    n += rows * (size_t)lth_system_block_size(sys, (int)i);
  }
  return (n * (size_t)(order + 1) + r) * sizeof(double) + sizeof(lth_point);
}

lth_point *lth_point_alloc(const lth_system *sys, int order, lth_error *err) {
  if (order < 0) {
    lth_error_set(err, LTH_EINVAL, "result order %d must be >= 0", order);
    return NULL;
  }
  lth_point *pt = calloc(1, sizeof *pt);
  int r = lth_system_index(sys);
  if (pt) {
    pt->Q = calloc((size_t)r, sizeof *pt->Q);
  }
  if (!pt || !pt->Q) {
    free(pt);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a result");
    return NULL;
  }
  pt->order = order;
  pt->r = r;
  pt->s = lth_system_size(sys);
  pt->m = lth_system_state_dim(sys);
  pt->p = lth_system_manifold_dim(sys);
  pt->t = NAN;
  if (point_jets(pt, sys, order, err) != LTH_OK) {
    lth_point_free(pt);
    return NULL;
  }
  return pt;
}

void lth_point_free(lth_point *pt) {
  if (!pt) {
    return;
  }
  lth_jet *list[] = {&pt->Pi, &pt->P, &pt->Ahat, &pt->g, &pt->Bhat, &pt->q, &pt->G};
  for (size_t k = 0; k < sizeof list / sizeof list[0]; k++) {
    lth_jet_release(list[k]);
  }
  for (int i = 0; i < pt->r; i++) {
    lth_jet_release(&pt->Q[i]);
  }
  free(pt->Q);
  free(pt);
}

lth_status lth_point_copy(lth_point *dst, const lth_point *src, lth_error *err) {
  if (dst->r != src->r || dst->s != src->s || dst->m != src->m) {
    return lth_error_set(err, LTH_EDIM, "copy between results of different systems");
  }
  lth_jet *d[] = {&dst->Pi, &dst->P, &dst->Ahat, &dst->g, &dst->Bhat, &dst->q, &dst->G};
  const lth_jet *s[] = {&src->Pi, &src->P, &src->Ahat, &src->g, &src->Bhat, &src->q, &src->G};
  lth_status st = LTH_OK;
  for (size_t k = 0; k < sizeof d / sizeof d[0] && st == LTH_OK; k++) {
    st = lth_jet_copy(d[k], s[k], err);
  }
  for (int i = 0; i < src->r - 1 && st == LTH_OK; i++) {
    st = lth_jet_copy(&dst->Q[i], &src->Q[i], err);
  }
  dst->t = src->t;
  dst->cond_pi = src->cond_pi;
  dst->cond_chain = src->cond_chain;
  dst->pi_sign = src->pi_sign;
  dst->pi_inv_norm = src->pi_inv_norm;
  dst->chain_norm = src->chain_norm;
  dst->cond_interval = src->cond_interval;
  dst->amplification = src->amplification;
  dst->amplification_measured = src->amplification_measured;
  dst->order = imin(dst->order, src->order);
  return st;
}

double lth_jet_fro0(const lth_jet *J) {
  double mx = 0.0, sum = 0.0;
  for (int j = 0; j < J->cols; j++) {
    for (int i = 0; i < J->rows; i++) mx = fmax(mx, fabs(LTH_JET_AT(J, 0, i, j)));
  }
  if (mx == 0.0 || !isfinite(mx)) return mx;
  for (int j = 0; j < J->cols; j++) {
    for (int i = 0; i < J->rows; i++) {
      double a = LTH_JET_AT(J, 0, i, j) / mx;
      sum += a * a;
    }
  }
  return mx * sqrt(sum);
}

double lth_point_rank_scale(const lth_point *pt) {
  /* ||Nhat + Bhat||_F <= ||Bhat||_F + sqrt(m); G = Z - Z P with Z = Nhat + Bhat */
  return (lth_jet_fro0(&pt->Bhat) + sqrt((double)pt->m)) * (1.0 + lth_jet_fro0(&pt->P));
}
