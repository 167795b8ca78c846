/* SPDX-License-Identifier: GPL-3.0-or-later */
/* BVP benchmark: time and error of single shooting, multiple shooting and
 * finite differences on manufactured index-2, -3 and -4 problems with exact
 * solutions and random boundary matrices (as tests/unit/bvp/test_bvp.c),
 *   sweep 1: finite-difference points N+1 = 101 ... 3201 (observed order and
 *            the library's error estimate against the true error),
 *   sweep 2: interval length T = 1 ... 20, on an oscillatory family and on a
 *            dichotomic one (growing and decaying modes e^{+-L t}) where
 *            single shooting must give up and multiple shooting must not.
 * See bench/IVP_BVP.md for the columns and measured figures.
 *
 *   bench_bvp [--quick] [--csv] [--repeat N]
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

#define NOUT 21 /* output times t0 + k T / 20: grid points of every FD grid used */

typedef struct cfg {
  int quick, csv, reps;
} cfg;

/* A manufactured BVP: z* solves the DAE, and beta = B0 z*(t0) + B1 z*(t1). */
typedef struct bvp_case {
  const char *family;
  ts_sys *S;
  lth_system *sys;
  int r, s, p;
  double t0, t1;
  double B0[TS_MAXS * TS_MAXS], B1[TS_MAXS * TS_MAXS], beta[TS_MAXS];
  double times[NOUT];
} bvp_case;

/* One measured solve (best of cfg.reps wall times). */
typedef struct run {
  lth_status st;
  double cond_fail; /* condition estimate of a refused solve (err.cond), NaN if none */
  char msg[LTH_ERROR_MSG_MAX];
  double wall, err, err_int, err_t0, cond, bc_res;
  double fd_order, fd_error, fd_error_layer;
  int intervals;
  size_t fd_points;
} run;

static int make_case(bvp_case *c, const char *family, int r, const int *n, uint64_t seed,
                     double dich, double t0, double t1) {
  memset(c, 0, sizeof *c);
  c->family = family;
  c->S = ts_make(r, n, seed, (ts_opts){.amp = 0.2, .dich = dich});
  c->sys = c->S ? ts_system(c->S) : NULL;
  if (!c->sys) return -1;
  c->r = r;
  c->s = c->S->s;
  c->p = lth_system_manifold_dim(c->sys);
  c->t0 = t0;
  c->t1 = t1;
  uint64_t rng = seed * 7 + 1;
  for (int k = 0; k < c->p * c->s; k++) {
    c->B0[k] = rng_splitmix(&rng, -1, 1);
    c->B1[k] = rng_splitmix(&rng, -1, 1);
  }
  double z0[TS_MAXS], z1[TS_MAXS];
  ts_exact(c->S, t0, z0);
  ts_exact(c->S, t1, z1);
  for (int i = 0; i < c->p; i++) {
    c->beta[i] = 0.0;
    for (int j = 0; j < c->s; j++) {
      c->beta[i] += c->B0[i + j * c->p] * z0[j] + c->B1[i + j * c->p] * z1[j];
    }
  }
  for (int k = 0; k < NOUT; k++) {
    c->times[k] = k == NOUT - 1 ? t1 : t0 + (t1 - t0) * k / (NOUT - 1.0);
  }
  return 0;
}

static void free_case(bvp_case *c) {
  lth_system_free(c->sys);
  ts_free(c->S);
  c->sys = NULL;
  c->S = NULL;
}

/* Errors of a result: over all outputs, beyond t0 (the FD start-up layer is
 * r steps long, shorter than the output spacing), and at t0 alone. */
static void measure(const bvp_case *c, const lth_bvp_result *res, run *R) {
  R->err = ts_error(c->S, c->times, NOUT, res->z, 0);
  R->err_int = ts_error(c->S, c->times, NOUT, res->z, 1);
  R->err_t0 = ts_error(c->S, c->times, 1, res->z, 0);
  R->cond = res->cond_shooting;
  R->bc_res = res->bc_residual;
  R->fd_order = res->fd_order;
  R->fd_error = res->fd_error;
  R->fd_error_layer = res->fd_error_layer;
  R->intervals = res->intervals;
  R->fd_points = res->fd_points;
}

