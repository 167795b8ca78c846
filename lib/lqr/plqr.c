/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LQR on a DAE plant with inputs (include/lth/plqr.h, docs/control.md
 * section 10): the realization as a table (lth_ss_table), the Riccati
 * solution backwards as a table (plqr_riccati.c), then the closed loop
 * forwards from x0 with its cost integrated along it. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/small_blas.h"
#include "plqr_sing.h"

void lth_plqr_opts_init(lth_plqr_opts *opts) {
  memset(opts, 0, sizeof *opts);
  lth_ss_opts_init(&opts->ss);
  opts->table_tol = 1e-11;
  opts->rtol = 1e-11;
  opts->atol = 1e-13;
  opts->escape = 1e12;
}

void lth_plqr_result_free(lth_plqr_result *res) {
  if (!res) {
    return;
  }
  double *a[] = {res->times, res->K, res->k, res->Kz, res->kz, res->P, res->pv,
                 res->cv,    res->x, res->z, res->u,  res->y,  res->impulse, res->impulse_t1};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    free(a[i]);
  }
  free(res);
}

static void plqr_free(plqr *L) {
  double *a[] = {L->W,    L->l,    L->M,    L->N,    L->mv,   L->work,
                 L->wt.Q, L->wt.S, L->wt.R, L->wt.q, L->wt.r, L->wt.Rf};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    free(a[i]);
  }
  plqr_wtable_free(L);
  lth_cheb_panels_free(&L->ric);
  lth_ss_point_free(L->pt);
  lth_ss_table_free(L->tab);
  lth_ss_free(L->ss);
}

static size_t sources_work(const lth_plqr_cost *cost) {
  const lth_source *src[3] = {cost->W, cost->l, cost->c};
  size_t w = 1;
  for (int k = 0; k < 3; k++) {
    size_t n = src[k] ? lth_source_work_size(src[k], 0) : 0;
    w = n > w ? n : w;
  }
  return w;
}

static lth_status setup(plqr *L, lth_error *err) {
  const lth_system *sys = L->sys;
  L->s = lth_system_size(sys);
  L->m = lth_system_state_dim(sys);
  L->p = lth_system_manifold_dim(sys);
  L->nu = lth_system_ninputs(sys);
  L->ny = lth_system_noutputs(sys);
  L->n = L->s + L->nu + L->ny;
  if (L->nu <= 0) {
    return lth_error_set(err, LTH_EINVAL, "an LQR problem needs a plant with inputs");
  }
  if (L->p == 0) {
    return lth_error_set(err, LTH_EINVAL, "the plant has no state (p = 0): nothing to control");
  }
  L->o.ss.t0 = L->t0;
  L->ss = lth_ss_alloc(sys, &L->o.ss, err);
  L->tab = L->ss ? lth_ss_table_build(L->ss, L->t0, L->t1, L->o.table_tol, err) : NULL;
  L->pt = L->tab ? lth_ss_point_alloc(L->ss, err) : NULL;
  if (!L->pt) {
    return lth_error_status(err);
  }
  size_t n = (size_t)L->n, p = (size_t)L->p, nu = (size_t)L->nu;
  L->nwork = sources_work(L->cost);
  size_t extra = n * (p + nu + 1) + 4 * p * p + 2 * p * nu + 2 * nu * nu + 3 * nu + 2 * p + 16;
  L->W = calloc(n * n + 1, sizeof(double));
  L->l = calloc(n + 1, sizeof(double));
  L->M = calloc(n * p + 1, sizeof(double));
  L->N = calloc(n * nu + 1, sizeof(double));
  L->mv = calloc(n + 1, sizeof(double));
  L->work = calloc(L->nwork + extra, sizeof(double));
  L->wt.Q = calloc(p * p + 1, sizeof(double));
  L->wt.S = calloc(p * nu + 1, sizeof(double));
  L->wt.R = calloc(nu * nu + 1, sizeof(double));
  L->wt.Rf = calloc(nu * nu + 1, sizeof(double));
  L->wt.q = calloc(p + 1, sizeof(double));
  L->wt.r = calloc(nu + 1, sizeof(double));
  L->wt.p = L->p;
  L->wt.nu = L->nu;
  L->ny_ = p * p + p + 1;
  if (!L->W || !L->l || !L->M || !L->N || !L->mv || !L->work || !L->wt.Q || !L->wt.S || !L->wt.R ||
      !L->wt.Rf || !L->wt.q || !L->wt.r) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory setting up an LQR problem");
  }
  return LTH_OK;
}

