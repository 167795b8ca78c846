/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The integrators never step over a singular Pi (lib/ivp/ivp_impl.h): a scan of
 * the interval before they start, and a guard on every point they ask for. */
#include <math.h>
#include <string.h>

#include "decomp/refusal.h"
#include "ivp_impl.h"
#include "system/pi_text.h"
#include "lth/defaults.h"
#include "lth/conditioning.h"

lth_status lth_ivp_check_times(double t0, const double *times, size_t n, lth_error *err) {
  for (size_t k = 0; k < n; k++) {
    if (!(times[k] >= t0) || (k > 0 && times[k] < times[k - 1])) {
      return lth_error_set_t(err, LTH_EINVAL, times[k],
                             "output times must be nondecreasing and >= t0 = %.17g", t0);
    }
  }
  return LTH_OK;
}

lth_status lth_ivp_prescan(const lth_system *sys, double t0, double t1, const lth_ivp_opts *opts,
                           double *scale, lth_error *err) {
  if (scale) *scale = 0.0;
  if ((opts && opts->pi_scan < 0) || !(t1 > t0)) return LTH_OK;
  lth_pi_scan sc;
  size_t points = opts && opts->pi_scan > 1 ? (size_t)opts->pi_scan : 0;
  lth_status st = lth_pi_scan_check(sys, t0, t1, points, opts ? opts->cond_max : 0.0, &sc, err);
  if (scale) *scale = sc.scale;
  if (st != LTH_OK) {
    lth_error_prefix(err, "before integrating on [%g, %g]: ", t0, t1);
  }
  return st;
}

/* The chain scale of a scan still running (lib/ivp/ivp_prescan.c): waited for
 * where a judgement needs it. */
static void settle(lth_ivp_guard *g) {
  if (g->pending) {
    double sc = 0.0;
    lth_ivp_prescan_join(g->pending, &sc, NULL);
    g->scale = fmax(g->scale, sc);
    g->pending = NULL;
  }
}

void lth_ivp_guard_init(lth_ivp_guard *g, double t_start, double scale, double cond_max) {
  memset(g, 0, sizeof *g);
  g->t_start = t_start;
  g->scale = scale > 0 ? scale : 0.0;
  g->cond_max = cond_max > 0 ? cond_max : LTH_DEFAULT_COND_MAX;
}

lth_status lth_ivp_guard_point(lth_ivp_guard *g, const lth_point *pt, lth_error *err) {
  if (pt->pi_sign == 0) return LTH_OK; /* interpolated coefficients: nothing to judge */
  double t = pt->t;
  g->scale = fmax(g->scale, pt->chain_norm);
  if (g->sign0 == 0) {
    g->sign0 = pt->pi_sign;
    g->t_start = t;
  }
  if (pt->pi_sign != g->sign0) {
    g->tripped = 1;
    g->t_flip = t;
    return lth_error_set_t(err, LTH_ESING, t, "det Pi changed sign before t = %.17g", t);
  }
  g->ring_t[g->nring++ % LTH_IVP_GUARD_RING] = t;
  if (pt->pi_inv_norm > 0) settle(g); /* a decomposed point: judged against the scan's scale */
  double kappa = pt->pi_inv_norm * g->scale;
  /* an amplification measured at the point (lth_decomp_at refuses one above the limit) */
  if (kappa <= g->cond_max &&
      (pt->amplification_measured || lth_cond_acceptable(kappa, pt->r, g->cond_max))) {
    return LTH_OK;
  }
  g->tripped = 2;
  g->kappa = kappa;
  lth_status st = lth_decomp_interval_error(err, t, pt->r, pt->pi_inv_norm, g->scale, g->cond_max);
  lth_error_prefix(err, "integrating towards t = %.17g: ", t);
  return st;
}

lth_status lth_ivp_guard_locate(lth_ivp_guard *g, int r, lth_ivp_guard_eval eval, void *ctx,
                                lth_error *err) {
  settle(g);
  /* the last point with the starting sign before the change */
  double a = g->t_start, b = g->t_flip;
  size_t n = g->nring < LTH_IVP_GUARD_RING ? g->nring : LTH_IVP_GUARD_RING;
  for (size_t k = 0; k < n; k++) {
    if (g->ring_t[k] < b && g->ring_t[k] > a) a = g->ring_t[k];
  }
  double pinv = 0.0;
  for (int it = 0; it < 64 && b - a > 4e-16 * fmax(fabs(a), fabs(b)); it++) {
    double mid = 0.5 * (a + b);
    const lth_point *pt;
    lth_status st = eval(ctx, mid, &pt);
    if (st != LTH_OK) {
      /* the decomposition refuses this close to the root, on either side of
       * it: the scan of Pi, which samples det Pi's sign without judging the
       * condition, brackets the root inside [a, b] (before, [a, mid] was
       * named, which missed the root whenever mid lay before it) */
      lth_pi_scan sc;
      if (g->sys && lth_pi_scan_run(g->sys, a, b, 17, 1, &sc, NULL) == LTH_OK && sc.sign_change &&
          sc.lo >= a && sc.hi <= b) {
        a = sc.lo;
        b = sc.hi;
        pinv = fmax(pinv, sc.pi_inv);
      }
      break;
    }
    pinv = fmax(pinv, pt->pi_inv_norm);
    if (pt->pi_sign == g->sign0)
      a = mid;
    else
      b = mid;
  }
  double ts = 0.5 * (a + b);
  char pi[LTH_PI_TEXT_MAX];
  lth_error_set_t(err, LTH_ESING, ts,
                  "Pi = %s is singular at t = %.17g: det Pi changes sign between t = %.17g and "
                  "%.17g (||Pi^-1|| >= %.3e, cond_interval >= %.3e); the integrator would have "
                  "stepped over it",
                  lth_pi_text(r, 0, pi, sizeof pi), ts, a, b, pinv, pinv * g->scale);
  if (err) {
    err->has_cond = 1;
    err->cond = pinv * g->scale > 0 ? pinv * g->scale : INFINITY;
  }
  return LTH_ESING;
}

/* The step-size control can creep towards a singular Pi without ever trying
 * a step across it (each step a fraction of the remaining distance, until
 * the minimum step).  Look ahead of tf at distances growing tenfold. */
lth_status lth_ivp_guard_probe(lth_ivp_guard *g, int r, double tf, double t_to, double span,
                               lth_ivp_guard_eval eval, void *ctx, lth_error *err) {
  settle(g);
  double pinv = 0.0, t_worst = tf;
  int measured = 0;
  for (double d = 1e-13 * span; d < 2 * (t_to - tf) && g->sign0 != 0; d *= 10) {
    double t = fmin(tf + d, t_to);
    const lth_point *pt;
    if (eval(ctx, t, &pt) != LTH_OK) continue;
    g->scale = fmax(g->scale, pt->chain_norm);
    if (pt->pi_sign != 0 && pt->pi_sign != g->sign0) {
      g->tripped = 1;
      g->t_flip = t;
      g->ring_t[g->nring++ % LTH_IVP_GUARD_RING] = tf;
      return lth_ivp_guard_locate(g, r, eval, ctx, err);
    }
    if (pt->pi_inv_norm > pinv) {
      pinv = pt->pi_inv_norm;
      t_worst = t;
      measured = pt->amplification_measured;
    }
  }
  double kappa = pinv * g->scale;
  if (!(kappa <= g->cond_max && (measured || lth_cond_acceptable(kappa, r, g->cond_max)))) {
    return lth_decomp_interval_error(err, t_worst, r, pinv, g->scale, g->cond_max);
  }
  return LTH_OK;
}
