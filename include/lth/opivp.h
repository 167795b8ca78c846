/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Initial-value problems of large sparse Hessenberg systems through the
 * operator form of the decomposition (include/lth/opdecomp.h): nothing of
 * size s x s is formed, so the cost per step is O(nnz(A) + s n_r).
 *
 * The state part v of z (its first m = s - n_r entries in Clark's
 * coordinates) obeys the reduced ODE v' = Ahat(t) v + g(t) on range(I - P(t))
 * (Clark's Theorem 1), started from v(t0) = (I - P(t0)) z0[0..m); the full
 * solution is z = G v + q, G = (Nhat + Bhat)(I - P) (Corollary 3).  SUNDIALS
 * CVODE integrates the reduced ODE; every right-hand side decomposes at its t
 * (lth_opdecomp_at, one point cached by t, so that the Jacobian-vector
 * products and the projection at the same t reuse it) and applies Ahat and g.
 *
 * Drift: Theorem 2 keeps v in range(I - P(t)) exactly; numerically the BDF
 * method projects every step onto it (CVODE's projection, with I - P(t), its
 * error estimate projected too), the Adams method at the output times (CVODE
 * projects only BDF steps).  The result reports the drift max ||P v|| at the
 * output times before any projection there.
 *
 * What is checked between the integrator's times: the decomposition refuses
 * each t where Pi is singular or ill-conditioned; a sign change of det Pi
 * between any two decomposed times is located by bisection and refused naming
 * that t (Pi is continuous, so it was singular there).  Where every chain
 * block A(1,r), A(2,1), ..., A(r,r-1) carries an enclosure (constants, a data
 * file's expressions and mm() combinations, the equation form's blocks) and
 * n_r <= LTH_DEFAULT_OP_PI_PROOF_NR, each output interval is proven free of a
 * singular or too ill-conditioned Pi before it is integrated, as the dense
 * path's scan proves it (docs/enclosures.md): pieces from second-order Taylor
 * models of the chain, a piece proven when q <= 3/4 and ||Pi^-1|| x
 * chain_norm <= cond_max on all of it, else halved (at most
 * OPIVP_PROOF_DEPTH times, OPIVP_PROOF_PIECES pieces per output interval),
 * det Pi and the condition sampled at the ends and middle of every piece not
 * proven: a refusal there names its t.  What stays unproven (reported in
 * lth_opivp_result.pi_proven) and every interval of data without enclosures
 * (callbacks, mass-matrix solves) is checked at the decomposed times alone:
 * there a Pi that touches singularity between two of them without changing
 * sign and without raising the condition at either is not seen.
 *
 * The data between the integrator's times: where the system comes from
 * lth_opsys_from_system and every block carries an enclosure, no CVODE step
 * crosses the end of a stretch on which the data are resolved by degree 16
 * to rtol, and no step is longer than 1/8 of its stretch (a BDF step
 * evaluates the data at one new time: at least 8 of them fall on each
 * stretch), as the dense path's steps keep to theirs (docs/enclosures.md,
 * "Integrator steps").  A kink or jump that is not resolved over 1e-9 of the
 * span is located to about 1e-12 of it, the state is carried across that gap
 * (projected onto range(I - P) at its end, an error of at most the gap times
 * |v'|) and CVODE restarts there.  A system set block by block (callbacks,
 * constant blocks) carries no enclosure: a feature of its data narrower than
 * CVODE's steps can go unseen.
 *
 * The library is built with CVODE when it is found (CMake option LTH_CVODE);
 * without it lth_opivp_solve refuses with LTH_EINVAL, and
 * lth_opivp_available() says so up front.
 */
#ifndef LTH_OPIVP_H
#define LTH_OPIVP_H

#include <stddef.h>

#include "lth/opdecomp.h"
#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lth_opivp_method {
  /* Default: variable-order BDF with a Newton iteration whose linear systems
   * (I - gamma Ahat) x = b are solved by matrix-free GMRES (SPGMR), Ahat x
   * applied at the cached point.  Systems at this size come from
   * semi-discretisations whose spectra grow with the mesh: an explicit or
   * Adams method is held to steps the largest eigenvalue allows, BDF is not,
   * and on a non-stiff problem it costs a few Ahat applies per step more.  It
   * is also the method CVODE projects every step. */
  LTH_OPIVP_BDF = 0,
  /* Variable-order Adams with functional (fixed-point) iteration: no linear
   * solves, for problems known to be non-stiff; projected at the output
   * times only. */
  LTH_OPIVP_ADAMS = 1
} lth_opivp_method;

/* The preconditioner of BDF's Newton systems (I - gamma Ahat) x = b:
 * M = I - gamma A_v(t), A_v the m x m leading part of A(t) (the blocks A_ij
 * with i, j < r; for index 2 the block A_11), sparse, factored by SuiteSparse
 * KLU at the set-ups CVODE asks for (lib/ivp/opivp_prec.c).  It keeps the
 * GMRES iterations, and with them the steps, from growing with the mesh of a
 * semi-discretisation (docs/performance.md, "At size: a Stokes-type case").
 * AUTO (the default): on for BDF when the interval is stiff,
 * ||A_v(t0)||_1 |t_end - t0| >= LTH_DEFAULT_OPIVP_PREC_STIFF (include/lth/
 * defaults.h; where it is below, GMRES converges in about one iteration
 * without it and the factorizations would cost more than they save).  ON: on
 * for BDF whatever the norm.  The choice is one of speed: the answer is to
 * the tolerance either way (GMRES's test is on the Newton system's residual).  Without KLU (CMake
 * option LTH_SUITESPARSE), and for a system with a block row kept as a mass matrix's solve
 * (lth_opsys_mass_rows: A_v is not sparse there), it is off whatever is asked
 * (lth_opivp_result.preconditioned says which).
 */
