/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The Kalman-Bucy filter of a DAE plant with inputs (include/lth/kalman.h):
 * the realization as a table (lth_ss_table), then the covariance forwards
 * from Sigma(t0) by an explicit Runge-Kutta pair (Prince-Dormand 8(9)). */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/small_blas.h"
#include "lth/decomp.h"
#include "lth/kalman.h"
#include "plqr_impl.h"

void lth_kalman_opts_init(lth_kalman_opts *opts) {
  memset(opts, 0, sizeof *opts);
  lth_ss_opts_init(&opts->ss);
  opts->table_tol = 1e-11;
  opts->rtol = 1e-11;
  opts->atol = 1e-13;
}

void lth_kalman_result_free(lth_kalman_result *res) {
  if (res) {
    free(res->times);
    free(res->Sigma);
    free(res->L);
    free(res->Sigma_z);
    free(res);
  }
}

typedef struct kf {
  const lth_system *sys;
  const lth_kalman_spec *spec;
  lth_kalman_opts o;
  double t0, t1;
  int p, s, m, nu, ny, nw;
  lth_ss *ss;
  lth_ss_table *tab;
  lth_ss_point *pt;
  double *Bw, *Dw, *W, *V, *Rf; /* p x nw, ny x nw, nw x nw, ny x ny, ny x ny (Cholesky of Rm) */
  double *X, *T1, *T2;          /* p x ny, and scratch of max(p, ny, nw)^2 */
  double *swork;
  lth_error rhs_err;
  int rhs_failed;
} kf;

static size_t sources_work(const lth_kalman_spec *sp) {
  size_t a = sp->W ? lth_source_work_size(sp->W, 0) : 0, b = lth_source_work_size(sp->V, 0);
  return (a > b ? a : b) + 1;
}

/* The maps at t: Bw, Dw (the noise's columns of B_0, D_0), W, V, and Rm = Dw W Dw' + V
 * factored; LTH_ESING naming t where Rm is not positive definite. */
static lth_status maps_at(kf *K, double t, lth_error *err) {
  lth_status st = lth_ss_table_eval(K->tab, t, K->pt, err);
  int p = K->p, ny = K->ny, nw = K->nw, nu = K->nu;
  lth_jet JW = lth_jet_wrap(K->W, nw, nw, nw, (size_t)nw * nw, 0);
  lth_jet JV = lth_jet_wrap(K->V, ny, ny, ny, (size_t)ny * ny, 0);
  if (st == LTH_OK && K->spec->W) {
    st = lth_source_fill(K->spec->W, t, 0, &JW, K->swork, err);
  } else if (st == LTH_OK) {
    lth_jet_set_identity(&JW, 0);
  }
  st = st == LTH_OK ? lth_source_fill(K->spec->V, t, 0, &JV, K->swork, err) : st;
  if (st != LTH_OK) {
    return st;
  }
  for (int a = 0; a < nw; a++) {
    int k = K->spec->noise[a];
    if (!plqr_underived(K->pt, k)) {
      return lth_error_set_t(err, LTH_EDATA, t,
                             "the noise input %d reaches the plant through its derivatives (it "
                             "stands in a position or constraint equation): a white noise "
                             "cannot be differentiated",
                             k + 1);
    }
    memcpy(K->Bw + (size_t)a * p, K->pt->B + (size_t)k * p, (size_t)p * sizeof(double));
    memcpy(K->Dw + (size_t)a * ny, K->pt->D + (size_t)k * ny, (size_t)ny * sizeof(double));
  }
  (void)nu;
  /* Rm = Dw W Dw' + V */
  lth_small_gemm(CblasNoTrans, CblasNoTrans, ny, nw, nw, 1.0, K->Dw, ny, K->W, nw, 0.0, K->T1, ny);
  memcpy(K->Rf, K->V, (size_t)ny * ny * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasTrans, ny, ny, nw, 1.0, K->T1, ny, K->Dw, ny, 1.0, K->Rf, ny);
  if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', ny, K->Rf, ny) != 0) {
    return lth_error_set_t(err, LTH_ESING, t,
                           "the measurement noise's intensity V + D_w W D_w' is not positive "
                           "definite at t = %.10g",
                           t);
  }
  return LTH_OK;
}

/* X = Sigma C' + Bw W Dw' (p x ny) for the symmetric part of S. */
static void cross(kf *K, const double *S) {
  int p = K->p, ny = K->ny, nw = K->nw;
  lth_small_gemm(CblasNoTrans, CblasTrans, p, ny, p, 1.0, S, p, K->pt->C, ny, 0.0, K->X, p);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, nw, nw, 1.0, K->Bw, p, K->W, nw, 0.0, K->T2, p);
  lth_small_gemm(CblasNoTrans, CblasTrans, p, ny, nw, 1.0, K->T2, p, K->Dw, ny, 1.0, K->X, p);
}

