/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tool against tool on small problems (docs/performance.md, "Peer comparison on
 * small problems"): each problem goes to SUNDIALS IDA the way an IDA user writes
 * it and to lth the way an lth user gives it, and the least CPU time each needs
 * to reach an error target is compared, in one run.
 *
 * IDA gets the index-1 form F(t, y, y') = 0: the Hessenberg constraint
 * 0 = A(r,r-1) z_{r-1} + f_r differentiated r - 1 times by hand, with y'
 * standing for the derivatives of z that appear (so the algebraic unknowns are
 * of index 1); IDA's own dense difference-quotient Jacobian (no Jacobian
 * routine), consistent y0 and y0' from the closed-form solution (what a user's
 * hand formulas give), default error test (all components), IDA_NORMAL output
 * at the 20 output times.  lth gets the Hessenberg DAE itself -- a data-file
 * text parsed by lth_problem_parse or C callbacks -- and lth_ivp_solve does
 * the whole solve, the scan of Pi, the coefficient table or the decompositions
 * included (defaults; error_estimate off, since IDA gives none).  The parse is
 * not timed (IDA's residual is compiled code).
 *
 *   rational  index 2, blocks (4, 2), rational coefficients, on [0, 10];
 *   slope     data/slope.lth, the sliding mass (index 3, constant data);
 *   random3   the random index-3 system of bench_ida (blocks (3, 3, 1),
 *             tests/fixtures/testsys.h) on [1, 11];
 *   ap        Ascher and Petzold's index-2 example (alpha = 50) on [0, 1].
 *
 * error = max over the 20 output times and the components of
 * |z - z*| / max(1, |z*|).  For each tool and rtol (atol = rtol; a ladder of
 * four rtols a decade) the time is the least of repeated runs (process CPU
 * time, CLOCK_PROCESS_CPUTIME_ID; LTH_NUM_THREADS = 1 and one BLAS thread are
 * set in this process's environment before the first call, so both tools run
 * on one core); for each target the table gives the least time over the
 * ladder whose error is at most the target.
 *
 *   bench_peer [--quick] [--csv] [--ladder] [--problem NAME] [--only lth|ida]
 *              [--lth-method M] [--lth-coefficients auto|direct|table] [--rtol X] [--min-time S]
 * [--data DIR]
 *
 * --quick checks the problems (the residual of IDA's index-1 form at the exact
 * solution; at rtol 1e-8 lth below 1e-6, IDA below 1e-4) without timing: the smoke
 * test.  --ladder also prints every rung.  --rtol X runs one rtol of the chosen problems in a loop
 * (for perf).  --lth-method M gives lth another integrator than its default (an
 * lth-solve --method name), to compare the methods on one problem. Built only when Debian's
 * libsundials-dev is found (bench/ivp_bvp.cmake); never a dependency of the library. */
#define _DEFAULT_SOURCE /* getloadavg, setenv */
#define _POSIX_C_SOURCE 200809L
#include <ida/ida.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "app_blas.h"
#include "benchutil.h"
#include "testsys.h"
#include "rational_problem.h"
#include "lth/ivp.h"
#include "lth/problem.h"

#ifndef LTH_BENCH_DATA
#define LTH_BENCH_DATA "data"
#endif

#define NOUT   20
#define MAXS   8
#define NRTOL  49 /* rtol = 10^-(2 + j/4), j = 0..48: 1e-2 .. 1e-14 */
#define NTGT   4
#define MAXREP 400

static const double targets[NTGT] = {1e-6, 1e-8, 1e-10, 1e-12};

/* ---- the problems ------------------------------------------------------ */

/* How the differentiated constraint reads the derivatives of z:
 * FORM_ALGEBRAIC replaces them by the right-hand sides of the dynamic rows, so
 * the last rows are algebraic equations 0 = g(t, y) with g_u = Pi nonsingular
 * (the semi-explicit index-1 form); FORM_YPRIME keeps them as y' (the form
 * obtained by differentiating and stopping there). */
enum { FORM_ALGEBRAIC = 0, FORM_YPRIME = 1 };

typedef struct peer {
  const char *name, *title;
  int form;
  int stats;     /* print IDA's counts after a run */
  int s;         /* unknowns */
  double t0, t1; /* interval */
  /* exact solution and its derivative */
  void (*exact)(const struct peer *P, double t, double *z, double *zp);
  /* IDA's index-1 residual */
  int (*res)(double t, const double *y, const double *yp, double *r, const struct peer *P);
  /* lth: a data-file text, or a system built here */
  char *text;
  ts_sys *S;
  lth_problem *pb;
  lth_system *own;
  const lth_system *sys;
} peer;

/* rational: tests/fixtures/rational_problem.h */
static void rational_exact(const peer *P, double t, double *z, double *zp) {
  (void)P;
  rational_solution(t, z, zp);
}

/* The dynamic rows as written in the data file; the constraint differentiated
 * once: A(2,1)' x + A(2,1) x' + f(2)' = 0. */
static int rational_res(double t, const double *y, const double *yp, double *r, const peer *P) {
  (void)P;
  double q = 1 + t * t, a = 1 + t, b = 2 + t, c = 3 + t;
  double f1[4] = {-sin(t) + cos(t) - sin(t) / a - cos(2 * t),
                  cos(t) + 2 * sin(t) - t * t / (q * q) - 1 / b,
                  -1 / (a * a) - cos(t) / b + 1 / a - cos(2 * t) / a,
                  (1 - t * t) / (q * q) - 1 / (a * q) + t / q - 2 / (b * b)};
  double rhs[4] = {-y[0] + y[1] / a + y[4] + f1[0], -2 * y[1] + t / q * y[3] + y[5] + f1[1],
                   y[0] / b - y[2] + y[4] / a + f1[2], y[2] / q - y[3] + 2 / b * y[5] + f1[3]};
  for (int i = 0; i < 4; i++) r[i] = yp[i] - rhs[i];
  const double *d = P->form == FORM_ALGEBRAIC ? rhs : yp;
  /* f(2)' by hand */
  double g1 = sin(t) - (1 - t) / (a * a * a) - (3 - 3 * t * t - 2 * t * t * t) / (q * q * c * c);
  double g2 = -((cos(t) + 1) * q - 2 * t * (sin(t) + t)) / (q * q);
  r[4] = d[0] + t / a * d[2] + d[3] / c + y[2] / (a * a) - y[3] / (c * c) + g1;
  r[5] = d[1] / q + d[3] - 2 * t / (q * q) * y[1] + g2;
  return 0;
}

/* slope (data/slope.lth): v' = lambda, w' = 2 lambda - g, x' = v, y' = w,
 * 0 = x + 2y - 4; exact x = 2 - 0.6t + g t^2/5, y = 1 + 0.3t - g t^2/10,
 * lambda = 2g/5.  Index-1 form: the constraint twice differentiated, v' + 2w' = 0. */
#define SLOPE_G 9.81
static void slope_exact(const peer *P, double t, double *z, double *zp) {
  (void)P;
  const double g = SLOPE_G;
  z[0] = -0.6 + 0.4 * g * t, z[1] = 0.3 - 0.2 * g * t;
  z[2] = 2 - 0.6 * t + 0.2 * g * t * t, z[3] = 1 + 0.3 * t - 0.1 * g * t * t;
  z[4] = 0.4 * g;
  zp[0] = 0.4 * g, zp[1] = -0.2 * g, zp[2] = z[0], zp[3] = z[1], zp[4] = 0.0;
}

static int slope_res(double t, const double *y, const double *yp, double *r, const peer *P) {
  (void)t, (void)P;
  double rhs[2] = {y[4], 2 * y[4] - SLOPE_G};
  r[0] = yp[0] - rhs[0];
  r[1] = yp[1] - rhs[1];
  r[2] = yp[2] - y[0];
  r[3] = yp[3] - y[1];
  const double *d = P->form == FORM_ALGEBRAIC ? rhs : yp;
  r[4] = d[0] + 2 * d[1];
  return 0;
}

/* random3: testsys.h's system with blocks (3, 3, 1) (bench_ida's idx3) from
 * t0 = 1.  Index-1 form with C = A(3,2), h = f(3): the dynamic rows, and
 *   (C'' + C' A22 + C A22') z2 + (C' + C A22) z2' + (C' A21 + C A21') z1
 *     + C A21 z1' + C' f2 + C f2' + h'' = 0,
 * the derivative of C' z2 + C (A21 z1 + A22 z2 + f2) + h' = 0 (itself the
 * derivative of the constraint with z2' replaced by its equation). */
static void random_exact(const peer *P, double t, double *z, double *zp) {
  double c[2 * MAXS];
  ts_z_coef(P->S, t, 1, c);
  for (int i = 0; i < P->s; i++) z[i] = c[i], zp[i] = c[P->s + i];
}

/* Taylor coefficients 0..2 of entry (i, j) (0-based, global) */
static void rnd_entry(const ts_sys *S, int i, int j, double t, double *a) {
  const ts_entry *e = &S->A[i + j * S->s];
  if (!e->nz) {
    a[0] = a[1] = a[2] = 0.0;
    return;
  }
  ts_entry_coef(e, t, 2, a, 1);
  a[2] *= 2.0; /* second derivative */
}

/* f(i) and its derivatives (Taylor coefficients times k!) through the callback */
static void rnd_f(const ts_sys *S, int blk, double t, int order, double *f) {
  for (int k = 0; k < TS_MAXR * TS_MAXR + TS_MAXR; k++) {
    if (S->blk[k].S == S && S->blk[k].i == blk && S->blk[k].j == 0) {
      int n = S->n[blk - 1];
      ts_f_cb((void *)&S->blk[k], t, order, f, n, (size_t)n);
      for (int i = 0; order >= 2 && i < n; i++) f[2 * n + i] *= 2.0;
      return;
    }
  }
}

static int random_res(double t, const double *y, const double *yp, double *r, const peer *P) {
  const ts_sys *S = P->S;
  int s = S->s, n1 = S->n[0], n2 = S->n[1];
  double f1[3 * MAXS], f2[3 * MAXS], f3[3], rhs[2 * MAXS];
  rnd_f(S, 1, t, 0, f1);
  rnd_f(S, 2, t, 1, f2);
  rnd_f(S, 3, t, 2, f3);
  double a[3];
  for (int i = 0; i < n1; i++) { /* z1' = A11 z1 + A12 z2 + A13 u + f1 */
    double v = f1[i];
    for (int j = 0; j < s; j++) {
      rnd_entry(S, i, j, t, a);
      v += a[0] * y[j];
    }
    rhs[i] = v;
    r[i] = yp[i] - v;
  }
  /* z2' = A21 z1 + A22 z2 + f2; keep A21, A22 and their first derivatives */
  double A2[MAXS][2 * MAXS], dA2[MAXS][2 * MAXS];
  for (int i = 0; i < n2; i++) {
    double v = f2[i];
    for (int j = 0; j < n1 + n2; j++) {
      rnd_entry(S, n1 + i, j, t, a);
      A2[i][j] = a[0], dA2[i][j] = a[1];
      v += a[0] * y[j];
    }
    rhs[n1 + i] = v;
    r[n1 + i] = yp[n1 + i] - v;
  }
  const double *d = P->form == FORM_ALGEBRAIC ? rhs : yp;
  double C[MAXS][3];
  for (int k = 0; k < n2; k++) rnd_entry(S, n1 + n2, n1 + k, t, C[k]);
  /* the twice-differentiated constraint */
  double v = f3[2];
  for (int k = 0; k < n2; k++) {
    v += C[k][1] * f2[k] + C[k][0] * f2[n2 + k];
  }
  for (int j = 0; j < n1 + n2; j++) { /* coefficients of z_j and z_j' */
    double cz = 0.0, czp = 0.0;
    for (int k = 0; k < n2; k++) {
      cz += C[k][1] * A2[k][j] + C[k][0] * dA2[k][j];
      czp += C[k][0] * A2[k][j];
    }
    if (j >= n1) {
      cz += C[j - n1][2];
      czp += C[j - n1][1];
    }
    v += cz * y[j] + czp * d[j];
  }
  r[s - 1] = v;
  return 0;
}

/* ap: Ascher and Petzold's index-2 example, alpha = 50 (tests/unit/colloc/
 * test_bvp_colloc.c), x1 = x2 = e^t, y = -e^t/(2 - t); the constraint
 * (t+2) x1 + (t^2-4) x2 - (t^2+t-2) e^t = 0 differentiated once. */
#define AP_ALPHA 50.0
static const char ap_text[] = "lth 1\nproblem dae\nblocks 2 1\ninterval 0 1\nparam a = 50\n"
                              "A(1,1) = [a - 1/(2-t), 0; (1-a)/(t-2), -1]\n"
                              "A(1,2) = [(2-t)*a; a-1]\n"
                              "A(2,1) = [t+2, t^2-4]\n"
                              "f(1) = [(3-t)/(2-t)*exp(t); 2*exp(t)]\n"
                              "f(2) = -(t^2+t-2)*exp(t)\n";

static void ap_exact(const peer *P, double t, double *z, double *zp) {
  (void)P;
  double e = exp(t), d = 2 - t;
  z[0] = z[1] = zp[0] = zp[1] = e;
  z[2] = -e / d;
  zp[2] = -e / d - e / (d * d);
}

static int ap_res(double t, const double *y, const double *yp, double *r, const peer *P) {
  (void)P;
  const double al = AP_ALPHA;
  double e = exp(t);
  double rhs[2] = {(al - 1 / (2 - t)) * y[0] + (2 - t) * al * y[2] + (3 - t) / (2 - t) * e,
                   (1 - al) / (t - 2) * y[0] - y[1] + (al - 1) * y[2] + 2 * e};
  r[0] = yp[0] - rhs[0];
  r[1] = yp[1] - rhs[1];
  const double *d = P->form == FORM_ALGEBRAIC ? rhs : yp;
  r[2] = y[0] + 2 * t * y[1] + (t + 2) * d[0] + (t * t - 4) * d[1] - (t * t + 3 * t - 1) * e;
  return 0;
}

/* ---- the solves -------------------------------------------------------- */

static void out_times(const peer *P, double *times) {
  for (int k = 0; k < NOUT; k++) times[k] = P->t0 + (P->t1 - P->t0) * (k + 1) / NOUT;
}

static double error_of(const peer *P, const double *times, const double *z) {
  double err = 0.0, ze[MAXS], zp[MAXS];
  for (int k = 0; k < NOUT; k++) {
    P->exact(P, times[k], ze, zp);
    for (int i = 0; i < P->s; i++) {
      double d = fabs(z[k * P->s + i] - ze[i]) / fmax(1.0, fabs(ze[i]));
      err = d > err || d != d ? d : err;
    }
  }
  return err;
}

typedef struct ida_ud {
  const peer *P;
} ida_ud;

/* IDA's messages off: a failed run shows as a missing rung */
static void ida_quiet(int code, const char *module, const char *fn, char *msg, void *ud) {
  (void)code, (void)module, (void)fn, (void)msg, (void)ud;
}

static int ida_res(realtype t, N_Vector y, N_Vector yp, N_Vector r, void *ud) {
  const peer *P = ((ida_ud *)ud)->P;
  return P->res(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), N_VGetArrayPointer(r), P);
}

