/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth_ivp_solve (include/lth/ivp.h): the initial value checked (or projected),
 * the reduced ODE integrated through the output times (lib/ivp/ivp.c), and z
 * assembled from the state at each of them (Clark's Theorem 1). */
#define _POSIX_C_SOURCE 200809L
#include "lth/ivp.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lth/ic.h"
#include "ivp_coef.h"
#include "ivp_impl.h"
#include "core/errors.h"
#include "ic/ic_scaled.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- solutions ---- */

void lth_ivp_result_free(lth_ivp_result *res) {
  if (!res) {
    return;
  }
  free(res->times);
  free(res->z);
  free(res->v);
  free(res->z0_used);
  free(res->z_error);
  free(res);
}

lth_ivp_result *lth_ivp_result_alloc(int s, int m, size_t n) {
  lth_ivp_result *res = calloc(1, sizeof *res);
  if (!res) {
    return NULL;
  }
  res->n = n;
  res->s = s;
  res->m = m;
  res->times = malloc((n ? n : 1) * sizeof(double));
  res->z = malloc(((size_t)s * n + 1) * sizeof(double));
  res->v = malloc(((size_t)m * n + 1) * sizeof(double));
  res->z0_used = malloc(((size_t)s + 1) * sizeof(double));
  res->z0_worst = -1;
  res->error_estimate = res->error_tol = NAN;
  res->error_worst = -1;
  lth_error_clear(&res->error_failed);
  if (!res->times || !res->z || !res->v || !res->z0_used) {
    lth_ivp_result_free(res);
    return NULL;
  }
  return res;
}

/* Consistency of z0 (section 4.1) and, with opts->project, Corollary 3's projection. */
static lth_status initial_value(const lth_system *sys, double t0, const double *z0,
                                const lth_ivp_opts *o, lth_ivp_result *res, lth_error *err) {
  LTH_ERROR_RECORD(err);
  int s = res->s;
  lth_ic *ic = lth_ic_alloc_scaled(sys, o->chain_scale > 0 ? o->chain_scale : -1.0, err);
  if (!ic) {
    return lth_error_status(err);
  }
  if (o->cond_max > 0) {
    lth_ic_set_cond_max(ic, o->cond_max);
  }
  lth_status st = lth_ic_setup(ic, t0, err);
  if (st == LTH_OK) {
    res->z0_residual = lth_ic_residual(ic, z0);
    memcpy(res->z0_used, z0, (size_t)s * sizeof(double));
    if (res->z0_residual > lth_ic_tolerance(ic, z0)) {
      if (!o->project) {
        st = lth_error_set_t(
            err, LTH_ECONSIST, t0,
            "z0 is not consistent: ||M0 z0 - b0|| = %.3e (Clark section 4.1); "
            "compute a consistent value (lth_ic_project, lth_ic_nearest), or set opts.project",
            res->z0_residual);
      } else {
        st = lth_ic_project(ic, z0, res->z0_used, err);
        res->projected = 1;
      }
    }
  }
  if (st == LTH_OK && res->projected) {
    double ch = 0.0, worst = 0.0;
    for (int i = 0; i < s; i++) {
      double d = fabs(res->z0_used[i] - z0[i]);
      ch += d * d;
      if (d > worst) {
        worst = d;
        res->z0_worst = i;
      }
    }
    res->z0_change = sqrt(ch);
  }
  lth_ic_free(ic);
  return st;
}

/* z = (Nhat + Bhat) v + q from a decomposition at t, *d = ||P v||, *gain =
 * ||Nhat + Bhat||_inf, optional reprojection v <- (I - P) v. */
static lth_status decomposed_output(lth_ivp *iv, double t, double *v, double *z, int reproject,
                                    double *d, double *gain, lth_error *err) {
  const lth_point *pt;
  lth_status st = lth_ivp_point(iv, t, &pt, err);
  if (st != LTH_OK) {
    return st;
  }
  int m = pt->m, s = pt->s;
  double *Pv = z; /* scratch: z is overwritten below */
  cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, 1.0, pt->P.c, pt->P.ld, v, 1, 0.0, Pv, 1);
  *d = cblas_dnrm2(m, Pv, 1);
  if (reproject) {
    cblas_daxpy(m, -1.0, Pv, 1, v, 1);
  }
  memcpy(z, pt->q.c, (size_t)s * sizeof(double));
  cblas_daxpy(m, 1.0, v, 1, z, 1);
  cblas_dgemv(CblasColMajor, CblasNoTrans, s, m, 1.0, pt->Bhat.c, pt->Bhat.ld, v, 1, 1.0, z, 1);
  *gain = lth_ivp_output_gain(pt->Bhat.c, pt->Bhat.ld, s, m);
  return LTH_OK;
}

