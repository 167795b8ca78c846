/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The reduced ODE's coefficients at one collocation point in sparse form
 * (bvp_op_impl.h), for the operator path's collocation (bvp_op.c, whose
 * header comment gives the design): Ahat(t) as the sparse blocks A_ik plus a
 * dense patch in the few columns the thin factors reach, g(t), and the check
 * that det Pi keeps its sign from point to point. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvp_op_impl.h"
#include "core/errors.h"

/* The most the dense patch of the reached columns may take (bytes). */
#define LTH_BVP_OP_PATCH_BYTES 4e9

void lth_bvpop_free(opbvp *B) {
  lth_oppoint_free(B->pt);
  lth_opdecomp_ws_free(B->ws);
  free(B->spc);
  free(B->spos);
  free(B->rmask);
  free(B->ap);
  free(B->ai);
  free(B->av);
  free(B->mark);
  lth_jet_free(B->X);
  lth_jet_free(B->Y);
  lth_jet_free(B->T);
  lth_jet_free(B->Z);
  lth_jet_free(B->Sx);
  lth_jet_free(B->gv);
  lth_jet_free(B->zv);
  lth_jet_free(B->qv);
  lth_jet_free(B->yv);
}

/* Decompose at t; det Pi must keep its sign along the points in time order
 * (a change means Pi is singular in between). */
lth_status lth_bvpop_decompose(opbvp *B, double t, lth_error *err) {
  lth_status st = lth_opdecomp_at(B->ws, t, B->pt, err);
  if (st != LTH_OK) return st;
  int sg = lth_oppoint_info(B->pt)->pi_sign;
  if (B->last_sign && sg && sg != B->last_sign && t > B->last_t) {
    return lth_error_set_t(err, LTH_ESING, t,
                           "det Pi changes sign between t = %.17g and t = %.17g: Pi is singular "
                           "between them",
                           B->last_t, t);
  }
  if (sg && t >= B->last_t) {
    B->last_sign = sg;
    B->last_t = t;
  }
  return LTH_OK;
}

/* The rows of the sparse blocks' column a (of v) into column c's pattern. */
static int add_column_rows(opbvp *B, int a, int c, int nz) {
  int r = B->r, k = 1;
  while (k < r - 1 && a >= lth_opsys_block_offset(B->sys, k + 1)) k++;
  int j = a - lth_opsys_block_offset(B->sys, k);
  for (int i = 1; i < r; i++) {
    lth_opblock b;
    if (k < i - 1 || lth_oppoint_block(B->pt, i, k, &b, NULL) != LTH_OK || !b.nnz) continue;
    int ri = lth_opsys_block_offset(B->sys, i);
    for (int q = b.colptr[j]; q < b.colptr[j + 1]; q++) {
      int row = ri + b.rowind[q];
      if (B->mark[row] != c) B->mark[row] = c, B->ai[nz++] = row;
    }
  }
  return nz;
}

/* Ahat's pattern: the sparse blocks A_ik (i, k < r, k >= i - 1) and, in the
 * reached columns, the reached rows of v. */
