/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-bvp: the boundary-value problem of a data file's DAE with its `bc`
 * statements (docs/format.md section 2; docs/user-guide.md section 7).
 *
 * lth_bvp_solve does the work (Gauss collocation of the reduced ODE on an
 * adaptive mesh, single or multiple shooting on Clark's fundamental
 * solution, or finite differences with the consistency conditions of his
 * section 4.1); this file reads the boundary conditions,
 * chooses the method and writes the solution and its diagnostics.  The
 * driver (app_driver.h) does options, loading, times, output.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_check.h"
#include "app_driver.h"
#include "app_ivp.h"
#include "app_path.h"
#include "app_samplerr.h"
#include "app_table.h"
#include "lth/defaults.h"
#include "lth/bvp.h"
#include "lth/decomp.h"
#include "lth/problem.h"

static const char help_text[] =
    "Usage: lth-bvp FILE [OPTIONS]\n"
    "Solve the boundary-value problem of the Hessenberg DAE  E z' = A(t) z + f(t)\n"
    "on the file's interval [t0, t1] with the file's boundary conditions\n"
    "    B0 z(t0) + B1 z(t1) = beta\n"
    "(statements `bc B0 = [...]`, `bc B1 = [...]`, each p x s, and\n"
    "`bc beta = [...]`, p x 1; p = dimension of the solution manifold, the\n"
    "number of free constants: the algebraic part needs no conditions).  A\n"
    "`problem equations` file may write them as equations in its unknowns at\n"
    "the ends instead: `bc x1(0) = 0.5`, `bc x1(t1) - 2*x2(t1) = 0`.\n"
    "\n"
    "Methods (--method, default collocation):\n"
    "  collocation  Gauss collocation of the reduced ODE v' = Ahat v + g in local\n"
    "            coordinates of range(I - P), on a mesh adapted until the estimated\n"
    "            error is below --tol; order 2s with s Gauss stages, the algebraic\n"
    "            components from z = G v + q exactly (no drift, no start-up layer,\n"
    "            any index).  Reports error_estimate and cond_bvp; refuses (exit 3)\n"
    "            when cond_bvp * 2.2e-16 exceeds --tol or the tolerance cannot be\n"
    "            reached within --max-intervals.  docs/collocation.md.\n"
    "  shooting  Clark section 4: every solution is z = Phi(t) c + z_p(t) with\n"
    "            Phi = [Nhat + Bhat] Psi(t, t0) Q from the reduced ODE; the p x p\n"
    "            shooting matrix S = B0 Phi(t0) + B1 Phi(t1) gives c.  Solvable iff\n"
    "            S is nonsingular; cond_shooting estimates its condition.\n"
    "  multiple  multiple shooting: local bases on M subintervals joined by\n"
    "            continuity of the state part, one banded solve.  For problems\n"
    "            whose solutions grow or decay strongly (single shooting loses\n"
    "            digits like the growth of Psi).\n"
    "  fd        finite differences: implicit Euler on the full DAE on a uniform\n"
    "            grid plus the output times, completed by the boundary rows and\n"
    "            the s - p consistency conditions M0 z(t0) = b0.  First order; the\n"
    "            error is estimated from solutions on N/2, N and 2N intervals.\n"
    "            Its first r steps (index r) carry start-up errors in the\n"
    "            algebraic components (reported separately as fd_error_layer);\n"
    "            for index >= 4 prefer the shooting methods.\n"
    "\n"
    "Options:\n"
    "  --method M          collocation (default), shooting, multiple or fd\n"
    "  --tol T             collocation: tolerance on the max-norm error of z relative\n"
    "                      to max(1, max |z|) (default 1e-8)\n"
    "  --stages S          collocation: Gauss stages 1..8, order 2s (default by\n"
    "                      --tol: 6 at 1e-6, 7 at 1e-8, 8 at 1e-10 and below)\n"
    "  --max-intervals N   collocation: largest mesh before refusing (default 100000)\n"
    "  --intervals M       multiple: number of subintervals (default: placed\n"
    "                      automatically where ||Psi|| grows by more than 100)\n"
    "  --points N          fd: grid points N (default 1001)\n"
    "  --no-order-check    fd: skip the N/2 and 2N solves (no error estimate)\n"
    "  --rtol R            shooting methods: relative integration tolerance\n"
    "                      (default 1e-10)\n"
    "  --atol A            shooting methods: absolute tolerance (default 1e-12)\n"
    "  --coefficients C    where Ahat, g, P come from: auto (default: collocation\n"
    "                      reads a coefficient table at its Gauss points and\n"
    "                      decomposes at mesh points and outputs; the shooting\n"
    "                      methods integrate on a table as lth-solve does), table,\n"
    "                      or direct (a decomposition wherever they are needed:\n"
    "                      slower, for cross-checks; docs/collocation.md)\n"
    "  --path P            auto (default), dense or operator.  The operator path\n"
    "                      (large sparse systems, collocation only) keeps Ahat as\n"
    "                      sparse blocks plus a patch where the thin factors of P\n"
    "                      reach, and solves the whole collocation system (stage\n"
    "                      values, continuity, boundary rows) as one sparse\n"
    "                      matrix with KLU: nothing s x s or p x p is formed.  Its\n"
    "                      mesh is uniform plus the output times and the ends of\n"
    "                      the data's pieces (kinks, jumps, pulses: as the dense\n"
    "                      collocation's), halved until two\n"
    "                      meshes agree to --tol; cond_shooting is then KLU's\n"
    "                      condition estimate of that matrix and cond_bvp is not\n"
    "                      computed.  Pi is proven nonsingular between the points\n"
    "                      from the data's enclosures (the report's Pi line; JSON\n"
    "                      pi_proven), or refused naming t.  Auto takes it from\n"
    "                      s = 500 on when A stores at most 50% of s^2 entries;\n"
    "                      sampled data, --method other than collocation and\n"
    "                      --coefficients keep auto on the dense path and refuse\n"
    "                      --path operator.  The dense\n"
    "                      collocation's memory is estimated first: a run that\n"
    "                      cannot fit is refused (exit 3) naming s, p and the GB;\n"
    "                      on the operator path each mesh's sparse system is\n"
    "                      measured before it is assembled and factored.\n"
    "--cond-max X (below) also judges the BVP: a shooting matrix with a condition\n"
    "estimate above min(X, 1/rtol), or cond_bvp above min(X, tol / 2.2e-16), means\n"
    "the BVP is not uniquely solvable at this accuracy (exit 3).\n"
    "If the DAE has no free constants (p = 0) the file needs no bc statements:\n"
    "its only solution is returned.\n";

