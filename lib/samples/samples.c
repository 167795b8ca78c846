/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled matrix functions (include/lth/samples.h): the source type, its
 * creation and accessors.  The fits are lib/samples/samples_fit.c, the noise level
 * lib/samples/samples_noise.c, the automatic choice lib/samples/samples_select.c, the fits
 * of a cell, the coefficients at t and the error estimate lib/samples/samples_est.c,
 * the CSV reader lib/samples/samples_csv.c.
 *
 * fill allocates nothing: the QR factorisations, the right-hand sides and
 * LAPACK's workspace (queried once, at creation, for the largest fit) come
 * from the caller's work array, and so does the scratch of the automatic
 * choice, which fill makes the first time a cell is used.  What is kept per
 * cell (the choices, and within a memory budget the fitted polynomials) is
 * allocated at creation.
 */
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "samples_impl.h"

void lth_samples_opts_init(lth_samples_opts *opts) {
  memset(opts, 0, sizeof *opts);
  opts->degree = LTH_SAMPLES_AUTO;
  opts->noise_kind = LTH_SAMPLES_NOISE_ESTIMATED;
}

static void samples_destroy(void *state) {
  samples_state *s = state;
  if (s) {
    free(s->t);
    free(s->v);
    free(s->sigma);
    free(s->choice);
    free(s->cell_state);
    free(s->cache);
    free(s);
  }
}

/* The fits' scratch, then the coefficients (order + 1 per entry). */
static size_t samples_work_size(const void *state, int order) {
  const samples_state *s = state;
  return samples_eval_size(s) + ((size_t)order + 1) * s->nrhs;
}

static void samples_domain(const void *state, double *lo, double *hi) {
  const samples_state *s = state;
  *lo = s->t[0];
  *hi = s->t[s->n - 1];
}

static lth_status order_check(const samples_state *s, double t, int order, lth_error *err) {
  if (order <= s->maxorder) {
    return LTH_OK;
  }
  if (s->K > 0) {
    return lth_error_set_t(err, LTH_EORDER, t,
                           "sampled data of degree %d gives derivatives up to order %d only "
                           "(order %d requested); set `sampling order`",
                           s->K, s->K, order);
  }
  return lth_error_set_t(err, LTH_EORDER, t,
                         "%zu samples give derivatives up to order %d only (order %d requested)",
                         s->n, s->maxorder, order);
}

/* Coefficients of the chosen (variant 0) or alternative (1) fits into out. */
static lth_status fill_variant(const samples_state *s, double t, int order, int variant,
                               lth_jet *out, double *work, lth_error *err) {
  lth_status st = order_check(s, t, order, err);
  size_t ld = (size_t)order + 1;
  double *coef = work + samples_eval_size(s); /* see samples_work_size */
  if (st == LTH_OK) {
    st = samples_eval(s, t, order, variant, coef, (int)ld, work, err);
  }
  for (int m = 0; st == LTH_OK && m <= order; m++) {
    for (int i = 0; i < s->rows; i++) {
      for (int j = 0; j < s->cols; j++) {
        size_t e = (size_t)i * (size_t)s->cols + (size_t)j;
        LTH_JET_AT(out, m, i, j) = coef[(size_t)m + e * ld];
      }
    }
  }
  if (st == LTH_OK) {
    out->order = order;
  }
  return st;
}

static lth_status samples_fill(const void *state, double t, int order, lth_jet *out, double *work,
                               lth_error *err) {
  return fill_variant(state, t, order, 0, out, work, err);
}

static const lth_source_type samples_type = {.name = "samples",
                                             .fill = samples_fill,
                                             .work_size = samples_work_size,
                                             .domain = samples_domain,
                                             .destroy = samples_destroy,
                                             .exact = 0};

/* LAPACK's workspace for dgeqrf (m x n) and dormqr (m x nrhs, min(m, n)
 * reflectors).  (Invalid arguments would make LAPACK print: never pass any.) */
static size_t query_lwork(int m, int n, size_t nrhs) {
  double q1 = 0.0, q2 = 0.0, dummy = 0.0;
  n = n < m ? n : m;
  lapack_int i1 = LAPACKE_dgeqrf_work(LAPACK_COL_MAJOR, m, n, &dummy, m, &dummy, &q1, -1);
  lapack_int i2 = LAPACKE_dormqr_work(LAPACK_COL_MAJOR, 'L', 'T', m, (lapack_int)nrhs, n, &dummy, m,
                                      &dummy, &dummy, m, &q2, -1);
  size_t need = (size_t)n + nrhs + 64;
  size_t g1 = i1 == 0 && q1 > 0.0 && q1 < 1e15 ? (size_t)q1 : 0;
  size_t g2 = i2 == 0 && q2 > 0.0 && q2 < 1e15 ? (size_t)q2 : 0;
  g1 = g1 > g2 ? g1 : g2;
  return g1 > need ? g1 : need;
}