/* z at t, the drift ||P v|| and the output gain into res: from the points
 * the integrator's step decomposed at where they resolve z
 * (lib/ivp/ivp_outpoly.c), else from a decomposition at t (with the
 * optional reprojection v <- (I - P) v). */
static lth_status output_at(lth_ivp *iv, double t, double *v, double *z, lth_ivp_result *res,
                            int reproject, lth_error *err) {
  double nv = cblas_dnrm2(res->m, v, 1), d, gain;
  if (reproject || !lth_ivp_output_from_step(iv, t, z, &d, &gain)) {
    lth_status st = decomposed_output(iv, t, v, z, reproject, &d, &gain, err);
    if (st != LTH_OK) {
      return st;
    }
  }
  res->drift = fmax(res->drift, d);
  res->drift_rel = fmax(res->drift_rel, d / fmax(1.0, nv));
  res->output_gain = fmax(res->output_gain, gain);
  return LTH_OK;
}

lth_status lth_ivp_integrate_outputs(lth_ivp *iv, double t0, const double *times, size_t n,
                                     const lth_ivp_opts *o, lth_ivp_result *res, lth_error *err) {
  int m = res->m, s = res->s;
  double *v = malloc(((size_t)m + 1) * sizeof(double));
  if (!v) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  /* v0 = (I - P(t0)) z0(1:m): the state part (Theorem 1) */
  const lth_point *pt;
  lth_status st = lth_ivp_point(iv, t0, &pt, err);
  if (st == LTH_OK) {
    memcpy(v, res->z0_used, (size_t)m * sizeof(double));
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, -1.0, pt->P.c, pt->P.ld, res->z0_used, 1, 1.0, v,
                1);
    st = lth_ivp_start(iv, t0, v, err);
  }
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    res->times[k] = times[k];
    st = lth_ivp_advance(iv, times[k], v, err);
    if (st == LTH_OK) {
      st = output_at(iv, times[k], v, res->z + (size_t)k * s, res, o->reproject, err);
    }
    if (st == LTH_OK && o->reproject) {
      st = lth_ivp_reset(iv, v, err);
    }
    if (st == LTH_OK) {
      memcpy(res->v + (size_t)k * m, v, (size_t)m * sizeof(double));
    }
  }
  free(v);
  return st;
}

/* The exact propagator of constant data (lib/ivp/ivp_const.c) into res;
 * *constant = 0 where its substeps would cost more than integrating or the
 * matrix exponential failed: the integrator then solves. */
static lth_status propagate(const lth_system *sys, double t0, const double *times, size_t n,
                            const lth_ivp_opts *o, lth_ivp_result *res, int *constant,
                            lth_error *err) {
  lth_error local;
  lth_error_clear(&local);
  lth_status st = lth_ivp_const_solve(sys, t0, times, n, o, res, &local);
  if (st == LTH_ERANGE || st == LTH_EINTEG) {
    *constant = 0;
    return LTH_OK;
  }
  if (st != LTH_OK && err) *err = local;
  return st;
}

/* One solve: the scan of Pi beside (none for constant data: Pi is the same
 * at every t, so the decomposition at t0 judges it on the whole span), the
 * initial value, the exact propagator (constant) or the integrator, and the
 * error estimate -- always by the integrator's second, more accurate solve,
 * whose decompositions at many t are independent of the propagator's one. */
