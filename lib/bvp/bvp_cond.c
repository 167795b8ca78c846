/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Conditioning of a DAE BVP, shared by the methods (include/lth/bvp.h,
 * cond_bvp; docs/conditioning.md):
 *     kappa = max_t ||Phi(t) S^{-1}||_inf (||B0||_inf + ||B1||_inf),
 * the bound of Ascher-Mattheij-Russell's Green's function for the boundary
 * data: Phi(t) S^{-1} beta is the solution of the homogeneous DAE with
 * boundary values beta.  Every method computes Phi(t) S^{-1} its own way
 * (single shooting from Phi and S, multiple shooting and finite differences
 * from the responses of their banded systems to unit boundary values) and
 * refuses what it cannot solve to the requested accuracy. */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvp_impl.h"
#include "lth/ic.h"
#include "core/times.h"

/* Uniform points added to the output times where max_t is taken. */
#define COND_POINTS 33

double lth_bvp_bc_norm(const lth_bvp_problem *bp) {
  double n0 = 0.0, n1 = 0.0;
  for (int i = 0; i < bp->p; i++) {
    double r0 = 0.0, r1 = 0.0;
    for (int j = 0; j < bp->s; j++) {
      r0 += fabs(bp->B0[i + (size_t)j * bp->p]);
      r1 += fabs(bp->B1[i + (size_t)j * bp->p]);
    }
    n0 = fmax(n0, r0);
    n1 = fmax(n1, r1);
  }
  return n0 + n1;
}

double lth_bvp_green_norm(const double *X, int s, int p, size_t ld) {
  double mx = 0.0;
  for (int i = 0; i < s; i++) {
    double r = 0.0;
    for (int j = 0; j < p; j++) r += fabs(X[i + (size_t)j * ld]);
    mx = r > mx || isnan(r) ? r : mx;
  }
  return mx;
}

lth_status lth_bvp_cond_times(const lth_bvp_problem *bp, double **all, size_t *nall, size_t *idx,
                              lth_error *err) {
  size_t n = bp->n + COND_POINTS;
  double *ext = malloc(n * sizeof(double));
  size_t *eidx = malloc(n * sizeof(size_t));
  lth_status st = (ext && eidx) ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) {
    memcpy(ext, bp->times, bp->n * sizeof(double));
    for (size_t k = 0; k < COND_POINTS; k++) {
      ext[bp->n + k] = bp->t0 + (bp->t1 - bp->t0) * (double)k / (COND_POINTS - 1);
    }
    ext[n - 1] = bp->t1;
    st = lth_time_union(bp->t0, bp->t1, ext, n, all, nall, eidx, err);
  }
  if (st == LTH_OK) memcpy(idx, eidx, bp->n * sizeof(size_t));
  free(ext);
  free(eidx);
  return st;
}

lth_status lth_bvp_ill_posed(double cond_bvp, double cmax, const char *method, const char *detail,
                             lth_error *err) {
  lth_error_set(err, LTH_ENOTUNIQUE,
                "the BVP is not uniquely solvable to the requested accuracy: cond_bvp = %.3e "
                "(max_t ||Phi(t) S^-1|| (||B0|| + ||B1||): a change of the boundary data "
                "moves the solution by up to that factor) exceeds %.3e = min(opts.cond_max, "
                "1/rtol) (%s)%s%s",
                cond_bvp, cmax, method, detail && *detail ? "; " : "", detail ? detail : "");
  if (err) {
    err->has_cond = 1;
    err->cond = cond_bvp;
  }
  return LTH_ENOTUNIQUE;
}

/* Components whose value at the end (Phi_end: s x p) is the same for every
 * solution: the algebraic constraints fix them there. */
static int fixed_component(const double *Phi, int s, int p, int k, double scale) {
  double r = 0.0;
  for (int j = 0; j < p; j++) r = fmax(r, fabs(Phi[k + (size_t)j * s]));
  return r <= 1e-10 * scale;
}

/* Row i of B0 Phi0 + B1 Phi1 restricted to the manifold, relative to the row's size. */
static double row_on_manifold(const lth_bvp_problem *bp, const double *Phi0, const double *Phi1,
                              int i, double scale) {
  int p = bp->p, s = bp->s;
  double v = 0.0, b = 0.0;
  for (int j = 0; j < p; j++) {
    double a = 0.0;
    for (int k = 0; k < s; k++) {
      a += bp->B0[i + (size_t)k * p] * Phi0[k + (size_t)j * s] +
           bp->B1[i + (size_t)k * p] * Phi1[k + (size_t)j * s];
    }
    v = fmax(v, fabs(a));
  }
  for (int k = 0; k < s; k++)
    b += fabs(bp->B0[i + (size_t)k * p]) + fabs(bp->B1[i + (size_t)k * p]);
  return b > 0 ? v / (b * scale) : 0.0;
}

/* Why S = B0 Phi(t0) + B1 Phi(t1) is (nearly) singular: the rows that are
 * dependent on the consistent manifold (with S: the left singular vector of S
 * for its smallest singular value; without: the rows that vanish on the
 * manifold), and for each of them the components it involves that the
 * constraints fix at t0 or t1.  Phi0, Phi1: any bases (s x p) of the
 * consistent values at t0 and t1. */
