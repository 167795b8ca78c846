/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled-data benchmark: the cost of the automatic choice of degree and
 * window against a fixed degree (`sampling order r + 2`, the former
 * default), on the test systems of tests/data/sampling (index 2, 3, 4;
 * 201 uniform and 101 Chebyshev-Lobatto samples; every t-dependent block
 * sampled).  See bench/SAMPLES.md for the columns and the measured figures.
 *
 *   bench_samples [--quick] [--points N] [--repeat N] [--noise]
 *
 * For each case and mode: `first` = reading the data file (CSV files
 * included) plus the decomposition on a grid of N points (default 1000,
 * serial), which is what one run of a tool costs -- the automatic choice and
 * the fits are made on first use, inside this run; `again` = the same grid
 * decomposed a second time with the same sources (choices and fits kept).
 * Times are CPU times of the process (the runs are serial; on a shared
 * machine wall time would measure the other processes too), the best of
 * --repeat runs (default 7), the two modes alternating.  Exit status 2 if a
 * run fails.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app_blas.h"
#include "lth/grid.h"
#include "lth/problem.h"

#ifndef LTH_SAMPLING_DATA
#define LTH_SAMPLING_DATA "tests/data/sampling"
#endif

/* CPU time of this process: the runs are serial, and on a shared machine the
 * wall time measures the other processes as much as this one. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int consume(void *ctx, size_t k, const lth_point *pt, const lth_verify_report *rep) {
  (void)k;
  (void)rep;
  *(double *)ctx += LTH_JET_AT(&pt->g, 0, 0, 0);
  return 0;
}

/* The case's text, with `sampling order K` after `lth 1` when K > 0. */
static char *case_text(const char *name, int K, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s.lth", LTH_SAMPLING_DATA, name);
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fprintf(stderr, "bench_samples: cannot open %s\n", path);
    return NULL;
  }
  char *buf = malloc(1 << 16), *text = malloc((1 << 16) + 64);
  size_t n = buf ? fread(buf, 1, (1 << 16) - 1, fp) : 0;
  fclose(fp);
  if (!buf || !text || n == 0) {
    free(buf);
    free(text);
    return NULL;
  }
  buf[n] = '\0';
  const char *p = strstr(buf, "lth 1\n");
  size_t cut = p ? (size_t)(p - buf) + 6 : 0, off = cut;
  memcpy(text, buf, cut);
  if (K > 0) {
    off += (size_t)sprintf(text + off, "sampling order %d\n", K);
  }
  memcpy(text + off, buf + cut, n - cut);
  *len = off + n - cut;
  free(buf);
  return text;
}

typedef struct timing {
  double first, again;
  int ok;
} timing;

/* One run: parse, grid, grid again. */
static timing run_once(const char *name, const char *text, size_t len, const double *t, size_t n) {
  timing r = {0.0, 0.0, 0};
  lth_problem *pb = NULL;
  lth_error err;
  lth_grid_opts o;
  lth_grid_opts_init(&o);
  o.threads = 1;
  double sum = 0.0, t0 = now();
  if (lth_problem_parse(text, len, name, LTH_SAMPLING_DATA, &pb, &err) != LTH_OK ||
      lth_grid_decompose(lth_problem_system(pb), t, n, &o, consume, &sum, &err) != LTH_OK) {
    fprintf(stderr, "bench_samples: %s: %s\n", name, err.message);
    lth_problem_free(pb);
    return r;
  }
  double t1 = now();
  if (lth_grid_decompose(lth_problem_system(pb), t, n, &o, consume, &sum, &err) != LTH_OK) {
    fprintf(stderr, "bench_samples: %s: %s\n", name, err.message);
    lth_problem_free(pb);
    return r;
  }
  r.first = t1 - t0;
  r.again = now() - t1;
  r.ok = 1;
  lth_problem_free(pb);
  return r;
}

int main(int argc, char **argv) {
  app_blas_setup(); /* a front end: BLAS as the tools run it (app_blas.h) */
  int quick = 0, noise = 0, reps = 7;
  size_t npts = 1000;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[k], "--noise") == 0) {
      noise = 1;
    } else if (strcmp(argv[k], "--points") == 0 && k + 1 < argc) {
      npts = (size_t)strtoul(argv[++k], NULL, 10);
    } else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc) {
      reps = atoi(argv[++k]);
    } else {
      fprintf(stderr, "usage: bench_samples [--quick] [--points N] [--repeat N] [--noise]\n");
      return 1;
    }
  }
  if (quick) {
    npts = 100;
    reps = 1;
  }
  npts = npts < 2 ? 2 : npts;
  reps = reps < 1 ? 1 : reps;
  static const char *cases[] = {"i2_u", "i2_c", "i3_u", "i3_c", "i4_u", "i4_c"};
  static const char *suffix[] = {"", "_n8", "_n5"};
  double *t = malloc(npts * sizeof *t);
  for (size_t k = 0; k < npts; k++) {
    t[k] = -1.0 + 2.0 * (double)k / (double)(npts - 1);
  }
  printf("sampled data: %zu grid points on [-1, 1], serial, best of %d runs; CPU times in ms\n",
         npts, reps);
  printf("%-10s %9s %9s %7s   %9s %9s %7s\n", "case", "fixed", "auto", "ratio", "fixed", "auto",
         "ratio");
  printf("%-10s %27s   %27s\n", "", "first run (read + grid)", "grid again");
  int failed = 0;
  double worst = 0.0;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (int z = 0; z < (noise ? 3 : 1); z++) {
      char name[32];
      snprintf(name, sizeof name, "%s%s", cases[c], suffix[z]);
      int r = cases[c][1] - '0';
      size_t lf = 0, la = 0;
      char *tf = case_text(name, r + 2, &lf), *ta = case_text(name, 0, &la);
      timing bf = {1e300, 1e300, 1}, ba = {1e300, 1e300, 1};
      for (int k = 0; k < reps && tf && ta && bf.ok && ba.ok; k++) {
        timing f = run_once(name, tf, lf, t, npts), a = run_once(name, ta, la, t, npts);
        bf.ok = f.ok;
        ba.ok = a.ok;
        bf.first = f.first < bf.first ? f.first : bf.first;
        bf.again = f.again < bf.again ? f.again : bf.again;
        ba.first = a.first < ba.first ? a.first : ba.first;
        ba.again = a.again < ba.again ? a.again : ba.again;
      }
      free(tf);
      free(ta);
      if (!tf || !ta || !bf.ok || !ba.ok) {
        failed = 1;
        continue;
      }
      double r1 = ba.first / bf.first, r2 = ba.again / bf.again;
      worst = r1 > worst ? r1 : worst;
      printf("%-10s %9.2f %9.2f %7.2f   %9.2f %9.2f %7.2f\n", name, 1e3 * bf.first, 1e3 * ba.first,
             r1, 1e3 * bf.again, 1e3 * ba.again, r2);
    }
  }
  printf("largest ratio of the first runs (automatic / fixed): %.2f%s\n", worst,
         quick ? " (--quick: too short to mean much)" : "");
  free(t);
  return failed ? 2 : 0;
}
