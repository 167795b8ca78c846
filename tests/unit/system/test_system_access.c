/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a caller reads back from a system: its blocks (lth_system_A,
 * lth_system_f) against the closed form of the data and the assembled jets of
 * lth_system_eval, the intersection of the blocks' domains
 * (lth_system_domain), the interval of interest (lth_system_interval), and
 * the cost counter of the data's enclosures (lth_enclose_evals). */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/enclose.h"
#include "lth/expr.h"
#include "lth/source.h"
#include "lth/system.h"
#include "testsys.h"
#include "testutil.h"

enum { ORDER = 3 };

/* |coefficient m of the source at t - the closed form| <= 4 eps of the entry's
 * size, for every entry (ts_entry_coef gives the exact series). */
static void check_block(ts_sys *S, const lth_source *src, int i, int j, double t) {
  int ni = S->n[i - 1], nj = j ? S->n[j - 1] : 1;
  ck_assert_int_eq(lth_source_rows(src), ni);
  ck_assert_int_eq(lth_source_cols(src), nj);
  lth_jet J;
  TU_ASSERT_OK(lth_jet_init(&J, ni, nj, ORDER, NULL));
  double *work = malloc((lth_source_work_size(src, ORDER) + 1) * sizeof *work);
  TU_ASSERT_OK(lth_source_fill(src, t, ORDER, &J, work, NULL));
  double want[ORDER + 1];
  for (int jj = 0; jj < nj; jj++)
    for (int ii = 0; ii < ni; ii++) {
      if (j) {
        ts_entry_coef(&S->A[S->off[i - 1] + ii + (S->off[j - 1] + jj) * S->s], t, ORDER, want, 1);
      } else {
        ts_entry_coef(&S->fr[S->off[i - 1] + ii], t, ORDER, want, 1);
      }
      for (int m = 0; m <= ORDER; m++) {
        double got = LTH_JET_AT(&J, m, ii, jj);
        ck_assert_msg(fabs(got - want[m]) <= 4 * DBL_EPSILON * fmax(1.0, fabs(want[m])),
                      "block (%d,%d) entry (%d,%d) order %d: %.17g vs %.17g", i, j, ii, jj, m, got,
                      want[m]);
      }
    }
  free(work);
  lth_jet_release(&J);
}

/* Every block in the pattern is there and delivers its data; blocks outside
 * the pattern or out of range are NULL; the assembled A and f hold the same
 * blocks at lth_system_block_offset. */
