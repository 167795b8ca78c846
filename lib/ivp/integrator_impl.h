/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private to lib/ivp: the seam between lth_ivp and the ODE integrator that
 * steps the reduced ODE.
 *
 * lib/ivp/ivp.c keeps everything that is lth's own: the right-hand side
 * V' = Ahat V (+ g) with its drift damping, the guard on Pi at every point
 * asked for, the stretches on which the data are resolved (where a step must
 * stop), the statistics and the public lth_ivp_* API.  An integrator only
 * steps y' = f(t, y) from t to a given end under error control, as a small
 * table of operations (lth_integrator_type, after GSL's stepper types and
 * SUNDIALS' operation tables).  GSL's odeiv2 (lib/ivp/integrator_gsl.c) is
 * the one implementation today; another (e.g. SUNDIALS CVODE) is one new
 * file filling an lth_integrator_type, chosen in integrator_for
 * (lib/ivp/ivp.c), with no change to include/lth/ivp.h.  Each implementation
 * runs through the shared conformance test tests/unit/ivp/test_integrator.c.
 */
#ifndef LTH_INTEGRATOR_IMPL_H
#define LTH_INTEGRATOR_IMPL_H

#include <stddef.h>

#include "lth/ivp.h"

/* The ODE y' = f(t, y), y of dim entries.  A callback returns 0, or non-zero
 * to stop the integration: the integrator then returns at once from advance
 * (no retry with a smaller step), the caller having recorded why. */
typedef int (*lth_ode_rhs)(double t, const double *y, double *dydt, void *ctx);
/* df/dy (dim x dim, row-major: dfdy[i * dim + j] = d f_i / d y_j) and df/dt,
 * for the methods that need a Jacobian (lth_ivp_method_is_stiff). */
typedef int (*lth_ode_jac)(double t, const double *y, double *dfdy, double *dfdt, void *ctx);

/* The linear form f(t, y) = M(t) y + b(t): M (dim x dim, column-major) and b
 * at t, for the methods that solve linear systems in y (lth_integrator_cheb). */
typedef int (*lth_ode_lin)(double t, double *M, double *b, void *ctx);

typedef struct lth_ode {
  size_t dim;
  lth_ode_rhs rhs;
  lth_ode_jac jac; /* NULL: explicit methods only */
  void *ctx;       /* passed to rhs and jac */
  lth_ode_lin lin; /* NULL: not given (the methods that need it refuse) */
} lth_ode;

/* What lth_integrator_type.start fixes until the next start (hmin also
 * changes through set_hmin). */
typedef struct lth_integrator_setup {
  lth_ivp_method method;
  double h0;         /* first step (> 0) */
  double rtol, atol; /* local error per step: atol + rtol |y_i| per component */
  size_t max_steps;  /* steps per advance before it gives up */
  double hmin;       /* smallest step before it gives up (0: none) */
  double hmax;       /* largest step (0: none) */
} lth_integrator_setup;

/* An implementation's state (each implementation defines the struct). */
typedef struct lth_integrator lth_integrator;

typedef struct lth_integrator_type {
  const char *name; /* in messages: "<name> <method> stopped integrating ..." */
  /* 1 if it implements the method */
  int (*has_method)(lth_ivp_method method);
  /* For the ODE *ode (copied; its callbacks and ctx must outlive the
   * integrator).  NULL with err set when out of memory. */
  lth_integrator *(*alloc)(const lth_ode *ode, lth_error *err);
  void (*free)(lth_integrator *it);
  /* Begin afresh with these settings: no history, the first step s->h0.
   * The state y is the caller's, passed to every advance. */
  lth_status (*start)(lth_integrator *it, const lth_integrator_setup *s, lth_error *err);
  /* Integrate y from *t to t1 (>= *t; equal: nothing to do) under error
   * control, ending exactly at t1: 0 and *t = t1 on success; otherwise an
   * implementation's code (strerror names it) with *t and y at the last
   * step accepted.  *steps receives the steps this call took, also on
   * failure.  Called only after start. */
  int (*advance)(lth_integrator *it, double *t, double t1, double *y, size_t *steps);
  /* The state y changed without moving in time: forget what the steps so far
   * learnt of it (multistep history, error estimates). */
  void (*reset)(lth_integrator *it);
  /* As reset, and try the step h next (after a jump of the data). */
  void (*restart)(lth_integrator *it, double h);
  /* The step it will try next. */
  double (*step)(const lth_integrator *it);
  /* Change the smallest step (0: none) for the following advances. */
  void (*set_hmin)(lth_integrator *it, double hmin);
  /* What an advance's non-zero code means. */
  const char *(*strerror)(int code);
  /* Optional (NULL: steps end at t1): the next advance may evaluate f and
   * take its steps up to t_far >= t1, serving t1 from inside a longer step
   * (a method with a continuous extension, as collocation). */
  void (*set_horizon)(lth_integrator *it, double t_far);
  /* Optional (NULL: none): the last accepted step as the polynomial of
   * degree *N through the values Y + j dim at the nodes tn[j], j = 0 .. N
   * (ascending; tn[0] and tn[N] its ends; the Chebyshev points of
   * lib/ivp/cheb_rule.h), where the method has one (collocation); 0 when no
   * step is kept.  The pointers hold until the next advance, reset or start. */
  int (*last_step)(const lth_integrator *it, int *N, const double **tn, const double **Y);
} lth_integrator_type;

/* lib/ivp/integrator_gsl.c: GSL's odeiv2 driver, every lth_ivp_method. */
extern const lth_integrator_type lth_integrator_gsl;
/* lib/ivp/integrator_cheb.c: Chebyshev collocation of a linear ODE (cheb). */
extern const lth_integrator_type lth_integrator_cheb;

#endif
