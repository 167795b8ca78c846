/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the benchmarks share besides their systems (those are test fixtures,
 * tests/fixtures/testsys.h, blocksys.h and chainsys.h): a monotonic clock, the
 * process's CPU clock and one table printed as aligned text or as CSV. */
#ifndef LTH_BENCHUTIL_H
#define LTH_BENCHUTIL_H

/* The including file defines _POSIX_C_SOURCE 200809L (or _GNU_SOURCE) first
 * (clock_gettime). */
#include <stdio.h>
#include <time.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Processor seconds of this process (all its threads): for serial runs on a
 * shared machine, where the wall clock also measures the other processes. */
static inline double bench_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Print one row of cells: right-aligned to widths[] (text) or comma-separated
 * (CSV; cells never contain commas). */
static inline void bench_emit(int csv, int ncol, const char *const *cells, const int *widths) {
  for (int c = 0; c < ncol; c++) {
    if (csv) {
      printf("%s%s", c ? "," : "", cells[c]);
    } else {
      printf("%*s%s", widths[c], cells[c], c + 1 < ncol ? " " : "");
    }
  }
  putchar('\n');
}

/* A table's title: a section line in CSV (blank line, "# title"), so each table
 * is a block with its own header row. */
static inline void bench_title(int csv, const char *title) {
  printf(csv ? "\n# %s\n" : "\n== %s ==\n", title);
}

#endif