START_TEST(test_blocks_read_back) {
  const int n[4] = {3, 2, 2, 1};
  ts_sys *S = ts_new(4, n, 99, 0.3, 0);
  lth_system *sys = ts_system(S);
  TU_ASSERT_OK(lth_system_validate(sys, NULL));
  int s = lth_system_size(sys);
  lth_jet A, f;
  TU_ASSERT_OK(lth_jet_init(&A, s, s, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&f, s, 1, ORDER, NULL));
  double *work = malloc((lth_system_work_size(sys, ORDER) + 1) * sizeof *work);
  const double t = 0.8125;
  TU_ASSERT_OK(lth_system_eval(sys, t, ORDER, &A, &f, work, NULL));
  for (int i = 1; i <= 4; i++) {
    for (int j = 1; j <= 4; j++) {
      const lth_source *src = lth_system_A(sys, i, j);
      ck_assert_msg((src != NULL) == ts_in_pattern(4, i, j), "A(%d,%d) %s", i, j,
                    src ? "present outside the pattern" : "missing");
      if (src) check_block(S, src, i, j, t);
      int oi = lth_system_block_offset(sys, i), oj = lth_system_block_offset(sys, j);
      for (int m = 0; m <= ORDER; m++)
        for (int jj = 0; jj < n[j - 1]; jj++)
          for (int ii = 0; ii < n[i - 1]; ii++) {
            double want = 0.0;
            if (src) {
              double c[ORDER + 1];
              ts_entry_coef(&S->A[oi + ii + (oj + jj) * s], t, ORDER, c, 1);
              want = c[m];
            }
            double got = LTH_JET_AT(&A, m, oi + ii, oj + jj);
            ck_assert_msg(fabs(got - want) <= 4 * DBL_EPSILON * fmax(1.0, fabs(want)),
                          "assembled A(%d,%d) order %d: %.17g vs %.17g", i, j, m, got, want);
          }
    }
    const lth_source *fi = lth_system_f(sys, i);
    ck_assert_ptr_nonnull(fi);
    check_block(S, fi, i, 0, t);
  }
  ck_assert_ptr_null(lth_system_A(sys, 0, 1));
  ck_assert_ptr_null(lth_system_A(sys, 1, 5));
  ck_assert_ptr_null(lth_system_f(sys, 5));
  free(work);
  lth_jet_release(&A);
  lth_jet_release(&f);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

/* ---- a constant source defined on [lo, hi] only ---- */

typedef struct dom_state {
  double value, lo, hi;
} dom_state;

static lth_status dom_fill(const void *state, double t, int order, lth_jet *out, double *work,
                           lth_error *err) {
  (void)t;
  (void)work;
  (void)err;
  lth_jet_set_zero(out, order);
  for (int j = 0; j < out->cols; j++)
    for (int i = 0; i < out->rows; i++)
      LTH_JET_AT(out, 0, i, j) = ((const dom_state *)state)->value;
  out->order = order;
  return LTH_OK;
}

static void dom_domain(const void *state, double *lo, double *hi) {
  *lo = ((const dom_state *)state)->lo;
  *hi = ((const dom_state *)state)->hi;
}

static const lth_source_type dom_type = {
    .name = "bounded", .fill = dom_fill, .domain = dom_domain, .destroy = free, .exact = 1};

static lth_source *bounded(int rows, int cols, double value, double lo, double hi) {
  dom_state *d = malloc(sizeof *d);
  *d = (dom_state){value, lo, hi};
  lth_source *src = lth_source_new(&dom_type, d, rows, cols, NULL);
  ck_assert_ptr_nonnull(src);
  return src;
}

/* The system's domain is the intersection of its blocks' (f and A alike);
 * blocks not set (f_2 here) neither narrow it nor appear through lth_system_f. */
START_TEST(test_domain_and_interval) {
  const int n[2] = {2, 1};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  double lo, hi;
  lth_system_domain(sys, &lo, &hi);
  ck_assert(lo == -INFINITY && hi == INFINITY);
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 2, bounded(2, 1, 1.25, -1.5, 7.0), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 2, 1, bounded(1, 2, 0.75, 0.25, 9.0), NULL));
  lth_system_domain(sys, &lo, &hi);
  ck_assert_msg(lo == 0.25 && hi == 7.0, "domain [%g, %g]", lo, hi);
  TU_ASSERT_OK(lth_system_set_f(sys, 1, bounded(2, 1, 2.5, -3.0, 4.5), NULL));
  lth_system_domain(sys, &lo, &hi);
  ck_assert_msg(lo == 0.25 && hi == 4.5, "domain [%g, %g]", lo, hi);
  ck_assert_ptr_nonnull(lth_system_f(sys, 1));
  ck_assert_ptr_null(lth_system_f(sys, 2));
  ck_assert_ptr_null(lth_system_A(sys, 1, 1)); /* in the pattern, not set: zero */
  /* the assembled jets are zero where no block was set and the blocks' elsewhere */
  lth_jet A, f;
  TU_ASSERT_OK(lth_jet_init(&A, 3, 3, 1, NULL));
  TU_ASSERT_OK(lth_jet_init(&f, 3, 1, 1, NULL));
  double *work = malloc((lth_system_work_size(sys, 1) + 1) * sizeof *work);
  TU_ASSERT_OK(lth_system_eval(sys, 1.0, 1, &A, &f, work, NULL));
  ck_assert(LTH_JET_AT(&f, 0, 2, 0) == 0.0 && LTH_JET_AT(&f, 0, 0, 0) == 2.5);
  ck_assert(LTH_JET_AT(&A, 0, 0, 0) == 0.0 && LTH_JET_AT(&A, 0, 1, 2) == 1.25);
  /* outside the domain the evaluation refuses, naming t */
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_ne(lth_system_eval(sys, 5.0, 1, &A, &f, work, &err), LTH_OK);
  ck_assert(err.has_t && err.t == 5.0);
  free(work);
  lth_jet_release(&A);
  lth_jet_release(&f);

  /* the interval of interest: none until set, then exactly what was set;
   * a bad interval is refused and the last good one stays */
  double t0 = -7.0, t1 = -7.0;
  ck_assert_int_eq(lth_system_interval(sys, &t0, &t1), 0);
  ck_assert(t0 == -7.0 && t1 == -7.0);
  TU_ASSERT_OK(lth_system_set_interval(sys, 0.375, 4.125, NULL));
  ck_assert_int_eq(lth_system_interval(sys, &t0, &t1), 1);
  ck_assert(t0 == 0.375 && t1 == 4.125);
  ck_assert_int_eq(lth_system_set_interval(sys, 2.0, 2.0, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_system_set_interval(sys, 0.0, NAN, &err), LTH_EINVAL);
  ck_assert_int_eq(lth_system_interval(sys, &t0, &t1), 1);
  ck_assert(t0 == 0.375 && t1 == 4.125);
  lth_system_free(sys);
}
END_TEST

