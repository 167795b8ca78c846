/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Totally singular LQR by Clark's section 4.2 (docs/theory.md section 6):
 *   minimise 1/2 x(t1)' C x(t1) + 1/2 int_{t0}^{t1} x' H x dt
 *   subject to x' = A(t) x + B(t) u, x(t0) = x0, R = 0, B' H B invertible.
 * Optimality DAE (index 3): z = (x, lambda, u),
 *   x' = A x + B u,  lambda' = -H x - A' lambda,  0 = B' lambda,
 * i.e. A_11 = A, A_13 = B, A_21 = -H, A_22 = -A', A_32 = B', Pi = -B' H B,
 * with x(t0) = x0 and the natural condition lambda(t1) = +C x(t1).
 */
#ifndef LTH_LQR_H
#define LTH_LQR_H

#include "lth/ivp.h"
#include "lth/source.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_lqr_spec {
  int nx, nu; /* nx > nu >= 1 */
  double t0, t1;
  const lth_source *A; /* nx x nx */
  const lth_source *B; /* nx x nu */
  const lth_source *H; /* nx x nx, symmetric positive semidefinite */
  const double *C;     /* nx x nx terminal weight, column-major, ld = nx; NULL: C_src, or
                          C = 0 when that is NULL too */
  const double *x0;    /* nx */
  const lth_source *C_src; /* optional (NULL): C as a constant source, e.g. sparse (a data file's
                              mm()), read when C is NULL: lth_lqr_solve forms it densely,
                              lth_lqr_solve_op keeps its pattern */
} lth_lqr_spec;

/* The index-3 optimality DAE with blocks (nx, nx, nu).  The system refers to
 * spec's sources (they must outlive it). */
lth_status lth_lqr_build_system(const lth_lqr_spec *spec, lth_system **out, lth_error *err);

typedef enum lth_lqr_method {
  LTH_LQR_SHOOTING = 0,   /* Psi(t, t0) by the integrator and Theorem 5 on W; refuses
                             (LTH_ECOND) to call W rank-deficient when Psi's columns spread
                             by more than 1e8 over the interval */
  LTH_LQR_COLLOCATION = 1 /* (the default of lth_lqr_opts_init) the optimality BVP x(t0) = x0,
                             lambda(t1) = C x(t1) by Gauss collocation (lib/lqr/lqr_colloc.c,
                             docs/collocation.md), to the tolerance ivp.rtol; stable for long
                             horizons.  Used when the smooth optimum exists and is unique; otherwise
                             the shooting path's analysis (impulses, non-uniqueness) is returned */
} lth_lqr_method;

typedef struct lth_lqr_opts {
  lth_ivp_opts ivp; /* integrator settings for Psi(t, t0) */
  double cond_max;  /* threshold for Pi = -B'HB (0: default) */
  double tol;       /* relative residual below which (x0, 0) counts as in range(W)
                       (0: 100 * ivp.rtol) */
  /* optional progress of the gains at the output times (done of total), after the
   * fundamental solution has reported through ivp.progress; from the calling thread */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
  lth_lqr_method method;
} lth_lqr_opts;

void lth_lqr_opts_init(lth_lqr_opts *opts);

/* Result of Clark's section 4.2 (Theorems 4-6), derived from the optimality
 * conditions with the signs of docs/theory.md section 6.  Matrices are
 * column-major; trajectories are stored per time: x + k*nx, ... */
typedef struct lth_lqr_result {
  size_t n;
  int nx, nu, p;
  double *times;
  int exists;      /* a smooth optimum exists: Theorem 5's (x0, 0) in range(W [I - P(t0)])
                      and no terminal impulse */
  int unique;      /* Theorem 5 / Corollary 5: W injective on the state space */
  double residual; /* ||W c - (x0, 0)|| / max(||x0||, tiny) of the least-squares c */
  double cond_W;   /* sigma_max / sigma_min of W on the state space */
  /* trajectories: the optimum when exists; otherwise (have_trajectory) the
   * singular arc after the initial impulse x0 -> x0_consistent */
  int have_trajectory;
  double *x, *lambda, *u; /* nx, nx, nu per time */
  double cost;            /* 1/2 x0' lambda(t0) (x0_consistent' ... after a jump); NaN if none */
  /* inconsistent x0 (exists == 0): the nearest state on the smooth optimal
   * manifold, reached by an impulsive control when the jump lies in range(B(t0)) */
  double *x0_consistent, *jump; /* nx each */
  int jump_in_range_B;          /* 1 also when no jump at t0 is needed (jump = 0) */
  /* terminal impulse: when B(t1)' C != 0 the optimum ends with a jump
   * x(t1) -> x(t1) + terminal_jump along range(B(t1)) that lowers the terminal
   * cost for free (R = 0); the arc then sees C~ = C - C B (B'CB)^+ B'C */
  int terminal_impulse;
  double *terminal_jump; /* nx */
  /* closed loop (Theorem 6, canonical form): u = K(t) [x; lambda], K = B_u (I - P),
   * the u rows of G; nu x 2nx per time */
  double *gain;
  /* Theorem 4: P_1' = P_2 (state space of lambda orthogonal to the algebraic
   * space of x); max relative deviation over the times */
  double theorem4;
  double drift;
  /* lth_lqr_solve_op only (0, NULL and NaN from lth_lqr_solve): the collocation's
   * error_estimate and mesh intervals, and the proof that Pi = -B'HB is
   * nonsingular between the points, as lth_bvp_result's pi_* fields */
  double error_estimate;
  int intervals;
  double pi_proven, pi_inv_bound;
  size_t pi_proofs;
  const char *pi_proof_off;
} lth_lqr_result;

