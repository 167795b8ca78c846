/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Initial-value problems through the reduced ODE (include/lth/ivp.h): the
 * integrator (lth_ivp) -- the right-hand side with its drift damping, the
 * guard, where steps must stop, the statistics -- stepped by an ODE
 * integrator behind the seam of lib/ivp/integrator_impl.h; lth_ivp_solve is
 * lib/ivp/ivp_solve.c. */
#define _POSIX_C_SOURCE 200809L
#include "lth/defaults.h"
#include "lth/ivp.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/small_blas.h"
#include "lth/enclose.h"
#include "ivp_coef.h"
#include "ivp_impl.h"
#include "integrator_impl.h"
#include "stretch.h"

void lth_ivp_opts_init(lth_ivp_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->method = LTH_IVP_AUTO;
  opts->rtol = LTH_DEFAULT_RTOL;
  opts->atol = LTH_DEFAULT_ATOL;
  opts->hermite = -1;
  opts->stabilize = -1.0;
  opts->error_estimate = 1;
  opts->propagate = -1;
}

void lth_ivp_tolerances(const lth_ivp_opts *opts, double *rtol, double *atol) {
  *rtol = opts->rtol > 0 ? opts->rtol : LTH_DEFAULT_RTOL;
  *atol = opts->atol > 0 ? opts->atol : LTH_DEFAULT_ATOL;
}

int lth_ivp_method_is_stiff(lth_ivp_method method) {
  return method == LTH_IVP_MSBDF || method == LTH_IVP_BSIMP;
}

static const char *const method_names[] = {"rk8pd", "rkf45", "msadams", "msbdf",
                                           "bsimp", "cheb",  "auto"};
#define NMETHODS ((int)(sizeof method_names / sizeof method_names[0]))

int lth_ivp_method_from_name(const char *name) {
  for (int k = 0; k < NMETHODS; k++) {
    if (strcmp(name, method_names[k]) == 0) {
      return k;
    }
  }
  return -1;
}

const char *lth_ivp_method_name(lth_ivp_method method) {
  return (unsigned)method < (unsigned)NMETHODS ? method_names[method] : "unknown";
}

lth_ivp_method lth_ivp_method_resolve(lth_ivp_method method, const lth_system *sys) {
  if (method != LTH_IVP_AUTO) return method;
  int m = sys ? lth_system_state_dim(sys) : 0;
  return m >= 1 && m <= LTH_IVP_AUTO_CHEB_MAX ? LTH_IVP_CHEB : LTH_IVP_RK8PD;
}

/* The integrator that implements a method (lib/ivp/integrator_impl.h): GSL's
 * odeiv2, or Chebyshev collocation for cheb. */
static const lth_integrator_type *integrator_for(lth_ivp_method method) {
  return method == LTH_IVP_CHEB ? &lth_integrator_cheb : &lth_integrator_gsl;
}

static int is_stiff(lth_ivp_method method) { return lth_ivp_method_is_stiff(method); }

/* ---- the integrator ---- */

struct lth_ivp {
  const lth_system *sys;
  int m, ncols, affine;
  size_t dim;
  lth_ivp_opts opts;
  lth_coef *coef;
  const lth_integrator_type *itype; /* the seam (lib/ivp/integrator_impl.h) */
  lth_integrator *it;
  int started; /* lth_ivp_start succeeded */
  double t;
  double *y;
  double gamma;  /* drift damping rate (0: none) */
  double t_hi;   /* end of the span, for opts.progress */
  lth_status st; /* error raised inside a callback of the integrator */
  lth_error err;
  lth_ivp_guard guard; /* no step over a singular Pi */
  size_t steps, rhs_evals;
  /* The data's enclosures (NULL or unknown for callbacks and samples): no
   * step crosses the end of [enc_lo, enc_hi], a stretch on which the data
   * are resolved by degree IVP_ENC_DEGREE to rtol, so a pulse or kink
   * cannot fall between a step's stages (see resolved_end). */
  lth_enclose *enc;
  double enc_lo, enc_hi, enc_w;
  double enc_grow;           /* the next stretch's first width, relative to enc_w */
  double cross_lo, cross_hi; /* a kink or jump located inside: crossed in one step */
  int tab_stretch;           /* [enc_lo, enc_hi] is the table's (lth_coef_table_end) */
  unsigned tab_gen;          /* ... planned at this lth_coef_generation */
  int replan;                /* the table's stretch went stale mid-advance: plan again */
  double hmin;               /* the integrator's minimum step (lth_ivp_start) */
  double hmin_frac;          /* smallest step, relative to the span */
  double hmax;               /* largest step (0: none) */
  lth_ivp_nodes *nodes;      /* the linear form's points, for the outputs (NULL: none) */
};

