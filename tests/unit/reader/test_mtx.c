/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Matrix Market reader (lib/reader/mtx.c): every format, field and
 * symmetry it reads gives the matrix the file writes (compared entry by
 * entry with the dense matrix the file's text spells), and every refusal
 * names the file, the line and the column of what is wrong. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/mtx.h"
#include "testutil.h"

/* The dense rows x cols matrix of m (column-major), checking the CSC
 * invariants on the way. */
static double *dense_of(const lth_csc *m) {
  ck_assert_int_eq(lth_csc_check(m->rows, m->cols, m->colptr, m->rowind, NULL), LTH_OK);
  ck_assert_int_eq(m->colptr[m->cols], m->nnz);
  double *d = calloc((size_t)m->rows * (size_t)m->cols, sizeof *d);
  for (int j = 0; j < m->cols; j++) {
    for (int p = m->colptr[j]; p < m->colptr[j + 1]; p++) {
      d[m->rowind[p] + (size_t)j * m->rows] = m->val[p];
    }
  }
  return d;
}

static lth_csc *parse(const char *text, lth_error *err) {
  lth_error_clear(err);
  return lth_mtx_parse(text, strlen(text), "K.mtx", err);
}

/* Parse text and compare with the row-major rows x cols matrix want and the
 * number of stored entries nnz. */
static void expect(const char *text, int rows, int cols, const double *want, int nnz) {
  lth_error err;
  lth_csc *m = parse(text, &err);
  ck_assert_msg(m != NULL, "refused: %s (line %d)", err.message, err.line);
  ck_assert_int_eq(m->rows, rows);
  ck_assert_int_eq(m->cols, cols);
  ck_assert_int_eq(m->nnz, nnz);
  double *d = dense_of(m);
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      /* the values are decimal literals read correctly rounded: exact */
      ck_assert_msg(d[i + (size_t)j * rows] == want[i * cols + j], "entry (%d,%d): %.17g != %.17g",
                    i + 1, j + 1, d[i + (size_t)j * rows], want[i * cols + j]);
    }
  }
  free(d);
  lth_csc_free(m);
}

START_TEST(test_coordinate_real_general) {
  const double want[] = {2.385, 0, -1.5e-3, 0, 0, 0, 7, 0, 0, 0, 0, 0};
  /* unsorted entries, comments and blank lines between them, CR-LF, tabs */
  expect("%%MatrixMarket matrix coordinate real general\n"
         "% a comment\n"
         "\n"
         "3 4 3\r\n"
         "2 3\t7\n"
         "% another\n"
         "1 1 2.385\n"
         "  1 3 -1.5e-3  \n",
         3, 4, want, 3);
}
END_TEST

START_TEST(test_coordinate_duplicates_and_zeros) {
  /* a repeated entry is summed; an explicit zero stays in the pattern */
  const double want[] = {1.25, 0, 0, 0};
  expect("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 0\n1 1 0.25\n", 2, 2,
         want, 2);
}
END_TEST

START_TEST(test_coordinate_integer_and_pattern) {
  const double wi[] = {0, -3, 12, 0};
  expect("%%MatrixMarket matrix coordinate integer general\n2 2 2\n2 1 12\n1 2 -3\n", 2, 2, wi, 2);
  const double wp[] = {1, 0, 1, 0, 0, 1};
  /* the banner is case-sensitive, the words after it are not */
  expect("%%MatrixMarket MATRIX Coordinate PATTERN General\n3 2 3\n1 1\n2 1\n3 2\n", 3, 2, wp, 3);
}
END_TEST

START_TEST(test_coordinate_symmetric_and_skew) {
  const double ws[] = {4, -1, 0, -1, 4, -1, 0, -1, 4};
  expect("%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 "
         "-1\n3 3 4\n",
         3, 3, ws, 7);
  const double wk[] = {0, -2.5, 2.5, 0};
  expect("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 2.5\n", 2, 2, wk, 2);
  const double wp[] = {1, 1, 1, 0};
  expect("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n", 2, 2, wp, 3);
}
END_TEST

