/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The scale benchmark (docs/performance.md, "At size"): an index-3
 * mechanical chain of n masses with m rigid links, s = 2n + m unknowns,
 *   x' = v,   v' = -kappa(t) K0 x - delta(t) v + G' lambda + f(t),   0 = G x - g(t),
 * K0 = 10 tridiag(-1, 2, -1), kappa = 1 + 0.1 sin t, delta = 0.1 (1 + 0.05 cos t),
 * G: m rows e_a - e_{a+1} spread along the chain; f and g manufactured from
 * the exact solution x*_i = 0.1 sin(t + 0.3 i), lambda*_j = 0.5 cos(t + j).
 *
 * SUNDIALS IDA gets it as its users at this size write it: the index-1 form
 * (the constraint differentiated twice, 0 = G v' - g'' with v' replaced by
 * its right-hand side, so lambda is of index 1), a sparse Jacobian routine
 * and the KLU direct solver, consistent y0, y0' from the closed form.  lth
 * gets the Hessenberg DAE (blocks v, x, lambda) through C callbacks twice:
 * dense, through lth_ivp_solve, where it fits (--lth-max, default s <= 1,000:
 * row "lth"), and in operator form at every size (row "lth-op": sparse blocks
 * -- A11 diagonal, A12 tridiagonal, G and G' with two entries a link -- and
 * lth_opivp_solve, CVODE BDF with matrix-free GMRES, nothing s x s formed;
 * its drift column also holds max ||P v|| / max(1, ||v||) after the steps).
 * Row "ida-fv": IDA again with the vector kernels lth_opivp_solve gives CVODE
 * in place of the serial N_Vector's (the comparison without that difference).
 *
 * Per size and tool, in a child process (so that its peak memory is its
 * own, wait4): CPU time of the whole solve on [0, 1] at rtol = atol = 1e-8
 * (one core: LTH_NUM_THREADS = OPENBLAS_NUM_THREADS = 1), peak RSS, the
 * error max over 20 output times of |z - z*| / max(1, |z*|), and the drift
 * max |G x - g| (the index-1 form does not keep the position constraint).
 *
 *   bench_scale [--sizes N1,N2,...] [--links M] [--lth-max S] [--rtol R] [--quick]
 *   bench_scale --stokes G1,G2,... [--lth-max S] [--ida-max S] [--rtol R] [--cpu-max SEC]
 *
 * --stokes: instead of the chain, the Stokes-type case of index 2 with
 * n_r ~ s/3 on grids of G x G cells (bench/scale_stokes.c; s = 2 G (G + 1)
 * + G^2), the operator form with the sparse factorization of Pi, and with
 * the dense one up to --lth-max, IDA up to --ida-max (default: every size);
 * each tool stopped after --cpu-max seconds of CPU (default 600).
 * --quick: n = 50, m = 2, every tool, errors below 1e-5 (the smoke test),
 * then the Stokes case on an 8 x 8 grid the same way.
 * BENCH_SCALE_PREC=0|1 forces lth_opivp_solve's preconditioner off or on
 * (lth_opivp_opts.precondition; default: its automatic choice);
 * BENCH_SCALE_PI_PROOF=0 turns off the proof that Pi is nonsingular between
 * the output times (lth_opivp_opts.pi_proof = -1), to measure its cost. */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <ida/ida.h>
#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_blas.h"
#include "lth/ivp.h"
#include "lth/opdecomp.h"
#include "lth/opivp.h"
#include "lth/system.h"
#include "scale_stokes.h"

#define NOUT 20

/* sin and cos of t + 0.3 i for every mass at the last t asked for: every
 * derivative of x*_i is one of +-0.1 sin, +-0.1 cos of that angle, so each
 * tool's forcing at t costs one sin and one cos a mass (IDA's residual and
 * lth's Taylor coefficients alike). */
#define TRIG_D 8
typedef struct trig {
  double t;
  double *s, *c;                 /* n */
  double ka[TRIG_D], de[TRIG_D]; /* kappa, delta and their derivatives */
} trig;

typedef struct chain {
  int n, m;
  int *link; /* m: G row j is e_link[j] - e_link[j]+1 */
  trig *tr;  /* the forcing's table, refilled when t changes */
} chain;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The d-th derivatives of the exact solution and of the coefficients. */
static double xs(int i, double t, int d) { return 0.1 * sin(t + 0.3 * i + d * M_PI / 2); }
static double ls(int j, double t, int d) { return 0.5 * cos(t + j + d * M_PI / 2); }
static double kappa(double t, int d) {
  return d == 0 ? 1.0 + 0.1 * sin(t) : 0.1 * sin(t + d * M_PI / 2);
}
static double delta(double t, int d) {
  return d == 0 ? 0.1 * (1.0 + 0.05 * cos(t)) : 0.005 * cos(t + d * M_PI / 2);
}

