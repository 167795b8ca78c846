/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The smooth optimum of a large singular LQR problem on the operator path
 * (include/lth/lqr.h, lth_lqr_solve_op).
 *
 * Formulation.  The optimality BVP has 2 nx boundary rows, x(t0) = x0 and
 * lambda(t1) - C x(t1) = 0, on a solution manifold of dimension
 * p = 2 (nx - nu): 2 nu more rows than free constants.  The dense
 * collocation (lqr_colloc.c) eliminates the collocation equations into a
 * 2 nx x p reduced matrix and decides existence by its least-squares
 * residual (SVD); at nx ~ 10^5 nothing p x p can be formed.  Here the 2 nu
 * excess rows get 2 nu slack unknowns along the directions Clark's analysis
 * names (Theorem 5, docs/theory.md section 6): an impulse at t0 moves x0
 * along range(B(t0)), and B(t1)'(lambda(t1) - C x(t1)) = 0 holds on the
 * manifold whenever B(t1)'C = 0 (checked first), so the rows
 *     x(t0) - B(t0) s0 = x0,   lambda(t1) - C x(t1) - B(t1) s1 = 0
 * make one square sparse collocation system per mesh
 * (lth_bvp_solve_op_slack, KLU), the same structure as lth-bvp's.  Why this
 * one: (1) it is exact, not weighted: the smooth optimum exists iff s0 = 0
 * (then s1 = 0 too), and the jump B(t0) s0 is the impulse the dense path
 * reports; ||B(t0) s0|| is the residual of a point on the discrete manifold,
 * so ||B(t0) s0|| / ||x0|| bounds the dense path's least-squares residual
 * from above and the same tolerance (opts.tol, default 100 rtol) never
 * calls a smooth optimum existent that the dense path would not;
 * (2) the square system is nonsingular iff the rows and the impulse
 * directions fix the p free constants and s, so a non-injective W (no
 * unique optimum) is a singular factorization or a condition estimate
 * above cond_max, refused, never a pick; (3) it keeps KLU's fill at that
 * of the square BVP: the augmented least-squares system [0 K' M'; K 0 0;
 * M 0 -I] was tried and its zero diagonal made KLU's pivoting fill beyond
 * use (minutes at nx = 200), and SuiteSparseQR would need the collocation
 * rows weighted to hold them exactly, which spoils the residual's meaning.
 *
 * What the dense analysis answers is refused here with what was found: a
 * residual above the tolerance (x0 needs an impulse at t0), B(t1)'C != 0 (a
 * terminal impulse), a singular or ill-conditioned least-squares system (no
 * unique optimum).  H and C must be symmetric positive semidefinite:
 * symmetry is checked on the sparse pattern; diagonal dominance with a
 * nonnegative diagonal (Gershgorin's theorem) shows W >= 0 at no cost; when
 * it does not hold, a time-varying H of nx <= 2000 falls back to the dense
 * eigenvalue check (check_weights says why), other weights to the sparse
 * Cholesky test of lib/lqr/lqr_psd.c (CHOLMOD), which proves W >= -delta I
 * to rounding or refuses with a witness.  H(t) is checked where the dense
 * check samples it (h_times below).
 * Data that jump where the constraint 0 = B' lambda reaches them (the rows
 * of H and A' where B is not zero) need an impulse (lth_bvp_check_data
 * refuses them; jumps in the other rows pass); that check encloses the
 * sparse blocks on their patterns (O(nnz) per order), and constant data
 * (proven so by their enclosures) skip it.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "lqr_impl.h"
#include "lth/bvp.h"
#include "lth/defaults.h"
#include "lth/opdecomp.h"

/* Largest nx for which dense H or C are checked by their eigenvalues. */
#define DENSE_CHECK_MAX 2000

int lth_lqr_op_available(void) { return lth_bvp_op_available(); }

/* A constant-in-time or time-dependent matrix at t as CSC (values at t):
 * a sparse source keeps its pattern, a dense one (small nx only) its
 * nonzeros. */
typedef struct spm {
  int rows, cols, nnz;
  int *colptr, *rowind;
  double *val;
} spm;

static void spm_free(spm *S) {
  free(S->colptr);
  free(S->rowind);
  free(S->val);
  memset(S, 0, sizeof *S);
}