/* A stretch taken from the table's panels (resolved_end) holds while the
 * table serves it: after a fall-back to direct decompositions, or a table
 * rebuilt to a tighter tolerance, the integrator stops (1) and the stretch
 * is planned again from where its last step ended. */
static int stale_stretch(lth_ivp *iv) {
  if (iv->tab_stretch && lth_coef_generation(iv->coef) != iv->tab_gen) {
    iv->replan = 1;
    return 1;
  }
  return 0;
}

/* The right-hand side's coefficients at t (Ahat - gamma P at once where a
 * table serves them: *damped), judged by the guard: 0, or 1 to stop the
 * integrator (the reason in iv->st, iv->err; a stale stretch in iv->replan). */
static int rhs_point(lth_ivp *iv, double t, const lth_point **pt, int *damped) {
  iv->rhs_evals++;
  lth_error *e = iv->st == LTH_OK ? &iv->err : NULL;
  *damped = 0;
  /* the scan of Pi running beside refused: its verdict ends the solve */
  lth_status st = iv->guard.pending && lth_ivp_prescan_failed(iv->guard.pending)
                      ? iv->guard.pending->st
                      : lth_coef_eval_damped(iv->coef, t, iv->gamma, pt, damped, e);
  if (st == LTH_OK && stale_stretch(iv)) {
    return 1;
  }
  if (st == LTH_OK) {
    st = lth_ivp_guard_point(&iv->guard, *pt, e);
  }
  if (st != LTH_OK) {
    iv->st = iv->st == LTH_OK ? st : iv->st; /* keep the first error (points may be retried) */
    return 1;
  }
  return 0;
}

/* V' = Ahat V (+ g e_last^T): Clark (3.9) for every column.  Non-zero stops
 * the integrator (the reason in iv->st, iv->err). */
static int rhs(double t, const double *y, double *dydt, void *params) {
  lth_ivp *iv = params;
  const lth_point *pt;
  int damped;
  if (rhs_point(iv, t, &pt, &damped) != 0) {
    return 1;
  }
  int m = iv->m;
  /* (lth_small_gemm: thousands of calls per second, below BLAS's call cost) */
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, iv->ncols, m, 1.0, pt->Ahat.c, pt->Ahat.ld, y, m,
                 0.0, dydt, m);
  if (iv->gamma > 0 && !damped) {
    /* - gamma P V: zero on the state space, damps the drift (see lth_ivp_opts.stabilize);
     * a table serves Ahat - gamma P at once */
    lth_small_gemm(CblasNoTrans, CblasNoTrans, m, iv->ncols, m, -iv->gamma, pt->P.c, pt->P.ld, y, m,
                   1.0, dydt, m);
  }
  if (iv->affine) {
    cblas_daxpy(m, 1.0, pt->g.c, 1, dydt + (size_t)(iv->ncols - 1) * m, 1);
  }
  return 0;
}

/* The linear form of rhs, M = I (x) (Ahat - gamma P) and b = g in the last
 * column (affine), for Chebyshev collocation (lib/ivp/integrator_cheb.c). */
static int lin(double t, double *M, double *b, void *params) {
  lth_ivp *iv = params;
  const lth_point *pt;
  int damped;
  if (rhs_point(iv, t, &pt, &damped) != 0) {
    return 1;
  }
  if (iv->nodes && lth_coef_is_exact(iv->coef, pt)) {
    lth_ivp_nodes_keep(iv->nodes, pt);
  }
  int m = iv->m;
  size_t dim = iv->dim;
  double g = damped ? 0.0 : iv->gamma; /* (a table's Ahat is Ahat - gamma P already) */
  memset(M, 0, dim * dim * sizeof(double));
  memset(b, 0, dim * sizeof(double));
  for (int c = 0; c < iv->ncols; c++) {
    size_t o = (size_t)c * m;
    for (int j = 0; j < m; j++) {
      for (int i = 0; i < m; i++) {
        double p = g > 0 ? g * LTH_JET_AT(&pt->P, 0, i, j) : 0.0;
        M[o + i + (o + j) * dim] = LTH_JET_AT(&pt->Ahat, 0, i, j) - p;
      }
    }
  }
  if (iv->affine) {
    memcpy(b + (size_t)(iv->ncols - 1) * m, pt->g.c, (size_t)m * sizeof(double));
  }
  return 0;
}

