/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the realization's state (lib/ss/ss.c), shared by the basis
 * (ss_basis.c) and the maps (ss_maps.c). */
#ifndef LTH_SS_IMPL_H
#define LTH_SS_IMPL_H

#include <gsl/gsl_odeiv2.h>

#include "lth/decomp.h"
#include "lth/ss.h"

struct lth_ss {
  const lth_system *sys;
  lth_ss_opts opts;
  int r, s, m, p, nu, ny, jmax, order; /* order: the jets the change of state needs */
  lth_ss_point shape;                  /* dimensions only (no arrays) */
  lth_decomp_ws *ws;                   /* out_order `order`: points with input maps */
  lth_decomp_ws *ws_rhs;               /* out_order 0: Ahat for the basis ODE */
  lth_point *pt, *pt_rhs;
  lth_input_maps *maps;
  /* the basis: Q (m x p) at t_cur, integrated by drv */
  int have_q;
  double t_cur;
  double *q;
  gsl_odeiv2_system gsys;
  gsl_odeiv2_driver *drv;
  double dir;          /* the driver's direction (+1, -1; 0 before the first step) */
  lth_error rhs_err;   /* a decomposition refused inside the basis ODE */
  int rhs_failed;
  long steps, decomps;
  int scanned;              /* Pi is checked on [scan_lo, scan_hi] */
  double scan_lo, scan_hi;
  /* scratch */
  double *w1, *w2, *w3;   /* max(m, s, ny) x max(m, p, nu) each, several uses */
  double *jets;           /* the change of state: (jmax + 1) jets of m x nu, order `order` */
  double *svd;            /* SVD scratch */
  double *cdy;            /* values of C (ny x s), D (ny x nu), y0 (ny) */
  double *src_work;
  int *sel;               /* p: the columns of the canonical start */
};

/* The canonical basis at t0 (docs: the polar factor of the columns of the
 * orthogonal projector onto ker P with the largest diagonal) into ss->q. */
lth_status lth_ss_basis_start(lth_ss *ss, double t0, lth_error *err);
/* ss->q integrated from ss->t_cur to t. */
lth_status lth_ss_basis_move(lth_ss *ss, double t, lth_error *err);
/* Check ss->q against P (ss->pt, at t), reproject and reorthonormalise it;
 * the errors before into pt. */
lth_status lth_ss_basis_check(lth_ss *ss, lth_ss_point *pt, lth_error *err);
/* The realization at ss->pt, ss->maps and ss->q into pt. */
lth_status lth_ss_maps(lth_ss *ss, lth_ss_point *pt, lth_error *err);

/* Orthonormalise the m x p columns of a in place by their polar factor
 * (closest orthonormal matrix): U V^T from a = U S V^T.  work: see ss.c. */
lth_status lth_ss_polar(double *a, int m, int p, double *work, lth_error *err);

#endif