static lth_status spm_from_dense(spm *S, int rows, int cols, const double *a, lth_error *err) {
  size_t nz = 0;
  for (size_t k = 0; k < (size_t)rows * cols; k++) nz += a[k] != 0.0;
  S->rows = rows, S->cols = cols, S->nnz = (int)nz;
  S->colptr = malloc(sizeof(int) * ((size_t)cols + 1));
  S->rowind = malloc(sizeof(int) * (nz + 1));
  S->val = malloc(sizeof(double) * (nz + 1));
  if (!S->colptr || !S->rowind || !S->val) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  size_t q = 0;
  for (int j = 0; j < cols; j++) {
    S->colptr[j] = (int)q;
    for (int i = 0; i < rows; i++) {
      double v = a[i + (size_t)j * rows];
      if (v != 0.0) S->rowind[q] = i, S->val[q++] = v;
    }
  }
  S->colptr[cols] = (int)q;
  return LTH_OK;
}

static lth_status spm_at(spm *S, const lth_source *src, double t, lth_error *err) {
  int rows = lth_source_rows(src), cols = lth_source_cols(src);
  size_t wn = lth_source_work_size(src, 0);
  if (!lth_source_is_sparse(src)) {
    double *a = malloc(sizeof(double) * ((size_t)rows * cols + wn + 1));
    if (!a) return lth_error_set(err, LTH_ENOMEM, "out of memory");
    lth_jet J = lth_jet_wrap(a, rows, cols, rows, (size_t)rows * cols, 0);
    lth_status st = lth_source_fill(src, t, 0, &J, a + (size_t)rows * cols, err);
    if (st == LTH_OK) st = spm_from_dense(S, rows, cols, a, err);
    free(a);
    return st;
  }
  int nnz;
  const int *cp, *ri;
  lth_status st = lth_source_csc_pattern(src, &nnz, &cp, &ri, err);
  if (st != LTH_OK) return st;
  S->rows = rows, S->cols = cols, S->nnz = nnz;
  S->colptr = malloc(sizeof(int) * ((size_t)cols + 1));
  S->rowind = malloc(sizeof(int) * ((size_t)nnz + 1));
  S->val = malloc(sizeof(double) * ((size_t)nnz + wn + 1));
  if (!S->colptr || !S->rowind || !S->val) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  memcpy(S->colptr, cp, sizeof(int) * ((size_t)cols + 1));
  memcpy(S->rowind, ri, sizeof(int) * (size_t)nnz);
  return lth_source_fill_csc(src, t, 0, S->val, (size_t)(nnz ? nnz : 1), S->val + nnz, err);
}


/* Symmetric on the pattern: 0, or 1 with the row in *at and |a_ij - a_ji|,
 * max |a| in *x, *y. */
static int sym_pattern(const spm *S, int *at, double *x, double *y) {
  int n = S->cols;
  double mx = 0.0;
  for (int q = 0; q < S->nnz; q++) mx = fmax(mx, fabs(S->val[q]));
  for (int j = 0; j < n; j++) { /* (i, j) against (j, i), rows sorted */
    for (int q = S->colptr[j]; q < S->colptr[j + 1]; q++) {
      int i = S->rowind[q], lo = S->colptr[i], hi = S->colptr[i + 1];
      while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (S->rowind[mid] < j)
          lo = mid + 1;
        else
          hi = mid;
      }
      double other = lo < S->colptr[i + 1] && S->rowind[lo] == j ? S->val[lo] : 0.0;
      if (fabs(S->val[q] - other) > 1e-12 * mx) {
        *at = i, *x = fabs(S->val[q] - other), *y = mx;
        return 1;
      }
    }
  }
  return 0;
}

/* Positive semidefinite by Gershgorin: a_jj >= sum_{i != j} |a_ij| for a
 * symmetric matrix (column sums = row sums). */
static int dominant(const spm *S) {
  int n = S->cols;
  double mx = 0.0;
  for (int q = 0; q < S->nnz; q++) mx = fmax(mx, fabs(S->val[q]));
  for (int j = 0; j < n; j++) {
    double d = 0.0, off = 0.0;
    for (int q = S->colptr[j]; q < S->colptr[j + 1]; q++) {
      if (S->rowind[q] == j)
        d = S->val[q];
      else
        off += fabs(S->val[q]);
    }
    if (d < off * (1.0 + 4 * DBL_EPSILON * n) - 1e-14 * mx) return 0;
  }
  return 1;
}