/* Jacobian I (x) Ahat and df/dt = Ahat' V (+ g') for the stiff steppers. */
static int jac(double t, const double *y, double *dfdy, double *dfdt, void *params) {
  lth_ivp *iv = params;
  const lth_point *pt;
  lth_error *e = iv->st == LTH_OK ? &iv->err : NULL;
  lth_status st = lth_coef_eval(iv->coef, t, 1, &pt, e);
  if (st == LTH_OK && stale_stretch(iv)) {
    return 1;
  }
  if (st == LTH_OK) {
    st = lth_ivp_guard_point(&iv->guard, pt, e);
  }
  if (st != LTH_OK) {
    iv->st = iv->st == LTH_OK ? st : iv->st;
    return 1;
  }
  int m = iv->m;
  size_t dim = iv->dim;
  memset(dfdy, 0, dim * dim * sizeof(double));
  for (int c = 0; c < iv->ncols; c++) {
    size_t o = (size_t)c * m;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < m; j++) {
        /* row-major (lth_ode_jac) */
        dfdy[(o + i) * dim + o + j] =
            LTH_JET_AT(&pt->Ahat, 0, i, j) - iv->gamma * LTH_JET_AT(&pt->P, 0, i, j);
      }
    }
  }
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, iv->ncols, m, 1.0,
              LTH_JET_COEF(&pt->Ahat, 1), pt->Ahat.ld, y, m, 0.0, dfdt, m);
  if (iv->gamma > 0) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, iv->ncols, m, -iv->gamma,
                LTH_JET_COEF(&pt->P, 1), pt->P.ld, y, m, 1.0, dfdt, m);
  }
  if (iv->affine) {
    cblas_daxpy(m, 1.0, LTH_JET_COEF(&pt->g, 1), 1, dfdt + (size_t)(iv->ncols - 1) * m, 1);
  }
  return 0;
}

/* A step collapsing below this fraction of the span means singular
 * coefficients (e.g. Pi -> singular): fail fast instead of creeping towards it. */
#define HMIN_FRAC 1e-10

/* Stiff steppers need a dense Jacobian of size dim^2: refuse absurd sizes. */
#define LTH_IVP_STIFF_MAX_DIM 4000

