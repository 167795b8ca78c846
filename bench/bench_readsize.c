/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Reading a large sparse data file and handing it to the operator form
 * (docs/performance.md, "Large data files"): the time of lth_problem_read,
 * of lth_opsys_from_system and of one lth_opdecomp_at, and the process's
 * peak memory, for a file written by scripts/gen-chain.py --mm or
 * --equations.  Times are CPU seconds of the process (the wall clock of a
 * shared machine says more about the other jobs).  Usage: bench_readsize
 * FILE [T] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, CLOCK_PROCESS_CPUTIME_ID */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "lth/opdecomp.h"
#include "lth/problem.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long peak_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_readsize FILE [T]\n");
    return 2;
  }
  double t = argc > 2 ? atof(argv[2]) : 0.7;
  lth_error err;
  lth_error_clear(&err);
  lth_problem *pb = NULL;
  double t0 = now();
  if (lth_problem_read(argv[1], &pb, &err) != LTH_OK) {
    fprintf(stderr, "read: %s\n", err.message);
    return 1;
  }
  double t1 = now();
  long kb_read = peak_kb();
  lth_opsys *os = lth_opsys_from_system(lth_problem_system(pb), &err);
  double t2 = now();
  lth_opdecomp_ws *ws = os ? lth_opdecomp_ws_alloc(os, 0, &err) : NULL;
  lth_oppoint *pt = ws ? lth_oppoint_alloc(os, 0, 1, &err) : NULL;
  double t3 = now();
  lth_status st = pt ? lth_opdecomp_at(ws, t, pt, &err) : LTH_ENOMEM;
  double t4 = now();
  if (st != LTH_OK) {
    fprintf(stderr, "operator form: %s\n", err.message);
  }
  printf("s %d  nnz %zu  (CPU times)\nread %.3f s (peak %.0f MB)\nlth_opsys_from_system %.4f s\n"
         "workspace %.4f s\nlth_opdecomp_at %.4f s (cond_pi %.3g)\npeak memory %.0f MB\n",
         lth_system_size(lth_problem_system(pb)), os ? lth_opsys_nnz(os) : 0, t1 - t0,
         (double)kb_read / 1024.0, t2 - t1, t3 - t2, t4 - t3,
         st == LTH_OK ? lth_oppoint_info(pt)->cond_pi : 0.0, (double)peak_kb() / 1024.0);
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opsys_free(os);
  lth_problem_free(pb);
  return st == LTH_OK ? 0 : 1;
}