/* The table at t (for the forcing; the exact solution at the outputs uses xs). */
static void trig_at(const chain *C, double t) {
  trig *T = C->tr;
  if (T->t == t) return;
  for (int i = 0; i < C->n; i++) {
    double a = t + 0.3 * i;
    T->s[i] = sin(a), T->c[i] = cos(a);
  }
  for (int d = 0; d < TRIG_D; d++) T->ka[d] = kappa(t, d), T->de[d] = delta(t, d);
  T->t = t;
}

/* xs(i, t, d) from the table at t: sin(a + d pi/2) is s, c, -s, -c. */
static double xt(const chain *C, int i, int d) {
  const trig *T = C->tr;
  double v = (d & 1) ? T->c[i] : T->s[i];
  return 0.1 * ((d & 2) ? -v : v);
}

/* (K0 x)_i with K0 = 10 tridiag(-1, 2, -1). */
static double k0x(const chain *C, const double *x, int i) {
  double s = 2.0 * x[i];
  if (i > 0) s -= x[i - 1];
  if (i < C->n - 1) s -= x[i + 1];
  return 10.0 * s;
}
static double k0xs(const chain *C, int i, int d) {
  double s = 2.0 * xt(C, i, d);
  if (i > 0) s -= xt(C, i - 1, d);
  if (i < C->n - 1) s -= xt(C, i + 1, d);
  return 10.0 * s;
}

/* The d-th derivative of f_i = x*'' + kappa K0 x* + delta x*' - (G' lambda*)_i
 * (the table at t: trig_at). */
static double force(const chain *C, int i, double t, int d) {
  double s = xt(C, i, d + 2);
  double binom = 1.0;
  for (int a = 0; a <= d; a++) {
    double ka = a < TRIG_D ? C->tr->ka[a] : kappa(t, a),
           de = a < TRIG_D ? C->tr->de[a] : delta(t, a);
    s += binom * (ka * k0xs(C, i, d - a) + de * xt(C, i, d - a + 1));
    binom = binom * (d - a) / (a + 1);
  }
  for (int j = 0; j < C->m; j++) {
    if (C->link[j] == i) s -= ls(j, t, d);
    if (C->link[j] + 1 == i) s += ls(j, t, d);
  }
  return s;
}
static double gcon(const chain *C, int j, double t, int d) {
  return xs(C->link[j], t, d) - xs(C->link[j] + 1, t, d);
}

/* ---- IDA + KLU on the index-1 form: y = (x, v, lambda) ---- */

typedef struct ida_ctx {
  const chain *C;
  double *kx, *glam; /* scratch n */
} ida_ctx;

static int ida_res(double t, N_Vector yy, N_Vector yp, N_Vector rr, void *ud) {
  ida_ctx *c = ud;
  const chain *C = c->C;
  int n = C->n, m = C->m;
  const double *y = N_VGetArrayPointer(yy), *d = N_VGetArrayPointer(yp);
  double *r = N_VGetArrayPointer(rr);
  const double *x = y, *v = y + n, *lam = y + 2 * n;
  double ka = kappa(t, 0), de = delta(t, 0);
  memset(c->glam, 0, (size_t)n * sizeof(double));
  for (int j = 0; j < m; j++) {
    c->glam[C->link[j]] += lam[j];
    c->glam[C->link[j] + 1] -= lam[j];
  }
  trig_at(C, t);
  for (int i = 0; i < n; i++) {
    c->kx[i] = -ka * k0x(C, x, i) - de * v[i] + c->glam[i] + force(C, i, t, 0); /* v' */
    r[i] = d[i] - v[i];
    r[n + i] = d[n + i] - c->kx[i];
  }
  for (int j = 0; j < m; j++) { /* G v' - g'' = 0 with v' its right-hand side */
    r[2 * n + j] = c->kx[C->link[j]] - c->kx[C->link[j] + 1] - gcon(C, j, t, 2);
  }
  return 0;
}

