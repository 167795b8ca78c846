/* SPDX-License-Identifier: GPL-3.0-or-later */
/* R of constant rank on [t0, t1] (include/lth/plqr.h): the weighted block
 * U1'R U1 stays positive definite.  Judged on a scan of RCHECK_POINTS points
 * with every local minimum of its smallest eigenvalue (relative to the
 * scale of R, lib/lqr/plqr_sing.h) refined by golden-section search, so a
 * smooth dip to zero between the points (R = (t - 1/2)^2 u^2) is found and
 * named.  What can hide: a dip narrower than the scan's spacing that no
 * scan point sees going down (docs/control.md section 13).  The Riccati
 * path would otherwise step over an isolated zero of R, where the problem
 * has no optimum (a control that is free there). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "plqr_sing.h"

#define RCHECK_POINTS 513
#define RCHECK_GOLDEN 60
#define RCHECK_REFINE 32

typedef struct rsample {
  double t, lmin; /* lambda_min(U1'R U1) / scale */
} rsample;

/* lambda_min(U1'R(t)U1) relative to the scale of R at t. */
static lth_status r_sample(plqr *L, int nu1, const double *U, double t, rsample *out,
                           lth_error *err) {
  lth_status st = plqr_weights_values(L, t, err);
  if (st != LTH_OK) {
    return st;
  }
  int nu = L->nu;
  double *RU = L->work + L->nwork, *B = RU + (size_t)nu * nu, *ev = B + (size_t)nu * nu;
  for (int j = 0; j < nu1; j++) {
    for (int i = 0; i < nu; i++) {
      double sum = 0.0;
      for (int k = 0; k < nu; k++) {
        sum += L->wt.R[i + (size_t)k * nu] * U[k + (size_t)j * nu];
      }
      RU[i + (size_t)j * nu] = sum;
    }
  }
  for (int j = 0; j < nu1; j++) {
    for (int i = 0; i < nu1; i++) {
      double sum = 0.0;
      for (int k = 0; k < nu; k++) {
        sum += U[k + (size_t)i * nu] * RU[k + (size_t)j * nu];
      }
      B[i + (size_t)j * nu1] = sum;
    }
  }
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', nu1, B, nu1, ev) != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, t, "the eigenvalues of R failed");
  }
  out->t = t;
  out->lmin = ev[0] / fmax(plqr_r_scale(L), 1e-300);
  return LTH_OK;
}

/* Golden-section search for the smallest lmin on [a, b] around m. */
static lth_status refine(plqr *L, int nu1, const double *U, double a, double b, rsample *best,
                         lth_error *err) {
  const double g = 0.5 * (3.0 - sqrt(5.0));
  double lo = a, hi = b;
  for (int it = 0; it < RCHECK_GOLDEN; it++) {
    double m = best->t;
    double x = (m - lo > hi - m) ? m - g * (m - lo) : m + g * (hi - m);
    if (!(x > lo && x < hi) || x == m) {
      break;
    }
    rsample s;
    lth_status st = r_sample(L, nu1, U, x, &s, err);
    if (st != LTH_OK) {
      return st;
    }
    if (s.lmin < best->lmin) {
      *(x < m ? &hi : &lo) = m;
      *best = s;
    } else {
      *(x < m ? &lo : &hi) = x;
    }
  }
  return LTH_OK;
}

static int deeper(const void *x, const void *y) {
  double a = ((const rsample *)x)->lmin, b = ((const rsample *)y)->lmin;
  return (a > b) - (a < b);
}

lth_status plqr_check_rank(plqr *L, int nu2, const double *U, lth_error *err) {
  int nu1 = L->nu - nu2;
  if (nu1 == 0) {
    return LTH_OK;
  }
  rsample *sm = malloc(2 * RCHECK_POINTS * sizeof *sm), *mins = sm + RCHECK_POINTS;
  if (!sm) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  lth_status st = LTH_OK;
  double h = (L->t1 - L->t0) / (RCHECK_POINTS - 1);
  for (int k = 0; k < RCHECK_POINTS && st == LTH_OK; k++) {
    double t = k == RCHECK_POINTS - 1 ? L->t1 : L->t0 + h * k;
    st = r_sample(L, nu1, U, t, &sm[k], err);
  }
  int nm = 0;
  for (int k = 0; k < RCHECK_POINTS && st == LTH_OK; k++) {
    int left = k == 0 || sm[k].lmin <= sm[k - 1].lmin;
    int right = k == RCHECK_POINTS - 1 || sm[k].lmin <= sm[k + 1].lmin;
    if (left && right) {
      mins[nm++] = sm[k];
    }
  }
  qsort(mins, (size_t)nm, sizeof *mins, deeper);
  for (int k = 0; k < nm && k < RCHECK_REFINE && st == LTH_OK; k++) {
    rsample best = mins[k];
    st = refine(L, nu1, U, fmax(L->t0, best.t - h), fmin(L->t1, best.t + h), &best, err);
    if (st == LTH_OK && best.lmin <= LTH_PLQR_RANK_TOL) {
      st = lth_error_set_t(err, LTH_EDATA, best.t,
                           "the weight of the inputs R(t) changes rank at t = %.10g (its "
                           "smallest weighted eigenvalue falls to %.3e of its scale): an LQR "
                           "problem needs R of constant rank on the interval",
                           best.t, best.lmin);
    }
  }
  free(sm);
  return st;
}
