/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation benchmark (docs/collocation.md sections 1 and 6): error against time
 * of collocation, multiple shooting and finite differences on the same BVPs
 * with exact solutions, measured in the same run:
 *   smooth2/3/5  manufactured index-2, -3 and -5 problems on [0, 3] with
 *                random boundary matrices (tests/fixtures/testsys.h);
 *   dich3        the index-3 one with modes e^{+-20 t} on [0, 3];
 *   rlc, pend10  data/rlc_periodic.lth and data/pendulum_10s_bvp.lth.
 * Table 1: every method at a ladder of settings.  Table 2 (the targets of
 * the collocation issue): the time collocation needs for 1e-10 against the
 * fastest multiple-shooting setting reaching 1e-10, and finite differences
 * run at the same time as collocation (grid scaled from a timed run).
 * Table 3: the number of stages against time at fixed tolerances (how the
 * default was chosen).  Times are process CPU times (CLOCK_PROCESS_CPUTIME_ID:
 * the machines these run on are shared, and CPU time does not count the
 * waits; every path here is single-threaded), the best of --repeat runs
 * (default 3).
 *
 *   bench_colloc [--quick] [--csv] [--repeat N] [--data DIR]
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_blas.h"
#include "benchutil.h"
#include "testsys.h"
#include "lth/bvp.h"
#include "lth/problem.h"

#define NOUT 21
#ifndef LTH_BENCH_DATA
#define LTH_BENCH_DATA "data"
#endif

typedef struct cfg {
  int quick, csv, reps;
  const char *data;
} cfg;

typedef void (*exact_fn)(double t, double *z);

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct prob {
  const char *name;
  ts_sys *S;       /* manufactured, or */
  lth_problem *pb; /* a data file with */
  exact_fn exact;  /* its closed form */
  const lth_system *sys;
  int s, p;
  double t0, t1;
  double B0[TS_MAXS * TS_MAXS], B1[TS_MAXS * TS_MAXS], beta[TS_MAXS];
  double times[NOUT];
} prob;

typedef struct run {
  lth_status st;
  double wall, err, est;
  int N;
} run;

/* ---- the closed forms of the data files (stated in their comments) ---- */

static void rlc_exact(double t, double *z) {
  const double w = 0.9, a = 0.19 / 0.0442, b = -0.09 / 0.0442;
  z[0] = sin(w * t);
  z[1] = w * (a * cos(w * t) - b * sin(w * t));
  z[2] = a * sin(w * t) + b * cos(w * t);
  z[3] = 0.5 * w * cos(w * t) + z[1];
}

static void pend10_exact(double t, double *z) {
  double w = sqrt(9.81), b = (0.03 - 0.05 * cos(10 * w)) / sin(10 * w);
  z[0] = w * (b * cos(w * t) - 0.05 * sin(w * t));
  z[2] = 0.05 * cos(w * t) + b * sin(w * t);
  z[1] = z[3] = z[4] = 0.0;
}

static void set_times(prob *P) {
  for (int k = 0; k < NOUT; k++) P->times[k] = P->t0 + (P->t1 - P->t0) * k / (NOUT - 1.0);
  P->times[NOUT - 1] = P->t1;
}

static int make_manufactured(prob *P, const char *name, int r, const int *n, uint64_t seed,
                             double dich) {
  memset(P, 0, sizeof *P);
  P->name = name;
  P->S = ts_make(r, n, seed, (ts_opts){.amp = 0.2, .dich = dich});
  lth_system *sys = P->S ? ts_system(P->S) : NULL;
  if (!sys) return -1;
  P->sys = sys;
  P->s = P->S->s;
  P->p = lth_system_manifold_dim(sys);
  P->t0 = 0.0;
  P->t1 = 3.0;
  uint64_t rng = seed * 7 + 1;
  for (int k = 0; k < P->p * P->s; k++) {
    P->B0[k] = rng_splitmix(&rng, -1, 1);
    P->B1[k] = rng_splitmix(&rng, -1, 1);
  }
  double z0[TS_MAXS], z1[TS_MAXS];
  ts_exact(P->S, P->t0, z0);
  ts_exact(P->S, P->t1, z1);
  for (int i = 0; i < P->p; i++) {
    for (int j = 0; j < P->s; j++)
      P->beta[i] += P->B0[i + j * P->p] * z0[j] + P->B1[i + j * P->p] * z1[j];
  }
  set_times(P);
  return 0;
}

