/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-lqr: totally singular LQR problems (`problem lqr` files) by Clark's
 * section 4.2 (docs/format.md section 2; docs/user-guide.md section 8;
 * docs/lqr-example.md), and LQR with a control cost on a DAE plant (a
 * `problem equations` file with inputs, outputs and cost statements,
 * docs/control.md section 10: apps/lqr/plant.c).
 *
 * lth_lqr_solve answers three questions: does a smooth optimum exist
 * (Theorem 5), is it unique, and what is it (Theorem 6's closed loop and the
 * cost).  When it does not exist the optimum has impulses at the ends; the
 * library then returns the singular arc between them and the infimum of the
 * cost.  This file must never let that arc pass for a smooth optimum: the
 * JSON says "exists": false with a note, the text says it in words, and
 * stderr says it too.  The driver (app_driver.h) does options, loading,
 * times, output.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_check.h"
#include "app_driver.h"
#include "app_ivp.h"
#include "app_path.h"
#include "app_table.h"
#include "lth/defaults.h"
#include "lth/decomp.h"
#include "lth/sampling_error.h"
#include "lth/samples.h"
#include "lth/lqr.h"
#include "lth/problem.h"
#include "plant.h"

static const char help_text[] =
    "Usage: lth-lqr FILE [OPTIONS]\n"
    "LQR on a DAE plant.  FILE is a `problem equations` file with `inputs`,\n"
    "`outputs` and cost statements (docs/equations.md sections 11-12):\n"
    "    minimise J = (cost final at t1) + int_t0^t1 (cost integral) dt\n"
    "exactly as written (cost integral y1^2 + 0.01*u1^2, cost final 10*y1^2),\n"
    "over the inputs u, subject to E z' = A(t) z + B(t) u + f(t),\n"
    "y = C(t) z + D(t) u, from the file's z0 on its interval.  Only z0's\n"
    "state part counts: the state x0 = Q'(I - P) z0 of the minimal\n"
    "realization (lth-ss); the other\n"
    "unknowns follow from the constraints and u(t0).  lth-lqr integrates the\n"
    "Riccati equation on the realization backwards from t1 and writes the\n"
    "optimal cost, the feedback u = -K(t) z + k(t) on the unknowns (in the\n"
    "order of `variables`; index-1 unknowns get zero columns), and the closed\n"
    "loop z, u, y at the report times, with the closed loop's cost integrated\n"
    "along it (cost_closed; a disagreement above 1e-6 is refused).  The\n"
    "inputs' signals in the file, if any, are not used.\n"
    "Where the cost leaves inputs unweighted (R singular, of constant rank;\n"
    "R = 0 too), Clark's reduction to a totally singular problem is solved\n"
    "open loop by collocation (docs/control.md section 13): no K and k, the\n"
    "optimum z, u, y, `singular` (the free inputs) and the impulses at t0\n"
    "(onto the singular arc) and t1 (`impulse`, `impulse_t1`); cost_closed is\n"
    "then J by quadrature along the optimum.  Refused, naming t: R indefinite\n"
    "or changing rank, a Riccati solution that escapes (a conjugate point:\n"
    "the cost is unbounded below), an input the plant differentiates (a\n"
    "prescribed motion), a final cost on u; for a singular problem a cost not\n"
    "convex in the state, a singular Pi (an arc of higher order), a final\n"
    "cost falling without bound along a free input.\n"
    "\n"
    "Or the totally singular LQR problem of a `problem lqr` FILE:\n"
    "    minimise 1/2 x(t1)' C x(t1) + 1/2 int_t0^t1 x' H x dt\n"
    "    subject to x' = A(t) x + B(t) u, x(t0) = x0   (no control cost, R = 0)\n"
    "by Clark's section 4.2: the optimality conditions\n"
    "    x' = A x + B u,  lambda' = -H x - A' lambda,  0 = B' lambda,\n"
    "    lambda(t1) = C x(t1)\n"
    "form an index-3 Hessenberg DAE (Pi = -B'HB must be invertible).  With its\n"
    "fundamental solution the two-point conditions become W c = (x0, 0):\n"
    "  exists   a smooth optimum exists iff (x0, 0) is in range(W) (Theorem 5),\n"
    "           i.e. x0 is consistent, and B(t1)'C x(t1) = 0 at the end;\n"
    "  unique   W is injective on the state space (Theorem 5, Corollary 5);\n"
    "  cost     J = 1/2 x0' lambda(t0).\n"
    "Otherwise (exists = false) the optimal control has an impulse at t0 that\n"
    "moves x0 along range(B(t0)) onto the smooth optimal manifold, to the state\n"
    "x0_consistent (the cheapest one if several; the impulse itself costs\n"
    "nothing since R = 0), and/or one at t1 that lowers the terminal cost for\n"
    "free.  lth-lqr then shows the singular arc between the jumps, and the cost\n"
    "is the infimum (not attained by any smooth control); it says so on stderr\n"
    "and in the output.\n"
    "\n"
    "Options:\n"
    "  --method M          collocation (default): the optimality BVP by Gauss\n"
    "                      collocation to the tolerance --rtol, stable on long\n"
    "                      horizons; when there is no smooth unique optimum the\n"
    "                      shooting path's analysis is returned.  shooting:\n"
    "                      Psi(t, t0) by the integrator and Theorem 5 on W (it\n"
    "                      refuses, exit 3, to judge uniqueness when Psi's columns\n"
    "                      spread by more than 1e8, e.g. e^(+-t) over t1 - t0 > 9)\n"
    "                      (`problem lqr` files only)\n"
    "  --gain              also print the closed-loop gain K(t) (nu x 2 nx) of\n"
    "                      Theorem 6: u = K [x; lambda] on the optimal manifold\n"
    "                      (K = the u rows of G = [Nhat + Bhat](I - P)); for a\n"
    "                      plant with a cost, K (nu x unknowns) and k of\n"
    "                      u = -K z + k in text and CSV (JSON always has them)\n"
    "  --path P            auto (default), dense or operator (`problem lqr` files).\n"
    "                      The operator path (large sparse plants: A, B, H and C as\n"
    "                      mm() blocks) solves the optimality BVP by collocation\n"
    "                      as one sparse system per mesh (KLU), the 2 nu boundary\n"
    "                      rows beyond p with slack along the impulse directions\n"
    "                      B(t0), B(t1): nothing nx x nx is formed.  It answers\n"
    "                      only a smooth unique optimum; no smooth optimum (an\n"
    "                      impulse at t0 above 100 --rtol relative to |x0|),\n"
    "                      B(t1)'C != 0 (a terminal impulse)\n"
    "                      or no unique optimum is refused (exit 3) naming what\n"
    "                      it found, for --path dense to analyse.  It does not\n"
    "                      compute --gain, cond_W or theorem4.  It shows H, C >= 0\n"
    "                      by diagonal dominance, else (H(t) varying, nx <= 2000)\n"
    "                      by eigenvalues, else by a sparse Cholesky factorization\n"
    "                      of H + delta I (CHOLMOD; delta = 4 nx eps ||H||_1): a\n"
    "                      pivot <= 0 is refused (exit 2) with the Rayleigh\n"
    "                      quotient x'Hx / x'x < 0 of a witness.  Auto takes it\n"
    "                      from s = 2 nx + nu = 500 on when A stores at most 50%\n"
    "                      of s^2 entries; sampled\n"
    "                      data, --method shooting and --gain keep auto on the\n"
    "                      dense path and refuse --path operator\n"
    "  --rtol R            tolerance of the collocation, or the relative integration\n"
    "                      tolerance of the fundamental solution (default 1e-10;\n"
    "                      existence is judged at 100 R); for a plant with a cost,\n"
    "                      of the Riccati and closed-loop integrations (default\n"
    "                      1e-11)\n"
    "(--cond-max below bounds the chain condition of Pi = -B'HB.)\n";

