/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Coefficient tables built in stretches (lib/table/coef_table_split.c): a long
 * table is cut into stretches built concurrently and merged; one and two
 * threads build bitwise the same table, it interpolates the decomposition to
 * its tolerance on every stretch, a lazy build in chunks agrees with a whole
 * one to the tolerance, a narrow dip of Pi in a late stretch is left to
 * direct panels, and a refusal in a late stretch
 * ends the table where it happened with the panels before it kept -- all the
 * same with one and two threads.  Also: panels that leave the output maps to
 * direct decomposition (lth_table_set_output_density), mixed with panels that carry
 * them in one table, and the one-pass Ahat - gamma P of the integrator. */
#define _DEFAULT_SOURCE /* M_PI */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "table/coef_table_impl.h"
#include "lth/decomp.h"
#include "lth/table.h"
#include "testsys.h"
#include "testutil.h"

static lth_table *alloc_table(const lth_system *sys, double t0, double t1, int threads) {
  lth_table_opts o;
  lth_table_opts_init(&o);
  o.tol = 1e-12;
  o.threads = threads;
  lth_error err;
  lth_error_clear(&err);
  lth_table *tab = lth_table_alloc(sys, t0, t1, &o, &err);
  ck_assert_msg(tab != NULL, "%s", err.message);
  return tab;
}

/* Every tabulated panel's coefficients lie inside the chunk they name and
 * no two panels overlap there (lib/table/coef_store.c); the chunks' counts add up to
 * the table's.  Returns the number of chunks. */
static size_t check_chunks(const lth_table *tab) {
  size_t used = 0, *end = calloc(tab->store.nchunks + 1, sizeof *end),
         *dend = calloc(tab->store.nchunks + 1, sizeof *dend);
  ck_assert(end && dend);
  for (size_t k = 0; k < tab->store.nchunks; k++)
    used += tab->store.chunks[k].cn + tab->store.chunks[k].dn;
  ck_assert_uint_eq(used, tab->store.stored);
  for (size_t i = 0; i < tab->store.np; i++) {
    const tab_panel *p = &tab->store.panels[i];
    if (p->direct) continue;
    ck_assert(p->chunk >= 0 && (size_t)p->chunk < tab->store.nchunks);
    const tab_chunk *c = &tab->store.chunks[p->chunk];
    size_t nc = (size_t)(p->deg + 1) * p->ld;
    /* panels fill a chunk in order: each starts where the previous one ended */
    ck_assert_uint_eq(p->off, end[p->chunk]);
    ck_assert(p->off + nc <= c->cn && c->cn <= c->ccap);
    end[p->chunk] = p->off + nc;
    if (tab->o.deriv) {
      ck_assert_uint_eq(p->doff, dend[p->chunk]);
      dend[p->chunk] = p->doff + (size_t)(p->deg_rhs > 0 ? p->deg_rhs : 1) * tab->lay.E_rhs;
      ck_assert(dend[p->chunk] <= c->dn && c->dn <= c->dcap);
    }
  }
  for (size_t k = 0; k < tab->store.nchunks; k++)
    ck_assert_uint_eq(end[k], tab->store.chunks[k].cn);
  free(end);
  free(dend);
  return tab->store.nchunks;
}

/* max over entries of |X - Y| relative to max(1, max |Y|) */
static double rel_err(const lth_jet *X, const lth_jet *Y) {
  double mx = 0.0, sc = 1.0;
  for (int j = 0; j < X->cols; j++) {
    for (int i = 0; i < X->rows; i++) {
      mx = fmax(mx, fabs(LTH_JET_AT(X, 0, i, j) - LTH_JET_AT(Y, 0, i, j)));
      sc = fmax(sc, fabs(LTH_JET_AT(Y, 0, i, j)));
    }
  }
  return mx / sc;
}