/* ---- the closed loop ---- */

typedef struct loop {
  plqr *L;
  double *Y, *K, *k, *u; /* scratch: Y, K (nu x p), k, u */
  int failed;
} loop;

/* K = R^-1 (B'P + S'), k = R^-1 (B'p + r) at the weights now in L->wt. */
static void gains(const plqr *L, const double *Y, double *K, double *k) {
  const plqr_weights *w = &L->wt;
  int p = L->p, nu = L->nu;
  for (int c = 0; c < nu; c++) {
    for (int i = 0; i < p; i++) {
      double sum = w->S[i + (size_t)c * p];
      for (int l = 0; l < p; l++) {
        sum += w->B[l + (size_t)c * p] * 0.5 * (Y[l + (size_t)i * p] + Y[i + (size_t)l * p]);
      }
      K[c + (size_t)i * nu] = sum;
    }
    double sum = w->r[c];
    for (int l = 0; l < p; l++) {
      sum += w->B[l + (size_t)c * p] * Y[(size_t)p * p + l];
    }
    k[c] = sum;
  }
  LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', nu, p, w->Rf, nu, K, nu);
  LAPACKE_dpotrs(LAPACK_COL_MAJOR, 'L', nu, 1, w->Rf, nu, k, nu);
}

/* x' = A x + B u + g, u = -K x - k; J' = the integrand at (x, u). */
static int loop_rhs(double t, const double y[], double dydt[], void *params) {
  loop *c = params;
  plqr *L = c->L;
  if (plqr_weights_at(L, t, &L->rhs_err) != LTH_OK) {
    c->failed = 1;
    return GSL_EBADFUNC;
  }
  const plqr_weights *w = &L->wt;
  int p = L->p, nu = L->nu;
  plqr_riccati_eval(L, t, c->Y);
  gains(L, c->Y, c->K, c->k);
  for (int a = 0; a < nu; a++) {
    double sum = -c->k[a];
    for (int i = 0; i < p; i++) {
      sum -= c->K[a + (size_t)i * nu] * y[i];
    }
    c->u[a] = sum;
  }
  double J = w->c0;
  for (int i = 0; i < p; i++) {
    double sum = w->g[i], qx = 0.0, su = 0.0;
    for (int l = 0; l < p; l++) {
      sum += w->A[i + (size_t)l * p] * y[l];
      qx += w->Q[i + (size_t)l * p] * y[l];
    }
    for (int a = 0; a < nu; a++) {
      sum += w->B[i + (size_t)a * p] * c->u[a];
      su += w->S[i + (size_t)a * p] * c->u[a];
    }
    dydt[i] = sum;
    J += y[i] * (qx + 2.0 * su + 2.0 * w->q[i]);
  }
  for (int a = 0; a < nu; a++) {
    double ru = 0.0;
    for (int b = 0; b < nu; b++) {
      ru += w->R[a + (size_t)b * nu] * c->u[b];
    }
    J += c->u[a] * (ru + 2.0 * w->r[a]);
  }
  dydt[p] = J;
  return GSL_SUCCESS;
}

/* x0 = Q(t0)' (I - P(t0)) z0[0..m): the state part of z0. */
lth_status plqr_initial_state(plqr *L, const double *z0, double *x0, lth_error *err) {
  lth_decomp_ws *ws = lth_decomp_ws_alloc(L->sys, 0, err);
  lth_point *dp = ws ? lth_point_alloc(L->sys, 0, err) : NULL;
  lth_status st = dp ? LTH_OK : lth_error_status(err);
  if (st == LTH_OK) {
    lth_decomp_ws_set_unforced(ws, 1);
    st = lth_decomp_at(ws, L->t0, dp, err);
  }
  if (st == LTH_OK) {
    st = lth_ss_table_eval(L->tab, L->t0, L->pt, err);
  }
  int m = L->m, p = L->p;
  for (int j = 0; st == LTH_OK && j < p; j++) {
    double sum = 0.0;
    for (int i = 0; i < m; i++) {
      double v = z0[i];
      for (int l = 0; l < m; l++) {
        v -= LTH_JET_AT(&dp->P, 0, i, l) * z0[l];
      }
      sum += L->pt->Q[i + (size_t)j * m] * v;
    }
    x0[j] = sum;
  }
  lth_point_free(dp);
  lth_decomp_ws_free(ws);
  return st;
}

