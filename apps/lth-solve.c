/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve: the initial-value problem of a data file's DAE through Clark's
 * reduced ODE (docs/format.md section 2; docs/user-guide.md section 6).
 *
 * lth_ivp_solve integrates v' = Ahat v + g for the state part and rebuilds
 * z = (Nhat + Bhat) v + q at the output times; this file chooses z0 and the
 * integrator options, and writes the table.  The library wants
 * nondecreasing output times; the user's --times keep their order in the
 * output, so they are sorted here and the solution is put back in the
 * user's order.  The driver (app_driver.h) does options, loading, times,
 * output.
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_check.h"
#include "app_driver.h"
#include "app_ivp.h"
#include "app_path.h"
#include "app_samplerr.h"
#include "lth/defaults.h"
#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/problem.h"
#include "solve.h"

static const char help_text[] =
    "Usage: lth-solve FILE [OPTIONS]\n"
    "Solve the initial-value problem of the Hessenberg DAE  E z' = A(t) z + f(t)\n"
    "in FILE from a consistent z0 at t0 and print z at the output times.\n"
    "\n"
    "Method: Clark's decomposition turns the DAE into an ODE for the state part\n"
    "v = (I - P) z(1:m) (m = s - n_r): v' = Ahat(t) v + g(t), integrated with a\n"
    "GSL ODE solver; the algebraic part is (w, u) = Bhat(t) v + q(t), so every\n"
    "output satisfies the constraints to rounding.  Theorem 2 says v stays in\n"
    "the state space range(I - P); the largest departure ||P v|| (\"drift\") is\n"
    "reported.  Sampled data: the decomposition is computed at nodes placed for\n"
    "the samples and checked against --rtol (never at the output times) and\n"
    "interpolated (Hermite) in between; sampling_error estimates what the\n"
    "samples' fits cost z.  Constant data (every block proven constant on the\n"
    "span by its enclosure): no integrator, but the exact propagator of the\n"
    "reduced ODE, the matrix exponential, from output to output -- one\n"
    "decomposition, only rounding left (stats.propagator, docs/user-guide.md\n"
    "section 6); where the error estimate says it missed --rtol, and with an\n"
    "explicit --method, the integrator solves instead.\n"
    "\n"
    "Initial value (at t0 of the file's interval):\n"
    "  --z0 V1,V2,...      s numbers z = (z_1, ..., z_{r-1}, u), or in the order of\n"
    "                      `variables` for an equation-form file (default: the\n"
    "                      file's `z0`; without either, use lth-ic to make one)\n"
    "  --project           accept an inconsistent z0: replace it by Clark's\n"
    "                      Corollary 3 projection (as `lth-ic`) and report what\n"
    "                      changed.  Without it an inconsistent z0 fails (exit 3)\n"
    "Integration:\n"
    "  --method M          cheb (Chebyshev collocation of the linear reduced ODE:\n"
    "                      one linear system of N m unknowns a step, N = 8, 12\n"
    "                      or 16 by the tail (at most 12 above m = 4, 8 above\n"
    "                      m = 8), long steps, stiff or not; state dimension\n"
    "                      m <= 32), rk8pd (explicit Runge-Kutta Prince-Dormand\n"
    "                      8(9)), rkf45 (Runge-Kutta-Fehlberg 4(5)), msadams\n"
    "                      (variable-order Adams), msbdf (variable-order BDF, for\n"
    "                      stiff problems), bsimp (implicit Bulirsch-Stoer,\n"
    "                      stiff).  Default: cheb for state dimension m <= 8,\n"
    "                      rk8pd above (the output's integrator line and JSON\n"
    "                      method name the one taken)\n"
    "  --rtol R            relative local error tolerance (default 1e-10)\n"
    "  --atol A            absolute local error tolerance (default 1e-12)\n"
    "  --stabilize G       drift damping rate (default: auto, 0 = off).  Ahat is\n"
    "                      only unique on the state space, so lth integrates\n"
    "                      v' = (Ahat - G P) v + g instead: the same ODE for every\n"
    "                      v with P v = 0 (the solution does not change), while a\n"
    "                      departure P v created by rounding and truncation errors\n"
    "                      decays at rate G instead of growing.  Auto picks\n"
    "                      G = max(0.25 ||Ahat(t0)||_1, 1/span) (span: t0 to the\n"
    "                      last output time), or 2 mu + rho/4 where that is\n"
    "                      below a quarter of it (mu: the growth rate of P v,\n"
    "                      rho: the spectral radius of Ahat on the state space,\n"
    "                      the larger at t0 and the span's end); too large a G\n"
    "                      makes the ODE stiff\n"
    "  --reproject         also set v <- (I - P) v at every output time\n"
    "  --coefficients C    where Ahat, g, G, q come from: auto (default: with\n"
    "                      cheb direct decompositions; else a table\n"
    "                      of Chebyshev interpolants built once, error-controlled\n"
    "                      to 1e-3 rtol, when it pays and while a bound of what\n"
    "                      its errors add to the solution stays below rtol,\n"
    "                      rebuilt once to a tighter tolerance where that fails\n"
    "                      at the start; docs/performance.md), table or direct (a\n"
    "                      decomposition per right-hand side)\n"
    "  --table-memory MB   memory budget of the table, its work arrays included\n"
    "                      (default 1 GiB = 1073.7 MB); auto decomposes directly where\n"
    "                      the table would not fit (its work grows like s^2:\n"
    "                      about 8 GB at s = 1000), table fails (exit 3)\n"
    "  --error-estimate on|off\n"
    "                      estimate the global error of z (default on): a second,\n"
    "                      more accurate solve (0.1 times rtol and atol, rk8pd\n"
    "                      or msbdf and bsimp themselves, smaller steps where the\n"
    "                      outputs set them, a coefficient table 1000 times as\n"
    "                      accurate as the solve's, or direct decompositions\n"
    "                      where the solve's table is at its floor) and its\n"
    "                      difference from z at the output\n"
    "                      times.  Reported with the solution; a warning when it\n"
    "                      exceeds what --rtol and --atol ask (local error\n"
    "                      control does not bound the global error).  Costs 0.6\n"
    "                      to 1.6 times the solve again; off: no second solve\n"
    "  --path P            auto (default), dense or operator.  The operator path\n"
    "                      (large sparse systems: nothing s x s is formed) solves\n"
    "                      with SUNDIALS CVODE, --method msbdf (its default: BDF,\n"
    "                      GMRES, projected onto range(I - P) every step) or\n"
    "                      msadams; auto takes it from s = 500 on when A stores\n"
    "                      at most 50% of s^2 entries.  Sampled data, --method\n"
    "                      rk8pd, rkf45, bsimp or cheb, --stabilize, --coefficients\n"
    "                      table and --table-memory keep auto on the dense path\n"
    "                      (a warning says so) and refuse --path operator.  On the\n"
    "                      operator path output_gain and stats.gamma are null,\n"
    "                      z0_residual is ||z0 - (G z0 + q)||, and Pi is proven\n"
    "                      nonsingular between the output times from the data's\n"
    "                      enclosures where the chain blocks carry them and\n"
    "                      n_r <= 64 (stats.pi_proven: the share proven), else\n"
    "                      checked where the integrator decomposes (a sign\n"
    "                      change of det Pi between two such times is refused)\n";

