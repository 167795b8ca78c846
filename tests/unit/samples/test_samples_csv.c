/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CSV files of sampled data (lib/samples/samples_csv.c): numbers read exactly as
 * strtod reads them, whatever their length (issue 10 item 7), header rows
 * told from data rows, and every error naming its line and column. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <unistd.h>

#include "lth/samples.h"
#include "testutil.h"

static char tmpdir[64];

static void tmp_setup(void) {
  strcpy(tmpdir, "/tmp/lth_test_csv_XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_teardown(void) { rmdir(tmpdir); }

static void csv_write(const char *name, const char *text, char *path, size_t size) {
  snprintf(path, size, "%s/%s", tmpdir, name);
  FILE *fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
}

/* Read text as a rows x cols CSV of degree K (must succeed). */
static lth_source *csv_ok(const char *text, int rows, int cols, int K) {
  char path[256];
  lth_error err;
  csv_write("ok.csv", text, path, sizeof path);
  lth_source *src = lth_samples_read_csv(path, rows, cols, K, &err);
  ck_assert_msg(src != NULL, "%s:%d:%d: %s\n%s", err.file, err.line, err.column, err.message, text);
  unlink(path);
  return src;
}

/* Read text as a rows x cols CSV of degree K: the error must name line and column. */
static void csv_fails(const char *text, int rows, int cols, int K, int status, int line, int col,
                      const char *substring) {
  char path[256];
  lth_error err;
  csv_write("case.csv", text, path, sizeof path);
  lth_source *src = lth_samples_read_csv(path, rows, cols, K, &err);
  ck_assert_msg(src == NULL, "CSV accepted:\n%s", text);
  ck_assert_int_eq(err.status, status);
  ck_assert_int_eq(lth_status_exit_code(status), 2);
  ck_assert_str_eq(err.file, path);
  ck_assert_msg(err.line == line, "line %d, expected %d: %s", err.line, line, err.message);
  ck_assert_msg(col < 0 || err.column == col, "column %d, expected %d: %s", err.column, col,
                err.message);
  ck_assert_msg(strstr(err.message, substring) != NULL, "message: %s", err.message);
  unlink(path);
}

/* The value of sample k, entry 0 (the source interpolates its samples). */
static double sample_value(const lth_source *src, size_t k) {
  const double *t;
  lth_samples_times(src, &t);
  lth_jet *J = lth_jet_alloc(1, 1, 0, NULL);
  double *work = malloc((lth_source_work_size(src, 0) + 1) * sizeof *work);
  lth_error err;
  ck_assert_int_eq(lth_source_fill(src, t[k], 0, J, work, &err), LTH_OK);
  double v = LTH_JET_AT(J, 0, 0, 0);
  free(work);
  lth_jet_free(J);
  return v;
}

START_TEST(test_csv_reader) {
  tmp_setup();
  char path[256];
  /* header, comments, blank lines, CR-LF, spaces around ',' */
  csv_write("ok.csv",
            "# sampled 2 x 1 block\r\n"
            "t , a , b\r\n"
            "\n"
            "0, 1, 2   # trailing comment\n"
            "0.5,1.5e0,-2\n"
            " 1 ,\t2, -2.5E-1\n"
            "1.5, 3, .5\n",
            path, sizeof path);
  lth_error err;
  lth_source *src = lth_samples_read_csv(path, 2, 1, 3, &err);
  ck_assert_msg(src != NULL, "%s:%d: %s", err.file, err.line, err.message);
  lth_jet *J = lth_jet_alloc(2, 1, 0, NULL);
  double *work = malloc(lth_source_work_size(src, 0) * sizeof *work);
  TU_ASSERT_OK(lth_source_fill(src, 1.0, 0, J, work, NULL));
  ck_assert(fabs(LTH_JET_AT(J, 0, 0, 0) - 2.0) < 1e-14 &&
            fabs(LTH_JET_AT(J, 0, 1, 0) + 0.25) < 1e-14);
  free(work);
  lth_jet_free(J);
  lth_source_free(src);
  unlink(path);

  csv_fails("t, a\n0, 1\n1, 2\n2, 3, 4\n3, 4\n", 1, 1, 1, LTH_ESAMPLE, 4, -1, "has 3 columns");
  csv_fails("t, a, b\n0, 1, 2\n1, 2\n", 2, 1, 1, LTH_ESAMPLE, 3, -1, "has 2 columns");
  csv_fails("# c\n0, 1\n1, 2\n2, abc\n", 1, 1, 1, LTH_ESAMPLE, 4, 4, "column 2 is not a number");
  csv_fails("0, 1\n1, 2\n2, 1.5.2\n", 1, 1, 1, LTH_ESAMPLE, 3, 4, "not a number");
  csv_fails("0, 1\n1, nan\n", 1, 1, 1, LTH_ESAMPLE, 2, 4, "not a finite number");
  csv_fails("0, 1\n1, 1e999\n", 1, 1, 1, LTH_ESAMPLE, 2, 4, "not a finite number");
  csv_fails("0, 1\n1, 2\n\n# x\n1, 3\n", 1, 1, 1, LTH_ESAMPLE, 5, 1, "strictly increasing");
  csv_fails("t,a\n0, 1\n1, 2\n2, 3\n# end\n", 1, 1, 3, LTH_ESAMPLE, 5, -1, "needs at least 4");
  csv_fails("t,a\nx,y\n0, 1\n", 1, 1, 1, LTH_ESAMPLE, 2, 1, "column 1 is not a number");
  csv_fails("", 1, 1, 1, LTH_ESAMPLE, 1, -1, "0 data rows");
  /* automatic degree: at least need_order + 3 rows */
  lth_samples_opts o;
  lth_samples_opts_init(&o);
  o.need_order = 3;
  csv_write("few.csv", "t, a\n0, 1\n1, 2\n2, 3\n3, 4\n4, 5\n", path, sizeof path);
  ck_assert_ptr_null(lth_samples_read_csv_opts(path, 1, 1, &o, &err));
  ck_assert_msg(err.line == 6 && strstr(err.message, "5 data rows") &&
                    strstr(err.message, "needs at least 6"),
                "%d: %s", err.line, err.message);
  unlink(path);
  /* a file that cannot be opened */
  snprintf(path, sizeof path, "%s/none.csv", tmpdir);
  ck_assert_ptr_null(lth_samples_read_csv(path, 1, 1, 1, &err));
  ck_assert_int_eq(err.status, LTH_EIO);
  ck_assert_str_eq(err.file, path);
  tmp_teardown();
}
END_TEST

/* Numbers longer than 100 digits, with leading zeros before and after the
 * point, read exactly as strtod reads them (issue 10 item 7: they read as 0). */
START_TEST(test_long_numbers_exact) {
  tmp_setup();
  char *text = malloc(8192), *num[4];
  for (int k = 0; k < 4; k++) {
    num[k] = malloc(2048);
  }
  /* 000...0001 with 150 zeros; 0.000...0001e111 with 120 zeros after the point
   * (= 1e-121 * 1e111 = 1e-10); 150 significant digits; 10^-5 written with 300
   * digits of zeros and a trailing 1 */
  strcpy(num[0], "");
  for (int i = 0; i < 150; i++) strcat(num[0], "0");
  strcat(num[0], "1");
  strcpy(num[1], "0.");
  for (int i = 0; i < 120; i++) strcat(num[1], "0");
  strcat(num[1], "1e111");
  strcpy(num[2], "-3.");
  for (int i = 0; i < 150; i++) {
    char d[2] = {(char)('0' + (i * 7 + 3) % 10), 0};
    strcat(num[2], d);
  }
  strcpy(num[3], "0.0000");
  for (int i = 0; i < 300; i++) strcat(num[3], "0");
  strcat(num[3], "1e300"); /* 1e-305 * 1e300 */
  /* as times (kept exactly by the source), in increasing order: num[2] < num[1] < num[3] < num[0]
   */
  snprintf(text, 8192, "t, a\n%s, 1\n%s, 2\n%s, 3\n%s, 4\n7, 5\n", num[2], num[1], num[3], num[0]);
  lth_source *src = csv_ok(text, 1, 1, 1);
  const double *t;
  ck_assert_uint_eq(lth_samples_times(src, &t), 5);
  int order[4] = {3, 1, 0, 2}; /* row of num[k] */
  for (int k = 0; k < 4; k++) {
    double want = strtod(num[k], NULL);
    ck_assert_msg(want != 0.0, "reference %d is 0", k);
    ck_assert_msg(t[order[k]] == want, "value %d: read %.17g, strtod %.17g", k, t[order[k]], want);
  }
  lth_source_free(src);
  for (int k = 0; k < 4; k++) {
    free(num[k]);
  }
  free(text);
  tmp_teardown();
}
END_TEST

/* Exactly halfway cases beyond 780 digits: the sticky digit must decide the
 * rounding as strtod does (read as times, which the source keeps exactly). */
START_TEST(test_rounding_of_long_numbers) {
  tmp_setup();
  /* 1 + 2^-53 is exactly halfway between 1 and the next double: rounds to even (1);
   * any nonzero digit after it, however far, rounds up */
  const char *half = "1.00000000000000011102230246251565404236316680908203125";
  size_t cap = 4096;
  char *up = malloc(cap), *text = malloc(3 * cap);
  snprintf(up, cap, "%s", half);
  for (int i = 0; i < 900; i++) strcat(up, "0");
  strcat(up, "1");
  snprintf(text, 3 * cap, "t, a\n0.5, 1\n%s, 2\n%s, 3\n", half, up);
  lth_source *src = csv_ok(text, 1, 1, 1);
  const double *t;
  ck_assert_uint_eq(lth_samples_times(src, &t), 3);
  ck_assert(t[1] == strtod(half, NULL) && t[1] == 1.0);
  ck_assert(t[2] == strtod(up, NULL) && t[2] == nextafter(1.0, 2.0));
  lth_source_free(src);
  /* a long mantissa that overflows is not finite; one that underflows is 0, as strtod */
  snprintf(text, 3 * cap, "t, a\n0, 1\n1, 0.%0400d1e-10\n2, 3\n", 0);
  src = csv_ok(text, 1, 1, 1);
  ck_assert(fabs(sample_value(src, 1)) < 1e-15);
  lth_source_free(src);
  snprintf(text, 3 * cap, "t, a\n0, 1\n1, 1%0400de-90\n", 0);
  csv_fails(text, 1, 1, 1, LTH_ESAMPLE, 3, 4, "not a finite number");
  free(up);
  free(text);
  tmp_teardown();
}
END_TEST

/* A first row is a header only if none of its cells looks like a number: a
 * malformed first data row is an error naming its line and column. */
START_TEST(test_header_or_data) {
  tmp_setup();
  csv_fails("-1.0.0, 9\n0, 1\n1, 2\n", 1, 1, 1, LTH_ESAMPLE, 1, 1, "column 1 is not a number");
  csv_fails("# comment\n\n1e5x, 9\n2e5, 1\n3e5, 2\n", 1, 1, 1, LTH_ESAMPLE, 3, 1,
            "column 1 is not a number");
  csv_fails("0, 9x\n1, 1\n2, 2\n", 1, 1, 1, LTH_ESAMPLE, 1, 4, "column 2 is not a number");
  csv_fails("t, .5.\n0, 1\n", 1, 1, 1, LTH_ESAMPLE, 1, 1, "column 1 is not a number");
  csv_fails("inf, 1\n0, 1\n", 1, 1, 1, LTH_ESAMPLE, 1, 1, "not a finite number");
  csv_fails("time, value, extra\n0, 1\n", 1, 1, 1, LTH_ESAMPLE, 1, -1, "header row has 3");
  /* headers: words, quoted names, empty cells */
  const char *good[] = {"t, a\n", "time , \"x(1)\"\n", "t,\n", "T_s, a_1\n"};
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
    char text[256];
    snprintf(text, sizeof text, "%s0, 1\n1, 2\n2, 4\n", good[k]);
    lth_source *src = csv_ok(text, 1, 1, 1);
    const double *t;
    ck_assert_uint_eq(lth_samples_times(src, &t), 3);
    lth_source_free(src);
  }
  /* without a header the first row is data */
  lth_source *src = csv_ok("-1, 5\n0, 1\n1, 2\n", 1, 1, 1);
  const double *t;
  ck_assert_uint_eq(lth_samples_times(src, &t), 3);
  ck_assert(t[0] == -1.0 && fabs(sample_value(src, 0) - 5.0) < 1e-14);
  lth_source_free(src);
  tmp_teardown();
}
END_TEST

static Suite *csv_suite(void) {
  Suite *s = suite_create("samples_csv");
  TCase *tc = tcase_create("csv");
  tcase_add_test(tc, test_csv_reader);
  tcase_add_test(tc, test_long_numbers_exact);
  tcase_add_test(tc, test_rounding_of_long_numbers);
  tcase_add_test(tc, test_header_or_data);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(csv_suite)
