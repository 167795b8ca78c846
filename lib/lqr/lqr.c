/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Totally singular LQR by Clark's section 4.2 (include/lth/lqr.h).
 *
 * The optimality DAE (x, lambda, u) is homogeneous (f = 0), so every solution
 * is z(t) = Phi(t) c with Phi = (Nhat + Bhat) Psi(t, t0) Q (Corollary 2).  The
 * boundary conditions x(t0) = x0 and lambda(t1) = C x(t1) (docs/theory.md section 6:
 * the natural condition has this sign for lambda' = -H x - A' lambda) read
 *     W c = (x0, 0),   W = [ X Phi(t0) ; (Lambda - C X) Phi(t1) ],
 * X, Lambda selecting x and lambda: Clark's (4.14)-(4.15) on the state space.
 * Theorem 5: a (smooth) optimum exists iff (x0, 0) is in range(W), and is
 * unique iff W is injective.  Optimal cost 1/2 x0' lambda(t0): d/dt(x'lambda)
 * = -x' H x along the optimum, so int x'Hx = x0'lambda0 - x1'C x1.
 * Closed loop (Theorem 6, canonical form): (I - P)(x, lambda) = v on the
 * solution, so u = B_u v = B_u (I - P)(x, lambda): the u rows of G.
 */
#include "lth/defaults.h"
#include "lth/lqr.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lqr_impl.h"
#include "lth/decomp.h"
#include "core/times.h"
#include "core/errors.h"

void lth_lqr_opts_init(lth_lqr_opts *opts) {
  memset(opts, 0, sizeof *opts);
  lth_ivp_opts_init(&opts->ivp);
  /* stable on long horizons, where Psi(t1, t0) ruins W (docs/collocation.md section 7) */
  opts->method = LTH_LQR_COLLOCATION;
}

void lth_lqr_result_free(lth_lqr_result *res) {
  if (!res) return;
  free(res->times);
  free(res->x);
  free(res->lambda);
  free(res->u);
  free(res->x0_consistent);
  free(res->jump);
  free(res->terminal_jump);
  free(res->gain);
  free(res);
}

static lth_lqr_result *result_alloc(int nx, int nu, size_t n, const double *times) {
  lth_lqr_result *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->n = n;
  r->nx = nx;
  r->nu = nu;
  r->p = 2 * (nx - nu);
  r->cost = NAN;
  r->error_estimate = NAN;
  size_t n1 = n ? n : 1;
  r->times = malloc(n1 * sizeof(double));
  r->x = calloc(n1 * (size_t)nx, sizeof(double));
  r->lambda = calloc(n1 * (size_t)nx, sizeof(double));
  r->u = calloc(n1 * (size_t)nu, sizeof(double));
  r->x0_consistent = calloc((size_t)nx, sizeof(double));
  r->jump = calloc((size_t)nx, sizeof(double));
  r->terminal_jump = calloc((size_t)nx, sizeof(double));
  r->gain = calloc(n1 * (size_t)nu * 2 * nx, sizeof(double));
  if (!r->times || !r->x || !r->lambda || !r->u || !r->x0_consistent || !r->jump ||
      !r->terminal_jump || !r->gain) {
    lth_lqr_result_free(r);
    return NULL;
  }
  if (n) memcpy(r->times, times, n * sizeof(double));
  return r;
}

/* ---- small dense least squares by SVD (LAPACKE) ---- */

typedef struct {
  int rows, cols, rank;
  double *U, *sv, *Vt; /* rows x k, k, k x cols (k = min(rows, cols)); V: full cols x cols */
  double *V;
} svd_t;

static void svd_free(svd_t *d) {
  free(d->U);
  free(d->sv);
  free(d->Vt);
  free(d->V);
}

