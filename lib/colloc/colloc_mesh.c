/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation on one mesh (lib/colloc/colloc.h): the discretisation y_{k+1} =
 * F_k y_k + f_k with the data of every mesh point, its solution for given
 * boundary conditions, and the solution at any time.
 *
 * Mesh point k carries W_k (orthonormal basis of range(I - P(t_k))), G(t_k) W_k
 * and q(t_k), so z(t_k) = G W_k y_k + q(t_k) (Corollary 3: z = G v + q).
 * Interval k: one Gauss step in the coordinates of W_k gives
 * y(t_{k+1}) = Gam y_k + gam in those coordinates; at t_{k+1} the same state
 * v = R_k(t_{k+1}) y has the coordinates W_{k+1}' v, so
 *     F_k = W_{k+1}' R_k(t_{k+1}) Gam,   f_k = W_{k+1}' R_k(t_{k+1}) gam.
 * Every v the method produces is R y or W y, in range(I - P) to rounding:
 * there is no drift to control.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "abd.h"
#include "colloc.h"
#include "core/errors.h"

void lth_cmesh_free(lth_cmesh *M) {
  if (!M) return;
  free(M->t);
  free(M->Y);
  free(M);
}

lth_cmesh *lth_cmesh_alloc(size_t N, int s, int m, int p, lth_error *err) {
  lth_cmesh *M = calloc(1, sizeof *M);
  size_t n1 = N + 1, mp = (size_t)m * p, sp = (size_t)s * p, pp = (size_t)p * p;
  if (M) {
    M->t = malloc(sizeof(double) * (n1 * (2 + mp + sp + s + p) + N * (2 * pp + 2 * p + 1) + 1));
  }
  if (!M || !M->t) {
    lth_cmesh_free(M);
    lth_error_set(err, LTH_ENOMEM, "out of memory for a collocation mesh of %zu intervals", N);
    return NULL;
  }
  M->N = N;
  M->s = s;
  M->m = m;
  M->p = p;
  M->W = M->t + n1;
  M->GW = M->W + n1 * mp;
  M->q = M->GW + n1 * sp;
  M->y = M->q + n1 * s;
  M->F = M->y + n1 * p;
  M->f = M->F + N * pp;
  M->rc = M->f + N * p;
  M->pw = M->rc + N;
  M->dC = M->pw + n1;
  M->dd = M->dC + N * pp;
  return M;
}

/* Data of mesh point k from the decomposition pt at t_k. */
static lth_status point_data(lth_colloc_ctx *cx, lth_cmesh *M, size_t k, const lth_point *pt,
                             lth_error *err) {
  int s = M->s, m = M->m, p = M->p;
  double *W = M->W + k * (size_t)m * p;
  lth_status st = lth_colloc_basis(cx, pt, W, err);
  if (st != LTH_OK) return st;
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, s, p, m, 1.0, pt->G.c, pt->G.ld, W, m, 0.0,
              M->GW + k * (size_t)s * p, s);
  memcpy(M->q + k * (size_t)s, pt->q.c, sizeof(double) * s);
  double *PW = lth_colloc_scratch(cx); /* m x p fits */
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, p, m, 1.0, pt->P.c, pt->P.ld, W, m, 0.0,
              PW, m);
  M->pw[k] = cblas_dnrm2(m * p, PW, 1);
  return LTH_OK;
}

static void copy_point(lth_cmesh *M, size_t k, const lth_cmesh *O, size_t i) {
  size_t mp = (size_t)M->m * M->p, sp = (size_t)M->s * M->p;
  memcpy(M->W + k * mp, O->W + i * mp, sizeof(double) * mp);
  memcpy(M->GW + k * sp, O->GW + i * sp, sizeof(double) * sp);
  memcpy(M->q + k * M->s, O->q + i * M->s, sizeof(double) * M->s);
  M->pw[k] = O->pw[i];
}

/* An interval [a, b] of a previous mesh (bitwise equal ends): its mesh and index. */
static const lth_cmesh *find_interval(lth_cmesh *const *old, int nold, double a, double b,
                                      size_t *idx) {
  for (int o = 0; o < nold; o++) {
    const lth_cmesh *O = old[o];
    if (!O) continue;
    size_t lo = 0, hi = O->N; /* O->t[lo] <= a < O->t[hi] */
    if (!(a >= O->t[0] && a < O->t[O->N])) continue;
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (O->t[mid] <= a)
        lo = mid;
      else
        hi = mid;
    }
    if (O->t[lo] == a && O->t[lo + 1] == b) {
      *idx = lo;
      return O;
    }
  }
  return NULL;
}

