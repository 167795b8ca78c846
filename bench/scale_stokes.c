/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_scale's Stokes-type case (docs/performance.md, "At size: a Stokes-type
 * case"): index 2 with n_r ~ s/3, where Pi is a sparse n_r x n_r Schur
 * complement and the operator form factors it with KLU.
 *
 * A 2-D staggered (MAC) grid of N x N cells on the unit square, h = 1/N:
 * velocities on the 2 N (N + 1) faces (all of them unknowns: the boundary
 * faces are free, so that Pi is nonsingular), pressures in the N^2 cells,
 * s = 2 N (N + 1) + N^2, n_r = N^2:
 *   u' = -nu(t) K u - B^T p + f1(t),    0 = B W(t) u + f2(t),
 * K the 5-point Laplacian (1/h^2) of each velocity grid (Dirichlet ghosts),
 * nu(t) = 1 + 0.5 sin t (a time-varying viscosity), B the divergence, W(t)
 * the face weight rho(t, x) = 1 + 0.3 sin(t + x + y) (a mass flux with a
 * time-varying density: Pi = -B W B^T, P moves with t).  f1, f2 are
 * manufactured from the exact solution u*_e = 0.5 sin(t + x_e + 2 y_e),
 * p*_c = cos(t + 2 x_c - y_c).
 *
 * IDA + KLU gets it as its users write it: the index-1 form with the
 * constraint differentiated once, 0 = B W' u + B W u' + f2', its sparse
 * Jacobian [[cj I + nu K, B^T], [B W' + cj B W, 0]] and KLU, consistent y0,
 * y0' from the closed form.  lth gets the Hessenberg DAE as sparse blocks
 * (lth_opsys) and solves it with lth_opivp_solve (CVODE BDF, GMRES), the
 * decomposition at each t in operator form with KLU's LU of Pi ("lth-op";
 * "lth-opd": the same with the thin dense factors, LTH_OP_PI_DENSE, up to
 * --lth-max).  Each in a child process on one core: CPU time, peak RSS, the
 * error max over 20 output times of |z - z*| / max(1, |z*|), and the drift
 * max |B W u + f2| of the algebraic constraint (the index-1 form does not
 * keep it).  Also the decomposition at one point (t = 0.5): its CPU time
 * (the mean of repetitions over at least 0.2 s) and memory. */
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include "scale_stokes.h"

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

#include "lth/opdecomp.h"
#include "lth/opivp.h"

#define NOUT 20
#define KMAX 8

typedef struct stokes {
  int N, m, nr, s;
  double h;
  double *xe, *ye, *xc, *yc; /* face and cell centres */
  int *cpk, *rik;            /* K (m x m) */
  double *vk;
  int *cpg, *rig; /* A12 = -B^T (m x nr) */
  double *vg;
  int *cpd, *rid, *cold; /* B (nr x m) by columns, and each entry's face */
  double *vd;
} stokes;

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Taylor coefficient k of a sin(t + ph) (cos: ph + pi/2). */
static double sin_k(double t, int k, double a, double ph) {
  double f = 1.0;
  for (int i = 2; i <= k; i++) f *= i;
  return a * sin(t + ph + k * M_PI / 2) / f;
}
static double nu_k(double t, int k) { return (k == 0) + sin_k(t, k, 0.5, 0.0); }
static double w_k(const stokes *S, int e, double t, int k) {
  return (k == 0) + sin_k(t, k, 0.3, S->xe[e] + S->ye[e]);
}
static double u_k(const stokes *S, int e, double t, int k) {
  return sin_k(t, k, 0.5, S->xe[e] + 2 * S->ye[e]);
}
static double p_k(const stokes *S, int c, double t, int k) {
  return sin_k(t, k, 1.0, 2 * S->xc[c] - S->yc[c] + M_PI / 2);
}

/* Faces: u faces (i = 0..N, j = 0..N-1) first, then v faces (i = 0..N-1, j = 0..N). */
static int face(int N, int dir, int i, int j) {
  if (dir == 0) return i < 0 || i > N || j < 0 || j >= N ? -1 : i + (N + 1) * j;
  return i < 0 || i >= N || j < 0 || j > N ? -1 : N * (N + 1) + i + N * j;
}

static void stokes_free(stokes *S) {
  void *p[] = {S->xe,  S->ye,  S->xc, S->yc,  S->cpk, S->rik,  S->vk,
               S->cpg, S->rig, S->vg, S->cpd, S->rid, S->cold, S->vd};
  for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
}

static void stokes_make(stokes *S, int N) {
  memset(S, 0, sizeof *S);
  S->N = N, S->h = 1.0 / N, S->m = 2 * N * (N + 1), S->nr = N * N, S->s = S->m + S->nr;
  int m = S->m, nr = S->nr;
  double h = S->h;
  S->xe = malloc(sizeof(double) * m), S->ye = malloc(sizeof(double) * m);
  S->xc = malloc(sizeof(double) * nr), S->yc = malloc(sizeof(double) * nr);
  int *dir = malloc(sizeof(int) * m), *fi = malloc(sizeof(int) * m), *fj = malloc(sizeof(int) * m);
  for (int d = 0; d < 2; d++)
    for (int j = 0; j <= N; j++)
      for (int i = 0; i <= N; i++) {
        int e = face(N, d, i, j);
        if (e < 0) continue;
        dir[e] = d, fi[e] = i, fj[e] = j;
        S->xe[e] = d == 0 ? i * h : (i + 0.5) * h;
        S->ye[e] = d == 0 ? (j + 0.5) * h : j * h;
      }
  for (int c = 0; c < nr; c++) S->xc[c] = (c % N + 0.5) * h, S->yc[c] = (c / N + 0.5) * h;
  /* K: neighbours on the same grid, rows increasing (j - 1, i - 1, i, i + 1, j + 1) */
  S->cpk = malloc(sizeof(int) * (m + 1)), S->rik = malloc(sizeof(int) * 5 * m);
  S->vk = malloc(sizeof(double) * 5 * m);
  int nz = 0;
  for (int e = 0; e < m; e++) {
    S->cpk[e] = nz;
    int i = fi[e], j = fj[e], nb[5][2] = {{i, j - 1}, {i - 1, j}, {i, j}, {i + 1, j}, {i, j + 1}};
    for (int k = 0; k < 5; k++) {
      int f = face(N, dir[e], nb[k][0], nb[k][1]);
      if (f < 0) continue;
      S->rik[nz] = f, S->vk[nz++] = (k == 2 ? 4.0 : -1.0) / (h * h);
    }
  }
  S->cpk[m] = nz;
  /* -B^T: column c holds the four faces of cell c (west, east, south, north) */
  S->cpg = malloc(sizeof(int) * (nr + 1)), S->rig = malloc(sizeof(int) * 4 * nr);
  S->vg = malloc(sizeof(double) * 4 * nr);
  nz = 0;
  for (int c = 0; c < nr; c++) {
    int i = c % N, j = c / N;
    int f[4] = {face(N, 0, i, j), face(N, 0, i + 1, j), face(N, 1, i, j), face(N, 1, i, j + 1)};
    double sg[4] = {-1, 1, -1, 1};
    S->cpg[c] = nz;
    for (int k = 0; k < 4; k++) S->rig[nz] = f[k], S->vg[nz++] = -sg[k] / h;
  }
  S->cpg[nr] = nz;
  /* B: (B u)_c = (u_east - u_west + v_north - v_south) / h; column e: the cell
   * behind the face (+1/h) and the cell ahead of it (-1/h) */
  S->cpd = malloc(sizeof(int) * (m + 1)), S->rid = malloc(sizeof(int) * 2 * m);
  S->vd = malloc(sizeof(double) * 2 * m), S->cold = malloc(sizeof(int) * 2 * m);
  nz = 0;
  for (int e = 0; e < m; e++) {
    int i = fi[e], j = fj[e], ib = dir[e] == 0 ? i - 1 : i, jb = dir[e] == 0 ? j : j - 1;
    S->cpd[e] = nz;
    if (ib >= 0 && jb >= 0) S->rid[nz] = ib + N * jb, S->cold[nz] = e, S->vd[nz++] = 1.0 / h;
    if (i < N && j < N) S->rid[nz] = i + N * j, S->cold[nz] = e, S->vd[nz++] = -1.0 / h;
  }
  S->cpd[m] = nz;
  free(dir), free(fi), free(fj);
}

/* y = M x for a CSC matrix (rows x cols), accumulating with factor a. */
static void csc_mv(const int *cp, const int *ri, const double *v, int cols, double a,
                   const double *x, double *y) {
  for (int j = 0; j < cols; j++)
    for (int p = cp[j]; p < cp[j + 1]; p++) y[ri[p]] += a * v[p] * x[j];
}

/* Coefficient k of f1 = u*' + nu K u* + B^T p* and of f2 = -B (W u*). */
static void forcing(const stokes *S, double t, int k, double *f1, double *f2, double *tmp) {
  int m = S->m, nr = S->nr;
  for (int e = 0; e < m; e++) f1[e] = (k + 1) * u_k(S, e, t, k + 1);
  for (int a = 0; a <= k; a++) {
    for (int e = 0; e < m; e++) tmp[e] = u_k(S, e, t, k - a);
    csc_mv(S->cpk, S->rik, S->vk, m, nu_k(t, a), tmp, f1);
  }
  for (int c = 0; c < nr; c++) tmp[c] = p_k(S, c, t, k);
  csc_mv(S->cpg, S->rig, S->vg, nr, -1.0, tmp, f1); /* -A12 p* = B^T p* */
  for (int c = 0; c < nr; c++) f2[c] = 0.0;
  for (int e = 0; e < m; e++) {
    double wu = 0.0;
    for (int a = 0; a <= k; a++) wu += w_k(S, e, t, a) * u_k(S, e, t, k - a);
    tmp[e] = wu;
  }
  csc_mv(S->cpd, S->rid, S->vd, m, -1.0, tmp, f2);
}

/* ---- lth: sparse blocks through callbacks ---- */

typedef struct sblk {
  const stokes *S;
  int which; /* 0 A11, 1 A21, 2 f1, 3 f2 */
} sblk;

static int sfill(void *vp, double t, int order, double *val, size_t stride) {
  const sblk *b = vp;
  const stokes *S = b->S;
  if (b->which == 0) {
    for (int k = 0; k <= order; k++)
      for (int p = 0; p < S->cpk[S->m]; p++) val[p + k * stride] = -nu_k(t, k) * S->vk[p];
  } else if (b->which == 1) {
    for (int k = 0; k <= order; k++)
      for (int p = 0; p < S->cpd[S->m]; p++)
        val[p + k * stride] = S->vd[p] * w_k(S, S->cold[p], t, k);
  } else {
    double *f1 = malloc(sizeof(double) * S->m), *f2 = malloc(sizeof(double) * S->nr);
    double *tmp = malloc(sizeof(double) * S->m);
    if (!f1 || !f2 || !tmp) return free(f1), free(f2), free(tmp), 1;
    for (int k = 0; k <= order && k < KMAX; k++) {
      forcing(S, t, k, f1, f2, tmp);
      memcpy(val + k * stride, b->which == 2 ? f1 : f2,
             sizeof(double) * (b->which == 2 ? S->m : S->nr));
    }
    free(f1), free(f2), free(tmp);
  }
  return 0;
}

static lth_opsys *stokes_opsys(const stokes *S, sblk *b, lth_op_pi_factor how) {
  int n[2] = {S->m, S->nr};
  lth_opsys *sys = lth_opsys_alloc(2, n, NULL);
  for (int k = 0; k < 4; k++) b[k] = (sblk){S, k};
  int ok = sys != NULL;
  ok = ok && lth_opsys_set_A(sys, 1, 1, S->cpk[S->m], S->cpk, S->rik, sfill, &b[0], NULL) == 0;
  ok = ok && lth_opsys_set_A_const(sys, 1, 2, S->cpg[S->nr], S->cpg, S->rig, S->vg, NULL) == 0;
  ok = ok && lth_opsys_set_A(sys, 2, 1, S->cpd[S->m], S->cpd, S->rid, sfill, &b[1], NULL) == 0;
  ok = ok && lth_opsys_set_f(sys, 1, sfill, &b[2], NULL) == 0;
  ok = ok && lth_opsys_set_f(sys, 2, sfill, &b[3], NULL) == 0;
  ok = ok && lth_opsys_set_pi_factor(sys, how, NULL) == 0;
  if (!ok) lth_opsys_free(sys);
  return ok ? sys : NULL;
}

typedef struct sres {
  double cpu, err, drift, pdrift, decomp_share;
  size_t steps, rhs, decomps, lin, psetups;
  long rss_kb;
  int ok;
  double pt_ms, pt_mb; /* one decomposition: time, the point's memory */
  size_t lu_nnz;
  int killed;     /* stopped at the CPU limit */
  double cpu_pre; /* CPU of the one-point timing, taken off cpu */
} sres;

static void account(const stokes *S, double t, const double *z, sres *R) {
  double *tmp = calloc((size_t)(S->m + S->nr), sizeof(double));
  for (int e = 0; e < S->m; e++) {
    double ex = u_k(S, e, t, 0);
    R->err = fmax(R->err, fabs(z[e] - ex) / fmax(1.0, fabs(ex)));
    tmp[e] = w_k(S, e, t, 0) * z[e];
  }
  for (int c = 0; c < S->nr; c++) {
    double ex = p_k(S, c, t, 0);
    R->err = fmax(R->err, fabs(z[S->m + c] - ex) / fmax(1.0, fabs(ex)));
  }
  /* the constraint's residual B W u + f2 = B W (u - u*) */
  double *r = tmp + S->m;
  for (int c = 0; c < S->nr; c++) r[c] = 0.0;
  for (int e = 0; e < S->m; e++) tmp[e] -= w_k(S, e, t, 0) * u_k(S, e, t, 0);
  csc_mv(S->cpd, S->rid, S->vd, S->m, 1.0, tmp, r);
  for (int c = 0; c < S->nr; c++) R->drift = fmax(R->drift, fabs(r[c]));
  free(tmp);
}

static void run_lth_op(const stokes *S, double rtol, lth_op_pi_factor how, sres *R) {
  sblk b[4];
  lth_opsys *sys = stokes_opsys(S, b, how);
  double *z0 = malloc(sizeof(double) * S->s), times[NOUT];
  for (int e = 0; e < S->m; e++) z0[e] = u_k(S, e, 0.0, 0);
  for (int c = 0; c < S->nr; c++) z0[S->m + c] = p_k(S, c, 0.0, 0);
  for (int k = 0; k < NOUT; k++) times[k] = (double)(k + 1) / NOUT;
  lth_error err;
  lth_error_clear(&err);
  /* one decomposition at t = 0.5, timed */
  lth_opdecomp_ws *ws = sys ? lth_opdecomp_ws_alloc(sys, 0, &err) : NULL;
  lth_oppoint *pt = ws ? lth_oppoint_alloc(sys, 0, 1, &err) : NULL;
  if (pt) {
    /* CPU time (the machine may be shared), repeated for at least 0.2 s: the
     * process clock may tick coarsely */
    double c0 = cpu_now(), c1 = c0;
    int reps = 0;
    R->ok = 1;
    while (R->ok && (c1 - c0 < 0.2 || reps < 2) && reps < 10000) {
      R->ok = lth_opdecomp_at(ws, 0.5 + 1e-6 * reps++, pt, &err) == LTH_OK;
      c1 = cpu_now();
    }
    R->pt_ms = 1e3 * (c1 - c0) / reps;
    R->cpu_pre = c1 - c0; /* not the solve's */
    R->pt_mb = lth_oppoint_info(pt)->bytes / 1048576.0;
    R->lu_nnz = lth_oppoint_info(pt)->pi_factor_nnz;
  }
  lth_oppoint_free(pt);
  lth_opdecomp_ws_free(ws);
  lth_opivp_opts o;
  lth_opivp_opts_init(&o);
  o.rtol = rtol;
  o.atol = rtol;
  /* BENCH_SCALE_PREC=0|1: the preconditioner forced off or on (default: lth's choice) */
  const char *pe = getenv("BENCH_SCALE_PREC");
  if (pe && *pe) o.precondition = atoi(pe) ? LTH_OPIVP_PREC_ON : LTH_OPIVP_PREC_OFF;
  lth_opivp_result *res = NULL;
  R->ok = R->ok && lth_opivp_solve(sys, 0.0, z0, times, NOUT, &o, &res, &err) == LTH_OK;
  if (!R->ok) fprintf(stderr, "lth (operator form): %s\n", sys ? err.message : "no system");
  for (int k = 0; R->ok && k < NOUT; k++) account(S, times[k], res->z + (size_t)k * S->s, R);
  if (R->ok) {
    R->steps = res->steps, R->rhs = res->rhs_evals, R->decomps = res->decomps;
    R->lin = res->lin_iters, R->psetups = res->preconditioned ? res->prec_setups : 0;
    R->pdrift = res->drift_rel;
    R->decomp_share = res->seconds_decomp / fmax(res->seconds_total, 1e-12);
  }
  lth_opivp_result_free(res);
  lth_opsys_free(sys);
  free(z0);
}

/* ---- IDA + KLU, the index-1 form: y = (u, p) ---- */

static int ida_res(double t, N_Vector yy, N_Vector yp, N_Vector rr, void *ud) {
  const stokes *S = ud;
  int m = S->m, nr = S->nr;
  const double *y = N_VGetArrayPointer(yy), *d = N_VGetArrayPointer(yp);
  double *r = N_VGetArrayPointer(rr);
  double *f1 = malloc(sizeof(double) * m), *f2 = malloc(sizeof(double) * nr);
  double *tmp = malloc(sizeof(double) * m);
  forcing(S, t, 0, f1, f2, tmp);
  double nu = nu_k(t, 0);
  for (int e = 0; e < m; e++) r[e] = d[e] - f1[e];
  csc_mv(S->cpk, S->rik, S->vk, m, nu, y, r);        /* + nu K u */
  csc_mv(S->cpg, S->rig, S->vg, nr, -1.0, y + m, r); /* - A12 p */
  forcing(S, t, 1, f1, f2, tmp);                     /* f2' = coefficient 1 */
  for (int c = 0; c < nr; c++) r[m + c] = f2[c];
  for (int e = 0; e < m; e++) tmp[e] = w_k(S, e, t, 1) * y[e] + w_k(S, e, t, 0) * d[e];
  csc_mv(S->cpd, S->rid, S->vd, m, 1.0, tmp, r + m); /* B W' u + B W u' */
  free(f1), free(f2), free(tmp);
  return 0;
}

static int ida_jac(double t, double cj, N_Vector yy, N_Vector yp, N_Vector rr, SUNMatrix J,
                   void *ud, N_Vector t1, N_Vector t2, N_Vector t3) {
  (void)yy, (void)yp, (void)rr, (void)t1, (void)t2, (void)t3;
  const stokes *S = ud;
  int m = S->m;
  sunindextype *cp = SUNSparseMatrix_IndexPointers(J), *ri = SUNSparseMatrix_IndexValues(J);
  double *val = SUNSparseMatrix_Data(J), nu = nu_k(t, 0);
  sunindextype nz = 0;
  for (int e = 0; e < m; e++) { /* u_e: cj I + nu K, then B W' + cj B W */
    cp[e] = nz;
    for (int p = S->cpk[e]; p < S->cpk[e + 1]; p++)
      ri[nz] = S->rik[p], val[nz++] = nu * S->vk[p] + (S->rik[p] == e ? cj : 0.0);
    double wd = w_k(S, e, t, 1) + cj * w_k(S, e, t, 0);
    for (int p = S->cpd[e]; p < S->cpd[e + 1]; p++)
      ri[nz] = m + S->rid[p], val[nz++] = S->vd[p] * wd;
  }
  for (int c = 0; c < S->nr; c++) { /* p_c: -A12 = B^T */
    cp[m + c] = nz;
    for (int p = S->cpg[c]; p < S->cpg[c + 1]; p++) ri[nz] = S->rig[p], val[nz++] = -S->vg[p];
  }
  cp[S->s] = nz;
  return 0;
}

static void run_ida(const stokes *S, double rtol, sres *R) {
  int m = S->m, s = S->s;
  SUNContext ctx;
  SUNContext_Create(NULL, &ctx);
  N_Vector y = N_VNew_Serial(s, ctx), yp = N_VNew_Serial(s, ctx);
  double *Y = N_VGetArrayPointer(y), *YP = N_VGetArrayPointer(yp);
  for (int e = 0; e < m; e++) Y[e] = u_k(S, e, 0.0, 0), YP[e] = u_k(S, e, 0.0, 1);
  for (int c = 0; c < S->nr; c++) Y[m + c] = p_k(S, c, 0.0, 0), YP[m + c] = p_k(S, c, 0.0, 1);
  void *mem = IDACreate(ctx);
  IDAInit(mem, ida_res, 0.0, y, yp);
  IDASStolerances(mem, rtol, rtol);
  IDASetUserData(mem, (void *)S);
  IDASetMaxNumSteps(mem, 100000);
  sunindextype nnz = S->cpk[m] + S->cpd[m] + S->cpg[S->nr];
  SUNMatrix A = SUNSparseMatrix(s, s, nnz, CSC_MAT, ctx);
  SUNLinearSolver LS = SUNLinSol_KLU(y, A, ctx);
  const char *ord = getenv("BENCH_SCALE_KLU_ORDERING"); /* 0 AMD, 1 COLAMD (SUNDIALS' default) */
  if (ord) SUNLinSol_KLUSetOrdering(LS, atoi(ord));
  IDASetLinearSolver(mem, LS, A);
  IDASetJacFn(mem, ida_jac);
  R->ok = 1;
  for (int k = 1; k <= NOUT && R->ok; k++) {
    double tout = (double)k / NOUT, tret;
    R->ok = IDASolve(mem, tout, &tret, y, yp, IDA_NORMAL) >= 0;
    if (R->ok) account(S, tout, Y, R);
    if (getenv("BENCH_SCALE_VERBOSE")) {
      long int nst = 0, nje = 0;
      IDAGetNumSteps(mem, &nst);
      IDAGetNumJacEvals(mem, &nje);
      sun_klu_numeric *kn = SUNLinSol_KLUGetNumeric(LS);
      fprintf(stderr, "ida t %.2f: steps %ld, Jacobians %ld, LU entries %ld, cpu %.2f s\n", tout,
              nst, nje, kn ? (long)(kn->lnz + kn->unz) : -1L, cpu_now());
    }
  }
  long int nst = 0;
  IDAGetNumSteps(mem, &nst);
  R->steps = (size_t)nst;
  IDAFree(&mem);
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  N_VDestroy(yp);
  SUNContext_Free(&ctx);
}

/* One tool in a child: 0 IDA, 1 lth-op (sparse Pi), 2 lth-opd (dense Pi),
 * stopped after cpu_max seconds of CPU (RLIMIT_CPU; then R.killed). */
static sres measure(const stokes *S, int tool, double rtol, double cpu_max) {
  sres R = {0};
  int fd[2];
  if (pipe(fd) != 0) return R;
  pid_t pid = fork();
  if (pid == 0) {
    close(fd[0]);
    struct rlimit rl = {(rlim_t)cpu_max, (rlim_t)cpu_max + 1};
    setrlimit(RLIMIT_CPU, &rl);
    sres r = {0};
    double t = cpu_now();
    if (tool == 0)
      run_ida(S, rtol, &r);
    else
      run_lth_op(S, rtol, tool == 1 ? LTH_OP_PI_SPARSE : LTH_OP_PI_DENSE, &r);
    r.cpu = cpu_now() - t - r.cpu_pre;
    if (write(fd[1], &r, sizeof r) != (ssize_t)sizeof r) _exit(1);
    _exit(0);
  }
  close(fd[1]);
  sres got;
  ssize_t nread = read(fd[0], &got, sizeof got);
  close(fd[0]);
  int status = 0;
  struct rusage ru;
  if (pid > 0 && wait4(pid, &status, 0, &ru) == pid && nread == (ssize_t)sizeof got) {
    R = got;
    R.rss_kb = ru.ru_maxrss;
  } else if (pid > 0 && WIFSIGNALED(status)) {
    R.killed = 1;
  }
  return R;
}

/* ida_cpu: IDA's time (0: IDA's own row, < 0: IDA did not run or finish). */
static void row(int s, int nr, const char *tool, const sres *R, double ida_cpu) {
  if (!R->ok) {
    if (R->killed)
      printf("%8d %6d %7s   did not finish: stopped at the CPU limit (--cpu-max)\n", s, nr, tool);
    else
      printf("%8d %6d %7s   failed\n", s, nr, tool);
    fflush(stdout);
    return;
  }
  printf("%8d %6d %7s %9.3f %9.1f %9.2e %9.2e", s, nr, tool, R->cpu, R->rss_kb / 1024.0, R->err,
         R->drift);
  if (ida_cpu > 0)
    printf(" %7.2f", R->cpu / ida_cpu);
  else if (ida_cpu < 0)
    printf(" %7s", "-");
  if (ida_cpu != 0)
    printf("  steps %zu, rhs %zu (decompositions %.0f%%), GMRES iterations %zu, "
           "preconditioner factorizations %zu, one point %.2f ms %.1f MB "
           "(LU of Pi: %zu entries), max |P v|/|v| %.1e\n",
           R->steps, R->rhs, 100 * R->decomp_share, R->lin, R->psetups, R->pt_ms, R->pt_mb,
           R->lu_nnz, R->pdrift);
  else
    printf(" %7s  steps %zu\n", "", R->steps);
  fflush(stdout);
}

int stokes_bench(const int *grids, int ng, double rtol, int dense_max, int ida_max, double cpu_max,
                 int quick) {
  printf("# Stokes-type index 2 (MAC grid N x N, n_r = N^2) on [0, 1], rtol = atol = %g, one "
         "core;\n# error max over %d times, drift max |B W u + f2|\n",
         rtol, NOUT);
  printf("%8s %6s %7s %9s %9s %9s %9s %7s\n", "s", "n_r", "tool", "cpu_s", "rss_MB", "error",
         "drift", "lth/ida");
  if (!lth_opivp_available()) {
    printf("(liblth built without CVODE: no lth rows)\n");
    return quick;
  }
  int bad = 0, sparse = lth_op_sparse_pi_available();
  for (int g = 0; g < ng; g++) {
    stokes S;
    stokes_make(&S, grids[g]);
    sres ida = {0}, op, opd = {0};
    if (S.s <= ida_max) {
      ida = measure(&S, 0, rtol, cpu_max);
      row(S.s, S.nr, "ida", &ida, 0);
    } else {
      printf("%8d %6d %7s   not run (above --ida-max %d)\n", S.s, S.nr, "ida", ida_max);
    }
    double ref = ida.ok ? ida.cpu : -1.0;
    if (sparse) {
      op = measure(&S, 1, rtol, cpu_max);
      row(S.s, S.nr, "lth-op", &op, ref);
    } else {
      op = (sres){.ok = 1, .lu_nnz = 1};
      printf("%8d %6d %7s   not run (liblth built without KLU)\n", S.s, S.nr, "lth-op");
    }
    if (S.s <= dense_max) {
      opd = measure(&S, 2, rtol, cpu_max);
      row(S.s, S.nr, "lth-opd", &opd, ref);
    }
    if (quick)
      bad = bad || !(ida.ok && op.ok && opd.ok && ida.err < 1e-5 && op.err < 1e-5 &&
                     opd.err < 1e-5 && op.lu_nnz > 0);
    stokes_free(&S);
  }
  return bad;
}