static run solve(const cfg *cf, const bvp_case *c, const lth_bvp_opts *o) {
  run R;
  memset(&R, 0, sizeof R);
  R.wall = INFINITY;
  R.cond_fail = NAN;
  for (int rep = 0; rep < cf->reps; rep++) {
    lth_bvp_result *res = NULL;
    lth_error err;
    lth_error_clear(&err);
    double t = bench_now();
    lth_status st = lth_bvp_solve(c->sys, c->t0, c->t1, c->p, c->B0, c->B1, c->beta, c->times, NOUT,
                                  o, &res, &err);
    t = bench_now() - t;
    R.st = st;
    if (st != LTH_OK) {
      /* a refusal is a result too: keep its time and condition estimate */
      R.wall = fmin(R.wall, t);
      R.cond_fail = err.has_cond ? err.cond : NAN;
      snprintf(R.msg, sizeof R.msg, "%s", err.message);
      continue;
    }
    if (t < R.wall) {
      R.wall = t;
      measure(c, res, &R);
    }
    lth_bvp_result_free(res);
  }
  return R;
}

static const char *status_name(lth_status st) {
  switch (st) {
  case LTH_OK:
    return "ok";
  case LTH_ENOTUNIQUE:
    return "ENOTUNIQUE";
  case LTH_ECOND:
    return "ECOND";
  case LTH_EINTEG:
    return "EINTEG";
  default:
    return lth_strerror(st);
  }
}

static void emit_row(const cfg *cf, int ncol, char b[][40], const int *w) {
  const char *cells[32];
  for (int k = 0; k < ncol; k++) cells[k] = b[k];
  bench_emit(cf->csv, ncol, cells, w);
  fflush(stdout);
}

/* ---- sweep 1: finite differences as N grows, shooting methods for reference ---- */

static const char *const s1_cols[] = {"problem", "method", "N+1",     "err",     "err_t>t0",
                                      "err_t0",  "fd_est", "est/err", "err_lay", "est_lay",
                                      "order",   "cond",   "time_s",  "t_chk_s"};
static const int s1_w[] = {7, 8, 5, 8, 8, 8, 8, 7, 8, 8, 6, 8, 8, 8};
#define S1_NCOL (int)(sizeof s1_w / sizeof s1_w[0])

static void s1_shooting_row(const cfg *cf, const bvp_case *c, const char *name,
                            lth_bvp_method method) {
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = method;
  run R = solve(cf, c, &o);
  char b[S1_NCOL][40];
  for (int k = 0; k < S1_NCOL; k++) snprintf(b[k], 40, "-");
  snprintf(b[0], 40, "%s", name);
  snprintf(b[1], 40, "%s", lth_bvp_method_name(method));
  if (R.st != LTH_OK) {
    snprintf(b[3], 40, "%s", status_name(R.st));
  } else {
    snprintf(b[3], 40, "%.1e", R.err);
    snprintf(b[4], 40, "%.1e", R.err_int);
    snprintf(b[5], 40, "%.1e", R.err_t0);
  }
  snprintf(b[11], 40, "%.1e", R.st == LTH_OK ? R.cond : R.cond_fail);
  snprintf(b[12], 40, "%.4f", R.wall);
  emit_row(cf, S1_NCOL, b, s1_w);
}

/* max(1, max_k |z*(t_k)|): the scale ts_error divides by. */
static double solution_scale(const bvp_case *c) {
  double scale = 1.0, ze[TS_MAXS];
  for (int k = 0; k < NOUT; k++) {
    ts_exact(c->S, c->times[k], ze);
    for (int i = 0; i < c->s; i++) scale = fmax(scale, fabs(ze[i]));
  }
  return scale;
}

/* The true FD error inside the start-up layer: at grid points 1..r-1 after t0
 * (implicit Euler's algebraic components need r steps to settle), scaled as
 * ts_error.  An extra untimed solve that asks for exactly those grid points. */
static double layer_error(const bvp_case *c, size_t points) {
  size_t N = points - 1;
  double t[TS_MAXR];
  int nl = c->r - 1;
  for (int j = 0; j < nl; j++) t[j] = c->t0 + (c->t1 - c->t0) * (double)(j + 1) / (double)N;
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_FD;
  o.fd.points = points;
  o.fd.order_check = 0;
  lth_bvp_result *res = NULL;
  if (lth_bvp_solve(c->sys, c->t0, c->t1, c->p, c->B0, c->B1, c->beta, t, (size_t)nl, &o, &res,
                    NULL) != LTH_OK) {
    return NAN;
  }
  double e = ts_error(c->S, t, (size_t)nl, res->z, 0);
  lth_bvp_result_free(res);
  return e;
}