static lth_status build_pattern(opbvp *B, lth_error *err) {
  int m = B->m, r = B->r;
  size_t cap = (size_t)B->nspc * m + 16;
  for (int i = 1; i < r; i++) {
    for (int k = i > 1 ? i - 1 : 1; k < r; k++) {
      lth_opblock b;
      lth_status st = lth_oppoint_block(B->pt, i, k, &b, err);
      if (st != LTH_OK) return st;
      cap += (size_t)b.nnz;
    }
  }
  B->ap = calloc((size_t)m + 1, sizeof(int));
  B->ai = malloc(cap * sizeof(int));
  B->av = malloc(cap * sizeof(double));
  if (!B->ap || !B->ai || !B->av || cap > (size_t)INT_MAX) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory for Ahat's pattern (%zu entries)", cap);
  }
  for (int a = 0; a < m; a++) B->mark[a] = -1;
  int nz = 0;
  for (int k = 1; k < r; k++) {
    int ck = lth_opsys_block_offset(B->sys, k), nk = lth_opsys_block_size(B->sys, k);
    for (int j = 0; j < nk; j++) {
      int c = ck + j;
      B->ap[c] = nz;
      for (int i = 1; i < r; i++) {
        lth_opblock b;
        if (k < i - 1) continue;
        (void)lth_oppoint_block(B->pt, i, k, &b, err);
        int ri = lth_opsys_block_offset(B->sys, i);
        for (int q = b.nnz ? b.colptr[j] : 0; q < (b.nnz ? b.colptr[j + 1] : 0); q++) {
          int a = ri + b.rowind[q];
          if (B->mark[a] != c) B->mark[a] = c, B->ai[nz++] = a;
        }
      }
      if (B->spos[c] >= 0) { /* Ahat (I - P) e_c: (I - P) e_c lies on c and the reached rows */
        for (int a = 0; a < m; a++) {
          if (B->rmask[a] && B->mark[a] != c) B->mark[a] = c, B->ai[nz++] = a;
        }
        for (int a = 0; a < m && nz < INT_MAX; a++) {
          if (B->rmask[a]) nz = add_column_rows(B, a, c, nz);
        }
      }
    }
  }
  B->ap[m] = nz;
  B->annz = nz;
  return LTH_OK;
}

lth_status lth_bvpop_init(opbvp *B, lth_opsys *sys, double t0, int stages, double cond_max,
                          lth_error *err) {
  memset(B, 0, sizeof *B);
  B->sys = sys;
  B->s = lth_opsys_size(sys);
  B->m = lth_opsys_state_dim(sys);
  B->r = lth_opsys_index(sys);
  B->nr = lth_opsys_block_size(sys, B->r);
  B->p = B->m - (B->r - 1) * B->nr;
  B->ns = stages;
  B->last_t = -INFINITY;
  lth_status st = lth_colloc_gauss(stages, &B->tab, err);
  if (st == LTH_OK) st = lth_opsys_set_pi_factor(sys, LTH_OP_PI_DENSE, err);
  if (st != LTH_OK) return st;
  B->ws = lth_opdecomp_ws_alloc(sys, 0, err);
  B->pt = B->ws ? lth_oppoint_alloc(sys, 0, 32, err) : NULL;
  if (!B->pt) return lth_error_status(err);
  lth_opdecomp_ws_set_cond_max(B->ws, cond_max);
  int m = B->m, s = B->s;
  char *cmask = malloc((size_t)m);
  B->rmask = malloc((size_t)s);
  B->spos = malloc((size_t)m * sizeof(int));
  B->spc = malloc((size_t)m * sizeof(int));
  B->mark = malloc((size_t)m * sizeof(int));
  B->gv = lth_jet_alloc(m, 1, 0, err);
  B->yv = lth_jet_alloc(m, 1, 0, err);
  B->zv = lth_jet_alloc(s, 1, 0, err);
  B->qv = lth_jet_alloc(s, 1, 0, err);
  if (!cmask || !B->rmask || !B->spos || !B->spc || !B->mark || !B->gv || !B->yv || !B->zv ||
      !B->qv) {
    free(cmask);
    return lth_error_set(err, LTH_ENOMEM, "out of memory for the collocation workspace");
  }
  st = lth_bvpop_decompose(B, t0, err);
  if (st == LTH_OK) st = lth_oppoint_thin_reach(B->pt, cmask, B->rmask, err);
  if (st != LTH_OK) {
    free(cmask);
    return st;
  }
  for (int c = 0; c < m; c++) {
    B->spos[c] = cmask[c] ? B->nspc : -1;
    if (cmask[c]) B->spc[B->nspc++] = c;
  }
  free(cmask);
  int k = B->nspc > 0 ? B->nspc : 1;
  /* the probes and the patch are dense in the reached columns: for a few
   * constraints a few dozen; with many (n_r ~ s) this path is not the one */
  double bytes = (double)k * (8.0 * (3.0 * m + s + (B->r - 1) * B->nr) + 12.0 * m);
  if (bytes > LTH_BVP_OP_PATCH_BYTES) {
    return lth_error_set(err, LTH_ENOMEM,
                         "collocation on the operator path: the thin factors of P reach %d of the "
                         "m = %d state columns, and their dense patch would take %.3g GB (this "
                         "path is for systems with few constraints, n_r = %d here)",
                         B->nspc, m, bytes / 1e9, B->nr);
  }
  B->X = lth_jet_alloc(m, k, 0, err);
  B->Y = B->X ? lth_jet_alloc(m, k, 0, err) : NULL;
  B->T = B->Y ? lth_jet_alloc(m, k, 0, err) : NULL;
  B->Z = B->T ? lth_jet_alloc(s, k, 0, err) : NULL;
  B->Sx = B->Z ? lth_jet_alloc((B->r - 1) * B->nr, k, 0, err) : NULL;
  if (!B->Sx) return lth_error_status(err);
  lth_jet_set_zero(B->X, 0);
  for (int q = 0; q < B->nspc; q++) B->X->c[B->spc[q] + (size_t)q * B->X->ld] = 1.0;
  B->X->order = 0;
  B->X->cols = B->nspc;
  B->Y->cols = B->T->cols = B->Z->cols = B->Sx->cols = B->nspc;
  return build_pattern(B, err);
}