/* One IDA solve from creation to the last output; CPU seconds (INFINITY on failure). */
static double ida_run(const peer *P, double rtol, double *err, long *steps) {
  double times[NOUT], zs[NOUT * MAXS];
  out_times(P, times);
  double cpu = bench_cpu_now(), out = INFINITY;
  SUNContext sctx;
  if (SUNContext_Create(NULL, &sctx) != 0) return INFINITY;
  int s = P->s;
  ida_ud ud = {P};
  N_Vector y = N_VNew_Serial(s, sctx), yp = N_VNew_Serial(s, sctx);
  SUNMatrix J = SUNDenseMatrix(s, s, sctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, J, sctx);
  void *mem = IDACreate(sctx);
  P->exact(P, P->t0, N_VGetArrayPointer(y), N_VGetArrayPointer(yp));
  if (!mem || IDASetErrHandlerFn(mem, ida_quiet, NULL) != IDA_SUCCESS ||
      IDAInit(mem, ida_res, P->t0, y, yp) != IDA_SUCCESS ||
      IDASStolerances(mem, rtol, rtol) != IDA_SUCCESS || IDASetUserData(mem, &ud) != IDA_SUCCESS ||
      IDASetLinearSolver(mem, LS, J) != IDA_SUCCESS ||
      IDASetMaxNumSteps(mem, 1000000) != IDA_SUCCESS) {
    goto done;
  }
  for (int k = 0; k < NOUT; k++) {
    realtype tret;
    if (IDASolve(mem, times[k], &tret, y, yp, IDA_NORMAL) < 0) goto done;
    memcpy(zs + (size_t)k * s, N_VGetArrayPointer(y), (size_t)s * sizeof(double));
  }
  IDAGetNumSteps(mem, steps);
  out = bench_cpu_now() - cpu;
  if (P->stats) { /* --rtol: IDA's own counts, after the timed part */
    long etf, ncf, nre, nrej, nje;
    IDAGetNumErrTestFails(mem, &etf);
    IDAGetNumNonlinSolvConvFails(mem, &ncf);
    IDAGetNumResEvals(mem, &nre);
    IDAGetNumLinResEvals(mem, &nrej);
    IDAGetNumJacEvals(mem, &nje);
    printf("  IDA: %ld steps, %ld error test failures, %ld convergence failures, %ld residuals "
           "(+ %ld for %ld DQ Jacobians)\n",
           *steps, etf, ncf, nre, nrej, nje);
  }
  *err = error_of(P, times, zs);
done:
  IDAFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(J);
  N_VDestroy(y);
  N_VDestroy(yp);
  SUNContext_Free(&sctx);
  return out;
}

