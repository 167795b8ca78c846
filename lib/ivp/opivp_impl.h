/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the operator-form initial-value solver (include/lth/opivp.h).
 *
 * opivp.c holds what does not depend on the integrator (arguments, the
 * decomposed point cached by t, the initial state, the outputs, the result);
 * opivp_cvode.c drives SUNDIALS CVODE through opivp_integrate.  The right-hand
 * side, the Jacobian-vector product and the projection all reach the system
 * through opivp_at, which decomposes only when t differs from the cached
 * point's. */
#ifndef LTH_OPIVP_IMPL_H
#define LTH_OPIVP_IMPL_H

#include <stddef.h>

#include "lth/opivp.h"

typedef struct opivp_ctx {
  const lth_opsys *sys;
  int s, m;
  lth_opivp_opts o; /* defaults filled in */
  lth_opdecomp_ws *ws;
  lth_oppoint *pt;
  int have_pt; /* pt holds the decomposition at t_pt */
  double t_pt;
  /* det Pi's sign at the last decomposed time (a change means a singular Pi
   * in between) */
  int have_sign, sign;
  double sign_t;
  double *gbuf, *pbuf; /* m: g, and P x (or (I - P) x) */
  double *zbuf;        /* s: q */
  size_t decomps;
  double seconds_decomp;
  /* the first failure inside a callback, for the solve to return */
  lth_error fail;
  int failed;
} opivp_ctx;

/* The decomposition at t into c->pt (cached).  On failure c->fail records why
 * (naming t) and the status is returned. */
lth_status opivp_at(opivp_ctx *c, double t);
/* y = Ahat(t) x + g(t) (x, y m-vectors, distinct). */
lth_status opivp_rhs(opivp_ctx *c, double t, const double *x, double *y);
/* y = Ahat(t) x. */
lth_status opivp_jv(opivp_ctx *c, double t, const double *x, double *y);
/* y = P(t) x, or (I - P(t)) x when minus (x, y distinct). */
lth_status opivp_proj(opivp_ctx *c, double t, int minus, const double *x, double *y);

/* Integrate v' = Ahat v + g from v0 at t0 through times[0..n-1] (> t0,
 * non-decreasing), calling out(c, k, v) at each.  Fills the counters of res. */
typedef lth_status (*opivp_out_fn)(opivp_ctx *c, size_t k, double *v, lth_opivp_result *res,
                                   lth_error *err);
lth_status opivp_integrate(opivp_ctx *c, double t0, const double *v0, const double *times, size_t n,
                           opivp_out_fn out, lth_opivp_result *res, lth_error *err);

#endif
