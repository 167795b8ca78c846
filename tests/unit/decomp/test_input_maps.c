/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The input maps at a point (lth_decomp_input_maps, include/lth/decomp.h):
 * (1) linearity against the decomposition itself: on random Hessenberg
 *     systems of index 2..5 with random B(t) in the dynamic and the
 *     constraint rows and a polynomial-plus-sinusoid input u, the g and q of
 *     lth_decomp_at with the forcing f + B u equal g_f + sum_j Bv_j u^(j)(t)
 *     and q_f + sum_j Dz_j u^(j)(t); the maps above each input's derivative
 *     bound are exactly zero and the one at the bound is not;
 * (2) prescribed motion by hand (index 3): a constraint 0 = x - w(t) gives
 *     the maps of w, w', w'' that x = w, x' = w', lambda = w'' + k w + c y
 *     say, exactly;
 * (3) refusals: no inputs, maps of another system. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "lth/decomp.h"
#include "inputsys.h"
#include "testsys.h"
#include "testutil.h"

enum { NU = IS_NU };

static double inf_norm(const double *x, int n) {
  double mx = 0.0;
  for (int i = 0; i < n; i++) mx = fmax(mx, fabs(x[i]));
  return mx;
}

/* One random case: index r, B_i set on the rows in `rows` (bit i-1), free
 * inputs on a second copy of the system (the maps need no signal). */
