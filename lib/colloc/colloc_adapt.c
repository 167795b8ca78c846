/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Mesh adaptation and error estimation for collocation (lib/colloc/colloc.h).
 *
 * Every iteration solves on a mesh pi and on its halving pi/2 (as COLSYS /
 * COLDAE do).  At the mesh points of pi both solutions converge with order 2s
 * and the finer one is 2^{2s} times more accurate, so ||z_pi - z_{pi/2}|| is
 * the error of z_pi to within a factor 1 + 2^{-2s}: the coarse solution is the
 * one returned, with that difference as its error estimate (never the fine
 * solution with a guessed Richardson factor, which would claim an accuracy
 * that nothing has measured).  At an output time t_k < t < t_{k+1} the coarse
 * solution is one Gauss step of length tau h_k from t_k (order 2s as well);
 * its estimate is the difference at t_k carried through that step plus the
 * step's own local error, taken as tau^{2s+1} times the (signed) local error
 * of the full step k (lth_cmesh_eval_est): no second evaluation on the fine
 * mesh, and no overestimate where the two parts cancel.
 *
 * The next mesh equidistributes the local error per unit step: from the fine
 * solution at t_k, one coarse step against two fine steps gives the local
 * error le_k ~ phi_k h_k^{2s+1} of interval k, and an interval is cut into
 * n_k = ceil((le_k L / (theta tol h_k))^{1/(2s)}) pieces (at most 16 at once),
 * so that the local errors add up to a fraction theta of the tolerance.
 * theta = 0.5 / A, where A = (global estimate) / (sum of the local errors)
 * is the amplification of local errors this problem showed on the last mesh
 * (e.g. ~ cond_bvp for an oscillator over many periods), kept in [1e-3, 0.5];
 * it shrinks further when the global estimate misses the tolerance although
 * every local one met its share.  Intervals cut in two reuse the fine mesh's
 * work, intervals kept the coarse mesh's; when cutting would overshoot the
 * continuous prediction sum_k n_k by more than 30 % (a near miss would
 * double every interval), the new mesh equidistributes n_k / h_k instead.
 */
#include <float.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cblas.h>

#include "pieces.h"
#include "colloc.h"
#include "lth/defaults.h"
#include "core/errors.h"

#define MAX_ITER  40
#define MAX_SPLIT 16
#define THETA0    0.5

lth_cmesh *lth_cmesh_uniform(size_t N, double t0, double t1, int s, int m, int p, lth_error *err) {
  lth_cmesh *M = lth_cmesh_alloc(N, s, m, p, err);
  if (!M) return NULL;
  for (size_t k = 0; k <= N; k++) M->t[k] = t0 + (t1 - t0) * (double)k / (double)N;
  M->t[N] = t1;
  return M;
}

/* Every interval cut in two at its middle; an interval inside the piece
 * around a non-smooth point (lib/colloc/pieces.h) at a sixth of its width
 * instead: the piece was widened by its core's width on both sides of the
 * core that holds the point, and its middle can be the point itself (a
 * bisection point of the scan), where the data have no derivatives. */
static lth_cmesh *halve(const lth_cmesh *C, const lth_pieces *pc, lth_error *err) {
  lth_cmesh *M = lth_cmesh_alloc(2 * C->N, C->s, C->m, C->p, err);
  if (!M) return NULL;
  for (size_t k = 0; k < C->N; k++) {
    double a = C->t[k], h = C->t[k + 1] - a;
    M->t[2 * k] = a;
    M->t[2 * k + 1] = a + (lth_pieces_at_point(pc, a, C->t[k + 1]) ? h / 6.0 : 0.5 * h);
  }
  M->t[2 * C->N] = C->t[C->N];
  return M;
}

/* Interval k of C cut into nk[k] pieces; halves take the fine mesh's midpoint.
 * An interval inside the piece around a non-smooth point is cut at most in
 * two, at the fine mesh's point (see halve). */
