/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Coefficients of the reduced ODE at any t (lib/ivp/ivp_coef.h): the one place the
 * integrator, the fundamental matrix (shooting, multiple shooting) and LQR get
 * Ahat, g, P, Bhat, q, G.
 *
 * Table mode (exact data, the default through `auto`): a coefficient table
 * (include/lth/table.h) over [t_lo, t_hi], built lazily panel by panel as the
 * integration advances, to the error table_tol (default 1e-3 rtol: a
 * coefficient error delta changes the solution by about delta times the
 * growth of the reduced ODE over the span, well below what the integrator's
 * own local errors add up to; measured in docs/performance.md).
 * Auto keeps the table while it pays: before each new panel, if at least
 * three panels exist and the integrator took fewer than AUTO_RATIO right-hand
 * sides per table decomposition so far, the rest of the span is served by
 * direct decompositions (same results up to table_tol).  So is the span from
 * where the table's interpolation errors could cost the solution more than
 * rtol (table_biased, lth_table_rhs_error).  A table that would
 * exceed its memory budget also falls back -- from the start when its work
 * arrays alone do not fit (table_end = t_lo, no panels); a refusal (Pi singular between
 * nodes, no convergence while Pi's condition grows) is an error as in the
 * direct path.
 * Direct mode: the decomposition at t (Taylor jets of the data).
 * Hermite mode (sampled data): lib/ivp/ivp_coef_hermite.c. */
#define _POSIX_C_SOURCE 200809L
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ivp_coef_impl.h"
#include "lth/defaults.h"
#include "lth/conditioning.h"
#include "core/errors.h"
#include "table/table_budget.h"

#define TABLE_FRAC      1e-3
#define TABLE_TOL_MAX   1e-6
#define AUTO_RATIO      2.0
#define AUTO_MIN_PANELS 3
/* One build may at most multiply the table's decompositions by this (from
 * at least AUTO_BUILD_MIN) before auto looks at the pay-off again: a build
 * over panels that come out narrow (measured: a 13-unknown index-8 system,
 * panels 0.0026 wide, more than 2 minutes in one build, where direct
 * decompositions solve the whole interval in 1.4 s) is cut short. */
#define AUTO_BUILD_GROWTH 4
#define AUTO_BUILD_MIN    256
/* Auto: the share of rtol the table's interpolation errors may add to the
 * solution (lth_table_rhs_error) before the span from where they pass it is
 * served by direct decompositions.  The table's tolerance is relative to
 * max(1, |F|), and an interpolant's error is a bias the integration
 * accumulates over the span: on Ascher and Petzold's index-2 example
 * (alpha = 50, ||Ahat|| = 2600, gamma = 970) a table within 4e-14 of the
 * decompositions -- their own rounding noise, which the nodes freeze into the
 * interpolant -- erred 4.7e-10 at rtol 1e-10 (1.45e-9 in lth-solve), direct
 * decompositions, whose rounding averages out over the steps, 3.5e-10. */
#define TABLE_BIAS_SHARE 1.0

static const char *const coef_names[] = {"auto", "direct", "table", "hermite"};

int lth_ivp_coefficients_from_name(const char *name) {
  for (int k = 0; k < 4; k++) {
    if (strcmp(name, coef_names[k]) == 0) {
      return k;
    }
  }
  return -1;
}

const char *lth_ivp_coefficients_name(lth_ivp_coefficients mode) {
  return (unsigned)mode < 4 ? coef_names[mode] : "unknown";
}

double lth_coef_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double lth_coef_tol(const lth_ivp_opts *o) {
  if (o->table_tol > 0) {
    return o->table_tol;
  }
  double rtol = o->rtol > 0 ? o->rtol : LTH_DEFAULT_RTOL;
  return fmin(TABLE_TOL_MAX, fmax(LTH_COEF_TABLE_TOL_MIN, TABLE_FRAC * rtol));
}

/* Which source serves the coefficients (see lth_ivp_coefficients). */
static lth_ivp_coefficients choose_mode_for(const lth_system *sys, const lth_ivp_opts *o,
                                            double t_lo, double t_hi, int *auto_table) {
  int exact = lth_system_is_exact(sys);
  *auto_table = 0;
  if (o->hermite == 1 || o->coefficients == LTH_COEF_HERMITE) {
    return LTH_COEF_HERMITE;
  }
  if (!exact) {
    return o->hermite == 0 || o->coefficients == LTH_COEF_DIRECT ? LTH_COEF_DIRECT
                                                                 : LTH_COEF_HERMITE;
  }
  if (o->coefficients == LTH_COEF_DIRECT || !(t_hi > t_lo)) {
    return LTH_COEF_DIRECT;
  }
  if (o->coefficients == LTH_COEF_AUTO && o->method == LTH_IVP_CHEB) {
    /* cheb decomposes once at each of its points, and a table's interpolation
     * error would be the largest part of its error (docs/performance.md,
     * "The default method: cheb up to m = 8") */
    return LTH_COEF_DIRECT;
  }
  *auto_table = o->coefficients != LTH_COEF_TABLE;
  return LTH_COEF_TABLE;
}

static lth_ivp_coefficients choose_mode(const lth_coef *c, const lth_ivp_opts *o, int *auto_table) {
  return choose_mode_for(c->sys, o, c->t_lo, c->t_hi, auto_table);
}

int lth_coef_starts_table(const lth_system *sys, const lth_ivp_opts *o, double t_lo, double t_hi) {
  int auto_table;
  return choose_mode_for(sys, o, t_lo, t_hi, &auto_table) == LTH_COEF_TABLE;
}

static lth_status table_setup(lth_coef *c, const lth_ivp_opts *o, lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_table_opts to;
  lth_table_opts_init(&to);
  to.tol = lth_coef_tol(o);
  to.deriv = c->deriv;
  to.outputs = !c->outputs_direct;
  to.cond_max = o->cond_max;
  to.chain_scale = c->chain_scale;
  to.max_bytes = o->table_max_bytes;
  c->bias_limit =
      c->auto_table ? TABLE_BIAS_SHARE * (o->rtol > 0 ? o->rtol : LTH_DEFAULT_RTOL) : INFINITY;
  c->bias_cover = NAN;
  c->t_served = -INFINITY;
  lth_error local;
  lth_error_clear(&local);
  c->tab_opts = to;
  c->tab = lth_table_alloc(c->sys, c->t_lo, c->t_hi, &to, &local);
  if (!c->tab && local.status == LTH_ENOMEM && c->auto_table) {
    /* its work arrays alone exceed the table's memory budget (they grow like
     * s^2, lth_table_opts.max_bytes): the whole span is served directly */
    c->fell_back = 1;
    c->t_switch = c->t_lo;
    return LTH_OK;
  }
  if (!c->tab) {
    if (err) *err = local;
    return local.status != LTH_OK ? local.status : LTH_ENOMEM;
  }
  c->tp = lth_point_alloc(c->sys, c->deriv, err);
  return c->tp ? LTH_OK : (lth_error_status(err));
}

double lth_coef_chain_scale(const lth_system *sys, const lth_ivp_opts *o) {
  return o && o->chain_scale > 0 ? o->chain_scale : lth_pi_interval_scale(sys);
}

lth_coef *lth_coef_alloc(const lth_system *sys, const lth_ivp_opts *o, int deriv, double t_lo,
                         double t_hi, lth_error *err) {
  return lth_coef_alloc_ex(sys, o, deriv, 0, t_lo, t_hi, err);
}

lth_coef *lth_coef_alloc_ex(const lth_system *sys, const lth_ivp_opts *o, int deriv,
                            int outputs_direct, double t_lo, double t_hi, lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_coef *c = calloc(1, sizeof *c);
  if (!c) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  c->sys = sys;
  c->deriv = deriv;
  c->outputs_direct = outputs_direct;
  c->t_lo = t_lo;
  c->t_hi = t_hi;
  c->t_cached = NAN;
  c->chain_scale = lth_coef_chain_scale(sys, o);
  c->mode = choose_mode(c, o, &c->auto_table);
  double t_start = lth_coef_now();
  lth_status st = LTH_OK;
  if (c->mode == LTH_COEF_HERMITE) {
    st = lth_coef_hermite_setup(c, o, err);
  } else {
    /* direct decompositions: the direct mode, and the table's direct panels,
     * times outside its span and auto's fallback */
    c->ws = lth_decomp_ws_alloc_scaled(sys, deriv, c->chain_scale, err);
    c->pt = c->ws ? lth_point_alloc(sys, deriv, err) : NULL;
    if (c->ws && o->cond_max > 0) {
      lth_decomp_ws_set_cond_max(c->ws, o->cond_max);
    }
    st = c->pt ? LTH_OK : (lth_error_status(err));
    if (st == LTH_OK && c->mode == LTH_COEF_TABLE) {
      st = table_setup(c, o, err);
    }
  }
  c->seconds += lth_coef_now() - t_start;
  if (st != LTH_OK) {
    lth_coef_free(c);
    return NULL;
  }
  return c;
}

void lth_coef_free(lth_coef *c) {
  if (!c) {
    return;
  }
  lth_point_free(c->pt);
  lth_decomp_ws_free(c->ws);
  lth_table_free(c->tab);
  lth_point_free(c->tp);
  lth_grid_result_free(c->grid);
  lth_point_free(c->ip);
  free(c->basis);
  free(c);
}

double lth_coef_span(const lth_coef *c) { return c->t_hi - c->t_lo; }

void lth_coef_output_density(lth_coef *c, double per_unit_t) {
  if (c->tab) lth_table_set_output_density(c->tab, per_unit_t);
}

void lth_coef_stats(const lth_coef *c, size_t *decomps, double *seconds) {
  lth_table_info info;
  memset(&info, 0, sizeof info);
  if (c->tab) {
    lth_table_info_get(c->tab, &info);
  }
  if (decomps) *decomps = c->decomps + info.decomps;
  if (seconds) *seconds = c->seconds + info.seconds;
}

void lth_coef_report(const lth_coef *c, lth_ivp_result *res) {
  res->coef_mode = c->mode;
  res->coef_order = c->mode == LTH_COEF_HERMITE ? c->k : -1;
  res->table_panels = c->mode == LTH_COEF_HERMITE && c->grid ? c->grid->n - 1 : 0;
  res->table_direct_panels = 0;
  res->coef_error = c->mode == LTH_COEF_HERMITE ? c->herr : 0.0;
  res->table_end = NAN;
  if (c->mode == LTH_COEF_TABLE && !c->tab) { /* over the memory budget from the start */
    res->table_end = c->t_switch;
  }
  if (c->tab) {
    lth_table_info info;
    lth_table_info_get(c->tab, &info);
    res->coef_order = info.max_degree;
    res->table_panels = info.panels;
    res->table_direct_panels = info.direct_panels;
    res->coef_error = info.err_est;
    res->table_end = c->fell_back ? fmax(c->t_switch, c->t_lo) : info.covered;
  }
}

static lth_status exact_eval(lth_coef *c, double t, const lth_point **pt, lth_error *err) {
  if (t != c->t_cached) {
    double t_start = lth_coef_now();
    lth_status st = lth_decomp_at(c->ws, t, c->pt, err);
    c->seconds += lth_coef_now() - t_start;
    c->decomps++;
    if (st != LTH_OK) {
      c->t_cached = NAN;
      return st;
    }
    c->t_cached = t;
  }
  *pt = c->pt;
  return LTH_OK;
}

/* Auto: does the table still pay for new panels? */
static int table_pays(const lth_coef *c) {
  lth_table_info info;
  lth_table_info_get(c->tab, &info);
  return info.panels < AUTO_MIN_PANELS || (double)c->served >= AUTO_RATIO * (double)info.decomps;
}

static void fall_back(lth_coef *c) {
  c->fell_back = 1;
  c->gen++;
  c->t_switch = lth_table_covered(c->tab);
}

/* Auto, when the bias bound (table_biased) fails before the table has served
 * the integrator: the bound is linear in the panels' errors, so a table to
 * RETABLE_SHARE limit / peak of the largest error met passes it.  The table
 * is rebuilt once to that tolerance where it lies above the floor
 * RETABLE_FLOOR LTH_COEF_TABLE_TOL_MIN (a table near its floor stalls:
 * rounding, not interpolation, sets its error); 1 when rebuilt.  Measured on
 * Ascher and Petzold's example (alpha = 50) at rtol 1e-8: 17 + 17 table
 * decompositions instead of about 1500 direct ones. */
#define RETABLE_SHARE 0.5
#define RETABLE_FLOOR 10.0
static int retable(lth_coef *c, double peak) {
  if (c->retabled || c->t_served > -INFINITY || !(peak > 0)) {
    return 0;
  }
  lth_table_info info;
  lth_table_info_get(c->tab, &info);
  double tol = fmin(c->tab_opts.tol, info.err_est) * RETABLE_SHARE * c->bias_limit / peak;
  if (!(tol >= RETABLE_FLOOR * LTH_COEF_TABLE_TOL_MIN)) {
    return 0;
  }
  lth_table_opts to = c->tab_opts;
  to.tol = tol;
  lth_table *tab = lth_table_alloc(c->sys, c->t_lo, c->t_hi, &to, NULL);
  if (!tab) {
    return 0;
  }
  c->decomps += info.decomps; /* the first table's work counts */
  c->seconds += info.seconds;
  lth_table_free(c->tab);
  c->tab = tab;
  c->tab_opts = to;
  c->retabled = 1;
  c->hint = 0;
  c->gen++;
  c->bias_cover = NAN;
  return 1;
}

/* Auto: do the panels' errors add more than bias_limit to the solution (with
 * damping rate gamma, the largest met so far)?  Then the span from the panel
 * where they pass it (or from the last right-hand side served, what is
 * served is kept) goes to direct decompositions: 1.  Judged when the
 * integrator asks for a right-hand side, with the damping it uses. */
static int table_biased(lth_coef *c, double gamma) {
  double covered = lth_table_covered(c->tab);
  if (!c->auto_table || c->fell_back || (covered == c->bias_cover && gamma <= c->bias_gamma)) {
    return 0;
  }
  c->bias_cover = covered;
  c->bias_gamma = fmax(c->bias_gamma, gamma);
  double t_pass;
  double peak = lth_table_rhs_error(c->tab, c->bias_gamma, c->bias_limit, &t_pass);
  if (!isfinite(t_pass)) {
    return 0;
  }
  if (retable(c, peak)) {
    return 2;
  }
  c->fell_back = 1;
  c->gen++;
  /* (nothing served yet: not even t_lo) */
  c->t_switch = c->t_served > -INFINITY ? fmin(covered, fmax(t_pass, c->t_served)) : -INFINITY;
  return 1;
}

/* The table at t (extending it when t is beyond the covered part).  Returns
 * LTH_ERANGE without touching err when t must be served directly instead. */
static lth_status table_eval(lth_coef *c, double t, int order, int full, double gamma, int rhs,
                             const lth_point **pt, lth_error *err) {
  if (!c->tab || (c->fell_back ? t > c->t_switch : !(t >= c->t_lo && t <= c->t_hi))) {
    return LTH_ERANGE;
  }
  if (t > lth_table_covered(c->tab) || lth_table_covered(c->tab) == c->t_lo) {
    if (c->auto_table && !table_pays(c)) {
      fall_back(c);
      return LTH_ERANGE;
    }
    lth_error local;
    lth_error_clear(&local);
    /* in chunks that double the covered part: few parallel builds, and the
     * pay-off check above between them (auto: also within a build that
     * costs AUTO_BUILD_GROWTH times the table so far) */
    double covered = lth_table_covered(c->tab);
    lth_status st;
    do {
      lth_table_info info;
      lth_table_info_get(c->tab, &info);
      size_t budget =
          c->auto_table
              ? AUTO_BUILD_GROWTH * (info.decomps > AUTO_BUILD_MIN ? info.decomps : AUTO_BUILD_MIN)
              : 0;
      st = lth_table_build_budget(c->tab, t + (covered - c->t_lo), budget, &local);
    } while (st == LTH_ERANGE && table_pays(c));
    if (st == LTH_ERANGE) { /* the budget ran out and the table does not pay */
      fall_back(c);
      return t > c->t_switch ? LTH_ERANGE : table_eval(c, t, order, full, gamma, rhs, pt, err);
    }
    if (st == LTH_ENOMEM && c->auto_table) {
      fall_back(c);
      return t > c->t_switch ? LTH_ERANGE : table_eval(c, t, order, full, gamma, rhs, pt, err);
    }
    if (st != LTH_OK) {
      if (err) *err = local;
      return st;
    }
  }
  int biased = rhs ? table_biased(c, gamma) : 0;
  if (biased == 2) { /* rebuilt to a tighter tolerance (retable) */
    return table_eval(c, t, order, full, gamma, rhs, pt, err);
  }
  if (biased && t > c->t_switch) {
    return LTH_ERANGE;
  }
  /* direct panels (data not smooth there) come back as LTH_ERANGE; the damped
   * right-hand side's Ahat - gamma P in one pass (lth_coef_eval_damped) */
  lth_status st = gamma > 0
                      ? lth_table_eval_rhs(c->tab, t, -gamma, c->tp, &c->hint, NULL)
                      : lth_table_eval_hint(c->tab, t, order, full, c->tp, NULL, &c->hint, NULL);
  if (st == LTH_OK) {
    c->served++;
    c->t_served = rhs ? fmax(c->t_served, t) : c->t_served;
    *pt = c->tp;
  } else if (st != LTH_ERANGE) {
    st = lth_table_eval(c->tab, t, order, full, c->tp, NULL, err);
  }
  return st;
}

lth_status lth_coef_eval(lth_coef *c, double t, int order, const lth_point **pt, lth_error *err) {
  if (order > c->deriv) {
    return lth_error_set(err, LTH_EORDER, "coefficient derivative not prepared");
  }
  if (c->mode == LTH_COEF_HERMITE) {
    return lth_coef_hermite_eval(c, t, order, 0, pt, err);
  }
  if (c->mode == LTH_COEF_TABLE) {
    lth_status st = table_eval(c, t, order, 0, 0.0, 0, pt, err);
    if (st != LTH_ERANGE) {
      return st;
    }
  }
  return exact_eval(c, t, pt, err);
}

lth_status lth_coef_eval_damped(lth_coef *c, double t, double gamma, const lth_point **pt,
                                int *damped, lth_error *err) {
  *damped = 0;
  if (c->mode == LTH_COEF_TABLE) {
    lth_status st = table_eval(c, t, 0, 0, gamma, 1, pt, err);
    if (st != LTH_ERANGE) {
      *damped = st == LTH_OK && gamma > 0;
      return st;
    }
  }
  return lth_coef_eval(c, t, 0, pt, err);
}

double lth_coef_table_end(lth_coef *c, double t, int degree) {
  if (c->mode != LTH_COEF_TABLE || !c->tab || c->fell_back || !(t >= c->t_lo && t < c->t_hi)) {
    return t;
  }
  if (t >= lth_table_covered(c->tab)) {
    /* the panels ahead, built as the integrator's next right-hand side
     * beyond the covered part would build them */
    const lth_point *pt;
    if (table_eval(c, nextafter(t, INFINITY), 0, 0, 0.0, 0, &pt, NULL) != LTH_OK || c->fell_back) {
      return t;
    }
  }
  return lth_table_panel_end(c->tab, t, degree);
}

unsigned lth_coef_generation(const lth_coef *c) { return c->gen; }

int lth_coef_is_exact(const lth_coef *c, const lth_point *pt) {
  return c->mode != LTH_COEF_HERMITE && pt == c->pt && c->t_cached == pt->t;
}

lth_status lth_coef_eval_full(lth_coef *c, double t, const lth_point **pt, lth_error *err) {
  if (c->mode == LTH_COEF_HERMITE) {
    return lth_coef_hermite_eval(c, t, 0, 1, pt, err);
  }
  if (c->mode == LTH_COEF_TABLE && !c->outputs_direct) {
    lth_status st = table_eval(c, t, 0, 1, 0.0, 0, pt, err);
    if (st != LTH_ERANGE) {
      return st;
    }
  }
  return exact_eval(c, t, pt, err);
}

/* ---- the drift's scales (for the automatic drift damping, lib/ivp/ivp.c) ---- */

/* Above this state dimension the scales are not computed (dense QR and
 * eigenvalues of m x m matrices, as the bias check's TAB_BIAS_MMAX). */
#define DRIFT_SCALES_MMAX 64

/* mu, rho of one point with jets of order >= 1 (see lth_coef_drift_scales);
 * W holds 4 m^2 + 4 m doubles. */
static int drift_scales_of(const lth_point *pt, double *W, double *mu, double *rho) {
  int m = pt->m, k = pt->m - pt->p; /* k = rank P, the drift's dimension */
  double *K = W, *Q = K + (size_t)m * m, *IP = Q + (size_t)m * m, *M = IP + (size_t)m * m;
  double *tau = M + (size_t)m * m, *wr = tau + m, *wi = wr + m;
  lapack_int *jpvt = (lapack_int *)(wi + m);
  /* K = P' + P Ahat: the drift y = P v obeys y' = (K - gamma) y (Clark,
   * Theorem 1: (P' + P Ahat)(I - P) = 0, P g = 0) */
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) {
      double s = LTH_JET_AT(&pt->P, 1, i, j);
      for (int l = 0; l < m; l++) {
        s += LTH_JET_AT(&pt->P, 0, i, l) * LTH_JET_AT(&pt->Ahat, 0, l, j);
      }
      K[i + (size_t)j * m] = s;
      Q[i + (size_t)j * m] = LTH_JET_AT(&pt->P, 0, i, j);
      IP[i + (size_t)j * m] = (i == j) - LTH_JET_AT(&pt->P, 0, i, j);
      jpvt[j] = 0;
    }
  }
  *mu = -INFINITY;
  if (k > 0) {
    /* Q's first k columns: an orthonormal basis of range P (pivoted QR) */
    if (LAPACKE_dgeqp3(LAPACK_COL_MAJOR, m, m, Q, m, jpvt, tau) != 0 ||
        LAPACKE_dorgqr(LAPACK_COL_MAJOR, m, k, k, Q, m, tau) != 0) {
      return 0;
    }
    /* H = sym(Q^T K Q) (k x k in M); its largest eigenvalue bounds
     * d/dt ||y||_2 / ||y||_2 over y in range P */
    for (int b = 0; b < k; b++) {
      for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int l = 0; l < m; l++) s += K[i + (size_t)l * m] * Q[l + (size_t)b * m];
        IP[i + (size_t)b * m] = s; /* K Q (IP reused below) */
      }
    }
    for (int b = 0; b < k; b++) {
      for (int a = 0; a < k; a++) {
        double s = 0.0;
        for (int i = 0; i < m; i++) s += Q[i + (size_t)a * m] * IP[i + (size_t)b * m];
        M[a + (size_t)b * k] = s;
      }
    }
    for (int b = 0; b < k; b++) {
      for (int a = 0; a < b; a++) {
        double s = 0.5 * (M[a + (size_t)b * k] + M[b + (size_t)a * k]);
        M[a + (size_t)b * k] = M[b + (size_t)a * k] = s;
      }
    }
    if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', k, M, k, wr) != 0) {
      return 0;
    }
    *mu = wr[k - 1];
    for (int j = 0; j < m; j++) {
      for (int i = 0; i < m; i++) IP[i + (size_t)j * m] = (i == j) - LTH_JET_AT(&pt->P, 0, i, j);
    }
  }
  /* rho: the spectral radius of (I - P) Ahat (I - P), Ahat on the state space */
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) {
      double s = 0.0;
      for (int l = 0; l < m; l++) s += LTH_JET_AT(&pt->Ahat, 0, i, l) * IP[l + (size_t)j * m];
      K[i + (size_t)j * m] = s;
    }
  }
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < m; i++) {
      double s = 0.0;
      for (int l = 0; l < m; l++) s += IP[i + (size_t)l * m] * K[l + (size_t)j * m];
      M[i + (size_t)j * m] = s;
    }
  }
  if (LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', 'N', m, M, m, wr, wi, NULL, 1, NULL, 1) != 0) {
    return 0;
  }
  *rho = 0.0;
  for (int i = 0; i < m; i++) *rho = fmax(*rho, hypot(wr[i], wi[i]));
  return isfinite(*rho) && !isnan(*mu);
}