static const char help_tail[] =
    "Between its points every method relies on enclosures of the data (expressions;\n"
    "callbacks and samples carry none): collocation makes kinks and jumps of the\n"
    "data mesh points and cuts its mesh where pulses are, the shooting methods'\n"
    "steps stop short of them (multiple shooting ends segments there), fd refuses\n"
    "a pulse finer than its grid (exit 3, naming t), and a jump that the\n"
    "constraints differentiate (the solution would need an impulse) is refused by\n"
    "every method, naming t.  docs/collocation.md section 8.\n"
    "\n"
    "Warnings on stderr: cond_shooting above 1e8 (the answer may have lost that\n"
    "many digits), and fd's start-up layer error well above its error\n"
    "elsewhere.\n"
    "\n"
    "Example (data/index2.lth: index 2, p = 2, bc z_1[1](0) = 1, z_1[2](3) = 0):\n"
    "  lth-bvp data/index2.lth --times 0,1.5,3 --format json\n"
    "  {\"times\": [0, 1.5, 3], \"z\": [[1, ...], [...], [...]],\n"
    "   \"cond_shooting\": ..., \"method\": \"collocation\", \"cond_bvp\": ...,\n"
    "   \"error_estimate\": ..., ...}\n"
    "\n"
    "JSON keys: times, z (one row of s numbers per time), cond_shooting (for\n"
    "collocation: of the reduced two-point matrix); extensions: method, path, p, s,\n"
    "components, bc_residual = ||B0 z(t0) + B1 z(t1) - beta||, cond_bvp (the\n"
    "BVP's conditioning constant, every method on the dense path), error_estimate,\n"
    "tol, stages (collocation), intervals (collocation: the mesh; multiple:\n"
    "subintervals),\n"
    "drift (collocation and shooting methods), rtol, atol (shooting methods),\n"
    "fd_points, fd_order, fd_error, fd_error_layer (fd; keys whose value is not\n"
    "available are omitted), and for sampled data \"sampling\".\n"
    "CSV: header t,\"z[1]\",...,\"z[s]\", then one row per time (%.17g).\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, time outside the\n"
    "interval), 2 input error (unreadable or malformed file; no, wrongly sized\n"
    "or dependent bc statements; the message names the file), 3 numerical\n"
    "failure (singular or ill-conditioned shooting matrix: the BVP is not\n"
    "uniquely solvable; Pi singular or ill-conditioned at some t; a result that\n"
    "is not finite).\n";

