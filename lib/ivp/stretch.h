/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to lib/ivp: the stretches of the integrators' steps
 * (docs/enclosures.md, "Integrator steps"), shared by the dense path
 * (ivp.c, resolved_end) and the operator path (opivp_stretch.c).  No step
 * crosses the end of a stretch on which the data are resolved by degree
 * IVP_ENC_DEGREE to rtol, so a pulse or kink cannot fall between a step's
 * points. */
#ifndef LTH_IVP_STRETCH_H
#define LTH_IVP_STRETCH_H

#include <math.h>

/* Degree of the polynomial that must resolve the data over one stretch
 * (include/lth/enclose.h): 16 leaves the steps that smooth data allow alone
 * (sin t at rtol 1e-10: stretches of 7, some 60 steps of rk8pd) while a
 * pulse of width w confines them to a few w. */
#define IVP_ENC_DEGREE 16
/* Below this fraction of the span a stretch is taken unresolved (a kink
 * or jump at its start): the integrator steps across it with a step that
 * short, its own error control judging the rest. */
#define IVP_ENC_FLOOR 1e-9
/* The least a stretch grows past the last one (stretch_growth; 2x at most):
 * a search that starts at more than the width the data allow fails one
 * check first and then lands short of that width, stretch after stretch
 * (docs/performance.md, "Outputs from the step's points, the first degree,
 * the stretches' growth"). */
#define IVP_ENC_REGROW 1.25

/* The next stretch's first width relative to this one's, from the bound
 * that resolved it: where the bound scales like w^(degree + 1) it reaches
 * the tolerance at (rtol / bound)^(1 / (degree + 1)) times the width; 0.9 of
 * that, within [IVP_ENC_REGROW, 2]. */
static inline double ivp_stretch_growth(double bound, double rtol) {
  double g = bound > 0 ? 0.9 * pow(rtol / bound, 1.0 / (IVP_ENC_DEGREE + 1)) : 2.0;
  return isnan(g) ? IVP_ENC_REGROW : fmin(2.0, fmax(IVP_ENC_REGROW, g));
}

#endif
