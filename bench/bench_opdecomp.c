/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator-form decomposition at one point (include/lth/opdecomp.h) on
 * the index-3 mechanical chain (tests/fixtures/opchain.h: blocks N, N, nc,
 * tridiagonal time-varying stiffness and damping, nc constraints of three
 * nonzeros each): seconds per point and peak memory against s, with the
 * dense lth_decomp_at beside it where it fits, and the exponents of time and
 * memory in s.  Usage and columns: bench/README.md, or `bench_opdecomp --help`.
 */
#define _GNU_SOURCE /* clock_gettime, fork/exec helpers */

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_blas.h"
#include "benchutil.h"
#include "lth/decomp.h"
#include "lth/opdecomp.h"
#include "opchain.h"

#define MAX_CASES 32
#define SEED      20240527ULL

typedef struct options {
  int ncases, s[MAX_CASES], nc[MAX_CASES];
  int order, repeat, dense_max, csv, quick;
  double min_time;
} options;

/* What one child measures. */
typedef struct meas {
  double best, median; /* seconds per decomposition */
  long maxrss;         /* KiB, ru_maxrss of the child */
  double bytes;        /* the point's and workspace's jets (op) */
  double agree;        /* dense rows: max |G x op - G x dense| / (||G|| ||x||), else -1 */
  double amp;          /* the point's error amplification */
} meas;

static void usage(FILE *fp) {
  fprintf(fp, "usage: bench_opdecomp [--quick] [--csv] [--case S:NC]... [--order K] [--repeat N]\n"
              "                      [--min-time SEC] [--dense-max S]\n"
              "Decomposition at one point of the index-3 chain with s unknowns and NC\n"
              "constraints: operator form (lth_opdecomp_at) and, up to s = --dense-max\n"
              "(default 2000), dense (lth_decomp_at) in the same run.  Default cases: s = 1000,\n"
              "2000, 10000, 100000 with NC = 1 and 5.  Each case runs in a child process\n"
              "(peak memory per case).  --quick: s = 201, 1001, NC = 1, 5, one sample (smoke run;\n"
              "exit 2 if the two forms disagree).\n");
}

static int parse(int argc, char **argv, options *o) {
  *o = (options){.order = 0, .repeat = 5, .dense_max = 2000, .min_time = 0.2};
  for (int a = 1; a < argc; a++) {
    const char *v = a + 1 < argc ? argv[a + 1] : NULL;
    if (!strcmp(argv[a], "--quick")) {
      o->quick = 1;
    } else if (!strcmp(argv[a], "--csv")) {
      o->csv = 1;
    } else if (!strcmp(argv[a], "--case") && v && o->ncases < MAX_CASES) {
      if (sscanf(v, "%d:%d", &o->s[o->ncases], &o->nc[o->ncases]) != 2) return -1;
      o->ncases++, a++;
    } else if (!strcmp(argv[a], "--order") && v) {
      o->order = atoi(v), a++;
    } else if (!strcmp(argv[a], "--repeat") && v) {
      o->repeat = atoi(v), a++;
    } else if (!strcmp(argv[a], "--min-time") && v) {
      o->min_time = atof(v), a++;
    } else if (!strcmp(argv[a], "--dense-max") && v) {
      o->dense_max = atoi(v), a++;
    } else if (!strcmp(argv[a], "--help")) {
      usage(stdout);
      exit(0);
    } else {
      return -1;
    }
  }
  if (o->ncases == 0) {
    const int qs[] = {201, 1001}, ds[] = {1000, 2000, 10000, 100000};
    const int *ss = o->quick ? qs : ds;
    int ns = o->quick ? 2 : 4;
    for (int k = 0; k < ns; k++) {
      for (int c = 0; c < 2; c++) {
        o->s[o->ncases] = ss[k];
        o->nc[o->ncases++] = c ? 5 : 1;
      }
    }
  }
  if (o->quick) {
    o->repeat = 1;
    o->min_time = 0.0;
  }
  return o->order >= 0 && o->repeat >= 1 ? 0 : -1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Best and median over `repeat` samples of the process's CPU time (the
 * machine may be shared; BLAS runs on one thread), after one warm-up call; a
 * sample repeats the call until min_time seconds and counts the mean. */
