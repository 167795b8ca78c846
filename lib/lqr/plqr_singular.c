/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The singular and partially singular LQR on a DAE plant (lib/lqr/plqr_sing.h):
 * the split of the inputs by R's kernel, the optimality DAE's two-point
 * problem by Gauss collocation (as lib/lqr/lqr_colloc.c for ODE plants),
 * and the results: the trajectories, J* from the multiplier at t0 and,
 * independently, J by quadrature of the integrand along the optimum. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "colloc/colloc.h"
#include "core/errors.h"
#include "core/small_blas.h"
#include "lth/defaults.h"
#include "plqr_sing.h"

/* The quadrature of J along the optimum: QUAD_PANELS panels of QUAD_POINTS
 * Gauss-Legendre points (exact for polynomials of degree 2 QUAD_POINTS - 1
 * per panel; the integrand is as smooth as the data). */
#define QUAD_PANELS 48
#define QUAD_POINTS 8
/* The collocation's tolerance (relative to max(1, max |z|)). */
#define SING_TOL 1e-10

double plqr_r_scale(const plqr *L) {
  int n = L->n, nu = L->nu;
  double wmax = 0.0, nmax = 0.0;
  for (size_t i = 0; i < (size_t)n * n; i++) {
    wmax = fmax(wmax, fabs(L->W[i]));
  }
  for (size_t i = 0; i < (size_t)n * nu; i++) {
    nmax = fmax(nmax, fabs(L->N[i]));
  }
  return wmax * fmax(1.0, nmax * nmax);
}

lth_status plqr_split_inputs(plqr *L, double t, int *nu2, double *U, lth_error *err) {
  lth_status st = plqr_weights_values(L, t, err);
  if (st != LTH_OK) {
    return st;
  }
  int nu = L->nu;
  double *ev = L->work + L->nwork, *V = ev + nu;
  memcpy(V, L->wt.R, (size_t)nu * nu * sizeof(double));
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', nu, V, nu, ev) != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, t, "the eigenvalues of R failed");
  }
  double zero = LTH_PLQR_RANK_TOL * plqr_r_scale(L);
  if (ev[0] < -zero) {
    return lth_error_set_t(err, LTH_ESING, t,
                           "the weight of the inputs R(t) is indefinite at t = %.10g (eigenvalue "
                           "%.3e): the cost is unbounded below",
                           t, ev[0]);
  }
  int k2 = 0;
  while (k2 < nu && ev[k2] <= zero) {
    k2++;
  }
  *nu2 = k2;
  /* U = [U1 U2]: the eigenvectors of the positive eigenvalues, then the kernel;
   * a unit vector to rounding is taken exactly (an unweighted input as it is) */
  for (int c = 0; c < nu; c++) {
    int from = c < nu - k2 ? k2 + c : c - (nu - k2);
    double *col = U + (size_t)c * nu;
    memcpy(col, V + (size_t)from * nu, (size_t)nu * sizeof(double));
    for (int i = 0; i < nu; i++) {
      if (fabs(col[i]) > 1.0 - 1e-13) {
        memset(col, 0, (size_t)nu * sizeof(double));
        col[i] = 1.0;
        break;
      }
    }
  }
  return LTH_OK;
}

/* Output times, then t0, t1 and the quadrature's points, sorted, with where
 * each of them went. */
typedef struct sing_times {
  double *all;
  size_t nall, *pos; /* pos[k]: the place of entry k (n outputs, t0, t1, quadrature) */
  double *wq;        /* quadrature weights */
  size_t nq;
} sing_times;

static int cmp_pair(const void *a, const void *b) {
  const double *x = a, *y = b;
  return (x[0] > y[0]) - (x[0] < y[0]);
}