lth_ivp *lth_ivp_alloc(const lth_system *sys, int ncols, int affine, const lth_ivp_opts *opts,
                       double t_lo, double t_hi, lth_error *err) {
  lth_ivp *iv = calloc(1, sizeof *iv);
  if (!iv) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an integrator");
    return NULL;
  }
  if (opts) {
    iv->opts = *opts;
  } else {
    lth_ivp_opts_init(&iv->opts);
  }
  if (iv->opts.method == LTH_IVP_AUTO) {
    /* (lth_ivp_solve resolved it for its one column: here the fundamental
     * solutions of the BVP and LQR solvers, as before cheb) */
    iv->opts.method = LTH_IVP_RK8PD;
  }
  iv->sys = sys;
  iv->m = lth_system_state_dim(sys);
  iv->ncols = ncols;
  iv->affine = affine;
  iv->dim = (size_t)iv->m * (size_t)ncols;
  int stiff = is_stiff(iv->opts.method);
  if (stiff && iv->dim > LTH_IVP_STIFF_MAX_DIM) {
    lth_error_set(err, LTH_EINVAL,
                  "stiff method %s needs a dense %zu x %zu Jacobian: too large; use rk8pd",
                  lth_ivp_method_name(iv->opts.method), iv->dim, iv->dim);
    lth_ivp_free(iv);
    return NULL;
  }
  iv->t_hi = t_hi;
  iv->hmin_frac = HMIN_FRAC;
  if (!stiff && iv->opts.method != LTH_IVP_CHEB &&
      iv->opts.stabilize * (t_hi - t_lo) > LTH_IVP_EXPLICIT_GAMMA_SPAN) {
    /* the drift directions decay at rate gamma: an explicit method needs
     * h < ~3 / gamma and would run for hours instead of failing */
    lth_error_set(err, LTH_EINVAL,
                  "opts.stabilize = %g makes the reduced ODE stiff (the drift decays at rate "
                  "gamma): the explicit %s needs steps h < ~3/gamma, about %.1e steps on "
                  "[%g, %g]; use a stiff method (msbdf or bsimp) or gamma <= %g",
                  iv->opts.stabilize, lth_ivp_method_name(iv->opts.method),
                  iv->opts.stabilize * (t_hi - t_lo) / 3.0, t_lo, t_hi,
                  LTH_IVP_EXPLICIT_GAMMA_SPAN / (t_hi - t_lo));
    lth_ivp_free(iv);
    return NULL;
  }
  lth_ivp_guard_init(&iv->guard, t_lo, 0.0, iv->opts.cond_max);
  iv->guard.sys = sys;
  iv->coef = lth_coef_alloc(sys, &iv->opts, stiff ? 1 : 0, t_lo, t_hi, err);
  iv->y = malloc((iv->dim ? iv->dim : 1) * sizeof(double));
  if (!iv->coef || !iv->y) {
    if (iv->coef) {
      lth_error_set(err, LTH_ENOMEM, "out of memory allocating an integrator");
    }
    lth_ivp_free(iv);
    return NULL;
  }
  iv->itype = integrator_for(iv->opts.method);
  lth_ode ode = {iv->dim, rhs, stiff ? jac : NULL, iv, lin};
  iv->it = iv->itype->alloc(&ode, err);
  if (!iv->it) {
    lth_ivp_free(iv);
    return NULL;
  }
  iv->enc = lth_enclose_alloc(sys, IVP_ENC_DEGREE, err);
  if (!iv->enc) {
    lth_ivp_free(iv);
    return NULL;
  }
  if (iv->itype->last_step && ncols == 1) {
    /* (NULL where too large to keep: the outputs decompose) */
    iv->nodes = lth_ivp_nodes_alloc(lth_system_size(sys), iv->m);
  }
  iv->enc_lo = iv->enc_hi = t_lo;
  iv->enc_grow = 2.0;
  iv->cross_lo = iv->cross_hi = t_lo;

  return iv;
}

void lth_ivp_free(lth_ivp *iv) {
  if (!iv) {
    return;
  }
  if (iv->it) {
    iv->itype->free(iv->it);
  }
  lth_coef_free(iv->coef);
  lth_enclose_free(iv->enc);
  lth_ivp_nodes_free(iv->nodes);
  free(iv->y);
  free(iv);
}

lth_status lth_ivp_reset(lth_ivp *iv, const double *V, lth_error *err) {
  (void)err;
  memcpy(iv->y, V, iv->dim * sizeof(double));
  iv->itype->reset(iv->it);
  return LTH_OK;
}

/* Drift damping: Ahat is unique only on the state space, so integrating
 * (Ahat - gamma P) v + g changes no solution with P v = 0, while the drift
 * y = P v now obeys y' = (P' + P Ahat - gamma) y (Theorem 1: P g = 0) and
 * decays.  Auto: gamma = 0.25 ||Ahat(t0)||_1, at least 1/span, which damps
 * without making the problem stiff.  Measured on the rotating rod over
 * t in [0, 1000] (data/rotating_rod.lth): drift 3.4e-10 -> 4.9e-13 and error
 * at t = 1000 9.9e-10 -> 5.5e-11 at rtol 1e-12; at the default rtol 1e-10 the
 * drift drops 100x (1.3e-9 -> 2e-12) while the error stays ~5e-9, set by the
 * phase error of the integration. */
/* Auto takes the drift's own needs instead of 0.25 ||Ahat||_1 where that
 * norm overstates them more than this factor (see choose_gamma). */
#define GAMMA_OVERSTATED 4.0

