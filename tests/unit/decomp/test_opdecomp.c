/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator form of the decomposition (include/lth/opdecomp.h) against
 * the dense one (lth_decomp_at) and against Clark's identities:
 *   - P x, (I - P) x, Ahat (I - P) x, G x, g and q agree with the dense
 *     point's to eps times its error amplification (the canonical forms:
 *     Ahat and Bhat are unique only on the state space), on random systems
 *     of index 2, 3 and 4, on every shipped example, on a sparse chain
 *     given as compressed columns, and on random sparse patterns (the thin
 *     factors kept at the rows and columns the patterns allow);
 *   - Clark's Theorems 1 and 3 on vectors, from the operator form alone: for a
 *     state v = (I - P) x, z = (Nhat + Bhat) v + q with z' = (Nhat + Bhat)' v
 *     + (Nhat + Bhat)(Ahat v + g) + q' leaves E z' - A z - f = 0;
 *   - projector identities P^2 = P, P_1 A_1r = A_1r, A_{r,r-1} P_{r-1} =
 *     A_{r,r-1} on vectors;
 *   - refusals (singular and ill-conditioned Pi, bad patterns) naming t.
 * Mass matrices kept as sparse LUs: test_opdecomp_mass.c. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/opdecomp.h"
#include "lth/problem.h"
#include "opchain.h"
#include "testsys.h"
#include "testutil.h"

#include "opcompare.h"

/* ---- Theorems 1 and 3 on vectors, from the operator form alone ----
 * Theorem 1: (P' + P Ahat) v = 0 and P g = 0 (the P-part of Ahat, which
 * Theorem 3 alone does not see: u absorbs it).  Theorem 3:
 * for v = (I - P(t)) x (a state at t, held constant as a jet):
 *   z  = (Nhat + Bhat) v + q,
 *   z' = Bhat' v + (Nhat + Bhat)(Ahat v + g) + q',
 * and E z' - A z - f must vanish (M (I - P) = 0, c = 0).  Returns the
 * largest residual relative to the size of its terms, divided by eps times the
 * point's a priori amplification. */
