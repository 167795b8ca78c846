/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SUNDIALS CVODE under the operator-form initial-value solver (opivp_impl.h):
 * the reduced ODE v' = Ahat(t) v + g(t) (Clark's Theorem 1), right-hand side,
 * Jacobian-vector product Ahat(t) x and projection with I - P(t) all from the
 * point cached by t.  CVODE's messages go into the error record (an error
 * handler of our own), never to a stream.  Built only with LTH_HAVE_CVODE. */
#ifdef LTH_HAVE_CVODE
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <cvode/cvode_proj.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunnonlinsol/sunnonlinsol_fixedpoint.h>

#include "opivp_impl.h"
#include "opivp_prec.h"

typedef struct cv_run {
  opivp_ctx *c;
  char msg[256]; /* CVODE's last error message */
  int has_msg;
  double *tmp;      /* m: the projected error estimate */
  opivp_prec *prec; /* BDF's preconditioner (opivp_prec.h), or NULL */
} cv_run;

/* ---- vector kernels ----
 * The operations CVODE spends its own time in, as plain loops over the
 * serial vector's data: Debian's libsundials takes about 20 us for a linear
 * sum of 10^4 entries and 65 us for a weighted RMS norm where these take 2-4
 * us (measured on the bench machine).  The same arithmetic, summed in the
 * same order.  Clones (CVODE's and SPGMR's vectors) inherit the table. */

static void nv_linearsum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  const double *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  double *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) zd[i] = a * xd[i] + b * yd[i];
}

static void nv_scale(sunrealtype c, N_Vector x, N_Vector z) {
  const double *xd = NV_DATA_S(x);
  double *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) zd[i] = c * xd[i];
}

static sunrealtype nv_dotprod(N_Vector x, N_Vector y) {
  const double *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  double sum = 0.0;
  for (sunindextype i = 0; i < NV_LENGTH_S(x); i++) sum += xd[i] * yd[i];
  return sum;
}

static sunrealtype nv_wrmsnorm(N_Vector x, N_Vector w) {
  const double *xd = NV_DATA_S(x), *wd = NV_DATA_S(w);
  sunindextype n = NV_LENGTH_S(x);
  double sum = 0.0;
  for (sunindextype i = 0; i < n; i++) {
    double p = xd[i] * wd[i];
    sum += p * p;
  }
  return sqrt(sum / (double)n);
}

/* z = x y and z = x / y (GMRES's scaling by the error weights). */
static void nv_prod(N_Vector x, N_Vector y, N_Vector z) {
  const double *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  double *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) zd[i] = xd[i] * yd[i];
}

static void nv_div(N_Vector x, N_Vector y, N_Vector z) {
  const double *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  double *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) zd[i] = xd[i] / yd[i];
}

/* z = sum_j c_j X_j (z may be X_0), term by term in j as SUNDIALS sums. */
static int nv_linearcombination(int nvec, sunrealtype *c, N_Vector *X, N_Vector z) {
  double *zd = NV_DATA_S(z);
  const double *x0 = NV_DATA_S(X[0]);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) {
    double acc = c[0] * x0[i];
    for (int j = 1; j < nvec; j++) acc += c[j] * NV_DATA_S(X[j])[i];
    zd[i] = acc;
  }
  return 0;
}

/* Z_j = a_j x + Y_j. */
static int nv_scaleaddmulti(int nvec, sunrealtype *a, N_Vector x, N_Vector *Y, N_Vector *Z) {
  const double *xd = NV_DATA_S(x);
  for (int j = 0; j < nvec; j++) {
    const double *yd = NV_DATA_S(Y[j]);
    double *zd = NV_DATA_S(Z[j]);
    for (sunindextype i = 0; i < NV_LENGTH_S(x); i++) zd[i] = a[j] * xd[i] + yd[i];
  }
  return 0;
}

/* CVODE's fused operations (one pass for several vectors) with the kernels
 * above; 0 on success. */