/* --lth-method: the integrator given to lth (-1: lth's default). */
static int lth_method = -1;
/* --lth-coefficients: what serves the coefficients (LTH_COEF_AUTO: lth's default). */
static lth_ivp_coefficients lth_coef = LTH_COEF_AUTO;

/* One lth solve (lth_ivp_solve, defaults but tolerances and the error estimate). */
static double lth_run(const peer *P, double rtol, double *err, long *steps) {
  double times[NOUT], z0[MAXS], zp[MAXS];
  out_times(P, times);
  P->exact(P, P->t0, z0, zp);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = rtol;
  o.error_estimate = 0;
  if (lth_method >= 0) o.method = (lth_ivp_method)lth_method;
  o.coefficients = lth_coef;
  lth_ivp_result *res = NULL;
  double cpu = bench_cpu_now();
  lth_status st = lth_ivp_solve(P->sys, P->t0, z0, times, NOUT, &o, &res, NULL);
  cpu = bench_cpu_now() - cpu;
  if (st != LTH_OK) return INFINITY;
  *err = error_of(P, times, res->z);
  *steps = (long)res->steps;
  lth_ivp_result_free(res);
  return cpu;
}

typedef double (*run_fn)(const peer *P, double rtol, double *err, long *steps);

/* Least CPU time of repeated runs (at least 3, until min_time has passed). */
static double timed(run_fn f, const peer *P, double rtol, double min_time, double *err,
                    long *steps) {
  double best = INFINITY, spent = 0.0;
  for (int rep = 0; rep < MAXREP && (rep < 3 || spent < min_time); rep++) {
    double c = f(P, rtol, err, steps);
    if (!isfinite(c)) return INFINITY;
    best = fmin(best, c);
    spent += c;
  }
  return best;
}

