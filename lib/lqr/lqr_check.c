/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The LQR data the theory needs (include/lth/lqr.h; docs/conditioning.md):
 * C symmetric positive semidefinite (once), H(t) symmetric positive
 * semidefinite on the whole interval -- on a fine scan plus the output
 * times, with every local minimum of the smallest eigenvalue of H refined by
 * golden-section search, so an H that turns indefinite between the points is
 * found too.  With an indefinite H the "optimum" of Clark's section 4.2 is
 * only a stationary point and the cost may be unbounded below (Aly-Chan:
 * H = diag(-1, 1), x' = [x2; u]): refused, naming t and the eigenvalue. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lqr_impl.h"

#define H_GOLDEN_STEPS 48
#define H_MAX_REFINE   64
/* Symmetry and semidefiniteness are judged relative to the largest |H|. */
#define SYM_TOL 1e-12
#define PSD_TOL 1e-12

typedef struct {
  const lth_lqr_spec *spec;
  int nx;
  lth_jet J;
  double *work, *a, *w, *ework;
  lapack_int lework;
  size_t evals;
} h_eval;

typedef struct {
  double t, lmin, lmax, asym;
  int ok;
} h_sample;

static void h_free(h_eval *h) {
  lth_jet_release(&h->J);
  free(h->work);
  free(h->a);
  free(h->w);
  free(h->ework);
}

static lth_status h_alloc(h_eval *h, const lth_lqr_spec *spec, lth_error *err) {
  memset(h, 0, sizeof *h);
  h->spec = spec;
  h->nx = spec->nx;
  int n = h->nx;
  lth_status st = lth_jet_init(&h->J, n, n, 0, err);
  size_t wn = lth_source_work_size(spec->H, 0);
  h->work = malloc((wn + 1) * sizeof(double));
  h->a = malloc(((size_t)n * n + 1) * sizeof(double));
  h->w = malloc(((size_t)n + 1) * sizeof(double));
  h->lework = 3 * n + 64;
  h->ework = malloc((size_t)h->lework * sizeof(double));
  if (st == LTH_OK && (!h->work || !h->a || !h->w || !h->ework)) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st != LTH_OK) h_free(h);
  return st;
}

/* Eigenvalues of the symmetric part of M (n x n, ld n) into w (ascending). */
static int sym_eig(int n, const double *M, int ld, double *a, double *w, double *work,
                   lapack_int lwork) {
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++)
      a[i + (size_t)j * n] = 0.5 * (M[i + (size_t)j * ld] + M[j + (size_t)i * ld]);
  return n == 0 ? 0 : (int)LAPACKE_dsyev_work(LAPACK_COL_MAJOR, 'N', 'U', n, a, n, w, work, lwork);
}

static double asymmetry(int n, const double *M, int ld, double *mx) {
  double d = 0.0;
  *mx = 0.0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double a = M[i + (size_t)j * ld], b = M[j + (size_t)i * ld];
      *mx = fmax(*mx, fabs(a));
      d = fmax(d, fabs(a - b));
    }
  return d;
}

static void h_at(h_eval *h, double t, h_sample *sm) {
  memset(sm, 0, sizeof *sm);
  sm->t = t;
  h->evals++;
  if (lth_source_fill(h->spec->H, t, 0, &h->J, h->work, NULL) != LTH_OK) return;
  int n = h->nx;
  double mx;
  sm->asym = asymmetry(n, h->J.c, h->J.ld, &mx);
  sm->asym = mx > 0 ? sm->asym / mx : 0.0;
  if (sym_eig(n, h->J.c, h->J.ld, h->a, h->w, h->ework, h->lework) != 0) return;
  sm->lmin = h->w[0];
  sm->lmax = fmax(fabs(h->w[0]), fabs(h->w[n - 1]));
  sm->ok = isfinite(sm->lmin) && isfinite(sm->lmax);
}

/* Golden-section search for the smallest lambda_min(H) on [a.t, b.t] around m. */
static h_sample h_refine(h_eval *h, h_sample a, h_sample m, h_sample b) {
  const double g = 0.5 * (3.0 - sqrt(5.0));
  h_sample best = m;
  double lo = a.t, hi = b.t;
  for (int it = 0; it < H_GOLDEN_STEPS; it++) {
    double x =
        (best.t - lo > hi - best.t) ? best.t - g * (best.t - lo) : best.t + g * (hi - best.t);
    if (!(x > lo && x < hi) || x == best.t) break;
    h_sample s;
    h_at(h, x, &s);
    if (!s.ok) break;
    if (s.lmin < best.lmin) {
      if (x < best.t)
        hi = best.t;
      else
        lo = best.t;
      best = s;
    } else {
      if (x < best.t)
        lo = x;
      else
        hi = x;
    }
  }
  return best;
}