static lth_plqr_result *result_alloc(const plqr *L, size_t n) {
  lth_plqr_result *res = calloc(1, sizeof *res);
  if (!res) {
    return NULL;
  }
  size_t p = (size_t)L->p, s = (size_t)L->s, nu = (size_t)L->nu, ny = (size_t)L->ny;
  res->n = n;
  res->p = L->p;
  res->s = L->s;
  res->nu = L->nu;
  res->ny = L->ny;
  res->times = calloc(n + 1, sizeof(double));
  res->K = calloc(n * nu * p + 1, sizeof(double));
  res->k = calloc(n * nu + 1, sizeof(double));
  res->Kz = calloc(n * nu * s + 1, sizeof(double));
  res->kz = calloc(n * nu + 1, sizeof(double));
  res->P = calloc(n * p * p + 1, sizeof(double));
  res->pv = calloc(n * p + 1, sizeof(double));
  res->cv = calloc(n + 1, sizeof(double));
  res->x = calloc(n * p + 1, sizeof(double));
  res->z = calloc(n * s + 1, sizeof(double));
  res->u = calloc(n * nu + 1, sizeof(double));
  res->y = calloc(n * ny + 1, sizeof(double));
  res->impulse = calloc(nu + 1, sizeof(double));
  res->impulse_t1 = calloc(nu + 1, sizeof(double));
  if (!res->impulse || !res->impulse_t1 || !res->times || !res->K || !res->k || !res->Kz || !res->kz || !res->P || !res->pv ||
      !res->cv || !res->x || !res->z || !res->u || !res->y) {
    lth_plqr_result_free(res);
    return NULL;
  }
  return res;
}

/* Everything at output q (time t, state x): the weights and Y are L's now. */
static lth_status record(plqr *L, loop *c, lth_plqr_result *res, size_t q, double t,
                         const double *x, lth_decomp_ws *ws, lth_point *dp, lth_error *err) {
  int p = L->p, s = L->s, m = L->m, nu = L->nu, ny = L->ny;
  lth_status st = plqr_weights_direct(L, t, err);         /* with the realization at t in L->pt */
  st = st == LTH_OK ? lth_decomp_at(ws, t, dp, err) : st; /* P(t): the gain on z */
  if (st != LTH_OK) {
    return st;
  }
  plqr_riccati_eval(L, t, c->Y);
  gains(L, c->Y, c->K, c->k);
  const lth_ss_point *pt = L->pt;
  res->times[q] = t;
  memcpy(res->x + q * p, x, (size_t)p * sizeof(double));
  memcpy(res->K + q * nu * p, c->K, (size_t)nu * p * sizeof(double));
  memcpy(res->k + q * nu, c->k, (size_t)nu * sizeof(double));
  memcpy(res->kz + q * nu, c->k, (size_t)nu * sizeof(double));
  memcpy(res->P + q * p * p, c->Y, (size_t)p * p * sizeof(double));
  memcpy(res->pv + q * p, c->Y + (size_t)p * p, (size_t)p * sizeof(double));
  res->cv[q] = c->Y[(size_t)p * p + p];
  double *u = res->u + q * nu, *z = res->z + q * s, *y = res->y + q * ny;
  for (int a = 0; a < nu; a++) {
    double sum = -c->k[a];
    for (int i = 0; i < p; i++) {
      sum -= c->K[a + (size_t)i * nu] * x[i];
    }
    u[a] = sum;
  }
  memcpy(z, pt->zf, (size_t)s * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasNoTrans, s, 1, p, 1.0, pt->Z, s, x, p, 1.0, z, s);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, s, 1, nu, 1.0, pt->Dz, s, u, nu, 1.0, z, s);
  if (ny > 0) {
    memcpy(y, pt->yf, (size_t)ny * sizeof(double));
    lth_small_gemm(CblasNoTrans, CblasNoTrans, ny, 1, p, 1.0, pt->C, ny, x, p, 1.0, y, ny);
    lth_small_gemm(CblasNoTrans, CblasNoTrans, ny, 1, nu, 1.0, pt->D, ny, u, nu, 1.0, y, ny);
  }
  /* u = -K Q' (I - P) z[0..m) - k: Kz's first m columns, zero on the multipliers */
  double *Kz = res->Kz + q * nu * s, *KQ = L->work + L->nwork;
  lth_small_gemm(CblasNoTrans, CblasTrans, nu, m, p, 1.0, c->K, nu, pt->Q, m, 0.0, KQ, nu);
  for (int j = 0; j < m; j++) {
    for (int a = 0; a < nu; a++) {
      double sum = KQ[a + (size_t)j * nu];
      for (int l = 0; l < m; l++) {
        sum -= KQ[a + (size_t)l * nu] * LTH_JET_AT(&dp->P, 0, l, j);
      }
      Kz[a + (size_t)j * nu] = sum;
    }
  }
  return LTH_OK;
}