int lth_coef_drift_scales(lth_coef *c, double t, double *mu, double *rho) {
  int m = lth_system_state_dim(c->sys);
  if (c->mode == LTH_COEF_HERMITE || m < 1 || m > DRIFT_SCALES_MMAX) {
    return 0;
  }
  int own = c->deriv < 1; /* a workspace with first derivatives of its own */
  lth_decomp_ws *ws = own ? lth_decomp_ws_alloc_scaled(c->sys, 1, c->chain_scale, NULL) : c->ws;
  lth_point *pt = own ? lth_point_alloc(c->sys, 1, NULL) : c->pt;
  size_t nw = 4 * (size_t)m * m + 4 * (size_t)m; /* lapack_int pivots fit in m doubles */
  double *W = malloc(sizeof(double) * nw);
  /* at t and at the span's end: between them (and beyond t if the span's
   * end is before it) the rates are sampled, not bounded */
  double ts[2] = {t, c->t_hi > t ? c->t_hi : t};
  int ok = ws && pt && W;
  *mu = -INFINITY;
  *rho = 0.0;
  for (int k = 0; ok && k < 2; k++) {
    double mk = -INFINITY, rk = 0.0;
    ok = lth_decomp_at(ws, ts[k], pt, NULL) == LTH_OK && drift_scales_of(pt, W, &mk, &rk);
    *mu = fmax(*mu, mk);
    *rho = fmax(*rho, rk);
  }
  if (!own) {
    c->t_cached = NAN;
  }
  free(W);
  if (own) {
    lth_point_free(pt);
    lth_decomp_ws_free(ws);
  }
  return ok;
}