START_TEST(test_split_identical_and_accurate) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 931, 0.2, 1);
  lth_system *sys = ts_system(S);
  double T = 150.0;
  lth_table *a = alloc_table(sys, 0.0, T, 1), *b = alloc_table(sys, 0.0, T, 2);
  lth_error err;
  ck_assert_msg(lth_table_build(a, T, &err) == LTH_OK, "%s", err.message);
  ck_assert_msg(lth_table_build(b, T, &err) == LTH_OK, "%s", err.message);
  /* the build was split: stretches were merged as chunks */
  ck_assert_msg(a->stats.stretches >= 2 && b->stats.stretches == a->stats.stretches,
                "stretches %zu / %zu", a->stats.stretches, b->stats.stretches);
  ck_assert(check_chunks(a) >= 2 && check_chunks(b) >= 2);
  lth_table_info ia, ib;
  lth_table_info_get(a, &ia);
  lth_table_info_get(b, &ib);
  ck_assert_int_eq(ia.panels, ib.panels);
  ck_assert_int_eq(ia.decomps, ib.decomps);
  ck_assert(ia.err_est <= 1e-12 && ia.err_est == ib.err_est);
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *pa = lth_point_alloc(sys, 0, NULL), *pb = lth_point_alloc(sys, 0, NULL),
            *pe = lth_point_alloc(sys, 0, NULL);
  double worst = 0.0;
  tu_seed(7);
  for (int k = 0; k < 600; k++) {
    double t = k < 300 ? T * k / 299.0 : tu_uniform(0.0, T);
    ck_assert_int_eq(lth_table_eval(a, t, 0, 1, pa, NULL, NULL), LTH_OK);
    ck_assert_int_eq(lth_table_eval(b, t, 0, 1, pb, NULL, NULL), LTH_OK);
    ck_assert(rel_err(&pa->Ahat, &pb->Ahat) == 0 && rel_err(&pa->G, &pb->G) == 0 &&
              rel_err(&pa->q, &pb->q) == 0);
    ck_assert_int_eq(lth_decomp_at(ws, t, pe, NULL), LTH_OK);
    const lth_jet *X[6] = {&pa->Ahat, &pa->g, &pa->P, &pa->Bhat, &pa->q, &pa->G};
    const lth_jet *Y[6] = {&pe->Ahat, &pe->g, &pe->P, &pe->Bhat, &pe->q, &pe->G};
    for (int f = 0; f < 6; f++) worst = fmax(worst, rel_err(X[f], Y[f]));
  }
  /* measured 2e-13 .. 6e-13 */
  ck_assert_msg(worst <= 3 * 1e-12, "interpolation error %.3e", worst);
  /* built lazily in chunks (as an integrator does): the same accuracy */
  lth_table *c = alloc_table(sys, 0.0, T, 2);
  for (double goal = 1.0; goal < 2 * T; goal *= 1.7) {
    ck_assert_msg(lth_table_build(c, fmin(goal, T), &err) == LTH_OK, "%s", err.message);
  }
  ck_assert(lth_table_covered(c) == T);
  check_chunks(c);
  for (int k = 0; k < 300; k++) {
    double t = tu_uniform(0.0, T);
    ck_assert_int_eq(lth_table_eval(c, t, 0, 1, pa, NULL, NULL), LTH_OK);
    ck_assert_int_eq(lth_decomp_at(ws, t, pe, NULL), LTH_OK);
    ck_assert_msg(rel_err(&pa->Ahat, &pe->Ahat) <= 3e-12 && rel_err(&pa->G, &pe->G) <= 3e-12,
                  "t = %g", t);
  }
  lth_point_free(pa);
  lth_point_free(pb);
  lth_point_free(pe);
  lth_decomp_ws_free(ws);
  lth_table_free(a);
  lth_table_free(b);
  lth_table_free(c);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Index 2, blocks (2, 1), Pi = A21 A12 = p(t) = ((t - T_SING)^2 + DIP^2)
 * (2 + sin 3t): an oscillation that needs many panels and a narrow dip of
 * Pi late in the span, too narrow to tabulate, which the builder leaves to
 * direct panels.  The dip keeps Pi's condition below 1e9, far from the
 * refusal threshold 1e12 whatever nodes the builder's widths place near it
 * (a double zero there would be refused or left to direct panels depending
 * on how close a node lands: which is rounding).  With ctx->fail the
 * callback also fails on [T_FAIL, T_FAIL + 1] (a refusal inside a late
 * stretch). */
