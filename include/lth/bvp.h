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
#include "lth/opdecomp.h"
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

/* Collocation's settings (method LTH_BVP_COLLOCATION). */
typedef struct lth_bvp_colloc_opts {
  double tol;           /* error tolerance of the adaptive mesh on max |z error| relative to
                           max(1, max |z|) (0: LTH_DEFAULT_COLLOC_TOL, 1e-8) */
  int stages;           /* Gauss stages s, 1..8, order 2s (0: lth_bvp_collocation_stages(tol)) */
  size_t max_intervals; /* largest mesh before refusing with LTH_ETOL
                           (0: LTH_DEFAULT_COLLOC_MAX_INTERVALS, 100000) */
  size_t max_bytes;     /* the operator path (lth_bvp_solve_op): memory one mesh's sparse
                           system and its factors may take; a mesh that needs more is refused
                           (LTH_ENOMEM, naming the bytes) before it is assembled or factored
                           (0: the machine's physical memory) */
} lth_bvp_colloc_opts;

/* Multiple shooting's settings (method LTH_BVP_MULTIPLE). */
typedef struct lth_bvp_multiple_opts {
  int intervals; /* number of equal subintervals, at most 100000 (0: nodes placed
                    automatically where ||Psi|| grows by more than `growth` since the last
                    node) */
  double growth; /* node placement threshold (0: LTH_DEFAULT_MULTIPLE_GROWTH, 1e2) */
} lth_bvp_multiple_opts;

/* Finite differences' settings (method LTH_BVP_FD). */
typedef struct lth_bvp_fd_opts {
  size_t points;   /* grid points N+1, at least 3 (0 to 2: LTH_DEFAULT_FD_POINTS, 1001) */
  int order_check; /* also solve on N/2 and 2N intervals to report the observed order and an
                      error estimate (1 from lth_bvp_opts_init; 0: one grid) */
} lth_bvp_fd_opts;

typedef struct lth_bvp_opts {
  lth_bvp_method method; /* LTH_BVP_SHOOTING from lth_bvp_opts_init */
  /* The one condition threshold of a BVP solve (0: LTH_DEFAULT_COND_MAX, 1e12).  A BVP
   * conditioned worse is refused as not uniquely solvable (LTH_ENOTUNIQUE): the shooting
   * matrices' cond_shooting and the cond_bvp of shooting, multiple shooting and fd are held
   * to min(cond_max, 1/ivp.rtol), collocation's cond_bvp to min(cond_max, colloc.tol /
   * DBL_EPSILON).  It is also the Pi threshold of every method: the scan of Pi before the
   * solve, the integrators, the consistency conditions of fd.  ivp.cond_max is not used by
   * lth_bvp_solve: this one replaces it. */
  double cond_max;
  lth_ivp_opts ivp;               /* the integrator of the shooting methods (shooting, multiple);
                                     collocation evaluates the coefficients as it says (coefficients,
                                     hermite, table_tol) */
  lth_bvp_colloc_opts colloc;     /* method LTH_BVP_COLLOCATION */
  lth_bvp_multiple_opts multiple; /* method LTH_BVP_MULTIPLE */
  lth_bvp_fd_opts fd;             /* method LTH_BVP_FD */
  /* optional progress of finite differences and collocation (the shooting methods report
   * through ivp.progress): called from the calling thread; fd counts grid points done of
   * total, the order check's solves included */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
} lth_bvp_opts;

void lth_bvp_opts_init(lth_bvp_opts *opts);

/* The Gauss stages collocation uses at tolerance tol when opts.colloc.stages is 0
 * (3 + round(log10(1/tol) / 2), kept in [3, 8]: 6 at 1e-6, 7 at 1e-8, 8 at 1e-10 and below;
 * docs/collocation.md section 3). */
int lth_bvp_collocation_stages(double tol);

