/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness for the data-file reader (scripts/fuzz.sh builds and runs
 * it): any bytes must give either a problem or an input error, never a crash,
 * hang, leak or undefined behaviour.  A parsed problem that is small enough
 * is also evaluated at both ends of its interval, which exercises the sources
 * the reader built (constants, expressions, LQR views). */
#include <stdint.h>
#include <stdlib.h>

#include "lth/problem.h"
#include "lth/system.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void evaluate(const lth_problem *pb) {
  const lth_system *sys = lth_problem_system(pb);
  int s = lth_system_size(sys), order = 2;
  if (s > 64) {
    return;
  }
  lth_jet *A = lth_jet_alloc(s, s, order, NULL), *f = lth_jet_alloc(s, 1, order, NULL);
  size_t wn = lth_system_work_size(sys, order);
  double *work = malloc((wn ? wn : 1) * sizeof *work), t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  if (A && f && work) {
    lth_error err;
    (void)lth_system_eval(sys, t0, order, A, f, work, &err);
    (void)lth_system_eval(sys, t1, order, A, f, work, &err);
  }
  free(work);
  lth_jet_free(A);
  lth_jet_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* CSV paths resolve below a directory that holds no files */
  const char *basedir = getenv("LTH_FUZZ_BASEDIR");
  lth_problem *pb = NULL;
  lth_error err;
  if (lth_problem_parse((const char *)data, size, "fuzz.lth",
                        basedir ? basedir : "/nonexistent-lth-fuzz", &pb, &err) == LTH_OK) {
    evaluate(pb);
  }
  lth_problem_free(pb);
  return 0;
}
