/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Initial-value problems through the reduced ODE (Clark's Theorem 1 and
 * Corollary 2; docs/theory.md section 6).
 *
 * The state part v = (I - P) z(1:m) obeys v' = Ahat(t) v + g(t); the full
 * solution is z = (Nhat + Bhat(t)) v + q(t).  The ODE integrator is GSL's
 * odeiv2 today (every lth_ivp_method), behind a private seam in lib/ivp
 * (a table of operations: start, advance, reset, ...) so that another one,
 * e.g. SUNDIALS CVODE, can be added without changing this header; lth's own
 * part -- the right-hand side and its drift damping, the guard on Pi, the
 * statistics -- stays the same whichever integrator steps.
 * Ahat and g come from a coefficient table (include/lth/table.h: piecewise
 * Chebyshev interpolants of the decomposition, error-controlled, built once
 * and evaluated at every t the integrator asks for), from the decomposition at
 * every such t (exact jets, `coefficients = LTH_COEF_DIRECT`), or, for sampled
 * data, from Hermite interpolation of the decomposition's output jets on a
 * grid (continuous, so adaptive steps work).
 * Theorem 2 says v stays in range(I - P) exactly; numerically the drift
 * ||P v|| is monitored and reported.
 */
#ifndef LTH_IVP_H
#define LTH_IVP_H

#include <stddef.h>

#include "lth/decomp.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lth_ivp_method {
  LTH_IVP_RK8PD = 0, /* explicit Runge-Kutta Prince-Dormand (8,9) */
  LTH_IVP_RKF45,     /* explicit Runge-Kutta-Fehlberg (4,5) */
  LTH_IVP_MSADAMS,   /* variable-order Adams, non-stiff */
  LTH_IVP_MSBDF,     /* variable-order BDF, stiff (dense Jacobian = Ahat) */
  LTH_IVP_BSIMP,     /* implicit Bulirsch-Stoer, stiff (dense Jacobian) */
  LTH_IVP_CHEB,      /* Chebyshev collocation of the linear reduced ODE (small systems) */
  LTH_IVP_AUTO       /* default: lth_ivp_solve takes cheb where the state dimension m is 1 ..
                        LTH_IVP_AUTO_CHEB_MAX, rk8pd above (docs/user-guide.md, "Which
                        method"); lth_ivp_alloc (fundamental solutions, BVP, LQR) rk8pd */
} lth_ivp_method;

/* The largest state dimension for which LTH_IVP_AUTO takes cheb: its linear
 * system of N m unknowns a step (N = 16 up to m = 4, 12 up to m = 8) costs
 * no more than rk8pd's 13 stages there; above, its degree drops to 8 and
 * it takes more steps than rk8pd (docs/performance.md, "The default method"). */
#define LTH_IVP_AUTO_CHEB_MAX 8

/* The method LTH_IVP_AUTO stands for in lth_ivp_solve on sys (any other
 * method: itself). */
lth_ivp_method lth_ivp_method_resolve(lth_ivp_method method, const lth_system *sys);

/* Name ("rk8pd", "rkf45", "msadams", "msbdf", "bsimp", "cheb", "auto") <-> method; -1 if
 * unknown. */
int lth_ivp_method_from_name(const char *name);
const char *lth_ivp_method_name(lth_ivp_method method);

/* Where the integrator gets Ahat, g, P (and Bhat, q, G at output times). */
typedef enum lth_ivp_coefficients {
  LTH_COEF_AUTO = 0, /* default: exact data with cheb, direct decompositions (a table's
                        interpolation error would be most of its error); else the table for exact
                        data while it pays (right-hand sides served >= 2 x its decompositions,
                        judged panel by panel, else direct from there on) and while its
                        interpolation errors cannot cost the solution more than rtol
                        (docs/performance.md, "bias": if that fails before the table served the
                        integrator, the table is rebuilt once to a tolerance that passes, where one
                        above its floor does; else direct from the panel where they could); the
                        Hermite grid for sampled data */
  LTH_COEF_DIRECT,   /* a decomposition at every t asked for */
  LTH_COEF_TABLE,    /* the coefficient table (sampled data: the Hermite grid) */
  LTH_COEF_HERMITE   /* (reported in lth_ivp_result.coef_mode) Hermite interpolation on a grid */
} lth_ivp_coefficients;

/* Name ("auto", "direct", "table", "hermite") <-> value; -1 if unknown. */
int lth_ivp_coefficients_from_name(const char *name);
const char *lth_ivp_coefficients_name(lth_ivp_coefficients mode);

