/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The structure report (lth_problem_describe, lth_model_describe; the
 * `structure` lines of lth-decompose): one-by-one mass matrices of the same
 * block and kind are one line, with the unknowns as a range {v1, ..., v50}
 * when their names are numbered consecutively, else listed; mass matrices of
 * another kind, block or size keep lines of their own. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "lth/problem.h"
#include "testutil.h"

/* n masses with positions x_i and velocities named vel1..veln, the first
 * following sin(t) (servo force u); masses 2 or 3, except mass `varying`
 * (1-based; 0: none), which is 1 + 0.1 t. */
static char *chain(int n, const char *vel, int varying) {
  size_t cap = 4096 + (size_t)n * 256;
  char *t = malloc(cap);
  ck_assert_ptr_nonnull(t);
  size_t len = (size_t)snprintf(t, cap, "problem equations\nvariables");
  for (int i = 1; i <= n; i++) {
    len += (size_t)snprintf(t + len, cap - len, " x%d %s%d", i, vel, i);
  }
  len += (size_t)snprintf(t + len, cap - len, " u\ninterval 0 3\n");
  for (int i = 1; i <= n; i++) {
    len += (size_t)snprintf(t + len, cap - len, "x%d' = %s%d\n", i, vel, i);
    len += (size_t)snprintf(t + len, cap - len, "%s*%s%d' = -(x%d - %s)%s\n",
                            i == varying ? "(1 + 0.1*t)"
                            : i % 2      ? "2"
                                         : "3",
                            vel, i, i, i < n ? "0" : "1", i == 1 ? " + u" : "");
  }
  len += (size_t)snprintf(t + len, cap - len, "0 = x1 - sin(t)\n");
  return t;
}

static void describe(const char *text, char *buf, size_t size) {
  lth_problem *pb = NULL;
  lth_error err;
  char msg[1024];
  ck_assert_msg(lth_problem_parse(text, strlen(text), "d.lth", NULL, &pb, &err) == LTH_OK, "%s",
                lth_error_format(&err, msg, sizeof msg));
  lth_problem_describe(pb, buf, size);
  lth_problem_free(pb);
}

static int count(const char *s, const char *what) {
  int n = 0;
  for (const char *p = strstr(s, what); p; p = strstr(p + 1, what)) {
    n++;
  }
  return n;
}

START_TEST(test_fifty_masses_one_line) {
  char *t = chain(50, "v", 0), buf[8192];
  describe(t, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "mass matrices of {v1, ..., v50} in z_1: constant 1 x 1 each\n"), "%s",
                buf);
  ck_assert_int_eq(count(buf, "mass matri"), 1);
  free(t);
}
END_TEST

START_TEST(test_kinds_apart) {
  /* mass 3 varies in t: its own line; the 49 others one line, not a range */
  char *t = chain(50, "v", 3), buf[8192];
  describe(t, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "mass matrix of {v3} in z_1: time-varying 1 x 1\n"), "%s", buf);
  ck_assert_msg(strstr(buf, "mass matrices of {v1, v2, v4, v5, "), "%s", buf);
  ck_assert_msg(strstr(buf, "(49 in all)} in z_1: constant 1 x 1 each\n"), "%s", buf);
  ck_assert_int_eq(count(buf, "mass matri"), 2);
  free(t);
}
END_TEST

START_TEST(test_short_groups_listed) {
  char *t = chain(3, "vel", 0), buf[8192];
  describe(t, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "mass matrices of {vel1, vel2, vel3} in z_1: constant 1 x 1 each\n"),
                "%s", buf);
  free(t);
  t = chain(1, "v", 0);
  describe(t, buf, sizeof buf);
  ck_assert_msg(strstr(buf, "mass matrix of {v1} in z_1: constant 1 x 1\n"), "%s", buf);
  free(t);
}
END_TEST

static Suite *describe_suite(void) {
  Suite *s = suite_create("problem_describe");
  TCase *tc = tcase_create("describe");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_fifty_masses_one_line);
  tcase_add_test(tc, test_kinds_apart);
  tcase_add_test(tc, test_short_groups_listed);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(describe_suite)
