/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator form with a sparse factorization of Pi (index 2,
 * lth_opsys_set_pi_factor(LTH_OP_PI_SPARSE), lib/decomp/op_sparsepi.c) on
 * Stokes-type systems: a 2-D staggered (MAC) grid of N x N cells, velocities
 * on the faces (all faces free, so that Pi is nonsingular), pressures in the
 * cells, s = 2 N (N + 1) + N^2, n_r = N^2 ~ s/3:
 *   u' = -nu(t) K u - (M(t) .* B^T) p + f1,   0 = B W(t) u + f2,
 * K the 5-point Laplacian of each velocity grid, B the divergence, W(t) a
 * and M(t) positive weights of the entries of B^T (a flux with a
 * time-varying density and a perturbed gradient: P moves with t, so L', R',
 * P' and the derivatives of Pi^{-1} enter Ahat, Bhat, g, q, and Pi is
 * unsymmetric).
 * Checked:
 *   - P x, (I - P) x, Ahat (I - P) x, G x, g and q against the dense
 *     decomposition (lth_decomp_at) and against the thin-factor operator path
 *     (LTH_OP_PI_DENSE), to SAFETY eps times the dense point's error
 *     amplification, orders 0..2, random x;
 *   - Clark's Theorems 1 and 3 on vectors from the sparse path alone, and the
 *     projector identities P^2 = P, P A_12 = A_12, A_21 (I - P) = 0;
 *   - refusals: a Pi exactly singular at t = 1.25 (LTH_ESING naming t),
 *     nearly singular next to it (LTH_ECOND naming t and the estimate), the
 *     pressure of a grid with every boundary face closed (Pi singular: the
 *     constant pressure), forcing the sparse path at index 3;
 *   - the automatic choice (n_r >= LTH_DEFAULT_OP_SPARSE_PI_NR). */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/defaults.h"
#include "lth/opdecomp.h"
#include "lth/source.h"
#include "opcompare.h" /* SAFETY, jet_new, maxabs, diff */
#include "testutil.h"

/* ---- the Stokes-type system ---- */

typedef struct stokes {
  int N, closed, sing; /* closed: no boundary face; sing: A21's row 0 times (t - 1.25) */
  int nu, nv, m, nr;
  int *fi, *fj, *fdir; /* face e: grid indices and direction (0: u, 1: v) */
  int *cp11, *ri11, *cp12, *ri12, *cp21, *ri21;
  double *b12; /* values of A12 = -B^T on its pattern */
  double *b21; /* values of B on A21's pattern */
  int *row21;  /* the cell of each entry of A21 */
  int *col21;  /* the face of each entry of A21 */
  double *k11; /* values of K on A11's pattern */
  double h;
} stokes;

/* Taylor coefficient k of a sin(w t + ph). */
static double sinj(double t, int k, double a, double w, double ph) {
  double c = a;
  for (int i = 1; i <= k; i++) c *= w / i;
  return c * sin(w * t + ph + k * M_PI / 2);
}

static int face_index(const stokes *S, int dir, int i, int j) {
  /* u faces: i = 0..N (x), j = 0..N-1; v faces: i = 0..N-1, j = 0..N (y) */
  int N = S->N, lo = S->closed ? 1 : 0, hi = S->closed ? N - 1 : N;
  if (dir == 0) {
    if (i < lo || i > hi || j < 0 || j >= N) return -1;
    return (i - lo) + (hi - lo + 1) * j;
  }
  if (j < lo || j > hi || i < 0 || i >= N) return -1;
  return S->nu + i + N * (j - lo);
}