/* The final cost of the closed loop at t1: w = M x + N u + m there. */
static double final_cost(plqr *L, const double *x, const double *u) {
  const lth_plqr_cost *cost = L->cost;
  int n = L->n;
  double *w = L->work + L->nwork, J = cost->cF;
  memcpy(w, L->mv, (size_t)n * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, 1, L->p, 1.0, L->M, n, x, L->p, 1.0, w, n);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, 1, L->nu, 1.0, L->N, n, u, L->nu, 1.0, w, n);
  for (int i = 0; i < n; i++) {
    double Fw = 0.0;
    for (int j = 0; cost->F && j < n; j++) {
      Fw += cost->F[i + (size_t)j * n] * w[j];
    }
    J += w[i] * (Fw + 2.0 * (cost->f ? cost->f[i] : 0.0));
  }
  return J;
}

static lth_status closed_loop(plqr *L, const double *z0, const double *times, size_t n,
                              lth_plqr_result *res, lth_error *err) {
  int p = L->p, nu = L->nu;
  size_t sz = (size_t)L->ny_ + (size_t)nu * p + 2 * (size_t)nu + (size_t)p + 2;
  double *buf = calloc(sz, sizeof(double)), *y = NULL;
  loop c = {.L = L};
  lth_decomp_ws *ws = lth_decomp_ws_alloc(L->sys, 0, err);
  lth_point *dp = ws ? lth_point_alloc(L->sys, 0, err) : NULL;
  lth_status st = buf && dp ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) {
    lth_decomp_ws_set_unforced(ws, 1);
    c.Y = buf;
    c.K = c.Y + L->ny_;
    c.k = c.K + (size_t)nu * p;
    c.u = c.k + nu;
    y = c.u + nu; /* x (p), then J */
    st = plqr_initial_state(L, z0, y, err);
  }
  gsl_odeiv2_system gs = {loop_rhs, NULL, (size_t)p + 1, &c};
  gsl_odeiv2_driver *drv =
      st == LTH_OK ? gsl_odeiv2_driver_alloc_y_new(&gs, gsl_odeiv2_step_rk8pd,
                                                   1e-3 * (L->t1 - L->t0), L->o.atol, L->o.rtol)
                   : NULL;
  if (st == LTH_OK && !drv) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) { /* J* = V(t0, x0) */
    plqr_riccati_eval(L, L->t0, c.Y);
    double J = c.Y[(size_t)p * p + p];
    for (int i = 0; i < p; i++) {
      double px = 0.0;
      for (int l = 0; l < p; l++) {
        px += c.Y[i + (size_t)l * p] * y[l];
      }
      J += y[i] * (px + 2.0 * c.Y[(size_t)p * p + i]);
    }
    res->cost = J;
  }
  double t = L->t0;
  for (size_t q = 0; st == LTH_OK && q <= n; q++) {
    double to = q < n ? times[q] : L->t1;
    if (to > t) {
      int gst = gsl_odeiv2_driver_apply(drv, &t, to, y);
      if (c.failed) {
        *err = L->rhs_err;
        st = err->status;
      } else if (gst != GSL_SUCCESS) {
        st = lth_error_set_t(err, LTH_EINTEG, t, "the closed loop could not be integrated (%s)",
                             gsl_strerror(gst));
      }
    }
    if (st == LTH_OK && q < n) {
      st = record(L, &c, res, q, to, y, ws, dp, err);
    } else if (st == LTH_OK) { /* t1: the final cost (M, N, m of the realization there) */
      st = plqr_weights_direct(L, L->t1, err);
      if (st == LTH_OK) {
        plqr_riccati_eval(L, L->t1, c.Y);
        gains(L, c.Y, c.K, c.k);
        for (int a = 0; a < nu; a++) {
          double sum = -c.k[a];
          for (int i = 0; i < p; i++) {
            sum -= c.K[a + (size_t)i * nu] * y[i];
          }
          c.u[a] = sum;
        }
        res->cost_closed = y[p] + final_cost(L, y, c.u);
      }
    }
  }
  if (drv) {
    gsl_odeiv2_driver_free(drv);
  }
  lth_point_free(dp);
  lth_decomp_ws_free(ws);
  free(buf);
  return st;
}

