/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled data with the automatic choice of degree and window (lib/samples*.c):
 * non-uniform samples (Chebyshev-Lobatto, clustered, irregular with gaps) as
 * accurate as uniform ones and as the best fixed degree; the noise level
 * estimated from the data or declared (also by `sampling noise` in a data
 * file); the error estimate of the derivatives; orders and errors. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <unistd.h>

#include "lth/problem.h"
#include "lth/samples.h"
#include "testutil.h"

/* f(t) = sin(2.3 t + 0.4) + 0.5 / (1.7 + t): derivative m at t. */
static double f_deriv(double t, int m) {
  double w = pow(2.3, m), x = 2.3 * t + 0.4, s;
  switch (m % 4) {
  case 0:
    s = sin(x);
    break;
  case 1:
    s = cos(x);
    break;
  case 2:
    s = -sin(x);
    break;
  default:
    s = -cos(x);
    break;
  }
  double r = 0.5 / (1.7 + t), fact = 1.0; /* d^m/dt^m 0.5/(1.7+t) = (-1)^m m! 0.5/(1.7+t)^(m+1) */
  for (int k = 1; k <= m; k++) {
    fact *= k;
    r /= 1.7 + t;
  }
  return w * s + (m % 2 ? -1.0 : 1.0) * fact * r;
}