static stokes *st_new(int N, int closed, int sing) {
  stokes *S = calloc(1, sizeof *S);
  S->N = N, S->closed = closed, S->sing = sing, S->h = 1.0 / N;
  int nf = closed ? N - 1 : N + 1;
  S->nu = nf * N, S->nv = N * nf, S->m = S->nu + S->nv, S->nr = N * N;
  int m = S->m, nr = S->nr;
  S->fi = malloc(m * sizeof(int)), S->fj = malloc(m * sizeof(int)),
  S->fdir = malloc(m * sizeof(int));
  for (int dir = 0; dir < 2; dir++)
    for (int i = 0; i <= N; i++)
      for (int j = 0; j <= N; j++) {
        int e = face_index(S, dir, i, j);
        if (e >= 0) S->fi[e] = i, S->fj[e] = j, S->fdir[e] = dir;
      }
  /* A11: K on each velocity grid, 4 / h^2 on the diagonal, -1 / h^2 to the
   * neighbours on the same grid (Dirichlet ghosts) */
  S->cp11 = calloc(m + 1, sizeof(int)), S->ri11 = malloc(5 * m * sizeof(int));
  S->k11 = malloc(5 * m * sizeof(double));
  int nz = 0;
  for (int e = 0; e < m; e++) {
    int d = S->fdir[e], i = S->fi[e], j = S->fj[e];
    int nb[5][2] = {{i, j}, {i - 1, j}, {i + 1, j}, {i, j - 1}, {i, j + 1}};
    for (int k = 0; k < 5; k++) {
      int f = face_index(S, d, nb[k][0], nb[k][1]);
      if (f < 0) continue;
      S->ri11[nz] = f;
      S->k11[nz++] = (k == 0 ? 4.0 : -1.0) / (S->h * S->h);
    }
    for (int a = S->cp11[e] + 1; a < nz; a++) /* rows increasing in each column */
      for (int b = a; b > S->cp11[e] && S->ri11[b - 1] > S->ri11[b]; b--) {
        int ti = S->ri11[b];
        double tv = S->k11[b];
        S->ri11[b] = S->ri11[b - 1], S->k11[b] = S->k11[b - 1];
        S->ri11[b - 1] = ti, S->k11[b - 1] = tv;
      }
    S->cp11[e + 1] = nz;
  }
  /* B: (B u)_c = (u(i+1,j) - u(i,j) + v(i,j+1) - v(i,j)) / h for cell c = i + N j.
   * A12 = -M .* B^T (m x nr, column c: the faces of cell c), A21 = B W (nr x m,
   * column e: the cells of face e). */
  S->cp12 = calloc(nr + 1, sizeof(int)), S->ri12 = malloc(4 * nr * sizeof(int));
  S->b12 = malloc(4 * nr * sizeof(double));
  nz = 0;
  for (int c = 0; c < nr; c++) {
    int i = c % N, j = c / N;
    int fs[4] = {face_index(S, 0, i, j), face_index(S, 0, i + 1, j), face_index(S, 1, i, j),
                 face_index(S, 1, i, j + 1)};
    double sg[4] = {-1, 1, -1, 1};
    for (int k = 0; k < 4; k++) {
      if (fs[k] < 0) continue;
      S->ri12[nz] = fs[k];
      S->b12[nz++] = -sg[k] / S->h;
    }
    S->cp12[c + 1] = nz;
  }
  S->cp21 = calloc(m + 1, sizeof(int)), S->ri21 = malloc(2 * m * sizeof(int));
  S->b21 = malloc(2 * m * sizeof(double)), S->row21 = malloc(2 * m * sizeof(int));
  S->col21 = malloc(2 * m * sizeof(int));
  nz = 0;
  for (int e = 0; e < m; e++) {
    int i = S->fi[e], j = S->fj[e], d = S->fdir[e];
    /* the cell before the face (the face is its "+" side) and after it */
    int ib = d == 0 ? i - 1 : i, jb = d == 0 ? j : j - 1;
    if (ib >= 0 && jb >= 0) {
      S->ri21[nz] = ib + N * jb, S->row21[nz] = ib + N * jb, S->col21[nz] = e;
      S->b21[nz++] = 1.0 / S->h;
    }
    if (i < N && j < N) {
      S->ri21[nz] = i + N * j, S->row21[nz] = i + N * j, S->col21[nz] = e;
      S->b21[nz++] = -1.0 / S->h;
    }
    S->cp21[e + 1] = nz;
  }
  return S;
}

static void st_free(stokes *S) {
  if (!S) return;
  void *p[] = {S->fi,   S->fj,   S->fdir, S->cp11, S->ri11,  S->cp12,  S->ri12,
               S->cp21, S->ri21, S->b12,  S->b21,  S->row21, S->col21, S->k11};
  for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
  free(S);
}

static int fill11(void *ctx, double t, int order, double *val, size_t stride) {
  const stokes *S = ctx;
  int nz = S->cp11[S->m];
  for (int k = 0; k <= order; k++) {
    double nu = (k == 0 ? 1.0 : 0.0) + sinj(t, k, 0.5, 1.0, 0.0); /* nu = 1 + 0.5 sin t */
    for (int p = 0; p < nz; p++) val[p + k * stride] = -nu * S->k11[p];
  }
  return 0;
}
/* A12 = -(M(t) .* B^T), M(t)_ec = 1 + 0.2 cos(t + 0.3 e + 0.5 c): L = A12 moves
 * too, and Pi = A21 A12 is unsymmetric */
