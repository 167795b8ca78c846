/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-ic: a consistent initial value of a data file's DAE at one time
 * (docs/format.md section 2; docs/user-guide.md section 5).
 *
 * Three ways to turn a guess into a consistent value, all from lth/ic.h:
 * Clark's Corollary 3 (oblique projection, the default), the nearest
 * consistent value in the 2-norm (--nearest), and prescribed components
 * (--fix).  Every result is checked against the consistency conditions
 * M0 z0 = b0 of Clark's section 4.1 before it is printed.  The driver
 * (app_driver.h) does the rest: options, loading, the time, the output.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_check.h"
#include "app_driver.h"
#include "app_path.h"
#include "app_samplerr.h"
#include "app_table.h"
#include "lth/decomp.h"
#include "lth/ic.h"
#include "lth/opic.h"
#include "lth/problem.h"

static const char help_text[] =
    "Usage: lth-ic FILE [OPTIONS]\n"
    "A consistent initial value of the Hessenberg DAE  E z' = A(t) z + f(t)  in\n"
    "FILE at one time: a z0 that satisfies the algebraic constraints and their\n"
    "hidden derivatives, so that a solution through it exists (lth-solve needs\n"
    "one).  Consistent values form an affine space of dimension p:\n"
    "z0 = G(t) v + q(t), G = [Nhat + Bhat](I - P) (Clark's Corollary 3).\n"
    "\n"
    "Input:\n"
    "  --guess V1,V2,...   the guess, s numbers in the order of z = (z_1, ...,\n"
    "                      z_{r-1}, u), or of `variables` for an equation-form\n"
    "                      file (default: the file's `z0`, else zeros)\n"
    "\n"
    "Method (default: oblique projection, Clark's Corollary 3): keep the state\n"
    "part of the guess, v0 = (I - P(t)) z(1:m) (m = s - n_r), and compute the\n"
    "algebraic part from it: z0 = G(t) guess(1:m) + q(t).  The guess's algebraic\n"
    "components (w_i = P_i z_i and u) are ignored; a consistent guess is\n"
    "returned unchanged.\n"
    "  --nearest           instead the consistent value closest to the guess in\n"
    "                      the 2-norm (orthogonal projection onto the affine space)\n"
    "  --fix I=V,...       instead a consistent value with z[I] = V (I 1-based, as\n"
    "                      in the text report, or a component's name: --fix\n"
    "                      x1=0.5, x' also as d.x or x_dot; several pairs\n"
    "                      separated by commas),\n"
    "                      the remaining freedom fitted to the guess in least\n"
    "                      squares.  Fails (exit 3) naming the component when the\n"
    "                      values contradict the constraints or each other (at most\n"
    "                      p independent ones can be prescribed)\n"
    "\n"
    "Output:\n"
    "  --conditions        also print the s - p consistency conditions M0 z0 = b0\n"
    "                      (Clark section 4.1: M0 has orthonormal rows spanning\n"
    "                      N(G^T), b0 = M0 q)\n"
    "  --path P            auto (default), dense or operator.  The operator path\n"
    "                      (large sparse systems) computes z0 = G guess + q\n"
    "                      without s x s matrices; residual is then\n"
    "                      ||z0 - (G z0 + q)||, an upper bound of ||M0 z0 - b0||.\n"
    "                      Auto takes it from s = 500 on when A stores at most\n"
    "                      50% of s^2 entries; sampled data,\n"
    "                      --nearest, --fix and --conditions keep auto on the\n"
    "                      dense path and refuse --path operator\n";