static int nv_setup(N_Vector y) {
  if (N_VEnableFusedOps_Serial(y, SUNTRUE) != 0) {
    return -1;
  }
  y->ops->nvlinearsum = nv_linearsum;
  y->ops->nvscale = nv_scale;
  y->ops->nvprod = nv_prod;
  y->ops->nvdiv = nv_div;
  y->ops->nvdotprod = nv_dotprod;
  y->ops->nvwrmsnorm = nv_wrmsnorm;
  y->ops->nvlinearcombination = nv_linearcombination;
  y->ops->nvscaleaddmulti = nv_scaleaddmulti;
  return 0;
}

/* CVODE reports through this instead of printing. */
static void cv_errors(int code, const char *module, const char *function, char *msg, void *ud) {
  cv_run *run = ud;
  if (code >= 0) return; /* warnings (e.g. t + h = t) are not failures */
  snprintf(run->msg, sizeof run->msg, "%s (%s, %s, code %d)", msg, function, module, code);
  run->has_msg = 1;
}

/* A failed decomposition is unrecoverable (-1): it names t, and another step
 * size would only move the refusal. */
static int cv_rhs(double t, N_Vector y, N_Vector ydot, void *ud) {
  cv_run *run = ud;
  return opivp_rhs(run->c, t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot)) == LTH_OK ? 0 : -1;
}

/* Jv = Ahat(t) v: the Jacobian of the linear right-hand side, at the point the
 * right-hand side at t has just decomposed. */
static int cv_jtimes(N_Vector v, N_Vector Jv, double t, N_Vector y, N_Vector fy, void *ud,
                     N_Vector tmp) {
  (void)y, (void)fy, (void)tmp;
  cv_run *run = ud;
  return opivp_jv(run->c, t, N_VGetArrayPointer(v), N_VGetArrayPointer(Jv)) == LTH_OK ? 0 : -1;
}

/* Projection onto range(I - P(t)) (Theorem 2's invariant): corr = -P y, and
 * the error estimate replaced by its (I - P) part. */
static int cv_project(double t, N_Vector ycur, N_Vector corr, double eps, N_Vector err, void *ud) {
  (void)eps;
  cv_run *run = ud;
  opivp_ctx *c = run->c;
  double *cr = N_VGetArrayPointer(corr);
  if (opivp_proj(c, t, 0, N_VGetArrayPointer(ycur), cr) != LTH_OK) return -1;
  for (int i = 0; i < c->m; i++) cr[i] = -cr[i];
  if (err) {
    double *e = N_VGetArrayPointer(err);
    if (opivp_proj(c, t, 1, e, run->tmp) != LTH_OK) return -1;
    memcpy(e, run->tmp, (size_t)c->m * sizeof(double));
  }
  return 0;
}

/* The preconditioner's set-up and solve (opivp_prec.h), applied on the right:
 * SPGMR's test stays on the Newton system's own residual. */
static int cv_psetup(double t, N_Vector y, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                     double gamma, void *ud) {
  (void)y, (void)fy;
  cv_run *run = ud;
  int taken = 0;
  int f = opivp_prec_setup(run->prec, run->c, t, jok, gamma, &taken);
  *jcur = taken ? SUNTRUE : SUNFALSE;
  return f;
}

static int cv_psolve(double t, N_Vector y, N_Vector fy, N_Vector r, N_Vector z, double gamma,
                     double delta, int lr, void *ud) {
  (void)y, (void)fy, (void)gamma, (void)delta, (void)lr;
  cv_run *run = ud;
  return opivp_prec_solve(run->prec, run->c, t, N_VGetArrayPointer(r), N_VGetArrayPointer(z));
}

/* The status of a failed CVode call: the decomposition's refusal if a
 * callback recorded one, else CVODE's own message naming t. */
static lth_status cv_failure(cv_run *run, void *mem, int flag, double tout, lth_error *err) {
  if (run->c->failed) {
    *err = run->c->fail;
    return err->status;
  }
  double t = tout;
  CVodeGetCurrentTime(mem, &t);
  return lth_error_set_t(err, LTH_EINTEG, t, "CVODE failed at t = %.17g (flag %d): %s", t, flag,
                         run->has_msg ? run->msg : "no message");
}

