/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The bad-input suite: every tests/bad/NAME.lth is read with
 * lth_problem_read and must fail as tests/bad/EXPECTED says (an input error,
 * exit status 2; the named line; a substring of the message).  Every .lth in
 * the directory must be listed, so no file is silently untested. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <string.h>

#include "lth/problem.h"
#include "testutil.h"

#define MAX_CASES 512

typedef struct bad_case {
  char name[128];
  int line;
  char substring[256];
} bad_case;

static bad_case cases[MAX_CASES];
static int ncases;

static const char *test_dir(void) {
  const char *d = getenv("LTH_TEST_DIR");
  return d ? d : "tests";
}

/* path = LTH_TEST_DIR/bad/name */
static void bad_path(char *path, size_t size, const char *name) {
  int n = snprintf(path, size, "%s/bad/%s", test_dir(), name);
  ck_assert_msg(n > 0 && (size_t)n < size, "path too long");
}

/* Read EXPECTED: NAME LINE SUBSTRING ('#' lines are comments). */
static void load_expected(void) {
  char path[4096], buf[1024];
  bad_path(path, sizeof path, "EXPECTED");
  FILE *fp = fopen(path, "r");
  ck_assert_msg(fp != NULL, "cannot open %s", path);
  ncases = 0;
  while (fgets(buf, sizeof buf, fp)) {
    buf[strcspn(buf, "\n")] = '\0';
    if (buf[0] == '#' || buf[0] == '\0') {
      continue;
    }
    ck_assert_int_lt(ncases, MAX_CASES);
    bad_case *c = &cases[ncases];
    int used = 0;
    ck_assert_msg(sscanf(buf, "%127s %d %n", c->name, &c->line, &used) == 2 && used > 0,
                  "bad EXPECTED line: %s", buf);
    snprintf(c->substring, sizeof c->substring, "%s", buf + used);
    ck_assert_msg(c->substring[0] != '\0', "EXPECTED line without a message: %s", buf);
    ncases++;
  }
  fclose(fp);
}

START_TEST(test_every_bad_file_fails_as_expected) {
  load_expected();
  ck_assert_int_ge(ncases, 45);
  int failures = 0;
  for (int k = 0; k < ncases; k++) {
    char path[4096], msg[1024];
    bad_path(path, sizeof path, cases[k].name);
    lth_problem *pb = NULL;
    lth_error err;
    int st = lth_problem_read(path, &pb, &err);
    lth_error_format(&err, msg, sizeof msg);
    int ok = st != LTH_OK && pb == NULL && lth_status_exit_code(st) == 2 &&
             err.line == cases[k].line && strstr(err.message, cases[k].substring) != NULL &&
             err.file[0] != '\0';
    if (!ok) {
      fprintf(stderr, "FAIL %s: expected line %d and \"%s\"; got status %d (%s): %s\n",
              cases[k].name, cases[k].line, cases[k].substring, st, lth_strerror(st), msg);
      failures++;
    }
    lth_problem_free(pb);
  }
  ck_assert_msg(failures == 0, "%d of %d bad inputs did not fail as expected", failures, ncases);
}
END_TEST

START_TEST(test_every_bad_file_is_listed) {
  load_expected();
  char dir[4096];
  bad_path(dir, sizeof dir, "");
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  int unlisted = 0, seen = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    size_t n = strlen(de->d_name);
    if (n < 5 || strcmp(de->d_name + n - 4, ".lth") != 0) {
      continue;
    }
    seen++;
    int found = 0;
    for (int k = 0; k < ncases && !found; k++) {
      found = strcmp(cases[k].name, de->d_name) == 0;
    }
    if (!found) {
      fprintf(stderr, "%s is not listed in EXPECTED\n", de->d_name);
      unlisted++;
    }
  }
  closedir(d);
  ck_assert_int_eq(unlisted, 0);
  ck_assert_int_eq(seen, ncases);
}
END_TEST

/* The same bytes parsed from memory fail the same way (no file system). */
START_TEST(test_parse_from_memory_matches) {
  load_expected();
  for (int k = 0; k < ncases; k++) {
    if (strncmp(cases[k].name, "csv_", 4) == 0 || strncmp(cases[k].name, "mm_", 3) == 0 ||
        strcmp(cases[k].name, "sampling_late.lth") == 0) {
      continue; /* those read CSV or Matrix Market files next to the data file */
    }
    char path[4096];
    bad_path(path, sizeof path, cases[k].name);
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    static char buf[2 << 20];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    lth_problem *pb = NULL;
    lth_error err;
    int st = lth_problem_parse(buf, n, cases[k].name, NULL, &pb, &err);
    ck_assert_msg(st != LTH_OK && err.line == cases[k].line &&
                      strstr(err.message, cases[k].substring) != NULL &&
                      strcmp(err.file, cases[k].name) == 0,
                  "%s from memory: line %d, %s", cases[k].name, err.line, err.message);
  }
}
END_TEST

static Suite *bad_suite(void) {
  Suite *s = suite_create("bad_inputs");
  TCase *tc = tcase_create("bad");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_every_bad_file_fails_as_expected);
  tcase_add_test(tc, test_every_bad_file_is_listed);
  tcase_add_test(tc, test_parse_from_memory_matches);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(bad_suite)
