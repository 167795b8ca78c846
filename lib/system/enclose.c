/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Enclosures of a system's data (include/lth/enclose.h): the sources that
 * carry an enclosure, a system's pieces of data ("leaves": blocks, and the
 * mass matrices and blocks behind a mass-matrix solve), and the resolution
 * check with its bisection to the t of a feature. */
#include "lth/enclose.h"
#include "enclose_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- sources ---- */

int lth_source_can_enclose(const lth_source *src) {
  return src && lth_source_get_type(src)->enclose != NULL;
}

size_t lth_source_enclose_work_size(const lth_source *src, int order) {
  const lth_source_type *ty = lth_source_get_type(src);
  return ty->enclose_work_size ? ty->enclose_work_size(lth_source_state(src), order) : 0;
}

lth_status lth_source_enclose(const lth_source *src, double a, double b, int order,
                              lth_interval *coef, lth_interval *work, lth_error *err) {
  if (!lth_source_can_enclose(src) || !coef || order < 0 || !(a <= b)) {
    return lth_error_set(err, LTH_EINVAL,
                         "lth_source_enclose: no enclosure for %s data, or bad arguments",
                         src ? lth_source_get_type(src)->name : "NULL");
  }
  return lth_source_get_type(src)->enclose(lth_source_state(src), a, b, order, coef, work, err);
}

/* The type's `ellipse` (include/lth/source.h), where it has one. */
static int can_ellipse(const lth_source *src) {
  return src && lth_source_get_type(src)->ellipse != NULL;
}

static size_t ellipse_work_size_of(const lth_source *src) {
  const lth_source_type *ty = src ? lth_source_get_type(src) : NULL;
  return ty && ty->ellipse && ty->ellipse_work_size ? ty->ellipse_work_size(lth_source_state(src))
                                                    : 0;
}

static int source_ellipse(const lth_source *src, double a, double b, double rho,
                          const double *target, double *M, double *over, lth_interval *work) {
  size_t n = (size_t)lth_source_rows(src) * (size_t)lth_source_cols(src);
  *over = INFINITY;
  if (!can_ellipse(src)) {
    for (size_t k = 0; k < n; k++) M[k] = INFINITY;
    return LTH_ELLIPSE_UNBOUNDED;
  }
  return lth_source_get_type(src)->ellipse(lth_source_state(src), a, b, rho, target, M, over, work);
}

/* ---- the pieces of a system ---- */

#define MAX_PARTS 4
#define MAX_DEPTH 8

typedef struct leaf {
  const lth_source *src;
  int rows, cols;
  /* a sparse source with an enclosure on its pattern is enclosed there
   * (O(nnz) per order; the entries outside are structural zeros, whose
   * enclosures are {0} and never decide a check); nnz < 0: entry by entry
   * as rows x cols */
  int nnz;
  const int *colptr, *rowind;
  /* what it is, for messages only (formatted when a check names it): A(i,j)
   * (kind 'A'), f(i) ('f') or the k-th source of lth_enclose_alloc_sources
   * ('s', i = k) */
  char kind;
  int i, j;
  int ellipse_first; /* the type's ellipse_first: leaf_check's order */
  /* its last ladder was resolved at the first degree (leaf_ladder: then the
   * next one starts there again rather than at degree K; cost only, the
   * bounds are the same intervals either way) */
  int first_rung;
} leaf;

typedef struct {
  char kind;
  int i, j;
} label;

struct lth_enclose {
  leaf *leaves;
  int n, cap;
  int known;
  int max_degree;
  int dense; /* enclose every leaf entry by entry (lth_enclose_set_dense) */
  lth_interval *coef, *work;
  lth_interval *ework;       /* leaf_ellipse's: the largest ellipse_work_size_of */
  double *M, *best, *target; /* leaf_ellipse's, one per entry of the largest leaf */
  size_t evals;
  /* what enc->coef holds: leaf `l`'s coefficients 0..order on [a, b]
   * (leaf_enclose; l = NULL: nothing known) */
  struct {
    const leaf *l;
    double a, b;
    int order;
  } held;
  int fail_leaf; /* the source that failed the last width search's check */
  /* the last check's question and answer: a width search that failed ahead
   * starts again at the same interval (coef_table.c enclosure_cap) */
  struct {
    int valid, K, predict;
    double a, b, tol, worst;
    char what[64];
  } last;
};

