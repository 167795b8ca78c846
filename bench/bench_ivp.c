/* SPDX-License-Identifier: GPL-3.0-or-later */
/* IVP benchmark: error vs time across tolerances for a time-varying index-3
 * and an index-5 problem with exact solutions, with the coefficients from the
 * coefficient table (the default) and from a decomposition at every t
 * (direct), the ratios between the two, the rotating rod over [0, 1000], a
 * stiff family (reduced-ODE eigenvalues down to -1e6) across methods, and the
 * targets of docs/performance.md checked in the same run; then the cost of
 * the global error estimate (lth_ivp_opts.error_estimate, off in the other
 * tables) and its ratio to the true error.  See bench/IVP_BVP.md and
 * docs/performance.md for the columns and figures.
 *
 *   bench_ivp [--quick] [--csv] [--repeat N]
 */
#define _DEFAULT_SOURCE /* getloadavg */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app_blas.h"
#include "benchutil.h"
#include "testsys.h"
#include "lth/ivp.h"

/* Targets (docs/performance.md), checked at the end. */
static int g_targets_failed;

typedef struct cfg {
  int quick, csv, reps;
} cfg;

/* Exact solution of a problem at t (s entries). */
typedef void (*exact_fn)(const void *ctx, double t, double *z);

typedef struct problem {
  const char *name;
  lth_system *sys;
  exact_fn exact;
  const void *ctx;
  double (*constraint)(double t, const double *z); /* NULL, or |constraint residual| */
  int s;
  double t0;
  double times[64]; /* output times */
  size_t n;
} problem;

/* One measured solve: the best wall time of cfg.reps runs and that run's counters. */
typedef struct run {
  lth_status st;
  char msg[LTH_ERROR_MSG_MAX];
  double err, err_end, wall, total, decomp, drift, drift_rel, gamma;
  double constr_end; /* |constraint residual| at the last output (problem->constraint) */
  double est;        /* the global error estimate, relative as err (NaN: none) */
  double cpu;        /* processor seconds of the run with the best wall time (all threads) */
  size_t est_rhs, est_decomps; /* the estimate's reference solve */
  size_t steps, rhs, decomps, panels;
  double coef_err;
  int coef_order;
} run;

/* ---- exact solutions ---- */

static void manufactured_exact(const void *ctx, double t, double *z) { ts_exact(ctx, t, z); }

/* max_k ||z_k - z*(t_k)||_inf / max(1, max |z*|), and the same at the last time. */
static void measure_error(const problem *P, const lth_ivp_result *res, run *out) {
  double err = 0.0, scale = 1.0, ze[TS_MAXS], last = 0.0;
  for (size_t k = 0; k < res->n; k++) {
    P->exact(P->ctx, res->times[k], ze);
    double ek = 0.0;
    for (int i = 0; i < P->s; i++) {
      double d = fabs(res->z[k * (size_t)P->s + i] - ze[i]);
      ek = d > ek || d != d ? d : ek;
      scale = fmax(scale, fabs(ze[i]));
    }
    err = ek > err || ek != ek ? ek : err;
    last = ek;
  }
  out->err = err / scale;
  out->err_end = last / scale;
  out->est = res->error_estimate / scale;
  if (P->constraint && res->n > 0) {
    out->constr_end = P->constraint(res->times[res->n - 1], res->z + (res->n - 1) * (size_t)P->s);
  }
}

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static run solve(const cfg *c, const problem *P, const lth_ivp_opts *o) {
  run best;
  memset(&best, 0, sizeof best);
  best.wall = INFINITY;
  double z0[TS_MAXS];
  P->exact(P->ctx, P->t0, z0); /* consistent by construction */
  for (int rep = 0; rep < c->reps; rep++) {
    lth_ivp_result *res = NULL;
    lth_error err;
    lth_error_clear(&err);
    double t = bench_now(), cpu = cpu_now();
    lth_status st = lth_ivp_solve(P->sys, P->t0, z0, P->times, P->n, o, &res, &err);
    t = bench_now() - t;
    cpu = cpu_now() - cpu;
    if (st != LTH_OK) {
      best.st = st;
      snprintf(best.msg, sizeof best.msg, "%s", err.message);
      return best;
    }
    if (t < best.wall) {
      best.wall = t;
      best.cpu = cpu;
      best.est_rhs = res->error_rhs_evals;
      best.est_decomps = res->error_decomps;
      best.total = res->seconds_total;
      best.decomp = res->seconds_decomp;
      best.steps = res->steps;
      best.rhs = res->rhs_evals;
      best.decomps = res->decomps;
      best.panels = res->table_panels;
      best.coef_err = res->coef_error;
      best.coef_order = res->coef_order;
      best.drift = res->drift;
      best.drift_rel = res->drift_rel;
      best.gamma = res->gamma;
      measure_error(P, res, &best);
    }
    lth_ivp_result_free(res);
  }
  return best;
}