static const char help_tail[] =
    "Example (a plant with a cost: the crane of docs/control.md section 10):\n"
    "  lth-lqr crane_lqr.lth --times 0,2 --format csv --gain\n"
    "JSON keys for a plant with a cost: times, variables, inputs, outputs, z, u,\n"
    "y (one row per time; z in the order of `variables`), K (per time: nu x\n"
    "unknowns), k (per time: nu), cost (the optimum, the value function at\n"
    "t0), cost_closed (the closed loop's J); extensions: feedback, s, p,\n"
    "riccati_panels, singular (and for a singular problem impulse, impulse_t1,\n"
    "without K and k).  CSV: t, the unknowns, inputs and outputs by name (with\n"
    "--gain also \"K[u,x]\" and \"k[u]\").\n"
    "\n"
    "Example (data/lqr_double_integrator.lth: x0 on the singular arc):\n"
    "  lth-lqr data/lqr_double_integrator.lth --times 0,2 --format json\n"
    "  {\"times\": [0, 2], \"x\": [[3.76..., -3.62...], [1, 0]],\n"
    "   \"lambda\": [[3.62..., 0], [0, 0]], \"u\": [[3.76...], [1]],\n"
    "   \"cost\": 6.82248..., \"exists\": true, \"unique\": true, ...}\n"
    "data/lqr_timevarying.lth gives \"exists\": false, impulses at both ends and\n"
    "the infimum 0.3256983783...; see docs/lqr-example.md.\n"
    "\n"
    "JSON keys: times, x, lambda, u (one row per time), cost (null when there\n"
    "is no trajectory), exists, unique; extensions: have_trajectory, note (what\n"
    "the trajectories and the cost are), x0, x0_consistent, jump, jump_in_range_B,\n"
    "terminal_impulse, terminal_jump, residual (relative distance of (x0, 0) from\n"
    "range(W)), cond_W, theorem4 (max deviation from P_1' = P_2; absent on the\n"
    "operator path, as cond_W), drift, nx, nu, p, path (dense or operator; the\n"
    "operator path adds error_estimate, intervals, pi_proven, pi_proofs,\n"
    "pi_inv_bound as lth-bvp), gain (with --gain: one nu x 2nx matrix per time), and for sampled A, B\n"
    "or H sampling_error, sampling_error_cost (the estimated effect of the\n"
    "samples' fits on x, lambda, u and on the cost).\n"
    "CSV: t, \"x[i]\", \"lambda[i]\", \"u[i]\" (with --gain also \"K[i,j]\"), one\n"
    "row per time; no rows when there is no trajectory.\n"
    "\n"
    "Exit status: 0 success (also when no smooth optimum exists: that is an\n"
    "answer), 1 usage error (bad option, time outside the interval), 2 input\n"
    "error (unreadable or malformed file, or not a `problem lqr` file),\n"
    "3 numerical failure (B'HB singular or ill-conditioned at some t, named;\n"
    "--method shooting unable to judge uniqueness on a long horizon; a result\n"
    "that is not finite).\n";