static int add_leaf(lth_enclose *enc, const lth_source *src, label what) {
  if (enc->n == enc->cap) {
    int cap = enc->cap ? 2 * enc->cap : 8;
    leaf *l = realloc(enc->leaves, (size_t)cap * sizeof *l);
    if (!l) {
      return 0;
    }
    enc->leaves = l;
    enc->cap = cap;
  }
  leaf *l = &enc->leaves[enc->n++];
  l->src = src;
  l->rows = lth_source_rows(src);
  l->cols = lth_source_cols(src);
  l->kind = what.kind;
  l->i = what.i;
  l->j = what.j;
  l->nnz = -1;
  l->first_rung = 0;
  {
    const lth_source_type *ty = lth_source_get_type(src);
    l->ellipse_first = ty->ellipse && ty->ellipse_first && ty->ellipse_first(lth_source_state(src));
  }
  if (lth_source_can_enclose_csc(src) &&
      lth_source_csc_pattern(src, &l->nnz, &l->colptr, &l->rowind, NULL) != LTH_OK) {
    l->nnz = -1;
  }
  return 1;
}

/* The entries leaf l's enclosures hold per order: its pattern's nnz, or
 * rows x cols when it is enclosed entry by entry. */
static size_t leaf_size(const lth_enclose *enc, const leaf *l) {
  return l->nnz >= 0 && !enc->dense ? (size_t)l->nnz : (size_t)l->rows * (size_t)l->cols;
}

/* Coefficients 0..order of leaf l on [a, b] into enc->coef, leaf_size
 * entries per order. */
static lth_status leaf_enclose(lth_enclose *enc, const leaf *l, double a, double b, int order,
                               lth_error *err) {
  lth_status st;
  if (l->nnz >= 0 && !enc->dense) {
    size_t nz = l->nnz > 0 ? (size_t)l->nnz : 1;
    st = lth_source_enclose_csc(l->src, a, b, order, enc->coef, nz, enc->work, err);
  } else {
    st = lth_source_enclose(l->src, a, b, order, enc->coef, enc->work, err);
  }
  enc->held.l = st == LTH_OK ? l : NULL;
  enc->held.a = a;
  enc->held.b = b;
  enc->held.order = order;
  return st;
}

/* 1 if enc->coef holds leaf l's coefficients 0..order on [a, b] (a Taylor
 * coefficient's enclosure depends on the lower orders' alone: those of a
 * higher order's enclosure are the same intervals). */
static int leaf_held(const lth_enclose *enc, const leaf *l, double a, double b, int order) {
  return enc->held.l == l && enc->held.a == a && enc->held.b == b && enc->held.order >= order;
}

/* Entry e of leaf_size's numbering as its column-major index in rows x
 * cols (the pattern is column-major with rows increasing, so the first of
 * equal entries is the same in both numberings). */
static size_t leaf_entry(const lth_enclose *enc, const leaf *l, size_t e) {
  if (l->nnz < 0 || enc->dense || l->nnz == 0) return e;
  int lo = 0, hi = l->cols; /* colptr[lo] <= e < colptr[hi] */
  while (hi - lo > 1) {
    int mid = lo + (hi - lo) / 2;
    if ((size_t)l->colptr[mid] <= e) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return (size_t)l->rowind[e] + (size_t)lo * (size_t)l->rows;
}

/* A source with an enclosure is a leaf; a composite one is visited through
 * its parts; anything else (callbacks, samples) makes the set unknown. */
static int walk(lth_enclose *enc, const lth_source *src, label what, int depth) {
  const lth_source_type *ty = lth_source_get_type(src);
  if (ty->enclose) {
    return add_leaf(enc, src, what);
  }
  const lth_source *parts[MAX_PARTS];
  int np = ty->parts && depth < MAX_DEPTH ? ty->parts(lth_source_state(src), parts) : 0;
  if (np <= 0) {
    enc->known = 0;
    return 1;
  }
  for (int k = 0; k < np && k < MAX_PARTS; k++) {
    if (!walk(enc, parts[k], what, depth + 1)) {
      return 0;
    }
  }
  return 1;
}

/* Workspace for the largest piece (none when the set is unknown: every
 * check answers without looking). */
static lth_status finish(lth_enclose *enc, lth_error *err) {
  enc->held.l = NULL;
  free(enc->coef);
  free(enc->work);
  free(enc->ework);
  free(enc->M);
  free(enc->best);
  free(enc->target);
  size_t wn = 1, cn = 1, en = 1, mn = 1, K1 = (size_t)enc->max_degree + 2;
  for (int k = 0; enc->known && k < enc->n; k++) {
    const leaf *l = &enc->leaves[k];
    size_t w = lth_source_enclose_work_size(l->src, (int)K1 - 1);
    size_t c = (leaf_size(enc, l) + 1) * K1;
    wn = w > wn ? w : wn;
    cn = c > cn ? c : cn;
    if (can_ellipse(l->src)) {
      size_t ew = ellipse_work_size_of(l->src), m = (size_t)l->rows * (size_t)l->cols;
      en = ew > en ? ew : en;
      mn = m > mn ? m : mn;
    }
  }
  enc->coef = malloc(cn * sizeof *enc->coef);
  enc->work = malloc(wn * sizeof *enc->work);
  enc->ework = malloc(en * sizeof *enc->ework);
  enc->M = malloc(mn * sizeof *enc->M);
  enc->best = malloc(mn * sizeof *enc->best);
  enc->target = malloc(mn * sizeof *enc->target);
  if (!enc->coef || !enc->work || !enc->ework || !enc->M || !enc->best || !enc->target) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating enclosures");
  }
  return LTH_OK;
}