static int fill12(void *ctx, double t, int order, double *val, size_t stride) {
  const stokes *S = ctx;
  for (int k = 0; k <= order; k++)
    for (int c = 0; c < S->nr; c++)
      for (int p = S->cp12[c]; p < S->cp12[c + 1]; p++) {
        double ph = 0.3 * S->ri12[p] + 0.5 * c + M_PI / 2;
        val[p + k * stride] = S->b12[p] * ((k == 0 ? 1.0 : 0.0) + sinj(t, k, 0.2, 1.0, ph));
      }
  return 0;
}
/* W(t)_e = 1 + 0.3 sin(t + 0.7 e), and (t - 1.25) on row 0 when sing */
static int fill21(void *ctx, double t, int order, double *val, size_t stride) {
  const stokes *S = ctx;
  int nz = S->cp21[S->m];
  for (int p = 0; p < nz; p++) {
    int e = S->col21[p];
    double w[8];
    for (int k = 0; k <= order; k++) w[k] = (k == 0 ? 1.0 : 0.0) + sinj(t, k, 0.3, 1.0, 0.7 * e);
    for (int k = 0; k <= order; k++) {
      double v = w[k];
      if (S->sing && S->row21[p] == 0) v = w[k] * (t - 1.25) + (k > 0 ? w[k - 1] : 0.0);
      val[p + k * stride] = S->b21[p] * v;
    }
  }
  return 0;
}
static int fillf1(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const stokes *S = ctx;
  (void)ld;
  for (int k = 0; k <= order; k++)
    for (int e = 0; e < S->m; e++) coef[e + k * stride] = sinj(t, k, 0.5, 1.3, 0.1 * e);
  return 0;
}
static int fillf2(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const stokes *S = ctx;
  (void)ld;
  for (int k = 0; k <= order; k++)
    for (int c = 0; c < S->nr; c++) coef[c + k * stride] = sinj(t, k, 0.3, 0.8, 1.0 + 0.2 * c);
  return 0;
}

static lth_system *st_system(stokes *S) {
  int n[2] = {S->m, S->nr};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  ck_assert(sys);
  lth_source *a11 = lth_source_csc_callback(S->m, S->m, S->cp11, S->ri11, fill11, S, NULL);
  lth_source *a12 = lth_source_csc_callback(S->m, S->nr, S->cp12, S->ri12, fill12, S, NULL);
  lth_source *a21 = lth_source_csc_callback(S->nr, S->m, S->cp21, S->ri21, fill21, S, NULL);
  lth_source *f1 = lth_source_callback(S->m, 1, fillf1, S, NULL);
  lth_source *f2 = lth_source_callback(S->nr, 1, fillf2, S, NULL);
  ck_assert(a11 && a12 && a21 && f1 && f2);
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 1, a11, NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 2, a12, NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 2, 1, a21, NULL));
  TU_ASSERT_OK(lth_system_set_f(sys, 1, f1, NULL));
  TU_ASSERT_OK(lth_system_set_f(sys, 2, f2, NULL));
  return sys;
}

static lth_opsys *st_opsys(const lth_system *sys, lth_op_pi_factor how) {
  lth_opsys *os = lth_opsys_from_system(sys, NULL);
  ck_assert(os);
  TU_ASSERT_OK(lth_opsys_set_pi_factor(os, how, NULL));
  return os;
}

/* ---- comparisons ---- */

/* jet_new, maxabs and diff: tests/fixtures/opcompare.h */

/* The outputs of an operator point on x: P x, (I - P) x, Ahat (I - P) x,
 * G x, g, q. */
typedef struct outs {
  lth_jet *px, *ipx, *ax, *gx, *g, *q;
} outs;

static outs apply_all(const lth_oppoint *op, const lth_jet *x, int order) {
  const lth_opinfo *in = lth_oppoint_info(op);
  int m = in->m, s = in->s, k = x->cols;
  outs o = {jet_new(m, k, order), jet_new(m, k, order), jet_new(m, k, order),
            jet_new(s, k, order), jet_new(m, 1, order), jet_new(s, 1, order)};
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, x, o.px, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, o.ipx, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_Ahat(op, o.ipx, o.ax, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_G(op, x, o.gx, NULL));
  TU_ASSERT_OK(lth_oppoint_g(op, o.g, NULL));
  TU_ASSERT_OK(lth_oppoint_q(op, o.q, NULL));
  ck_assert_int_eq(o.px->order, order);
  ck_assert_int_eq(o.ax->order, order);
  ck_assert_int_eq(o.gx->order, order);
  ck_assert(o.g->order >= order && o.q->order >= order);
  return o;
}
static void outs_free(outs *o) {
  lth_jet *l[] = {o->px, o->ipx, o->ax, o->gx, o->g, o->q};
  for (int i = 0; i < 6; i++) lth_jet_free(l[i]);
}