static const double T_SING = 231.3137, T_FAIL = 171.0, DIP = 1e-4;

/* Taylor coefficient k of w(t) = 2 + sin 3t: w^(k) / k!, w^(k) = 3^k sin(3t + k pi/2) (+ 2 at k =
 * 0) */
static double w_taylor(double t, int k) {
  double f = 1.0, p3 = 1.0;
  for (int i = 1; i <= k; i++) {
    f *= i;
    p3 *= 3.0;
  }
  return (k == 0 ? 2.0 : 0.0) + p3 * sin(3.0 * t + k * M_PI / 2) / f;
}

typedef struct {
  int fail;     /* fail on [T_FAIL, T_FAIL + 1] */
  double t_dip; /* where Pi dips to DIP^2 (2 + sin 3t) */
} zero_ctx;

static int a21_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const zero_ctx *z = ctx;
  if (z->fail && t >= T_FAIL && t <= T_FAIL + 1) return 1;
  double d = t - z->t_dip;
  for (int k = 0; k <= order; k++) {
    /* p = (d^2 + DIP^2) w: p_k = (d^2 + DIP^2) w_k + 2 d w_{k-1} + w_{k-2} */
    coef[k * stride] = (d * d + DIP * DIP) * w_taylor(t, k) +
                       (k > 0 ? 2 * d * w_taylor(t, k - 1) : 0.0) +
                       (k > 1 ? w_taylor(t, k - 2) : 0.0);
    coef[k * stride + ld] = k == 0 ? 0.5 : 0.0;
  }
  return 0;
}

static lth_system *zero_system(const zero_ctx *fail) {
  int n[] = {2, 1};
  double a11[] = {0, -1, 1, 0}, a12[] = {1, 0};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  lth_system_set_A(sys, 1, 1, lth_source_const(2, 2, a11, 2, NULL), NULL);
  lth_system_set_A(sys, 1, 2, lth_source_const(2, 1, a12, 2, NULL), NULL);
  lth_system_set_A(sys, 2, 1, lth_source_callback(1, 2, a21_cb, (void *)fail, NULL), NULL);
  return sys;
}

START_TEST(test_split_direct_panels_at_a_dip) {
  static const zero_ctx fail = {0, T_SING};
  lth_system *sys = zero_system(&fail);
  lth_table_info in[2];
  for (int threads = 1; threads <= 2; threads++) {
    lth_table *tab = alloc_table(sys, 0.0, 300.0, threads);
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_table_build(tab, 300.0, &err) == LTH_OK, "%s", err.message);
    ck_assert_msg(tab->stats.stretches >= 2, "the build was not split");
    lth_table_info_get(tab, &in[threads - 1]);
    ck_assert(in[threads - 1].direct_panels >= 1);
    /* T_SING lies on a direct panel: evaluating there needs a workspace,
     * and decomposes to the same numbers as lth_decomp_at */
    lth_point *pt = lth_point_alloc(sys, 0, NULL), *pe = lth_point_alloc(sys, 0, NULL);
    lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
    ck_assert_int_eq(lth_table_eval(tab, T_SING, 0, 1, pt, NULL, &err), LTH_ERANGE);
    ck_assert_int_eq(lth_table_eval_rhs(tab, T_SING, -0.5, pt, NULL, NULL), LTH_ERANGE);
    lth_error_clear(&err);
    ck_assert_msg(lth_table_eval(tab, T_SING, 0, 1, pt, ws, &err) == LTH_OK, "%s", err.message);
    ck_assert_int_eq(lth_decomp_at(ws, T_SING, pe, NULL), LTH_OK);
    ck_assert(rel_err(&pt->Ahat, &pe->Ahat) <= 1e-14);
    ck_assert_int_eq(lth_table_eval(tab, 100.0, 0, 1, pt, NULL, NULL), LTH_OK);
    lth_decomp_ws_free(ws);
    lth_point_free(pt);
    lth_point_free(pe);
    lth_table_free(tab);
  }
  ck_assert(in[0].panels == in[1].panels && in[0].direct_panels == in[1].direct_panels &&
            in[0].decomps == in[1].decomps);
  lth_system_free(sys);
}
END_TEST