static const char help_tail[] =
    "Example (the linearised pendulum; z = (dx', dy', dx, dy, d lambda)):\n"
    "  lth-solve data/pendulum.lth --times 0,1,2 --format json\n"
    "  {\"times\": [0, 1, 2], \"z\": [[0.1, 0, 0.05, 0, 0], [...], [...]],\n"
    "   \"drift\": 0, \"drift_rel\": 0, \"projected\": false, ...}\n"
    "where z[k] is z at times[k]; dx(t) = 0.05 cos(w t) + (0.1/w) sin(w t),\n"
    "w = sqrt(9.81).\n"
    "\n"
    "JSON keys: times, z (one row of s numbers per time), drift = max ||P v||;\n"
    "extensions: drift_rel (relative to max(1, ||v||)), output_gain (max\n"
    "||Nhat + Bhat||: z's errors can be up to this times the state's),\n"
    "error_estimate (the estimated global error: max |z_error|), error_tol (the\n"
    "same in units of atol + rtol max|z_i|), error_worst and t_error_worst\n"
    "(where), z_error (rows as z), error_method, error_rtol, error_atol (the\n"
    "second solve), error_failed (why there is no estimate), projected, z0_used,\n"
    "z0_residual (||M0 z0 - b0|| of the given z0), with --project also z0_given,\n"
    "z0_change, z0_worst (1-based) and z0_worst_name, method, rtol, atol,\n"
    "components (names), stats {steps, rhs_evals, decomps, seconds,\n"
    "seconds_decomp, gamma, coefficients, propagator, error_steps, error_rhs_evals,\n"
    "error_decomps, error_seconds; sampled data: coef_order, nodes, coef_error},\n"
    "and for sampled data \"sampling\" and sampling_error (the estimated error of\n"
    "z that the samples' fits cause).\n"
    "CSV: header t,\"z[1]\",...,\"z[s]\", then one row per time (%.17g).\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, time outside the\n"
    "interval, no z0), 2 input error (unreadable or malformed file; the message\n"
    "names file:line:column), 3 numerical failure (inconsistent z0 without\n"
    "--project, Pi singular or ill-conditioned at some t, integrator failure,\n"
    "a result that is not finite).\n";