static void s1_fd_row(const cfg *cf, const bvp_case *c, const char *name, size_t points) {
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_FD;
  o.fd.points = points;
  o.fd.order_check = 0;
  run plain = solve(cf, c, &o); /* the solve alone */
  o.fd.order_check = 1;
  run R = solve(cf, c, &o); /* plus the N/2, N, 2N solves of the order check */
  char b[S1_NCOL][40];
  snprintf(b[0], 40, "%s", name);
  snprintf(b[1], 40, "fd");
  snprintf(b[2], 40, "%zu", points);
  if (R.st != LTH_OK) {
    fprintf(stderr, "bench_bvp: %s fd %zu: %s\n", name, points, R.msg);
    snprintf(b[3], 40, "%s", status_name(R.st));
    for (int k = 4; k < S1_NCOL; k++) snprintf(b[k], 40, "-");
  } else {
    snprintf(b[3], 40, "%.1e", R.err);
    snprintf(b[4], 40, "%.1e", R.err_int);
    snprintf(b[5], 40, "%.1e", R.err_t0);
    /* fd_error is an absolute max-norm estimate; the errors are relative to
     * max(1, |z*|): scale the estimates the same way to compare */
    double zscale = solution_scale(c);
    snprintf(b[6], 40, "%.1e", R.fd_error / zscale);
    snprintf(b[7], 40, "%.2f", R.fd_error / zscale / (R.err_int > 0 ? R.err_int : 1.0));
    snprintf(b[8], 40, "%.1e", layer_error(c, points));
    snprintf(b[9], 40, "%.1e", R.fd_error_layer / zscale);
    snprintf(b[10], 40, "%.3f", R.fd_order);
    snprintf(b[11], 40, "%.1e", R.cond);
    snprintf(b[12], 40, "%.4f", plain.wall);
    snprintf(b[13], 40, "%.4f", R.wall);
  }
  emit_row(cf, S1_NCOL, b, s1_w);
}

static void sweep_points(const cfg *cf) {
  const int n2[] = {3, 1}, n3[] = {3, 3, 1}, n4[] = {3, 3, 2, 2};
  const size_t full[] = {101, 201, 401, 801, 1601, 3201}, quick[] = {101, 401};
  const size_t *pts = cf->quick ? quick : full;
  int npts = cf->quick ? 2 : 6;
  bench_title(cf->csv, "bvp sweep 1: finite differences as N grows, [0, 2], 21 outputs; "
                       "shooting methods for reference");
  bench_emit(cf->csv, S1_NCOL, s1_cols, s1_w);
  struct {
    const char *name;
    int r;
    const int *n;
    uint64_t seed;
  } probs[] = {{"idx2", 2, n2, 0xb2}, {"idx3", 3, n3, 0xb3}, {"idx4", 4, n4, 0xb4}};
  for (int p = 0; p < 3; p++) {
    bvp_case c;
    if (make_case(&c, "osc", probs[p].r, probs[p].n, probs[p].seed, 0.0, 0.0, 2.0) != 0) {
      fprintf(stderr, "bench_bvp: cannot build %s\n", probs[p].name);
      continue;
    }
    s1_shooting_row(cf, &c, probs[p].name, LTH_BVP_SHOOTING);
    s1_shooting_row(cf, &c, probs[p].name, LTH_BVP_MULTIPLE);
    for (int k = 0; k < npts; k++) s1_fd_row(cf, &c, probs[p].name, pts[k]);
    free_case(&c);
  }
}

/* ---- sweep 2: the interval length ---- */

static const char *const s2_cols[] = {"family", "r",      "T",    "method",   "status",
                                      "err",    "time_s", "cond", "M_or_N+1", "bc_res"};
static const int s2_w[] = {6, 2, 4, 8, 10, 8, 8, 8, 8, 8};
#define S2_NCOL (int)(sizeof s2_w / sizeof s2_w[0])

/* FD keeps the step h = 1/200 as T grows, so its error stays comparable and
 * its time grows like T. */
#define S2_FD_PER_UNIT 200