/* ---- set-up and checks ------------------------------------------------- */

static char *read_text(const char *path) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  char *buf = malloc(1 << 16);
  size_t n = buf ? fread(buf, 1, (1 << 16) - 1, fp) : 0;
  fclose(fp);
  if (buf) buf[n] = '\0';
  return buf;
}

static int setup(peer *P, const char *data) {
  lth_error err;
  if (strcmp(P->name, "random3") == 0) {
    const int n3[] = {3, 3, 1};
    P->S = ts_make(3, n3, 0x1d3, (ts_opts){.amp = 0.2, .damp = 0.5});
    P->own = P->S ? ts_system(P->S) : NULL;
    if (!P->own || lth_system_set_interval(P->own, P->t0, P->t1, NULL) != LTH_OK) return -1;
    P->sys = P->own;
    return 0;
  }
  if (strcmp(P->name, "slope") == 0) {
    char path[4096];
    snprintf(path, sizeof path, "%s/slope.lth", data);
    P->text = read_text(path);
    if (!P->text) {
      fprintf(stderr, "bench_peer: cannot read %s (--data DIR)\n", path);
      return -1;
    }
  }
  const char *text = P->text ? P->text : (strcmp(P->name, "ap") == 0 ? ap_text : rational_text);
  if (lth_problem_parse(text, strlen(text), P->name, NULL, &P->pb, &err) != LTH_OK) {
    fprintf(stderr, "bench_peer: %s: %s\n", P->name, err.message);
    return -1;
  }
  P->sys = lth_problem_system(P->pb);
  return 0;
}

