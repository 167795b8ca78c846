/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled inputs are decomposed where the data need it, never at the output
 * grid (docs/sampled-data.md section 4), and their error estimates reach them
 * wherever a system reads them: in a block, behind a mass matrix, in an
 * equation-form coefficient (lib/decomp/samples_wrap.c, lib/source/source_rebind.h).
 *
 * The test circuit: an RLC network of index 2 whose node voltage follows a
 * source V(t) = sin(100 t) + 0.3 cos(70 t) known through 2001 samples on
 * [0, 1] (C v' = iV - iL - v/R, L iL' = v, 0 = v - V), against the same
 * system with V written as its formula. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lth/sampling_error.h"
#include "lth/grid.h"
#include "lth/ivp.h"
#include "lth/problem.h"
#include "testutil.h"

#define NT 20

static char dir[64];

static double source(double t) { return sin(100.0 * t) + 0.3 * cos(70.0 * t); }

static const char *names[] = {"vs.csv", "vsn.csv", "f1.csv"};

/* Fixture: vs.csv (exact to rounding), vsn.csv (seeded noise of standard
 * deviation 1e-7), f1.csv ([0, V]) in a new directory. */
static void write_samples(void) {
  snprintf(dir, sizeof dir, "/tmp/lth_test_nodes_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  tu_seed(4242);
  for (int f = 0; f < 3; f++) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    for (int k = 0; k <= 2000; k++) {
      double t = k / 2000.0, v = source(t);
      if (f == 1) { /* uniform deviates of standard deviation 1e-7 */
        v += 1e-7 * sqrt(3.0) * tu_uniform(-1.0, 1.0);
      }
      if (f == 2) {
        fprintf(fp, "%.17g,0,%.17g\n", t, v);
      } else {
        fprintf(fp, "%.17g,%.17g\n", t, v);
      }
    }
    fclose(fp);
  }
}

static void remove_samples(void) {
  for (int f = 0; f < 3; f++) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    unlink(path);
  }
  rmdir(dir);
}

static lth_problem *parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "test.lth", dir, &pb, &err) == LTH_OK,
                "%s (line %d)", err.message, err.line);
  return pb;
}

/* The circuit in the block form, z_1 = (v, iL), u = iV; f(2) = V. */
static lth_problem *block_circuit(const char *V) {
  char text[1024];
  snprintf(text, sizeof text,
           "lth 1\nblocks 2 1\ninterval 0 1\ngrid 13\nA(1,1) = [-100, -1000; 2, 0]\n"
           "A(1,2) = [1000; 0]\nA(2,1) = [-1, 0]\nf(2) = %s\n",
           V);
  return parse(text);
}

/* The circuit in the equation form. */
static lth_problem *equation_circuit(const char *V) {
  char text[1024];
  snprintf(text, sizeof text,
           "problem equations\nvariables v iL iV\ninterval 0 1\ngrid 13\n"
           "param R = 10, L = 0.5, C = 1e-3\nC*v' = iV - iL - v/R\nL*iL' = v\n"
           "0 = v - (%s)\n",
           V);
  return parse(text);
}

static const char *FORMULA = "sin(100*t) + 0.3*cos(70*t)";

/* z at NT times from the consistent z0 with v = V(0), iL = 0 (chain order
 * (v, iL, iV) in both forms); hermite_grid: nodes to add (may be NULL). */
static lth_ivp_result *solve(const lth_problem *pb, double rtol, const double *grid, size_t ng) {
  double z0[3] = {source(0.0), 0.0, 1e-3 * 100.0 + source(0.0) / 10.0}, times[NT];
  for (int k = 0; k < NT; k++) times[k] = 0.05 * (k + 1);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = 1e-16;
  o.project = 1;
  o.hermite_grid = grid;
  o.hermite_n = ng;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_ivp_solve(lth_problem_system(pb), 0.0, z0, times, NT, &o, &res, &err) == LTH_OK,
                "%s (t = %g)", err.message, err.t);
  return res;
}

static double maxdiff(const lth_ivp_result *a, const lth_ivp_result *b) {
  double d = 0.0;
  for (size_t k = 0; k < a->n * (size_t)a->s; k++) d = fmax(d, fabs(a->z[k] - b->z[k]));
  return d;
}

/* Whatever nodes the caller adds (none, the 13 or 51 points of an output
 * grid), the solution is the same and converges with rtol to the samples'
 * accuracy; the interpolation error checked is below the tolerance.  With
 * the decomposition taken at a 13-point grid the error was 1.4e-2. */
