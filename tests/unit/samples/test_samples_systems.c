/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled data in whole systems (issue 12): smooth systems of index 2, 3 and
 * 4 (rational, exp and trigonometric entries; tests/gen/gen_sampling.py)
 * sampled on 201 uniform and 101 Chebyshev-Lobatto points of [-1, 1], with
 * and without seeded noise, decomposed at 21 interior times and compared
 * with the exact-jet decomposition of the same systems written as
 * expressions:
 *   - the automatic choice is within a factor 10 of the best fixed degree
 *     4..10, also under noise, where it degrades gracefully;
 *   - the output error estimate (lth/sampling_error.h) is within a factor 10 of
 *     the true error and covers it;
 *   - a z0 consistent for the exact data is accepted with the sampled data;
 *   - the variant system estimates the sampling error of an IVP solution;
 *   - two threads give the same numbers as one. */
#include <string.h>

#include "lth/grid.h"
#include "lth/sampling_error.h"
#include "lth/ic.h"
#include "lth/ivp.h"
#include "lth/samples.h"
#include "sampling_cases.h"

static const char *cases[] = {"i2_u", "i2_c", "i3_u", "i3_c", "i4_u", "i4_c"};
static const char *noises[] = {"", "_n8", "_n5"};
#define NCASES 6

static int verbose(void) { return getenv("LTH_SAMPLING_VERBOSE") != NULL; }

/* The automatic default against the sweep of fixed degrees. */
START_TEST(test_auto_against_fixed_degrees) {
  const char *c = cases[_i];
  char ref[8];
  snprintf(ref, sizeof ref, "%.2s", c);
  lth_problem *pe = sc_load(ref, 0);
  double autoerr[3];
  for (int z = 0; z < 3; z++) {
    char name[32];
    snprintf(name, sizeof name, "%s%s", c, noises[z]);
    double best = INFINITY;
    int kbest = 0;
    for (int K = 4; K <= 10; K++) {
      lth_problem *pf = sc_load(name, K);
      double e = sc_worst(lth_problem_system(pe), lth_problem_system(pf));
      if (e < best) {
        best = e;
        kbest = K;
      }
      lth_problem_free(pf);
    }
    lth_problem *pa = sc_load(name, 0);
    double e = sc_worst(lth_problem_system(pe), lth_problem_system(pa));
    lth_problem_free(pa);
    if (verbose()) {
      printf("%-8s automatic %.2e   best fixed degree %2d: %.2e\n", name, e, kbest, best);
    }
    ck_assert_msg(e <= 10.0 * best, "%s: automatic %.3e, best fixed (K = %d) %.3e", name, e, kbest,
                  best);
    autoerr[z] = e;
  }
  /* accuracy expected from the data: noise-free to near rounding, and
   * graceful under noise (at most proportional to it; no blow-up) */
  ck_assert_msg(autoerr[0] < 1e-10, "%s: noise-free error %.3e", c, autoerr[0]);
  ck_assert_msg(autoerr[1] < 1e-3 && autoerr[2] < 1e-1, "%s: errors %.3e, %.3e with noise", c,
                autoerr[1], autoerr[2]);
  ck_assert_msg(autoerr[2] <= 1e3 * autoerr[1],
                "%s: noise 1e-8 -> 1e-5 raised the error from "
                "%.3e to %.3e",
                c, autoerr[1], autoerr[2]);
  lth_problem_free(pe);
}
END_TEST

