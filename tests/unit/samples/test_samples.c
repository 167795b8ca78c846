/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled data with a fixed degree (lib/samples*.c): exactness on
 * polynomials, convergence order and error estimate on smooth data, errors.
 * The automatic mode: tests/unit/samples/test_samples_auto.c; CSV files:
 * tests/unit/samples/test_samples_csv.c. */
#include <string.h>

#include "lth/samples.h"
#include "testutil.h"

/* Coefficients 0..order of a source at t (must succeed). */
static lth_jet *fill_at(const lth_source *src, double t, int order) {
  lth_jet *J = lth_jet_alloc(lth_source_rows(src), lth_source_cols(src), order, NULL);
  size_t wn = lth_source_work_size(src, order);
  double *work = malloc((wn ? wn : 1) * sizeof *work);
  lth_error err;
  int st = lth_source_fill(src, t, order, J, work, &err);
  ck_assert_msg(st == LTH_OK, "fill at t = %g: %s", t, err.message);
  free(work);
  return J;
}

/* Polynomials of degree <= K through non-uniform samples come back exactly:
 * Taylor coefficients at t of p(x) = sum_i c_i x^i are sum_i C(i,m) c_i t^(i-m). */
START_TEST(test_polynomials_exact) {
  enum { R = 2, C = 3, K = 4, N = 23 };
  double coef[R * C][K + 1], times[N], values[N * R * C];
  tu_seed(2385);
  for (int e = 0; e < R * C; e++) {
    for (int i = 0; i <= K; i++) {
      coef[e][i] = i <= e % (K + 1) ? tu_uniform(-2.0, 2.0) : 0.0; /* degrees 0..K */
    }
  }
  for (int k = 0; k < N; k++) {
    times[k] = -1.0 + 0.1 * k + 0.03 * sin(3.0 * k);
    for (int e = 0; e < R * C; e++) {
      double v = 0.0;
      for (int i = K; i >= 0; i--) {
        v = v * times[k] + coef[e][i];
      }
      values[k * R * C + e] = v;
    }
  }
  lth_error err;
  lth_source *src = lth_source_samples(R, C, N, times, values, K, &err);
  ck_assert_msg(src != NULL, "%s", err.message);
  ck_assert(lth_source_is_samples(src) && lth_samples_degree(src) == K);
  ck_assert_int_eq(lth_source_is_exact(src), 0);
  const double *tt;
  ck_assert_uint_eq(lth_samples_times(src, &tt), N);
  double lo, hi;
  lth_source_domain(src, &lo, &hi);
  ck_assert(lo == times[0] && hi == times[N - 1]);
  double probes[] = {times[0], times[0] + 0.017,    times[5],
                     0.1234,   times[N - 2] + 0.04, times[N - 1]};
  for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
    double t = probes[p];
    lth_jet *J = fill_at(src, t, K), *ref = lth_jet_alloc(R, C, K, NULL);
    for (int e = 0; e < R * C; e++) {
      for (int m = 0; m <= K; m++) {
        double a = 0.0, binom = 1.0; /* C(i, m) for i = m.. */
        for (int i = m; i <= K; i++) {
          a += binom * coef[e][i] * pow(t, i - m);
          binom = binom * (i + 1) / (i + 1 - m);
        }
        LTH_JET_AT(ref, m, e / C, e % C) = a;
      }
    }
    double rel = tu_jet_relerr(J, ref);
    ck_assert_msg(rel < 1e-10, "t = %g: relative error %g", t, rel);
    double est[K + 1];
    TU_ASSERT_OK(lth_samples_error_estimate(src, t, K, est, NULL));
    for (int m = 0; m <= K; m++) {
      ck_assert_msg(est[m] < 1e-8, "estimate %g at order %d for exact data", est[m], m);
    }
    lth_jet_free(J);
    lth_jet_free(ref);
  }
  lth_source_free(src);
}
END_TEST

/* sin(2.3 t + 0.4) sampled with spacing h; returns the source. */
static lth_source *sampled_sine(double h, int K) {
  size_t n = (size_t)lround(1.0 / h) + 1;
  double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
  for (size_t k = 0; k < n; k++) {
    t[k] = k * h;
    v[k] = sin(2.3 * t[k] + 0.4);
  }
  lth_error err;
  lth_source *src = lth_source_samples(1, 1, n, t, v, K, &err);
  ck_assert_msg(src != NULL, "%s", err.message);
  free(t);
  free(v);
  return src;
}

/* m-th derivative of sin(2.3 t + 0.4). */
static double sine_deriv(double t, int m) {
  double w = pow(2.3, m), x = 2.3 * t + 0.4;
  switch (m % 4) {
  case 0:
    return w * sin(x);
  case 1:
    return w * cos(x);
  case 2:
    return -w * sin(x);
  default:
    return -w * cos(x);
  }
}

/* |m! a_m - f^(m)(t)| for m = 1..3, and the error estimates. */
static void sine_errors(const lth_source *src, double t, double err3[4], double est[6]) {
  lth_jet *J = fill_at(src, t, 5);
  double fact = 1.0;
  for (int m = 1; m <= 3; m++) {
    fact *= m;
    err3[m] = fabs(fact * LTH_JET_AT(J, m, 0, 0) - sine_deriv(t, m));
  }
  TU_ASSERT_OK(lth_samples_error_estimate(src, t, 5, est, NULL));
  lth_jet_free(J);
}

