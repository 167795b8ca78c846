/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Built-in verification of a decomposition at a point (docs/theory.md
 * section 4): the residual of Clark's Theorem 3, the projector identities
 * (2.5), Theorem 1's structure, and rank G = p.  All residuals are relative
 * (divided by the scale of the terms that cancel), so a correct decomposition
 * gives values of the order of the unit roundoff times a modest factor.
 */
#ifndef LTH_VERIFY_H
#define LTH_VERIFY_H

#include "lth/decomp.h"
#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_verify_report {
  double t;
  /* Theorem 3: z(t, v) = (Nhat + Bhat) v + q solves E z' = A z + f along the
   * reduced flow: residual M(t) v + c(t) with M (I - P) = 0 and c = 0. */
  double theorem3_linear; /* ||M (I - P)||_1 / scale */
  double theorem3_affine; /* ||c||_1 / scale */
  /* (2.5) and projector properties, max over i, relative */
  double idempotent; /* ||P_i^2 - P_i|| / ||P_i|| */
  double commute;    /* P_1 A_1r = A_1r, P_i A_{i,i-1} = A_{i,i-1} P_{i-1}, A_{r,r-1} P_{r-1} =
                        A_{r,r-1} */
  int rank_P_ok;     /* 1 if every P_i has numerical rank n_r */
  /* Theorem 1: (P' + P Ahat)(I - P) = 0 and P g = 0 */
  double structure;
  /* Corollary 3: rank G = p */
  int rank_G;
  double sv_gap; /* sigma_{p+1}(G) / sigma_p(G) (0 when p = s - n_r ... = m) */
  double worst;  /* max of the relative residuals above */
} lth_verify_report;

typedef struct lth_verify_ws lth_verify_ws;
lth_verify_ws *lth_verify_ws_alloc(const lth_system *sys, lth_error *err);
void lth_verify_ws_free(lth_verify_ws *vw);

/* Verify the decomposition pt (order >= 1) that `ws` just computed (ws still
 * holds the input jets at pt->t).  Fills rep; returns LTH_EORDER if
 * pt->order < 1.  It does not judge: compare rep->worst with a tolerance. */
lth_status lth_verify_at(lth_verify_ws *vw, const lth_decomp_ws *ws, const lth_point *pt,
                         lth_verify_report *rep, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