/* A mesh point of a previous mesh at exactly t (the halving shares every
 * point of its mesh): its mesh and index, or NULL. */
static const lth_cmesh *find_point(lth_cmesh *const *old, int nold, double t, size_t *idx) {
  for (int o = 0; o < nold; o++) {
    const lth_cmesh *O = old[o];
    if (!O || !(t >= O->t[0] && t <= O->t[O->N])) continue;
    size_t lo = 0, hi = O->N;
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (O->t[mid] <= t)
        lo = mid;
      else
        hi = mid;
    }
    size_t k = O->t[hi] == t ? hi : lo;
    if (O->t[k] == t) {
      *idx = k;
      return O;
    }
  }
  return NULL;
}

/* dC = W'(Ahat_1 R_1 - Ahat_2 R_2) (p x p), dd = W'(g_1 - g_2): how far the
 * table's y' = C y + d is from the exact one at a point (buf: m p). */
static void table_gap(const lth_point *p1, const double *R1, const lth_point *p2, const double *R2,
                      const double *W, int m, int p, double *buf, double *dC, double *dd) {
  double *AR = buf;
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, p, m, 1.0, p1->Ahat.c, p1->Ahat.ld, R1,
              m, 0.0, AR, m);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, p, m, -1.0, p2->Ahat.c, p2->Ahat.ld, R2,
              m, 1.0, AR, m);
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p, p, m, 1.0, W, m, AR, m, 0.0, dC, p);
  for (int i = 0; i < m; i++) AR[i] = p1->g.c[i] - p2->g.c[i];
  cblas_dgemv(CblasColMajor, CblasTrans, m, p, 1.0, W, m, AR, 1, 0.0, dd, 1);
}

/* Interval k from scratch: the Gauss step, then the data of point k+1 and
 * the change of coordinates there.  The step's end is mapped with the
 * coefficients of its nodes (lth_colloc_node_point); the point's own data
 * W, G W, q come from its exact decomposition. */
static lth_status new_interval(lth_colloc_ctx *cx, lth_cmesh *M, size_t k, lth_cmesh *const *old,
                               int nold, double *work, lth_error *err) {
  int m = M->m, p = M->p;
  size_t pp = (size_t)p * p, mp = (size_t)m * p;
  double *Gam = work, *gam = Gam + pp, *R = gam + p, *J = R + mp, *R2 = J + pp, *buf = R2 + mp;
  const double *Wk = M->W + k * mp;
  double a = M->t[k], b = M->t[k + 1], rc1 = 0.0, rc2 = 0.0, rc3 = 0.0;
  lth_status st = lth_colloc_step(cx, Wk, a, b - a, Gam, gam, &rc1, err);
  const lth_point *pn = NULL, *pt = NULL;
  if (st == LTH_OK) st = lth_colloc_node_point(cx, b, &pn, err);
  if (st == LTH_OK) st = lth_colloc_transfer(cx, pn, Wk, R, &rc2, err);
  memset(M->dC + k * pp, 0, sizeof(double) * pp);
  memset(M->dd + k * (size_t)p, 0, sizeof(double) * p);
  size_t i = 0;
  const lth_cmesh *O = st == LTH_OK ? find_point(old, nold, b, &i) : NULL;
  if (O) { /* decomposed before: its data (the table's gap is sampled elsewhere) */
    copy_point(M, k + 1, O, i);
  } else if (st == LTH_OK) {
    st = lth_colloc_point(cx, b, &pt, err);
  }
  if (st == LTH_OK && !O && pt != pn) {
    M->gaps = 1;
    st = lth_colloc_transfer(cx, pt, Wk, R2, &rc3, err);
    if (st == LTH_OK && rc2 > 0.0 && rc3 > 0.0) {
      table_gap(pn, R, pt, R2, Wk, m, p, buf, M->dC + k * pp, M->dd + k * (size_t)p);
    }
  }
  if (st == LTH_OK && !O) st = point_data(cx, M, k + 1, pt, err);
  if (st != LTH_OK) return st;
  const double *W1 = M->W + (k + 1) * mp;
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p, p, m, 1.0, W1, m, R, m, 0.0, J, p);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, p, p, 1.0, J, p, Gam, p, 0.0,
              M->F + k * pp, p);
  cblas_dgemv(CblasColMajor, CblasNoTrans, p, p, 1.0, J, p, gam, 1, 0.0, M->f + k * (size_t)p, 1);
  M->rc[k] = fmin(rc1, rc2);
  return LTH_OK;
}