/* Seconds of one lth_system_eval at input order K (the callbacks that build
 * the A and f jets), averaged over many t: the part of a decomposition that
 * is the user's code rather than lth's. */
static double eval_seconds(const lth_system *sys, int K, double t0, double t1) {
  int s = lth_system_size(sys);
  lth_jet A, f;
  memset(&A, 0, sizeof A);
  memset(&f, 0, sizeof f);
  double *w = malloc((lth_system_work_size(sys, K) + 1) * sizeof(double));
  if (!w || lth_jet_init(&A, s, s, K, NULL) != LTH_OK ||
      lth_jet_init(&f, s, 1, K, NULL) != LTH_OK) {
    free(w);
    lth_jet_release(&A);
    lth_jet_release(&f);
    return NAN;
  }
  const int n = 2000;
  double t = bench_now();
  for (int k = 0; k < n; k++) {
    lth_system_eval(sys, t0 + (t1 - t0) * k / n, K, &A, &f, w, NULL);
  }
  t = (bench_now() - t) / n;
  free(w);
  lth_jet_release(&A);
  lth_jet_release(&f);
  return t;
}

/* ---- the problems: sizes and how much the reduced ODE amplifies errors ---- */

static const char *const prob_cols[] = {"problem", "r",        "blocks",   "s",      "m",
                                        "p",       "interval", "max|Psi|", "us/eval"};
static const int prob_w[] = {7, 2, 10, 3, 3, 3, 9, 9, 7};
#define PROB_NCOL (int)(sizeof prob_w / sizeof prob_w[0])

/* max over the outputs of |Psi(t_k, t0) Q| (entries): a local error made at t0
 * can grow by about this much by the end. */
static double max_growth(const problem *P) {
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  lth_fundamental *fm = NULL;
  if (lth_ivp_fundamental(P->sys, P->t0, P->times, P->n, &o, &fm, NULL) != LTH_OK) return NAN;
  double mx = 0.0;
  size_t len = fm->n * (size_t)fm->m * (size_t)fm->p;
  for (size_t i = 0; i < len; i++) mx = fmax(mx, fabs(fm->Psi[i]));
  lth_fundamental_free(fm);
  return mx;
}

static void problems_table(const cfg *c, problem *const *P, int np) {
  bench_title(c->csv, "ivp problems (manufactured, exact solution known)");
  bench_emit(c->csv, PROB_NCOL, prob_cols, prob_w);
  for (int k = 0; k < np; k++) {
    const lth_system *sys = P[k]->sys;
    int r = lth_system_index(sys);
    char b[PROB_NCOL][40];
    snprintf(b[0], 40, "%s", P[k]->name);
    snprintf(b[1], 40, "%d", r);
    b[2][0] = '\0';
    for (int i = 1; i <= r; i++) {
      size_t len = strlen(b[2]);
      snprintf(b[2] + len, 40 - len, "%s%d", i > 1 ? "-" : "", lth_system_block_size(sys, i));
    }
    snprintf(b[3], 40, "%d", lth_system_size(sys));
    snprintf(b[4], 40, "%d", lth_system_state_dim(sys));
    snprintf(b[5], 40, "%d", lth_system_manifold_dim(sys));
    snprintf(b[6], 40, "%g..%g", P[k]->t0, P[k]->times[P[k]->n - 1]); /* no comma: CSV */
    snprintf(b[7], 40, "%.2g", max_growth(P[k]));
    snprintf(b[8], 40, "%.2f", 1e6 * eval_seconds(sys, r - 1, P[k]->t0, P[k]->times[P[k]->n - 1]));
    const char *cells[PROB_NCOL];
    for (int j = 0; j < PROB_NCOL; j++) cells[j] = b[j];
    bench_emit(c->csv, PROB_NCOL, cells, prob_w);
  }
}

/* ---- the tolerance sweep: coefficient table (default) and direct ---- */

