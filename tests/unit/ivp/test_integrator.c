/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The conformance test of the integrator seam (lib/ivp/integrator_impl.h):
 * every lth_integrator_type, with every method it implements, must meet the
 * contract lib/ivp/ivp.c relies on.  An implementation added to lib/ivp is
 * added to `types` below. */
#include <check.h>
#include <math.h>
#include <string.h>

#include "ivp/integrator_impl.h"
#include "testutil.h"

static const lth_integrator_type *const types[] = {&lth_integrator_gsl, &lth_integrator_cheb};
#define NTYPES (sizeof types / sizeof types[0])

/* y' = A y, A = [-a w; -w -a]: y(t) = e^{-a t} R(-w t) y0 (a damped
 * rotation; A is not symmetric, so a transposed Jacobian would be wrong). */
#define ROT_A 0.3
#define ROT_W 2.385

typedef struct ode_ctx {
  size_t calls;        /* right-hand sides */
  double t_fail;       /* the right-hand side refuses at t > t_fail */
  size_t calls_failed; /* refusals */
  double t_last;       /* t of the last call */
} ode_ctx;

/* A call at t counted; 1 where the callback refuses it (t > t_fail). */
static int refused(ode_ctx *c, double t) {
  c->calls++;
  c->t_last = t;
  if (t > c->t_fail) {
    c->calls_failed++;
    return 1;
  }
  return 0;
}

static int rot_rhs(double t, const double *y, double *dydt, void *vp) {
  ode_ctx *c = vp;
  if (refused(c, t)) {
    return 1;
  }
  dydt[0] = -ROT_A * y[0] + ROT_W * y[1];
  dydt[1] = -ROT_W * y[0] - ROT_A * y[1];
  return 0;
}

static int rot_jac(double t, const double *y, double *dfdy, double *dfdt, void *vp) {
  (void)y;
  ode_ctx *c = vp;
  if (t > c->t_fail) {
    c->calls_failed++;
    return 1;
  }
  dfdy[0] = -ROT_A; /* row-major: dfdy[i * 2 + j] = d f_i / d y_j */
  dfdy[1] = ROT_W;
  dfdy[2] = -ROT_W;
  dfdy[3] = -ROT_A;
  dfdt[0] = dfdt[1] = 0.0;
  return 0;
}

/* The linear form (lth_ode.lin): M column-major, b = 0. */
static int rot_lin(double t, double *M, double *b, void *vp) {
  if (refused(vp, t)) {
    return 1;
  }
  M[0] = -ROT_A;
  M[1] = -ROT_W;
  M[2] = ROT_W;
  M[3] = -ROT_A;
  b[0] = b[1] = 0.0;
  return 0;
}

static void rot_exact(double t, const double *y0, double *y) {
  double e = exp(-ROT_A * t), c = cos(ROT_W * t), s = sin(ROT_W * t);
  y[0] = e * (c * y0[0] + s * y0[1]);
  y[1] = e * (-s * y0[0] + c * y0[1]);
}

static lth_integrator *make(const lth_integrator_type *T, lth_ivp_method method, ode_ctx *c,
                            double rtol, double hmin, size_t max_steps) {
  memset(c, 0, sizeof *c);
  c->t_fail = INFINITY;
  int stiff = method == LTH_IVP_MSBDF || method == LTH_IVP_BSIMP;
  lth_ode ode = {2, rot_rhs, stiff ? rot_jac : NULL, c, rot_lin};
  lth_error err;
  lth_error_clear(&err);
  lth_integrator *it = T->alloc(&ode, &err);
  ck_assert_msg(it != NULL, "%s: %s", T->name, err.message);
  lth_integrator_setup s = {method, 1e-3, rtol, 1e-2 * rtol, max_steps, hmin, 0.0};
  ck_assert_msg(T->start(it, &s, &err) == LTH_OK, "%s: %s", T->name, err.message);
  return it;
}