static lth_enclose *enclose_new(int max_degree, lth_error *err) {
  if (max_degree < 0) {
    lth_error_set(err, LTH_EINVAL, "lth_enclose_alloc: negative degree");
    return NULL;
  }
  lth_enclose *enc = calloc(1, sizeof *enc);
  if (!enc) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating enclosures");
    return NULL;
  }
  enc->known = 1;
  enc->max_degree = max_degree;
  return enc;
}

lth_enclose *lth_enclose_alloc(const lth_system *sys, int max_degree, lth_error *err) {
  lth_enclose *enc = sys ? enclose_new(max_degree, err) : NULL;
  if (!enc) {
    if (!sys) {
      lth_error_set(err, LTH_EINVAL, "lth_enclose_alloc: NULL system");
    }
    return NULL;
  }
  int r = lth_system_index(sys), ok = 1;
  for (int i = 1; i <= r && ok; i++) {
    for (int j = 1; j <= r && ok; j++) {
      const lth_source *A = lth_system_A(sys, i, j);
      ok = !A || walk(enc, A, (label){'A', i, j}, 0);
    }
    const lth_source *f = lth_system_forcing(sys, i);
    ok = ok && (!f || walk(enc, f, (label){'f', i, 0}, 0));
  }
  if (!ok) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating enclosures");
  }
  if (!ok || finish(enc, err) != LTH_OK) {
    lth_enclose_free(enc);
    return NULL;
  }
  return enc;
}

lth_enclose *lth_enclose_alloc_sources(const lth_source *const *src, int n, int max_degree,
                                       lth_error *err) {
  lth_enclose *enc = enclose_new(max_degree, err);
  if (!enc) {
    return NULL;
  }
  int ok = 1;
  for (int k = 0; k < n && ok; k++) {
    ok = !src[k] || walk(enc, src[k], (label){'s', k + 1, 0}, 0);
  }
  if (!ok) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating enclosures");
  }
  if (!ok || finish(enc, err) != LTH_OK) {
    lth_enclose_free(enc);
    return NULL;
  }
  return enc;
}

void lth_enclose_free(lth_enclose *enc) {
  if (!enc) {
    return;
  }
  free(enc->leaves);
  free(enc->coef);
  free(enc->work);
  free(enc->ework);
  free(enc->M);
  free(enc->best);
  free(enc->target);
  free(enc);
}

int lth_enclose_known(const lth_enclose *enc) { return enc && enc->known; }

lth_status lth_enclose_set_dense(lth_enclose *enc, int dense, lth_error *err) {
  enc->dense = dense != 0;
  enc->last.valid = 0;
  return finish(enc, err);
}

size_t lth_enclose_evals(const lth_enclose *enc) { return enc ? enc->evals : 0; }

