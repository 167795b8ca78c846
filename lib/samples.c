/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled matrix functions (include/lth/samples.h): the only jet source with
 * truncation error.
 *
 * Derivative estimates.  At a time t the source takes the K+1 consecutive
 * samples t_k0 .. t_k0+K around t (K = the "sampling order"): the window
 * holds the sample interval [t_i, t_i+1] that contains t, with as many
 * samples on each side as possible (for an even window the extra sample goes
 * to the side of the nearer end of that interval), shifted inwards at the two
 * ends of the data.  Every entry's degree-K interpolation polynomial through
 * those samples is found in the local variable x = (t_k - t)/hs,
 * hs = max_k |t_k - t| (so |x| <= 1 and the Vandermonde matrix stays well
 * conditioned), by LAPACK's dgels (Householder QR) on the Vandermonde matrix,
 * all entries at once as right-hand sides.  Its coefficients c_m of x^m give
 * the Taylor coefficients a_m = c_m / hs^m, m = 0..K, i.e. derivative
 * estimates m! a_m.  For smooth data with spacing h the error of derivative
 * m is O(h^(K+1-m)); orders above K are refused (LTH_EORDER).  The estimates
 * are piecewise polynomial in t (they jump where the window moves).
 *
 * Error estimate (lth_samples_error_estimate).  When there are at least K+2
 * samples, the window above is extended by its nearer neighbouring sample and
 * the degree-(K+1) interpolant through those K+2 samples is computed too.
 * Their difference is f[t_k0..t_k0+K+1] * prod_k (x - t_k) (Newton form),
 * which is the leading term of the degree-K interpolant's own error, so
 *     est[m] = m! * max over entries |a_m(degree K) - a_m(degree K+1)|
 * estimates the error of derivative m to leading order (it is an estimate,
 * not a bound).  With exactly K+1 samples it falls back to the difference
 * between the degree-K fit and the least-squares fit of degree K-1 on the
 * same window (for m = K: m! |a_K| itself), which overestimates the error by
 * about one power of the spacing.
 *
 * fill allocates nothing: the Vandermonde matrix, the right-hand sides and
 * LAPACK's workspace (queried once, at creation, for the largest fit) come
 * from the caller's work array.
 */
#include "lth/samples.h"

#include <errno.h>
#include <lapacke.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES_MAX_DEGREE 30
#define CSV_MAX_BYTES ((size_t)512 << 20)

typedef struct samples_state {
  int rows, cols, K;
  size_t n;     /* number of samples */
  size_t nrhs;  /* rows * cols */
  double *t;    /* n times */
  double *v;    /* n * nrhs values, row-major per sample */
  size_t lwork; /* LAPACK workspace of the largest fit (degree K+1) */
} samples_state;

static void samples_destroy(void *state) {
  samples_state *s = state;
  if (s) {
    free(s->t);
    free(s->v);
    free(s);
  }
}

/* Scratch for one fit of at most K+2 points and degree K+1. */
static size_t samples_work(const samples_state *s) {
  size_t m = (size_t)s->K + 2;
  return m * m + m * s->nrhs + s->lwork;
}

static size_t samples_work_size(const void *state, int order) {
  (void)order;
  return samples_work(state);
}

static void samples_domain(const void *state, double *lo, double *hi) {
  const samples_state *s = state;
  *lo = s->t[0];
  *hi = s->t[s->n - 1];
}