static lth_status make_times(const plqr *L, const double *times, size_t n, sing_times *T,
                             lth_error *err) {
  lth_colloc_tableau tab;
  lth_status st = lth_colloc_gauss(QUAD_POINTS, &tab, err);
  if (st != LTH_OK) {
    return st;
  }
  T->nq = (size_t)QUAD_PANELS * QUAD_POINTS;
  T->nall = n + 2 + T->nq;
  double *pairs = malloc(2 * T->nall * sizeof(double));
  T->all = malloc(T->nall * sizeof(double));
  T->pos = malloc(T->nall * sizeof(size_t));
  T->wq = malloc(T->nq * sizeof(double));
  if (!pairs || !T->all || !T->pos || !T->wq) {
    free(pairs);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  double h = (L->t1 - L->t0) / QUAD_PANELS;
  for (size_t k = 0; k < T->nall; k++) {
    double t;
    if (k < n) {
      t = times[k];
    } else if (k < n + 2) {
      t = k == n ? L->t0 : L->t1;
    } else {
      size_t q = k - n - 2, panel = q / QUAD_POINTS, node = q % QUAD_POINTS;
      t = L->t0 + h * ((double)panel + tab.c[node]);
      T->wq[q] = h * tab.b[node];
    }
    pairs[2 * k] = t;
    pairs[2 * k + 1] = (double)k;
  }
  qsort(pairs, T->nall, 2 * sizeof(double), cmp_pair);
  for (size_t k = 0; k < T->nall; k++) {
    T->all[k] = pairs[2 * k];
    T->pos[(size_t)pairs[2 * k + 1]] = k;
  }
  free(pairs);
  return LTH_OK;
}

typedef struct sing_run {
  plqr *L;
  plqr_sing *S;
  int nu2, p, so; /* so: the optimality DAE's size 2p + 1 + nu2 */
  const double *U;
  double *Y; /* the final cost: P1, p1, c1 */
  double *x0;
  double *zo; /* the optimality DAE at every time of T */
  sing_times T;
  /* the impulse at t0: x(t0+) = x0 + B2(t0) eta (Clark's section 4.2) */
  int nb;          /* p - nu2: the directions an impulse cannot move */
  double *Ub;      /* p x p: left singular vectors of B2(t0), range first */
  double *sv, *Vt; /* nu2, nu2 x nu2 */
  double *r2;      /* nu2: the linear weight of u2 at t0 (an impulse costs 2 r2'eta) */
  /* the impulse at t1: x(t1+) = x(t1-) + B2(t1) zeta minimises the final cost
   * plus 2 r2(t1)'zeta; Y holds the resulting cost of x(t1-) */
  double *B2e, *Gp, *Ye; /* p x nu2, nu2 x nu2 (pseudo-inverse), the final cost as given */
  double *r2e;           /* nu2 */
  int jump1;             /* 1: B2(t1)'P1 != 0 or r2(t1) != 0, zeta is computed */
} sing_run;

/* The final cost convex in x (as the integrand, plqr_sing_data.c). */
static lth_status final_convex(const plqr *L, const double *Y, lth_error *err) {
  int p = L->p;
  double pmax = 0.0, *ev = L->work + L->nwork, *P1 = ev + p;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) {
      P1[i + (size_t)j * p] = 0.5 * (Y[i + (size_t)j * p] + Y[j + (size_t)i * p]);
      pmax = fmax(pmax, fabs(P1[i + (size_t)j * p]));
    }
  }
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', p, P1, p, ev) != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, L->t1, "the eigenvalues of the final cost failed");
  }
  if (ev[0] < -1e-12 * fmax(pmax, 1e-300)) {
    return lth_error_set_t(err, LTH_EDATA, L->t1,
                           "the final cost is indefinite in the state (eigenvalue %.3e): a "
                           "singular problem's stationary point need not be a minimum",
                           ev[0]);
  }
  return LTH_OK;
}

/* The free jump at t1 (Clark's section 4.2, as lth_lqr for ODE plants): with
 * G = B2'P1 B2 and h = B2'p1 + r2 at t1, zeta = -G^+ (B2'P1 x + h) and the
 * arc sees phi~(x) = phi(x + B2 zeta) + 2 r2'zeta: P1~ = P1 - P1 B2 G^+ B2'P1,
 * p1~ = p1 - P1 B2 G^+ h, c1~ = c1 - h'G^+ h.  A free direction of G along
 * which P1 B2 or h does not vanish lowers the final cost without bound. */