int lth_enclose_constant(lth_enclose *enc, double a, double b) {
  if (!enc || !enc->known || !(a <= b) || enc->max_degree < 0) {
    return 0;
  }
  for (int k = 0; k < enc->n; k++) {
    const leaf *l = &enc->leaves[k];
    size_t sz = leaf_size(enc, l) ? leaf_size(enc, l) : 1;
    /* (coef and work hold orders 0 .. max_degree + 1 >= 1) */
    if (leaf_enclose(enc, l, a, b, 1, NULL) != LTH_OK) {
      return 0;
    }
    enc->evals++;
    for (size_t e = 0; e < leaf_size(enc, l); e++) {
      if (enc->coef[sz + e].lo != 0.0 || enc->coef[sz + e].hi != 0.0) {
        return 0;
      }
    }
  }
  return 1;
}

/* ---- the check ---- */

static double mag(lth_interval x) { return fmax(fabs(x.lo), fabs(x.hi)); }

/* log of the Chebyshev interpolation remainder bound 2^{-K} h^{K+1} |F_{K+1}|
 * (include/lth/enclose.h), computed in logs so that neither h^{K+1} nor the
 * coefficient under- or overflows on the way. */
static double remainder_rel(lth_interval fk1, lth_interval f0, double h, int K) {
  double m = mag(fk1), s = fmax(1.0, mag(f0));
  if (!isfinite(m) || !isfinite(s)) {
    return INFINITY;
  }
  if (m == 0.0 || h == 0.0) {
    return 0.0;
  }
  double lg = log(m) + (K + 1) * log(h) - K * 0.69314718055994530942 - log(s);
  return exp(lg) * (1.0 + 1e-12); /* the logs' own rounding */
}

/* The bound of one source at degree K, and its worst entry. */
static lth_status leaf_bound(lth_enclose *enc, const leaf *l, double a, double b, int K,
                             double scale, double *worst, size_t *at) {
  double h = 0.5 * (b - a);
  size_t n = leaf_size(enc, l), sz = n ? n : 1;
  lth_status st = LTH_OK;
  if (!leaf_held(enc, l, a, b, K + 1)) {
    st = leaf_enclose(enc, l, a, b, K + 1, NULL);
    enc->evals++;
  }
  *worst = 0.0;
  *at = 0;
  if (st != LTH_OK) {
    return st;
  }
  for (size_t e = 0; e < n; e++) {
    double rel = scale * remainder_rel(enc->coef[(size_t)(K + 1) * sz + e], enc->coef[e], h, K);
    if (rel > *worst || (isnan(rel) && !isnan(*worst))) {
      *worst = isnan(rel) ? INFINITY : rel;
      *at = e;
    }
  }
  *at = leaf_entry(enc, l, *at);
  return LTH_OK;
}

/* The Bernstein-ellipse bound of a dense leaf with analytic entries at
 * degree K (include/lth/expr.h, lth_expr_ellipse_bound): entry e's degree-K
 * Chebyshev interpolant is within 4 M_e rho^-K / (rho - 1) of it on [a, b]
 * (Trefethen, Approximation Theory and Approximation Practice, Theorem
 * 8.2), relative to max(1, |entry|) on [a, b] as remainder_rel is (|entry|
 * bounded by its real enclosure on [a, b]; none where that is unbounded).
 * The cover of the ellipse is refined towards M_e <= the M
 * that makes this tol.  The best rho lies short of the entries' nearest
 * singularity: leaf_ellipse walks towards it by factors of ELLIPSE_STEP,
 * each entry keeping its least bound.  INFINITY where no bound is proven
 * (an entry with a pole near [a, b], or one the complex evaluation does not
 * cover: the interval Taylor bound decides alone). */
#define ELLIPSE_STEP       1.6
#define ELLIPSE_RHO_MIN    1.05
#define ELLIPSE_RHO_MAX    64.0
#define ELLIPSE_RHO_MARGIN 1.25
#define ELLIPSE_EVALS      3
static double ellipse_worst(lth_enclose *enc, const leaf *l, double a, double b, double rho, int K,
                            double tol, size_t n, int *how, double *over) {
  double f = 4.0 * exp(-K * log(rho)) / (rho - 1.0) * (1.0 + 1e-12), worst = 0.0;
  for (size_t e = 0; e < n; e++) {
    enc->target[e] = tol * fmax(1.0, mag(enc->coef[e])) / f;
  }
  *how = source_ellipse(l->src, a, b, rho, tol > 0 ? enc->target : NULL, enc->M, over, enc->ework);
  for (size_t e = 0; e < n; e++) {
    double s = fmax(1.0, mag(enc->coef[e]));
    double r = enc->M[e] == 0.0 ? 0.0 : isfinite(s) ? f * enc->M[e] / s : INFINITY;
    enc->best[e] = fmin(enc->best[e], isnan(r) ? INFINITY : r);
    worst = fmax(worst, enc->best[e]);
  }
  return worst;
}