START_TEST(test_split_refusal_in_a_late_stretch) {
  static const zero_ctx fail = {1, T_SING};
  lth_system *sys = zero_system(&fail);
  double cov[2];
  for (int threads = 1; threads <= 2; threads++) {
    lth_table *tab = alloc_table(sys, 0.0, 300.0, threads);
    lth_error err;
    lth_error_clear(&err);
    lth_status st = lth_table_build(tab, 300.0, &err);
    ck_assert_msg(st == LTH_ECALLBACK, "status %d: %s", st, err.message);
    ck_assert_msg(err.has_t && err.t >= T_FAIL && err.t <= T_FAIL + 1, "t = %.17g", err.t);
    ck_assert_msg(tab->stats.stretches >= 1, "the build was not split");
    cov[threads - 1] = lth_table_covered(tab);
    ck_assert(cov[threads - 1] <= T_FAIL + 1 && cov[threads - 1] > 100.0);
    /* the panels before the failure stay usable, nothing after it is there */
    lth_point *pt = lth_point_alloc(sys, 0, NULL);
    ck_assert_int_eq(lth_table_eval(tab, 0.5 * cov[threads - 1], 0, 1, pt, NULL, NULL), LTH_OK);
    ck_assert_int_eq(lth_table_eval(tab, 250.0, 0, 1, pt, NULL, NULL), LTH_ERANGE);
    lth_point_free(pt);
    lth_table_free(tab);
  }
  ck_assert(cov[0] == cov[1]);
  lth_system_free(sys);
}
END_TEST

/* The memory budget holds for the whole table, work arrays included (each
 * stretch's among them): the stretches share what is left of it, and running
 * out is LTH_ENOMEM at the same place for 1 and 2 threads. */
START_TEST(test_split_memory_budget) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 931, 0.2, 1);
  lth_system *sys = ts_system(S);
  double cov[2];
  for (int threads = 1; threads <= 2; threads++) {
    lth_table_opts o;
    lth_table_opts_init(&o);
    o.tol = 1e-12;
    o.threads = threads;
    o.max_bytes = 3000000;
    lth_table *tab = lth_table_alloc(sys, 0.0, 150.0, &o, NULL);
    lth_error err;
    lth_error_clear(&err);
    ck_assert_int_eq(lth_table_build(tab, 150.0, &err), LTH_ENOMEM);
    lth_table_info in;
    lth_table_info_get(tab, &in);
    ck_assert_msg(in.bytes + in.work_bytes <= o.max_bytes,
                  "%zu + %zu bytes (threads %d, panels %zu, stretches %zu)", in.bytes,
                  in.work_bytes, threads, in.panels, tab->stats.stretches);
    ck_assert_msg(tab->stats.stretches >= 1, "the build was not split before the budget ran out");
    cov[threads - 1] = lth_table_covered(tab);
    ck_assert(cov[threads - 1] < 150.0);
    lth_table_free(tab);
  }
  ck_assert(cov[0] == cov[1]);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* Output maps per panel: built with no outputs expected up to T1, then with
 * every panel carrying them.  Before T1 an evaluation with the output maps
 * decomposes (bitwise the decomposition; without a workspace LTH_ERANGE) and
 * the right-hand side still comes from the table; after T1 all of it does. */