/* The Jacobian dF/dy + cj dF/dy' in CSC, column by column. */
static int ida_jac(double t, double cj, N_Vector yy, N_Vector yp, N_Vector rr, SUNMatrix J,
                   void *ud, N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)yy, (void)yp, (void)rr, (void)t1, (void)t2, (void)t3;
  ida_ctx *c = ud;
  const chain *C = c->C;
  int n = C->n, m = C->m;
  double ka = kappa(t, 0), de = delta(t, 0);
  sunindextype *cp = SUNSparseMatrix_IndexPointers(J), *ri = SUNSparseMatrix_IndexValues(J);
  double *val = SUNSparseMatrix_Data(J);
  sunindextype nz = 0;
  /* row of link j in the last block: kx[a] - kx[a+1] = dv'_a - dv'_{a+1} */
  for (int col = 0; col < 2 * n + m; col++) {
    cp[col] = nz;
    if (col < n) { /* x_i: r_x (cj), r_v (ka K0 column), r_lam (-G ka K0 column) */
      int i = col;
      ri[nz] = i, val[nz++] = cj;
      for (int k = i - 1; k <= i + 1; k++) {
        if (k < 0 || k >= n) continue;
        ri[nz] = n + k, val[nz++] = ka * 10.0 * (k == i ? 2.0 : -1.0);
      }
      for (int j = 0; j < m; j++) {
        int a = C->link[j];
        double s = 0.0;
        for (int k = a; k <= a + 1; k++) {
          if (abs(k - i) > 1) continue;
          double kk = 10.0 * (k == i ? 2.0 : -1.0);
          s += (k == a ? -1.0 : 1.0) * ka * kk;
        }
        if (s != 0.0) ri[nz] = 2 * n + j, val[nz++] = s;
      }
    } else if (col < 2 * n) { /* v_i */
      int i = col - n;
      ri[nz] = i, val[nz++] = -1.0;
      ri[nz] = n + i, val[nz++] = cj + de;
      for (int j = 0; j < m; j++) {
        int a = C->link[j];
        if (i == a) ri[nz] = 2 * n + j, val[nz++] = -de;
        if (i == a + 1) ri[nz] = 2 * n + j, val[nz++] = de;
      }
    } else { /* lambda_j: r_v (-G'), r_lam (G G') */
      int j = col - 2 * n, a = C->link[j];
      ri[nz] = n + a, val[nz++] = -1.0;
      ri[nz] = n + a + 1, val[nz++] = 1.0;
      for (int k = 0; k < m; k++) {
        int b = C->link[k];
        double s = 0.0; /* (G G')_{kj} */
        if (b == a)
          s = 2.0;
        else if (b == a + 1 || b + 1 == a)
          s = -1.0;
        if (s != 0.0) ri[nz] = 2 * n + k, val[nz++] = s;
      }
    }
  }
  cp[2 * n + m] = nz;
  return 0;
}

typedef struct result {
  double cpu, err, drift;
  double pdrift; /* lth in operator form: max ||P v|| / max(1, ||v||) */
  size_t steps, rhs, decomps, jv, lin;
  double decomp_share; /* of the solve's wall clock */
  long rss_kb;
  int ok;
} result;

static void exact(const chain *C, double t, double *x, double *v, double *lam) {
  for (int i = 0; i < C->n; i++) x[i] = xs(i, t, 0), v[i] = xs(i, t, 1);
  for (int j = 0; j < C->m; j++) lam[j] = ls(j, t, 0);
}

static void account(const chain *C, double t, const double *x, const double *v, const double *lam,
                    result *R) {
  int n = C->n, m = C->m;
  double *ex = malloc(sizeof(double) * (2 * (size_t)n + m));
  exact(C, t, ex, ex + n, ex + 2 * n);
  for (int i = 0; i < n; i++) {
    R->err = fmax(R->err, fabs(x[i] - ex[i]) / fmax(1.0, fabs(ex[i])));
    R->err = fmax(R->err, fabs(v[i] - ex[n + i]) / fmax(1.0, fabs(ex[n + i])));
  }
  for (int j = 0; j < m; j++) {
    R->err = fmax(R->err, fabs(lam[j] - ex[2 * n + j]) / fmax(1.0, fabs(ex[2 * n + j])));
    int a = C->link[j];
    R->drift = fmax(R->drift, fabs(x[a] - x[a + 1] - gcon(C, j, t, 0)));
  }
  free(ex);
}