/* Index i of the sample interval [t_i, t_i+1] holding t (clamped to 0..n-2). */
static size_t interval_of(const samples_state *s, double t) {
  size_t lo = 0, hi = s->n - 1; /* invariant: t_lo <= t < t_hi, or t outside */
  if (!(t > s->t[0])) {
    return 0;
  }
  if (!(t < s->t[hi])) {
    return hi - 1;
  }
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->t[mid] <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/* First sample of the npts-point window around t (see the file comment). */
static size_t window_start(const samples_state *s, double t, size_t npts) {
  long long i = (long long)interval_of(s, t), np = (long long)npts;
  long long left = np / 2; /* samples at or before t_i */
  if (np % 2 == 1 && t - s->t[i] < s->t[i + 1] - t) {
    left++;
  }
  long long k0 = i - left + 1, last = (long long)s->n - np;
  k0 = k0 > last ? last : k0;
  return (size_t)(k0 < 0 ? 0 : k0);
}

/* Taylor coefficients at t of the least-squares polynomial of degree d
 * through samples k0 .. k0+npts-1 (npts >= d+1; interpolation when equal).
 * On success *coef points into work: coefficient m of entry e (row-major
 * index i*cols + j) is (*coef)[m + e*npts]. */
static lth_status fit(const samples_state *s, double t, int d, size_t k0, size_t npts,
                      double *work, double **coef, lth_error *err) {
  size_t nc = (size_t)d + 1;
  double *V = work, *B = work + npts * nc, *lw = B + npts * s->nrhs;
  double hs = 0.0;
  for (size_t k = 0; k < npts; k++) {
    double dt = fabs(s->t[k0 + k] - t);
    hs = dt > hs ? dt : hs;
  }
  for (size_t k = 0; k < npts; k++) {
    double x = (s->t[k0 + k] - t) / hs, p = 1.0;
    for (size_t m = 0; m < nc; m++, p *= x) {
      V[k + m * npts] = p;
    }
    for (size_t e = 0; e < s->nrhs; e++) {
      B[k + e * npts] = s->v[(k0 + k) * s->nrhs + e];
    }
  }
  lapack_int info = LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', (lapack_int)npts, (lapack_int)nc,
                                       (lapack_int)s->nrhs, V, (lapack_int)npts, B,
                                       (lapack_int)npts, lw, (lapack_int)s->lwork);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, t,
                           "sampled data: dgels failed (info %d) fitting degree %d to samples "
                           "%zu..%zu",
                           (int)info, d, k0 + 1, k0 + npts);
  }
  double scale = 1.0; /* hs^m */
  for (size_t m = 0; m < nc; m++, scale *= hs) {
    for (size_t e = 0; e < s->nrhs; e++) {
      B[m + e * npts] /= scale;
    }
  }
  *coef = B;
  return LTH_OK;
}

static lth_status samples_fill(const void *state, double t, int order, lth_jet *out, double *work,
                               lth_error *err) {
  const samples_state *s = state;
  if (order > s->K) {
    return lth_error_set_t(err, LTH_EORDER, t,
                           "sampled data of degree %d gives derivatives up to order %d only "
                           "(order %d requested); set `sampling order`",
                           s->K, s->K, order);
  }
  size_t npts = (size_t)s->K + 1;
  double *coef = NULL;
  lth_status st = fit(s, t, s->K, window_start(s, t, npts), npts, work, &coef, err);
  if (st != LTH_OK) {
    return st;
  }
  for (int m = 0; m <= order; m++) {
    for (int i = 0; i < s->rows; i++) {
      for (int j = 0; j < s->cols; j++) {
        size_t e = (size_t)i * (size_t)s->cols + (size_t)j;
        LTH_JET_AT(out, m, i, j) = coef[(size_t)m + e * npts];
      }
    }
  }
  out->order = order;
  return LTH_OK;
}

static const lth_source_type samples_type = {"samples",      samples_fill,    samples_work_size,
                                             samples_domain, samples_destroy, 0};

/* LAPACK's optimal workspace for an m x n dgels with nrhs right-hand sides. */
static size_t query_lwork(int m, int n, size_t nrhs) {
  double q = 0.0, dummy = 0.0;
  lapack_int info = LAPACKE_dgels_work(LAPACK_COL_MAJOR, 'N', m, n, (lapack_int)nrhs, &dummy, m,
                                       &dummy, m, &q, -1);
  size_t mn = (size_t)(m < n ? m : n), need = mn + (mn > nrhs ? mn : nrhs);
  size_t got = info == 0 && q > 0.0 && q < 1e15 ? (size_t)q : 0;
  return got > need ? got : need;
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
        return lth_error_set(err, LTH_ESAMPLE, "sample %zu: entry %zu is not finite", k + 1,
                             e + 1);
      }
    }
  }
  return LTH_OK;
}