/* SVD of a (rows x cols, ld rows); rank with relative threshold tol. */
static lth_status svd(const double *a, int rows, int cols, double tol, svd_t *d, lth_error *err) {
  memset(d, 0, sizeof *d);
  d->rows = rows;
  d->cols = cols;
  int k = rows < cols ? rows : cols;
  double *A = malloc(sizeof(double) * ((size_t)rows * cols + 1));
  double *superb = malloc(sizeof(double) * ((size_t)k + 1));
  d->U = malloc(sizeof(double) * ((size_t)rows * rows + 1));
  d->sv = calloc((size_t)k + 1, sizeof(double));
  d->V = malloc(sizeof(double) * ((size_t)cols * cols + 1));
  d->Vt = malloc(sizeof(double) * ((size_t)cols * cols + 1));
  lth_status st = LTH_OK;
  if (!A || !superb || !d->U || !d->sv || !d->V || !d->Vt) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  } else if (k > 0) {
    memcpy(A, a, sizeof(double) * (size_t)rows * cols);
    lapack_int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'A', rows, cols, A, rows, d->sv, d->U,
                                     rows, d->Vt, cols, superb);
    if (info != 0) st = lth_error_set(err, LTH_ELAPACK, "SVD failed (info %d)", (int)info);
    for (int i = 0; i < cols; i++)
      for (int j = 0; j < cols; j++) d->V[i + (size_t)j * cols] = d->Vt[j + (size_t)i * cols];
    for (int i = 0; i < k; i++) d->rank += d->sv[i] > tol * d->sv[0];
  } else {
    for (int i = 0; i < cols; i++)
      for (int j = 0; j < cols; j++) d->V[i + (size_t)j * cols] = i == j;
  }
  free(A);
  free(superb);
  if (st != LTH_OK) svd_free(d);
  return st;
}

/* Minimum-norm least-squares solution x (cols) of a x = b (rows). */
static void svd_solve(const svd_t *d, const double *b, double *x) {
  for (int j = 0; j < d->cols; j++) x[j] = 0.0;
  for (int i = 0; i < d->rank; i++) {
    double ub = cblas_ddot(d->rows, d->U + (size_t)i * d->rows, 1, b, 1) / d->sv[i];
    cblas_daxpy(d->cols, ub, d->V + (size_t)i * d->cols, 1, x, 1);
  }
}

/* Null-space basis: the last cols - rank columns of V. */
static const double *svd_null(const svd_t *d, int *dim) {
  *dim = d->cols - d->rank;
  return d->V + (size_t)d->rank * d->cols;
}

/* ---- the problem ---- */

typedef struct {
  const lth_lqr_spec *spec;
  lth_system *sys;
  int nx, nu, s, p;
  double *all; /* time union */
  size_t nall, *idx;
  lth_fundamental *fm;
  double *W;    /* 2nx x p */
  double *Ceff; /* nx x nx: C - C B1 (B1'C B1)^+ B1'C, B1 = B(t1) */
  double *Jt;   /* nx x nx: x(t1) -> terminal jump, -B1 (B1'C B1)^+ B1'C */
  double rank_tol;
} lqr_run;

static void run_free(lqr_run *R) {
  lth_system_free(R->sys);
  free(R->all);
  free(R->idx);
  lth_fundamental_free(R->fm);
  free(R->W);
  free(R->Ceff);
}

/* W = [X Phi(t0); (Lambda - C X) Phi(t1)]  (Clark (4.15) on the state space). */
static void build_W(lqr_run *R) {
  int nx = R->nx, s = R->s, p = R->p, rows = 2 * nx;
  const double *P0 = R->fm->Phi, *P1 = R->fm->Phi + (R->nall - 1) * (size_t)s * p;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < nx; i++) {
      R->W[i + (size_t)j * rows] = P0[i + (size_t)j * s];
      double v = P1[nx + i + (size_t)j * s];
      for (int k = 0; k < nx; k++) v -= R->Ceff[i + (size_t)k * nx] * P1[k + (size_t)j * s];
      R->W[nx + i + (size_t)j * rows] = v;
    }
  }
}

/* B(t) into Bm (nx x nu). */
static lth_status eval_B(const lth_lqr_spec *spec, double t, double *Bm, lth_error *err) {
  lth_jet Bj = lth_jet_wrap(Bm, spec->nx, spec->nu, spec->nx, (size_t)spec->nx * spec->nu, 0);
  double *work = malloc(sizeof(double) * (lth_source_work_size(spec->B, 0) + 1));
  lth_status st = work ? lth_source_fill(spec->B, t, 0, &Bj, work, err)
                       : lth_error_set(err, LTH_ENOMEM, "out of memory");
  free(work);
  return st;
}

