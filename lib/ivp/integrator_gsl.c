/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GSL's odeiv2 behind the integrator seam (lib/ivp/integrator_impl.h): one
 * gsl_odeiv2_driver per start (standard error control on y: atol + rtol |y_i|),
 * every lth_ivp_method a GSL stepper.  GSL's default error handler aborts;
 * it is switched off around every GSL call here and the host's restored. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <stdlib.h>

#include "integrator_impl.h"

struct lth_integrator {
  lth_ode ode;
  gsl_odeiv2_system gsys;
  gsl_odeiv2_driver *drv; /* NULL before the first start */
};

static const gsl_odeiv2_step_type *step_type(lth_ivp_method method) {
  switch (method) {
  case LTH_IVP_RKF45:
    return gsl_odeiv2_step_rkf45;
  case LTH_IVP_MSADAMS:
    return gsl_odeiv2_step_msadams;
  case LTH_IVP_MSBDF:
    return gsl_odeiv2_step_msbdf;
  case LTH_IVP_BSIMP:
    return gsl_odeiv2_step_bsimp;
  default:
    return gsl_odeiv2_step_rk8pd;
  }
}

static int gsl_has_method(lth_ivp_method method) {
  return method >= LTH_IVP_RK8PD && method <= LTH_IVP_BSIMP;
}

/* The callbacks' "stop" is GSL_EBADFUNC: GSL returns it at once instead of
 * retrying with a smaller step. */
static int gsl_rhs(double t, const double y[], double dydt[], void *params) {
  const lth_integrator *it = params;
  return it->ode.rhs(t, y, dydt, it->ode.ctx) == 0 ? GSL_SUCCESS : GSL_EBADFUNC;
}

static int gsl_jac(double t, const double y[], double *dfdy, double dfdt[], void *params) {
  const lth_integrator *it = params;
  return it->ode.jac(t, y, dfdy, dfdt, it->ode.ctx) == 0 ? GSL_SUCCESS : GSL_EBADFUNC;
}

static lth_integrator *gsl_alloc(const lth_ode *ode, lth_error *err) {
  lth_integrator *it = calloc(1, sizeof *it);
  if (!it) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an integrator");
    return NULL;
  }
  it->ode = *ode;
  it->gsys = (gsl_odeiv2_system){gsl_rhs, ode->jac ? gsl_jac : NULL, ode->dim, it};
  return it;
}

static void gsl_free(lth_integrator *it) {
  if (!it) {
    return;
  }
  if (it->drv) {
    gsl_odeiv2_driver_free(it->drv);
  }
  free(it);
}

static lth_status gsl_start(lth_integrator *it, const lth_integrator_setup *s, lth_error *err) {
  if (it->drv) {
    gsl_odeiv2_driver_free(it->drv);
    it->drv = NULL;
  }
  gsl_error_handler_t *saved = gsl_set_error_handler_off();
  it->drv = gsl_odeiv2_driver_alloc_y_new(&it->gsys, step_type(s->method), s->h0, s->atol, s->rtol);
  if (it->drv) {
    gsl_odeiv2_driver_set_nmax(it->drv, s->max_steps);
    if (s->hmin > 0) {
      gsl_odeiv2_driver_set_hmin(it->drv, s->hmin);
    }
    if (s->hmax > 0) {
      gsl_odeiv2_driver_set_hmax(it->drv, s->hmax);
    }
  }
  gsl_set_error_handler(saved);
  if (!it->drv) {
    return lth_error_set(err, LTH_ENOMEM, "could not allocate the GSL driver");
  }
  return LTH_OK;
}

static int gsl_advance(lth_integrator *it, double *t, double t1, double *y, size_t *steps) {
  gsl_error_handler_t *saved = gsl_set_error_handler_off();
  int rc = gsl_odeiv2_driver_apply(it->drv, t, t1, y);
  gsl_set_error_handler(saved);
  *steps = it->drv->n; /* GSL counts the steps of the last apply only */
  return rc;
}

static void gsl_reset(lth_integrator *it) {
  if (it->drv) {
    gsl_error_handler_t *saved = gsl_set_error_handler_off();
    gsl_odeiv2_driver_reset(it->drv);
    gsl_set_error_handler(saved);
  }
}

static void gsl_restart(lth_integrator *it, double h) {
  gsl_error_handler_t *saved = gsl_set_error_handler_off();
  gsl_odeiv2_driver_reset_hstart(it->drv, h);
  gsl_set_error_handler(saved);
}

static double gsl_step(const lth_integrator *it) { return it->drv->h; }

static void gsl_set_hmin(lth_integrator *it, double hmin) {
  gsl_error_handler_t *saved = gsl_set_error_handler_off();
  gsl_odeiv2_driver_set_hmin(it->drv, hmin);
  gsl_set_error_handler(saved);
}

static const char *gsl_code_text(int code) { return gsl_strerror(code); }

const lth_integrator_type lth_integrator_gsl = {
    .name = "GSL",
    .has_method = gsl_has_method,
    .alloc = gsl_alloc,
    .free = gsl_free,
    .start = gsl_start,
    .advance = gsl_advance,
    .reset = gsl_reset,
    .restart = gsl_restart,
    .step = gsl_step,
    .set_hmin = gsl_set_hmin,
    .strerror = gsl_code_text,
};
