/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Singular LQR by collocation (include/lth/lqr.h, LTH_LQR_COLLOCATION).
 *
 * The optimality DAE (x, lambda, u) of index 3 with x(t0) = x0 and the
 * natural condition lambda(t1) = C x(t1) is a BVP with 2 nx conditions on a
 * solution manifold of dimension p = 2 (nx - nu) (Clark (4.14)-(4.15)).  The
 * collocation solver (lib/colloc/colloc.h) takes all 2 nx rows and solves its
 * reduced two-point system in least squares: rank 2p means W is injective
 * (Theorem 5: the optimum is unique), a zero residual that (x0, 0) lies in
 * range(W) (it exists).  Unlike the shooting path it never forms
 * Psi(t1, t0), whose growth and decay over long horizons (the Hamiltonian
 * system is dichotomic) ruin W in floating point.
 *
 * Collocation is used when the smooth optimum exists and is unique and there
 * is no terminal impulse (B(t1)' C = 0, so the natural condition is
 * lambda(t1) = C x(t1)); otherwise the shooting path runs and its analysis
 * (the impulse at t0 onto the optimal manifold, the terminal jump, or
 * non-uniqueness) is returned.  cond_W is measured on the solution space in
 * end-point coordinates (lth_abd_bc_cond), not through Psi(t1, t0).
 */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colloc/colloc.h"
#include "lqr_impl.h"
#include "lth/defaults.h"
#include "lth/decomp.h"
#include "core/errors.h"

static lth_status shooting_path(const lth_lqr_spec *spec, const double *times, size_t n,
                                const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err) {
  lth_lqr_opts o = *opts;
  o.method = LTH_LQR_SHOOTING;
  lth_error_clear(err);
  return lth_lqr_solve(spec, times, n, &o, out, err);
}

/* ||B(t1)' C|| <= 1e-14 ||B(t1)|| ||C||: no terminal impulse. */
static lth_status terminal_smooth(const lth_lqr_spec *spec, int *smooth, lth_error *err) {
  int nx = spec->nx, nu = spec->nu;
  double *Bm =
      malloc(sizeof(double) * ((size_t)2 * nx * nu + lth_source_work_size(spec->B, 0) + 1));
  if (!Bm) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *BC = Bm + (size_t)nx * nu, *work = BC + (size_t)nx * nu;
  lth_jet Bj = lth_jet_wrap(Bm, nx, nu, nx, (size_t)nx * nu, 0);
  lth_status st = lth_source_fill(spec->B, spec->t1, 0, &Bj, work, err);
  if (st == LTH_OK) {
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nu, nx, nx, 1.0, Bm, nx, spec->C, nx, 0.0,
                BC, nu);
    double nb = 0.0, nc = 0.0, nbc = 0.0;
    for (size_t k = 0; k < (size_t)nx * nu; k++) {
      nb = fmax(nb, fabs(Bm[k]));
      nbc = fmax(nbc, fabs(BC[k]));
    }
    for (size_t k = 0; k < (size_t)nx * nx; k++) nc = fmax(nc, fabs(spec->C[k]));
    *smooth = nbc <= 1e-14 * nx * nb * nc;
  }
  free(Bm);
  return st;
}

/* Closed-loop gain (the u rows of G) and Theorem 4 (P_1' = P_2) at the output
 * times, as the shooting path reports them. */
static lth_status gain_theorem4(const lth_system *sys, int nx, int nu, const lth_lqr_opts *o,
                                lth_lqr_result *res, lth_error *err) {
  LTH_ERROR_RECORD(err);
  int m = 2 * nx;
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, err);
  lth_point *pt = ws ? lth_point_alloc(sys, 0, err) : NULL;
  lth_status st = pt ? LTH_OK : (lth_error_status(err));
  if (st == LTH_OK && o->cond_max > 0) lth_decomp_ws_set_cond_max(ws, o->cond_max);
  for (size_t k = 0; k < res->n && st == LTH_OK; k++) {
    st = lth_decomp_at(ws, res->times[k], pt, err);
    if (st != LTH_OK) break;
    double *K = res->gain + k * (size_t)nu * m, dev = 0.0, scale = 1.0;
    for (int j = 0; j < m; j++)
      for (int i = 0; i < nu; i++) K[i + (size_t)j * nu] = LTH_JET_AT(&pt->G, 0, m + i, j);
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < nx; j++) {
        double p2 = LTH_JET_AT(&pt->P, 0, nx + i, nx + j);
        dev = fmax(dev, fabs(LTH_JET_AT(&pt->P, 0, j, i) - p2));
        scale = fmax(scale, fabs(p2));
      }
    res->theorem4 = fmax(res->theorem4, dev / scale);
  }
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  return st;
}