/* The terminal cost after the best free jump along range(B1): min over nu of
 * 1/2 (x + B1 nu)' C (x + B1 nu) = 1/2 x' Ceff x with nu = -(B1'C B1)^+ B1'C x.
 * C psd, so B1'C B1 d = 0 implies C B1 d = 0 and the pseudo-inverse is exact. */
static lth_status terminal_weight(lqr_run *R, lth_error *err) {
  int nx = R->nx, nu = R->nu;
  const double *C = R->spec->C;
  R->Ceff = malloc(sizeof(double) *
                   ((size_t)2 * nx * nx + (size_t)4 * nx * nu + 4 * (size_t)nu * nu + 4));
  if (!R->Ceff) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  R->Jt = R->Ceff + (size_t)nx * nx;
  double *B1 = R->Jt + (size_t)nx * nx, *CB = B1 + (size_t)nx * nu, *M = CB + (size_t)nx * nu;
  double *Mp = M + (size_t)nu * nu, *X = Mp + (size_t)nu * nu;
  lth_status st = eval_B(R->spec, R->spec->t1, B1, err);
  if (st != LTH_OK) return st;
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nx, nu, nx, 1.0, C, nx, B1, nx, 0.0, CB,
              nx);
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, nu, nu, nx, 1.0, B1, nx, CB, nx, 0.0, M, nu);
  svd_t sM;
  st = svd(M, nu, nu, 1e-12, &sM, err);
  if (st != LTH_OK) return st;
  /* Mp = M^+ ; X = M^+ (C B1)' (nu x nx);  Jt = -B1 X;  Ceff = C - C B1 X */
  for (int j = 0; j < nu; j++)
    for (int i = 0; i < nu; i++) {
      double v = 0.0;
      for (int k = 0; k < sM.rank; k++)
        v += sM.V[i + (size_t)k * nu] * sM.U[j + (size_t)k * nu] / sM.sv[k];
      Mp[i + (size_t)j * nu] = v;
    }
  svd_free(&sM);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, nu, nx, nu, 1.0, Mp, nu, CB, nx, 0.0, X, nu);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nx, nx, nu, -1.0, B1, nx, X, nu, 0.0,
              R->Jt, nx);
  memcpy(R->Ceff, C, sizeof(double) * (size_t)nx * nx);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nx, nx, nu, -1.0, CB, nx, X, nu, 1.0,
              R->Ceff, nx);
  return LTH_OK;
}

static int finite_vec(const double *x, int n) {
  for (int i = 0; i < n; i++) {
    if (!isfinite(x[i])) return 0;
  }
  return 1;
}

/* Trajectories z_k = Phi_k c and the cost 1/2 x(t0)' lambda(t0); a value that
 * is not finite is an error naming its time. */
static lth_status trajectories(const lqr_run *R, const double *c, lth_lqr_result *res,
                               lth_error *err) {
  int nx = R->nx, nu = R->nu, s = R->s, p = R->p;
  double z[s > 0 ? s : 1];
  for (size_t k = 0; k < res->n; k++) {
    const double *Phi = R->fm->Phi + R->idx[k] * (size_t)s * p;
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, Phi, s, c, 1, 0.0, z, 1);
    memcpy(res->x + k * (size_t)nx, z, (size_t)nx * sizeof(double));
    memcpy(res->lambda + k * (size_t)nx, z + nx, (size_t)nx * sizeof(double));
    memcpy(res->u + k * (size_t)nu, z + 2 * nx, (size_t)nu * sizeof(double));
    if (!finite_vec(z, s)) {
      return lth_error_set_t(err, LTH_ENOTFINITE, res->times[k],
                             "the LQR solution (x, lambda, u) is not finite (overflow)");
    }
  }
  cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, R->fm->Phi, s, c, 1, 0.0, z, 1);
  res->cost = 0.5 * cblas_ddot(nx, z, 1, z + nx, 1);
  res->have_trajectory = 1;
  /* the terminal jump from x(t1) */
  const double *Phi1 = R->fm->Phi + (R->nall - 1) * (size_t)s * p;
  cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, Phi1, s, c, 1, 0.0, z, 1);
  cblas_dgemv(CblasColMajor, CblasNoTrans, nx, nx, 1.0, R->Jt, nx, z, 1, 0.0, res->terminal_jump,
              1);
  double nj = cblas_dnrm2(nx, res->terminal_jump, 1), nx1 = cblas_dnrm2(nx, z, 1);
  res->terminal_impulse = nj > 1e-8 * fmax(nx1, 1e-300);
  if (res->terminal_impulse) res->exists = 0;
  if (!isfinite(res->cost) || !finite_vec(res->terminal_jump, nx)) {
    return lth_error_set_t(err, LTH_ENOTFINITE, isfinite(res->cost) ? R->spec->t1 : R->spec->t0,
                           "the LQR %s is not finite",
                           isfinite(res->cost) ? "terminal jump" : "cost");
  }
  return LTH_OK;
}