/* Solve the singular LQR problem of spec at times[0..n-1] (in [t0, t1]).
 * B'HB singular or ill-conditioned at some t is an error naming t. */
lth_status lth_lqr_solve(const lth_lqr_spec *spec, const double *times, size_t n,
                         const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err);
void lth_lqr_result_free(lth_lqr_result *res);

/* ---- the operator path: the smooth optimum at size (lib/lqr/lqr_op.c) ----
 *
 * 1 if lth_lqr_solve_op works in this build (SuiteSparse KLU, CMake option
 * LTH_SUITESPARSE), else 0. */
int lth_lqr_op_available(void);

/* The smooth optimum of spec at times[0..n-1] without anything nx x nx: the
 * optimality DAE in operator form (lth_opsys_from_system: the mm() blocks of
 * A, B, H and their transposes keep their patterns) and the BVP x(t0) = x0,
 * lambda(t1) = C x(t1) (2 nx rows on a manifold of dimension p = 2 (nx -
 * nu)) by lth_bvp_solve_op_slack, the 2 nu excess rows taking slack along
 * the impulse directions: x(t0) - B(t0) s0 = x0, lambda(t1) - C x(t1) -
 * B(t1) s1 = 0 (lib/lqr/lqr_op.c says why).  Memory and time linear in nnz
 * and nx per mesh interval.  It answers only when the smooth optimum exists
 * and is unique; everything else is a refusal naming what it found, which
 * the dense analysis (lth_lqr_solve) answers:
 *   LTH_ENOSOL      the impulse B(t0) s0 that x0 needs, relative to ||x0||,
 *                   exceeds opts->tol (0: 100 * ivp.rtol, as lth_lqr_solve;
 *                   it bounds the dense path's residual from above); or
 *                   B(t1)'C != 0 (a terminal impulse);
 *   LTH_ENOTUNIQUE  the collocation system is singular or its condition
 *                   estimate exceeds cond_max: W is not injective (or not
 *                   numerically);
 *   LTH_EDATA       H(t) or C not symmetric, or not positive semidefinite (the
 *                   message begins with "H " or "C ": lth_problem_lqr_locate):
 *                   shown by diagonal dominance with a nonnegative diagonal
 *                   (Gershgorin), else for a time-varying H of nx <= 2000
 *                   by its eigenvalues as lth_lqr_solve (also a constant
 *                   weight in a build without CHOLMOD), else by a sparse
 *                   Cholesky factorization
 *                   of W + delta I (SuiteSparse CHOLMOD; delta = 4 nx eps
 *                   ||W||_1), refused at a pivot <= 0 with the Rayleigh
 *                   quotient of a witness (docs/format.md section 1.2; without
 *                   CHOLMOD refused, naming it); H(t) once when proven
 *                   constant, else on a scan of [t0, t1] and the output times;
 * and lth_bvp_solve_op's refusals (Pi = -B'HB singular or ill-conditioned,
 * named t; tolerance not reached; LTH_EINVAL without KLU).  Uses opts->ivp.rtol
 * as the collocation tolerance (default LTH_DEFAULT_RTOL), cond_max, tol and
 * progress (the error estimate's digits).  The result has exists = unique =
 * have_trajectory = 1, x, lambda, u, the cost 1/2 x0' lambda(t0), residual
 * (the relative impulse, <= tol), drift, error_estimate, intervals and the
 * pi_* fields; cond_W and theorem4 are NaN (not computed) and gain is zero
 * (not computed: K would need G = [Nhat + Bhat](I - P) as nu x 2 nx rows per
 * time). */
lth_status lth_lqr_solve_op(const lth_lqr_spec *spec, const double *times, size_t n,
                            const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