/* The options of lth-bvp, the boundary conditions and the solution. */
struct app_ctx {
  long intervals, points, stages, max_intervals;
  int method, no_order_check, coefficients;
  int path_opt;  /* --path: APP_PATH_AUTO, _DENSE, _OPERATOR */
  app_path path; /* the path taken */
  double rtol, atol, tol;
  int rows;
  const double *B0, *B1, *beta; /* dense, read on the dense path only */
  lth_bvp_sparse_bc sbc;        /* the same as compressed columns */
  lth_bvp_result *res;
  app_sampling smp;
  double sampling_error; /* the data's contribution to z's error (NaN: exact data) */
  double *z;             /* the solution, nout per time: z, then the index-1 unknowns */
};

/* app_sampling_error's extra solve: the same BVP on a variant system. */
typedef struct resolve_ctx {
  const app_ctx *C;
  const app_run *run;
  lth_bvp_opts o;
} resolve_ctx;

static lth_status resolve_bvp(void *ctx, const lth_system *variant, double *z, lth_error *err) {
  resolve_ctx *R = ctx;
  lth_bvp_opts o = R->o;
  o.progress = NULL;
  o.ivp.progress = NULL;
  lth_bvp_result *r = NULL;
  lth_status st = lth_bvp_solve(variant, R->run->t0, R->run->t1, R->C->rows, R->C->B0, R->C->B1,
                                R->C->beta, R->run->tm.t, R->run->tm.n, &o, &r, err);
  if (st == LTH_OK) {
    memcpy(z, r->z, sizeof(double) * (size_t)r->s * r->n);
  }
  lth_bvp_result_free(r);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Options and input                                                        */

/* Options of one method only (their defaults, 0, are out of their ranges). */
static int validate(app_ctx *C, const app_run *run) {
  (void)run;
  if (C->intervals > 0 && C->method != LTH_BVP_MULTIPLE) {
    return app_usage_error("--intervals applies to --method multiple only");
  }
  if ((C->points > 0 || C->no_order_check) && C->method != LTH_BVP_FD) {
    return app_usage_error("--points and --no-order-check apply to --method fd only");
  }
  if ((C->tol > 0 || C->stages > 0 || C->max_intervals > 0) && C->method != LTH_BVP_COLLOCATION) {
    return app_usage_error("--tol, --stages and --max-intervals apply to --method collocation "
                           "only (the shooting methods take --rtol and --atol)");
  }
  return 0;
}

/* No bc in an equation-form file: say how many and how to write them, with
 * the free initial values at t0 as an example (lth_problem_free_initial). */
static int no_bc_equations(const app_run *R) {
  char ex[512] = "";
  int *vars = malloc((size_t)R->p * sizeof *vars);
  lth_error err;
  double t0, t1;
  lth_problem_interval(R->pb, &t0, &t1);
  if (vars && lth_problem_free_initial(R->pb, t0, vars, &err) == LTH_OK) {
    size_t len = (size_t)snprintf(ex, sizeof ex, " (the DAE leaves free, e.g., ");
    for (int k = 0; k < R->p && k < 8; k++) {
      len += (size_t)snprintf(ex + len, sizeof ex - len, "%s%.40s", k ? ", " : "",
                              lth_problem_var_name(R->pb, vars[k]));
    }
    snprintf(ex + len, sizeof ex - len, "%s at t0)", R->p > 8 ? ", ..." : "");
  }
  free(vars);
  return app_failf(APP_EXIT_INPUT,
                   "%s: no boundary conditions: lth-bvp needs p = %d, one per free initial "
                   "value%s, as equations in the unknowns at the ends (`bc x(t0) = 1`, "
                   "`bc x(0) - 2*y(t1) = 0`) or as the matrices `bc B0`, `bc B1` (each p x s = "
                   "%d x %d) and `bc beta`",
                   R->path, R->p, ex, R->p, R->s);
}

/* The bc statements: present, and p rows (an input error otherwise). */
static int check_bc(app_ctx *C, app_run *R) {
  /* the sparse form first: mm() files are read so, and only the dense path
   * makes them dense (p x s) */
  C->rows = lth_problem_bc_csc(R->pb, &C->sbc);
  if (C->rows < 0) {
    return app_failf(APP_EXIT_NUMERIC, "%s: out of memory for the boundary conditions", R->path);
  }
  C->beta = C->sbc.beta;
  if (lth_problem_get_kind(R->pb) == LTH_PROBLEM_LQR) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: a `problem lqr` file has no boundary-value problem "
                     "for lth-bvp; use lth-lqr",
                     R->path);
  }
  if (R->p == 0 && C->rows > 0) {
    /* p = 0: the DAE alone fixes its only solution; conditions cannot choose */
    return app_failf(APP_EXIT_INPUT,
                     "%s: the solution manifold has dimension p = 0: the DAE alone fixes its "
                     "only solution, there is nothing for the %d boundary condition(s) to "
                     "choose; remove the bc statements",
                     R->path, C->rows);
  }
  if (R->p == 0) {
    return 0;
  }
  if (C->rows == 0 && lth_problem_get_form(R->pb) == LTH_FORM_EQUATIONS) {
    return no_bc_equations(R);
  }
  if (C->rows == 0) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: no boundary conditions: lth-bvp needs the statements `bc B0 = [...]` "
                     "and `bc B1 = [...]` (each p x s = %d x %d) and `bc beta = [...]` (%d x 1) "
                     "for B0 z(t0) + B1 z(t1) = beta",
                     R->path, R->p, R->s, R->p);
  }
  if (C->rows != R->p) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: the bc statements have %d %s; the solution manifold has dimension "
                     "p = %d, so exactly p boundary conditions are needed (B0, B1: %d x %d, "
                     "beta: %d x 1)",
                     R->path, C->rows, app_plural(C->rows, "row", "rows"), R->p, R->p, R->s, R->p);
  }
  return 0;
}