typedef struct lth_bvp_result {
  size_t n;
  int s, p;
  double *times; /* n */
  double *z;     /* s x n: z(times[k]) at z + k*s */
  lth_bvp_method method;
  double cond_shooting;  /* 1-norm condition estimate.  shooting: (||B0 Phi(t0)|| +
                            ||B1 Phi(t1)||) ||S^{-1}|| >= cond(S), which also sees a
                            singular S made of cancelling terms; multiple shooting and
                            finite differences: cond of the banded matrix */
  double bc_residual;    /* ||B0 z(t0) + B1 z(t1) - beta||_2 */
  int intervals;         /* multiple shooting: M used */
  size_t fd_points;      /* finite differences: N+1 used */
  double fd_order;       /* observed order (NaN when not estimated) */
  double fd_error;       /* error estimate from ||z_N - z_2N||_inf beyond the start-up layer
                            of r steps after t0 (NaN when not estimated) */
  double fd_error_layer; /* the same inside the start-up layer: implicit Euler's algebraic
                            components are inaccurate in the first r steps for index >= 3 */
  double drift;          /* shooting methods: max ||P v|| */
  double cond_bvp;       /* conditioning constant of the BVP itself (every method; NaN when
                            not computed): kappa = max_t ||Phi(t) S^{-1}||_inf *
                            (||B0||_inf + ||B1||_inf), with Phi(t) = [Nhat + Bhat(t)] Psi(t,t0) Q
                            and S = B0 Phi(t0) + B1 Phi(t1) (the Green's-function bound of
                            Ascher-Mattheij-Russell for the boundary data; invariant under
                            scaling of the bc rows): a relative change d in beta moves z by
                            up to kappa d relative to ||beta||-scale */
  double error_estimate; /* estimated max-norm error of z at the output times (NaN if none) */
  /* The operator path only (lth_bvp_solve_op; 0 and NULL on the dense path, whose scan of
   * Pi refuses instead): the proof that Pi is nonsingular and within cond_max between the
   * points, as lth_opivp_result's.  pi_proven is the share of [t0, t1] proven from the
   * data's enclosures (1: all of it; 0 when the data carry none: pi_proof_off says why),
   * pi_inv_bound the proven bound of ||Pi(t)^-1||_1 there (0 when nothing is proven),
   * pi_proofs the pieces examined.  Where a piece is not proven det Pi and the condition
   * were sampled at its ends and middle. */
  double pi_proven;
  double pi_inv_bound;
  size_t pi_proofs;
  const char *pi_proof_off; /* NULL, or why there is no proof (a static string) */
} lth_bvp_result;

/* Solve on [t0, t1] and report at times[0..n-1] (in [t0, t1]; finite
 * differences interpolate linearly between grid points, so include the
 * times you need in the grid or use a shooting method).  B0, B1 are rows x s
 * column-major (ld = rows), beta has rows entries; rows must equal p.
 * Errors: LTH_EBC (rows != p, or rank [B0 B1] < p: input errors),
 * LTH_ENOTUNIQUE (singular or too ill-conditioned shooting matrix),
 * LTH_ENOSOL (data of block row j >= 2 whose derivative of order j - 2 jumps
 * at some t in a row the hidden constraints reach, e.g. a jump in f(2) at
 * index 2: the solution would need an impulse; err names t and the block;
 * lth_bvp_check_data says which rows), LTH_ETOL (finite differences: data not
 * resolved on the grid's cells, or an output time just after a point where
 * the constraints' data are not smooth; collocation: tolerance not reached).
 * Between its points every method relies on enclosures of the data where
 * they have them (expressions, not callbacks or samples): docs/collocation.md
 * section 8. */
lth_status lth_bvp_solve(const lth_system *sys, double t0, double t1, int rows, const double *B0,
                         const double *B1, const double *beta, const double *times, size_t n,
                         const lth_bvp_opts *opts, lth_bvp_result **out, lth_error *err);
void lth_bvp_result_free(lth_bvp_result *res);

/* ---- the operator path: collocation at size (lib/bvp/bvp_op.c) ----
 *
 * Boundary conditions as sparse matrices: B0, B1 rows x s in compressed
 * sparse columns (colptr[0..s], colptr[0] = 0, rowind 0-based in 0..rows-1,
 * no repeated row in a column), beta rows entries. */
typedef struct lth_bvp_csc {
  const int *colptr, *rowind;
  const double *val;
} lth_bvp_csc;

typedef struct lth_bvp_sparse_bc {
  int rows; /* must equal p */
  lth_bvp_csc B0, B1;
  const double *beta;
} lth_bvp_sparse_bc;

/* The refusal lth_bvp_solve makes before any method: data of block row
 * j >= 2 whose derivative of order j - 2 jumps somewhere in [t0, t1] (the
 * solution would need an impulse) is LTH_ENOSOL naming t and the block.
 * Only the rows the hidden constraints reach are checked: row i of block
 * row j when some path of entries not proven zero on [t0, t1] leads there
 * from the last row's blocks (at index 3: column i of A(3,2) is not zero;
 * docs/collocation.md section 8); a jump elsewhere leaves the differential
 * components continuous.  Data without enclosures (callbacks, samples) pass
 * the check (their entries count as nonzero when the rows are decided).
 * lth_bvp_solve_op sees only the operator form, which has no enclosures:
 * call this on the system it was made from first (lth-bvp does). */
lth_status lth_bvp_check_data(const lth_system *sys, double t0, double t1, lth_error *err);

/* 1 if lth_bvp_solve_op works in this build (it factors with SuiteSparse
 * KLU: CMake option LTH_SUITESPARSE), else 0. */
int lth_bvp_op_available(void);

