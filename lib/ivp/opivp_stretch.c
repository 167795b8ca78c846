/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator path's stretches (opivp_impl.h, opivp_stretch_end): where the
 * system's data carry enclosures (lth_opsys_from_system of expressions,
 * mm() combinations, the equation form), no CVODE step crosses the end of a
 * stretch on which they are resolved by degree IVP_ENC_DEGREE to rtol, and
 * no step is longer than 1/OPIVP_STRETCH_STEPS of its stretch.  A BDF step
 * evaluates the data at one new time, so the bound on the step makes at
 * least that many of CVODE's times fall on every stretch: a feature the
 * degree resolves is seen by them (a pulse of width 5e-6 fell between
 * CVODE's steps: y = 0 for 0.054).  A kink or jump not resolved over
 * IVP_ENC_FLOOR of the span is located and jumped over (the state carried
 * and projected), after which CVODE starts afresh: the dense path's
 * crossing step (ivp.c, locate_crossing) with the state held instead of
 * stepped, an error of at most the gap (about 1e-12 of the span) times
 * |v'|. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "core/errors.h"
#include "decomp/op_data.h"
#include "lth/enclose.h"
#include "opivp_impl.h"
#include "stretch.h"

/* CVODE's steps per stretch, at least: its largest step is the stretch's
 * width over this. */
#define OPIVP_STRETCH_STEPS 8.0

lth_status opivp_stretch_init(opivp_stretch *s, const lth_opsys *sys, double t0, double t1,
                              double rtol, lth_error *err) {
  s->enc = NULL;
  s->t1 = t1;
  s->span = t1 - t0;
  s->rtol = rtol;
  s->lo = s->hi = t0;
  s->w = 0.0;
  s->grow = 2.0;
  s->cross_lo = s->cross_hi = -INFINITY;
  const lth_system *from = op_sys_origin(sys);
  if (!from || !(t1 > t0)) return LTH_OK;
  s->enc = lth_enclose_alloc(from, IVP_ENC_DEGREE, err);
  if (!s->enc) return lth_error_status(err);
  if (!lth_enclose_known(s->enc)) {
    lth_enclose_free(s->enc);
    s->enc = NULL;
  }
  return LTH_OK;
}

void opivp_stretch_free(opivp_stretch *s) {
  lth_enclose_free(s->enc);
  s->enc = NULL;
}

/* [a, a + w] is not resolved even at the floor's width w: bisect to where,
 * and make that the crossing (ivp.c's locate_crossing, the same widths). */
static void locate(opivp_stretch *s, double a, double w) {
  lth_enclose_verdict v;
  double tiny = fmax(1e-3 * w, 16 * DBL_EPSILON * fmax(1.0, fabs(a)));
  s->lo = a;
  s->hi = a + w;
  if (lth_enclose_check(s->enc, a, a + w, IVP_ENC_DEGREE, s->rtol, tiny, &v, NULL) != LTH_OK ||
      v.answer != LTH_ENCLOSE_UNRESOLVED) {
    return;
  }
  double pad = v.t_width + 4 * DBL_EPSILON * fmax(1.0, fabs(v.t_feature));
  s->cross_lo = fmax(a, v.t_feature - pad);
  s->cross_hi = v.t_feature + 1.5 * pad; /* asymmetric: no decomposition on the point */
  s->lo = s->cross_hi;                   /* then CVODE alone over the floor's width */
  s->hi = s->cross_hi + w;
}

/* The stretch from a: the widest resolved one up to what the last one's
 * bound lets it grow to, or a located feature. */
static void plan(opivp_stretch *s, double a) {
  double rest = s->t1 - a;
  double wmax = s->w > 0 ? fmin(rest, s->grow * s->w) : rest;
  double floor = fmin(wmax, IVP_ENC_FLOOR * fmax(s->span, rest));
  double w, bound;
  int res;
  if (lth_enclose_width_bound(s->enc, a, wmax, floor, IVP_ENC_DEGREE, s->rtol, &w, &res, &bound,
                              NULL) != LTH_OK) {
    s->lo = a; /* (only for bad arguments: no stretch) */
    s->hi = INFINITY;
    s->w = rest;
    return;
  }
  s->w = w;
  if (res == 0) {
    locate(s, a, w);
    return;
  }
  s->lo = a;
  s->hi = a + w >= s->t1 ? INFINITY : a + w;
  s->grow = ivp_stretch_growth(bound, s->rtol);
}

double opivp_stretch_end(opivp_stretch *s, double a, double t, int *cross, double *hmax) {
  *cross = 0;
  *hmax = 0.0;
  if (!s->enc || !(t > a)) return t;
  if (!(a >= s->cross_lo && a < s->cross_hi) && !(a >= s->lo && a < s->hi)) plan(s, a);
  if (a >= s->cross_lo && a < s->cross_hi) {
    *cross = 1;
    return s->cross_hi;
  }
  if (s->cross_lo > a) return fmin(t, s->cross_lo); /* located just ahead */
  *hmax = s->w / OPIVP_STRETCH_STEPS;
  return fmin(t, s->hi);
}