/* The options of lth-lqr and its answer. */
struct app_ctx {
  int plant; /* a `problem equations` file with a cost: apps/lqr/plant.c */
  lqr_plant pl;
  int gain, method;
  double rtol;
  int path_opt;  /* --path: APP_PATH_AUTO, _DENSE, _OPERATOR */
  app_path path; /* the path taken */
  const lth_lqr_spec *spec;
  lth_lqr_result *res;
  double sampling_error, sampling_error_cost; /* NaN: exact data */
  int initial_impulse;                        /* x0 was moved: the jump is not zero */
  char note[4096]; /* what the output is, when it is not a smooth optimum */
};

/* ------------------------------------------------------------------------ */
/* Solving and reading the answer                                           */

/* Whether --method / --rtol were given (after the options table). */
static int method_given(void);
static int rtol_given(void);

static int path_given(void);

/* What this run asks that only the dense path does (NULL: nothing). */
static const char *dense_only(const app_ctx *T) {
  if (T->method == 1) return "--method shooting (the operator path collocates)";
  if (T->gain) return "--gain (the operator path does not form the closed-loop gain)";
  if (!lth_lqr_op_available()) {
    return "this build without SuiteSparse KLU (the operator path's sparse solver)";
  }
  return NULL;
}

/* The path (as lth-bvp's); a plant with a cost has only the dense one. */
static int choose_path(app_ctx *T, app_run *run) {
  return app_path_choose(&T->path, run, T->path_opt, dense_only(T), 0);
}

static int prepare(app_ctx *T, app_run *run) {
  T->spec = lth_problem_lqr(run->pb);
  if (!T->spec && lth_problem_cost(run->pb)) {
    T->plant = 1;
    if (path_given() && T->path_opt == APP_PATH_OPERATOR) {
      return app_usage_error("--path operator is for `problem lqr` files; a plant with a cost "
                             "is solved by its Riccati equation on the dense path");
    }
    if (method_given()) {
      return app_usage_error("--method is for `problem lqr` files; a plant with a cost is "
                             "solved by its Riccati equation");
    }
    return lqr_plant_prepare(run);
  }
  if (T->spec) {
    return choose_path(T, run);
  }
  if (!T->spec) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: not a `problem lqr` file (it is a DAE problem) and no cost statements: "
                     "lth-lqr needs `problem lqr` with `sizes`, A, B, H, C and x0, or a `problem "
                     "equations` plant with inputs and `cost integral` / `cost final` "
                     "(docs/control.md section 10); use lth-solve or lth-bvp for DAE files",
                     run->path);
  }
  return 0;
}

/* "[a, b]" with short round-trip numbers, for notes; a vector that does not
 * fit in size ends "..., (N more)]" instead of being cut off mid-list. */
