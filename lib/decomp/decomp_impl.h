/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the decomposition workspace (lib/decomp/decomp.c), shared with the
 * verification module (lib/decomp/verify.c), which reads the input jets. */
#ifndef LTH_DECOMP_IMPL_H
#define LTH_DECOMP_IMPL_H

#include "lth/decomp.h"
#include "lth/jet.h"

struct lth_decomp_ws {
  const lth_system *sys;
  int r, s, m, nr, nmax;
  int K;         /* input jet order = out_order + r - 1 */
  int out_order;
  double cond_max, cond_pi, cond_chain;
  double scale;      /* largest chain norm on the interval (0: unknown) */
  double pi_inv_norm, chain_norm, cond_interval; /* at the last point */
  int pi_sign; /* sign of det Pi at the last point */
  int *n, *off;  /* n[i-1] = n_i, off[i-1] = offset of block i; off[r] = s */
  int *xord;     /* xord[i]: order of X_i (xord[0]: u's map) */
  int *yord;     /* yord[i]: order of row block i of Y */
  double *src_work;
  lth_jet A, f;  /* assembled inputs: s x s, s x 1 */
  lth_jet Pi;
  lth_jet_lu *lu;
  lth_jet *L, *R, *S, *P, *dP; /* index i-1 for i = 1..r-1 */
  lth_jet X;     /* [Bhat | q], s x (m+1) */
  lth_jet Y;     /* [Ahat | g], m x (m+1) */
  lth_jet T, D;  /* nmax x (m+1): U_i and D[X_i] */
  lth_jet Z;     /* n_r x (m+1) */
  lth_jet tmp;   /* s x nmax */
};

/* The scale of rank decisions on G = (Nhat + Bhat)(I - P) = Z - Z P
 * (Corollary 3): ||Nhat + Bhat||_F (1 + ||P||_F), which bounds ||G|| and
 * makes its rounding error eps times a modest factor.  Never ||G|| itself:
 * with p = 0, G is rounding noise and its largest singular value says
 * nothing (lib/decomp_point.c). */
double lth_point_rank_scale(const lth_point *pt);
/* Frobenius norm of coefficient 0 of J, scaled against overflow. */
double lth_jet_fro0(const lth_jet *J);

/* The LTH_ECOND record of a cond_interval = pi_inv * scale above cond_max at t. */
lth_status lth_decomp_interval_error(lth_error *err, double t, int r, double pi_inv,
                                     double scale, double cond_max);

#endif