/* What this run asks that only the dense path does (NULL: nothing). */
static const char *dense_only(const app_ctx *C) {
  if (C->method != LTH_BVP_COLLOCATION) {
    return "--method shooting, multiple or fd (the operator path collocates)";
  }
  if (C->coefficients != 0) {
    return "--coefficients (the operator path decomposes at every point it uses)";
  }
  if (!lth_bvp_op_available()) {
    return "this build without SuiteSparse KLU (the operator path's sparse solver)";
  }
  return NULL;
}

/* The dense collocation's memory for its first two meshes (8 and 16
 * intervals, LTH_DEFAULT_COLLOC_INITIAL): per interval the bases W (m x p),
 * G W (s x p), F, the table's dC and the homogeneous solutions (p x p
 * each), and once the stage matrix of one Gauss step ((stages p)^2) with its
 * right-hand sides; and the flops of the stage LUs, (2/3)(stages p)^3 per
 * interval (lib/colloc/colloc_mesh.c). */
static void dense_cost(const app_ctx *C, const app_run *R, double *bytes, double *flops) {
  double p = R->p, m = lth_system_state_dim(R->sys), s = R->s;
  double tol = C->tol > 0 ? C->tol : LTH_DEFAULT_COLLOC_TOL;
  double sp = (C->stages > 0 ? (double)C->stages : lth_bvp_collocation_stages(tol)) * p,
         nint = 3.0 * LTH_DEFAULT_COLLOC_INITIAL;
  *bytes = 8.0 * (nint * ((m + s) * p + 3.0 * p * p) + sp * sp + sp * (p + 1.0));
  *flops = nint * (2.0 / 3.0) * sp * sp * sp;
}

/* The path; on the dense one, collocation that cannot fit is refused up front
 * (never minutes of swapping), and a long one says what it will take. */
static int choose_path(app_ctx *C, app_run *R) {
  int rc = app_path_choose(&C->path, R, C->path_opt, dense_only(C), LTH_PATH_SPARSE_A);
  if (rc || C->path.op || C->method != LTH_BVP_COLLOCATION || R->p == 0) {
    return rc;
  }
  double bytes, flops;
  dense_cost(C, R, &bytes, &flops);
  double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  if (phys > 0 && bytes > phys) {
    return app_failf(APP_EXIT_NUMERIC,
                     "%s: dense collocation at s = %d (p = %d free constants) needs about %.3g GB "
                     "for its first two meshes, more than this machine's %.3g GB: use --path "
                     "operator (sparse, for A with few nonzeros)",
                     R->path, R->s, R->p, bytes / 1e9, phys / 1e9);
  }
  if (flops > LTH_DEFAULT_BVP_DENSE_WARN_FLOPS) {
    app_warn("dense collocation at s = %d (p = %d): about %.3g GB and %.3g Tflop of stage LUs for "
             "its first two meshes alone (minutes); --path operator solves sparse systems "
             "without p x p blocks",
             R->s, R->p, bytes / 1e9, flops / 1e12);
  }
  return 0;
}