/* Largest difference / tolerance of two sets of outputs, each difference
 * relative to the size of the dense point's matrix times |x| (scales). */
static double compare(const outs *a, const outs *b, const lth_point *dp, double nx, double tol) {
  double w = 0.0;
  w = fmax(w, diff(a->px, b->px, fmax(1.0, maxabs(&dp->P) * nx)));
  w = fmax(w, diff(a->ipx, b->ipx, fmax(1.0, maxabs(&dp->P) * nx)));
  w = fmax(w, diff(a->ax, b->ax, fmax(1.0, maxabs(&dp->Ahat) * nx)));
  w = fmax(w, diff(a->gx, b->gx, fmax(1.0, maxabs(&dp->G) * nx)));
  w = fmax(w,
           diff(a->g, b->g, fmax(1.0, fmax(maxabs(&dp->Ahat) * maxabs(&dp->q), maxabs(&dp->g)))));
  w = fmax(w, diff(a->q, b->q, fmax(1.0, maxabs(&dp->q))));
  return w / tol;
}

/* The dense point's outputs as jets (its P, Ahat, G times x; g, q). */
static outs dense_outs(const lth_point *dp, const lth_jet *x, int order) {
  int m = dp->m, s = dp->s, k = x->cols;
  outs o = {jet_new(m, k, order), jet_new(m, k, order), jet_new(m, k, order),
            jet_new(s, k, order), jet_new(m, 1, order), jet_new(s, 1, order)};
  TU_ASSERT_OK(lth_jet_mul(&dp->P, x, o.px, NULL));
  TU_ASSERT_OK(lth_jet_copy(o.ipx, x, NULL));
  TU_ASSERT_OK(lth_jet_axpy(-1.0, o.px, o.ipx, NULL));
  TU_ASSERT_OK(lth_jet_mul(&dp->Ahat, o.ipx, o.ax, NULL));
  TU_ASSERT_OK(lth_jet_mul(&dp->G, x, o.gx, NULL));
  lth_jet g = dp->g, q = dp->q;
  TU_ASSERT_OK(lth_jet_copy(o.g, &g, NULL));
  TU_ASSERT_OK(lth_jet_copy(o.q, &q, NULL));
  return o;
}

