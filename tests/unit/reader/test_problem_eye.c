/* SPDX-License-Identifier: GPL-3.0-or-later */
/* eye inside a block's formula at size (docs/format.md section 1.5):
 *   - on blocks of N = 70 rows (above the 64 from which eye is sparse),
 *     -(1 + 0.1*sin(t))*eye, mm("K.mtx") + sin(t)*eye and
 *     2*eye - cos(t)*mm("K.mtx") are sparse sources whose jets, orders
 *     0..4, are those of the same formulas with eye written out as a
 *     70 x 70 literal, to the rounding of the sums; where eye meets what a
 *     sparse value cannot (a literal that depends on t, a product with a
 *     matrix, [ ... ]) it becomes dense and gives the literal's jets too;
 *   - at n = 3000 masses (s = 6003) the chain with A(1,1) =
 *     -(1 + 0.1*sin(t))*eye, and with A(1,1) = -mm("K.mtx") - 0.1*sin(t)*eye,
 *     is read with A(1,1) storing n (resp. 3n - 2) entries and decomposed in
 *     operator form (before: a dense 3000 x 3000 block of 9e6 entries, and
 *     a refusal of the second). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lth/opdecomp.h"
#include "lth/problem.h"
#include "lth/source.h"
#include "lth/system.h"
#include "testutil.h"

enum { ORDER = 4, N = 70, NC = 3 };

static char dir[256];

static void path_of(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", dir, name);
}

/* K.mtx: the tridiagonal (2.5, -1) of n rows, and C.mtx: NC rows tying
 * neighbours, as scripts/gen-chain.py. */
static void write_mtx(int n) {
  char p[512];
  path_of(p, sizeof p, "K.mtx");
  FILE *fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, 3 * n - 2);
  for (int i = 1; i <= n; i++) {
    if (i > 1) {
      fprintf(fp, "%d %d -1\n", i, i - 1);
    }
    fprintf(fp, "%d %d 2.5\n", i, i);
    if (i < n) {
      fprintf(fp, "%d %d -1\n", i, i + 1);
    }
  }
  fclose(fp);
  path_of(p, sizeof p, "C.mtx");
  fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", NC, n, 2 * NC);
  for (int j = 0; j < NC; j++) {
    int a = j * (n - 1) / NC;
    fprintf(fp, "%d %d 2.385\n%d %d -1\n", j + 1, a + 1, j + 1, a + 2);
  }
  fclose(fp);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/lth_test_eye_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) {
  const char *names[] = {"K.mtx", "C.mtx"};
  char p[512];
  for (int k = 0; k < 2; k++) {
    path_of(p, sizeof p, names[k]);
    unlink(p);
  }
  rmdir(dir);
}

/* A literal of N x N with entry (i, j) from fn (a static buffer per call
 * site is too small: malloc'd, the caller frees). */
static char *literal(const char *(*fn)(int i, int j, char *buf)) {
  size_t cap = (size_t)N * N * 24 + 16, len = 0;
  char *s = malloc(cap), buf[32];
  ck_assert_ptr_nonnull(s);
  s[len++] = '[';
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      len += (size_t)snprintf(s + len, cap - len, "%s%s", fn(i, j, buf),
                              j + 1 < N ? ", " : (i + 1 < N ? "; " : "]"));
    }
  }
  return s;
}

static const char *eye_entry(int i, int j, char *buf) {
  (void)buf;
  return i == j ? "1" : "0";
}
static const char *k_entry(int i, int j, char *buf) {
  (void)buf;
  return i == j ? "2.5" : (i - j == 1 || j - i == 1) ? "-1" : "0";
}
static const char *t_entry(int i, int j, char *buf) { /* depends on t, not symmetric */
  if (i == j || j == i + 1) {
    snprintf(buf, 32, "%d*t^2", (i % 5) + 1);
    return buf;
  }
  return i == j + 3 ? "cos(t)" : "0";
}

/* The problem with blocks N 1, A(1,1) = a11 (%1$s: eye written out, %2$s:
 * K written out, %3$s: a literal in t), A(1,2) and A(2,1) tying the first
 * row. */
static lth_problem *read_a11(const char *fmt) {
  char *e = literal(eye_entry), *k = literal(k_entry), *tl = literal(t_entry);
  size_t cap = strlen(e) + strlen(k) + strlen(tl) + strlen(fmt) + 256;
  char *a11 = malloc(cap), *text = malloc(cap + 256);
  ck_assert(a11 && text);
  snprintf(a11, cap, fmt, e, k, tl);
  int len = snprintf(text, cap + 256,
                     "blocks %d 1\ninterval 0 1\nA(1,1) = %s\nA(1,2) = [1; zeros(%d, 1)]\n"
                     "A(2,1) = [1, zeros(1, %d)]\nf(2) = -sin(t)\n",
                     N, a11, N - 1, N - 1);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_problem_parse(text, (size_t)len, "eye.lth", dir, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s: line %d col %d: %s", fmt, err.line, err.column, err.message);
  free(e);
  free(k);
  free(tl);
  free(a11);
  free(text);
  return pb;
}

/* Jets of A(1,1) of two problems agree at several t, orders 0..ORDER. */
static void same_jets(const lth_problem *pa, const lth_problem *pb, const char *what) {
  const lth_source *a = lth_system_A(lth_problem_system(pa), 1, 1);
  const lth_source *b = lth_system_A(lth_problem_system(pb), 1, 1);
  lth_jet A, B;
  TU_ASSERT_OK(lth_jet_init(&A, N, N, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, N, N, ORDER, NULL));
  size_t na = lth_source_work_size(a, ORDER), nb = lth_source_work_size(b, ORDER);
  double *wa = malloc((na ? na : 1) * sizeof *wa), *wb = malloc((nb ? nb : 1) * sizeof *wb);
  const double ts[] = {0.0, 0.3, 0.77, 1.0};
  for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
    TU_ASSERT_OK(lth_source_fill(a, ts[k], ORDER, &A, wa, NULL));
    TU_ASSERT_OK(lth_source_fill(b, ts[k], ORDER, &B, wb, NULL));
    /* a few terms of a few roundings each, entries and factors below 10 */
    double err = tu_jet_relerr(&A, &B);
    ck_assert_msg(err <= 256 * DBL_EPSILON, "%s at t = %g: relative difference %g", what, ts[k],
                  err);
  }
  free(wa);
  free(wb);
  lth_jet_release(&A);
  lth_jet_release(&B);
}