/* ---- the vector kernels lth_opivp_solve gives CVODE (lib/ivp/opivp_cvode.c),
 * for the row "ida-fv": IDA with the same plain loops in place of the serial
 * N_Vector's (Debian's takes ~20 us for a linear sum of 10^4 entries, these
 * 2-4 us), so that the comparison can also be read without that difference. */
static void fv_linearsum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  const double *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  double *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) zd[i] = a * xd[i] + b * yd[i];
}
static void fv_scale(sunrealtype c, N_Vector x, N_Vector z) {
  const double *xd = NV_DATA_S(x);
  double *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) zd[i] = c * xd[i];
}
static sunrealtype fv_dotprod(N_Vector x, N_Vector y) {
  const double *xd = NV_DATA_S(x), *yd = NV_DATA_S(y);
  double sum = 0.0;
  for (sunindextype i = 0; i < NV_LENGTH_S(x); i++) sum += xd[i] * yd[i];
  return sum;
}
static sunrealtype fv_wrmsnorm(N_Vector x, N_Vector w) {
  const double *xd = NV_DATA_S(x), *wd = NV_DATA_S(w);
  double sum = 0.0;
  for (sunindextype i = 0; i < NV_LENGTH_S(x); i++) sum += (xd[i] * wd[i]) * (xd[i] * wd[i]);
  return sqrt(sum / (double)NV_LENGTH_S(x));
}
static int fv_linearcombination(int nvec, sunrealtype *c, N_Vector *X, N_Vector z) {
  double *zd = NV_DATA_S(z);
  for (sunindextype i = 0; i < NV_LENGTH_S(z); i++) {
    double acc = c[0] * NV_DATA_S(X[0])[i];
    for (int j = 1; j < nvec; j++) acc += c[j] * NV_DATA_S(X[j])[i];
    zd[i] = acc;
  }
  return 0;
}
static int fv_scaleaddmulti(int nvec, sunrealtype *a, N_Vector x, N_Vector *Y, N_Vector *Z) {
  for (int j = 0; j < nvec; j++) {
    for (sunindextype i = 0; i < NV_LENGTH_S(x); i++)
      NV_DATA_S(Z[j])[i] = a[j] * NV_DATA_S(x)[i] + NV_DATA_S(Y[j])[i];
  }
  return 0;
}
static void fv_setup(N_Vector y) {
  N_VEnableFusedOps_Serial(y, SUNTRUE);
  y->ops->nvlinearsum = fv_linearsum;
  y->ops->nvscale = fv_scale;
  y->ops->nvdotprod = fv_dotprod;
  y->ops->nvwrmsnorm = fv_wrmsnorm;
  y->ops->nvlinearcombination = fv_linearcombination;
  y->ops->nvscaleaddmulti = fv_scaleaddmulti;
}

static void run_ida(const chain *C, double rtol, int fast_vectors, result *R) {
  int n = C->n, m = C->m, s = 2 * n + m;
  SUNContext ctx;
  SUNContext_Create(NULL, &ctx);
  N_Vector y = N_VNew_Serial(s, ctx), yp = N_VNew_Serial(s, ctx);
  if (fast_vectors) fv_setup(y), fv_setup(yp);
  double *Y = N_VGetArrayPointer(y), *YP = N_VGetArrayPointer(yp);
  exact(C, 0.0, Y, Y + n, Y + 2 * n);
  for (int i = 0; i < n; i++) YP[i] = xs(i, 0.0, 1), YP[n + i] = xs(i, 0.0, 2);
  for (int j = 0; j < m; j++) YP[2 * n + j] = ls(j, 0.0, 1);
  ida_ctx uc = {C, malloc(sizeof(double) * n), malloc(sizeof(double) * n)};
  void *mem = IDACreate(ctx);
  IDAInit(mem, ida_res, 0.0, y, yp);
  IDASStolerances(mem, rtol, rtol);
  IDASetUserData(mem, &uc);
  IDASetMaxNumSteps(mem, 100000);
  sunindextype nnz = (sunindextype)(n * 6 + 6 * m + (sunindextype)m * m + 16);
  SUNMatrix A = SUNSparseMatrix(s, s, nnz, CSC_MAT, ctx);
  SUNLinearSolver LS = SUNLinSol_KLU(y, A, ctx);
  IDASetLinearSolver(mem, LS, A);
  IDASetJacFn(mem, ida_jac);
  R->ok = 1;
  for (int k = 1; k <= NOUT && R->ok; k++) {
    double tout = (double)k / NOUT, tret;
    R->ok = IDASolve(mem, tout, &tret, y, yp, IDA_NORMAL) >= 0;
    if (R->ok) account(C, tout, Y, Y + n, Y + 2 * n, R);
  }
  IDAFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  N_VDestroy(yp);
  SUNContext_Free(&ctx);
  free(uc.kx);
  free(uc.glam);
}