static const char *const sweep_cols[] = {"problem", "method",   "rtol",    "coef",    "max_err",
                                         "wall_s",  "steps",    "rhs",     "decomps", "panels",
                                         "deg",     "coef_err", "decomp%", "drift"};
static const int sweep_w[] = {7, 6, 6, 6, 9, 8, 7, 7, 8, 6, 4, 8, 7, 8};
#define SWEEP_NCOL (int)(sizeof sweep_w / sizeof sweep_w[0])

static run sweep_row(const cfg *c, const problem *P, lth_ivp_method method, double rtol,
                     lth_ivp_coefficients coef) {
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = method;
  o.rtol = rtol;
  o.atol = rtol / 100;
  o.coefficients = coef;
  o.error_estimate = 0;
  run R = solve(c, P, &o);
  char b[SWEEP_NCOL][40];
  snprintf(b[0], 40, "%s", P->name);
  snprintf(b[1], 40, "%s", lth_ivp_method_name(method));
  snprintf(b[2], 40, "%.0e", rtol);
  snprintf(b[3], 40, "%s", lth_ivp_coefficients_name(coef));
  if (R.st != LTH_OK) {
    fprintf(stderr, "bench_ivp: %s %s rtol %g: %s\n", P->name, b[1], rtol, R.msg);
    snprintf(b[4], 40, "%s", lth_strerror(R.st));
    for (int k = 5; k < SWEEP_NCOL; k++) snprintf(b[k], 40, "-");
  } else {
    snprintf(b[4], 40, "%.2e", R.err);
    snprintf(b[5], 40, "%.4f", R.wall);
    snprintf(b[6], 40, "%zu", R.steps);
    snprintf(b[7], 40, "%zu", R.rhs);
    snprintf(b[8], 40, "%zu", R.decomps);
    snprintf(b[9], 40, "%zu", R.panels);
    snprintf(b[10], 40, "%d", R.coef_order);
    snprintf(b[11], 40, "%.1e", R.coef_err);
    snprintf(b[12], 40, "%.1f", 100 * R.decomp / R.total);
    snprintf(b[13], 40, "%.1e", R.drift);
  }
  const char *cells[SWEEP_NCOL];
  for (int k = 0; k < SWEEP_NCOL; k++) cells[k] = b[k];
  bench_emit(c->csv, SWEEP_NCOL, cells, sweep_w);
  fflush(stdout);
  return R;
}

/* One comparison: direct and table at the same settings. */
typedef struct pair {
  const char *name;
  lth_ivp_method method;
  double rtol;
  run d, t;
  int target; /* rows the targets apply to */
} pair;

#define MAX_PAIRS 64

static const char *const ratio_cols[] = {"problem",  "method",   "rtol",    "err_dir",
                                         "err_tab",  "dec_dir",  "dec_tab", "dec_x",
                                         "wall_dir", "wall_tab", "time_x",  "target"};
static const int ratio_w[] = {7, 6, 6, 9, 9, 7, 7, 6, 8, 8, 6, 9};
#define RATIO_NCOL (int)(sizeof ratio_w / sizeof ratio_w[0])

/* "equal or better": the table's error within 10 % of the direct path's (the
 * two integrations take the same steps; what differs is the table's error). */
static int equal_or_better(double e_tab, double e_dir) { return e_tab <= 1.1 * e_dir + 1e-15; }

static void ratio_table(const cfg *c, const pair *pr, int np) {
  bench_title(c->csv, "ivp: coefficient table vs direct decomposition (x = direct / table)");
  bench_emit(c->csv, RATIO_NCOL, ratio_cols, ratio_w);
  for (int k = 0; k < np; k++) {
    const pair *p = &pr[k];
    char b[RATIO_NCOL][40];
    snprintf(b[0], 40, "%s", p->name);
    snprintf(b[1], 40, "%s", lth_ivp_method_name(p->method));
    snprintf(b[2], 40, "%.0e", p->rtol);
    if (p->d.st != LTH_OK || p->t.st != LTH_OK) {
      for (int j = 3; j < RATIO_NCOL; j++) snprintf(b[j], 40, "-");
      if (p->target) g_targets_failed++;
    } else {
      double dx = (double)p->d.decomps / (double)p->t.decomps, tx = p->d.wall / p->t.wall;
      snprintf(b[3], 40, "%.2e", p->d.err);
      snprintf(b[4], 40, "%.2e", p->t.err);
      snprintf(b[5], 40, "%zu", p->d.decomps);
      snprintf(b[6], 40, "%zu", p->t.decomps);
      snprintf(b[7], 40, "%.1f", dx);
      snprintf(b[8], 40, "%.4f", p->d.wall);
      snprintf(b[9], 40, "%.4f", p->t.wall);
      snprintf(b[10], 40, "%.1f", tx);
      int ok = dx >= 5 && tx >= 3 && equal_or_better(p->t.err, p->d.err);
      snprintf(b[11], 40, "%s", !p->target ? "-" : (ok ? "met" : "NOT met"));
      if (p->target && !ok) g_targets_failed++;
    }
    const char *cells[RATIO_NCOL];
    for (int j = 0; j < RATIO_NCOL; j++) cells[j] = b[j];
    bench_emit(c->csv, RATIO_NCOL, cells, ratio_w);
  }
}