/* Inconsistent x0: the optimum jumps at t0 onto the smooth optimal manifold
 * {X Phi(t0) c : T c = 0} (T: the terminal rows of W) through an impulse of
 * the control, i.e. along range(B(t0)); among the states reachable that way,
 * the one of least cost.  If none is reachable, the orthogonally nearest
 * consistent state is reported and no trajectory. */
static lth_status nearest_consistent(lqr_run *R, lth_lqr_result *res, double *c, lth_error *err) {
  int nx = R->nx, nu = R->nu, p = R->p, rows = 2 * nx;
  const double *x0 = R->spec->x0;
  double *T =
      malloc(sizeof(double) * ((size_t)nx * p * 4 + (size_t)nx * nu + (size_t)8 * p + 4 * nx + 8));
  if (!T) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *Y = T + (size_t)nx * p, *L0 = Y + (size_t)nx * p, *PY = L0 + (size_t)nx * p;
  double *Bm = PY + (size_t)nx * p, *d = Bm + (size_t)nx * nu, *rhs = d + 2 * p + 2;
  double *tmp = rhs + 2 * nx + 2;
  for (int j = 0; j < p; j++)
    for (int i = 0; i < nx; i++) T[i + (size_t)j * nx] = R->W[nx + i + (size_t)j * rows];
  svd_t sT = {0}, sB = {0}, sC = {0};
  lth_status st = svd(T, nx, p, R->rank_tol, &sT, err);
  int kn = 0;
  const double *N = st == LTH_OK ? svd_null(&sT, &kn) : NULL;
  /* Y = X Phi(t0) N, L0 = Lambda Phi(t0) N: the manifold and its costate */
  const double *Phi0 = R->fm->Phi;
  for (int j = 0; st == LTH_OK && j < kn; j++) {
    for (int i = 0; i < nx; i++) {
      double y = 0, l = 0;
      for (int q = 0; q < p; q++) {
        y += Phi0[i + (size_t)q * R->s] * N[q + (size_t)j * p];
        l += Phi0[nx + i + (size_t)q * R->s] * N[q + (size_t)j * p];
      }
      Y[i + (size_t)j * nx] = y;
      L0[i + (size_t)j * nx] = l;
    }
  }
  /* (I - B B^+) (Y d - x0) = 0 */
  if (st == LTH_OK) st = eval_B(R->spec, R->spec->t0, Bm, err);
  if (st == LTH_OK) st = svd(Bm, nx, nu, 1e-12, &sB, err);
  if (st == LTH_OK) {
    memcpy(PY, Y, sizeof(double) * (size_t)nx * kn);
    memcpy(rhs, x0, sizeof(double) * (size_t)nx);
    for (int i = 0; i < sB.rank; i++) { /* remove the range(B) components */
      const double *ub = sB.U + (size_t)i * nx;
      for (int j = 0; j < kn; j++) {
        double a = cblas_ddot(nx, ub, 1, PY + (size_t)j * nx, 1);
        cblas_daxpy(nx, -a, ub, 1, PY + (size_t)j * nx, 1);
      }
      cblas_daxpy(nx, -cblas_ddot(nx, ub, 1, rhs, 1), ub, 1, rhs, 1);
    }
    st = svd(PY, nx, kn, R->rank_tol, &sC, err);
  }
  if (st == LTH_OK) {
    svd_solve(&sC, rhs, d);
    cblas_dgemv(CblasColMajor, CblasNoTrans, nx, kn, 1.0, PY, nx, d, 1, 0.0, tmp, 1);
    cblas_daxpy(nx, -1.0, rhs, 1, tmp, 1);
    double scale = fmax(cblas_dnrm2(nx, x0, 1), 1e-300);
    res->jump_in_range_B = cblas_dnrm2(nx, tmp, 1) <= 1e-8 * scale;
    int kz = 0;
    const double *Z = svd_null(&sC, &kz);
    if (res->jump_in_range_B && kz > 0) {
      /* several reachable states: least cost J(d) = 1/2 (Y d)' (L0 d) over d = d + Z e */
      double *M = calloc((size_t)kn * kn + (size_t)kz * kz + 4 * (size_t)kn + 4, sizeof(double));
      if (M) {
        double *ZMZ = M + (size_t)kn * kn, *g = ZMZ + (size_t)kz * kz, *e = g + kn + 1;
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, kn, kn, nx, 0.5, Y, nx, L0, nx, 0.0, M,
                    kn);
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, kn, kn, nx, 0.5, L0, nx, Y, nx, 1.0, M,
                    kn);
        double *MZ = malloc(sizeof(double) * ((size_t)kn * kz + 1));
        if (MZ) {
          cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, kn, kz, kn, 1.0, M, kn, Z, kn, 0.0,
                      MZ, kn);
          cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, kz, kz, kn, 1.0, Z, kn, MZ, kn, 0.0,
                      ZMZ, kz);
          cblas_dgemv(CblasColMajor, CblasTrans, kn, kz, -1.0, MZ, kn, d, 1, 0.0, g, 1);
          svd_t sZ;
          if (svd(ZMZ, kz, kz, 1e-12, &sZ, NULL) == LTH_OK) {
            svd_solve(&sZ, g, e);
            cblas_dgemv(CblasColMajor, CblasNoTrans, kn, kz, 1.0, Z, kn, e, 1, 1.0, d, 1);
            svd_free(&sZ);
          }
          free(MZ);
        }
        free(M);
      }
    } else if (!res->jump_in_range_B) {
      /* not reachable by an impulse: the orthogonally nearest consistent state */
      svd_t sY;
      st = svd(Y, nx, kn, R->rank_tol, &sY, err);
      if (st == LTH_OK) {
        svd_solve(&sY, x0, d);
        svd_free(&sY);
      }
    }
  }
  if (st == LTH_OK) {
    for (int q = 0; q < p; q++) c[q] = 0.0;
    for (int j = 0; j < kn; j++) cblas_daxpy(p, d[j], N + (size_t)j * p, 1, c, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, nx, kn, 1.0, Y, nx, d, 1, 0.0, res->x0_consistent, 1);
    for (int i = 0; i < nx; i++) res->jump[i] = res->x0_consistent[i] - x0[i];
  }
  svd_free(&sT);
  svd_free(&sB);
  svd_free(&sC);
  free(T);
  return st;
}