static double dist(const double *a, const double *b) { return hypot(a[0] - b[0], a[1] - b[1]); }

/* Each advance ends exactly at its t1 with the solution there to the
 * tolerance: the global error over [0, 6.1] (2.3 turns) within 1e3 rtol
 * (GSL measured: rk8pd, rkf45, bsimp below 1.2 rtol; msadams 13 .. 48 rtol,
 * msbdf 32 .. 150 rtol, at rtol 1e-5, 1e-8, 1e-11); tighter tolerances take
 * more steps and give smaller errors. */
START_TEST(test_accuracy_every_method) {
  const double y0[2] = {1.25, -0.75}, outs[] = {0.7, 1.9, 3.4, 6.1};
  for (size_t k = 0; k < NTYPES; k++) {
    const lth_integrator_type *T = types[k];
    for (int m = LTH_IVP_RK8PD; m <= LTH_IVP_CHEB; m++) {
      if (!T->has_method((lth_ivp_method)m)) continue;
      double e_prev = INFINITY;
      size_t steps_prev = 0;
      for (double rtol = 1e-5; rtol >= 1e-11; rtol *= 1e-3) {
        ode_ctx c;
        lth_integrator *it = make(T, (lth_ivp_method)m, &c, rtol, 0.0, 100000);
        double t = 0.0, y[2] = {y0[0], y0[1]}, ye[2], e = 0.0;
        size_t steps = 0;
        for (size_t j = 0; j < sizeof outs / sizeof outs[0]; j++) {
          size_t n = 0;
          ck_assert_int_eq(T->advance(it, &t, outs[j], y, &n), 0);
          ck_assert(t == outs[j]);
          ck_assert(n > 0);
          steps += n;
          rot_exact(t, y0, ye);
          e = fmax(e, dist(y, ye));
        }
        ck_assert_msg(e < 1e3 * rtol, "%s %s rtol %.0e: error %.2e", T->name,
                      lth_ivp_method_name((lth_ivp_method)m), rtol, e);
        /* (a spectral step may be at rounding already at the loosest
         * tolerance: its error and steps then stay) */
        int spectral = m == LTH_IVP_CHEB;
        ck_assert_msg(spectral ? e <= fmax(e_prev, 1e-12) && steps >= steps_prev
                               : e < e_prev && steps > steps_prev,
                      "%s %s rtol %.0e: %.2e (%zu steps)", T->name,
                      lth_ivp_method_name((lth_ivp_method)m), rtol, e, steps);
        ck_assert(T->step(it) > 0);
        e_prev = e;
        steps_prev = steps;
        T->free(it);
      }
    }
  }
}
END_TEST

/* t1 equal to the current time: nothing done, nothing counted. */
START_TEST(test_advance_to_now) {
  for (size_t k = 0; k < NTYPES; k++) {
    const lth_integrator_type *T = types[k];
    ode_ctx c;
    lth_integrator *it = make(T, LTH_IVP_RK8PD, &c, 1e-8, 0.0, 1000);
    double t = 0.0, y[2] = {2.385, 1.0};
    size_t n = 7;
    ck_assert_int_eq(T->advance(it, &t, 0.0, y, &n), 0);
    ck_assert(t == 0.0 && y[0] == 2.385 && y[1] == 1.0 && n == 0);
    T->free(it);
  }
}
END_TEST

/* A callback's refusal stops the advance at once (no retry with smaller
 * steps), with t and y at the last step accepted (GSL at rtol 1e-9: y within
 * 1.4e-7 of the solution there, msbdf; 5e-11, rk8pd). */
