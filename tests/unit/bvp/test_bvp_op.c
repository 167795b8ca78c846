/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation on the operator path (lth_bvp_solve_op, lib/bvp/bvp_op.c):
 * manufactured exact solutions for index 2..5 and agreement with the dense
 * collocation; the accessors it is built on (lth_oppoint_thin_reach,
 * lth_oppoint_apply_S) checked against P, G and Ahat on a sparse chain; the
 * refusals (bad boundary data, conditions that do not fix the solution). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/bvp.h"
#include "lth/problem.h"
#include "testsys.h"
#include "testutil.h"

#define T0 0.2
#define T1 1.7

typedef struct {
  ts_sys *S;
  lth_system *sys;
  lth_opsys *os;
  int s, p;
  double B0[256], B1[256], beta[16];
  /* the same as CSC (every entry stored) */
  int colptr[65], rowind[256];
} opcase;

static void make_case(opcase *c, int r, const int *n, uint64_t seed) {
  c->S = ts_new(r, n, seed, 0.2, 1);
  c->sys = ts_system(c->S);
  c->os = lth_opsys_from_system(c->sys, NULL);
  ck_assert(c->os != NULL);
  c->s = c->S->s;
  c->p = lth_system_manifold_dim(c->sys);
  tu_seed(seed * 7 + 1);
  for (int k = 0; k < c->p * c->s; k++) {
    c->B0[k] = tu_uniform(-1, 1);
    c->B1[k] = tu_uniform(-1, 1);
  }
  double z0[64], z1[64];
  ts_z_coef(c->S, T0, 0, z0);
  ts_z_coef(c->S, T1, 0, z1);
  for (int i = 0; i < c->p; i++) {
    c->beta[i] = 0;
    for (int j = 0; j < c->s; j++)
      c->beta[i] += c->B0[i + j * c->p] * z0[j] + c->B1[i + j * c->p] * z1[j];
  }
  for (int j = 0; j <= c->s; j++) c->colptr[j] = j * c->p;
  for (int k = 0; k < c->p * c->s; k++) c->rowind[k] = k % c->p;
}

static lth_bvp_sparse_bc sparse_bc(const opcase *c) {
  lth_bvp_sparse_bc bc = {.rows = c->p, .beta = c->beta};
  bc.B0 = (lth_bvp_csc){c->colptr, c->rowind, c->B0};
  bc.B1 = (lth_bvp_csc){c->colptr, c->rowind, c->B1};
  return bc;
}

static void free_case(opcase *c) {
  lth_opsys_free(c->os);
  lth_system_free(c->sys);
  ts_free(c->S);
}

static double error_vs_exact(const opcase *c, const lth_bvp_result *res) {
  double e = 0, scale = 1, z[64];
  for (size_t k = 0; k < res->n; k++) {
    ts_z_coef(c->S, res->times[k], 0, z);
    for (int i = 0; i < c->s; i++) {
      e = fmax(e, fabs(res->z[k * c->s + i] - z[i]));
      scale = fmax(scale, fabs(z[i]));
    }
  }
  return e / scale;
}

/* Index 2..5: the exact solution to the tolerance, the estimate not
 * optimistic by more than a factor 10 where it is above rounding, the
 * conditions met, and the dense collocation's answer within both
 * tolerances. */
START_TEST(test_manufactured_op) {
  if (!lth_bvp_op_available()) return;
  int ns[][5] = {{3, 1}, {2, 3, 1}, {3, 3, 2, 2}, {2, 2, 2, 2, 1}};
  double times[] = {T0, 0.5, 1.0, 1.3, T1};
  for (int r = 2; r <= 5; r++) {
    opcase c;
    make_case(&c, r, ns[r - 2], 900 + r);
    lth_bvp_opts o;
    lth_bvp_opts_init(&o);
    o.method = LTH_BVP_COLLOCATION;
    o.colloc.tol = 1e-9;
    lth_bvp_sparse_bc bc = sparse_bc(&c);
    lth_bvp_result *res = NULL, *dn = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_bvp_solve_op(c.os, T0, T1, &bc, times, 5, &o, &res, &err) == LTH_OK,
                  "index %d: %s", r, err.message);
    double e = error_vs_exact(&c, res);
    ck_assert_msg(e < 1e-8, "index %d: error %.3e (estimate %.3e)", r, e, res->error_estimate);
    ck_assert_msg(e < 10 * res->error_estimate + 1e-12, "index %d: error %.3e, estimate %.3e", r, e,
                  res->error_estimate);
    ck_assert_msg(res->bc_residual < 1e-9, "index %d: bc residual %.3e", r, res->bc_residual);
    ck_assert(res->drift < 1e-8 && isfinite(res->cond_shooting) && isnan(res->cond_bvp));
    ck_assert(res->method == LTH_BVP_COLLOCATION && res->intervals >= 16);
    /* the proof of Pi between the points: a share with a bound, or off with the reason */
    ck_assert_msg(
        res->pi_proof_off ? res->pi_proven == 0 && res->pi_proofs == 0
                          : res->pi_proven >= 0 && res->pi_proven <= 1 && res->pi_proofs > 0 &&
                                (res->pi_proven == 0 || res->pi_inv_bound > 0),
        "index %d: pi_proven %g, pi_proofs %zu, pi_inv_bound %g, off %s", r, res->pi_proven,
        res->pi_proofs, res->pi_inv_bound, res->pi_proof_off ? res->pi_proof_off : "(none)");
    ck_assert_msg(lth_bvp_solve(c.sys, T0, T1, c.p, c.B0, c.B1, c.beta, times, 5, &o, &dn, &err) ==
                      LTH_OK,
                  "dense, index %d: %s", r, err.message);
    double d = 0, scale = 1;
    for (size_t k = 0; k < 5 * (size_t)c.s; k++) {
      d = fmax(d, fabs(res->z[k] - dn->z[k]));
      scale = fmax(scale, fabs(dn->z[k]));
    }
    ck_assert_msg(d < 2e-9 * scale, "index %d: operator and dense differ by %.3e", r, d);
    lth_bvp_result_free(res);
    lth_bvp_result_free(dn);
    free_case(&c);
  }
}
END_TEST