static void linearity_case(int r, const int *n, uint64_t seed, unsigned rows, double t,
                           double *worst) {
  ts_sys *S = ts_new(r, n, seed, 0.4, 0);
  lth_system *with_u = ts_system(S), *free_u = ts_system(S);
  ck_assert(with_u && free_u);
  ts_rng g = ts_rng_seed(seed * 7919 + 3, TS_XORSHIFT);
  is_bblk B[TS_MAXR];
  is_signal u[NU];
  TU_ASSERT_OK(lth_system_set_inputs(with_u, NU, NULL));
  TU_ASSERT_OK(lth_system_set_inputs(free_u, NU, NULL));
  for (int i = 1; i <= r; i++) {
    if (!(rows & (1u << (i - 1)))) continue;
    B[i - 1].rows = n[i - 1];
    for (int k = 0; k < n[i - 1] * NU; k++) B[i - 1].e[k] = ts_draw_oscillation(&g);
    TU_ASSERT_OK(lth_system_set_B(with_u, i,
                                  lth_source_callback(n[i - 1], NU, is_b_cb, &B[i - 1], NULL), NULL));
    TU_ASSERT_OK(lth_system_set_B(free_u, i,
                                  lth_source_callback(n[i - 1], NU, is_b_cb, &B[i - 1], NULL), NULL));
  }
  for (int k = 0; k < NU; k++) {
    for (int l = 0; l < 4; l++) u[k].a[l] = ts_draw(&g, -1, 1);
    u[k].s = ts_draw_oscillation(&g);
    TU_ASSERT_OK(
        lth_system_set_input(with_u, k, lth_source_callback(1, 1, is_u_cb, &u[k], NULL), NULL));
  }
  int s = S->s, m = S->m;
  lth_decomp_ws *wu = lth_decomp_ws_alloc(with_u, 0, NULL),
                *wf = lth_decomp_ws_alloc(free_u, 0, NULL);
  lth_point *pu = lth_point_alloc(with_u, 0, NULL), *pf = lth_point_alloc(free_u, 0, NULL);
  lth_input_maps *mp = lth_input_maps_alloc(free_u, NULL);
  ck_assert(wu && wf && pu && pf && mp);
  /* odd seeds: the measured amplification (a perturbed rerun) before the maps */
  lth_decomp_ws_set_measure(wf, (int)(seed & 1));
  TU_ASSERT_OK(lth_decomp_at(wu, t, pu, NULL));
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_decomp_input_maps(wf, t, pf, mp, &err) == LTH_OK, "%s", err.message);
  ck_assert(mp->t == t && mp->nj == r && pf->amplification_measured == (int)(seed & 1));
  /* the point with f alone is the decomposition of the system without inputs */
  lth_system *plain = ts_system(S);
  lth_decomp_ws *wp = lth_decomp_ws_alloc(plain, 0, NULL);
  lth_point *pp = lth_point_alloc(plain, 0, NULL);
  TU_ASSERT_OK(lth_decomp_at(wp, t, pp, NULL));
  ck_assert(tu_jet_relerr(&pp->g, &pf->g) <= 1e-14 && tu_jet_relerr(&pp->q, &pf->q) <= 1e-14);
  /* g_u = g_f + sum_j Bv_j u^(j), q_u = q_f + sum_j Dz_j u^(j) */
  double gs[TS_MAXS], qs[TS_MAXS], gsc = 0.0, qsc = 0.0;
  for (int i = 0; i < m; i++) gs[i] = LTH_JET_AT(&pf->g, 0, i, 0);
  for (int i = 0; i < s; i++) qs[i] = LTH_JET_AT(&pf->q, 0, i, 0);
  gsc = inf_norm(gs, m);
  qsc = inf_norm(qs, s);
  for (int j = 0; j < r; j++) {
    for (int k = 0; k < NU; k++) {
      double d = is_u_deriv(&u[k], t, j);
      const double *bv = mp->Bv + (size_t)mp->ld_Bv * ((size_t)j * NU + k);
      const double *dz = mp->Dz + (size_t)mp->ld_Dz * ((size_t)j * NU + k);
      for (int i = 0; i < m; i++) gs[i] += bv[i] * d;
      for (int i = 0; i < s; i++) qs[i] += dz[i] * d;
      gsc = fmax(gsc, inf_norm(bv, m) * fabs(d));
      qsc = fmax(qsc, inf_norm(dz, s) * fabs(d));
      /* derivative bound: row i < r reaches j <= i - 1, the constraint j <= r - 1 */
      int reach = -1;
      for (int i = 1; i <= r; i++)
        if (rows & (1u << (i - 1))) reach = fmax(reach, i < r ? i - 1 : r - 1);
      ck_assert_int_eq(mp->jmax, reach);
      if (j > reach) {
        ck_assert(inf_norm(bv, m) == 0.0 && inf_norm(dz, s) == 0.0);
      } else if (j == reach) {
        ck_assert(inf_norm(dz, s) > 0.0);
      }
    }
  }
  if (seed & 1) { /* the maps after a measured point are those of the plain run */
    lth_decomp_ws *w2 = lth_decomp_ws_alloc(free_u, 0, NULL);
    lth_input_maps *m2 = lth_input_maps_alloc(free_u, NULL);
    lth_point *p2 = lth_point_alloc(free_u, 0, NULL);
    TU_ASSERT_OK(lth_decomp_input_maps(w2, t, p2, m2, NULL));
    size_t nb = (size_t)m * NU * (size_t)r, nz = (size_t)s * NU * (size_t)r;
    double db = 0.0, dz = 0.0;
    for (size_t k = 0; k < nb; k++) db = fmax(db, fabs(mp->Bv[k] - m2->Bv[k]));
    for (size_t k = 0; k < nz; k++) dz = fmax(dz, fabs(mp->Dz[k] - m2->Dz[k]));
    ck_assert_msg(db <= 1e-15 * inf_norm(m2->Bv, (int)nb) &&
                      dz <= 1e-15 * inf_norm(m2->Dz, (int)nz),
                  "maps after a measured point differ by %.3e, %.3e", db, dz);
    lth_point_free(p2);
    lth_input_maps_free(m2);
    lth_decomp_ws_free(w2);
  }
  double eg = 0.0, eq = 0.0;
  for (int i = 0; i < m; i++) eg = fmax(eg, fabs(gs[i] - LTH_JET_AT(&pu->g, 0, i, 0)));
  for (int i = 0; i < s; i++) eq = fmax(eq, fabs(qs[i] - LTH_JET_AT(&pu->q, 0, i, 0)));
  /* rounding: eps times the point's error amplification, relative to the
   * largest term summed */
  double tol = 1e-12 * fmax(1.0, pf->amplification * DBL_EPSILON / 1e-13);
  ck_assert_msg(eg <= tol * gsc && eq <= tol * qsc,
                "r = %d seed %llu: |g| error %.3e of %.3e, |q| error %.3e of %.3e (amp %.2e)", r,
                (unsigned long long)seed, eg, gsc, eq, qsc, pf->amplification);
  *worst = fmax(*worst, fmax(eg / gsc, eq / qsc));
  lth_point_free(pp);
  lth_decomp_ws_free(wp);
  lth_system_free(plain);
  lth_input_maps_free(mp);
  lth_point_free(pu);
  lth_point_free(pf);
  lth_decomp_ws_free(wu);
  lth_decomp_ws_free(wf);
  lth_system_free(with_u);
  lth_system_free(free_u);
  ts_free(S);
}