START_TEST(test_array_formats) {
  /* column-major; the zeros an array lists are not stored */
  const double wg[] = {1, 3, 0, 4, 2, 0};
  expect("%%MatrixMarket matrix array real general\n3 2\n1\n0\n2\n3\n4\n0\n", 3, 2, wg, 4);
  const double ws[] = {1, 2, 3, 2, 4, 5, 3, 5, 6};
  expect("%%MatrixMarket matrix array integer symmetric\n3 3\n1\n2\n3\n4\n5\n6\n", 3, 3, ws, 9);
  const double wk[] = {0, -1, -2, 1, 0, -3, 2, 3, 0};
  expect("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n", 3, 3, wk, 6);
}
END_TEST

START_TEST(test_empty_coordinate) {
  const double w[] = {0, 0, 0, 0};
  expect("%%MatrixMarket matrix coordinate real general\n2 2 0\n", 2, 2, w, 0);
}
END_TEST

/* Each malformed file: the status, the line and column named, and a
 * substring of the message. */
typedef struct bad_case {
  const char *text;
  lth_status st;
  int line, col;
  const char *msg;
} bad_case;

static const bad_case BAD[] = {
    {"", LTH_EPARSE, 1, 1, "not a Matrix Market file"},
    {"3 3 1\n1 1 1\n", LTH_EPARSE, 1, 1, "not a Matrix Market file"},
    {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", LTH_EDATA, 1, 34,
     "complex matrices are not supported"},
    {"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", LTH_EDATA, 1, 39,
     "hermitian matrices are not supported"},
    {"%%MatrixMarket vector coordinate real general\n", LTH_EDATA, 1, 16, "only `matrix`"},
    {"%%MatrixMarket matrix coordinate real\n", LTH_EPARSE, 1, 38, "exactly four words"},
    {"%%MatrixMarket matrix sparse real general\n", LTH_EPARSE, 1, 23, "expected coordinate"},
    {"%%MatrixMarket matrix coordinate float general\n", LTH_EPARSE, 1, 34, "field 'float'"},
    {"%%MatrixMarket matrix array pattern general\n", LTH_EPARSE, 1, 29, "coordinate format"},
    {"%%MatrixMarket matrix coordinate real general\n% only a comment\n", LTH_EPARSE, 2, 0,
     "missing size line"},
    {"%%MatrixMarket matrix coordinate real general\n3 x 1\n", LTH_EPARSE, 2, 3,
     "expected number of columns"},
    {"%%MatrixMarket matrix coordinate real general\n3 3\n", LTH_EPARSE, 2, 4,
     "expected the number of entries"},
    {"%%MatrixMarket matrix coordinate real general\n0 3 0\n", LTH_EDATA, 2, 1, "outside 1.."},
    {"%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", LTH_EDATA, 2, 1,
     "must be square"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n", LTH_EDATA, 3, 1,
     "row index 3 is outside 1..2"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 0 1.0\n", LTH_EDATA, 3, 3,
     "column index 0 is outside 1..2"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n", LTH_EDATA, 3, 5,
     "not a finite number"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 -inf\n", LTH_EDATA, 3, 5,
     "not a finite number"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e999\n", LTH_EDATA, 3, 5,
     "not a finite number"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.5x\n", LTH_EPARSE, 3, 5,
     "expected a number"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", LTH_EPARSE, 3, 4,
     "expected the value"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2 3\n", LTH_EPARSE, 3, 7,
     "unexpected '3'"},
    {"%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 2.5\n", LTH_EPARSE, 3, 5,
     "expected an integer"},
    {"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", LTH_EPARSE, 3, 5,
     "unexpected '1'"},
    {"%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", LTH_EDATA, 3, 1,
     "only the entries on and below"},
    {"%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n", LTH_EDATA, 3, 1,
     "only the entries below"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", LTH_EPARSE, 3, 0,
     "ends after 1 of the 2 entries"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n", LTH_EPARSE, 4, 1,
     "more entries than the 1"},
    {"%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n", LTH_EPARSE, 5, 1,
     "more entries than the 2"},
    {"%%MatrixMarket matrix array real general\n2 1\n1 2\n", LTH_EPARSE, 3, 3, "one per line"},
    {"%%MatrixMarket matrix coordinate real general\n2 2 1\n99999999999999 1 1\n", LTH_EDATA, 3, 1,
     "outside 1..2"},
};

