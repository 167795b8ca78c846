/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One point of the operator form for the tools (app_oppoint.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_check.h"
#include "app_oppoint.h"

/* As lth_opivp_solve's consistency test (lib/ivp/opivp.c). */
#define APP_OP_CONSIST_TOL 1e-10
#define APP_OP_ROUNDING    64.0

static lth_jet vec(const double *x, int n) { return lth_jet_wrap((double *)x, n, 1, n, n, 0); }

void app_oppoint_free(app_oppoint *a) {
  lth_oppoint_free(a->pt);
  lth_opdecomp_ws_free(a->ws);
  free(a->q);
  free(a->tmp);
  memset(a, 0, sizeof *a);
}

lth_status app_oppoint_at(app_oppoint *a, const lth_opsys *sys, double t, int order,
                          double cond_max, lth_error *err) {
  memset(a, 0, sizeof *a);
  a->s = lth_opsys_size(sys);
  a->m = lth_opsys_state_dim(sys);
  a->ws = lth_opdecomp_ws_alloc(sys, order, err);
  a->pt = a->ws ? lth_oppoint_alloc(sys, order, 1, err) : NULL;
  if (!a->pt) {
    return err->status != LTH_OK ? err->status : LTH_ENOMEM;
  }
  a->q = malloc((size_t)a->s * sizeof *a->q);
  a->tmp = malloc((size_t)a->s * sizeof *a->tmp);
  if (!a->q || !a->tmp) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory (s = %d)", a->s);
  }
  if (cond_max > 0) {
    lth_opdecomp_ws_set_cond_max(a->ws, cond_max);
  }
  lth_status st = lth_opdecomp_at(a->ws, t, a->pt, err);
  lth_jet Q = vec(a->q, a->s);
  return st == LTH_OK ? lth_oppoint_q(a->pt, &Q, err) : st;
}

lth_status app_oppoint_consistent(const app_oppoint *a, const double *x, double *z,
                                  lth_error *err) {
  lth_jet X = vec(x, a->m), Z = vec(z, a->s);
  lth_status st = lth_oppoint_apply_G(a->pt, &X, &Z, err);
  for (int i = 0; st == LTH_OK && i < a->s; i++) {
    z[i] += a->q[i];
  }
  return st;
}

lth_status app_oppoint_residual(const app_oppoint *a, const double *x, double *res,
                                lth_error *err) {
  lth_status st = app_oppoint_consistent(a, x, a->tmp, err);
  if (st == LTH_OK) {
    for (int i = 0; i < a->s; i++) {
      a->tmp[i] -= x[i];
    }
    *res = app_norm2(a->tmp, (size_t)a->s);
  }
  return st;
}

double app_oppoint_tolerance(const app_oppoint *a, const double *x) {
  double scale = fmax(1.0, fmax(app_norm2(x, (size_t)a->s), app_norm2(a->q, (size_t)a->s)));
  double amp = fmax(1.0, lth_oppoint_info(a->pt)->amplification);
  return (APP_OP_CONSIST_TOL + APP_OP_ROUNDING * DBL_EPSILON * amp) * scale;
}