static lth_status terminal_setup(sing_run *R, lth_error *err) {
  plqr *L = R->L;
  int p = R->p, nu = L->nu, nu2 = R->nu2, a = nu - nu2;
  lth_status st = plqr_weights_values(L, L->t1, err);
  if (st != LTH_OK) {
    return st;
  }
  double *P1 = R->Y, *p1 = R->Y + (size_t)p * p, *B2 = R->B2e;
  memcpy(R->Ye, R->Y, L->ny_ * sizeof(double));
  double bmax = 0.0, pmax = 0.0, hmax = 0.0;
  for (int k = 0; k < nu2; k++) {
    R->r2e[k] = 0.0;
    for (int c = 0; c < nu; c++) {
      R->r2e[k] += R->U[c + (size_t)(a + k) * nu] * L->wt.r[c];
    }
    for (int i = 0; i < p; i++) {
      double sum = 0.0;
      for (int c = 0; c < nu; c++) {
        sum += L->wt.B[i + (size_t)c * p] * R->U[c + (size_t)(a + k) * nu];
      }
      B2[i + (size_t)k * p] = sum;
      bmax = fmax(bmax, fabs(sum));
    }
  }
  for (size_t i = 0; i < (size_t)p * p; i++) {
    pmax = fmax(pmax, fabs(P1[i]));
  }
  /* PB = P1 B2 (p x nu2), h, G = B2'PB */
  double *PB =
      calloc((size_t)p * nu2 + 2 * (size_t)nu2 * nu2 + 3 * (size_t)nu2 + 1, sizeof(double));
  if (!PB) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  double *G = PB + (size_t)p * nu2, *V = G + (size_t)nu2 * nu2, *ev = V + (size_t)nu2 * nu2;
  double *h = ev + nu2;
  double pbmax = 0.0;
  lth_small_gemm(CblasNoTrans, CblasNoTrans, p, nu2, p, 1.0, P1, p, B2, p, 0.0, PB, p);
  lth_small_gemm(CblasTrans, CblasNoTrans, nu2, nu2, p, 1.0, B2, p, PB, p, 0.0, G, nu2);
  for (int k = 0; k < nu2; k++) {
    h[k] = R->r2e[k];
    for (int i = 0; i < p; i++) {
      h[k] += B2[i + (size_t)k * p] * p1[i];
      pbmax = fmax(pbmax, fabs(PB[i + (size_t)k * p]));
    }
    hmax = fmax(hmax, fabs(h[k]));
  }
  double tol = 1e-12 * fmax(pmax, 1e-300) * fmax(bmax, 1e-300) * p;
  R->jump1 = pbmax > tol || hmax > 0.0;
  if (!R->jump1) {
    free(PB);
    return LTH_OK;
  }
  memcpy(V, G, (size_t)nu2 * nu2 * sizeof(double));
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', nu2, V, nu2, ev) != 0) {
    free(PB);
    return lth_error_set_t(err, LTH_ELAPACK, L->t1, "the eigenvalues of B2'P1 B2 failed");
  }
  double gmax = fmax(fabs(ev[nu2 - 1]), 1e-300);
  memset(R->Gp, 0, (size_t)nu2 * nu2 * sizeof(double));
  for (int k = 0; k < nu2 && st == LTH_OK; k++) {
    const double *v = V + (size_t)k * nu2;
    if (ev[k] > 1e-12 * gmax) {
      for (int j = 0; j < nu2; j++) {
        for (int i = 0; i < nu2; i++) {
          R->Gp[i + (size_t)j * nu2] += v[i] * v[j] / ev[k];
        }
      }
      continue;
    }
    double pv = 0.0, hv = 0.0; /* a free direction: P1 B2 v and h'v must vanish */
    for (int i = 0; i < p; i++) {
      double sum = 0.0;
      for (int j = 0; j < nu2; j++) {
        sum += PB[i + (size_t)j * p] * v[j];
      }
      pv = fmax(pv, fabs(sum));
    }
    for (int j = 0; j < nu2; j++) {
      hv += h[j] * v[j];
    }
    if (pv > tol || fabs(hv) > 1e-12 * fmax(hmax, 1e-300)) {
      st = lth_error_set_t(err, LTH_ENOSOL, L->t1,
                           "the final cost falls without bound along a free input's direction "
                           "at t1 (an impulse there lowers it at no cost): no optimum");
    }
  }
  if (st == LTH_OK) { /* Y = (P1~, p1~, c1~) */
    double *GPB = calloc((size_t)nu2 * p + nu2 + 1, sizeof(double)),
           *Gh = GPB ? GPB + (size_t)nu2 * p : NULL;
    if (!GPB) {
      free(PB);
      return lth_error_set(err, LTH_ENOMEM, "out of memory");
    }
    lth_small_gemm(CblasNoTrans, CblasTrans, nu2, p, nu2, 1.0, R->Gp, nu2, PB, p, 0.0, GPB, nu2);
    lth_small_gemm(CblasNoTrans, CblasNoTrans, nu2, 1, nu2, 1.0, R->Gp, nu2, h, nu2, 0.0, Gh, nu2);
    lth_small_gemm(CblasNoTrans, CblasNoTrans, p, p, nu2, -1.0, PB, p, GPB, nu2, 1.0, P1, p);
    lth_small_gemm(CblasNoTrans, CblasNoTrans, p, 1, nu2, -1.0, PB, p, Gh, nu2, 1.0, p1, p);
    for (int k = 0; k < nu2; k++) {
      R->Y[(size_t)p * p + p] -= h[k] * Gh[k];
    }
    free(GPB);
  }
  free(PB);
  return st;
}