static lth_cmesh *refine(const lth_cmesh *C, const lth_cmesh *Fm, const int *nk, size_t Nnew,
                         const lth_pieces *pc, lth_error *err) {
  lth_cmesh *M = lth_cmesh_alloc(Nnew, C->s, C->m, C->p, err);
  if (!M) return NULL;
  size_t j = 0;
  for (size_t k = 0; k < C->N; k++) {
    double a = C->t[k], h = C->t[k + 1] - a;
    M->t[j++] = a;
    if (nk[k] == 2 || (nk[k] > 2 && lth_pieces_at_point(pc, a, C->t[k + 1]))) {
      M->t[j++] = Fm->t[2 * k + 1];
    } else {
      for (int i = 1; i < nk[k]; i++) M->t[j++] = a + h * i / nk[k];
    }
  }
  M->t[j] = C->t[C->N];
  M->N = j; /* fewer than Nnew when a cut was limited */
  return M;
}

/* ||GW_k y||_inf for a mesh point's data. */
static double znorm(const lth_cmesh *M, size_t k, const double *y, double *tmp) {
  int s = M->s, p = M->p;
  cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, M->GW + k * (size_t)s * p, s, y, 1, 0.0, tmp,
              1);
  double mx = 0.0;
  for (int i = 0; i < s; i++) mx = fmax(mx, fabs(tmp[i]));
  return mx;
}

static double bnorm_inf(const lth_colloc_bc *bc, int s) {
  double n0 = 0.0, n1 = 0.0;
  for (int i = 0; i < bc->rows; i++) {
    double r0 = 0.0, r1 = 0.0;
    for (int j = 0; j < s; j++) {
      r0 += fabs(bc->B0[i + (size_t)j * bc->rows]);
      r1 += fabs(bc->B1[i + (size_t)j * bc->rows]);
    }
    n0 = fmax(n0, r0);
    n1 = fmax(n1, r1);
  }
  return n0 + n1;
}

/* Scale of z, cond_bvp (from the homogeneous solutions of the fine mesh),
 * error at the coarse mesh points and local errors of the coarse steps. */
typedef struct {
  double zscale, cond_bvp, est_mesh;
  double est_table; /* the coefficient table's share of the error (0 without a table) */
  double *le;       /* N of the coarse mesh: ||lev_k||_inf */
  double *lev;      /* N blocks s: the local error of coarse step k as an error of z(t_{k+1}) */
} compare_t;

static void compare(const lth_cmesh *C, const lth_cmesh *Fm, const lth_colloc_bc *bc, double *tmp,
                    compare_t *c) {
  int s = C->s, p = C->p, nb = Fm->nh;
  size_t pp = (size_t)p * p;
  c->zscale = 0.0;
  c->cond_bvp = 0.0;
  for (size_t k = 0; k <= Fm->N; k++) {
    double *z = tmp;
    memcpy(z, Fm->q + k * s, sizeof(double) * s);
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, Fm->GW + k * (size_t)s * p, s,
                Fm->y + k * (size_t)p, 1, 1.0, z, 1);
    for (int i = 0; i < s; i++) c->zscale = fmax(c->zscale, fabs(z[i]));
    if (nb > 0) { /* ||GW_k Y_k||_inf: row sums of |Z_k| */
      double *Z = tmp + s;
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, s, nb, p, 1.0,
                  Fm->GW + k * (size_t)s * p, s, Fm->Y + k * (size_t)p * nb, p, 0.0, Z, s);
      for (int i = 0; i < s; i++) {
        double r = 0.0;
        for (int j = 0; j < nb; j++) r += fabs(Z[i + (size_t)j * s]);
        c->cond_bvp = fmax(c->cond_bvp, r);
      }
    }
  }
  c->cond_bvp *= bnorm_inf(bc, s);
  c->est_mesh = 0.0;
  double *dy = tmp + s + (size_t)s * (nb > 0 ? nb : 1);
  for (size_t k = 0; k <= C->N; k++) {
    for (int i = 0; i < p; i++) dy[i] = C->y[k * p + i] - Fm->y[2 * k * p + i];
    c->est_mesh = fmax(c->est_mesh, znorm(C, k, dy, tmp));
    if (k == C->N) break;
    /* one coarse step from the fine solution at t_k, against the fine solution at t_{k+1} */
    memcpy(dy, C->f + k * (size_t)p, sizeof(double) * p);
    cblas_dgemv(CblasColMajor, CblasNoTrans, p, p, 1.0, C->F + k * pp, p, Fm->y + 2 * k * p, 1, 1.0,
                dy, 1);
    cblas_daxpy(p, -1.0, Fm->y + (2 * k + 2) * p, 1, dy, 1);
    c->le[k] = znorm(C, k + 1, dy, tmp);
    memcpy(c->lev + k * (size_t)s, tmp, sizeof(double) * s);
  }
  /* the coefficient table's share: both meshes read the same table, so their
   * difference cannot see it; lth_cmesh_solve computed the solution's
   * response to the perturbations the table made (twice that, as the
   * perturbation is sampled at the mesh points only) */
  c->est_table = 2.0 * C->table_err;
}