static void teardown(peer *P) {
  lth_problem_free(P->pb);
  lth_system_free(P->own);
  ts_free(P->S);
  free(P->text);
}

/* The residual of the index-1 form at the exact solution, relative to the
 * size of its terms (a wrong hand formula shows as O(1)). */
static double residual_check(const peer *P) {
  double worst = 0.0, z[MAXS], zp[MAXS], r[MAXS];
  for (int k = 0; k <= NOUT; k++) {
    double t = P->t0 + (P->t1 - P->t0) * k / NOUT;
    P->exact(P, t, z, zp);
    P->res(t, z, zp, r, P);
    double scale = 1.0;
    for (int i = 0; i < P->s; i++) scale = fmax(scale, fmax(fabs(z[i]), fabs(zp[i])));
    for (int i = 0; i < P->s; i++) worst = fmax(worst, fabs(r[i]) / scale);
  }
  return worst;
}

/* ---- the report -------------------------------------------------------- */

typedef struct ladder {
  double sec[NRTOL], err[NRTOL];
  long steps[NRTOL];
} ladder;

static double rtol_at(int j) { return pow(10.0, -2.0 - 0.25 * j); }

static void sweep(run_fn f, const peer *P, double min_time, ladder *L) {
  for (int j = 0; j < NRTOL; j++) {
    L->err[j] = NAN;
    L->steps[j] = 0;
    L->sec[j] = timed(f, P, rtol_at(j), min_time, &L->err[j], &L->steps[j]);
  }
}