static double leaf_ellipse(lth_enclose *enc, const leaf *l, double a, double b, int K, double tol,
                           size_t *at, double *hint) {
  *at = 0;
  *hint = INFINITY;
  if (!can_ellipse(l->src) || !(a < b) || !(tol > 0) || K < 1 || (l->nnz >= 0 && !enc->dense)) {
    return INFINITY;
  }
  size_t n = (size_t)l->rows * (size_t)l->cols;
  /* the value's enclosure on [a, b], for the scale */
  enc->held.l = NULL;
  if (lth_source_enclose(l->src, a, b, 0, enc->coef, enc->work, NULL) != LTH_OK) {
    return INFINITY;
  }
  for (size_t e = 0; e < n; e++) enc->best[e] = INFINITY;
  /* from the least rho at which entries of modulus 1 would pass: closer in
   * where some entry is unbounded (a singularity within reach), further out
   * where all are bounded but too large for this rho's factor.  (From the
   * question alone, not from the last answer: the same question gets the
   * same answer.) */
  double rho = fmax(ELLIPSE_RHO_MIN, ELLIPSE_RHO_MARGIN * exp(log(4.0 / tol) / K));
  double worst = INFINITY, dir = 0.0;
  for (int k = 0; k < ELLIPSE_EVALS; k++) {
    int how;
    double over;
    if ((worst = ellipse_worst(enc, l, a, b, rho, K, tol, n, &how, &over)) <= tol) {
      break;
    }
    *hint = fmin(*hint, fmin(worst, tol * over));
    double d = how == LTH_ELLIPSE_UNBOUNDED ? 1.0 / ELLIPSE_STEP : ELLIPSE_STEP;
    if ((dir != 0.0 && d != dir) || rho * d < ELLIPSE_RHO_MIN || rho * d > ELLIPSE_RHO_MAX) {
      break; /* turned back, or at the end of the range */
    }
    dir = d;
    rho *= d;
  }
  for (size_t e = 0; e < n; e++) {
    if (enc->best[e] >= worst) {
      *at = e;
      break;
    }
  }
  return worst;
}

/* Lower degrees first.  The interpolation-remainder bound r_d of a degree
 * d < K bounds the best approximation error of degree d, hence of degree K,
 * and the Chebyshev interpolant of degree K is within 1 + Lambda_K of the
 * best (Lambda_K <= (2/pi) ln(K + 1) + 1 for K + 1 Chebyshev points:
 * Rivlin, An Introduction to the Approximation of Functions, Theorem 1.2):
 *     max |f - p_K| <= (2 + (2/pi) ln(K + 1)) r_d.
 * So a source resolved to tol by that bound at a low degree is resolved by
 * degree K, and the costly high orders of its interval Taylor series (each
 * product or quotient O(K^2)) are needed only where the low ones fail: with
 * K = 65..98 on rational coefficients these were most of a coefficient
 * table's build.  Where every lower degree fails, the answer is degree K's
 * own, except with `predict`: a width search (lth_enclose_width) only needs
 * to know that degree K fails, and where the bounds of degrees d1 < d2 fail
 * and grow geometrically towards degree K (the data's nearest singularity
 * is within reach of [a, b]) to PREDICT_MARGIN times tol or more, degree
 * K's is not computed: the search shrinks on the prediction.  A wrong
 * prediction only makes the accepted width smaller than it could be: every
 * width accepted is accepted on a bound. */
/* the rungs: 7, 15 (measured against 15, 31 .. and 3, 7 ..: the fewest
 * instructions on rational coefficients) */
