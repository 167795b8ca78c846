/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator form's proof that Pi is nonsingular on a piece
 * (lib/decomp/op_piproof.c) against the dense path's (lib/decomp/
 * pi_proof.c): on random small systems, dense blocks and the equation
 * form's sparse ones, both prove or both refuse each piece, with the same
 * q and bounds to a rounding-level difference; what it proves holds against
 * the decomposition at the points of a fine grid; the enclosures on a
 * pattern (lth_source_enclose_csc) are the dense ones at the pattern's
 * entries. */
#include "wellposed_util.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "lth/enclose.h"
#include "lth/opdecomp.h"
#include "lth/source.h"
#include "decomp/op_piproof.h"
#include "decomp/pi_proof.h"
#include "testutil.h"

static unsigned long long seed = 2027;
static double urand(void) { /* a fixed LCG: the same family everywhere */
  seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(seed >> 11) / 9007199254740992.0;
}

/* The two proofs agree on [a, b]: proven alike unless q is within 1e-6 of
 * 1, q to 1e-9 relative (+1e-12: a q of rounding size), the bounds to 1e-9. */
static int agree(lth_pi_proof *dp, op_piproof *op, double a, double b, const char *text) {
  lth_pi_piece x, y;
  lth_pi_proof_piece(dp, a, b, 0, &x);
  op_piproof_piece(op, a, b, &y);
  if (isfinite(x.q) || isfinite(y.q)) {
    ck_assert_msg(fabs(x.q - y.q) <= 1e-9 * fmax(x.q, y.q) + 1e-12,
                  "q %.17g (dense) vs %.17g (operator) on [%g, %g] of %s", x.q, y.q, a, b, text);
  }
  if (fabs(x.q - 1.0) > 1e-6) ck_assert_int_eq(x.proven, y.proven);
  if (x.proven && y.proven) {
    ck_assert_double_le(fabs(x.pinv_bound - y.pinv_bound), 1e-9 * x.pinv_bound);
    ck_assert_double_le(fabs(x.chain_bound - y.chain_bound), 1e-9 * x.chain_bound);
  }
  return y.proven;
}

static void compare_system(const lth_system *sys, const char *text, double t0, double t1,
                           int *proven, int *pieces);

static void compare(const char *text, double t0, double t1, int *proven, int *pieces) {
  lth_problem *pb = wp_parse(text);
  compare_system(wp_system(pb), text, t0, t1, proven, pieces);
  lth_problem_free(pb);
}

static void compare_system(const lth_system *sys, const char *text, double t0, double t1,
                           int *proven, int *pieces) {
  lth_error err;
  lth_opsys *os = lth_opsys_from_system(sys, &err);
  ck_assert_msg(os != NULL, "%s", err.message);
  lth_pi_proof *dp = lth_pi_proof_alloc(sys);
  const char *why = NULL;
  op_piproof *op = op_piproof_alloc(os, &why);
  ck_assert_msg(dp && op, "no proof: %s", why ? why : "dense");
  for (int k = 0; k < 16; k++) {
    double w = (t1 - t0) * pow(2.0, -12.0 * urand()), a = t0 + (t1 - t0 - w) * urand();
    *proven += agree(dp, op, a, a + w, text);
    (*pieces)++;
  }
  op_piproof_free(op);
  lth_pi_proof_free(dp);
  lth_opsys_free(os);
}

START_TEST(agrees_with_the_dense_proof) {
  int proven = 0, pieces = 0;
  for (int m = 0; m < 10; m++) {
    double c[8];
    for (int k = 0; k < 8; k++) c[k] = 2.0 * urand() - 1.0;
    char text[1024];
    /* index 2, n_r = 2: Pi = A(2,1) A(1,2) near a diagonal, sometimes not */
    snprintf(text, sizeof text,
             "blocks 3 2\ninterval 0 2\nA(1,1) = [0, 1, 0; -1, 0, 0; 0, 0, -1]\n"
             "A(1,2) = [%.6f + 0.8*sin(%.6f*t), 0.2*cos(t); 0.1*t, %.6f + cos(%.6f*t); 0, 1]\n"
             "A(2,1) = [1, %.6f*t/(2+t), 0; %.6f*exp(-t), 1, 0]\n",
             1.0 + c[0], 1 + 3 * fabs(c[1]), -1.0 + c[2], 1 + 3 * fabs(c[3]), 0.5 * c[4],
             0.5 * c[5]);
    compare(text, 0.0, 2.0, &proven, &pieces);
    /* index 3 (chain A(3,2) A(2,1) A(1,3)), n_r = 1 */
    snprintf(text, sizeof text,
             "blocks 2 2 1\ninterval 0 3\nA(1,3) = [1; %.6f*sin(t)]\n"
             "A(2,1) = [1, %.6f; 0, 1 + 0.5*cos(%.6f*t)]\nA(3,2) = [%.6f + t/3, 1]\n",
             c[6], c[7], 1 + fabs(c[1]), c[4]);
    compare(text, 0.0, 3.0, &proven, &pieces);
  }
  /* both outcomes occur: the comparison is not of proofs that always pass */
  ck_assert_int_gt(proven, pieces / 4);
  ck_assert_int_lt(proven, pieces);
}
END_TEST

