/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the decomposition workspace (lib/decomp/decomp.c), shared with the
 * verification module (lib/decomp/verify.c), which reads the input jets. */
#ifndef LTH_DECOMP_IMPL_H
#define LTH_DECOMP_IMPL_H

#include <stdint.h>

#include "lth/decomp.h"
#include "lth/jet.h"

struct lth_decomp_ws {
  const lth_system *sys;
  int r, s, m, nr, nmax;
  int K; /* input jet order = out_order + r - 1 */
  int out_order;
  double cond_max, cond_pi, cond_chain;
  double scale; /* largest chain norm on the interval (0: unknown) */
  double pi_inv_norm, chain_norm, cond_interval; /* at the last point */
  int pi_sign;                                   /* sign of det Pi at the last point */
  int *n, *off; /* n[i-1] = n_i, off[i-1] = offset of block i; off[r] = s */
  int *xord;    /* xord[i]: order of X_i (xord[0]: u's map) */
  int *yord;    /* yord[i]: order of row block i of Y */
  double *src_work;
  struct lth_work_ledger *ledger; /* the system's record of src_work (system_parts.h) */
  lth_jet A, f; /* assembled inputs: s x s, s x 1 */
  lth_jet Pi;
  lth_jet_lu *lu;
  lth_jet *L, *R, *S, *P, *dP; /* index i-1 for i = 1..r-1 */
  lth_jet X;                   /* [Bhat | q], s x (m+1) */
  lth_jet Y;                   /* [Ahat | g], m x (m+1) */
  lth_jet T, D;                /* nmax x (m+1): U_i and D[X_i] */
  lth_jet Z;                   /* n_r x (m+1) */
  lth_jet tmp;                 /* s x nmax */
  /* the measured error amplification (lib/decomp/decomp_perturb.c): while
   * perturb != 0 every intermediate jet is multiplied entrywise by
   * 1 + perturb xi, xi from the generator state rng */
  double perturb;
  uint64_t rng;
  lth_point *alt;     /* the perturbed run's outputs (order 0) */
  int measure_always; /* lth_decomp_ws_set_measure */
  double *canon;      /* 2 (s + m)(m + 1) doubles: canonical outputs of both runs */
  /* the input maps (lib/decomp/input_maps.c): while unforced != 0 the
   * forcing evaluated is f alone (free inputs allowed); Bu holds the jets of
   * B (s x nu), cd the values of C (ny x s) and D (ny x nu) */
  int unforced;
  lth_jet Bu;
  double *cd;
};

/* Perturb J in place (Monte Carlo arithmetic) while a measurement runs. */
void lth_decomp_perturb_jet(lth_decomp_ws *ws, lth_jet *J);
static inline void lth_decomp_mca(lth_decomp_ws *ws, lth_jet *J) {
  if (ws->perturb != 0.0) {
    lth_decomp_perturb_jet(ws, J);
  }
}

/* Algorithm 1 at t on the input jets ws->A, ws->f (judge = 0: no threshold
 * checks), and the results into pt (lib/decomp.c). */
lth_status lth_decomp_run(lth_decomp_ws *ws, double t, int judge, lth_error *err);
lth_status lth_decomp_outputs(lth_decomp_ws *ws, lth_point *pt, lth_error *err);
/* The input jets ws->A, ws->f at t (f alone while ws->unforced). */
lth_status lth_decomp_eval(lth_decomp_ws *ws, double t, lth_error *err);
/* The affine columns (g, q) of the last run recomputed for the forcing now
 * in ws->f (lib/decomp.c); the linear parts stay. */
lth_status lth_decomp_run_affine(lth_decomp_ws *ws, lth_error *err);

/* The amplification of the point pt just computed (a priori
 * cond_interval^(r-1), or measured where that exceeds the limit) into
 * pt->amplification; LTH_ECOND naming t if it exceeds the limit
 * (lib/decomp/decomp_perturb.c).  Leaves ws->A and ws->f as they were. */
lth_status lth_decomp_judge_amplification(lth_decomp_ws *ws, lth_point *pt, lth_error *err);
/* The space lth_decomp_judge_amplification needs (at allocation). */
lth_status lth_decomp_perturb_alloc(lth_decomp_ws *ws, lth_error *err);
void lth_decomp_perturb_free(lth_decomp_ws *ws);

/* Frobenius norm of coefficient 0 of J, scaled against overflow. */
double lth_jet_fro0(const lth_jet *J);

#include "refusal.h"

#endif
