/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The weights of an LQR problem on a DAE plant as a table (plqr_impl.h):
 * the Riccati and closed-loop integrators read A, B, g and the cost's
 * Q, S, R, q, r, c0 at every stage.  Derived from the realization each time,
 * they cost a Clenshaw sum over every array of the realization (Q and Z
 * included) and dense products over n = s + nu + ny; tabulated, a Clenshaw
 * sum over what is read.  Chebyshev panels of degree LTH_SS_TABLE_DEGREE,
 * left to right, accepted when the two last coefficients of every entry are
 * below table_tol max(1, |entry|) and the interpolant matches the direct
 * weights a quarter and three quarters across to 10 table_tol; else halved.
 * A decision from samples: a feature narrower than those points' spacing
 * can hide in a panel (the closed loop's cost, integrated along it, is
 * compared with the optimum: lth_plqr_result.cost_closed). */
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

/* The packed weights: A, B, g, Q, S, R, q, r, c0 (pointers into wt, sizes). */
static void parts(plqr *L, double **ptr, size_t *cnt) {
  plqr_weights *w = &L->wt;
  size_t p = (size_t)L->p, nu = (size_t)L->nu;
  double *a[8] = {w->A, w->B, w->g, w->Q, w->S, w->R, w->q, w->r};
  size_t c[8] = {p * p, p * nu, p, p * p, p * nu, nu * nu, p, nu};
  for (int k = 0; k < 8; k++) {
    ptr[k] = a[k];
    cnt[k] = c[k];
  }
}

/* The direct weights at t packed into v. */
static lth_status sample(plqr *L, double t, double *v, lth_error *err) {
  lth_status st = plqr_weights_direct(L, t, err);
  if (st != LTH_OK) {
    return st;
  }
  double *ptr[8];
  size_t cnt[8];
  parts(L, ptr, cnt);
  for (int k = 0; k < 8; k++) {
    memcpy(v, ptr[k], cnt[k] * sizeof(double));
    v += cnt[k];
  }
  *v = L->wt.c0;
  return LTH_OK;
}

/* One panel [a, b]: values at the nodes into f, coefficients into coef, *ok. */
static lth_status try_panel(plqr *L, double a, double b, double *f, double *coef, int *ok,
                            lth_error *err) {
  size_t n = L->nw;
  double mid = 0.5 * (a + b), half = 0.5 * (b - a), *chk = f + n * (NDEG + 1), *val = chk + n;
  lth_status st = LTH_OK;
  for (int k = NDEG; k >= 0 && st == LTH_OK; k--) { /* left to right */
    st = sample(L, mid + half * cos(M_PI * k / NDEG), f + n * (size_t)k, err);
  }
  if (st != LTH_OK) {
    return st;
  }
  lth_cheb_coef(f, n, NDEG, coef);
  *ok = lth_cheb_tails_below(f, coef, n, NDEG, L->o.table_tol);
  for (int c = 0; c < 2 && *ok && st == LTH_OK; c++) {
    double x = c == 0 ? -0.5 : 0.5;
    st = sample(L, mid + half * x, chk, err);
    lth_cheb_eval(coef, n, NDEG, 0, n, x, val);
    for (size_t e = 0; st == LTH_OK && e < n && *ok; e++) {
      *ok = fabs(val[e] - chk[e]) <= 10.0 * L->o.table_tol * fmax(1.0, fabs(chk[e]));
    }
  }
  return st;
}

lth_status plqr_wtable_build(plqr *L, lth_error *err) {
  size_t p = (size_t)L->p, nu = (size_t)L->nu;
  L->nw = 2 * p * p + 2 * p * nu + 2 * p + nu * nu + nu + 1;
  size_t n = L->nw;
  L->wtab = (lth_cheb_panels){.L = n, .n = NDEG};
  double *f = malloc(n * (NDEG + 4) * sizeof(double));
  double *coef = malloc(n * (NDEG + 1) * sizeof(double));
  L->wbuf = malloc(n * sizeof(double));
  L->wown = malloc((p * p + p * nu + p + 1) * sizeof(double));
  lth_status st = f && coef && L->wbuf && L->wown
                      ? LTH_OK
                      : lth_error_set(err, LTH_ENOMEM, "out of memory tabulating the LQR weights");
  double span = L->t1 - L->t0, a = L->t0, w = span / 4.0, wmin = 1e-9 * span;
  while (st == LTH_OK && a < L->t1) {
    double b = a + w < L->t1 - 1e-12 * span ? a + w : L->t1;
    int ok = 0;
    st = try_panel(L, a, b, f, coef, &ok, err);
    if (st == LTH_OK && !ok && b - a > wmin) {
      w = 0.5 * (b - a);
      continue;
    }
    if (st == LTH_OK && !ok) {
      st = lth_error_set_t(err, LTH_ETOL, a,
                           "the LQR weights cannot be tabulated to %.3g on [%.10g, %.10g]",
                           L->o.table_tol, a, b);
    }
    if (st == LTH_OK && lth_cheb_panels_push(&L->wtab, a, b, coef) != 0) {
      st = lth_error_set(err, LTH_ENOMEM, "out of memory tabulating the LQR weights");
    }
    a = b;
    w *= 1.5;
  }
  free(f);
  free(coef);
  L->wready = st == LTH_OK;
  return st;
}

lth_status plqr_wtable_eval(plqr *L, double t, lth_error *err) {
  size_t p = (size_t)L->p, nu = (size_t)L->nu;
  lth_cheb_panels_eval(&L->wtab, t, 0, L->nw, L->wbuf);
  plqr_weights *w = &L->wt;
  w->A = L->wown;
  w->B = w->A + p * p;
  w->g = w->B + p * nu;
  double *ptr[8];
  size_t cnt[8];
  parts(L, ptr, cnt);
  const double *v = L->wbuf;
  for (int k = 0; k < 8; k++) {
    memcpy(ptr[k], v, cnt[k] * sizeof(double));
    v += cnt[k];
  }
  w->c0 = *v;
  return plqr_factor_r(L, t, err);
}

void plqr_wtable_free(plqr *L) {
  lth_cheb_panels_free(&L->wtab);
  free(L->wbuf);
  free(L->wown);
}
