/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Integrators, not tools (docs/performance.md, "Integrators on lth's reduced
 * ODE"): the manufactured problems of bench_ivp solved by lth (lth_ivp_solve,
 * defaults: coefficient table, rk8pd; msbdf for the stiff one) and by SUNDIALS
 * IDA integrating lth's own reduced ODE, error against the exact solution vs
 * time, in one run.  IDA gets what lth computed, not the DAE a user would give
 * it; bench_peer compares the tools, each given the problem as its users
 * write it.
 *
 * IDA takes F(t, y, y') = 0 of index <= 1, so it gets the index-0 reduced
 * form lth derives: y = v, F = v' - (Ahat - gamma P) v - g, with the drift
 * damping lth uses, a dense Jacobian c_j I - (Ahat - gamma P), and the outputs
 * z = (Nhat + Bhat) v + q.  Its coefficients come from the same coefficient
 * table (include/lth/table.h), built inside the timed run as lth's is, and
 * its output maps, as lth's for 20 output times, from a decomposition at each
 * (a table carrying them costs more than 20 decompositions): the most
 * favourable coefficients IDA could have, so the comparison is of the
 * integrators.  Each IDA row is compared with the fastest lth run whose error
 * is at most IDA's ("at equal accuracy").
 *
 * Built only when Debian's libsundials-dev is found (bench/ivp_bvp.cmake);
 * never a dependency of the library.   bench_ida [--quick] [--csv] */
#define _DEFAULT_SOURCE /* getloadavg */
#define _POSIX_C_SOURCE 200809L
#include <ida/ida.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "app_blas.h"
#include "benchutil.h"
#include "testsys.h"
#include "lth/ivp.h"
#include "lth/table.h"

#define NOUT 20

typedef struct prob {
  const char *name;
  ts_sys *S;
  lth_system *sys;
  double t1;
  lth_ivp_method lth_method;
  int judged; /* part of the target (the bench_ivp problems); the stiff one is informational */
} prob;

typedef struct ida_ctx {
  const lth_table *tab;
  lth_point *pt;
  int m;
  double gamma;
  int fail;
} ida_ctx;

static int ida_res(realtype t, N_Vector y, N_Vector yp, N_Vector r, void *ud) {
  ida_ctx *c = ud;
  if (lth_table_eval(c->tab, t, 0, 0, c->pt, NULL, NULL) != LTH_OK) {
    c->fail = 1;
    return -1;
  }
  const double *v = N_VGetArrayPointer(y), *vp = N_VGetArrayPointer(yp);
  double *rr = N_VGetArrayPointer(r);
  for (int i = 0; i < c->m; i++) {
    double s = LTH_JET_AT(&c->pt->g, 0, i, 0);
    for (int j = 0; j < c->m; j++) {
      s += (LTH_JET_AT(&c->pt->Ahat, 0, i, j) - c->gamma * LTH_JET_AT(&c->pt->P, 0, i, j)) * v[j];
    }
    rr[i] = vp[i] - s;
  }
  return 0;
}

static int ida_jac(realtype t, realtype cj, N_Vector y, N_Vector yp, N_Vector r, SUNMatrix J,
                   void *ud, N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)y, (void)yp, (void)r, (void)t1, (void)t2, (void)t3;
  ida_ctx *c = ud;
  if (lth_table_eval(c->tab, t, 0, 0, c->pt, NULL, NULL) != LTH_OK) return -1;
  for (int j = 0; j < c->m; j++) {
    for (int i = 0; i < c->m; i++) {
      SM_ELEMENT_D(J, i, j) = (i == j ? cj : 0.0) - LTH_JET_AT(&c->pt->Ahat, 0, i, j) +
                              c->gamma * LTH_JET_AT(&c->pt->P, 0, i, j);
    }
  }
  return 0;
}

/* z = q + v (first m rows) + Bhat v at the table's point. */
static void output(const lth_point *pt, const double *v, double *z) {
  for (int i = 0; i < pt->s; i++) {
    double s = LTH_JET_AT(&pt->q, 0, i, 0) + (i < pt->m ? v[i] : 0.0);
    for (int j = 0; j < pt->m; j++) s += LTH_JET_AT(&pt->Bhat, 0, i, j) * v[j];
    z[i] = s;
  }
}

