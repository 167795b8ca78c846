/* SPDX-License-Identifier: GPL-3.0-or-later */
/* DAE boundary-value problems (include/lth/bvp.h): input checks, result
 * assembly and single shooting; multiple shooting is in bvp_multiple.c and
 * finite differences in bvp_fd.c. */
#include "lth/defaults.h"
#include "lth/bvp.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvp_impl.h"
#include "core/times.h"
#include "ivp/ivp_coef.h"

/* Multiple shooting ends its segments at the non-smooth points of the data
 * seen up to this order (a kink or jump in a Taylor coefficient of order
 * <= 8, that of rk8pd): it integrates up to one side of each and restarts
 * from the other, instead of stepping across it.  (Single shooting's
 * integrator stops short of them by itself, include/lth/enclose.h.) */
#define BVP_POINT_DEGREE 7

static const char *const bvp_names[] = {"shooting", "multiple", "fd", "collocation"};

int lth_bvp_method_from_name(const char *name) {
  for (int k = 0; k < 4; k++) {
    if (strcmp(name, bvp_names[k]) == 0) return k;
  }
  return -1;
}

const char *lth_bvp_method_name(lth_bvp_method method) {
  return (unsigned)method < 4 ? bvp_names[method] : "unknown";
}

void lth_bvp_opts_init(lth_bvp_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->method = LTH_BVP_SHOOTING;
  lth_ivp_opts_init(&opts->ivp);
  opts->fd.order_check = 1;
}

void lth_bvp_result_free(lth_bvp_result *res) {
  if (!res) return;
  free(res->times);
  free(res->z);
  free(res);
}

/* A shooting matrix is judged against the accuracy it is computed with: with
 * an integration tolerance rtol, cond * rtol > 1 means the answer could be
 * wrong in every digit, so the BVP is "not uniquely solvable" at that
 * accuracy (e.g. a periodic problem with Psi(t1, t0) = I, where S is zero up
 * to integration error and cond(S) ~ 1 / rtol). */
double lth_bvp_cond_max(const lth_bvp_opts *o) {
  double cmax = o->cond_max > 0 ? o->cond_max : LTH_DEFAULT_COND_MAX;
  double rtol = o->ivp.rtol > 0 ? o->ivp.rtol : LTH_DEFAULT_RTOL;
  return fmin(cmax, 1.0 / rtol);
}

/* rank [B0 B1] must be p: dependent boundary conditions cannot fix p constants. */
static lth_status check_bc_rank(const lth_bvp_problem *bp, lth_error *err) {
  int p = bp->p, s = bp->s;
  if (p == 0) return LTH_OK;
  double *a = malloc(sizeof(double) * ((size_t)2 * p * s + 2 * (size_t)p + 2));
  if (!a) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *sv = a + (size_t)2 * p * s, *superb = sv + p;
  memcpy(a, bp->B0, (size_t)p * s * sizeof(double));
  memcpy(a + (size_t)p * s, bp->B1, (size_t)p * s * sizeof(double));
  lapack_int info =
      LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', p, 2 * s, a, p, sv, NULL, 1, NULL, 1, superb);
  int rank = 0;
  for (int i = 0; info == 0 && i < p; i++) rank += sv[i] > 1e-12 * sv[0];
  free(a);
  if (info != 0 || rank < p) {
    return lth_error_set(err, LTH_EBC,
                         "boundary conditions are dependent: rank [B0 B1] = %d < p = %d", rank, p);
  }
  return LTH_OK;
}

static lth_status check_input(const lth_bvp_problem *bp, lth_error *err) {
  if (!(bp->t0 < bp->t1)) {
    return lth_error_set(err, LTH_EINVAL, "interval [%g, %g]: need t0 < t1", bp->t0, bp->t1);
  }
  if (bp->rows != bp->p) {
    return lth_error_set(err, LTH_EBC,
                         "%d boundary conditions given; the solution manifold has dimension "
                         "p = %d, so exactly p are needed",
                         bp->rows, bp->p);
  }
  if (bp->p > 0 && (!bp->B0 || !bp->B1 || !bp->beta)) {
    return lth_error_set(err, LTH_EBC, "boundary conditions B0, B1, beta are missing");
  }
  for (size_t k = 0; k < bp->n; k++) {
    if (!(bp->times[k] >= bp->t0 && bp->times[k] <= bp->t1)) {
      return lth_error_set_t(err, LTH_ERANGE, bp->times[k], "output time outside [%g, %g]", bp->t0,
                             bp->t1);
    }
  }
  return check_bc_rank(bp, err);
}