static lth_status solve_pass(const lth_system *sys, double t0, const double *z0,
                             const double *times, size_t n, lth_ivp_opts o, int constant,
                             lth_ivp_result **out, lth_error *err) {
  double t_hi = n > 0 ? times[n - 1] : t0;
  if (constant) {
    o.pi_scan = -1;
  }
  lth_ivp_result *res = lth_ivp_result_alloc(lth_system_size(sys), lth_system_state_dim(sys), n);
  if (!res) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a solution");
  }
  /* once per solve: its integrators (the error estimate's too), tables and
   * workspaces judge cond_interval against the same scale, the largest
   * chain norm on the system's interval.  Where the scan of Pi covers that
   * interval and runs before the integration (not beside it), its scale is
   * that one: a second scan only for the scale would cost as much again
   * (8 % of a small solve: Ascher-Petzold, cheb, decomposing directly) */
  double T0, T1;
  int whole = o.chain_scale <= 0 && lth_system_interval(sys, &T0, &T1) && T0 == t0 && T1 == t_hi;
  if (!whole) {
    o.chain_scale = lth_coef_chain_scale(sys, &o);
  }
  lth_ivp_prescan_job scan;
  lth_status st = lth_ivp_prescan_start(&scan, sys, t0, t_hi, &o, err);
  if (whole) {
    double sc = 0.0;
    if (st == LTH_OK && !scan.pool) {
      lth_ivp_prescan_join(&scan, &sc, NULL); /* (done: it ran here) */
    }
    o.chain_scale = sc > 0 ? sc : lth_coef_chain_scale(sys, &o);
  }
  if (st == LTH_OK) {
    st = initial_value(sys, t0, z0, &o, res, err);
  }
  if (st == LTH_OK && constant) {
    st = propagate(sys, t0, times, n, &o, res, &constant, err);
  }
  lth_ivp *iv = NULL;
  if (st == LTH_OK && (!constant || o.error_estimate)) {
    iv = lth_ivp_alloc(sys, 1, 1, &o, t0, t_hi, err);
    st = iv ? LTH_OK : (lth_error_status(err));
  }
  if (iv) {
    lth_ivp_attach_scan(iv, &scan, t_hi > t0 ? (double)n / (t_hi - t0) : 0.0);
  }
  if (st == LTH_OK && !constant) {
    st = lth_ivp_integrate_outputs(iv, t0, times, n, &o, res, err);
  }
  /* the scan's refusal is the answer, whatever the integration made of it */
  lth_error scan_err;
  double scan_scale = 0.0;
  if (lth_ivp_prescan_join(&scan, &scan_scale, &scan_err) != LTH_OK) {
    st = scan.st;
    if (err) *err = scan_err;
  }
  if (iv && !constant) {
    lth_ivp_report(iv, res);
  }
  if (st == LTH_OK && o.error_estimate) {
    st = lth_ivp_error_estimate(sys, iv, scan_scale, t0, times, n, &o, res, err);
  }
  lth_ivp_free(iv);
  if (st != LTH_OK) {
    lth_ivp_result_free(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}

lth_status lth_ivp_solve(const lth_system *sys, double t0, const double *z0, const double *times,
                         size_t n, const lth_ivp_opts *opts, lth_ivp_result **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  lth_ivp_opts o;
  if (opts) {
    o = *opts;
  } else {
    lth_ivp_opts_init(&o);
  }
  lth_status st = lth_ivp_check_times(t0, times, n, err);
  if (st != LTH_OK) {
    return st;
  }
  o.method = lth_ivp_method_resolve(o.method, sys);
  double t_start = now();
  double t_hi = n > 0 ? times[n - 1] : t0;
  lth_ivp_result *res = NULL;
  st = solve_pass(sys, t0, z0, times, n, o, lth_ivp_const_applies(sys, t0, t_hi, &o), &res, err);
  if (st == LTH_OK && res->propagated && o.error_estimate && res->error_tol > 1) {
    /* the exponential missed the tolerance -- one decomposition's rounding,
     * carried along the span, where the integrator's many decompositions
     * average theirs out: integrate instead */
    lth_ivp_result *again = NULL;
    o.propagate = 0;
    st = solve_pass(sys, t0, z0, times, n, o, 0, &again, err);
    lth_ivp_result_free(res);
    res = again;
  }
  if (st != LTH_OK) {
    return st;
  }
  res->seconds_total = now() - t_start;
  res->method = o.method;
  *out = res;
  return LTH_OK;
}