START_TEST(test_nodes_follow_the_data) {
  lth_problem *ps = block_circuit("samples(\"vs.csv\")"), *pe = block_circuit(FORMULA);
  lth_ivp_result *ref = solve(pe, 1e-13, NULL, 0);
  double g13[13], g51[51];
  for (int k = 0; k < 13; k++) g13[k] = k / 12.0;
  for (int k = 0; k < 51; k++) g51[k] = k / 50.0;
  const double rtols[] = {1e-6, 1e-9, 1e-12};
  double last = INFINITY;
  for (int j = 0; j < 3; j++) {
    lth_ivp_result *a = solve(ps, rtols[j], NULL, 0), *b = solve(ps, rtols[j], g13, 13),
                   *c = solve(ps, rtols[j], g51, 51);
    ck_assert_int_eq(a->coef_mode, LTH_COEF_HERMITE);
    double e = maxdiff(a, ref);
    /* measured 6e-10, 6e-13, 8e-14: the integration's, then the samples' */
    ck_assert_msg(e <= 1e3 * rtols[j] + 1e-12, "rtol %g: error %.3e", rtols[j], e);
    double tol = 1e3 * rtols[j] + 1e-12;
    ck_assert_msg(maxdiff(b, a) <= tol && maxdiff(c, a) <= tol,
                  "rtol %g: the added nodes moved the solution by %.3e, %.3e", rtols[j],
                  maxdiff(b, a), maxdiff(c, a));
    /* below the tolerance, or (rtol 1e-12) where the pieces reach the sample
     * spacing, at the samples' own error */
    ck_assert_msg(a->coef_error <= fmax(10.0 * fmax(1e-3 * rtols[j], 3e-15), 1e-13),
                  "rtol %g: interpolation error %.3e", rtols[j], a->coef_error);
    ck_assert_uint_eq(a->decomps, a->table_panels + 1); /* every decomposition is a node */
    last = e;
    lth_ivp_result_free(a);
    lth_ivp_result_free(b);
    lth_ivp_result_free(c);
  }
  ck_assert_msg(last < 1e-12, "rtol 1e-12: error %.3e", last);
  lth_ivp_result_free(ref);
  lth_problem_free(ps);
  lth_problem_free(pe);
}
END_TEST

/* Data sets are found in blocks, behind mass matrices and in equation-form
 * coefficients, each once; the variant system reads them moved. */
START_TEST(test_data_sets_found_everywhere) {
  lth_problem *pb[3];
  pb[0] = equation_circuit("samples(\"vs.csv\")");
  pb[1] = parse("problem equations\nvariables v iL iV\ninterval 0 1\n"
                "0.5*iL' = (1 + 0.1*samples(\"vs.csv\"))*v\n"
                "(2 + 0.5*samples(\"vsn.csv\"))*v' = iV - iL\n0 = v - sin(t)\n");
  pb[2] = parse("lth 1\nblocks 2 1\ninterval 0 1\nM(1) = [2, 0; 0, 1 + t]\n"
                "A(1,1) = [-100, -1000; 2, 0]\nA(1,2) = [1000; 0]\nA(2,1) = [-1, 0]\n"
                "f(1) = samples(\"f1.csv\")\nf(2) = sin(t)\n");
  const int want[3] = {1, 2, 1};
  lth_error err;
  lth_error_clear(&err);
  for (int c = 0; c < 3; c++) {
    const lth_system *sys = lth_problem_system(pb[c]);
    ck_assert_int_eq(lth_system_sampled_blocks(sys), want[c]);
    ck_assert(!lth_system_is_exact(sys));
    lth_system *var = lth_system_sampling_variant(sys, -1, &err);
    ck_assert_msg(var != NULL, "%s", err.message);
    ck_assert_int_eq(lth_system_sampled_blocks(var), want[c]); /* seen through the views */
    /* the variant's decomposition moves, a little */
    lth_decomp_ws *w0 = lth_decomp_ws_alloc(sys, 0, &err), *w1 = lth_decomp_ws_alloc(var, 0, &err);
    lth_point *p0 = lth_point_alloc(sys, 0, &err), *p1 = lth_point_alloc(var, 0, &err);
    TU_ASSERT_OK(lth_decomp_at(w0, 0.4321, p0, &err));
    TU_ASSERT_OK(lth_decomp_at(w1, 0.4321, p1, &err));
    double d = fmax(tu_jet_relerr(&p1->q, &p0->q), tu_jet_relerr(&p1->g, &p0->g));
    ck_assert_msg(d > 0.0 && d < 1e-3, "case %d: the variant moved q and g by %.3e", c, d);
    /* and so do the error bars */
    lth_decomp_error *de = lth_decomp_error_alloc(sys, &err);
    ck_assert_msg(de != NULL, "%s", err.message);
    lth_decomp_errest e;
    TU_ASSERT_OK(lth_decomp_error_at(de, 0.4321, &e, &err));
    ck_assert_int_eq(e.nsampled, want[c]);
    ck_assert_msg(e.overall > 0.0 && e.overall < 1e-3, "case %d: overall %.3e", c, e.overall);
    lth_decomp_error_free(de);
    lth_point_free(p0);
    lth_point_free(p1);
    lth_decomp_ws_free(w0);
    lth_decomp_ws_free(w1);
    lth_system_free(var);
    lth_problem_free(pb[c]);
  }
}
END_TEST