/* Estimated against true output errors at the interior times. */
START_TEST(test_output_error_estimate) {
  const char *c = cases[_i / 3];
  char ref[8], name[32];
  snprintf(ref, sizeof ref, "%.2s", c);
  snprintf(name, sizeof name, "%s%s", c, noises[_i % 3]);
  lth_problem *pe = sc_load(ref, 0), *ps = sc_load(name, 0);
  lth_error err;
  const lth_system *se = lth_problem_system(pe), *ss = lth_problem_system(ps);
  lth_decomp_error *de = lth_decomp_error_alloc(ss, &err);
  lth_decomp_ws *we = lth_decomp_ws_alloc(se, 0, &err);
  lth_point *pt = lth_point_alloc(se, 0, &err);
  ck_assert(de && we && pt);
  ck_assert_int_gt(lth_decomp_error_nsampled(de), 0);
  double tmax[LTH_NOUT] = {0}, emax[LTH_NOUT] = {0}, smax[LTH_NOUT] = {0}, true_worst = 0.0,
         est_worst = 0.0;
  for (int j = 0; j < SC_NTIMES; j++) {
    double t = sc_time(j), e[LTH_NOUT], scale[LTH_NOUT];
    lth_decomp_errest es;
    ck_assert_msg(lth_decomp_error_at(de, t, &es, &err) == LTH_OK, "%s", err.message);
    ck_assert_int_eq(lth_decomp_at(we, t, pt, &err), LTH_OK);
    true_worst = fmax(true_worst, sc_errors(pt, lth_decomp_error_point(de), e, scale));
    est_worst = fmax(est_worst, es.overall);
    for (int o = 0; o < LTH_NOUT; o++) {
      tmax[o] = fmax(tmax[o], e[o]);
      emax[o] = fmax(emax[o], es.abs[o]);
      smax[o] = fmax(smax[o], scale[o]);
      /* pointwise: never below a tenth of the truth, above the rounding level */
      ck_assert_msg(e[o] <= 1e-13 * scale[o] || es.abs[o] >= 0.1 * e[o],
                    "%s, t = %g, %s: estimate %.3e, true %.3e", name, t, lth_decomp_output_name(o),
                    es.abs[o], e[o]);
      ck_assert(isfinite(es.rel[o]) && es.rel[o] <= es.overall);
    }
  }
  double ratio = est_worst / true_worst;
  if (verbose()) {
    printf("%-8s true %.2e estimate %.2e ratio %5.2f   per output:", name, true_worst, est_worst,
           ratio);
    for (int o = 0; o < LTH_NOUT; o++) {
      printf(" %s %.1f", lth_decomp_output_name(o), emax[o] / tmax[o]);
    }
    printf("\n");
  }
  /* overall (the worst relative error over outputs and times): covers, within
   * 10 -- above rounding.  Where the data are exact to rounding both sides are
   * rounding (true 2e-15, estimate 3e-15 .. 3e-14 across BLAS kernels): then
   * the estimate must itself say "rounding", i.e. stay below RND_FLOOR. */
  const double RND = 1e-13, RND_FLOOR = 1e-12;
  if (true_worst > RND) {
    ck_assert_msg(ratio >= 1.0 && ratio <= 10.0, "%s: estimate %.3e, true %.3e", name, est_worst,
                  true_worst);
  } else {
    ck_assert_msg(est_worst <= RND_FLOOR, "%s: estimate %.3e for a rounding-level error %.3e", name,
                  est_worst, true_worst);
  }
  for (int o = 0; o < LTH_NOUT; o++) {
    double r = emax[o] / tmax[o];
    if (tmax[o] <= RND * smax[o]) {
      ck_assert_msg(emax[o] <= RND_FLOOR * smax[o],
                    "%s, %s: estimate %.3e for a rounding-level "
                    "error %.3e",
                    name, lth_decomp_output_name(o), emax[o], tmax[o]);
      continue;
    }
    ck_assert_msg(r >= 0.5 && r <= 20.0, "%s, %s: largest estimate %.3e, largest error %.3e", name,
                  lth_decomp_output_name(o), emax[o], tmax[o]);
  }
  lth_point_free(pt);
  lth_decomp_ws_free(we);
  lth_decomp_error_free(de);
  lth_problem_free(ps);
  lth_problem_free(pe);
}
END_TEST

/* A z0 consistent for the exact data is consistent for the sampled data,
 * because the tolerance includes the data's own error (issue 10). */