/* n_k from the local errors (error per unit step), theta adapted; nreal[k]:
 * the same before rounding up (at least 1/2: an interval may double). */
static size_t split_counts(const lth_cmesh *C, const compare_t *c, double tol_abs, int s,
                           double *theta, int *nk, double *nreal) {
  double L = C->t[C->N] - C->t[0];
  for (int pass = 0; pass < 2; pass++) {
    size_t Nnew = 0, kmax = 0;
    int any = 0;
    for (size_t k = 0; k < C->N; k++) {
      double h = C->t[k + 1] - C->t[k], rho = c->le[k] * L / (*theta * tol_abs * h);
      double x = pow(rho, 1.0 / (2.0 * s));
      nreal[k] = fmin(fmax(x, 0.5), MAX_SPLIT);
      int n = 1;
      if (rho > 1.0) {
        n = x > MAX_SPLIT ? MAX_SPLIT : (x < 2 ? 2 : (int)ceil(x));
        any = 1;
      }
      nk[k] = n > nk[k] ? n : nk[k];
      Nnew += (size_t)nk[k];
      if (c->le[k] > c->le[kmax]) kmax = k;
    }
    if (any || pass == 1) {
      if (!any && nk[kmax] < 2) { /* nothing to gain locally: cut the worst interval anyway */
        Nnew += (size_t)(2 - nk[kmax]);
        nk[kmax] = 2;
        nreal[kmax] = fmax(nreal[kmax], 2.0);
      }
      return Nnew;
    }
    /* every local error met its share, the global one did not: amplification */
    *theta *= fmax(0.01, 0.5 * tol_abs / fmax(c->est_mesh, DBL_MIN));
  }
  return 0; /* not reached */
}

/* A new mesh of Nnew intervals equidistributing the density nreal[k] / h_k
 * (used instead of cutting intervals when cutting would overshoot, e.g. a
 * near miss that would otherwise double every interval). */
static lth_cmesh *redistribute(const lth_cmesh *C, const double *nreal, size_t Nnew,
                               lth_error *err) {
  lth_cmesh *M = lth_cmesh_alloc(Nnew, C->s, C->m, C->p, err);
  if (!M) return NULL;
  double total = 0.0;
  for (size_t k = 0; k < C->N; k++) total += nreal[k];
  size_t k = 0;
  double below = 0.0; /* sum of nreal over intervals before k */
  M->t[0] = C->t[0];
  for (size_t i = 1; i < Nnew; i++) {
    double target = total * (double)i / (double)Nnew;
    while (k + 1 < C->N && below + nreal[k] <= target) below += nreal[k++];
    double frac = fmin(fmax((target - below) / nreal[k], 0.0), 1.0);
    M->t[i] = C->t[k] + frac * (C->t[k + 1] - C->t[k]);
  }
  M->t[Nnew] = C->t[C->N];
  return M;
}

/* The pieces of [t0, t1] on which the data are resolved by degree 2s - 1 to
 * tol, and the points where they are not smooth (lib/colloc/pieces.h): every
 * mesh keeps the pieces' ends as mesh points, so each interval lies in one
 * piece and no pulse, kink or jump of the data hides between the Gauss points
 * of both meshes (a kink between mesh points gave an error of 2.4e-8 with an
 * estimate of 5.7e-16: the coarse and the halved mesh saw the same smooth data
 * on either side of it).  Degree 2s - 1 matches the method: the interpolation
 * remainder 2^(1-4s) h^(2s) |f^(2s)| / (2s)! is of the size of the local error
 * of an s-stage Gauss step on smooth data, so data that are smooth on the
 * meshes the method needs anyway are one piece and cost one enclosure. */