static lth_status check_data(size_t n, const double *times, const double *values, size_t nrhs,
                             lth_error *err) {
  for (size_t k = 0; k < n; k++) {
    if (!isfinite(times[k])) {
      return lth_error_set(err, LTH_ESAMPLE, "sample %zu: time is not finite", k + 1);
    }
    if (k > 0 && !(times[k] > times[k - 1])) {
      return lth_error_set(err, LTH_ESAMPLE,
                           "sample %zu: t = %.17g is not greater than t = %.17g before it: sample "
                           "times must be strictly increasing",
                           k + 1, times[k], times[k - 1]);
    }
    for (size_t e = 0; e < nrhs; e++) {
      if (!isfinite(values[k * nrhs + e])) {
        return lth_error_set(err, LTH_ESAMPLE, "sample %zu: entry %zu is not finite", k + 1, e + 1);
      }
    }
  }
  return LTH_OK;
}

static lth_status check_opts(int rows, int cols, const lth_samples_opts *o, lth_error *err) {
  if (rows < 1 || cols < 1 || o->degree < 0 || o->degree > SAMPLES_MAX_DEGREE) {
    return lth_error_set(err, LTH_EINVAL,
                         "sampled data: size %d x %d and degree %d (need sizes >= 1 and degree "
                         "1..%d, or 0 for the automatic choice)",
                         rows, cols, o->degree, SAMPLES_MAX_DEGREE);
  }
  if (o->noise_kind < LTH_SAMPLES_NOISE_ESTIMATED || o->noise_kind > LTH_SAMPLES_NOISE_RELATIVE ||
      (o->noise_kind != LTH_SAMPLES_NOISE_ESTIMATED && !(o->noise >= 0.0 && o->noise < 1e300))) {
    return lth_error_set(err, LTH_EINVAL, "sampled data: noise level %g (kind %d) is not valid",
                         o->noise, o->noise_kind);
  }
  if (o->degree > 0 && o->need_order > o->degree) {
    return lth_error_set(err, LTH_ESAMPLE,
                         "sampling order %d is below the derivative order %d that is needed",
                         o->degree, o->need_order);
  }
  /* LAPACK takes int sizes: a window times the entries must fit */
  if ((size_t)rows * (size_t)cols > (size_t)INT_MAX / (SAMPLES_MAX_WINDOW + 2)) {
    return lth_error_set(err, LTH_EINVAL, "sampled data: %d x %d entries are too many", rows, cols);
  }
  return LTH_OK;
}

/* The fewest samples the options allow. */
static size_t min_samples(const lth_samples_opts *o) {
  if (o->degree > 0) {
    return (size_t)o->degree + 1;
  }
  return (size_t)(o->need_order > 0 ? o->need_order + 3 : 3);
}

static lth_status check_count(size_t n, const lth_samples_opts *o, lth_error *err) {
  size_t need = min_samples(o);
  if (n >= need) {
    return LTH_OK;
  }
  if (o->degree > 0) {
    return lth_error_set(err, LTH_ESAMPLE,
                         "%zu samples, but sampling order %d needs at least %zu (a polynomial of "
                         "degree %d through %zu consecutive samples)",
                         n, o->degree, need, o->degree, need);
  }
  return lth_error_set(err, LTH_ESAMPLE,
                       "%zu samples, but the automatic fit of derivatives up to order %d needs at "
                       "least %zu (a fit of degree %d and its check)",
                       n, o->need_order, need, o->need_order);
}

