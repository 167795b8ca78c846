/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Row-masked views (lib/source/source_rows.h): over a dense expression
 * source, a sparse sum of phi(t) M (enclosed densely and on its pattern) and
 * its transpose (enclosed on its pattern only), the view's values (dense and
 * on the pattern) and enclosures (dense and on the pattern) are the base's,
 * bit for bit, in the kept rows and exactly 0 in the others; a base without
 * an enclosure is refused. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/enclose.h"
#include "lth/expr.h"
#include "lth/source.h"
#include "source/source_rows.h"
#include "source/source_sparse.h"
#include "testutil.h"

enum { ORDER = 3 };

static lth_expr *parse(const char *s) {
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse(s, strlen(s), NULL, NULL, &e, NULL));
  return e;
}

/* Row i of the rows x cols source is kept iff keep[i]. */
static int kept(const unsigned char *keep, int i) { return keep[i] != 0; }

static int same(lth_interval a, lth_interval b) { return a.lo == b.lo && a.hi == b.hi; }

/* The view of base against base: values and enclosures, dense and on the
 * pattern. */
static void compare(const lth_source *base, const unsigned char *keep) {
  lth_source *v = lth_source_rows_kept(base, keep, NULL);
  ck_assert_ptr_nonnull(v);
  int rows = lth_source_rows(base), cols = lth_source_cols(base);
  size_t sz = (size_t)rows * (size_t)cols;
  ck_assert(lth_source_rows(v) == rows && lth_source_cols(v) == cols);
  ck_assert_int_eq(lth_source_can_enclose(v), 1);
  ck_assert_int_eq(lth_source_can_enclose_csc(v), lth_source_can_enclose_csc(base));
  lth_jet A, B;
  TU_ASSERT_OK(lth_jet_init(&A, rows, cols, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, rows, cols, ORDER, NULL));
  double *wa = malloc((lth_source_work_size(base, ORDER) + 1) * sizeof *wa);
  double *wb = malloc((lth_source_work_size(v, ORDER) + 1) * sizeof *wb);
  TU_ASSERT_OK(lth_source_fill(base, 0.37, ORDER, &A, wa, NULL));
  TU_ASSERT_OK(lth_source_fill(v, 0.37, ORDER, &B, wb, NULL));
  for (int m = 0; m <= ORDER; m++)
    for (int j = 0; j < cols; j++)
      for (int i = 0; i < rows; i++)
        ck_assert(LTH_JET_AT(&B, m, i, j) == (kept(keep, i) ? LTH_JET_AT(&A, m, i, j) : 0.0));
  /* dense enclosures (a base enclosed on its pattern only: scattered) */
  size_t we = lth_source_enclose_work_size(v, ORDER) + 1;
  lth_interval *work = malloc(we * sizeof *work);
  lth_interval *cv = malloc(sz * (ORDER + 1) * sizeof *cv);
  TU_ASSERT_OK(lth_source_enclose(v, 0.2, 0.6, ORDER, cv, work, NULL));
  if (lth_source_can_enclose(base)) {
    lth_interval *cb = malloc(sz * (ORDER + 1) * sizeof *cb);
    lth_interval *wk = malloc((lth_source_enclose_work_size(base, ORDER) + 1) * sizeof *wk);
    TU_ASSERT_OK(lth_source_enclose(base, 0.2, 0.6, ORDER, cb, wk, NULL));
    for (size_t e = 0; e < sz * (ORDER + 1); e++) {
      ck_assert(kept(keep, (int)(e % sz % (size_t)rows)) ? same(cv[e], cb[e])
                                                         : cv[e].lo == 0 && cv[e].hi == 0);
    }
    free(cb);
    free(wk);
  }
  if (lth_source_can_enclose_csc(base)) {
    int nnz;
    const int *cp, *ri, *cpv, *riv;
    TU_ASSERT_OK(lth_source_csc_pattern(base, &nnz, &cp, &ri, NULL));
    int nv = -1;
    TU_ASSERT_OK(lth_source_csc_pattern(v, &nv, &cpv, &riv, NULL));
    ck_assert(nv == nnz && cpv == cp && riv == ri);
    size_t n = (size_t)nnz;
    lth_interval *eb = malloc(n * (ORDER + 1) * sizeof *eb),
                 *ev = malloc(n * (ORDER + 1) * sizeof *ev);
    lth_interval *wk = malloc((lth_source_enclose_work_size(base, ORDER) + 1) * sizeof *wk);
    double *vb = malloc(n * (ORDER + 1) * sizeof *vb), *vv = malloc(n * (ORDER + 1) * sizeof *vv);
    TU_ASSERT_OK(lth_source_enclose_csc(base, 0.2, 0.6, ORDER, eb, n, wk, NULL));
    TU_ASSERT_OK(lth_source_enclose_csc(v, 0.2, 0.6, ORDER, ev, n, work, NULL));
    TU_ASSERT_OK(lth_source_fill_csc(base, 0.37, ORDER, vb, n, wa, NULL));
    TU_ASSERT_OK(lth_source_fill_csc(v, 0.37, ORDER, vv, n, wb, NULL));
    int nz_kept = 0;
    for (int j = 0; j < cols; j++) {
      for (int p = cp[j]; p < cp[j + 1]; p++) {
        int k = kept(keep, ri[p]);
        nz_kept += k;
        for (int m = 0; m <= ORDER; m++) {
          size_t q = (size_t)m * n + (size_t)p;
          ck_assert(k ? same(ev[q], eb[q]) : ev[q].lo == 0 && ev[q].hi == 0);
          ck_assert(vv[q] == (k ? vb[q] : 0.0));
          /* the dense enclosure is the one on the pattern, scattered */
          ck_assert(same(cv[(size_t)m * sz + (size_t)ri[p] + (size_t)j * (size_t)rows], ev[q]));
        }
      }
    }
    ck_assert(nz_kept > 0 && nz_kept < nnz); /* the case masks something and keeps something */
    free(eb);
    free(ev);
    free(wk);
    free(vb);
    free(vv);
  }
  free(cv);
  free(work);
  free(wa);
  free(wb);
  lth_jet_release(&A);
  lth_jet_release(&B);
  lth_source_free(v);
}

