/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The refusal of a point whose Pi is nearly singular relative to the data on
 * the interval (docs/conditioning.md 1.1): one message for the decomposition
 * and for the layers that judge Pi between decomposed points (the IVP's scan
 * and guard, lib/ivp/ivp_guard.c), so that all refusals read alike. */
#ifndef LTH_DECOMP_REFUSAL_H
#define LTH_DECOMP_REFUSAL_H

#include "lth/status.h"

/* The LTH_ECOND record of a cond_interval = pi_inv * scale above cond_max
 * (or whose amplification is above its limit) at t, index r. */
lth_status lth_decomp_interval_error(lth_error *err, double t, int r, double pi_inv, double scale,
                                     double cond_max);

/* The LTH_ESING record of an exactly singular Pi at t, index r. */
lth_status lth_decomp_singular_error(lth_error *err, double t, int r);

/* The LTH_ECOND record of a chain condition ||Pi^-1|| max ||L_i|| max ||R_j||
 * above cond_max at t (the dense and the operator decomposition). */
lth_status lth_decomp_chain_error(lth_error *err, double t, int r, double cond_pi,
                                  double cond_chain, double cond_max);

#endif
