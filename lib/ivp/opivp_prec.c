/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The preconditioner of lth_opivp_solve's Newton systems (opivp_prec.h).
 *
 * BDF's Newton iteration solves (I - gamma Ahat) x = b with matrix-free GMRES.
 * On a semi-discretisation Ahat's spectrum grows with the mesh (the velocity
 * block nu(t) K of a Stokes-type problem grows as N^2), and so do GMRES's
 * iterations and, through the Newton failures they cause, the steps.  With
 *     M = I - gamma A_v(t),     A_v = the m x m leading part of A(t)
 * (the blocks A_ij with i, j < r: for index 2 the block A_11), sparse and
 * factored by SuiteSparse KLU, and Q = I - P(t), the preconditioner is
 *     T = Q M^{-1} Q + P,
 * applied on the right: GMRES solves (I - gamma Ahat) T y = b, x = T y.
 * M is factored at each set-up CVODE asks for (every 20 steps or so, or when
 * gamma has moved by 20%): the pattern analysed once (AMD, block triangular
 * form), the values with partial pivoting; A_v is read from the system again
 * only when CVODE says its Jacobian data are stale (jok false).
 *
 * Why T: for index 2 Ahat = Q A_11 + (the terms of P' and of the rows of P)
 * (lib/decomp/op_sparsepi.c), so on the state space range(Q) the Newton
 * matrix is Q (I - gamma A_11) Q = Q M Q up to terms that do not grow with
 * the mesh, and on range(P) it is the identity up to the same.  T inverts
 * both parts that way.  With M alone (no projections) the iterations fall
 * 3 to 6 times but the steps still double from s = 3,136 to 7,008 on
 * bench_scale's Stokes case; with T they stop growing (docs/performance.md).
 *
 * Why it cannot change the answer: with right preconditioning SPGMR's
 * stopping test is on the residual of the Newton system itself,
 * ||b - (I - gamma Ahat) x||, whatever T is, and CVODE's Newton and local
 * error tests are unchanged: T decides how fast GMRES gets there, not where.
 * T is nonsingular when M and A21 M A12 are (at index 2: Q M^{-1} x in
 * range(P) = range(A12) for some x in range(Q) = null(A21) means
 * A21 M A12 p = 0; at gamma = 0 that matrix is Pi); a singular or poor T
 * only makes GMRES fail to converge, and CVODE then retries with a smaller
 * step, where T tends to I.  A singular M is a recoverable set-up failure
 * (CVODE changes the step).
 *
 * Without KLU (CMake option LTH_SUITESPARSE) there is no preconditioner and
 * opivp_prec_wanted says 0. */
#include "opivp_prec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/defaults.h"

#if defined(LTH_HAVE_KLU) && defined(LTH_HAVE_CVODE)
#include <klu.h>

struct opivp_prec {
  int m, nnz;     /* M: m x m, nnz entries (A_v's pattern and the diagonal) */
  int *colptr;    /* m + 1 */
  int *rowind;    /* nnz, ascending in each column */
  int *diag;      /* m: the position of M(j, j) */
  int nblk;       /* the blocks of A_v that are set */
  int *bi, *bj;   /* their indices (1-based) */
  int *bstart;    /* nblk + 1: block k's entries at av[bstart[k] ..] */
  int *map;       /* entry p of block k -> its position in M */
  double *av;     /* A_v's values as last taken */
  double *val;    /* M's values */
  double *w, *pr; /* m: scratch of the solve */
  int have_av;
  klu_common kc;
  klu_symbolic *ks;
  klu_numeric *kn;
  size_t setups;
};

/* ||A_v(t)||_1 from the cached point's blocks. */
static double av_norm1(const opivp_ctx *c) {
  int r = lth_opsys_index(c->sys);
  double *col = calloc((size_t)c->m, sizeof(double)), nrm = 0.0;
  if (!col) return 0.0;
  for (int i = 1; i < r; i++) {
    for (int j = 1; j < r; j++) {
      lth_opblock b;
      if (lth_oppoint_block(c->pt, i, j, &b, NULL) != LTH_OK || b.nnz == 0) continue;
      int j0 = lth_opsys_block_offset(c->sys, j);
      for (int jj = 0; jj < b.cols; jj++) {
        for (int q = b.colptr[jj]; q < b.colptr[jj + 1]; q++) col[j0 + jj] += fabs(b.val[q]);
      }
    }
  }
  for (int k = 0; k < c->m; k++) nrm = fmax(nrm, col[k]);
  free(col);
  return nrm;
}

int opivp_prec_wanted(opivp_ctx *c, double t0, double t_end) {
  if (c->o.method != LTH_OPIVP_BDF || c->o.precondition == LTH_OPIVP_PREC_OFF) return 0;
  /* a row kept as M^{-1} A(i,j) (lth_opsys_mass_rows) has no sparse A_v */
  if (lth_opsys_mass_rows(c->sys) > 0) return 0;
  if (c->o.precondition == LTH_OPIVP_PREC_ON) return 1;
  /* AUTO: stiff on the interval, ||A_v(t0)||_1 |t_end - t0| at least the
   * threshold (a choice of speed only: either way the answer is to the
   * tolerance) */
  if (opivp_at(c, t0) != LTH_OK) return 0;
  return av_norm1(c) * fabs(t_end - t0) >= LTH_DEFAULT_OPIVP_PREC_STIFF;
}

void opivp_prec_free(opivp_prec *p) {
  if (!p) return;
  if (p->kn) klu_free_numeric(&p->kn, &p->kc);
  if (p->ks) klu_free_symbolic(&p->ks, &p->kc);
  free(p->colptr), free(p->rowind), free(p->diag), free(p->bi), free(p->bj);
  free(p->bstart), free(p->map), free(p->av), free(p->val), free(p->w), free(p->pr);
  free(p);
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The position of row i in column j of M (present by construction). */
static int find(const opivp_prec *p, int j, int i) {
  int lo = p->colptr[j], hi = p->colptr[j + 1] - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (p->rowind[mid] < i) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/* The blocks of A_v from the point (their patterns are fixed). */
static int read_blocks(opivp_prec *p, const opivp_ctx *c, lth_opblock *blk) {
  int r = lth_opsys_index(c->sys);
  p->nblk = 0;
  for (int i = 1; i < r; i++) {
    for (int j = 1; j < r; j++) {
      lth_opblock b;
      if (lth_oppoint_block(c->pt, i, j, &b, NULL) != LTH_OK) return 0;
      if (b.nnz == 0) continue;
      p->bi[p->nblk] = i, p->bj[p->nblk] = j;
      blk[p->nblk++] = b;
    }
  }
  return 1;
}

/* M's pattern: per column of A_v, the rows of its blocks and the diagonal,
 * sorted and unique; then where each block entry goes. */
static int pattern(opivp_prec *p, const opivp_ctx *c, const lth_opblock *blk) {
  const lth_opsys *sys = c->sys;
  int m = p->m, total = 0;
  p->bstart[0] = 0;
  for (int k = 0; k < p->nblk; k++) p->bstart[k + 1] = total += blk[k].nnz;
  int *tmp = malloc(((size_t)total + (size_t)m) * sizeof(int));
  p->rowind = malloc(((size_t)total + (size_t)m) * sizeof(int));
  p->map = malloc(((size_t)total + 1) * sizeof(int));
  p->av = malloc(((size_t)total + 1) * sizeof(double));
  if (!tmp || !p->rowind || !p->map || !p->av) return free(tmp), 0;
  int nz = 0;
  p->colptr[0] = 0;
  for (int J = 0; J < m; J++) {
    int start = nz;
    tmp[nz++] = J;
    for (int k = 0; k < p->nblk; k++) {
      int j0 = lth_opsys_block_offset(sys, p->bj[k]), nj = lth_opsys_block_size(sys, p->bj[k]);
      if (J < j0 || J >= j0 + nj) continue;
      int i0 = lth_opsys_block_offset(sys, p->bi[k]);
      for (int q = blk[k].colptr[J - j0]; q < blk[k].colptr[J - j0 + 1]; q++) {
        tmp[nz++] = i0 + blk[k].rowind[q];
      }
    }
    qsort(tmp + start, (size_t)(nz - start), sizeof(int), cmp_int);
    int out = p->colptr[J];
    for (int q = start; q < nz; q++) {
      if (q == start || tmp[q] != tmp[q - 1]) p->rowind[out++] = tmp[q];
    }
    p->colptr[J + 1] = out;
    nz = start; /* tmp reused column by column */
  }
  free(tmp);
  p->nnz = p->colptr[m];
  for (int J = 0; J < m; J++) p->diag[J] = find(p, J, J);
  for (int k = 0; k < p->nblk; k++) {
    int j0 = lth_opsys_block_offset(sys, p->bj[k]), i0 = lth_opsys_block_offset(sys, p->bi[k]);
    for (int jj = 0; jj < blk[k].cols; jj++) {
      for (int q = blk[k].colptr[jj]; q < blk[k].colptr[jj + 1]; q++) {
        p->map[p->bstart[k] + q] = find(p, j0 + jj, i0 + blk[k].rowind[q]);
      }
    }
  }
  p->val = malloc((size_t)p->nnz * sizeof(double));
  return p->val != NULL;
}

opivp_prec *opivp_prec_alloc(opivp_ctx *c) {
  int r = lth_opsys_index(c->sys), nb = (r - 1) * (r - 1);
  opivp_prec *p = calloc(1, sizeof *p);
  lth_opblock *blk = malloc((size_t)nb * sizeof *blk);
  int ok = p && blk;
  if (ok) {
    p->m = c->m;
    klu_defaults(&p->kc);
    p->colptr = malloc(((size_t)c->m + 1) * sizeof(int));
    p->diag = malloc((size_t)c->m * sizeof(int));
    p->bi = malloc((size_t)nb * sizeof(int));
    p->bj = malloc((size_t)nb * sizeof(int));
    p->bstart = malloc(((size_t)nb + 1) * sizeof(int));
    p->w = malloc((size_t)c->m * sizeof(double));
    p->pr = malloc((size_t)c->m * sizeof(double));
    ok = p->colptr && p->diag && p->bi && p->bj && p->bstart && p->w && p->pr;
  }
  /* the patterns are the point's: a decomposition at t0 is cached already */
  ok = ok && c->have_pt && read_blocks(p, c, blk) && pattern(p, c, blk);
  if (ok) {
    p->ks = klu_analyze(p->m, p->colptr, p->rowind, &p->kc);
    ok = p->ks != NULL;
  }
  free(blk);
  if (!ok) {
    opivp_prec_free(p);
    if (!c->failed) {
      lth_error_set(&c->fail, LTH_ENOMEM,
                    "lth_opivp_solve: out of memory setting up the preconditioner");
      c->failed = 1;
    }
    return NULL;
  }
  return p;
}

/* A_v's values at the cached point into p->av. */
static int take_av(opivp_prec *p, opivp_ctx *c, double t) {
  if (opivp_at(c, t) != LTH_OK) return -1;
  for (int k = 0; k < p->nblk; k++) {
    lth_opblock b;
    if (lth_oppoint_block(c->pt, p->bi[k], p->bj[k], &b, NULL) != LTH_OK) return -1;
    memcpy(p->av + p->bstart[k], b.val, (size_t)b.nnz * sizeof(double));
  }
  p->have_av = 1;
  return 0;
}

int opivp_prec_setup(opivp_prec *p, opivp_ctx *c, double t, int jok, double gamma, int *jcur) {
  *jcur = 0;
  if (!jok || !p->have_av) {
    if (take_av(p, c, t) != 0) return -1;
    *jcur = 1;
  }
  memset(p->val, 0, (size_t)p->nnz * sizeof(double));
  for (int j = 0; j < p->m; j++) p->val[p->diag[j]] = 1.0;
  int total = p->bstart[p->nblk];
  for (int q = 0; q < total; q++) p->val[p->map[q]] -= gamma * p->av[q];
  if (p->kn) klu_free_numeric(&p->kn, &p->kc);
  p->kn = klu_factor(p->colptr, p->rowind, p->val, p->ks, &p->kc);
  p->setups++;
  if (p->kc.status == KLU_OUT_OF_MEMORY) {
    if (!c->failed) {
      lth_error_set_t(&c->fail, LTH_ENOMEM, t,
                      "lth_opivp_solve: out of memory factoring the preconditioner at t = %.17g",
                      t);
      c->failed = 1;
    }
    return -1;
  }
  return p->kn ? 0 : 1; /* singular M: another step size */
}

/* w = M^{-1} w in place. */
static int msolve(opivp_prec *p, double *w) {
  if (!p->kn) return 1;
  return klu_solve(p->ks, p->kn, p->m, 1, w, &p->kc) ? 0 : 1;
}

int opivp_prec_solve(opivp_prec *p, opivp_ctx *c, double t, const double *r, double *z) {
  /* z = Q M^{-1} (Q r) + P r, P r = r - Q r: two projections, one solve */
  if (opivp_proj(c, t, 1, r, p->w) != LTH_OK) return -1;
  for (int i = 0; i < p->m; i++) p->pr[i] = r[i] - p->w[i];
  int f = msolve(p, p->w);
  if (f != 0) return f;
  if (opivp_proj(c, t, 1, p->w, z) != LTH_OK) return -1;
  for (int i = 0; i < p->m; i++) z[i] += p->pr[i];
  return 0;
}

size_t opivp_prec_setups(const opivp_prec *p) { return p ? p->setups : 0; }

#else
/* Without KLU (or CVODE) there is no preconditioner. */
int opivp_prec_wanted(opivp_ctx *c, double t0, double t_end) {
  (void)c, (void)t0, (void)t_end;
  return 0;
}
opivp_prec *opivp_prec_alloc(opivp_ctx *c) {
  (void)c;
  return NULL;
}
void opivp_prec_free(opivp_prec *p) { (void)p; }
int opivp_prec_setup(opivp_prec *p, opivp_ctx *c, double t, int jok, double gamma, int *jcur) {
  (void)p, (void)c, (void)t, (void)jok, (void)gamma;
  *jcur = 0;
  return -1;
}
int opivp_prec_solve(opivp_prec *p, opivp_ctx *c, double t, const double *r, double *z) {
  (void)p, (void)c, (void)t, (void)r, (void)z;
  return -1;
}
size_t opivp_prec_setups(const opivp_prec *p) {
  (void)p;
  return 0;
}
#endif
