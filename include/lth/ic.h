/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Consistent initial values (Clark's Corollaries 2-3 and section 4.1;
 * docs/theory.md section 6).
 *
 * z0 is consistent at t iff z0 = G(t) v0 + q(t) for some v0, where
 * G = [Nhat + Bhat][I - P] has rank p.  Equivalently M0 z0 = b0 with
 * M0 = V^T, b0 = V^T q, V an orthonormal basis of N(G^T) (s - p conditions).
 * All vectors have s entries ordered z = (z_1, ..., z_{r-1}, u); matrices are
 * column-major.
 */
#ifndef LTH_IC_H
#define LTH_IC_H

#include "lth/decomp.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_ic lth_ic;

lth_ic *lth_ic_alloc(const lth_system *sys, lth_error *err);
void lth_ic_free(lth_ic *ic);
/* Threshold for the chain condition of Pi (as lth_decomp_ws_set_cond_max). */
void lth_ic_set_cond_max(lth_ic *ic, double cond_max);

/* Decompose at t and compute the SVD of G(t): the orthonormal bases of
 * range(G) (p columns) and N(G^T) (s - p columns).  LTH_EVERIFY if the
 * numerical rank of G differs from p. */
lth_status lth_ic_setup(lth_ic *ic, double t, lth_error *err);

/* Corollary 3 (oblique projection): v0 = (I - P(t)) (first s - n_r entries
 * of guess), z0 = (Nhat + Bhat) v0 + q = G guess_v + q. */
lth_status lth_ic_project(const lth_ic *ic, const double *guess, double *z0, lth_error *err);

/* The consistent z0 closest to guess in the 2-norm: z0 = q + U U^T (guess - q),
 * U an orthonormal basis of range(G). */
lth_status lth_ic_nearest(const lth_ic *ic, const double *guess, double *z0, lth_error *err);

/* A consistent z0 with z0[idx[k]] = val[k] (0-based indices, k < nfix), the
 * free directions fitted to guess in least squares.  LTH_ECONSIST naming the
 * conflicting component when the prescriptions cannot all hold (more than p
 * independent ones, or values that contradict the algebraic constraints). */
lth_status lth_ic_fix(const lth_ic *ic, const double *guess, int nfix, const int *idx,
                      const double *val, double *z0, lth_error *err);

/* Consistency conditions M0 z0 = b0 (section 4.1): returns s - p; M0 is
 * (s - p) x s column-major with leading dimension s - p (rows orthonormal). */
int lth_ic_conditions(const lth_ic *ic, const double **M0, const double **b0);

/* ||M0 z0 - b0||_2 (absolute). */
double lth_ic_residual(const lth_ic *ic, const double *z0);
/* Tolerance below which lth_ic_residual counts as consistent: a small
 * multiple of the roundoff in z0 and q, plus the decomposition's estimated
 * error in q and G at the setup time (eps times the error amplification it
 * measured there, lth_point.amplification, include/lth/conditioning.h), plus,
 * for sampled data, the part lth_ic_data_tolerance. */
double lth_ic_tolerance(const lth_ic *ic, const double *z0);
/* Sampled data only (0 otherwise): the part of the tolerance due to the
 * data's own error -- 2 (||dq|| + ||dG|| ||z0 - q|| / sigma_p(G)) with dq, dG
 * the estimated errors of q and G at the setup time (lth/sampling_error.h), the
 * first-order residual of a z0 consistent for the exact data.  Messages
 * should say that the tolerance includes it. */
double lth_ic_data_tolerance(const lth_ic *ic, const double *z0);

/* The decomposition at the setup time (order 0). */
const lth_point *lth_ic_point(const lth_ic *ic);
/* Orthonormal basis of range(G) (s x p, column-major, ld s). */
const double *lth_ic_range_basis(const lth_ic *ic);

#ifdef __cplusplus
}
#endif
#endif