static lth_status choose_gamma(lth_ivp *iv, double t, lth_error *err) {
  iv->gamma = iv->opts.stabilize > 0 ? iv->opts.stabilize : 0.0;
  if (iv->opts.stabilize >= 0) {
    return LTH_OK;
  }
  const lth_point *pt;
  lth_status st = lth_coef_eval(iv->coef, t, 0, &pt, err);
  if (st != LTH_OK) {
    return st;
  }
  double na = 0.0;
  for (int j = 0; j < iv->m; j++) {
    double c = 0.0;
    for (int i = 0; i < iv->m; i++) {
      c += fabs(LTH_JET_AT(&pt->Ahat, 0, i, j));
    }
    na = fmax(na, c);
  }
  double span = lth_coef_span(iv->coef), floor = span > 0 ? 1.0 / span : 0.0;
  iv->gamma = fmax(0.25 * na, floor);
  double mu, rho;
  if (iv->gamma > GAMMA_OVERSTATED * floor && lth_coef_drift_scales(iv->coef, t, &mu, &rho)) {
    double need = fmax(2.0 * fmax(mu, 0.0) + 0.25 * rho, floor);
    iv->gamma = need * GAMMA_OVERSTATED < iv->gamma ? need : iv->gamma;
  }
  return LTH_OK;
}

lth_status lth_ivp_start(lth_ivp *iv, double t, const double *V, lth_error *err) {
  lth_status st = choose_gamma(iv, t, err);
  if (st != LTH_OK) {
    return st;
  }
  iv->started = 0;
  double span = lth_coef_span(iv->coef);
  lth_integrator_setup s;
  s.method = iv->opts.method;
  s.h0 = iv->opts.h0 > 0 ? iv->opts.h0 : (span > 0 ? 1e-3 * span : 1e-3);
  if (iv->hmax > 0) {
    s.h0 = fmin(s.h0, iv->hmax);
  }
  lth_ivp_tolerances(&iv->opts, &s.rtol, &s.atol);
  s.max_steps = iv->opts.max_steps ? iv->opts.max_steps : 10000000;
  /* a step collapsing below hmin_frac (1e-10) of the span means singular
   * coefficients (e.g. Pi -> singular): fail fast instead of creeping towards it */
  iv->hmin = span > 0 ? iv->hmin_frac * span : 0.0;
  s.hmin = iv->hmin;
  s.h0 = fmax(s.h0, s.hmin); /* (a first step below it: the smallest step) */
  s.hmax = iv->hmax;
  st = iv->itype->start(iv->it, &s, err);
  if (st != LTH_OK) {
    return st;
  }
  iv->started = 1;
  iv->t = t;
  iv->guard.t_start = t;
  iv->guard.nring = 0;
  memcpy(iv->y, V, iv->dim * sizeof(double));
  return LTH_OK;
}

void lth_ivp_guard_scale(lth_ivp *iv, double scale) {
  iv->guard.scale = fmax(iv->guard.scale, scale);
}

static lth_status guard_eval(void *ctx, double t, const lth_point **pt) {
  return lth_coef_eval_full(((lth_ivp *)ctx)->coef, t, pt, NULL);
}

/* Why the integrator stopped: most often the coefficients become singular (Pi nearly
 * singular, so Ahat ~ 1 / (t - t*)), which shows in Pi's chain condition. */
