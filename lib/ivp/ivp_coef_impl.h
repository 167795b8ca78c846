/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the state of lth_coef (lib/ivp/ivp_coef.h), shared by lib/ivp/ivp_coef.c
 * (dispatch, direct decompositions, the coefficient table) and
 * lib/ivp/ivp_coef_hermite.c (Hermite interpolation between nodes placed for the
 * sampled data). */
#ifndef LTH_IVP_COEF_IMPL_H
#define LTH_IVP_COEF_IMPL_H

#include "ivp_coef.h"
#include "lth/grid.h"
#include "lth/table.h"

struct lth_coef {
  const lth_system *sys;
  int deriv;
  int outputs_direct; /* the table holds Ahat, g, P only: Bhat, q, G decomposed directly */
  double t_lo, t_hi;
  lth_ivp_coefficients mode; /* _DIRECT, _TABLE or _HERMITE */
  int auto_table;            /* table chosen by auto: may fall back to direct */
  int fell_back;             /* auto left the table at t_switch */
  double t_switch;
  double chain_scale; /* of cond_interval, shared by ws and the table (lth_coef_chain_scale) */
  /* direct decompositions (also the table's direct panels and times off it) */
  lth_decomp_ws *ws;
  lth_point *pt;
  double t_cached;
  /* coefficient table */
  lth_table *tab;
  lth_point *tp; /* table values (order deriv) */
  size_t served; /* evaluations served by the table */
  size_t hint;   /* the table panel of the last evaluation */
  /* auto: the bias the table's panels may add to the solution (table_biased) */
  double bias_limit; /* TABLE_BIAS_SHARE rtol (INFINITY: not checked) */
  double bias_cover; /* covered part and largest damping rate last checked */
  double bias_gamma;
  double t_served;         /* the latest time the table has served */
  lth_table_opts tab_opts; /* the table's options (tol lowered by retable) */
  int retabled;            /* the table was rebuilt once to a tighter tolerance */
  unsigned gen;            /* counts the changes of what serves the right-hand side
                              (fall-backs, retable): lth_coef_generation */
  /* Hermite mode */
  lth_grid_result *grid; /* the nodes */
  int k;                 /* order of the stored jets */
  double herr;           /* largest interpolation error checked (relative) */
  double *basis;         /* (2k+2) x (2k+2): column c = monomial coefficients of basis c */
  lth_point *ip;         /* interpolated values (order 1) */
  /* statistics (direct decompositions and Hermite grid) */
  size_t decomps;
  double seconds;
};

double lth_coef_now(void);

/* lib/ivp/ivp_coef_hermite.c */
lth_status lth_coef_hermite_setup(lth_coef *c, const lth_ivp_opts *o, lth_error *err);
lth_status lth_coef_hermite_eval(lth_coef *c, double t, int order, int full, const lth_point **pt,
                                 lth_error *err);

#endif