static int make_file(prob *P, const cfg *cf, const char *name, const char *file, exact_fn ex) {
  memset(P, 0, sizeof *P);
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", cf->data, file);
  lth_error err;
  if (lth_problem_read(path, &P->pb, &err) != LTH_OK) {
    fprintf(stderr, "bench_colloc: %s: %s (use --data DIR)\n", path, err.message);
    return -1;
  }
  P->name = name;
  P->exact = ex;
  P->sys = lth_problem_system(P->pb);
  P->s = lth_system_size(P->sys);
  const double *B0, *B1, *beta;
  P->p = lth_problem_bc(P->pb, &B0, &B1, &beta);
  memcpy(P->B0, B0, sizeof(double) * P->p * P->s);
  memcpy(P->B1, B1, sizeof(double) * P->p * P->s);
  memcpy(P->beta, beta, sizeof(double) * P->p);
  lth_problem_interval(P->pb, &P->t0, &P->t1);
  set_times(P);
  return 0;
}

static void free_prob(prob *P) {
  if (P->S) lth_system_free((lth_system *)P->sys);
  ts_free(P->S);
  lth_problem_free(P->pb);
}

/* error relative to max(1, max |z*|) over the output times */
static double error_of(const prob *P, const double *z) {
  if (P->S) return ts_error(P->S, P->times, NOUT, z, 0);
  double e = 0.0, scale = 1.0, ze[TS_MAXS];
  for (int k = 0; k < NOUT; k++) {
    P->exact(P->times[k], ze);
    for (int i = 0; i < P->s; i++) {
      e = fmax(e, fabs(z[k * P->s + i] - ze[i]));
      scale = fmax(scale, fabs(ze[i]));
    }
  }
  return e / scale;
}

static run solve(const cfg *cf, const prob *P, const lth_bvp_opts *o) {
  run R = {.st = LTH_OK, .wall = INFINITY, .err = NAN, .est = NAN, .N = 0};
  for (int rep = 0; rep < cf->reps; rep++) {
    lth_bvp_result *res = NULL;
    double t = cpu_now();
    R.st = lth_bvp_solve(P->sys, P->t0, P->t1, P->p, P->B0, P->B1, P->beta, P->times, NOUT, o, &res,
                         NULL);
    t = cpu_now() - t;
    if (t < R.wall) {
      R.wall = t;
      if (res) {
        R.err = error_of(P, res->z);
        R.est = res->method == LTH_BVP_FD ? NAN : res->error_estimate;
        R.N = res->method == LTH_BVP_FD ? (int)res->fd_points - 1 : res->intervals;
      }
    }
    lth_bvp_result_free(res);
  }
  return R;
}

static lth_bvp_opts opts_for(lth_bvp_method m, double setting, int stages) {
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = m;
  if (m == LTH_BVP_COLLOCATION) {
    o.colloc.tol = setting;
    o.colloc.stages = stages;
  } else if (m == LTH_BVP_MULTIPLE) {
    o.ivp.rtol = setting;
    o.ivp.atol = 1e-2 * setting;
  } else {
    o.fd.points = (size_t)setting;
    o.fd.order_check = 0; /* one grid: the fairest time for fd */
  }
  return o;
}

static const char *const t1_cols[] = {"problem", "method", "setting",  "status",
                                      "ms",      "error",  "estimate", "N"};
static const int t1_w[] = {8, 11, 8, 7, 9, 9, 9, 7};