START_TEST(test_consistency_with_sampled_data) {
  const char *c = cases[_i / 3];
  char ref[8], name[32];
  snprintf(ref, sizeof ref, "%.2s", c);
  snprintf(name, sizeof name, "%s%s", c, noises[_i % 3]);
  lth_problem *pe = sc_load(ref, 0), *ps = sc_load(name, 0);
  const lth_system *se = lth_problem_system(pe), *ss = lth_problem_system(ps);
  lth_error err;
  lth_ic *ice = lth_ic_alloc(se, &err), *ics = lth_ic_alloc(ss, &err);
  ck_assert(ice && ics);
  int s = lth_system_size(se);
  double guess[64], z0[64];
  for (int i = 0; i < s; i++) {
    guess[i] = 0.3 + 0.1 * i;
  }
  for (double t = -0.7; t < 0.8; t += 0.7) {
    TU_ASSERT_OK(lth_ic_setup(ice, t, &err));
    TU_ASSERT_OK(lth_ic_nearest(ice, guess, z0, &err));
    ck_assert(lth_ic_data_tolerance(ice, z0) == 0.0);
    ck_assert(lth_ic_residual(ice, z0) <= lth_ic_tolerance(ice, z0));
    TU_ASSERT_OK(lth_ic_setup(ics, t, &err));
    double res = lth_ic_residual(ics, z0), tol = lth_ic_tolerance(ics, z0);
    double dtol = lth_ic_data_tolerance(ics, z0);
    if (verbose()) {
      printf("%-8s t = %4.1f  ||M0 z0 - b0|| %.2e  tolerance %.2e (data %.2e)\n", name, t, res, tol,
             dtol);
    }
    ck_assert_msg(res <= tol, "%s, t = %g: residual %.3e above the tolerance %.3e", name, t, res,
                  tol);
    ck_assert(dtol > 0.0 && dtol < tol);
    /* the data's part is not vastly larger than what it must cover */
    ck_assert_msg(dtol <= 1e3 * fmax(res, 1e-12), "%s: data tolerance %.3e for residual %.3e", name,
                  dtol, res);
  }
  lth_ic_free(ice);
  lth_ic_free(ics);
  lth_problem_free(ps);
  lth_problem_free(pe);
}
END_TEST

/* IVP through the sampled system and through its variants: their difference
 * (the sampling error carried along the flow) plus the error of the map
 * z = G v + q at the output times (the decomposition's error bars, which
 * also cover the consistent initial value at t0) estimates the sampling
 * error of the solution.  Without the second part the noisy Chebyshev case
 * was underestimated 11x: its error is mostly made at t0 = -0.9, near the
 * end of the data, where the consistent value is computed. */