double lth_bvp_bc_residual(const lth_bvp_problem *bp, const double *z0, const double *z1) {
  int p = bp->p, s = bp->s;
  double r2 = 0.0;
  for (int i = 0; i < p; i++) {
    double r = -bp->beta[i];
    for (int j = 0; j < s; j++) {
      r += bp->B0[i + (size_t)j * p] * z0[j] + bp->B1[i + (size_t)j * p] * z1[j];
    }
    r2 += r * r;
  }
  return sqrt(r2);
}

lth_status lth_bvp_time_union(const lth_bvp_problem *bp, double **all, size_t *nall, size_t *idx,
                              lth_error *err) {
  return lth_time_union(bp->t0, bp->t1, bp->times, bp->n, all, nall, idx, err);
}

/* ---- single shooting: S = B0 Phi(t0) + B1 Phi(t1) (Clark section 4) ---- */

/* S = B0 Phi0 + B1 Phi1 into S (p x p) and c = beta - B0 zp0 - B1 zp1; returns
 * ||B0 Phi0|| + ||B1 Phi1||.  The scale of the two terms is kept: S can be tiny
 * (singular) while its own cond(S) is modest. */
static double shooting_matrix(const lth_bvp_problem *bp, const lth_fundamental *fm, size_t last,
                              double *S, double *c, double *work) {
  int s = bp->s, p = bp->p;
  const double *Phi0 = fm->Phi, *Phi1 = fm->Phi + last * (size_t)s * p;
  const double *zp0 = fm->zp, *zp1 = fm->zp + last * (size_t)s;
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, p, s, 1.0, bp->B0, p, Phi0, s, 0.0, S,
              p);
  double scale = LAPACKE_dlange(LAPACK_COL_MAJOR, '1', p, p, S, p);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, p, s, 1.0, bp->B1, p, Phi1, s, 0.0,
              work, p);
  scale += LAPACKE_dlange(LAPACK_COL_MAJOR, '1', p, p, work, p);
  cblas_daxpy(p * p, 1.0, work, 1, S, 1);
  memcpy(c, bp->beta, (size_t)p * sizeof(double));
  cblas_dgemv(CblasColMajor, CblasNoTrans, p, s, -1.0, bp->B0, p, zp0, 1, 1.0, c, 1);
  cblas_dgemv(CblasColMajor, CblasNoTrans, p, s, -1.0, bp->B1, p, zp1, 1, 1.0, c, 1);
  return scale;
}

/* cond_bvp = max_k ||Phi(t_k) S^{-1}||_inf (||B0|| + ||B1||) from the LU of S. */
static double shooting_cond_bvp(const lth_bvp_problem *bp, const lth_fundamental *fm,
                                const double *LU, const lapack_int *ipiv, double *Sinv, double *X) {
  int s = bp->s, p = bp->p;
  for (int j = 0; j < p; j++)
    for (int i = 0; i < p; i++) Sinv[i + (size_t)j * p] = i == j;
  LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', p, p, LU, p, ipiv, Sinv, p);
  double mx = 0.0;
  for (size_t k = 0; k < fm->n; k++) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, s, p, p, 1.0,
                fm->Phi + k * (size_t)s * p, s, Sinv, p, 0.0, X, s);
    double g = lth_bvp_green_norm(X, s, p, (size_t)s);
    mx = g > mx || isnan(g) ? g : mx;
  }
  return mx * lth_bvp_bc_norm(bp);
}