/* app_sampling_error's extra solve: the same run on a variant system,
 * projecting z0 onto its manifold (the data's error moves that too). */
typedef struct resolve_ctx {
  const app_ctx *C;
  const app_run *run;
  lth_ivp_opts o;
} resolve_ctx;

static lth_status resolve_ivp(void *ctx, const lth_system *variant, double *z, lth_error *err) {
  resolve_ctx *R = ctx;
  lth_ivp_opts o = R->o;
  o.project = 1;
  o.progress = NULL;
  o.error_estimate = 0; /* only the difference the data make is wanted */
  lth_ivp_result *r = NULL;
  lth_status st =
      lth_ivp_solve(variant, R->run->t0, R->C->z0, R->C->sorted, R->run->tm.n, &o, &r, err);
  if (st == LTH_OK) {
    memcpy(z, r->z, sizeof(double) * (size_t)r->s * r->n);
  }
  lth_ivp_result_free(r);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Setup and solving                                                        */

/* The progress line: the solve, then the second solve of the error estimate,
 * which starts over from t0 (seen as time going back). */
typedef struct solve_progress {
  app_progress *p;
  double last;
} solve_progress;

static void progress_solve(void *ctx, double t, double t_end) {
  solve_progress *sp = ctx;
  if (t < sp->last) {
    sp->p->label = "estimating the global error";
  }
  sp->last = t;
  app_progress_time(sp->p, t, t_end);
}

/* The index-1 unknowns of z0 (after z's s entries): consistent with the
 * others, as z0 must be, unless --project replaces them. */
static int index1_z0(const app_ctx *C, const app_run *run) {
  lth_error err;
  lth_error_clear(&err);
  if (C->project || app_index1_consistent(run, run->t0, C->z0, &err) == LTH_OK) {
    return 0;
  }
  return app_fail(&err);
}

/* What this run asks that only the dense path does (NULL: nothing). */
static const char *dense_only(const app_ctx *C) {
  if (C->method == LTH_IVP_BSIMP || C->method == LTH_IVP_CHEB) {
    return C->method == LTH_IVP_BSIMP ? "--method bsimp (its methods are msbdf and msadams)"
                                      : "--method cheb (its methods are msbdf and msadams)";
  }
  if (C->method == LTH_IVP_RK8PD || C->method == LTH_IVP_RKF45) {
    return "an explicit --method (its methods are msbdf and msadams)";
  }
  if (C->stabilize >= 0) {
    return "--stabilize (it projects onto the state space instead)";
  }
  if (C->coefficients == LTH_COEF_TABLE || C->table_memory > 0) {
    return "a coefficient table (--coefficients table, --table-memory)";
  }
  return NULL;
}

/* The path, and the method left to the default: auto on the dense path (cheb
 * for state dimension m <= LTH_IVP_AUTO_CHEB_MAX, else rk8pd),
 * msbdf (CVODE's BDF) on the operator path. */
static int choose_path(app_ctx *C, app_run *run) {
  int rc = app_path_choose(&C->path, run, C->path_opt, dense_only(C), LTH_PATH_INTEGRATES);
  C->method_given = C->method >= 0; /* constant data: an explicit method integrates */
  if (C->method < 0) {
    C->method = C->path.op ? LTH_IVP_MSBDF : LTH_IVP_AUTO;
  }
  return rc;
}

static int prepare_z0(app_ctx *C, app_run *run);

static int prepare(app_ctx *C, app_run *run) {
  int rc = prepare_z0(C, run);
  return rc ? rc : choose_path(C, run);
}

static int prepare_z0(app_ctx *C, app_run *run) {
  if (C->z0_opt.n > 0) {
    if (C->z0_opt.n != (size_t)run->nout) {
      return app_usage_error("--z0 has %zu %s; %s has %s = %d components", C->z0_opt.n,
                             app_plural((double)C->z0_opt.n, "value", "values"), run->path,
                             run->nout > run->s ? "(with its index-1 unknowns)" : "s", run->nout);
    }
    C->z0 = C->z0_opt.v;
    C->z0_source = "--z0";
    /* the equation form: --z0 lists the unknowns in the order of `variables` */
    if (app_names_to_canonical(&run->names, C->z0_opt.v) != 0) {
      return app_failf(APP_EXIT_NUMERIC, "out of memory");
    }
    return index1_z0(C, run);
  }
  if (lth_problem_z0(run->pb, &C->z0)) {
    C->z0_source = "the file's z0";
    return index1_z0(C, run);
  }
  return app_usage_error("%s has no `z0` statement and no --z0 was given: compute a consistent "
                         "initial value with `lth-ic %s` and pass it as --z0 V1,...,V%d (or add "
                         "`z0 = [...]` to the file)",
                         run->path, run->popts.path, run->s);
}

typedef struct time_key {
  double t;
  size_t k;
} time_key;

static int time_cmp(const void *a, const void *b) {
  const time_key *x = a, *y = b;
  if (x->t != y->t) {
    return x->t < y->t ? -1 : 1;
  }
  return x->k < y->k ? -1 : x->k > y->k; /* stable: equal times keep their order */
}

/* The global error estimate's figures (lth_ivp_result.error_estimate,
 * error_tol, error_worst) over the index-1 unknowns as well, weighed as the
 * library weighs z's components: atol + rtol max_k |y_ik|. */
static void index1_error(app_ctx *C, const app_run *run) {
  lth_ivp_result *res = C->res;
  size_t no = (size_t)run->nout, n = run->tm.n;
  for (size_t i = (size_t)run->s; i < no; i++) {
    double size = 0.0;
    for (size_t k = 0; k < n; k++) {
      size = fmax(size, fabs(C->z[k * no + i]));
    }
    double w = fmax(C->atol + C->rtol * size, DBL_MIN);
    for (size_t k = 0; k < n; k++) {
      double e = fabs(C->z_error[k * no + i]);
      res->error_estimate = fmax(res->error_estimate, e);
      if (e / w > res->error_tol) {
        res->error_tol = e / w;
        res->error_worst = (int)i;
        for (size_t j = 0; j < res->n; j++) { /* res->times are sorted */
          if (res->times[j] == run->tm.t[k]) {
            res->error_worst_k = j;
            break;
          }
        }
      }
    }
  }
}

/* The library integrates forward only: sort; rank[k] = where tm.t[k] went. */
static lth_status sort_times(app_ctx *C, const app_times *tm, size_t *rank, lth_error *err) {
  size_t n = tm->n;
  time_key *key = malloc((n ? n : 1) * sizeof *key);
  C->sorted = malloc((n ? n : 1) * sizeof *C->sorted);
  if (!key || !C->sorted) {
    free(key);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (size_t k = 0; k < n; k++) {
    key[k] = (time_key){tm->t[k], k};
  }
  qsort(key, n, sizeof *key, time_cmp);
  for (size_t j = 0; j < n; j++) {
    C->sorted[j] = key[j].t;
    rank[key[j].k] = j;
  }
  free(key);
  return LTH_OK;
}

/* The solution rows back in the user's order. */
static lth_status unsort(app_ctx *C, const app_run *run, const size_t *rank, lth_error *err) {
  size_t n = run->tm.n, s = (size_t)run->s;
  C->z = malloc((n * s + 1) * sizeof *C->z);
  if (!C->z) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (size_t k = 0; k < n; k++) {
    memcpy(C->z + k * s, C->res->z + rank[k] * s, s * sizeof *C->z);
  }
  if (C->res->z_error) {
    C->z_error = malloc((n * s + 1) * sizeof *C->z_error);
    if (!C->z_error) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
      memcpy(C->z_error + k * s, C->res->z_error + rank[k] * s, s * sizeof *C->z_error);
    }
  }
  return LTH_OK;
}

/* The operator path: lth_opivp_solve (solve_op.h). */
static lth_status compute_op(app_ctx *C, app_run *run, lth_error *err) {
  solve_op_opts so = {.adams = C->method == LTH_IVP_MSADAMS,
                      .rtol = C->rtol,
                      .atol = C->atol,
                      .cond_max = run->opt->cond_max,
                      .project = C->project,
                      .error_estimate = !C->error_off};
  solve_progress sp = {&run->progress, -INFINITY};
  so.progress = progress_solve;
  so.progress_ctx = &sp;
  return solve_op(C->path.sys, run->t0, C->z0, C->sorted, run->tm.n, &so, &C->res, &C->opstats,
                  err);
}

static lth_status compute(app_ctx *C, app_run *run, lth_error *err) {
  size_t n = run->tm.n;
  size_t *rank = malloc((n ? n : 1) * sizeof *rank);
  lth_status st =
      rank ? sort_times(C, &run->tm, rank, err) : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) {
    lth_ivp_opts o;
    lth_ivp_opts_init(&o);
    if (C->path.op) {
      st = compute_op(C, run, err);
      goto sorted;
    }
    o.method = (lth_ivp_method)C->method;
    o.rtol = C->rtol;
    o.atol = C->atol;
    o.reproject = C->reproject;
    o.project = C->project;
    o.stabilize = C->stabilize;
    o.coefficients = (lth_ivp_coefficients)C->coefficients;
    o.table_max_bytes = (size_t)(C->table_memory * 1e6);
    o.error_estimate = !C->error_off;
    o.propagate = C->method_given ? 0 : -1;
    app_ivp_setup(run, &o);
    solve_progress sp = {&run->progress, -INFINITY};
    o.progress = progress_solve;
    o.progress_ctx = &sp;
    st = lth_ivp_solve(run->sys, run->t0, C->z0, C->sorted, n, &o, &C->res, err);
    resolve_ctx R = {C, run, o};
    if (st == LTH_OK) {
      st = app_sampling_error(run->sys, C->sorted, n, C->res->z, C->res->v, resolve_ivp, &R,
                              &C->sampling_error, err);
      if (st != LTH_OK) {
        lth_error_prefix(err, "estimating the sampling error: ");
      }
    }
  }
sorted:
  if (st == LTH_OK) {
    st = unsort(C, run, rank, err);
  }
  if (st == LTH_OK && run->vals) { /* the index-1 unknowns join z */
    double *zx = NULL, *ezx = NULL;
    st = app_outputs(run, run->tm.t, C->z, C->z_error, n, &zx, &ezx, err);
    free(C->z);
    free(C->z_error);
    C->z = zx;
    C->z_error = ezx;
    if (st == LTH_OK && C->z_error) {
      index1_error(C, run);
    }
  }
  free(rank);
  if (st == LTH_OK) { /* the outputs y = C z + D u + y0 */
    st = app_signal_outputs(run, run->tm.t, C->z, (size_t)run->nout, n, err);
  }
  if (st == LTH_OK) {
    /* sampled data: the derivative error of the data the decomposition used */
    const double *grid;
    size_t ng = lth_problem_grid(run->pb, &grid);
    st = app_sampling_over(&C->smp, run->pb, run->r, grid, ng, err);
  }
  return st;
}

