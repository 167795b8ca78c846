/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A tiny jet calculator for test code: every operation returns a new jet
 * owned by an arena, so printed formulas (Clark's appendix, reference
 * solutions) read almost like the paper.  Orders drop automatically. */
#ifndef LTH_JETCALC_H
#define LTH_JETCALC_H

#include <check.h>

#include "lth/jet.h"

#define JC_MAX 4096

typedef struct jc_arena {
  lth_jet *j[JC_MAX];
  int n;
} jc_arena;

static inline lth_jet *jc_new(jc_arena *a, int rows, int cols, int order) {
  ck_assert_int_lt(a->n, JC_MAX);
  lth_jet *J = lth_jet_alloc(rows, cols, order < 0 ? 0 : order, NULL);
  ck_assert_ptr_nonnull(J);
  J->order = order;
  a->j[a->n++] = J;
  return J;
}

static inline void jc_free(jc_arena *a) {
  for (int k = 0; k < a->n; k++) lth_jet_free(a->j[k]);
  a->n = 0;
}

static inline int jc_min(int x, int y) { return x < y ? x : y; }

/* A B */
static inline lth_jet *jc_mul(jc_arena *a, const lth_jet *A, const lth_jet *B) {
  lth_jet *C = jc_new(a, A->rows, B->cols, jc_min(A->order, B->order));
  ck_assert_int_eq(lth_jet_mul(A, B, C, NULL), 0);
  return C;
}
static inline lth_jet *jc_mul3(jc_arena *a, const lth_jet *A, const lth_jet *B, const lth_jet *C) {
  return jc_mul(a, jc_mul(a, A, B), C);
}
/* alpha A + beta B */
static inline lth_jet *jc_lin(jc_arena *a, double alpha, const lth_jet *A, double beta,
                              const lth_jet *B) {
  lth_jet *C = jc_new(a, A->rows, A->cols, jc_min(A->order, B->order));
  ck_assert_int_eq(lth_jet_copy(C, A, NULL), 0);
  lth_jet_scale(C, alpha);
  ck_assert_int_eq(lth_jet_axpy(beta, B, C, NULL), 0);
  return C;
}
static inline lth_jet *jc_add(jc_arena *a, const lth_jet *A, const lth_jet *B) {
  return jc_lin(a, 1.0, A, 1.0, B);
}
static inline lth_jet *jc_sub(jc_arena *a, const lth_jet *A, const lth_jet *B) {
  return jc_lin(a, 1.0, A, -1.0, B);
}
static inline lth_jet *jc_neg(jc_arena *a, const lth_jet *A) { return jc_lin(a, -1.0, A, 0.0, A); }
static inline lth_jet *jc_d(jc_arena *a, const lth_jet *A) {
  lth_jet *C = jc_new(a, A->rows, A->cols, A->order - 1);
  ck_assert_int_eq(lth_jet_deriv(C, A, NULL), 0);
  return C;
}
static inline lth_jet *jc_eye(jc_arena *a, int n, int order) {
  lth_jet *C = jc_new(a, n, n, order);
  lth_jet_set_identity(C, order);
  return C;
}
/* I - P */
static inline lth_jet *jc_comp(jc_arena *a, const lth_jet *P) {
  return jc_sub(a, jc_eye(a, P->rows, P->order), P);
}
static inline lth_jet *jc_inv(jc_arena *a, const lth_jet *M) {
  lth_jet *X = jc_new(a, M->rows, M->cols, M->order);
  ck_assert_int_eq(lth_jet_inverse(M, X, 0.0, NULL, NULL), 0);
  return X;
}
/* Copy of a block of J (0-based offsets). */
static inline lth_jet *jc_blk(jc_arena *a, const lth_jet *J, int r0, int c0, int rows, int cols) {
  lth_jet V = lth_jet_view(J, r0, c0, rows, cols);
  lth_jet *C = jc_new(a, rows, cols, J->order);
  ck_assert_int_eq(lth_jet_copy(C, &V, NULL), 0);
  return C;
}
/* Write B into the block of J at (r0, c0) (orders: J keeps the smaller). */
static inline void jc_put(lth_jet *J, int r0, int c0, const lth_jet *B) {
  lth_jet V = lth_jet_view(J, r0, c0, B->rows, B->cols);
  int keep = J->order;
  ck_assert_int_eq(lth_jet_copy(&V, B, NULL), 0);
  J->order = jc_min(keep, B->order);
}

#endif
