/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Linking lth from a control-design code: the singular LQR optimality system
 * of Clark's section 4.2 with time-varying A(t), B(t), H(t), defined through
 * C callbacks that deliver Taylor coefficients, then decomposed and checked.
 *
 *   x' = A x + B u,  lambda' = -H x - A' lambda,  0 = B' lambda   (index 3)
 *   A(t) = [0, 1; -(1 + 0.5 sin t), -0.1],  B(t) = [0; 1 + 0.2 cos t],
 *   H(t) = diag(1 + 0.3 sin 2t, 0.5)
 *
 * Build against an installed lth:
 *   cc -std=c11 lqr_callbacks.c $(pkg-config --cflags --libs lth) -lm
 */
#include <lth/decomp.h>
#include <lth/source.h>
#include <lth/system.h>
#include <lth/verify.h>
#include <math.h>
#include <stdio.h>

/* k-th Taylor coefficient of sin(w t) and cos(w t) at t. */
static double sin_k(int k, double w, double t) {
  double f = 1.0;
  for (int i = 2; i <= k; i++) f *= i;
  return pow(w, k) * sin(w * t + k * 1.5707963267948966) / f;
}
static double cos_k(int k, double w, double t) {
  double f = 1.0;
  for (int i = 2; i <= k; i++) f *= i;
  return pow(w, k) * cos(w * t + k * 1.5707963267948966) / f;
}

/* Callbacks fill coefficient k (k = 0..order) at coef + k*stride, column-major
 * with leading dimension ld; untouched entries are zero.  `sign` scales and
 * `transpose` selects the block of the optimality system. */
typedef struct {
  double sign;
  int transpose;
} blk;

#define SET(i, j, v)                                                                               \
  coef[k * stride + (b->transpose ? (j) + (size_t)(i)*ld : (i) + (size_t)(j)*ld)] = b->sign * (v)

static int A_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const blk *b = ctx;
  for (int k = 0; k <= order; k++) {
    SET(0, 1, k == 0 ? 1.0 : 0.0);
    SET(1, 0, -(k == 0 ? 1.0 : 0.0) - 0.5 * sin_k(k, 1.0, t));
    SET(1, 1, k == 0 ? -0.1 : 0.0);
  }
  return 0;
}

static int B_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const blk *b = ctx;
  for (int k = 0; k <= order; k++) {
    SET(1, 0, (k == 0 ? 1.0 : 0.0) + 0.2 * cos_k(k, 1.0, t));
  }
  return 0;
}

static int H_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const blk *b = ctx;
  for (int k = 0; k <= order; k++) {
    SET(0, 0, (k == 0 ? 1.0 : 0.0) + 0.3 * sin_k(k, 2.0, t));
    SET(1, 1, k == 0 ? 0.5 : 0.0);
  }
  return 0;
}

static void print_matrix(const char *name, const lth_jet *J) {
  printf("  %s =\n", name);
  for (int i = 0; i < J->rows; i++) {
    printf("   ");
    for (int j = 0; j < J->cols; j++) printf(" %11.6f", LTH_JET_AT(J, 0, i, j));
    printf("\n");
  }
}

int main(void) {
  static blk A11 = {1, 0}, A13 = {1, 0}, A21 = {-1, 0}, A22 = {-1, 1}, A32 = {1, 1};
  int n[3] = {2, 2, 1};
  lth_error err;
  lth_error_clear(&err);
  lth_system *sys = lth_system_alloc(3, n, &err);
  if (!sys || lth_system_set_A(sys, 1, 1, lth_source_callback(2, 2, A_cb, &A11, &err), &err) ||
      lth_system_set_A(sys, 1, 3, lth_source_callback(2, 1, B_cb, &A13, &err), &err) ||
      lth_system_set_A(sys, 2, 1, lth_source_callback(2, 2, H_cb, &A21, &err), &err) ||
      lth_system_set_A(sys, 2, 2, lth_source_callback(2, 2, A_cb, &A22, &err), &err) ||
      lth_system_set_A(sys, 3, 2, lth_source_callback(1, 2, B_cb, &A32, &err), &err)) {
    fprintf(stderr, "lqr_callbacks: %s\n", err.message);
    return 1;
  }
  /* outputs of order 1: values and first derivatives (the check needs them) */
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 1, &err);
  lth_point *pt = lth_point_alloc(sys, 1, &err);
  lth_verify_ws *vw = lth_verify_ws_alloc(sys, &err);
  if (!ws || !pt || !vw) {
    fprintf(stderr, "lqr_callbacks: %s\n", err.message);
    return 1;
  }
  printf("singular LQR optimality DAE: index %d, s = %d, p = %d\n", pt->r, pt->s, pt->p);
  const double times[] = {0.0, 0.5, 1.0};
  int status = 0;
  for (int k = 0; k < 3; k++) {
    lth_verify_report rep;
    if (lth_decomp_at(ws, times[k], pt, &err) || lth_verify_at(vw, ws, pt, &rep, &err)) {
      char buf[1024];
      fprintf(stderr, "lqr_callbacks: %s\n", lth_error_format(&err, buf, sizeof buf));
      return 1;
    }
    printf("t = %g: cond(Pi) = %.4f, Pi = %.6f (= -B'HB)\n", times[k], pt->cond_pi,
           LTH_JET_AT(&pt->Pi, 0, 0, 0));
    print_matrix("P", &pt->P);
    print_matrix("Ahat", &pt->Ahat);
    print_matrix("Bhat", &pt->Bhat);
    printf("  Theorem 3 residual %.2e, projector identities %.2e, rank G = %d\n",
           rep.theorem3_linear, rep.commute, rep.rank_G);
    if (rep.worst > 1e-12 || rep.rank_G != pt->p) status = 1;
  }
  lth_verify_ws_free(vw);
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  lth_system_free(sys);
  if (status) fprintf(stderr, "lqr_callbacks: verification failed\n");
  return status;
}
