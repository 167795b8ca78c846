/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth_ivp_solve on constant data (include/lth/ivp.h, lth_ivp_opts.propagate):
 * where every block of the system is proven constant on the span by its
 * enclosure (lth_enclose_constant: the enclosure of each entry's first
 * derivative is exactly {0}), one decomposition gives P, Ahat, g, Bhat, q
 * for every t, and the reduced ODE v' = Ahat v + g (Clark (3.9)) has the
 * exact propagator
 *     [v(t + d); 1] = exp(d [As gs; 0 0]) [v(t); 1],
 * As = (I - P) Ahat (I - P), gs = (I - P) g: on the state space, where v
 * lives, As = Ahat and gs = g (Theorem 1 with P' = 0: P Ahat (I - P) = 0,
 * P g = 0), while the part of Ahat off it -- arbitrary, and often far the
 * largest -- sets neither the substeps nor the rounding.
 * No step-size control, no tolerance: the state is carried from output to
 * output in substeps d with ||As||_1 d <= 16, each the matrix exponential
 * (GSL's scaling and squaring, lib/ivp/ivp_expm.c) followed
 * by the projection I - P.  The exact flow keeps v in the state space, so
 * the projection changes nothing but rounding.  What is left is rounding:
 * the exponentials', and the one decomposition's, which -- unlike the
 * integrator's many decompositions at different t, whose rounding averages
 * out -- acts as one perturbation of Ahat and g over the whole span (its
 * error amplification times eps, carried by the dynamics).  lth_ivp_solve
 * therefore estimates the error by the integrator's second solve, and
 * integrates instead where that estimate exceeds the tolerance.  Where the
 * substeps would cost more than
 * LTH_IVP_CONST_MAX_WORK multiply-adds (a stiff system over a long span),
 * LTH_ERANGE leaves the solve to the integrator. */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/errors.h"
#include "core/small_blas.h"
#include "ivp_impl.h"
#include "lth/decomp.h"
#include "lth/enclose.h"

/* Above this many multiply-adds of substeps the integrator takes over
 * (about 0.1 s). */
#define LTH_IVP_CONST_MAX_WORK 1e8

int lth_ivp_const_applies(const lth_system *sys, double t0, double t1, const lth_ivp_opts *o) {
  if (o->propagate >= 0 || o->coefficients != LTH_COEF_AUTO || o->stabilize >= 0 ||
      o->hermite == 1 || !(t1 > t0) || lth_system_manifold_dim(sys) == 0) {
    return 0;
  }
  lth_enclose *enc = lth_enclose_alloc(sys, 1, NULL);
  int c = enc && lth_enclose_constant(enc, t0, t1);
  lth_enclose_free(enc);
  return c;
}

/* Substeps of output interval d: the fewest with ||As||_1 d / k <= SUBSTEP_NORM.
 * Each substep adds its rounding, so fewer are better while the exponential
 * stays accurate (GSL squares where the norm is larger); the choice is
 * measured in docs/performance.md ("constant data need no integrator"). */
#define SUBSTEP_NORM 16.0
static double substeps(double d, double na) {
  return d > 0 ? fmax(1.0, ceil(d * na / SUBSTEP_NORM)) : 0.0;
}

/* The substeps the exact propagation would take (for its cost check). */
static double total_substeps(double na, double t0, const double *times, size_t n) {
  double t = t0, k = 0.0;
  for (size_t i = 0; i < n; i++) {
    k += substeps(times[i] - t, na);
    t = times[i];
  }
  return k;
}

typedef struct {
  int m;
  const lth_point *pt;
  double *As, *gs;   /* (I - P) Ahat (I - P) and (I - P) g */
  double *W;         /* m x m scratch */
  double *X, *E;     /* (m + 1)^2: d [As gs; 0 0] and its exponential */
  double *F;         /* m x (m + 1): (I - P) [exp(d Ahat)  phi_1 g] */
  double *w;         /* m */
  double d;          /* the substep F was formed for (NAN: none) */
} propagator;

/* As = (I - P) Ahat (I - P), gs = (I - P) g (W: m x m doubles of scratch). */
static void restrict_to_state(const lth_point *pt, double *As, double *gs, double *W) {
  int m = pt->m;
  const double *A = pt->Ahat.c, *P = pt->P.c;
  int la = pt->Ahat.ld, lp = pt->P.ld;
  /* W = Ahat (I - P), then As = (I - P) W */
  for (int j = 0; j < m; j++) {
    memcpy(W + (size_t)j * m, A + (size_t)j * la, (size_t)m * sizeof(double));
  }
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, -1.0, A, la, P, lp, 1.0, W, m);
  memcpy(As, W, (size_t)m * m * sizeof(double));
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, -1.0, P, lp, W, m, 1.0, As, m);
  memcpy(gs, pt->g.c, (size_t)m * sizeof(double));
  cblas_dgemv(CblasColMajor, CblasNoTrans, m, m, -1.0, P, lp, pt->g.c, 1, 1.0, gs, 1);
}