START_TEST(test_linearity_random) {
  static const int sizes[6][TS_MAXR] = {{0}, {0}, {3, 1}, {3, 2, 1}, {4, 3, 2, 2}, {3, 3, 2, 2, 1}};
  double worst = 0.0;
  for (int r = 2; r <= 5; r++) {
    for (uint64_t seed = 1; seed <= 4; seed++) {
      unsigned all = (1u << r) - 1, dyn = all >> 1 & ~0u, constraint = 1u << (r - 1);
      double t = 0.3 + 0.41 * (double)seed;
      linearity_case(r, sizes[r], 100 * r + seed, all, t, &worst);
      linearity_case(r, sizes[r], 200 * r + seed, dyn ? dyn : 1, t, &worst);
      linearity_case(r, sizes[r], 300 * r + seed, constraint, t, &worst);
      linearity_case(r, sizes[r], 400 * r + seed, 1u, t, &worst); /* first row only: j = 0 */
    }
  }
  fprintf(stderr, "input maps: worst relative linearity error %.3e\n", worst);
}
END_TEST

/* ---- prescribed motion by hand ----
 * A point mass in the plane, z_1 = velocity (vx, vy), z_2 = position (x, y),
 * u = lambda; springs K = [k c; c k]; the constraint x = w(t) (input u1) and
 * a force u2 on y:
 *   vel' = -K pos + [1; 0] lambda + [0; 1] u2,  pos' = vel,  0 = x - w.
 * Then x = w, vx = w', lambda = vx' + k x + c y = w'' + k w + c y, and
 * vy' = -c w - k y + u2.  Outputs y1 = lambda, y2 = x + 0.5 u2. */
/* The jets of the Bv_j (lth_input_maps_alloc_order): Bv_j(t + h) from the
 * maps at t + h against the Taylor polynomial sum_c Bv_jet[c] h^c, whose
 * error is O(h^(order+1)) -- checked at h and h/2 (the error drops by
 * ~2^(order+1)); and a workspace set unforced (lth_decomp_ws_set_unforced)
 * decomposes a plant with free inputs, giving the maps' g_f. */