/* One weight W (name "H" or "C") at t, symmetric (checked first) and
 * positive semidefinite: by diagonal dominance when it holds, else by the
 * sparse Cholesky test (lib/lqr/lqr_psd.c).  *more = 1 (and LTH_OK) when
 * neither is available and the dense eigenvalue check should decide. */
static lth_status psd_one(lth_psd_ctx *ctx, const spm *W, const char *name, int timed, double t,
                          int dense_ok, int *more, lth_error *err) {
  int at;
  double x, y;
  *more = 0;
  if (sym_pattern(W, &at, &x, &y)) {
    if (dense_ok) return *more = 1, LTH_OK;
    lth_status st = lth_error_set(err, LTH_EDATA,
                                  "%s must be symmetric, but |%s(%d,j) - %s(j,%d)| = %.3g (max "
                                  "|%s| = %.3g) for some j",
                                  name, name, at + 1, name, at + 1, x, name, y);
    if (timed && err) err->t = t, err->has_t = 1;
    return st;
  }
  if (!W->nnz || dominant(W)) return LTH_OK;
  if (dense_ok) return *more = 1, LTH_OK;
  int nx = W->cols;
  if (!lth_lqr_psd_available()) {
    lth_status st = lth_error_set(err, LTH_EDATA,
                                  "%s (nx = %d) is not shown positive semidefinite: it is not "
                                  "diagonally dominant, and this build has no SuiteSparse "
                                  "CHOLMOD, the sparse Cholesky test of a weight beyond nx = %d",
                                  name, nx, DENSE_CHECK_MAX);
    if (timed && err) err->t = t, err->has_t = 1;
    return st;
  }
  lth_psd_result r;
  lth_status st = lth_lqr_psd_test(ctx, nx, W->colptr, W->rowind, W->val, &r, err);
  if (st != LTH_OK || r.psd) return st;
  st = lth_error_set(err, LTH_EDATA,
                     "%s must be positive semidefinite, but it is indefinite (nx = %d): the "
                     "sparse Cholesky factorization of %s + delta I (delta = 4 nx eps ||%s||_1 = "
                     "%.3g) meets the pivot %.6g at row %d, and the vector x built from it has "
                     "the Rayleigh quotient x'%sx / x'x = %.6g%s",
                     name, nx, name, name, r.delta, r.pivot, r.column + 1, name, r.rayleigh,
                     r.rayleigh < 0 ? ", an upper bound on its smallest eigenvalue"
                                    : " (not negative beyond rounding: an eigenvalue lies "
                                      "within rounding of -delta or below)");
  if (timed && err) err->t = t, err->has_t = 1;
  return st;
}

/* Where H(t) is checked: once (at t0) when its enclosures prove it constant
 * on [t0, t1] (lth_lqr_proven_constant);
 * otherwise on the dense check's scan of [t0, t1] (LQR_H_SCAN_POINTS,
 * lib/lqr/lqr_check.c) and at the output times.  Between the points an H(t)
 * that dips below -delta for less than the spacing may go unseen. */
static double *h_times(const lth_lqr_spec *spec, const double *times, size_t n, size_t *nt,
                       int *constant) {
  *constant = lth_lqr_proven_constant(spec->H, spec->t0, spec->t1);
  size_t ns = *constant ? 1 : LQR_H_SCAN_POINTS + n;
  double *ts = malloc(sizeof(double) * (ns + 1));
  if (!ts) return NULL;
  *nt = ns;
  if (*constant) {
    ts[0] = spec->t0;
    return ts;
  }
  size_t k = 0;
  for (; k < LQR_H_SCAN_POINTS; k++) {
    ts[k] = k + 1 == LQR_H_SCAN_POINTS
                ? spec->t1
                : spec->t0 + (spec->t1 - spec->t0) * (double)k / (LQR_H_SCAN_POINTS - 1);
  }
  if (n) memcpy(ts + k, times, sizeof(double) * n);
  return ts;
}

