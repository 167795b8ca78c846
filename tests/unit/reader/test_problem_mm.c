/* SPDX-License-Identifier: GPL-3.0-or-later */
/* mm("file.mtx") in data files (docs/format.md section 1.5): every spelling of
 * the algebra (scalar functions of t on either side, sums, differences,
 * transposes, division, constant matrices added, parentheses) gives the
 * jets, orders 0..4, of the same expression written with the matrices as
 * literals, to the rounding of the sums; the block is a sparse source whose
 * pattern is the union of its matrices'; a param or named function called mm
 * keeps its meaning. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, mkdtemp */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lth/problem.h"
#include "lth/source.h"
#include "lth/system.h"
#include "testutil.h"

enum { ORDER = 4 };

static char dir[256];

static const char *K_MTX = "%%MatrixMarket matrix coordinate real symmetric\n"
                           "3 3 5\n1 1 2.3\n2 1 -1.1\n2 2 2.4\n3 2 -1.3\n3 3 2.9\n";
static const char *K_LIT = "[2.3, -1.1, 0; -1.1, 2.4, -1.3; 0, -1.3, 2.9]";
static const char *D_MTX = "%%MatrixMarket matrix coordinate real general\n"
                           "3 3 4\n1 1 0.31\n2 1 -0.05\n3 3 0.33\n1 3 0.07\n";
static const char *D_LIT = "[0.31, 0, 0.07; -0.05, 0, 0; 0, 0, 0.33]";
static const char *G_MTX = "%%MatrixMarket matrix array real general\n1 3\n0.6\n0\n-0.8\n";
static const char *G_LIT = "[0.6, 0, -0.8]";

/* 2 x 4 bc matrices: P + 2 Q overlaps in entry (1, 1) */
static const char *P_MTX = "%%MatrixMarket matrix coordinate real general\n"
                           "2 4 3\n1 1 1.5\n2 3 -0.25\n1 4 2\n";
static const char *Q_MTX = "%%MatrixMarket matrix coordinate real general\n"
                           "2 4 2\n1 1 0.5\n2 2 3\n";

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/lth_test_mm_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(dir));
  write_file("K.mtx", K_MTX);
  write_file("D.mtx", D_MTX);
  write_file("G.mtx", G_MTX);
  write_file("P.mtx", P_MTX);
  write_file("Q.mtx", Q_MTX);
}

static void teardown(void) {
  const char *names[] = {"K.mtx", "D.mtx", "G.mtx", "P.mtx", "Q.mtx"};
  char path[512];
  for (int k = 0; k < 5; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    unlink(path);
  }
  rmdir(dir);
}