typedef int (*one_fn)(void *ctx);
static int time_it(one_fn f, void *ctx, int repeat, double min_time, double *best, double *median) {
  double samples[64];
  repeat = repeat > 64 ? 64 : repeat;
  if (f(ctx) != 0) return -1; /* warm-up: first touch of the storage */
  for (int k = 0; k < repeat; k++) {
    int calls = 0;
    double t0 = bench_cpu_now(), el;
    do {
      if (f(ctx) != 0) return -1;
      calls++;
      el = bench_cpu_now() - t0;
    } while (el < min_time);
    samples[k] = el / calls;
  }
  qsort(samples, (size_t)repeat, sizeof samples[0], cmp_double);
  *best = samples[0];
  *median = samples[repeat / 2];
  return 0;
}

typedef struct op_run {
  lth_opdecomp_ws *ws;
  lth_oppoint *pt;
  double t;
} op_run;
static int op_one(void *ctx) {
  op_run *r = ctx;
  r->t += 1e-3; /* a new point each call: no value is reused */
  return lth_opdecomp_at(r->ws, r->t, r->pt, NULL) == LTH_OK ? 0 : -1;
}

typedef struct dense_run {
  lth_decomp_ws *ws;
  lth_point *pt;
  double t;
} dense_run;
static int dense_one(void *ctx) {
  dense_run *r = ctx;
  r->t += 1e-3;
  return lth_decomp_at(r->ws, r->t, r->pt, NULL) == LTH_OK ? 0 : -1;
}

static size_t ws_bytes_estimate(const lth_opsys *sys, int order) {
  /* the workspace: E (n_r x (m + 1)), R_i, L_i', S_i', T_i (n_r x n_i), jets of order K */
  int r = lth_opsys_index(sys), K = order + r - 1, nr = lth_opsys_block_size(sys, r);
  size_t d = (size_t)nr * (size_t)(lth_opsys_state_dim(sys) + 1) +
             4 * (size_t)nr * lth_opsys_state_dim(sys);
  return d * (size_t)(K + 1) * sizeof(double);
}

/* Child: one case, one form ("op", "dense", or "base": the chain alone). */
static int child(const char *form, int s_asked, int nc, const options *o) {
  int N = (s_asked - nc) / 2, s = 2 * N + nc;
  oc_chain *C = oc_make(N, nc, SEED + (uint64_t)nc);
  if (!C) return 2;
  meas me = {.agree = -1.0};
  lth_error err;
  int rc = 0;
  if (!strcmp(form, "op")) {
    lth_opsys *sys = oc_opsys(C);
    op_run r = {lth_opdecomp_ws_alloc(sys, o->order, &err), NULL, 0.4};
    r.pt = sys ? lth_oppoint_alloc(sys, o->order, 1, &err) : NULL;
    rc =
        !sys || !r.ws || !r.pt || time_it(op_one, &r, o->repeat, o->min_time, &me.best, &me.median);
    if (!rc) {
      me.bytes = (double)(lth_oppoint_info(r.pt)->bytes + ws_bytes_estimate(sys, o->order));
      me.amp = lth_oppoint_info(r.pt)->amplification;
    }
    lth_oppoint_free(r.pt);
    lth_opdecomp_ws_free(r.ws);
    lth_opsys_free(sys);
  } else if (!strcmp(form, "dense")) {
    oc_dense ctx[7];
    lth_system *sys = oc_system(C, ctx);
    dense_run r = {sys ? lth_decomp_ws_alloc_scaled(sys, o->order, 0.0, &err) : NULL, NULL, 0.4};
    r.pt = sys ? lth_point_alloc(sys, o->order, &err) : NULL;
    rc = !sys || !r.ws || !r.pt ||
         time_it(dense_one, &r, o->repeat, o->min_time, &me.best, &me.median);
    /* agreement at the last point: G x both ways */
    lth_opsys *os = rc ? NULL : oc_opsys(C);
    lth_opdecomp_ws *ows = os ? lth_opdecomp_ws_alloc(os, o->order, &err) : NULL;
    lth_oppoint *op = os ? lth_oppoint_alloc(os, o->order, 1, &err) : NULL;
    if (ows && op && lth_opdecomp_at(ows, r.t, op, &err) == LTH_OK) {
      int m = lth_system_state_dim(sys);
      lth_jet *x = lth_jet_alloc(m, 1, 0, NULL), *y = lth_jet_alloc(s, 1, 0, NULL);
      lth_jet *yd = lth_jet_alloc(s, 1, 0, NULL);
      uint64_t st = 7;
      for (int i = 0; x && i < m; i++) LTH_JET_AT(x, 0, i, 0) = rng_splitmix(&st, -1, 1);
      lth_jet G0 = r.pt->G;
      G0.order = 0;
      if (x && y && yd && lth_oppoint_apply_G(op, x, y, NULL) == LTH_OK &&
          lth_jet_mul(&G0, x, yd, NULL) == LTH_OK) {
        double d = 0.0;
        for (int i = 0; i < s; i++)
          d = fmax(d, fabs(LTH_JET_AT(y, 0, i, 0) - LTH_JET_AT(yd, 0, i, 0)));
        me.agree = d / (lth_jet_maxabs(&G0, 0) * m);
      }
      me.amp = r.pt->amplification;
      lth_jet_free(x), lth_jet_free(y), lth_jet_free(yd);
    } else {
      me.agree = INFINITY;
    }
    lth_oppoint_free(op);
    lth_opdecomp_ws_free(ows);
    lth_opsys_free(os);
    lth_point_free(r.pt);
    lth_decomp_ws_free(r.ws);
    lth_system_free(sys);
  }
  oc_free(C);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  me.maxrss = ru.ru_maxrss;
  printf("%.9e %.9e %ld %.6e %.6e %.6e\n", me.best, me.median, me.maxrss, me.bytes, me.agree,
         me.amp);
  return rc ? 3 : 0;
}

