/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LQR benchmark (docs/performance.md, "LQR on DAE plants"): the cost of
 * lth_plqr_solve (include/lth/plqr.h) -- the realization as a table, the
 * Riccati solution backwards as a table, the closed loop forwards with its
 * cost -- on [0, T] (default T = 2) with 21 output times, for
 *  (a) random Hessenberg plants of index 2..6 (tests/fixtures/testsys.h,
 *      the benchmarks' stream, the block sizes and seeds of bench_ss, so
 *      the same A(t); f = 0)
 *      with two force inputs B_1(t) in the first block row only (an LQR
 *      problem takes inputs the plant does not differentiate) and two
 *      outputs C(t) reading all of z, multipliers too (so the inputs reach
 *      them at once: a feedthrough D_0 and a cross weight S);
 *  (b) the chain of 50 masses of bench_ss driven by forces on its first and
 *      last mass, two rigid links (tests/fixtures/chainsys.h,
 *      cs_system_forces): index 3, p = 96; time-varying springs (chain50)
 *      and constant ones (chain50-ti).
 * The cost (J exactly as written, no hidden 1/2):
 *   random plants  int_0^T  y'y + 0.1 u'u dt,
 *   chains         10 (y1^2 + y2^2)(T) + int_0^T  y1^2 + y2^2 + 1e-4 y3^2 + 0.01 u'u dt
 * (chain outputs: the end masses' positions and the first link's force), from
 * a fixed z0 (random plants: its state part; chains: consistent, a bent
 * chain at rest).  Per case: r, s, p, nu, ny, T, the processor time of the
 * whole solve and of its realization table alone (lth_ss_alloc and
 * lth_ss_table_build at the solve's tolerance), the realization table's
 * panels and lth_ss_at calls, the Riccati table's panels, the optimal cost
 * J* = V(0, x0) and the closed loop's cost integrated along it.  Times are
 * CPU times of the process (serial runs), best of --repeat runs (default 3).
 *
 *   bench_plqr [--quick] [--csv] [--T T] [--T-ti T] [--repeat N] [--masses N] [--case NAME]
 *   bench_plqr --peer [--T T] [--T-ti T] [--repeat N] [--masses N] [--case NAME]
 *
 * --peer writes one JSON object for bench/bench_plqr_peer.py, which reduces
 * the chains and the index-2 plant to an ODE by hand and solves the same
 * LQR problems with SciPy: per case its parameters (A, B_1, C of the
 * random plants; the chain's) and cost, lth's timing, cost, and at the
 * output times the feedback on the unknowns Kz (u = -Kz z - kz), the closed
 * loop's z and u.
 *
 * Exit status 2 if a solve fails or the closed loop's cost differs from
 * V(0, x0) by more than 1e-8 relative (the solver's own consistency check,
 * docs/control.md); `ctest -R bench_plqr_quick` runs --quick (idx2, idx4,
 * idx6 and a 12-mass chain, T = 1, one run) as a smoke test. */
#define _DEFAULT_SOURCE /* getloadavg */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_blas.h"
#include "benchutil.h"
#include "chainsys.h"
#include "inputsys.h"
#include "testsys.h"
#include "lth/plqr.h"

#define NU         2      /* inputs of the random plants */
#define NY         2      /* outputs of the random plants */
#define NOUT       21     /* output times on [0, T] */
#define CHAIN_SEED 0xc4a1 /* bench_ss's chain */
#define CHAIN_AMP  0.3
#define TOL_CLOSED 1e-8 /* |cost_closed - cost| / |cost| */
#define NMAX       3    /* the most inputs or outputs of a case */

/* The cost's weights (the header): random plants, chains. */
static const double W_Y = 1.0, W_U = 0.1;
static const double CW_Y[CS_F_NY] = {1.0, 1.0, 1e-4}, CW_U = 0.01,
                    CF_Y[CS_F_NY] = {10.0, 10.0, 0.0};

typedef struct cfg {
  int quick, csv, peer, reps, masses;
  double T, T_ti;
  const char *only; /* --case: one case by name, NULL: all */
} cfg;

static int wanted(const cfg *c, const char *name) { return !c->only || strcmp(c->only, name) == 0; }

/* ---- random plants: testsys.h's A, force inputs and outputs of our own ---- */


typedef struct plant {
  const char *name;
  ts_sys *S;
  lth_system *sys;
  is_osc_mat B1, C;
} plant;

/* bench_ss's block sizes n_1..n_r (p = 4, 5, 5, 6, 7) and names, r = 2..6. */
static const int plant_sizes[5][6] = {
    {6, 2}, {5, 4, 2}, {4, 4, 3, 2}, {4, 4, 3, 3, 2}, {4, 4, 3, 3, 3, 2}};
static const char *const plant_names[5] = {"idx2", "idx3", "idx4", "idx5", "idx6"};

/* The plant of index r on [0, T]: testsys.h's A (seed 0x55a0 + r, f = 0),
 * B_1 (n_1 x NU), C (NY x s). */
static int plant_make(plant *P, int r, double T) {
  const int *n = plant_sizes[r - 2];
  uint64_t seed = 0x55a0 + (uint64_t)r;
  P->name = plant_names[r - 2];
  P->S = ts_make(r, n, seed, (ts_opts){.amp = 0.2, .random_f = 1});
  if (!P->S) return -1;
  for (int k = 0; k < P->S->s; k++) P->S->fr[k].c0 = P->S->fr[k].c1 = 0.0;
  P->sys = ts_system(P->S);
  if (!P->sys) return -1;
  ts_rng g = ts_rng_seed(seed * 7919 + 5, TS_SPLITMIX);
  is_osc_draw(&P->B1, n[0], NU, &g);
  is_osc_draw(&P->C, NY, P->S->s, &g);
  int ok = lth_system_set_inputs(P->sys, NU, NULL) == LTH_OK &&
           lth_system_set_B(P->sys, 1, lth_source_callback(n[0], NU, is_osc_cb, &P->B1, NULL), NULL) ==
               LTH_OK &&
           lth_system_set_outputs(P->sys, NY, lth_source_callback(NY, P->S->s, is_osc_cb, &P->C, NULL),
                                  NULL, NULL, NULL) == LTH_OK &&
           lth_system_set_interval(P->sys, 0.0, T, NULL) == LTH_OK;
  return ok ? 0 : -1;
}

static void plant_free(plant *P) {
  lth_system_free(P->sys);
  ts_free(P->S);
}

/* ---- the problems ---- */

/* One LQR problem: the plant, its cost (W diagonal over w = (z, u, y), F at
 * T), z0 and the output times. */
typedef struct problem {
  char name[32];
  lth_system *sys;
  int s, nu, ny, n;
  double T;
  double *Wd, *F, *z0, t[NOUT];
  lth_source *W;
  lth_plqr_cost cost;
} problem;

static void problem_free(problem *pb) {
  lth_source_free(pb->W);
  free(pb->Wd);
  free(pb->F);
  free(pb->z0);
}

/* The cost from diagonal weights on z (none), u (wu) and y (wy[ny]); the
 * final cost's weights on y (fy, NULL: none). */
static int problem_cost(problem *pb, double wu, const double *wy, const double *fy) {
  int s = pb->s, nu = pb->nu, ny = pb->ny, n = s + nu + ny;
  pb->n = n;
  pb->Wd = calloc((size_t)n * n, sizeof(double));
  pb->z0 = calloc((size_t)s, sizeof(double));
  if (!pb->Wd || !pb->z0) return -1;
  for (int k = 0; k < nu; k++) pb->Wd[(s + k) * (size_t)(n + 1)] = wu;
  for (int k = 0; k < ny; k++) pb->Wd[(s + nu + k) * (size_t)(n + 1)] = wy[k];
  pb->W = lth_source_const(n, n, pb->Wd, n, NULL);
  if (!pb->W) return -1;
  pb->cost = (lth_plqr_cost){.W = pb->W};
  if (fy) {
    pb->F = calloc((size_t)n * n, sizeof(double));
    if (!pb->F) return -1;
    for (int k = 0; k < ny; k++) pb->F[(s + nu + k) * (size_t)(n + 1)] = fy[k];
    pb->cost.F = pb->F;
  }
  for (int q = 0; q < NOUT; q++) pb->t[q] = pb->T * q / (NOUT - 1);
  return 0;
}

static int problem_plant(problem *pb, const plant *P, double T) {
  snprintf(pb->name, sizeof pb->name, "%s", P->name);
  pb->sys = P->sys;
  pb->s = P->S->s;
  pb->nu = NU;
  pb->ny = NY;
  pb->T = T;
  double wy[NY] = {W_Y, W_Y};
  if (problem_cost(pb, W_U, wy, NULL) != 0) return -1;
  for (int k = 0; k < pb->s; k++) pb->z0[k] = 0.5 * cos(1.7 * k + 0.3); /* its state part counts */
  return 0;
}

/* The chain bent into a half wave, at rest: x_i = 0.1 cos(pi i / (N - 1)),
 * the linked masses moved together (G_l x = 0; x' = 0 meets G_l x' = 0). */
static void chain_z0(const cs_chain *C, double *z0) {
  int N = C->N;
  double *x = z0 + N;
  for (int i = 0; i < N; i++) x[i] = 0.1 * cos(M_PI * i / (N - 1));
  for (int l = 0; l < CS_F_NC; l++) x[C->link[l] + 1] = x[C->link[l]];
}

static int problem_chain(problem *pb, const cs_chain *C, const char *name, double T) {
  snprintf(pb->name, sizeof pb->name, "%s", name);
  pb->sys = cs_system_forces(C, T);
  if (!pb->sys) return -1;
  pb->s = 2 * C->N + CS_F_NC;
  pb->nu = CS_F_NU;
  pb->ny = CS_F_NY;
  pb->T = T;
  if (problem_cost(pb, CW_U, CW_Y, CF_Y) != 0) return -1;
  chain_z0(C, pb->z0);
  return 0;
}

/* ---- timing ---- */

typedef struct stats {
  double total, table; /* CPU s: lth_plqr_solve; its realization table alone (best of reps) */
  size_t tab_panels, tab_evals, ric_panels;
  int r, p;
} stats;

/* The realization table as lth_plqr_solve builds it (its options). */
static int time_table(const problem *pb, int reps, stats *st) {
  lth_plqr_opts o;
  lth_plqr_opts_init(&o);
  o.ss.t0 = 0.0;
  st->table = INFINITY;
  for (int rep = 0; rep < reps; rep++) {
    lth_error err;
    lth_error_clear(&err);
    double c0 = bench_cpu_now();
    lth_ss *ss = lth_ss_alloc(pb->sys, &o.ss, &err);
    lth_ss_table *tab = ss ? lth_ss_table_build(ss, 0.0, pb->T, o.table_tol, &err) : NULL;
    double c1 = bench_cpu_now();
    if (!tab) {
      fprintf(stderr, "bench_plqr: %s: realization table: %s\n", pb->name, err.message);
      lth_ss_free(ss);
      return -1;
    }
    lth_ss_table_counts(tab, &st->tab_panels, &st->tab_evals);
    st->table = fmin(st->table, c1 - c0);
    lth_ss_table_free(tab);
    lth_ss_free(ss);
  }
  return 0;
}

/* lth_plqr_solve reps times; the last result into *out. */
static int time_solve(const problem *pb, int reps, stats *st, lth_plqr_result **out) {
  st->total = INFINITY;
  *out = NULL;
  for (int rep = 0; rep < reps; rep++) {
    lth_error err;
    lth_error_clear(&err);
    lth_plqr_result *res = NULL;
    double c0 = bench_cpu_now();
    lth_status rc =
        lth_plqr_solve(pb->sys, &pb->cost, 0.0, pb->T, pb->z0, pb->t, NOUT, NULL, &res, &err);
    double c1 = bench_cpu_now();
    if (rc != LTH_OK) {
      fprintf(stderr, "bench_plqr: %s: %s (t = %.17g)\n", pb->name, err.message,
              err.has_t ? err.t : NAN);
      lth_plqr_result_free(*out);
      *out = NULL;
      return -1;
    }
    st->total = fmin(st->total, c1 - c0);
    st->ric_panels = res->riccati_panels;
    st->p = res->p;
    lth_plqr_result_free(*out);
    *out = res;
  }
  st->r = lth_system_index(pb->sys);
  return 0;
}

static double closed_gap(const lth_plqr_result *res) {
  return fabs(res->cost_closed - res->cost) / fmax(fabs(res->cost), 1e-300);
}

static const char *const col_names[] = {"case",    "r",     "s",        "p",        "nu",
                                        "ny",      "T",     "total_ms", "table_ms", "ric+cl_ms",
                                        "tab_pan", "ss_at", "ric_pan",  "cost",     "closed_rel"};
static const int widths[] = {10, 2, 3, 3, 2, 2, 4, 9, 9, 9, 7, 5, 7, 17, 10};
#define NCOL ((int)(sizeof col_names / sizeof col_names[0]))

static void emit_row(const cfg *c, const problem *pb, const stats *st, const lth_plqr_result *res) {
  char cell[NCOL][40];
  const char *row[NCOL];
  snprintf(cell[0], 40, "%s", pb->name);
  snprintf(cell[1], 40, "%d", st->r);
  snprintf(cell[2], 40, "%d", pb->s);
  snprintf(cell[3], 40, "%d", st->p);
  snprintf(cell[4], 40, "%d", pb->nu);
  snprintf(cell[5], 40, "%d", pb->ny);
  snprintf(cell[6], 40, "%g", pb->T);
  snprintf(cell[7], 40, "%.2f", 1e3 * st->total);
  snprintf(cell[8], 40, "%.2f", 1e3 * st->table);
  snprintf(cell[9], 40, "%.2f", 1e3 * (st->total - st->table));
  snprintf(cell[10], 40, "%zu", st->tab_panels);
  snprintf(cell[11], 40, "%zu", st->tab_evals);
  snprintf(cell[12], 40, "%zu", st->ric_panels);
  snprintf(cell[13], 40, "%.12g", res->cost);
  snprintf(cell[14], 40, "%.1e", closed_gap(res));
  for (int k = 0; k < NCOL; k++) row[k] = cell[k];
  bench_emit(c->csv, NCOL, row, widths);
}

/* ---- the peer's data (--peer) ---- */

static void json_vec(const char *key, const double *a, size_t n) {
  printf("\"%s\": [", key);
  for (size_t k = 0; k < n; k++) printf("%s%.17g", k ? ", " : "", a[k]);
  printf("]");
}

/* Per output time, a rows x cols column-major matrix as a list of rows. */
static void json_mats(const char *key, const double *a, size_t n, int rows, int ncols) {
  printf("\"%s\": [", key);
  for (size_t q = 0; q < n; q++) {
    const double *m = a + q * (size_t)rows * ncols;
    printf("%s[", q ? ", " : "");
    for (int i = 0; i < rows; i++) {
      printf("%s[", i ? ", " : "");
      for (int j = 0; j < ncols; j++) printf("%s%.17g", j ? ", " : "", m[i + (size_t)j * rows]);
      printf("]");
    }
    printf("]");
  }
  printf("]");
}

/* The four parameter matrices (c0, c1, w, phi) of an oscillation matrix. */
static void json_osc(const char *key, const ts_entry *e, int rows, int ncols, int ld) {
  static const char *part[] = {"c0", "c1", "w", "phi"};
  printf("\"%s\": {", key);
  for (int q = 0; q < 4; q++) {
    printf("%s\"%s\": [", q ? ", " : "", part[q]);
    for (int i = 0; i < rows; i++) {
      printf("%s[", i ? ", " : "");
      for (int j = 0; j < ncols; j++) {
        const ts_entry *x = &e[i + (size_t)j * ld];
        double v = !x->nz ? 0.0 : q == 0 ? x->c0 : q == 1 ? x->c1 : q == 2 ? x->w : x->phi;
        printf("%s%.17g", j ? ", " : "", v);
      }
      printf("]");
    }
    printf("]");
  }
  printf("}");
}

/* lth's part of a case: dimensions, cost, timing, and at the output times
 * Kz, z, u. */
static void json_lth(const problem *pb, const stats *st, const lth_plqr_result *res) {
  printf(
      "\"name\": \"%s\", \"r\": %d, \"s\": %d, \"p\": %d, \"nu\": %d, \"ny\": %d, \"T\": %.17g, ",
      pb->name, st->r, pb->s, st->p, pb->nu, pb->ny, pb->T);
  int n = pb->n;
  double wu[NMAX], wy[NMAX], fy[NMAX]; /* nu, ny <= NMAX */
  for (int k = 0; k < pb->nu; k++) wu[k] = pb->Wd[(pb->s + k) * (size_t)(n + 1)];
  for (int k = 0; k < pb->ny; k++) {
    wy[k] = pb->Wd[(pb->s + pb->nu + k) * (size_t)(n + 1)];
    fy[k] = pb->F ? pb->F[(pb->s + pb->nu + k) * (size_t)(n + 1)] : 0.0;
  }
  json_vec("w_u", wu, (size_t)pb->nu);
  printf(", ");
  json_vec("w_y", wy, (size_t)pb->ny);
  printf(", ");
  json_vec("f_y", fy, (size_t)pb->ny);
  printf(", ");
  json_vec("times", res->times, res->n);
  printf(", \"lth\": {\"total_s\": %.6e, \"table_s\": %.6e, \"table_panels\": %zu, "
         "\"ss_at\": %zu, \"riccati_panels\": %zu, \"cost\": %.17g, \"cost_closed\": %.17g, ",
         st->total, st->table, st->tab_panels, st->tab_evals, st->ric_panels, res->cost,
         res->cost_closed);
  json_mats("Kz", res->Kz, res->n, pb->nu, pb->s);
  printf(", ");
  json_mats("z", res->z, res->n, pb->s, 1);
  printf(", ");
  json_mats("u", res->u, res->n, pb->nu, 1);
  printf("}");
}

/* Solve and time one case; into the table or (peer) as JSON with `params`. */
typedef void (*params_fn)(const void *ctx);

static int run_case(const cfg *c, problem *pb, params_fn params, const void *ctx, int *first) {
  stats st = {0};
  lth_plqr_result *res = NULL;
  int rc = time_table(pb, c->reps, &st) == 0 && time_solve(pb, c->reps, &st, &res) == 0 ? 0 : -1;
  if (rc == 0 && !(closed_gap(res) <= TOL_CLOSED)) {
    fprintf(stderr, "bench_plqr: %s: the closed loop's cost %.17g, V(0, x0) = %.17g\n", pb->name,
            res->cost_closed, res->cost);
    rc = -1;
  }
  if (rc == 0 && c->peer) {
    printf("%s{", *first ? "" : ", ");
    *first = 0;
    json_lth(pb, &st, res);
    if (params) {
      printf(", \"params\": ");
      params(ctx);
    }
    printf("}");
  } else if (rc == 0) {
    emit_row(c, pb, &st, res);
  }
  lth_plqr_result_free(res);
  return rc;
}

static void plant_params(const void *ctx) {
  const plant *P = ctx;
  const ts_sys *S = P->S;
  printf("{\"n\": [");
  for (int i = 0; i < S->r; i++) printf("%s%d", i ? ", " : "", S->n[i]);
  printf("], ");
  json_osc("A", S->A, S->s, S->s, S->s);
  printf(", ");
  json_osc("B1", P->B1.e, P->B1.rows, NU, P->B1.rows);
  printf(", ");
  json_osc("C", P->C.e, NY, S->s, NY);
  printf("}");
}

static void chain_params(const void *ctx) { cs_print_json(ctx, stdout); }

/* ---- main ---- */

static int parse_args(int argc, char **argv, cfg *c) {
  *c = (cfg){.reps = 3, .masses = 50, .T = 2.0, .T_ti = 2.0};
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0) {
      c->quick = 1;
    } else if (strcmp(argv[k], "--csv") == 0) {
      c->csv = 1;
    } else if (strcmp(argv[k], "--peer") == 0) {
      c->peer = 1;
    } else if (strcmp(argv[k], "--T") == 0 && k + 1 < argc) {
      c->T = atof(argv[++k]);
    } else if (strcmp(argv[k], "--T-ti") == 0 && k + 1 < argc) {
      c->T_ti = atof(argv[++k]);
    } else if (strcmp(argv[k], "--repeat") == 0 && k + 1 < argc) {
      c->reps = atoi(argv[++k]);
    } else if (strcmp(argv[k], "--case") == 0 && k + 1 < argc) {
      c->only = argv[++k];
    } else if (strcmp(argv[k], "--masses") == 0 && k + 1 < argc) {
      c->masses = atoi(argv[++k]);
    } else {
      fprintf(stderr,
              "usage: %s [--quick] [--csv] [--peer] [--T T] [--T-ti T] [--repeat N] "
              "[--masses N] [--case NAME]\n",
              argv[0]);
      return -1;
    }
  }
  if (c->quick) {
    c->reps = 1;
    c->masses = 12;
    c->T = c->T_ti = 1.0;
  }
  c->reps = c->reps < 1 ? 1 : c->reps;
  if (c->masses < 8 || c->masses > CS_MAXN || !(c->T > 0) || !(c->T_ti > 0)) {
    fprintf(stderr, "%s: --masses must be in 8..%d, --T and --T-ti positive\n", argv[0], CS_MAXN);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  app_blas_setup(); /* a front end: BLAS as the tools run it (app_blas.h) */
  cfg c;
  if (parse_args(argc, argv, &c) != 0) return 1;
  double load = -1.0;
  if (getloadavg(&load, 1) != 1) load = -1.0;
  if (c.peer) {
    printf("{\"repeat\": %d, \"cases\": [", c.reps);
  } else if (!c.csv) {
    printf("lth_plqr_solve, %d output times, CPU times, best of %d runs; load average %.2f\n", NOUT,
           c.reps, load);
  }
  int failed = 0, ran = 0, first = 1;
  if (!c.peer) {
    bench_title(c.csv, "random plants: two forces in the first block row, two outputs");
    bench_emit(c.csv, NCOL, col_names, widths);
  }
  for (int r = 2; r <= 6; r++) {
    /* --quick: index 2, 4 and 6 */
    if (!wanted(&c, plant_names[r - 2]) || (c.quick && r % 2)) continue;
    ran++;
    plant P = {0};
    problem pb = {0};
    if (plant_make(&P, r, c.T) != 0 || problem_plant(&pb, &P, c.T) != 0 ||
        run_case(&c, &pb, plant_params, &P, &first) != 0) {
      fprintf(stderr, "bench_plqr: %s failed\n", plant_names[r - 2]);
      failed = 1;
    }
    problem_free(&pb);
    plant_free(&P);
  }
  if (!c.peer) {
    bench_title(c.csv, "mass chain: forces on the end masses, two rigid links");
    bench_emit(c.csv, NCOL, col_names, widths);
  }
  for (int v = 0; v < 2; v++) {
    char name[32];
    snprintf(name, sizeof name, "chain%d%s", c.masses, v ? "-ti" : "");
    if (!wanted(&c, name)) continue;
    ran++;
    cs_chain *C = cs_make(c.masses, v ? 0.0 : CHAIN_AMP, CHAIN_SEED);
    problem pb = {0};
    if (!C || problem_chain(&pb, C, name, v ? c.T_ti : c.T) != 0 ||
        run_case(&c, &pb, chain_params, C, &first) != 0) {
      fprintf(stderr, "bench_plqr: %s failed\n", name);
      failed = 1;
    }
    problem_free(&pb);
    lth_system_free(pb.sys);
    free(C);
  }
  if (c.peer) {
    if (getloadavg(&load, 1) != 1) load = -1.0;
    printf("], \"load\": %.2f}\n", load);
  }
  if (ran == 0) {
    fprintf(stderr, "bench_plqr: no case named %s (idx2..idx6, chain%d, chain%d-ti)\n", c.only,
            c.masses, c.masses);
    return 1;
  }
  return failed ? 2 : 0;
}
