/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Working with decomposition results from C: keeping a result
 * (lth_point_copy), code that is handed only a workspace
 * (lth_decomp_ws_system, lth_decomp_ws_order), and the sampling error
 * estimates entry by entry (lth_decomp_error_entries) against the true
 * errors of sampled data. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/sampling_error.h"
#include "sampling_cases.h"
#include "testsys.h"
#include "testutil.h"

/* Every number of two points, jets coefficient by coefficient: identical. */
static void assert_same_point(const lth_point *a, const lth_point *b) {
  ck_assert(a->t == b->t && a->order == b->order);
  ck_assert(a->cond_pi == b->cond_pi && a->cond_chain == b->cond_chain);
  ck_assert(a->pi_sign == b->pi_sign && a->pi_inv_norm == b->pi_inv_norm);
  ck_assert(a->chain_norm == b->chain_norm && a->cond_interval == b->cond_interval);
  ck_assert(a->r == b->r && a->s == b->s && a->m == b->m && a->p == b->p);
  const lth_jet *ja[] = {&a->Pi, &a->P, &a->Ahat, &a->g, &a->Bhat, &a->q, &a->G};
  const lth_jet *jb[] = {&b->Pi, &b->P, &b->Ahat, &b->g, &b->Bhat, &b->q, &b->G};
  for (int k = 0; k < 7 + a->r - 1; k++) {
    const lth_jet *x = k < 7 ? ja[k] : &a->Q[k - 7], *y = k < 7 ? jb[k] : &b->Q[k - 7];
    ck_assert(x->rows == y->rows && x->cols == y->cols && x->order == y->order);
    for (int m = 0; m <= x->order; m++)
      for (int j = 0; j < x->cols; j++)
        for (int i = 0; i < x->rows; i++)
          ck_assert_msg(LTH_JET_AT(x, m, i, j) == LTH_JET_AT(y, m, i, j),
                        "jet %d order %d (%d,%d) differs", k, m, i, j);
  }
}

/* A copy is the same result and independent of the original: decomposing
 * into the original again leaves the copy as it was. */
START_TEST(test_point_copy) {
  const int n[3] = {3, 2, 1};
  ts_sys *S = ts_new(3, n, 31, 0.4, 1);
  lth_system *sys = ts_system(S);
  enum { ORDER = 2 };
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, ORDER, NULL);
  lth_point *a = lth_point_alloc(sys, ORDER, NULL), *keep = lth_point_alloc(sys, ORDER, NULL),
            *again = lth_point_alloc(sys, ORDER, NULL);
  ck_assert(ws && a && keep && again);
  TU_ASSERT_OK(lth_decomp_at(ws, 0.615, a, NULL));
  TU_ASSERT_OK(lth_point_copy(keep, a, NULL));
  assert_same_point(keep, a);
  TU_ASSERT_OK(lth_decomp_at(ws, 1.9, a, NULL));
  TU_ASSERT_OK(lth_decomp_at(ws, 0.615, again, NULL));
  assert_same_point(keep, again);
  ck_assert(a->t == 1.9 && keep->t == 0.615);
  /* a lower-order holder keeps the orders it has room for */
  lth_point *low = lth_point_alloc(sys, 0, NULL);
  TU_ASSERT_OK(lth_point_copy(low, again, NULL));
  ck_assert_int_eq(low->order, 0);
  ck_assert(LTH_JET_AT(&low->P, 0, 1, 2) == LTH_JET_AT(&again->P, 0, 1, 2));
  /* a point of another system is refused */
  const int n2[2] = {2, 1};
  ts_sys *S2 = ts_new(2, n2, 32, 0.4, 1);
  lth_system *sys2 = ts_system(S2);
  lth_point *other = lth_point_alloc(sys2, ORDER, NULL);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_point_copy(other, a, &err), LTH_EDIM);
  lth_point_free(other);
  lth_system_free(sys2);
  ts_free(S2);
  lth_point_free(low);
  lth_point_free(a);
  lth_point_free(keep);
  lth_point_free(again);
  lth_decomp_ws_free(ws);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Code handed only a workspace sizes its result from it. */
static lth_point *decompose_with(lth_decomp_ws *ws, double t) {
  lth_point *pt = lth_point_alloc(lth_decomp_ws_system(ws), lth_decomp_ws_order(ws), NULL);
  ck_assert_ptr_nonnull(pt);
  TU_ASSERT_OK(lth_decomp_at(ws, t, pt, NULL));
  return pt;
}

/* The workspace knows its system and order; a result sized from them holds
 * every order the workspace computes, and the derivative of Pi there matches
 * a difference quotient of Pi's value (to the quotient's own error). */