/* The accessors on a sparse chain (data/chain_sparse.lth, index 3): S x = 0
 * for x = (I - P) y, P x = L S x vanishes iff S x does (S P y = S y), and off
 * the reach Ahat e_c is the sparse blocks' column, G e_c = e_c, P e_c = 0. */
START_TEST(test_reach_and_S) {
  char path[512];
  snprintf(path, sizeof path, "%s/chain_sparse.lth", getenv("LTH_DATA_DIR"));
  lth_problem *pb = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_problem_read(path, &pb, &err) == LTH_OK, "%s", err.message);
  lth_opsys *os = lth_opsys_from_system(lth_problem_system(pb), &err);
  ck_assert(os != NULL);
  int s = lth_opsys_size(os), m = lth_opsys_state_dim(os), r = lth_opsys_index(os);
  int nS = (r - 1) * lth_opsys_block_size(os, r);
  lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, &err);
  lth_oppoint *pt = lth_oppoint_alloc(os, 0, 4, &err);
  ck_assert(ws && pt);
  ck_assert_int_eq(lth_opdecomp_at(ws, 0.7, pt, &err), LTH_OK);
  char *cols = malloc((size_t)m), *rows = malloc((size_t)s);
  ck_assert_int_eq(lth_oppoint_thin_reach(pt, cols, rows, &err), LTH_OK);
  lth_jet *x = lth_jet_alloc(m, 1, 0, NULL), *y = lth_jet_alloc(m, 1, 0, NULL);
  lth_jet *w = lth_jet_alloc(m, 1, 0, NULL), *sx = lth_jet_alloc(nS, 1, 0, NULL);
  lth_jet *sy = lth_jet_alloc(nS, 1, 0, NULL), *g = lth_jet_alloc(s, 1, 0, NULL);
  tu_seed(5);
  for (int a = 0; a < m; a++) y->c[a] = tu_uniform(-1, 1);
  y->order = 0;
  ck_assert_int_eq(lth_oppoint_apply_P(pt, 1, y, x, &err), LTH_OK); /* x = (I - P) y */
  ck_assert_int_eq(lth_oppoint_apply_S(pt, x, sx, &err), LTH_OK);
  for (int a = 0; a < nS; a++) ck_assert_msg(fabs(sx->c[a]) < 1e-13, "S (I - P) y = %g", sx->c[a]);
  ck_assert_int_eq(lth_oppoint_apply_P(pt, 0, y, x, &err), LTH_OK); /* x = P y */
  ck_assert_int_eq(lth_oppoint_apply_S(pt, x, sx, &err), LTH_OK);
  ck_assert_int_eq(lth_oppoint_apply_S(pt, y, sy, &err), LTH_OK);
  double big = 0;
  for (int a = 0; a < nS; a++) {
    ck_assert(fabs(sx->c[a] - sy->c[a]) < 1e-13 * (1 + fabs(sy->c[a])));
    big = fmax(big, fabs(sy->c[a]));
  }
  ck_assert(big > 1e-3); /* the identity above is not 0 = 0 */
  int off = 0;
  for (int c = 0; c < m; c++) {
    if (cols[c]) continue;
    off++;
    for (int a = 0; a < m; a++) x->c[a] = a == c;
    x->order = 0;
    ck_assert_int_eq(lth_oppoint_apply_P(pt, 0, x, w, &err), LTH_OK);
    for (int a = 0; a < m; a++) ck_assert(w->c[a] == 0.0);
    ck_assert_int_eq(lth_oppoint_apply_G(pt, x, g, &err), LTH_OK);
    ck_assert_int_eq(lth_oppoint_apply_Ahat(pt, x, w, &err), LTH_OK);
    for (int a = 0; a < s; a++) ck_assert(g->c[a] == (a == c ? 1.0 : 0.0));
    /* Ahat e_c at the rows the reach leaves out is A's (rows of v only) */
    lth_jet *zc = lth_jet_alloc(s, 1, 0, NULL), *az = lth_jet_alloc(s, 1, 0, NULL);
    for (int a = 0; a < s; a++) zc->c[a] = a == c;
    zc->order = 0;
    ck_assert_int_eq(lth_oppoint_apply_A(pt, zc, az, &err), LTH_OK);
    for (int a = 0; a < m; a++) {
      if (!rows[a]) ck_assert(fabs(w->c[a] - az->c[a]) <= 1e-15 * (1 + fabs(az->c[a])));
    }
    lth_jet_free(zc);
    lth_jet_free(az);
  }
  ck_assert_msg(off > 0, "every column is in the reach: the check above was empty");
  lth_jet_free(x);
  lth_jet_free(y);
  lth_jet_free(w);
  lth_jet_free(sx);
  lth_jet_free(sy);
  lth_jet_free(g);
  free(cols);
  free(rows);
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opsys_free(os);
  lth_problem_free(pb);
}
END_TEST