static void row1(const cfg *cf, const prob *P, const char *method, const char *setting, run R) {
  char c[8][40];
  snprintf(c[0], 40, "%s", P->name);
  snprintf(c[1], 40, "%s", method);
  snprintf(c[2], 40, "%s", setting);
  snprintf(c[3], 40, "%s", R.st == LTH_OK ? "ok" : lth_strerror(R.st));
  if (strlen(c[3]) > 7) c[3][7] = 0;
  snprintf(c[4], 40, "%.3f", 1e3 * R.wall);
  snprintf(c[5], 40, "%.2e", R.err);
  snprintf(c[6], 40, "%.2e", R.est);
  snprintf(c[7], 40, "%d", R.N);
  const char *cells[8];
  for (int i = 0; i < 8; i++) cells[i] = c[i];
  bench_emit(cf->csv, 8, cells, t1_w);
}

/* Table 1 for one problem, then its line of table 2 (into sum). */
static void compare(const cfg *cf, const prob *P, char *sum, size_t sumlen) {
  const double tols[] = {1e-6, 1e-8, 1e-10, 1e-12}, pts[] = {1001, 4001, 16001};
  run col10 = {0}, ms10 = {.st = LTH_EDATA, .wall = INFINITY, .err = NAN, .est = NAN, .N = 0};
  double ms10_setting = NAN;
  char set[40];
  for (int i = 0; i < 4; i++) {
    lth_bvp_opts o = opts_for(LTH_BVP_COLLOCATION, tols[i], 0);
    run R = solve(cf, P, &o);
    snprintf(set, sizeof set, "%.0e", tols[i]);
    row1(cf, P, "collocation", set, R);
    if (tols[i] == 1e-10) col10 = R;
  }
  for (int i = 0; i < 4; i++) {
    lth_bvp_opts o = opts_for(LTH_BVP_MULTIPLE, tols[i], 0);
    run R = solve(cf, P, &o);
    snprintf(set, sizeof set, "%.0e", tols[i]);
    row1(cf, P, "multiple", set, R);
    if (R.st == LTH_OK && R.err <= 1e-10 && R.wall < ms10.wall) {
      ms10 = R;
      ms10_setting = tols[i];
    }
  }
  run fd1 = {0};
  for (int i = 0; i < (cf->quick ? 1 : 3); i++) {
    lth_bvp_opts o = opts_for(LTH_BVP_FD, pts[i], 0);
    run R = solve(cf, P, &o);
    snprintf(set, sizeof set, "%.0f", pts[i]);
    row1(cf, P, "fd", set, R);
    if (i == 0) fd1 = R;
  }
  /* finite differences at collocation's time: N scaled from the 1001-point run */
  double n_eq = fmin(fmax(1000.0 * col10.wall / fd1.wall, 50.0), 2e6);
  lth_bvp_opts o = opts_for(LTH_BVP_FD, n_eq + 1, 0);
  run fdq = solve(cf, P, &o);
  snprintf(set, sizeof set, "%.0f", n_eq + 1);
  row1(cf, P, "fd=time", set, fdq);
  snprintf(sum, sumlen, "%s|%.3f|%.2e|%.0e|%.3f|%.2e|%.2f|%.0f|%.3f|%.2e|%.1f", P->name,
           1e3 * col10.wall, col10.err, ms10_setting, 1e3 * ms10.wall, ms10.err,
           col10.wall / ms10.wall, n_eq, 1e3 * fdq.wall, fdq.err, log10(fdq.err / col10.err));
}

static const char *const t2_cols[] = {"problem", "col_ms", "col_err", "ms_rtol", "ms_ms", "ms_err",
                                      "col/ms",  "fd_N",   "fd_ms",   "fd_err",  "orders"};
static const int t2_w[] = {8, 8, 9, 7, 8, 9, 6, 8, 8, 9, 6};

static void table2(const cfg *cf, char sums[][256], int n) {
  bench_title(cf->csv, "table 2: collocation to 1e-10 against multiple shooting reaching 1e-10 "
                       "(fastest rtol) and finite differences at collocation's time; orders = "
                       "log10(fd error / collocation error)");
  bench_emit(cf->csv, 11, t2_cols, t2_w);
  for (int i = 0; i < n; i++) {
    const char *cells[11];
    char *save = NULL, *tok = strtok_r(sums[i], "|", &save);
    for (int c = 0; c < 11; c++) {
      cells[c] = tok ? tok : "";
      tok = strtok_r(NULL, "|", &save);
    }
    bench_emit(cf->csv, 11, cells, t2_w);
  }
}