/* F for the substep d. */
static lth_status form(propagator *pr, double d, lth_error *err) {
  int m = pr->m, n = m + 1;
  const lth_point *pt = pr->pt;
  memset(pr->X, 0, (size_t)n * n * sizeof(double));
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) pr->X[i + (size_t)j * n] = d * pr->As[i + (size_t)j * m];
  }
  for (int i = 0; i < m; i++) pr->X[i + (size_t)m * n] = d * pr->gs[i];
  const char *why = "";
  if (lth_ivp_expm(pr->X, n, n, pr->E, n, &why) != 0) {
    return lth_error_set(err, LTH_EINTEG, "the matrix exponential of the reduced ODE failed: %s",
                         why);
  }
  /* F = (I - P) E(1:m, :) */
  for (int j = 0; j <= m; j++) {
    memcpy(pr->F + (size_t)j * m, pr->E + (size_t)j * n, (size_t)m * sizeof(double));
  }
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, m, -1.0, pt->P.c, pt->P.ld, pr->E, n,
              1.0, pr->F, m);
  pr->d = d;
  return LTH_OK;
}

/* v <- F [v; 1], k times. */
static void advance(propagator *pr, double *v, double k) {
  int m = pr->m;
  const double *F = pr->F;
  for (double q = 0; q < k; q++) {
    memcpy(pr->w, F + (size_t)m * m, (size_t)m * sizeof(double));
    lth_small_gemm(CblasNoTrans, CblasNoTrans, m, 1, m, 1.0, F, m, v, m, 1.0, pr->w, m);
    memcpy(v, pr->w, (size_t)m * sizeof(double));
  }
}

/* z = (Nhat + Bhat) v + q, the drift ||P v|| and the output gain into res. */
static void output(const lth_point *pt, const double *v, double *z, lth_ivp_result *res) {
  int m = pt->m, s = pt->s;
  double d2 = 0.0, v2 = 0.0, gain = 0.0;
  for (int i = 0; i < m; i++) {
    double p = 0.0;
    for (int j = 0; j < m; j++) p += LTH_JET_AT(&pt->P, 0, i, j) * v[j];
    d2 += p * p;
    v2 += v[i] * v[i];
  }
  for (int i = 0; i < s; i++) {
    double zi = pt->q.c[i] + (i < m ? v[i] : 0.0), row = 0.0;
    for (int j = 0; j < m; j++) {
      double b = LTH_JET_AT(&pt->Bhat, 0, i, j);
      zi += b * v[j];
      row += fabs(b + (i == j ? 1.0 : 0.0));
    }
    z[i] = zi;
    gain = fmax(gain, row);
  }
  res->drift = fmax(res->drift, sqrt(d2));
  res->drift_rel = fmax(res->drift_rel, sqrt(d2) / fmax(1.0, sqrt(v2)));
  res->output_gain = fmax(res->output_gain, gain);
}

#define SAME_SUBSTEP 8.0