/* H(t) and C: symmetric positive semidefinite (the header comment).  With
 * CHOLMOD, a constant weight is factored at every size (one sparse
 * factorization instead of the dense check's eigenvalues, at 1,025 points for
 * H: 35 s at nx = 1,200); a time-varying H of nx <= 2000 keeps the dense
 * check, which also refines the minima between its points. */
static lth_status check_weights(const lth_lqr_spec *spec, const double *times, size_t n,
                                const spm *C, lth_error *err) {
  int small = spec->nx <= DENSE_CHECK_MAX, chol = lth_lqr_psd_available(), more = 0, constant;
  lth_psd_ctx *ctx = lth_lqr_psd_new(); /* one analysis per pattern */
  if (!ctx) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  lth_status st = psd_one(ctx, C, "C", 0, spec->t0, small && !chol, &more, err);
  if (st == LTH_OK && more) st = lth_lqr_check_C(spec, err);
  size_t nt = 0;
  double *ts = st == LTH_OK ? h_times(spec, times, n, &nt, &constant) : NULL;
  if (st == LTH_OK && !ts) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  int dense_ok = small && !(chol && constant);
  for (size_t k = 0; st == LTH_OK && k < nt; k++) {
    spm H = {0};
    st = spm_at(&H, spec->H, ts[k], err);
    if (st == LTH_OK) st = psd_one(ctx, &H, "H", 1, ts[k], dense_ok, &more, err);
    spm_free(&H);
    if (st == LTH_OK && more) { /* the dense check decides, on all of [t0, t1] */
      st = lth_lqr_check_H(spec, times, n, err);
      break;
    }
  }
  free(ts);
  lth_lqr_psd_free(ctx);
  return st;
}

/* B(t1)' C = 0 (no terminal impulse), by the dense path's rule
 * ||B(t1)' C||_max <= 1e-14 nx ||B(t1)||_max ||C||_max. */
static lth_status terminal_smooth(const lth_lqr_spec *spec, const spm *C, lth_error *err) {
  int nx = spec->nx, nu = spec->nu;
  spm Bs = {0};
  lth_status st = spm_at(&Bs, spec->B, spec->t1, err);
  double *Bd = st == LTH_OK ? calloc((size_t)nx * nu + 1, sizeof(double)) : NULL;
  if (st == LTH_OK && !Bd) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  double nb = 0.0, nc = 0.0, nbc = 0.0;
  for (int u = 0; st == LTH_OK && u < nu; u++) {
    for (int q = Bs.colptr[u]; q < Bs.colptr[u + 1]; q++) {
      Bd[Bs.rowind[q] + (size_t)u * nx] = Bs.val[q];
      nb = fmax(nb, fabs(Bs.val[q]));
    }
  }
  for (int j = 0; st == LTH_OK && j < nx; j++) {
    for (int u = 0; u < nu; u++) {
      double s = 0.0;
      for (int q = C->colptr[j]; q < C->colptr[j + 1]; q++) {
        s += Bd[C->rowind[q] + (size_t)u * nx] * C->val[q];
        nc = fmax(nc, fabs(C->val[q]));
      }
      nbc = fmax(nbc, fabs(s));
    }
  }
  free(Bd);
  spm_free(&Bs);
  if (st == LTH_OK && !(nbc <= 1e-14 * nx * nb * nc)) {
    st = lth_error_set_t(err, LTH_ENOSOL, spec->t1,
                         "no smooth optimum: B(t1)' C != 0 (max entry %.3g), the optimum ends "
                         "with a terminal impulse",
                         nbc);
  }
  return st;
}

/* The boundary rows x(t0) = x0, lambda(t1) - C x(t1) = 0 as CSC (2 nx x s). */
typedef struct lqr_bc {
  int *cp0, *ri0, *cp1, *ri1;
  double *v0, *v1, *beta;
} lqr_bc;

static void bc_free(lqr_bc *b) {
  free(b->cp0), free(b->ri0), free(b->v0), free(b->cp1), free(b->ri1), free(b->v1), free(b->beta);
}