typedef enum lth_opivp_precond {
  LTH_OPIVP_PREC_AUTO = 0,
  LTH_OPIVP_PREC_OFF = 1,
  LTH_OPIVP_PREC_ON = 2
} lth_opivp_precond;

typedef struct lth_opivp_opts {
  lth_opivp_method method; /* LTH_OPIVP_BDF (default) or LTH_OPIVP_ADAMS */
  double rtol, atol;       /* CVODE's local error control of v (0: LTH_DEFAULT_RTOL, _ATOL) */
  size_t max_steps;        /* per output interval (0: LTH_DEFAULT_OPIVP_MAX_STEPS) */
  int krylov_dim;          /* BDF: the largest Krylov subspace of SPGMR (0: CVODE's, 5) */
  double cond_max;         /* threshold of Pi's chain condition (0: LTH_DEFAULT_COND_MAX) */
  int project;             /* 1: accept an inconsistent z0 (z0 != G v0 + q at t0) and start
                              from v0 = (I - P(t0)) z0[0..m), reporting what changed;
                              0 (default): refuse it (LTH_ECONSIST naming the residual) */
  /* optional (NULL: none): called from the calling thread each time the
   * integrator reaches an output time t, t_end the last output time (as
   * lth_ivp_opts.progress) */
  void (*progress)(void *ctx, double t, double t_end);
  void *progress_ctx;
  lth_opivp_precond precondition; /* BDF: LTH_OPIVP_PREC_AUTO (default), _OFF, _ON */
  /* 0 (default): prove Pi nonsingular between the output times where the
   * chain blocks carry enclosures (see the top of this file); < 0: do not
   * (det Pi's sign at the decomposed times is checked alone). */
  int pi_proof;
} lth_opivp_opts;

void lth_opivp_opts_init(lth_opivp_opts *opts);

typedef struct lth_opivp_result {
  size_t n;
  int s, m;
  double *times;      /* n output times */
  double *z;          /* s x n: z(times[k]) = G v + q at z + k*s */
  double *v;          /* m x n: the state part as integrated (before projection at output) */
  double drift;       /* max_k ||P(t_k) v(t_k)||_2 */
  double drift_rel;   /* the same relative to max(1, ||v(t_k)||_2) */
  double z0_residual; /* ||z0 - (G v0 + q)(t0)||_2: how far z0 was from consistent */
  int projected;      /* 1 if z0 was inconsistent and opts.project accepted it */
  size_t steps, rhs_evals, decomps, jv_evals, lin_iters, projections;
  double seconds_total, seconds_decomp; /* wall clock; decomp: the decompositions */
  int preconditioned;                   /* 1 if GMRES was preconditioned (lth_opivp_precond) */
  size_t prec_setups;                   /* factorizations of the preconditioner */
  /* The proof that Pi is nonsingular between the decomposed times: the
   * share of [t0, times[n-1]] (by length) proven, Pi nonsingular and
   * ||Pi^-1|| x chain_norm within cond_max there (1 when t0 = times[n-1]
   * and the proof can be made; 0 when it cannot: pi_proof_off says why),
   * the bound of ||Pi(t)^-1||_1 over the proven part, and the pieces
   * examined. */
  double pi_proven;
  double pi_inv_bound;
  size_t pi_proofs;
  const char *pi_proof_off; /* NULL, or why there is no proof (a static string) */
} lth_opivp_result;

/* 1 if the library was built with CVODE (lth_opivp_solve works), else 0. */
int lth_opivp_available(void);

/* Solve from z0 (s entries) at t0 and report at times[0..n-1] (finite,
 * non-decreasing, >= t0; n >= 1).  opts may be NULL (the defaults).
 * Refusals: bad arguments (LTH_EINVAL, LTH_EDIM), a library built without
 * CVODE (LTH_EINVAL, saying so), an inconsistent z0 without opts.project
 * (LTH_ECONSIST), the decomposition's at any t the integrator asks for
 * (LTH_ESING, LTH_ECOND naming t and the condition; LTH_ECALLBACK), det Pi
 * changing sign between two decomposed times (LTH_ESING naming where), and a
 * CVODE failure (LTH_EINTEG naming t and CVODE's message).  CVODE's messages
 * go into err, never to a stream. */
lth_status lth_opivp_solve(const lth_opsys *sys, double t0, const double *z0, const double *times,
                           size_t n, const lth_opivp_opts *opts, lth_opivp_result **out,
                           lth_error *err);
void lth_opivp_result_free(lth_opivp_result *res);

#ifdef __cplusplus
}
#endif
#endif
