/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The orthonormal basis of the state space range(I - P) at a decomposed point
 * (lth_state_basis), as a caller uses it to parametrize consistent states:
 * Q^T Q = I, P Q = 0 and Q Q^T (I - P) = I - P, i.e. the columns span exactly
 * the state space, for random systems of index 2 to 4. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "lth/decomp.h"
#include "lth/ivp.h"
#include "testsys.h"
#include "testutil.h"

static double maxabs(const double *a, int n) {
  double mx = 0.0;
  for (int k = 0; k < n; k++) mx = fmax(mx, fabs(a[k]));
  return mx;
}

START_TEST(test_state_basis_spans_state_space) {
  static const int sizes[][4] = {{3, 1}, {4, 2, 1}, {3, 3, 2}, {5, 3, 2, 1}};
  static const int rs[] = {2, 3, 3, 4};
  for (int c = 0; c < 4; c++) {
    ts_sys *S = ts_new(rs[c], sizes[c], 100 + c, 0.4, 0);
    lth_system *sys = ts_system(S);
    lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
    lth_point *pt = lth_point_alloc(sys, 0, NULL);
    ck_assert(ws && pt);
    int m = pt->m, p = pt->p;
    ck_assert_int_eq(p, lth_system_manifold_dim(sys));
    double *Q = malloc(sizeof(double) * (size_t)m * p + 1);
    double *R = malloc(sizeof(double) * (size_t)m * m + 1);
    for (double t = -0.8; t < 2.0; t += 0.7) {
      TU_ASSERT_OK(lth_decomp_at(ws, t, pt, NULL));
      TU_ASSERT_OK(lth_state_basis(pt, Q, NULL));
      const double *P = LTH_JET_COEF(&pt->P, 0);
      int ld = pt->P.ld;
      double pn = 0.0; /* ||P||_max: P is an oblique projector, possibly large */
      for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) pn = fmax(pn, fabs(P[i + j * ld]));
      double tol = 100.0 * m * DBL_EPSILON * (1.0 + pn);
      /* Q^T Q - I */
      for (int a = 0; a < p; a++)
        for (int b = 0; b < p; b++) {
          double s = 0.0;
          for (int i = 0; i < m; i++) s += Q[i + a * m] * Q[i + b * m];
          R[a + b * p] = s - (a == b);
        }
      ck_assert_msg(maxabs(R, p * p) <= 100.0 * m * DBL_EPSILON, "case %d t %g: Q^T Q - I = %g", c,
                    t, maxabs(R, p * p));
      /* P Q */
      for (int b = 0; b < p; b++)
        for (int i = 0; i < m; i++) {
          double s = 0.0;
          for (int l = 0; l < m; l++) s += P[i + l * ld] * Q[l + b * m];
          R[i + b * m] = s;
        }
      ck_assert_msg(maxabs(R, m * p) <= tol, "case %d t %g: P Q = %g", c, t, maxabs(R, m * p));
      /* Q Q^T (I - P) - (I - P): nothing of the state space is missing */
      for (int j = 0; j < m; j++)
        for (int i = 0; i < m; i++) {
          double s = 0.0;
          for (int l = 0; l < m; l++) {
            double qq = 0.0;
            for (int b = 0; b < p; b++) qq += Q[i + b * m] * Q[l + b * m];
            s += qq * ((l == j) - P[l + j * ld]);
          }
          R[i + j * m] = s - ((i == j) - P[i + j * ld]);
        }
      ck_assert_msg(maxabs(R, m * m) <= tol, "case %d t %g: Q Q^T (I - P) - (I - P) = %g", c, t,
                    maxabs(R, m * m));
    }
    free(Q);
    free(R);
    lth_point_free(pt);
    lth_decomp_ws_free(ws);
    lth_system_free(sys);
    ts_free(S);
  }
}
END_TEST

static Suite *state_basis_suite(void) {
  Suite *s = suite_create("state_basis");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_state_basis_spans_state_space);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(state_basis_suite)
