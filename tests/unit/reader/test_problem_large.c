/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Large sparse data files into the operator form (docs/performance.md,
 * "Large data files"): the index-3 chain of scripts/gen-chain.py, written
 * with mm() blocks and a bare eye, and as equations.
 *   - n = 8000 masses with mm() blocks (s = 16003): a block of 8000 x 8000
 *     is 6.4e7 > 5e7 entries as rows x cols, but it stores 3n - 2: the file
 *     is read (charged by what it stores), eye is a sparse source of n
 *     entries (alone, and in -c(t) K - 0.01 eye, where a dense eye would
 *     be 6.4e7 entries), and the operator form stores exactly the chain's
 *     entries;
 *   - the same chain as equations (n = 3000): the model's blocks keep their
 *     patterns, the same count of entries;
 *   - both with masses (M(1) a diagonal mm() file, m_i v_i' = ... in the
 *     equations): M^{-1} A keeps A's pattern;
 *   - on a small chain (n = 6) of both forms, the operator decomposition
 *     agrees with the dense one (cond_pi, G x) to the rounding of the
 *     point;
 *   - every sparse block of every shipped example (the equation form's
 *     blocks, eye, mm()) has a valid pattern, and its values on it are its
 *     dense jet, bitwise, orders 0..3. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <check.h>
#include <dirent.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lth/decomp.h"
#include "lth/opdecomp.h"
#include "lth/problem.h"
#include "lth/source.h"
#include "lth/system.h"
#include "testutil.h"

enum { NC = 3 }; /* constraints */

static char dir[256];

static void path_of(char *buf, size_t size, const char *name) {
  snprintf(buf, size, "%s/%s", dir, name);
}

/* Constraint j ties mass a_j to mass a_j + 1 (0-based), as gen-chain.py. */
static int anchor(int n, int j) { return j * (n - 1) / NC; }

/* Mass i (0-based) with masses, as gen-chain.py --masses. */
static double mass(int i) { return 1.0 + (i % 3) / 2.0; }

/* K.mtx (tridiagonal 2, -1), C.mtx (NC x n) and M.mtx (the masses, diagonal)
 * for n masses. */
static void write_mtx(int n) {
  char p[512];
  path_of(p, sizeof p, "K.mtx");
  FILE *fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, 3 * n - 2);
  for (int i = 1; i <= n; i++) {
    if (i > 1) fprintf(fp, "%d %d -1\n", i, i - 1);
    fprintf(fp, "%d %d 2\n", i, i);
    if (i < n) fprintf(fp, "%d %d -1\n", i, i + 1);
  }
  fclose(fp);
  path_of(p, sizeof p, "C.mtx");
  fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", NC, n, 2 * NC);
  for (int j = 0; j < NC; j++) {
    fprintf(fp, "%d %d 2.385\n%d %d -1\n", j + 1, anchor(n, j) + 1, j + 1, anchor(n, j) + 2);
  }
  fclose(fp);
  path_of(p, sizeof p, "M.mtx");
  fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, n);
  for (int i = 0; i < n; i++) fprintf(fp, "%d %d %g\n", i + 1, i + 1, mass(i));
  fclose(fp);
}

static void write_blocks(const char *name, int n, int masses) {
  char p[512];
  write_mtx(n);
  path_of(p, sizeof p, name);
  FILE *fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp,
          "blocks %d %d %d\ninterval 0 2\nk(t) = 2 + 0.3*sin(t)\nc(t) = 0.05 + 0.01*cos(2*t)\n"
          "A(1,1) = -c(t)*mm(\"K.mtx\") - 0.01*eye\nA(1,2) = -k(t)*mm(\"K.mtx\")\nA(1,3) = "
          "mm(\"C.mtx\")'\n"
          "A(2,1) = eye\nA(3,2) = mm(\"C.mtx\")\nf(1) = [",
          n, n, NC);
  for (int i = 0; i < n; i++) fprintf(fp, i == n / 2 ? " sin(3*t)" : " 0");
  fprintf(fp, "]\n%s", masses ? "M(1) = mm(\"M.mtx\")\n" : "");
  fclose(fp);
}