static lth_status integration_failure(lth_ivp *iv, int code, double t_from, double t_to,
                                      lth_error *err) {
  const lth_point *pt;
  double tf = iv->t;
  lth_status st = lth_ivp_guard_probe(&iv->guard, lth_system_index(iv->sys), tf, t_to,
                                      lth_coef_span(iv->coef), guard_eval, iv, err);
  if (st != LTH_OK) {
    lth_error_prefix(err, "integration from %.17g stalled at %.17g: ", t_from, tf);
    return st;
  }
  if (lth_coef_eval_full(iv->coef, tf, &pt, NULL) == LTH_OK && pt->cond_chain > 1e6) {
    lth_error_set_t(err, LTH_ECOND, tf,
                    "the reduced ODE is singular near t = %.17g: Pi's chain condition %.3e "
                    "(integration from %.17g stalled)",
                    tf, pt->cond_chain, t_from);
    if (err) {
      err->has_cond = 1;
      err->cond = pt->cond_chain;
    }
    return LTH_ECOND;
  }
  /* a feature of the data just ahead (include/lth/enclose.h) is named */
  lth_enclose_verdict v;
  double d = fmax(4.0 * iv->enc_w, 1e-6 * lth_coef_span(iv->coef));
  double lo = fmax(t_from, tf - d), hi = fmin(t_to, tf + d);
  v.answer = LTH_ENCLOSE_UNKNOWN;
  if (hi > lo) {
    lth_enclose_check(iv->enc, lo, hi, IVP_ENC_DEGREE,
                      iv->opts.rtol > 0 ? iv->opts.rtol : LTH_DEFAULT_RTOL, 0.0, &v, NULL);
  }
  if (v.answer == LTH_ENCLOSE_UNRESOLVED) {
    return lth_error_set_t(err, LTH_EINTEG, tf,
                           "%s %s stopped integrating from %.17g towards %.17g at %.17g: %s; "
                           "the data change abruptly near t = %.10g (%s)",
                           iv->itype->name, lth_ivp_method_name(iv->opts.method), t_from, t_to, tf,
                           iv->itype->strerror(code), v.t_feature, v.what);
  }
  return lth_error_set_t(err, LTH_EINTEG, tf,
                         "%s %s stopped integrating from %.17g towards %.17g at %.17g: %s",
                         iv->itype->name, lth_ivp_method_name(iv->opts.method), t_from, t_to, tf,
                         iv->itype->strerror(code));
}

/* A feature the enclosures do not resolve even over IVP_ENC_FLOOR of the
 * span from a (a kink, a jump, a pole): bisected to 1e-3 of that, then
 * crossed by one step over [cross_lo, cross_hi] -- a step that short keeps
 * a jump's error near rounding, where the error control would shrink the
 * steps below the integrator's minimum and stall -- after which the integrator starts
 * afresh.  The next IVP_ENC_FLOOR of the span is left to the integrator's
 * own control (a feature narrower than that is not bisected again and
 * again).  Returns where the driver must stop next. */
static double locate_crossing(lth_ivp *iv, double a, double w, double t, double rtol) {
  lth_enclose_verdict v;
  /* located to 1e-3 of the floor, not to rounding: a crossing step a few
   * ulps long would put its stages on the kink itself (where abs has no
   * derivative), one of 1e-12 of the span almost never does, and a jump
   * of size J costs an error of about J 1e-12 */
  double tiny = fmax(1e-3 * w, 16 * DBL_EPSILON * fmax(1.0, fabs(a)));
  if (lth_enclose_check(iv->enc, a, a + w, IVP_ENC_DEGREE, rtol, tiny, &v, NULL) != LTH_OK ||
      v.answer != LTH_ENCLOSE_UNRESOLVED) {
    iv->enc_lo = a; /* (cannot happen: [a, a + w] was just found unresolved) */
    iv->enc_hi = a + w;
    return fmin(t, a + w);
  }
  double pad = v.t_width + 4 * DBL_EPSILON * fmax(1.0, fabs(v.t_feature));
  /* asymmetric, so that no stage lands on the located point itself */
  iv->cross_lo = fmax(a, v.t_feature - pad);
  iv->cross_hi = v.t_feature + 1.5 * pad;
  iv->enc_lo = iv->cross_hi; /* then: the integrator alone over the floor's width */
  iv->enc_hi = iv->cross_hi + w;
  iv->enc_w = w;
  return fmin(t, iv->cross_lo > a ? iv->cross_lo : iv->cross_hi);
}

/* Where the next advance of the integrator must stop on its way to t: the end of
 * the stretch from iv->t on which the data are resolved (include/lth/
 * enclose.h).  Stretches grow by what the last one's bound allows
 * (ivp_stretch_growth) and shrink towards a feature; with
 * smooth data the first covers the whole span and costs one enclosure.
 * *crossing: the call crosses a located kink or jump. */