static lth_status shooting(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_bvp_result *res,
                           lth_error *err) {
  int s = bp->s, p = bp->p;
  double *all = NULL;
  size_t nall = 0, *idx = malloc((bp->n + 1) * sizeof(size_t));
  lth_fundamental *fm = NULL;
  size_t pp = (size_t)p * p;
  /* S, its copy, S^{-1}, c, work (max(p p, 4 p)), X (s x p) */
  double *S = malloc(sizeof(double) * (4 * pp + 6 * (size_t)p + (size_t)s * p + 2));
  lapack_int *ipiv = malloc(sizeof(lapack_int) * (2 * (size_t)p + 1));
  lth_status st = (!idx || !S || !ipiv) ? lth_error_set(err, LTH_ENOMEM, "out of memory")
                                        : lth_bvp_cond_times(bp, &all, &nall, idx, err);
  if (st == LTH_OK) {
    st = lth_ivp_fundamental(bp->sys, bp->t0, all, nall, &o->ivp, &fm, err);
  }
  if (st != LTH_OK) goto cleanup;
  double *S0 = S + pp, *Sinv = S0 + pp, *c = Sinv + pp, *work = c + p + 1,
         *X = work + pp + 4 * (size_t)p;
  double scale = p > 0 ? shooting_matrix(bp, fm, nall - 1, S, c, work) : 0.0;
  memcpy(S0, S, pp * sizeof(double));
  double anorm = p > 0 ? LAPACKE_dlange(LAPACK_COL_MAJOR, '1', p, p, S, p) : 0.0, rcond = 0.0;
  lapack_int info = p > 0 ? LAPACKE_dgetrf(LAPACK_COL_MAJOR, p, p, S, p, ipiv) : 0;
  if (info == 0 && p > 0) {
    LAPACKE_dgecon_work(LAPACK_COL_MAJOR, '1', p, S, p, anorm, &rcond, work,
                        ipiv + p); /* iwork: the second half of ipiv */
  }
  /* cond_shooting = (||B0 Phi0|| + ||B1 Phi1||) ||S^{-1}|| >= cond(S) */
  res->cond_shooting = p == 0                     ? 1.0
                       : (rcond > 0 && anorm > 0) ? fmax(scale / anorm, 1.0) / rcond
                                                  : INFINITY;
  res->cond_bvp = p == 0                     ? 0.0
                  : (info == 0 && rcond > 0) ? shooting_cond_bvp(bp, fm, S, ipiv, Sinv, X)
                                             : INFINITY;
  res->drift = fm->drift;
  double cmax = lth_bvp_cond_max(o);
  if (info != 0 || !(res->cond_shooting <= cmax) || !(res->cond_bvp <= cmax)) {
    /* which conditions are dependent is judged on orthonormal bases of the
     * manifold at each end (lth_bvp_explain, after this returns): Phi's own
     * columns are spread by the growth of Psi, and a fast decaying mode makes
     * a component look fixed that is not */
    st = (info != 0 || !(res->cond_shooting <= cmax))
             ? lth_bvp_not_unique_detail(res->cond_shooting,
                                         "shooting matrix S = B0 Phi(t0) + B1 Phi(t1)", "", err)
             : lth_bvp_ill_posed(res->cond_bvp, cmax, "single shooting", "", err);
    goto cleanup;
  }
  res->error_estimate = NAN;
  if (p > 0) LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', p, 1, S, p, ipiv, c, p);
  for (size_t k = 0; k < bp->n; k++) {
    size_t j = idx[k];
    double *z = res->z + k * (size_t)s;
    memcpy(z, fm->zp + j * (size_t)s, (size_t)s * sizeof(double));
    if (p > 0) {
      cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, fm->Phi + j * (size_t)s * p, s, c, 1, 1.0,
                  z, 1);
    }
  }
  /* boundary residual from the end values (zp0, zp1 are not needed any more) */
  double *z0 = fm->zp, *z1 = fm->zp + (nall - 1) * (size_t)s;
  if (p > 0) {
    const double *Phi0 = fm->Phi, *Phi1 = fm->Phi + (nall - 1) * (size_t)s * p;
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, Phi0, s, c, 1, 1.0, z0, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, s, p, 1.0, Phi1, s, c, 1, 1.0, z1, 1);
  }
  res->bc_residual = lth_bvp_bc_residual(bp, z0, z1);
cleanup:
  lth_fundamental_free(fm);
  free(all);
  free(idx);
  free(S);
  free(ipiv);
  return st;
}

lth_status lth_bvp_not_unique(double cond, const char *what, lth_error *err) {
  return lth_bvp_not_unique_detail(cond, what, NULL, err);
}

lth_status lth_bvp_not_unique_detail(double cond, const char *what, const char *detail,
                                     lth_error *err) {
  lth_error_set(err, LTH_ENOTUNIQUE,
                "the BVP is not uniquely solvable: the %s is %s (condition estimate %.3e)%s%s",
                what, isfinite(cond) ? "numerically singular" : "singular", cond,
                detail && *detail ? ": the boundary conditions are " : "", detail ? detail : "");
  if (err) {
    err->has_cond = 1;
    err->cond = cond;
  }
  return LTH_ENOTUNIQUE;
}