lth_status lth_cmesh_build(lth_colloc_ctx *cx, lth_cmesh *M, lth_cmesh *const *old, int nold,
                           lth_error *err) {
  int m = M->m, p = M->p;
  size_t pp = (size_t)p * p, mp = (size_t)m * p;
  double *work = malloc(sizeof(double) * (2 * pp + p + 3 * mp + 1));
  if (!work) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  lth_status st = LTH_OK;
  int have = 0; /* data of point k present */
  for (size_t k = 0; k < M->N && st == LTH_OK; k++) {
    size_t i = 0;
    const lth_cmesh *O = find_interval(old, nold, M->t[k], M->t[k + 1], &i);
    if (O && have && memcmp(M->W + k * mp, O->W + i * mp, sizeof(double) * mp) != 0) {
      O = NULL; /* a different basis at t_k: the old F_k does not apply */
    }
    if (O) {
      if (!have) copy_point(M, k, O, i);
      copy_point(M, k + 1, O, i + 1);
      memcpy(M->F + k * pp, O->F + i * pp, sizeof(double) * pp);
      memcpy(M->f + k * p, O->f + i * p, sizeof(double) * p);
      M->rc[k] = O->rc[i];
      memcpy(M->dC + k * pp, O->dC + i * pp, sizeof(double) * pp);
      memcpy(M->dd + k * p, O->dd + i * p, sizeof(double) * p);
      M->gaps |= O->gaps;
      have = 1;
      continue;
    }
    if (!have) {
      const lth_point *pt;
      st = lth_colloc_point(cx, M->t[k], &pt, err);
      if (st == LTH_OK) st = point_data(cx, M, k, pt, err);
    }
    if (st == LTH_OK) st = new_interval(cx, M, k, old, nold, work, err);
    have = 1;
  }
  free(work);
  return st;
}

/* Rows of [D0 DN] -- the conditions restricted to the consistent manifold at
 * t0 and t1 -- that vanish or are dependent: then no dynamics can make the
 * BVP uniquely solvable.  Returns how many rows are named (0: the rows are
 * independent there and a singular system comes from the dynamics). */
static int dependent_rows(const double *D0, const double *DN, const lth_colloc_bc *bc,
                          const lth_cmesh *M, int *rows, int max) {
  int nb = bc->rows, p = M->p, s = M->s, p2 = 2 * p;
  if (nb != p) return 0; /* rows > p (LQR): redundant rows are legitimate */
  double g = fmax(LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', s, p, M->GW, s),
                  LAPACKE_dlange(LAPACK_COL_MAJOR, 'F', s, p, M->GW + M->N * (size_t)s * p, s));
  double *D = malloc(sizeof(double) * ((size_t)nb * p2 + (size_t)nb * nb + (size_t)p2 + 2));
  if (!D) return 0;
  double *U = D + (size_t)nb * p2, *sv = U + (size_t)nb * nb;
  int n = 0;
  for (int i = 0; i < nb && n == 0; i++) {
    double b = hypot(cblas_dnrm2(s, bc->B0 + i, nb), cblas_dnrm2(s, bc->B1 + i, nb)) * g;
    double di = hypot(cblas_dnrm2(p, D0 + i, nb), cblas_dnrm2(p, DN + i, nb));
    if (!(di > 1e-12 * b)) {
      rows[n++] = i; /* this row sees nothing of the manifold */
    }
    for (int j = 0; j < p; j++) {
      D[i + (size_t)j * nb] = di > 0 ? D0[i + (size_t)j * nb] / di : 0.0;
      D[i + (size_t)(p + j) * nb] = di > 0 ? DN[i + (size_t)j * nb] / di : 0.0;
    }
  }
  if (n == 0 &&
      LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'N', nb, p2, D, nb, sv, U, nb, NULL, 1, sv + nb) == 0 &&
      !(sv[nb - 1] > 1e-12 * sv[0])) {
    const double *u = U + (size_t)(nb - 1) * nb; /* left null vector: the combination */
    double mx = 0.0;
    for (int i = 0; i < nb; i++) mx = fmax(mx, fabs(u[i]));
    for (int i = 0; i < nb && n < max; i++) {
      if (fabs(u[i]) > 0.1 * mx) rows[n++] = i;
    }
  }
  free(D);
  return n;
}

/* The table's share of the error: the discrete BVP with zero boundary data
 * and the sources h_k (dC_k y_k + dd_k) -- the perturbation of each step the
 * table made, sampled at the step's end -- solved with the same factors;
 * table_err = max_k ||G W_k dy_k||_inf.  d: nb doubles of scratch.  The
 * rows of a least-squares system (nb > p) take d = 0 as well. */