/* zeta = -G^+ (B2'(P1 x + p1) + r2) at t1, on the final cost as given. */
static void terminal_zeta(const sing_run *R, const double *x, double *zeta) {
  int p = R->p, nu2 = R->nu2;
  const double *P1 = R->Ye, *p1 = R->Ye + (size_t)p * p;
  double g[nu2 > 0 ? nu2 : 1];
  for (int k = 0; k < nu2; k++) {
    double sum = R->r2e[k];
    for (int i = 0; i < p; i++) {
      double px = p1[i];
      for (int j = 0; j < p; j++) {
        px += P1[i + (size_t)j * p] * x[j];
      }
      sum += R->B2e[i + (size_t)k * p] * px;
    }
    g[k] = sum;
  }
  for (int k = 0; k < nu2; k++) {
    double sum = 0.0;
    for (int j = 0; j < nu2; j++) {
      sum += R->Gp[k + (size_t)j * nu2] * g[j];
    }
    zeta[k] = R->jump1 ? -sum : 0.0;
  }
}

/* B2(t0) = B U2 by its SVD: the rows of x(t0) that an impulse of u2 cannot
 * change are Ub(:, nu2:)' x(t0) = Ub(:, nu2:)' x0. */
static lth_status start_space(sing_run *R, lth_error *err) {
  plqr *L = R->L;
  int p = R->p, nu = L->nu, nu2 = R->nu2, a = nu - nu2;
  lth_status st = plqr_weights_values(L, L->t0, err);
  if (st != LTH_OK) {
    return st;
  }
  double *B2 = malloc(((size_t)p * nu2 + nu2 + 1) * sizeof(double)), *superb = B2 + (size_t)p * nu2;
  if (!B2) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int k = 0; k < nu2; k++) {
    R->r2[k] = 0.0;
    for (int c = 0; c < nu; c++) {
      R->r2[k] += R->U[c + (size_t)(a + k) * nu] * L->wt.r[c];
    }
    for (int i = 0; i < p; i++) {
      double sum = 0.0;
      for (int c = 0; c < nu; c++) {
        sum += L->wt.B[i + (size_t)c * p] * R->U[c + (size_t)(a + k) * nu];
      }
      B2[i + (size_t)k * p] = sum;
    }
  }
  lapack_int info = LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'A', p, nu2, B2, p, R->sv, R->Ub, p,
                                   R->Vt, nu2, superb);
  free(B2);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, L->t0, "the SVD of the free inputs' map failed");
  }
  if (!(R->sv[nu2 - 1] > 1e-12 * R->sv[0])) {
    return lth_error_set_t(err, LTH_ESING, L->t0,
                           "the inputs the cost leaves free do not act independently on the "
                           "state at t0 (B2 has the singular values %.3e .. %.3e)",
                           R->sv[0], R->sv[nu2 - 1]);
  }
  R->nb = p - nu2;
  return LTH_OK;
}