static lth_status bc_make(const lth_lqr_spec *spec, const spm *C, lqr_bc *b, lth_error *err) {
  int nx = spec->nx, s = 2 * nx + spec->nu;
  size_t n1 = (size_t)nx + (size_t)C->nnz;
  b->cp0 = calloc((size_t)s + 1, sizeof(int)), b->cp1 = calloc((size_t)s + 1, sizeof(int));
  b->ri0 = malloc(sizeof(int) * nx), b->v0 = malloc(sizeof(double) * nx);
  b->ri1 = malloc(sizeof(int) * n1), b->v1 = malloc(sizeof(double) * n1);
  b->beta = calloc(2 * (size_t)nx, sizeof(double));
  if (!b->cp0 || !b->cp1 || !b->ri0 || !b->v0 || !b->ri1 || !b->v1 || !b->beta) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory for the boundary conditions");
  }
  size_t q = 0;
  for (int c = 0; c < s; c++) {
    b->cp0[c + 1] = b->cp0[c] + (c < nx);
    if (c < nx) b->ri0[c] = c, b->v0[c] = 1.0, b->beta[c] = spec->x0[c];
    if (c < nx) { /* column c of -C, in rows nx + i */
      for (int e = C->colptr[c]; e < C->colptr[c + 1]; e++) {
        b->ri1[q] = nx + C->rowind[e], b->v1[q++] = -C->val[e];
      }
    } else if (c < 2 * nx) {
      b->ri1[q] = c, b->v1[q++] = 1.0;
    }
    b->cp1[c + 1] = (int)q;
  }
  return LTH_OK;
}

/* C as CSC: C_src (sparse or not), the dense C, or zero. */
static lth_status terminal_weight(const lth_lqr_spec *spec, spm *C, lth_error *err) {
  int nx = spec->nx;
  if (spec->C) return spm_from_dense(C, nx, nx, spec->C, err);
  if (spec->C_src) return spm_at(C, spec->C_src, spec->t0, err);
  C->rows = C->cols = nx;
  C->colptr = calloc((size_t)nx + 1, sizeof(int));
  return C->colptr ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
}

/* The refusals of the least-squares solve, in the LQR's words. */
static lth_status explain(lth_status st, lth_error *err) {
  if (st == LTH_ENOTUNIQUE) {
    lth_error_prefix(err, "no unique smooth optimum (W is not injective, or not numerically): ");
  } else if ((st == LTH_ESING || st == LTH_ECOND) && err && err->has_t) {
    lth_error_prefix(err, "B'H B (= -Pi) must be invertible on the interval: ");
  }
  return st;
}

/* x, lambda, u, the cost and the fields of the answer from the solution z
 * at (t0, times...). */
static void fill(const lth_lqr_spec *spec, const lth_bvp_result *br, double resid, size_t n,
                 lth_lqr_result *res) {
  int nx = spec->nx, nu = spec->nu, s = br->s;
  for (size_t k = 0; k < n; k++) {
    const double *z = br->z + (k + 1) * (size_t)s;
    memcpy(res->x + k * (size_t)nx, z, sizeof(double) * nx);
    memcpy(res->lambda + k * (size_t)nx, z + nx, sizeof(double) * nx);
    memcpy(res->u + k * (size_t)nu, z + 2 * nx, sizeof(double) * nu);
  }
  double lam0 = 0.0;
  for (int i = 0; i < nx; i++) lam0 += spec->x0[i] * br->z[nx + i];
  res->cost = 0.5 * lam0;
  res->exists = res->unique = res->have_trajectory = 1;
  res->residual = resid;
  res->cond_W = NAN;
  res->theorem4 = NAN;
  res->drift = br->drift;
  memcpy(res->x0_consistent, spec->x0, sizeof(double) * nx);
  res->jump_in_range_B = 1;
  res->error_estimate = br->error_estimate;
  res->intervals = br->intervals;
  res->pi_proven = br->pi_proven;
  res->pi_inv_bound = br->pi_inv_bound;
  res->pi_proofs = br->pi_proofs;
  res->pi_proof_off = br->pi_proof_off;
}

/* lth_bvp_check_data's refusal of data that jump (an impulse): constant
 * data cannot jump; time-varying data are checked. */
static lth_status check_jumps(const lth_lqr_spec *spec, const lth_system *sys, lth_error *err) {
  double t0 = spec->t0, t1 = spec->t1;
  if (lth_lqr_proven_constant(spec->A, t0, t1) && lth_lqr_proven_constant(spec->B, t0, t1) &&
      lth_lqr_proven_constant(spec->H, t0, t1)) {
    return LTH_OK;
  }
  return lth_bvp_check_data(sys, t0, t1, err);
}