static void tolerance_sweep(const cfg *c, problem *const *P, int np) {
  const double full[] = {1e-4, 1e-6, 1e-8, 1e-10, 1e-12}, quick[] = {1e-4, 1e-8};
  const double *rt = c->quick ? quick : full;
  int nrt = c->quick ? 2 : 5;
  pair pr[MAX_PAIRS];
  int npr = 0;
  bench_title(c->csv, "ivp: error, time and cost across tolerances (atol = rtol/100)");
  bench_emit(c->csv, SWEEP_NCOL, sweep_cols, sweep_w);
  for (int p = 0; p < np; p++) {
    lth_ivp_opts warm;
    lth_ivp_opts_init(&warm);
    warm.rtol = 1e-4;
    warm.error_estimate = 0;
    cfg once = *c;
    once.reps = 1;
    (void)solve(&once, P[p], &warm); /* untimed: page faults and first-call costs */
    for (int k = 0; k < nrt && npr < MAX_PAIRS; k++) {
      pair *q = &pr[npr++];
      *q = (pair){
          .name = P[p]->name, .method = LTH_IVP_RK8PD, .rtol = rt[k], .target = rt[k] <= 1e-8};
      q->t = sweep_row(c, P[p], LTH_IVP_RK8PD, rt[k], LTH_COEF_TABLE);
      q->d = sweep_row(c, P[p], LTH_IVP_RK8PD, rt[k], LTH_COEF_DIRECT);
    }
    /* the other steppers at one tolerance */
    const lth_ivp_method other[] = {LTH_IVP_RKF45, LTH_IVP_MSADAMS, LTH_IVP_MSBDF};
    for (int k = 0; k < 3 && npr < MAX_PAIRS; k++) {
      pair *q = &pr[npr++];
      *q = (pair){.name = P[p]->name, .method = other[k], .rtol = 1e-8, .target = 0};
      q->t = sweep_row(c, P[p], other[k], 1e-8, LTH_COEF_TABLE);
      q->d = sweep_row(c, P[p], other[k], 1e-8, LTH_COEF_DIRECT);
    }
  }
  ratio_table(c, pr, npr);
}

/* ---- the rotating rod (index 3, periodic coefficients, exact solution) ----
 * p' = -4 q + c(t) lambda, q' = p, 0 = c(t)' q, c = (cos t, sin t): the bead
 * moves along d = (-sin t, cos t), q = s d, s = sin(sqrt(3) t),
 * p = q' = s' d - s c, lambda = -2 s'.  Neutrally stable: errors may grow
 * linearly over [0, 1000], and the constraint must not drift. */
static int rod_c(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  int transpose = *(const int *)ctx;
  double f = 1.0;
  for (int k = 0; k <= order; k++) {
    if (k) f *= k;
    double ck = cos(t + k * M_PI / 2) / f, sk = sin(t + k * M_PI / 2) / f;
    coef[(size_t)k * stride] = ck;
    coef[(size_t)k * stride + (transpose ? (size_t)ld : 1)] = sk;
  }
  return 0;
}

static void rod_exact(const void *ctx, double t, double *z) {
  (void)ctx;
  double w = sqrt(3.0), s = sin(w * t), ds = w * cos(w * t);
  double c[2] = {cos(t), sin(t)}, d[2] = {-sin(t), cos(t)};
  for (int i = 0; i < 2; i++) {
    z[i] = ds * d[i] - s * c[i]; /* p */
    z[2 + i] = s * d[i];         /* q */
  }
  z[4] = -2 * ds; /* lambda */
}