static int cmp_sample(const void *x, const void *y) {
  double a = ((const h_sample *)x)->t, b = ((const h_sample *)y)->t;
  return (a > b) - (a < b);
}

lth_status lth_lqr_dense_C(const lth_lqr_spec *spec, const double **C, double **own,
                           lth_error *err) {
  *own = NULL;
  *C = spec->C;
  if (spec->C) return LTH_OK;
  size_t nx = (size_t)spec->nx, wn = spec->C_src ? lth_source_work_size(spec->C_src, 0) : 0;
  double *m = calloc(nx * nx + wn + 1, sizeof(double));
  if (!m) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory forming C (%zu x %zu) densely", nx, nx);
  }
  lth_status st = LTH_OK;
  if (spec->C_src) {
    lth_jet J = lth_jet_wrap(m, (int)nx, (int)nx, (int)nx, nx * nx, 0);
    st = lth_source_fill(spec->C_src, spec->t0, 0, &J, m + nx * nx, err);
  }
  if (st != LTH_OK) {
    free(m);
    return st;
  }
  *C = *own = m;
  return LTH_OK;
}

lth_status lth_lqr_check_C(const lth_lqr_spec *spec, lth_error *err) {
  const double *Cd;
  double *own;
  if (!spec->C) { /* formed from C_src (or zero) */
    lth_status st = lth_lqr_dense_C(spec, &Cd, &own, err);
    if (st != LTH_OK) return st;
    lth_lqr_spec sp = *spec;
    sp.C = Cd;
    st = lth_lqr_check_C(&sp, err);
    free(own);
    return st;
  }
  int n = spec->nx;
  lapack_int lw = 3 * n + 64;
  double *a = malloc(sizeof(double) * ((size_t)n * n + (size_t)n + (size_t)lw + 1)), mx;
  if (!a) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *w = a + (size_t)n * n, *work = w + n;
  double asym = asymmetry(n, spec->C, n, &mx);
  lth_status st = LTH_OK;
  if (asym > SYM_TOL * mx) {
    st = lth_error_set(err, LTH_EDATA,
                       "C must be symmetric (docs/format.md section 1.2), but max |C - C'| = "
                       "%.3e (max |C| = %.3e)",
                       asym, mx);
  } else if (sym_eig(n, spec->C, n, a, w, work, lw) != 0) {
    st = lth_error_set(err, LTH_ELAPACK, "eigenvalues of C: dsyev failed");
  } else if (n > 0 && w[0] < -PSD_TOL * fmax(fabs(w[0]), fabs(w[n - 1]))) {
    st = lth_error_set(err, LTH_EDATA,
                       "C must be positive semidefinite, but it has the eigenvalue %.6g (largest "
                       "%.6g): the terminal cost is unbounded below",
                       w[0], w[n - 1]);
  }
  free(a);
  return st;
}

lth_status lth_lqr_check_data(const lth_lqr_spec *spec, const double *times, size_t n,
                              lth_error *err) {
  lth_status st = lth_lqr_check_C(spec, err);
  return st == LTH_OK ? lth_lqr_check_H(spec, times, n, err) : st;
}

/* 1 if src is proven constant on [t0, t1]: a sparse source whose enclosure
 * of the first Taylor coefficient there is exactly zero. */
static int proven_constant(const lth_source *src, double t0, double t1) {
  int nnz = 0;
  const int *cp, *ri;
  if (!lth_source_can_enclose_csc(src) || lth_source_csc_pattern(src, &nnz, &cp, &ri, NULL))
    return 0;
  size_t w = lth_source_enclose_work_size(src, 1);
  lth_interval *iv = malloc(sizeof *iv * (2 * (size_t)nnz + w + 1));
  int c = iv && lth_source_enclose_csc(src, t0, t1, 1, iv, nnz ? (size_t)nnz : 1,
                                       iv + 2 * (size_t)nnz, NULL) == LTH_OK;
  for (int q = 0; c && q < nnz; q++) c = iv[nnz + q].lo == 0.0 && iv[nnz + q].hi == 0.0;
  free(iv);
  return c;
}

/* The same for a dense source (entry by entry: 2 nx^2 intervals, 288 MB at
 * LQR_DENSE_ENCLOSE_MAX). */
static int proven_constant_dense(const lth_source *src, double t0, double t1) {
  if (lth_source_is_sparse(src) || !lth_source_can_enclose(src)) return 0;
  size_t rc = (size_t)lth_source_rows(src) * (size_t)lth_source_cols(src);
  size_t w = lth_source_enclose_work_size(src, 1);
  lth_interval *iv = malloc(sizeof *iv * (2 * rc + w + 1));
  int c = iv && lth_source_enclose(src, t0, t1, 1, iv, iv + 2 * rc, NULL) == LTH_OK;
  for (size_t q = 0; c && q < rc; q++) c = iv[rc + q].lo == 0.0 && iv[rc + q].hi == 0.0;
  free(iv);
  return c;
}