static const char help_tail[] =
    "Example (the linearised pendulum: z = (dx', dy', dx, dy, d lambda); the\n"
    "guess has a wrong dy and a wrong force):\n"
    "  lth-ic data/pendulum.lth --guess 0.1,0,0.05,0.2,3\n"
    "prints the guess, the consistent z0 = (0.1, 0, 0.05, 0, 0) and which\n"
    "components changed, and a line `z0 = [...]` to paste into the data file.\n"
    "  lth-ic data/pendulum.lth --format json      (abridged; numbers print %.17g)\n"
    "  {\"t\": 0, \"p\": 2, \"z0\": [0.1, 0, 0.05, 0, 0], \"residual\": 0, \"method\": ...}\n"
    "\n"
    "JSON keys: t, p, z0 (s numbers), residual = ||M0 z0 - b0||_2; extensions:\n"
    "method (\"project\", \"nearest\" or \"fix\"), s, index, components (the names\n"
    "of z's positions; for an equation-form file also variables and\n"
    "variable_index, as lth-solve), outputs and y (a file with outputs: their\n"
    "names and their values at z0), guess, guess_source,\n"
    "guess_residual, change = ||z0 - guess||_2, changed (1-based indices of the\n"
    "components that moved), tolerance (the residual below which a value counts\n"
    "as consistent), sampling_error (sampled data only: the estimated error of\n"
    "z0 that the samples' fits cause, docs/sampled-data.md), fixed\n"
    "([{\"index\", \"value\"}] with --fix), cond_chain,\n"
    "conditions ({\"M0\": [[...]], \"b0\": [...]} with --conditions).  Numbers\n"
    "are printed with %.17g and read back exactly.\n"
    "CSV: a header t,\"z[1]\",...,\"z[s]\",residual (an equation-form file: its\n"
    "unknowns by name in the order of `variables`; a file's outputs after them)\n"
    "and one row: the time, z0, the outputs and ||M0 z0 - b0||.\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, T outside the interval,\n"
    "wrong number of guess values, bad --fix), 2 input error (unreadable or\n"
    "malformed file; the message names file:line:column), 3 numerical failure\n"
    "(Pi singular or ill-conditioned at T, --fix values that cannot hold, a\n"
    "result that is not finite).\n";

enum { METHOD_PROJECT = 0, METHOD_NEAREST = 1, METHOD_FIX = 2 };

/* The options of lth-ic and everything a run computes, for the writers. */
struct app_ctx {
  app_list guess_opt; /* --guess */
  int nearest;
  const char *fix;
  int conditions;
  int method;
  double t;
  double *guess, *z0; /* s each */
  double *scratch;    /* s */
  const char *guess_source;
  int nfix;
  int *fix_idx; /* 0-based */
  double *fix_val;
  double residual, guess_residual, tolerance, guess_tolerance, change, cond_chain;
  double sampling_error; /* the data's contribution to z0's error (NaN: exact data) */
  double cond_max;       /* --cond-max */
  int nchanged;
  int *changed; /* 0-based indices of moved components */
  lth_ic *ic;
  int path_opt;    /* --path: APP_PATH_AUTO, _DENSE, _OPERATOR */
  app_path path;   /* the path taken */
  lth_opic *opic; /* the operator path's point at t */
};

/* ------------------------------------------------------------------------ */
/* Options                                                                  */

static int validate(app_ctx *C, const app_run *run) {
  (void)run;
  if (C->nearest && C->fix) {
    return app_usage_error("--nearest and --fix exclude each other");
  }
  return 0;
}