/* Table 3: stages against time at fixed tolerances. */
static void stages_table(const cfg *cf, prob *probs, int np) {
  static const char *const cols[] = {"problem", "tol", "stages", "status", "ms", "error", "N"};
  static const int w[] = {8, 6, 6, 7, 9, 9, 6};
  bench_title(cf->csv, "table 3: collocation stages against time");
  bench_emit(cf->csv, 7, cols, w);
  const double tols[] = {1e-6, 1e-8, 1e-10, 1e-12};
  for (int i = 0; i < np; i++) {
    for (int t = 0; t < 4; t++) {
      for (int st = 2; st <= 8; st++) {
        lth_bvp_opts o = opts_for(LTH_BVP_COLLOCATION, tols[t], st);
        o.colloc.max_intervals = 20000; /* 2 stages at 1e-12 would need 1e5 and more */
        run R = solve(cf, &probs[i], &o);
        char c[7][40];
        const char *cells[7];
        snprintf(c[0], 40, "%s", probs[i].name);
        snprintf(c[1], 40, "%.0e", tols[t]);
        snprintf(c[2], 40, "%d", st);
        snprintf(c[3], 40, "%s", R.st == LTH_OK ? "ok" : "fail");
        snprintf(c[4], 40, "%.3f", 1e3 * R.wall);
        snprintf(c[5], 40, "%.2e", R.err);
        snprintf(c[6], 40, "%d", R.N);
        for (int k = 0; k < 7; k++) cells[k] = c[k];
        bench_emit(cf->csv, 7, cells, w);
      }
    }
  }
}

int main(int argc, char **argv) {
  app_blas_setup(); /* a front end: BLAS as the tools run it (app_blas.h) */
  cfg cf = {0, 0, 3, LTH_BENCH_DATA};
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0) {
      cf.quick = 1;
      cf.reps = 1;
    } else if (strcmp(argv[k], "--csv") == 0) {
      cf.csv = 1;
    } else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc) {
      cf.reps = atoi(argv[++k]) > 0 ? atoi(argv[k]) : 1;
    } else if (strcmp(argv[k], "--data") == 0 && k + 1 < argc) {
      cf.data = argv[++k];
    } else {
      fprintf(stderr, "usage: %s [--quick] [--csv] [--repeat N] [--data DIR]\n", argv[0]);
      return 1;
    }
  }
  int n2[] = {3, 1}, n3[] = {2, 3, 1}, n5[] = {2, 2, 2, 2, 1};
  prob P[6];
  int np = 0;
  if (make_manufactured(&P[np], "smooth2", 2, n2, 0xa2, 0.0) == 0) np++;
  if (make_manufactured(&P[np], "smooth3", 3, n3, 0xa3, 0.0) == 0) np++;
  if (make_manufactured(&P[np], "smooth5", 5, n5, 0xa5, 0.0) == 0) np++;
  if (make_manufactured(&P[np], "dich3", 3, n3, 0xd3, 20.0) == 0) np++;
  if (make_file(&P[np], &cf, "rlc", "rlc_periodic.lth", rlc_exact) == 0) np++;
  if (make_file(&P[np], &cf, "pend10", "pendulum_10s_bvp.lth", pend10_exact) == 0) np++;
  bench_title(cf.csv, "table 1: error (relative to max(1, |z|)) and time of every method");
  bench_emit(cf.csv, 8, t1_cols, t1_w);
  char sums[6][256];
  for (int i = 0; i < np; i++) compare(&cf, &P[i], sums[i], sizeof sums[i]);
  table2(&cf, sums, np);
  if (!cf.quick) stages_table(&cf, P, np);
  for (int i = 0; i < np; i++) free_prob(&P[i]);
  return 0;
}
