/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The minimal realization of a DAE plant with inputs: options, handles and
 * the evaluation at a time (include/lth/ss.h, docs/theory.md section 8). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "lth/conditioning.h"
#include "lth/source.h"
#include "ss_impl.h"

void lth_ss_opts_init(lth_ss_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->rtol = LTH_DEFAULT_SS_RTOL;
  opts->atol = LTH_DEFAULT_SS_ATOL;
  opts->range_tol = LTH_DEFAULT_SS_RANGE_TOL;
  opts->cond_max = LTH_DEFAULT_COND_MAX;
  opts->raw = 0;
  opts->t0 = NAN;
}

static void fill_defaults(lth_ss_opts *o) {
  o->rtol = o->rtol > 0 ? o->rtol : LTH_DEFAULT_SS_RTOL;
  o->atol = o->atol > 0 ? o->atol : LTH_DEFAULT_SS_ATOL;
  o->range_tol = o->range_tol > 0 ? o->range_tol : LTH_DEFAULT_SS_RANGE_TOL;
  o->cond_max = o->cond_max > 0 ? o->cond_max : LTH_DEFAULT_COND_MAX;
}

static int imax(int a, int b) {
  return a > b ? a : b;
}

/* The largest scratch the sources C, D, y0 need at order 0. */
static size_t output_work(const lth_system *sys) {
  const lth_source *src[] = {lth_system_C(sys), lth_system_D(sys), lth_system_output_offset(sys)};
  size_t w = 1;
  for (int k = 0; k < 3; k++) {
    if (src[k]) {
      size_t need = lth_source_work_size(src[k], 0);
      w = need > w ? need : w;
    }
  }
  return w;
}

static lth_status alloc_scratch(lth_ss *ss, lth_error *err) {
  int big = imax(imax(ss->m, ss->s), imax(ss->ny, 1));
  int wide = imax(imax(ss->m, ss->p), imax(ss->nu, 1));
  size_t sq = (size_t)big * (size_t)wide + 1;
  size_t mm = (size_t)ss->m * (size_t)ss->nu * (size_t)(ss->jmax + 1) * (size_t)(ss->order + 1);
  size_t m2 = (size_t)ss->m * (size_t)ss->m;
  ss->q = calloc((size_t)ss->m * (size_t)ss->p + 1, sizeof(double));
  ss->w1 = calloc(sq, sizeof(double));
  ss->w2 = calloc(sq, sizeof(double));
  ss->w3 = calloc(sq, sizeof(double));
  ss->jets = calloc(mm + 1, sizeof(double));
  ss->svd = calloc(4 * m2 + 8 * (size_t)ss->m + 16, sizeof(double));
  ss->cdy = calloc((size_t)ss->ny * (size_t)(ss->s + ss->nu + 1) + 1, sizeof(double));
  ss->src_work = calloc(output_work(ss->sys), sizeof(double));
  ss->sel = calloc((size_t)ss->p + 1, sizeof(int));
  if (!ss->sel || !ss->q || !ss->w1 || !ss->w2 || !ss->w3 || !ss->jets || !ss->svd || !ss->cdy ||
      !ss->src_work) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a realization");
  }
  return LTH_OK;
}

static void set_shape(lth_ss *ss) {
  lth_ss_point *sh = &ss->shape;
  memset(sh, 0, sizeof *sh);
  sh->t = NAN;
  sh->p = ss->p;
  sh->m = ss->m;
  sh->s = ss->s;
  sh->nu = ss->nu;
  sh->ny = ss->ny;
  sh->nd = ss->jmax + 1;
  sh->nb = ss->opts.raw ? ss->jmax + 1 : 1;
  sh->nk = ss->opts.raw ? 0 : ss->jmax;
}

static lth_status alloc_parts(lth_ss *ss, lth_error *err) {
  ss->ws = lth_decomp_ws_alloc(ss->sys, ss->order, err);
  if (!ss->ws) {
    return lth_error_status(err);
  }
  double scale = lth_decomp_ws_scale(ss->ws);
  ss->ws_rhs = lth_decomp_ws_alloc_scaled(ss->sys, 0, scale, err);
  if (!ss->ws_rhs) {
    return lth_error_status(err);
  }
  lth_decomp_ws_set_cond_max(ss->ws, ss->opts.cond_max);
  lth_decomp_ws_set_cond_max(ss->ws_rhs, ss->opts.cond_max);
  lth_decomp_ws_set_unforced(ss->ws_rhs, 1); /* the basis needs Ahat and P alone */
  ss->pt = lth_point_alloc(ss->sys, ss->order, err);
  ss->pt_rhs = ss->pt ? lth_point_alloc(ss->sys, 0, err) : NULL;
  ss->maps = ss->pt_rhs ? lth_input_maps_alloc_order(ss->sys, ss->order, err) : NULL;
  if (!ss->maps) {
    return lth_error_status(err);
  }
  return alloc_scratch(ss, err);
}