/* The problem with A(1,1) = a11, A(1,2) = a12, A(2,1) = a21 (blocks 3 1). */
static lth_problem *read_problem(const char *a11, const char *a12, const char *a21) {
  char text[2048];
  snprintf(text, sizeof text,
           "blocks 3 1\ninterval 0 1\nA(1,1) = %s\nA(1,2) = %s\nA(2,1) = %s\nf(2) = -sin(t)\n", a11,
           a12, a21);
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_problem_parse(text, strlen(text), "mm.lth", dir, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s: line %d col %d: %s", a11, err.line, err.column, err.message);
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
  const char *mm, *lit; /* %s: K, D */
} spelling;

static const spelling A11[] = {
    {"-(1 + 0.1*sin(t)) * mm(\"K.mtx\") - mm(\"D.mtx\")", "-(1 + 0.1*sin(t)) * %s - %s"},
    {"mm(\"K.mtx\")*exp(t)/2 + mm(\"D.mtx\")'", "%s*exp(t)/2 + (%s)'"},
    {"-mm(\"D.mtx\") + 2.5*eye - cos(t)*mm(\"K.mtx\")", "-%2$s + 2.5*eye - cos(t)*%1$s"},
    {"(mm(\"K.mtx\") - mm(\"D.mtx\"))*t^2 + [1, 0, 0; 0, 0, 0; 0, 2, 0]",
     "(%s - %s)*t^2 + [1, 0, 0; 0, 0, 0; 0, 2, 0]"},
    {"mm( \"K.mtx\" ) / (2 + t)", "%s / (2 + t)"},
};

START_TEST(test_spellings_agree_with_literals) {
  char lit[512], g_t[64];
  snprintf(g_t, sizeof g_t, "(%s)'", G_LIT);
  for (size_t k = 0; k < sizeof A11 / sizeof A11[0]; k++) {
    snprintf(lit, sizeof lit, A11[k].lit, K_LIT, D_LIT);
    lth_problem *ps = read_problem(A11[k].mm, "mm(\"G.mtx\")'", "3*mm(\"G.mtx\")");
    lth_problem *pl = read_problem(lit, g_t, "3*[0.6, 0, -0.8]");
    const lth_system *ss = lth_problem_system(ps), *sl = lth_problem_system(pl);
    ck_assert_int_eq(lth_source_is_sparse(lth_system_A(ss, 1, 1)), 1);
    ck_assert_int_eq(lth_source_is_sparse(lth_system_A(sl, 1, 1)), 0);
    same_jets(lth_system_A(ss, 1, 1), lth_system_A(sl, 1, 1), A11[k].mm);
    same_jets(lth_system_A(ss, 1, 2), lth_system_A(sl, 1, 2), "A(1,2)");
    same_jets(lth_system_A(ss, 2, 1), lth_system_A(sl, 2, 1), "A(2,1)");
    lth_problem_free(ps);
    lth_problem_free(pl);
  }
}
END_TEST

START_TEST(test_pattern_is_the_union) {
  lth_problem *pb = read_problem("mm(\"K.mtx\") - t*mm(\"D.mtx\")", "mm(\"G.mtx\")'", "[1, 0, 0]");
  int nnz;
  const int *cp, *ri;
  TU_ASSERT_OK(
      lth_source_csc_pattern(lth_system_A(lth_problem_system(pb), 1, 1), &nnz, &cp, &ri, NULL));
  /* K: 7 entries (symmetric, mirrored); D adds (1,3), the rest of D is in K's */
  ck_assert_int_eq(nnz, 8);
  const int want_cp[] = {0, 2, 5, 8}, want_ri[] = {0, 1, 0, 1, 2, 0, 1, 2};
  ck_assert_int_eq(memcmp(cp, want_cp, sizeof want_cp), 0);
  ck_assert_int_eq(memcmp(ri, want_ri, sizeof want_ri), 0);
  /* G' (array format): its zero is not stored */
  TU_ASSERT_OK(
      lth_source_csc_pattern(lth_system_A(lth_problem_system(pb), 1, 2), &nnz, &cp, &ri, NULL));
  ck_assert_int_eq(nnz, 2);
  lth_problem_free(pb);
}
END_TEST

/* bc B0 = mm(P) + 2*mm(Q) (p x s = 2 x 4) and B1 as a literal: the sparse
 * form (lth_problem_bc_csc, read without a dense copy) and the dense one
 * (lth_problem_bc, made from it) hold the literal values, in either order of
 * the calls; the literal B1 comes out sparse with its nonzeros only. */
static lth_problem *bc_problem(void) {
  const char *text = "blocks 3 1\ninterval 0 1\nA(1,1) = [0,1,0; 0,0,1; -1,0,0]\n"
                     "A(1,2) = [0; 0; 1]\nA(2,1) = [0, 0, 1]\n"
                     "bc B0 = mm(\"P.mtx\") + 2*mm(\"Q.mtx\")\n"
                     "bc B1 = [0, 0, 0, 0; 0, 0, 0, 4]\nbc beta = [1; 2]\n";
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  lth_status st = lth_problem_parse(text, strlen(text), "bc.lth", dir, &pb, &err);
  ck_assert_msg(st == LTH_OK, "line %d col %d: %s", err.line, err.column, err.message);
  return pb;
}

static void check_sparse(const lth_bvp_csc *c, const double *dense, int rows, int cols) {
  int nz = 0;
  for (int j = 0; j < cols; j++) {
    for (int q = c->colptr[j]; q < c->colptr[j + 1]; q++) {
      ck_assert(q == c->colptr[j] || c->rowind[q] > c->rowind[q - 1]);
      ck_assert_double_eq(c->val[q], dense[c->rowind[q] + j * rows]);
    }
    for (int i = 0; i < rows; i++) nz += dense[i + j * rows] != 0.0;
  }
  ck_assert_int_eq(c->colptr[cols], nz);
}

START_TEST(test_bc_from_files_stay_sparse) {
  const double B0[8] = {2.5, 0, 0, 6, 0, -0.25, 2, 0}, B1[8] = {0, 0, 0, 0, 0, 0, 0, 4};
  for (int order = 0; order < 2; order++) {
    lth_problem *pb = bc_problem();
    lth_bvp_sparse_bc sp;
    const double *d0, *d1, *beta;
    int rs = order ? -9 : lth_problem_bc_csc(pb, &sp);
    int rd = lth_problem_bc(pb, &d0, &d1, &beta);
    if (order) rs = lth_problem_bc_csc(pb, &sp);
    ck_assert_int_eq(rs, 2);
    ck_assert_int_eq(rd, 2);
    ck_assert_ptr_nonnull(d0);
    ck_assert_ptr_nonnull(d1);
    for (int k = 0; k < 8; k++) {
      ck_assert_double_eq(d0[k], B0[k]);
      ck_assert_double_eq(d1[k], B1[k]);
    }
    check_sparse(&sp.B0, B0, 2, 4);
    check_sparse(&sp.B1, B1, 2, 4);
    ck_assert_ptr_eq(sp.beta, beta);
    ck_assert_double_eq(beta[1], 2.0);
    lth_problem_free(pb);
  }
}
END_TEST

START_TEST(test_name_mm_keeps_its_meaning) {
  /* a param and a named function called mm are what they were before */
  const char *text = "param mm = 2.5\nmm2(t) = 1 + t\nblocks 2 1\ninterval 0 1\n"
                     "A(1,2) = [mm; 0]\nA(2,1) = [1, mm2(t)]\n";
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_parse(text, strlen(text), "p.lth", dir, &pb, &err) == LTH_OK, "%s",
                err.message);
  lth_problem_free(pb);
  const char *text2 = "mm(t) = 1 + t\nblocks 2 1\ninterval 0 1\nA(1,2) = [mm(t); 0]\n"
                      "A(2,1) = [1, 0]\n";
  ck_assert_msg(lth_problem_parse(text2, strlen(text2), "p.lth", dir, &pb, &err) == LTH_OK, "%s",
                err.message);
  lth_jet J;
  TU_ASSERT_OK(lth_jet_init(&J, 2, 1, 1, NULL));
  const lth_source *a12 = lth_system_A(lth_problem_system(pb), 1, 2);
  double *w = malloc((lth_source_work_size(a12, 1) + 1) * sizeof *w);
  TU_ASSERT_OK(lth_source_fill(a12, 0.5, 1, &J, w, NULL));
  free(w);
  ck_assert(LTH_JET_AT(&J, 0, 0, 0) == 1.5 && LTH_JET_AT(&J, 1, 0, 0) == 1.0);
  lth_jet_release(&J);
  lth_problem_free(pb);
}
END_TEST

static Suite *problem_mm_suite(void) {
  Suite *s = suite_create("problem_mm");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_spellings_agree_with_literals);
  tcase_add_test(tc, test_pattern_is_the_union);
  tcase_add_test(tc, test_name_mm_keeps_its_meaning);
  tcase_add_test(tc, test_bc_from_files_stay_sparse);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(problem_mm_suite)