typedef struct lth_ivp_opts {
  lth_ivp_method method; /* LTH_IVP_AUTO (default): cheb for m <= LTH_IVP_AUTO_CHEB_MAX */
  double rtol, atol;     /* local error control (defaults 1e-10, 1e-12) */
  double h0;             /* first step (0: 1e-3 of the span; at least the smallest step,
                            1e-10 of the span) */
  size_t max_steps;      /* per output interval (0: 10^7) */
  double cond_max;       /* threshold for Pi's chain condition (0: default) */
  int reproject;         /* 1: v <- (I - P) v at output times */
  int project;           /* 1: accept an inconsistent z0 and replace it by Corollary 3's
                            oblique projection (result says what changed); 0: error */
  double stabilize;      /* drift damping rate gamma: the integrator uses Ahat - gamma P,
                            equal to Ahat on the state space, so solutions are unchanged
                            while drift decays.  < 0: auto (default; docs/user-guide.md
                            section 6, "Drift damping"), 0: off.  gamma makes
                            the ODE stiff: an explicit method refuses gamma (t1 - t0) above
                            LTH_IVP_EXPLICIT_GAMMA_SPAN (LTH_EINVAL, at once) */
  lth_ivp_coefficients coefficients; /* LTH_COEF_AUTO (default), _DIRECT or _TABLE */
  double table_tol;           /* interpolation error of the table, relative to max(1, |field|)
                                 (0: auto, 1e-3 rtol, in [3e-15, 1e-6]) */
  size_t table_max_bytes;     /* the table's memory budget, work arrays included
                                 (lth_table_opts.max_bytes; 0: its default, 1 GiB).  Auto
                                 decomposes directly where the table would exceed it */
  int pi_scan;                /* points of the scan of Pi on the interval before integrating
                                 (include/lth/conditioning.h: a Pi that is singular or nearly so
                                 between the integrator's times is refused, naming t and
                                 cond_interval); 0: automatic, < 0: none (the caller scanned) */
  int hermite;                /* -1 auto (on iff the system has sampled data), 0 off, 1 on */
  const double *hermite_grid; /* Hermite mode: nodes to add to those placed for the samples
                               (one per 16 sample intervals, then where the check between
                               nodes against table_tol asks for more; docs/sampled-data.md);
                               NULL: none.  The output times are never needed here */
  size_t hermite_n;
  /* optional: called from the calling thread each time the integrator reaches an
   * output time t (lth_ivp_advance; also in fundamental solutions and the BVP
   * and LQR solvers built on it), t_end the end of its span; lth_ivp_solve's
   * error estimate integrates from t0 again */
  void (*progress)(void *ctx, double t, double t_end);
  void *progress_ctx;
  int error_estimate; /* 1 (default): estimate the global error of z by a second, more
                         accurate solve (lth_ivp_result.error_estimate); 0: off */
  int propagate;      /* -1 (default): where every block of the system is proven constant
                         on [t0, last output time] by its enclosure (include/lth/enclose.h;
                         not for callbacks or samples), with coefficients LTH_COEF_AUTO and
                         automatic stabilize, the reduced ODE is solved by its exact
                         propagator, the matrix exponential (docs/user-guide.md section 6,
                         "Constant data"): one decomposition, no step-size control, only
                         rounding left (lth_ivp_result.propagated).  The error estimate
                         stays the integrator's second solve, and where it exceeds the
                         tolerance the solve integrates instead.  0: always the
                         integrator.  lth_ivp_solve only */
  double chain_scale; /* the scale cond_interval is judged against: the largest chain
                         norm on the system's interval (lth_pi_chain_scale).  0 (default):
                         computed once by each solve (or lth_ivp_alloc) and shared by its
                         workspaces; a caller that solves many times on unchanged data
                         may compute it once and pass it here */
} lth_ivp_opts;

void lth_ivp_opts_init(lth_ivp_opts *opts);

/* An explicit method needs steps h < ~3 / gamma for a damping rate gamma: at
 * most this many "stability steps" over the span are accepted. */
#define LTH_IVP_EXPLICIT_GAMMA_SPAN 1e4