static lth_bvp_result *result_alloc(const lth_bvp_problem *bp, lth_bvp_method method) {
  lth_bvp_result *res = calloc(1, sizeof *res);
  if (!res) return NULL;
  res->n = bp->n;
  res->s = bp->s;
  res->p = bp->p;
  res->method = method;
  res->fd_order = NAN;
  res->fd_error = NAN;
  res->fd_error_layer = NAN;
  res->cond_bvp = NAN;
  res->error_estimate = NAN;
  res->times = malloc((bp->n + 1) * sizeof(double));
  res->z = malloc(((size_t)bp->s * bp->n + 1) * sizeof(double));
  if (!res->times || !res->z) {
    lth_bvp_result_free(res);
    return NULL;
  }
  memcpy(res->times, bp->times, bp->n * sizeof(double));
  return res;
}

lth_status lth_bvp_solve(const lth_system *sys, double t0, double t1, int rows, const double *B0,
                         const double *B1, const double *beta, const double *times, size_t n,
                         const lth_bvp_opts *opts, lth_bvp_result **out, lth_error *err) {
  *out = NULL;
  lth_bvp_opts o;
  if (opts)
    o = *opts;
  else
    lth_bvp_opts_init(&o);
  /* one threshold for the whole solve: the Pi scan below and every method's integrator or
   * consistency conditions use o.cond_max, whatever the caller left in o.ivp.cond_max */
  o.ivp.cond_max = o.cond_max;
  lth_pieces pieces;
  memset(&pieces, 0, sizeof pieces);
  lth_bvp_problem bp = {.sys = sys,
                        .t0 = t0,
                        .t1 = t1,
                        .rows = rows,
                        .B0 = B0,
                        .B1 = B1,
                        .beta = beta,
                        .times = times,
                        .n = n,
                        .s = lth_system_size(sys),
                        .p = lth_system_manifold_dim(sys),
                        .pieces = &pieces};
  lth_status st = check_input(&bp, err);
  /* once per solve: every integrator, table and workspace of the method judges
   * cond_interval against the same scale (multiple shooting makes many) */
  if (st == LTH_OK) o.ivp.chain_scale = lth_coef_chain_scale(sys, &o.ivp);
  /* no method may step over a singular Pi between its own points */
  if (st == LTH_OK) st = lth_ivp_prescan(sys, t0, t1, &o.ivp, NULL, err);
  /* nor past a point where the data would make the solution jump */
  if (st == LTH_OK) st = lth_bvp_check_impulses(sys, t0, t1, err);
  if (st == LTH_OK && o.method == LTH_BVP_MULTIPLE && bp.p > 0) {
    st = lth_pieces_points(sys, t0, t1, BVP_POINT_DEGREE, &pieces, err);
  }
  if (st != LTH_OK) return st;
  o.ivp.pi_scan = -1; /* the methods' integrators: the interval is scanned */
  lth_bvp_result *res = result_alloc(&bp, o.method);
  if (!res) return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a BVP solution");
  /* p = 0: no free constants, the solution is the particular one: shooting gives it */
  switch (bp.p == 0 && o.method == LTH_BVP_MULTIPLE ? LTH_BVP_SHOOTING : o.method) {
  case LTH_BVP_SHOOTING:
    st = shooting(&bp, &o, res, err);
    break;
  case LTH_BVP_MULTIPLE:
    st = lth_bvp_multiple(&bp, &o, res, err);
    break;
  case LTH_BVP_FD:
    st = lth_bvp_fd(&bp, &o, res, err);
    break;
  case LTH_BVP_COLLOCATION:
    st = lth_bvp_collocation(&bp, &o, res, err);
    break;
  default:
    st = lth_error_set(err, LTH_EINVAL, "unknown BVP method %d", (int)o.method);
  }
  lth_pieces_release(&pieces);
  if (st == LTH_ENOTUNIQUE) lth_bvp_explain(&bp, &o, err);
  if (st == LTH_ENOTUNIQUE && o.method == LTH_BVP_SHOOTING && err &&
      strstr(err->message, "shooting matrix S") &&
      !strstr(err->message, "dependent on the consistent manifold")) {
    /* conditions that are fine on the manifold: the method is the limit */
    size_t len = strlen(err->message);
    snprintf(err->message + len, sizeof err->message - len,
             "; no condition vanishes on the solution manifold, so the method is the limit: single "
             "shooting forms Psi(t1, t0), whose growth alone can do this when solutions grow "
             "and decay fast; use collocation or multiple shooting");
  }
  if (st != LTH_OK) {
    lth_bvp_result_free(res);
    return st;
  }
  *out = res;
  return LTH_OK;
}