lth_status lth_plqr_solve(const lth_system *sys, const lth_plqr_cost *cost, double t0, double t1,
                          const double *z0, const double *times, size_t n,
                          const lth_plqr_opts *opts, lth_plqr_result **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  if (!(t1 > t0) || !isfinite(t0) || !isfinite(t1)) {
    return lth_error_set(err, LTH_EINVAL, "an LQR problem needs t0 < t1 (finite)");
  }
  for (size_t q = 0; q < n; q++) {
    if (!(times[q] >= t0 && times[q] <= t1) || (q > 0 && times[q] < times[q - 1])) {
      return lth_error_set(err, LTH_EINVAL,
                           "output times must be nondecreasing in [t0, t1]: times[%zu] = %g", q,
                           times[q]);
    }
  }
  plqr L;
  memset(&L, 0, sizeof L);
  L.sys = sys;
  L.cost = cost;
  L.t0 = t0;
  L.t1 = t1;
  if (opts) {
    L.o = *opts;
  } else {
    lth_plqr_opts_init(&L.o);
  }
  lth_plqr_opts def;
  lth_plqr_opts_init(&def);
  L.o.table_tol = L.o.table_tol > 0 ? L.o.table_tol : def.table_tol;
  L.o.rtol = L.o.rtol > 0 ? L.o.rtol : def.rtol;
  L.o.atol = L.o.atol > 0 ? L.o.atol : def.atol;
  L.o.escape = L.o.escape > 0 ? L.o.escape : def.escape;
  lth_status st = setup(&L, err);
  int nu2 = 0;
  double *U = st == LTH_OK ? calloc((size_t)L.nu * L.nu, sizeof(double)) : NULL;
  if (st == LTH_OK && !U) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  st = st == LTH_OK ? plqr_split_inputs(&L, t0, &nu2, U, err) : st;
  st = st == LTH_OK ? plqr_check_rank(&L, nu2, U, err) : st;
  lth_plqr_result *res = st == LTH_OK ? result_alloc(&L, n) : NULL;
  if (st == LTH_OK && !res) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK && nu2 > 0) { /* R singular at t0: Clark's section 4.2 */
    st = plqr_singular_solve(&L, nu2, U, z0, times, n, res, err);
  } else if (st == LTH_OK) {
    st = plqr_wtable_build(&L, err);
    st = st == LTH_OK ? plqr_riccati_build(&L, err) : st;
    st = st == LTH_OK ? closed_loop(&L, z0, times, n, res, err) : st;
    res->have_gain = 1;
  }
  free(U);
  if (st == LTH_OK) {
    res->riccati_panels = L.ric.count;
    *out = res;
  } else {
    lth_plqr_result_free(res);
  }
  plqr_free(&L);
  return st;
}