typedef struct lth_ivp_result {
  size_t n;
  int s, m;
  double *times;         /* n output times */
  double *z;             /* s x n: z(times[k]) at z + k*s */
  double *v;             /* m x n: the state part */
  double drift;          /* max_k ||P(t_k) v(t_k)||_2 (before any reprojection) */
  double drift_rel;      /* the same relative to max(1, ||v||) */
  double *z0_used;       /* s: the initial value actually used */
  int projected;         /* 1 if z0 was replaced by its projection */
  double z0_change;      /* ||z0_used - z0||_2 */
  int z0_worst;          /* component (0-based) that changed most (-1 if none) */
  double z0_residual;    /* ||M0 z0 - b0|| of the given z0 */
  double gamma;          /* drift damping rate used */
  lth_ivp_method method; /* the method that integrated (LTH_IVP_AUTO resolved; lth_opsolve: msbdf
                            or msadams, CVODE's BDF or Adams) */
  size_t steps, rhs_evals, decomps;
  double seconds_total, seconds_decomp; /* decomp: decompositions, table building included */
  int propagated; /* 1: the data are constant and the exact propagator carried v from output to
                     output (opts.propagate): steps counts its substeps (||As||_1 d <= 16 each),
                     rhs_evals is 0, decomps 1, coef_mode _DIRECT */
  lth_ivp_coefficients coef_mode; /* what served the coefficients: _DIRECT, _TABLE, _HERMITE
                                     (_TABLE also when auto fell back to direct part-way) */
  int coef_order;                 /* Hermite: the jet order k at the nodes (interpolation degree
                                     2k + 1); table: the highest Chebyshev degree kept; direct: -1 */
  size_t table_panels;            /* table: panels built (table_direct_panels of them left direct);
                                     Hermite: intervals between the nodes */
  size_t table_direct_panels;
  double coef_error;  /* table, Hermite: largest estimated interpolation error (relative to
                         max(1, |field|)); 0 otherwise */
  double table_end;   /* table: end of the tabulated part -- the last output time, or where
                         auto went over to direct decompositions (t0 with no panels: the
                         table's work arrays exceed table_max_bytes); NAN otherwise */
  double output_gain; /* max over the output times of ||Nhat + Bhat||_inf, the map from the
                         state v to z = (Nhat + Bhat) v + q: the integrator controls the
                         errors of v, and z's (the algebraic components' above all) can be up
                         to this many times larger (>= 1; e.g. 1e4 for u = k (y - cos t) +
                         sin t with k = 1e4) */
  /* The global error estimate (opts.error_estimate; docs/user-guide.md section 6.6).
   * z_ref is a second solve of the reduced ODE from the same initial value, with
   * the same output maps, more accurate in each part of the solve's error:
   * tighter tolerances (error_rtol, error_atol: 0.1 times the solve's for rk8pd,
   * 0.01 for cheb, msbdf and bsimp), rk8pd for rk8pd, rkf45 and msadams and the
   * method itself for cheb, msbdf and bsimp (error_method), smaller steps where
   * the outputs set the steps, and
   * where the solve read a coefficient table, a table of its own 10 times as
   * accurate;
   * so z_error = z - z_ref estimates the error of z at the output times -- the
   * algebraic components' too (z = (Nhat + Bhat) v + q) -- that integrating the
   * reduced ODE made, the coefficient table's interpolation error included; not
   * the initial value's (z0 is data), not that of sampled data (their Hermite
   * interpolation is shared; the data's error is the tools' sampling_error).
   * At the rounding floor (~max(100, steps) eps max |z|; bsimp: up to 10 times
   * its right-hand sides instead of steps) the estimate says no more than that the
   * error is at that level. */
  double error_estimate; /* max over the output times k and components i of |z_error_ik|;
                            NaN: not estimated */
  double error_tol;      /* the same in units of the tolerance: max over k, i of |z_error_ik| /
                            (atol + rtol max_k |z_ik|), the weights of the integrator's own norm
                            with each component's largest size; > 1: the solve missed rtol/atol */
  int error_worst;       /* component (0-based) where error_tol is attained (-1: none) */
  size_t error_worst_k;  /* and the output (index into times) */
  double *z_error;       /* s x n: the estimated error z - z_ref at each output (NULL: none) */
  lth_ivp_method error_method;
  double error_rtol, error_atol;
  size_t error_steps, error_rhs_evals, error_decomps; /* the reference solve's cost */
  double error_seconds;                               /* its seconds (part of seconds_total) */
  lth_error error_failed; /* why error_estimate is NaN although asked for (status LTH_OK
                             otherwise): the reference solve failed where the solve did not
                             (LTH_ESING, LTH_ECOND from it fail the solve instead: Pi singular
                             or ill-conditioned where the solve stepped over) */
} lth_ivp_result;