START_TEST(test_output_maps_per_panel) {
  int n[] = {3, 3, 1};
  ts_sys *S = ts_new(3, n, 931, 0.2, 1);
  lth_system *sys = ts_system(S);
  const double T1 = 60.0, T = 150.0;
  size_t decomps[2];
  for (int threads = 1; threads <= 2; threads++) {
    lth_table *tab = alloc_table(sys, 0.0, T, threads);
    lth_error err;
    lth_error_clear(&err);
    lth_table_set_output_density(tab, 0.0);
    ck_assert_msg(lth_table_build(tab, T1, &err) == LTH_OK, "%s", err.message);
    double split = lth_table_covered(tab);
    lth_table_set_output_density(tab, INFINITY);
    ck_assert_msg(lth_table_build(tab, T, &err) == LTH_OK, "%s", err.message);
    for (size_t i = 0; i < tab->store.np; i++) {
      const tab_panel *p = &tab->store.panels[i];
      ck_assert_int_eq(p->outs, p->b > split);
      ck_assert_int_eq(p->ld, p->outs ? tab->lay.E : tab->lay.E_rhs);
    }
    lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
    lth_point *pt = lth_point_alloc(sys, 0, NULL), *pe = lth_point_alloc(sys, 0, NULL);
    tu_seed(11);
    for (int k = 0; k < 200; k++) {
      double t = tu_uniform(0.0, T);
      ck_assert_int_eq(lth_decomp_at(ws, t, pe, NULL), LTH_OK);
      ck_assert_int_eq(lth_table_eval(tab, t, 0, 0, pt, NULL, NULL), LTH_OK);
      ck_assert_msg(rel_err(&pt->Ahat, &pe->Ahat) <= 3e-12 && rel_err(&pt->P, &pe->P) <= 3e-12,
                    "t = %g", t);
      if (t < split) {
        ck_assert_int_eq(lth_table_eval(tab, t, 0, 1, pt, NULL, NULL), LTH_ERANGE);
        ck_assert_int_eq(lth_table_eval(tab, t, 0, 1, pt, ws, NULL), LTH_OK);
        ck_assert(rel_err(&pt->Bhat, &pe->Bhat) == 0 && rel_err(&pt->q, &pe->q) == 0 &&
                  rel_err(&pt->G, &pe->G) == 0);
      } else {
        ck_assert_int_eq(lth_table_eval(tab, t, 0, 1, pt, NULL, NULL), LTH_OK);
        ck_assert_msg(rel_err(&pt->Bhat, &pe->Bhat) <= 3e-12 && rel_err(&pt->G, &pe->G) <= 3e-12,
                      "t = %g", t);
      }
    }
    /* the one-pass Ahat + w P (w = -gamma: an integrator's drift damping)
     * agrees with the fields to rounding */
    for (int k = 0; k < 50; k++) {
      double t = tu_uniform(0.0, T), gamma = 0.7;
      ck_assert_int_eq(lth_table_eval(tab, t, 0, 0, pe, NULL, NULL), LTH_OK);
      ck_assert_int_eq(lth_table_eval_rhs(tab, t, -gamma, pt, NULL, NULL), LTH_OK);
      ck_assert(pt->P.order == -1);
      for (int i = 0; i < tab->lay.m * tab->lay.m; i++) {
        double want = pe->Ahat.c[i] - gamma * pe->P.c[i];
        ck_assert_msg(fabs(pt->Ahat.c[i] - want) <=
                          1e-13 * (1 + fabs(pe->Ahat.c[i]) + fabs(pe->P.c[i])),
                      "t = %g, entry %d: %.17g vs %.17g", t, i, pt->Ahat.c[i], want);
      }
      for (int i = 0; i < tab->lay.m; i++) ck_assert(pt->g.c[i] == pe->g.c[i]);
    }
    lth_table_info in;
    lth_table_info_get(tab, &in);
    decomps[threads - 1] = in.decomps;
    lth_point_free(pt);
    lth_point_free(pe);
    lth_decomp_ws_free(ws);
    lth_table_free(tab);
  }
  ck_assert(decomps[0] == decomps[1]);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

static Suite *split_suite(void) {
  Suite *s = suite_create("table_split");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_split_identical_and_accurate);
  tcase_add_test(tc, test_split_direct_panels_at_a_dip);
  tcase_add_test(tc, test_split_refusal_in_a_late_stretch);
  tcase_add_test(tc, test_split_memory_budget);
  tcase_add_test(tc, test_output_maps_per_panel);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(split_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}