START_TEST(test_stokes_against_dense) {
  int sizes[3] = {4, 5, 8}; /* s = 56, 85, 208; n_r odd at 5 (det Pi < 0) */
  double worst_d = 0.0, worst_t = 0.0, amp_max = 0.0;
  for (int c = 0; c < 3; c++) {
    stokes *S = st_new(sizes[c], 0, 0);
    lth_system *sys = st_system(S);
    lth_opsys *osp = st_opsys(sys, LTH_OP_PI_SPARSE), *odn = st_opsys(sys, LTH_OP_PI_DENSE);
    int s = lth_system_size(sys), m = lth_system_state_dim(sys);
    ck_assert(s >= 56 && s <= 210 && 4 * (s - m) >= s); /* n_r ~ s/3 */
    for (int order = 0; order <= 2; order++) {
      lth_decomp_ws *dws = lth_decomp_ws_alloc(sys, order, NULL);
      lth_point *dp = lth_point_alloc(sys, order, NULL);
      lth_opdecomp_ws *wsp = lth_opdecomp_ws_alloc(osp, order, NULL);
      lth_opdecomp_ws *wdn = lth_opdecomp_ws_alloc(odn, order, NULL);
      lth_oppoint *psp = lth_oppoint_alloc(osp, order, 2, NULL); /* chunks of 2 columns */
      lth_oppoint *pdn = lth_oppoint_alloc(odn, order, 3, NULL);
      ck_assert(dws && dp && wsp && wdn && psp && pdn);
      ck_assert_int_eq(lth_oppoint_info(psp)->sparse_pi, 1);
      ck_assert_int_eq(lth_oppoint_info(pdn)->sparse_pi, 0);
      lth_decomp_ws_set_scale(dws, 0.0);
      for (int k = 0; k < 2; k++) {
        double t = 0.3 + 1.1 * k + 0.37 * order;
        lth_error err;
        TU_ASSERT_OK(lth_decomp_at(dws, t, dp, NULL));
        lth_status st = lth_opdecomp_at(wsp, t, psp, &err);
        ck_assert_msg(st == LTH_OK, "N %d t %g: %s", S->N, t, err.message);
        TU_ASSERT_OK(lth_opdecomp_at(wdn, t, pdn, NULL));
        const lth_opinfo *in = lth_oppoint_info(psp);
        ck_assert_int_eq(in->pi_sign, dp->pi_sign);
        ck_assert(in->pi_factor_nnz > 0);
        /* two estimates of the same 1-norm condition number (KLU's and
         * LAPACK's): both lower bounds, usually exact at this size */
        ck_assert_msg(in->cond_pi <= 1.001 * dp->cond_pi * 3 && in->cond_pi >= dp->cond_pi / 3,
                      "cond_pi %g vs %g", in->cond_pi, dp->cond_pi);
        double amp = fmax(1.0, dp->amplification), tol = SAFETY * DBL_EPSILON * amp;
        tu_seed(31 * (uint64_t)c + 7 * (uint64_t)order + (uint64_t)k);
        lth_jet *x = jet_new(m, 3, order);
        tu_random_jet(x, order);
        double nx = maxabs(x) * m;
        outs a = apply_all(psp, x, order), b = apply_all(pdn, x, order),
             d = dense_outs(dp, x, order);
        double wd = compare(&a, &d, dp, nx, tol), wt = compare(&a, &b, dp, nx, tol);
        ck_assert_msg(wd <= 1.0, "N %d order %d t %g: sparse vs dense %.3g x tolerance", S->N,
                      order, t, wd);
        ck_assert_msg(wt <= 1.0, "N %d order %d t %g: sparse vs thin factors %.3g x tolerance",
                      S->N, order, t, wt);
        worst_d = fmax(worst_d, wd), worst_t = fmax(worst_t, wt), amp_max = fmax(amp_max, amp);
        outs_free(&a), outs_free(&b), outs_free(&d);
        lth_jet_free(x);
      }
      lth_oppoint_free(psp), lth_oppoint_free(pdn);
      lth_opdecomp_ws_free(wsp), lth_opdecomp_ws_free(wdn);
      lth_point_free(dp), lth_decomp_ws_free(dws);
    }
    lth_opsys_free(osp), lth_opsys_free(odn);
    lth_system_free(sys);
    st_free(S);
  }
  fprintf(stderr,
          "Stokes, sparse Pi: against dense %.3g, against thin factors %.3g of the tolerance "
          "(amplification <= %.3g)\n",
          worst_d, worst_t, amp_max);
}
END_TEST

/* ---- Theorems 1 and 3 on vectors (as test_opdecomp.c's theorem3) ----
 * v = (I - P(t)) x held constant; z = (Nhat + Bhat) v + q and
 * z' = Bhat' v + (Nhat + Bhat)(Ahat v + g) + q' must give E z' - A z - f = 0;
 * (P' + P Ahat) v = 0 and P g = 0.  Residuals relative to their terms, over
 * eps times the amplification. */