/* The least time over the ladder with error <= target (-1: none). */
static int least(const ladder *L, double target) {
  int best = -1;
  for (int j = 0; j < NRTOL; j++) {
    if (isfinite(L->sec[j]) && L->err[j] <= target && (best < 0 || L->sec[j] < L->sec[best])) {
      best = j;
    }
  }
  return best;
}

/* Every rung of the ladders (--ladder): rtol, then error, ms and steps of each tool. */
static void report_ladder(const peer *P, const ladder *Ll, const ladder *Li) {
  printf("%8s %8s %9s %8s %6s %9s %8s %6s\n", P->name, "rtol", "lth_err", "lth_ms", "steps",
         "ida_err", "ida_ms", "steps");
  for (int j = 0; j < NRTOL; j++) {
    printf("%8s %8.1e %9.2e %8.3f %6ld %9.2e %8.3f %6ld\n", "", rtol_at(j), Ll->err[j],
           1e3 * Ll->sec[j], Ll->steps[j], Li->err[j], 1e3 * Li->sec[j], Li->steps[j]);
  }
}

static const char *const cols[] = {"problem", "target",   "lth_ms",  "lth_rtol", "lth_err",
                                   "ida_ms",  "ida_rtol", "ida_err", "lth/ida"};
static const int widths[] = {8, 6, 8, 8, 9, 8, 8, 9, 7};
#define NCOL (int)(sizeof widths / sizeof widths[0])

static void report(int csv, const peer *P, const ladder *Ll, const ladder *Li) {
  for (int k = 0; k < NTGT; k++) {
    int a = least(Ll, targets[k]), b = least(Li, targets[k]);
    char c[NCOL][32];
    snprintf(c[0], 32, "%s", P->name);
    snprintf(c[1], 32, "%.0e", targets[k]);
    for (int j = 2; j < NCOL; j++) snprintf(c[j], 32, "-");
    if (a >= 0) {
      snprintf(c[2], 32, "%.3f", 1e3 * Ll->sec[a]);
      snprintf(c[3], 32, "%.1e", rtol_at(a));
      snprintf(c[4], 32, "%.2e", Ll->err[a]);
    }
    if (b >= 0) {
      snprintf(c[5], 32, "%.3f", 1e3 * Li->sec[b]);
      snprintf(c[6], 32, "%.1e", rtol_at(b));
      snprintf(c[7], 32, "%.2e", Li->err[b]);
    }
    if (a >= 0 && b >= 0) snprintf(c[8], 32, "%.2f", Ll->sec[a] / Li->sec[b]);
    const char *cells[NCOL];
    for (int j = 0; j < NCOL; j++) cells[j] = c[j];
    bench_emit(csv, NCOL, cells, widths);
  }
  fflush(stdout);
}