lth_ss *lth_ss_alloc(const lth_system *sys, const lth_ss_opts *opts, lth_error *err) {
  LTH_ERROR_RECORD(err);
  if (lth_system_ninputs(sys) <= 0) {
    lth_error_set(err, LTH_EINVAL, "a realization needs inputs (the plant has none)");
    return NULL;
  }
  lth_ss *ss = calloc(1, sizeof *ss);
  if (!ss) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a realization");
    return NULL;
  }
  if (opts) {
    ss->opts = *opts;
  } else {
    lth_ss_opts_init(&ss->opts);
  }
  fill_defaults(&ss->opts);
  ss->sys = sys;
  ss->r = lth_system_index(sys);
  ss->s = lth_system_size(sys);
  ss->m = lth_system_state_dim(sys);
  ss->p = lth_system_manifold_dim(sys);
  ss->nu = lth_system_ninputs(sys);
  ss->ny = lth_system_noutputs(sys);
  ss->t_cur = NAN;
  /* jmax as lth_input_maps (include/lth/decomp.h): the orders B_i can reach */
  for (int i = 1; i <= ss->r; i++) {
    int j = i < ss->r ? i - 1 : ss->r - 1;
    if (lth_system_B(sys, i) && j > ss->jmax) {
      ss->jmax = j;
    }
  }
  ss->order = ss->opts.raw ? 0 : ss->jmax;
  set_shape(ss);
  if (alloc_parts(ss, err) != LTH_OK) {
    lth_status st = lth_error_status(err);
    lth_ss_free(ss);
    err->status = st;
    return NULL;
  }
  return ss;
}

void lth_ss_free(lth_ss *ss) {
  if (!ss) {
    return;
  }
  if (ss->drv) {
    gsl_odeiv2_driver_free(ss->drv);
  }
  lth_decomp_ws_free(ss->ws);
  lth_decomp_ws_free(ss->ws_rhs);
  lth_point_free(ss->pt);
  lth_point_free(ss->pt_rhs);
  lth_input_maps_free(ss->maps);
  free(ss->q);
  free(ss->w1);
  free(ss->w2);
  free(ss->w3);
  free(ss->jets);
  free(ss->svd);
  free(ss->cdy);
  free(ss->src_work);
  free(ss->sel);
  free(ss);
}

const lth_ss_point *lth_ss_shape(const lth_ss *ss) {
  return &ss->shape;
}

lth_ss_point *lth_ss_point_alloc(const lth_ss *ss, lth_error *err) {
  const lth_ss_point *sh = &ss->shape;
  lth_ss_point *pt = calloc(1, sizeof *pt);
  if (!pt) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a realization point");
    return NULL;
  }
  *pt = *sh;
  size_t p = (size_t)sh->p, nu = (size_t)sh->nu, ny = (size_t)sh->ny, m = (size_t)sh->m,
         s = (size_t)sh->s;
  pt->A = calloc(p * p + 1, sizeof(double));
  pt->B = calloc(p * nu * (size_t)sh->nb + 1, sizeof(double));
  pt->g = calloc(p + 1, sizeof(double));
  pt->Q = calloc(m * p + 1, sizeof(double));
  pt->K = calloc(m * nu * (size_t)sh->nk + 1, sizeof(double));
  pt->Z = calloc(s * p + 1, sizeof(double));
  pt->Dz = calloc(s * nu * (size_t)sh->nd + 1, sizeof(double));
  pt->zf = calloc(s + 1, sizeof(double));
  int bad = !pt->A || !pt->B || !pt->g || !pt->Q || !pt->K || !pt->Z || !pt->Dz || !pt->zf;
  if (ny > 0) {
    pt->C = calloc(ny * p + 1, sizeof(double));
    pt->D = calloc(ny * nu * (size_t)sh->nd + 1, sizeof(double));
    pt->yf = calloc(ny + 1, sizeof(double));
    bad = bad || !pt->C || !pt->D || !pt->yf;
  }
  if (bad) {
    lth_ss_point_free(pt);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a realization point");
    return NULL;
  }
  return pt;
}