static double theorem3(const lth_oppoint *op, int k) {
  const lth_opinfo *in = lth_oppoint_info(op);
  int m = in->m, s = in->s;
  lth_jet *x = jet_new(m, k, 0), *v = jet_new(m, k, 1), *bz = jet_new(s, k, 1);
  lth_jet *a = jet_new(m, k, 0), *ba = jet_new(s, k, 0), *az = jet_new(s, k, 0);
  lth_jet *z = jet_new(s, k, 0), *g = jet_new(m, 1, 1), *q = jet_new(s, 1, 1);
  lth_jet *f = jet_new(s, 1, 0), *pa = jet_new(m, k, 0), *pv = jet_new(m, k, 1);
  lth_jet *pg = jet_new(m, 1, 0);
  tu_random_jet(x, 0);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, a, NULL));
  lth_jet_set_zero(v, 1);
  for (int c = 0; c < k; c++)
    for (int i = 0; i < m; i++) LTH_JET_AT(v, 0, i, c) = LTH_JET_AT(a, 0, i, c);
  TU_ASSERT_OK(lth_oppoint_apply_Bhat(op, v, bz, NULL));
  TU_ASSERT_OK(lth_oppoint_g(op, g, NULL));
  TU_ASSERT_OK(lth_oppoint_q(op, q, NULL));
  TU_ASSERT_OK(lth_oppoint_f(op, f, NULL));
  ck_assert(bz->order == 1 && g->order >= 1 && q->order >= 1);
  lth_jet vv = *v;
  vv.order = 0;
  TU_ASSERT_OK(lth_oppoint_apply_Ahat(op, &vv, a, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, a, pa, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, v, pv, NULL));
  double worst = 0.0;
  for (int c = 0; c < k; c++) {
    double res = 0.0, size = 1.0;
    for (int i = 0; i < m; i++) {
      res = fmax(res, fabs(LTH_JET_AT(pa, 0, i, c) + LTH_JET_AT(pv, 1, i, c)));
      size = fmax(size, fmax(fabs(LTH_JET_AT(a, 0, i, c)), fabs(LTH_JET_AT(pv, 1, i, c))));
    }
    worst = fmax(worst, res / size);
  }
  lth_jet g0 = *g;
  g0.order = 0;
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, &g0, pg, NULL));
  worst = fmax(worst, maxabs(pg) / fmax(1.0, maxabs(&g0)));
  for (int c = 0; c < k; c++)
    for (int i = 0; i < m; i++) LTH_JET_AT(a, 0, i, c) += LTH_JET_AT(g, 0, i, 0);
  TU_ASSERT_OK(lth_oppoint_apply_Bhat(op, a, ba, NULL));
  for (int c = 0; c < k; c++)
    for (int i = 0; i < s; i++)
      LTH_JET_AT(z, 0, i, c) =
          (i < m ? LTH_JET_AT(v, 0, i, c) : 0.0) + LTH_JET_AT(bz, 0, i, c) + LTH_JET_AT(q, 0, i, 0);
  TU_ASSERT_OK(lth_oppoint_apply_A(op, z, az, NULL));
  for (int c = 0; c < k; c++) {
    double res = 0.0, size = 0.0;
    for (int i = 0; i < s; i++) {
      double dz = i < m ? LTH_JET_AT(bz, 1, i, c) + LTH_JET_AT(a, 0, i, c) +
                              LTH_JET_AT(ba, 0, i, c) + LTH_JET_AT(q, 1, i, 0)
                        : 0.0;
      double rr = dz - LTH_JET_AT(az, 0, i, c) - LTH_JET_AT(f, 0, i, 0);
      res = fmax(res, fabs(rr));
      size = fmax(
          size, fmax(fabs(dz), fmax(fabs(LTH_JET_AT(az, 0, i, c)), fabs(LTH_JET_AT(f, 0, i, 0)))));
    }
    worst = fmax(worst, res / fmax(size, 1.0));
  }
  lth_jet *l[] = {x, v, bz, a, ba, az, z, g, q, f, pa, pv, pg};
  for (int i = 0; i < 13; i++) lth_jet_free(l[i]);
  return worst / (DBL_EPSILON * fmax(in->amplification, 1.0));
}

/* P^2 = P, P A_12 y = A_12 y, A_21 (I - P) x = 0 on vectors, over eps
 * (the last two over eps cond_chain). */
static double projectors(const lth_oppoint *op) {
  const lth_opinfo *in = lth_oppoint_info(op);
  int m = in->m, s = in->s, nr = in->nr;
  lth_jet *x = jet_new(m, 2, 0), *p1 = jet_new(m, 2, 0), *p2 = jet_new(m, 2, 0);
  lth_jet *zx = jet_new(s, 2, 0), *az = jet_new(s, 2, 0);
  tu_random_jet(x, 0);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, x, p1, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, p1, p2, NULL));
  double worst = diff(p2, p1, fmax(1.0, maxabs(p1))) / DBL_EPSILON;
  lth_jet_set_zero(zx, 0);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < nr; i++) LTH_JET_AT(zx, 0, m + i, c) = tu_uniform(-1, 1);
  TU_ASSERT_OK(lth_oppoint_apply_A(op, zx, az, NULL)); /* rows 1..m: A_12 y (+ 0) */
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < m; i++) LTH_JET_AT(x, 0, i, c) = LTH_JET_AT(az, 0, i, c);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, p1, NULL));
  worst = fmax(worst, maxabs(p1) / fmax(1.0, maxabs(x)) / DBL_EPSILON / in->cond_chain);
  tu_random_jet(x, 0);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, p1, NULL));
  lth_jet_set_zero(zx, 0);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < m; i++) LTH_JET_AT(zx, 0, i, c) = LTH_JET_AT(p1, 0, i, c);
  TU_ASSERT_OK(lth_oppoint_apply_A(op, zx, az, NULL));
  lth_jet ar = lth_jet_view(az, m, 0, nr, 2);
  ar.order = 0;
  worst =
      fmax(worst, maxabs(&ar) / fmax(1.0, maxabs(zx) * maxabs(az)) / DBL_EPSILON / in->cond_chain);
  lth_jet *l[] = {x, p1, p2, zx, az};
  for (int i = 0; i < 5; i++) lth_jet_free(l[i]);
  return worst;
}