static void write_equations(const char *name, int n, int masses) {
  char p[512];
  path_of(p, sizeof p, name);
  FILE *fp = fopen(p, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "problem equations\nvariables");
  for (int i = 1; i <= n; i++) fprintf(fp, " x%d v%d", i, i);
  for (int j = 1; j <= NC; j++) fprintf(fp, " lam%d", j);
  fprintf(fp, "\ninterval 0 2\nk(t) = 2 + 0.3*sin(t)\nc(t) = 0.05 + 0.01*cos(2*t)\n");
  for (int i = 1; i <= n; i++) fprintf(fp, "x%d' = v%d\n", i, i);
  for (int i = 1; i <= n; i++) {
    if (masses) fprintf(fp, "%g*", mass(i - 1));
    fprintf(fp, "v%d' = -c(t)*(2*v%d", i, i);
    if (i > 1) fprintf(fp, " - v%d", i - 1);
    if (i < n) fprintf(fp, " - v%d", i + 1);
    fprintf(fp, ") - k(t)*(2*x%d", i);
    if (i > 1) fprintf(fp, " - x%d", i - 1);
    if (i < n) fprintf(fp, " - x%d", i + 1);
    fprintf(fp, ")");
    for (int j = 0; j < NC; j++) {
      if (anchor(n, j) == i - 1) fprintf(fp, " + 2.385*lam%d", j + 1);
      if (anchor(n, j) + 1 == i - 1) fprintf(fp, " - lam%d", j + 1);
    }
    fprintf(fp, i - 1 == n / 2 ? " + sin(3*t)\n" : "\n");
  }
  for (int j = 0; j < NC; j++) {
    fprintf(fp, "0 = 2.385*x%d - x%d\n", anchor(n, j) + 1, anchor(n, j) + 2);
  }
  fclose(fp);
}

static lth_problem *read_file(const char *name) {
  char p[512];
  path_of(p, sizeof p, name);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_read(p, &pb, &err) == LTH_OK, "%s: %s", name, err.message);
  unlink(p);
  return pb;
}

/* The chain's entries: K twice (3n - 2 each), C and C' (2 NC each), eye (n). */
static size_t chain_nnz(int n) { return 2 * (size_t)(3 * n - 2) + (size_t)n + 4 * NC; }

/* The operator form of pb's system stores the chain's entries and
 * decomposes at t. */
static void check_large(const lth_problem *pb, int n) {
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_system_size(sys), 2 * n + NC);
  lth_error err;
  lth_opsys *os = lth_opsys_from_system(sys, &err);
  ck_assert_msg(os != NULL, "%s", err.message);
  ck_assert_uint_eq(lth_opsys_nnz(os), chain_nnz(n));
  lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, NULL);
  lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, NULL);
  ck_assert(ws && pt);
  ck_assert_msg(lth_opdecomp_at(ws, 0.7, pt, &err) == LTH_OK, "%s", err.message);
  ck_assert(isfinite(lth_oppoint_info(pt)->cond_pi));
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opsys_free(os);
}

START_TEST(test_blocks_large) {
  int n = 8000; /* n x n = 6.4e7 > the 5e7 entries of a file, as rows x cols */
  write_blocks("chain.lth", n, 1);
  lth_problem *pb = read_file("chain.lth");
  const lth_source *eye = lth_system_A(lth_problem_system(pb), 2, 1);
  ck_assert(lth_source_is_sparse(eye));
  int nnz = 0;
  const int *cp, *ri;
  TU_ASSERT_OK(lth_source_csc_pattern(eye, &nnz, &cp, &ri, NULL));
  ck_assert_int_eq(nnz, n);
  check_large(pb, n);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_equations_large) {
  int n = 3000;
  write_equations("chain.lth", n, 1);
  lth_problem *pb = read_file("chain.lth");
  check_large(pb, n);
  lth_problem_free(pb);
}
END_TEST