void lth_bvp_dependence(const lth_bvp_problem *bp, const double *Phi0, const double *Phi1,
                        const double *S, char *buf, size_t size) {
  int p = bp->p, s = bp->s;
  buf[0] = '\0';
  if (p == 0) return;
  double *a = malloc(sizeof(double) * ((size_t)3 * p * p + 4 * (size_t)p + 2));
  if (!a) return;
  double *U = a + (size_t)p * p, *sv = U + (size_t)p * p, *superb = sv + p + 1, *y = superb + p;
  double ymax = 0.0, scale = 0.0;
  for (size_t k = 0; k < (size_t)s * p; k++)
    scale = fmax(scale, fmax(fabs(Phi0[k]), fabs(Phi1[k])));
  if (S) {
    memcpy(a, S, (size_t)p * p * sizeof(double));
    if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'N', p, p, a, p, sv, U, p, NULL, 1, superb) != 0) {
      free(a);
      return;
    }
    memcpy(y, U + (size_t)(p - 1) * p, (size_t)p * sizeof(double)); /* S' y = sigma_min v */
    /* only a (numerically) singular S has dependent rows: sigma_min against
     * the size of the terms, ||B|| max |Phi| (an ill-conditioned BVP with a
     * regular S, cond_bvp large, is not "dependent") */
    if (!(sv[p - 1] <= 1e-9 * fmax(sv[0], lth_bvp_bc_norm(bp) * scale))) {
      free(a);
      return;
    }
  } else {
    for (int i = 0; i < p; i++) y[i] = row_on_manifold(bp, Phi0, Phi1, i, scale) <= 1e-10;
  }
  for (int i = 0; i < p; i++) ymax = fmax(ymax, fabs(y[i]));
  if (ymax == 0.0) {
    free(a);
    return;
  }
  int nrows = 0;
  for (int i = 0; i < p; i++) nrows += fabs(y[i]) > 0.1 * ymax;
  size_t len = 0;
  len += (size_t)snprintf(buf + len, size - len, "dependent on the consistent manifold: bc row%s",
                          nrows > 1 ? "s" : "");
  for (int i = 0; i < p && len < size; i++) {
    if (fabs(y[i]) > 0.1 * ymax) len += (size_t)snprintf(buf + len, size - len, " %d", i + 1);
  }
  if (len < size) {
    len += (size_t)snprintf(buf + len, size - len, "%s",
                            nrows > 1
                                ? (S ? ": a combination of them vanishes on it" : " vanish on it")
                                : " vanishes on it");
  }
  for (int i = 0; i < p && len < size; i++) {
    if (!(fabs(y[i]) > 0.1 * ymax)) continue;
    for (int end = 0; end < 2 && len < size; end++) {
      const double *B = end ? bp->B1 : bp->B0, *Phi = end ? Phi1 : Phi0;
      for (int k = 0; k < s && len < size; k++) {
        if (B[i + (size_t)k * p] == 0.0 || !fixed_component(Phi, s, p, k, scale)) continue;
        char name[64];
        lth_system_component_name(bp->sys, k, name, sizeof name);
        len += (size_t)snprintf(buf + len, size - len,
                                "; row %d involves %s at t%d, which the algebraic constraints "
                                "fix there (the same value for every solution)",
                                i + 1, name, end);
      }
    }
  }
  free(a);
}

static int all_zero(const double *B, size_t n) {
  for (size_t k = 0; k < n; k++) {
    if (B[k] != 0.0) return 0;
  }
  return 1;
}

/* Bases of the consistent values at t0 and t1 (range G, lth_ic), and the
 * dependence of the conditions on them, appended to err's message.  S is
 * known when one end carries no condition (S = B0 U0 or B1 U1 up to an
 * invertible factor). */
void lth_bvp_explain(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_error *err) {
  int s = bp->s, p = bp->p;
  if (!err || p == 0 || strstr(err->message, "dependent on the consistent manifold")) return;
  lth_ic *ic0 = lth_ic_alloc(bp->sys, NULL), *ic1 = lth_ic_alloc(bp->sys, NULL);
  double *U = malloc(sizeof(double) * ((size_t)2 * s * p + (size_t)p * p + 1));
  char *detail = malloc(LTH_ERROR_MSG_MAX);
  if (ic0 && ic1 && U && detail) {
    if (o->cond_max > 0) {
      lth_ic_set_cond_max(ic0, o->cond_max);
      lth_ic_set_cond_max(ic1, o->cond_max);
    }
    if (lth_ic_setup(ic0, bp->t0, NULL) == LTH_OK && lth_ic_setup(ic1, bp->t1, NULL) == LTH_OK) {
      double *U0 = U, *U1 = U + (size_t)s * p, *S = U1 + (size_t)s * p;
      memcpy(U0, lth_ic_range_basis(ic0), (size_t)s * p * sizeof(double));
      memcpy(U1, lth_ic_range_basis(ic1), (size_t)s * p * sizeof(double));
      int z0 = all_zero(bp->B0, (size_t)p * s), z1 = all_zero(bp->B1, (size_t)p * s);
      if (z0 != z1) {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, p, s, 1.0, z1 ? bp->B0 : bp->B1,
                    p, z1 ? U0 : U1, s, 0.0, S, p);
      }
      lth_bvp_dependence(bp, U0, U1, z0 != z1 ? S : NULL, detail, LTH_ERROR_MSG_MAX);
      size_t len = strlen(err->message);
      if (*detail && len + 40 < sizeof err->message) {
        snprintf(err->message + len, sizeof err->message - len, ": the boundary conditions are %s",
                 detail);
      }
    }
  }
  lth_ic_free(ic0);
  lth_ic_free(ic1);
  free(U);
  free(detail);
}