/* The position constraint c(t)' q = 0: what drift off the manifold breaks. */
static double rod_constraint(double t, const double *z) {
  return fabs(cos(t) * z[2] + sin(t) * z[3]);
}

static lth_system *rod_system(void) {
  static const int no = 0, yes = 1;
  int n[] = {2, 2, 1};
  double mk[] = {-4, 0, 0, -4};
  lth_system *sys = lth_system_alloc(3, n, NULL);
  if (!sys) return NULL;
  int ok = lth_system_set_A(sys, 1, 2, lth_source_const(2, 2, mk, 2, NULL), NULL) == LTH_OK;
  ok = ok && lth_system_set_A(sys, 1, 3, lth_source_callback(2, 1, rod_c, (void *)&no, NULL),
                              NULL) == LTH_OK;
  ok = ok && lth_system_set_A(sys, 2, 1, lth_source_identity(2, 2, NULL), NULL) == LTH_OK;
  ok = ok && lth_system_set_A(sys, 3, 2, lth_source_callback(1, 2, rod_c, (void *)&yes, NULL),
                              NULL) == LTH_OK;
  if (!ok) {
    lth_system_free(sys);
    return NULL;
  }
  return sys;
}

static const char *const rod_cols[] = {"rtol",    "damping", "coef",    "err_end",
                                       "max_err", "drift",   "c'q_end", "steps",
                                       "decomps", "wall_s",  "time_x",  "target"};
static const int rod_w[] = {6, 7, 6, 9, 9, 9, 9, 7, 8, 7, 6, 7};
#define ROD_NCOL (int)(sizeof rod_w / sizeof rod_w[0])

/* A row; for the table row (d given) the time ratio and the target:
 * >= 3x less time at equal error and drift (within 10 %, or below 1e-12). */
static void rod_row(const cfg *c, double rtol, int damp, lth_ivp_coefficients coef, const run *R,
                    const run *d, int target) {
  char b[ROD_NCOL][40];
  snprintf(b[0], 40, "%.0e", rtol);
  snprintf(b[1], 40, "%s", damp ? "auto" : "off");
  snprintf(b[2], 40, "%s", lth_ivp_coefficients_name(coef));
  if (R->st != LTH_OK) {
    fprintf(stderr, "bench_ivp: rod: %s\n", R->msg);
    snprintf(b[3], 40, "%s", lth_strerror(R->st));
    for (int j = 4; j < ROD_NCOL; j++) snprintf(b[j], 40, "-");
    if (target) g_targets_failed++;
  } else {
    snprintf(b[3], 40, "%.2e", R->err_end);
    snprintf(b[4], 40, "%.2e", R->err);
    snprintf(b[5], 40, "%.2e", R->drift);
    snprintf(b[6], 40, "%.2e", R->constr_end);
    snprintf(b[7], 40, "%zu", R->steps);
    snprintf(b[8], 40, "%zu", R->decomps);
    snprintf(b[9], 40, "%.3f", R->wall);
    snprintf(b[10], 40, "-");
    snprintf(b[11], 40, "-");
    if (d && d->st == LTH_OK) {
      double tx = d->wall / R->wall;
      snprintf(b[10], 40, "%.1f", tx);
      int ok = tx >= 3 && (R->err <= 1.1 * d->err || R->err < 1e-12) &&
               (R->drift <= 1.1 * d->drift || R->drift < 1e-12);
      if (target) {
        snprintf(b[11], 40, "%s", ok ? "met" : "NOT met");
        g_targets_failed += !ok;
      }
    }
  }
  const char *cells[ROD_NCOL];
  for (int j = 0; j < ROD_NCOL; j++) cells[j] = b[j];
  bench_emit(c->csv, ROD_NCOL, cells, rod_w);
  fflush(stdout);
}