/* K = 5: derivative m converges like h^(K+1-m); the estimate tracks the error. */
START_TEST(test_sine_convergence_and_estimate) {
  const int K = 5;
  lth_source *s1 = sampled_sine(0.01, K), *s2 = sampled_sine(0.005, K);
  double probes[] = {0.37, 0.5, 0.81}; /* sample times of both grids */
  for (size_t p = 0; p < sizeof probes / sizeof probes[0]; p++) {
    double e1[4], e2[4], est1[6], est2[6];
    sine_errors(s1, probes[p], e1, est1);
    sine_errors(s2, probes[p], e2, est2);
    for (int m = 1; m <= 3; m++) {
      double order = log2(e1[m] / e2[m]), theory = K + 1 - m;
      ck_assert_msg(fabs(order - theory) < 0.5,
                    "t = %g, derivative %d: observed order %.2f, "
                    "expected %.0f (errors %.3g, %.3g)",
                    probes[p], m, order, theory, e1[m], e2[m]);
      double r1 = est1[m] / e1[m], r2 = est2[m] / e2[m];
      ck_assert_msg(r1 > 1.0 / 30 && r1 < 30 && r2 > 1.0 / 30 && r2 < 30,
                    "t = %g, derivative %d: estimate / error = %.3g, %.3g", probes[p], m, r1, r2);
    }
  }
  /* between samples and near the ends the estimate stays within the same factor */
  double others[] = {0.0, 0.0123, 0.4567, 0.9988, 1.0};
  for (size_t p = 0; p < sizeof others / sizeof others[0]; p++) {
    double e[4], est[6];
    sine_errors(s1, others[p], e, est);
    for (int m = 1; m <= 3; m++) {
      double r = est[m] / e[m];
      ck_assert_msg(r > 1.0 / 30 && r < 30, "t = %g, derivative %d: estimate / error = %.3g",
                    others[p], m, r);
    }
  }
  lth_source_free(s1);
  lth_source_free(s2);
}
END_TEST

START_TEST(test_order_and_range_errors) {
  lth_source *src = sampled_sine(0.1, 3);
  lth_jet *J = lth_jet_alloc(1, 1, 6, NULL);
  size_t wn = lth_source_work_size(src, 6);
  double *work = malloc(wn * sizeof *work), est[8];
  lth_error err;
  ck_assert_int_eq(lth_source_fill(src, 0.5, 4, J, work, &err), LTH_EORDER);
  ck_assert(err.has_t && err.t == 0.5);
  ck_assert_ptr_nonnull(strstr(err.message, "sampling order"));
  ck_assert_int_eq(lth_samples_error_estimate(src, 0.5, 4, est, &err), LTH_EORDER);
  ck_assert_int_eq(lth_source_fill(src, 1.01, 2, J, work, &err), LTH_ERANGE);
  ck_assert(err.has_t && err.t == 1.01);
  ck_assert_int_eq(lth_source_fill(src, -1e-9, 2, J, work, &err), LTH_ERANGE);
  ck_assert_int_eq(lth_samples_error_estimate(src, 1.5, 2, est, &err), LTH_ERANGE);
  ck_assert_int_eq(lth_source_fill(src, 1.0, 3, J, work, &err), LTH_OK);
  /* exactly K+1 samples: the fallback estimate (degree K vs K-1) */
  double t[4] = {0, 0.3, 0.5, 1.1}, v[4] = {1, 2, 0, 5};
  lth_source *small = lth_source_samples(1, 1, 4, t, v, 3, &err);
  ck_assert_ptr_nonnull(small);
  TU_ASSERT_OK(lth_samples_error_estimate(small, 0.7, 3, est, &err));
  ck_assert(est[3] > 0.0 && isfinite(est[0]));
  /* creation errors */
  ck_assert_ptr_null(lth_source_samples(1, 1, 4, t, v, 4, &err));
  ck_assert_int_eq(err.status, LTH_ESAMPLE);
  double tbad[4] = {0, 0.3, 0.3, 1.1};
  ck_assert_ptr_null(lth_source_samples(1, 1, 4, tbad, v, 2, &err));
  ck_assert_int_eq(err.status, LTH_ESAMPLE);
  ck_assert_ptr_null(lth_source_samples(1, 1, 4, t, v, -1, &err));
  ck_assert_int_eq(err.status, LTH_EINVAL);
  ck_assert_ptr_null(lth_source_samples(1, 1, 4, t, v, 31, &err));
  ck_assert_int_eq(err.status, LTH_EINVAL);
  lth_source_free(small);
  free(work);
  lth_jet_free(J);
  lth_source_free(src);
}
END_TEST

static Suite *samples_suite(void) {
  Suite *s = suite_create("samples");
  TCase *tc = tcase_create("samples");
  tcase_add_test(tc, test_polynomials_exact);
  tcase_add_test(tc, test_sine_convergence_and_estimate);
  tcase_add_test(tc, test_order_and_range_errors);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(samples_suite)