/* Gaussian deviate (Box-Muller on the tests' deterministic generator). */
static double gauss(void) {
  double u = tu_uniform(1e-300, 1.0), v = tu_uniform(0.0, 1.0);
  return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

enum { SET_UNIFORM, SET_CHEBYSHEV, SET_CLUSTERED, SET_IRREGULAR, NSETS };
static const char *set_names[] = {"uniform 201", "Chebyshev-Lobatto 101", "clustered 151",
                                  "irregular 160"};

/* Sample times of a set on [-1, 1]; returns n. */
static size_t sample_times(int set, double *t) {
  size_t n = 0;
  tu_seed(7919 + (uint64_t)set);
  switch (set) {
  case SET_UNIFORM:
    for (; n < 201; n++) t[n] = -1.0 + 0.01 * (double)n;
    break;
  case SET_CHEBYSHEV:
    for (; n < 101; n++) t[n] = -cos(M_PI * (double)n / 100.0);
    break;
  case SET_CLUSTERED: /* dense near t = 0.3, sparse at the ends */
    for (; n < 151; n++) {
      double s = -1.0 + 2.0 * (double)n / 150.0;
      t[n] = 0.3 + (s < 0 ? 1.3 : 0.7) * s * fabs(s);
    }
    break;
  default: /* jittered uniform grid with about a fifth of the samples missing */
    for (int k = 0; k <= 200; k++) {
      double tk = -1.0 + 0.01 * k + (k > 0 && k < 200 ? tu_uniform(-0.004, 0.004) : 0.0);
      if (k == 0 || k == 200 || tu_uniform(0.0, 1.0) > 0.2) {
        t[n++] = tk;
      }
    }
    break;
  }
  t[0] = -1.0;
  t[n - 1] = 1.0;
  return n;
}

static lth_source *sampled_f(int set, double sigma, const lth_samples_opts *o) {
  double t[256], v[256];
  size_t n = sample_times(set, t);
  tu_seed(104729 + (uint64_t)set);
  for (size_t k = 0; k < n; k++) {
    v[k] = f_deriv(t[k], 0) + sigma * gauss();
  }
  lth_error err;
  lth_source *src = lth_source_samples_opts(1, 1, n, t, v, o, &err);
  ck_assert_msg(src != NULL, "%s", err.message);
  return src;
}

/* Largest error of derivatives 0..3 over interior times (and the largest
 * estimate when est != NULL). */
static void deriv_errors(const lth_source *src, double *errm, double *est) {
  lth_jet *J = lth_jet_alloc(1, 1, 3, NULL);
  double *work = malloc((lth_source_work_size(src, 3) + 1) * sizeof *work), e[4];
  for (int m = 0; m <= 3; m++) {
    errm[m] = 0.0;
    if (est) est[m] = 0.0;
  }
  for (int j = 0; j <= 40; j++) {
    double t = -0.95 + 0.0475 * j + 0.0011;
    lth_error err;
    ck_assert_msg(lth_source_fill(src, t, 3, J, work, &err) == LTH_OK, "%s", err.message);
    double fact = 1.0;
    for (int m = 0; m <= 3; m++) {
      fact *= m > 1 ? m : 1;
      errm[m] = fmax(errm[m], fabs(fact * LTH_JET_AT(J, m, 0, 0) - f_deriv(t, m)));
    }
    if (est) {
      TU_ASSERT_OK(lth_samples_error_estimate(src, t, 3, e, NULL));
      for (int m = 0; m <= 3; m++) est[m] = fmax(est[m], e[m]);
    }
  }
  free(work);
  lth_jet_free(J);
}

/* Every sample set: the automatic choice within 10x of the best fixed degree
 * 4..10 for every derivative, below an absolute level, and its estimate
 * within a factor 10 of its error. */
START_TEST(test_nonuniform_samples) {
  static const double level[4] = {1e-12, 1e-10, 1e-8, 1e-6};
  for (int set = 0; set < NSETS; set++) {
    lth_source *a = sampled_f(set, 0.0, NULL);
    double ea[4], est[4], best[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    deriv_errors(a, ea, est);
    for (int K = 4; K <= 10; K++) {
      lth_samples_opts o;
      lth_samples_opts_init(&o);
      o.degree = K;
      lth_source *f = sampled_f(set, 0.0, &o);
      double ef[4];
      deriv_errors(f, ef, NULL);
      for (int m = 0; m <= 3; m++) best[m] = fmin(best[m], ef[m]);
      lth_source_free(f);
    }
    for (int m = 0; m <= 3; m++) {
      ck_assert_msg(ea[m] <= 10.0 * best[m] && ea[m] <= level[m],
                    "%s, derivative %d: automatic %.3e, best fixed %.3e", set_names[set], m, ea[m],
                    best[m]);
      ck_assert_msg(est[m] >= 0.1 * ea[m] && est[m] <= 30.0 * fmax(ea[m], 1e-15),
                    "%s, derivative %d: estimate %.3e, error %.3e", set_names[set], m, est[m],
                    ea[m]);
    }
    lth_source_free(a);
  }
}
END_TEST

/* The noise level estimated from the data, and the accuracy that follows. */
START_TEST(test_noise_estimate) {
  static const double sigmas[] = {1e-7, 1e-4};
  for (int set = 0; set < NSETS; set++) {
    lth_source *clean = sampled_f(set, 0.0, NULL);
    int kind = -1;
    double s0 = lth_samples_noise(clean, &kind);
    ck_assert_int_eq(kind, LTH_SAMPLES_NOISE_ESTIMATED);
    ck_assert_msg(s0 < 1e-15, "%s: noise %.3e estimated for exact data", set_names[set], s0);
    lth_source_free(clean);
    for (size_t k = 0; k < 2; k++) {
      lth_source *src = sampled_f(set, sigmas[k], NULL);
      double s = lth_samples_noise(src, NULL), e[4], est[4];
      ck_assert_msg(s > 0.7 * sigmas[k] && s < 1.4 * sigmas[k], "%s: noise %.3e estimated as %.3e",
                    set_names[set], sigmas[k], s);
      deriv_errors(src, e, est);
      for (int m = 0; getenv("LTH_SAMPLING_VERBOSE") && m <= 3; m++) {
        printf("%-22s noise %.0e  derivative %d: error %.2e estimate %.2e (ratio %.2f)\n",
               set_names[set], sigmas[k], m, e[m], est[m], est[m] / e[m]);
      }
      /* graceful: the value to about the noise, derivatives worse by powers of the spacing */
      ck_assert_msg(e[0] < 3.0 * sigmas[k] && e[1] < 300.0 * sigmas[k],
                    "%s, noise %.0e: errors %.3e %.3e", set_names[set], sigmas[k], e[0], e[1]);
      for (int m = 0; m <= 3; m++) {
        ck_assert_msg(est[m] >= 0.3 * e[m] && est[m] <= 20.0 * e[m],
                      "%s, noise %.0e, derivative %d: estimate %.3e, error %.3e", set_names[set],
                      sigmas[k], m, est[m], e[m]);
      }
      lth_source_free(src);
    }
  }
}
END_TEST

START_TEST(test_declared_noise) {
  lth_samples_opts o;
  lth_samples_opts_init(&o);
  ck_assert_int_eq(o.degree, LTH_SAMPLES_AUTO);
  o.noise_kind = LTH_SAMPLES_NOISE_ABSOLUTE;
  o.noise = 3e-6;
  lth_source *a = sampled_f(SET_UNIFORM, 0.0, &o);
  int kind = -1;
  ck_assert(lth_samples_noise(a, &kind) == 3e-6 && kind == LTH_SAMPLES_NOISE_ABSOLUTE);
  o.noise_kind = LTH_SAMPLES_NOISE_RELATIVE;
  o.noise = 1e-6;
  lth_source *r = sampled_f(SET_UNIFORM, 0.0, &o);
  double t[256];
  size_t n = sample_times(SET_UNIFORM, t);
  double vmax = 0.0;
  for (size_t k = 0; k < n; k++) vmax = fmax(vmax, fabs(f_deriv(t[k], 0)));
  ck_assert(fabs(lth_samples_noise(r, &kind) - 1e-6 * vmax) < 1e-20 &&
            kind == LTH_SAMPLES_NOISE_RELATIVE);
  /* a declared noise level changes the choice: larger windows for derivatives */
  lth_source *clean = sampled_f(SET_UNIFORM, 0.0, NULL);
  int K0, K1;
  size_t N0, N1;
  lth_error err;
  TU_ASSERT_OK(lth_samples_fit_at(clean, 0.1, 2, &K0, &N0, &err));
  TU_ASSERT_OK(lth_samples_fit_at(a, 0.1, 2, &K1, &N1, &err));
  ck_assert_msg(N1 > N0 || K1 < K0, "noise 3e-6 left the fit at degree %d on %zu samples", K1, N1);
  ck_assert(K0 >= 2 && K0 <= 16 && N0 >= (size_t)K0 + 3 && N0 <= n);
  /* invalid levels */
  o.noise = -1.0;
  ck_assert_ptr_null(lth_source_samples_opts(1, 1, n, t, t, &o, &err));
  ck_assert_int_eq(err.status, LTH_EINVAL);
  o.noise = NAN;
  ck_assert_ptr_null(lth_source_samples_opts(1, 1, n, t, t, &o, &err));
  lth_source_free(a);
  lth_source_free(r);
  lth_source_free(clean);
}
END_TEST

/* Polynomials of degree <= 6 come back exactly (to rounding). */
START_TEST(test_polynomials_auto) {
  enum { N = 90 };
  double t[N], v[N], c[7] = {0.31, -1.2, 0.7, 2.2, -0.45, 0.13, -0.08};
  tu_seed(31);
  for (int k = 0; k < N; k++) {
    t[k] = -2.0 + 4.0 * k / (N - 1) + (k > 0 && k < N - 1 ? tu_uniform(-0.01, 0.01) : 0.0);
    v[k] = 0.0;
    for (int i = 6; i >= 0; i--) v[k] = v[k] * t[k] + c[i];
  }
  lth_error err;
  lth_source *src = lth_source_samples(1, 1, N, t, v, LTH_SAMPLES_AUTO, &err);
  ck_assert_ptr_nonnull(src);
  lth_jet *J = lth_jet_alloc(1, 1, 4, NULL);
  double *work = malloc(lth_source_work_size(src, 4) * sizeof *work);
  for (double x = -1.9; x < 1.95; x += 0.137) {
    TU_ASSERT_OK(lth_source_fill(src, x, 4, J, work, &err));
    for (int m = 0; m <= 4; m++) {
      double a = 0.0, binom = 1.0;
      for (int i = m; i <= 6; i++) {
        a += binom * c[i] * pow(x, i - m);
        binom = binom * (i + 1) / (i + 1 - m);
      }
      ck_assert_msg(fabs(LTH_JET_AT(J, m, 0, 0) - a) < 1e-10 * fmax(1.0, fabs(a)),
                    "t = %g, coefficient %d: %.17g, exact %.17g", x, m, LTH_JET_AT(J, m, 0, 0), a);
    }
  }
  free(work);
  lth_jet_free(J);
  lth_source_free(src);
}
END_TEST

START_TEST(test_orders_and_errors) {
  double t[40], v[40];
  for (int k = 0; k < 40; k++) {
    t[k] = 0.1 * k;
    v[k] = exp(-t[k]);
  }
  lth_error err;
  lth_source *src = lth_source_samples(1, 1, 40, t, v, LTH_SAMPLES_AUTO, &err);
  ck_assert_int_eq(lth_samples_degree(src), LTH_SAMPLES_AUTO);
  ck_assert_int_eq(lth_samples_max_order(src), 12);
  lth_jet *J = lth_jet_alloc(1, 1, 13, NULL);
  double *work = malloc(lth_source_work_size(src, 13) * sizeof *work), est[14];
  ck_assert_int_eq(lth_source_fill(src, 1.234, 13, J, work, &err), LTH_EORDER);
  ck_assert(err.has_t && err.t == 1.234 && strstr(err.message, "up to order 12"));
  /* an order above the kept ones is chosen and fitted on demand */
  TU_ASSERT_OK(lth_source_fill(src, 1.234, 8, J, work, &err));
  ck_assert(fabs(LTH_JET_AT(J, 8, 0, 0) - exp(-1.234) / 40320.0) < 1e-6 / 40320.0);
  /* the alternative fit differs from the chosen one by about the estimate */
  lth_jet *A = lth_jet_alloc(1, 1, 3, NULL);
  size_t wn = lth_samples_error_work_size(src, 3);
  double *w2 = malloc(wn * sizeof *w2);
  TU_ASSERT_OK(lth_source_fill(src, 2.05, 3, J, work, &err));
  TU_ASSERT_OK(lth_samples_fill_alternative(src, 2.05, 3, A, w2, &err));
  TU_ASSERT_OK(lth_samples_error_jet(src, 2.05, 3, est, NULL, w2, &err));
  double fact = 1.0;
  for (int m = 0; m <= 3; m++) {
    fact *= m > 1 ? m : 1;
    double d = fact * fabs(LTH_JET_AT(A, m, 0, 0) - LTH_JET_AT(J, m, 0, 0));
    ck_assert_msg(d <= 1.01 * est[m], "order %d: alternative differs by %.3e, estimate %.3e", m, d,
                  est[m]);
  }
  ck_assert_int_eq(lth_samples_error_estimate(src, 4.5, 2, est, &err), LTH_ERANGE);
  lth_jet *W = lth_jet_alloc(2, 1, 3, NULL);
  ck_assert_int_eq(lth_samples_fill_alternative(src, 2.0, 3, W, w2, &err), LTH_EDIM);
  lth_jet_free(W);
  /* too few samples for the derivatives needed */
  lth_samples_opts o;
  lth_samples_opts_init(&o);
  o.need_order = 4;
  ck_assert_ptr_null(lth_source_samples_opts(1, 1, 6, t, v, &o, &err));
  ck_assert(err.status == LTH_ESAMPLE && strstr(err.message, "needs at least 7"));
  lth_source *small = lth_source_samples_opts(1, 1, 7, t, v, &o, &err);
  ck_assert_ptr_nonnull(small);
  ck_assert_int_eq(lth_samples_max_order(small), 4);
  TU_ASSERT_OK(lth_source_fill(small, 0.33, 4, J, work, &err));
  lth_source_free(small);
  free(w2);
  free(work);
  lth_jet_free(A);
  lth_jet_free(J);
  lth_source_free(src);
}
END_TEST

/* `sampling noise EPS [relative|absolute]` in data files. */
static char tmpdir[64];

static lth_status parse_with(const char *stmt, lth_problem **pb, lth_error *err) {
  char text[1024];
  snprintf(text, sizeof text,
           "lth 1\nblocks 2 1\ninterval 0 1\n%s\nA(1,2) = [1; 1]\nA(2,1) = [1, 0]\n"
           "f(2) = samples(\"f2.csv\")\n",
           stmt);
  return lth_problem_parse(text, strlen(text), "noise.lth", tmpdir, pb, err);
}

START_TEST(test_sampling_noise_statement) {
  strcpy(tmpdir, "/tmp/lth_test_noise_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
  char path[256];
  snprintf(path, sizeof path, "%s/f2.csv", tmpdir);
  FILE *fp = fopen(path, "w");
  fprintf(fp, "t, f2\n");
  for (int k = 0; k <= 50; k++) fprintf(fp, "%.17g, %.17g\n", 0.02 * k, 2.0 + sin(0.02 * k));
  fclose(fp);
  lth_problem *pb = NULL;
  lth_error err;
  int kind;
  const char *label;
  TU_ASSERT_OK(parse_with("sampling noise 1e-6", &pb, &err));
  ck_assert(lth_samples_noise(lth_problem_sampled(pb, 0, &label), &kind) == 1e-6 &&
            kind == LTH_SAMPLES_NOISE_ABSOLUTE);
  ck_assert_int_eq(lth_problem_sampling_order(pb), LTH_SAMPLES_AUTO);
  lth_problem_free(pb);
  TU_ASSERT_OK(parse_with("sampling noise 2e-3 relative\nsampling order 7", &pb, &err));
  double s = lth_samples_noise(lth_problem_sampled(pb, 0, &label), &kind);
  ck_assert(fabs(s - 2e-3 * (2.0 + sin(1.0))) < 1e-15 && kind == LTH_SAMPLES_NOISE_RELATIVE);
  ck_assert_int_eq(lth_samples_degree(lth_problem_sampled(pb, 0, &label)), 7);
  lth_problem_free(pb);
  TU_ASSERT_OK(parse_with("sampling noise 1e-9 absolute", &pb, &err));
  lth_problem_free(pb);
  struct {
    const char *stmt, *msg;
    int line;
  } bad[] = {
      {"sampling noise -1e-6", "must be a finite number >= 0", 4},
      {"sampling noise 1e-6 percent", "expected `relative`, `absolute`", 4},
      {"sampling noise", "expected a noise level", 4},
      {"sampling noise 1e-6\nsampling noise 1e-7", "duplicate `sampling noise`", 5},
      {"sampling speed 3", "expected `order` or `noise`", 4},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    pb = NULL;
    ck_assert_int_eq(parse_with(bad[k].stmt, &pb, &err), LTH_EPARSE);
    ck_assert_msg(strstr(err.message, bad[k].msg) && err.line == bad[k].line, "%s -> %d: %s",
                  bad[k].stmt, err.line, err.message);
    ck_assert_ptr_null(pb);
  }
  /* after the first samples(...) block: too late */
  const char *late = "lth 1\nblocks 2 1\ninterval 0 1\nA(1,2) = [1; 1]\nA(2,1) = [1, 0]\n"
                     "f(2) = samples(\"f2.csv\")\nsampling noise 1e-6\n";
  ck_assert_int_eq(lth_problem_parse(late, strlen(late), "late.lth", tmpdir, &pb, &err),
                   LTH_EPARSE);
  ck_assert(err.line == 7 && strstr(err.message, "must come before the first samples"));
  unlink(path);
  rmdir(tmpdir);
}
END_TEST

static Suite *auto_suite(void) {
  Suite *s = suite_create("samples_auto");
  TCase *tc = tcase_create("auto");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_nonuniform_samples);
  tcase_add_test(tc, test_noise_estimate);
  tcase_add_test(tc, test_declared_noise);
  tcase_add_test(tc, test_polynomials_auto);
  tcase_add_test(tc, test_orders_and_errors);
  tcase_add_test(tc, test_sampling_noise_statement);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(auto_suite)
