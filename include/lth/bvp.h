/* SPDX-License-Identifier: GPL-3.0-or-later */
/* DAE boundary-value problems (Clark section 4 and 4.1; docs/theory.md
 * section 6):
 *     E z' = A(t) z + f(t),   B0 z(t0) + B1 z(t1) = beta,
 * with p = dim of the solution manifold boundary conditions (B0, B1: p x s).
 *
 * Methods behind one interface:
 *   shooting  Phi(t) = [Nhat + Bhat(t)] Psi(t, t0) Q, S = B0 Phi(t0) + B1 Phi(t1);
 *             solvable iff S is nonsingular (cond(S) reported).
 *   multiple  local state-space bases at M nodes, continuity of the state part,
 *             one banded LAPACKE solve; nodes placed where Psi grows.
 *   fd        implicit Euler for the full DAE on a uniform grid, completed by
 *             the boundary rows and the s - p consistency conditions M0 z_0 = b0
 *             (section 4.1) into an (N+1)s square system, solved banded.  First
 *             order; its condition grows like h^-(r-1) for index r, and the
 *             first r steps carry start-up errors: for index >= 4 prefer the
 *             shooting methods.
 */
#ifndef LTH_BVP_H
#define LTH_BVP_H

#include <stddef.h>

#include "lth/ivp.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lth_bvp_method {
  LTH_BVP_SHOOTING = 0,
  LTH_BVP_MULTIPLE = 1,
  LTH_BVP_FD = 2,
  LTH_BVP_COLLOCATION = 3 /* Gauss collocation of the reduced ODE, adaptive mesh (bvp_colloc.c) */
} lth_bvp_method;

/* "shooting", "multiple", "fd", "collocation" <-> method; -1 if unknown. */
int lth_bvp_method_from_name(const char *name);
const char *lth_bvp_method_name(lth_bvp_method method);

typedef struct lth_bvp_opts {
  lth_bvp_method method;
  lth_ivp_opts ivp;     /* integrator settings of the shooting methods */
  int intervals;        /* multiple shooting: number of subintervals (0: placed automatically
                           where ||Psi|| grows by more than `growth`) */
  double growth;        /* multiple shooting: node placement threshold (0: 1e2) */
  size_t fd_points;     /* finite differences: grid points N+1 (0: 1001) */
  int fd_order_check;   /* finite differences: also solve on N/2 and 2N points to report the
                           observed order and an error estimate (1, the default) */
  double cond_max;      /* a shooting matrix with a larger condition estimate is "not uniquely
                           solvable" (0: 1e12); also the Pi threshold */
  double tol;           /* collocation: error tolerance of the adaptive mesh (0: 1e-8) */
  int stages;           /* collocation: Gauss stages s (order 2s; 0: the default) */
  size_t max_intervals; /* collocation: largest mesh before refusing (0: the default) */
  /* optional progress of the finite differences (the shooting methods report through
   * ivp.progress): called from the calling thread with grid points done of total,
   * the order check's solves included */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
} lth_bvp_opts;

void lth_bvp_opts_init(lth_bvp_opts *opts);

/* The Gauss stages collocation uses at tolerance tol when opts.stages is 0
 * (3 + round(log10(1/tol) / 2), kept in [3, 8]: 6 at 1e-6, 7 at 1e-8, 8 at 1e-10 and below; docs/collocation.md section 3). */
int lth_bvp_collocation_stages(double tol);

typedef struct lth_bvp_result {
  size_t n;
  int s, p;
  double *times;          /* n */
  double *z;              /* s x n: z(times[k]) at z + k*s */
  lth_bvp_method method;
  double cond_shooting;   /* 1-norm condition estimate.  shooting: (||B0 Phi(t0)|| +
                             ||B1 Phi(t1)||) ||S^{-1}|| >= cond(S), which also sees a
                             singular S made of cancelling terms; multiple shooting and
                             finite differences: cond of the banded matrix */
  double bc_residual;     /* ||B0 z(t0) + B1 z(t1) - beta||_2 */
  int intervals;          /* multiple shooting: M used */
  size_t fd_points;       /* finite differences: N+1 used */
  double fd_order;        /* observed order (NaN when not estimated) */
  double fd_error;        /* error estimate from ||z_N - z_2N||_inf beyond the start-up layer
                             of r steps after t0 (NaN when not estimated) */
  double fd_error_layer;  /* the same inside the start-up layer: implicit Euler's algebraic
                             components are inaccurate in the first r steps for index >= 3 */
  double drift;           /* shooting methods: max ||P v|| */
  double cond_bvp;        /* conditioning constant of the BVP itself (every method; NaN when
                             not computed): kappa = max_t ||Phi(t) S^{-1}||_inf *
                             (||B0||_inf + ||B1||_inf), with Phi(t) = [Nhat + Bhat(t)] Psi(t,t0) Q
                             and S = B0 Phi(t0) + B1 Phi(t1) (the Green's-function bound of
                             Ascher-Mattheij-Russell for the boundary data; invariant under
                             scaling of the bc rows): a relative change d in beta moves z by
                             up to kappa d relative to ||beta||-scale */
  double error_estimate;  /* estimated max-norm error of z at the output times (NaN if none) */
} lth_bvp_result;

/* Solve on [t0, t1] and report at times[0..n-1] (in [t0, t1]; finite
 * differences interpolate linearly between grid points, so include the
 * times you need in the grid or use a shooting method).  B0, B1 are rows x s
 * column-major (ld = rows), beta has rows entries; rows must equal p.
 * Errors: LTH_EBC (rows != p, or rank [B0 B1] < p: input errors),
 * LTH_ENOTUNIQUE (singular or too ill-conditioned shooting matrix),
 * LTH_ENOSOL (data of block row j >= 2 whose derivative of order j - 2 jumps
 * at some t, e.g. a jump in f(2) at index 2: the solution would need an
 * impulse; err names t and the block), LTH_ETOL (finite differences: data not
 * resolved on the grid's cells, or an output time just after a point where
 * the constraints' data are not smooth; collocation: tolerance not reached).
 * Between its points every method relies on enclosures of the data where
 * they have them (expressions, not callbacks or samples): docs/collocation.md
 * section 8. */
lth_status lth_bvp_solve(const lth_system *sys, double t0, double t1, int rows, const double *B0,
                         const double *B1, const double *beta, const double *times, size_t n,
                         const lth_bvp_opts *opts, lth_bvp_result **out, lth_error *err);
void lth_bvp_result_free(lth_bvp_result *res);

#ifdef __cplusplus
}
#endif
#endif
