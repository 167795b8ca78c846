/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Helpers of the well-posedness tests (tests/test_wellposed*.c): problems
 * from data-file text, wall-clock time. */
#ifndef LTH_WELLPOSED_UTIL_H
#define LTH_WELLPOSED_UTIL_H

#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lth/problem.h"

/* CPU time of the process: the machine may be shared, wall time is not a measure */
static inline double wp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Parse data-file text; fails the test on a parse error. */
static inline lth_problem *wp_parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  int st = lth_problem_parse(text, strlen(text), "test.lth", NULL, &pb, &err);
  ck_assert_msg(st == LTH_OK, "parse: %s", err.message);
  return pb;
}

/* The problem's system with its interval set, as the data-file reader is to
 * set it (lth_system_set_interval). */
static inline const lth_system *wp_system(lth_problem *pb) {
  lth_system *sys = (lth_system *)lth_problem_system(pb);
  double t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  ck_assert_int_eq(lth_system_set_interval(sys, t0, t1, NULL), LTH_OK);
  return sys;
}

#endif