static lth_status check_sizes(int rows, int cols, size_t n, int degree, lth_error *err) {
  if (rows < 1 || cols < 1 || degree < 1 || degree > SAMPLES_MAX_DEGREE) {
    return lth_error_set(err, LTH_EINVAL,
                         "sampled data: size %d x %d and degree %d (need sizes >= 1 and degree "
                         "1..%d)",
                         rows, cols, degree, SAMPLES_MAX_DEGREE);
  }
  size_t nrhs = (size_t)rows * (size_t)cols;
  /* LAPACK takes int sizes: (K+2) * nrhs must fit */
  if (nrhs > (size_t)INT_MAX / (SAMPLES_MAX_DEGREE + 2)) {
    return lth_error_set(err, LTH_EINVAL, "sampled data: %d x %d entries are too many", rows,
                         cols);
  }
  if (n < (size_t)degree + 1) {
    return lth_error_set(err, LTH_ESAMPLE,
                         "%zu samples, but sampling order %d needs at least %d (a polynomial of "
                         "degree %d through %d consecutive samples)",
                         n, degree, degree + 1, degree, degree + 1);
  }
  if (n > SIZE_MAX / sizeof(double) / nrhs) {
    return lth_error_set(err, LTH_EINVAL, "sampled data: too many samples");
  }
  return LTH_OK;
}