/* eta = B2(t0)^+ (x(t0+) - x0), from the SVD. */
static void impulse(const sing_run *R, const double *xplus, double *eta) {
  int p = R->p, nu2 = R->nu2;
  double c[nu2 > 0 ? nu2 : 1];
  for (int k = 0; k < nu2; k++) {
    double sum = 0.0;
    for (int i = 0; i < p; i++) {
      sum += R->Ub[i + (size_t)k * p] * (xplus[i] - R->x0[i]);
    }
    c[k] = sum / R->sv[k];
  }
  for (int j = 0; j < nu2; j++) {
    double sum = 0.0;
    for (int k = 0; k < nu2; k++) {
      sum += R->Vt[k + (size_t)j * nu2] * c[k];
    }
    eta[j] = sum;
  }
}

static lth_status collocate(sing_run *R, lth_error *err) {
  plqr *L = R->L;
  int p = R->p, so = R->so, nb = R->nb, rows = nb + 1 + p;
  lth_system *sys = NULL;
  lth_status st = plqr_sing_system(R->S, &sys, err);
  if (st != LTH_OK) {
    return st;
  }
  double *buf = calloc((size_t)2 * rows * so + rows + 1, sizeof(double));
  lth_ivp_opts io;
  lth_ivp_opts_init(&io);
  io.table_tol = lth_colloc_table_tol(SING_TOL);
  lth_colloc_ctx *cx =
      buf ? lth_colloc_ctx_alloc(sys, lth_colloc_default_stages(SING_TOL), &io, L->t0, L->t1, err)
          : NULL;
  st =
      cx ? LTH_OK : (buf ? lth_error_status(err) : lth_error_set(err, LTH_ENOMEM, "out of memory"));
  lth_colloc_out out = {0};
  if (st == LTH_OK) {
    /* x(t0) = x0 up to an impulse along B2(t0), c(t0) = 0, lambda(t1) - P1 x(t1) = p1 */
    double *B0 = buf, *B1 = B0 + (size_t)rows * so, *beta = B1 + (size_t)rows * so;
    const double *Nb = R->Ub + (size_t)p * R->nu2;
    for (int i = 0; i < nb; i++) {
      for (int j = 0; j < p; j++) {
        B0[i + (size_t)j * rows] = Nb[j + (size_t)i * p];
        beta[i] += Nb[j + (size_t)i * p] * R->x0[j];
      }
    }
    B0[nb + (size_t)p * rows] = 1.0;
    for (int i = 0; i < p; i++) {
      int row = nb + 1 + i;
      B1[row + (size_t)(p + 1 + i) * rows] = 1.0;
      for (int j = 0; j < p; j++) {
        B1[row + (size_t)j * rows] = -R->Y[i + (size_t)j * p];
      }
      beta[row] = R->Y[(size_t)p * p + i];
    }
    lth_colloc_bc bc = {rows, B0, B1, beta};
    lth_colloc_opts co = {.tol = SING_TOL,
                          .output_mode = LTH_COLLOC_STEP,
                          .rank_tol = 1e-10,
                          .keep_singular = 1,
                          .lsq_max = 100.0 * SING_TOL};
    out.z = R->zo;
    st = lth_colloc_adapt(cx, &bc, L->t0, L->t1, R->T.all, R->T.nall, &co, &out, err);
  }
  const lth_error *inner = plqr_sing_error(R->S);
  if (st != LTH_OK && inner) {
    *err = *inner; /* the data's own refusal, not "user callback returned 1" */
    st = err->status;
  } else if (st == LTH_OK && !(out.mesh->lsq_resid <= 100.0 * SING_TOL)) {
    st = lth_error_set_t(err, LTH_ENOSOL, L->t0,
                         "no optimum from this initial state, even with an impulse of the free "
                         "inputs at t0 (residual %.3e)",
                         out.mesh->lsq_resid);
  } else if (st == LTH_ENOSOL) {
    lth_error_prefix(err, "no optimum from this initial state, even with an impulse of the free "
                          "inputs at t0: ");
  } else if ((st == LTH_ESING || st == LTH_ECOND) && err->has_t) {
    lth_error_prefix(err, "B2'Qt B2 (= -Pi of the optimality DAE) must be invertible: ");
  }
  lth_cmesh_free(out.mesh);
  lth_colloc_ctx_free(cx);
  lth_system_free(sys);
  free(buf);
  return st;
}

