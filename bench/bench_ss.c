/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Realization benchmark (docs/performance.md, "Realizations"): the cost of
 * the minimal state-space realization lth_ss_at (include/lth/ss.h) on a grid
 * of N times on [0, 1] (default 101), for
 *  (a) random Hessenberg plants of index 2..6 (tests/fixtures/testsys.h,
 *      the benchmarks' stream; f = 0) with two inputs entering every block
 *      row -- the dynamic rows and the constraint row, so the derivative
 *      feedthrough reaches order r - 1 -- and two outputs reading all of z;
 *  (b) a chain of 50 masses (tests/fixtures/chainsys.h): time-varying
 *      springs, dampers, the first mass's position prescribed by an input,
 *      two rigid links, a force on the last mass; index 3, p = 94; and the
 *      same chain without the springs' oscillation (chain50-ti).
 * Per case: s, r, p, nu, ny, jmax, the processor time of the first point
 * (lth_ss_alloc and the basis's start) and of each further point, per point
 * the basis ODE's steps and the decompositions (lth_ss_counts), the time of
 * one decomposition as the basis ODE makes them, and the largest basis
 * errors before correction (lth_ss_point.orth_err, range_err).  Times are
 * CPU times of the process (serial runs; on a shared machine the wall clock
 * measures the other processes too), the best of --repeat runs (default 5).
 *
 *   bench_ss [--quick] [--csv] [--points N] [--repeat N] [--masses N] [--case NAME]
 *   bench_ss --peer [--points N] [--repeat N] [--masses N]
 *
 * --peer writes one JSON object for bench/bench_ss_peer.py, which reduces
 * the chain and the index-2 plant by hand (scipy) and compares: their
 * parameters, lth's timing on each, lth's realizations at t = 0, 0.5, 1 (and
 * of the time-invariant chain at t = 0.5), how far the chain's basis Q moved
 * over the grid, and the outputs y(t) on the grid of lth's realizations
 * simulated from rest under known inputs (GSL rk8pd, rtol 1e-11).
 *
 * Exit status 2 if a realization fails, or if the chain's derivative
 * feedthrough of the prescribed motion into its constraint force,
 * D_2(lambda_1, u_2) = (G M^-1 G^T)^-1_11 (exact: lambda = S^-1 (u_2'' e_1 +
 * ...)), is off by more than 1e-12 relative; `ctest -R bench_ss_quick` runs
 * --quick (11 points, one run) as a smoke test. */
#define _DEFAULT_SOURCE /* getloadavg */
#define _POSIX_C_SOURCE 200809L
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_blas.h"
#include "benchutil.h"
#include "chainsys.h"
#include "inputsys.h"
#include "testsys.h"
#include "lth/ss.h"

#define NU         2 /* inputs of the random plants */
#define NY         2 /* outputs of the random plants */
#define CHAIN_SEED 0xc4a1
#define CHAIN_AMP  0.3 /* stiffness oscillation: k_i(t) = k0 (1 + a sin), a in [0.15, 0.3] */

typedef struct cfg {
  int quick, csv, peer, reps, masses;
  size_t points;
  const char *only; /* --case: one case by name (for perf record), NULL: all */
} cfg;

static int wanted(const cfg *c, const char *name) { return !c->only || strcmp(c->only, name) == 0; }

/* ---- random plants: testsys.h's A and f, inputs and outputs of our own ---- */



typedef struct plant {
  const char *name;
  ts_sys *S;
  lth_system *sys;
  is_osc_mat B[TS_MAXR], C;
} plant;

/* The plants' block sizes n_1..n_r (p = 4, 5, 5, 6, 7) and names, r = 2..6. */
static const int plant_sizes[5][6] = {
    {6, 2}, {5, 4, 2}, {4, 4, 3, 2}, {4, 4, 3, 3, 2}, {4, 4, 3, 3, 3, 2}};
static const char *const plant_names[5] = {"idx2", "idx3", "idx4", "idx5", "idx6"};

/* The plant of index r: testsys.h's A (seed 0x55a0 + r), B_i (n_i x NU) in
 * every row, C (NY x s). */
static int plant_make(plant *P, int r) {
  const int *n = plant_sizes[r - 2];
  uint64_t seed = 0x55a0 + (uint64_t)r;
  P->name = plant_names[r - 2];
  P->S = ts_make(r, n, seed, (ts_opts){.amp = 0.2, .random_f = 1});
  if (!P->S) return -1;
  /* f = 0: a plant for design (the forcing's part g, y_f of the realization
   * costs the same with any f, and a hand reduction need not carry it) */
  for (int k = 0; k < P->S->s; k++) P->S->fr[k].c0 = P->S->fr[k].c1 = 0.0;
  P->sys = ts_system(P->S);
  if (!P->sys) return -1;
  ts_rng g = ts_rng_seed(seed * 7919 + 3, TS_SPLITMIX);
  int ok = lth_system_set_inputs(P->sys, NU, NULL) == LTH_OK; /* free inputs: no signal read */
  for (int i = 1; i <= r && ok; i++) {
    is_osc_draw(&P->B[i - 1], n[i - 1], NU, &g);
    ok = lth_system_set_B(P->sys, i, lth_source_callback(n[i - 1], NU, is_osc_cb, &P->B[i - 1], NULL),
                          NULL) == LTH_OK;
  }
  is_osc_draw(&P->C, NY, P->S->s, &g);
  ok = ok &&
       lth_system_set_outputs(P->sys, NY, lth_source_callback(NY, P->S->s, is_osc_cb, &P->C, NULL),
                              NULL, NULL, NULL) == LTH_OK &&
       lth_system_set_interval(P->sys, 0.0, 1.0, NULL) == LTH_OK;
  return ok ? 0 : -1;
}

static void plant_free(plant *P) {
  lth_system_free(P->sys);
  ts_free(P->S);
}

/* The chain on [0, 1], its inputs free (a realization reads no signal). */
static lth_system *chain_system(const cs_chain *C) {
  return C ? cs_system(C, 1.0) : NULL;
}

/* ---- timing a grid ---- */

typedef struct stats {
  double first, per_point; /* CPU s: alloc + first point; each further point (best of reps) */
  double steps, decomps;   /* basis ODE steps, decompositions per point (whole grid) */
  double orth, range;      /* largest ||Q^T Q - I||, ||P Q|| / ||P|| before correction */
  double dec;              /* CPU s of one lth_decomp_at as the basis ODE makes them */
  int p, nu, ny, nd;
} stats;

/* CPU seconds of one decomposition at output order 0 (the basis ODE's right-hand
 * side: Ahat) over the grid, best of reps. */
static double decomp_time(const lth_system *sys, const double *t, size_t n, int reps) {
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *pt = ws ? lth_point_alloc(sys, 0, NULL) : NULL;
  double best = INFINITY;
  for (int rep = 0; rep < reps && pt; rep++) {
    double c0 = bench_cpu_now();
    for (size_t k = 0; k < n; k++) lth_decomp_at(ws, t[k], pt, NULL);
    best = fmin(best, (bench_cpu_now() - c0) / (double)n);
  }
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  return best;
}

/* The realization of sys on t[0..n-1] from a fresh lth_ss, reps times. */
static int time_grid(const lth_system *sys, const double *t, size_t n, int reps, stats *st) {
  st->first = st->per_point = INFINITY;
  st->orth = st->range = 0.0;
  for (int rep = 0; rep < reps; rep++) {
    lth_error err;
    lth_error_clear(&err);
    double c0 = bench_cpu_now();
    lth_ss *ss = lth_ss_alloc(sys, NULL, &err);
    lth_ss_point *pt = ss ? lth_ss_point_alloc(ss, &err) : NULL;
    int ok = pt && lth_ss_at(ss, t[0], pt, &err) == LTH_OK;
    double c1 = bench_cpu_now();
    for (size_t k = 1; k < n && ok; k++) {
      ok = lth_ss_at(ss, t[k], pt, &err) == LTH_OK;
      st->orth = fmax(st->orth, pt->orth_err);
      st->range = fmax(st->range, pt->range_err);
    }
    double c2 = bench_cpu_now();
    if (!ok) {
      fprintf(stderr, "bench_ss: %s (t = %.17g)\n", err.message, err.has_t ? err.t : NAN);
      lth_ss_point_free(pt);
      lth_ss_free(ss);
      return -1;
    }
    long steps, decomps;
    lth_ss_counts(ss, &steps, &decomps);
    st->first = fmin(st->first, c1 - c0);
    st->per_point = fmin(st->per_point, n > 1 ? (c2 - c1) / (double)(n - 1) : 0.0);
    st->steps = (double)steps / (double)n;
    st->decomps = (double)decomps / (double)n;
    st->p = pt->p;
    st->nu = pt->nu;
    st->ny = pt->ny;
    st->nd = pt->nd;
    lth_ss_point_free(pt);
    lth_ss_free(ss);
  }
  st->dec = decomp_time(sys, t, n, reps);
  return 0;
}

static const char *const col_names[] = {"case",   "r",      "s",        "p",        "nu",
                                        "ny",     "jmax",   "first_ms", "us/pt",    "steps/pt",
                                        "dec/pt", "us/dec", "orth_err", "range_err"};
static const int widths[] = {10, 2, 3, 3, 2, 2, 4, 8, 9, 8, 7, 7, 9, 9};
#define NCOL ((int)(sizeof col_names / sizeof col_names[0]))

static void emit_row(const cfg *c, const char *name, const lth_system *sys, const stats *st) {
  char cell[NCOL][32];
  const char *row[NCOL];
  snprintf(cell[0], 32, "%s", name);
  snprintf(cell[1], 32, "%d", lth_system_index(sys));
  snprintf(cell[2], 32, "%d", lth_system_size(sys));
  snprintf(cell[3], 32, "%d", st->p);
  snprintf(cell[4], 32, "%d", st->nu);
  snprintf(cell[5], 32, "%d", st->ny);
  snprintf(cell[6], 32, "%d", st->nd - 1);
  snprintf(cell[7], 32, "%.3f", 1e3 * st->first);
  snprintf(cell[8], 32, "%.1f", 1e6 * st->per_point);
  snprintf(cell[9], 32, "%.1f", st->steps);
  snprintf(cell[10], 32, "%.1f", st->decomps);
  snprintf(cell[11], 32, "%.1f", 1e6 * st->dec);
  snprintf(cell[12], 32, "%.1e", st->orth);
  snprintf(cell[13], 32, "%.1e", st->range);
  for (int k = 0; k < NCOL; k++) row[k] = cell[k];
  bench_emit(c->csv, NCOL, row, widths);
}

/* ---- the chain's exact feedthrough: D_2(lambda_1, u_2) = (G M^-1 G^T)^-1_11 ---- */

static double chain_d2_exact(const cs_chain *C) {
  double G[CS_NC * CS_MAXN], S[CS_NC * CS_NC] = {0};
  cs_G(C, G);
  for (int a = 0; a < CS_NC; a++)
    for (int b = 0; b < CS_NC; b++)
      for (int i = 0; i < C->N; i++)
        S[a + CS_NC * b] += G[a + CS_NC * i] * G[b + CS_NC * i] / C->mass[i];
  /* (S^-1)_11 = det(S_22..33) / det S */
  double minor = S[4] * S[8] - S[5] * S[7];
  double det =
      S[0] * minor - S[3] * (S[1] * S[8] - S[7] * S[2]) + S[6] * (S[1] * S[5] - S[4] * S[2]);
  return minor / det;
}

/* |D_2(lambda_1, u_2) - exact| / |exact| at t (a fresh realization). */
static double chain_d2_error(const cs_chain *C, const lth_system *sys, double t) {
  lth_ss *ss = lth_ss_alloc(sys, NULL, NULL);
  lth_ss_point *pt = ss ? lth_ss_point_alloc(ss, NULL) : NULL;
  double e = INFINITY;
  if (pt && lth_ss_at(ss, t, pt, NULL) == LTH_OK && pt->nd == 3) {
    double exact = chain_d2_exact(C), d2 = pt->D[(size_t)2 * CS_NY * CS_NU + 1 + CS_NY * 1];
    e = fabs(d2 - exact) / fabs(exact);
  }
  lth_ss_point_free(pt);
  lth_ss_free(ss);
  return e;
}

/* ---- the peer's data (--peer) ---- */

/* The simulation's inputs: u_1 = 0.8 sin(2.7 t), u_2 = 0.05 (1 - cos(3.1 t)):
 * u = 0 and u_2' = 0 at t = 0, so rest (z = 0) is consistent for the chain
 * (u_2 prescribes x_1) and for the random plants; derivative j at t into u. */
static const double U1_AMP = 0.8, U1_W = 2.7, U2_AMP = 0.05, U2_W = 3.1;

static void sim_input(double t, int j, double *u) {
  double p1 = pow(U1_W, j), p2 = pow(U2_W, j);
  u[0] = U1_AMP * p1 * sin(U1_W * t + j * M_PI / 2);
  u[1] = (j == 0 ? U2_AMP : 0.0) - U2_AMP * p2 * cos(U2_W * t + j * M_PI / 2);
}

typedef struct sim_ctx {
  lth_ss *ss;
  lth_ss_point *pt;
  lth_error err;
  int failed;
} sim_ctx;

/* x' = A x + B_0 u + g (after the change of state no input derivative enters). */
static int sim_rhs(double t, const double x[], double dx[], void *params) {
  sim_ctx *sc = params;
  if (lth_ss_at(sc->ss, t, sc->pt, &sc->err) != LTH_OK) {
    sc->failed = 1;
    return GSL_EBADFUNC;
  }
  const lth_ss_point *pt = sc->pt;
  double u[NU];
  sim_input(t, 0, u);
  for (int i = 0; i < pt->p; i++) {
    double v = pt->g[i];
    for (int j = 0; j < pt->p; j++) v += pt->A[i + (size_t)j * pt->p] * x[j];
    for (int k = 0; k < pt->nu; k++) v += pt->B[i + (size_t)k * pt->p] * u[k];
    dx[i] = v;
  }
  return GSL_SUCCESS;
}

/* y = C x + sum_j D_j u^(j) + y_f at pt->t. */
static void sim_output(const lth_ss_point *pt, const double *x, double *y) {
  for (int i = 0; i < pt->ny; i++) {
    y[i] = pt->yf[i];
    for (int j = 0; j < pt->p; j++) y[i] += pt->C[i + (size_t)j * pt->ny] * x[j];
  }
  for (int j = 0; j < pt->nd; j++) {
    double u[NU];
    sim_input(pt->t, j, u);
    const double *D = pt->D + (size_t)j * pt->ny * pt->nu;
    for (int i = 0; i < pt->ny; i++)
      for (int k = 0; k < pt->nu; k++) y[i] += D[i + (size_t)k * pt->ny] * u[k];
  }
}

/* x(t0) for the plant at rest (v = 0): v = Q x + sum_k K_k u^(k-1) gives
 * x = -Q^T sum_k K_k u^(k-1)(t0). */
static void sim_start(const lth_ss_point *pt, double *x) {
  for (int i = 0; i < pt->p; i++) {
    double v = 0.0;
    for (int k = 1; k <= pt->nk; k++) {
      double u[NU];
      sim_input(pt->t, k - 1, u);
      const double *K = pt->K + (size_t)(k - 1) * pt->m * pt->nu;
      for (int r = 0; r < pt->m; r++) {
        double kv = 0.0;
        for (int l = 0; l < pt->nu; l++) kv += K[r + (size_t)l * pt->m] * u[l];
        v -= pt->Q[r + (size_t)i * pt->m] * kv;
      }
    }
    x[i] = v;
  }
}

/* y on t[0..n-1] (ny per time) of the realization from rest at t[0]. */
static int simulate(const lth_system *sys, const double *t, size_t n, double *y) {
  sim_ctx sc = {0};
  lth_error_clear(&sc.err);
  sc.ss = lth_ss_alloc(sys, NULL, &sc.err);
  sc.pt = sc.ss ? lth_ss_point_alloc(sc.ss, &sc.err) : NULL;
  int p = sc.pt ? sc.pt->p : 0, rc = -1;
  double *x = calloc((size_t)p + 1, sizeof(double));
  gsl_odeiv2_system gs = {sim_rhs, NULL, (size_t)p, &sc};
  gsl_odeiv2_driver *drv =
      x ? gsl_odeiv2_driver_alloc_y_new(&gs, gsl_odeiv2_step_rk8pd, 1e-3, 1e-13, 1e-11) : NULL;
  if (drv && lth_ss_at(sc.ss, t[0], sc.pt, &sc.err) == LTH_OK) {
    sim_start(sc.pt, x);
    sim_output(sc.pt, x, y);
    double tt = t[0];
    rc = 0;
    for (size_t k = 1; k < n && rc == 0; k++) {
      rc = gsl_odeiv2_driver_apply(drv, &tt, t[k], x) == GSL_SUCCESS && !sc.failed &&
                   lth_ss_at(sc.ss, t[k], sc.pt, &sc.err) == LTH_OK
               ? 0
               : -1;
      if (rc == 0) sim_output(sc.pt, x, y + k * (size_t)sc.pt->ny);
    }
  }
  if (rc != 0) fprintf(stderr, "bench_ss: simulation failed: %s\n", sc.err.message);
  if (drv) gsl_odeiv2_driver_free(drv);
  free(x);
  lth_ss_point_free(sc.pt);
  lth_ss_free(sc.ss);
  return rc;
}

static void json_mat(const char *key, const double *a, int rows, int ncols) {
  printf("\"%s\": [", key);
  for (int i = 0; i < rows; i++) {
    printf("%s[", i ? ", " : "");
    for (int j = 0; j < ncols; j++) printf("%s%.17g", j ? ", " : "", a[i + (size_t)j * rows]);
    printf("]");
  }
  printf("]");
}

/* One realization point as a JSON object: t, A, B (map 0), C, D (list over j). */
static void json_point(const lth_ss_point *pt) {
  printf("{\"t\": %.17g, ", pt->t);
  json_mat("A", pt->A, pt->p, pt->p);
  printf(", ");
  json_mat("B", pt->B, pt->p, pt->nu);
  printf(", ");
  json_mat("C", pt->C, pt->ny, pt->p);
  printf(", \"D\": [");
  for (int j = 0; j < pt->nd; j++) {
    printf("%s{", j ? ", " : "");
    json_mat("m", pt->D + (size_t)j * pt->ny * pt->nu, pt->ny, pt->nu);
    printf("}");
  }
  printf("]}");
}

/* lth's realizations of sys on the grid: those at the times in `at` printed
 * as JSON points (`at` must be grid times), the largest ||Q(t) - Q(t_0)||_F
 * into *qmove. */
static int grid_points(const lth_system *sys, const double *t, size_t n, const double *at, int nat,
                       double *qmove) {
  lth_error err;
  lth_error_clear(&err);
  lth_ss *ss = lth_ss_alloc(sys, NULL, &err);
  lth_ss_point *pt = ss ? lth_ss_point_alloc(ss, &err) : NULL;
  double *q0 = pt ? malloc((size_t)pt->m * pt->p * sizeof(double) + 1) : NULL;
  int ok = q0 != NULL, printed = 0;
  *qmove = 0.0;
  for (size_t k = 0; k < n && ok; k++) {
    ok = lth_ss_at(ss, t[k], pt, &err) == LTH_OK;
    size_t mp = ok ? (size_t)pt->m * pt->p : 0;
    if (k == 0) memcpy(q0, pt->Q, mp * sizeof(double));
    double d = 0.0;
    for (size_t i = 0; i < mp; i++) d += (pt->Q[i] - q0[i]) * (pt->Q[i] - q0[i]);
    *qmove = fmax(*qmove, sqrt(d));
    for (int a = 0; a < nat && ok; a++) {
      if (at[a] == t[k]) {
        printf("%s", printed++ ? ", " : "");
        json_point(pt);
      }
    }
  }
  if (!ok) fprintf(stderr, "bench_ss: %s\n", err.message);
  free(q0);
  lth_ss_point_free(pt);
  lth_ss_free(ss);
  return ok ? 0 : -1;
}

static void json_times(const char *key, const double *t, size_t n) {
  printf("\"%s\": [", key);
  for (size_t k = 0; k < n; k++) printf("%s%.17g", k ? ", " : "", t[k]);
  printf("]");
}

/* lth's figures and simulated outputs (ny per time) of one plant. */
static void json_lth(const lth_system *sys, const stats *st, const double *y, size_t n) {
  printf("\"lth\": {\"s\": %d, \"r\": %d, \"p\": %d, \"nu\": %d, \"ny\": %d, "
         "\"first_s\": %.6e, \"per_point_s\": %.6e, \"steps_per_point\": %.3f, "
         "\"decomps_per_point\": %.3f}, \"y\": [",
         lth_system_size(sys), lth_system_index(sys), st->p, st->nu, st->ny, st->first,
         st->per_point, st->steps, st->decomps);
  for (size_t k = 0; k < n; k++) {
    printf("%s[", k ? ", " : "");
    for (int i = 0; i < st->ny; i++) printf("%s%.17g", i ? ", " : "", y[k * st->ny + i]);
    printf("]");
  }
  printf("]");
}

/* The chain's object: parameters, lth's figures, outputs, points. */
static int peer_chain(const cfg *c, const double *t, size_t n) {
  cs_chain *C = cs_make(c->masses, CHAIN_AMP, CHAIN_SEED),
           *C0 = cs_make(c->masses, 0.0, CHAIN_SEED);
  lth_system *sys = chain_system(C), *sys0 = chain_system(C0);
  double *y = malloc(n * CS_NY * sizeof(double)), qmove = 0.0, qmove0 = 0.0;
  stats st;
  int rc = -1;
  if (sys && sys0 && y && time_grid(sys, t, n, c->reps, &st) == 0 && simulate(sys, t, n, y) == 0) {
    double at[3] = {t[0], t[(n - 1) / 2], t[n - 1]}, at0 = t[(n - 1) / 2];
    printf("\"chain\": {\"params\": ");
    cs_print_json(C, stdout);
    printf(", ");
    json_lth(sys, &st, y, n);
    printf(", \"points_tv\": [");
    rc = grid_points(sys, t, n, at, 3, &qmove);
    printf("], \"points_ti\": [");
    rc = rc ? rc : grid_points(sys0, t, n, &at0, 1, &qmove0);
    printf("], \"q_move\": %.3e, \"q_move_ti\": %.3e}", qmove, qmove0);
  }
  free(y);
  lth_system_free(sys);
  lth_system_free(sys0);
  free(C);
  free(C0);
  return rc;
}

/* The four parameter matrices (c0, c1, w, phi) of rows x cols oscillations;
 * entry (i, j) is at(ctx, i, j), NULL for a zero entry. */
static void json_osc(const char *key, int rows, int ncols,
                     const ts_entry *(*at)(const void *, int, int), const void *ctx) {
  static const char *part[] = {"c0", "c1", "w", "phi"};
  printf("\"%s\": {", key);
  for (int q = 0; q < 4; q++) {
    printf("%s\"%s\": [", q ? ", " : "", part[q]);
    for (int i = 0; i < rows; i++) {
      printf("%s[", i ? ", " : "");
      for (int j = 0; j < ncols; j++) {
        const ts_entry *e = at(ctx, i, j);
        double v = !e ? 0.0 : q == 0 ? e->c0 : q == 1 ? e->c1 : q == 2 ? e->w : e->phi;
        printf("%s%.17g", j ? ", " : "", v);
      }
      printf("]");
    }
    printf("]");
  }
  printf("}");
}

static const ts_entry *plant_A_at(const void *ctx, int i, int j) {
  const plant *P = ctx;
  const ts_entry *e = &P->S->A[i + j * P->S->s];
  return e->nz ? e : NULL;
}

/* B (s x NU): the rows of block i are B_i's. */
static const ts_entry *plant_B_at(const void *ctx, int i, int j) {
  const plant *P = ctx;
  int b = 0;
  while (i >= P->S->off[b + 1]) b++;
  return &P->B[b].e[(i - P->S->off[b]) + j * P->B[b].rows];
}

static const ts_entry *plant_C_at(const void *ctx, int i, int j) {
  const plant *P = ctx;
  return &P->C.e[i + j * P->C.rows];
}

/* The index-2 plant's object: block sizes, the oscillations of A, B, C (f =
 * 0), lth's figures, outputs and the realization at t = 0, 0.5, 1. */
static int peer_plant(const cfg *c, const double *t, size_t n) {
  const int *n2 = plant_sizes[0];
  plant P = {0};
  double *y = malloc(n * NY * sizeof(double)), qmove;
  stats st;
  int rc = -1;
  if (y && plant_make(&P, 2) == 0 && time_grid(P.sys, t, n, c->reps, &st) == 0 &&
      simulate(P.sys, t, n, y) == 0) {
    double at[3] = {t[0], t[(n - 1) / 2], t[n - 1]};
    int s = P.S->s;
    printf("\"idx2\": {\"n\": [%d, %d], ", n2[0], n2[1]);
    json_osc("A", s, s, plant_A_at, &P);
    printf(", ");
    json_osc("B", s, NU, plant_B_at, &P);
    printf(", ");
    json_osc("C", NY, s, plant_C_at, &P);
    printf(", ");
    json_lth(P.sys, &st, y, n);
    printf(", \"points\": [");
    rc = grid_points(P.sys, t, n, at, 3, &qmove);
    printf("]}");
  }
  free(y);
  plant_free(&P);
  return rc;
}

/* One JSON object for bench_ss_peer.py (see the top of this file). */
static int peer_json(const cfg *c, const double *t, size_t n) {
  printf("{\"points\": %zu, \"repeat\": %d, ", n, c->reps);
  json_times("times", t, n);
  printf(", \"inputs\": {\"u1\": [%.17g, %.17g], \"u2\": [%.17g, %.17g]}, ", U1_AMP, U1_W, U2_AMP,
         U2_W);
  int rc = peer_chain(c, t, n);
  printf(", ");
  rc = rc ? rc : peer_plant(c, t, n);
  double load = -1.0;
  if (getloadavg(&load, 1) != 1) load = -1.0;
  printf(", \"load\": %.2f}\n", load);
  return rc;
}

/* ---- main ---- */

static int parse_args(int argc, char **argv, cfg *c) {
  *c = (cfg){.reps = 5, .masses = 50, .points = 101};
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0) {
      c->quick = 1;
    } else if (strcmp(argv[k], "--csv") == 0) {
      c->csv = 1;
    } else if (strcmp(argv[k], "--peer") == 0) {
      c->peer = 1;
    } else if (strcmp(argv[k], "--points") == 0 && k + 1 < argc) {
      c->points = (size_t)strtoul(argv[++k], NULL, 10);
    } else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc) {
      c->reps = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--case") == 0 && k + 1 < argc) {
      c->only = argv[++k];
    } else if (strcmp(argv[k], "--masses") == 0 && k + 1 < argc) {
      c->masses = atoi(argv[++k]);
    } else {
      fprintf(stderr,
              "usage: %s [--quick] [--csv] [--peer] [--points N] [--repeat N] "
              "[--masses N] [--case NAME]\n",
              argv[0]);
      return -1;
    }
  }
  if (c->quick) {
    c->points = 11;
    c->reps = 1;
  }
  c->points = c->points < 2 ? 2 : c->points;
  c->reps = c->reps < 1 ? 1 : c->reps;
  if (c->masses < 8 || c->masses > CS_MAXN) {
    fprintf(stderr, "%s: --masses must be in 8..%d\n", argv[0], CS_MAXN);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  app_blas_setup(); /* a front end: BLAS as the tools run it (app_blas.h) */
  gsl_set_error_handler_off();
  cfg c;
  if (parse_args(argc, argv, &c) != 0) return 1;
  size_t n = c.points;
  double *t = malloc(n * sizeof *t);
  if (!t) return 2;
  for (size_t k = 0; k < n; k++) t[k] = (double)k / (double)(n - 1);
  if (c.peer) {
    int rc = peer_json(&c, t, n);
    free(t);
    return rc ? 2 : 0;
  }
  double load = -1.0;
  if (getloadavg(&load, 1) != 1) load = -1.0;
  if (!c.csv)
    printf("lth_ss_at on %zu points on [0, 1], CPU times, best of %d runs; load average %.2f\n", n,
           c.reps, load);
  int failed = 0, ran = 0;
  bench_title(c.csv, "random plants: inputs in every block row, two outputs");
  bench_emit(c.csv, NCOL, col_names, widths);
  for (int r = 2; r <= 6; r++) {
    plant P = {0};
    stats st;
    if (!wanted(&c, plant_names[r - 2])) continue;
    ran++;
    if (plant_make(&P, r) != 0 || time_grid(P.sys, t, n, c.reps, &st) != 0) {
      fprintf(stderr, "bench_ss: %s failed\n", plant_names[r - 2]);
      failed = 1;
    } else {
      emit_row(&c, P.name, P.sys, &st);
    }
    plant_free(&P);
  }
  bench_title(c.csv, "mass chain: time-varying springs, prescribed first mass, two rigid links");
  bench_emit(c.csv, NCOL, col_names, widths);
  for (int v = 0; v < 2; v++) {
    char name[32];
    snprintf(name, sizeof name, "chain%d%s", c.masses, v ? "-ti" : "");
    if (!wanted(&c, name)) continue;
    ran++;
    cs_chain *C = cs_make(c.masses, v ? 0.0 : CHAIN_AMP, CHAIN_SEED);
    lth_system *sys = chain_system(C);
    stats st;
    double d2 = sys ? chain_d2_error(C, sys, 0.37) : INFINITY;
    if (!sys || time_grid(sys, t, n, c.reps, &st) != 0 || !(d2 <= 1e-12)) {
      fprintf(stderr, "bench_ss: %s failed (D_2 of the prescribed motion off by %.3e)\n", name, d2);
      failed = 1;
    } else {
      emit_row(&c, name, sys, &st);
    }
    lth_system_free(sys);
    free(C);
  }
  free(t);
  if (ran == 0) {
    fprintf(stderr, "bench_ss: no case named %s (idx2..idx6, chain%d, chain%d-ti)\n", c.only,
            c.masses, c.masses);
    return 1;
  }
  return failed ? 2 : 0;
}