/* "I=V,I=V,...": 1-based indices into z (checked against s), finite values. */
static int parse_fix(const char *text, int s, const app_names *names, app_ctx *R) {
  size_t cap = 1;
  for (const char *c = text; *c; c++) {
    cap += *c == ',';
  }
  char *copy = malloc(strlen(text) + 1);
  R->fix_idx = malloc(cap * sizeof *R->fix_idx);
  R->fix_val = malloc(cap * sizeof *R->fix_val);
  if (!copy || !R->fix_idx || !R->fix_val) {
    free(copy);
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  strcpy(copy, text);
  int rc = APP_CONTINUE;
  char *save = NULL;
  R->nfix = 0;
  for (char *item = strtok_r(copy, ",", &save); item && rc == APP_CONTINUE;
       item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    long idx = 0;
    double val = 0.0;
    if (!eq) {
      rc = app_usage_error("--fix: '%s' is not I=VALUE or NAME=VALUE (I a 1-based index into z, "
                           "NAME a component's name)",
                           item);
      break;
    }
    *eq = '\0';
    int pos = app_names_find(names, item, strlen(item));
    idx = pos + 1;
    if (pos < 0 && app_parse_long(item, &idx) == 0) {
      rc = app_usage_error("--fix: index '%s' is not an integer in 1..%d (s = %d components)", item,
                           s, s);
    } else if (pos < 0) {
      rc = app_usage_error("--fix: '%s' is neither a component's name (%s, ...) nor an index "
                           "1..%d",
                           item, names->name[names->order[0]], s);
    } else if (pos >= s) {
      rc = app_usage_error("--fix: %s is an index-1 unknown, which the others fix (y = -K^-1 (L "
                           "z + f)); fix differential unknowns instead",
                           names->name[pos]);
    } else if (app_parse_double(eq + 1, &val) != 0) {
      rc = app_usage_error("--fix: value '%s' for z[%ld] is not a finite number", eq + 1, idx);
    }
    for (int k = 0; k < R->nfix && rc == APP_CONTINUE; k++) {
      if (R->fix_idx[k] == idx - 1) {
        rc = app_usage_error("--fix: z[%ld] is given twice", idx);
      }
    }
    if (rc == APP_CONTINUE) {
      R->fix_idx[R->nfix] = (int)(idx - 1);
      R->fix_val[R->nfix++] = val;
    }
  }
  if (rc == APP_CONTINUE && R->nfix == 0) {
    rc = app_usage_error("--fix needs at least one I=VALUE pair");
  }
  free(copy);
  return rc;
}

/* The guess: --guess, else the file's z0, else zeros. */
static int select_guess(app_ctx *R, const app_run *run) {
  const double *fz0 = NULL;
  if (R->guess_opt.n > 0) {
    if (R->guess_opt.n != (size_t)run->nout) {
      char blocks[128] = "";
      size_t used = 0;
      for (int i = 1; i <= run->r && used < sizeof blocks; i++) {
        int k = snprintf(blocks + used, sizeof blocks - used, "%s%d", i > 1 ? " " : "",
                         lth_system_block_size(run->sys, i));
        used += k > 0 ? (size_t)k : 0;
      }
      return app_usage_error("--guess has %zu %s; %s has %s = %d components (blocks %s%s)",
                             R->guess_opt.n, app_plural((double)R->guess_opt.n, "value", "values"),
                             run->path, run->nout > run->s ? "with its index-1 unknowns" : "s",
                             run->nout, blocks, run->nout > run->s ? " and index 1" : "");
    }
    memcpy(R->guess, R->guess_opt.v, (size_t)run->nout * sizeof *R->guess);
    if (app_names_to_canonical(&run->names, R->guess) != 0) { /* equation form: user order */
      return app_failf(APP_EXIT_NUMERIC, "out of memory");
    }
    R->guess_source = "--guess";
  } else if (lth_problem_z0(run->pb, &fz0)) {
    memcpy(R->guess, fz0, (size_t)run->nout * sizeof *R->guess);
    R->guess_source = "the file's z0";
  } else {
    memset(R->guess, 0, (size_t)run->nout * sizeof *R->guess);
    R->guess_source = "zeros (no --guess, no z0 in the file)";
  }
  return 0;
}

static int prepare(app_ctx *R, app_run *run) {
  size_t s = (size_t)run->nout; /* z, then the index-1 unknowns (the library sees z) */
  R->method = R->fix ? METHOD_FIX : R->nearest ? METHOD_NEAREST : METHOD_PROJECT;
  R->guess = calloc(s + 1, sizeof *R->guess);
  R->z0 = calloc(s + 1, sizeof *R->z0);
  R->scratch = calloc(s + 1, sizeof *R->scratch);
  R->changed = calloc(s + 1, sizeof *R->changed);
  if (!R->guess || !R->z0 || !R->scratch || !R->changed) {
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  int rc = select_guess(R, run);
  if (rc == 0 && R->fix) {
    rc = parse_fix(R->fix, run->s, &run->names, R);
    rc = rc == APP_CONTINUE ? 0 : rc;
  }
  const char *dense_only = R->method == METHOD_NEAREST ? "--nearest (an orthogonal projection "
                                                         "onto the s x s consistency conditions)"
                           : R->method == METHOD_FIX   ? "--fix (a least-squares fit on the s x s "
                                                         "consistency conditions)"
                           : R->conditions ? "--conditions (M0 has s - p rows of s entries)"
                                           : NULL;
  return rc ? rc : app_path_choose(&R->path, run, R->path_opt, dense_only, 0);
}

/* ------------------------------------------------------------------------ */
/* Computation                                                              */

/* Powers of two that bring a norm near DBL_MAX back into range (exact). */
#define SCALE_DOWN 0x1p-16
#define SCALE_UP   0x1p16

/* lth_ic_tolerance(x) = 1e-10 max(1, ||q||, ||x||) overflows when ||x|| does
 * (entries near DBL_MAX; lib/ic/ic.c takes the plain norm): then it is taken at
 * x 2^-16 and scaled back, exact while ||x|| 2^-16 still exceeds ||q|| and 1. */
static double tolerance_of(const app_ctx *R, const double *x, int s) {
  double tol = lth_ic_tolerance(R->ic, x);
  if (isfinite(tol)) {
    return tol;
  }
  for (int i = 0; i < s; i++) {
    R->scratch[i] = x[i] * SCALE_DOWN;
  }
  return lth_ic_tolerance(R->ic, R->scratch) * SCALE_UP;
}

/* ||M0 x - b0||, the same with x and b0 scaled down when M0 x overflows. */
static double residual_of(const app_ctx *R, const double *x, int s) {
  double res = lth_ic_residual(R->ic, x);
  if (isfinite(res)) {
    return res;
  }
  const double *M0, *b0;
  int np = lth_ic_conditions(R->ic, &M0, &b0);
  double *r = malloc(((size_t)np + 1) * sizeof *r);
  if (!r) {
    return res;
  }
  for (int i = 0; i < np; i++) {
    r[i] = -b0[i] * SCALE_DOWN;
    for (int j = 0; j < s; j++) {
      r[i] += M0[i + (size_t)j * (size_t)np] * (x[j] * SCALE_DOWN);
    }
  }
  res = app_norm2(r, (size_t)np) * SCALE_UP;
  free(r);
  return res;
}

static lth_status apply_method(app_ctx *R, lth_error *err) {
  switch (R->method) {
  case METHOD_NEAREST:
    return lth_ic_nearest(R->ic, R->guess, R->z0, err);
  case METHOD_FIX:
    return lth_ic_fix(R->ic, R->guess, R->nfix, R->fix_idx, R->fix_val, R->z0, err);
  default:
    return lth_ic_project(R->ic, R->guess, R->z0, err);
  }
}

/* app_sampling_error's extra computation: the same method on a variant system. */
static lth_status resolve_ic(void *ctx, const lth_system *variant, double *z, lth_error *err) {
  app_ctx *R = ctx;
  lth_ic *own = R->ic;
  R->ic = lth_ic_alloc(variant, err);
  if (R->ic) {
    lth_ic_set_cond_max(R->ic, R->cond_max);
  }
  lth_status st = R->ic ? lth_ic_setup(R->ic, R->t, err) : LTH_ENOMEM;
  double *keep = R->z0;
  R->z0 = z;
  st = st == LTH_OK ? apply_method(R, err) : st;
  R->z0 = keep;
  lth_ic_free(R->ic);
  R->ic = own;
  return st;
}

/* The operator path: z0 = G guess(1:m) + q at t (Corollary 3) from
 * lth_opdecomp_at, its residual ||z0 - (G z0(1:m) + q)|| (include/lth/opic.h). */
/* What `residual` measures on each path. */
static const char *resid_name(const app_ctx *R) {
  return R->path.op ? "||z0 - (G z0 + q)||" : "||M0 z0 - b0||";
}

static lth_status compute_op(app_ctx *R, lth_error *err) {
  R->opic = lth_opic_alloc(R->path.sys, err);
  if (!R->opic) {
    return err->status != LTH_OK ? err->status : LTH_ENOMEM;
  }
  lth_opic_set_cond_max(R->opic, R->cond_max);
  lth_status st = lth_opic_setup(R->opic, R->t, err);
  if (st != LTH_OK) {
    return st;
  }
  R->cond_chain = lth_opic_info(R->opic)->cond_chain;
  st = lth_opic_project(R->opic, R->guess, R->z0, err);
  st = st == LTH_OK ? lth_opic_residual(R->opic, R->z0, &R->residual, err) : st;
  st = st == LTH_OK ? lth_opic_residual(R->opic, R->guess, &R->guess_residual, err) : st;
  R->tolerance = lth_opic_tolerance(R->opic, R->z0);
  R->guess_tolerance = lth_opic_tolerance(R->opic, R->guess);
  return st;
}

/* The dense path: lth_ic (include/lth/ic.h). */
static lth_status compute_dense(app_ctx *R, const app_run *run, lth_error *err) {
  int s = run->s;
  R->ic = lth_ic_alloc(run->sys, err);
  if (!R->ic) {
    return err->status;
  }
  lth_ic_set_cond_max(R->ic, R->cond_max);
  lth_status st = lth_ic_setup(R->ic, R->t, err);
  if (st != LTH_OK) {
    return st;
  }
  R->cond_chain = lth_ic_point(R->ic)->cond_chain;
  st = apply_method(R, err);
  if (st != LTH_OK) {
    if (!err->has_t) {
      err->has_t = 1;
      err->t = R->t;
    }
    return st;
  }
  R->residual = residual_of(R, R->z0, s);
  R->guess_residual = residual_of(R, R->guess, s);
  R->tolerance = tolerance_of(R, R->z0, s);
  R->guess_tolerance = tolerance_of(R, R->guess, s);
  return LTH_OK;
}

static lth_status compute(app_ctx *R, app_run *run, lth_error *err) {
  R->t = run->tm.t[0];
  R->cond_max = run->opt->cond_max;
  lth_status st = R->path.op ? compute_op(R, err) : compute_dense(R, run, err);
  if (st != LTH_OK) {
    return st;
  }
  if (run->vals) { /* the index-1 unknowns of z0 follow from z */
    double *zx = NULL;
    st = app_outputs(run, &R->t, R->z0, NULL, 1, &zx, NULL, err);
    if (st == LTH_OK) {
      memcpy(R->z0, zx, (size_t)run->nout * sizeof *R->z0);
    }
    free(zx);
  }
  st = app_check_vector(st, err, "the consistent value z0", R->t, R->z0, (size_t)run->nout,
                        &run->names);
  /* the file's outputs y = C z0 + D u + y0 at T (nothing without outputs) */
  st = st == LTH_OK ? app_signal_outputs(run, &R->t, R->z0, (size_t)run->nout, 1, err) : st;
  for (int k = 0; st == LTH_OK && run->y && k < run->ny; k++) {
    st = app_check_value(st, err, "an output y at z0", R->t, run->y[k]);
  }
  if (st != LTH_OK) {
    return st;
  }
  /* a value that misses the conditions would be silently wrong: refuse it */
  if (!(R->residual <= R->tolerance)) {
    return lth_error_set_t(err, LTH_EVERIFY, R->t,
                           "the computed z0 misses the consistency conditions: %s = %.3e "
                           "exceeds %.3e (cond_chain %.3e)",
                           resid_name(R), R->residual, R->tolerance, R->cond_chain);
  }
  for (int i = 0; i < run->nout; i++) {
    /* "changed": beyond the rounding of a consistent value (the index-1
     * unknowns too, as the text table marks them) */
    if (fabs(R->z0[i] - R->guess[i]) > R->tolerance) {
      R->changed[R->nchanged++] = i;
    }
  }
  R->change = app_dist2(R->z0, R->guess, (size_t)run->nout);
  st = app_sampling_error(run->sys, &R->t, 1, R->z0, NULL, resolve_ic, R, &R->sampling_error, err);
  if (st != LTH_OK) {
    lth_error_prefix(err, "estimating the sampling error: ");
  }
  return st;
}

/* Every number any format prints is finite (the guess is the user's own). */
static lth_status check(const app_ctx *R, const app_run *run, lth_error *err) {
  (void)run;
  lth_status st = LTH_OK;
  st = app_check_value(st, err, "the residual ||M0 z0 - b0||", R->t, R->residual);
  st = app_check_value(st, err, "the consistency tolerance", R->t, R->tolerance);
  st = app_check_value(st, err, "the residual of the guess ||M0 guess - b0||", R->t,
                       R->guess_residual);
  st = app_check_value(st, err, "the tolerance of the guess", R->t, R->guess_tolerance);
  st = app_check_value(st, err, "the change ||z0 - guess||", R->t, R->change);
  return app_check_value(st, err, "the chain condition cond_chain", R->t, R->cond_chain);
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

static const char *method_key(int method) {
  return method == METHOD_NEAREST ? "nearest" : method == METHOD_FIX ? "fix" : "project";
}

static const char *method_text(int method) {
  switch (method) {
  case METHOD_NEAREST:
    return "nearest consistent value in the 2-norm (--nearest)";
  case METHOD_FIX:
    return "prescribed components, the rest fitted to the guess (--fix)";
  default:
    return "oblique projection, Clark's Corollary 3: z0 = G (guess) + q";
  }
}

static void json_conditions(app_json *j, const app_ctx *R, int s) {
  const double *M0, *b0;
  int np = lth_ic_conditions(R->ic, &M0, &b0);
  app_json_key(j, "conditions");
  app_json_begin_object(j);
  app_json_key(j, "M0");
  app_json_matrix(j, M0, np, s, np > 0 ? np : 1);
  app_json_put_vector(j, "b0", b0, (size_t)np);
  app_json_end_object(j);
}

static void json_fixed(app_json *j, const app_ctx *R) {
  app_json_key(j, "fixed");
  app_json_begin_array(j);
  for (int k = 0; k < R->nfix; k++) {
    app_json_begin_object(j);
    app_json_put_int(j, "index", R->fix_idx[k] + 1);
    app_json_put_number(j, "value", R->fix_val[k]);
    app_json_end_object(j);
  }
  app_json_end_array(j);
}

static void write_json(const app_ctx *R, app_run *run) {
  app_json *j = &run->json;
  size_t s = (size_t)run->nout; /* z, then the index-1 unknowns */
  app_json_begin_object(j);
  app_json_put_number(j, "t", R->t);
  app_json_put_int(j, "p", run->p);
  app_json_put_vector(j, "z0", R->z0, s);
  app_json_put_number(j, "residual", R->residual);
  if (run->y) { /* the outputs' names and their values at z0 (ny numbers) */
    app_json_key(j, "outputs");
    app_json_begin_array(j);
    for (int k = 0; k < run->ny; k++) {
      app_json_string(j, run->ynames[k]);
    }
    app_json_end_array(j);
    app_json_put_vector(j, "y", run->y, (size_t)run->ny);
  }
  app_json_put_string(j, "method", method_key(R->method));
  app_json_put_string(j, "path", app_path_name(&R->path));
  app_json_put_int(j, "index", run->r);
  app_json_put_int(j, "s", run->s);
  /* the names of z's positions; for an equation-form file also the
   * unknowns in the file's order and where each position's unknown is */
  app_json_names(j, "components", &run->names);
  app_json_put_vector(j, "guess", R->guess, s);
  app_json_put_string(j, "guess_source", R->guess_source);
  app_json_put_number(j, "guess_residual", R->guess_residual);
  app_json_put_number(j, "change", R->change);
  app_json_key(j, "changed");
  app_json_begin_array(j);
  for (int k = 0; k < R->nchanged; k++) {
    app_json_int(j, R->changed[k] + 1);
  }
  app_json_end_array(j);
  app_json_put_number(j, "tolerance", R->tolerance);
  if (isfinite(R->sampling_error)) {
    app_json_put_number(j, "sampling_error", R->sampling_error);
  }
  app_json_put_number(j, "cond_chain", R->cond_chain);
  if (R->method == METHOD_FIX) {
    json_fixed(j, R);
  }
  if (R->conditions) {
    json_conditions(j, R, run->s);
  }
  app_json_end_object(j);
}

/* One row in the shape of lth-solve's table (an equation-form file's
 * unknowns by name, in the order of `variables`, then the outputs), plus
 * the residual. */
static void write_csv(const app_ctx *R, app_run *run) {
  app_csv *c = &run->csv;
  const app_names *nm = &run->names;
  fputc('t', c->fp);
  if (nm->user) {
    for (int k = 0; k < run->nout; k++) {
      fprintf(c->fp, ",\"%s\"", nm->name[nm->order[k]]);
    }
  } else {
    app_csv_quoted_names(c->fp, "z", run->nout);
  }
  for (int k = 0; run->y && k < run->ny; k++) {
    fprintf(c->fp, ",\"%s\"", run->ynames[k]);
  }
  fputs(",residual\n", c->fp);
  app_csv_number(c, R->t);
  for (int k = 0; k < run->nout; k++) {
    app_csv_number(c, R->z0[nm->order[k]]);
  }
  for (int k = 0; run->y && k < run->ny; k++) {
    app_csv_number(c, run->y[k]);
  }
  app_csv_number(c, R->residual);
  app_csv_end_row(c);
}

static int is_fixed(const app_ctx *R, int i) {
  for (int k = 0; k < R->nfix; k++) {
    if (R->fix_idx[k] == i) {
      return 1;
    }
  }
  return 0;
}

/* One row per component: name, guess, z0, change, a mark for moved ones. */
static void text_table(FILE *fp, const app_ctx *R, const app_run *run) {
  fprintf(fp, "\n  %-18s %24s %24s %12s\n", "component", "guess", "z0", "change");
  for (int c = 0; c < run->nout; c++) {
    int i = run->names.order[c]; /* the user's order (equation form) */
    char bg[32], bz[32];
    double d = R->z0[i] - R->guess[i];
    const char *mark = is_fixed(R, i) ? "  (fixed)" : fabs(d) > R->tolerance ? "  *" : "";
    fprintf(fp, "  %-18s %24s %24s %12.3g%s\n", run->names.full[i],
            app_fmt_exact(bg, sizeof bg, R->guess[i]), app_fmt_exact(bz, sizeof bz, R->z0[i]), d,
            mark);
  }
}

static void text_conditions(FILE *fp, const app_ctx *R, int s) {
  const double *M0, *b0;
  int np = lth_ic_conditions(R->ic, &M0, &b0);
  fprintf(fp,
          "\nconsistency conditions M0 z0 = b0 (Clark section 4.1; s - p = %d rows,\n"
          "M0 with orthonormal rows spanning N(G^T), b0 = M0 q):\n",
          np);
  app_text_matrix(fp, "  ", "M0", M0, np, s, np > 0 ? np : 1);
  app_text_vector(fp, "  ", "b0", b0, (size_t)np);
}

static void write_text(const app_ctx *R, app_run *run) {
  FILE *fp = run->fp;
  char b[32], b2[32];
  fprintf(fp, "file           %s\n", run->path);
  fprintf(fp, "index          r = %d, s = %d components, manifold p = %d\n", run->r, run->s,
          run->p);
  app_index1_line(fp, run);
  fprintf(fp, "time           t = %s\n", app_fmt_exact(b, sizeof b, R->t));
  fprintf(fp, "method         %s\n", method_text(R->method));
  if (R->path.op) { /* the dense path is the default's report: no line */
    fprintf(fp, "path           operator (%s)\n", R->path.why);
  }
  fprintf(fp, "guess          %s; %s = %.3g (%s)\n", R->guess_source,
          R->path.op ? "||guess - (G guess + q)||" : "||M0 guess - b0||", R->guess_residual,
          R->guess_residual <= R->guess_tolerance ? "consistent" : "inconsistent");
  fprintf(fp, "result         %s = %s (tolerance %s): consistent\n", resid_name(R),
          app_fmt_g(b, sizeof b, R->residual, 3), app_fmt_g(b2, sizeof b2, R->tolerance, 3));
  if (R->nchanged == 0) {
    fprintf(fp, "change         none: the guess is returned unchanged\n");
  } else {
    fprintf(fp, "change         ||z0 - guess|| = %.6g in %d component%s (marked *)\n", R->change,
            R->nchanged, R->nchanged == 1 ? "" : "s");
  }
  if (isfinite(R->sampling_error)) {
    fprintf(fp,
            "sampling error ~%.2e in z0 (the samples' fits, propagated; the consistency\n"
            "               tolerance includes the data's part)\n",
            R->sampling_error);
  }
  text_table(fp, R, run);
  /* shortest digits that read back exactly: pasting loses nothing */
  fprintf(fp, "\nfor the data file%s:\n  z0 = [",
          run->names.user ? " (in the order of `variables`)" : "");
  for (int c = 0; c < run->nout; c++) {
    int i = run->names.order[c];
    fprintf(fp, "%s%s", c ? "; " : "",
            app_fmt_exact(b, sizeof b, R->z0[i] == 0.0 ? 0.0 : R->z0[i]));
  }
  fprintf(fp, "]\n");
  if (run->y) {
    fprintf(fp, "\noutputs at z0:\n");
    for (int k = 0; k < run->ny; k++) {
      fprintf(fp, "  %-18s %24s\n", run->ynames[k], app_fmt_exact(b, sizeof b, run->y[k]));
    }
  }
  if (R->conditions) {
    text_conditions(fp, R, run->s);
  }
}

/* ------------------------------------------------------------------------ */
/* The tool                                                                 */

static void cleanup(app_ctx *R) {
  lth_ic_free(R->ic);
  lth_opic_free(R->opic);
  app_path_free(&R->path);
  free(R->guess);
  free(R->z0);
  free(R->scratch);
  free(R->changed);
  free(R->fix_idx);
  free(R->fix_val);
}

/* The tool's options and its description for the driver. */
static app_ctx ctx = {.sampling_error = NAN};
static app_option opts[] = {
    APP_LIST("guess", &ctx.guess_opt),
    APP_FLAG("nearest", &ctx.nearest),
    APP_STRING("fix", &ctx.fix),
    APP_FLAG("conditions", &ctx.conditions),
    APP_CHOICE("path", &ctx.path_opt, APP_PATH_CHOICES),
};
static const app_tool tool = {
    .name = "lth-ic",
    .help = help_text,
    .help_tail = help_tail,
    .times = APP_TIMES_ONE,
    .times_default = "t0 of the file's interval",
    .opts = opts,
    .nopts = APP_COUNT(opts),
    .validate = validate,
    .prepare = prepare,
    .compute = compute,
    .check = check,
    .write = {write_text, write_csv, write_json},
    .cleanup = cleanup,
};

int main(int argc, char **argv) { return app_main(&tool, &ctx, argc, argv); }
