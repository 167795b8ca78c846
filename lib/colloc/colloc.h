/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: Gauss-Legendre collocation of the reduced ODE on a mesh, shared by
 * the BVP driver (lib/bvp/bvp_colloc.c), the LQR path (lib/lqr/lqr_colloc.c) and the
 * tests.  The method and its design are explained in lib/bvp/bvp_colloc.c and
 * docs/collocation.md.
 *
 * On mesh interval k = [t_k, t_{k+1}] the state v (in range(I - P(t))) is
 * carried by the coordinates y = W_k' v, W_k an orthonormal basis of
 * range(I - P(t_k)); v = R_k(t) y with R_k(t) = T (W_k' T)^{-1},
 * T = (I - P(t)) W_k, and y' = C_k(t) y + d_k(t), C_k = W_k' Ahat R_k,
 * d_k = W_k' g, a smooth p-dimensional ODE collocated at s Gauss points.
 * Eliminating the stages gives y_{k+1} = F_k y_k + f_k in the coordinates of
 * the next mesh point (lib/colloc/abd.h solves the resulting two-point system).
 */
#ifndef LTH_COLLOC_H
#define LTH_COLLOC_H

#include <stddef.h>

#include "lth/ivp.h"
#include "lth/status.h"
#include "lth/system.h"

#define LTH_COLLOC_MAX_STAGES 8

/* ---- Gauss-Legendre tableau on [0, 1] (lib/colloc/colloc_gauss.c) ---- */
typedef struct lth_colloc_tableau {
  int s;
  double c[LTH_COLLOC_MAX_STAGES];                         /* nodes */
  double b[LTH_COLLOC_MAX_STAGES];                         /* weights */
  double A[LTH_COLLOC_MAX_STAGES * LTH_COLLOC_MAX_STAGES]; /* a_jl = int_0^{c_j} l_l, ld s */
} lth_colloc_tableau;

lth_status lth_colloc_gauss(int s, lth_colloc_tableau *tab, lth_error *err);
/* The default number of stages for a tolerance: 3 + round(log10(1/tol) / 2)
 * in [3, 8] (6 at 1e-6, 7 at 1e-8, 8 at 1e-10 and below): within 2 % of the
 * least time relative to the best in bench/bench_colloc.c's table 3,
 * averaged over its six problems, at each of these tolerances, since the
 * Gauss points read a coefficient table (docs/collocation.md section 3). */
int lth_colloc_default_stages(double tol);
/* a[l] = int_0^tau l_l(x) dx, l_l the Lagrange basis at the nodes (the
 * collocation polynomial is y_k + h sum_l a[l] K_l at t_k + tau h). */
void lth_colloc_gauss_integrals(const lth_colloc_tableau *tab, double tau, double *a);

/* ---- evaluation context (lib/colloc/colloc_mesh.c) ---- */
typedef struct lth_colloc_ctx lth_colloc_ctx;

/* Decompositions of sys on [t0, t1] (exact, or Hermite for sampled data as
 * io->hermite says), tableau of `stages` Gauss points, work space. */
lth_colloc_ctx *lth_colloc_ctx_alloc(const lth_system *sys, int stages, const lth_ivp_opts *io,
                                     double t0, double t1, lth_error *err);
void lth_colloc_ctx_free(lth_colloc_ctx *cx);
size_t lth_colloc_ctx_decomps(const lth_colloc_ctx *cx);
/* Exact data (and coefficients not LTH_COEF_DIRECT): the Gauss nodes read a
 * coefficient table, the mesh points and output times decompose directly.
 * drop_table goes back to direct decompositions everywhere (returns 0 if
 * there was no table); meshes built before must not be reused. */
int lth_colloc_ctx_has_table(const lth_colloc_ctx *cx);
/* The Gauss-node table's tolerance for a collocation tolerance: 1e-4 tol, at
 * most 1e-13, at least 3e-15 (relative); what the table adds to the error is
 * estimated, and the table dropped when that is over tol / 4. */
double lth_colloc_table_tol(double tol);
int lth_colloc_ctx_drop_table(lth_colloc_ctx *cx);
void lth_colloc_ctx_dims(const lth_colloc_ctx *cx, int *s, int *m, int *p);
const lth_system *lth_colloc_ctx_system(const lth_colloc_ctx *cx);
/* The non-smooth points of the data (lib/colloc/pieces.h): n intervals
 * [lohi[2i], lohi[2i+1]], each a few ulps wide around a kink or jump (copied).
 * A Gauss step inside one of them is the identity (Gam = I, gam = 0): its
 * nodes could land on the point itself, where the data have no derivatives,
 * and the state changes across it by its width times y' only. */
lth_status lth_colloc_ctx_set_points(lth_colloc_ctx *cx, const double *lohi, size_t n,
                                     lth_error *err);
const lth_colloc_tableau *lth_colloc_ctx_tableau(const lth_colloc_ctx *cx);

/* The building blocks (lib/colloc/colloc_ctx.c), all without allocation:
 * the decomposition at t (valid until the next call);
 * W (m x p): an orthonormal basis of range(I - P) at pt (SVD of I - P);
 * R (m x p) = T (W' T)^{-1}, T = (I - P) W at pt: the v with W' v = y is R y;
 *   *rc the reciprocal condition of W' T (0: W is no basis here any more, R = 0;
 *   not an error: the caller refines the interval);
 * one Gauss step of length h from a with coordinates W: y(a + h) = Gam y(a) + gam
 *   (Gam p x p, gam p), *rc the smallest reciprocal condition of the stage matrix
 *   and the maps R (0: the step failed, Gam = I, gam = 0, refine); the
 *   stage derivatives are K = X[:, 0:p] y(a) + X[:, p] (X: sp x (p+1), ld sp,
 *   from lth_colloc_stage_map, valid until the next step). */
lth_status lth_colloc_point(lth_colloc_ctx *cx, double t, const lth_point **pt, lth_error *err);
/* The coefficients the Gauss steps use at t: the table's (or lth_colloc_point's
 * without one).  Every transfer R that continues a step must use these, so
 * that a step and its end agree on P (mixing a tabulated P inside the step
 * with the exact one at its end is an O(table error) jump per interval, which
 * accumulates with N and stalls the error estimate: Ascher-Petzold at 1e-9). */
lth_status lth_colloc_node_point(lth_colloc_ctx *cx, double t, const lth_point **pt,
                                 lth_error *err);
lth_status lth_colloc_basis(lth_colloc_ctx *cx, const lth_point *pt, double *W, lth_error *err);
lth_status lth_colloc_transfer(lth_colloc_ctx *cx, const lth_point *pt, const double *W, double *R,
                               double *rc, lth_error *err);
lth_status lth_colloc_step(lth_colloc_ctx *cx, const double *W, double a, double h, double *Gam,
                           double *gam, double *rc, lth_error *err);
const double *lth_colloc_stage_map(const lth_colloc_ctx *cx);
/* Scratch for lth_cmesh_eval: (p + 3) p + 2 m p + s p + 2 m + s doubles. */
double *lth_colloc_scratch(lth_colloc_ctx *cx);

/* Boundary conditions B0 z(t0) + B1 z(t1) = beta, rows >= p (rows x s, ld rows). */
typedef struct lth_colloc_bc {
  int rows;
  const double *B0, *B1, *beta;
} lth_colloc_bc;

/* A mesh with its discretisation and solution. */
typedef struct lth_cmesh {
  size_t N;         /* intervals */
  int s, m, p, nh;  /* sizes; nh: homogeneous solutions kept (0 or bc rows) */
  double *t;        /* N + 1 mesh points */
  double *W;        /* N + 1 blocks m x p: orthonormal basis of range(I - P(t_k)) */
  double *GW;       /* N + 1 blocks s x p: G(t_k) W_k, so z(t_k) = GW_k y_k + q_k */
  double *q;        /* N + 1 blocks s */
  double *F, *f;    /* N blocks p x p and p: y_{k+1} = F_k y_k + f_k */
  double *rc;       /* N: smallest reciprocal condition of a local solve (stages, basis) */
  double *pw;       /* N + 1: ||P(t_k) W_k||_F (rounding): the drift of v = W_k y is <= pw ||y|| */
  double *dC, *dd;  /* N blocks p x p and p: with a table, at t_{k+1} the perturbation it makes
                       in y' = C y + d: W_k'((Ahat R_k)_table - Ahat R_k), W_k'(g_table - g) */
  int gaps;         /* 1: dC, dd are set (a table served the Gauss nodes) */
  double table_err; /* after lth_cmesh_solve with gaps and keep_homog = 0 (the mesh whose
                       solution is returned; the halving's is not needed): max ||G W dy||_inf,
                       dy the solution's response to the perturbations (0 otherwise) */
  double *y;        /* N + 1 blocks p: the solution (after lth_cmesh_solve) */
  double *Y;        /* N + 1 blocks p x nh: homogeneous solutions for unit bc data */
  double rank_cond; /* condition (sigma_max / sigma_min) of the reduced two-point matrix */
  int rank;         /* its rank (2p: unique) */
  double lsq_resid; /* relative least-squares residual of the bc (rows > p) */
  double bc_cond;   /* rows > p: lth_abd_bc_cond (NaN otherwise) */
  int dep_rows[16]; /* when rank < 2p: bc rows (0-based) in the dependent combination */
  int ndep;
} lth_cmesh;

lth_cmesh *lth_cmesh_alloc(size_t N, int s, int m, int p, lth_error *err);
void lth_cmesh_free(lth_cmesh *M);

/* Discretise on M->t (filled by the caller).  Intervals equal (bitwise) to an
 * interval of one of the `nold` previous meshes are copied from it. */
lth_status lth_cmesh_build(lth_colloc_ctx *cx, lth_cmesh *M, lth_cmesh *const *old, int nold,
                           lth_error *err);

/* Solve the discrete BVP for bc; keep_homog: also the bc->rows homogeneous
 * solutions for unit data (M->Y, for cond_bvp).  LTH_ENOTUNIQUE when the
 * conditions restricted to the manifold at t0 and t1 are dependent (M->ndep
 * rows named in M->dep_rows, M->rank = -1), or when the reduced matrix has
 * rank < 2p, singular values up to rank_tol * sigma_max counting as zero
 * (M->rank, M->rank_cond); rows > p is a least-squares solve (M->lsq_resid). */
lth_status lth_cmesh_solve(lth_colloc_ctx *cx, lth_cmesh *M, const lth_colloc_bc *bc,
                           int keep_homog, double rank_tol, lth_error *err);

/* Output at t in [t_0, t_N] (lib/colloc/colloc_eval.c).  mode LTH_COLLOC_STEP: one Gauss step of
 * length t - t_k from the mesh point t_k below t (order 2s); LTH_COLLOC_POLY: the collocation
 * polynomial (order s + 1).  z (s), v (m, may be NULL), *drift =
 * ||P(t) v||_2 (may be NULL).  A failed local step is LTH_ESING naming t.
 * At a mesh point no decomposition is needed (the point's own data). */
enum { LTH_COLLOC_STEP = 0, LTH_COLLOC_POLY = 1 };
lth_status lth_cmesh_eval(lth_colloc_ctx *cx, const lth_cmesh *M, double t, int mode, double *z,
                          double *v, double *drift, lth_error *err);

/* The same (LTH_COLLOC_STEP), with *est, the estimated error of z: the error
 * at the mesh point below, y_k - y_{2k} of the halved mesh Mf, carried through
 * the same Gauss step, plus the local error of the step, tau^{2s+1} lev_k
 * (tau = (t - t_k) / h_k; lev: N blocks of s, the local errors of M's full
 * steps as errors of z), as one signed vector; *est its max-norm. */
lth_status lth_cmesh_eval_est(lth_colloc_ctx *cx, const lth_cmesh *M, const lth_cmesh *Mf,
                              const double *lev, double t, double *z, double *v, double *drift,
                              double *est, lth_error *err);

/* ---- the adaptive solver (lib/colloc/colloc_adapt.c) ---- */
typedef struct lth_colloc_opts {
  double tol;               /* max-norm error of z relative to max(1, max |z|) */
  size_t max_intervals;     /* refuse (LTH_ETOL) rather than exceed (0:
                               LTH_DEFAULT_COLLOC_MAX_INTERVALS) */
  size_t initial_intervals; /* uniform start (0: LTH_DEFAULT_COLLOC_INITIAL) */
  double cond_max;          /* refuse cond_bvp above min(cond_max, tol / DBL_EPSILON) */
  int output_mode;          /* LTH_COLLOC_STEP (default) or LTH_COLLOC_POLY */
  double rank_tol;          /* lth_cmesh_solve's (0: only exact singularity) */
  int keep_singular;        /* 1: a singular system is returned as lth_cmesh_solve said (LQR) */
  double lsq_max;           /* rows > p: a least-squares residual above this that does not
                               shrink on the finer mesh is LTH_ENOSOL (0: not checked) */
  /* optional: after each mesh, digits of the tolerance reached (done of total) */
  void (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
} lth_colloc_opts;

typedef struct lth_colloc_out {
  double *z;             /* s x n, caller's storage: the solution at the output times */
  double *v;             /* m x n or NULL: its state part */
  double error_estimate; /* max over the output times of ||z_N - z_2N||_inf */
  double error_mesh;     /* the same over the mesh points */
  double tol_abs;        /* tol * max(1, max |z|) that was met */
  double cond_bvp;       /* max_t ||Z(t)||_inf (||B0||_inf + ||B1||_inf), Z: bc data -> z */
  double drift;          /* max ||P v|| at the output times */
  size_t iterations, decomps;
  lth_cmesh *mesh; /* the mesh of the returned solution (the caller frees it) */
} lth_colloc_out;

/* Solve to co->tol on an adaptive mesh: solutions on a mesh and on its
 * halving, their difference as the estimate of the coarser one's error
 * (returned), local errors of the coarse steps for the next mesh.  Errors:
 * LTH_ETOL (tolerance not reachable within max_intervals, or the estimate
 * stalls: message names the estimate reached), LTH_ENOTUNIQUE (singular
 * system naming dependent bc rows, or cond_bvp too large), LTH_ENOSOL
 * (co->lsq_max), decomposition errors naming t. */
lth_status lth_colloc_adapt(lth_colloc_ctx *cx, const lth_colloc_bc *bc, double t0, double t1,
                            const double *times, size_t n, const lth_colloc_opts *co,
                            lth_colloc_out *out, lth_error *err);

/* The mesh t0 = x_0 < ... < x_N = t1, uniform (for tests and the start). */
lth_cmesh *lth_cmesh_uniform(size_t N, double t0, double t1, int s, int m, int p, lth_error *err);

#endif
