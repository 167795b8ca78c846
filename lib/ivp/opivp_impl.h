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

/* The stretches of CVODE's steps (lib/ivp/opivp_stretch.c). */
typedef struct opivp_stretch {
  struct lth_enclose *enc; /* NULL: the data carry no enclosure (no stretches) */
  double t1, span, rtol;
  double lo, hi, w, grow;    /* the stretch [lo, hi), its width, the next one's growth */
  double cross_lo, cross_hi; /* a kink or jump located inside: jumped over */
} opivp_stretch;

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
  /* the proof that Pi is nonsingular between the output times
   * (lib/ivp/opivp_proof.c): NULL with why_off when it cannot be made */
  struct op_piproof *proof;
  const char *proof_off;
  double cond_max, proven_len, pinv_bound;
  double scale; /* of cond_interval: the largest chain norm on [t0, t_end] (0: at each t) */
  size_t proofs;
  opivp_stretch stretch;
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

/* One decomposition at t into c->pt (not cached: c->have_pt = 0), timed
 * and counted; its refusal in e. */
lth_status opivp_decompose(opivp_ctx *c, double t, lth_error *e);

/* det Pi has sign sa at a and the other sign at b: bisect to where it
 * changes and refuse naming that t (LTH_ESING, or a decomposition's refusal
 * on the way). */
lth_status opivp_sign_change(opivp_ctx *c, double a, int sa, double b, lth_error *e);

/* Where c->proof can: the largest chain norm on [t0, t1] (a value it
 * reaches, within 1/1024 of the proven bound where 48 halvings suffice) into
 * c->scale, the scale of cond_interval of the proof and its samples, as the
 * dense path's scan sets it (docs/conditioning.md section 2.1). */
void opivp_scale(opivp_ctx *c, double t0, double t1);

/* Before integrating [a, b] (a < b): prove Pi nonsingular and within
 * cond_max there where c->proof can (adding to c->proven_len), refuse
 * naming t where the samples of the pieces not proven find Pi singular or
 * ill-conditioned (lib/ivp/opivp_proof.c). */
lth_status opivp_prove(opivp_ctx *c, double a, double b, lth_error *err);

/* Integrate v' = Ahat v + g from v0 at t0 through times[0..n-1] (> t0,
 * non-decreasing), calling out(c, k, v) at each.  Fills the counters of res. */
typedef lth_status (*opivp_out_fn)(opivp_ctx *c, size_t k, double *v, lth_opivp_result *res,
                                   lth_error *err);
lth_status opivp_integrate(opivp_ctx *c, double t0, const double *v0, const double *times, size_t n,
                           opivp_out_fn out, lth_opivp_result *res, lth_error *err);

/* The stretches over [t0, t1] for the data of sys at rtol (none, and no
 * error, when they carry no enclosure). */
lth_status opivp_stretch_init(opivp_stretch *s, const lth_opsys *sys, double t0, double t1,
                              double rtol, lth_error *err);
void opivp_stretch_free(opivp_stretch *s);
/* Where the integration from a towards t must stop next, and the largest
 * step on the way (*hmax, 0: none).  *cross = 1: a located kink or jump
 * starts at a; the state is to be carried to the returned time. */
double opivp_stretch_end(opivp_stretch *s, double a, double t, int *cross, double *hmax);

#endif
