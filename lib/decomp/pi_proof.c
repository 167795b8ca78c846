/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A proof that Pi(t) = A(r,r-1) ... A(2,1) A(1,r) is nonsingular for every t
 * of a piece [a, b], with bounds of ||Pi(t)^-1||_1 and of chain_norm(t)
 * there, from the enclosures of the chain blocks (include/lth/enclose.h).
 *
 * With c = (a + b)/2, h = (b - a)/2 and s = t - c in [-h, h], Taylor's
 * theorem with the Lagrange remainder gives, entry by entry, for each block
 *     A(t) = A(c) + A'(c) s + (A''(xi)/2) s^2,   xi in [a, b],
 * so A(t) lies in the Taylor model A0 + A1 s + A2 s^2 whose coefficients are
 * interval matrices: A0, A1 the enclosures at the point c (rounding-narrow),
 * A2 the enclosure of the second Taylor coefficient over all of [a, b].  The
 * product of two such models is again one (the terms of degree 3 and 4 folded
 * into the s^2 coefficient with s in [-h, h]), so Pi(t) lies in
 * P0 + P1 s + P2 s^2 for every t in [a, b].  With M = mid(P0)^-1 (LAPACK's LU)
 *     ||I - M Pi(t)||_1 <= ||I - M P0|| + h || |M| |P1| || + h^2 || |M| |P2| || = q,
 * and if q < 1 the Neumann series shows M Pi(t), hence Pi(t), nonsingular with
 *     ||Pi(t)^-1||_1 = ||(M Pi(t))^-1 M||_1 <= ||M||_1 / (1 - q).
 * The linear part P1 s is exact up to rounding: the overestimate of interval
 * arithmetic (a block's variation counted once per product it enters) only
 * reaches the h^2 term, so pieces can be as wide as Pi's own variation allows
 * (q ~ h ||Pi^-1 Pi'||).
 *
 * Every product is computed in midpoint-radius form, the radius covering the
 * rounding of the midpoint's product by (k + 1) eps |Xm| |Ym| (k the inner
 * dimension; Higham's gamma_k with a margin) and every nonnegative sum and
 * norm rounded up by a relative margin, never by changing the rounding mode. */
#include "pi_proof.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/small_blas.h"
#include "lth/enclose.h"
#include "lth/source.h"

#define EPS DBL_EPSILON

/* An interval matrix model m[0] + m[1] s + m[2] s^2 (midpoints m, radii r;
 * column-major, ld = rows). */
typedef struct {
  int rows, cols;
  double *m[3], *r[3];
} tmodel;

struct lth_pi_proof {
  const lth_system *sys;
  int nblk, nr, nmax;
  tmodel *blk; /* blk[0] = A(1,r), blk[k] = A(k+1,k) */
  tmodel L, L2;
  lth_interval *coef, *work;
  double *ax, *ay, *tm, *tr, *M;
  lapack_int *ipiv;
};

static const lth_source *chain_src(const lth_system *sys, int k) {
  int r = lth_system_index(sys);
  return k == 0 ? lth_system_A(sys, 1, r) : lth_system_A(sys, k + 1, k);
}

static int tm_init(tmodel *t, int rows, int cols) {
  t->rows = rows;
  t->cols = cols;
  size_t n = (size_t)rows * (size_t)cols + 1;
  int ok = 1;
  for (int d = 0; d < 3; d++) {
    t->m[d] = calloc(n, sizeof(double));
    t->r[d] = calloc(n, sizeof(double));
    ok = ok && t->m[d] && t->r[d];
  }
  return ok;
}

static void tm_free(tmodel *t) {
  for (int d = 0; d < 3; d++) {
    free(t->m[d]);
    free(t->r[d]);
  }
}

void lth_pi_proof_free(lth_pi_proof *p) {
  if (!p) return;
  for (int k = 0; p->blk && k < p->nblk; k++) tm_free(&p->blk[k]);
  free(p->blk);
  tm_free(&p->L);
  tm_free(&p->L2);
  free(p->coef);
  free(p->work);
  free(p->ax);
  free(p->ay);
  free(p->tm);
  free(p->tr);
  free(p->M);
  free(p->ipiv);
  free(p);
}

lth_pi_proof *lth_pi_proof_alloc(const lth_system *sys) {
  if (lth_system_validate(sys, NULL) != LTH_OK) return NULL;
  int r = lth_system_index(sys);
  if (r < 1) return NULL;
  for (int k = 0; k < r; k++) {
    if (!lth_source_can_enclose(chain_src(sys, k))) return NULL;
  }
  lth_pi_proof *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->sys = sys;
  p->nblk = r;
  p->nr = lth_system_block_size(sys, r);
  size_t cells = 0, nw = 0;
  for (int i = 1; i <= r; i++) {
    int n = lth_system_block_size(sys, i);
    p->nmax = n > p->nmax ? n : p->nmax;
  }
  p->blk = calloc((size_t)r, sizeof *p->blk);
  int ok = p->blk != NULL;
  for (int k = 0; ok && k < r; k++) {
    const lth_source *src = chain_src(sys, k);
    int rows = lth_source_rows(src), cols = lth_source_cols(src);
    size_t c = (size_t)rows * (size_t)cols, w = lth_source_enclose_work_size(src, 2);
    cells = c > cells ? c : cells;
    nw = w > nw ? w : nw;
    ok = tm_init(&p->blk[k], rows, cols);
  }
  size_t sq = (size_t)p->nmax * (size_t)p->nmax + 1;
  ok = ok && tm_init(&p->L, p->nmax, p->nr) && tm_init(&p->L2, p->nmax, p->nr);
  p->coef = malloc((3 * cells + 1) * sizeof *p->coef);
  p->work = malloc((nw + 1) * sizeof *p->work);
  p->ax = malloc(sq * sizeof(double));
  p->ay = malloc(sq * sizeof(double));
  p->tm = malloc(sq * sizeof(double));
  p->tr = malloc(sq * sizeof(double));
  p->M = malloc(sq * sizeof(double));
  p->ipiv = malloc(((size_t)p->nr + 1) * sizeof *p->ipiv);
  if (!ok || !p->coef || !p->work || !p->ax || !p->ay || !p->tm || !p->tr || !p->M || !p->ipiv) {
    lth_pi_proof_free(p);
    return NULL;
  }
  return p;
}

/* Midpoint and radius of [lo, hi], the radius rounded up; 0 if unbounded. */
static int mid_rad(lth_interval iv, double *m, double *r) {
  if (!isfinite(iv.lo) || !isfinite(iv.hi) || iv.lo > iv.hi) return 0;
  *m = 0.5 * iv.lo + 0.5 * iv.hi;
  *r = fmax(iv.hi - *m, *m - iv.lo) * (1.0 + 2.0 * EPS) + DBL_MIN;
  return 1;
}

/* The model of block k on [c - h, c + h]: 1 if every enclosure is bounded. */
static int block_model(lth_pi_proof *p, int k, double c, double a, double b) {
  const lth_source *src = chain_src(p->sys, k);
  tmodel *t = &p->blk[k];
  size_t cells = (size_t)t->rows * (size_t)t->cols;
  if (lth_source_enclose(src, c, c, 1, p->coef, p->work, NULL) != LTH_OK) return 0;
  for (size_t e = 0; e < cells; e++) {
    if (!mid_rad(p->coef[e], &t->m[0][e], &t->r[0][e]) ||
        !mid_rad(p->coef[cells + e], &t->m[1][e], &t->r[1][e])) {
      return 0;
    }
  }
  if (lth_source_enclose(src, a, b, 2, p->coef, p->work, NULL) != LTH_OK) return 0;
  for (size_t e = 0; e < cells; e++) {
    if (!mid_rad(p->coef[2 * cells + e], &t->m[2][e], &t->r[2][e])) return 0;
  }
  return 1;
}

/* Upper bound of ||A(t)||_1 on [c - h, c + h] from block k's model: the
 * column sums of |m0 + m1 s| are convex in s, so their largest value on
 * [-h, h] is at s = -h or s = h; the radii and the s^2 term add. */
static double block_norm_bound(const tmodel *t, double h) {
  double best = 0.0;
  for (int side = -1; side <= 1; side += 2) {
    double s = side * h;
    for (int j = 0; j < t->cols; j++) {
      double sum = 0.0;
      for (int i = 0; i < t->rows; i++) {
        size_t e = (size_t)j * t->rows + i;
        sum += fabs(t->m[0][e] + t->m[1][e] * s) + t->r[0][e] + t->r[1][e] * h +
               (fabs(t->m[2][e]) + t->r[2][e]) * h * h;
      }
      best = fmax(best, sum);
    }
  }
  return best * (1.0 + (t->rows + 6) * EPS) + DBL_MIN;
}

/* Z (+)= X Y in midpoint-radius form (X: p x k, Y: k x n; Y's ld = k).
 * xr may be NULL (X a point matrix).  acc: add to Z instead of setting it,
 * the addition's rounding covered by eps |Z|. */
static void imul(lth_pi_proof *w, int p, int n, int k, const double *xm, const double *xr,
                 const double *ym, const double *yr, double *zm, double *zr, int acc) {
  size_t nx = (size_t)p * k, ny = (size_t)k * n, nz = (size_t)p * n;
  double g = (double)(k + 1) * EPS;
  for (size_t e = 0; e < nx; e++) w->ax[e] = fabs(xm[e]);
  for (size_t e = 0; e < ny; e++) w->ay[e] = yr[e] + g * fabs(ym[e]);
  double *om = acc ? w->tm : zm, *orr = acc ? w->tr : zr;
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, n, k, 1.0, xm, p, ym, k, 0.0, om, p);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, n, k, 1.0, w->ax, p, w->ay, k, 0.0, orr, p);
  if (xr) {
    for (size_t e = 0; e < ny; e++) w->ay[e] = fabs(ym[e]) + yr[e];
    lth_small_gemm(CblasNoTrans, CblasNoTrans, p, n, k, 1.0, xr, p, w->ay, k, 1.0, orr, p);
  }
  double grow = 1.0 + (2.0 * k + 6.0) * EPS, tiny = (double)(k + 1) * DBL_MIN;
  for (size_t e = 0; e < nz; e++) {
    orr[e] = orr[e] * grow + tiny;
    if (acc) {
      zm[e] += om[e];
      zr[e] = (zr[e] + orr[e] + EPS * fabs(zm[e])) * (1.0 + 2.0 * EPS);
    }
  }
}

/* Z.r[2] += v mag(X) mag(Y) (the folded terms of degree 3 and 4). */
static void mag_add(lth_pi_proof *w, int p, int n, int k, const double *xm, const double *xr,
                    const double *ym, const double *yr, double v, double *zr) {
  size_t nx = (size_t)p * k, ny = (size_t)k * n, nz = (size_t)p * n;
  for (size_t e = 0; e < nx; e++) w->ax[e] = fabs(xm[e]) + xr[e];
  for (size_t e = 0; e < ny; e++) w->ay[e] = fabs(ym[e]) + yr[e];
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, n, k, 1.0, w->ax, p, w->ay, k, 0.0, w->tr, p);
  double grow = 1.0 + (2.0 * k + 6.0) * EPS;
  for (size_t e = 0; e < nz; e++) zr[e] = (zr[e] + v * w->tr[e] * grow + DBL_MIN) * grow;
}

