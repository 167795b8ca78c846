/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proof that Pi(t) = A(r,r-1) ... A(2,1) A(1,r) is nonsingular on a
 * piece [a, b], in operator form (op_piproof.h): the mathematics of the dense
 * path's lib/decomp/pi_proof.c (docs/enclosures.md, docs/conditioning.md
 * section 2.1), with the chain blocks kept on their sparse patterns and the
 * chain products thin.
 *
 * With c = (a + b)/2, h = (b - a)/2 and s = t - c in [-h, h], each chain
 * block lies entry by entry in the Taylor model A0 + A1 s + A2 s^2 (A0, A1
 * enclosed at c, A2 the enclosure of the second Taylor coefficient over
 * [a, b]: Taylor's theorem with the Lagrange remainder), here on the block's
 * pattern only (nnz intervals per order; entries outside it are zero at
 * every t).  The partial products
 *     L_0 = A(1,r),   L_k = A(k+1,k) L_{k-1}   (n_{k+1} x n_r, thin),
 * are models of the same form, stored at the rows their patterns let be
 * nonzero, and each product is a sparse block times a thin model: O(nnz n_r)
 * for the chain.  L_{r-1} = Pi (n_r x n_r) is then dense, and with
 * M = mid(P0)^-1 (LAPACK's LU)
 *     q = ||I - M P0||_1 + h || |M| |P1| ||_1 + h^2 || |M| |P2| ||_1
 * bounds ||I - M Pi(t)||_1 for every t of the piece: q < 1 proves Pi(t)
 * nonsingular there with ||Pi(t)^-1||_1 <= ||M||_1 / (1 - q) (Neumann).
 *
 * Products are in midpoint-radius form.  An entry of Z = A X is a sum of at
 * most N = 3 k products per order (k: the most entries of a row of A's
 * pattern), so the midpoint's rounding is covered by (N + 1) eps sum |a||x|
 * (Higham's gamma_N with a margin); the radii, sums of nonnegative terms,
 * are rounded up by the relative margin (2N + 6) eps and DBL_MIN per term
 * (underflow), never by changing the rounding mode: pi_proof.c's rules. */
#include "op_piproof.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/small_blas.h"
#include "lth/defaults.h"
#include "lth/enclose.h"
#include "op_impl.h"

#define EPS DBL_EPSILON

/* How a chain block's values are enclosed on its pattern. */
enum { ENC_CONST = 0, ENC_CSC = 1, ENC_DENSE = 2 };

/* A chain block's model on its pattern (m[d][p], r[d][p]: order d, entry p). */
typedef struct {
  const op_block *b;
  int how;
  int kmax; /* the most entries of one row of the pattern */
  double *m[3], *r[3];
  int fixed;   /* ENC_CONST: the model (the values, exact) is set once */
  double norm; /* its ||A||_1 bound then */
} sblk;

/* The rows of a thin factor that its pattern lets be nonzero. */
typedef struct {
  int n, nrow;
  int *idx; /* nrow, ascending */
  int *pos; /* n: the row's place in idx, or -1 (zero at every t) */
} rowset;

/* A thin model: nrow x nr, row-major (row q at q nr), three orders. */
typedef struct {
  double *m[3], *r[3];
} thin;

struct op_piproof {
  const lth_opsys *sys;
  int r, nr;
  sblk *blk;  /* blk[0] = A(1,r), blk[k] = A(k+1,k) */
  rowset *rs; /* rs[k]: the rows of L_k */
  thin X, Y;  /* maxrow x nr */
  size_t maxrow, maxnnz;
  lth_interval *coef, *work;
  double *Pm[3], *Pr[3]; /* Pi's model, nr x nr column-major */
  double *M, *em, *er, *ax, *ay, *tm;
  lapack_int *ipiv;
};

static const op_block *chain_block(const lth_opsys *sys, int k) {
  int r = sys->r;
  return k == 0 ? &sys->A[0 + r * (r - 1)] : &sys->A[k + r * (k - 1)];
}

static void thin_free(thin *t) {
  for (int d = 0; d < 3; d++) {
    free(t->m[d]);
    free(t->r[d]);
  }
}

static int thin_init(thin *t, size_t n) {
  int ok = 1;
  for (int d = 0; d < 3; d++) {
    t->m[d] = malloc((n + 1) * sizeof(double));
    t->r[d] = malloc((n + 1) * sizeof(double));
    ok = ok && t->m[d] && t->r[d];
  }
  return ok;
}

void op_piproof_free(op_piproof *p) {
  if (!p) return;
  for (int k = 0; k < p->r; k++) {
    if (p->blk) {
      for (int d = 0; d < 3; d++) {
        free(p->blk[k].m[d]);
        free(p->blk[k].r[d]);
      }
    }
    if (p->rs) {
      free(p->rs[k].idx);
      free(p->rs[k].pos);
    }
  }
  free(p->blk);
  free(p->rs);
  thin_free(&p->X);
  thin_free(&p->Y);
  free(p->coef);
  free(p->work);
  for (int d = 0; d < 3; d++) {
    free(p->Pm[d]);
    free(p->Pr[d]);
  }
  free(p->M);
  free(p->em);
  free(p->er);
  free(p->ax);
  free(p->ay);
  free(p->tm);
  free(p->ipiv);
  free(p);
}

/* How block b is enclosed on its pattern; -1: it is not (a callback, a
 * source without an enclosure). */
static int enclose_kind(const op_block *b) {
  if (!b->set) return -1;
  if (b->cval) return ENC_CONST;
  if (b->src && b->src_sparse) return lth_source_can_enclose_csc(b->src) ? ENC_CSC : -1;
  if (b->src) return lth_source_can_enclose(b->src) ? ENC_DENSE : -1;
  return -1;
}

/* rs = the rows of B X where X has the rows xs (xs NULL: all of B's
 * columns), from B's pattern. */
static int rowset_of(const op_block *B, const rowset *xs, rowset *rs) {
  rs->n = B->rows;
  rs->pos = malloc(((size_t)B->rows + 1) * sizeof(int));
  rs->idx = malloc(((size_t)B->rows + 1) * sizeof(int));
  if (!rs->pos || !rs->idx) return 0;
  for (int i = 0; i < B->rows; i++) rs->pos[i] = -1;
  for (int j = 0; j < B->cols; j++) {
    if (xs && xs->pos[j] < 0) continue;
    for (int q = B->colptr[j]; q < B->colptr[j + 1]; q++) rs->pos[B->rowind[q]] = 0;
  }
  rs->nrow = 0;
  for (int i = 0; i < B->rows; i++) {
    if (rs->pos[i] == 0) {
      rs->idx[rs->nrow] = i;
      rs->pos[i] = rs->nrow++;
    }
  }
  return 1;
}

static int block_init(sblk *s, const op_block *b, int how) {
  s->b = b;
  s->how = how;
  int *cnt = calloc((size_t)b->rows + 1, sizeof(int));
  if (!cnt) return 0;
  for (int q = 0; q < b->nnz; q++) cnt[b->rowind[q]]++;
  s->kmax = 1;
  for (int i = 0; i < b->rows; i++) s->kmax = cnt[i] > s->kmax ? cnt[i] : s->kmax;
  free(cnt);
  int ok = 1;
  for (int d = 0; d < 3; d++) {
    s->m[d] = calloc((size_t)b->nnz + 1, sizeof(double));
    s->r[d] = calloc((size_t)b->nnz + 1, sizeof(double));
    ok = ok && s->m[d] && s->r[d];
  }
  return ok;
}

static int alloc_dense(op_piproof *p) {
  size_t nn = (size_t)p->nr * (size_t)p->nr + 1;
  int ok = 1;
  for (int d = 0; d < 3; d++) {
    p->Pm[d] = malloc(nn * sizeof(double));
    p->Pr[d] = malloc(nn * sizeof(double));
    ok = ok && p->Pm[d] && p->Pr[d];
  }
  p->M = malloc(nn * sizeof(double));
  p->em = malloc(nn * sizeof(double));
  p->er = malloc(nn * sizeof(double));
  p->ax = malloc(nn * sizeof(double));
  p->ay = malloc(nn * sizeof(double));
  p->tm = malloc(nn * sizeof(double));
  p->ipiv = malloc(((size_t)p->nr + 1) * sizeof(lapack_int));
  return ok && p->M && p->em && p->er && p->ax && p->ay && p->tm && p->ipiv;
}

/* The chain's blocks, their row sets and the scratch. */
static const char *alloc_parts(op_piproof *p) {
  const lth_opsys *sys = p->sys;
  size_t nw = 0;
  p->blk = calloc((size_t)p->r, sizeof *p->blk);
  p->rs = calloc((size_t)p->r, sizeof *p->rs);
  if (!p->blk || !p->rs) return "out of memory";
  for (int k = 0; k < p->r; k++) {
    const op_block *b = chain_block(sys, k);
    int how = enclose_kind(b);
    if (how < 0) {
      return "a block of Pi's chain has no enclosure (a callback or a mass-matrix solve)";
    }
    if (!block_init(&p->blk[k], b, how) || !rowset_of(b, k ? &p->rs[k - 1] : NULL, &p->rs[k])) {
      return "out of memory";
    }
    size_t w = how == ENC_CONST ? 0 : lth_source_enclose_work_size(b->src, 2);
    nw = w > nw ? w : nw;
    p->maxnnz = (size_t)b->nnz > p->maxnnz ? (size_t)b->nnz : p->maxnnz;
    p->maxrow = (size_t)p->rs[k].nrow > p->maxrow ? (size_t)p->rs[k].nrow : p->maxrow;
  }
  size_t thin_n = p->maxrow * (size_t)p->nr;
  p->coef = malloc((3 * p->maxnnz + 1) * sizeof *p->coef);
  p->work = malloc((nw + 1) * sizeof *p->work);
  if (!p->coef || !p->work || !thin_init(&p->X, thin_n) || !thin_init(&p->Y, thin_n) ||
      !alloc_dense(p)) {
    return "out of memory";
  }
  return NULL;
}

op_piproof *op_piproof_alloc(const lth_opsys *sys, const char **why) {
  const char *no = NULL;
  if (sys->nr > LTH_DEFAULT_OP_PI_PROOF_NR) {
    no = "n_r is above LTH_DEFAULT_OP_PI_PROOF_NR (Pi's model would be dense n_r x n_r)";
  }
  for (int k = 0; k < sys->r && !no; k++) {
    if (chain_block(sys, k)->mass) {
      no = "a block of Pi's chain is a mass matrix's solve M^-1 A(i,j) (not diagonal), which "
           "carries no enclosure";
    }
  }
  op_piproof *p = no ? NULL : calloc(1, sizeof *p);
  if (!no && !p) no = "out of memory";
  if (p) {
    p->sys = sys;
    p->r = sys->r;
    p->nr = sys->nr;
    no = alloc_parts(p);
  }
  if (no) {
    op_piproof_free(p);
    p = NULL;
  }
  if (why) *why = no;
  return p;
}

/* Midpoint and radius of [lo, hi], the radius rounded up; 0 if unbounded. */
static int mid_rad(lth_interval iv, double *m, double *r) {
  if (!isfinite(iv.lo) || !isfinite(iv.hi) || iv.lo > iv.hi) return 0;
  *m = 0.5 * iv.lo + 0.5 * iv.hi;
  *r = fmax(iv.hi - *m, *m - iv.lo) * (1.0 + 2.0 * EPS) + DBL_MIN;
  return 1;
}

/* Enclosures of block s's values on its pattern over [a, b] into p->coef
 * (entry q of order d at coef[d nnz + q]). */
static int enclose_block(op_piproof *p, const sblk *s, double a, double b, int order) {
  const op_block *B = s->b;
  size_t nz = (size_t)B->nnz;
  if (s->how == ENC_CONST) {
    for (size_t q = 0; q < nz * (size_t)(order + 1); q++) {
      double v = q < nz ? B->cval[q] : 0.0;
      p->coef[q] = (lth_interval){v, v};
    }
    return 1;
  }
  lth_status st = s->how == ENC_CSC
                      ? lth_source_enclose_csc(B->src, a, b, order, p->coef, nz, p->work, NULL)
                      : lth_source_enclose(B->src, a, b, order, p->coef, p->work, NULL);
  return st == LTH_OK;
}

static double block_norm_bound(const sblk *s, double h);

/* Block k's model on [a, b] around c: 1 if every enclosure is bounded.  A
 * constant block's is its values at every t: made once. */
static int block_model(op_piproof *p, int k, double c, double a, double b) {
  sblk *s = &p->blk[k];
  size_t nz = (size_t)s->b->nnz;
  if (s->fixed) return 1;
  if (s->how == ENC_CONST) {
    for (size_t q = 0; q < nz; q++) s->m[0][q] = s->b->cval[q]; /* the rest stays zero */
    s->norm = block_norm_bound(s, 0.0);
    s->fixed = 1;
    return 1;
  }
  if (!enclose_block(p, s, c, c, 1)) return 0;
  for (size_t q = 0; q < nz; q++) {
    if (!mid_rad(p->coef[q], &s->m[0][q], &s->r[0][q]) ||
        !mid_rad(p->coef[nz + q], &s->m[1][q], &s->r[1][q])) {
      return 0;
    }
  }
  if (!enclose_block(p, s, a, b, 2)) return 0;
  for (size_t q = 0; q < nz; q++) {
    if (!mid_rad(p->coef[2 * nz + q], &s->m[2][q], &s->r[2][q])) return 0;
  }
  return 1;
}

/* Upper bound of ||A(t)||_1 on [c - h, c + h] from block s's model (the
 * column sums of |m0 + m1 s| are convex in s: largest at s = -h or h). */
static double block_norm_bound(const sblk *s, double h) {
  const op_block *B = s->b;
  if (s->fixed) return s->norm;
  double best = 0.0;
  for (int j = 0; j < B->cols; j++) {
    double lo = 0.0, hi = 0.0, rad = 0.0; /* at s = -h, s = h; the common part */
    for (int q = B->colptr[j]; q < B->colptr[j + 1]; q++) {
      double m0 = s->m[0][q], m1h = s->m[1][q] * h;
      lo += fabs(m0 - m1h);
      hi += fabs(m0 + m1h);
      rad += s->r[0][q] + s->r[1][q] * h + (fabs(s->m[2][q]) + s->r[2][q]) * h * h;
    }
    double cnt = (double)(B->colptr[j + 1] - B->colptr[j]);
    best = fmax(best, (fmax(lo, hi) + rad) * (1.0 + (cnt + 6.0) * EPS));
  }
  return best + DBL_MIN;
}

/* X = L_0 = A(1,r)'s model, at the rows rs[0] (exact: a copy). */
static void thin_first(op_piproof *p) {
  const sblk *s = &p->blk[0];
  const op_block *B = s->b;
  const rowset *rs = &p->rs[0];
  int nr = p->nr;
  size_t n = (size_t)rs->nrow * (size_t)nr;
  for (int d = 0; d < 3; d++) {
    memset(p->X.m[d], 0, n * sizeof(double));
    memset(p->X.r[d], 0, n * sizeof(double));
  }
  for (int j = 0; j < B->cols; j++) {
    for (int q = B->colptr[j]; q < B->colptr[j + 1]; q++) {
      size_t e = (size_t)rs->pos[B->rowind[q]] * (size_t)nr + (size_t)j;
      for (int d = 0; d < 3; d++) {
        p->X.m[d][e] = s->m[d][q];
        p->X.r[d][e] = s->r[d][q];
      }
    }
  }
}

/* One entry's model times one row of a thin model, added to a row of Z:
 *   Z0 += a0 x0,  Z1 += a0 x1 + a1 x0,  Z2 += a0 x2 + a1 x1 + a2 x0
 *   + [-1, 1] (h |a1||x2| + h |a2||x1| + h^2 |a2||x2|)   (degrees 3, 4 folded),
 * each interval product [am +- ar][xm +- xr] with the radius
 * |am| xr + ar (|xm| + xr) and the rounding g |am| |xm|. */
typedef struct {
  double m[3], r[3];
} ent;

static void axpy_row(const ent *a, const thin *X, size_t xo, thin *Z, size_t zo, int nr, double g,
                     double h) {
  double am[3], ga[3], mag[3];
  for (int d = 0; d < 3; d++) {
    am[d] = fabs(a->m[d]);
    ga[d] = g * am[d];
    mag[d] = am[d] + a->r[d];
  }
  const double *x0 = X->m[0] + xo, *x1 = X->m[1] + xo, *x2 = X->m[2] + xo;
  const double *r0 = X->r[0] + xo, *r1 = X->r[1] + xo, *r2 = X->r[2] + xo;
  double *z0 = Z->m[0] + zo, *z1 = Z->m[1] + zo, *z2 = Z->m[2] + zo;
  double *s0 = Z->r[0] + zo, *s1 = Z->r[1] + zo, *s2 = Z->r[2] + zo;
  for (int c = 0; c < nr; c++) {
    double ax0 = fabs(x0[c]), ax1 = fabs(x1[c]), ax2 = fabs(x2[c]);
    double X0 = ax0 + r0[c], X1 = ax1 + r1[c], X2 = ax2 + r2[c];
    z0[c] += a->m[0] * x0[c];
    z1[c] += a->m[0] * x1[c] + a->m[1] * x0[c];
    z2[c] += a->m[0] * x2[c] + a->m[1] * x1[c] + a->m[2] * x0[c];
    /* |a_i| x-radius + a-radius |x_j| (+ rounding): one term per product */
    double p00 = am[0] * r0[c] + ga[0] * ax0 + a->r[0] * X0;
    double p01 = am[0] * r1[c] + ga[0] * ax1 + a->r[0] * X1;
    double p10 = am[1] * r0[c] + ga[1] * ax0 + a->r[1] * X0;
    double p02 = am[0] * r2[c] + ga[0] * ax2 + a->r[0] * X2;
    double p11 = am[1] * r1[c] + ga[1] * ax1 + a->r[1] * X1;
    double p20 = am[2] * r0[c] + ga[2] * ax0 + a->r[2] * X0;
    s0[c] += p00;
    s1[c] += p01 + p10;
    s2[c] += p02 + p11 + p20 + h * (mag[1] * X2 + mag[2] * X1) + h * h * mag[2] * X2;
  }
}

/* Y = blk[k] X (X at the rows rs[k-1], Y at rs[k]), then the radii's own
 * rounding.  O(nnz(blk[k]) nr). */
static void thin_mul(op_piproof *p, int k, double h) {
  const sblk *s = &p->blk[k];
  const op_block *B = s->b;
  const rowset *xs = &p->rs[k - 1], *ys = &p->rs[k];
  int nr = p->nr;
  size_t n = (size_t)ys->nrow * (size_t)nr;
  for (int d = 0; d < 3; d++) {
    memset(p->Y.m[d], 0, n * sizeof(double));
    memset(p->Y.r[d], 0, n * sizeof(double));
  }
  double N = 3.0 * s->kmax + 3.0, g = (N + 1.0) * EPS;
  for (int j = 0; j < B->cols; j++) {
    int qx = xs->pos[j];
    if (qx < 0) continue;
    for (int q = B->colptr[j]; q < B->colptr[j + 1]; q++) {
      ent a;
      for (int d = 0; d < 3; d++) {
        a.m[d] = s->m[d][q];
        a.r[d] = s->r[d][q];
      }
      size_t zo = (size_t)ys->pos[B->rowind[q]] * (size_t)nr;
      axpy_row(&a, &p->X, (size_t)qx * (size_t)nr, &p->Y, zo, nr, g, h);
    }
  }
  double grow = 1.0 + (2.0 * N + 6.0) * EPS, tiny = (N + 1.0) * (double)s->kmax * DBL_MIN;
  for (int d = 0; d < 3; d++) {
    for (size_t e = 0; e < n; e++) p->Y.r[d][e] = p->Y.r[d][e] * grow + tiny;
  }
  thin t = p->X;
  p->X = p->Y;
  p->Y = t;
}

/* max_j sum_i (|m_ij| + r_ij), rounded up (r may be NULL). */
static double mag_norm1(int n, const double *m, const double *r) {
  double best = 0.0;
  for (int j = 0; j < n; j++) {
    double s = 0.0;
    for (int i = 0; i < n; i++) {
      size_t e = (size_t)j * n + i;
      s += fabs(m[e]) + (r ? r[e] : 0.0);
    }
    best = fmax(best, s);
  }
  return best * (1.0 + (n + 4) * EPS) + DBL_MIN;
}

/* Pi's model (column-major) from the last thin product; 0 if a row of Pi is
 * zero at every t (Pi singular everywhere). */
static int pi_model(op_piproof *p) {
  int nr = p->nr;
  const rowset *rs = &p->rs[p->r - 1];
  if (rs->nrow < nr) return 0;
  for (int i = 0; i < nr; i++) {
    size_t row = (size_t)rs->pos[i] * (size_t)nr;
    for (int j = 0; j < nr; j++) {
      for (int d = 0; d < 3; d++) {
        p->Pm[d][(size_t)j * nr + i] = p->X.m[d][row + j];
        p->Pr[d][(size_t)j * nr + i] = p->X.r[d][row + j];
      }
    }
  }
  return 1;
}

/* q = ||I - M P0|| + h || |M| |P1| || + h^2 || |M| |P2| || (pi_proof.c's
 * neumann_q), M = inv(mid P0) already in p->M. */
static double neumann_q(op_piproof *p, double h) {
  int n = p->nr;
  size_t nn = (size_t)n * n;
  double g = (double)(n + 1) * EPS, grow = 1.0 + (2.0 * n + 6.0) * EPS;
  for (size_t e = 0; e < nn; e++) {
    p->ax[e] = fabs(p->M[e]);
    p->ay[e] = p->Pr[0][e] + g * fabs(p->Pm[0][e]);
  }
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, n, n, 1.0, p->M, n, p->Pm[0], n, 0.0, p->em, n);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, n, n, 1.0, p->ax, n, p->ay, n, 0.0, p->er, n);
  for (size_t e = 0; e < nn; e++) p->em[e] = -p->em[e];
  for (int j = 0; j < n; j++) p->em[(size_t)j * n + j] += 1.0;
  for (size_t e = 0; e < nn; e++) {
    p->er[e] =
        ((p->er[e] * grow + (double)(n + 1) * DBL_MIN) + EPS * fabs(p->em[e])) * (1.0 + 2.0 * EPS);
  }
  double q = mag_norm1(n, p->em, p->er);
  for (int d = 1; d <= 2; d++) {
    for (size_t e = 0; e < nn; e++) p->ay[e] = fabs(p->Pm[d][e]) + p->Pr[d][e];
    lth_small_gemm(CblasNoTrans, CblasNoTrans, n, n, n, 1.0, p->ax, n, p->ay, n, 0.0, p->tm, n);
    double hd = d == 1 ? h : h * h;
    q += hd * mag_norm1(n, p->tm, NULL) * grow;
  }
  return q * (1.0 + 4.0 * EPS);
}

void op_piproof_chain(op_piproof *p, double a, double b, double *value, double *bound) {
  double c = 0.5 * (a + b), h = fmax(c - a, b - c) * (1.0 + 2.0 * EPS);
  *value = *bound = 1.0;
  for (int k = 0; k < p->r; k++) {
    if (!block_model(p, k, c, a, b)) {
      *value = *bound = INFINITY;
      return;
    }
    *value *= block_norm_bound(&p->blk[k], 0.0);
    *bound *= block_norm_bound(&p->blk[k], h);
  }
  *bound *= 1.0 + 2.0 * p->r * EPS;
}

void op_piproof_piece(op_piproof *p, double a, double b, lth_pi_piece *out) {
  memset(out, 0, sizeof *out);
  out->q = INFINITY;
  out->chain_bound = INFINITY;
  double c = 0.5 * (a + b);
  double h = fmax(c - a, b - c) * (1.0 + 2.0 * EPS); /* covers the rounding of c */
  double chain = 1.0;
  for (int k = 0; k < p->r; k++) {
    if (!block_model(p, k, c, a, b)) return;
    chain *= block_norm_bound(&p->blk[k], h);
  }
  out->chain_bound = chain * (1.0 + 2.0 * p->r * EPS);
  if (!isfinite(out->chain_bound)) return;
  thin_first(p);
  for (int k = 1; k < p->r; k++) thin_mul(p, k, h);
  if (!pi_model(p)) return;
  int n = p->nr;
  size_t nn = (size_t)n * n;
  memcpy(p->M, p->Pm[0], nn * sizeof(double));
  if (LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, p->M, n, p->ipiv) != 0 ||
      LAPACKE_dgetri(LAPACK_COL_MAJOR, n, p->M, n, p->ipiv) != 0) {
    return;
  }
  for (size_t e = 0; e < nn; e++) {
    if (!isfinite(p->M[e])) return;
  }
  double q = neumann_q(p, h);
  out->q = q;
  if (!(q < 1.0)) return;
  out->proven = 1;
  out->pinv_bound = mag_norm1(n, p->M, NULL) / (1.0 - q) * (1.0 + 4.0 * EPS);
}
