/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The equation form's index-1 substitution at size (docs/equations.md
 * section 10): the index-3 chain of scripts/gen-chain.py with each spring
 * force its own algebraic unknown, g_i = k(t) (x_{i-1} - x_i), so that K is
 * the identity and y = -K^{-1}(L z + f) keeps L's pattern.
 *   - n = 70 masses (71 forces, above the 64 rows from which a diagonal K
 *     is solved entry by entry): the substituted system's blocks are sparse
 *     sources, and their jets, orders 0..4, are those of the same chain
 *     written with the forces substituted by hand (an independent
 *     formulation), to the rounding of a few sums; the values of the forces
 *     (lth_model_values_at and lth_model_values_apply) are
 *     k(t) (x_{i-1} - x_i) for a random z, and lth_model_values_map gives
 *     the same map densely;
 *   - n = 10,000 (s = 20,003 and 10,001 forces): read with the substituted
 *     blocks storing the chain's entries (5n + 4 NC - 2 in the operator
 *     form; before, the substitution was dense: 4 x 10^8 entries) and
 *     decomposed in operator form. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lth/model.h"
#include "lth/opdecomp.h"
#include "lth/problem.h"
#include "lth/source.h"
#include "lth/system.h"
#include "testutil.h"

enum { ORDER = 4, NC = 3 };

static char dir[256];

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/lth_test_i1_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) { rmdir(dir); }

static int anchor(int n, int j) { return j * (n - 1) / NC; }

/* The chain of n masses as equations, to fp: with forces g1..g(n+1) as
 * unknowns (forces = 1), or substituted by hand (forces = 0). */
static void write_chain(FILE *fp, int n, int forces) {
  fprintf(fp, "problem equations\nvariables");
  for (int i = 1; i <= n; i++) fprintf(fp, " x%d", i);
  fprintf(fp, "\nvariables");
  for (int i = 1; i <= n; i++) fprintf(fp, " v%d", i);
  if (forces) {
    fprintf(fp, "\nvariables");
    for (int i = 1; i <= n + 1; i++) fprintf(fp, " g%d", i);
  }
  fprintf(fp, "\nvariables");
  for (int j = 1; j <= NC; j++) fprintf(fp, " lam%d", j);
  fprintf(fp, "\ninterval 0 2\nk(t) = 2 + 0.3*sin(t)\n");
  for (int i = 1; i <= n; i++) fprintf(fp, "x%d' = v%d\n", i, i);
  for (int i = 1; forces && i <= n + 1; i++) {
    char a[16] = "0", b[16] = "0";
    if (i > 1) snprintf(a, sizeof a, "x%d", i - 1);
    if (i <= n) snprintf(b, sizeof b, "x%d", i);
    fprintf(fp, "0 = g%d - k(t)*(%s - %s)\n", i, a, b);
  }
  for (int i = 1; i <= n; i++) {
    if (forces) {
      fprintf(fp, "v%d' = g%d - g%d - 0.05*v%d", i, i, i + 1, i);
    } else { /* g_i - g_{i+1} = k (x_{i-1} - 2 x_i + x_{i+1}) */
      fprintf(fp, "v%d' = -k(t)*(2*x%d", i, i);
      if (i > 1) fprintf(fp, " - x%d", i - 1);
      if (i < n) fprintf(fp, " - x%d", i + 1);
      fprintf(fp, ") - 0.05*v%d", i);
    }
    for (int j = 0; j < NC; j++) {
      int a = anchor(n, j);
      if (a == i - 1) fprintf(fp, " + 2.385*lam%d", j + 1);
      if (a + 1 == i - 1) fprintf(fp, " - lam%d", j + 1);
    }
    fprintf(fp, "%s\n", i - 1 == n / 2 ? " + sin(3*t)" : "");
  }
  for (int j = 0; j < NC; j++) {
    fprintf(fp, "0 = 2.385*x%d - x%d\n", anchor(n, j) + 1, anchor(n, j) + 2);
  }
}

static lth_problem *read_chain(int n, int forces) {
  char path[512];
  snprintf(path, sizeof path, "%s/chain%d.lth", dir, forces);
  FILE *fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  write_chain(fp, n, forces);
  fclose(fp);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s", err.message);
  unlink(path);
  return pb;
}

/* Jets of two sources agree at several t, orders 0..ORDER. */
static void same_jets(const lth_source *a, const lth_source *b, const char *what) {
  int rows = lth_source_rows(a), cols = lth_source_cols(a);
  ck_assert_int_eq(rows, lth_source_rows(b));
  ck_assert_int_eq(cols, lth_source_cols(b));
  lth_jet A, B;
  TU_ASSERT_OK(lth_jet_init(&A, rows, cols, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&B, rows, cols, ORDER, NULL));
  size_t na = lth_source_work_size(a, ORDER), nb = lth_source_work_size(b, ORDER);
  double *wa = malloc((na ? na : 1) * sizeof *wa), *wb = malloc((nb ? nb : 1) * sizeof *wb);
  const double ts[] = {0.0, 0.3, 0.77, 2.0};
  for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
    TU_ASSERT_OK(lth_source_fill(a, ts[k], ORDER, &A, wa, NULL));
    TU_ASSERT_OK(lth_source_fill(b, ts[k], ORDER, &B, wb, NULL));
    /* k(t) times a sum of two or three entries of size 1 */
    double err = tu_jet_relerr(&A, &B);
    ck_assert_msg(err <= 64 * DBL_EPSILON, "%s at t = %g: relative difference %g", what, ts[k],
                  err);
  }
  free(wa);
  free(wb);
  lth_jet_release(&A);
  lth_jet_release(&B);
}