static void fmt_vec(char *buf, size_t size, const double *x, int n) {
  size_t used = 0, room = 40; /* kept for the closing "..., (N more)]" */
  buf[0] = '\0';
  int i = 0;
  for (; i < n; i++) {
    char b[32], item[48];
    int k = snprintf(item, sizeof item, "%s%s", i ? ", " : "[",
                     app_fmt_g(b, sizeof b, x[i] == 0.0 ? 0.0 : x[i], 10));
    if (k < 0 || used + (size_t)k + room >= size) break;
    memcpy(buf + used, item, (size_t)k + 1);
    used += (size_t)k;
  }
  if (i < n) {
    snprintf(buf + used, size - used, "%s... (%d more)]", i ? ", " : "[", n - i);
  } else {
    snprintf(buf + used, size - used, "%s]", n ? "" : "[");
  }
}

/* The note says what the trajectories and the cost are when exists = 0. */
static void compose_note(app_ctx *T) {
  const lth_lqr_result *res = T->res;
  int nx = res->nx;
  char a[256], b[256], c[256];
  T->note[0] = '\0';
  if (res->exists) {
    return;
  }
  fmt_vec(a, sizeof a, T->spec->x0, nx);
  fmt_vec(b, sizeof b, res->x0_consistent, nx);
  fmt_vec(c, sizeof c, res->jump, nx);
  if (!res->have_trajectory) {
    snprintf(T->note, sizeof T->note,
             "no smooth optimum, and no optimal trajectory: x0 = %s is not consistent, and "
             "the nearest state on the smooth optimal manifold, x0_consistent = %s, is not "
             "reachable by an impulse along range(B(t0)) (jump %s); x, lambda, u are empty "
             "and the cost is null",
             a, b, c);
    return;
  }
  char end[1024] = "";
  if (res->terminal_impulse) {
    fmt_vec(c, sizeof c, res->terminal_jump, nx);
    snprintf(end, sizeof end,
             "%s at t1 that moves x(t1) by %s along range(B(t1)), lowering the terminal cost "
             "for free",
             T->initial_impulse ? ", and one" : "an impulse", c);
  }
  char start[1024] = "";
  if (T->initial_impulse) {
    fmt_vec(c, sizeof c, res->jump, nx);
    snprintf(start, sizeof start,
             "an impulse at t0 that moves x0 = %s to x0_consistent = %s "
             "(jump %s)",
             a, b, c);
  }
  snprintf(T->note, sizeof T->note,
           "no smooth optimum: the optimal control has %s%s; the trajectories shown are the "
           "singular arc %s and the cost is the infimum (not attained by a smooth control)",
           start, end, T->initial_impulse ? "after the jump" : "before the terminal jump");
}

/* Largest |a - b| over n entries. */
static double maxdiff(const double *a, const double *b, size_t n) {
  double d = 0.0;
  for (size_t k = 0; k < n; k++) d = fmax(d, fabs(a[k] - b[k]));
  return d;
}

/* The sampling contribution (docs/sampled-data.md): solve again with each
 * sampled block of A, B, H replaced by its alternative fits
 * (lth_source_sampling_variant) and add the differences of x, lambda, u and
 * of the cost. */
static lth_status sampling_error(app_ctx *T, const app_run *run, const lth_lqr_opts *o,
                                 lth_error *err) {
  const lth_lqr_spec *sp = T->spec;
  const lth_source *const blocks[3] = {sp->A, sp->B, sp->H};
  lth_status st = LTH_OK;
  for (int b = 0; b < 3 && st == LTH_OK; b++) {
    if (!blocks[b] || !lth_source_is_samples(blocks[b])) continue;
    lth_source *v = lth_source_sampling_variant(blocks[b], err);
    if (!v) return err ? err->status : LTH_ENOMEM;
    lth_lqr_spec vs = *sp;
    *(b == 0 ? &vs.A : b == 1 ? &vs.B : &vs.H) = v;
    lth_lqr_opts vo = *o;
    vo.progress = NULL;
    vo.ivp.progress = NULL;
    lth_lqr_result *r = NULL;
    st = lth_lqr_solve(&vs, run->tm.t, run->tm.n, &vo, &r, err);
    if (st == LTH_OK && (r->exists != T->res->exists || r->unique != T->res->unique ||
                         r->have_trajectory != T->res->have_trajectory)) {
      /* the verdict itself is within the data's error: no answer to stand by */
      static const char *const names[3] = {"A", "B", "H"};
      st = lth_error_set(
          err, LTH_ECOND,
          "the samples' error decides the answer: with the sampled %s moved by its "
          "error estimate the optimum %s, %s (here: %s, %s); refine the samples",
          names[b], r->exists ? "exists" : "does not exist", r->unique ? "unique" : "not unique",
          T->res->exists ? "exists" : "does not exist", T->res->unique ? "unique" : "not unique");
    }
    if (st == LTH_OK) {
      const lth_lqr_result *a = T->res;
      size_t n = a->have_trajectory ? a->n : 0;
      double d = fmax(maxdiff(a->x, r->x, n * (size_t)a->nx),
                      fmax(maxdiff(a->lambda, r->lambda, n * (size_t)a->nx),
                           maxdiff(a->u, r->u, n * (size_t)a->nu)));
      T->sampling_error = (isfinite(T->sampling_error) ? T->sampling_error : 0.0) + d;
      double dc = isfinite(a->cost) && isfinite(r->cost) ? fabs(a->cost - r->cost) : 0.0;
      T->sampling_error_cost =
          (isfinite(T->sampling_error_cost) ? T->sampling_error_cost : 0.0) + dc;
    }
    lth_lqr_result_free(r);
    lth_source_free(v);
  }
  if (st != LTH_OK && !strstr(err->message, "decides the answer")) {
    lth_error_prefix(err, "estimating the sampling error: ");
  }
  return st;
}