/* v0 = (I - P) z0(1:m) (Theorem 1), then v from output to output. */
static lth_status run(propagator *pr, double na, double t0, const double *times, size_t n,
                      const lth_ivp_opts *o, lth_ivp_result *res, double *v, lth_error *err) {
  const lth_point *pt = pr->pt;
  int m = pr->m;
  for (int i = 0; i < m; i++) {
    double s = res->z0_used[i];
    for (int j = 0; j < m; j++) s -= LTH_JET_AT(&pt->P, 0, i, j) * res->z0_used[j];
    v[i] = s;
  }
  /* t: the time v has reached.  Output times spaced alike differ in their
   * last bits; a substep within SAME_SUBSTEP ulps of t of the last one
   * reuses its exponential (an error of that many ulps of t in the time,
   * below the times' own rounding), and t keeps count, so that such errors
   * do not add up */
  double t = t0;
  size_t steps = 0;
  lth_status st = LTH_OK;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    double dt = times[k] - t, ks = substeps(dt, na), d = ks > 0 ? dt / ks : 0.0;
    double same = SAME_SUBSTEP * DBL_EPSILON * fmax(fabs(t0), fabs(times[k])) / fmax(ks, 1.0);
    if (ks > 0 && !(fabs(d - pr->d) <= same)) st = form(pr, d, err);
    if (st != LTH_OK) break;
    advance(pr, v, ks);
    steps += (size_t)ks;
    t = ks > 0 ? t + ks * pr->d : t;
    res->times[k] = times[k];
    output(pt, v, res->z + (size_t)k * res->s, res);
    memcpy(res->v + (size_t)k * m, v, (size_t)m * sizeof(double));
    if (o->progress) o->progress(o->progress_ctx, times[k], times[n - 1]);
  }
  res->steps = steps;
  return st;
}

lth_status lth_ivp_const_solve(const lth_system *sys, double t0, const double *times, size_t n,
                               const lth_ivp_opts *o, lth_ivp_result *res, lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_decomp_ws *ws = lth_decomp_ws_alloc_scaled(sys, 0, o->chain_scale, err);
  lth_point *pt = ws ? lth_point_alloc(sys, 0, err) : NULL;
  int m = lth_system_state_dim(sys);
  propagator pr = {.m = m, .pt = pt, .d = NAN};
  pr.X = malloc(((size_t)m + 1) * (m + 1) * sizeof(double));
  pr.E = malloc(((size_t)m + 1) * (m + 1) * sizeof(double));
  /* F, w, As, gs, v, W */
  double *mem = malloc(((size_t)m * (3 * m + 4) + 1) * sizeof(double));
  lth_status st = LTH_OK;
  if (!pt) {
    st = lth_error_status(err);
  } else if (!pr.X || !pr.E || !mem) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK && o->cond_max > 0) {
    lth_decomp_ws_set_cond_max(ws, o->cond_max);
  }
  if (st == LTH_OK) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    st = lth_decomp_at(ws, t0, pt, err); /* the same at every t of the span */
    clock_gettime(CLOCK_MONOTONIC, &b);
    res->seconds_decomp = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  }
  double na = 0.0, *v = NULL;
  if (st == LTH_OK) {
    pr.F = mem;
    pr.w = pr.F + (size_t)m * (m + 1);
    pr.As = pr.w + m;
    pr.gs = pr.As + (size_t)m * m;
    v = pr.gs + m;
    pr.W = v + m;
    restrict_to_state(pt, pr.As, pr.gs, pr.W);
    na = LAPACKE_dlange_work(LAPACK_COL_MAJOR, '1', m, m, pr.As, m, NULL);
    double work = total_substeps(na, t0, times, n) * (double)m * (m + 1);
    if (!(work <= LTH_IVP_CONST_MAX_WORK)) {
      st = lth_error_set(err, LTH_ERANGE,
                         "exact propagation would take %.3g multiply-adds (||As||_1 = %.3g)", work,
                         na);
    }
  }
  if (st == LTH_OK) {
    st = run(&pr, na, t0, times, n, o, res, v, err);
  }
  if (st == LTH_OK) {
    res->rhs_evals = 0;
    res->decomps = 1;
    res->gamma = 0.0;
    res->coef_mode = LTH_COEF_DIRECT;
    res->coef_order = -1;
    res->table_end = NAN;
    res->propagated = 1;
  }
  free(pr.X);
  free(pr.E);
  free(mem);
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  return st;
}