static double theorem3(const lth_oppoint *op, int k, uint64_t seed) {
  const lth_opinfo *in = lth_oppoint_info(op);
  int m = in->m, s = in->s;
  ck_assert(in->order >= 1);
  tu_seed(seed);
  lth_jet *x = jet_new(m, k, 0), *v = jet_new(m, k, 1), *bz = jet_new(s, k, 1);
  lth_jet *a = jet_new(m, k, 0), *ba = jet_new(s, k, 0), *az = jet_new(s, k, 0);
  lth_jet *z = jet_new(s, k, 0), *g = jet_new(m, 1, 1), *q = jet_new(s, 1, 1);
  lth_jet *f = jet_new(s, 1, 0);
  tu_random_jet(x, 0);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, a, NULL));
  /* v: the constant jet (I - P(t)) x */
  lth_jet_set_zero(v, 1);
  lth_jet v0 = lth_jet_view(v, 0, 0, m, k);
  v0.order = 0;
  TU_ASSERT_OK(lth_jet_copy(&v0, a, NULL));
  v->order = 1;
  TU_ASSERT_OK(lth_oppoint_apply_Bhat(op, v, bz, NULL)); /* Bhat v and Bhat' v */
  TU_ASSERT_OK(lth_oppoint_g(op, g, NULL));
  TU_ASSERT_OK(lth_oppoint_q(op, q, NULL));
  TU_ASSERT_OK(lth_oppoint_f(op, f, NULL));
  ck_assert(bz->order == 1 && g->order >= 1 && q->order >= 1);
  /* a = Ahat v + g, ba = Bhat a */
  lth_jet vv = *v;
  vv.order = 0;
  TU_ASSERT_OK(lth_oppoint_apply_Ahat(op, &vv, a, NULL));
  /* Theorem 1 (docs/theory.md section 4, item 2): (P' + P Ahat) v = 0 and P g = 0 */
  lth_jet *pa = jet_new(m, k, 0), *pv = jet_new(m, k, 1), *pg = jet_new(m, 1, 0);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, a, pa, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, v, pv, NULL)); /* coefficient 1: P' v */
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
  lth_jet_free(pa);
  lth_jet_free(pv);
  lth_jet_free(pg);
  for (int c = 0; c < k; c++)
    for (int i = 0; i < m; i++) LTH_JET_AT(a, 0, i, c) += LTH_JET_AT(g, 0, i, 0);
  TU_ASSERT_OK(lth_oppoint_apply_Bhat(op, a, ba, NULL));
  /* z = Nhat v + Bhat v + q, then A z */
  for (int c = 0; c < k; c++)
    for (int i = 0; i < s; i++)
      LTH_JET_AT(z, 0, i, c) =
          (i < m ? LTH_JET_AT(v, 0, i, c) : 0.0) + LTH_JET_AT(bz, 0, i, c) + LTH_JET_AT(q, 0, i, 0);
  TU_ASSERT_OK(lth_oppoint_apply_A(op, z, az, NULL));
  for (int c = 0; c < k; c++) {
    double res = 0.0, size = 0.0;
    for (int i = 0; i < s; i++) {
      /* E z' (rows of the state equations only) */
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
  lth_jet *list[] = {x, v, bz, a, ba, az, z, g, q, f};
  for (int i = 0; i < 10; i++) lth_jet_free(list[i]);
  return worst / (DBL_EPSILON * fmax(in->amplification, 1.0));
}

/* P^2 = P, P_1 A_1r y = A_1r y, A_{r,r-1} (I - P_{r-1}) x = 0, on vectors,
 * relative to the sizes involved; returns the worst / eps. */
static double projector_identities(const lth_oppoint *op, const lth_opsys *os) {
  const lth_opinfo *in = lth_oppoint_info(op);
  int m = in->m, s = in->s, r = in->r, nr = in->nr;
  lth_jet *x = jet_new(m, 2, 0), *p1 = jet_new(m, 2, 0), *p2 = jet_new(m, 2, 0);
  lth_jet *zx = jet_new(s, 2, 0), *az = jet_new(s, 2, 0);
  tu_random_jet(x, 0);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, x, p1, NULL));
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 0, p1, p2, NULL));
  double worst = diff(p2, p1, fmax(1.0, maxabs(p1))) / DBL_EPSILON;
  /* A_1r y: z = (0, ..., 0, y) gives rows 1 of A z = A_1r y */
  lth_jet_set_zero(zx, 0);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < nr; i++) LTH_JET_AT(zx, 0, m + i, c) = tu_uniform(-1, 1);
  TU_ASSERT_OK(lth_oppoint_apply_A(op, zx, az, NULL));
  lth_jet_set_zero(x, 0);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < lth_opsys_block_size(os, 1); i++)
      LTH_JET_AT(x, 0, i, c) = LTH_JET_AT(az, 0, i, c);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, p1, NULL));
  worst = fmax(worst, maxabs(p1) / fmax(1.0, maxabs(x)) / DBL_EPSILON / in->cond_chain);
  /* A_{r,r-1} (I - P_{r-1}) x: z = (0, ..., (I - P) x's block r-1, 0) */
  tu_random_jet(x, 0);
  TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, p1, NULL));
  lth_jet_set_zero(zx, 0);
  int o = lth_opsys_block_offset(os, r - 1), n = lth_opsys_block_size(os, r - 1);
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < n; i++) LTH_JET_AT(zx, 0, o + i, c) = LTH_JET_AT(p1, 0, o + i, c);
  TU_ASSERT_OK(lth_oppoint_apply_A(op, zx, az, NULL));
  lth_jet ar = lth_jet_view(az, m, 0, nr, 2);
  ar.order = 0;
  worst = fmax(worst, maxabs(&ar) / fmax(1.0, maxabs(zx)) / DBL_EPSILON / in->cond_chain);
  lth_jet *list[] = {x, p1, p2, zx, az};
  for (int i = 0; i < 5; i++) lth_jet_free(list[i]);
  return worst;
}

/* ---- random systems ---- */

START_TEST(test_random_against_dense) {
  struct {
    int r, n[4];
  } shapes[] = {{2, {3, 1}}, {2, {5, 2}}, {3, {3, 2, 1}}, {3, {4, 4, 2}}, {4, {3, 3, 2, 1}}};
  double worst = 0.0, amp_max = 0.0;
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
    for (uint64_t seed = 1; seed <= 6; seed++) {
      ts_sys *S = ts_new(shapes[c].r, shapes[c].n, 7919 * seed + c, 0.4, 1);
      lth_system *sys = ts_system(S);
      ck_assert(sys != NULL);
      for (int order = 0; order <= 2; order++) {
        double t = 0.37 + 0.61 * (double)seed + 0.23 * order;
        tu_seed(1000 * seed + (uint64_t)order);
        cmp_result rs = compare_at(sys, order, t, 3);
        ck_assert_msg(!rs.op_refused, "refused a well-conditioned random point");
        ck_assert_msg(rs.worst <= 1.0, "shape %zu seed %d order %d: difference %.3g x tolerance", c,
                      (int)seed, order, rs.worst);
        worst = fmax(worst, rs.worst);
        amp_max = fmax(amp_max, rs.amp);
      }
      lth_system_free(sys);
      ts_free(S);
    }
  }
  fprintf(stderr,
          "random systems: largest difference %.3g of the tolerance (amplification <= %.3g)\n",
          worst, amp_max);
}
END_TEST