START_TEST(test_callback_refusal_stops) {
  const double y0[2] = {0.5, 2.0};
  for (size_t k = 0; k < NTYPES; k++) {
    const lth_integrator_type *T = types[k];
    for (int m = LTH_IVP_RK8PD; m <= LTH_IVP_CHEB; m++) {
      if (!T->has_method((lth_ivp_method)m)) continue;
      ode_ctx c;
      lth_integrator *it = make(T, (lth_ivp_method)m, &c, 1e-9, 0.0, 100000);
      c.t_fail = 1.37;
      double t = 0.0, y[2] = {y0[0], y0[1]}, ye[2];
      size_t n = 0;
      int rc = T->advance(it, &t, 3.0, y, &n);
      const char *name = lth_ivp_method_name((lth_ivp_method)m);
      ck_assert_msg(rc != 0, "%s %s: refusal ignored", T->name, name);
      ck_assert_msg(c.calls_failed == 1, "%s %s: %zu refused calls", T->name, name, c.calls_failed);
      /* (collocation's first step spans the whole advance: refused there,
       * it stops where it began) */
      ck_assert_msg(t <= 1.37 && (m == LTH_IVP_CHEB ? t >= 0.0 : t > 0.5), "%s %s: stopped at %g",
                    T->name, name, t);
      rot_exact(t, y0, ye);
      ck_assert_msg(dist(y, ye) < 1e-5, "%s %s: y off by %.2e at the last step", T->name, name,
                    dist(y, ye));
      ck_assert(T->strerror(rc) != NULL && T->strerror(rc)[0] != '\0');
      T->free(it);
    }
  }
}
END_TEST

/* y' = 1 / (1 - t)^2 (y = 1 / (1 - t), a pole at t = 1): the steps shrink
 * towards the pole and the advance gives up, short of it, at the smallest
 * step, or after max_steps, with y the solution at the t reached (GSL: to
 * 3.3e-6 relative, bsimp within 1e-9 of the pole). */
static int pole_rhs(double t, const double *y, double *dydt, void *vp) {
  (void)y;
  (void)vp;
  dydt[0] = 1.0 / ((1.0 - t) * (1.0 - t));
  return 0;
}

static int pole_lin(double t, double *M, double *b, void *vp) {
  (void)vp;
  M[0] = 0.0;
  b[0] = 1.0 / ((1.0 - t) * (1.0 - t));
  return 0;
}

static int pole_jac(double t, const double *y, double *dfdy, double *dfdt, void *vp) {
  (void)y;
  (void)vp;
  dfdy[0] = 0.0;
  dfdt[0] = 2.0 / ((1.0 - t) * (1.0 - t) * (1.0 - t));
  return 0;
}

START_TEST(test_gives_up) {
  for (size_t k = 0; k < NTYPES; k++) {
    const lth_integrator_type *T = types[k];
    for (int m = LTH_IVP_RK8PD; m <= LTH_IVP_CHEB; m++) {
      if (!T->has_method((lth_ivp_method)m)) continue;
      int stiff = m == LTH_IVP_MSBDF || m == LTH_IVP_BSIMP;
      const char *name = lth_ivp_method_name((lth_ivp_method)m);
      for (int limit = 0; limit < 2; limit++) {
        lth_ode ode = {1, pole_rhs, stiff ? pole_jac : NULL, NULL, pole_lin};
        lth_integrator *it = T->alloc(&ode, NULL);
        ck_assert(it != NULL);
        /* limit 0: the smallest step 1e-6; 1: at most 40 steps */
        lth_integrator_setup s = {(lth_ivp_method)m,  1e-3, 1e-8, 1e-10, limit ? 40 : 1000000,
                                  limit ? 0.0 : 1e-6, 0.0};
        ck_assert_int_eq(T->start(it, &s, NULL), LTH_OK);
        double t = 0.0, y = 1.0;
        size_t n = 0;
        int rc = T->advance(it, &t, 2.0, &y, &n);
        ck_assert_msg(rc != 0 && t < 1.0, "%s %s (%s): rc %d at t = %g", T->name, name,
                      limit ? "max_steps" : "hmin", rc, t);
        ck_assert_msg(fabs(y - 1.0 / (1.0 - t)) <= 1e-4 * fabs(y), "%s %s: y(%g) = %g", T->name,
                      name, t, y);
        ck_assert(n > 0 && (!limit || n <= 41));
        T->free(it);
      }
    }
  }
}
END_TEST