/* u, w = (z, u, y) at entry k of T from the optimality DAE's solution there;
 * the integrand's value into *Lval. */
static lth_status plant_at(sing_run *R, size_t k, double *u, double *w, double *Lval,
                           lth_error *err) {
  plqr *L = R->L;
  int p = R->p, nu = L->nu, a = nu - R->nu2, n = L->n;
  double t = R->T.all[R->T.pos[k]];
  const double *zo = R->zo + R->T.pos[k] * (size_t)R->so;
  const double *x = zo, *lam = zo + p + 1, *u2 = zo + 2 * p + 1;
  plqr_sing_values v;
  lth_status st = plqr_sing_values_at(R->S, t, &v, err);
  if (st != LTH_OK) {
    return st;
  }
  double u1[a > 0 ? a : 1];
  for (int i = 0; i < a; i++) {
    double sum = v.t3[i];
    for (int j = 0; j < p; j++) {
      sum += v.T1[i + (size_t)j * v.ldT] * x[j] + v.T2[i + (size_t)j * v.ldT] * lam[j];
    }
    u1[i] = -sum;
  }
  for (int c = 0; c < nu; c++) {
    double sum = 0.0;
    for (int i = 0; i < a; i++) {
      sum += R->U[c + (size_t)i * nu] * u1[i];
    }
    for (int i = 0; i < R->nu2; i++) {
      sum += R->U[c + (size_t)(a + i) * nu] * u2[i];
    }
    u[c] = sum;
  }
  memcpy(w, v.mv, (size_t)n * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, 1, p, 1.0, v.M, n, x, p, 1.0, w, n);
  lth_small_gemm(CblasNoTrans, CblasNoTrans, n, 1, nu, 1.0, v.N, n, u, nu, 1.0, w, n);
  double J = v.c;
  for (int i = 0; i < n; i++) {
    double Ww = 0.0;
    for (int j = 0; j < n; j++) {
      Ww += v.W[i + (size_t)j * n] * w[j];
    }
    J += w[i] * (Ww + 2.0 * v.l[i]);
  }
  *Lval = J;
  return LTH_OK;
}