static void rod_table(const cfg *c) {
  problem P = {.name = "rod",
               .sys = rod_system(),
               .exact = rod_exact,
               .constraint = rod_constraint,
               .s = 5,
               .t0 = 0.0,
               .n = 20};
  if (!P.sys) {
    fprintf(stderr, "bench_ivp: cannot build the rotating rod\n");
    return;
  }
  double t1 = c->quick ? 100.0 : 1000.0;
  for (size_t k = 0; k < P.n; k++) P.times[k] = t1 * (double)(k + 1) / (double)P.n;
  char title[160];
  snprintf(title, sizeof title,
           "rotating rod (index 3) over [0, %g], rk8pd: table vs direct, drift damping auto "
           "(and off at 1e-10)",
           t1);
  bench_title(c->csv, title);
  bench_emit(c->csv, ROD_NCOL, rod_cols, rod_w);
  const double full[] = {1e-8, 1e-10, 1e-12}, quick[] = {1e-10};
  int nrt = c->quick ? 1 : 3;
  for (int k = 0; k < nrt; k++) {
    double rtol = (c->quick ? quick : full)[k];
    for (int damp = 1; damp >= 0; damp--) {
      if (!damp && rtol != 1e-10) continue;
      lth_ivp_opts o;
      lth_ivp_opts_init(&o);
      o.rtol = rtol;
      o.atol = rtol / 100;
      o.stabilize = damp ? -1.0 : 0.0;
      o.error_estimate = 0;
      o.coefficients = LTH_COEF_DIRECT;
      run d = solve(c, &P, &o);
      o.coefficients = LTH_COEF_TABLE;
      run t = solve(c, &P, &o);
      rod_row(c, rtol, damp, LTH_COEF_DIRECT, &d, NULL, 0);
      rod_row(c, rtol, damp, LTH_COEF_TABLE, &t, &d, damp && !c->quick);
    }
  }
  lth_system_free(P.sys);
}

/* ---- the global error estimate: its cost and its accuracy ----
 * Each row runs the same solve (default coefficients, atol = rtol/100)
 * without and with the estimate.  The work: right-hand sides and
 * decompositions (table nodes included) of the solve and of the estimate's
 * reference solve; the time: processor seconds (all threads; the machine may
 * be shared, so wall time is no measure), overhead = cpu_on / cpu_off - 1.
 * est/err: the estimate over the true error (both relative to max(1, |z*|)). */

static const char *const est_cols[] = {"problem", "method",  "rtol",    "max_err",
                                       "est/err", "rhs",     "rhs_est", "dec",
                                       "dec_est", "cpu_off", "cpu_on",  "overhead"};
static const int est_w[] = {7, 7, 6, 9, 7, 7, 7, 6, 7, 8, 8, 8};
#define EST_NCOL (int)(sizeof est_w / sizeof est_w[0])

static void estimate_row(const cfg *c, const problem *P, lth_ivp_method method, double rtol) {
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = method;
  o.rtol = rtol;
  o.atol = rtol / 100;
  o.error_estimate = 0;
  run off = solve(c, P, &o);
  o.error_estimate = 1;
  run on = solve(c, P, &o);
  char b[EST_NCOL][40];
  snprintf(b[0], 40, "%s", P->name);
  snprintf(b[1], 40, "%s", lth_ivp_method_name(method));
  snprintf(b[2], 40, "%.0e", rtol);
  if (off.st != LTH_OK || on.st != LTH_OK) {
    fprintf(stderr, "bench_ivp: estimate %s %s rtol %g: %s\n", P->name, b[1], rtol,
            off.st != LTH_OK ? off.msg : on.msg);
    for (int k = 3; k < EST_NCOL; k++) snprintf(b[k], 40, "-");
  } else {
    snprintf(b[3], 40, "%.2e", on.err);
    snprintf(b[4], 40, "%.2f", on.est / on.err);
    snprintf(b[5], 40, "%zu", on.rhs);
    snprintf(b[6], 40, "%zu", on.est_rhs);
    snprintf(b[7], 40, "%zu", on.decomps);
    snprintf(b[8], 40, "%zu", on.est_decomps);
    snprintf(b[9], 40, "%.4f", off.cpu);
    snprintf(b[10], 40, "%.4f", on.cpu);
    snprintf(b[11], 40, "%+.0f%%", 100 * (on.cpu / off.cpu - 1));
  }
  const char *cells[EST_NCOL];
  for (int k = 0; k < EST_NCOL; k++) cells[k] = b[k];
  bench_emit(c->csv, EST_NCOL, cells, est_w);
  fflush(stdout);
}