static double resolved_end(lth_ivp *iv, double t, int *crossing) {
  double a = iv->t, span = iv->t_hi - a;
  *crossing = 0;
  if (!lth_enclose_known(iv->enc) || !(span > 0)) {
    return t;
  }
  if (a >= iv->cross_lo && a < iv->cross_hi) {
    *crossing = 1;
    return fmin(t, iv->cross_hi);
  }
  if (iv->tab_stretch && lth_coef_generation(iv->coef) != iv->tab_gen) {
    iv->tab_stretch = 0; /* (stale_stretch, between two advances) */
    iv->enc_lo = iv->enc_hi = a;
  }
  if (a >= iv->enc_lo && a < iv->enc_hi) {
    return fmin(t, iv->enc_hi);
  }
  /* on a table's panel the integrator integrates the panel's polynomials:
   * where their degree is at most IVP_ENC_DEGREE they are resolved at that
   * degree by construction, with no enclosure to check (their distance from
   * the data is the table's tolerance, bounded by the table's own panel
   * checks).  One panel a stretch: the next may be a narrow one holding a
   * pulse (test_pulse_between_table_panels). */
  double b = lth_coef_table_end(iv->coef, a, IVP_ENC_DEGREE);
  iv->tab_stretch = b > a;
  if (iv->tab_stretch) {
    iv->tab_gen = lth_coef_generation(iv->coef);
    iv->enc_lo = a;
    iv->enc_hi = b >= iv->t_hi ? INFINITY : b;
    return fmin(t, iv->enc_hi);
  }
  double wmax = iv->enc_w > 0 ? fmin(span, iv->enc_grow * iv->enc_w) : span;
  double floor = fmin(wmax, IVP_ENC_FLOOR * fmax(lth_coef_span(iv->coef), span));
  double rtol = iv->opts.rtol > 0 ? iv->opts.rtol : LTH_DEFAULT_RTOL, w;
  int res;
  double bound;
  if (lth_enclose_width_bound(iv->enc, a, wmax, floor, IVP_ENC_DEGREE, rtol, &w, &res, &bound,
                              NULL) != LTH_OK) {
    return t;
  }
  if (res == 0) {
    double to = locate_crossing(iv, a, w, t, rtol);
    *crossing = to > a && to == fmin(t, iv->cross_hi) && a >= iv->cross_lo;
    return to;
  }
  iv->enc_lo = a;
  iv->enc_hi = a + w >= iv->t_hi ? INFINITY : a + w;
  iv->enc_grow = ivp_stretch_growth(bound, rtol);
  iv->enc_w = w;
  return fmin(t, iv->enc_hi);
}

lth_status lth_ivp_advance(lth_ivp *iv, double t, double *V, lth_error *err) {
  if (!iv->started) {
    return lth_error_set(err, LTH_EINVAL, "integrator not started");
  }
  if (t < iv->t) {
    return lth_error_set_t(err, LTH_EINVAL, t, "integration backwards from t = %.17g", iv->t);
  }
  if (t > iv->t && iv->dim > 0) {
    iv->st = LTH_OK;
    double t_from = iv->t;
    const lth_integrator_type *ity = iv->itype;
    int rc = 0;
    while (rc == 0 && iv->t < t) {
      int crossing;
      double to = resolved_end(iv, t, &crossing), h = ity->step(iv->it);
      int near = (iv->cross_hi > iv->t && to <= iv->cross_hi) ||
                 (iv->enc_lo == iv->cross_hi && iv->t >= iv->enc_lo && iv->t < iv->enc_hi);
      if (near) {
        /* the approach to a located kink and the step across are short by
         * design: the integrator's minimum step (a stall guard) must not refuse them */
        ity->set_hmin(iv->it, 0.0);
      }
      size_t n = 0;
      if (ity->set_horizon) {
        /* a step may reach past the output time t to the stretch's end (never
         * across it; data without enclosures have no stretches: the span's end) */
        double far = to;
        if (to == t && !crossing) {
          if (!lth_enclose_known(iv->enc)) {
            far = iv->t_hi;
          } else if (iv->t >= iv->enc_lo && iv->t < iv->enc_hi) {
            far = fmin(iv->enc_hi, iv->t_hi);
          }
        }
        ity->set_horizon(iv->it, fmax(far, to));
      }
      rc = ity->advance(iv->it, &iv->t, to, iv->y, &n);
      if (near) {
        ity->set_hmin(iv->it, iv->hmin);
      }
      iv->steps += n;
      if (rc != 0 && iv->replan) {
        /* the table's stretch went stale (stale_stretch): from the last
         * accepted step on, a stretch of its own */
        iv->replan = iv->tab_stretch = 0;
        iv->enc_lo = iv->enc_hi = iv->t;
        ity->reset(iv->it);
        rc = 0;
        continue;
      }
      if (rc == 0 && crossing && iv->t >= iv->cross_hi) {
        /* past a kink or jump: no history (multistep methods), the step size of
         * before (not below the minimum step, which restart may refuse) */
        ity->restart(iv->it, fmax(fabs(h), 16 * iv->hmin));
      }
    }
    if (rc != 0) {
      if (iv->st != LTH_OK && iv->guard.tripped == 1) {
        return lth_ivp_guard_locate(&iv->guard, lth_system_index(iv->sys), guard_eval, iv, err);
      }
      if (iv->st != LTH_OK && iv->guard.tripped == 2) {
        /* nearly singular here: if det Pi changes sign just ahead, name that t */
        iv->guard.tripped = 0;
        lth_error e2;
        lth_error_clear(&e2);
        if (lth_ivp_guard_probe(&iv->guard, lth_system_index(iv->sys), iv->err.t, t,
                                lth_coef_span(iv->coef), guard_eval, iv, &e2) == LTH_ESING) {
          if (err) *err = e2;
          return LTH_ESING;
        }
      }
      if (iv->st != LTH_OK) {
        if (err) {
          *err = iv->err;
        }
        return iv->st;
      }
      return integration_failure(iv, rc, t_from, t, err);
    }
  }
  iv->t = t;
  memcpy(V, iv->y, iv->dim * sizeof(double));
  if (iv->opts.progress) {
    iv->opts.progress(iv->opts.progress_ctx, t, iv->t_hi);
  }
  return LTH_OK;
}