/* One IDA solve; returns wall seconds (INFINITY on failure) and the error. */
static double ida_solve(const prob *P, double rtol, double *err, long *nsteps) {
  SUNContext sctx;
  if (SUNContext_Create(NULL, &sctx) != 0) return INFINITY;
  int s = P->S->s, m = P->S->m;
  double times[NOUT], z[TS_MAXS], zs[NOUT * TS_MAXS];
  for (int k = 0; k < NOUT; k++) times[k] = P->t1 * (k + 1) / NOUT;
  double wall = bench_now();
  /* the coefficient table, as lth_ivp_solve builds it (tolerance 1e-3 rtol) */
  lth_table_opts to;
  lth_table_opts_init(&to);
  to.tol = fmax(1e-14, fmin(1e-6, 1e-3 * rtol));
  to.outputs = 0;
  lth_table *tab = lth_table_alloc(P->sys, 0.0, P->t1, &to, NULL);
  lth_point *pt = lth_point_alloc(P->sys, 0, NULL), *pz = lth_point_alloc(P->sys, 0, NULL);
  lth_decomp_ws *ws = lth_decomp_ws_alloc(P->sys, 0, NULL);
  ida_ctx c = {.tab = tab, .pt = pt, .m = m, .gamma = 0.0, .fail = 0};
  double out = INFINITY;
  N_Vector y = N_VNew_Serial(m, sctx), yp = N_VNew_Serial(m, sctx);
  SUNMatrix J = SUNDenseMatrix(m, m, sctx);
  SUNLinearSolver LS = SUNLinSol_Dense(y, J, sctx);
  void *mem = IDACreate(sctx);
  if (!tab || !pt || !pz || !ws || lth_table_build(tab, P->t1, NULL) != LTH_OK ||
      lth_table_eval(tab, 0.0, 0, 0, pt, NULL, NULL) != LTH_OK) {
    goto done;
  }
  /* v0 = (I - P(0)) z*(0)(1:m), v0' = (Ahat - gamma P) v0 + g; gamma as lth chooses it */
  double z0[TS_MAXS], na = 0.0;
  ts_exact(P->S, 0.0, z0);
  for (int j = 0; j < m; j++) {
    double cs = 0.0;
    for (int i = 0; i < m; i++) cs += fabs(LTH_JET_AT(&pt->Ahat, 0, i, j));
    na = fmax(na, cs);
  }
  c.gamma = fmax(0.25 * na, 1.0 / P->t1);
  double *v = N_VGetArrayPointer(y);
  for (int i = 0; i < m; i++) {
    v[i] = z0[i];
    for (int j = 0; j < m; j++) v[i] -= LTH_JET_AT(&pt->P, 0, i, j) * z0[j];
  }
  N_VConst(0.0, yp);
  N_Vector r = N_VNew_Serial(m, sctx);
  ida_res(0.0, y, yp, r, &c); /* r = -(Ahat v + g) at yp = 0 */
  N_VScale(-1.0, r, yp);
  N_VDestroy(r);
  if (IDAInit(mem, ida_res, 0.0, y, yp) != IDA_SUCCESS ||
      IDASStolerances(mem, rtol, rtol / 100) != IDA_SUCCESS ||
      IDASetUserData(mem, &c) != IDA_SUCCESS || IDASetLinearSolver(mem, LS, J) != IDA_SUCCESS ||
      IDASetJacFn(mem, ida_jac) != IDA_SUCCESS || IDASetMaxNumSteps(mem, 10000000) != IDA_SUCCESS ||
      IDASetStopTime(mem, P->t1) != IDA_SUCCESS) { /* the table ends at t1 */
    goto done;
  }
  for (int k = 0; k < NOUT; k++) {
    realtype tret;
    if (IDASolve(mem, times[k], &tret, y, yp, IDA_NORMAL) < 0 ||
        lth_decomp_at(ws, times[k], pz, NULL) != LTH_OK) {
      goto done;
    }
    output(pz, N_VGetArrayPointer(y), zs + (size_t)k * s);
  }
  out = bench_now() - wall;
  IDAGetNumSteps(mem, nsteps);
  *err = ts_error(P->S, times, NOUT, zs, 0);
done:
  (void)z;
  IDAFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(J);
  N_VDestroy(y);
  N_VDestroy(yp);
  lth_point_free(pt);
  lth_point_free(pz);
  lth_decomp_ws_free(ws);
  lth_table_free(tab);
  SUNContext_Free(&sctx);
  return out;
}

static double lth_run(const prob *P, double rtol, double *err, size_t *steps) {
  double times[NOUT], z0[TS_MAXS];
  for (int k = 0; k < NOUT; k++) times[k] = P->t1 * (k + 1) / NOUT;
  ts_exact(P->S, 0.0, z0);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = rtol / 100;
  o.method = P->lth_method;
  lth_ivp_result *res = NULL;
  double wall = bench_now();
  lth_status st = lth_ivp_solve(P->sys, 0.0, z0, times, NOUT, &o, &res, NULL);
  wall = bench_now() - wall;
  if (st != LTH_OK) return INFINITY;
  *err = ts_error(P->S, times, NOUT, res->z, 0);
  *steps = res->steps;
  lth_ivp_result_free(res);
  return wall;
}

static const char *const cols[] = {"problem",  "rtol",    "ida_err", "ida_s",   "ida_steps",
                                   "lth_rtol", "lth_err", "lth_s",   "ida/lth", "ahead"};
static const int widths[] = {7, 6, 9, 8, 9, 8, 9, 8, 7, 5};
#define NCOL (int)(sizeof widths / sizeof widths[0])

