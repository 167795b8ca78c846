/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: LQR on a DAE plant (include/lth/plqr.h): the problem's weights on
 * the realization at t (plqr_weights.c), the Riccati solution as a table
 * (plqr_riccati.c) and the solve (plqr.c). */
#ifndef LTH_PLQR_IMPL_H
#define LTH_PLQR_IMPL_H

#include "lth/decomp.h"
#include "lth/plqr.h"
#include "lth/ss.h"
#include "ss/cheb.h"

/* The weights of x and u at t: J's integrand x'Qx + 2x'Su + u'Ru + 2q'x +
 * 2r'u + c0, from W, l, c through w = M x + N u + m (header). */
typedef struct plqr_weights {
  int p, s, nu, ny, n;
  double *A, *B, *g; /* the realization at t (views into pt) */
  double *Q, *S, *R, *q, *r, c0;
  double *Rf; /* the Cholesky factor of R (dpotrf, lower) */
} plqr_weights;

typedef struct plqr {
  const lth_system *sys;
  const lth_plqr_cost *cost;
  lth_plqr_opts o;
  double t0, t1;
  int p, s, m, nu, ny, n;
  lth_ss *ss;
  lth_ss_table *tab;
  lth_ss_point *pt;
  plqr_weights wt;
  double *W, *l;      /* the cost's sources at t: n x n, n */
  double *M, *N, *mv; /* n x p, n x nu, n */
  double *work;       /* scratch of the sources and the products */
  size_t nwork;
  /* the Riccati solution: Chebyshev panels of Y = (P, p, c) */
  lth_cheb_panels ric; /* Y = (P, p, c), ny_ entries, panels laid right to left */
  size_t ny_;          /* p p + p + 1 */
  double scale;        /* max(1, ||P(t1)||, ||Q||) for the escape test */
  lth_error rhs_err;
  int rhs_failed;
  /* the weights as a table (plqr_wtable.c): packed A, B, g, Q, S, R, q, r, c0
   * (nw entries), Chebyshev panels on [t0, t1]; the integrators read it */
  size_t nw;
  lth_cheb_panels wtab;
  double *wbuf, *wown; /* wown: A, B, g when read from the table */
  int wready;
} plqr;

/* 1 if input k reaches the realization at pt without derivatives: its
 * columns of the change of state and of D_j, Dz_j (j >= 1) exactly zero (as
 * the input maps make them for an input in the dynamic rows alone). */
int plqr_underived(const lth_ss_point *pt, int k);

/* The weights at t into L->wt (R factored): LTH_ESING naming t where R is not
 * positive definite.  From the weights' table once it is built (the
 * integrators' stages), else from the realization (plqr_weights_direct). */
lth_status plqr_weights_at(plqr *L, double t, lth_error *err);
/* The same from the realization's table at t; L->pt then holds the realization
 * there (the output times read Z, C, D from it). */
lth_status plqr_weights_direct(plqr *L, double t, lth_error *err);
/* plqr_weights_direct without factoring R (the singular path's split). */
lth_status plqr_weights_values(plqr *L, double t, lth_error *err);
/* L->wt.Rf = the Cholesky factor of L->wt.R; LTH_ESING naming t if R is not
 * positive definite. */
lth_status plqr_factor_r(plqr *L, double t, lth_error *err);
/* The weights' table on [t0, t1] (plqr_wtable.c). */
lth_status plqr_wtable_build(plqr *L, lth_error *err);
/* The weights at t from the table into L->wt (R factored). */
lth_status plqr_wtable_eval(plqr *L, double t, lth_error *err);
void plqr_wtable_free(plqr *L);
/* The final cost's P(t1), p(t1), c(t1) into Y; refuses a final cost that weighs u. */
lth_status plqr_final(plqr *L, double *Y, lth_error *err);
/* Y' = -(...) of the Riccati system (header) at t, from the weights at t. */
void plqr_riccati_rhs(const plqr *L, const double *Y, double *dY);

/* x0 = Q(t0)' (I - P(t0)) z0: the state part of z0 (L->pt: the realization at t0). */
lth_status plqr_initial_state(plqr *L, const double *z0, double *x0, lth_error *err);

/* The table of Y on [t0, t1], built backwards from t1. */
lth_status plqr_riccati_build(plqr *L, lth_error *err);
/* Y at t from the table. */
void plqr_riccati_eval(const plqr *L, double t, double *Y);

#endif
