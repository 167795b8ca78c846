/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve's operator path (solve_op.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_check.h"
#include "app_oppoint.h"
#include "solve_op.h"

/* The smallest tolerance of the reference solve (CVODE's own floor is near
 * the unit roundoff). */
#define SOLVE_OP_RTOL_FLOOR 1e-15

static lth_ivp_result *result_alloc(const lth_opivp_result *r) {
  lth_ivp_result *res = calloc(1, sizeof *res);
  if (!res) {
    return NULL;
  }
  size_t n = r->n, s = (size_t)r->s, m = (size_t)r->m;
  res->n = n;
  res->s = r->s;
  res->m = r->m;
  res->times = malloc((n + 1) * sizeof(double));
  res->z = malloc((n * s + 1) * sizeof(double));
  res->v = malloc((n * m + 1) * sizeof(double));
  res->z0_used = malloc((s + 1) * sizeof(double));
  if (!res->times || !res->z || !res->v || !res->z0_used) {
    lth_ivp_result_free(res);
    return NULL;
  }
  memcpy(res->times, r->times, n * sizeof(double));
  memcpy(res->z, r->z, n * s * sizeof(double));
  memcpy(res->v, r->v, n * m * sizeof(double));
  res->drift = r->drift;
  res->drift_rel = r->drift_rel;
  res->z0_residual = r->z0_residual;
  res->projected = r->projected;
  res->z0_worst = -1;
  res->gamma = NAN;
  res->output_gain = NAN;
  res->steps = r->steps;
  res->rhs_evals = r->rhs_evals;
  res->decomps = r->decomps;
  res->seconds_total = r->seconds_total;
  res->seconds_decomp = r->seconds_decomp;
  res->coef_mode = LTH_COEF_DIRECT;
  res->coef_order = -1;
  res->table_end = NAN;
  res->error_estimate = res->error_tol = NAN;
  res->error_worst = -1;
  lth_error_clear(&res->error_failed);
  return res;
}

/* z0_used: z0 itself, or with --project its Corollary 3 projection
 * G z0(1:m) + q at t0 (what lth_opivp_solve started from), and the change. */
static lth_status initial_value(const lth_opsys *sys, double t0, const double *z0,
                                const solve_op_opts *o, lth_ivp_result *res, lth_error *err) {
  size_t s = (size_t)res->s;
  memcpy(res->z0_used, z0, s * sizeof(double));
  if (!res->projected) {
    return LTH_OK;
  }
  app_oppoint a;
  lth_status st = app_oppoint_at(&a, sys, t0, 0, o->cond_max, err);
  st = st == LTH_OK ? app_oppoint_consistent(&a, z0, res->z0_used, err) : st;
  app_oppoint_free(&a);
  if (st == LTH_OK) {
    double worst = -1.0;
    for (size_t i = 0; i < s; i++) {
      double d = fabs(res->z0_used[i] - z0[i]);
      if (d > worst) {
        worst = d;
        res->z0_worst = (int)i;
      }
    }
    res->z0_change = app_dist2(res->z0_used, z0, s);
  }
  return st;
}

static void opts_of(const solve_op_opts *o, double rtol, double atol, lth_opivp_opts *c) {
  lth_opivp_opts_init(c);
  c->method = o->adams ? LTH_OPIVP_ADAMS : LTH_OPIVP_BDF;
  c->rtol = rtol;
  c->atol = atol;
  c->cond_max = o->cond_max;
  c->project = o->project;
  c->progress = o->progress;
  c->progress_ctx = o->progress_ctx;
}

/* error_tol: |z_error_ik| in units of atol + rtol max_k |z_ik| (the dense
 * path's weights, lth_ivp_result.error_tol). */
static void error_figures(lth_ivp_result *res, double rtol, double atol) {
  size_t s = (size_t)res->s, n = res->n;
  res->error_estimate = 0.0;
  res->error_tol = 0.0;
  for (size_t i = 0; i < s; i++) {
    double size = 0.0;
    for (size_t k = 0; k < n; k++) {
      size = fmax(size, fabs(res->z[k * s + i]));
    }
    double w = fmax(atol + rtol * size, DBL_MIN);
    for (size_t k = 0; k < n; k++) {
      double e = fabs(res->z_error[k * s + i]);
      res->error_estimate = fmax(res->error_estimate, e);
      if (e / w > res->error_tol) {
        res->error_tol = e / w;
        res->error_worst = (int)i;
        res->error_worst_k = k;
      }
    }
  }
}

/* The global error estimate: a second solve, tighter; a failure of it that
 * the solve did not meet is reported (error_failed), a singular or
 * ill-conditioned Pi fails the solve (it stepped over it). */
static lth_status estimate_error(const lth_opsys *sys, double t0, const double *times, size_t n,
                                 const solve_op_opts *o, lth_ivp_result *res, lth_error *err) {
  lth_opivp_opts c;
  double rtol = fmax(SOLVE_OP_ERROR_FACTOR * o->rtol, SOLVE_OP_RTOL_FLOOR);
  double atol = SOLVE_OP_ERROR_FACTOR * o->atol;
  opts_of(o, rtol, atol, &c);
  c.project = 0; /* from z0_used, consistent */
  res->error_method = o->adams ? LTH_IVP_MSADAMS : LTH_IVP_MSBDF;
  res->error_rtol = rtol;
  res->error_atol = atol;
  lth_opivp_result *ref = NULL;
  lth_error e;
  lth_error_clear(&e);
  lth_status st = lth_opivp_solve(sys, t0, res->z0_used, times, n, &c, &ref, &e);
  if (st == LTH_ESING || st == LTH_ECOND) {
    *err = e;
    lth_error_prefix(err, "the error estimate's reference solve: ");
    return st;
  }
  if (st != LTH_OK) {
    res->error_failed = e;
    return LTH_OK;
  }
  size_t sn = (size_t)res->s * n;
  res->z_error = malloc((sn + 1) * sizeof(double));
  if (!res->z_error) {
    lth_opivp_result_free(ref);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (size_t k = 0; k < sn; k++) {
    res->z_error[k] = res->z[k] - ref->z[k];
  }
  res->error_steps = ref->steps;
  res->error_rhs_evals = ref->rhs_evals;
  res->error_decomps = ref->decomps;
  res->error_seconds = ref->seconds_total;
  res->seconds_total += ref->seconds_total;
  lth_opivp_result_free(ref);
  error_figures(res, o->rtol, o->atol);
  return LTH_OK;
}

lth_status solve_op(const lth_opsys *sys, double t0, const double *z0, const double *times,
                    size_t n, const solve_op_opts *o, lth_ivp_result **out, solve_op_stats *stats,
                    lth_error *err) {
  *out = NULL;
  lth_opivp_opts c;
  opts_of(o, o->rtol, o->atol, &c);
  lth_opivp_result *r = NULL;
  lth_status st = lth_opivp_solve(sys, t0, z0, times, n, &c, &r, err);
  if (st != LTH_OK) {
    return st;
  }
  lth_ivp_result *res = result_alloc(r);
  *stats = (solve_op_stats){r->jv_evals,     r->lin_iters, r->projections, r->pi_proven,
                            r->pi_inv_bound, r->pi_proofs, r->pi_proof_off};
  lth_opivp_result_free(r);
  if (!res) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  st = initial_value(sys, t0, z0, o, res, err);
  if (st == LTH_OK && o->error_estimate) {
    st = estimate_error(sys, t0, times, n, o, res, err);
  }
  if (st != LTH_OK) {
    lth_ivp_result_free(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}