int lth_lqr_proven_constant(const lth_source *src, double t0, double t1) {
  if (!src) return 1; /* absent: zero */
  if (lth_source_is_sparse(src)) return proven_constant(src, t0, t1);
  return (double)lth_source_rows(src) * lth_source_cols(src) <=
             (double)LQR_DENSE_ENCLOSE_MAX * LQR_DENSE_ENCLOSE_MAX &&
         proven_constant_dense(src, t0, t1);
}

lth_status lth_lqr_check_H(const lth_lqr_spec *spec, const double *times, size_t n,
                           lth_error *err) {
  lth_status st = LTH_OK;
  h_eval h;
  if ((st = h_alloc(&h, spec, err)) != LTH_OK) return st;
  /* a constant H has the same eigenvalues at every t: one point decides */
  int constant = lth_lqr_proven_constant(spec->H, spec->t0, spec->t1);
  size_t ns = constant ? 1 : LQR_H_SCAN_POINTS + n;
  h_sample *sm = malloc((ns + 1) * sizeof *sm);
  if (!sm) {
    h_free(&h);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  double t0 = spec->t0, t1 = spec->t1, scale = 0.0;
  for (size_t k = 0; k < LQR_H_SCAN_POINTS && !constant; k++) {
    double t =
        k + 1 == LQR_H_SCAN_POINTS ? t1 : t0 + (t1 - t0) * (double)k / (LQR_H_SCAN_POINTS - 1);
    h_at(&h, t, &sm[k]);
  }
  for (size_t k = 0; k < n && !constant; k++) h_at(&h, times[k], &sm[LQR_H_SCAN_POINTS + k]);
  if (constant) h_at(&h, t0, &sm[0]);
  qsort(sm, ns, sizeof *sm, cmp_sample);
  for (size_t k = 0; k < ns; k++) {
    if (!sm[k].ok) continue;
    scale = fmax(scale, sm[k].lmax);
    if (sm[k].asym > SYM_TOL) {
      st = lth_error_set_t(err, LTH_EDATA, sm[k].t,
                           "H must be symmetric on the whole interval (docs/format.md section "
                           "1.2), but max |H(t) - H(t)'| / max |H(t)| = %.3e",
                           sm[k].asym);
      break;
    }
  }
  /* local minima of lambda_min among the scan points, the deepest refined */
  size_t nm = 0, *cand = malloc((ns + 1) * sizeof *cand);
  if (st == LTH_OK && !cand) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (size_t k = 0; st == LTH_OK && k < ns; k++) {
    if (!sm[k].ok) continue;
    /* the first point of a plateau */
    int left = k == 0 || !sm[k - 1].ok || sm[k].lmin < sm[k - 1].lmin;
    int right = k + 1 == ns || !sm[k + 1].ok || sm[k].lmin <= sm[k + 1].lmin;
    if (left && right) cand[nm++] = k;
  }
  for (size_t a = 1; a < nm; a++) { /* insertion sort by depth (few candidates) */
    size_t k = cand[a], b = a;
    for (; b > 0 && sm[cand[b - 1]].lmin > sm[k].lmin; b--) cand[b] = cand[b - 1];
    cand[b] = k;
  }
  h_sample worst = {0};
  worst.lmin = INFINITY;
  for (size_t c = 0; st == LTH_OK && c < nm && c < H_MAX_REFINE; c++) {
    size_t k = cand[c];
    h_sample lo = k > 0 && sm[k - 1].ok ? sm[k - 1] : sm[k];
    h_sample hi = k + 1 < ns && sm[k + 1].ok ? sm[k + 1] : sm[k];
    h_sample r = sm[k].lmin < -PSD_TOL * scale ? sm[k] : h_refine(&h, lo, sm[k], hi);
    if (r.lmin < worst.lmin) worst = r;
  }
  free(cand);
  if (st == LTH_OK && worst.lmin < -PSD_TOL * scale) {
    st = lth_error_set_t(err, LTH_EDATA, worst.t,
                         "H must be positive semidefinite on the whole interval (docs/format.md "
                         "section 1.2), but H(t) has the eigenvalue %.6g (largest |eigenvalue| "
                         "of H on the interval: %.6g): the cost can be unbounded below and the "
                         "stationary point of section 4.2 is no minimum",
                         worst.lmin, scale);
  }
  free(sm);
  h_free(&h);
  return st;
}
