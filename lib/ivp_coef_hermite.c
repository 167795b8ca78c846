/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hermite interpolation of the decomposition on a grid (lib/ivp_coef.h; the
 * coefficient source for sampled data).
 *
 * The decomposition with output jets of order k on a grid, and between grid
 * points t_j < t < t_{j+1} the two-point Hermite polynomial of degree 2k+1
 * that matches the k+1 Taylor coefficients at both ends.  It is C^k across
 * grid points, so adaptive steppers are not fooled by the jumps that
 * piecewise local fits of the samples would have.
 *
 * The order k: as high as the data support, up to HERMITE_MAX_K.  With fits
 * of degree K through samples of spacing h, output coefficient i (i <= k)
 * needs input derivatives of order i + r - 1 and is off by O(h^(K+2-r-i));
 * in the Hermite form it is multiplied by H^i (H the grid spacing), so every
 * term contributes O(h^(K+2-r)) when H ~ h -- the accuracy of the fits
 * themselves -- while the interpolation error is O(H^(2k+2)).  k = K - r + 1
 * (all the data support, capped) keeps 2k + 2 > K + 2 - r for every K >= r - 1,
 * so the interpolation between grid points is never the weaker link (before,
 * k was capped at 2: degree 5, O(H^6), below automatic fits of degree 8 and
 * more).  Exact data: k = HERMITE_MAX_K. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ivp_coef_impl.h"

#define HERMITE_DEFAULT_POINTS 201
#define HERMITE_MAX_K 4

/* Basis of two-point Hermite interpolation on [0, 1]: polynomial c has Taylor
 * coefficient c at 0 equal to 1 (c <= k) or coefficient c-k-1 at 1 equal to 1,
 * all other k+1 + k+1 Taylor coefficients zero. */
static lth_status hermite_basis(int k, double *B, lth_error *err) {
  int n = 2 * k + 2;
  double M[64 * 64];
  lapack_int ipiv[64];
  if (n > 64) {
    return lth_error_set(err, LTH_EINVAL, "Hermite order %d too high", k);
  }
  for (int c = 0; c < n; c++) {
    for (int e = 0; e < n; e++) {
      double v;
      if (c <= k) {
        v = e == c ? 1.0 : 0.0;
      } else {
        int j = c - k - 1; /* Taylor coefficient j of x^e at 1 is binom(e, j) */
        v = 1.0;
        for (int i = 1; i <= j; i++) v = v * (e - j + i) / i;
        v = e >= j ? v : 0.0;
      }
      M[c + e * n] = v;
      B[c + e * n] = c == e ? 1.0 : 0.0;
    }
  }
  lapack_int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, n, M, n, ipiv, B, n);
  return info == 0 ? LTH_OK : lth_error_set(err, LTH_ELAPACK, "Hermite basis (info %d)", (int)info);
}

static lth_status hermite_grid(lth_coef *c, const lth_ivp_opts *o, lth_error *err) {
  size_t n = o->hermite_grid ? o->hermite_n : HERMITE_DEFAULT_POINTS;
  double *own = NULL;
  const double *times = o->hermite_grid;
  if (!times) {
    own = malloc(n * sizeof(double));
    if (!own) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory");
    }
    for (size_t j = 0; j < n; j++) {
      own[j] = c->t_lo + (c->t_hi - c->t_lo) * (double)j / (double)(n - 1);
    }
    own[n - 1] = c->t_hi;
    times = own;
  }
  lth_status st = LTH_OK;
  if (n < 2 || times[0] > c->t_lo || times[n - 1] < c->t_hi) {
    st = lth_error_set(err, LTH_ERANGE, "the Hermite grid [%g, %g] does not cover [%g, %g]",
                       n ? times[0] : NAN, n ? times[n - 1] : NAN, c->t_lo, c->t_hi);
  }
  /* the highest order the data support (sampled blocks refuse orders above
   * their fits' degree with LTH_EORDER at the first grid point), at most HERMITE_MAX_K */
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.cond_max = o->cond_max;
  for (c->k = HERMITE_MAX_K; st == LTH_OK && c->k >= 0; c->k--) {
    go.out_order = c->k;
    lth_error e2;
    lth_error_clear(&e2);
    st = lth_grid_store(c->sys, times, n, &go, &c->grid, &e2);
    if (st == LTH_OK) {
      break;
    }
    if (st != LTH_EORDER || c->k == 0) {
      if (err) *err = e2;
      break;
    }
    st = LTH_OK;
  }
  c->decomps += n;
  free(own);
  for (size_t j = 1; st == LTH_OK && j < n; j++) {
    const lth_point *p0 = c->grid->points[j - 1], *p1 = c->grid->points[j];
    if (p0->pi_sign != p1->pi_sign) {
      st = lth_error_set_t(err, LTH_ESING, 0.5 * (p0->t + p1->t),
                           "det Pi changes sign between the grid points t = %.17g and "
                           "t = %.17g: Pi is singular in between, the coefficients cannot be "
                           "interpolated across",
                           p0->t, p1->t);
    }
  }
  return st;
}

