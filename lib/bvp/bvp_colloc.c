/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation for DAE boundary-value problems (include/lth/bvp.h, method
 * LTH_BVP_COLLOCATION; docs/collocation.md).
 *
 * Design.  Clark's decomposition turns the DAE of any index into the reduced
 * ODE v' = Ahat(t) v + g(t) on the state space, whose solutions through a
 * point of range(I - P(t0)) stay in range(I - P(t)) (Theorem 2), and gives
 * the whole solution as z = G(t) v + q(t) (Corollary 3), all with exact
 * coefficients at any t.  We therefore collocate the reduced ODE, not the DAE:
 *  - Collocating the DAE with its consistency rows (as COLDAE does for index
 *    <= 2, with a projection) loses order in the algebraic components as the
 *    index grows and needs hidden constraints differentiated numerically;
 *    here w and u come from v through the exact G and q, so every component
 *    converges with the order of v, for any index.
 *  - Collocating the m-dimensional ODE for v directly would let v drift off
 *    range(I - P) by the discretisation error.  Instead, on each mesh interval
 *    v is written in the p coordinates y = W_k' v of an orthonormal basis W_k
 *    of range(I - P(t_k)); then v = R_k(t) y lies in range(I - P(t)) to
 *    rounding at every time, and y' = W_k' Ahat R_k y + W_k' g is an ordinary
 *    p-dimensional ODE with smooth coefficients (lib/colloc/colloc_ctx.c).  Gauss
 *    collocation with s stages is then an ordinary Gauss Runge-Kutta method:
 *    order 2s at the mesh points (superconvergence) and s + 1 for the
 *    collocation polynomial in between; since the coordinates change from
 *    interval to interval by the exact linear map W_{k+1}' R_k(t_{k+1}), the
 *    classical convergence theory applies interval by interval.
 *  - The stages are eliminated locally (a dense sp x sp LU per interval,
 *    LAPACK dgetrf), which leaves y_{k+1} = F_k y_k + f_k with the boundary
 *    conditions: an almost block diagonal two-point system solved by a
 *    structured QR (lib/colloc/abd.c) in O(N p^3), stable for dichotomic problems,
 *    never dense.  Its homogeneous solutions for unit boundary data give
 *    Phi(t) S^{-1} at every mesh point, hence cond_bvp (bvp.h) directly.
 *  - Output at any t: one Gauss step from the mesh point below t (order 2s,
 *    like the mesh points; s more decompositions per output time), then
 *    z = G(t) R(t) y + q(t).  The collocation polynomial (order s + 1) is
 *    available to the tests (lib/colloc/colloc.h).
 *  - Error control (lib/colloc/colloc_adapt.c): the solution on a mesh and on its
 *    halving; their difference estimates the coarse solution's error to
 *    within 1 + 2^{-2s}, and the coarse one is returned.  The tolerance is
 *    on max-norm errors relative to max(1, max |z|).
 * A BVP that is not uniquely solvable (rank of the reduced two-point matrix
 * below 2p) or too ill-conditioned for the tolerance (cond_bvp * eps > tol,
 * or cond_bvp > cond_max) is refused with LTH_ENOTUNIQUE; a tolerance that is
 * not reached within max_intervals with LTH_ETOL naming the estimate.
 *
 * Default stages: lth_colloc_default_stages(tol), 7 at the default 1e-8 and 8
 * at 1e-10, chosen by accuracy per cost in bench/bench_colloc.c
 * (docs/collocation.md).
 */
#include <math.h>
#include <string.h>

#include <cblas.h>

#include "bvp_impl.h"
#include "colloc/colloc.h"
#include "lth/defaults.h"

/* p = 0: no free constants, the unique solution is z = q(t) (v = 0). */
static lth_status no_free_constants(lth_colloc_ctx *cx, const lth_bvp_problem *bp,
                                    lth_bvp_result *res, lth_error *err) {
  for (size_t k = 0; k < bp->n; k++) {
    const lth_point *pt;
    lth_status st = lth_colloc_point(cx, bp->times[k], &pt, err);
    if (st != LTH_OK) return st;
    memcpy(res->z + k * (size_t)bp->s, pt->q.c, sizeof(double) * (size_t)bp->s);
  }
  res->error_estimate = 0.0; /* z = q exactly: no discretisation */
  res->cond_bvp = 1.0;       /* no boundary data to amplify; as cond_shooting */
  res->cond_shooting = 1.0;
  res->bc_residual = 0.0;
  res->drift = 0.0;
  res->intervals = 0;
  return LTH_OK;
}

int lth_bvp_collocation_stages(double tol) { return lth_colloc_default_stages(tol); }

lth_status lth_bvp_collocation(const lth_bvp_problem *bp, const lth_bvp_opts *o,
                               lth_bvp_result *res, lth_error *err) {
  double tol = o->tol != 0.0 ? o->tol : LTH_DEFAULT_COLLOC_TOL;
  int stages =
      o->stages ? o->stages : (tol > 0.0 && tol < 1.0 ? lth_colloc_default_stages(tol) : 1);
  if (stages < 1 || stages > LTH_COLLOC_MAX_STAGES) {
    return lth_error_set(err, LTH_EINVAL, "collocation stages %d: need 1 <= stages <= %d", stages,
                         LTH_COLLOC_MAX_STAGES);
  }
  if (!(tol > 0.0 && tol < 1.0)) {
    return lth_error_set(err, LTH_EINVAL, "collocation tolerance %g: need 0 < tol < 1", tol);
  }
  lth_ivp_opts io = o->ivp;
  io.cond_max = o->cond_max;
  if (io.table_tol <= 0.0) io.table_tol = lth_colloc_table_tol(tol);
  lth_colloc_ctx *cx = lth_colloc_ctx_alloc(bp->sys, stages, &io, bp->t0, bp->t1, err);
  if (!cx) return err ? err->status : LTH_ENOMEM;
  if (bp->p == 0) {
    lth_status st = no_free_constants(cx, bp, res, err);
    lth_colloc_ctx_free(cx);
    return st;
  }
  lth_colloc_bc bc = {bp->p, bp->B0, bp->B1, bp->beta};
  lth_colloc_opts co = {.tol = tol,
                        .max_intervals = o->max_intervals,
                        .cond_max = o->cond_max,
                        .output_mode = LTH_COLLOC_STEP,
                        .progress = o->progress,
                        .progress_ctx = o->progress_ctx};
  lth_colloc_out out = {0};
  out.z = res->z;
  lth_status st = lth_colloc_adapt(cx, &bc, bp->t0, bp->t1, bp->times, bp->n, &co, &out, err);
  res->cond_bvp = out.cond_bvp;
  if (st == LTH_OK) {
    const lth_cmesh *M = out.mesh;
    int s = bp->s, p = bp->p;
    double *z0 = lth_colloc_scratch(cx), *z1 = z0 + s; /* 2s <= the scratch size */
    memcpy(z0, M->q, sizeof(double) * s);
    memcpy(z1, M->q + M->N * s, sizeof(double) * s);
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, M->GW, s, M->y, 1, 1.0, z0, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, M->GW + M->N * (size_t)s * p, s,
                M->y + M->N * (size_t)p, 1, 1.0, z1, 1);
    res->bc_residual = lth_bvp_bc_residual(bp, z0, z1);
    res->error_estimate = out.error_estimate;
    res->drift = out.drift;
    res->intervals = (int)M->N;
    res->cond_shooting = M->rank_cond;
  }
  lth_cmesh_free(out.mesh);
  lth_colloc_ctx_free(cx);
  return st;
}