static int rhs(double t, const double y[], double dydt[], void *params) {
  kf *K = params;
  if (maps_at(K, t, &K->rhs_err) != LTH_OK) {
    K->rhs_failed = 1;
    return GSL_EBADFUNC;
  }
  int p = K->p, ny = K->ny, nw = K->nw;
  double *S = K->T1;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) {
      S[i + (size_t)j * p] = 0.5 * (y[i + (size_t)j * p] + y[j + (size_t)i * p]);
    }
  }
  /* A S + S A' + Bw W Bw' - X Rm^-1 X' */
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, p, p, 1.0, K->pt->A, p, S, p, 0.0, dydt, p);
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < j; i++) {
      double a = dydt[i + (size_t)j * p], b = dydt[j + (size_t)i * p];
      dydt[i + (size_t)j * p] = dydt[j + (size_t)i * p] = a + b;
    }
    dydt[j + (size_t)j * p] *= 2.0;
  }
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, nw, nw, 1.0, K->Bw, p, K->W, nw, 0.0, K->T2, p);
  lth_small_gemm(CblasNoTrans, CblasTrans, p, p, nw, 1.0, K->T2, p, K->Bw, p, 1.0, dydt, p);
  cross(K, S);
  double *Y = K->T2; /* Rm^-1 X' (ny x p) */
  for (int i = 0; i < p; i++) {
    for (int k = 0; k < ny; k++) {
      Y[k + (size_t)i * ny] = K->X[i + (size_t)k * p];
    }
  }
  LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', ny, p, K->Rf, ny, Y, ny);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, p, ny, -1.0, K->X, p, Y, ny, 1.0, dydt, p);
  for (size_t i = 0; i < (size_t)p * p; i++) {
    if (!isfinite(dydt[i])) {
      return GSL_FAILURE; /* a step too long for a fast rate: the integrator halves it */
    }
  }
  return GSL_SUCCESS;
}

/* A first step the covariance's fastest rate allows: ||A|| + ||Sigma0|| ||C||^2 / ||Rm||
 * at t0 (the filter's gain is largest at first when the prior is wide and V small). */
static double first_step(kf *K, const double *S0, lth_error *err) {
  double span = K->t1 - K->t0, h = 1e-3 * span;
  if (maps_at(K, K->t0, err) != LTH_OK) {
    return h;
  }
  int p = K->p, ny = K->ny;
  double an = 0.0, sn = 0.0, cn = 0.0, rmin = INFINITY;
  for (size_t i = 0; i < (size_t)p * p; i++) {
    an = fmax(an, fabs(K->pt->A[i]));
    sn = fmax(sn, fabs(S0[i]));
  }
  for (size_t i = 0; i < (size_t)ny * p; i++) {
    cn = fmax(cn, fabs(K->pt->C[i]));
  }
  for (int k = 0; k < ny; k++) { /* Rm's Cholesky diagonal squared: a bound on its small end */
    rmin = fmin(rmin, K->Rf[k + (size_t)k * ny] * K->Rf[k + (size_t)k * ny]);
  }
  double rate = p * an + p * sn * ny * cn * cn / rmin;
  return rate > 0 && 0.05 / rate < h ? 0.05 / rate : h;
}

static lth_status check_spec(kf *K, lth_error *err) {
  const lth_kalman_spec *sp = K->spec;
  if (K->ny <= 0 || !sp->V) {
    return lth_error_set(err, LTH_EINVAL, "a Kalman filter needs measured outputs and their "
                                          "noise's intensity V");
  }
  if (sp->nw < 1 || sp->nw > K->nu || !sp->noise) {
    return lth_error_set(err, LTH_EINVAL, "a Kalman filter needs 1 to %d noise inputs, not %d",
                         K->nu, sp->nw);
  }
  for (int a = 0; a < sp->nw; a++) {
    int k = sp->noise[a];
    int dup = 0;
    for (int b = 0; b < a; b++) {
      dup |= sp->noise[b] == k;
    }
    if (k < 0 || k >= K->nu || dup) {
      return lth_error_set(err, LTH_EINVAL, "noise input %d: not an input, or given twice",
                           k + 1);
    }
  }
  if (K->p == 0) {
    return lth_error_set(err, LTH_EINVAL, "the plant has no state (p = 0): nothing to estimate");
  }
  return LTH_OK;
}

