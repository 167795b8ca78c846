/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A large sparse symmetric weight shown positive semidefinite by a sparse
 * Cholesky factorization (lib/lqr/lqr_impl.h, lth_lqr_psd_sparse).
 *
 * The test.  H (n x n, symmetric; only its upper triangle is read) is
 * factored as H + delta I = L D L' (CHOLMOD, simplicial, fill-reducing AMD
 * order P), delta = PSD_SHIFT n eps ||H||_1.  In exact arithmetic every pivot
 * D(k) > 0 iff H + delta I is positive definite, i.e. iff lambda_min(H) >
 * -delta.  In floating point the factorization that succeeds is the exact one
 * of H + delta I + dH with |dH| <= gamma_{c+1} |L||D||L'| (Higham, Accuracy
 * and Stability of Numerical Algorithms, 2nd ed., Thm 10.3; c the factor's
 * largest column count): success shows lambda_min(H) >= -delta - ||dH||_2,
 * psd to rounding.  The shift is what accepts an H with an exact zero
 * eigenvalue (H = Q'Q with Q rank deficient): H as stored is Q'Q plus the
 * rounding of its products, whose eigenvalues may be negative by a few eps
 * ||H||, and n eps ||H||_1 lies above those and above Cholesky's own
 * rounding for the factors that fit in memory; PSD_SHIFT = 4 leaves a margin.
 *
 * A pivot D(k) <= 0 (in the permuted order) is a refusal with a witness.  The
 * leading k columns are those of the Cholesky factor of the leading k x k
 * block, which is positive definite; with l the first k entries of row k of
 * L, the vector x = P' [-L11^{-T} l; 1; 0] has x'(H + delta I)x = D(k) <= 0
 * (the Schur complement of that block), so x'Hx <= -delta x'x.  The Rayleigh
 * quotient x'Hx / x'x is then evaluated from H itself, apart from the
 * factorization; 30 Lanczos steps from x (lanczos_refine) bring it closer
 * to lambda_min, and the lower of the two quotients, each an upper bound on
 * lambda_min, is reported with the pivot.  LDL' is used rather than LL'
 * because CHOLMOD's LDL' keeps going past a negative pivot (it stops only at
 * an exact zero), so the pivot and the columns before it are all there. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lqr_impl.h"

#ifdef LTH_HAVE_CHOLMOD
#include <lapacke.h>
#include <cholmod.h>
#endif

/* delta = PSD_SHIFT * n * eps * ||H||_1 (the header comment). */
#define PSD_SHIFT 4.0

int lth_lqr_psd_available(void) {
#ifdef LTH_HAVE_CHOLMOD
  return 1;
#else
  return 0;
#endif
}

double lth_lqr_psd_shift(int n, const int *colptr, const double *val) {
  double norm1 = 0.0;
  for (int j = 0; j < n; j++) {
    double s = 0.0;
    for (int q = colptr[j]; q < colptr[j + 1]; q++) s += fabs(val[q]);
    norm1 = fmax(norm1, s);
  }
  return PSD_SHIFT * n * DBL_EPSILON * norm1;
}

#ifndef LTH_HAVE_CHOLMOD
struct lth_psd_ctx {
  int unused;
};
lth_psd_ctx *lth_lqr_psd_new(void) { return calloc(1, sizeof(lth_psd_ctx)); }
void lth_lqr_psd_free(lth_psd_ctx *c) { free(c); }
lth_status lth_lqr_psd_test(lth_psd_ctx *c, int n, const int *colptr, const int *rowind,
                            const double *val, lth_psd_result *res, lth_error *err) {
  (void)c, (void)n, (void)colptr, (void)rowind, (void)val;
  memset(res, 0, sizeof *res);
  return lth_error_set(err, LTH_EINVAL,
                       "this build has no SuiteSparse CHOLMOD (the sparse Cholesky test of "
                       "positive semidefiniteness)");
}
#else

/* x'Hx / x'x from the whole stored H (both triangles). */
static double rayleigh(int n, const int *colptr, const int *rowind, const double *val,
                       const double *x) {
  double num = 0.0, den = 0.0;
  for (int j = 0; j < n; j++) {
    den += x[j] * x[j];
    if (x[j] == 0.0) continue;
    for (int q = colptr[j]; q < colptr[j + 1]; q++) num += x[rowind[q]] * val[q] * x[j];
  }
  return den > 0.0 ? num / den : NAN;
}

/* y = H x from the whole stored H. */
static void matvec(int n, const int *colptr, const int *rowind, const double *val, const double *x,
                   double *y) {
  memset(y, 0, sizeof(double) * (size_t)n);
  for (int j = 0; j < n; j++)
    for (int q = colptr[j]; q < colptr[j + 1]; q++) y[rowind[q]] += val[q] * x[j];
}

/* A few Lanczos steps from the witness x (full reorthogonalization): the
 * Krylov space holds x, so its smallest Ritz value is at most x's Rayleigh
 * quotient, and closer to lambda_min.  The Ritz vector's quotient, evaluated
 * from H itself, replaces x's when lower; *rho is left alone otherwise (also
 * when out of memory).  Cost: LANCZOS_STEPS products with H. */
#define LANCZOS_STEPS 30
static void lanczos_refine(int n, const int *colptr, const int *rowind, const double *val,
                           const double *x, double *rho) {
  int m = n < LANCZOS_STEPS ? n : LANCZOS_STEPS, k = 0;
  double *Q = malloc(sizeof(double) * ((size_t)n * (m + 3) + 2 * (size_t)m + 1));
  if (!Q) return;
  double *w = Q + (size_t)n * (m + 1), *z = w + n, *al = z + n, *be = al + m;
  double nrm = 0.0, scale = 0.0;
  for (int i = 0; i < n; i++) nrm += x[i] * x[i];
  for (int q = 0; q < colptr[n]; q++) scale = fmax(scale, fabs(val[q]));
  nrm = sqrt(nrm);
  for (int i = 0; i < n && nrm > 0.0; i++) Q[i] = x[i] / nrm;
  for (; nrm > 0.0 && k < m; k++) {
    double *qk = Q + (size_t)k * n;
    matvec(n, colptr, rowind, val, qk, w);
    for (int pass = 0; pass < 2; pass++) { /* w -= Q_k (Q_k' w), twice */
      for (int i = 0; i <= k; i++) {
        const double *qi = Q + (size_t)i * n;
        double c = 0.0;
        for (int r = 0; r < n; r++) c += qi[r] * w[r];
        if (pass == 0 && i == k) al[k] = c;
        if (pass == 0 && i == k - 1) be[k - 1] = c;
        for (int r = 0; r < n; r++) w[r] -= c * qi[r];
      }
    }
    double b = 0.0;
    for (int r = 0; r < n; r++) b += w[r] * w[r];
    b = sqrt(b);
    if (k + 1 < m) be[k] = b;
    if (!(b > 1e-12 * scale)) { /* an invariant subspace: T is complete */
      k++;
      break;
    }
    for (int r = 0; r < n; r++) Q[(size_t)(k + 1) * n + r] = w[r] / b;
  }
  /* smallest eigenpair of the k x k tridiagonal T (al, be) */
  double *d = malloc(sizeof(double) * (3 * (size_t)k + (size_t)k * k + 1));
  if (k > 0 && d) {
    double *e = d + k, *Z = e + k;
    memcpy(d, al, sizeof(double) * (size_t)k);
    if (k > 1) memcpy(e, be, sizeof(double) * (size_t)(k - 1));
    if (LAPACKE_dstev(LAPACK_COL_MAJOR, 'V', k, d, e, Z, k) == 0) {
      memset(z, 0, sizeof(double) * (size_t)n);
      for (int i = 0; i < k; i++)
        for (int r = 0; r < n; r++) z[r] += Z[i] * Q[(size_t)i * n + r];
      double rz = rayleigh(n, colptr, rowind, val, z);
      if (rz < *rho) *rho = rz;
    }
  }
  free(d);
  free(Q);
}

/* The witness of the header comment: y = L11^{-T}-back-substitution of e_k
 * over the first k columns of the simplicial L (unit diagonal, D on it), then
 * x = P' y.  Columns >= k are not read. */
static void witness(const cholmod_factor *L, int k, double *y, double *x) {
  const int *Lp = L->p, *Li = L->i, *Lnz = L->nz, *perm = L->Perm;
  const double *Lx = L->x;
  int n = (int)L->n;
  memset(y, 0, sizeof(double) * (size_t)n);
  y[k] = 1.0;
  for (int j = k - 1; j >= 0; j--) {
    double s = 0.0;
    for (int q = Lp[j] + 1; q < Lp[j] + Lnz[j]; q++) {
      if (Li[q] <= k) s += Lx[q] * y[Li[q]];
    }
    y[j] = -s;
  }
  for (int j = 0; j < n; j++) x[perm[j]] = y[j];
}

/* H + delta I's upper triangle as a CHOLMOD matrix (every diagonal entry
 * present). */
static cholmod_sparse *upper_shifted(int n, const int *colptr, const int *rowind, const double *val,
                                     double delta, cholmod_common *cc) {
  size_t nz = (size_t)n;
  for (int j = 0; j < n; j++)
    for (int q = colptr[j]; q < colptr[j + 1]; q++) nz += rowind[q] < j;
  cholmod_sparse *A = cholmod_allocate_sparse((size_t)n, (size_t)n, nz, 1, 1, 1, CHOLMOD_REAL, cc);
  if (!A) return NULL;
  int *Ap = A->p, *Ai = A->i;
  double *Ax = A->x;
  int t = 0;
  for (int j = 0; j < n; j++) {
    Ap[j] = t;
    double d = delta;
    for (int q = colptr[j]; q < colptr[j + 1]; q++) {
      if (rowind[q] < j) Ai[t] = rowind[q], Ax[t++] = val[q];
      if (rowind[q] == j) d += val[q];
    }
    Ai[t] = j, Ax[t++] = d; /* the diagonal last: rows stay sorted */
  }
  Ap[n] = t;
  return A;
}

/* The first pivot D(k) <= 0 into *pivot, or the column CHOLMOD stopped at
 * (an exact zero pivot: *pivot = 0); -1 if none. */
static int first_nonpositive(const cholmod_factor *L, double *pivot) {
  const int *Lp = L->p;
  const double *Lx = L->x;
  int n = (int)L->n, stop = L->minor < L->n ? (int)L->minor : n;
  for (int k = 0; k < stop; k++) {
    if (!(Lx[Lp[k]] > 0.0)) return *pivot = Lx[Lp[k]], k;
  }
  *pivot = 0.0;
  return stop < n ? stop : -1;
}

/* The CHOLMOD settings and the analysis of the last pattern, reused while
 * the pattern stays (a scan of H(t) over [t0, t1]). */
struct lth_psd_ctx {
  cholmod_common cc;
  cholmod_factor *L;
  int n, nnz, *colptr, *rowind; /* the pattern L was analysed for */
};

lth_psd_ctx *lth_lqr_psd_new(void) {
  lth_psd_ctx *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  cholmod_start(&c->cc);
  c->cc.print = 0;                       /* the library never prints */
  c->cc.error_handler = NULL;            /* nor calls back */
  c->cc.supernodal = CHOLMOD_SIMPLICIAL; /* LDL': past a negative pivot */
  c->cc.final_ll = 0;
  c->cc.nmethods = 1; /* AMD only: the same order everywhere */
  c->cc.method[0].ordering = CHOLMOD_AMD;
  c->cc.postorder = 1;
  return c;
}

void lth_lqr_psd_free(lth_psd_ctx *c) {
  if (!c) return;
  cholmod_free_factor(&c->L, &c->cc);
  cholmod_finish(&c->cc);
  free(c->colptr);
  free(c->rowind);
  free(c);
}

/* c->L analysed for this pattern: kept when it is the last one's. */
static int analysed(lth_psd_ctx *c, int n, const int *colptr, const int *rowind,
                    cholmod_sparse *A) {
  int nnz = colptr[n];
  if (c->L && c->n == n && c->nnz == nnz && !memcmp(c->colptr, colptr, sizeof(int) * (n + 1)) &&
      !memcmp(c->rowind, rowind, sizeof(int) * (size_t)nnz)) {
    return 1;
  }
  cholmod_free_factor(&c->L, &c->cc);
  free(c->colptr);
  free(c->rowind);
  c->colptr = malloc(sizeof(int) * ((size_t)n + 1));
  c->rowind = malloc(sizeof(int) * ((size_t)nnz + 1));
  if (!c->colptr || !c->rowind) return 0;
  memcpy(c->colptr, colptr, sizeof(int) * ((size_t)n + 1));
  memcpy(c->rowind, rowind, sizeof(int) * (size_t)nnz);
  c->n = n, c->nnz = nnz;
  c->L = cholmod_analyze(A, &c->cc);
  return c->L != NULL;
}

lth_status lth_lqr_psd_test(lth_psd_ctx *c, int n, const int *colptr, const int *rowind,
                            const double *val, lth_psd_result *res, lth_error *err) {
  memset(res, 0, sizeof *res);
  res->psd = 1, res->column = -1, res->pivot = NAN, res->rayleigh = NAN;
  res->delta = lth_lqr_psd_shift(n, colptr, val);
  if (n == 0) return LTH_OK;
  lth_status st = LTH_OK;
  cholmod_sparse *A = upper_shifted(n, colptr, rowind, val, res->delta, &c->cc);
  int ok = A && analysed(c, n, colptr, rowind, A);
  if (ok) cholmod_factorize(A, c->L, &c->cc);
  if (!ok || (c->cc.status != CHOLMOD_OK && c->cc.status != CHOLMOD_NOT_POSDEF)) {
    int oom = c->cc.status == CHOLMOD_OUT_OF_MEMORY || !A || !c->colptr || !c->rowind;
    st = lth_error_set(err, oom ? LTH_ENOMEM : LTH_EINVAL,
                       "sparse Cholesky (CHOLMOD) of a %d x %d weight failed (status %d)", n, n,
                       c->cc.status);
    cholmod_free_factor(&c->L, &c->cc); /* analysed anew next time */
  }
  double pivot = 0.0;
  int k = st == LTH_OK ? first_nonpositive(c->L, &pivot) : -1;
  if (k >= 0) {
    const int *perm = c->L->Perm;
    res->psd = 0;
    res->column = perm[k];
    res->pivot = pivot;
    double *y = malloc(sizeof(double) * 2 * (size_t)n);
    if (y) {
      witness(c->L, k, y, y + n);
      res->rayleigh = rayleigh(n, colptr, rowind, val, y + n);
      lanczos_refine(n, colptr, rowind, val, y + n, &res->rayleigh);
    }
    free(y);
  }
  cholmod_free_sparse(&A, &c->cc);
  return st;
}
#endif

lth_status lth_lqr_psd_sparse(int n, const int *colptr, const int *rowind, const double *val,
                              lth_psd_result *res, lth_error *err) {
  lth_psd_ctx *c = lth_lqr_psd_new();
  lth_status st = c ? lth_lqr_psd_test(c, n, colptr, rowind, val, res, err)
                    : lth_error_set(err, LTH_ENOMEM, "out of memory");
  lth_lqr_psd_free(c);
  return st;
}