/* The equation form's error bars cover its true output error (noisy
 * samples: the error is the data's, well above rounding). */
START_TEST(test_equation_form_error_bars) {
  lth_problem *ps = equation_circuit("samples(\"vsn.csv\")"), *pe = equation_circuit(FORMULA);
  lth_error err;
  lth_error_clear(&err);
  lth_decomp_error *de = lth_decomp_error_alloc(lth_problem_system(ps), &err);
  lth_decomp_ws *we = lth_decomp_ws_alloc(lth_problem_system(pe), 0, &err);
  lth_point *pt = lth_point_alloc(lth_problem_system(pe), 0, &err);
  ck_assert_ptr_nonnull(de);
  double truth = 0.0, est = 0.0;
  for (int k = 0; k < 9; k++) {
    double t = 0.05 + 0.1 * k + 0.0031;
    lth_decomp_errest e;
    TU_ASSERT_OK(lth_decomp_error_at(de, t, &e, &err));
    TU_ASSERT_OK(lth_decomp_at(we, t, pt, &err));
    truth = fmax(truth, tu_jet_relerr(&lth_decomp_error_point(de)->q, &pt->q) *
                            fmax(1.0, lth_jet_maxabs(&pt->q, 0)));
    est = fmax(est, e.abs[LTH_OUT_Q]);
  }
  ck_assert_msg(truth > 1e-9, "true error %.3e too small to test", truth);
  ck_assert_msg(est >= 0.1 * truth && est <= 10.0 * truth, "estimate %.3e, true %.3e", est, truth);
  lth_point_free(pt);
  lth_decomp_ws_free(we);
  lth_decomp_error_free(de);
  lth_problem_free(ps);
  lth_problem_free(pe);
}
END_TEST

static int jet_consumer(void *ctx, size_t k, const lth_point *pt, const lth_verify_report *rep) {
  (void)rep;
  double *out = ctx;
  out[k] = LTH_JET_AT(&pt->g, 4, 1, 0) + LTH_JET_AT(&pt->q, 3, 2, 0);
  return 0;
}

/* The fits are made on first use by whichever thread gets there, for the
 * decomposition's orders and, separately, for the Hermite jets' higher ones:
 * two threads give bitwise the numbers of one (jets of order 4). */
START_TEST(test_threads_bitwise_high_orders) {
  enum { N = 600 };
  double t[N], one[N], two[N];
  for (int k = 0; k < N; k++) t[k] = 0.9983 * k / (N - 1);
  /* the block form: automatic fits */
  lth_problem *p1 = block_circuit("samples(\"vsn.csv\")"),
              *p2 = block_circuit("samples(\"vsn.csv\")");
  lth_grid_opts o;
  lth_grid_opts_init(&o);
  o.out_order = 4;
  lth_error err;
  o.threads = 1;
  TU_ASSERT_OK(lth_grid_decompose(lth_problem_system(p1), t, N, &o, jet_consumer, one, &err));
  o.threads = 2;
  TU_ASSERT_OK(lth_grid_decompose(lth_problem_system(p2), t, N, &o, jet_consumer, two, &err));
  ck_assert(memcmp(one, two, sizeof one) == 0);
  lth_problem_free(p1);
  lth_problem_free(p2);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("samples_nodes");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_checked_fixture(tc, write_samples, remove_samples);
  tcase_add_test(tc, test_nodes_follow_the_data);
  tcase_add_test(tc, test_data_sets_found_everywhere);
  tcase_add_test(tc, test_equation_form_error_bars);
  tcase_add_test(tc, test_threads_bitwise_high_orders);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