static lth_status results(sing_run *R, size_t n, lth_plqr_result *res, lth_error *err) {
  plqr *L = R->L;
  int p = R->p, nu = L->nu, s = L->s, ny = L->ny, nn = L->n;
  double *w = malloc(((size_t)nn + nu + 1) * sizeof(double)), *u = w + nn, Lv = 0.0;
  lth_status st = w ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    st = plant_at(R, k, u, w, &Lv, err);
    const double *zo = R->zo + R->T.pos[k] * (size_t)R->so;
    res->times[k] = R->T.all[R->T.pos[k]];
    memcpy(res->x + k * p, zo, (size_t)p * sizeof(double));
    memcpy(res->u + k * nu, u, (size_t)nu * sizeof(double));
    memcpy(res->z + k * s, w, (size_t)s * sizeof(double));
    memcpy(res->y + k * ny, w + s + nu, (size_t)ny * sizeof(double));
  }
  /* J* = x0+'lambda(t0) + p1'x(t1) + c1 + c(t1) (plqr_sing.h) after the impulse
   * x0+ = x0 + B2 eta, which costs 2 r2'eta (R2 = 0 and W N U2 = 0 for a
   * semidefinite W: no square of the impulse, lib/lqr/plqr_sing.h) */
  const double *z0 = R->zo + R->T.pos[n] * (size_t)R->so;
  const double *z1 = R->zo + R->T.pos[n + 1] * (size_t)R->so;
  const double *P1 = R->Y, *p1 = R->Y + (size_t)p * p;
  double eta[R->nu2], jump = 0.0;
  impulse(R, z0, eta);
  for (int c = 0; c < nu; c++) {
    double sum = 0.0;
    for (int k = 0; k < R->nu2; k++) {
      sum += R->U[c + (size_t)(nu - R->nu2 + k) * nu] * eta[k];
    }
    res->impulse[c] = sum;
  }
  for (int k = 0; k < R->nu2; k++) {
    jump += 2.0 * R->r2[k] * eta[k];
  }
  double zeta[R->nu2];
  terminal_zeta(R, z1, zeta);
  for (int c = 0; c < nu; c++) {
    double sum = 0.0;
    for (int k = 0; k < R->nu2; k++) {
      sum += R->U[c + (size_t)(nu - R->nu2 + k) * nu] * zeta[k];
    }
    res->impulse_t1[c] = sum;
  }
  double c1 = R->Y[(size_t)p * p + p], J = c1 + z1[p] + jump, phi = c1;
  for (int i = 0; i < p; i++) {
    J += z0[i] * z0[p + 1 + i] + p1[i] * z1[i];
    double px = 0.0;
    for (int j = 0; j < p; j++) {
      px += P1[i + (size_t)j * p] * z1[j];
    }
    phi += z1[i] * (px + 2.0 * p1[i]);
  }
  res->cost = J;
  double Q = 0.0;
  for (size_t q = 0; q < R->T.nq && st == LTH_OK; q++) {
    st = plant_at(R, n + 2 + q, u, w, &Lv, err);
    Q += R->T.wq[q] * Lv;
  }
  res->cost_closed = Q + phi + jump;
  free(w);
  return st;
}

lth_status plqr_singular_solve(plqr *L, int nu2, const double *U, const double *z0,
                               const double *times, size_t n, lth_plqr_result *res,
                               lth_error *err) {
  sing_run R = {.L = L, .nu2 = nu2, .p = L->p, .U = U};
  R.so = 2 * R.p + 1 + nu2;
  R.Y = calloc(L->ny_ + (size_t)R.p + 1, sizeof(double));
  R.x0 = R.Y ? R.Y + L->ny_ : NULL;
  lth_status st = R.Y ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  st = st == LTH_OK ? make_times(L, times, n, &R.T, err) : st;
  if (st == LTH_OK) {
    R.zo = malloc(R.T.nall * (size_t)R.so * sizeof(double));
    st = R.zo ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  st = st == LTH_OK ? plqr_final(L, R.Y, err) : st;
  st = st == LTH_OK ? final_convex(L, R.Y, err) : st;
  st = st == LTH_OK ? plqr_initial_state(L, z0, R.x0, err) : st;
  if (st == LTH_OK) {
    size_t p = (size_t)R.p, k = (size_t)nu2;
    R.Ub = malloc((p * p + k + k * k + k + 1) * sizeof(double));
    R.B2e = R.Ub ? malloc((p * k + 2 * k * k + L->ny_ + k + 1) * sizeof(double)) : NULL;
    st = R.B2e ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) {
    R.Gp = R.B2e + (size_t)R.p * nu2;
    R.Ye = R.Gp + (size_t)nu2 * nu2;
    R.r2e = R.Ye + L->ny_;
    st = terminal_setup(&R, err);
  }
  if (st == LTH_OK) {
    R.sv = R.Ub + (size_t)R.p * R.p;
    R.Vt = R.sv + nu2;
    R.r2 = R.Vt + (size_t)nu2 * nu2;
    st = start_space(&R, err);
  }
  if (st == LTH_OK) {
    R.S = plqr_sing_alloc(L, nu2, U, err);
    st = R.S ? LTH_OK : lth_error_status(err);
  }
  st = st == LTH_OK ? collocate(&R, err) : st;
  st = st == LTH_OK ? results(&R, n, res, err) : st;
  res->singular = nu2;
  res->have_gain = 0;
  plqr_sing_free(R.S);
  free(R.zo);
  free(R.T.all);
  free(R.T.pos);
  free(R.T.wq);
  free(R.Y);
  free(R.Ub);
  free(R.B2e);
  return st;
}
