/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hermite interpolation of the decomposition (lib/ivp/ivp_coef.h; the
 * coefficient source for sampled data): the decomposition with output jets
 * of order k at nodes placed for the sampled data (lib/ivp/samples_nodes.c), and
 * between nodes t_j < t < t_{j+1} the two-point Hermite polynomial of degree
 * 2k+1 that matches the k+1 Taylor coefficients at both ends.  It is C^k
 * across nodes, so adaptive steppers are not fooled by the jumps that
 * piecewise local fits of the samples would have. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ivp_coef_impl.h"
#include "samples_nodes.h"
#include "core/errors.h"

lth_status lth_coef_hermite_setup(lth_coef *c, const lth_ivp_opts *o, lth_error *err) {
  LTH_ERROR_RECORD(err);
  samples_nodes nd;
  lth_status st = samples_nodes_build(c->sys, c->t_lo, c->t_hi, o->hermite_grid,
                                      o->hermite_grid ? o->hermite_n : 0, o->cond_max,
                                      lth_coef_tol(o), &nd, err);
  c->decomps += nd.decomps;
  if (st != LTH_OK) {
    return st;
  }
  c->grid = nd.grid;
  c->k = nd.k;
  c->basis = nd.basis;
  c->herr = nd.err;
  c->ip = lth_point_alloc(c->sys, 1, err);
  return c->ip ? LTH_OK : (lth_error_status(err));
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
        LTH_JET_AT(D, 1, ii, jj) = h > 0.0 ? d / h : LTH_JET_AT(F0, 1, ii, jj);
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
    return lth_error_set_t(err, LTH_ERANGE, t, "outside the interpolation nodes [%g, %g]", lo, hi);
  }
  size_t a = 0, b = n - 1; /* bisection: points[a]->t <= t <= points[b]->t */
  while (b - a > 1) {
    size_t mid = a + (b - a) / 2;
    if (g->points[mid]->t <= t)
      a = mid;
    else
      b = mid;
  }
  const lth_point *P0 = g->points[a], *P1 = g->points[b];
  double h = P1->t - P0->t, x = h > 0.0 ? (t - P0->t) / h : 0.0;
  double val[64], der[64];
  samples_nodes_weights(c->k, c->basis, x, val, der);
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