/* reset (the state changed in place) and restart (a new first step) keep
 * the integration on the solution from the new state; start again begins
 * afresh.  At rtol 1e-10 within 1e3 rtol (GSL: msbdf 1.1e-8, rk8pd 2.7e-12). */
START_TEST(test_reset_restart_start) {
  const double y0[2] = {1.0, 0.0};
  for (size_t k = 0; k < NTYPES; k++) {
    const lth_integrator_type *T = types[k];
    for (int m = LTH_IVP_RK8PD; m <= LTH_IVP_CHEB; m++) {
      if (!T->has_method((lth_ivp_method)m)) continue;
      const char *name = lth_ivp_method_name((lth_ivp_method)m);
      ode_ctx c;
      lth_integrator *it = make(T, (lth_ivp_method)m, &c, 1e-10, 1e-9, 100000);
      double t = 0.0, y[2] = {y0[0], y0[1]}, ye[2], z0[2];
      size_t n;
      ck_assert_int_eq(T->advance(it, &t, 1.1, y, &n), 0);
      /* a new state at t = 1.1: the solution through it */
      y[0] *= -2.0;
      y[1] += 0.5;
      memcpy(z0, y, sizeof z0);
      T->reset(it);
      ck_assert_int_eq(T->advance(it, &t, 2.3, y, &n), 0);
      rot_exact(2.3 - 1.1, z0, ye);
      ck_assert_msg(dist(y, ye) < 1e-7, "%s %s reset: %.2e", T->name, name, dist(y, ye));
      T->restart(it, 1e-4);
      ck_assert_int_eq(T->advance(it, &t, 3.0, y, &n), 0);
      rot_exact(3.0 - 1.1, z0, ye);
      ck_assert_msg(dist(y, ye) < 1e-7, "%s %s restart: %.2e", T->name, name, dist(y, ye));
      /* hmin lifted and put back between advances (ivp.c near a kink) */
      T->set_hmin(it, 0.0);
      ck_assert_int_eq(T->advance(it, &t, 3.5, y, &n), 0);
      T->set_hmin(it, 1e-9);
      ck_assert_int_eq(T->advance(it, &t, 4.0, y, &n), 0);
      rot_exact(4.0 - 1.1, z0, ye);
      ck_assert_msg(dist(y, ye) < 1e-7, "%s %s set_hmin: %.2e", T->name, name, dist(y, ye));
      /* start: from scratch, at any time */
      lth_integrator_setup s = {(lth_ivp_method)m, 1e-3, 1e-10, 1e-12, 100000, 0.0, 0.25};
      ck_assert_int_eq(T->start(it, &s, NULL), LTH_OK);
      t = 10.0;
      y[0] = y0[0];
      y[1] = y0[1];
      ck_assert_int_eq(T->advance(it, &t, 11.5, y, &n), 0);
      ck_assert_msg(n >= 6, "%s %s: %zu steps of at most 0.25 over 1.5", T->name, name, n);
      rot_exact(1.5, y0, ye);
      ck_assert_msg(dist(y, ye) < 1e-7, "%s %s start: %.2e", T->name, name, dist(y, ye));
      T->free(it);
    }
  }
}
END_TEST

static Suite *integrator_suite(void) {
  Suite *s = suite_create("integrator");
  TCase *tc = tcase_create("conformance");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_accuracy_every_method);
  tcase_add_test(tc, test_advance_to_now);
  tcase_add_test(tc, test_callback_refusal_stops);
  tcase_add_test(tc, test_gives_up);
  tcase_add_test(tc, test_reset_restart_start);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(integrator_suite)