#define LADDER_FIRST   7
#define LADDER_LAST    15
#define PREDICT_MARGIN 10.0
static lth_status leaf_ladder(lth_enclose *enc, const leaf *l, double a, double b, int K,
                              double tol, int predict, double *worst, size_t *at, lth_error *err) {
  double lam = 2.0 + 0.63661977236758134308 * log(K + 1.0);
  double r[2] = {0.0, 0.0};
  int d[2] = {0, 0}, nr = 0;
  lth_status st = LTH_OK;
  leaf *lw = &enc->leaves[l - enc->leaves];
  if (l->nnz >= 0 && !enc->dense && tol > 0 && LADDER_FIRST < K / 2 &&
      K / 2 <= 2 * LADDER_FIRST + 1 && !l->first_rung) {
    /* a leaf on its sparse pattern costs O(nnz) per order, whatever the
     * order (a sum of constant matrices times scalar series): where the
     * ladder has one rung below K (the integrators' stretches, collocation's
     * pieces), degree K's enclosure once serves both (a chain's mm() blocks
     * at s = 10^5: three enclosures a check become one), unless the first
     * rung sufficed last time; longer ladders (the tables' K = 65) stop at
     * their middle rungs often enough to start low */
    enc->held.l = NULL;
    if (leaf_enclose(enc, l, a, b, K + 1, NULL) == LTH_OK) enc->evals++;
  }
  lw->first_rung = 0;
  for (int dd = LADDER_FIRST; tol > 0 && dd < K / 2 && dd <= LADDER_LAST && st == LTH_OK;
       dd = 2 * dd + 1) {
    if ((st = leaf_bound(enc, l, a, b, dd, lam, worst, at)) == LTH_OK && *worst <= tol) {
      lw->first_rung = dd == LADDER_FIRST;
      return LTH_OK;
    }
    r[nr % 2] = *worst;
    d[nr % 2] = dd;
    nr++;
  }
  if (st == LTH_OK && nr >= 2) {
    /* the bounds' geometric rate per degree, and degree K's on it */
    double r1 = r[(nr - 2) % 2], r2 = r[(nr - 1) % 2];
    int d1 = d[(nr - 2) % 2], d2 = d[(nr - 1) % 2];
    double rate = r1 > 0.0 && r2 > 0.0 && isfinite(r2) ? (log(r2) - log(r1)) / (d2 - d1) : NAN;
    double lgk = isnan(rate) ? INFINITY : log(r2) + rate * (K - d2);
    if (predict && (isinf(r2) || (rate > 0.0 || lgk > log(PREDICT_MARGIN * tol)))) {
      *worst = exp(lgk);
      return LTH_OK;
    }
    /* the lowest degree the rate says resolves to tol / PREDICT_MARGIN,
     * when it is well below K (its cost grows like its square) */
    if (rate < 0.0) {
      double dstar = d2 + (log(tol / PREDICT_MARGIN) - log(r2)) / rate;
      if (dstar < 0.9 * K) {
        int ds = (int)ceil(dstar);
        if ((st = leaf_bound(enc, l, a, b, ds, lam, worst, at)) == LTH_OK && *worst <= tol) {
          return LTH_OK;
        }
      }
    }
  }
  if (st == LTH_OK) {
    st = leaf_bound(enc, l, a, b, K, 1.0, worst, at);
  }
  if (st != LTH_OK) {
    /* again, for the message */
    return leaf_enclose(enc, l, a, b, K + 1, err);
  }
  return LTH_OK;
}

/* A leaf's bound: an entry is resolved when the Taylor ladder's bound or the
 * ellipse's says so.  The ladder goes first where it is tight and cheap
 * (polynomials, sin, cos, exp: series that end early or cost O(K)), the
 * ellipse first where the data may have poles (the ladder's recurrences of
 * quotients overestimate geometrically in K there).  Where both fail, the
 * ladder's bound, which scales like the width to the power K + 1, steers
 * the bisection towards a feature (lth_enclose_check); a width search
 * (predict) shrinks on the smaller of its prediction and the ellipse's hint
 * of how far it missed: the Taylor bound's overestimate would cut the
 * search far short of what the ellipse resolves. */