/* The operator and the dense decomposition of pb at t: cond_pi and G x for a
 * random x agree to the point's rounding (amplification times eps). */
static void agree(const lth_problem *pb, double t) {
  const lth_system *sys = lth_problem_system(pb);
  lth_decomp_ws *dws = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *dp = lth_point_alloc(sys, 0, NULL);
  lth_opsys *os = lth_opsys_from_system(sys, NULL);
  ck_assert(dws && dp && os);
  lth_opdecomp_ws *ows = lth_opdecomp_ws_alloc(os, 0, NULL);
  lth_oppoint *op = lth_oppoint_alloc(os, 0, 1, NULL);
  ck_assert(ows && op);
  lth_decomp_ws_set_scale(dws, 0.0);
  TU_ASSERT_OK(lth_decomp_at(dws, t, dp, NULL));
  TU_ASSERT_OK(lth_opdecomp_at(ows, t, op, NULL));
  double amp = fmax(dp->amplification, 1.0), tol = 64 * DBL_EPSILON * amp;
  ck_assert(fabs(lth_oppoint_info(op)->cond_pi - dp->cond_pi) <= 1e-8 * dp->cond_pi * amp);
  int m = dp->m, s = dp->s;
  lth_jet *x = lth_jet_alloc(m, 1, 0, NULL), *z = lth_jet_alloc(s, 1, 0, NULL);
  ck_assert(x && z);
  tu_seed(2718);
  tu_random_jet(x, 0);
  TU_ASSERT_OK(lth_oppoint_apply_G(op, x, z, NULL));
  double worst = 0.0, scale = 1.0;
  for (int i = 0; i < s; i++) {
    double ref = 0.0, size = 0.0;
    for (int j = 0; j < m; j++) {
      ref += LTH_JET_AT(&dp->G, 0, i, j) * LTH_JET_AT(x, 0, j, 0);
      size += fabs(LTH_JET_AT(&dp->G, 0, i, j) * LTH_JET_AT(x, 0, j, 0));
    }
    scale = fmax(scale, size);
    worst = fmax(worst, fabs(LTH_JET_AT(z, 0, i, 0) - ref));
  }
  ck_assert_msg(worst <= tol * scale, "G x differs by %.3g (tolerance %.3g)", worst, tol * scale);
  lth_jet_free(x);
  lth_jet_free(z);
  lth_oppoint_free(op);
  lth_opdecomp_ws_free(ows);
  lth_opsys_free(os);
  lth_point_free(dp);
  lth_decomp_ws_free(dws);
}

START_TEST(test_small_agrees) {
  for (int masses = 0; masses <= 1; masses++) {
    write_blocks("small.lth", 6, masses);
    lth_problem *pb = read_file("small.lth");
    agree(pb, 0.7);
    lth_problem_free(pb);
    write_equations("small.lth", 6, masses);
    pb = read_file("small.lth");
    agree(pb, 0.7);
    lth_problem_free(pb);
  }
}
END_TEST

/* src's pattern is valid (rows strictly increasing in each column) and its
 * values on it, scattered, are its dense jet at t, orders 0..3, bitwise. */
