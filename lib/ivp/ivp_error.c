/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The global error estimate of lth_ivp_solve (include/lth/ivp.h,
 * lth_ivp_result.error_*; docs/user-guide.md section 6.6).
 *
 * An integrator controls the error it commits in each step, not the error
 * of the solution: the errors of earlier steps are carried along by the ODE,
 * and some methods (the variable-order multistep ones above all) keep their
 * local estimates small while the global error is 100 times the tolerance.
 * So the reduced ODE v' = Ahat v + g is solved a second time from the same
 * state v0, with the same output maps z = (Nhat + Bhat) v + q, by a reference
 * more accurate in every part of the solve's error:
 *  - tighter tolerances (reference_tighten): a method of order p errs about
 *    like tol^(p/(p+1));
 *  - where the outputs, not the tolerance, set the solve's steps, steps at
 *    most half the solve's mean step when the method is the same
 *    (reference_hmax): a tighter tolerance alone would repeat the solve's
 *    steps and their errors;
 *  - a coefficient table ERROR_TABLE_TIGHTEN (1e-3) times the solve's
 *    table tolerance, or direct decompositions where the solve's table is
 *    at its floor (less than 10 times as accurate as the solve's).
 * Then z - z_ref is the solve's error to within the reference's, mostly 1 to
 * 30 % of it (measured, above the rounding floor: estimate / true error 0.75
 * to 1.14 over the random systems of tests/test_ivp_error.c, 0.87 to 1.03 over
 * the shipped examples, tests/cli_solve_error.sh).
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ivp_coef.h"
#include "ivp_impl.h"

/* The reference solve may take smaller steps than the solve: a multistep
 * method at order 1 needs steps of ~sqrt(tol) to start at a tighter
 * tolerance (msbdf at rtol 1e-12 on the rotating rod: 5e-8 of the span), and
 * the solve has shown already that no singularity lies on the way. */
#define ERROR_HMIN_FRAC 1e-14

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The reference's tolerances: about 10 times less error.  An order-p method
 * errs like tol^(p/(p+1)): 0.1 times the solve's for rk8pd (order 8); 0.01
 * for msbdf, at orders 1 to 5 (at 0.1 its reference erred up to 0.4 times as
 * much as the solve), and for bsimp, whose error follows its tolerance
 * loosely on stiff problems (data/stiff.lth: 4.5e-5 at rtol 1e-10, still
 * 1.7e-5 at 1e-11).  rtol no tighter than ERROR_RTOL_MIN, where rounding
 * takes over, unless the solve's is. */
#define ERROR_RTOL_MIN 1e-14

static double reference_tighten(lth_ivp_method method) {
  return method == LTH_IVP_RK8PD ? 1e-1 : 1e-2;
}

/* Non-stiff methods: rk8pd, the cheapest at tight tolerances and an
 * independent method (a second run of rkf45 or msadams at a tighter
 * tolerance costs more and repeats the method's own bias).  Stiff methods:
 * the method itself, as the problem may be stiff (an explicit reference
 * could need 1e4 times the steps). */
static lth_ivp_method reference_method(lth_ivp_method m) {
  /* (cheb: itself too -- the damped reduced ODE may be stiff for rk8pd, and
   * the half-length steps of reference_hmax make its polynomials others) */
  return lth_ivp_method_is_stiff(m) || m == LTH_IVP_CHEB ? m : LTH_IVP_RK8PD;
}

/* The same method must not take the same steps: where the outputs, not the
 * tolerance, set the steps (at most ERROR_OUTPUT_STEPS an output on average),
 * a tighter tolerance changes nothing and the reference would repeat the
 * solve's truncation errors -- the very ones to estimate (rk8pd at rtol
 * 1e-6, bsimp at any rtol, on the random systems of tests/test_ivp_error.c:
 * estimates 4 to 26 times too small).  Its steps are then at most half the
 * solve's mean step.  Where the tolerance sets the steps, the tighter one
 * changes them all; a different method (rk8pd for rkf45 and msadams) makes
 * errors of its own. */
#define ERROR_OUTPUT_STEPS 2

static double reference_hmax(lth_ivp_method method, const lth_ivp_result *res, double t0,
                             const double *times, size_t n) {
  double span = n > 0 ? times[n - 1] - t0 : 0.0;
  /* (the exponential of constant data makes no truncation error to repeat) */
  if (res->propagated || res->error_method != method || res->steps == 0 ||
      res->steps > ERROR_OUTPUT_STEPS * n || !(span > 0)) {
    return 0.0;
  }
  return 0.5 * span / (double)res->steps;
}

/* z_error = z - z_ref (in place over z_ref) and its norms: the largest
 * entry, and the largest entry in units of the tolerance with the weights
 * atol + rtol max_k |z_ik| of the integrator's norm, each component at its
 * largest size over the output times (a component passing through zero is
 * judged against its size, not at its zero). */
void lth_ivp_error_compare(lth_ivp_result *res, double *zref, double rtol, double atol) {
  size_t n = res->n, s = (size_t)res->s;
  res->error_estimate = res->error_tol = 0.0;
  for (size_t i = 0; i < s; i++) {
    double size = 0.0;
    for (size_t k = 0; k < n; k++) {
      size = fmax(size, fabs(res->z[k * s + i]));
    }
    double w = fmax(atol + rtol * size, DBL_MIN);
    for (size_t k = 0; k < n; k++) {
      double e = res->z[k * s + i] - zref[k * s + i];
      zref[k * s + i] = e;
      res->error_estimate = fmax(res->error_estimate, fabs(e));
      if (fabs(e) / w > res->error_tol) {
        res->error_tol = fabs(e) / w;
        res->error_worst = (int)i;
        res->error_worst_k = k;
      }
    }
  }
}

/* The reference solve's coefficient table is this much more accurate than
 * the solve's, so that the estimate covers the solve's table error too (1e-3
 * rtol: little, but most of what is left when a solve is far more accurate
 * than its tolerance -- bsimp, rk8pd with outputs closer than its steps; with
 * the solve's table as reference, the estimates of bsimp at rtol 1e-6 on the
 * random systems were up to 170 times too small; with a table 0.3 times the
 * solve's error, up to 6 times: an interpolant's error is not proportional
 * to its tolerance).  With 0.1, Ascher and Petzold's example (alpha = 50,
 * where the table's error dominates the solution's) was still estimated 2.7
 * times too small at rtol 1e-10; with 1e-3, 0.8 to 1.1 from rtol 1e-6 to
 * 1e-11 (tests/test_ivp_error.c), at about the same cost (the reference's
 * table is built once; 5.3 against 4.8 ms there). */
#define ERROR_TABLE_TIGHTEN 0.001

/* The integrator of the reference solve: for a coefficient table or the
 * Hermite interpolation of sampled data a new one, whose table or nodes are
 * built to ERROR_TABLE_TIGHTEN times the solve's error (no tighter than
 * LTH_COEF_TABLE_TOL_MIN) (the nodes follow the
 * tolerance, lib/ivp/samples_nodes.c: with the solve's own, the estimate on
 * data/sampled.lth was 6e-15 for an error of 1.9e-13; the data's own error is
 * the sampling error's business); for a table already at its smallest
 * tolerance, where no table can be much more accurate, one with direct
 * decompositions (the exact coefficients: with the solve's own table the
 * estimate was blind to the table's error, 4.7 to 30 times too small on
 * Ascher and Petzold's example at rtol 1e-12, 1e-13, tests/test_ivp_error.c);
 * for direct decompositions, the solve's own, retuned. */
static lth_ivp *reference_integrator(const lth_system *sys, lth_ivp *iv, double chain_scale,
                                     double t0, const double *times, size_t n,
                                     const lth_ivp_opts *o, const lth_ivp_result *res,
                                     lth_ivp **own, lth_error *err) {
  *own = NULL;
  double tt = lth_coef_tol(o);
  double rt = fmax(ERROR_TABLE_TIGHTEN * tt, LTH_COEF_TABLE_TOL_MIN);
  if (res->coef_mode != LTH_COEF_TABLE && res->coef_mode != LTH_COEF_HERMITE) {
    return iv;
  }
  /* a reference table less than 10 times as accurate as the solve's (rt at
   * its floor, rtol < 3e-11) would share the solve's table error: Ascher
   * and Petzold's example (alpha = 50) at rtol 1e-11 was estimated 2.1e-12
   * for an error of 3.6e-11 (with rt > 0.5 tt as the rule) */
  int direct = res->coef_mode == LTH_COEF_TABLE && rt > 0.1 * tt;
  if (rt > 0.1 * tt && !direct) {
    return iv;
  }
  lth_ivp_opts ro = *o;
  ro.method = res->error_method;
  ro.rtol = res->error_rtol;
  ro.atol = res->error_atol;
  ro.table_tol = rt;
  if (direct) { /* a table at its smallest tolerance: the exact coefficients instead */
    ro.coefficients = LTH_COEF_DIRECT;
  }
  double t_hi = n > 0 ? times[n - 1] : t0;
  *own = lth_ivp_alloc(sys, 1, 1, &ro, t0, t_hi, err);
  if (*own) {
    lth_ivp_attach_scan(*own, NULL, t_hi > t0 ? (double)n / (t_hi - t0) : 0.0);
    lth_ivp_guard_scale(*own, chain_scale); /* judged as the solve was */
  }
  return *own;
}

lth_status lth_ivp_error_estimate(const lth_system *sys, lth_ivp *iv, double chain_scale, double t0,
                                  const double *times, size_t n, const lth_ivp_opts *o,
                                  lth_ivp_result *res, lth_error *err) {
  double t_start = now(), rtol, atol;
  lth_ivp_tolerances(o, &rtol, &atol);
  res->error_method = reference_method(o->method);
  double tighten = reference_tighten(res->error_method);
  res->error_rtol = fmax(rtol * tighten, fmin(rtol, ERROR_RTOL_MIN));
  res->error_atol = atol * tighten;
  lth_ivp_result *ref = lth_ivp_result_alloc(res->s, res->m, n);
  if (!ref) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory estimating the global error");
  }
  memcpy(ref->z0_used, res->z0_used, (size_t)res->s * sizeof(double));
  lth_error local;
  lth_error_clear(&local);
  lth_ivp *own;
  lth_ivp *riv = reference_integrator(sys, iv, chain_scale, t0, times, n, o, res, &own, &local);
  size_t steps0 = 0, rhs0 = 0, dec0 = 0;
  lth_status st = riv ? LTH_OK : local.status;
  if (riv) {
    lth_ivp_stats(riv, &steps0, &rhs0, &dec0, NULL);
    st = lth_ivp_retune(riv, res->error_method, res->error_rtol, res->error_atol, ERROR_HMIN_FRAC,
                        reference_hmax(o->method, res, t0, times, n), &local);
  }
  if (st == LTH_OK) {
    st = lth_ivp_integrate_outputs(riv, t0, times, n, o, ref, &local);
  }
  if (riv) {
    size_t steps1, rhs1, dec1;
    lth_ivp_stats(riv, &steps1, &rhs1, &dec1, NULL);
    res->error_steps = steps1 - steps0;
    res->error_rhs_evals = rhs1 - rhs0;
    res->error_decomps = dec1 - dec0;
  }
  lth_ivp_free(own);
  if (st == LTH_OK) {
    lth_ivp_error_compare(res, ref->z, rtol, atol);
    res->z_error = ref->z; /* now z - z_ref */
    ref->z = NULL;
  } else if (st == LTH_ESING || st == LTH_ECOND || st == LTH_ENOMEM) {
    /* Pi singular or ill-conditioned between the solve's points: the solve
     * stepped over it, its answer is no answer */
    if (err) *err = local;
  } else {
    res->error_failed = local;
    lth_error_prefix(&res->error_failed, "the reference solve (%s, rtol %g, atol %g) failed: ",
                     lth_ivp_method_name(res->error_method), res->error_rtol, res->error_atol);
    st = LTH_OK;
  }
  lth_ivp_result_free(ref);
  res->error_seconds = now() - t_start;
  return st;
}