static lth_status check(const app_ctx *C, const app_run *run, lth_error *err) {
  const lth_ivp_result *res = C->res;
  lth_status st = LTH_OK;
  st = app_check_rows(st, err, "the solution z", run->tm.t, C->z, run->tm.n, (size_t)run->nout,
                      &run->names);
  for (size_t k = 0; run->y && k < run->tm.n * (size_t)run->ny; k++) {
    st = app_check_value(st, err, "an output y", run->tm.t[k / (size_t)run->ny], run->y[k]);
  }
  st = app_check_vector(st, err, "the initial value used", run->t0, res->z0_used, (size_t)run->s,
                        &run->names);
  st = app_check_value(st, err, "the residual of z0", run->t0, res->z0_residual);
  st = app_check_value(st, err, "the change of z0", run->t0, res->z0_change);
  st = app_check_value(st, err, "the drift max ||P v|| over the output times", NAN, res->drift);
  if (res->z_error) {
    st = app_check_value(st, err, "the estimated global error", NAN, res->error_estimate);
  }
  return app_check_value(st, err, "the relative drift over the output times", NAN, res->drift_rel);
}

static double max_abs(const double *x, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

/* Without the estimate: the integrator controls the state's errors; the
 * algebraic components are Bhat v + q and can be this many times less
 * accurate (the stiff u = k (y - cos t) + sin t with k = 1e4: 8e-8 at --rtol
 * 1e-10).  Judged relative to the sizes of v and z, so that units alone
 * (u = 1e6 x) warn of nothing. */
static void warn_gain(const lth_ivp_result *res) {
  if (isnan(res->output_gain)) { /* the operator path does not form Nhat + Bhat */
    return;
  }
  double rel = res->output_gain * max_abs(res->v, res->n * (size_t)res->m) /
               fmax(max_abs(res->z, res->n * (size_t)res->s), DBL_MIN);
  if (rel >= 100) {
    app_warn("z = (Nhat + Bhat) v + q amplifies the state's errors up to %.3g times (max "
             "||Nhat + Bhat|| = %.3g over the output times, relative to the sizes of v and z): "
             "the algebraic components can be that much less accurate than --rtol and --atol "
             "ask; tighten both by that factor where they matter",
             rel, res->output_gain);
  }
}

/* The estimate says the solve missed its tolerance (or could not be made:
 * then the output gain is all there is to go by). */
static void warn_error(const app_ctx *C, const app_run *run) {
  const lth_ivp_result *res = C->res;
  if (!res->z_error) {
    char msg[LTH_ERROR_MSG_MAX + 256];
    app_warn("the global error was not estimated: %s",
             app_tool_message(res->error_failed.message, msg, sizeof msg));
    warn_gain(res);
    return;
  }
  if (!(res->error_tol > 1.0)) {
    return;
  }
  char b[32], why[256] = "";
  int w = res->error_worst;
  if (w >= res->m && res->output_gain >= 10) {
    /* what the output gain warning used to say, now with the size of the error */
    snprintf(why, sizeof why,
             "; %s is computed from the state as z = (Nhat + Bhat) v + q, and max ||Nhat + Bhat|| "
             "= %.3g amplifies the state's errors",
             run->names.name[w], res->output_gain);
  }
  app_warn("the estimated global error of z, %.2g, is %.3g times what --rtol %g and --atol %g "
           "ask (largest in %s at t = %s%s): an integrator controls the error of each step, not of "
           "the solution; tighten --rtol and --atol, or try another --method",
           res->error_estimate, res->error_tol, C->rtol, C->atol, run->names.name[w],
           app_fmt_exact(b, sizeof b, res->times[res->error_worst_k]), why);
}

/* What --project changed, a drift that calls for attention, a global error
 * above the tolerance. */
static lth_status after(app_ctx *C, const app_run *run, lth_error *err) {
  (void)err;
  const lth_ivp_result *res = C->res;
  if (res->projected) {
    char b[32], b2[32];
    int w = res->z0_worst >= 0 ? res->z0_worst : 0;
    fprintf(stderr,
            "%s: note: z0 was not consistent (||M0 z0 - b0|| = %.3g); --project replaced it "
            "by Clark's Corollary 3 projection: ||change|| = %.6g, largest in %s: %s -> %s\n",
            app_name(), res->z0_residual, res->z0_change, run->names.full[w],
            app_fmt_exact(b, sizeof b, C->z0[w]), app_fmt_exact(b2, sizeof b2, res->z0_used[w]));
  }
  if (res->drift_rel > 1e-6) {
    app_warn("the state part drifted off the state space: max ||P v|| = %.3g (relative %.3g); "
             "the algebraic components may be inaccurate: try a smaller --rtol, --reproject or "
             "a larger --stabilize",
             res->drift, res->drift_rel);
  }
  if (C->error_off) {
    warn_gain(res);
  } else {
    warn_error(C, run);
  }
  app_sampling_warn(&C->smp, 1e-6);
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* The tool                                                                 */

static void cleanup(app_ctx *C) {
  lth_ivp_result_free(C->res);
  app_path_free(&C->path);
  app_sampling_free(&C->smp);
  free(C->sorted);
  free(C->z);
  free(C->z_error);
}

/* The tool's options (with their defaults) and its description for the driver. */
static app_ctx ctx = {
    .rtol = LTH_DEFAULT_RTOL,
    .atol = LTH_DEFAULT_ATOL,
    .stabilize = -1.0,
    .sampling_error = NAN,
    .method =
        -1, /* not given: auto (cheb or rk8pd) on the dense path, msbdf on the operator path */
};
static app_option opts[] = {
    APP_LIST("z0", &ctx.z0_opt),
    APP_CHOICE("coefficients", &ctx.coefficients, "auto|direct|table"),
    APP_DOUBLE("table-memory", &ctx.table_memory, 1e-3, 1e9),
    APP_DOUBLE("rtol", &ctx.rtol, 1e-15, 1),
    APP_DOUBLE("atol", &ctx.atol, 1e-300, 1e300),
    APP_CHOICE("method", &ctx.method, "rk8pd|rkf45|msadams|msbdf|bsimp|cheb"),
    APP_FLAG("project", &ctx.project),
    APP_FLAG("reproject", &ctx.reproject),
    APP_DOUBLE("stabilize", &ctx.stabilize, 0, 1e300),
    APP_CHOICE("error-estimate", &ctx.error_off, "on|off"),
    APP_CHOICE("path", &ctx.path_opt, APP_PATH_CHOICES),
};
static const app_tool tool = {
    .name = "lth-solve",
    .help = help_text,
    .help_tail = help_tail,
    .times = APP_TIMES_MANY,
    .progress_label = "integrating",
    .opts = opts,
    .nopts = APP_COUNT(opts),
    .prepare = prepare,
    .compute = compute,
    .check = check,
    .after = after,
    .write = {solve_write_text, solve_write_csv, solve_write_json},
    .cleanup = cleanup,
};

int main(int argc, char **argv) { return app_main(&tool, &ctx, argc, argv); }