/* ---- lth: the Hessenberg DAE (v, x, lambda), dense callbacks ---- */

typedef struct blk {
  const chain *C;
  int which;
} blk;
enum { A11, A12, A13, A21, A32, F1, F3 };

static int fill(void *vp, double t, int order, double *coef, int ld, size_t stride) {
  const blk *b = vp;
  const chain *C = b->C;
  int n = C->n, m = C->m;
  for (int k = 0; k <= order; k++) {
    double *c = coef + (size_t)k * stride;
    double kf = 1.0;
    for (int i = 2; i <= k; i++) kf *= i;
    switch (b->which) {
    case A11: { /* -delta I */
      double de = -delta(t, k) / kf;
      for (int i = 0; i < n; i++) c[i + (size_t)i * ld] = de;
      break;
    }
    case A12: { /* -kappa K0 */
      double ka = -kappa(t, k) / kf * 10.0;
      for (int i = 0; i < n; i++)
        for (int l = i - 1; l <= i + 1; l++)
          if (l >= 0 && l < n) c[i + (size_t)l * ld] = ka * (l == i ? 2.0 : -1.0);
      break;
    }
    case A13: /* G' */
      if (k == 0)
        for (int j = 0; j < m; j++)
          c[C->link[j] + (size_t)j * ld] = 1.0, c[C->link[j] + 1 + (size_t)j * ld] = -1.0;
      break;
    case A21:
      if (k == 0)
        for (int i = 0; i < n; i++) c[i + (size_t)i * ld] = 1.0;
      break;
    case A32:
      if (k == 0)
        for (int j = 0; j < m; j++)
          c[j + (size_t)C->link[j] * ld] = 1.0, c[j + (size_t)(C->link[j] + 1) * ld] = -1.0;
      break;
    case F1:
      trig_at(C, t);
      for (int i = 0; i < n; i++) c[i] = force(C, i, t, k) / kf;
      break;
    case F3:
      for (int j = 0; j < m; j++) c[j] = -gcon(C, j, t, k) / kf;
      break;
    }
  }
  return 0;
}

static void run_lth(const chain *C, double rtol, result *R) {
  int n = C->n, m = C->m, s = 2 * n + m, sizes[3] = {n, n, m};
  lth_system *sys = lth_system_alloc(3, sizes, NULL);
  static blk b[7];
  int at[7][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {3, 2}, {1, 0}, {3, 0}};
  int dims[7][2] = {{n, n}, {n, n}, {n, m}, {n, n}, {m, n}, {n, 1}, {m, 1}};
  for (int k = 0; k < 7; k++) {
    b[k] = (blk){C, k};
    lth_source *src = lth_source_callback(dims[k][0], dims[k][1], fill, &b[k], NULL);
    if (at[k][1] > 0)
      lth_system_set_A(sys, at[k][0], at[k][1], src, NULL);
    else
      lth_system_set_f(sys, at[k][0], src, NULL);
  }
  double *z0 = malloc(sizeof(double) * s), times[NOUT];
  exact(C, 0.0, z0 + n, z0, z0 + 2 * n); /* z = (v, x, lambda) */
  for (int k = 0; k < NOUT; k++) times[k] = (double)(k + 1) / NOUT;
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = rtol;
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  R->ok = lth_ivp_solve(sys, 0.0, z0, times, NOUT, &o, &res, &err) == LTH_OK;
  if (!R->ok) fprintf(stderr, "lth: %s\n", err.message);
  for (int k = 0; R->ok && k < NOUT; k++) {
    const double *z = res->z + (size_t)k * s;
    account(C, times[k], z + n, z, z + 2 * n, R);
  }
  lth_ivp_result_free(res);
  lth_system_free(sys);
  free(z0);
}

/* ---- lth in operator form: sparse blocks, lth_opivp_solve (CVODE) ---- */

typedef struct opblk {
  const chain *C;
  int which; /* A11, A12, F1, F3 */
} opblk;

static double fact(int k) {
  double f = 1.0;
  for (int i = 2; i <= k; i++) f *= i;
  return f;
}

/* Values in pattern order: A11 diagonal, A12 tridiagonal (column by column),
 * f_1 and f_3 dense. */