static lth_status table_response(const lth_abd *A, lth_cmesh *M, int nb, double *d,
                                 lth_error *err) {
  int s = M->s, p = M->p;
  size_t N = M->N, pp = (size_t)p * p;
  double *src = malloc(sizeof(double) * (N * (size_t)p + (N + 1) * (size_t)p + (size_t)s + 1));
  if (!src) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *dy = src + N * p, *z = dy + (N + 1) * p;
  for (size_t k = 0; k < N; k++) {
    double h = M->t[k + 1] - M->t[k];
    memcpy(src + k * p, M->dd + k * p, sizeof(double) * p);
    cblas_dgemv(CblasColMajor, CblasNoTrans, p, p, 1.0, M->dC + k * pp, p, M->y + k * p, 1, 1.0,
                src + k * p, 1);
    cblas_dscal(p, h, src + k * p, 1);
  }
  memset(d, 0, sizeof(double) * (size_t)nb);
  lth_status st = lth_abd_solve(A, 1, src, d, dy, NULL, err);
  for (size_t k = 0; st == LTH_OK && k <= N; k++) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, M->GW + k * (size_t)s * p, s, dy + k * p, 1,
                0.0, z, 1);
    for (int i = 0; i < s; i++) M->table_err = fmax(M->table_err, fabs(z[i]));
  }
  free(src);
  return st;
}

lth_status lth_cmesh_solve(lth_colloc_ctx *cx, lth_cmesh *M, const lth_colloc_bc *bc,
                           int keep_homog, double rank_tol, lth_error *err) {
  LTH_ERROR_RECORD(err);
  (void)cx;
  int s = M->s, p = M->p, nb = bc->rows;
  size_t N = M->N, sp = (size_t)s * p;
  double *buf = malloc(sizeof(double) * (2 * (size_t)nb * p + (size_t)nb * nb + nb + 1));
  lth_abd *A = buf ? lth_abd_alloc(p, nb, N, err) : NULL;
  lth_status st =
      A ? LTH_OK
        : (buf ? (lth_error_status(err)) : lth_error_set(err, LTH_ENOMEM, "out of memory"));
  double *D0 = buf, *DN = D0 + (size_t)nb * p, *Id = DN + (size_t)nb * p, *d = Id + (size_t)nb * nb;
  if (st == LTH_OK) {
    /* D0 = B0 G(t0) W_0,  DN = B1 G(t1) W_N,  d = beta - B0 q(t0) - B1 q(t1) */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nb, p, s, 1.0, bc->B0, nb, M->GW, s, 0.0,
                D0, nb);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nb, p, s, 1.0, bc->B1, nb,
                M->GW + N * sp, s, 0.0, DN, nb);
    memcpy(d, bc->beta, sizeof(double) * nb);
    cblas_dgemv(CblasColMajor, CblasNoTrans, nb, s, -1.0, bc->B0, nb, M->q, 1, 1.0, d, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, nb, s, -1.0, bc->B1, nb, M->q + N * s, 1, 1.0, d, 1);
    M->ndep = dependent_rows(D0, DN, bc, M, M->dep_rows, 16);
    if (M->ndep > 0) {
      M->rank = -1;
      st = lth_error_set(err, LTH_ENOTUNIQUE,
                         "the boundary conditions are dependent on the consistent manifold");
    }
  }
  if (st == LTH_OK) st = lth_abd_factor(A, M->F, D0, DN, err);
  if (st == LTH_OK) {
    lth_abd_set_rank_tol(A, rank_tol);
    M->rank = lth_abd_rank(A);
    M->rank_cond = lth_abd_cond(A);
    M->bc_cond = nb > p ? lth_abd_bc_cond(A) : NAN;
    if (M->rank < 2 * p) {
      st = lth_error_set(err, LTH_ENOTUNIQUE,
                         "the collocation system is singular (rank %d < %d): the boundary "
                         "conditions do not fix the solution on the consistent manifold",
                         M->rank, 2 * p);
    }
  }
  if (st == LTH_OK) st = lth_abd_solve(A, 1, M->f, d, M->y, &M->lsq_resid, err);
  M->table_err = 0.0;
  if (st == LTH_OK && M->gaps && !keep_homog) st = table_response(A, M, nb, d, err);
  if (st == LTH_OK && keep_homog) {
    free(M->Y);
    M->nh = 0;
    M->Y = malloc(sizeof(double) * ((N + 1) * (size_t)p * nb + 1));
    if (!M->Y) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK && keep_homog) {
    for (int j = 0; j < nb; j++) {
      for (int i = 0; i < nb; i++) Id[i + (size_t)j * nb] = i == j ? 1.0 : 0.0;
    }
    st = lth_abd_solve(A, nb, NULL, Id, M->Y, NULL, err);
    M->nh = st == LTH_OK ? nb : 0;
  }
  lth_abd_free(A);
  free(buf);
  return st;
}