/* Closed-loop gain K = u rows of G, and Theorem 4 (P_1' = P_2), at the output times. */
static lth_status gain_and_theorem4(lqr_run *R, const lth_lqr_opts *o, lth_lqr_result *res,
                                    lth_error *err) {
  LTH_ERROR_RECORD(err);
  int nx = R->nx, nu = R->nu, m = 2 * nx;
  lth_decomp_ws *ws = lth_decomp_ws_alloc(R->sys, 0, err);
  lth_point *pt = ws ? lth_point_alloc(R->sys, 0, err) : NULL;
  lth_status st = pt ? LTH_OK : (lth_error_status(err));
  if (st == LTH_OK && o->cond_max > 0) lth_decomp_ws_set_cond_max(ws, o->cond_max);
  for (size_t k = 0; k < res->n && st == LTH_OK; k++) {
    st = lth_decomp_at(ws, res->times[k], pt, err);
    if (st != LTH_OK) break;
    double *K = res->gain + k * (size_t)nu * m;
    for (int j = 0; j < m; j++)
      for (int i = 0; i < nu; i++) K[i + (size_t)j * nu] = LTH_JET_AT(&pt->G, 0, m + i, j);
    double dev = 0.0, scale = 1.0;
    for (int i = 0; i < nx; i++)
      for (int j = 0; j < nx; j++) {
        double p1t = LTH_JET_AT(&pt->P, 0, j, i), p2 = LTH_JET_AT(&pt->P, 0, nx + i, nx + j);
        dev = fmax(dev, fabs(p1t - p2));
        scale = fmax(scale, fabs(p2));
      }
    res->theorem4 = fmax(res->theorem4, dev / scale);
    if (o->progress) o->progress(o->progress_ctx, k + 1, res->n);
  }
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  return st;
}

