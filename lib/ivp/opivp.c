/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth_opivp_solve (include/lth/opivp.h): the reduced ODE v' = Ahat v + g of a
 * large sparse system in operator form (Clark's Theorem 1), v0 from z0, the
 * outputs z = G v + q (Corollary 3) and the drift ||P v||; the integrator is
 * CVODE (lib/ivp/opivp_cvode.c).  Everything here is O(nnz + s n_r) per t. */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/errors.h"
#include "decomp/op_piproof.h"
#include "lth/defaults.h"
#include "opivp_impl.h"

/* z0 is consistent when ||z0 - (G v0 + q)|| is within this much of
 * max(1, ||z0||, ||q||), plus the rounding of G v0 + q (a few eps times the
 * point's error amplification); lth_ic_tolerance uses the same 1e-10. */
#define OPIVP_CONSIST_TOL 1e-10
#define OPIVP_ROUNDING    64.0

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An m-vector (or s-vector) as a jet of order 0. */
static lth_jet vec(const double *x, int n) { return lth_jet_wrap((double *)x, n, 1, n, n, 0); }

void lth_opivp_opts_init(lth_opivp_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->method = LTH_OPIVP_BDF;
  opts->rtol = LTH_DEFAULT_RTOL;
  opts->atol = LTH_DEFAULT_ATOL;
}

int lth_opivp_available(void) {
#ifdef LTH_HAVE_CVODE
  return 1;
#else
  return 0;
#endif
}

void lth_opivp_result_free(lth_opivp_result *res) {
  if (!res) return;
  free(res->times);
  free(res->z);
  free(res->v);
  free(res);
}

/* ---- the point at t, cached ---- */

/* One decomposition at t into c->pt, timed and counted. */
lth_status opivp_decompose(opivp_ctx *c, double t, lth_error *e) {
  double t1 = now();
  lth_status st = lth_opdecomp_at(c->ws, t, c->pt, e);
  c->seconds_decomp += now() - t1;
  c->decomps++;
  c->have_pt = 0;
  return st;
}

/* det Pi has sign sa at a and the other sign at b: Pi is singular in between
 * (det Pi is continuous).  Bisect on the sign to name where, to rounding in t;
 * a decomposition that refuses on the way (Pi nearly singular) names its t
 * itself. */
lth_status opivp_sign_change(opivp_ctx *c, double a, int sa, double b, lth_error *e) {
  double a0 = a, b0 = b;
  for (int it = 0; it < 200 && fabs(b - a) > 4 * DBL_EPSILON * fmax(fabs(a), fabs(b)); it++) {
    double mid = 0.5 * (a + b);
    lth_status st = opivp_decompose(c, mid, e);
    if (st != LTH_OK) return st;
    if (lth_oppoint_info(c->pt)->pi_sign == sa) {
      a = mid;
    } else {
      b = mid;
    }
  }
  return lth_error_set_t(e, LTH_ESING, 0.5 * (a + b),
                         "Pi is singular at t = %.17g: det Pi changes sign there (between the "
                         "integrator's times %.17g and %.17g; Clark's Hessenberg condition fails)",
                         0.5 * (a + b), fmin(a0, b0), fmax(a0, b0));
}

lth_status opivp_at(opivp_ctx *c, double t) {
  if (c->have_pt && c->t_pt == t) return LTH_OK;
  lth_error e;
  lth_error_clear(&e);
  lth_status st = opivp_decompose(c, t, &e);
  if (st == LTH_OK) {
    int sign = lth_oppoint_info(c->pt)->pi_sign;
    if (c->have_sign && sign != c->sign) {
      st = c->sign_t < t ? opivp_sign_change(c, c->sign_t, c->sign, t, &e)
                         : opivp_sign_change(c, t, sign, c->sign_t, &e);
    } else {
      c->have_sign = 1;
      c->sign = sign;
      c->sign_t = t;
      c->t_pt = t;
      c->have_pt = 1;
    }
  }
  if (st != LTH_OK && !c->failed) {
    c->fail = e;
    c->failed = 1;
  }
  return st;
}

static lth_status apply_Ahat(opivp_ctx *c, const double *x, double *y) {
  lth_jet X = vec(x, c->m), Y = vec(y, c->m);
  lth_error e;
  lth_status st = lth_oppoint_apply_Ahat(c->pt, &X, &Y, &e);
  if (st != LTH_OK && !c->failed) c->fail = e, c->failed = 1;
  return st;
}

lth_status opivp_jv(opivp_ctx *c, double t, const double *x, double *y) {
  lth_status st = opivp_at(c, t);
  return st == LTH_OK ? apply_Ahat(c, x, y) : st;
}

lth_status opivp_rhs(opivp_ctx *c, double t, const double *x, double *y) {
  lth_status st = opivp_jv(c, t, x, y);
  lth_jet G = vec(c->gbuf, c->m);
  if (st == LTH_OK) st = lth_oppoint_g(c->pt, &G, NULL);
  if (st != LTH_OK) return st;
  for (int i = 0; i < c->m; i++) y[i] += c->gbuf[i];
  return LTH_OK;
}

lth_status opivp_proj(opivp_ctx *c, double t, int minus, const double *x, double *y) {
  lth_status st = opivp_at(c, t);
  if (st != LTH_OK) return st;
  lth_jet X = vec(x, c->m), Y = vec(y, c->m);
  lth_error e;
  st = lth_oppoint_apply_P(c->pt, minus, &X, &Y, &e);
  if (st != LTH_OK && !c->failed) c->fail = e, c->failed = 1;
  return st;
}

#ifdef LTH_HAVE_CVODE
/* ---- outputs ---- */

static double nrm2(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

/* z = G v + q at the cached point (G includes I - P: Corollary 3). */
static lth_status assemble_z(opivp_ctx *c, const double *v, double *z, lth_error *err) {
  lth_jet V = vec(v, c->m), Z = vec(z, c->s), Q = vec(c->zbuf, c->s);
  lth_status st = lth_oppoint_apply_G(c->pt, &V, &Z, err);
  if (st == LTH_OK) st = lth_oppoint_q(c->pt, &Q, err);
  if (st != LTH_OK) return st;
  for (int i = 0; i < c->s; i++) z[i] += c->zbuf[i];
  return LTH_OK;
}

/* Output k: the drift ||P v|| before anything projects v, then z. */
static lth_status output(opivp_ctx *c, size_t k, double *v, lth_opivp_result *res, lth_error *err) {
  double t = res->times[k];
  lth_status st = opivp_proj(c, t, 0, v, c->pbuf);
  if (st != LTH_OK) {
    *err = c->fail;
    return st;
  }
  double d = nrm2(c->pbuf, c->m);
  res->drift = fmax(res->drift, d);
  res->drift_rel = fmax(res->drift_rel, d / fmax(1.0, nrm2(v, c->m)));
  memcpy(res->v + k * (size_t)c->m, v, (size_t)c->m * sizeof(double));
  return assemble_z(c, v, res->z + k * (size_t)c->s, err);
}

/* ---- arguments, set-up, the initial state ---- */

#endif

static lth_status check_args(const lth_opsys *sys, double t0, const double *z0, const double *times,
                             size_t n, const lth_opivp_opts *o, lth_opivp_result **out,
                             lth_error *err) {
  if (!out) return lth_error_set(err, LTH_EINVAL, "lth_opivp_solve: out is NULL");
  *out = NULL;
  if (!sys || !z0 || !times || n == 0) {
    return lth_error_set(err, LTH_EINVAL,
                         "lth_opivp_solve: sys, z0 and times must be given, n >= 1 (n = %zu)", n);
  }
  if (!isfinite(t0)) return lth_error_set(err, LTH_EINVAL, "lth_opivp_solve: t0 is not finite");
  for (size_t k = 0; k < n; k++) {
    if (!isfinite(times[k]) || times[k] < (k ? times[k - 1] : t0)) {
      return lth_error_set(err, LTH_EINVAL,
                           "lth_opivp_solve: times[%zu] = %g must be finite, >= t0 = %g and >= "
                           "the time before it",
                           k, times[k], t0);
    }
  }
  for (int i = 0; i < lth_opsys_size(sys); i++) {
    if (!isfinite(z0[i])) {
      return lth_error_set(err, LTH_EINVAL, "lth_opivp_solve: z0[%d] is not finite", i);
    }
  }
  if (o->method != LTH_OPIVP_BDF && o->method != LTH_OPIVP_ADAMS) {
    return lth_error_set(err, LTH_EINVAL, "lth_opivp_solve: unknown method %d", (int)o->method);
  }
  if (o->precondition != LTH_OPIVP_PREC_AUTO && o->precondition != LTH_OPIVP_PREC_OFF &&
      o->precondition != LTH_OPIVP_PREC_ON) {
    return lth_error_set(err, LTH_EINVAL, "lth_opivp_solve: unknown precondition %d",
                         (int)o->precondition);
  }
  if (!(o->rtol >= 0) || !(o->atol >= 0) || o->krylov_dim < 0 || !(o->cond_max >= 0)) {
    return lth_error_set(err, LTH_EINVAL,
                         "lth_opivp_solve: rtol, atol, krylov_dim and cond_max must be >= 0");
  }
  return LTH_OK;
}

#ifdef LTH_HAVE_CVODE
static void ctx_free(opivp_ctx *c) {
  opivp_stretch_free(&c->stretch);
  op_piproof_free(c->proof);
  lth_oppoint_free(c->pt);
  lth_opdecomp_ws_free(c->ws);
  free(c->gbuf);
  free(c->pbuf);
  free(c->zbuf);
}

static lth_status ctx_init(opivp_ctx *c, const lth_opsys *sys, const lth_opivp_opts *o,
                           lth_error *err) {
  memset(c, 0, sizeof *c);
  c->sys = sys;
  c->s = lth_opsys_size(sys);
  c->m = lth_opsys_state_dim(sys);
  c->o = *o;
  if (!(c->o.rtol > 0)) c->o.rtol = LTH_DEFAULT_RTOL;
  if (!(c->o.atol > 0)) c->o.atol = LTH_DEFAULT_ATOL;
  if (c->o.max_steps == 0) c->o.max_steps = LTH_DEFAULT_OPIVP_MAX_STEPS;
  c->ws = lth_opdecomp_ws_alloc(sys, 0, err);
  c->pt = c->ws ? lth_oppoint_alloc(sys, 0, 1, err) : NULL;
  if (!c->pt) return lth_error_status(err);
  if (o->cond_max > 0) lth_opdecomp_ws_set_cond_max(c->ws, o->cond_max);
  c->cond_max = o->cond_max > 0 ? o->cond_max : LTH_DEFAULT_COND_MAX;
  c->proof = o->pi_proof >= 0 ? op_piproof_alloc(sys, &c->proof_off) : NULL;
  if (o->pi_proof < 0) c->proof_off = "the proof is off (opts.pi_proof < 0)";
  c->gbuf = malloc((size_t)c->m * sizeof(double));
  c->pbuf = malloc((size_t)c->m * sizeof(double));
  c->zbuf = malloc((size_t)c->s * sizeof(double));
  if (!c->gbuf || !c->pbuf || !c->zbuf) {
    return lth_error_set(err, LTH_ENOMEM, "lth_opivp_solve: out of memory (s = %d)", c->s);
  }
  return LTH_OK;
}

static lth_opivp_result *result_alloc(int s, int m, const double *times, size_t n) {
  lth_opivp_result *res = calloc(1, sizeof *res);
  if (!res) return NULL;
  res->n = n;
  res->s = s;
  res->m = m;
  res->times = malloc(n * sizeof(double));
  res->z = malloc(n * (size_t)s * sizeof(double));
  res->v = malloc(n * (size_t)m * sizeof(double));
  if (!res->times || !res->z || !res->v) {
    lth_opivp_result_free(res);
    return NULL;
  }
  memcpy(res->times, times, n * sizeof(double));
  return res;
}

/* v0 = (I - P(t0)) z0[0..m) and the consistency of z0: z0 = G v0 + q. */
static lth_status initial_state(opivp_ctx *c, double t0, const double *z0, double *v0,
                                lth_opivp_result *res, lth_error *err) {
  lth_status st = opivp_proj(c, t0, 1, z0, v0);
  if (st != LTH_OK) {
    *err = c->fail;
    return st;
  }
  double *zc = malloc((size_t)c->s * sizeof(double));
  if (!zc) return lth_error_set(err, LTH_ENOMEM, "lth_opivp_solve: out of memory");
  st = assemble_z(c, v0, zc, err);
  if (st == LTH_OK) {
    double r = 0.0;
    for (int i = 0; i < c->s; i++) r += (z0[i] - zc[i]) * (z0[i] - zc[i]);
    res->z0_residual = sqrt(r);
    double scale = fmax(1.0, fmax(nrm2(z0, c->s), nrm2(c->zbuf, c->s)));
    double amp = fmax(1.0, lth_oppoint_info(c->pt)->amplification);
    double tol = (OPIVP_CONSIST_TOL + OPIVP_ROUNDING * DBL_EPSILON * amp) * scale;
    if (res->z0_residual > tol) {
      if (!c->o.project) {
        st = lth_error_set_t(err, LTH_ECONSIST, t0,
                             "z0 is not consistent: ||z0 - (G v0 + q)|| = %.3e above %.3e, "
                             "v0 = (I - P(t0)) z0 (Clark Corollary 3); give a consistent z0 or "
                             "set opts.project",
                             res->z0_residual, tol);
      } else {
        res->projected = 1;
      }
    }
  }
  free(zc);
  return st;
}

#endif

lth_status lth_opivp_solve(const lth_opsys *sys, double t0, const double *z0, const double *times,
                           size_t n, const lth_opivp_opts *opts, lth_opivp_result **out,
                           lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_opivp_opts o;
  lth_opivp_opts_init(&o);
  if (opts) o = *opts;
  lth_status st = check_args(sys, t0, z0, times, n, &o, out, err);
  if (st != LTH_OK) return st;
#ifndef LTH_HAVE_CVODE
  return lth_error_set(err, LTH_EINVAL,
                       "lth_opivp_solve: liblth was built without SUNDIALS CVODE (CMake option "
                       "LTH_CVODE; Debian's libsundials-dev), which this solver integrates with");
#else
  double t_start = now();
  opivp_ctx c;
  st = ctx_init(&c, sys, &o, err);
  lth_opivp_result *res = st == LTH_OK ? result_alloc(c.s, c.m, times, n) : NULL;
  double *v0 = st == LTH_OK ? malloc((size_t)c.m * sizeof(double)) : NULL;
  if (st == LTH_OK && (!res || !v0)) {
    st = lth_error_set(err, LTH_ENOMEM, "lth_opivp_solve: out of memory (s = %d, n = %zu)", c.s, n);
  }
  if (st == LTH_OK) st = opivp_stretch_init(&c.stretch, sys, t0, times[n - 1], c.o.rtol, err);
  if (st == LTH_OK) opivp_scale(&c, t0, times[n - 1]);
  if (st == LTH_OK) st = initial_state(&c, t0, z0, v0, res, err);
  size_t k0 = 0; /* outputs at t0 are the initial state's */
  for (; st == LTH_OK && k0 < n && times[k0] == t0; k0++) st = output(&c, k0, v0, res, err);
  if (st == LTH_OK && k0 < n) {
    res->times += k0; /* the integrator sees the outputs after t0 */
    res->z += k0 * (size_t)c.s;
    res->v += k0 * (size_t)c.m;
    res->n -= k0;
    st = opivp_integrate(&c, t0, v0, times + k0, n - k0, output, res, err);
    res->times -= k0;
    res->z -= k0 * (size_t)c.s;
    res->v -= k0 * (size_t)c.m;
    res->n = n;
  }
  if (st == LTH_OK) {
    double len = times[n - 1] - t0;
    res->pi_proven = !c.proof ? 0.0 : len > 0 ? fmin(1.0, c.proven_len / len) : 1.0;
    res->pi_inv_bound = c.pinv_bound;
    res->pi_proofs = c.proofs;
    res->pi_proof_off = c.proof_off;
    res->decomps = c.decomps;
    res->seconds_decomp = c.seconds_decomp;
    res->seconds_total = now() - t_start;
    *out = res;
  } else {
    lth_opivp_result_free(res);
  }
  free(v0);
  ctx_free(&c);
  return st;
#endif
}