/* The smallest error each tool reached on the ladder, and where. */
static void report_best(int csv, const peer *P, const ladder *Ll, const ladder *Li) {
  if (csv) return;
  int a = -1, b = -1;
  for (int j = 0; j < NRTOL; j++) {
    if (isfinite(Ll->sec[j]) && (a < 0 || Ll->err[j] < Ll->err[a])) a = j;
    if (isfinite(Li->sec[j]) && (b < 0 || Li->err[j] < Li->err[b])) b = j;
  }
  printf("%8s smallest error: lth %.2e (rtol %.1e, %.3f ms), IDA %.2e (rtol %.1e, %.3f ms)\n",
         P->name, a >= 0 ? Ll->err[a] : NAN, a >= 0 ? rtol_at(a) : NAN,
         a >= 0 ? 1e3 * Ll->sec[a] : NAN, b >= 0 ? Li->err[b] : NAN, b >= 0 ? rtol_at(b) : NAN,
         b >= 0 ? 1e3 * Li->sec[b] : NAN);
}

static int quick_check(peer *P) {
  double el = NAN, ei[2] = {NAN, NAN}, rc = 0.0, ti = 0.0;
  long st;
  double tl = lth_run(P, 1e-8, &el, &st);
  for (int f = 0; f < 2; f++) { /* both forms of the differentiated constraint */
    P->form = f;
    rc = fmax(rc, residual_check(P));
    ti += ida_run(P, 1e-8, &ei[f], &st);
  }
  P->form = FORM_ALGEBRAIC;
  /* IDA's global error at rtol 1e-8 is up to ~1e-5 here; a wrong set-up gives O(1) */
  int ok = rc < 1e-12 && isfinite(tl) && isfinite(ti) && el < 1e-6 && ei[0] < 1e-4 && ei[1] < 1e-4;
  printf("%-8s index-1 residuals at z* %.1e; error at rtol 1e-8: lth %.2e, IDA %.2e (algebraic), "
         "%.2e (yprime)  %s\n",
         P->name, rc, el, ei[0], ei[1], ok ? "ok" : "FAILED");
  return ok;
}