static void s2_row(const cfg *cf, const bvp_case *c, double T, lth_bvp_method method) {
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = method;
  o.fd.points = (size_t)(S2_FD_PER_UNIT * T + 0.5) + 1;
  o.fd.order_check = 0; /* sweep 1 covers the order check */
  run R = solve(cf, c, &o);
  char b[S2_NCOL][40];
  for (int k = 0; k < S2_NCOL; k++) snprintf(b[k], 40, "-");
  snprintf(b[0], 40, "%s", c->family);
  snprintf(b[1], 40, "%d", c->r);
  snprintf(b[2], 40, "%g", T);
  snprintf(b[3], 40, "%s", lth_bvp_method_name(method));
  snprintf(b[4], 40, "%s", status_name(R.st));
  snprintf(b[6], 40, "%.4f", R.wall);
  if (R.st == LTH_OK) {
    snprintf(b[5], 40, "%.1e", R.err);
    snprintf(b[7], 40, "%.1e", R.cond);
    if (method == LTH_BVP_MULTIPLE) snprintf(b[8], 40, "%d", R.intervals);
    if (method == LTH_BVP_FD) snprintf(b[8], 40, "%zu", R.fd_points);
    snprintf(b[9], 40, "%.1e", R.bc_res);
  } else {
    /* the refusal's condition estimate is the point of the row */
    snprintf(b[7], 40, "%.1e", R.cond_fail);
    if (R.st != LTH_ENOTUNIQUE)
      fprintf(stderr, "bench_bvp: %s T=%g %s: %s\n", c->family, T, lth_bvp_method_name(method),
              R.msg);
  }
  emit_row(cf, S2_NCOL, b, s2_w);
}

static void sweep_length(const cfg *cf, double dich) {
  const int n2[] = {3, 1}, n3[] = {3, 3, 1};
  const double full[] = {1, 2, 5, 10, 20}, quick[] = {1, 5};
  const double *Ts = cf->quick ? quick : full;
  int nT = cf->quick ? 2 : 5;
  char title[160];
  snprintf(title, sizeof title,
           "bvp sweep 2: interval [0, T]; osc = random oscillatory coefficients, dich = the "
           "same plus modes e^(+-%g t); FD with h = 1/%d",
           dich, S2_FD_PER_UNIT);
  bench_title(cf->csv, title);
  bench_emit(cf->csv, S2_NCOL, s2_cols, s2_w);
  struct {
    const char *family;
    int r;
    const int *n;
    uint64_t seed;
    double dich;
  } fams[] = {{"osc", 3, n3, 0xc3, 0.0}, {"dich", 2, n2, 0xd2, dich}, {"dich", 3, n3, 0xd3, dich}};
  for (int f = 0; f < 3; f++) {
    for (int k = 0; k < nT; k++) {
      bvp_case c;
      if (make_case(&c, fams[f].family, fams[f].r, fams[f].n, fams[f].seed, fams[f].dich, 0.0,
                    Ts[k]) != 0) {
        fprintf(stderr, "bench_bvp: cannot build %s\n", fams[f].family);
        continue;
      }
      for (int m = LTH_BVP_SHOOTING; m <= LTH_BVP_FD; m++) s2_row(cf, &c, Ts[k], m);
      free_case(&c);
    }
  }
}

/* ---- main ---- */

static int parse_args(int argc, char **argv, cfg *c, double *dich) {
  c->quick = 0;
  c->csv = 0;
  c->reps = 3;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0) {
      c->quick = 1;
    } else if (strcmp(argv[k], "--csv") == 0) {
      c->csv = 1;
    } else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc) {
      c->reps = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--dich") == 0 && k + 1 < argc) {
      *dich = atof(argv[++k]);
    } else {
      fprintf(stderr, "usage: %s [--quick] [--csv] [--repeat N] [--dich L]\n", argv[0]);
      return -1;
    }
  }
  if (c->reps < 1) c->reps = 1;
  if (c->quick) c->reps = 1;
  return 0;
}

int main(int argc, char **argv) {
  app_blas_setup(); /* a front end: BLAS as the tools run it (app_blas.h) */
  cfg c;
  double dich = 6.0;
  if (parse_args(argc, argv, &c, &dich) != 0) return 1;
  double t_start = bench_now();
  sweep_points(&c);
  sweep_length(&c, dich);
  if (!c.csv) printf("\ntotal %.1f s (best of %d runs per row)\n", bench_now() - t_start, c.reps);
  return 0;
}