/* Theorem 3 and the projector identities on the operator form alone (this
 * is what fails on a wrong formula even where the dense path were wrong the
 * same way). */
START_TEST(test_random_theorem3) {
  struct {
    int r, n[5];
  } shapes[] = {
      {2, {4, 2}}, {3, {3, 2, 1}}, {3, {5, 4, 2}}, {4, {3, 3, 2, 1}}, {5, {2, 2, 2, 2, 1}}};
  double worst3 = 0.0, worstp = 0.0;
  for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
    for (uint64_t seed = 1; seed <= 5; seed++) {
      ts_sys *S = ts_new(shapes[c].r, shapes[c].n, 104729 * seed + c, 0.4, 1);
      lth_system *sys = ts_system(S);
      lth_opsys *os = lth_opsys_from_system(sys, NULL);
      lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 1, NULL);
      lth_oppoint *op = lth_oppoint_alloc(os, 1, 3, NULL);
      ck_assert(sys && os && ws && op);
      lth_error err;
      double t = 0.2 + 0.9 * (double)seed;
      lth_status st = lth_opdecomp_at(ws, t, op, &err);
      ck_assert_msg(st == LTH_OK, "%s", err.message);
      double r3 = theorem3(op, 4, seed), rp = projector_identities(op, os);
      ck_assert_msg(r3 <= 1e3,
                    "shape %zu seed %d: Theorem 1 or 3 residual %.3g eps x amplification", c,
                    (int)seed, r3);
      ck_assert_msg(rp <= 1e3, "shape %zu seed %d: projector identity off by %.3g eps", c,
                    (int)seed, rp);
      worst3 = fmax(worst3, r3);
      worstp = fmax(worstp, rp);
      lth_oppoint_free(op);
      lth_opdecomp_ws_free(ws);
      lth_opsys_free(os);
      lth_system_free(sys);
      ts_free(S);
    }
  }
  fprintf(stderr,
          "Theorems 1 and 3: residual <= %.3g eps x amplification, projectors <= %.3g eps\n",
          worst3, worstp);
}
END_TEST

/* ---- shipped examples ---- */