typedef struct spelling {
  const char *eye, *lit; /* lit: %1$s eye, %2$s K, %3$s a literal in t */
  int sparse;            /* A(1,1) is a sparse source */
} spelling;

static const spelling SP[] = {
    {"-(1 + 0.1*sin(t))*eye", "-(1 + 0.1*sin(t))*%1$s", 1},
    {"mm(\"K.mtx\") + sin(t)*eye", "%2$s + sin(t)*%1$s", 1},
    {"2*eye - cos(t)*mm(\"K.mtx\")", "2*%1$s - cos(t)*%2$s", 1},
    {"eye(70)/(2 + t)", "%1$s/(2 + t)", 1},
    /* eye meets a literal in t, a matrix product: dense again; inside [ ... ] too */
    {"%3$s + exp(t)*eye", "%3$s + exp(t)*%1$s", 0},
    {"sin(t)*eye*%2$s", "sin(t)*%1$s*%2$s", 0},
    {"[eye(70)] - t*eye", "%1$s - t*%1$s", 1}, /* a constant literal joins the sparse sum */
};

START_TEST(test_eye_formulas_agree_with_literals) {
  write_mtx(N);
  for (size_t k = 0; k < sizeof SP / sizeof SP[0]; k++) {
    lth_problem *pe = read_a11(SP[k].eye), *pl = read_a11(SP[k].lit);
    const lth_source *a = lth_system_A(lth_problem_system(pe), 1, 1);
    ck_assert_msg(lth_source_is_sparse(a) == SP[k].sparse, "%s: sparse %d", SP[k].eye,
                  lth_source_is_sparse(a));
    ck_assert(!lth_source_is_sparse(lth_system_A(lth_problem_system(pl), 1, 1)));
    if (SP[k].sparse) {
      int nnz;
      const int *cp, *ri;
      TU_ASSERT_OK(lth_source_csc_pattern(a, &nnz, &cp, &ri, NULL));
      ck_assert_int_le(nnz, 3 * N - 2); /* eye's or K's pattern, nothing N x N */
    }
    same_jets(pe, pl, SP[k].eye);
    lth_problem_free(pe);
    lth_problem_free(pl);
  }
}
END_TEST

/* The chain of n masses with A(1,1) = a11, read from a file. */
static lth_problem *read_chain(int n, const char *a11) {
  write_mtx(n);
  char p[512];
  path_of(p, sizeof p, "chain.lth");
  FILE *fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp,
          "blocks %d %d %d\ninterval 0 2\nk(t) = 2 + 0.3*sin(t)\nA(1,1) = %s\n"
          "A(1,2) = -k(t)*mm(\"K.mtx\")\nA(1,3) = mm(\"C.mtx\")'\nA(2,1) = eye\n"
          "A(3,2) = mm(\"C.mtx\")\n",
          n, n, NC, a11);
  fclose(fp);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_read(p, &pb, &err) == LTH_OK, "%s: %s", a11, err.message);
  unlink(p);
  return pb;
}

START_TEST(test_eye_chain_at_size) {
  const int n = 3000;
  const char *a11[] = {"-(1 + 0.1*sin(t))*eye", "-mm(\"K.mtx\") - 0.1*sin(t)*eye"};
  const int want[] = {n, 3 * n - 2};
  for (int k = 0; k < 2; k++) {
    lth_problem *pb = read_chain(n, a11[k]);
    const lth_system *sys = lth_problem_system(pb);
    const lth_source *a = lth_system_A(sys, 1, 1);
    ck_assert(lth_source_is_sparse(a));
    int nnz;
    const int *cp, *ri;
    TU_ASSERT_OK(lth_source_csc_pattern(a, &nnz, &cp, &ri, NULL));
    ck_assert_int_eq(nnz, want[k]);
    lth_error err;
    lth_opsys *os = lth_opsys_from_system(sys, &err);
    ck_assert_msg(os != NULL, "%s", err.message);
    lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, NULL);
    lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, NULL);
    ck_assert(ws && pt);
    ck_assert_msg(lth_opdecomp_at(ws, 0.7, pt, &err) == LTH_OK, "%s", err.message);
    ck_assert(isfinite(lth_oppoint_info(pt)->cond_pi));
    lth_oppoint_free(pt);
    lth_opdecomp_ws_free(ws);
    lth_opsys_free(os);
    lth_problem_free(pb);
  }
}
END_TEST

static Suite *problem_eye_suite(void) {
  Suite *s = suite_create("problem_eye");
  TCase *tc = tcase_create("eye");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_eye_formulas_agree_with_literals);
  tcase_add_test(tc, test_eye_chain_at_size);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(problem_eye_suite)