START_TEST(test_ivp_sampling_contribution) {
  static const char *names[] = {"i3_u_n8", "i3_c_n5", "i2_u_n5"};
  const char *name = names[_i];
  char ref[8];
  snprintf(ref, sizeof ref, "%.2s", name);
  lth_problem *pe = sc_load(ref, 0), *ps = sc_load(name, 0);
  const lth_system *se = lth_problem_system(pe), *ss = lth_problem_system(ps);
  lth_error err;
  int nb = lth_system_sampled_blocks(ss);
  ck_assert_int_gt(nb, 1);
  ck_assert_int_eq(lth_system_sampled_blocks(se), 0);
  ck_assert_ptr_null(lth_system_sampling_variant(ss, nb, &err));
  ck_assert_int_eq(err.status, LTH_EINVAL);
  int s = lth_system_size(se);
  double guess[64], z0[64], times[11];
  for (int i = 0; i < s; i++) {
    guess[i] = 0.2 * i - 0.3;
  }
  for (int k = 0; k < 11; k++) {
    times[k] = -0.9 + 0.18 * k;
  }
  /* every system starts from its own consistent value nearest the same guess:
   * the exact one, the sampled one, its variant with every sampled block
   * moved, then the variants with one block moved each */
  lth_ivp_result *res[2] = {NULL, NULL};
  double one = 0.0, blocks = 0.0, truth = 0.0, scale = 1.0;
  for (int k = 0; k < 3 + nb; k++) {
    lth_system *sv = k >= 2 ? lth_system_sampling_variant(ss, k - 3, &err) : NULL;
    const lth_system *sys = k == 0 ? se : k == 1 ? ss : sv;
    ck_assert_msg(sys != NULL, "%s", err.message);
    lth_ic *ic = lth_ic_alloc(sys, &err);
    ck_assert_msg(ic != NULL, "%s", err.message);
    TU_ASSERT_OK(lth_ic_setup(ic, -0.9, &err));
    TU_ASSERT_OK(lth_ic_nearest(ic, guess, z0, &err));
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    lth_ivp_result *r = NULL;
    TU_ASSERT_OK(lth_ivp_solve(sys, -0.9, z0, times, 11, &o, &r, &err));
    if (k < 2) {
      res[k] = r;
    } else {
      double d = 0.0;
      for (size_t i = 0; i < 11 * (size_t)s; i++) {
        d = fmax(d, fabs(r->z[i] - res[1]->z[i]));
      }
      *(k == 2 ? &one : &blocks) += d;
      lth_ivp_result_free(r);
    }
    lth_ic_free(ic);
    lth_system_free(sv);
  }
  for (size_t i = 0; i < 11 * (size_t)s; i++) {
    truth = fmax(truth, fabs(res[1]->z[i] - res[0]->z[i]));
    scale = fmax(scale, fabs(res[0]->z[i]));
  }
  /* z = G v + q at every output time: the map's own error there (t0
   * included, where the consistent initial value is made), from the
   * decomposition's error bars, adds to what the variants see */
  double local = 0.0;
  lth_decomp_error *de = lth_decomp_error_alloc(ss, &err);
  ck_assert_msg(de != NULL, "%s", err.message);
  for (int k = 0; k < 11; k++) {
    lth_decomp_errest e;
    TU_ASSERT_OK(lth_decomp_error_at(de, times[k], &e, &err));
    double vn = 0.0;
    for (int i = 0; i < res[1]->m; i++) {
      vn += fabs(res[1]->v[(size_t)k * res[1]->m + i]);
    }
    local = fmax(local, e.abs[LTH_OUT_GMAT] * vn + e.abs[LTH_OUT_Q]);
  }
  lth_decomp_error_free(de);
  one += local;
  blocks += local;
  if (verbose()) {
    printf("%-8s IVP: sampling error %.2e; estimates: all blocks at once %.2e, block by block "
           "%.2e\n",
           name, truth / scale, one / scale, blocks / scale);
  }
  ck_assert_msg(truth / scale > 1e-9, "%s: sampling error %.3e too small to test", name, truth);
  /* estimates of the size, within a factor 10 either way (docs/sampled-data.md) */
  ck_assert_msg(blocks >= 0.1 * truth && blocks <= 10.0 * truth, "%s: estimate %.3e, true %.3e",
                name, blocks, truth);
  ck_assert_msg(one >= 0.1 * truth && one <= 10.0 * truth, "%s: estimate %.3e, true %.3e", name,
                one, truth);
  lth_ivp_result_free(res[0]);
  lth_ivp_result_free(res[1]);
  lth_problem_free(ps);
  lth_problem_free(pe);
}
END_TEST

static int sum_consumer(void *ctx, size_t k, const lth_point *pt, const lth_verify_report *rep) {
  (void)rep;
  double *out = ctx;
  out[k] = LTH_JET_AT(&pt->g, 0, 0, 0) + LTH_JET_AT(&pt->q, 0, pt->s - 1, 0);
  return 0;
}

/* The automatic choices are made on first use by whichever thread gets there:
 * two threads give bitwise the numbers of one. */
START_TEST(test_threads_bitwise) {
  enum { N = 400 };
  double t[N], one[N], two[N];
  for (int k = 0; k < N; k++) {
    t[k] = -1.0 + 2.0 * k / (N - 1);
  }
  lth_error err;
  lth_grid_opts o;
  lth_grid_opts_init(&o);
  lth_problem *p1 = sc_load("i4_c_n8", 0), *p2 = sc_load("i4_c_n8", 0);
  o.threads = 1;
  TU_ASSERT_OK(lth_grid_decompose(lth_problem_system(p1), t, N, &o, sum_consumer, one, &err));
  o.threads = 2;
  TU_ASSERT_OK(lth_grid_decompose(lth_problem_system(p2), t, N, &o, sum_consumer, two, &err));
  ck_assert(memcmp(one, two, sizeof one) == 0);
  lth_problem_free(p1);
  lth_problem_free(p2);
}
END_TEST

static Suite *systems_suite(void) {
  Suite *s = suite_create("samples_systems");
  TCase *tc = tcase_create("systems");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_auto_against_fixed_degrees, 0, NCASES);
  tcase_add_loop_test(tc, test_output_error_estimate, 0, 3 * NCASES);
  tcase_add_loop_test(tc, test_consistency_with_sampled_data, 0, 3 * NCASES);
  tcase_add_loop_test(tc, test_ivp_sampling_contribution, 0, 3);
  tcase_add_test(tc, test_threads_bitwise);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(systems_suite)