START_TEST(test_dense_expr) {
  static const char *const ent[] = {"sin(t)",   "2.385",   "exp(-t)", "t^2", "abs(t-0.3)",
                                    "cos(3*t)", "1/(2+t)", "-t",      "0.5"};
  lth_expr *e[9];
  for (int k = 0; k < 9; k++) e[k] = parse(ent[k]);
  lth_source *s = lth_source_expr(3, 3, e, NULL);
  const unsigned char keep[3] = {0, 1, 0};
  compare(s, keep);
  lth_source_free(s);
}
END_TEST

START_TEST(test_sparse_and_transpose) {
  int ri[] = {0, 2, 3, 1, 3, 0, 2}, ci[] = {0, 0, 0, 1, 1, 2, 2};
  double val[] = {1.5, -2.25, 0.75, 3.125, -1.0, 0.5, 2.0};
  lth_csc *m = lth_csc_from_triplets(4, 3, 7, ri, ci, val, NULL);
  ck_assert_ptr_nonnull(m);
  lth_expr *phi = parse("-(1 + 0.1*sin(t))");
  double c = 0.0;
  lth_source *s = lth_source_sparse_sum(4, 3, 1, &phi, &c, &m, NULL);
  ck_assert_ptr_nonnull(s);
  const unsigned char keep4[4] = {1, 0, 1, 0};
  compare(s, keep4);
  /* the transpose: enclosed on its pattern only */
  lth_source *st = lth_source_scaled(s, -2.0, 1, NULL);
  ck_assert(!lth_source_can_enclose(st) && lth_source_can_enclose_csc(st));
  const unsigned char keep3[3] = {0, 1, 1};
  compare(st, keep3);
  lth_source_free(st);
  lth_source_free(s);
}
END_TEST

static int cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ctx, (void)t, (void)ld, (void)stride, (void)order;
  coef[0] = 1.0;
  return 0;
}

START_TEST(test_no_enclosure_refused) {
  lth_source *s = lth_source_callback(1, 1, cb, NULL, NULL);
  const unsigned char keep[1] = {0};
  lth_error err;
  lth_error_clear(&err);
  ck_assert_ptr_null(lth_source_rows_kept(s, keep, &err));
  ck_assert_int_eq(err.status, LTH_EINVAL);
  lth_source_free(s);
}
END_TEST

static Suite *rows_suite(void) {
  Suite *s = suite_create("source_rows");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_dense_expr);
  tcase_add_test(tc, test_sparse_and_transpose);
  tcase_add_test(tc, test_no_enclosure_refused);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(rows_suite)