START_TEST(test_stokes_theorem3) {
  double w3 = 0.0, wp = 0.0;
  for (int N = 4; N <= 10; N += 3) {
    stokes *S = st_new(N, 0, 0);
    lth_system *sys = st_system(S);
    lth_opsys *os = st_opsys(sys, LTH_OP_PI_SPARSE);
    lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 1, NULL);
    lth_oppoint *op = lth_oppoint_alloc(os, 1, 3, NULL);
    ck_assert(ws && op);
    for (int k = 0; k < 3; k++) {
      double t = 0.2 + 0.9 * k;
      lth_error err;
      ck_assert_msg(lth_opdecomp_at(ws, t, op, &err) == LTH_OK, "%s", err.message);
      tu_seed(100 + (uint64_t)(N * 3 + k));
      double r3 = theorem3(op, 4), rp = projectors(op);
      ck_assert_msg(r3 <= 1e3, "N %d t %g: Theorem 1 or 3 residual %.3g eps x amplification", N, t,
                    r3);
      ck_assert_msg(rp <= 1e3, "N %d t %g: projector identity off by %.3g eps", N, t, rp);
      w3 = fmax(w3, r3), wp = fmax(wp, rp);
    }
    lth_oppoint_free(op);
    lth_opdecomp_ws_free(ws);
    lth_opsys_free(os);
    lth_system_free(sys);
    st_free(S);
  }
  fprintf(stderr,
          "Stokes, sparse Pi: Theorems 1 and 3 <= %.3g eps x amplification, "
          "projectors <= %.3g eps\n",
          w3, wp);
}
END_TEST

/* ---- refusals and the choice ---- */

START_TEST(test_refusals) {
  /* Pi's row 0 vanishes at t = 1.25 */
  stokes *S = st_new(4, 0, 1);
  lth_system *sys = st_system(S);
  lth_opsys *os = st_opsys(sys, LTH_OP_PI_SPARSE);
  lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, NULL);
  lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, NULL);
  ck_assert(ws && pt);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opdecomp_at(ws, 1.25, pt, &err), LTH_ESING);
  ck_assert(err.has_t && err.t == 1.25);
  ck_assert_msg(strstr(err.message, "singular") != NULL, "%s", err.message);
  fprintf(stderr, "singular Pi: %s\n", err.message);
  /* the point then holds nothing */
  lth_jet *g = jet_new(S->m, 1, 0);
  ck_assert_int_eq(lth_oppoint_g(pt, g, &err), LTH_EINVAL);
  /* nearly singular: the condition estimate names t and the number */
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opdecomp_at(ws, 1.25 + 1e-14, pt, &err), LTH_ECOND);
  ck_assert(err.has_t && err.t == 1.25 + 1e-14 && err.has_cond && err.cond > 1e12);
  fprintf(stderr, "nearly singular Pi: %s\n", err.message);
  /* and away from it the point is fine */
  TU_ASSERT_OK(lth_opdecomp_at(ws, 0.5, pt, NULL));
  TU_ASSERT_OK(lth_oppoint_g(pt, g, NULL));
  lth_jet_free(g);
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opsys_free(os);
  lth_system_free(sys);
  st_free(S);
  /* every boundary face closed: the pressure is defined up to a constant */
  S = st_new(5, 1, 0);
  sys = st_system(S);
  os = st_opsys(sys, LTH_OP_PI_SPARSE);
  ws = lth_opdecomp_ws_alloc(os, 0, NULL);
  pt = lth_oppoint_alloc(os, 0, 1, NULL);
  lth_error_clear(&err);
  lth_status st = lth_opdecomp_at(ws, 0.7, pt, &err);
  ck_assert_msg(st == LTH_ESING || (st == LTH_ECOND && err.has_cond && err.cond > 1e12),
                "closed cavity: status %d %s", st, err.message);
  ck_assert(err.has_t && err.t == 0.7);
  fprintf(stderr, "closed cavity: %s\n", err.message);
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opsys_free(os);
  lth_system_free(sys);
  st_free(S);
  /* index 3 keeps the dense factorization */
  int n3[3] = {3, 2, 1};
  lth_opsys *o3 = lth_opsys_alloc(3, n3, NULL);
  ck_assert(o3);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opsys_set_pi_factor(o3, LTH_OP_PI_SPARSE, &err), LTH_EINVAL);
  ck_assert_msg(strstr(err.message, "index 3") != NULL, "%s", err.message);
  ck_assert_int_eq(lth_opsys_set_pi_factor(o3, (lth_op_pi_factor)7, &err), LTH_EINVAL);
  TU_ASSERT_OK(lth_opsys_set_pi_factor(o3, LTH_OP_PI_DENSE, NULL));
  lth_opsys_free(o3);
}
END_TEST