static void estimate_table(const cfg *c, problem *const *P, int np) {
  bench_title(c->csv, "ivp: the global error estimate (a second solve at 1e-1 the tolerances)");
  bench_emit(c->csv, EST_NCOL, est_cols, est_w);
  const double rt[] = {1e-6, 1e-10};
  for (int p = 0; p < np; p++) {
    for (int k = 0; k < 2; k++) {
      estimate_row(c, P[p], LTH_IVP_RK8PD, rt[k]);
    }
    const lth_ivp_method other[] = {LTH_IVP_RKF45, LTH_IVP_MSADAMS, LTH_IVP_MSBDF, LTH_IVP_BSIMP};
    for (int k = 0; k < (c->quick ? 0 : 4); k++) {
      estimate_row(c, P[p], other[k], 1e-10);
    }
  }
  problem R = {.name = "rod",
               .sys = rod_system(),
               .exact = rod_exact,
               .constraint = rod_constraint,
               .s = 5,
               .t0 = 0.0,
               .n = 20};
  if (R.sys) {
    double t1 = c->quick ? 100.0 : 1000.0;
    for (size_t k = 0; k < R.n; k++) R.times[k] = t1 * (double)(k + 1) / (double)R.n;
    estimate_row(c, &R, LTH_IVP_RK8PD, 1e-10);
    lth_system_free(R.sys);
  }
}

/* ---- main ---- */

/* A manufactured problem on [t0, t0 + T] with n equally spaced outputs after t0. */
static int manufactured(problem *P, ts_sys **S, const char *name, int r, const int *n,
                        uint64_t seed, double damp, double T, size_t nout) {
  *S = ts_make(r, n, seed, (ts_opts){.amp = 0.2, .damp = damp});
  P->sys = *S ? ts_system(*S) : NULL;
  if (!P->sys) return -1;
  P->name = name;
  P->exact = manufactured_exact;
  P->constraint = NULL;
  P->ctx = *S;
  P->s = (*S)->s;
  P->t0 = 0.0;
  P->n = nout;
  for (size_t k = 0; k < nout; k++) P->times[k] = T * (double)(k + 1) / (double)nout;
  return 0;
}

static int parse_args(int argc, char **argv, cfg *c) {
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
    } else {
      fprintf(stderr, "usage: %s [--quick] [--csv] [--repeat N]\n", argv[0]);
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
  if (parse_args(argc, argv, &c) != 0) return 1;
  double t_start = bench_now(), load_start = -1.0;
  if (getloadavg(&load_start, 1) != 1) load_start = -1.0;
  if (!c.csv) {
    printf("bench_ivp: load average %.2f at start (2 threads build the table when free; other "
           "work on the machine lowers the table's figures)\n",
           load_start);
  }
  /* index 3, blocks (3,3,1), and index 5, blocks (2,2,2,2,1): 20 outputs on
   * [0, 10].  The damping keeps the undamped random reduced ODE from growing
   * (||Psi|| would reach 2e2 (index 3) and 2e8 (index 5) at t = 10, and the
   * error would measure that growth, not the integrator); the problems table
   * prints the growth that remains. */
  const int n3[] = {3, 3, 1}, n5[] = {2, 2, 2, 2, 1};
  problem p3, p5;
  memset(&p3, 0, sizeof p3);
  memset(&p5, 0, sizeof p5);
  ts_sys *S3 = NULL, *S5 = NULL;
  int rc = 0;
  if (manufactured(&p3, &S3, "idx3", 3, n3, 0x1d3, 0.5, 10.0, 20) != 0 ||
      manufactured(&p5, &S5, "idx5", 5, n5, 0x1d5, 2.0, 10.0, 20) != 0) {
    fprintf(stderr, "bench_ivp: cannot build the test systems\n");
    rc = 1;
  } else {
    problem *P[] = {&p3, &p5};
    problems_table(&c, P, 2);
    tolerance_sweep(&c, P, 2);
    rod_table(&c);
    estimate_table(&c, P, 2);
  }
  lth_system_free(p3.sys);
  lth_system_free(p5.sys);
  ts_free(S3);
  ts_free(S5);
  if (!c.csv) {
    printf("\ntargets (table vs direct: idx3/idx5 rk8pd at rtol 1e-8..1e-12 >= 5x fewer "
           "decompositions, >= 3x less time, equal or better error; rod >= 3x less time at "
           "equal error and drift): %s\n",
           c.quick ? "not judged in --quick" : (g_targets_failed ? "NOT all met" : "all met"));
    printf("total %.1f s (best of %d runs per row), load average %.2f at start\n",
           bench_now() - t_start, c.reps, load_start);
  }
  return rc;
}
