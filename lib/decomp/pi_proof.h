/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: a proof that Pi(t) is nonsingular on a piece [a, b] of a scan,
 * from the enclosures of the chain blocks (lib/decomp/pi_proof.c,
 * include/lth/conditioning.h, docs/conditioning.md section 2.1). */
#ifndef LTH_PI_PROOF_H
#define LTH_PI_PROOF_H

#include "lth/system.h"

typedef struct lth_pi_proof lth_pi_proof;

/* NULL when some chain block carries no enclosure of its own (callbacks,
 * sampled data, mass-matrix solves) or memory runs out: the scan then samples. */
lth_pi_proof *lth_pi_proof_alloc(const lth_system *sys);
void lth_pi_proof_free(lth_pi_proof *p);

typedef struct lth_pi_piece {
  int proven;         /* 1: Pi(t) is nonsingular for every t in [a, b] */
  double q;           /* bound of ||I - M Pi(t)||_1 on [a, b] (M = Pi(c)^-1; inf: none) */
  double pinv_bound;  /* proven: ||Pi(t)^-1||_1 <= pinv_bound on [a, b] */
  double chain_bound; /* chain_norm(t) <= chain_bound on [a, b] (inf: no bound) */
} lth_pi_piece;

/* The proof on [a, b] (a < b).  chain_only: only chain_bound (Pi is not
 * formed).  Never fails: what cannot be proven is reported unproven. */
void lth_pi_proof_piece(lth_pi_proof *p, double a, double b, int chain_only, lth_pi_piece *out);

#endif