/* Run a child through exec of this program (a fresh address space for its
 * peak memory) and read its line back. */
static int spawn(const char *form, int s, int nc, const options *o, meas *me) {
  int fd[2];
  if (pipe(fd) != 0) return -1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    char sb[32], cb[32], ob[16], rb[16], mb[32];
    snprintf(sb, sizeof sb, "%d", s);
    snprintf(cb, sizeof cb, "%d", nc);
    snprintf(ob, sizeof ob, "%d", o->order);
    snprintf(rb, sizeof rb, "%d", o->repeat);
    snprintf(mb, sizeof mb, "%g", o->min_time);
    dup2(fd[1], STDOUT_FILENO);
    close(fd[0]);
    close(fd[1]);
    execl("/proc/self/exe", "bench_opdecomp", "--child", form, sb, cb, ob, rb, mb, (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  char buf[512] = {0};
  FILE *fp = fdopen(fd[0], "r");
  int ok = fp && fgets(buf, sizeof buf, fp) &&
           sscanf(buf, "%lf %lf %ld %lf %lf %lf", &me->best, &me->median, &me->maxrss, &me->bytes,
                  &me->agree, &me->amp) == 6;
  if (fp) fclose(fp);
  int status = 0;
  waitpid(pid, &status, 0);
  return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Least-squares slope of log y against log x over n points (n >= 2). */
static double slope(const double *x, const double *y, int n) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int k = 0; k < n; k++) {
    double a = log(x[k]), b = log(y[k]);
    sx += a, sy += b, sxx += a * a, sxy += a * b;
  }
  double d = n * sxx - sx * sx;
  return d > 0 ? (n * sxy - sx * sy) / d : NAN;
}

int main(int argc, char **argv) {
  app_blas_setup();
  if (argc == 8 && !strcmp(argv[1], "--child")) {
    options o = {.order = atoi(argv[5]), .repeat = atoi(argv[6]), .min_time = atof(argv[7])};
    return child(argv[2], atoi(argv[3]), atoi(argv[4]), &o);
  }
  options o;
  if (parse(argc, argv, &o) != 0) {
    usage(stderr);
    return 1;
  }
  bench_title(o.csv, "decomposition at one point: operator form vs dense, index-3 chain");
  const char *head[] = {"s",       "nc",        "op_s",    "op_med_s", "op_MiB", "jets_MiB",
                        "dense_s", "dense_MiB", "speedup", "agree",    "amp"};
  const int wid[] = {7, 3, 10, 10, 8, 9, 10, 10, 8, 9, 8};
  enum { NCOL = 11 };
  bench_emit(o.csv, NCOL, head, wid);
  int bad = 0;
  double xs[2][MAX_CASES], ts[2][MAX_CASES], ms[2][MAX_CASES], rs[2][MAX_CASES];
  int nfit[2] = {0, 0};
  meas base = {0};
  char last_base[64] = "";
  for (int c = 0; c < o.ncases; c++) {
    int s = o.s[c], nc = o.nc[c], sa = 2 * ((s - nc) / 2) + nc;
    meas op = {0}, de = {.best = NAN, .maxrss = 0, .agree = -1};
    char key[64];
    snprintf(key, sizeof key, "%d:%d", s, nc);
    if (strcmp(key, last_base) != 0) {
      if (spawn("base", s, nc, &o, &base) != 0) base.maxrss = 0;
      snprintf(last_base, sizeof last_base, "%s", key);
    }
    if (spawn("op", s, nc, &o, &op) != 0) {
      fprintf(stderr, "bench_opdecomp: operator form failed at s = %d, nc = %d\n", s, nc);
      bad = 1;
      continue;
    }
    int dense = sa <= o.dense_max;
    if (dense && spawn("dense", s, nc, &o, &de) != 0) {
      fprintf(stderr, "bench_opdecomp: dense form failed at s = %d, nc = %d\n", s, nc);
      bad = 1;
      dense = 0;
    }
    /* the forms agree to eps times the amplification, with room for the sums */
    if (dense && !(de.agree >= 0 && de.agree <= 64 * DBL_EPSILON * fmax(1.0, de.amp))) {
      fprintf(stderr, "bench_opdecomp: s = %d, nc = %d: the forms differ by %.3g\n", sa, nc,
              de.agree);
      bad = 1;
    }
    double op_mib = (double)(op.maxrss - base.maxrss) / 1024.0;
    double de_mib = dense ? (double)(de.maxrss - base.maxrss) / 1024.0 : NAN;
    char cell[NCOL][32];
    snprintf(cell[0], 32, "%d", sa);
    snprintf(cell[1], 32, "%d", nc);
    snprintf(cell[2], 32, "%.3e", op.best);
    snprintf(cell[3], 32, "%.3e", op.median);
    snprintf(cell[4], 32, "%.1f", op_mib);
    snprintf(cell[5], 32, "%.1f", op.bytes / 1048576.0);
    snprintf(cell[6], 32, dense ? "%.3e" : "-", de.best);
    snprintf(cell[7], 32, dense ? "%.1f" : "-", de_mib);
    snprintf(cell[8], 32, dense ? "%.0f" : "-", de.best / op.best);
    snprintf(cell[9], 32, dense ? "%.1e" : "-", de.agree);
    snprintf(cell[10], 32, "%.2g", op.amp);
    const char *cells[NCOL];
    for (int k = 0; k < NCOL; k++) cells[k] = cell[k];
    bench_emit(o.csv, NCOL, cells, wid);
    int g = nc == 1 ? 0 : 1;
    if (nc == 1 || nc == 5) {
      xs[g][nfit[g]] = sa;
      ts[g][nfit[g]] = op.best;
      ms[g][nfit[g]] = fmax(op.bytes, 1.0);
      rs[g][nfit[g]++] = fmax(op_mib, 1.0 / 1024.0); /* a peak below 1 KiB is noise */
    }
  }
  bench_title(o.csv, "exponents in s (least squares of log against log s, operator form)");
  const char *h2[] = {"nc", "points", "time_exp", "jets_exp", "rss_exp"};
  const int w2[] = {3, 6, 8, 8, 8};
  bench_emit(o.csv, 5, h2, w2);
  for (int g = 0; g < 2; g++) {
    if (nfit[g] < 2) continue;
    char c0[16], c1[16], c2[16], c3[16], c4[16];
    snprintf(c0, 16, "%d", g ? 5 : 1);
    snprintf(c1, 16, "%d", nfit[g]);
    snprintf(c2, 16, "%.2f", slope(xs[g], ts[g], nfit[g]));
    snprintf(c3, 16, "%.2f", slope(xs[g], ms[g], nfit[g]));
    snprintf(c4, 16, "%.2f", slope(xs[g], rs[g], nfit[g]));
    const char *cc[] = {c0, c1, c2, c3, c4};
    bench_emit(o.csv, 5, cc, w2);
  }
  if (bad) fprintf(stderr, "bench_opdecomp: a check failed (see above)\n");
  return bad ? 2 : 0;
}