START_TEST(test_refusals) {
  for (size_t k = 0; k < sizeof BAD / sizeof BAD[0]; k++) {
    const bad_case *b = &BAD[k];
    lth_error err;
    lth_csc *m = parse(b->text, &err);
    ck_assert_msg(m == NULL, "case %zu accepted", k);
    ck_assert_msg(err.status == b->st, "case %zu: status %d, expected %d (%s)", k, err.status,
                  b->st, err.message);
    ck_assert_str_eq(err.file, "K.mtx");
    ck_assert_msg(err.line == b->line && err.column == b->col,
                  "case %zu: at %d:%d, expected %d:%d (%s)", k, err.line, err.column, b->line,
                  b->col, err.message);
    ck_assert_msg(strstr(err.message, b->msg) != NULL, "case %zu: '%s' lacks '%s'", k, err.message,
                  b->msg);
  }
}
END_TEST

START_TEST(test_files) {
  lth_error err;
  lth_error_clear(&err);
  ck_assert_ptr_null(lth_mtx_read("/nonexistent/K.mtx", &err));
  ck_assert_int_eq(err.status, LTH_EIO);
  ck_assert_str_eq(err.file, "/nonexistent/K.mtx");
  lth_error_clear(&err);
  ck_assert_ptr_null(lth_mtx_read("/tmp", &err)); /* a directory */
  ck_assert_int_eq(err.status, LTH_EIO);
  ck_assert_ptr_nonnull(strstr(err.message, "not a regular file"));
  /* the shipped example's stiffness matrix: symmetric, read in full */
  char path[4096];
  const char *dir = getenv("LTH_DATA_DIR");
  snprintf(path, sizeof path, "%s/chain_K.mtx", dir ? dir : "data");
  lth_error_clear(&err);
  lth_csc *K = lth_mtx_read(path, &err);
  ck_assert_msg(K != NULL, "%s: %s", path, err.message);
  double *d = dense_of(K);
  for (int i = 0; i < K->rows; i++) {
    for (int j = 0; j < K->cols; j++) {
      ck_assert(d[i + (size_t)j * K->rows] == d[j + (size_t)i * K->rows]);
    }
  }
  free(d);
  lth_csc_free(K);
}
END_TEST

START_TEST(test_triplets_and_union) {
  /* lth_csc_from_triplets sums repeats in the order given; lth_csc_union
   * places every entry of every part */
  const int ri[] = {2, 0, 2, 1, 0}, ci[] = {1, 0, 1, 1, 2};
  const double v[] = {0.5, 2.0, 0.25, -1.0, 3.0};
  lth_csc *a = lth_csc_from_triplets(3, 3, 5, ri, ci, v, NULL);
  ck_assert_int_eq(a->nnz, 4);
  double *d = dense_of(a);
  ck_assert(d[2 + 3 * 1] == 0.75 && d[0] == 2.0 && d[1 + 3 * 1] == -1.0 && d[0 + 3 * 2] == 3.0);
  free(d);
  lth_csc *t = lth_csc_transpose(a, NULL);
  double *dt = dense_of(t);
  ck_assert(dt[1 + 3 * 2] == 0.75 && dt[2 + 3 * 0] == 3.0);
  free(dt);
  const lth_csc *parts[2] = {a, t};
  int **pos;
  lth_csc *u = lth_csc_union(parts, 2, &pos, NULL);
  ck_assert_int_eq(lth_csc_check(3, 3, u->colptr, u->rowind, NULL), LTH_OK);
  for (int k = 0; k < 2; k++) {
    for (int j = 0; j < 3; j++) {
      for (int p = parts[k]->colptr[j]; p < parts[k]->colptr[j + 1]; p++) {
        int q = pos[k][p];
        ck_assert(q >= u->colptr[j] && q < u->colptr[j + 1]);
        ck_assert_int_eq(u->rowind[q], parts[k]->rowind[p]);
      }
    }
    free(pos[k]);
  }
  ck_assert_int_eq(u->nnz, 6); /* a: (1,1) (2,2) (3,2) (1,3); its transpose adds (2,3) (3,1) */
  free(pos);
  lth_csc_free(u);
  lth_csc_free(t);
  lth_csc_free(a);
}
END_TEST

static Suite *mtx_suite(void) {
  Suite *s = suite_create("mtx");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_coordinate_real_general);
  tcase_add_test(tc, test_coordinate_duplicates_and_zeros);
  tcase_add_test(tc, test_coordinate_integer_and_pattern);
  tcase_add_test(tc, test_coordinate_symmetric_and_skew);
  tcase_add_test(tc, test_array_formats);
  tcase_add_test(tc, test_empty_coordinate);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_files);
  tcase_add_test(tc, test_triplets_and_union);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(mtx_suite)
