/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Consistent values on the operator path (include/lth/opic.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/norms.h"
#include "lth/opic.h"

/* As lth_opivp_solve's consistency test (lib/ivp/opivp.c). */
#define OPIC_CONSIST_TOL 1e-10
#define OPIC_ROUNDING    64.0

struct lth_opic {
  int s, m;
  double cond_max; /* 0: the workspace's default */
  lth_opdecomp_ws *ws;
  lth_oppoint *pt;
  double *q;   /* s: q(t) (order 0) */
  double *tmp; /* s */
};

static lth_jet vec(const double *x, int n) { return lth_jet_wrap((double *)x, n, 1, n, n, 0); }

void lth_opic_free(lth_opic *h) {
  if (!h) {
    return;
  }
  lth_oppoint_free(h->pt);
  lth_opdecomp_ws_free(h->ws);
  free(h->q);
  free(h->tmp);
  free(h);
}

lth_opic *lth_opic_alloc(const lth_opsys *sys, lth_error *err) {
  lth_opic *h = calloc(1, sizeof *h);
  if (!h) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  h->s = lth_opsys_size(sys);
  h->m = lth_opsys_state_dim(sys);
  h->ws = lth_opdecomp_ws_alloc(sys, 0, err);
  h->pt = h->ws ? lth_oppoint_alloc(sys, 0, 1, err) : NULL;
  if (!h->pt) {
    if (err->status == LTH_OK) {
      lth_error_set(err, LTH_ENOMEM, "out of memory (s = %d)", h->s);
    }
    lth_opic_free(h);
    return NULL;
  }
  h->q = malloc((size_t)h->s * sizeof *h->q);
  h->tmp = malloc((size_t)h->s * sizeof *h->tmp);
  if (!h->q || !h->tmp) {
    lth_error_set(err, LTH_ENOMEM, "out of memory (s = %d)", h->s);
    lth_opic_free(h);
    return NULL;
  }
  return h;
}

void lth_opic_set_cond_max(lth_opic *h, double cond_max) {
  if (cond_max > 0) {
    lth_opdecomp_ws_set_cond_max(h->ws, cond_max);
  }
}

lth_status lth_opic_setup(lth_opic *h, double t, lth_error *err) {
  lth_status st = lth_opdecomp_at(h->ws, t, h->pt, err);
  lth_jet Q = vec(h->q, h->s);
  return st == LTH_OK ? lth_oppoint_q(h->pt, &Q, err) : st;
}

const lth_opinfo *lth_opic_info(const lth_opic *h) { return lth_oppoint_info(h->pt); }

lth_status lth_opic_project(const lth_opic *h, const double *x, double *z, lth_error *err) {
  lth_jet X = vec(x, h->m), Z = vec(z, h->s);
  lth_status st = lth_oppoint_apply_G(h->pt, &X, &Z, err);
  for (int i = 0; st == LTH_OK && i < h->s; i++) {
    z[i] += h->q[i];
  }
  return st;
}

lth_status lth_opic_residual(const lth_opic *h, const double *x, double *res, lth_error *err) {
  lth_status st = lth_opic_project(h, x, h->tmp, err);
  if (st == LTH_OK) {
    for (int i = 0; i < h->s; i++) {
      h->tmp[i] -= x[i];
    }
    *res = lth_dist2(h->tmp, NULL, (size_t)h->s);
  }
  return st;
}

double lth_opic_tolerance(const lth_opic *h, const double *x) {
  double scale =
      fmax(1.0, fmax(lth_dist2(x, NULL, (size_t)h->s), lth_dist2(h->q, NULL, (size_t)h->s)));
  double amp = fmax(1.0, lth_oppoint_info(h->pt)->amplification);
  return (OPIC_CONSIST_TOL + OPIC_ROUNDING * DBL_EPSILON * amp) * scale;
}