START_TEST(test_workspace_accessors) {
  const int n[3] = {2, 2, 2};
  ts_sys *S = ts_new(3, n, 47, 0.3, 0);
  lth_system *sys = ts_system(S);
  for (int order = 0; order <= 3; order++) {
    lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, order, NULL);
    ck_assert_ptr_eq(lth_decomp_ws_system(ws), sys);
    ck_assert_int_eq(lth_decomp_ws_order(ws), order);
    lth_point *pt = decompose_with(ws, 0.4);
    ck_assert_int_eq(pt->order, order);
    ck_assert_int_eq(pt->Pi.order, order);
    if (order >= 1) {
      const double h = 1e-5;
      lth_point *lo = decompose_with(ws, 0.4 - h), *hi = decompose_with(ws, 0.4 + h);
      for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
          double fd = (LTH_JET_AT(&hi->Pi, 0, i, j) - LTH_JET_AT(&lo->Pi, 0, i, j)) / (2 * h);
          double d1 = LTH_JET_AT(&pt->Pi, 1, i, j),
                 d3 = LTH_JET_AT(&pt->Pi, order >= 3 ? 3 : 1, i, j);
          /* central difference: error h^2 |Pi'''|/6 (+ rounding eps/h) */
          double tol = h * h * (order >= 3 ? fabs(d3) : 10.0) + 1e3 * DBL_EPSILON / h;
          ck_assert_msg(fabs(fd - d1) <= tol, "Pi' (%d,%d): %.12g vs %.12g", i, j, d1, fd);
        }
      lth_point_free(lo);
      lth_point_free(hi);
    }
    lth_point_free(pt);
    lth_decomp_ws_free(ws);
  }
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* The estimates entry by entry: the sizes of each output; their largest is
 * lth_decomp_errest.abs and, over the output's values at the point,
 * rel; and the entry where the true error (against the exact system) is
 * largest is estimated at no less than a tenth of it, as the output-wise
 * estimate is (tests/unit/samples/test_samples_systems.c). */
START_TEST(test_error_entries) {
  static const char *cases[] = {"i2_c_n8", "i3_u", "i4_c_n5"};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char ref[8];
    snprintf(ref, sizeof ref, "%.2s", cases[c]);
    lth_problem *pe = sc_load(ref, 0), *ps = sc_load(cases[c], 0);
    const lth_system *se = lth_problem_system(pe), *ss = lth_problem_system(ps);
    lth_error err;
    lth_decomp_error *de = lth_decomp_error_alloc(ss, &err);
    lth_decomp_ws *we = lth_decomp_ws_alloc(se, 0, &err);
    lth_point *pt = lth_point_alloc(se, 0, &err);
    ck_assert(de && we && pt);
    int m = lth_system_state_dim(ss), s = lth_system_size(ss);
    const int want_rows[LTH_NOUT] = {m, m, m, s, s, s}, want_cols[LTH_NOUT] = {m, m, 1, m, 1, m};
    static double vref[8192], vest[8192];
    size_t oref[7], oest[7];
    for (int j = 0; j < SC_NTIMES; j += 4) {
      double t = sc_time(j);
      lth_decomp_errest es;
      TU_ASSERT_OK(lth_decomp_error_at(de, t, &es, &err));
      TU_ASSERT_OK(lth_decomp_at(we, t, pt, &err));
      sc_canonical(pt, vref, oref);
      sc_canonical(lth_decomp_error_point(de), vest, oest);
      for (int o = 0; o < LTH_NOUT; o++) {
        int rows = -1, cols = -1;
        const double *e = lth_decomp_error_entries(de, o, &rows, &cols);
        ck_assert_ptr_nonnull(e);
        ck_assert_int_eq(rows, want_rows[o]);
        ck_assert_int_eq(cols, want_cols[o]);
        ck_assert_uint_eq(oest[o + 1] - oest[o], (size_t)rows * cols);
        double emax = 0.0, vmax = 0.0, tmax = -1.0, at_tmax = 0.0;
        for (int k = 0; k < rows * cols; k++) {
          ck_assert_msg(e[k] >= 0.0 && isfinite(e[k]), "%s %s entry %d: %g", cases[c],
                        lth_decomp_output_name(o), k, e[k]);
          emax = fmax(emax, e[k]);
          vmax = fmax(vmax, fabs(vest[oest[o] + k]));
          double d = fabs(vest[oest[o] + k] - vref[oref[o] + k]);
          if (d > tmax) {
            tmax = d;
            at_tmax = e[k];
          }
        }
        ck_assert_msg(emax == es.abs[o], "%s %s: largest entry %g, abs %g", cases[c],
                      lth_decomp_output_name(o), emax, es.abs[o]);
        ck_assert_msg(fabs(es.rel[o] - emax / fmax(1.0, vmax)) <= 64 * DBL_EPSILON * es.rel[o],
                      "%s %s: rel %g vs %g", cases[c], lth_decomp_output_name(o), es.rel[o],
                      emax / fmax(1.0, vmax));
        double scale = fmax(1.0, vmax);
        ck_assert_msg(tmax <= 1e-13 * scale || at_tmax >= 0.1 * tmax,
                      "%s t = %g %s: largest true error %.3e estimated %.3e", cases[c], t,
                      lth_decomp_output_name(o), tmax, at_tmax);
      }
    }
    ck_assert_ptr_null(lth_decomp_error_entries(de, LTH_NOUT, &m, &s));
    ck_assert_ptr_null(lth_decomp_error_entries(de, -1, &m, &s));
    lth_point_free(pt);
    lth_decomp_ws_free(we);
    lth_decomp_error_free(de);
    lth_problem_free(pe);
    lth_problem_free(ps);
  }
}
END_TEST

static Suite *decomp_results_suite(void) {
  Suite *s = suite_create("decomp_results");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_point_copy);
  tcase_add_test(tc, test_workspace_accessors);
  tcase_add_test(tc, test_error_entries);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(decomp_results_suite)