/* The BVP of the operator form sys (include/lth/opdecomp.h) by Gauss
 * collocation of the reduced ODE v' = Ahat v + g in v's own coordinates,
 * nothing s x s or p x p formed: on each mesh interval the stage values at
 * the Gauss points, continuity at the mesh points, the p boundary rows
 * B0 G(t0) v(t0) + B1 G(t1) v(t1) = beta - B0 q(t0) - B1 q(t1) and the
 * m - p conditions S(t0) v(t0) = 0 (v(t0) in range(I - P), P = L S) make
 * one sparse square system (Ahat is the sparse blocks plus a small patch
 * where the thin factors reach, lth_oppoint_thin_reach), factored by KLU.
 * The mesh is uniform with the output times added as mesh points (where the
 * Gauss method has order 2 stages); it is halved until the solutions on a
 * mesh and on its halving differ by at most opts->colloc.tol * max(1,
 * max |z|) at the output times, and the finer solution is returned with that
 * difference as error_estimate.  z = G v + q at the output times, drift
 * max ||P v|| there.  Uses opts->colloc (tol, stages, max_intervals),
 * opts->cond_max and opts->progress; method is LTH_BVP_COLLOCATION.
 * cond_shooting is KLU's 1-norm condition estimate of the collocation
 * matrix, cond_bvp is not computed (NaN).  Pi is factored densely
 * (LTH_OP_PI_DENSE is set on sys).
 * Errors: LTH_EBC (rows != p, a bad pattern), LTH_ENOTUNIQUE (a singular
 * collocation matrix, or its condition estimate above min(cond_max,
 * tol / DBL_EPSILON)), LTH_ETOL (tol not reached within max_intervals),
 * LTH_ESING (det Pi changes sign between two points of the mesh or of the
 * proof below: Pi is singular between them), the decomposition's refusals
 * naming t, LTH_ECOND (Pi too ill-conditioned at a t the proof samples),
 * LTH_ENOMEM, LTH_EINVAL (a build without KLU); it does not make
 * lth_bvp_check_data's refusal (call that first).  Before collocating, Pi
 * is proven nonsingular and within cond_max on [t0, t1] (split at the
 * output times) from the data's enclosures, piece by piece, as
 * lth_opivp_solve proves it between its output times: where a piece is not
 * proven det Pi and the condition are sampled and the piece halved, so a
 * Pi that comes near singular between the mesh points is refused naming t;
 * pi_proven etc. report the share proven (data without enclosures: none,
 * Pi then seen at the points only).  The data between the points: where
 * they carry enclosures (a system from lth_opsys_from_system of
 * expressions, mm() combinations or the equation form), [t0, t1] is cut into
 * pieces on which they are resolved by degree 2 stages - 1 to tol, as the
 * dense collocation cuts it (docs/collocation.md section 8), and every mesh
 * keeps the pieces' ends, so no pulse, kink or jump lies between the Gauss
 * points of both meshes; an interval inside the few ulps around a kink or
 * jump carries v across.  A system set block by block (callbacks, constant
 * blocks) carries none: its data are seen at the Gauss points alone. */
lth_status lth_bvp_solve_op(lth_opsys *sys, double t0, double t1, const lth_bvp_sparse_bc *bc,
                            const double *times, size_t n, const lth_bvp_opts *opts,
                            lth_bvp_result **out, lth_error *err);

/* The same collocation with ne slack unknowns s: rows = p + ne boundary
 * rows B0 z(t0) + B1 z(t1) - E s = beta, E rows x ne (CSC, ld-free), s
 * written to slack[0..ne-1] (lth-lqr's operator path: the optimality BVP of
 * an LQR problem has 2 nx rows on a manifold of dimension 2 (nx - nu); with
 * E = the impulse directions B(t0) at t0 and B(t1) at t1 it is square, and
 * s = 0 iff the smooth optimum exists, lib/lqr/lqr_op.c).  The system stays
 * one square sparse system per mesh (the slack columns after the others,
 * the boundary rows after the collocation rows), factored by KLU.  Singular
 * (or condition estimate above cond_max): LTH_ENOTUNIQUE, the rows and the
 * slack directions together do not fix the p free constants and s.
 * bc_residual is ||B0 z(t0) + B1 z(t1) - beta||_2 = ||E s|| up to rounding.
 * Errors as lth_bvp_solve_op, LTH_EBC for rows != p + ne or a bad E,
 * LTH_EINVAL for ne < 1. */
lth_status lth_bvp_solve_op_slack(lth_opsys *sys, double t0, double t1,
                                  const lth_bvp_sparse_bc *bc, int ne, const lth_bvp_csc *E,
                                  const double *times, size_t n, const lth_bvp_opts *opts,
                                  lth_bvp_result **out, double *slack, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