static lth_status check_spec(const lth_lqr_spec *spec, const double *times, size_t n,
                             lth_error *err) {
  if (!spec || !spec->C || !spec->x0 || !(spec->t0 < spec->t1)) {
    return lth_error_set(err, LTH_EINVAL, "LQR problem needs t0 < t1, C and x0");
  }
  for (size_t k = 0; k < n; k++) {
    if (!(times[k] >= spec->t0 && times[k] <= spec->t1)) {
      return lth_error_set_t(err, LTH_ERANGE, times[k], "output time outside [%g, %g]", spec->t0,
                             spec->t1);
    }
  }
  return LTH_OK;
}

/* W's columns come from Psi(t, t0): when the fundamental solution spreads
 * its columns by more than 1 / rank_tol between t0 and t1 (modes e^{+-T} on
 * a long horizon), a small singular value of W says nothing about its rank.
 * "Not unique" (and the "no smooth optimum" that a truncated least-squares
 * solve then implies) would be a guess: refuse it, naming the spread. */
static lth_status judge_rank(lqr_run *R, const lth_lqr_result *res, lth_error *err) {
  const double *Phi1 = R->fm->Phi + (R->nall - 1) * (size_t)R->s * R->p;
  svd_t sP;
  lth_status st = svd(Phi1, R->s, R->p, R->rank_tol, &sP, err);
  if (st != LTH_OK) return st;
  double spread = sP.sv[R->p - 1] > 0 ? sP.sv[0] / sP.sv[R->p - 1] : INFINITY;
  svd_free(&sP);
  if (spread * R->rank_tol <= 1.0) return LTH_OK;
  char how[64];
  if (isfinite(spread) && spread < 1e300)
    snprintf(how, sizeof how, "by %.3g", spread);
  else
    snprintf(how, sizeof how, "beyond working precision");
  return lth_error_set_t(err, LTH_ECOND, R->spec->t1,
                         "the shooting path cannot decide whether the optimum is unique: W has "
                         "condition %.3g, but the fundamental solution's columns spread %s "
                         "over [%g, %g], so a small singular value of W may be growth, not "
                         "rank; solve by collocation (opts.method = LTH_LQR_COLLOCATION), which "
                         "never forms Psi(t1, t0)",
                         res->cond_W, how, R->spec->t0, R->spec->t1);
}

/* Theorem 5 from the SVD of W: least squares, existence, uniqueness. */
static lth_status theorem5(lqr_run *R, const lth_lqr_opts *o, lth_lqr_result *res, double *c,
                           lth_error *err) {
  int nx = R->nx, p = R->p, rows = 2 * nx;
  double rhs[2 * nx], r[2 * nx];
  memcpy(rhs, R->spec->x0, sizeof(double) * (size_t)nx);
  memset(rhs + nx, 0, sizeof(double) * (size_t)nx);
  svd_t sW;
  lth_status st = svd(R->W, rows, p, R->rank_tol, &sW, err);
  if (st != LTH_OK) return st;
  svd_solve(&sW, rhs, c);
  memcpy(r, rhs, sizeof r);
  cblas_dgemv(CblasColMajor, CblasNoTrans, rows, p, 1.0, R->W, rows, c, 1, -1.0, r, 1);
  double nx0 = cblas_dnrm2(nx, R->spec->x0, 1);
  res->residual = nx0 > 0 ? cblas_dnrm2(rows, r, 1) / nx0 : 0.0;
  double tol = o->tol > 0 ? o->tol : 100.0 * (o->ivp.rtol > 0 ? o->ivp.rtol : LTH_DEFAULT_RTOL);
  res->exists = res->residual <= tol;
  res->unique = sW.rank == p;
  res->cond_W = (p > 0 && sW.sv[p - 1] > 0) ? sW.sv[0] / sW.sv[p - 1] : INFINITY;
  svd_free(&sW);
  return res->unique ? LTH_OK : judge_rank(R, res, err);
}