static int opfill(void *vp, double t, int order, double *val, size_t stride) {
  const opblk *b = vp;
  const chain *C = b->C;
  int n = C->n;
  for (int k = 0; k <= order; k++) {
    double *v = val + (size_t)k * stride, kf = fact(k);
    switch (b->which) {
    case A11: {
      double de = -delta(t, k) / kf;
      for (int i = 0; i < n; i++) v[i] = de;
      break;
    }
    case A12: {
      int p = 0;
      double ka = -kappa(t, k) / kf * 10.0;
      for (int col = 0; col < n; col++)
        for (int row = col - 1; row <= col + 1; row++)
          if (row >= 0 && row < n) v[p++] = ka * (row == col ? 2.0 : -1.0);
      break;
    }
    case F1:
      trig_at(C, t);
      for (int i = 0; i < n; i++) v[i] = force(C, i, t, k) / kf;
      break;
    default:
      for (int j = 0; j < C->m; j++) v[j] = -gcon(C, j, t, k) / kf;
    }
  }
  return 0;
}

typedef struct oppat {
  int *dp, *di, *tp, *ti, *gp, *gi, *hp, *hi; /* diagonal, tridiagonal, G', G */
  double *one, *gv, *hv;
} oppat;

static void oppat_free(oppat *P) {
  void *p[] = {P->dp, P->di, P->tp, P->ti, P->gp, P->gi, P->hp, P->hi, P->one, P->gv, P->hv};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; i++) free(p[i]);
}

static lth_opsys *chain_opsys(const chain *C, oppat *P, opblk *b) {
  int n = C->n, m = C->m, sizes[3] = {n, n, m};
  P->dp = malloc(sizeof(int) * (n + 1)), P->di = malloc(sizeof(int) * n);
  P->tp = malloc(sizeof(int) * (n + 1)), P->ti = malloc(sizeof(int) * 3 * n);
  P->gp = malloc(sizeof(int) * (m + 1)), P->gi = malloc(sizeof(int) * 2 * m);
  P->hp = malloc(sizeof(int) * (n + 1)), P->hi = malloc(sizeof(int) * 2 * m);
  P->one = malloc(sizeof(double) * n), P->gv = malloc(sizeof(double) * 2 * m);
  P->hv = malloc(sizeof(double) * 2 * m);
  int p = 0, q = 0;
  for (int col = 0; col < n; col++) {
    P->dp[col] = col, P->di[col] = col, P->one[col] = 1.0;
    P->tp[col] = p;
    for (int row = col - 1; row <= col + 1; row++)
      if (row >= 0 && row < n) P->ti[p++] = row;
    P->hp[col] = q; /* G: the links whose rows touch mass col (links are sorted, disjoint) */
    for (int j = 0; j < m; j++) {
      if (C->link[j] == col) P->hi[q] = j, P->hv[q++] = 1.0;
      if (C->link[j] + 1 == col) P->hi[q] = j, P->hv[q++] = -1.0;
    }
  }
  P->dp[n] = n, P->tp[n] = p, P->hp[n] = q;
  for (int j = 0; j < m; j++) { /* G' */
    P->gp[j] = 2 * j;
    P->gi[2 * j] = C->link[j], P->gv[2 * j] = 1.0;
    P->gi[2 * j + 1] = C->link[j] + 1, P->gv[2 * j + 1] = -1.0;
  }
  P->gp[m] = 2 * m;
  for (int k = 0; k < 4; k++) b[k] = (opblk){C, (int[]){A11, A12, F1, F3}[k]};
  lth_opsys *sys = lth_opsys_alloc(3, sizes, NULL);
  int ok = sys != NULL;
  ok = ok && lth_opsys_set_A(sys, 1, 1, n, P->dp, P->di, opfill, &b[0], NULL) == LTH_OK;
  ok = ok && lth_opsys_set_A(sys, 1, 2, p, P->tp, P->ti, opfill, &b[1], NULL) == LTH_OK;
  ok = ok && lth_opsys_set_A_const(sys, 1, 3, 2 * m, P->gp, P->gi, P->gv, NULL) == LTH_OK;
  ok = ok && lth_opsys_set_A_const(sys, 2, 1, n, P->dp, P->di, P->one, NULL) == LTH_OK;
  ok = ok && lth_opsys_set_A_const(sys, 3, 2, q, P->hp, P->hi, P->hv, NULL) == LTH_OK;
  ok = ok && lth_opsys_set_f(sys, 1, opfill, &b[2], NULL) == LTH_OK;
  ok = ok && lth_opsys_set_f(sys, 3, opfill, &b[3], NULL) == LTH_OK;
  if (!ok) lth_opsys_free(sys);
  return ok ? sys : NULL;
}