static lth_status leaf_check(lth_enclose *enc, const leaf *l, double a, double b, int K, double tol,
                             int predict, double *worst, size_t *at, lth_error *err) {
  size_t eat = 0;
  double hint = INFINITY, eb = INFINITY;
  if (l->ellipse_first && (eb = leaf_ellipse(enc, l, a, b, K, tol, &eat, &hint)) <= tol) {
    *worst = eb;
    *at = eat;
    return LTH_OK;
  }
  lth_status st = leaf_ladder(enc, l, a, b, K, tol, predict, worst, at, err);
  if (st != LTH_OK || *worst <= tol) {
    return st;
  }
  /* (a width search on data without poles skips the ellipse where the
   * ladder, tight there, puts the width more than twice too wide) */
  if (!l->ellipse_first && (!predict || *worst <= ldexp(tol, K + 1)) &&
      (eb = leaf_ellipse(enc, l, a, b, K, tol, &eat, &hint)) <= tol) {
    *worst = eb;
    *at = eat;
  } else if (predict && hint < *worst) {
    *worst = fmax(hint, tol * (1.0 + 1e-9)); /* still a failure */
  }
  return LTH_OK;
}

/* "A(1,2) entry (3,4)": entry e (column-major) of leaf l. */
static void name_entry(const leaf *l, size_t e, char *what, size_t wsize) {
  char src[40], ent[32];
  if (l->kind == 'A') {
    snprintf(src, sizeof src, "A(%d,%d)", l->i, l->j);
  } else if (l->kind == 'f') {
    snprintf(src, sizeof src, "f(%d)", l->i);
  } else {
    snprintf(src, sizeof src, "source %d", l->i);
  }
  int i = (int)(e % (size_t)(l->rows ? l->rows : 1)) + 1;
  int j = (int)(e / (size_t)(l->rows ? l->rows : 1)) + 1;
  if (l->cols == 1) {
    snprintf(ent, sizeof ent, " entry %d", i % 1000000);
  } else {
    snprintf(ent, sizeof ent, " entry (%d,%d)", i % 1000000, j % 1000000);
  }
  snprintf(what, wsize, "%.39s%.24s", src, ent);
}

/* One interval: the largest relative bound over all entries, and which.
 * tol > 0: a bound at most tol may come from a lower degree (leaf_ladder);
 * a bound above it is degree K's, or with predict (a width search) may be
 * a prediction of it. */
static lth_status check_leaves(lth_enclose *enc, double a, double b, int K, double tol, int predict,
                               double *worst, char *what, size_t wsize, lth_error *err) {
  *worst = 0.0;
  const leaf *worst_leaf = NULL;
  size_t worst_e = 0;
  for (int q = 0; q < enc->n; q++) {
    /* a width search needs only "fails": it starts with the source that
     * failed last, and stops at the first failure (its bound sets the next
     * width; the others are checked at a width that passes) */
    int k = predict ? (enc->fail_leaf + q) % enc->n : q;
    const leaf *l = &enc->leaves[k];
    double w;
    size_t e;
    lth_status st = leaf_check(enc, l, a, b, K, tol, predict, &w, &e, err);
    if (st != LTH_OK) {
      return st;
    }
    if (predict && w > tol) {
      *worst = fmax(*worst, w);
      enc->fail_leaf = k;
      break;
    }
    if (w > *worst) {
      *worst = w;
      worst_leaf = l;
      worst_e = e;
    }
  }
  if (what && worst_leaf) {
    name_entry(worst_leaf, worst_e, what, wsize);
  }
  return LTH_OK;
}

static lth_status check_one(lth_enclose *enc, double a, double b, int K, double tol, int predict,
                            double *worst, char *what, size_t wsize, lth_error *err) {
  if (enc->last.valid && enc->last.a == a && enc->last.b == b && enc->last.K == K &&
      enc->last.tol == tol && enc->last.predict == predict) {
    *worst = enc->last.worst;
    if (what) {
      snprintf(what, wsize, "%s", enc->last.what);
    }
    return LTH_OK;
  }
  enc->last.valid = 0;
  enc->last.what[0] = '\0';
  lth_status st =
      check_leaves(enc, a, b, K, tol, predict, worst, enc->last.what, sizeof enc->last.what, err);
  if (what) {
    snprintf(what, wsize, "%s", enc->last.what);
  }
  if (st == LTH_OK) {
    enc->last.valid = 1;
    enc->last.a = a;
    enc->last.b = b;
    enc->last.K = K;
    enc->last.tol = tol;
    enc->last.predict = predict;
    enc->last.worst = *worst;
  }
  return st;
}