static int prepare(app_ctx *C, app_run *R) {
  int rc = check_bc(C, R);
  return rc ? rc : choose_path(C, R);
}

/* ------------------------------------------------------------------------ */
/* Solving                                                                  */

/* The operator path: lth_bvp_solve_op with the bc as compressed columns
 * (p = 0: no rows, every column empty). */
static lth_status compute_op(app_ctx *C, app_run *run, const lth_bvp_opts *o, lth_error *err) {
  static const double none = 0.0;
  lth_bvp_sparse_bc bc = C->sbc;
  int *empty = NULL;
  if (C->rows == 0) {
    empty = calloc((size_t)run->s + 1, sizeof *empty);
    if (!empty) return lth_error_set(err, LTH_ENOMEM, "out of memory");
    bc.B0 = bc.B1 = (lth_bvp_csc){empty, empty, &none};
    bc.beta = &none;
  }
  /* the data's jumps that would need an impulse: the operator form has no
   * enclosures to see them, the system it was made from has */
  lth_status st = lth_bvp_check_data(run->sys, run->t0, run->t1, err);
  if (st == LTH_OK) {
    st =
        lth_bvp_solve_op(C->path.sys, run->t0, run->t1, &bc, run->tm.t, run->tm.n, o, &C->res, err);
  }
  free(empty);
  return st;
}

/* The dense path: the bc as p x s matrices (made here from mm() files). */
static lth_status compute_dense(app_ctx *C, app_run *run, const lth_bvp_opts *o, lth_error *err) {
  lth_problem_bc(run->pb, &C->B0, &C->B1, &C->beta);
  if (C->rows > 0 && (!C->B0 || !C->B1)) {
    return lth_error_set(err, LTH_ENOMEM,
                         "out of memory for the boundary conditions as dense %d x %d matrices",
                         C->rows, run->s);
  }
  return lth_bvp_solve(run->sys, run->t0, run->t1, C->rows, C->B0, C->B1, C->beta, run->tm.t,
                       run->tm.n, o, &C->res, err);
}

static lth_status compute(app_ctx *C, app_run *run, lth_error *err) {
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = (lth_bvp_method)C->method;
  o.ivp.rtol = C->rtol;
  o.ivp.atol = C->atol;
  app_ivp_setup(run, &o.ivp);
  o.ivp.coefficients = (lth_ivp_coefficients)C->coefficients; /* auto|direct|table */
  o.cond_max = run->opt->cond_max;
  o.multiple.intervals = (int)C->intervals;
  o.fd.points = (size_t)C->points;
  o.fd.order_check = !C->no_order_check;
  o.colloc.tol = C->tol;
  o.colloc.stages = (int)C->stages;
  o.colloc.max_intervals = (size_t)C->max_intervals;
  o.progress = app_progress_update;
  o.progress_ctx = &run->progress;
  if (o.method == LTH_BVP_COLLOCATION) {
    run->progress.unit = "digits of the tolerance (mesh refinements)";
  }
  lth_status st = C->path.op ? compute_op(C, run, &o, err) : compute_dense(C, run, &o, err);
  if (st == LTH_EBC) {
    /* about the bc statements (e.g. rank [B0 B1] < p): an input error */
    lth_error_prefix(err, "bc statements: ");
    lth_error_set_pos(err, run->path, 0, 0);
  }
  if (st == LTH_OK) {
    st = app_sampling_over(&C->smp, run->pb, run->r, run->tm.t, run->tm.n, err);
  }
  if (st == LTH_OK) {
    st = app_outputs(run, C->res->times, C->res->z, NULL, C->res->n, &C->z, NULL, err);
  }
  if (st == LTH_OK) { /* the outputs y = C z + D u + y0 */
    st = app_signal_outputs(run, C->res->times, C->z, (size_t)run->nout, C->res->n, err);
  }
  if (st == LTH_OK) {
    resolve_ctx R = {C, run, o};
    st = app_sampling_error(run->sys, run->tm.t, run->tm.n, C->res->z, NULL, resolve_bvp, &R,
                            &C->sampling_error, err);
    if (st != LTH_OK) {
      lth_error_prefix(err, "estimating the sampling error: ");
    }
  }
  return st;
}