static void run_lth_op(const chain *C, double rtol, result *R) {
  int n = C->n, m = C->m, s = 2 * n + m;
  oppat P = {0};
  opblk b[4];
  lth_opsys *sys = chain_opsys(C, &P, b);
  double *z0 = malloc(sizeof(double) * s), times[NOUT];
  exact(C, 0.0, z0 + n, z0, z0 + 2 * n); /* z = (v, x, lambda) */
  for (int k = 0; k < NOUT; k++) times[k] = (double)(k + 1) / NOUT;
  lth_opivp_opts o;
  lth_opivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = rtol;
  /* BENCH_SCALE_PREC=0|1: the preconditioner forced off or on (default: lth's choice) */
  const char *pe = getenv("BENCH_SCALE_PREC");
  if (pe && *pe) o.precondition = atoi(pe) ? LTH_OPIVP_PREC_ON : LTH_OPIVP_PREC_OFF;
  /* BENCH_SCALE_PI_PROOF=0: no proof of Pi between the output times (its cost) */
  const char *pp = getenv("BENCH_SCALE_PI_PROOF");
  if (pp && *pp && !atoi(pp)) o.pi_proof = -1;
  lth_opivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  R->ok = sys && lth_opivp_solve(sys, 0.0, z0, times, NOUT, &o, &res, &err) == LTH_OK;
  if (!R->ok) fprintf(stderr, "lth (operator form): %s\n", sys ? err.message : "no system");
  for (int k = 0; R->ok && k < NOUT; k++) {
    const double *z = res->z + (size_t)k * s;
    account(C, times[k], z + n, z, z + 2 * n, R);
  }
  if (R->ok) {
    R->steps = res->steps, R->rhs = res->rhs_evals, R->decomps = res->decomps;
    R->jv = res->jv_evals, R->lin = res->lin_iters;
    R->pdrift = res->drift_rel;
    R->decomp_share = res->seconds_decomp / fmax(res->seconds_total, 1e-12);
  }
  lth_opivp_result_free(res);
  lth_opsys_free(sys);
  oppat_free(&P);
  free(z0);
}

/* One (size, tool) in a child: its CPU time, error, drift back through a pipe,
 * its peak memory from wait4. */
static result measure(const chain *C, int tool, double rtol) {
  result R = {0};
  int fd[2];
  if (pipe(fd) != 0) return R;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    result r = {0};
    double t = cpu_now();
    if (tool == 0 || tool == 3)
      run_ida(C, rtol, tool == 3, &r);
    else if (tool == 1)
      run_lth(C, rtol, &r);
    else
      run_lth_op(C, rtol, &r);
    r.cpu = cpu_now() - t;
    if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
    _exit(0);
  }
  close(fd[1]);
  result got;
  ssize_t nread = read(fd[0], &got, sizeof got);
  close(fd[0]);
  int status = 0;
  struct rusage ru;
  if (pid > 0 && wait4(pid, &status, 0, &ru) == pid && nread == (ssize_t)sizeof got) {
    R = got;
    R.rss_kb = ru.ru_maxrss;
  }
  return R;
}