static lth_status setup(kf *K, lth_error *err) {
  const lth_system *sys = K->sys;
  K->s = lth_system_size(sys);
  K->m = lth_system_state_dim(sys);
  K->p = lth_system_manifold_dim(sys);
  K->nu = lth_system_ninputs(sys);
  K->ny = lth_system_noutputs(sys);
  K->nw = K->spec->nw;
  lth_status st = check_spec(K, err);
  if (st != LTH_OK) {
    return st;
  }
  K->o.ss.t0 = K->t0;
  K->ss = lth_ss_alloc(sys, &K->o.ss, err);
  K->tab = K->ss ? lth_ss_table_build(K->ss, K->t0, K->t1, K->o.table_tol, err) : NULL;
  K->pt = K->tab ? lth_ss_point_alloc(K->ss, err) : NULL;
  if (!K->pt) {
    return lth_error_status(err);
  }
  size_t p = (size_t)K->p, ny = (size_t)K->ny, nw = (size_t)K->nw;
  size_t big = p > ny ? p : ny;
  big = big > nw ? big : nw;
  K->Bw = calloc(p * nw + 1, sizeof(double));
  K->Dw = calloc(ny * nw + 1, sizeof(double));
  K->W = calloc(nw * nw + 1, sizeof(double));
  K->V = calloc(ny * ny + 1, sizeof(double));
  K->Rf = calloc(ny * ny + 1, sizeof(double));
  K->X = calloc(p * ny + 1, sizeof(double));
  K->T1 = calloc(big * big + 1, sizeof(double));
  K->T2 = calloc(big * big + 1, sizeof(double));
  K->swork = calloc(sources_work(K->spec), sizeof(double));
  if (!K->Bw || !K->Dw || !K->W || !K->V || !K->Rf || !K->X || !K->T1 || !K->T2 || !K->swork) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory setting up a Kalman filter");
  }
  return LTH_OK;
}

static void kf_free(kf *K) {
  double *a[] = {K->Bw, K->Dw, K->W, K->V, K->Rf, K->X, K->T1, K->T2, K->swork};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    free(a[i]);
  }
  lth_ss_point_free(K->pt);
  lth_ss_table_free(K->tab);
  lth_ss_free(K->ss);
}

/* Sigma(t0) = T Sigma0_z T', T = Q' (I - P) on z's first m rows. */
static lth_status initial(kf *K, double *S, lth_error *err) {
  int p = K->p, m = K->m, s = K->s;
  lth_decomp_ws *ws = lth_decomp_ws_alloc(K->sys, 0, err);
  lth_point *dp = ws ? lth_point_alloc(K->sys, 0, err) : NULL;
  double *T = calloc((size_t)p * s + (size_t)p * s + 1, sizeof(double)), *TS = T + (size_t)p * s;
  lth_status st = dp && T ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) {
    lth_decomp_ws_set_unforced(ws, 1);
    st = lth_decomp_at(ws, K->t0, dp, err);
  }
  st = st == LTH_OK ? lth_ss_table_eval(K->tab, K->t0, K->pt, err) : st;
  for (int j = 0; st == LTH_OK && j < m; j++) { /* T(:, j) = Q' (e_j - P e_j) */
    for (int a = 0; a < p; a++) {
      double sum = 0.0;
      for (int i = 0; i < m; i++) {
        double v = (i == j ? 1.0 : 0.0) - LTH_JET_AT(&dp->P, 0, i, j);
        sum += K->pt->Q[i + (size_t)a * m] * v;
      }
      T[a + (size_t)j * p] = sum;
    }
  }
  if (st == LTH_OK) {
    lth_small_gemm(CblasNoTrans, CblasNoTrans, p, s, s, 1.0, T, p, K->spec->Sigma0_z, s, 0.0, TS,
                   p);
    lth_small_gemm(CblasNoTrans, CblasTrans, p, p, s, 1.0, TS, p, T, p, 0.0, S, p);
  }
  free(T);
  lth_point_free(dp);
  lth_decomp_ws_free(ws);
  return st;
}

static lth_kalman_result *result_alloc(const kf *K, size_t n) {
  lth_kalman_result *res = calloc(1, sizeof *res);
  if (!res) {
    return NULL;
  }
  size_t p = (size_t)K->p, s = (size_t)K->s, ny = (size_t)K->ny;
  res->n = n;
  res->p = K->p;
  res->s = K->s;
  res->ny = K->ny;
  res->times = calloc(n + 1, sizeof(double));
  res->Sigma = calloc(n * p * p + 1, sizeof(double));
  res->L = calloc(n * p * ny + 1, sizeof(double));
  res->Sigma_z = calloc(n * s * s + 1, sizeof(double));
  if (!res->times || !res->Sigma || !res->L || !res->Sigma_z) {
    lth_kalman_result_free(res);
    return NULL;
  }
  return res;
}

