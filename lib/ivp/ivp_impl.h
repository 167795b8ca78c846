/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: pieces shared by the IVP modules (lib/ivp/ivp.c, lib/ivp/ivp_fundamental.c,
 * lib/ivp/ivp_guard.c). */
#ifndef LTH_IVP_IMPL_H
#define LTH_IVP_IMPL_H

#include <stdatomic.h>

#include "lth/ivp.h"

/* The tolerances in effect (opts->rtol, opts->atol, or their defaults where <= 0). */
void lth_ivp_tolerances(const lth_ivp_opts *opts, double *rtol, double *atol);
/* msbdf and bsimp (a Jacobian, coefficients with first derivatives). */
int lth_ivp_method_is_stiff(lth_ivp_method method);

/* Output times nondecreasing and >= t0. */
lth_status lth_ivp_check_times(double t0, const double *times, size_t n, lth_error *err);

/* The scan on a second thread while the integration starts (lib/ivp/ivp_prescan.c;
 * serial with one thread, where start returns the scan's verdict). */
typedef struct lth_ivp_prescan_job {
  const lth_system *sys;
  double t0, t1;
  lth_ivp_opts opts;
  struct lth_pool *pool; /* lth's thread pool (core/threads.h), one thread: NULL when serial */
  _Atomic int done;
  lth_status st;
  lth_error err;
  double scale;
} lth_ivp_prescan_job;

/* Scans estimated to take at least this long run beside (default 2e-3 s;
 * the tests set 0 to exercise the concurrent path on small systems). */
extern double lth_ivp_scan_beside_seconds;
extern double lth_ivp_scan_beside_table_seconds;

lth_status lth_ivp_prescan_start(lth_ivp_prescan_job *j, const lth_system *sys, double t0,
                                 double t1, const lth_ivp_opts *opts, lth_error *err);
/* The scan has finished and refused (no waiting). */
int lth_ivp_prescan_failed(const lth_ivp_prescan_job *j);
/* Wait for the scan (once; later calls return the same): its verdict, its
 * chain scale into *scale, its message into *err when it refused. */
lth_status lth_ivp_prescan_join(lth_ivp_prescan_job *j, double *scale, lth_error *err);

/* Watch over the points the integrator asks for: det Pi must keep the sign
 * it had at the start, and cond_interval (against the largest chain norm seen
 * so far) must stay below cond_max.  A change of sign means the step sequence
 * is about to step over a singular Pi; the guard keeps the last evaluations so
 * that the crossing can be bracketed and bisected (lth_ivp_guard_locate). */
#define LTH_IVP_GUARD_RING 64
typedef struct lth_ivp_guard {
  int sign0;    /* sign of det Pi at the first point (0: unknown) */
  double scale; /* largest chain norm seen */
  double cond_max;
  double t_start;
  double ring_t[LTH_IVP_GUARD_RING];
  size_t nring; /* points recorded (ring index nring % LTH_IVP_GUARD_RING) */
  int tripped;  /* 1: sign change at t_flip; 2: cond_interval above cond_max */
  double t_flip, kappa;
  struct lth_ivp_prescan_job *pending; /* the scan whose chain scale is still to come */
  const lth_system *sys; /* (lth_ivp_guard_locate's scan where a decomposition refuses) */
} lth_ivp_guard;

void lth_ivp_guard_init(lth_ivp_guard *g, double t_start, double scale, double cond_max);
/* Judge one decomposed point (pt->pi_sign == 0, e.g. interpolated coefficients,
 * is not judged).  Returns LTH_OK or LTH_ECOND (with the message); a sign
 * change returns LTH_ESING with a provisional message, to be refined by
 * lth_ivp_guard_locate. */
lth_status lth_ivp_guard_point(lth_ivp_guard *g, const lth_point *pt, lth_error *err);
/* After a sign change: bisect between the last point with the starting sign
 * and t_flip with eval (a decomposition at t) and fill err naming t*. */
typedef lth_status (*lth_ivp_guard_eval)(void *ctx, double t, const lth_point **pt);
lth_status lth_ivp_guard_locate(lth_ivp_guard *g, int r, lth_ivp_guard_eval eval, void *ctx,
                                lth_error *err);

/* After the integrator gave up at tf on its way to t_to: a sign change of
 * det Pi just ahead (bisected, LTH_ESING) or cond_interval above cond_max
 * there (LTH_ECOND); LTH_OK if neither. */
lth_status lth_ivp_guard_probe(lth_ivp_guard *g, int r, double tf, double t_to, double span,
                               lth_ivp_guard_eval eval, void *ctx, lth_error *err);

/* Raise the guard's chain-norm scale (e.g. to the scan's). */
void lth_ivp_guard_scale(lth_ivp *iv, double scale);