static lth_status check(const app_ctx *C, const app_run *run, lth_error *err) {
  const lth_bvp_result *res = C->res;
  lth_status st = LTH_OK;
  st = app_check_rows(st, err, "the solution z", res->times, C->z, res->n, (size_t)run->nout,
                      &run->names);
  st = app_check_value(st, err, "the condition estimate cond_shooting", NAN, res->cond_shooting);
  if (C->method == LTH_BVP_COLLOCATION && !C->path.op) { /* the operator path has no cond_bvp */
    st = app_check_value(st, err, "the condition number cond_bvp", NAN, res->cond_bvp);
    st = app_check_value(st, err, "the error estimate", NAN, res->error_estimate);
  }
  return app_check_value(st, err, "the boundary residual", NAN, res->bc_residual);
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

static int is_shooting(const lth_bvp_result *res) {
  return res->method == LTH_BVP_SHOOTING || res->method == LTH_BVP_MULTIPLE;
}

/* The collocation tolerance and stages in effect (the library's defaults). */
static double colloc_tol(const app_ctx *C) { return C->tol > 0 ? C->tol : LTH_DEFAULT_COLLOC_TOL; }
static int colloc_stages(const app_ctx *C) {
  return C->stages > 0 ? (int)C->stages : lth_bvp_collocation_stages(colloc_tol(C));
}

/* JSON has no NaN: a value that was not estimated is left out. */
static void json_opt(app_json *j, const char *key, double x) {
  if (isfinite(x)) {
    app_json_put_number(j, key, x);
  }
}

static void json_method(app_json *j, const app_ctx *C, const app_run *run) {
  const lth_bvp_result *res = C->res;
  app_json_put_string(j, "method", lth_bvp_method_name(res->method));
  app_json_put_string(j, "path", app_path_name(&C->path));
  app_json_put_int(j, "p", run->p);
  app_json_put_int(j, "s", run->s);
  app_json_put_number(j, "bc_residual", res->bc_residual);
  json_opt(j, "cond_bvp", res->cond_bvp);
  json_opt(j, "error_estimate", res->error_estimate);
  if (res->method == LTH_BVP_COLLOCATION) {
    app_json_put_number(j, "tol", colloc_tol(C));
    app_json_put_int(j, "stages", colloc_stages(C));
    app_json_put_int(j, "intervals", res->intervals);
    json_opt(j, "drift", res->drift);
    if (C->path.op) { /* Pi between the points (include/lth/bvp.h) */
      app_json_put_number(j, "pi_proven", res->pi_proven);
      app_json_put_int(j, "pi_proofs", (long long)res->pi_proofs);
      if (res->pi_proven > 0) {
        app_json_put_number(j, "pi_inv_bound", res->pi_inv_bound);
      } else {
        app_json_key(j, "pi_inv_bound");
        app_json_null(j);
      }
    }
  } else if (is_shooting(res)) {
    json_opt(j, "drift", res->drift);
    app_json_put_number(j, "rtol", C->rtol);
    app_json_put_number(j, "atol", C->atol);
  }
  if (res->method == LTH_BVP_MULTIPLE) {
    app_json_put_int(j, "intervals", res->intervals);
  }
  if (res->method == LTH_BVP_FD) {
    app_json_put_int(j, "fd_points", (long long)res->fd_points);
    json_opt(j, "fd_order", res->fd_order);
    json_opt(j, "fd_error", res->fd_error);
    json_opt(j, "fd_error_layer", res->fd_error_layer);
  }
}

static void write_json(const app_ctx *C, app_run *run) {
  const lth_bvp_result *res = C->res;
  app_json *j = &run->json;
  app_json_begin_object(j);
  app_json_put_vector(j, "times", res->times, res->n);
  app_json_rows(j, "z", C->z, res->n, (size_t)run->nout);
  app_json_outputs(j, run, res->n);
  app_json_put_number(j, "cond_shooting", res->cond_shooting);
  json_method(j, C, run);
  app_json_names(j, "components", &run->names);
  if (C->smp.n > 0) {
    app_json_key(j, "sampling");
    app_sampling_json(&C->smp, j);
  }
  json_opt(j, "sampling_error", C->sampling_error);
  app_json_end_object(j);
}

static void write_csv(const app_ctx *C, app_run *run) {
  app_csv_z_run(run, C->res->times, C->z, C->res->n);
}

static const char *method_text(lth_bvp_method m) {
  switch (m) {
  case LTH_BVP_MULTIPLE:
    return "multiple shooting";
  case LTH_BVP_FD:
    return "finite differences (implicit Euler + consistency conditions)";
  case LTH_BVP_COLLOCATION:
    return "Gauss collocation of the reduced ODE, adaptive mesh";
  default:
    return "single shooting (Clark section 4)";
  }
}

/* The operator path's proof that Pi is nonsingular between the points
 * (include/lth/bvp.h): how much of [t0, t1], or why none; as lth-solve's. */

static void text_header(FILE *fp, const app_ctx *C, const app_run *R) {
  const lth_bvp_result *res = C->res;
  char b0[32], b1[32];
  fprintf(fp, "file           %s\n", R->path);
  fprintf(fp, "index          r = %d, s = %d components, manifold p = %d (= bc rows)\n", R->r, R->s,
          R->p);
  app_index1_line(fp, R);
  fprintf(fp, "interval       [%s, %s]\n", app_fmt_exact(b0, sizeof b0, R->t0),
          app_fmt_exact(b1, sizeof b1, R->t1));
  fprintf(fp, "method         %s\n", method_text(res->method));
  if (C->path.op) { /* the dense path is the default's report: no line */
    fprintf(fp, "path           operator (%s): one sparse collocation system per mesh (KLU)\n",
            C->path.why);
  }
  fprintf(fp, "cond_shooting  %.3g%s\n", res->cond_shooting,
          res->method == LTH_BVP_FD         ? " (condition of the banded system)"
          : res->method == LTH_BVP_MULTIPLE ? " (condition of the multiple-shooting system)"
          : res->method == LTH_BVP_COLLOCATION && C->path.op
              ? " (KLU's estimate for the collocation system)"
          : res->method == LTH_BVP_COLLOCATION ? " (reduced two-point matrix)"
                                               : " (shooting matrix S = B0 Phi(t0) + B1 Phi(t1))");
  if (isfinite(res->cond_bvp)) {
    fprintf(fp, "cond_bvp       %.3g (a relative change d in beta moves z by up to cond_bvp d)\n",
            res->cond_bvp);
  }
  fprintf(fp, "bc residual    ||B0 z(t0) + B1 z(t1) - beta|| = %.3g\n", res->bc_residual);
  if (res->method == LTH_BVP_MULTIPLE) {
    fprintf(fp, "intervals      %d\n", res->intervals);
  }
  if (res->method == LTH_BVP_COLLOCATION) {
    fprintf(fp, "collocation    %d Gauss %s (order %d), %d mesh %s, tol %.3g\n", colloc_stages(C),
            app_plural(colloc_stages(C), "stage", "stages"), 2 * colloc_stages(C), res->intervals,
            app_plural(res->intervals, "interval", "intervals"), colloc_tol(C));
    fprintf(fp, "error          ~%.3g (estimated, max-norm over the output times); drift %.3g\n",
            res->error_estimate, res->drift);
    if (C->path.op) { /* Pi between the points (include/lth/bvp.h) */
      app_text_pi_proof(fp, "the mesh points", res->pi_proof_off, res->pi_proven, res->pi_proofs,
                        res->pi_inv_bound, R->t0, R->t1);
    }
  } else if (is_shooting(res)) {
    fprintf(fp, "integrator     rtol %.3g, atol %.3g; drift max ||P v|| = %.3g\n", C->rtol, C->atol,
            res->drift);
  } else {
    fprintf(fp, "grid           %zu points\n", res->fd_points);
    if (isfinite(res->fd_error)) {
      fprintf(fp,
              "fd error       ~%.3g (observed order %.3g); in the first r = %d steps "
              "~%.3g\n",
              res->fd_error, res->fd_order, R->r, res->fd_error_layer);
    } else {
      fprintf(fp, "fd error       not estimated (--no-order-check)\n");
    }
  }
  if (C->smp.n > 0) {
    app_sampling_text(&C->smp, fp);
  }
  if (isfinite(C->sampling_error)) {
    fprintf(fp,
            "sampling error ~%.2e in z (the samples' fits, propagated; the method's own "
            "error comes on top)\n",
            C->sampling_error);
  }
}

static void write_text(const app_ctx *C, app_run *run) {
  text_header(run->fp, C, run);
  app_text_table_run(run->fp, run, C->res->times, C->z, C->res->n);
}

/* The two cases where a result needs a second look. */
static lth_status after(app_ctx *C, const app_run *R, lth_error *err) {
  (void)err;
  const lth_bvp_result *res = C->res;
  if (res->cond_shooting > 1e8 && res->method == LTH_BVP_FD) {
    app_warn("the finite-difference system has condition estimate %.3g (it grows like "
             "h^-(r-1) for index r = %d): about %.0f digits may be lost; prefer --method "
             "collocation",
             res->cond_shooting, R->r, floor(log10(res->cond_shooting)));
  } else if (res->cond_shooting > 1e8 && !C->path.op) {
    /* on the operator path cond_shooting is the sparse collocation matrix's
     * condition, which grows with the mesh and the size whatever the
     * conditions: what rounding costs shows in the two meshes' difference */
    app_warn("cond_shooting = %.3g: the boundary conditions barely determine the solution; "
             "about %.0f digits may be lost (check the bc statements%s)",
             res->cond_shooting, floor(log10(res->cond_shooting)),
             res->method == LTH_BVP_SHOOTING ? ", or try --method multiple" : "");
  }
  /* implicit Euler's first r steps: the algebraic components there come from
   * differences of differences and are only O(1) accurate for index >= 3 */
  if (res->method == LTH_BVP_FD && isfinite(res->fd_error_layer) &&
      res->fd_error_layer > 10.0 * fmax(res->fd_error, 1e-12) && res->fd_error_layer > 1e-6) {
    app_warn("finite differences: the error in the first r = %d steps after t0 is ~%.3g, "
             "against ~%.3g elsewhere: implicit Euler's algebraic components start with an "
             "error there (index %d); use --method collocation for accurate values near t0",
             R->r, res->fd_error_layer, res->fd_error, R->r);
  }
  app_sampling_warn(&C->smp, 1e-6);
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* The tool                                                                 */

static void cleanup(app_ctx *C) {
  lth_bvp_result_free(C->res);
  app_path_free(&C->path);
  free(C->z);
  app_sampling_free(&C->smp);
}

/* The tool's options (with their defaults) and its description for the driver. */
static app_ctx ctx = {.rtol = LTH_DEFAULT_RTOL,
                      .atol = LTH_DEFAULT_ATOL,
                      .method = LTH_BVP_COLLOCATION,
                      .sampling_error = NAN};
static app_option opts[] = {
    /* choice k is lth_bvp_method k: a method is one more name here (and its help) */
    APP_CHOICE("method", &ctx.method, "shooting|multiple|fd|collocation"),
    APP_INT("intervals", &ctx.intervals, 1, 1e6),
    APP_INT("points", &ctx.points, 3, 1e8),
    APP_FLAG("no-order-check", &ctx.no_order_check),
    APP_DOUBLE("tol", &ctx.tol, 1e-15, 0.5),
    APP_INT("stages", &ctx.stages, 1, 8),
    APP_INT("max-intervals", &ctx.max_intervals, 1, 1e7),
    APP_DOUBLE("rtol", &ctx.rtol, 1e-15, 1),
    APP_DOUBLE("atol", &ctx.atol, 1e-300, 1e300),
    APP_CHOICE("coefficients", &ctx.coefficients, "auto|direct|table"),
    APP_CHOICE("path", &ctx.path_opt, APP_PATH_CHOICES),
};
static const app_tool tool = {
    .name = "lth-bvp",
    .help = help_text,
    .help_tail = help_tail,
    .times = APP_TIMES_MANY,
    .progress_label = "solving",
    .progress_unit = "grid points",
    .opts = opts,
    .nopts = APP_COUNT(opts),
    .validate = validate,
    .prepare = prepare,
    .compute = compute,
    .check = check,
    .after = after,
    .write = {write_text, write_csv, write_json},
    .cleanup = cleanup,
};

int main(int argc, char **argv) { return app_main(&tool, &ctx, argc, argv); }