/* The slack directions E = [B(t0) 0; 0 B(t1)] (2 nx x 2 nu). */
static lth_status slack_dirs(const lth_lqr_spec *spec, spm *E, lth_error *err) {
  spm B0 = {0}, B1 = {0};
  int nx = spec->nx, nu = spec->nu;
  lth_status st = spm_at(&B0, spec->B, spec->t0, err);
  if (st == LTH_OK) st = spm_at(&B1, spec->B, spec->t1, err);
  size_t nz = (size_t)B0.nnz + (size_t)B1.nnz;
  if (st == LTH_OK) {
    E->rows = 2 * nx, E->cols = 2 * nu, E->nnz = (int)nz;
    E->colptr = malloc(sizeof(int) * (2 * (size_t)nu + 1));
    E->rowind = malloc(sizeof(int) * (nz + 1));
    E->val = malloc(sizeof(double) * (nz + 1));
    if (!E->colptr || !E->rowind || !E->val) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int c = 0, q = 0; st == LTH_OK && c < 2 * nu; c++) {
    const spm *Bk = c < nu ? &B0 : &B1;
    int j = c % nu, off = c < nu ? 0 : nx;
    E->colptr[c] = q;
    for (int e = Bk->colptr[j]; e < Bk->colptr[j + 1]; e++) {
      E->rowind[q] = off + Bk->rowind[e], E->val[q++] = Bk->val[e];
    }
    E->colptr[c + 1] = q;
  }
  spm_free(&B0);
  spm_free(&B1);
  return st;
}

/* The optimality BVP with the slack of the header comment: y at
 * (t0, times...), the slack into sl (2 nu). */
static lth_status solve_bvp(const lth_lqr_spec *spec, const double *ts, size_t n,
                            const lth_lqr_opts *o, const spm *C, lth_bvp_result **br, double *sl,
                            lth_error *err) {
  lth_system *sys = NULL;
  lth_opsys *os = NULL;
  lqr_bc b = {0};
  spm E = {0};
  lth_status st = slack_dirs(spec, &E, err);
  if (st == LTH_OK) st = lth_lqr_build_system(spec, &sys, err);
  if (st == LTH_OK) st = check_jumps(spec, sys, err);
  if (st == LTH_OK && !(os = lth_opsys_from_system(sys, err))) st = lth_error_status(err);
  if (st == LTH_OK) st = bc_make(spec, C, &b, err);
  if (st == LTH_OK) {
    int nx = spec->nx;
    lth_bvp_sparse_bc bc = {2 * nx, {b.cp0, b.ri0, b.v0}, {b.cp1, b.ri1, b.v1}, b.beta};
    lth_bvp_opts bo;
    lth_bvp_opts_init(&bo);
    bo.method = LTH_BVP_COLLOCATION;
    bo.colloc.tol = o->ivp.rtol > 0 ? o->ivp.rtol : LTH_DEFAULT_RTOL;
    bo.cond_max = o->cond_max;
    bo.progress = o->progress;
    bo.progress_ctx = o->progress_ctx;
    lth_bvp_csc Ec = {E.colptr, E.rowind, E.val};
    st = explain(lth_bvp_solve_op_slack(os, spec->t0, spec->t1, &bc, 2 * spec->nu, &Ec, ts, n, &bo,
                                        br, sl, err),
                 err);
  }
  spm_free(&E);
  bc_free(&b);
  lth_opsys_free(os);
  lth_system_free(sys);
  return st;
}

/* ||B(t) s|| for the slack s (nu) along B(t). */
static lth_status slack_norm(const lth_lqr_spec *spec, double t, const double *s, double *nrm,
                             lth_error *err) {
  spm Bt = {0};
  lth_status st = spm_at(&Bt, spec->B, t, err);
  double *j = st == LTH_OK ? calloc((size_t)spec->nx + 1, sizeof(double)) : NULL;
  if (st == LTH_OK && !j) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  double n2 = 0.0;
  for (int c = 0; st == LTH_OK && c < spec->nu; c++) {
    for (int e = Bt.colptr[c]; e < Bt.colptr[c + 1]; e++) j[Bt.rowind[e]] += Bt.val[e] * s[c];
  }
  for (int i = 0; st == LTH_OK && i < spec->nx; i++) n2 += j[i] * j[i];
  free(j);
  spm_free(&Bt);
  *nrm = sqrt(n2);
  return st;
}