START_TEST(test_forces_substituted_as_by_hand) {
  const int n = 70;
  lth_problem *pg = read_chain(n, 1), *ph = read_chain(n, 0);
  const lth_system *sg = lth_problem_system(pg), *sh = lth_problem_system(ph);
  ck_assert_int_eq(lth_system_size(sg), 2 * n + NC);
  ck_assert_int_eq(lth_model_index1_count(lth_problem_model(pg)), n + 1);
  ck_assert_int_eq(lth_system_index(sg), lth_system_index(sh));
  int r = lth_system_index(sg);
  for (int i = 1; i <= r; i++) {
    ck_assert_int_eq(lth_system_block_size(sg, i), lth_system_block_size(sh, i));
    for (int j = 1; j <= r; j++) {
      const lth_source *a = lth_system_A(sg, i, j), *b = lth_system_A(sh, i, j);
      ck_assert_int_eq(a != NULL, b != NULL);
      if (a) {
        char what[32];
        snprintf(what, sizeof what, "A(%d,%d)", i, j);
        ck_assert_msg(lth_source_is_sparse(a), "%s is dense", what);
        same_jets(a, b, what);
      }
    }
  }
  /* the forces for a random z: g_i = k(t) (x_{i-1} - x_i) (x_0 = x_{n+1} = 0) */
  const lth_model *m = lth_problem_model(pg);
  int s = lth_system_size(sg), nv = lth_model_nvars(m);
  const int *perm = lth_model_perm(m);
  double *z = malloc((size_t)s * sizeof *z), *user = malloc((size_t)nv * sizeof *user);
  double *y = malloc((size_t)(n + 1) * sizeof *y), *size = malloc((size_t)(n + 1) * sizeof *y);
  double *Y = malloc((size_t)(n + 1) * (size_t)s * sizeof *Y), *y0 = malloc((n + 1) * sizeof *y0);
  ck_assert(z && user && y && size && Y && y0);
  srand(7);
  for (int k = 0; k < s; k++) {
    z[k] = 2.0 * rand() / RAND_MAX - 1.0;
  }
  lth_model_values *w = lth_model_values_alloc(m, NULL);
  ck_assert_ptr_nonnull(w);
  double t = 0.9, kt = 2 + 0.3 * sin(t);
  TU_ASSERT_OK(lth_model_values_at(w, t, z, NULL, user, NULL, NULL));
  TU_ASSERT_OK(lth_model_values_apply(w, t, z, y, size, NULL));
  TU_ASSERT_OK(lth_model_values_map(w, t, Y, n + 1, y0, NULL));
  for (int j = 0; j < n + 1; j++) {
    int g = perm[s + j]; /* the user's unknown g_{i}: x's, v's, then g's */
    int i = g - 2 * n + 1;
    double xa = i > 1 ? user[i - 2] : 0.0, xb = i <= n ? user[i - 1] : 0.0;
    double want = kt * (xa - xb), tol = 8 * DBL_EPSILON * kt * (fabs(xa) + fabs(xb));
    ck_assert_msg(fabs(user[g] - want) <= tol, "g%d = %.17g, want %.17g", i, user[g], want);
    ck_assert(fabs(y[j] - user[g]) <= tol && fabs(size[j] - kt * (fabs(xa) + fabs(xb))) <= tol);
    double yz = y0[j];
    for (int k = 0; k < s; k++) {
      yz += Y[j + (size_t)k * (n + 1)] * z[k];
    }
    ck_assert(fabs(yz - want) <= tol);
  }
  lth_model_values_free(w);
  free(z);
  free(user);
  free(y);
  free(size);
  free(Y);
  free(y0);
  lth_problem_free(pg);
  lth_problem_free(ph);
}
END_TEST

START_TEST(test_forces_at_size) {
  const int n = 10000;
  lth_problem *pb = read_chain(n, 1);
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_system_size(sys), 2 * n + NC);
  lth_error err;
  lth_opsys *os = lth_opsys_from_system(sys, &err);
  ck_assert_msg(os != NULL, "%s", err.message);
  /* -k K (3n - 2), -0.05 I and I (n each), C and C' (2 NC each) */
  ck_assert_uint_eq(lth_opsys_nnz(os), (size_t)(5 * n - 2 + 4 * NC));
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
END_TEST

static Suite *problem_index1_large_suite(void) {
  Suite *s = suite_create("problem_index1_large");
  TCase *tc = tcase_create("index1");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_forces_substituted_as_by_hand);
  tcase_add_test(tc, test_forces_at_size);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(problem_index1_large_suite)
