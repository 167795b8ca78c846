/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation on problems with fast modes (lib/bvp/bvp_colloc.c): dichotomic
 * BVPs of index 2 and 3 with modes e^{+-40 t} .. e^{+-100 t} and boundary
 * layers at both ends, where single shooting must refuse; a boundary layer
 * of a decaying mode of rate 1e3, where the adaptive mesh must cluster and
 * the error estimate stay within 10x of the truth (tests/fixtures/colloc_sys.h). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "colloc/colloc.h"
#include "colloc_sys.h"
#include "lth/bvp.h"
#include "testutil.h"

#define NOUT 41

static cs_fn K(double c) { return (cs_fn){.c0 = c}; } /* the constant c */
static cs_fn S(double c0, double c1, double w, double phi) {
  return (cs_fn){.c0 = c0, .c1 = c1, .w = w, .phi = phi, .ce = 0, .mu = 0, .tau = 0};
}

/* Index 2, blocks (3, 1), or index 3, blocks (3, 1, 1), on [0, 1]: A(1,1) has
 * +lam in x1 and -mu in x2 (plus time-varying couplings), so the state space
 * carries a growing and a decaying mode; the exact solution has the layers
 * e^{lam (t - 1)} in x1 and e^{-mu t} in x2. */
static void fast_system(cs_sys *Sy, int r, double lam, double mu) {
  int n2[] = {3, 1}, n3[] = {3, 1, 1};
  cs_init(Sy, r, r == 2 ? n2 : n3);
  *cs_A(Sy, 0, 0) = K(lam);
  *cs_A(Sy, 0, 1) = S(0, 0.5, 1.0, 0);
  *cs_A(Sy, 0, 2) = K(0.2);
  *cs_A(Sy, 1, 0) = S(0, 0.4, 1.3, 0.5);
  *cs_A(Sy, 1, 1) = K(-mu);
  *cs_A(Sy, 1, 2) = K(0.1);
  *cs_A(Sy, 2, 0) = K(0.3);
  *cs_A(Sy, 2, 1) = K(-0.2);
  *cs_A(Sy, 2, 2) = S(0.5, 0.2, 2.0, 0);
  if (r == 2) { /* A(1,2) and A(2,1): Pi = A(2,1) A(1,2) ~ 1, time-varying P */
    *cs_A(Sy, 0, 3) = S(0, 0.2, 1.0, 0);
    *cs_A(Sy, 1, 3) = S(0, 0.1, 1.0, 1.0);
    *cs_A(Sy, 2, 3) = K(1);
    *cs_A(Sy, 3, 0) = S(0.1, 0.05, 1.0, 0);
    *cs_A(Sy, 3, 1) = K(0.05);
    *cs_A(Sy, 3, 2) = K(1);
  } else { /* A(1,2), A(1,3), A(2,1), A(2,2), A(3,2): Pi = A(3,2) A(2,1) A(1,3) ~ 1 */
    *cs_A(Sy, 0, 3) = K(0.2);
    *cs_A(Sy, 1, 3) = K(-0.1);
    *cs_A(Sy, 2, 3) = S(0, 0.5, 1.0, 0);
    *cs_A(Sy, 0, 4) = S(0, 0.1, 1.0, 0);
    *cs_A(Sy, 1, 4) = K(0.05);
    *cs_A(Sy, 2, 4) = K(1);
    *cs_A(Sy, 3, 0) = S(0, 0.2, 1.0, 1.5);
    *cs_A(Sy, 3, 1) = K(0.1);
    *cs_A(Sy, 3, 2) = K(1);
    *cs_A(Sy, 3, 3) = K(0.3);
    *cs_A(Sy, 4, 3) = S(1, 0.2, 1.0, 0);
  }
  Sy->z[0] = (cs_fn){.c0 = 0, .c1 = 0.5, .w = 1.7, .phi = 0.3, .ce = 1.0, .mu = lam, .tau = 1.0};
  Sy->z[1] =
      (cs_fn){.c0 = 0, .c1 = 0.4, .w = 1.1, .phi = M_PI / 2, .ce = 1.0, .mu = -mu, .tau = 0.0};
  Sy->z[2] = S(0.1, 0.3, 2.0, 0);
  Sy->z[3] = S(0, 0.7, 0.9, M_PI / 2);
  if (r == 3) Sy->z[4] = S(0.2, 0.6, 1.4, 0.2);
}

typedef struct {
  cs_sys S;
  lth_system *sys;
  int s, p;
  double B0[32], B1[32], beta[2], times[NOUT];
} fast_case;

/* Conditions x2(0) + 0.3 x1(0) (the decaying mode at t0) and x1(1) + 0.5 z_1[3](1)
 * (the growing mode at t1): well conditioned.  Output times include points
 * inside both layers. */
static void make_fast(fast_case *c, int r, double lam, double mu) {
  memset(c, 0, sizeof *c);
  fast_system(&c->S, r, lam, mu);
  c->sys = cs_system(&c->S);
  c->s = c->S.s;
  c->p = lth_system_manifold_dim(c->sys);
  if (c->p != 2) abort();
  c->B0[1 + 1 * 2] = 1.0;
  c->B0[1 + 0 * 2] = 0.3;
  c->B1[0] = 1.0;
  c->B1[0 + 2 * 2] = 0.5;
  double z0[CS_MAXS], z1[CS_MAXS];
  cs_exact(&c->S, 0, z0);
  cs_exact(&c->S, 1, z1);
  for (int i = 0; i < 2; i++) {
    c->beta[i] = 0;
    for (int j = 0; j < c->s; j++)
      c->beta[i] += c->B0[i + j * 2] * z0[j] + c->B1[i + j * 2] * z1[j];
  }
  for (int k = 0; k < NOUT; k++) c->times[k] = k / (NOUT - 1.0);
  c->times[1] = 0.0007;
  c->times[2] = 0.004;
  c->times[NOUT - 2] = 0.9993;
}

