/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Library-internal: the proof that Pi(t) is nonsingular on a piece [a, b]
 * for the operator form (lib/decomp/op_piproof.c): the dense path's proof
 * (pi_proof.h, docs/enclosures.md) with sparse chain blocks and thin chain
 * products, O(nnz(chain) n_r) per piece.  Used by lth_opivp_solve between
 * the integrator's times (lib/ivp/opivp_proof.c). */
#ifndef LTH_OP_PIPROOF_H
#define LTH_OP_PIPROOF_H

#include "lth/opdecomp.h"
#include "pi_proof.h"

typedef struct op_piproof op_piproof;

/* NULL when the proof cannot be made: some chain block without an enclosure
 * on its pattern (values from a callback, a mass-matrix solve), n_r above
 * LTH_DEFAULT_OP_PI_PROOF_NR (Pi's model is dense n_r x n_r), or no memory.
 * *why (may be NULL) then names the reason (a static string). */
op_piproof *op_piproof_alloc(const lth_opsys *sys, const char **why);
void op_piproof_free(op_piproof *p);

/* The proof on [a, b] (a < b), as lth_pi_proof_piece (chain_only = 0):
 * proven = 1 when q < 1, with q, pinv_bound and chain_bound filled.  Never
 * fails: what cannot be proven is reported unproven. */
void op_piproof_piece(op_piproof *p, double a, double b, lth_pi_piece *out);

/* The chain norm prod ||A(k+1,k)||_1 ||A(1,r)||_1 at the middle of [a, b]
 * (*value, from the enclosures at that point: its value to rounding) and a
 * bound of it over [a, b] (*bound): for the scale of cond_interval (the
 * largest chain norm on the interval, docs/conditioning.md).  inf when some
 * enclosure is unbounded. */
void op_piproof_chain(op_piproof *p, double a, double b, double *value, double *bound);

#endif