/* Z = X Y for models on [c - h, c + h]:
 *   Z0 = X0 Y0,  Z1 = X0 Y1 + X1 Y0,
 *   Z2 = X0 Y2 + X1 Y1 + X2 Y0 + [-1, 1] (h |X1||Y2| + h |X2||Y1| + h^2 |X2||Y2|). */
static void tm_mul(lth_pi_proof *w, const tmodel *X, const tmodel *Y, tmodel *Z, double h) {
  int p = X->rows, k = X->cols, n = Y->cols;
  Z->rows = p;
  Z->cols = n;
  imul(w, p, n, k, X->m[0], X->r[0], Y->m[0], Y->r[0], Z->m[0], Z->r[0], 0);
  imul(w, p, n, k, X->m[0], X->r[0], Y->m[1], Y->r[1], Z->m[1], Z->r[1], 0);
  imul(w, p, n, k, X->m[1], X->r[1], Y->m[0], Y->r[0], Z->m[1], Z->r[1], 1);
  imul(w, p, n, k, X->m[0], X->r[0], Y->m[2], Y->r[2], Z->m[2], Z->r[2], 0);
  imul(w, p, n, k, X->m[1], X->r[1], Y->m[1], Y->r[1], Z->m[2], Z->r[2], 1);
  imul(w, p, n, k, X->m[2], X->r[2], Y->m[0], Y->r[0], Z->m[2], Z->r[2], 1);
  mag_add(w, p, n, k, X->m[1], X->r[1], Y->m[2], Y->r[2], h, Z->r[2]);
  mag_add(w, p, n, k, X->m[2], X->r[2], Y->m[1], Y->r[1], h, Z->r[2]);
  mag_add(w, p, n, k, X->m[2], X->r[2], Y->m[2], Y->r[2], h * h, Z->r[2]);
}