static lth_status solve_formed(const lth_lqr_spec *spec, const double *times, size_t n,
                               const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err) {
  lth_lqr_opts o;
  if (opts)
    o = *opts;
  else
    lth_lqr_opts_init(&o);
  lth_status st = check_spec(spec, times, n, err);
  if (st != LTH_OK) return st;
  lqr_run R;
  memset(&R, 0, sizeof R);
  R.spec = spec;
  R.nx = spec->nx;
  R.nu = spec->nu;
  R.rank_tol = 1e-8;
  lth_lqr_result *res = NULL;
  double *c = NULL;
  st = lth_lqr_build_system(spec, &R.sys, err);
  /* B'HB invertible everywhere (also between the integrator's times), then
   * H and C positive semidefinite: the order of the theory's assumptions */
  if (st == LTH_OK) {
    lth_ivp_opts so = o.ivp;
    so.cond_max = o.cond_max;
    st = lth_ivp_prescan(R.sys, spec->t0, spec->t1, &so, NULL, err);
    if (st == LTH_ESING || st == LTH_ECOND) {
      lth_error_prefix(err, "B'H B (= -Pi) must be invertible on the interval: ");
    }
    o.ivp.pi_scan = -1;
  }
  if (st == LTH_OK) st = lth_lqr_check_data(spec, times, n, err);
  if (o.method == LTH_LQR_COLLOCATION || st != LTH_OK) {
    /* the data's requirements are checked for both paths */
    run_free(&R);
    return st == LTH_OK ? lth_lqr_colloc(spec, times, n, &o, out, err) : st;
  }
  if (st == LTH_OK) {
    R.s = lth_system_size(R.sys);
    R.p = lth_system_manifold_dim(R.sys);
    res = result_alloc(R.nx, R.nu, n, times);
    R.idx = malloc((n + 1) * sizeof(size_t));
    R.W = malloc(sizeof(double) * ((size_t)2 * R.nx * R.p + 1));
    c = calloc((size_t)R.p + 1, sizeof(double));
    st = (res && R.idx && R.W && c)
             ? lth_time_union(spec->t0, spec->t1, times, n, &R.all, &R.nall, R.idx, err)
             : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) {
    lth_ivp_opts io = o.ivp;
    io.cond_max = o.cond_max;
    st = lth_ivp_fundamental(R.sys, spec->t0, R.all, R.nall, &io, &R.fm, err);
    if (st == LTH_ESING || st == LTH_ECOND) {
      lth_error_prefix(err, "B'H B (= -Pi) must be invertible on the interval: ");
    }
  }
  if (st == LTH_OK) st = terminal_weight(&R, err);
  if (st == LTH_OK) {
    res->drift = R.fm->drift;
    build_W(&R);
    st = theorem5(&R, &o, res, c, err);
  }
  if (st == LTH_OK) {
    if (res->exists) {
      memcpy(res->x0_consistent, spec->x0, sizeof(double) * (size_t)R.nx);
      res->jump_in_range_B = 1; /* no jump at t0: trivially in range(B) */
      st = trajectories(&R, c, res, err);
    } else {
      st = nearest_consistent(&R, res, c, err);
      if (st == LTH_OK && res->jump_in_range_B) st = trajectories(&R, c, res, err);
    }
  }
  if (st == LTH_OK) st = gain_and_theorem4(&R, &o, res, err);
  free(c);
  run_free(&R);
  if (st != LTH_OK) {
    lth_lqr_result_free(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}

lth_status lth_lqr_solve(const lth_lqr_spec *spec, const double *times, size_t n,
                         const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err) {
  *out = NULL;
  if (!spec || spec->C) return solve_formed(spec, times, n, opts, out, err);
  /* C from C_src (or zero): the dense path forms it */
  lth_lqr_spec sp = *spec;
  double *own = NULL;
  lth_status st = lth_lqr_dense_C(spec, &sp.C, &own, err);
  if (st == LTH_OK) st = solve_formed(&sp, times, n, opts, out, err);
  free(own);
  return st;
}

/* The result holder, for lib/lqr/lqr_colloc.c. */
lth_lqr_result *lth_lqr_result_new(int nx, int nu, size_t n, const double *times) {
  return result_alloc(nx, nu, n, times);
}