void lth_ss_point_free(lth_ss_point *pt) {
  if (!pt) {
    return;
  }
  double *a[] = {pt->A, pt->B, pt->C, pt->D, pt->g, pt->yf, pt->Q, pt->K, pt->Z, pt->Dz, pt->zf};
  for (size_t k = 0; k < sizeof a / sizeof a[0]; k++) {
    free(a[k]);
  }
  free(pt);
}

void lth_ss_counts(const lth_ss *ss, long *steps, long *decompositions) {
  if (steps) {
    *steps = ss->steps;
  }
  if (decompositions) {
    *decompositions = ss->decomps;
  }
}

/* Where the basis starts: opts.t0, else the system's interval start, else t. */
static double start_time(const lth_ss *ss, double t) {
  double lo, hi;
  if (isfinite(ss->opts.t0)) {
    return ss->opts.t0;
  }
  if (lth_system_interval(ss->sys, &lo, &hi)) {
    return lo;
  }
  return t;
}

/* The basis exists while Pi stays regular (p constant): the scan of Pi
 * (include/lth/conditioning.h: det Pi's sign and cond_interval on a fine
 * grid with refinement) covers the span the basis is integrated over, from
 * t0 to every t asked, in pieces as the span grows.  Each piece gets the
 * density of one whole scan (LTH_PI_SCAN_POINTS) of the system's interval
 * (else of the span so far), so that a grid of times costs about one scan
 * and the guarantee is the scan's.  A singular Pi is refused naming t. */
static lth_status scan_to(lth_ss *ss, double t, lth_error *err) {
  double lo = ss->t_cur < t ? ss->t_cur : t, hi = ss->t_cur < t ? t : ss->t_cur;
  if (ss->scanned) {
    if (lo >= ss->scan_lo && hi <= ss->scan_hi) {
      return LTH_OK;
    }
    lo = lo < ss->scan_lo ? lo : ss->scan_hi;
    hi = hi > ss->scan_hi ? hi : ss->scan_lo;
  }
  double ilo, ihi, span = hi - lo;
  if (ss->scanned) {
    double all = (hi > ss->scan_hi ? hi : ss->scan_hi) - (lo < ss->scan_lo ? lo : ss->scan_lo);
    span = all > span ? all : span;
  }
  if (lth_system_interval(ss->sys, &ilo, &ihi) && ihi > ilo) {
    span = ihi - ilo;
  }
  if (hi > lo) {
    double frac = span > 0 ? (hi - lo) / span : 1.0;
    size_t points = (size_t)ceil(LTH_PI_SCAN_POINTS * (frac < 1.0 ? frac : 1.0));
    points = points < 33 ? 33 : points;
    lth_status st = lth_pi_scan_check(ss->sys, lo, hi, points, ss->opts.cond_max, NULL, err);
    if (st != LTH_OK) {
      return st;
    }
  }
  ss->scan_lo = ss->scanned && ss->scan_lo < lo ? ss->scan_lo : lo;
  ss->scan_hi = ss->scanned && ss->scan_hi > hi ? ss->scan_hi : hi;
  ss->scanned = 1;
  return LTH_OK;
}

lth_status lth_ss_at(lth_ss *ss, double t, lth_ss_point *pt, lth_error *err) {
  LTH_ERROR_RECORD(err);
  const lth_ss_point *sh = &ss->shape;
  if (pt->p != sh->p || pt->m != sh->m || pt->nu != sh->nu || pt->ny != sh->ny ||
      pt->nb != sh->nb || pt->nd != sh->nd || pt->nk != sh->nk || pt->s != sh->s) {
    return lth_error_set(err, LTH_EDIM, "a realization point of another realization");
  }
  if (!isfinite(t)) {
    return lth_error_set(err, LTH_EINVAL, "a realization at a time that is not finite");
  }
  lth_status st = LTH_OK;
  if (!ss->have_q) {
    st = lth_ss_basis_start(ss, start_time(ss, t), err);
  }
  if (st == LTH_OK && ss->p > 0) {
    st = scan_to(ss, t, err);
  }
  if (st == LTH_OK) {
    st = lth_ss_basis_move(ss, t, err);
  }
  if (st == LTH_OK) {
    st = lth_decomp_input_maps(ss->ws, t, ss->pt, ss->maps, err);
    ss->decomps++;
  }
  if (st == LTH_OK) {
    st = lth_ss_basis_check(ss, pt, err);
  }
  if (st == LTH_OK) {
    st = lth_ss_maps(ss, pt, err);
  }
  if (st == LTH_OK) {
    pt->t = t;
    pt->amplification = ss->pt->amplification;
  } else if (!err->has_t) {
    err->has_t = 1;
    err->t = t;
  }
  return st;
}