/* Add CVODE's counters since its last (re)start to res. */
static void counters(void *mem, lth_opivp_result *res) {
  long a = 0;
  if (CVodeGetNumSteps(mem, &a) == CV_SUCCESS) res->steps += (size_t)a;
  if (CVodeGetNumRhsEvals(mem, &a) == CV_SUCCESS) res->rhs_evals += (size_t)a;
  if (CVodeGetNumProjEvals(mem, &a) == CV_SUCCESS) res->projections += (size_t)a;
  a = 0; /* the linear solver's, when there is one */
  if (CVodeGetNumJtimesEvals(mem, &a) == CV_SUCCESS) res->jv_evals += (size_t)a;
  a = 0;
  if (CVodeGetNumLinIters(mem, &a) == CV_SUCCESS) res->lin_iters += (size_t)a;
}

/* CVODE set up for the method: BDF with matrix-free SPGMR and the projection,
 * or Adams with fixed-point iteration.  Returns a CVODE flag (< 0: failed). */
static int cv_setup(void *mem, cv_run *run, double t0, double t_end, N_Vector y, SUNContext sctx,
                    SUNLinearSolver *LS, SUNNonlinearSolver *NLS) {
  const lth_opivp_opts *o = &run->c->o;
  int f = CVodeSetErrHandlerFn(mem, cv_errors, run);
  if (f >= 0) f = CVodeInit(mem, cv_rhs, t0, y);
  if (f >= 0) f = CVodeSetUserData(mem, run);
  if (f >= 0) f = CVodeSStolerances(mem, o->rtol, o->atol);
  if (f >= 0) f = CVodeSetMaxNumSteps(mem, (long)o->max_steps);
  if (f < 0) return f;
  if (o->method == LTH_OPIVP_BDF) {
    if (opivp_prec_wanted(run->c, t0, t_end)) {
      /* its pattern is the point's: decompose at t0 (cached) first */
      if (opivp_at(run->c, t0) != LTH_OK || !(run->prec = opivp_prec_alloc(run->c))) return -1;
    }
    *LS = SUNLinSol_SPGMR(y, run->prec ? SUN_PREC_RIGHT : SUN_PREC_NONE, o->krylov_dim, sctx);
    if (!*LS) return -1;
    f = CVodeSetLinearSolver(mem, *LS, NULL);
    if (f >= 0) f = CVodeSetJacTimes(mem, NULL, cv_jtimes);
    if (f >= 0 && run->prec) f = CVodeSetPreconditioner(mem, cv_psetup, cv_psolve);
    if (f >= 0) f = CVodeSetProjFn(mem, cv_project);
  } else {
    *NLS = SUNNonlinSol_FixedPoint(y, 0, sctx);
    if (!*NLS) return -1;
    f = CVodeSetNonlinearSolver(mem, *NLS);
  }
  return f;
}

/* Carry the state over a located kink or jump [tcur, to] (opivp_stretch.c):
 * projected onto range(I - P(to)), and CVODE restarted there without the
 * history from before. */
static lth_status jump(cv_run *run, void *mem, N_Vector y, double *tcur, double to,
                       lth_opivp_result *res, lth_error *err) {
  opivp_ctx *c = run->c;
  double *Y = N_VGetArrayPointer(y);
  if (opivp_proj(c, to, 1, Y, run->tmp) != LTH_OK) {
    *err = c->fail;
    return err->status;
  }
  memcpy(Y, run->tmp, (size_t)c->m * sizeof(double));
  counters(mem, res);
  if (CVodeReInit(mem, to, y) < 0) return cv_failure(run, mem, -1, to, err);
  *tcur = to;
  return LTH_OK;
}

/* Integrate from *tcur to t stretch by stretch (opivp_stretch_end): stop
 * at the output time, not past it, so that the output is a step's projected
 * end, not CVODE's interpolant (whose history is not projected: the drift
 * there is of the order of the tolerance). */