START_TEST(test_shipped_examples) {
  const char *dir = getenv("LTH_DATA_DIR");
  ck_assert(dir != NULL);
  DIR *d = opendir(dir);
  ck_assert(d != NULL);
  struct dirent *de;
  int files = 0, points = 0, refused = 0, sparse_seen = 0;
  while ((de = readdir(d)) != NULL) {
    size_t len = strlen(de->d_name);
    if (len < 5 || strcmp(de->d_name + len - 4, ".lth") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    lth_problem *pb = NULL;
    lth_error err;
    ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s: %s", path, err.message);
    const lth_system *sys = lth_problem_system(pb);
    double t0 = 0.0, t1 = 1.0;
    lth_system_interval(sys, &t0, &t1);
    files++;
    for (int k = 0; k < 3; k++) {
      double t = t0 + (t1 - t0) * (0.137 + 0.31 * k);
      /* free inputs (lqr plants) have no forcing to evaluate: skip the point */
      lth_decomp_ws *dws = lth_decomp_ws_alloc(sys, 1, NULL);
      lth_point *dp = lth_point_alloc(sys, 1, NULL);
      lth_status st = lth_decomp_at(dws, t, dp, NULL);
      lth_point_free(dp);
      lth_decomp_ws_free(dws);
      if (st != LTH_OK) continue;
      tu_seed(77 + (uint64_t)k);
      cmp_result rs = compare_at(sys, 1, t, 2);
      ck_assert_msg(rs.worst <= 1.0, "%s at t = %g: difference %.3g x tolerance", de->d_name, t,
                    rs.worst);
      points++;
      refused += rs.op_refused;
    }
    if (strcmp(de->d_name, "chain_sparse.lth") == 0) { /* mm() blocks keep their patterns */
      lth_opsys *os = lth_opsys_from_system(sys, NULL);
      ck_assert(os);
      size_t full = 0;
      for (int i = 1; i <= 3; i++)
        for (int j = 1; j <= 3; j++)
          if (lth_system_A(sys, i, j))
            full += (size_t)lth_system_block_size(sys, i) * (size_t)lth_system_block_size(sys, j);
      ck_assert_msg(lth_opsys_nnz(os) < full, "nnz %zu of %zu", lth_opsys_nnz(os), full);
      fprintf(stderr, "chain_sparse.lth: %zu stored entries of %zu\n", lth_opsys_nnz(os), full);
      sparse_seen = 1;
      lth_opsys_free(os);
    }
    lth_problem_free(pb);
  }
  closedir(d);
  ck_assert(sparse_seen);
  fprintf(stderr, "shipped examples: %d files, %d points compared, %d refused a priori\n", files,
          points, refused);
  ck_assert(files >= 20 && points >= 3 * files / 2);
}
END_TEST

/* ---- the sparse chain: compressed columns and callbacks ---- */

START_TEST(test_sparse_chain) {
  for (int nc = 1; nc <= 3; nc += 2) {
    oc_chain *C = oc_make(12, nc, 4242 + (uint64_t)nc);
    oc_dense ctx[7];
    lth_system *sys = oc_system(C, ctx);
    lth_opsys *os = oc_opsys(C);
    ck_assert(C && sys && os);
    ck_assert_int_eq((int)lth_opsys_nnz(os), 2 * (3 * 12 - 2) + 12 + 2 * OC_NG * nc);
    ck_assert_int_eq(lth_opsys_size(os), 24 + nc);
    ck_assert_int_eq(lth_opsys_state_dim(os), 24);
    ck_assert_int_eq(lth_opsys_index(os), 3);
    int order = 1, s = lth_system_size(sys), m = lth_system_state_dim(sys);
    lth_decomp_ws *dws = lth_decomp_ws_alloc(sys, order, NULL);
    lth_point *dp = lth_point_alloc(sys, order, NULL);
    lth_opdecomp_ws *ows = lth_opdecomp_ws_alloc(os, order, NULL);
    lth_oppoint *op = lth_oppoint_alloc(os, order, 4, NULL);
    ck_assert(dws && dp && ows && op);
    lth_decomp_ws_set_scale(dws, 0.0);
    for (int k = 0; k < 3; k++) {
      double t = 0.3 + 1.7 * k;
      TU_ASSERT_OK(lth_decomp_at(dws, t, dp, NULL));
      TU_ASSERT_OK(lth_opdecomp_at(ows, t, op, NULL));
      double tol = SAFETY * DBL_EPSILON * fmax(1.0, dp->amplification);
      tu_seed(5 + (uint64_t)k);
      lth_jet *x = jet_new(m, 3, order), *z = jet_new(s, 3, order), *q = jet_new(s, 1, order);
      lth_jet *y = jet_new(m, 3, order), *v = jet_new(m, 3, order);
      tu_random_jet(x, order);
      TU_ASSERT_OK(lth_oppoint_apply_G(op, x, z, NULL));
      lth_jet *ref = dense_mul(&dp->G, x);
      double e = diff(z, ref, fmax(1.0, maxabs(&dp->G) * maxabs(x) * m));
      ck_assert_msg(e <= tol, "chain nc %d t %g: G x differs by %.3g (tol %.3g)", nc, t, e, tol);
      lth_jet_free(ref);
      TU_ASSERT_OK(lth_oppoint_apply_P(op, 1, x, y, NULL));
      TU_ASSERT_OK(lth_oppoint_apply_Ahat(op, y, v, NULL));
      ref = dense_mul(&dp->Ahat, y);
      e = diff(v, ref, fmax(1.0, maxabs(&dp->Ahat) * maxabs(y) * m));
      ck_assert_msg(e <= tol, "chain nc %d t %g: Ahat (I - P) x differs by %.3g", nc, t, e);
      lth_jet_free(ref);
      TU_ASSERT_OK(lth_oppoint_q(op, q, NULL));
      e = diff(q, &dp->q, fmax(1.0, maxabs(&dp->q)));
      ck_assert_msg(e <= tol, "chain nc %d t %g: q differs by %.3g", nc, t, e);
      double r3 = theorem3(op, 2, 99 + (uint64_t)k);
      ck_assert_msg(r3 <= 1e3, "chain nc %d t %g: Theorem 1 or 3 residual %.3g", nc, t, r3);
      lth_jet *list[] = {x, z, q, y, v};
      for (int i = 0; i < 5; i++) lth_jet_free(list[i]);
    }
    lth_oppoint_free(op);
    lth_opdecomp_ws_free(ows);
    lth_point_free(dp);
    lth_decomp_ws_free(dws);
    lth_opsys_free(os);
    lth_system_free(sys);
    oc_free(C);
  }
}
END_TEST

/* ---- sparse chain blocks whose products leave most columns zero ----
 * Index 4, n = (6, 6, 5, 2), the chain A_14, A_21, A_32, A_43 as CSC
 * sources with patterns chosen so that R_3 = A_43, R_2 = R_3 A_32 and
 * R_1 = R_2 A_21 each have two nonzero columns (0, 2 of 5; 1, 3 of 6; 0, 4
 * of 6), reached through two levels of products: the operator form works on
 * those columns alone (lib/decomp/op_columns.c, op_thin_sets), and must
 * still agree with the dense decomposition.  The other blocks are dense and
 * every value is c0 + c1 sin(w t + phi), different per entry. */

typedef struct sp_blk {
  int id, rows, cols;
} sp_blk;

static double sp_val(int id, int p, double t, int m) {
  double c0 = 1.0 + 0.5 * ((id * 7 + p * 3) % 5), w = 0.7 + 0.1 * ((p + id) % 4);
  double phi = 0.2 * p + id, f = 1.0;
  for (int k = 2; k <= m; k++) f *= k;
  return (m == 0 ? c0 : 0.0) + 0.3 * pow(w, m) * sin(w * t + phi + m * M_PI / 2) / f;
}

static int sp_csc(void *ctx, double t, int order, double *values, size_t stride) {
  const sp_blk *b = ctx;
  for (int m = 0; m <= order; m++) {
    for (int p = 0; p < b->rows; p++) values[(size_t)m * stride + p] = sp_val(b->id, p, t, m);
  }
  return 0; /* rows holds the nnz here */
}

static int sp_dense(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const sp_blk *b = ctx;
  for (int m = 0; m <= order; m++) {
    for (int j = 0; j < b->cols; j++) {
      for (int i = 0; i < b->rows; i++) {
        coef[(size_t)m * stride + i + (size_t)j * ld] = 0.2 * sp_val(b->id, i + 7 * j, t, m);
      }
    }
  }
  return 0;
}

/* The system above; with sparse_rest, A_11, A_33 diagonal, A_22 nearly, and
 * A_12, A_23 with two entries, also as CSC sources, so that the thin factors C_i,
 * D_i have some of the 18 columns of [v | 1] alone (op_columns.c). */
static lth_system *sparse_columns_system(int sparse_rest, sp_blk *blk) {
  int n[4] = {6, 6, 5, 2};
  lth_system *sys = lth_system_alloc(4, n, NULL);
  ck_assert(sys != NULL);
  /* A_14 (6 x 2), A_21 (6 x 6), A_32 (5 x 6), A_43 (2 x 5): (colptr, rowind) */
  static const int p14[] = {0, 1, 3}, r14[] = {0, 2, 4};
  static const int p21[] = {0, 1, 2, 3, 4, 6, 6}, r21[] = {1, 5, 2, 0, 1, 3};
  static const int p32[] = {0, 1, 2, 2, 4, 5, 6}, r32[] = {1, 0, 0, 2, 3, 4};
  static const int p43[] = {0, 2, 2, 3, 3, 3}, r43[] = {0, 1, 1};
  /* diagonals, and two entries of A_12 (6 x 6) and A_23 (6 x 5) */
  static const int pd6[] = {0, 1, 2, 3, 4, 5, 6}, rd6[] = {0, 1, 2, 3, 4, 5};
  static const int pd5[] = {0, 1, 2, 3, 4, 5}, rd5[] = {0, 1, 2, 3, 4};
  /* A_22 with (1, 5) too: C_1 gains a column of block 2 outside act(R_2), which
   * A_21 takes to block 1 outside act(R_1) in E_1 (C_1^(2) A_21 V_1) */
  static const int p22[] = {0, 1, 2, 3, 4, 5, 7}, r22[] = {0, 1, 2, 3, 4, 1, 5};
  static const int p12[] = {0, 0, 1, 1, 1, 2, 2}, r12[] = {3, 1};
  static const int p23[] = {0, 0, 0, 1, 2, 2}, r23[] = {5, 0};
  struct {
    int i, j;
    const int *cp, *ri;
  } chain[] = {{1, 4, p14, r14}, {2, 1, p21, r21}, {3, 2, p32, r32},
               {4, 3, p43, r43}, {1, 1, pd6, rd6}, {2, 2, p22, r22},
               {3, 3, pd5, rd5}, {1, 2, p12, r12}, {2, 3, p23, r23}};
  int nsparse = sparse_rest ? 9 : 4;
  for (int k = 0; k < nsparse; k++) {
    int rows = n[chain[k].i - 1], cols = n[chain[k].j - 1];
    blk[k] = (sp_blk){k + 1, chain[k].cp[cols], 0};
    lth_source *src =
        lth_source_csc_callback(rows, cols, chain[k].cp, chain[k].ri, sp_csc, &blk[k], NULL);
    ck_assert(src != NULL);
    TU_ASSERT_OK(lth_system_set_A(sys, chain[k].i, chain[k].j, src, NULL));
  }
  int dense[][2] = {{1, 1}, {1, 2}, {2, 2}, {2, 3}, {3, 3}, {1, 0}, {4, 0}};
  for (int k = sparse_rest ? 5 : 0; k < 7; k++) {
    int i = dense[k][0], j = dense[k][1];
    blk[9 + k] = (sp_blk){10 + k, n[i - 1], j ? n[j - 1] : 1};
    lth_source *src =
        lth_source_callback(blk[9 + k].rows, blk[9 + k].cols, sp_dense, &blk[9 + k], NULL);
    ck_assert(src != NULL);
    TU_ASSERT_OK(j ? lth_system_set_A(sys, i, j, src, NULL) : lth_system_set_f(sys, i, src, NULL));
  }
  return sys;
}

START_TEST(test_sparse_columns) {
  static sp_blk blk[2][16];
  for (int sparse_rest = 0; sparse_rest <= 1; sparse_rest++) {
    lth_system *sys = sparse_columns_system(sparse_rest, blk[sparse_rest]);
    double worst = 0.0;
    int compared = 0;
    for (int k = 0; k < 6; k++) {
      for (int order = 0; order <= 1; order++) {
        tu_seed(77 + (uint64_t)k);
        cmp_result rs = compare_at(sys, order, 0.3 + 0.9 * k, 3);
        ck_assert_msg(rs.worst <= 1.0, "sparse_rest %d t %g order %d: difference %.3g x tolerance",
                      sparse_rest, 0.3 + 0.9 * k, order, rs.worst);
        worst = fmax(worst, rs.worst);
        compared += !rs.op_refused;
      }
    }
    ck_assert_msg(compared >= 8, "only %d of 12 points compared", compared);
    fprintf(stderr, "sparse columns (%s): largest difference %.3g of the tolerance\n",
            sparse_rest ? "every block sparse" : "chain sparse", worst);
    lth_system_free(sys);
  }
}
END_TEST

/* ---- random sparse patterns ----
 * Every block of Clark's pattern (2.2) as a CSC source with a random
 * pattern: the chain blocks A_1r and A_{i,i-1} hold the entries (k, k),
 * k < n_r (Pi structurally nonsingular) and each other entry with
 * probability 0.25; the other blocks are present with probability 0.6, each
 * entry with probability 0.25.  Over the draws the rows of L_i and F_ij and
 * the columns of R_i, S_i, T_i that the operator form keeps
 * (lib/decomp/op_columns.c, op_thin_sets) and the columns of C_i, D_i are
 * strict subsets in many different ways, and a row or column wrongly left
 * out shows up against the dense decomposition (a deliberately dropped row
 * of L_i, F_ij or column of S_i fails here). */

typedef struct rp_sys {
  sp_blk blk[24];
  int cp[24][8], ri[24][49];
} rp_sys;

static lth_system *random_pattern_system(rp_sys *R, uint64_t seed) {
  tu_seed(seed);
  int r = 2 + (int)tu_uniform(0.0, 2.999), n[4];
  n[r - 1] = 1 + (int)tu_uniform(0.0, 1.999);
  for (int i = 0; i + 1 < r; i++) n[i] = n[r - 1] + (int)tu_uniform(0.0, 4.999);
  lth_system *sys = lth_system_alloc(r, n, NULL);
  ck_assert(sys != NULL);
  int nb = 0;
  for (int i = 1; i <= r; i++) {
    for (int j = (i > 1 ? i - 1 : 1); j <= r; j++) {
      int chain = (i == 1 && j == r) || j == i - 1;
      int in = i == 1 || (i == r ? j == r - 1 : j <= r - 1); /* Clark (2.2) */
      if (!in) continue;
      if (!chain && tu_uniform(0.0, 1.0) > 0.6) continue;
      int rows = n[i - 1], cols = n[j - 1], nnz = 0;
      int *cp = R->cp[nb], *ri = R->ri[nb];
      cp[0] = 0;
      for (int jj = 0; jj < cols; jj++) {
        for (int ii = 0; ii < rows; ii++) {
          if ((chain && ii == jj && ii < n[r - 1]) || tu_uniform(0.0, 1.0) < 0.25) ri[nnz++] = ii;
        }
        cp[jj + 1] = nnz;
      }
      R->blk[nb] = (sp_blk){40 + nb, nnz, 0};
      lth_source *src = lth_source_csc_callback(rows, cols, cp, ri, sp_csc, &R->blk[nb], NULL);
      ck_assert(src != NULL);
      TU_ASSERT_OK(lth_system_set_A(sys, i, j, src, NULL));
      nb++;
    }
  }
  for (int i = 1; i <= r; i++) {
    R->blk[nb] = (sp_blk){40 + nb, n[i - 1], 1};
    lth_source *src = lth_source_callback(n[i - 1], 1, sp_dense, &R->blk[nb], NULL);
    ck_assert(src != NULL);
    TU_ASSERT_OK(lth_system_set_f(sys, i, src, NULL));
    nb++;
  }
  return sys;
}

/* 1 if the dense decomposition accepts the system at t (random patterns
 * can leave Pi ill-conditioned there: nothing to compare). */
static int dense_accepts(const lth_system *sys, double t) {
  lth_decomp_ws *dws = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *dp = lth_point_alloc(sys, 0, NULL);
  ck_assert(dws && dp);
  lth_decomp_ws_set_scale(dws, 0.0);
  int ok = lth_decomp_at(dws, t, dp, NULL) == LTH_OK;
  lth_point_free(dp);
  lth_decomp_ws_free(dws);
  return ok;
}

START_TEST(test_random_patterns) {
  static rp_sys R;
  int draws = 60, compared = 0;
  double worst = 0.0;
  for (int d = 0; d < draws; d++) {
    lth_system *sys = random_pattern_system(&R, 9001 + (uint64_t)d);
    double t = 0.4 + 0.05 * d;
    if (dense_accepts(sys, t)) {
      tu_seed(31 + (uint64_t)d);
      cmp_result rs = compare_at(sys, d % 2, t, 3);
      ck_assert_msg(rs.worst <= 1.0, "draw %d (index %d) t %g: difference %.3g x tolerance", d,
                    lth_system_index(sys), t, rs.worst);
      worst = fmax(worst, rs.worst);
      compared += !rs.op_refused;
    }
    lth_system_free(sys);
  }
  ck_assert_msg(compared >= draws / 2, "only %d of %d draws compared", compared, draws);
  fprintf(stderr,
          "random patterns: %d of %d draws compared, largest difference %.3g of the "
          "tolerance\n",
          compared, draws, worst);
}
END_TEST

/* ---- refusals ---- */

/* Index 2, n = (2, 1): A_12 = (t - 1.25, 0)^T scaled, A_21 = (1, 0.5): Pi = t - 1.25. */
static int sing_A12(void *ctx, double t, int order, double *val, size_t stride) {
  double scale = *(const double *)ctx;
  val[0] = scale * (t - 1.25);
  if (order >= 1) val[stride] = scale;
  val[1] = 0.3 * scale * (t - 1.25);
  if (order >= 1) val[1 + stride] = 0.3 * scale;
  return 0;
}
static int fail_cb(void *ctx, double t, int order, double *val, size_t stride) {
  (void)ctx, (void)order, (void)val, (void)stride;
  return t > 2.0;
}

START_TEST(test_refusals) {
  int n[2] = {2, 1};
  double scale = 1.0;
  lth_opsys *os = lth_opsys_alloc(2, n, NULL);
  int cp12[2] = {0, 2}, ri12[2] = {0, 1};
  int cp21[3] = {0, 1, 2}, ri21[2] = {0, 0};
  double v21[2] = {1.0, 0.5};
  lth_error err;
  /* no system */
  lth_error_clear(&err);
  ck_assert(lth_opsys_from_system(NULL, &err) == NULL && err.status == LTH_EINVAL);
  /* a bad pattern, a block outside the pattern, a block set twice */
  int bad[2] = {0, 3};
  ck_assert_int_eq(lth_opsys_set_A(os, 1, 2, 2, cp12, bad, sing_A12, &scale, &err), LTH_EDIM);
  ck_assert_int_eq(lth_opsys_set_A_const(os, 2, 2, 2, cp21, ri21, v21, &err), LTH_ESTRUCT);
  /* the chain is incomplete: no workspace */
  ck_assert(lth_opdecomp_ws_alloc(os, 0, &err) == NULL && err.status == LTH_ESTRUCT);
  TU_ASSERT_OK(lth_opsys_set_A(os, 1, 2, 2, cp12, ri12, sing_A12, &scale, NULL));
  TU_ASSERT_OK(lth_opsys_set_A_const(os, 2, 1, 2, cp21, ri21, v21, NULL));
  ck_assert_int_eq(lth_opsys_set_A_const(os, 2, 1, 2, cp21, ri21, v21, &err), LTH_EINVAL);
  TU_ASSERT_OK(lth_opsys_set_f(os, 1, fail_cb, NULL, NULL));
  lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, NULL);
  lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, NULL);
  ck_assert(ws && pt);
  /* nothing to apply before a decomposition */
  lth_jet *x0 = jet_new(2, 1, 0), *y0 = jet_new(2, 1, 0);
  ck_assert_int_eq(lth_oppoint_apply_P(pt, 1, x0, y0, &err), LTH_EINVAL);
  lth_jet_free(x0);
  lth_jet_free(y0);
  /* Pi = 1.15 (t - 1.25) in 1-norm terms: exactly singular at 1.25 */
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opdecomp_at(ws, 1.25, pt, &err), LTH_ESING);
  ck_assert(err.has_t && err.t == 1.25);
  ck_assert_msg(strstr(err.message, "singular") != NULL, "%s", err.message);
  /* nearly singular: cond_interval = ||Pi^-1|| max(chain, scale) above the threshold */
  lth_opdecomp_ws_set_scale(ws, 1.0);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opdecomp_at(ws, 1.25 + 1e-13, pt, &err), LTH_ECOND);
  ck_assert(err.has_t && err.has_cond && err.cond > 1e12);
  /* index 2: the a priori amplification is cond_interval itself, so 1e-4 away is fine */
  TU_ASSERT_OK(lth_opdecomp_at(ws, 1.25 + 1e-4, pt, NULL));
  ck_assert(lth_oppoint_info(pt)->cond_interval > 1e3);
  /* ... unless the threshold is set below its cond_interval */
  lth_opdecomp_ws_set_cond_max(ws, 1e3);
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opdecomp_at(ws, 1.25 + 1e-4, pt, &err), LTH_ECOND);
  ck_assert(err.has_t && err.t == 1.25 + 1e-4 && err.has_cond && err.cond > 1e3);
  lth_opdecomp_ws_set_cond_max(ws, 1e12);
  /* a callback failure names t, and the point then holds nothing */
  lth_error_clear(&err);
  ck_assert_int_eq(lth_opdecomp_at(ws, 2.5, pt, &err), LTH_ECALLBACK);
  ck_assert(err.has_t && err.t == 2.5);
  lth_jet *g = jet_new(2, 1, 0);
  ck_assert_int_eq(lth_oppoint_g(pt, g, &err), LTH_EINVAL);
  lth_jet_free(g);
  /* a point of higher order than the workspace's */
  lth_oppoint *hi = lth_oppoint_alloc(os, 2, 1, NULL);
  ck_assert_int_eq(lth_opdecomp_at(ws, 0.5, hi, &err), LTH_EORDER);
  /* applies check sizes */
  lth_jet *x = jet_new(3, 1, 0), *y = jet_new(2, 1, 0);
  TU_ASSERT_OK(lth_opdecomp_at(ws, 0.5, pt, NULL));
  ck_assert_int_eq(lth_oppoint_apply_Ahat(pt, x, y, &err), LTH_EDIM);
  lth_jet_free(x);
  lth_jet_free(y);
  lth_oppoint_free(hi);
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opsys_free(os);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("opdecomp");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_random_against_dense);
  tcase_add_test(tc, test_random_theorem3);
  tcase_add_test(tc, test_shipped_examples);
  tcase_add_test(tc, test_sparse_chain);
  tcase_add_test(tc, test_sparse_columns);
  tcase_add_test(tc, test_random_patterns);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