/* Sigma, L = X Rm^-1 and Z Sigma Z' at output q (the maps at t are K's now). */
static lth_status record(kf *K, lth_kalman_result *res, size_t q, double t, const double *y,
                         lth_error *err) {
  int p = K->p, ny = K->ny, s = K->s;
  lth_status st = maps_at(K, t, err);
  if (st != LTH_OK) {
    return st;
  }
  double *S = res->Sigma + q * (size_t)p * p, *L = res->L + q * (size_t)p * ny;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) {
      S[i + (size_t)j * p] = 0.5 * (y[i + (size_t)j * p] + y[j + (size_t)i * p]);
    }
  }
  cross(K, S);
  for (int i = 0; i < p; i++) { /* L' = Rm^-1 X' */
    for (int k = 0; k < ny; k++) {
      K->T2[k + (size_t)i * ny] = K->X[i + (size_t)k * p];
    }
  }
  LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', ny, p, K->Rf, ny, K->T2, ny);
  for (int i = 0; i < p; i++) {
    for (int k = 0; k < ny; k++) {
      L[i + (size_t)k * p] = K->T2[k + (size_t)i * ny];
    }
  }
  double *ZS = malloc(((size_t)s * p + 1) * sizeof(double));
  if (!ZS) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  lth_small_gemm(CblasNoTrans, CblasNoTrans, s, p, p, 1.0, K->pt->Z, s, S, p, 0.0, ZS, s);
  lth_small_gemm(CblasNoTrans, CblasTrans, s, s, p, 1.0, ZS, s, K->pt->Z, s, 0.0,
                 res->Sigma_z + q * (size_t)s * s, s);
  free(ZS);
  res->times[q] = t;
  for (size_t i = 0; i < (size_t)p * p; i++) {
    if (!isfinite(S[i])) {
      return lth_error_set_t(err, LTH_ENOTFINITE, t, "the error covariance is not finite");
    }
  }
  return LTH_OK;
}

lth_status lth_kalman_solve(const lth_system *sys, const lth_kalman_spec *spec, double t0,
                            double t1, const double *times, size_t n, const lth_kalman_opts *opts,
                            lth_kalman_result **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  if (!(t1 > t0) || !isfinite(t0) || !isfinite(t1)) {
    return lth_error_set(err, LTH_EINVAL, "a Kalman filter needs t0 < t1 (finite)");
  }
  for (size_t q = 0; q < n; q++) {
    if (!(times[q] >= t0 && times[q] <= t1) || (q > 0 && times[q] < times[q - 1])) {
      return lth_error_set(err, LTH_EINVAL,
                           "output times must be nondecreasing in [t0, t1]: times[%zu] = %g", q,
                           times[q]);
    }
  }
  if (!spec->Sigma0_z) {
    return lth_error_set(err, LTH_EINVAL, "a Kalman filter needs the covariance of z(t0)");
  }
  kf K;
  memset(&K, 0, sizeof K);
  K.sys = sys;
  K.spec = spec;
  K.t0 = t0;
  K.t1 = t1;
  lth_kalman_opts def;
  lth_kalman_opts_init(&def);
  K.o = opts ? *opts : def;
  K.o.table_tol = K.o.table_tol > 0 ? K.o.table_tol : def.table_tol;
  K.o.rtol = K.o.rtol > 0 ? K.o.rtol : def.rtol;
  K.o.atol = K.o.atol > 0 ? K.o.atol : def.atol;
  lth_status st = setup(&K, err);
  size_t pp = (size_t)K.p * K.p;
  double *y = st == LTH_OK ? calloc(pp + 1, sizeof(double)) : NULL;
  lth_kalman_result *res = y ? result_alloc(&K, n) : NULL;
  if (st == LTH_OK && !res) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  st = st == LTH_OK ? initial(&K, y, err) : st;
  gsl_odeiv2_system gs = {rhs, NULL, pp, &K};
  double h0 = st == LTH_OK ? first_step(&K, y, err) : 0.0;
  gsl_odeiv2_driver *drv =
      st == LTH_OK ? gsl_odeiv2_driver_alloc_y_new(&gs, gsl_odeiv2_step_rk8pd, h0, K.o.atol,
                                                   K.o.rtol)
                   : NULL;
  if (st == LTH_OK && !drv) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  double t = t0;
  for (size_t q = 0; st == LTH_OK && q < n; q++) {
    if (times[q] > t) {
      int gst = gsl_odeiv2_driver_apply(drv, &t, times[q], y);
      if (K.rhs_failed) {
        *err = K.rhs_err;
        st = err->status;
      } else if (gst != GSL_SUCCESS) {
        st = lth_error_set_t(err, LTH_EINTEG, t,
                             "the error covariance could not be integrated past t = %.10g (GSL: "
                             "%s)",
                             t, gsl_strerror(gst));
      }
    }
    st = st == LTH_OK ? record(&K, res, q, times[q], y, err) : st;
  }
  if (drv) {
    gsl_odeiv2_driver_free(drv);
  }
  free(y);
  kf_free(&K);
  if (st != LTH_OK) {
    lth_kalman_result_free(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}