/* The operator path (lth_lqr_solve_op): a smooth unique optimum or a
 * refusal that names what was found and where the dense analysis is. */
static lth_status compute_op(app_ctx *T, app_run *run, const lth_lqr_opts *o, lth_error *err) {
  lth_status st = lth_lqr_solve_op(T->spec, run->tm.t, run->tm.n, o, &T->res, err);
  if (st == LTH_ENOSOL || st == LTH_ENOTUNIQUE) {
    char tail[160];
    snprintf(tail, sizeof tail,
             T->spec->nx <= 2000
                 ? "; --path dense analyses it (impulses, non-uniqueness)"
                 : "; the dense analysis (--path dense) would need nx = %d squared memory",
             T->spec->nx);
    size_t len = strlen(err->message);
    snprintf(err->message + len, sizeof err->message - len, "%s", tail);
    if (st == LTH_ENOSOL) {
      st = err->status = LTH_ECOND; /* exit 3: a refusal, not an answer */
    }
  } else if (st == LTH_EDATA) {
    lth_problem_lqr_locate(run->pb, err); /* the H or C statement */
  }
  if (st == LTH_OK) compose_note(T);
  return st;
}

static lth_status compute(app_ctx *T, app_run *run, lth_error *err) {
  if (T->plant) {
    return lqr_plant_compute(&T->pl, run, rtol_given() ? T->rtol : 0.0, err);
  }
  lth_lqr_opts o;
  lth_lqr_opts_init(&o);
  o.method = T->method == 0 ? LTH_LQR_COLLOCATION : LTH_LQR_SHOOTING;
  o.ivp.rtol = T->rtol;
  app_ivp_setup(run, &o.ivp);
  o.cond_max = run->opt->cond_max;
  o.progress = app_progress_update;
  o.progress_ctx = &run->progress;
  if (T->path.op) {
    return compute_op(T, run, &o, err);
  }
  lth_status st = lth_lqr_solve(T->spec, run->tm.t, run->tm.n, &o, &T->res, err);
  if (st == LTH_EDATA) {
    lth_problem_lqr_locate(run->pb, err); /* H or C refused: name the statement */
  }
  if (st == LTH_OK) {
    st = sampling_error(T, run, &o, err);
  }
  if (st != LTH_OK) {
    return st;
  }
  T->initial_impulse = !T->res->exists && app_norm2(T->res->jump, (size_t)T->res->nx) > 0.0;
  if (!T->res->exists && T->res->have_trajectory && !T->initial_impulse &&
      !T->res->terminal_impulse) {
    /* "no smooth optimum" without an impulse at either end contradicts itself */
    return lth_error_set(err, LTH_ECOND,
                         "cannot decide whether a smooth optimum exists: (x0, 0) is off "
                         "range(W) by the relative residual %.3g (cond W = %.3g), yet no impulse "
                         "at t0 or t1 is needed; try a smaller --rtol or the other --method",
                         T->res->residual, T->res->cond_W);
  }
  compose_note(T);
  return LTH_OK;
}