/* Cells, and what is kept per cell (lib/samples/samples_impl.h). */
static lth_status init_cells(samples_state *s, int need_order, lth_error *err) {
  size_t nint = s->n - 1;
  if (s->K > 0) {
    s->stride = 1;
  } else {
    size_t st = (nint + SAMPLES_CELL_TARGET - 1) / SAMPLES_CELL_TARGET;
    s->stride = st < 1 ? 1 : st > SAMPLES_CELL_MAX_STRIDE ? SAMPLES_CELL_MAX_STRIDE : st;
  }
  s->ncell = (nint + s->stride - 1) / s->stride;
  /* the decomposition (need_order - 1 for index need_order) and its check
   * (+1), at least 3, chosen together; then the Hermite interpolation of the
   * IVP, whose jets of order up to 4 need need_order + 3
   * (lib/ivp/samples_nodes.c) */
  int low = need_order + 1 > 3 ? need_order + 1 : 3;
  s->low = low < s->maxorder ? low : s->maxorder;
  s->kept = low + 2 < s->maxorder ? low + 2 : s->maxorder;
  size_t per = samples_polys_size(s, s->kept);
  s->cell_state = malloc(2 * s->ncell * sizeof *s->cell_state);
  if (s->K == 0) {
    s->choice = malloc(s->ncell * (size_t)(s->kept + 1) * sizeof *s->choice);
  }
  if (per <= SAMPLES_CACHE_BUDGET / s->ncell) {
    s->cache = malloc(s->ncell * per * sizeof *s->cache);
  }
  if (!s->cell_state || (s->K == 0 && !s->choice)) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory for the fits of %zu samples", s->n);
  }
  for (size_t c = 0; c < 2 * s->ncell; c++) {
    atomic_init(&s->cell_state[c], 0);
  }
  return LTH_OK;
}

static lth_status init_state(samples_state *s, const lth_samples_opts *o, lth_error *err) {
  s->K = o->degree;
  s->noise_kind = o->noise_kind;
  s->noise_declared = o->noise;
  if (s->K > 0) {
    s->maxorder = s->K;
    s->maxwin = s->K + 2;
    s->maxcol = s->K + 2;
  } else {
    size_t mo = s->n - 3 < SAMPLES_AUTO_MAX_ORDER ? s->n - 3 : SAMPLES_AUTO_MAX_ORDER;
    s->maxorder = (int)mo;
    s->maxwin = s->n < SAMPLES_MAX_WINDOW ? (int)s->n : SAMPLES_MAX_WINDOW;
    s->maxcol = SAMPLES_AUTO_MAX_DEGREE + 2;
  }
  s->lwork = query_lwork(s->maxwin, s->maxcol, s->nrhs);
  lth_status st = init_cells(s, o->need_order, err);
  return st == LTH_OK ? samples_noise_init(s, err) : st;
}

lth_source *lth_source_samples_opts(int rows, int cols, size_t n, const double *times,
                                    const double *values, const lth_samples_opts *opts,
                                    lth_error *err) {
  lth_samples_opts o;
  if (opts) {
    o = *opts;
  } else {
    lth_samples_opts_init(&o);
  }
  if (check_opts(rows, cols, &o, err) != LTH_OK || check_count(n, &o, err) != LTH_OK) {
    return NULL;
  }
  size_t nrhs = (size_t)rows * (size_t)cols;
  if (!times || !values) {
    lth_error_set(err, LTH_EINVAL, "sampled data: NULL times or values");
    return NULL;
  }
  if (n > SIZE_MAX / sizeof(double) / nrhs || check_data(n, times, values, nrhs, err) != LTH_OK) {
    if (n > SIZE_MAX / sizeof(double) / nrhs) {
      lth_error_set(err, LTH_EINVAL, "sampled data: too many samples");
    }
    return NULL;
  }
  samples_state *s = calloc(1, sizeof *s);
  if (s) {
    s->t = malloc(n * sizeof *s->t);
    s->v = malloc(n * nrhs * sizeof *s->v);
  }
  if (!s || !s->t || !s->v) {
    samples_destroy(s);
    lth_error_set(err, LTH_ENOMEM, "out of memory copying %zu samples", n);
    return NULL;
  }
  memcpy(s->t, times, n * sizeof *s->t);
  memcpy(s->v, values, n * nrhs * sizeof *s->v);
  s->rows = rows;
  s->cols = cols;
  s->n = n;
  s->nrhs = nrhs;
  if (init_state(s, &o, err) != LTH_OK) {
    samples_destroy(s);
    return NULL;
  }
  return lth_source_new(&samples_type, s, rows, cols, err);
}

lth_source *lth_source_samples(int rows, int cols, size_t n, const double *times,
                               const double *values, int degree, lth_error *err) {
  lth_samples_opts o;
  lth_samples_opts_init(&o);
  o.degree = degree;
  return lth_source_samples_opts(rows, cols, n, times, values, &o, err);
}

/* ---- accessors ---- */

int lth_source_is_samples(const lth_source *src) {
  return src && lth_source_get_type(src) == &samples_type;
}

static const samples_state *state_of(const lth_source *src) {
  return lth_source_is_samples(src) ? lth_source_state(src) : NULL;
}

