/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Library-internal: the proof that Pi(t) is nonsingular and within cond_max
 * on an interval of an operator-form system, piece by piece from the data's
 * enclosures, sampled and halved where the proof fails
 * (lib/ivp/opivp_proof.c; docs/enclosures.md, "Pi between the points").
 * lth_opivp_solve makes it between its output times; lth_bvp_solve_op
 * (lib/bvp/bvp_op.c) over [t0, t1] before collocating. */
#ifndef LTH_OPIVP_PROOF_H
#define LTH_OPIVP_PROOF_H

#include <stddef.h>

#include "lth/opdecomp.h"
#include "lth/status.h"

typedef struct opivp_pi_proof {
  double proven;     /* the share of [a, b] proven (0 when off) */
  double pinv_bound; /* the largest proven bound of ||Pi(t)^-1||_1 (0 when nothing is) */
  size_t pieces;     /* pieces examined */
  const char *off;   /* NULL, or why no proof can be made (a static string) */
} opivp_pi_proof;

/* Prove Pi nonsingular with cond_interval within cond_max (> 0) on [a, b]
 * (a < b), split at the times cuts[0..n-1] that lie inside it (any order;
 * each part has the piece budget lth_opivp_solve gives an output interval).
 * The scale of cond_interval is the largest chain norm on [a, b].  Where a
 * piece is not proven, det Pi and the condition are sampled: a singular or
 * too ill-conditioned Pi is refused naming t (LTH_ESING, the decomposition's
 * refusals, LTH_ECOND), prefixed by where.  Data without enclosures give
 * out->off and LTH_OK with nothing proven.  sys must not be used by another
 * thread meanwhile (it is decomposed). */
lth_status opivp_prove_interval(const lth_opsys *sys, double a, double b, const double *cuts,
                                size_t n, double cond_max, opivp_pi_proof *out, lth_error *err);

#endif