/* The existence decision (the header comment): the jump B(t0) s0 that x0
 * needs and the terminal slack B(t1) s1, relative to ||x0|| as the dense
 * path's residual is; *rel is the whole. */
static lth_status judge_slack(const lth_lqr_spec *spec, const double *sl, double tol, double *rel,
                              lth_error *err) {
  double nx0 = 0.0, j0 = 0.0, j1 = 0.0;
  for (int i = 0; i < spec->nx; i++) nx0 += spec->x0[i] * spec->x0[i];
  nx0 = sqrt(nx0);
  lth_status st = slack_norm(spec, spec->t0, sl, &j0, err);
  if (st == LTH_OK) st = slack_norm(spec, spec->t1, sl + spec->nu, &j1, err);
  if (st != LTH_OK) return st;
  double r0 = j0 == 0.0 ? 0.0 : j0 / fmax(nx0, DBL_MIN);
  double r1 = j1 == 0.0 ? 0.0 : j1 / fmax(nx0, DBL_MIN);
  *rel = hypot(r0, r1);
  if (!(r0 <= tol)) {
    return lth_error_set_t(err, LTH_ENOSOL, spec->t0,
                           "no smooth optimum: x0 needs an impulse at t0 along range(B(t0)) of "
                           "relative size %.3g > %.3g onto the optimal manifold",
                           r0, tol);
  }
  if (!(*rel <= tol)) {
    return lth_error_set_t(err, LTH_ENOSOL, spec->t1,
                           "no smooth optimum: lambda(t1) = C x(t1) holds only up to %.3g "
                           "(relative to |x0|) along range(B(t1)) > %.3g: a terminal impulse",
                           r1, tol);
  }
  return LTH_OK;
}

lth_status lth_lqr_solve_op(const lth_lqr_spec *spec, const double *times, size_t n,
                            const lth_lqr_opts *opts, lth_lqr_result **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  lth_lqr_opts o;
  if (opts)
    o = *opts;
  else
    lth_lqr_opts_init(&o);
  if (!spec || !spec->x0 || !(spec->t0 < spec->t1) || !spec->A || !spec->B || !spec->H ||
      (n > 0 && !times)) {
    return lth_error_set(err, LTH_EINVAL, "LQR problem needs t0 < t1, A, B, H and x0");
  }
  for (size_t k = 0; k < n; k++) {
    if (!(times[k] >= spec->t0 && times[k] <= spec->t1)) {
      return lth_error_set_t(err, LTH_ERANGE, times[k], "output time outside [%g, %g]", spec->t0,
                             spec->t1);
    }
  }
  double tol = o.ivp.rtol > 0 ? o.ivp.rtol : LTH_DEFAULT_RTOL;
  double exist_tol = o.tol > 0 ? o.tol : 100.0 * tol; /* as the dense paths */
  spm C = {0};
  lth_bvp_result *br = NULL;
  double *ts = malloc(sizeof(double) * (n + 1)); /* t0 first: lambda(t0) for the cost */
  double *sl = calloc(2 * (size_t)spec->nu + 1, sizeof(double));
  lth_status st = ts && sl ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) {
    ts[0] = spec->t0;
    if (n) memcpy(ts + 1, times, sizeof(double) * n);
    st = terminal_weight(spec, &C, err);
  }
  if (st == LTH_OK) st = check_weights(spec, times, n, &C, err);
  if (st == LTH_OK) st = terminal_smooth(spec, &C, err);
  if (st == LTH_OK) st = solve_bvp(spec, ts, n + 1, &o, &C, &br, sl, err);
  double resid = NAN;
  if (st == LTH_OK) st = judge_slack(spec, sl, exist_tol, &resid, err);
  lth_lqr_result *res = NULL;
  if (st == LTH_OK && !(res = lth_lqr_result_new(spec->nx, spec->nu, n, times))) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) fill(spec, br, resid, n, res);
  lth_bvp_result_free(br);
  spm_free(&C);
  free(ts);
  free(sl);
  if (st != LTH_OK) {
    lth_lqr_result_free(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}
