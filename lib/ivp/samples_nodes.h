/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: where a system with sampled data is decomposed so that its
 * coefficients can be interpolated (Hermite) in between to a tolerance
 * (lib/ivp/samples_nodes.c explains how; lib/ivp/ivp_coef_hermite.c interpolates).
 */
#ifndef LTH_SAMPLES_NODES_H
#define LTH_SAMPLES_NODES_H

#include <stddef.h>

#include "lth/grid.h"
#include "lth/system.h"

#define SAMPLES_NODES_MAX_K 4 /* highest order of the jets at the nodes */

typedef struct samples_nodes {
  lth_grid_result *grid; /* the nodes, increasing t, with jets of order k (owned) */
  int k;
  double *basis;  /* (2k+2) x (2k+2): column c = monomial coefficients of the two-point Hermite
                     basis polynomial c on [0, 1] (owned) */
  double err;     /* largest interpolation error checked, relative to max(1, |field|) */
  size_t decomps; /* decompositions made (also when the build fails) */
} samples_nodes;

/* Nodes over [t_lo, t_hi] for the coefficients of sys: placed for its
 * sampled data, with the caller's extra[0..nextra-1] (may be NULL) among
 * them, refined until the interpolation error checked between neighbours is
 * below tol (relative to max(1, |field|)) or the intervals are one sample
 * interval long.  cond_max as lth_grid_opts.  Errors as lth_grid_store, and
 * LTH_ESING when det Pi changes sign between neighbours. */
lth_status samples_nodes_build(const lth_system *sys, double t_lo, double t_hi, const double *extra,
                               size_t nextra, double cond_max, double tol, samples_nodes *out,
                               lth_error *err);

/* The basis's values at x in [0, 1] into val[0..2k+1] (and derivatives into
 * der, which may be NULL). */
void samples_nodes_weights(int k, const double *basis, double x, double *val, double *der);

#endif