static void tm_copy(tmodel *dst, const tmodel *src) {
  size_t n = (size_t)src->rows * (size_t)src->cols;
  dst->rows = src->rows;
  dst->cols = src->cols;
  for (int d = 0; d < 3; d++) {
    memcpy(dst->m[d], src->m[d], n * sizeof(double));
    memcpy(dst->r[d], src->r[d], n * sizeof(double));
  }
}

/* max_j sum_i (|m_ij| + r_ij), rounded up (r may be NULL). */
static double mag_norm1(int rows, int cols, const double *m, const double *r) {
  double best = 0.0;
  for (int j = 0; j < cols; j++) {
    double s = 0.0;
    for (int i = 0; i < rows; i++) {
      size_t e = (size_t)j * rows + i;
      s += fabs(m[e]) + (r ? r[e] : 0.0);
    }
    best = fmax(best, s);
  }
  return best * (1.0 + (rows + 4) * EPS) + DBL_MIN;
}

/* q = ||I - M P0|| + h || |M| |P1| || + h^2 || |M| |P2| || for Pi's model P. */
static double neumann_q(lth_pi_proof *w, const tmodel *P, double h) {
  int n = w->nr;
  size_t nn = (size_t)n * n;
  double *em = w->L2.m[0], *er = w->L2.r[0]; /* scratch: L2 is free here */
  imul(w, n, n, n, w->M, NULL, P->m[0], P->r[0], em, er, 0);
  for (size_t e = 0; e < nn; e++) em[e] = -em[e];
  for (int j = 0; j < n; j++) em[(size_t)j * n + j] += 1.0;
  for (size_t e = 0; e < nn; e++) er[e] = (er[e] + EPS * fabs(em[e])) * (1.0 + 2.0 * EPS);
  double q = mag_norm1(n, n, em, er);
  for (int d = 1; d <= 2; d++) {
    for (size_t e = 0; e < nn; e++) w->ax[e] = fabs(w->M[e]);
    for (size_t e = 0; e < nn; e++) w->ay[e] = fabs(P->m[d][e]) + P->r[d][e];
    lth_small_gemm(CblasNoTrans, CblasNoTrans, n, n, n, 1.0, w->ax, n, w->ay, n, 0.0, w->tm, n);
    double hd = d == 1 ? h : h * h;
    q += hd * mag_norm1(n, n, w->tm, NULL) * (1.0 + (2.0 * n + 6.0) * EPS);
  }
  return q * (1.0 + 4.0 * EPS);
}