/* Wrong row count and bad patterns are LTH_EBC; conditions that do not fix
 * the solution (B1 = 0 and B0 of rank < p on the manifold: here B0 = 0 too)
 * are LTH_ENOTUNIQUE, not a number. */
START_TEST(test_refusals_op) {
  if (!lth_bvp_op_available()) return;
  int n[] = {2, 3, 1};
  opcase c;
  make_case(&c, 3, n, 77);
  double times[] = {T0, T1};
  lth_bvp_sparse_bc bc = sparse_bc(&c);
  lth_bvp_result *res = NULL;
  lth_error err;
  bc.rows = c.p - 1;
  ck_assert_int_eq(lth_bvp_solve_op(c.os, T0, T1, &bc, times, 2, NULL, &res, &err), LTH_EBC);
  ck_assert(res == NULL && strstr(err.message, "p = "));
  bc = sparse_bc(&c);
  int bad[65];
  memcpy(bad, c.colptr, sizeof bad);
  bad[1] = bad[2] + 1; /* decreasing */
  bc.B0.colptr = bad;
  ck_assert_int_eq(lth_bvp_solve_op(c.os, T0, T1, &bc, times, 2, NULL, &res, &err), LTH_EBC);
  bc = sparse_bc(&c);
  double zeros[256] = {0};
  bc.B0.val = zeros;
  bc.B1.val = zeros;
  ck_assert_int_eq(lth_bvp_solve_op(c.os, T0, T1, &bc, times, 2, NULL, &res, &err), LTH_ENOTUNIQUE);
  ck_assert(res == NULL);
  free_case(&c);
}
END_TEST

/* A mesh whose sparse system needs more than opts.colloc.max_bytes is
 * refused before it is assembled (LTH_ENOMEM naming the gigabytes), and the
 * same solve within a limit it fits answers. */
START_TEST(test_memory_limit_op) {
  if (!lth_bvp_op_available()) return;
  int n[] = {2, 3, 1};
  opcase c;
  make_case(&c, 3, n, 78);
  double times[] = {T0, T1};
  lth_bvp_sparse_bc bc = sparse_bc(&c);
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = LTH_BVP_COLLOCATION;
  o.colloc.max_bytes = 1000;
  lth_bvp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_bvp_solve_op(c.os, T0, T1, &bc, times, 2, &o, &res, &err), LTH_ENOMEM);
  ck_assert_msg(res == NULL && strstr(err.message, "GB") && strstr(err.message, "8 intervals"),
                "%s", err.message);
  o.colloc.max_bytes = (size_t)1 << 30;
  ck_assert_msg(lth_bvp_solve_op(c.os, T0, T1, &bc, times, 2, &o, &res, &err) == LTH_OK, "%s",
                err.message);
  ck_assert(error_vs_exact(&c, res) < 1e-7);
  lth_bvp_result_free(res);
  free_case(&c);
}
END_TEST

START_TEST(test_without_klu_refused) {
  if (lth_bvp_op_available()) return;
  int n[] = {3, 1};
  opcase c;
  make_case(&c, 2, n, 3);
  lth_bvp_sparse_bc bc = sparse_bc(&c);
  lth_bvp_result *res = NULL;
  lth_error err;
  double t = T0;
  ck_assert_int_eq(lth_bvp_solve_op(c.os, T0, T1, &bc, &t, 1, NULL, &res, &err), LTH_EINVAL);
  ck_assert(strstr(err.message, "KLU"));
  free_case(&c);
}
END_TEST

static Suite *bvp_op_suite(void) {
  Suite *s = suite_create("bvp_op");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_manufactured_op);
  tcase_add_test(tc, test_reach_and_S);
  tcase_add_test(tc, test_refusals_op);
  tcase_add_test(tc, test_memory_limit_op);
  tcase_add_test(tc, test_without_klu_refused);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(bvp_op_suite)