int main(int argc, char **argv) {
  setenv("LTH_NUM_THREADS", "1", 1);
  setenv("OPENBLAS_NUM_THREADS", "1", 1);
  app_blas_setup(); /* one BLAS thread whatever the size: the comparison is on one core */
  int sizes[16] = {500, 5000, 50000}, ns = 3, m = 5, lth_max = 1000, quick = 0;
  int grids[16], ng = 0;
  double cpu_max = 600;
  int ida_max = 1 << 30;
  double rtol = 1e-8;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--quick")) {
      quick = 1;
    } else if (!strcmp(argv[a], "--links") && a + 1 < argc) {
      m = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "--lth-max") && a + 1 < argc) {
      lth_max = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "--rtol") && a + 1 < argc) {
      rtol = atof(argv[++a]);
    } else if (!strcmp(argv[a], "--stokes") && a + 1 < argc) {
      for (char *p = argv[++a]; *p && ng < 16;) {
        grids[ng++] = (int)strtol(p, &p, 10);
        if (*p == ',') p++;
      }
    } else if (!strcmp(argv[a], "--ida-max") && a + 1 < argc) {
      ida_max = atoi(argv[++a]);
    } else if (!strcmp(argv[a], "--cpu-max") && a + 1 < argc) {
      cpu_max = atof(argv[++a]);
    } else if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
      ns = 0;
      for (char *p = argv[++a]; *p && ns < 16;) {
        sizes[ns++] = (int)strtol(p, &p, 10);
        if (*p == ',') p++;
      }
    } else {
      fprintf(stderr, "usage: bench_scale [--sizes N1,N2,...] [--links M] [--lth-max S] "
                      "[--rtol R] [--quick]\n       bench_scale --stokes G1,G2,... "
                      "[--lth-max S] [--ida-max S] [--rtol R] [--cpu-max SEC]\n");
      return 2;
    }
  }
  if (ng > 0 && !quick) return stokes_bench(grids, ng, rtol, lth_max, ida_max, cpu_max, 0);
  if (quick) sizes[0] = 50, ns = 1, m = 2;
  printf("# index-3 chain on [0, 1], rtol = atol = %g, one core; error max over %d times, "
         "drift max |G x - g|\n",
         rtol, NOUT);
  printf("%8s %6s %4s %10s %10s %10s %10s %8s\n", "s", "tool", "m", "cpu_s", "rss_MB", "error",
         "drift", "lth/ida");
  int bad = 0;
  for (int k = 0; k < ns; k++) {
    trig tr = {
        .t = NAN, .s = malloc(sizeof(double) * sizes[k]), .c = malloc(sizeof(double) * sizes[k])};
    chain C = {sizes[k], m, malloc(sizeof(int) * (size_t)m), &tr};
    for (int j = 0; j < m; j++) C.link[j] = (int)((long)(j + 1) * C.n / (m + 1)) - 1;
    int s = 2 * C.n + m;
    result ida = measure(&C, 0, rtol), lth = {0};
    printf("%8d %6s %4d %10.4f %10.1f %10.2e %10.2e %8s\n", s, "ida", m, ida.cpu,
           ida.rss_kb / 1024.0, ida.err, ida.drift, "");
    result idafv = measure(&C, 3, rtol);
    printf("%8d %6s %4d %10.4f %10.1f %10.2e %10.2e %8s\n", s, "ida-fv", m, idafv.cpu,
           idafv.rss_kb / 1024.0, idafv.err, idafv.drift, "");
    if (s <= lth_max) {
      lth = measure(&C, 1, rtol);
      printf("%8d %6s %4d %10.4f %10.1f %10.2e %10.2e %8.1f\n", s, "lth", m, lth.cpu,
             lth.rss_kb / 1024.0, lth.err, lth.drift, lth.cpu / fmax(ida.cpu, 1e-9));
    } else {
      printf("%8d %6s %4d %10s (dense path: above --lth-max %d)\n", s, "lth", m, "-", lth_max);
    }
    result op = {0};
    if (lth_opivp_available()) {
      op = measure(&C, 2, rtol);
      printf("%8d %6s %4d %10.4f %10.1f %10.2e %10.2e %8.1f   steps %zu, rhs %zu, decomps %zu "
             "(%.0f%% of the time), Jv %zu, GMRES iterations %zu, max |P v| %.1e; "
             "lth-op / ida-fv %.1f\n",
             s, "lth-op", m, op.cpu, op.rss_kb / 1024.0, op.err, op.drift,
             op.cpu / fmax(ida.cpu, 1e-9), op.steps, op.rhs, op.decomps, 100 * op.decomp_share,
             op.jv, op.lin, op.pdrift, op.cpu / fmax(idafv.cpu, 1e-9));
    } else {
      printf("%8d %6s %4d %10s (liblth built without CVODE)\n", s, "lth-op", m, "-");
    }
    if (quick)
      bad = !(ida.ok && idafv.ok && lth.ok && op.ok && ida.err < 1e-5 && idafv.err < 1e-5 &&
              lth.err < 1e-5 && op.err < 1e-5);
    free(C.link);
    free(tr.s);
    free(tr.c);
  }
  if (quick) {
    int eight = 8;
    bad = stokes_bench(&eight, 1, rtol, lth_max, 1 << 30, 60, 1) || bad;
    printf(bad ? "bench_scale --quick: FAILED\n" : "bench_scale --quick: ok\n");
  }
  return bad;
}