static lth_source *expr_source(const char *text) {
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse(text, strlen(text), NULL, NULL, &e, NULL));
  lth_source *src = lth_source_expr(1, 1, &e, NULL);
  ck_assert_ptr_nonnull(src);
  return src;
}

/* Every check computes enclosures, so the counter grows with each; a check
 * that bisects towards a narrow pulse costs more than one that does not; a
 * handle whose data carry no enclosure computes none. */
START_TEST(test_enclose_evals_count_work) {
  const int n[2] = {1, 1};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 1, expr_source("sin(2.385*t)"), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 2, expr_source("1 + 0.25*cos(t)"), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 2, 1, expr_source("1"), NULL));
  TU_ASSERT_OK(lth_system_set_f(sys, 1, expr_source("exp(-((t - 1.3)/0.01)^2)"), NULL));
  lth_enclose *enc = lth_enclose_alloc(sys, 8, NULL);
  ck_assert_ptr_nonnull(enc);
  ck_assert_int_eq(lth_enclose_known(enc), 1);
  ck_assert_uint_eq(lth_enclose_evals(enc), 0);
  lth_enclose_verdict v;
  /* away from the pulse: resolved at once */
  TU_ASSERT_OK(lth_enclose_check(enc, 2.0, 2.25, 8, 1e-8, 0.0, &v, NULL));
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_RESOLVED);
  size_t one = lth_enclose_evals(enc);
  ck_assert_uint_gt(one, 0);
  /* across the pulse, without bisection */
  TU_ASSERT_OK(lth_enclose_check(enc, 0.0, 4.0, 8, 1e-8, 4.0, &v, NULL));
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNRESOLVED);
  size_t plain = lth_enclose_evals(enc) - one;
  ck_assert_uint_gt(plain, 0);
  /* across the pulse, bisected down to 1e-3: at least one more interval per
   * halving (log2(4 / 1e-3) > 11 halvings), and the pulse is found */
  TU_ASSERT_OK(lth_enclose_check(enc, 0.0, 4.0, 8, 1e-8, 1e-3, &v, NULL));
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNRESOLVED);
  size_t bisect = lth_enclose_evals(enc) - one - plain;
  ck_assert_msg(bisect >= plain + 11, "bisection cost %zu evaluations, one check %zu", bisect,
                plain);
  ck_assert_msg(fabs(v.t_feature - 1.3) < 0.05, "pulse found at %g", v.t_feature);
  lth_enclose_free(enc);
  lth_system_free(sys);

  /* callbacks carry no enclosure: every check is UNKNOWN and computes nothing */
  const int n3[3] = {2, 2, 1};
  ts_sys *S = ts_new(3, n3, 5, 0.2, 0);
  lth_system *cb = ts_system(S);
  enc = lth_enclose_alloc(cb, 4, NULL);
  ck_assert_ptr_nonnull(enc);
  TU_ASSERT_OK(lth_enclose_check(enc, 0.0, 1.0, 4, 1e-8, 0.0, &v, NULL));
  ck_assert_int_eq(v.answer, LTH_ENCLOSE_UNKNOWN);
  ck_assert_uint_eq(lth_enclose_evals(enc), 0);
  lth_enclose_free(enc);
  lth_system_free(cb);
  ts_free(S);
}
END_TEST

static Suite *system_access_suite(void) {
  Suite *s = suite_create("system_access");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_blocks_read_back);
  tcase_add_test(tc, test_domain_and_interval);
  tcase_add_test(tc, test_enclose_evals_count_work);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(system_access_suite)