/* Solve from z0 at t0 and report at times[0..n-1] (nondecreasing, >= t0).
 * An inconsistent z0 is LTH_ECONSIST (naming the residual) unless opts->project.
 * A Pi that is singular or nearly so anywhere in [t0, times[n-1]] -- also
 * between the integrator's steps -- is LTH_ESING / LTH_ECOND naming t and
 * cond_interval (the scan of opts->pi_scan, and a guard on every step). */
lth_status lth_ivp_solve(const lth_system *sys, double t0, const double *z0, const double *times,
                         size_t n, const lth_ivp_opts *opts, lth_ivp_result **out, lth_error *err);
void lth_ivp_result_free(lth_ivp_result *res);

/* The scan of Pi on [t0, t1] (include/lth/conditioning.h) that lth_ivp_solve and
 * lth_ivp_fundamental run before they integrate, as opts->pi_scan asks (none
 * if opts->pi_scan < 0 or t1 <= t0; opts may be NULL: the defaults): a Pi that
 * is singular or nearly so anywhere on the interval, also between the times
 * an integrator will choose, is LTH_ESING / LTH_ECOND naming t and
 * cond_interval.  A caller needs it when it integrates over [t0, t1] more than
 * once, or with a method of its own, and wants the verdict once, up front:
 * scan here, then pass opts->pi_scan = -1 to the solves (the BVP and LQR
 * solvers do).  *scale (may be NULL) receives the largest chain norm the scan
 * saw. */
lth_status lth_ivp_prescan(const lth_system *sys, double t0, double t1, const lth_ivp_opts *opts,
                           double *scale, lth_error *err);

/* Fundamental solution on the state space (Clark Corollary 2, section 4):
 * Q (m x p) an orthonormal basis of range(I - P(t0)); at each time t_k:
 *   Psi_k = Psi(t_k, t0) Q (m x p),  Phi_k = (Nhat + Bhat(t_k)) Psi_k (s x p),
 *   vp_k, zp_k: the particular solution with state part 0 at t0
 *   (zp = (Nhat + Bhat) vp + q), so every solution is z = Phi c + zp. */
typedef struct lth_fundamental {
  size_t n;
  int s, m, p;
  double t0;
  double *times;
  double *Q;    /* m x p */
  double *Psi;  /* n blocks of m x p */
  double *Phi;  /* n blocks of s x p */
  double *vp;   /* n blocks of m */
  double *zp;   /* n blocks of s */
  double drift; /* max ||P Psi||, ||P vp|| over the times */
  size_t steps, rhs_evals;
} lth_fundamental;

lth_status lth_ivp_fundamental(const lth_system *sys, double t0, const double *times, size_t n,
                               const lth_ivp_opts *opts, lth_fundamental **out, lth_error *err);
void lth_fundamental_free(lth_fundamental *fm);

/* An orthonormal basis Q (m x p, column-major, ld m) of the state space
 * range(I - P) at a decomposed point (SVD of I - P). */
lth_status lth_state_basis(const lth_point *pt, double *Q, lth_error *err);

/* ---- the integrator underneath (used by the BVP solvers) ----
 * Integrates V' = Ahat V (+ g in the last column if affine), V m x ncols. */
typedef struct lth_ivp lth_ivp;
lth_ivp *lth_ivp_alloc(const lth_system *sys, int ncols, int affine, const lth_ivp_opts *opts,
                       double t_lo, double t_hi, lth_error *err);
void lth_ivp_free(lth_ivp *iv);
/* Start at t from V (m x ncols, column-major, ld m). */
lth_status lth_ivp_start(lth_ivp *iv, double t, const double *V, lth_error *err);
/* Integrate to t (>= the current time) and copy the state into V. */
lth_status lth_ivp_advance(lth_ivp *iv, double t, double *V, lth_error *err);
/* Replace the current state (e.g. after reprojection) without moving in time. */
lth_status lth_ivp_reset(lth_ivp *iv, const double *V, lth_error *err);
/* The decomposition (order 0: P, Ahat, g, Bhat, q, G) at t, exact or Hermite. */
lth_status lth_ivp_point(lth_ivp *iv, double t, const lth_point **pt, lth_error *err);
/* The drift damping rate in use (set by lth_ivp_start). */
double lth_ivp_gamma(const lth_ivp *iv);
void lth_ivp_stats(const lth_ivp *iv, size_t *steps, size_t *rhs_evals, size_t *decomps,
                   double *seconds_decomp);

#ifdef __cplusplus
}
#endif
#endif