static lth_status data_pieces(lth_colloc_ctx *cx, double t0, double t1, int stages, double tol,
                              size_t maxN, lth_pieces *pc, lth_error *err) {
  LTH_ERROR_RECORD(err);
  int K = 2 * stages - 1;
  lth_enclose *enc = lth_enclose_alloc(lth_colloc_ctx_system(cx), K, err);
  if (!enc) return lth_error_status(err);
  lth_status st = lth_pieces_find(enc, t0, t1, K, tol, 0.0, maxN, pc, err);
  lth_enclose_free(enc);
  double *lohi = st == LTH_OK && pc->npoint > 0 ? malloc(2 * pc->npoint * sizeof *lohi) : NULL;
  if (st == LTH_OK && pc->npoint > 0 && !lohi) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  size_t n = 0;
  for (size_t k = 0; lohi && k < pc->n; k++) {
    if (pc->kind[k] != LTH_PIECE_POINT) continue;
    lohi[2 * n] = pc->t[k];
    lohi[2 * n++ + 1] = pc->t[k + 1];
  }
  if (st == LTH_OK) st = lth_colloc_ctx_set_points(cx, lohi, n, err);
  free(lohi);
  return st;
}

/* M with the pieces' ends merged in (M itself when there is one piece; M is
 * freed otherwise). */
static lth_cmesh *with_pieces(lth_cmesh *M, const lth_pieces *pc, lth_error *err) {
  if (!M || pc->n <= 1) return M;
  size_t n = 0;
  double *x = lth_pieces_merge(pc, M->t, M->N + 1, &n);
  lth_cmesh *R = x ? lth_cmesh_alloc(n - 1, M->s, M->m, M->p, err) : NULL;
  if (R) {
    memcpy(R->t, x, n * sizeof(double));
  } else if (!x) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  free(x);
  lth_cmesh_free(M);
  return R;
}

typedef struct {
  lth_cmesh *C, *F, *pC, *pF; /* coarse, fine, previous coarse and fine */
  double *buf, *nreal;
  int *nk;
} adapt_state;

static void state_free(adapt_state *a) {
  lth_cmesh_free(a->C);
  lth_cmesh_free(a->F);
  lth_cmesh_free(a->pC);
  lth_cmesh_free(a->pF);
  free(a->buf);
  free(a->nk);
  free(a->nreal);
}

/* The coarse solution at the output times with its error estimates. */
static lth_status outputs(lth_colloc_ctx *cx, adapt_state *a, const double *lev,
                          const double *times, size_t n, const lth_colloc_opts *co,
                          lth_colloc_out *out, double tol_abs, int *ok, lth_error *err) {
  int s = a->C->s, m = a->C->m;
  out->error_estimate = 0.0;
  out->drift = 0.0;
  *ok = 1;
  for (size_t j = 0; j < n; j++) {
    double dr = 0.0, e = 0.0;
    double *z = out->z + j * (size_t)s, *v = out->v ? out->v + j * (size_t)m : NULL;
    lth_status st = co->output_mode == LTH_COLLOC_STEP
                        ? lth_cmesh_eval_est(cx, a->C, a->F, lev, times[j], z, v, &dr, &e, err)
                        : lth_cmesh_eval(cx, a->C, times[j], co->output_mode, z, v, &dr, err);
    if (st == LTH_OK && co->output_mode != LTH_COLLOC_STEP) { /* the fine solution compared */
      st = lth_cmesh_eval(cx, a->F, times[j], co->output_mode, a->buf, NULL, NULL, err);
      for (int i = 0; st == LTH_OK && i < s; i++) e = fmax(e, fabs(z[i] - a->buf[i]));
    }
    if (st != LTH_OK) return st;
    out->error_estimate = fmax(out->error_estimate, e);
    out->drift = fmax(out->drift, dr);
    if (e > tol_abs) { /* refine the interval holding t_j */
      *ok = 0;
      size_t lo = 0, hi = a->C->N;
      while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->C->t[mid] <= times[j])
          lo = mid;
        else
          hi = mid;
      }
      a->nk[lo] = 2;
    }
  }
  return LTH_OK;
}