START_TEST(test_automatic_choice) {
  /* the grids just below and at (or above) the threshold n_r = N^2 */
  int lo = (int)floor(sqrt(LTH_DEFAULT_OP_SPARSE_PI_NR - 1.0));
  for (int N = lo; N <= lo + 1; N++) {
    stokes *S = st_new(N, 0, 0);
    lth_system *sys = st_system(S);
    lth_opsys *os = lth_opsys_from_system(sys, NULL);
    lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, NULL);
    ck_assert(os && pt);
    ck_assert_int_eq(lth_oppoint_info(pt)->sparse_pi, N * N >= LTH_DEFAULT_OP_SPARSE_PI_NR);
    /* a workspace for the sparse path refuses a point of the dense one */
    lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, NULL);
    TU_ASSERT_OK(lth_opsys_set_pi_factor(os, LTH_OP_PI_DENSE, NULL));
    lth_oppoint *pd = lth_oppoint_alloc(os, 0, 1, NULL);
    lth_error err;
    lth_status st = lth_opdecomp_at(ws, 0.5, pd, &err);
    ck_assert_int_eq(st, N * N >= LTH_DEFAULT_OP_SPARSE_PI_NR ? LTH_EINVAL : LTH_OK);
    TU_ASSERT_OK(lth_opdecomp_at(ws, 0.5, pt, NULL));
    lth_oppoint_free(pd);
    lth_opdecomp_ws_free(ws);
    lth_oppoint_free(pt);
    lth_opsys_free(os);
    lth_system_free(sys);
    st_free(S);
  }
}
END_TEST

/* At size the sparse path allocates nothing with n_r rows and s columns: on a
 * 300 x 300 grid (s = 270,600, n_r = 90,000) such a jet would take about
 * 260 GB, and the workspace was refused for memory when the thin factors'
 * structure was sized with n_r rows on this path too.  The workspace and a
 * point are allocated, one decomposition runs, and the point's memory stays
 * below 1 GB. */
START_TEST(test_workspace_at_size) {
  stokes *S = st_new(300, 0, 0);
  lth_system *sys = st_system(S);
  lth_opsys *os = st_opsys(sys, LTH_OP_PI_AUTO);
  lth_error err;
  lth_error_clear(&err);
  lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, &err);
  ck_assert_msg(ws != NULL, "%s", err.message);
  lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, &err);
  ck_assert_msg(pt != NULL, "%s", err.message);
  ck_assert_int_eq(lth_oppoint_info(pt)->sparse_pi, 1);
  TU_ASSERT_OK(lth_opdecomp_at(ws, 0.5, pt, &err));
  ck_assert_msg(lth_oppoint_info(pt)->bytes < ((size_t)1 << 30), "%zu bytes",
                lth_oppoint_info(pt)->bytes);
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opsys_free(os);
  lth_system_free(sys);
  st_free(S);
}
END_TEST

/* A library built without KLU refuses the sparse factorization, saying so,
 * and keeps the dense one automatically. */
START_TEST(test_without_klu) {
  stokes *S = st_new(8, 0, 0);
  lth_system *sys = st_system(S);
  lth_opsys *os = lth_opsys_from_system(sys, NULL);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opsys_set_pi_factor(os, LTH_OP_PI_SPARSE, &err), LTH_EINVAL);
  ck_assert_msg(strstr(err.message, "KLU") != NULL, "%s", err.message);
  lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, NULL);
  ck_assert(pt && lth_oppoint_info(pt)->sparse_pi == 0);
  lth_oppoint_free(pt);
  lth_opsys_free(os);
  lth_system_free(sys);
  st_free(S);
}
END_TEST

/* 1 if the library has the sparse factorization of Pi. */
static int have_klu(void) {
  int n[2] = {2, 1};
  lth_opsys *os = lth_opsys_alloc(2, n, NULL);
  int ok = lth_opsys_set_pi_factor(os, LTH_OP_PI_SPARSE, NULL) == LTH_OK;
  lth_opsys_free(os);
  return ok;
}

static Suite *suite(void) {
  Suite *s = suite_create("opdecomp_sparsepi");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  if (!have_klu()) {
    fprintf(stderr, "liblth without SuiteSparse KLU: only its refusal is tested\n");
    tcase_add_test(tc, test_without_klu);
    suite_add_tcase(s, tc);
    return s;
  }
  tcase_add_test(tc, test_stokes_against_dense);
  tcase_add_test(tc, test_stokes_theorem3);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_automatic_choice);
  tcase_add_test(tc, test_workspace_at_size);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