static int compare(int csv, int quick, const prob *P) {
  const double rt[] = {1e-4, 1e-6, 1e-8, 1e-10, 1e-12};
  int nrt = quick ? 2 : 5, behind = 0;
  double lerr[5], lsec[5];
  for (int k = 0; k < nrt; k++) {
    size_t st;
    lsec[k] = INFINITY;
    for (int rep = 0; rep < (quick ? 3 : 7); rep++)
      lsec[k] = fmin(lsec[k], lth_run(P, rt[k], &lerr[k], &st));
  }
  for (int k = 0; k < nrt; k++) {
    double ierr = NAN, isec = INFINITY;
    long ist = 0;
    for (int rep = 0; rep < (quick ? 3 : 7); rep++)
      isec = fmin(isec, ida_solve(P, rt[k], &ierr, &ist));
    /* the fastest lth run at least as accurate */
    int best = -1;
    for (int j = 0; j < nrt; j++) {
      if (lerr[j] <= ierr && (best < 0 || lsec[j] < lsec[best])) best = j;
    }
    char b[NCOL][40];
    snprintf(b[0], 40, "%s", P->name);
    snprintf(b[1], 40, "%.0e", rt[k]);
    snprintf(b[2], 40, "%.2e", ierr);
    snprintf(b[3], 40, "%.4f", isec);
    snprintf(b[4], 40, "%ld", ist);
    if (best < 0 || !isfinite(isec)) {
      for (int j = 5; j < NCOL; j++) snprintf(b[j], 40, "-");
      behind += isfinite(isec) != 0;
    } else {
      snprintf(b[5], 40, "%.0e", rt[best]);
      snprintf(b[6], 40, "%.2e", lerr[best]);
      snprintf(b[7], 40, "%.4f", lsec[best]);
      snprintf(b[8], 40, "%.1f", isec / lsec[best]);
      snprintf(b[9], 40, "%s%s", lsec[best] <= isec ? "yes" : "NO", P->judged ? "" : "*");
      behind += lsec[best] > isec;
    }
    const char *cells[NCOL];
    for (int j = 0; j < NCOL; j++) cells[j] = b[j];
    bench_emit(csv, NCOL, cells, widths);
    fflush(stdout);
  }
  return behind;
}

int main(int argc, char **argv) {
  app_blas_setup(); /* a front end: BLAS as the tools run it (app_blas.h) */
  int quick = 0, csv = 0;
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--quick") == 0)
      quick = 1;
    else if (strcmp(argv[k], "--csv") == 0)
      csv = 1;
    else {
      fprintf(stderr, "usage: %s [--quick] [--csv]\n", argv[0]);
      return 1;
    }
  }
  double load = -1.0;
  if (getloadavg(&load, 1) != 1) load = -1.0;
  const int n3[] = {3, 3, 1}, n5[] = {2, 2, 2, 2, 1};
  prob P[3] = {{.name = "idx3",
                .S = ts_make(3, n3, 0x1d3, (ts_opts){.amp = 0.2, .damp = 0.5}),
                .t1 = 10.0,
                .lth_method = LTH_IVP_RK8PD,
                .judged = 1},
               {.name = "idx5",
                .S = ts_make(5, n5, 0x1d5, (ts_opts){.amp = 0.2, .damp = 2.0}),
                .t1 = 10.0,
                .lth_method = LTH_IVP_RK8PD,
                .judged = 1},
               {.name = "stiff",
                .S = ts_make(3, n3, 0x57f, (ts_opts){.amp = 0.0, .damp = 1e4}),
                .t1 = 1.0,
                .lth_method = LTH_IVP_MSBDF,
                .judged = 0}};
  bench_title(csv, "integrators, not tools: lth's integrator vs SUNDIALS IDA, both on lth's "
                   "reduced ODE (IDA given lth's coefficient table, projector and Jacobian; "
                   "bench_peer compares the tools); ahead = lth at least as accurate in less "
                   "time");
  if (!csv) printf("load average %.2f at start\n", load);
  bench_emit(csv, NCOL, cols, widths);
  int behind = 0;
  for (int p = 0; p < 3; p++) {
    P[p].sys = P[p].S ? ts_system(P[p].S) : NULL;
    if (!P[p].sys) {
      fprintf(stderr, "bench_ida: cannot build %s\n", P[p].name);
      return 1;
    }
    int b = compare(csv, quick, &P[p]);
    behind += P[p].judged ? b : 0;
    lth_system_free(P[p].sys);
    ts_free(P[p].S);
  }
  if (!csv) {
    printf("\n* informational: the stiff problem (eigenvalues near -1e4, lth with msbdf), not "
           "one of bench_ivp's problems\ntarget (lth ahead at equal accuracy on every row of "
           "idx3 and idx5): %s\n",
           behind ? "NOT met" : "met");
  }
  return 0;
}