static lth_status advance(cv_run *run, void *mem, N_Vector y, double *tcur, double t,
                          lth_opivp_result *res, lth_error *err) {
  while (*tcur < t) {
    int cross;
    double hmax, to = opivp_stretch_end(&run->c->stretch, *tcur, t, &cross, &hmax);
    if (cross) {
      lth_status st = jump(run, mem, y, tcur, to, res, err);
      if (st != LTH_OK) return st;
      continue;
    }
    int f = CVodeSetMaxStep(mem, hmax);
    if (f >= 0) f = CVodeSetStopTime(mem, to);
    if (f >= 0) f = CVode(mem, to, y, tcur, CV_NORMAL);
    if (f < 0) return cv_failure(run, mem, f, to, err);
    *tcur = to;
  }
  return LTH_OK;
}

lth_status opivp_integrate(opivp_ctx *c, double t0, const double *v0, const double *times, size_t n,
                           opivp_out_fn out, lth_opivp_result *res, lth_error *err) {
  cv_run run = {.c = c};
  SUNContext sctx = NULL;
  N_Vector y = NULL;
  SUNLinearSolver LS = NULL;
  SUNNonlinearSolver NLS = NULL;
  void *mem = NULL;
  lth_status st = LTH_OK;
  run.tmp = malloc((size_t)c->m * sizeof(double));
  if (!run.tmp || SUNContext_Create(NULL, &sctx) != 0 || !(y = N_VNew_Serial(c->m, sctx)) ||
      !(mem = CVodeCreate(c->o.method == LTH_OPIVP_BDF ? CV_BDF : CV_ADAMS, sctx))) {
    st = lth_error_set(err, LTH_ENOMEM, "lth_opivp_solve: out of memory setting up CVODE");
    goto done;
  }
  if (nv_setup(y) != 0) {
    st = lth_error_set(err, LTH_EINTEG, "lth_opivp_solve: CVODE's fused vector operations");
    goto done;
  }
  double *Y = N_VGetArrayPointer(y);
  memcpy(Y, v0, (size_t)c->m * sizeof(double));
  int f = cv_setup(mem, &run, t0, times[n - 1], y, sctx, &LS, &NLS);
  if (f < 0) {
    st = cv_failure(&run, mem, f, t0, err);
    goto done;
  }
  double tcur = t0;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    if (times[k] > tcur) {
      st = opivp_prove(c, tcur, times[k], err);
      if (st == LTH_OK) st = advance(&run, mem, y, &tcur, times[k], res, err);
      if (st != LTH_OK) break;
    }
    st = out(c, k, Y, res, err);
    if (st == LTH_OK && c->o.progress) {
      c->o.progress(c->o.progress_ctx, times[k], times[n - 1]);
    }
    if (st == LTH_OK && c->o.method == LTH_OPIVP_ADAMS && k + 1 < n) {
      /* Adams is not projected per step (CVODE projects BDF only): project
       * here and restart from the projected state */
      if (opivp_proj(c, tcur, 1, Y, run.tmp) != LTH_OK) {
        *err = c->fail;
        st = err->status;
      } else {
        memcpy(Y, run.tmp, (size_t)c->m * sizeof(double));
        counters(mem, res);
        if (CVodeReInit(mem, tcur, y) < 0) st = cv_failure(&run, mem, -1, tcur, err);
      }
    }
  }
  counters(mem, res);
  res->preconditioned = run.prec != NULL;
  res->prec_setups = opivp_prec_setups(run.prec);
done:
  if (mem) CVodeFree(&mem);
  if (LS) SUNLinSolFree(LS);
  if (NLS) SUNNonlinSolFree(NLS);
  if (y) N_VDestroy(y);
  if (sctx) SUNContext_Free(&sctx);
  free(run.tmp);
  opivp_prec_free(run.prec);
  return st;
}
#else
typedef int opivp_cvode_absent; /* a translation unit declares something */
#endif