static lth_status refuse_singular(const lth_cmesh *M, lth_error *err) {
  char rows[160] = "";
  size_t len = 0;
  for (int i = 0; i < M->ndep && len + 16 < sizeof rows; i++) {
    len +=
        (size_t)snprintf(rows + len, sizeof rows - len, "%s%d", i ? ", " : "", M->dep_rows[i] + 1);
  }
  if (M->ndep == 1) {
    return lth_error_set(err, LTH_ENOTUNIQUE,
                         "the BVP is not uniquely solvable: boundary condition row %s fixes "
                         "nothing on the consistent manifold (it involves only what the "
                         "constraints determine)",
                         rows);
  }
  if (M->ndep > 1) {
    return lth_error_set(err, LTH_ENOTUNIQUE,
                         "the BVP is not uniquely solvable: on the consistent manifold the "
                         "boundary condition rows %s are dependent",
                         rows);
  }
  /* independent rows, singular through the dynamics (e.g. a condition where
   * the Green's function is unbounded in floating point) */
  lth_error_set(err, LTH_ENOTUNIQUE,
                "the BVP is not uniquely solvable: its discrete two-point matrix is numerically "
                "singular (cond_bvp ~ %.3e, beyond what double precision resolves)",
                M->rank_cond);
  if (err) {
    err->has_cond = 1;
    err->cond = M->rank_cond;
  }
  return LTH_ENOTUNIQUE;
}

static lth_status refuse_cond(double cond, double limit, double tol, lth_error *err) {
  lth_error_set(err, LTH_ENOTUNIQUE,
                "the BVP is too ill-conditioned for the tolerance: cond_bvp = %.3e > %.3e "
                "(= min(cond_max, tol / eps) for tol %.1e): rounding alone could change the "
                "answer by more than the tolerance",
                cond, limit, tol);
  if (err) {
    err->has_cond = 1;
    err->cond = cond;
  }
  return LTH_ENOTUNIQUE;
}

/* Intervals whose local step failed (basis lost, singular stages) on the
 * coarse or fine mesh must be cut; returns 1 if there are any. */
static int failed_steps(const adapt_state *a) {
  int any = 0;
  for (size_t k = 0; k < a->C->N; k++) {
    if (a->F->rc[2 * k] == 0.0 || a->F->rc[2 * k + 1] == 0.0) {
      a->nk[k] = 4;
      any = 1;
    } else if (a->C->rc[k] == 0.0) {
      a->nk[k] = 2;
      any = 1;
    }
  }
  return any;
}

/* After the table was dropped: the same mesh again, every interval decomposed
 * anew (nothing built with the table may be reused). */
static lth_status restart_direct(adapt_state *a, lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_cmesh *M = lth_cmesh_alloc(a->C->N, a->C->s, a->C->m, a->C->p, err);
  if (!M) return lth_error_status(err);
  memcpy(M->t, a->C->t, sizeof(double) * (a->C->N + 1));
  lth_cmesh_free(a->C);
  lth_cmesh_free(a->F);
  lth_cmesh_free(a->pC);
  lth_cmesh_free(a->pF);
  a->F = a->pC = a->pF = NULL;
  a->C = M;
  return LTH_OK;
}

/* Build and solve both meshes; *failed when some local step failed. */
static lth_status build_both(lth_colloc_ctx *cx, adapt_state *a, const lth_colloc_bc *bc,
                             const lth_colloc_opts *co, const lth_pieces *pc, int *failed,
                             lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_cmesh *oldC[2] = {a->pC, a->pF}, *oldF[3] = {a->pF, a->pC, a->C};
  lth_status st = lth_cmesh_build(cx, a->C, oldC, 2, err);
  if (st == LTH_OK) a->F = halve(a->C, pc, err);
  if (st == LTH_OK && !a->F) st = lth_error_status(err);
  if (st == LTH_OK) st = lth_cmesh_build(cx, a->F, oldF, 3, err);
  *failed = st == LTH_OK && failed_steps(a);
  const lth_cmesh *solved = a->C;
  if (st == LTH_OK && !*failed) st = lth_cmesh_solve(cx, a->C, bc, 0, co->rank_tol, err);
  if (st == LTH_OK && !*failed) {
    solved = a->F;
    st = lth_cmesh_solve(cx, a->F, bc, 1, co->rank_tol, err);
  }
  if (st == LTH_ENOTUNIQUE && !co->keep_singular) st = refuse_singular(solved, err);
  return st;
}