lth_source *lth_source_samples(int rows, int cols, size_t n, const double *times,
                               const double *values, int degree, lth_error *err) {
  if (check_sizes(rows, cols, n, degree, err) != LTH_OK) {
    return NULL;
  }
  size_t nrhs = (size_t)rows * (size_t)cols;
  if (!times || !values || check_data(n, times, values, nrhs, err) != LTH_OK) {
    if (!times || !values) {
      lth_error_set(err, LTH_EINVAL, "sampled data: NULL times or values");
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
  s->K = degree;
  s->n = n;
  s->nrhs = nrhs;
  /* the largest of the fits fill and the error estimate make */
  size_t w1 = query_lwork(degree + 2, degree + 2, nrhs);
  size_t w2 = query_lwork(degree + 1, degree + 1, nrhs);
  size_t w3 = query_lwork(degree + 1, degree, nrhs);
  s->lwork = w1 > w2 ? (w1 > w3 ? w1 : w3) : (w2 > w3 ? w2 : w3);
  return lth_source_new(&samples_type, s, rows, cols, err);
}

int lth_source_is_samples(const lth_source *src) {
  return src && lth_source_get_type(src) == &samples_type;
}

int lth_samples_degree(const lth_source *src) {
  return lth_source_is_samples(src) ? ((const samples_state *)lth_source_state(src))->K : 0;
}

size_t lth_samples_times(const lth_source *src, const double **times) {
  if (!lth_source_is_samples(src)) {
    *times = NULL;
    return 0;
  }
  const samples_state *s = lth_source_state(src);
  *times = s->t;
  return s->n;
}

/* est[m] = m! max_e |a[m, e] - b[m, e]| for m <= order; b has db+1 rows
 * (missing orders count as 0).  Coefficient m of entry e is at m + e*ld. */
static void difference(const samples_state *s, const double *a, size_t lda, const double *b,
                       size_t ldb, int db, int order, double *est) {
  double fact = 1.0;
  for (int m = 0; m <= order; m++) {
    fact *= m > 0 ? m : 1;
    double mx = 0.0;
    for (size_t e = 0; e < s->nrhs; e++) {
      double bm = m <= db ? b[(size_t)m + e * ldb] : 0.0;
      double d = fabs(a[(size_t)m + e * lda] - bm);
      mx = d > mx ? d : mx;
    }
    est[m] = fact * mx;
  }
}

lth_status lth_samples_error_estimate(const lth_source *src, double t, int order, double *est,
                                      lth_error *err) {
  if (!lth_source_is_samples(src) || !est || order < 0) {
    return lth_error_set(err, LTH_EINVAL, "error estimate needs a sampled source");
  }
  const samples_state *s = lth_source_state(src);
  if (order > s->K) {
    return lth_error_set_t(err, LTH_EORDER, t,
                           "sampled data of degree %d gives derivatives up to order %d only; set "
                           "`sampling order`",
                           s->K, s->K);
  }
  if (!(t >= s->t[0] && t <= s->t[s->n - 1])) {
    return lth_error_set_t(err, LTH_ERANGE, t, "samples data defined on [%g, %g] only", s->t[0],
                           s->t[s->n - 1]);
  }
  size_t npts = (size_t)s->K + 1, wsz = samples_work(s);
  double *work = malloc(wsz * sizeof *work), *keep = malloc(npts * s->nrhs * sizeof *keep);
  double *c1 = NULL, *c2 = NULL;
  lth_status st = LTH_ENOMEM;
  if (!work || !keep) {
    lth_error_set(err, LTH_ENOMEM, "out of memory estimating sampled-data errors");
    goto cleanup;
  }
  size_t k0 = window_start(s, t, npts);
  st = fit(s, t, s->K, k0, npts, work, &c1, err);
  if (st != LTH_OK) {
    goto cleanup;
  }
  memcpy(keep, c1, npts * s->nrhs * sizeof *keep);
  if (s->n >= npts + 1) {
    /* extend by the nearer neighbour that exists: degree K+1 through K+2 samples */
    int left = k0 > 0 && (k0 + npts >= s->n || t - s->t[k0 - 1] <= s->t[k0 + npts] - t);
    st = fit(s, t, s->K + 1, left ? k0 - 1 : k0, npts + 1, work, &c2, err);
    if (st == LTH_OK) {
      difference(s, keep, npts, c2, npts + 1, s->K + 1, order, est);
    }
  } else {
    st = fit(s, t, s->K - 1, k0, npts, work, &c2, err);
    if (st == LTH_OK) {
      difference(s, keep, npts, c2, npts, s->K - 1, order, est);
    }
  }
cleanup:
  free(work);
  free(keep);
  return st;
}

/* ---- CSV files ---- */

/* Read a whole file (NUL-terminated copy). */
static lth_status read_file(const char *path, char **out, size_t *len, lth_error *err) {
  *out = NULL;
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    lth_error_set(err, LTH_EIO, "cannot open CSV file: %s", strerror(errno));
    lth_error_set_pos(err, path, 0, 0);
    return LTH_EIO;
  }
  size_t cap = 0, n = 0;
  char *buf = NULL;
  lth_status st = LTH_OK;
  for (;;) {
    if (n + 65536 + 1 > cap) {
      size_t ncap = cap ? 2 * cap : 131072;
      char *nb = ncap <= CSV_MAX_BYTES + 65537 ? realloc(buf, ncap) : NULL;
      if (!nb) {
        st = ncap <= CSV_MAX_BYTES + 65537
                 ? lth_error_set(err, LTH_ENOMEM, "out of memory reading a CSV file")
                 : lth_error_set(err, LTH_ESAMPLE, "CSV file larger than %zu MiB",
                                 CSV_MAX_BYTES >> 20);
        break;
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, 65536, fp);
    n += got;
    if (got < 65536) {
      if (ferror(fp)) {
        st = lth_error_set(err, LTH_EIO, "error reading CSV file");
      }
      break;
    }
  }
  fclose(fp);
  if (st == LTH_OK && n > CSV_MAX_BYTES) {
    st = lth_error_set(err, LTH_ESAMPLE, "CSV file larger than %zu MiB", CSV_MAX_BYTES >> 20);
  }
  if (st != LTH_OK) {
    free(buf);
    lth_error_set_pos(err, path, 0, 0);
    return st;
  }
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return LTH_OK;
}

typedef struct csv_reader {
  const char *path;
  int ncols;          /* 1 + rows*cols */
  size_t ncap;        /* cells stored per row: no row can have more than the file has bytes */
  size_t nrows, cap;  /* data rows read */
  double *t, *v;      /* times and row-major values */
  double *cells;      /* one row of cells */
  int header_allowed; /* nothing but comments seen so far */
  int line;
  lth_error *err;
} csv_reader;

static lth_status csv_error(csv_reader *r, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static lth_status csv_error(csv_reader *r, int col, const char *fmt, ...) {
  if (r->err) {
    va_list ap;
    va_start(ap, fmt);
    char msg[LTH_ERROR_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(r->err);
    lth_error_set(r->err, LTH_ESAMPLE, "%s", msg);
    lth_error_set_pos(r->err, r->path, r->line, col);
  }
  return LTH_ESAMPLE;
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Parse a decimal number occupying all of s[0..n-1]: [+-]digits[.digits][e[+-]digits].
 * The '.' is removed (exponent adjusted) so strtod does not depend on the
 * locale's decimal point.  Returns 0 not a number, 1 a finite number,
 * 2 a number that is not finite (overflow, inf, nan). */
static int parse_number(const char *s, size_t n, double *out) {
  char buf[128];
  size_t i = 0, nd = 0;
  long frac = 0, ex = 0;
  int neg = 0, seen_dot = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) {
    neg = s[i++] == '-';
  }
  size_t rest = n - i;
  if ((rest == 3 && (strncmp(s + i, "inf", 3) == 0 || strncmp(s + i, "Inf", 3) == 0 ||
                     strncmp(s + i, "nan", 3) == 0 || strncmp(s + i, "NaN", 3) == 0)) ||
      (rest == 8 && strncmp(s + i, "Infinity", 8) == 0)) {
    return 2;
  }
  for (; i < n && (is_digit(s[i]) || (s[i] == '.' && !seen_dot)); i++) {
    if (s[i] == '.') {
      seen_dot = 1;
    } else if (nd < 100) {
      buf[nd++] = s[i];
      frac += seen_dot;
    } else {
      ex += !seen_dot; /* beyond 100 digits: keep the magnitude only */
    }
  }
  if (nd == 0) {
    return 0;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    int eneg = i < n && s[i] == '-';
    i += i < n && (s[i] == '-' || s[i] == '+');
    if (!(i < n && is_digit(s[i]))) {
      return 0;
    }
    long e = 0;
    for (; i < n && is_digit(s[i]); i++) {
      e = e < 1000000 ? 10 * e + (s[i] - '0') : e;
    }
    ex += eneg ? -e : e;
  }
  if (i != n) {
    return 0;
  }
  snprintf(buf + nd, sizeof buf - nd, "e%ld", ex - frac);
  double v = strtod(buf, NULL);
  *out = neg ? -v : v;
  return isfinite(v) ? 1 : 2;
}

/* Split one line (comment already cut) into r->cells.  *ncells is the
 * number of cells found; *bad the 1-based index of the first cell that is
 * not a number (0: none) and *bad_kind its parse_number result. */
static void split_cells(csv_reader *r, const char *s, size_t n, int *ncells, int *bad,
                        int *bad_kind, int *bad_col) {
  int count = 0;
  size_t b = 0;
  *bad = 0;
  for (;;) {
    size_t e = b;
    while (e < n && s[e] != ',') {
      e++;
    }
    size_t cb = b, ce = e;
    while (cb < ce && is_blank(s[cb])) {
      cb++;
    }
    while (ce > cb && is_blank(s[ce - 1])) {
      ce--;
    }
    double v = 0.0;
    int kind = parse_number(s + cb, ce - cb, &v);
    if ((size_t)count < r->ncap) {
      r->cells[count] = v;
    }
    count++;
    if (kind != 1 && !*bad) {
      *bad = count;
      *bad_kind = kind;
      *bad_col = (int)cb + 1;
    }
    if (e >= n) {
      break;
    }
    b = e + 1;
  }
  *ncells = count;
}

static lth_status append_row(csv_reader *r) {
  size_t nv = (size_t)r->ncols - 1;
  if (r->nrows == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    double *nt = realloc(r->t, cap * sizeof *nt);
    if (nt) {
      r->t = nt;
    }
    double *nv2 = nt ? realloc(r->v, cap * nv * sizeof *nv2) : NULL;
    if (!nv2) {
      return lth_error_set(r->err, LTH_ENOMEM, "out of memory reading CSV rows");
    }
    r->v = nv2;
    r->cap = cap;
  }
  r->t[r->nrows] = r->cells[0];
  memcpy(r->v + r->nrows * nv, r->cells + 1, nv * sizeof *r->v);
  r->nrows++;
  return LTH_OK;
}

static lth_status csv_line(csv_reader *r, const char *s, size_t n) {
  const char *hash = memchr(s, '#', n);
  n = hash ? (size_t)(hash - s) : n;
  size_t k = 0;
  while (k < n && is_blank(s[k])) {
    k++;
  }
  if (k == n) {
    return LTH_OK; /* blank or comment line */
  }
  int ncells, bad, kind = 0, col = 0;
  split_cells(r, s, n, &ncells, &bad, &kind, &col);
  int header = r->header_allowed && bad && kind == 0;
  r->header_allowed = 0;
  if (ncells != r->ncols) {
    return csv_error(r, 0, "%s has %d columns, expected %d (t, then the block's entries in "
                     "row-major order)", header ? "header row" : "row", ncells, r->ncols);
  }
  if (header) {
    return LTH_OK;
  }
  if (bad) {
    return csv_error(r, col, "column %d is %s", bad,
                     kind == 2 ? "not a finite number" : "not a number");
  }
  if (r->nrows > 0 && !(r->cells[0] > r->t[r->nrows - 1])) {
    return csv_error(r, 1, "t = %.17g is not greater than t = %.17g on the previous row: t must "
                     "be strictly increasing", r->cells[0], r->t[r->nrows - 1]);
  }
  return append_row(r);
}

static lth_status csv_parse(csv_reader *r, const char *buf, size_t len) {
  size_t b = 0;
  r->line = 0;
  while (b < len) {
    const char *nl = memchr(buf + b, '\n', len - b);
    size_t e = nl ? (size_t)(nl - buf) : len;
    r->line++;
    lth_status st = csv_line(r, buf + b, e - b);
    if (st != LTH_OK) {
      return st;
    }
    b = e + 1;
  }
  return LTH_OK;
}

lth_source *lth_samples_read_csv(const char *path, int rows, int cols, int degree,
                                 lth_error *err) {
  if (!path || check_sizes(rows, cols, (size_t)degree + 1, degree, err) != LTH_OK) {
    if (!path) {
      lth_error_set(err, LTH_EINVAL, "CSV path is NULL");
    }
    return NULL;
  }
  char *buf = NULL;
  size_t len = 0;
  lth_source *src = NULL;
  csv_reader r = {path, 1 + rows * cols, 0, 0, 0, NULL, NULL, NULL, 1, 0, err};
  if (read_file(path, &buf, &len, err) != LTH_OK) {
    goto cleanup;
  }
  r.ncap = (size_t)r.ncols < len + 1 ? (size_t)r.ncols : len + 1;
  r.cells = malloc(r.ncap * sizeof *r.cells);
  if (!r.cells) {
    lth_error_set(err, LTH_ENOMEM, "out of memory reading a CSV file");
    goto cleanup;
  }
  if (csv_parse(&r, buf, len) != LTH_OK) {
    goto cleanup;
  }
  if (r.nrows < (size_t)degree + 1) {
    r.line = r.line > 0 ? r.line : 1;
    csv_error(&r, 0, "%zu data rows, but sampling order %d needs at least %d", r.nrows, degree,
              degree + 1);
    goto cleanup;
  }
  src = lth_source_samples(rows, cols, r.nrows, r.t, r.v, degree, err);
  if (!src) {
    lth_error_set_pos(err, path, 0, 0);
  }
cleanup:
  free(buf);
  free(r.cells);
  free(r.t);
  free(r.v);
  return src;
}