lth_status lth_enclose_check(lth_enclose *enc, double a, double b, int degree, double tol,
                             double min_width, lth_enclose_verdict *v, lth_error *err) {
  if (!enc || !v || !(a <= b) || degree < 0 || degree > enc->max_degree || !(tol > 0)) {
    return lth_error_set(err, LTH_EINVAL,
                         "lth_enclose_check: bad arguments (a > b, degree outside 0..%d, or "
                         "tol <= 0)",
                         enc ? enc->max_degree : 0);
  }
  memset(v, 0, sizeof *v);
  v->t_feature = NAN;
  if (!enc->known) {
    v->answer = LTH_ENCLOSE_UNKNOWN;
    return LTH_OK;
  }
  lth_status st = check_one(enc, a, b, degree, tol, 0, &v->bound, v->what, sizeof v->what, err);
  if (st != LTH_OK || v->bound <= tol) {
    v->answer = LTH_ENCLOSE_RESOLVED;
    return st;
  }
  v->answer = LTH_ENCLOSE_UNRESOLVED;
  /* bisect towards the half with the larger bound (the left one on a tie) */
  double lo = a, hi = b, wmin = min_width > 0 ? min_width : 1e-12 * (b - a);
  char wl_what[64], wr_what[64];
  while (hi - lo > wmin && st == LTH_OK) {
    double mid = lo + 0.5 * (hi - lo), wl, wr;
    if (!(mid > lo && mid < hi)) {
      break;
    }
    if ((st = check_one(enc, lo, mid, degree, tol, 0, &wl, wl_what, sizeof wl_what, err)) !=
            LTH_OK ||
        (st = check_one(enc, mid, hi, degree, tol, 0, &wr, wr_what, sizeof wr_what, err)) !=
            LTH_OK) {
      break;
    }
    if (wl <= tol && wr <= tol) {
      break; /* both halves resolved: the feature spans the middle */
    }
    if (wl >= wr) {
      hi = mid;
      memcpy(v->what, wl_what, sizeof wl_what);
    } else {
      lo = mid;
      memcpy(v->what, wr_what, sizeof wr_what);
    }
  }
  v->t_feature = lo + 0.5 * (hi - lo);
  v->t_width = hi - lo;
  return st;
}

lth_status lth_enclose_width(lth_enclose *enc, double a, double wmax, double wmin, int degree,
                             double tol, double *w, int *resolved, lth_error *err) {
  return lth_enclose_width_bound(enc, a, wmax, wmin, degree, tol, w, resolved, NULL, err);
}

lth_status lth_enclose_width_bound(lth_enclose *enc, double a, double wmax, double wmin, int degree,
                                   double tol, double *w, int *resolved, double *bound,
                                   lth_error *err) {
  int res = LTH_ENCLOSE_UNKNOWN;
  *w = wmax;
  if (bound) {
    *bound = NAN;
  }
  if (!enc || !enc->known || wmax == 0.0) {
    if (resolved) {
      *resolved = enc && enc->known ? 1 : res;
    }
    return LTH_OK;
  }
  if (degree < 0 || degree > enc->max_degree || !(tol > 0) || !(wmin * wmax > 0)) {
    return lth_error_set(err, LTH_EINVAL, "lth_enclose_width: bad arguments");
  }
  double x = wmax;
  for (;;) {
    double worst;
    lth_status st =
        check_one(enc, fmin(a, a + x), fmax(a, a + x), degree, tol, 1, &worst, NULL, 0, err);
    if (st != LTH_OK) {
      return st;
    }
    *w = x;
    if (bound) {
      *bound = worst;
    }
    if (worst <= tol || fabs(x) <= fabs(wmin)) {
      res = worst <= tol;
      break;
    }
    /* the bound scales like w^(degree+1) (and its coefficient only shrinks
     * with w): shrink to where it predicts tol, by a factor in [1/16, 0.8]
     * (at most 1/2 before: a search from twice the width the data allow
     * then ended at half of it, and the next search began there again) */
    double f = isfinite(worst) ? 0.9 * pow(tol / worst, 1.0 / (degree + 1)) : 0.5;
    f = f < 0.0625 ? 0.0625 : f > 0.8 ? 0.8 : f;
    x = fabs(f * x) < fabs(wmin) ? wmin : f * x;
  }
  if (resolved) {
    *resolved = res;
  }
  return LTH_OK;
}