/* Everything that will be printed, with the time it belongs to. */
static lth_status check(const app_ctx *T, const app_run *run, lth_error *err) {
  if (T->plant) {
    return lqr_plant_check(&T->pl, run, err);
  }
  const lth_lqr_result *r = T->res;
  size_t n = r->have_trajectory ? r->n : 0, nx = (size_t)r->nx, nu = (size_t)r->nu;
  const double *t = run->tm.t, t0 = T->spec->t0, t1 = T->spec->t1;
  lth_status st = LTH_OK;
  st = app_check_rows(st, err, "the state x", t, r->x, n, nx, NULL);
  st = app_check_rows(st, err, "the costate lambda", t, r->lambda, n, nx, NULL);
  st = app_check_rows(st, err, "the control u", t, r->u, n, nu, NULL);
  if (r->have_trajectory) {
    st = app_check_value(st, err, "the cost 1/2 x0' lambda(t0)", t0, r->cost);
  }
  if (T->gain) {
    st = app_check_rows(st, err, "the gain K", t, r->gain, r->n, nu * 2 * nx, NULL);
  }
  st = app_check_vector(st, err, "the consistent initial state x0_consistent", t0, r->x0_consistent,
                        nx, NULL);
  st = app_check_vector(st, err, "the jump at t0", t0, r->jump, nx, NULL);
  st = app_check_vector(st, err, "the terminal jump", t1, r->terminal_jump, nx, NULL);
  st = app_check_value(st, err, "the residual of (x0, 0) from range(W)", t0, r->residual);
  if (!T->path.op) { /* not computed on the operator path */
    st = app_check_value(st, err, "the Theorem 4 deviation over the output times", NAN,
                         r->theorem4);
  }
  return app_check_value(st, err, "the drift max ||P v|| over the output times", NAN, r->drift);
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

static void json_extensions(app_json *j, const app_ctx *T) {
  const lth_lqr_result *r = T->res;
  app_json_put_bool(j, "have_trajectory", r->have_trajectory);
  app_json_put_string(j, "note", r->exists ? "the smooth optimum (Clark's Theorems 5-6)" : T->note);
  app_json_put_vector(j, "x0", T->spec->x0, (size_t)r->nx);
  app_json_put_vector(j, "x0_consistent", r->x0_consistent, (size_t)r->nx);
  app_json_put_vector(j, "jump", r->jump, (size_t)r->nx);
  /* without a jump at t0 the library leaves the flag unset; a zero jump is in range(B) */
  app_json_put_bool(j, "jump_in_range_B", r->jump_in_range_B || !T->initial_impulse);
  app_json_put_bool(j, "terminal_impulse", r->terminal_impulse);
  app_json_put_vector(j, "terminal_jump", r->terminal_jump, (size_t)r->nx);
  app_json_put_number(j, "residual", r->residual);
  if (isfinite(r->cond_W)) {
    app_json_put_number(j, "cond_W", r->cond_W);
  }
  if (!T->path.op) {
    app_json_put_number(j, "theorem4", r->theorem4);
  }
  app_json_put_number(j, "drift", r->drift);
  if (isfinite(T->sampling_error)) {
    app_json_put_number(j, "sampling_error", T->sampling_error);
    app_json_put_number(j, "sampling_error_cost", T->sampling_error_cost);
  }
  app_json_put_int(j, "nx", r->nx);
  app_json_put_int(j, "nu", r->nu);
  app_json_put_int(j, "p", r->p);
  app_json_put_string(j, "path", app_path_name(&T->path));
  if (T->path.op) { /* the collocation and Pi between the points (include/lth/lqr.h) */
    app_json_put_number(j, "error_estimate", r->error_estimate);
    app_json_put_int(j, "intervals", r->intervals);
    app_json_put_number(j, "pi_proven", r->pi_proven);
    app_json_put_int(j, "pi_proofs", (long long)r->pi_proofs);
    app_json_key(j, "pi_inv_bound");
    if (r->pi_proven > 0) {
      app_json_number(j, r->pi_inv_bound);
    } else {
      app_json_null(j);
    }
  }
}

static void json_gain(app_json *j, const lth_lqr_result *r) {
  int m = 2 * r->nx;
  app_json_key(j, "gain");
  app_json_begin_array(j);
  for (size_t k = 0; k < r->n; k++) {
    app_json_matrix(j, r->gain + k * (size_t)r->nu * m, r->nu, m, r->nu);
  }
  app_json_end_array(j);
}

static void write_json(const app_ctx *T, app_run *run) {
  if (T->plant) {
    lqr_plant_json(&T->pl, run);
    return;
  }
  const lth_lqr_result *r = T->res;
  app_json *j = &run->json;
  size_t n = r->have_trajectory ? r->n : 0;
  app_json_begin_object(j);
  app_json_put_vector(j, "times", run->tm.t, run->tm.n);
  app_json_rows(j, "x", r->x, n, (size_t)r->nx);
  app_json_rows(j, "lambda", r->lambda, n, (size_t)r->nx);
  app_json_rows(j, "u", r->u, n, (size_t)r->nu);
  app_json_key(j, "cost");
  if (r->have_trajectory) {
    app_json_number(j, r->cost);
  } else {
    app_json_null(j);
  }
  app_json_put_bool(j, "exists", r->exists);
  app_json_put_bool(j, "unique", r->unique);
  json_extensions(j, T);
  if (T->gain) {
    json_gain(j, r);
  }
  app_json_end_object(j);
}

/* ------------------------------------------------------------------------ */
/* CSV and text                                                             */

/* Every name quoted (K[i,j] needs it; the others follow for one form). */
static void write_csv(const app_ctx *T, app_run *run) {
  if (T->plant) {
    lqr_plant_csv(&T->pl, run, T->gain);
    return;
  }
  const lth_lqr_result *r = T->res;
  int nx = r->nx, nu = r->nu, gain = T->gain;
  app_csv *c = &run->csv;
  fputc('t', c->fp);
  app_csv_quoted_names(c->fp, "x", nx);
  app_csv_quoted_names(c->fp, "lambda", nx);
  app_csv_quoted_names(c->fp, "u", nu);
  for (int i = 1; gain && i <= nu; i++) {
    for (int j = 1; j <= 2 * nx; j++) {
      fprintf(c->fp, ",\"K[%d,%d]\"", i, j);
    }
  }
  fputc('\n', c->fp);
  /* the writer counts the first data row as its header: checks lengths */
  for (size_t k = 0; r->have_trajectory && k < r->n; k++) {
    app_csv_number(c, run->tm.t[k]);
    app_csv_matrix(c, r->x + k * (size_t)nx, nx, 1, nx);
    app_csv_matrix(c, r->lambda + k * (size_t)nx, nx, 1, nx);
    app_csv_matrix(c, r->u + k * (size_t)nu, nu, 1, nu);
    if (gain) {
      app_csv_matrix(c, r->gain + k * (size_t)nu * 2 * nx, nu, 2 * nx, nu);
    }
    app_csv_end_row(c);
  }
}

static void text_vec_line(FILE *fp, const char *label, const double *x, int n) {
  char b[256];
  fmt_vec(b, sizeof b, x, n);
  fprintf(fp, "%-15s%s\n", label, b);
}


static void text_verdict(FILE *fp, const app_ctx *T) {
  const lth_lqr_result *r = T->res;
  char b[32];
  if (r->exists) {
    fprintf(fp,
            "exists         yes: a smooth optimum (x0 is consistent: (x0, 0) in range(W), "
            "relative residual %.3g)\n",
            r->residual);
  } else if (T->initial_impulse) {
    fprintf(fp,
            "exists         NO smooth optimum: x0 is not consistent (relative residual of "
            "(x0, 0) from range(W): %.3g)%s\n",
            r->residual, r->terminal_impulse ? ", and B(t1)'C x(t1) != 0 at the end" : "");
  } else {
    fprintf(fp, "exists         NO smooth optimum: x0 is consistent, but B(t1)'C x(t1) != 0 at "
                "the end (a terminal impulse)\n");
  }
  if (T->path.op) {
    fprintf(fp, "unique         yes (the least-squares collocation system is nonsingular)\n");
  } else
    fprintf(fp, "unique         %s (cond W on the state space %s)\n",
          r->unique ? "yes" : "NO: W is not injective, one of the optima is shown",
          isfinite(r->cond_W) ? app_fmt_g(b, sizeof b, r->cond_W, 3) : "infinite");
  if (T->path.op) {
    fprintf(fp, "path           operator (%s): sparse collocation, boundary rows in least "
                "squares (KLU)\n", T->path.why);
  }
  text_vec_line(fp, "x0", T->spec->x0, r->nx);
  if (!r->exists && T->initial_impulse) {
    text_vec_line(fp, "x0_consistent", r->x0_consistent, r->nx);
    text_vec_line(fp, "jump at t0", r->jump, r->nx);
    fprintf(fp, "               %s\n",
            r->jump_in_range_B ? "(in range(B(t0)): reachable by an impulse)"
                               : "(NOT in range(B(t0)): no impulse reaches it)");
  }
  if (!r->exists) {
    if (r->terminal_impulse) {
      text_vec_line(fp, "jump at t1", r->terminal_jump, r->nx);
    }
  }
  if (r->have_trajectory) {
    fprintf(fp, "cost           %.10g%s\n", r->cost,
            r->exists ? "" : "  (the infimum; not attained by a smooth control)");
  } else {
    fprintf(fp, "cost           none (no trajectory)\n");
  }
  if (T->path.op) {
    fprintf(fp, "checks         drift max ||P v|| %.3g; error estimate %.3g on %d intervals\n",
            r->drift, r->error_estimate, r->intervals);
    /* Pi between the mesh points, as lth-bvp reports it */
    app_text_pi_proof(fp, "the mesh points", r->pi_proof_off, r->pi_proven, r->pi_proofs,
                      r->pi_inv_bound, T->spec->t0, T->spec->t1);
  } else {
    fprintf(fp, "checks         Theorem 4 (P_1' = P_2) deviation %.3g; drift max ||P v|| %.3g\n",
            r->theorem4, r->drift);
  }
  if (isfinite(T->sampling_error)) {
    fprintf(fp,
            "sampling error ~%.2e in x, lambda, u and ~%.2e in the cost (the samples' fits, "
            "propagated)\n",
            T->sampling_error, T->sampling_error_cost);
  }
}

static void text_table(FILE *fp, const app_ctx *T, const app_run *run) {
  const lth_lqr_result *r = T->res;
  int nx = r->nx, nu = r->nu, m = 2 * nx, gain = T->gain;
  fprintf(fp, "%14s", "t");
  app_text_cells(fp, "x", nx, 16);
  app_text_cells(fp, "lambda", nx, 16);
  app_text_cells(fp, "u", nu, 16);
  for (int i = 1; gain && i <= nu; i++) {
    for (int j = 1; j <= m; j++) {
      char b[32];
      snprintf(b, sizeof b, "K[%d,%d]", i, j);
      fprintf(fp, " %16s", b);
    }
  }
  fputc('\n', fp);
  for (size_t k = 0; k < r->n; k++) {
    fprintf(fp, "%14.8g", run->tm.t[k]);
    app_text_numbers(fp, r->x + k * nx, (size_t)nx, 16, 10);
    app_text_numbers(fp, r->lambda + k * nx, (size_t)nx, 16, 10);
    app_text_numbers(fp, r->u + k * nu, (size_t)nu, 16, 10);
    for (int i = 0; gain && i < nu; i++) {
      for (int j = 0; j < m; j++) {
        app_text_numbers(fp, r->gain + k * nu * m + i + (size_t)j * nu, 1, 16, 10);
      }
    }
    fputc('\n', fp);
  }
}

static void write_text(const app_ctx *T, app_run *run) {
  if (T->plant) {
    lqr_plant_text(&T->pl, run, T->gain);
    return;
  }
  const lth_lqr_result *r = T->res;
  FILE *fp = run->fp;
  char b0[32], b1[32];
  fprintf(fp, "file           %s\n", run->path);
  fprintf(fp,
          "problem        singular LQR, nx = %d, nu = %d, on [%s, %s]: minimise 1/2 x(t1)' "
          "C x(t1) + 1/2 int x' H x dt, x' = A x + B u, R = 0\n",
          r->nx, r->nu, app_fmt_exact(b0, sizeof b0, T->spec->t0),
          app_fmt_exact(b1, sizeof b1, T->spec->t1));
  text_verdict(fp, T);
  if (!r->exists) {
    fprintf(fp, "\nNOTE: %s.\n", T->note);
  }
  if (!r->have_trajectory) {
    return;
  }
  fprintf(fp, "\n%s%s:\n",
          r->exists ? "the optimal trajectory" : "the singular arc (NOT a smooth optimum)",
          T->gain ? " and the closed-loop gain u = K [x; lambda]" : "");
  text_table(fp, T, run);
}

/* exit 0 when no smooth optimum exists (it is an answer), but nobody should
 * miss it in a pipeline */
static lth_status after(app_ctx *T, const app_run *run, lth_error *err) {
  (void)run;
  (void)err;
  if (!T->plant && !T->res->exists) {
    fprintf(stderr, "%s: %s\n", app_name(), T->note);
  }
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* The tool                                                                 */

static void cleanup(app_ctx *T) {
  lth_lqr_result_free(T->res);
  lqr_plant_free(&T->pl);
  app_path_free(&T->path);
}

/* The tool's options (with their defaults) and its description for the driver. */
static app_ctx ctx = {.rtol = LTH_DEFAULT_RTOL, .sampling_error = NAN, .sampling_error_cost = NAN};
static app_option opts[] = {
    APP_CHOICE("method", &ctx.method, "collocation|shooting"),
    APP_FLAG("gain", &ctx.gain),
    APP_DOUBLE("rtol", &ctx.rtol, 1e-15, 1e-2),
    APP_CHOICE("path", &ctx.path_opt, APP_PATH_CHOICES),
};
static int method_given(void) { return opts[0].given; }
static int rtol_given(void) { return opts[2].given; }
static int path_given(void) { return opts[3].given; }
static const app_tool tool = {
    .name = "lth-lqr",
    .help = help_text,
    .help_tail = help_tail,
    .times = APP_TIMES_MANY,
    .free_inputs_zero = 1, /* a plant's inputs are free: LQR chooses them */
    .progress_label = "solving",
    .progress_unit = "gains",
    .opts = opts,
    .nopts = APP_COUNT(opts),
    .prepare = prepare,
    .compute = compute,
    .check = check,
    .after = after,
    .write = {write_text, write_csv, write_json},
    .cleanup = cleanup,
};

int main(int argc, char **argv) { return app_main(&tool, &ctx, argc, argv); }
