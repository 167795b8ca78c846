/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Riccati solution of an LQR problem on a DAE plant (include/lth/plqr.h)
 * as a table: Y = (P, p, c) integrated backwards from t1 by an explicit
 * Runge-Kutta pair (Prince-Dormand 8(9)) through the Chebyshev-Lobatto nodes
 * of panels laid right to left, each accepted when the two last
 * coefficients of every entry are below table_tol max(1, |entry|), else
 * halved.  The forward closed loop then reads P, p at its own stages from
 * the table.  A decision from samples: a feature narrower than a panel's
 * node spacing can hide in it; the closed loop's cost, integrated along it,
 * is compared with V(t0, x0) (lth_plqr_result.cost_closed). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "plqr_impl.h"
#include "ss/cheb.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { NDEG = LTH_SS_TABLE_DEGREE };

static int rhs(double t, const double y[], double dydt[], void *params) {
  plqr *L = params;
  if (plqr_weights_at(L, t, &L->rhs_err) != LTH_OK) {
    L->rhs_failed = 1;
    return GSL_EBADFUNC;
  }
  plqr_riccati_rhs(L, y, dydt);
  for (size_t i = 0; i < L->ny_; i++) {
    if (!isfinite(dydt[i])) {
      return GSL_FAILURE; /* a step too long for a fast rate: the integrator halves it */
    }
  }
  return GSL_SUCCESS;
}

/* ||P||_F of Y. */
static double pnorm(const plqr *L, const double *Y) {
  double sum = 0.0;
  for (size_t i = 0; i < (size_t)L->p * L->p; i++) {
    sum += Y[i] * Y[i];
  }
  return sqrt(sum);
}

/* One panel [a, b] from Y(b) = yb: the nodes' values into f (k = 0 at b). */
static lth_status sweep(plqr *L, gsl_odeiv2_driver *drv, double a, double b, const double *yb,
                        double *f, lth_error *err) {
  size_t n = L->ny_;
  double mid = 0.5 * (a + b), half = 0.5 * (b - a), t = b;
  memcpy(f, yb, n * sizeof(double));
  double *y = f + n * (NDEG + 1);
  memcpy(y, yb, n * sizeof(double));
  gsl_odeiv2_driver_reset_hstart(drv, -half / 4.0);
  for (int k = 1; k <= NDEG; k++) {
    double tk = k == NDEG ? a : mid + half * cos(M_PI * k / NDEG);
    L->rhs_failed = 0;
    int gst = gsl_odeiv2_driver_apply(drv, &t, tk, y);
    if (L->rhs_failed) {
      *err = L->rhs_err;
      return err->status;
    }
    double grown = pnorm(L, y) / L->scale;
    if (gst != GSL_SUCCESS && (!isfinite(grown) || grown > 1e4)) {
      return lth_error_set_t(err, LTH_ENOSOL, t,
                             "the Riccati solution escapes near t = %.10g (||P|| = %.3g, %.3g "
                             "times its size at t1): a conjugate point, the cost is not bounded "
                             "below from there on",
                             t, grown * L->scale, grown);
    }
    if (gst != GSL_SUCCESS) {
      return lth_error_set_t(err, LTH_ETOL, t,
                             "the Riccati equation could not be integrated at tolerance %.3g "
                             "(GSL: %s)",
                             L->o.rtol, gsl_strerror(gst));
    }
    if (!(pnorm(L, y) <= L->o.escape * L->scale)) {
      return lth_error_set_t(err, LTH_ENOSOL, t,
                             "the Riccati solution escapes near t = %.10g (||P|| = %.3g): a "
                             "conjugate point, the cost is not bounded below from there on",
                             t, pnorm(L, y));
    }
    memcpy(f + n * (size_t)k, y, n * sizeof(double));
  }
  return LTH_OK;
}

lth_status plqr_riccati_build(plqr *L, lth_error *err) {
  size_t n = L->ny_;
  L->ric = (lth_cheb_panels){.L = n, .n = NDEG};
  double *yb = malloc(n * (NDEG + 4) * sizeof(double)), *f = yb + n;
  double *coef = malloc(n * (NDEG + 1) * sizeof(double));
  gsl_odeiv2_system gs = {rhs, NULL, n, L};
  gsl_odeiv2_driver *drv = yb && coef ? gsl_odeiv2_driver_alloc_y_new(&gs, gsl_odeiv2_step_rk8pd,
                                                                      -1e-3, L->o.atol, L->o.rtol)
                                      : NULL;
  lth_status st = drv ? plqr_final(L, yb, err)
                      : lth_error_set(err, LTH_ENOMEM, "out of memory building the Riccati table");
  L->scale = 1.0;
  if (st == LTH_OK) {
    L->scale = fmax(1.0, pnorm(L, yb));
  }
  if (st == LTH_OK) {
    st = plqr_weights_at(L, L->t1, err);
    double qn = 0.0;
    for (size_t i = 0; st == LTH_OK && i < (size_t)L->p * L->p; i++) {
      qn += L->wt.Q[i] * L->wt.Q[i];
    }
    L->scale = fmax(L->scale, sqrt(qn));
  }
  double b = L->t1, span = L->t1 - L->t0, w = span / 4.0, wmin = 1e-9 * span;
  while (st == LTH_OK && b > L->t0) {
    double a = b - w > L->t0 + 1e-12 * span ? b - w : L->t0;
    st = sweep(L, drv, a, b, yb, f, err);
    if (st != LTH_OK) {
      break;
    }
    lth_cheb_coef(f, n, NDEG, coef);
    if (!lth_cheb_tails_below(f, coef, n, NDEG, L->o.table_tol)) {
      if (b - a <= wmin) {
        /* a panel of 1e-9 of the span that still does not resolve P: P grows without bound
         * there (a conjugate point) when it has grown by orders of magnitude already */
        double grown = fmax(pnorm(L, f + n * NDEG), pnorm(L, f)) / L->scale;
        st = grown > 1e4 ? lth_error_set_t(err, LTH_ENOSOL, a,
                                           "the Riccati solution escapes near t = %.10g (||P|| = "
                                           "%.3g, %.3g times its size at t1): a conjugate point, "
                                           "the cost is not bounded below from there on",
                                           a, grown * L->scale, grown)
                         : lth_error_set_t(err, LTH_ETOL, a,
                                           "the Riccati solution cannot be tabulated to %.3g on "
                                           "[%.10g, %.10g]",
                                           L->o.table_tol, a, b);
        break;
      }
      w = 0.5 * (b - a);
      continue;
    }
    st = lth_cheb_panels_push(&L->ric, a, b, coef) == 0
             ? LTH_OK
             : lth_error_set(err, LTH_ENOMEM, "out of memory building the Riccati table");
    memcpy(yb, f + n * NDEG, n * sizeof(double)); /* Y(a): the next panel's start */
    b = a;
    w *= 1.5;
  }
  if (drv) {
    gsl_odeiv2_driver_free(drv);
  }
  free(yb);
  free(coef);
  return st;
}

void plqr_riccati_eval(const plqr *L, double t, double *Y) {
  lth_cheb_panels_eval(&L->ric, t, 0, L->ny_, Y);
}