int lth_samples_degree(const lth_source *src) {
  const samples_state *s = state_of(src);
  return s ? s->K : 0;
}

int lth_samples_max_order(const lth_source *src) {
  const samples_state *s = state_of(src);
  return s ? s->maxorder : 0;
}

size_t lth_samples_times(const lth_source *src, const double **times) {
  const samples_state *s = state_of(src);
  *times = s ? s->t : NULL;
  return s ? s->n : 0;
}

double lth_samples_noise(const lth_source *src, int *kind) {
  const samples_state *s = state_of(src);
  if (kind) {
    *kind = s ? s->noise_kind : LTH_SAMPLES_NOISE_ESTIMATED;
  }
  return s ? s->sigma_max : 0.0;
}

/* Common argument checks of the functions at t. */
static lth_status at_check(const samples_state *s, double t, int order, lth_error *err) {
  if (!s || order < 0) {
    return lth_error_set(err, LTH_EINVAL, "needs a sampled source and an order >= 0");
  }
  if (!(t >= s->t[0] && t <= s->t[s->n - 1])) {
    return lth_error_set_t(err, LTH_ERANGE, t, "samples data defined on [%g, %g] only", s->t[0],
                           s->t[s->n - 1]);
  }
  return order_check(s, t, order, err);
}

lth_status lth_samples_fit_at(const lth_source *src, double t, int m, int *degree, size_t *window,
                              lth_error *err) {
  const samples_state *s = state_of(src);
  lth_status st = at_check(s, t, m, err);
  if (st != LTH_OK) {
    return st;
  }
  double *work = malloc(samples_eval_size(s) * sizeof *work);
  st = work ? samples_fit_of(s, t, m, degree, window, work, err)
            : lth_error_set(err, LTH_ENOMEM, "out of memory");
  free(work);
  return st;
}

size_t lth_samples_error_work_size(const lth_source *src, int order) {
  const samples_state *s = state_of(src);
  return s ? samples_work_size(s, order) : 0;
}

lth_status lth_samples_error_jet(const lth_source *src, double t, int order, double *est,
                                 lth_jet *alt, double *work, lth_error *err) {
  const samples_state *s = state_of(src);
  lth_status st = at_check(s, t, order, err);
  if (st != LTH_OK || !est) {
    return st != LTH_OK ? st : lth_error_set(err, LTH_EINVAL, "est is NULL");
  }
  if (alt && (alt->rows != s->rows || alt->cols != s->cols || alt->maxorder < order)) {
    return lth_error_set(err, LTH_EDIM, "alternative jet %d x %d (order %d) for %d x %d data",
                         alt->rows, alt->cols, alt->maxorder, s->rows, s->cols);
  }
  size_t ld = (size_t)order + 1;
  double *coef = work + samples_eval_size(s);
  st = samples_error(s, t, order, est, alt ? coef : NULL, (int)ld, work, err);
  for (int m = 0; alt && st == LTH_OK && m <= order; m++) {
    for (int i = 0; i < s->rows; i++) {
      for (int j = 0; j < s->cols; j++) {
        LTH_JET_AT(alt, m, i, j) = coef[(size_t)m + ((size_t)i * (size_t)s->cols + (size_t)j) * ld];
      }
    }
  }
  if (alt && st == LTH_OK) {
    alt->order = order;
  }
  return st;
}

lth_status lth_samples_error_estimate(const lth_source *src, double t, int order, double *est,
                                      lth_error *err) {
  const samples_state *s = state_of(src);
  lth_status st = at_check(s, t, order, err);
  if (st != LTH_OK) {
    return st;
  }
  double *work = malloc(lth_samples_error_work_size(src, order) * sizeof *work);
  st = work ? lth_samples_error_jet(src, t, order, est, NULL, work, err)
            : lth_error_set(err, LTH_ENOMEM, "out of memory estimating sampled-data errors");
  free(work);
  return st;
}

lth_status lth_samples_fill_alternative(const lth_source *src, double t, int order, lth_jet *out,
                                        double *work, lth_error *err) {
  const samples_state *s = state_of(src);
  lth_status st = at_check(s, t, order, err);
  if (st == LTH_OK && (out->rows != s->rows || out->cols != s->cols || out->maxorder < order)) {
    st = lth_error_set(err, LTH_EDIM, "jet %d x %d (order %d) for %d x %d sampled data", out->rows,
                       out->cols, out->maxorder, s->rows, s->cols);
  }
  return st == LTH_OK ? fill_variant(s, t, order, 1, out, work, err) : st;
}