START_TEST(test_map_jets) {
  static const int n[TS_MAXR] = {3, 2, 2, 1};
  enum { ORDER = 3 };
  ts_sys *S = ts_new(4, n, 77, 0.4, 0);
  lth_system *sys = ts_system(S);
  ts_rng g = ts_rng_seed(4242, TS_XORSHIFT);
  is_bblk B[4];
  TU_ASSERT_OK(lth_system_set_inputs(sys, NU, NULL));
  for (int i = 1; i <= 4; i++) {
    B[i - 1].rows = n[i - 1];
    for (int k = 0; k < n[i - 1] * NU; k++) B[i - 1].e[k] = ts_draw_oscillation(&g);
    TU_ASSERT_OK(lth_system_set_B(sys, i, lth_source_callback(n[i - 1], NU, is_b_cb, &B[i - 1], NULL),
                                  NULL));
  }
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, ORDER, NULL), *w0 = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *pt = lth_point_alloc(sys, ORDER, NULL), *p0 = lth_point_alloc(sys, 0, NULL);
  lth_input_maps *mp = lth_input_maps_alloc_order(sys, ORDER, NULL), *m0 = lth_input_maps_alloc(sys, NULL);
  ck_assert(ws && w0 && pt && p0 && mp && m0 && mp->order == ORDER && m0->order == 0);
  const double t = 0.55;
  TU_ASSERT_OK(lth_decomp_input_maps(ws, t, pt, mp, NULL));
  size_t per = (size_t)mp->m * NU * (size_t)mp->nj;
  double err[2] = {0.0, 0.0}, scale = 1.0;
  for (int e = 0; e < 2; e++) {
    double h = e == 0 ? 0.02 : 0.01;
    TU_ASSERT_OK(lth_decomp_input_maps(w0, t + h, p0, m0, NULL));
    for (size_t i = 0; i < per; i++) {
      double sum = 0.0, hc = 1.0;
      for (int c = 0; c <= ORDER; c++, hc *= h) sum += mp->Bv_jet[i + per * (size_t)c] * hc;
      err[e] = fmax(err[e], fabs(sum - m0->Bv[i]));
      scale = fmax(scale, fabs(m0->Bv[i]));
    }
  }
  /* coefficient 0 is the value; the Taylor error shrinks like h^4 (ratio ~16) */
  for (size_t i = 0; i < per; i++) ck_assert(mp->Bv_jet[i] == mp->Bv[i]);
  ck_assert_msg(err[0] <= 1e-4 * scale && err[1] < err[0] / 8.0,
                "Taylor errors %.3e (h = 0.02), %.3e (h = 0.01), scale %.3e", err[0], err[1], scale);
  /* maps of an order above the workspace's are refused */
  lth_error er;
  lth_error_clear(&er);
  ck_assert(lth_decomp_input_maps(w0, t, p0, mp, &er) == LTH_EORDER);
  /* unforced: free inputs decompose; g is the maps' g_f */
  lth_decomp_ws_set_unforced(w0, 1);
  TU_ASSERT_OK(lth_decomp_at(w0, t, p0, NULL));
  TU_ASSERT_OK(lth_decomp_input_maps(ws, t, pt, mp, NULL));
  ck_assert(tu_jet_relerr(&p0->g, &pt->g) <= 1e-13);
  lth_decomp_ws_set_unforced(w0, 0);
  lth_error_clear(&er);
  ck_assert(lth_decomp_at(w0, t, p0, &er) == LTH_EINVAL); /* free inputs: refused */
  lth_input_maps_free(mp);
  lth_input_maps_free(m0);
  lth_point_free(pt);
  lth_point_free(p0);
  lth_decomp_ws_free(ws);
  lth_decomp_ws_free(w0);
  lth_system_free(sys);
  ts_free(S);
}
END_TEST