lth_status lth_ivp_point(lth_ivp *iv, double t, const lth_point **pt, lth_error *err) {
  return lth_coef_eval_full(iv->coef, t, pt, err);
}

int lth_ivp_output_from_step(lth_ivp *iv, double t, double *z, double *drift, double *gain) {
  int N;
  const double *tn, *Y;
  if (!iv->nodes || !iv->started || t != iv->t || !iv->itype->last_step(iv->it, &N, &tn, &Y)) {
    return 0;
  }
  double rtol, atol;
  lth_ivp_tolerances(&iv->opts, &rtol, &atol);
  return lth_ivp_nodes_output(iv->nodes, N, tn, Y, t, rtol, atol, z, drift, gain);
}

double lth_ivp_gamma(const lth_ivp *iv) { return iv->gamma; }

void lth_ivp_stats(const lth_ivp *iv, size_t *steps, size_t *rhs_evals, size_t *decomps,
                   double *seconds_decomp) {
  if (steps) *steps = iv->steps;
  if (rhs_evals) *rhs_evals = iv->rhs_evals;
  lth_coef_stats(iv->coef, decomps, seconds_decomp);
}

/* ---- what lib/ivp/ivp_solve.c needs of an integrator ---- */

void lth_ivp_attach_scan(lth_ivp *iv, lth_ivp_prescan_job *scan, double outputs_per_t) {
  iv->guard.pending = scan; /* its chain scale, when a decomposed point needs it */
  /* Bhat, q, G from the table only where the outputs are dense enough */
  lth_coef_output_density(iv->coef, outputs_per_t);
}

lth_status lth_ivp_retune(lth_ivp *iv, lth_ivp_method method, double rtol, double atol,
                          double hmin_frac, double hmax, lth_error *err) {
  if (is_stiff(method) != is_stiff(iv->opts.method) || integrator_for(method) != iv->itype) {
    return lth_error_set(err, LTH_EINVAL, "%s cannot replace %s in an allocated integrator",
                         lth_ivp_method_name(method), lth_ivp_method_name(iv->opts.method));
  }
  iv->opts.method = method;
  iv->opts.rtol = rtol;
  iv->opts.atol = atol;
  iv->hmin_frac = hmin_frac;
  iv->hmax = hmax;
  return LTH_OK;
}

void lth_ivp_report(const lth_ivp *iv, lth_ivp_result *res) {
  lth_ivp_stats(iv, &res->steps, &res->rhs_evals, &res->decomps, &res->seconds_decomp);
  res->gamma = lth_ivp_gamma(iv);
  lth_coef_report(iv->coef, res);
}