void lth_pi_proof_piece(lth_pi_proof *p, double a, double b, int chain_only, lth_pi_piece *out) {
  memset(out, 0, sizeof *out);
  out->q = INFINITY;
  out->chain_bound = INFINITY;
  double c = 0.5 * (a + b);
  /* h covers both halves after the rounding of c */
  double h = fmax(c - a, b - c) * (1.0 + 2.0 * EPS);
  double chain = 1.0;
  for (int k = 0; k < p->nblk; k++) {
    if (!block_model(p, k, c, a, b)) return;
    chain *= block_norm_bound(&p->blk[k], h);
  }
  out->chain_bound = chain * (1.0 + 2.0 * p->nblk * EPS);
  if (chain_only || !isfinite(out->chain_bound)) return;
  tm_copy(&p->L, &p->blk[0]);
  for (int k = 1; k < p->nblk; k++) {
    tm_mul(p, &p->blk[k], &p->L, &p->L2, h);
    tmodel tmp = p->L;
    p->L = p->L2;
    p->L2 = tmp;
  }
  int n = p->nr;
  size_t nn = (size_t)n * n;
  memcpy(p->M, p->L.m[0], nn * sizeof(double));
  if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, p->M, n, p->ipiv) != 0 ||
      LAPACKE_dgetri(LAPACK_COL_MAJOR, n, p->M, n, p->ipiv) != 0) {
    return;
  }
  for (size_t e = 0; e < nn; e++) {
    if (!isfinite(p->M[e])) return;
  }
  double q = neumann_q(p, &p->L, h);
  out->q = q;
  if (!(q < 1.0)) return;
  out->proven = 1;
  out->pinv_bound = mag_norm1(n, n, p->M, NULL) / (1.0 - q) * (1.0 + 4.0 * EPS);
}