static void csc_matches_dense(const lth_source *src, double t, const char *what) {
  enum { K = 3 };
  int rows = lth_source_rows(src), cols = lth_source_cols(src), nnz = 0;
  const int *cp, *ri;
  TU_ASSERT_OK(lth_source_csc_pattern(src, &nnz, &cp, &ri, NULL));
  ck_assert_int_eq(cp[0], 0);
  ck_assert_int_eq(cp[cols], nnz);
  for (int j = 0; j < cols; j++) {
    for (int p = cp[j]; p < cp[j + 1]; p++) {
      ck_assert_msg(ri[p] >= 0 && ri[p] < rows && (p == cp[j] || ri[p] > ri[p - 1]),
                    "%s: bad pattern in column %d", what, j);
    }
  }
  size_t nw = lth_source_work_size(src, K);
  double *v = malloc(((size_t)nnz * (K + 1) + nw + 1) * sizeof *v);
  lth_jet *J = lth_jet_alloc(rows, cols, K, NULL), *S = lth_jet_alloc(rows, cols, K, NULL);
  ck_assert(v && J && S);
  lth_error err;
  lth_status st = lth_source_fill(src, t, K, J, v, &err);
  if (st == LTH_OK) { /* (a sampled block outside its data: the same refusal below) */
    TU_ASSERT_OK(lth_source_fill_csc(src, t, K, v, (size_t)nnz, v + (size_t)nnz * (K + 1), NULL));
    lth_jet_set_zero(S, K);
    for (int m = 0; m <= K; m++) {
      for (int j = 0; j < cols; j++) {
        for (int p = cp[j]; p < cp[j + 1]; p++) {
          LTH_JET_AT(S, m, ri[p], j) = v[(size_t)m * nnz + (size_t)p];
        }
      }
      for (int j = 0; j < cols; j++) {
        for (int i = 0; i < rows; i++) {
          ck_assert_msg(LTH_JET_AT(S, m, i, j) == LTH_JET_AT(J, m, i, j),
                        "%s: entry (%d,%d) of order %d: %.17g on the pattern, %.17g dense", what,
                        i + 1, j + 1, m, LTH_JET_AT(S, m, i, j), LTH_JET_AT(J, m, i, j));
        }
      }
    }
  }
  free(v);
  lth_jet_free(J);
  lth_jet_free(S);
}

START_TEST(test_shipped_sparse_blocks) {
  const char *data = getenv("LTH_DATA_DIR");
  ck_assert_ptr_nonnull(data);
  DIR *d = opendir(data);
  ck_assert_ptr_nonnull(d);
  struct dirent *de;
  int sparse = 0, eqn = 0;
  while ((de = readdir(d)) != NULL) {
    size_t len = strlen(de->d_name);
    if (len < 5 || strcmp(de->d_name + len - 4, ".lth") != 0) continue;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", data, de->d_name);
    lth_problem *pb = NULL;
    lth_error err;
    ck_assert_msg(lth_problem_read(p, &pb, &err) == LTH_OK, "%s: %s", p, err.message);
    const lth_system *sys = lth_problem_system(pb);
    double t0 = 0.0, t1 = 1.0;
    lth_system_interval(sys, &t0, &t1);
    int r = lth_system_index(sys);
    for (int i = 1; i <= r; i++) {
      for (int j = 1; j <= r; j++) {
        const lth_source *src = lth_system_A(sys, i, j);
        if (src && lth_source_is_sparse(src)) {
          char what[1100];
          snprintf(what, sizeof what, "%s A(%d,%d)", de->d_name, i, j);
          csc_matches_dense(src, t0 + 0.37 * (t1 - t0), what);
          sparse++;
          eqn += lth_problem_get_form(pb) == LTH_FORM_EQUATIONS;
        }
      }
    }
    lth_problem_free(pb);
  }
  closedir(d);
  fprintf(stderr, "shipped examples: %d sparse blocks (%d of the equation form)\n", sparse, eqn);
  ck_assert(sparse >= 20 && eqn >= 5);
}
END_TEST

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/lth_test_large_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) {
  char p[512];
  path_of(p, sizeof p, "K.mtx");
  unlink(p);
  path_of(p, sizeof p, "C.mtx");
  unlink(p);
  path_of(p, sizeof p, "M.mtx");
  unlink(p);
  rmdir(dir);
}

static Suite *problem_large_suite(void) {
  Suite *s = suite_create("problem_large");
  TCase *tc = tcase_create("large");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_blocks_large);
  tcase_add_test(tc, test_equations_large);
  tcase_add_test(tc, test_small_agrees);
  tcase_add_test(tc, test_shipped_sparse_blocks);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(problem_large_suite)