START_TEST(test_prescribed_motion) {
  const double k = 2.385, c = 0.715;
  const int n[3] = {2, 2, 1};
  lth_system *sys = lth_system_alloc(3, n, NULL);
  const double mK[4] = {-k, -c, -c, -k}, e1[2] = {1, 0}, e1t[2] = {1, 0};
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 2, lth_source_const(2, 2, mK, 2, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 3, lth_source_const(2, 1, e1, 2, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 2, 1, lth_source_identity(2, 2, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 3, 2, lth_source_const(1, 2, e1t, 1, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_inputs(sys, 2, NULL));
  const double B1[4] = {0, 0, 0, 1}, B3[2] = {-1, 0};
  TU_ASSERT_OK(lth_system_set_B(sys, 1, lth_source_const(2, 2, B1, 2, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_B(sys, 3, lth_source_const(1, 2, B3, 1, NULL), NULL));
  /* C (2 x 5): y1 = lambda, y2 = x;  D (2 x 2): 0.5 u2 in y2 */
  double C[10] = {0}, D[4] = {0, 0, 0, 0.5};
  C[1 + 2 * 2] = 1.0; /* (1, x) */
  C[0 + 4 * 2] = 1.0; /* (0, lambda) */
  TU_ASSERT_OK(lth_system_set_outputs(sys, 2, lth_source_const(2, 5, C, 2, NULL),
                                      lth_source_const(2, 2, D, 2, NULL), NULL, NULL));
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
  lth_point *pt = lth_point_alloc(sys, 0, NULL);
  lth_input_maps *mp = lth_input_maps_alloc(sys, NULL);
  ck_assert(ws && pt && mp);
  lth_error err;
  lth_error_clear(&err);
  ck_assert_msg(lth_decomp_input_maps(ws, 0.77, pt, mp, &err) == LTH_OK, "%s", err.message);
  ck_assert_int_eq(mp->jmax, 2);
  ck_assert(mp->m == 4 && mp->s == 5 && mp->ny == 2 && mp->nj == 3);
  /* expected maps, [j][k][row]: z = (vx, vy, x, y, lambda), v = (vx, vy, x, y) */
  double Bv[3][2][4] = {{{0, -c, 0, 0}, {0, 1, 0, 0}}}, Dz[3][2][5] = {{{0}}},
         Dy[3][2][2] = {{{0}}};
  Dz[0][0][2] = 1.0; /* x = w */
  Dz[0][0][4] = k;   /* lambda = k w + ... */
  Dz[1][0][0] = 1.0; /* vx = w' */
  Dz[2][0][4] = 1.0; /* lambda = ... + w'' */
  Dy[0][0][0] = k;
  Dy[2][0][0] = 1.0;
  Dy[0][0][1] = 1.0;
  Dy[0][1][1] = 0.5;
  for (int j = 0; j < 3; j++)
    for (int q = 0; q < 2; q++) {
      for (int i = 0; i < 4; i++)
        ck_assert_msg(fabs(mp->Bv[i + mp->ld_Bv * (j * 2 + q)] - Bv[j][q][i]) <= 1e-14,
                      "Bv_%d(%d,%d) = %.17g", j, i, q, mp->Bv[i + mp->ld_Bv * (j * 2 + q)]);
      for (int i = 0; i < 5; i++)
        ck_assert_msg(fabs(mp->Dz[i + mp->ld_Dz * (j * 2 + q)] - Dz[j][q][i]) <= 1e-14,
                      "Dz_%d(%d,%d) = %.17g", j, i, q, mp->Dz[i + mp->ld_Dz * (j * 2 + q)]);
      for (int i = 0; i < 2; i++)
        ck_assert_msg(fabs(mp->Dy[i + mp->ld_Dy * (j * 2 + q)] - Dy[j][q][i]) <= 1e-14,
                      "Dy_%d(%d,%d) = %.17g", j, i, q, mp->Dy[i + mp->ld_Dy * (j * 2 + q)]);
    }
  /* no forcing apart from the inputs: g_f = 0, q_f = 0 */
  for (int i = 0; i < 5; i++) ck_assert(LTH_JET_AT(&pt->q, 0, i, 0) == 0.0);
  /* a system without inputs, and maps of another system, are refused */
  const int n2[2] = {2, 1};
  ts_sys *S2 = ts_new(2, n2, 5, 0.4, 1);
  lth_system *other = ts_system(S2);
  ck_assert(lth_input_maps_alloc(other, &err) == NULL && err.status == LTH_EINVAL);
  TU_ASSERT_OK(lth_system_set_inputs(other, 2, NULL));
  lth_input_maps *mo = lth_input_maps_alloc(other, NULL);
  ck_assert_int_eq(lth_decomp_input_maps(ws, 0.77, pt, mo, &err), LTH_EDIM);
  lth_input_maps_free(mo);
  lth_system_free(other);
  ts_free(S2);
  lth_input_maps_free(mp);
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  lth_system_free(sys);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("input_maps");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_linearity_random);
  tcase_add_test(tc, test_prescribed_motion);
  tcase_add_test(tc, test_map_jets);
  tcase_set_timeout(tc, 120);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