/* lib/ivp/ivp_outpoly.c: the decomposed points the collocation integrator
 * asked for (P, Bhat, q at its nodes), kept so that an output time inside
 * its step takes z = (Nhat + Bhat) v + q from the polynomial through the
 * step's points instead of a decomposition of its own.  alloc: NULL where
 * the points are too large to keep (or no memory): every output decomposes. */
typedef struct lth_ivp_nodes lth_ivp_nodes;
/* ||Nhat + Bhat||_inf (Nhat = [I_m; 0]) of Bhat (s x m, leading dimension
 * ldb): how much z = (Nhat + Bhat) v + q can amplify an error of v. */
double lth_ivp_output_gain(const double *B, int ldb, int s, int m);
lth_ivp_nodes *lth_ivp_nodes_alloc(int s, int m);
void lth_ivp_nodes_free(lth_ivp_nodes *nd);
/* Keep a point decomposed at pt->t (a full decomposition: P, Bhat, q). */
void lth_ivp_nodes_keep(lth_ivp_nodes *nd, const lth_point *pt);
/* z (s), ||P v|| and ||Nhat + Bhat||_inf (Bhat interpolated as z is) at t in the step of degree N
 * with nodes tn and values v at Y + j m: 1, or 0 where a point is not kept or z is not resolved by
 * the step's degree. */
int lth_ivp_nodes_output(lth_ivp_nodes *nd, int N, const double *tn, const double *Y, double t,
                         double rtol, double atol, double *z, double *drift, double *gain);

/* lib/ivp/ivp.c for lib/ivp/ivp_solve.c: z, ||P v|| and the output gain at
 * t (the integrator's last time) from the integrator's last step
 * (lth_ivp_nodes_output); 0 where it cannot serve them. */
int lth_ivp_output_from_step(lth_ivp *iv, double t, double *z, double *drift, double *gain);

/* lib/ivp/ivp.c for lib/ivp/ivp_solve.c: the scan the guard waits for and the
 * output density the table is told; the run's statistics into res. */
void lth_ivp_attach_scan(lth_ivp *iv, lth_ivp_prescan_job *scan, double outputs_per_t);
void lth_ivp_report(const lth_ivp *iv, lth_ivp_result *res);

/* For the reference solve of the global error estimate (lib/ivp_error.c):
 * the next lth_ivp_start uses this method (of the same kind, stiff or not, as
 * the integrator was allocated for), these tolerances, a smallest step of
 * hmin_frac times the span and a largest of hmax (0: none). */
lth_status lth_ivp_retune(lth_ivp *iv, lth_ivp_method method, double rtol, double atol,
                          double hmin_frac, double hmax, lth_error *err);

/* lib/ivp_solve.c for lib/ivp_error.c: v0 = (I - P(t0)) res->z0_used(1:m), then
 * res->z, res->v (and the drift) at the n output times. */
lth_status lth_ivp_integrate_outputs(lth_ivp *iv, double t0, const double *times, size_t n,
                                     const lth_ivp_opts *o, lth_ivp_result *res, lth_error *err);
lth_ivp_result *lth_ivp_result_alloc(int s, int m, size_t n);

/* lib/ivp_error.c: the global error estimate into res (lth_ivp_result.error_*),
 * after res holds the solve by iv through times[0..n-1] from res->z0_used at
 * t0 (chain_scale: the largest chain norm the solve's scan of Pi saw).
 * Refuses (LTH_ESING, LTH_ECOND) only where the reference solve found Pi
 * singular or ill-conditioned; any other failure of it leaves the estimate
 * NaN with the reason in res->error_failed. */
lth_status lth_ivp_error_estimate(const lth_system *sys, lth_ivp *iv, double chain_scale, double t0,
                                  const double *times, size_t n, const lth_ivp_opts *o,
                                  lth_ivp_result *res, lth_error *err);

/* lib/ivp/ivp_const.c: 1 when lth_ivp_solve may use the exact propagator of
 * constant data (opts->propagate, include/lth/ivp.h) on [t0, t1]; the solve
 * from res->z0_used into res (times, z, v, drift, output gain, counts).
 * LTH_ERANGE (err set) where the substeps would cost more than integrating
 * is worth: the caller integrates instead. */
/* lib/ivp/ivp_error.c: z_error = z - z_ref (in place over zref) and
 * error_estimate, error_tol, error_worst, error_worst_k from it. */
void lth_ivp_error_compare(lth_ivp_result *res, double *zref, double rtol, double atol);

/* lib/ivp/ivp_expm.c: E = exp(X) (n x n, column-major), GSL's scaling and
 * squaring; 0, or -1 with GSL's reason in *why. */
int lth_ivp_expm(const double *X, int n, int ldx, double *E, int lde, const char **why);

int lth_ivp_const_applies(const lth_system *sys, double t0, double t1, const lth_ivp_opts *o);
lth_status lth_ivp_const_solve(const lth_system *sys, double t0, const double *times, size_t n,
                               const lth_ivp_opts *o, lth_ivp_result *res, lth_error *err);

#endif