/* Ahat's values at the decomposed point into B->av, g into B->gv. */
lth_status lth_bvpop_ahat_values(opbvp *B, lth_error *err) {
  int m = B->m, r = B->r;
  lth_status st = LTH_OK;
  memset(B->av, 0, (size_t)B->annz * sizeof(double));
  for (int k = 1; k < r && st == LTH_OK; k++) {
    int ck = lth_opsys_block_offset(B->sys, k), nk = lth_opsys_block_size(B->sys, k);
    for (int i = 1; i < r && st == LTH_OK; i++) {
      lth_opblock b;
      if (k < i - 1) continue;
      st = lth_oppoint_block(B->pt, i, k, &b, err);
      int ri = lth_opsys_block_offset(B->sys, i);
      for (int j = 0; j < nk && b.nnz && st == LTH_OK; j++) {
        int c = ck + j;
        if (B->spos[c] >= 0) continue; /* from the probe */
        for (int q = b.colptr[j]; q < b.colptr[j + 1]; q++) {
          int a = ri + b.rowind[q];
          for (int e = B->ap[c]; e < B->ap[c + 1]; e++) {
            if (B->ai[e] == a) {
              B->av[e] += b.val[q];
              break;
            }
          }
        }
      }
    }
  }
  /* the reached columns of Ahat (I - P): the reduced ODE is Clark's only on
   * range(I - P), and Ahat alone can be stiff off it (Gauss collocation then
   * loses its order 2s); v' = Ahat (I - P) v + g has the same solutions through
   * range(I - P(t0)), as the dense path's Ahat R_k */
  if (st == LTH_OK && B->nspc > 0) st = lth_oppoint_apply_P(B->pt, 1, B->X, B->T, err);
  if (st == LTH_OK && B->nspc > 0) st = lth_oppoint_apply_Ahat(B->pt, B->T, B->Y, err);
  for (int q = 0; q < B->nspc && st == LTH_OK; q++) {
    int c = B->spc[q];
    const double *y = B->Y->c + (size_t)q * B->Y->ld;
    double outside = 0.0;
    for (int a = 0; a < m; a++) B->mark[a] = -1;
    for (int e = B->ap[c]; e < B->ap[c + 1]; e++) B->mark[B->ai[e]] = e;
    for (int a = 0; a < m; a++) {
      if (B->mark[a] >= 0) {
        B->av[B->mark[a]] = y[a];
      } else {
        outside += fabs(y[a]);
      }
    }
    if (outside != 0.0) { /* the reach would be wrong: never a silent loss */
      st = lth_error_set_t(err, LTH_EINVAL, lth_oppoint_info(B->pt)->t,
                           "Ahat column %d has entries outside the thin factors' reach", c + 1);
    }
  }
  if (st == LTH_OK) st = lth_oppoint_g(B->pt, B->gv, err);
  return st;
}
