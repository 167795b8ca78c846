/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator path's initial-value problem with the dense path's result and
 * global error estimate (include/lth/opsolve.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/norms.h"
#include "lth/defaults.h"
#include "lth/opic.h"
#include "lth/opsolve.h"

/* The smallest tolerance of the reference solve (CVODE's own floor is near
 * the unit roundoff). */
#define OPSOLVE_RTOL_FLOOR 1e-15

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

/* z0_used: z0 itself, or with opts.project its Corollary 3 projection
 * G z0(1:m) + q at t0 (what lth_opivp_solve started from), and the change. */
static lth_status initial_value(const lth_opsys *sys, double t0, const double *z0,
                                const lth_opivp_opts *o, lth_ivp_result *res, lth_error *err) {
  size_t s = (size_t)res->s;
  memcpy(res->z0_used, z0, s * sizeof(double));
  if (!res->projected) {
    return LTH_OK;
  }
  lth_opic *a = lth_opic_alloc(sys, err);
  if (!a) {
    return err->status != LTH_OK ? err->status : LTH_ENOMEM;
  }
  lth_opic_set_cond_max(a, o->cond_max);
  lth_status st = lth_opic_setup(a, t0, err);
  st = st == LTH_OK ? lth_opic_project(a, z0, res->z0_used, err) : st;
  lth_opic_free(a);
  if (st == LTH_OK) {
    double worst = -1.0;
    for (size_t i = 0; i < s; i++) {
      double d = fabs(res->z0_used[i] - z0[i]);
      if (d > worst) {
        worst = d;
        res->z0_worst = (int)i;
      }
    }
    res->z0_change = lth_dist2(res->z0_used, z0, s);
  }
  return st;
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
                                 const lth_opivp_opts *o, lth_ivp_result *res, lth_error *err) {
  lth_opivp_opts c = *o;
  double rtol = fmax(LTH_OPSOLVE_ERROR_FACTOR * o->rtol, OPSOLVE_RTOL_FLOOR);
  double atol = LTH_OPSOLVE_ERROR_FACTOR * o->atol;
  c.rtol = rtol;
  c.atol = atol;
  c.project = 0; /* from z0_used, consistent */
  res->error_method = o->method == LTH_OPIVP_ADAMS ? LTH_IVP_MSADAMS : LTH_IVP_MSBDF;
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

lth_status lth_opsolve(const lth_opsys *sys, double t0, const double *z0, const double *times,
                       size_t n, const lth_opivp_opts *opts, int error_estimate,
                       lth_ivp_result **out, lth_opsolve_stats *stats, lth_error *err) {
  *out = NULL;
  lth_opivp_opts c;
  if (opts) {
    c = *opts;
  } else {
    lth_opivp_opts_init(&c);
  }
  /* the tolerances the error estimate weighs with (0: the defaults) */
  c.rtol = c.rtol == 0 ? LTH_DEFAULT_RTOL : c.rtol;
  c.atol = c.atol == 0 ? LTH_DEFAULT_ATOL : c.atol;
  lth_opivp_result *r = NULL;
  lth_status st = lth_opivp_solve(sys, t0, z0, times, n, &c, &r, err);
  if (st != LTH_OK) {
    return st;
  }
  lth_ivp_result *res = result_alloc(r);
  if (stats) {
    *stats = (lth_opsolve_stats){r->jv_evals,     r->lin_iters, r->projections, r->pi_proven,
                                 r->pi_inv_bound, r->pi_proofs, r->pi_proof_off};
  }
  lth_opivp_result_free(r);
  if (!res) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  res->method = c.method == LTH_OPIVP_ADAMS ? LTH_IVP_MSADAMS : LTH_IVP_MSBDF;
  st = initial_value(sys, t0, z0, &c, res, err);
  if (st == LTH_OK && error_estimate) {
    st = estimate_error(sys, t0, times, n, &c, res, err);
  }
  if (st != LTH_OK) {
    lth_ivp_result_free(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}