/* Progress as digits: how many of the tolerance's decades the estimate has
 * reached (all of them once the solution is accepted). */
static void report(const lth_colloc_opts *co, double est, double zscale, int done) {
  if (!co->progress) return;
  double want = ceil(-log10(co->tol)), got = floor(log10(fmax(1.0, zscale) / est));
  size_t total = want < 1 ? 1 : (size_t)want;
  size_t k = done || !(got > 0) ? (done ? total : 0) : (size_t)fmin(got, (double)total);
  if (!done && k == total) k = total - 1;
  co->progress(co->progress_ctx, k, total);
}

lth_status lth_colloc_adapt(lth_colloc_ctx *cx, const lth_colloc_bc *bc, double t0, double t1,
                            const double *times, size_t n, const lth_colloc_opts *co,
                            lth_colloc_out *out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  int s, m, p, stages = lth_colloc_ctx_tableau(cx)->s;
  lth_colloc_ctx_dims(cx, &s, &m, &p);
  size_t maxN = co->max_intervals ? co->max_intervals : LTH_DEFAULT_COLLOC_MAX_INTERVALS;
  size_t N0 = co->initial_intervals ? co->initial_intervals : LTH_DEFAULT_COLLOC_INITIAL;
  double cond_lim =
      fmin(co->cond_max > 0 ? co->cond_max : LTH_DEFAULT_COND_MAX, co->tol / DBL_EPSILON);
  adapt_state a = {0};
  compare_t c = {0};
  lth_pieces pc;
  lth_status st = data_pieces(cx, t0, t1, stages, co->tol, maxN, &pc, err);
  a.buf = malloc(sizeof(double) * (2 * (size_t)s + (size_t)s * bc->rows + (size_t)p + 8));
  if (st == LTH_OK) {
    a.C = a.buf ? lth_cmesh_uniform(N0 > maxN ? maxN : N0, t0, t1, s, m, p, err) : NULL;
    a.C = with_pieces(a.C, &pc, err);
    st = a.C ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK && a.C->N > maxN) {
    st = lth_error_set_t(err, LTH_ETOL, pc.t[pc.first < pc.n ? pc.first : 0],
                         "the tolerance %.1e cannot be reached within %zu intervals: the data "
                         "alone need %zu to be resolved (%s)",
                         co->tol, maxN, a.C->N, pc.what[0] ? pc.what : "pulses or kinks");
  }
  double theta = THETA0, best = INFINITY;
  int stall = 0;
  out->error_estimate = out->error_mesh = out->tol_abs = out->cond_bvp = NAN;
  out->drift = 0.0;
  out->iterations = 0;
  out->mesh = NULL;
  for (size_t it = 1; st == LTH_OK; it++) {
    out->iterations = it;
    free(a.nk);
    a.nk = calloc(a.C->N, sizeof(int));
    free(a.nreal);
    a.nreal = calloc(a.C->N, sizeof(double));
    free(c.le);
    c.le = calloc(a.C->N * ((size_t)s + 1), sizeof(double));
    c.lev = c.le + a.C->N;
    if (!a.nk || !a.nreal || !c.le) {
      st = lth_error_set(err, LTH_ENOMEM, "out of memory");
      break;
    }
    for (size_t k = 0; k < a.C->N; k++) a.nk[k] = 1;
    int failed = 0, redist = 0;
    st = build_both(cx, &a, bc, co, &pc, &failed, err);
    if (st != LTH_OK) break;
    double tol_abs = INFINITY;
    if (!failed && co->lsq_max > 0 && a.F->lsq_resid > co->lsq_max &&
        a.F->lsq_resid > 0.5 * a.C->lsq_resid) {
      /* rows > p: a residual that does not shrink with the mesh is no discretisation error */
      st = lth_error_set(err, LTH_ENOSOL,
                         "the boundary conditions are inconsistent on the solution manifold "
                         "(least-squares residual %.3e)",
                         a.F->lsq_resid);
      break;
    }
    if (!failed) {
      compare(a.C, a.F, bc, a.buf, &c);
      double prev_cond = out->cond_bvp; /* NaN at first */
      out->cond_bvp = c.cond_bvp;
      tol_abs = co->tol * fmax(1.0, c.zscale);
      if (c.est_table > 0.25 * tol_abs && lth_colloc_ctx_drop_table(cx)) {
        st = restart_direct(&a, err); /* the table is too coarse for this tolerance */
        continue;
      }
      c.est_mesh += c.est_table;
      out->error_mesh = c.est_mesh;
      out->tol_abs = tol_abs;
      report(co, c.est_mesh, c.zscale, 0);
      /* refuse once the estimate is confirmed (two meshes in a row) or resolved */
      if (c.cond_bvp > cond_lim &&
          (prev_cond > cond_lim || c.est_mesh <= 1e-3 * fmax(1.0, c.zscale))) {
        st = refuse_cond(c.cond_bvp, cond_lim, co->tol, err);
        break;
      }
      if (c.est_mesh <= tol_abs) {
        int ok = 0;
        st = outputs(cx, &a, c.lev, times, n, co, out, tol_abs - c.est_table, &ok, err);
        out->error_estimate += c.est_table;
        if (ok) report(co, c.est_mesh, c.zscale, 1);
        if (st != LTH_OK || ok) break; /* accepted: a.C is the solution */
      } else {
        double sum_le = 0.0;
        for (size_t k = 0; k < a.C->N; k++) sum_le += c.le[k];
        if (sum_le > 0.0) theta = fmin(theta, fmin(0.5, fmax(1e-3, 0.5 * sum_le / c.est_mesh)));
        (void)split_counts(a.C, &c, tol_abs, stages, &theta, a.nk, a.nreal);
        redist = 1;
      }
      stall = c.est_mesh > 0.5 * best ? stall + 1 : 0;
      best = fmin(best, c.est_mesh);
    }
    size_t Nnew = 0;
    for (size_t k = 0; k < a.C->N; k++) Nnew += (size_t)a.nk[k];
    double h_min = INFINITY;
    for (size_t k = 0; k < a.C->N; k++) h_min = fmin(h_min, a.C->t[k + 1] - a.C->t[k]);
    if (failed && h_min < 1e-12 * (t1 - t0)) {
      st = lth_error_set(err, LTH_ESING,
                         "collocation cannot resolve the problem: local steps fail on intervals "
                         "of length %.2e",
                         h_min);
    } else if (Nnew > maxN || stall >= 4 || it >= MAX_ITER) {
      st = lth_error_set(err, LTH_ETOL,
                         "the tolerance %.1e cannot be reached: error estimate %.3e (needed "
                         "%.3e) with %zu intervals; %s",
                         co->tol, c.est_mesh, tol_abs, a.C->N,
                         Nnew > maxN  ? "the next mesh would exceed max_intervals"
                         : stall >= 4 ? "the estimate stalls (rounding level of this problem)"
                                      : "too many mesh refinements");
      if (err) {
        err->has_cond = 1;
        err->cond = c.cond_bvp;
      }
    } else {
      /* cut intervals (their work is reused) unless that overshoots the
       * continuous prediction by more than 30 % */
      double Neq = 0.0;
      for (size_t k = 0; redist && k < a.C->N; k++) Neq += a.nreal[k];
      lth_cmesh *next =
          redist && (double)Nnew > 1.3 * Neq
              ? with_pieces(redistribute(a.C, a.nreal, (size_t)ceil(1.05 * Neq), err), &pc, err)
              : refine(a.C, a.F, a.nk, Nnew, &pc, err);
      if (!next) {
        st = lth_error_status(err);
        break;
      }
      lth_cmesh_free(a.pC);
      lth_cmesh_free(a.pF);
      a.pC = a.C;
      a.pF = a.F;
      a.C = next;
      a.F = NULL;
    }
  }
  out->decomps = lth_colloc_ctx_decomps(cx);
  if (st == LTH_OK) {
    out->mesh = a.C;
    a.C = NULL;
    if (n == 0) out->error_estimate = out->error_mesh;
  }
  free(c.le);
  state_free(&a);
  lth_pieces_release(&pc);
  return st;
}