lth_status lth_coef_hermite_setup(lth_coef *c, const lth_ivp_opts *o, lth_error *err) {
  lth_status st = hermite_grid(c, o, err);
  if (st != LTH_OK) {
    return st;
  }
  c->basis = malloc(sizeof(double) * (size_t)(2 * c->k + 2) * (2 * c->k + 2));
  c->ip = lth_point_alloc(c->sys, 1, err);
  if (!c->basis || !c->ip) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  return hermite_basis(c->k, c->basis, err);
}

/* Interpolate field F (rows x cols) of the stored points j, j+1 into D. */
static void hermite_field(const lth_coef *c, const lth_jet *F0, const lth_jet *F1, double h,
                          const double *val, const double *der, int order, lth_jet *D) {
  int k = c->k;
  for (int jj = 0; jj < D->cols; jj++) {
    for (int ii = 0; ii < D->rows; ii++) {
      double v = 0.0, d = 0.0, hp = 1.0;
      for (int i = 0; i <= k; i++) {
        double a = LTH_JET_AT(F0, i, ii, jj) * hp, b = LTH_JET_AT(F1, i, ii, jj) * hp;
        v += a * val[i] + b * val[k + 1 + i];
        d += a * der[i] + b * der[k + 1 + i];
        hp *= h;
      }
      LTH_JET_AT(D, 0, ii, jj) = v;
      if (order >= 1) {
        LTH_JET_AT(D, 1, ii, jj) = d / h;
      }
    }
  }
  D->order = order;
}

lth_status lth_coef_hermite_eval(lth_coef *c, double t, int order, int full, const lth_point **pt,
                                 lth_error *err) {
  const lth_grid_result *g = c->grid;
  size_t n = g->n;
  double lo = g->points[0]->t, hi = g->points[n - 1]->t;
  /* a stepper's stage times may overshoot the end of its span by rounding
   * (bsimp: 4 + 3.6e-15 on data/sampled.lth); the end polynomials extend
   * that far unchanged */
  double slack = 1e-12 * (hi - lo);
  if (!(t >= lo - slack && t <= hi + slack)) {
    return lth_error_set_t(err, LTH_ERANGE, t, "outside the interpolation grid [%g, %g]", lo, hi);
  }
  size_t a = 0, b = n - 1; /* bisection: points[a]->t <= t <= points[b]->t */
  while (b - a > 1) {
    size_t mid = a + (b - a) / 2;
    if (g->points[mid]->t <= t) a = mid; else b = mid;
  }
  const lth_point *P0 = g->points[a], *P1 = g->points[b];
  double h = P1->t - P0->t, x = (t - P0->t) / h;
  int nb = 2 * c->k + 2;
  double val[64], der[64];
  for (int cc = 0; cc < nb; cc++) {
    double v = 0.0, d = 0.0, xp = 1.0;
    for (int e = 0; e < nb; e++) {
      v += c->basis[e + cc * nb] * xp;
      if (e + 1 < nb) d += (e + 1) * c->basis[(e + 1) + cc * nb] * xp;
      xp *= x;
    }
    val[cc] = v;
    der[cc] = d;
  }
  lth_point *ip = c->ip;
  hermite_field(c, &P0->Ahat, &P1->Ahat, h, val, der, order, &ip->Ahat);
  hermite_field(c, &P0->g, &P1->g, h, val, der, order, &ip->g);
  hermite_field(c, &P0->P, &P1->P, h, val, der, order, &ip->P);
  if (full) {
    ip->P.order = 0;
    hermite_field(c, &P0->Bhat, &P1->Bhat, h, val, der, 0, &ip->Bhat);
    hermite_field(c, &P0->q, &P1->q, h, val, der, 0, &ip->q);
    hermite_field(c, &P0->G, &P1->G, h, val, der, 0, &ip->G);
  }
  ip->t = t;
  ip->cond_pi = fmax(P0->cond_pi, P1->cond_pi);
  ip->cond_chain = fmax(P0->cond_chain, P1->cond_chain);
  ip->pi_sign = P0->pi_sign;
  *pt = ip;
  return LTH_OK;
}