int main(int argc, char **argv) {
  /* one core for both tools: lth's threads and BLAS's, set in this process's
   * environment before the first call (the library reads LTH_NUM_THREADS) */
  setenv("LTH_NUM_THREADS", "1", 1);
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  app_blas_setup();
  int quick = 0, csv = 0, show_ladder = 0;
  const char *only = NULL, *pname = NULL, *data = LTH_BENCH_DATA;
  double one_rtol = 0.0, min_time = 0.02;
  int form = FORM_ALGEBRAIC;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[k], "--csv") == 0) {
      csv = 1;
    } else if (strcmp(argv[k], "--ladder") == 0) {
      show_ladder = 1;
    } else if (strcmp(argv[k], "--only") == 0 && k + 1 < argc) {
      only = argv[++k];
    } else if (strcmp(argv[k], "--problem") == 0 && k + 1 < argc) {
      pname = argv[++k];
    } else if (strcmp(argv[k], "--rtol") == 0 && k + 1 < argc) {
      one_rtol = atof(argv[++k]);
    } else if (strcmp(argv[k], "--ida-form") == 0 && k + 1 < argc) {
      k++;
      if (strcmp(argv[k], "algebraic") == 0) {
        form = FORM_ALGEBRAIC;
      } else if (strcmp(argv[k], "yprime") == 0) {
        form = FORM_YPRIME;
      } else {
        fprintf(stderr, "bench_peer: --ida-form algebraic|yprime\n");
        return 1;
      }
    } else if (strcmp(argv[k], "--lth-method") == 0 && k + 1 < argc) {
      lth_method = lth_ivp_method_from_name(argv[++k]);
      if (lth_method < 0) {
        fprintf(stderr, "bench_peer: --lth-method: an lth-solve --method name\n");
        return 1;
      }
    } else if (strcmp(argv[k], "--lth-coefficients") == 0 && k + 1 < argc) {
      k++;
      if (strcmp(argv[k], "direct") == 0) {
        lth_coef = LTH_COEF_DIRECT;
      } else if (strcmp(argv[k], "table") == 0) {
        lth_coef = LTH_COEF_TABLE;
      } else if (strcmp(argv[k], "auto") == 0) {
        lth_coef = LTH_COEF_AUTO;
      } else {
        fprintf(stderr, "bench_peer: --lth-coefficients auto|direct|table\n");
        return 1;
      }
    } else if (strcmp(argv[k], "--min-time") == 0 && k + 1 < argc) {
      min_time = atof(argv[++k]);
    } else if (strcmp(argv[k], "--data") == 0 && k + 1 < argc) {
      data = argv[++k];
    } else {
      fprintf(stderr,
              "usage: %s [--quick] [--csv] [--ladder] [--problem rational|slope|random3|ap] "
              "[--only lth|ida] [--ida-form algebraic|yprime] [--lth-method M] "
              "[--lth-coefficients auto|direct|table] [--rtol X] "
              "[--min-time S] "
              "[--data DIR]\n",
              argv[0]);
      return 1;
    }
  }
  peer probs[] = {
      {.name = "rational",
       .title = "idx2, rational coefficients, blocks (4, 2)",
       .s = 6,
       .t0 = 0,
       .t1 = 10,
       .exact = rational_exact,
       .res = rational_res},
      {.name = "slope",
       .title = "sliding mass, index 3 (data/slope.lth)",
       .s = 5,
       .t0 = 0,
       .t1 = 2,
       .exact = slope_exact,
       .res = slope_res},
      {.name = "random3",
       .title = "random index 3, blocks (3, 3, 1), t0 = 1",
       .s = 7,
       .t0 = 1,
       .t1 = 11,
       .exact = random_exact,
       .res = random_res},
      {.name = "ap",
       .title = "Ascher-Petzold index 2, alpha = 50",
       .s = 3,
       .t0 = 0,
       .t1 = 1,
       .exact = ap_exact,
       .res = ap_res},
  };
  int np = (int)(sizeof probs / sizeof probs[0]), bad = 0, any = 0;
  double load = -1.0;
  if (getloadavg(&load, 1) != 1) load = -1.0;
  if (!quick && one_rtol <= 0.0) {
    bench_title(csv, "lth vs SUNDIALS IDA, each given the problem as its users write it "
                     "(IDA: index-1 form, its own DQ Jacobian); least CPU ms to reach the "
                     "error target, one core");
    if (!csv) printf("load average %.2f at start\n", load);
    bench_emit(csv, NCOL, cols, widths);
  }
  for (int p = 0; p < np; p++) {
    peer *P = &probs[p];
    if (pname && strcmp(pname, P->name) != 0) continue;
    any = 1;
    P->form = form;
    if (setup(P, data) != 0) {
      teardown(P);
      return 1;
    }
    if (quick) {
      bad += !quick_check(P);
    } else if (one_rtol > 0.0) { /* one setting in a loop, for a profiler */
      for (int tool = 0; tool < 2; tool++) {
        if (only && strcmp(only, tool ? "ida" : "lth") != 0) continue;
        double e = NAN;
        long st = 0;
        double sec = timed(tool ? ida_run : lth_run, P, one_rtol, min_time, &e, &st);
        if (tool) { /* the counts of one more run */
          P->stats = 1;
          ida_run(P, one_rtol, &e, &st);
          P->stats = 0;
        }
        printf("%-8s %s rtol %.1e: %.4f ms, error %.2e, %ld steps\n", P->name, tool ? "IDA" : "lth",
               one_rtol, 1e3 * sec, e, st);
      }
    } else {
      ladder Ll, Li;
      for (int j = 0; j < NRTOL; j++) { /* a tool left out (--only) prints as not run */
        Ll.sec[j] = Li.sec[j] = INFINITY;
        Ll.err[j] = Li.err[j] = NAN;
        Ll.steps[j] = Li.steps[j] = 0;
      }
      if (!only || strcmp(only, "lth") == 0) sweep(lth_run, P, min_time, &Ll);
      if (!only || strcmp(only, "ida") == 0) sweep(ida_run, P, min_time, &Li);
      report(csv, P, &Ll, &Li);
      report_best(csv, P, &Ll, &Li);
      if (show_ladder && !csv) report_ladder(P, &Ll, &Li);
    }
    teardown(P);
  }
  if (!any) {
    fprintf(stderr, "bench_peer: no problem named %s\n", pname);
    return 1;
  }
  if (!quick && !csv && one_rtol <= 0.0) {
    printf("\nproblems: ");
    for (int p = 0; p < np; p++) printf("%s%s = %s", p ? "; " : "", probs[p].name, probs[p].title);
    printf("\n");
  }
  return bad ? 2 : 0;
}