/* Trajectories, cost and the fields of a smooth unique optimum. */
static void fill(const lth_lqr_spec *spec, const lth_colloc_out *out, const double *z, int s,
                 lth_lqr_result *res) {
  int nx = spec->nx, nu = spec->nu, p = res->p;
  const lth_cmesh *M = out->mesh;
  for (size_t k = 0; k < res->n; k++) {
    memcpy(res->x + k * (size_t)nx, z + k * (size_t)s, sizeof(double) * nx);
    memcpy(res->lambda + k * (size_t)nx, z + k * (size_t)s + nx, sizeof(double) * nx);
    memcpy(res->u + k * (size_t)nu, z + k * (size_t)s + 2 * nx, sizeof(double) * nu);
  }
  /* cost 1/2 x0' lambda(t0), lambda(t0) from mesh point 0 */
  double lam0 = 0.0;
  for (int i = 0; i < nx; i++) {
    double l = M->q[nx + i];
    for (int j = 0; j < p; j++) l += M->GW[nx + i + (size_t)j * s] * M->y[j];
    lam0 += spec->x0[i] * l;
  }
  res->cost = 0.5 * lam0;
  res->exists = res->unique = res->have_trajectory = 1;
  res->residual = M->lsq_resid;
  res->cond_W = M->bc_cond;
  memcpy(res->x0_consistent, spec->x0, sizeof(double) * nx);
  res->jump_in_range_B = 1;
  res->terminal_impulse = 0;
  res->drift = out->drift;
}

lth_status lth_lqr_colloc_smooth(const lth_lqr_spec *spec, const double *times, size_t n,
                                 const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  int nx = spec->nx, nu = spec->nu, smooth = 0;
  lth_status st = terminal_smooth(spec, &smooth, err);
  if (st != LTH_OK) return st;
  if (!smooth) {
    return lth_error_set(err, LTH_ENOSOL, "B(t1)' C != 0: the optimum ends with an impulse");
  }
  lth_system *sys = NULL;
  st = lth_lqr_build_system(spec, &sys, err);
  if (st != LTH_OK) return st;
  int s = lth_system_size(sys), rows = 2 * nx;
  double tol = opts->ivp.rtol > 0 ? opts->ivp.rtol : LTH_DEFAULT_RTOL;
  double exist_tol = opts->tol > 0 ? opts->tol : 100.0 * tol; /* as the shooting path */
  double *buf = calloc((size_t)2 * rows * s + rows + (size_t)s * n + 1, sizeof(double));
  lth_ivp_opts io = opts->ivp;
  io.cond_max = opts->cond_max;
  if (io.table_tol <= 0.0) io.table_tol = lth_colloc_table_tol(tol);
  lth_colloc_ctx *cx =
      buf ? lth_colloc_ctx_alloc(sys, lth_colloc_default_stages(tol), &io, spec->t0, spec->t1, err)
          : NULL;
  st = cx ? LTH_OK
          : (buf ? (lth_error_status(err)) : lth_error_set(err, LTH_ENOMEM, "out of memory"));
  lth_colloc_out co_out = {0};
  if (st == LTH_OK) {
    /* x(t0) = x0;  lambda(t1) - C x(t1) = 0 */
    double *B0 = buf, *B1 = B0 + (size_t)rows * s, *beta = B1 + (size_t)rows * s;
    for (int i = 0; i < nx; i++) {
      B0[i + (size_t)i * rows] = 1.0;
      B1[nx + i + (size_t)(nx + i) * rows] = 1.0;
      for (int j = 0; j < nx; j++) B1[nx + i + (size_t)j * rows] = -spec->C[i + (size_t)j * nx];
      beta[i] = spec->x0[i];
    }
    lth_colloc_bc bc = {rows, B0, B1, beta};
    /* a singular system is the LQR's to judge (keep_singular), from the
     * existence residual exist_tol */
    lth_colloc_opts co = {.tol = tol,
                          .cond_max = opts->cond_max,
                          .output_mode = LTH_COLLOC_STEP,
                          .rank_tol = 1e-10,
                          .keep_singular = 1,
                          .lsq_max = exist_tol,
                          .progress = opts->progress,
                          .progress_ctx = opts->progress_ctx};
    co_out.z = beta + rows;
    st = lth_colloc_adapt(cx, &bc, spec->t0, spec->t1, times, n, &co, &co_out, err);
  }
  if (st == LTH_OK && !(co_out.mesh->lsq_resid <= exist_tol)) {
    st = lth_error_set(err, LTH_ENOSOL, "(x0, 0) is not in range(W): residual %.3e",
                       co_out.mesh->lsq_resid);
  }
  if (st == LTH_OK) {
    lth_lqr_result *res = lth_lqr_result_new(nx, nu, n, times);
    st = res ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
    if (st == LTH_OK) {
      fill(spec, &co_out, co_out.z, s, res);
      st = gain_theorem4(sys, nx, nu, opts, res, err);
    }
    if (st == LTH_OK)
      *out = res;
    else
      lth_lqr_result_free(res);
  } else if ((st == LTH_ESING || st == LTH_ECOND) && err && err->has_t) {
    lth_error_prefix(err, "B'H B (= -Pi) must be invertible on the interval: ");
  }
  lth_cmesh_free(co_out.mesh);
  lth_colloc_ctx_free(cx);
  lth_system_free(sys);
  free(buf);
  return st;
}

lth_status lth_lqr_colloc(const lth_lqr_spec *spec, const double *times, size_t n,
                          const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err) {
  lth_status st = lth_lqr_colloc_smooth(spec, times, n, opts, out, err);
  if (st == LTH_ENOSOL || st == LTH_ENOTUNIQUE) {
    st = shooting_path(spec, times, n, opts, out, err); /* no unique smooth optimum */
  }
  return st;
}