static double error_of(const fast_case *c, const lth_bvp_result *res, double *scale) {
  double e = 0, z[CS_MAXS];
  *scale = 1.0;
  for (int k = 0; k < NOUT; k++) {
    cs_exact(&c->S, c->times[k], z);
    for (int i = 0; i < c->s; i++) {
      e = fmax(e, fabs(res->z[k * c->s + i] - z[i]));
      *scale = fmax(*scale, fabs(z[i]));
    }
  }
  return e;
}

static lth_status run(fast_case *c, lth_bvp_method method, double tol, lth_bvp_result **res,
                      lth_error *err) {
  lth_bvp_opts o;
  lth_bvp_opts_init(&o);
  o.method = method;
  o.colloc.tol = tol;
  lth_error_clear(err);
  return lth_bvp_solve(c->sys, 0, 1, 2, c->B0, c->B1, c->beta, c->times, NOUT, &o, res, err);
}

/* Measured (stages 4, tol 1e-10): index 2, lam 40: error 2.2e-13 on 99
 * intervals; lam 100: 1.9e-13 on 151; index 3: 2.2e-13 / 100, 1.6e-13 / 153. */
START_TEST(test_dichotomic) {
  double lams[] = {40, 100};
  for (int r = 2; r <= 3; r++) {
    for (int i = 0; i < 2; i++) {
      fast_case c;
      make_fast(&c, r, lams[i], lams[i]);
      lth_bvp_result *res = NULL;
      lth_error err;
      ck_assert_msg(run(&c, LTH_BVP_COLLOCATION, 1e-10, &res, &err) == LTH_OK, "%s", err.message);
      double scale, e = error_of(&c, res, &scale);
      ck_assert_msg(e <= 1e-10 * scale, "index %d, lambda %g: error %.3e", r, lams[i], e);
      ck_assert_msg(res->intervals <= 400, "index %d, lambda %g: %d intervals", r, lams[i],
                    res->intervals);
      ck_assert(res->cond_bvp < 1e3 && res->drift < 1e-14 * scale);
      if (e > 1e-12 * scale) {
        ck_assert_msg(res->error_estimate > e / 10 && res->error_estimate < 10 * e,
                      "index %d, lambda %g: estimate %.3e, error %.3e", r, lams[i],
                      res->error_estimate, e);
      }
      lth_bvp_result_free(res);
      if (r == 2) { /* single shooting cannot: Psi(1, 0) holds e^{lambda} */
        ck_assert_int_eq(run(&c, LTH_BVP_SHOOTING, 1e-10, &res, &err), LTH_ENOTUNIQUE);
      }
      lth_system_free(c.sys);
    }
  }
}
END_TEST

/* A decaying mode of rate 1e3 at t = 0 (x1 mild, rate 1): the layer e^{-1000 t}
 * has width 1e-3.  The mesh clusters there and the estimate tracks the truth. */
START_TEST(test_boundary_layer) {
  double tols[] = {1e-6, 1e-8, 1e-10};
  for (int i = 0; i < 3; i++) {
    fast_case c;
    make_fast(&c, 2, 1.0, 1e3);
    lth_bvp_result *res = NULL;
    lth_error err;
    ck_assert_msg(run(&c, LTH_BVP_COLLOCATION, tols[i], &res, &err) == LTH_OK, "%s", err.message);
    double scale, e = error_of(&c, res, &scale);
    ck_assert_msg(e <= tols[i] * scale, "tol %g: error %.3e", tols[i], e);
    ck_assert_msg(res->error_estimate > e / 10 && res->error_estimate < 10 * e,
                  "tol %g: estimate %.3e, error %.3e", tols[i], res->error_estimate, e);
    lth_bvp_result_free(res);
    /* the mesh itself (internal API): intervals in the layer [0, 0.01] at least
     * 10 times as dense as in [0.1, 1] (measured 30-35x), the first shorter
     * than two layer widths */
    lth_ivp_opts io;
    lth_ivp_opts_init(&io);
    lth_colloc_ctx *cx = lth_colloc_ctx_alloc(c.sys, 4, &io, 0, 1, NULL);
    lth_colloc_bc bc = {2, c.B0, c.B1, c.beta};
    lth_colloc_opts co = {.tol = tols[i], .output_mode = LTH_COLLOC_STEP};
    double z[NOUT * CS_MAXS];
    lth_colloc_out out = {0};
    out.z = z;
    ck_assert_int_eq(lth_colloc_adapt(cx, &bc, 0, 1, c.times, NOUT, &co, &out, NULL), LTH_OK);
    const lth_cmesh *M = out.mesh;
    size_t in_layer = 0, outside = 0;
    for (size_t k = 0; k < M->N; k++) {
      in_layer += M->t[k + 1] <= 1e-2;
      outside += M->t[k] >= 0.1;
    }
    ck_assert_msg(in_layer / 0.01 > 10 * outside / 0.9,
                  "tol %g: %zu intervals in [0, 0.01], %zu in [0.1, 1]", tols[i], in_layer,
                  outside);
    ck_assert(M->t[1] < 2e-3);
    lth_cmesh_free(out.mesh);
    lth_colloc_ctx_free(cx);
    lth_system_free(c.sys);
  }
}
END_TEST

static Suite *layers_suite(void) {
  Suite *s = suite_create("bvp_colloc_layers");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_dichotomic);
  tcase_add_test(tc, test_boundary_layer);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(layers_suite)