/* The equation form: its blocks are sparse sources (the pattern of the
 * equations), enclosed on the pattern. */
static const char *pendulum =
    "problem equations\nvariables x1 x2 v1 v2 lambda\ninterval 0 10\n"
    "x1' = v1\nx2' = v2\nv1' = -1.5*x1 + 0.5*cos(t)*lambda\n"
    "v2' = -1.5*x2 + 0.5*sin(t)*lambda - 9.81\n0 = cos(t)*x1 + sin(t)*x2 - 1\n";

START_TEST(sparse_blocks_agree_and_bound_the_truth) {
  int proven = 0, pieces = 0;
  compare(pendulum, 0.0, 10.0, &proven, &pieces);
  ck_assert_int_gt(proven, 0);
  /* mm() blocks (data/chain_sparse.lth: Matrix Market files, eye) */
  const char *dir = getenv("LTH_DATA_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/chain_sparse.lth", dir ? dir : "data");
  lth_problem *cp = NULL;
  lth_error err;
  ck_assert_msg(lth_problem_read(path, &cp, &err) == LTH_OK, "%s", err.message);
  int p2 = 0, n2 = 0;
  compare_system(lth_problem_system(cp), path, 0.0, 10.0, &p2, &n2);
  ck_assert_int_eq(p2, n2); /* Pi = G G' = 1 */
  lth_problem_free(cp);
  /* the whole interval in pieces of 0.5: the bound holds at a fine grid */
  lth_problem *pb = wp_parse(pendulum);
  const lth_system *sys = wp_system(pb);
  lth_opsys *os = lth_opsys_from_system(sys, NULL);
  op_piproof *op = op_piproof_alloc(os, NULL);
  ck_assert_ptr_nonnull(op);
  lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(os, 0, NULL);
  lth_oppoint *pt = lth_oppoint_alloc(os, 0, 1, NULL);
  for (int k = 0; k < 20; k++) {
    lth_pi_piece pc;
    op_piproof_piece(op, 0.5 * k, 0.5 * (k + 1), &pc);
    ck_assert_msg(pc.proven, "piece %d: q = %g", k, pc.q);
    for (int i = 0; i <= 50; i++) {
      double t = 0.5 * k + 0.01 * i;
      TU_ASSERT_OK(lth_opdecomp_at(ws, t, pt, NULL));
      const lth_opinfo *in = lth_oppoint_info(pt);
      ck_assert_double_le(in->pi_inv_norm, pc.pinv_bound * (1 + 1e-13));
      ck_assert_double_le(in->chain_norm, pc.chain_bound * (1 + 1e-13));
    }
  }
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  op_piproof_free(op);
  lth_opsys_free(os);
  lth_problem_free(pb);
}
END_TEST

/* lth_source_enclose_csc is lth_source_enclose at the pattern's entries. */
START_TEST(enclosures_on_the_pattern) {
  lth_problem *pb = wp_parse(pendulum);
  const lth_system *sys = wp_system(pb);
  int checked = 0;
  for (int i = 1; i <= lth_system_index(sys); i++) {
    for (int j = 1; j <= lth_system_index(sys); j++) {
      const lth_source *src = lth_system_A(sys, i, j);
      if (!src || !lth_source_can_enclose_csc(src)) continue;
      int nnz, rows = lth_source_rows(src), cols = lth_source_cols(src);
      const int *cp, *ri;
      TU_ASSERT_OK(lth_source_csc_pattern(src, &nnz, &cp, &ri, NULL));
      size_t w = lth_source_enclose_work_size(src, 2) + 1, sz = (size_t)rows * cols;
      lth_interval *work = malloc(w * sizeof *work), *d = malloc((3 * sz + 1) * sizeof *d);
      lth_interval *s = malloc((3 * (size_t)nnz + 3) * sizeof *s);
      TU_ASSERT_OK(lth_source_enclose(src, 0.3, 0.7, 2, d, work, NULL));
      TU_ASSERT_OK(lth_source_enclose_csc(src, 0.3, 0.7, 2, s, (size_t)nnz + 1, work, NULL));
      for (int m = 0; m <= 2; m++) {
        for (int c = 0; c < cols; c++) {
          for (int p = cp[c]; p < cp[c + 1]; p++) {
            lth_interval x = d[(size_t)m * sz + ri[p] + (size_t)c * rows];
            lth_interval y = s[(size_t)m * (nnz + 1) + p];
            ck_assert(x.lo == y.lo && x.hi == y.hi);
            checked++;
          }
        }
      }
      free(work);
      free(d);
      free(s);
    }
  }
  ck_assert_int_gt(checked, 10);
  /* a callback carries none */
  int colptr[2] = {0, 1}, rowind[1] = {0};
  lth_source *cb = lth_source_csc_callback(1, 1, colptr, rowind, NULL, NULL, NULL);
  ck_assert_ptr_null(cb); /* (no function: refused) */
  lth_problem_free(pb);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("op_piproof");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, agrees_with_the_dense_proof);
  tcase_add_test(tc, sparse_blocks_agree_and_bound_the_truth);
  tcase_add_test(tc, enclosures_on_the_pattern);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
