/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a system with sampled data is decomposed for the Hermite
 * interpolation of its coefficients (lib/ivp/samples_nodes.h; used by
 * lib/ivp/ivp_coef_hermite.c).
 *
 * The nodes follow the data, never the output grid.  They start one per
 * NODES_START_SAMPLES sample intervals of the most finely sampled data set,
 * on its sample times (between NODES_MIN_START and NODES_MAX_START intervals
 * over the span, plus any nodes the caller gives), and every interval is
 * checked at its middle sample (its middle when it holds none), near where
 * the error of two-point Hermite interpolation peaks (its kernel is
 * (x (1 - x))^(k+1)): the decomposition there is compared with the
 * interpolant, relative to max(1, |field|) for each of Ahat, g, P, Bhat, q,
 * G.  The point checked becomes a node either way; an interval whose error
 * is above the tolerance (the caller's: 1e-3 rtol by default, as a
 * coefficient table's) has its halves checked in turn, until they are one
 * sample interval long: below that the samples say nothing more, and what
 * is left is the data's own error (reported with the rest).  So the
 * coefficients converge with rtol to what the fits give, whatever grid the
 * caller reports on, and what is accepted was seen: the largest checked
 * error is kept as the interpolation's error estimate.  Between samples lth
 * can only assume the smoothness the samples show (docs/sampled-data.md,
 * section 4).
 *
 * Nodes on sample times keep every interval between neighbouring samples
 * inside one piece of the fits: the fits of neighbouring cells differ a
 * little (by their error), and across such a step no interpolant converges.
 *
 * The order k of the jets at the nodes: as high as the data support, up to
 * SAMPLES_NODES_MAX_K.  With fits of degree K through samples of spacing h,
 * output coefficient i (i <= k) needs input derivatives of order i + r - 1
 * and is off by O(h^(K+2-r-i)); in the Hermite form it is multiplied by H^i
 * (H the node spacing), so every term contributes O(h^(K+2-r)) when H ~ h --
 * the accuracy of the fits themselves -- while the interpolation error is
 * O(H^(2k+2)).  k = K - r + 1 (all the data support, capped) keeps
 * 2k + 2 > K + 2 - r for every K >= r - 1, so the interpolation between
 * nodes is never the weaker link.  Exact data: k = SAMPLES_NODES_MAX_K. */
#include "samples_nodes.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/samples.h"
#include "decomp/samples_wrap.h"

#define NODES_START_SAMPLES 16      /* first nodes: one per this many sample intervals ... */
#define NODES_MIN_START     8       /* ... but at least this many intervals ... */
#define NODES_MAX_START     4096    /* ... and at most this many */
#define NODES_MAX_SETS      64      /* data sets whose sample spacing is looked at */
#define NODES_MIN_SPLIT     0x1p-16 /* without samples: shortest interval, relative to the span */
#define NODES_MAX_NODES     65536   /* no refinement beyond this many nodes */

/* What samples_nodes_build works with. */
typedef struct nbuild {
  const lth_system *sys;
  double t_lo, t_hi, cond_max, tol;
  const double *extra; /* the caller's nodes (nextra), or NULL */
  size_t nextra;
  int k; /* order of the jets (-1: not chosen yet) */
  double *basis;
  double herr; /* largest interpolation error checked of what is kept */
  size_t decomps;
} nbuild;

/* Basis of two-point Hermite interpolation on [0, 1]: polynomial c has Taylor
 * coefficient c at 0 equal to 1 (c <= k) or coefficient c-k-1 at 1 equal to 1,
 * all other k+1 + k+1 Taylor coefficients zero. */
static lth_status hermite_basis(int k, double *B, lth_error *err) {
  int n = 2 * k + 2;
  double M[64 * 64];
  lapack_int ipiv[64];
  if (n > 64) {
    return lth_error_set(err, LTH_EINVAL, "Hermite order %d too high", k);
  }
  for (int c = 0; c < n; c++) {
    for (int e = 0; e < n; e++) {
      double v;
      if (c <= k) {
        v = e == c ? 1.0 : 0.0;
      } else {
        int j = c - k - 1; /* Taylor coefficient j of x^e at 1 is binom(e, j) */
        v = 1.0;
        for (int i = 1; i <= j; i++) v = v * (e - j + i) / i;
        v = e >= j ? v : 0.0;
      }
      M[c + e * n] = v;
      B[c + e * n] = c == e ? 1.0 : 0.0;
    }
  }
  lapack_int info = LAPACKE_dgesv(LAPACK_COL_MAJOR, n, n, M, n, ipiv, B, n);
  return info == 0 ? LTH_OK : lth_error_set(err, LTH_ELAPACK, "Hermite basis (info %d)", (int)info);
}

/* ---- where the samples are ---- */

typedef struct hdata {
  const lth_source *set[NODES_MAX_SETS];
  int n;
  const double *s; /* the sample times of the most finely sampled set (NULL: none) */
  size_t ns;
} hdata;

/* Index of the sample time nearest to t (d->s must be set). */
static size_t nearest_sample(const hdata *d, double t) {
  size_t lo = 0, hi = d->ns - 1;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (d->s[mid] <= t)
      lo = mid;
    else
      hi = mid;
  }
  return t - d->s[lo] <= d->s[hi] - t ? lo : hi;
}

/* Where [a, b] is checked and split: the sample time nearest to its middle
 * when one lies inside, else the middle.  Nodes on sample times keep the
 * intervals between neighbouring samples inside one piece of the fits: the
 * fits of neighbouring cells differ a little (by their error), and across
 * such a step no interpolant converges. */
static double split_point(const hdata *d, double a, double b) {
  double m = 0.5 * (a + b);
  if (!d->s) {
    return m;
  }
  double x = d->s[nearest_sample(d, m)];
  return x > a && x < b ? x : m;
}

/* Mean sample spacing of the most finely sampled data set (0: none), whose
 * times become d->s. */
static double mean_spacing(hdata *d) {
  double h = 0.0;
  for (int k = 0; k < d->n; k++) {
    const double *t;
    size_t n = lth_samples_times(d->set[k], &t);
    double hk = n > 1 ? (t[n - 1] - t[0]) / (double)(n - 1) : 0.0;
    if (hk > 0.0 && (h == 0.0 || hk < h)) {
      h = hk;
      d->s = t;
      d->ns = n;
    }
  }
  return h;
}

/* The shortest sample interval of the data sets at t (0: no data). */
static double local_spacing(const hdata *d, double t) {
  double h = 0.0;
  for (int k = 0; k < d->n; k++) {
    const double *s;
    size_t n = lth_samples_times(d->set[k], &s);
    if (n < 2) {
      continue;
    }
    size_t lo = 0, hi = n - 1; /* s[lo] <= t < s[hi], clamped */
    while (hi - lo > 1) {
      size_t mid = lo + (hi - lo) / 2;
      if (s[mid] <= t)
        lo = mid;
      else
        hi = mid;
    }
    double hk = s[hi] - s[lo];
    h = h == 0.0 || hk < h ? hk : h;
  }
  return h;
}

/* ---- the first nodes ---- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Uniform nodes (one per NODES_START_SAMPLES sample intervals, moved to
 * the nearest sample time) and the caller's inside [t_lo, t_hi], sorted,
 * duplicates dropped. */
static lth_status first_nodes(const nbuild *c, hdata *d, double **out, size_t *n_out,
                              lth_error *err) {
  double span = c->t_hi - c->t_lo, h = mean_spacing(d) * NODES_START_SAMPLES;
  double want = h > 0.0 ? ceil(span / h) : NODES_MIN_START;
  size_t n = want > NODES_MAX_START   ? NODES_MAX_START
             : want < NODES_MIN_START ? NODES_MIN_START
                                      : (size_t)want;
  size_t extra = c->extra ? c->nextra : 0;
  double *t = malloc((n + 1 + extra) * sizeof *t);
  if (!t) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  size_t m = 0;
  for (size_t j = 0; j <= n; j++) {
    double x = j == n ? c->t_hi : c->t_lo + span * (double)j / (double)n;
    double y = j > 0 && j < n && d->s ? d->s[nearest_sample(d, x)] : x;
    t[m++] = y > c->t_lo && y < c->t_hi ? y : x;
  }
  for (size_t j = 0; j < extra; j++) {
    double x = c->extra[j];
    if (x > c->t_lo && x < c->t_hi) {
      t[m++] = x;
    }
  }
  qsort(t, m, sizeof *t, cmp_double);
  size_t u = 1;
  for (size_t j = 1; j < m; j++) {
    if (t[j] > t[u - 1] + 1e-12 * span || (j == m - 1 && t[j] > t[u - 1])) {
      t[u++] = t[j];
    }
  }
  t[u - 1] = c->t_hi;
  *out = t;
  *n_out = span > 0.0 ? u : 1;
  return LTH_OK;
}

/* The decomposition at times[0..n-1] with jets of order c->k (c->k < 0:
 * the highest order the data support, at most SAMPLES_NODES_MAX_K: sampled data
 * refuse orders above their fits' degree with LTH_EORDER). */
static lth_status decompose(nbuild *c, const double *times, size_t n, lth_grid_result **res,
                            lth_error *err) {
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.cond_max = c->cond_max;
  int fixed = c->k >= 0;
  lth_status st = LTH_OK;
  for (int k = fixed ? c->k : SAMPLES_NODES_MAX_K; k >= 0; k--) {
    go.out_order = k;
    lth_error e2;
    lth_error_clear(&e2);
    st = lth_grid_store(c->sys, times, n, &go, res, &e2);
    if (st == LTH_OK) {
      c->k = k;
      break;
    }
    if (st != LTH_EORDER || fixed || k == 0) {
      if (err) *err = e2;
      break;
    }
  }
  c->decomps += n;
  return st;
}

/* ---- the check at the middle ---- */

void samples_nodes_weights(int k, const double *basis, double x, double *val, double *der) {
  int nb = 2 * k + 2;
  for (int cc = 0; cc < nb; cc++) {
    double v = 0.0, dv = 0.0, xp = 1.0;
    for (int e = 0; e < nb; e++) {
      v += basis[e + cc * nb] * xp;
      if (e + 1 < nb) dv += (e + 1) * basis[(e + 1) + cc * nb] * xp;
      xp *= x;
    }
    val[cc] = v;
    if (der) der[cc] = dv;
  }
}

/* Interpolated value of entry (i, j) of F between F0 (at x = 0) and F1 (x = 1). */
static double interp(int k, const lth_jet *F0, const lth_jet *F1, int i, int j, double h,
                     const double *val) {
  double v = 0.0, hp = 1.0;
  for (int m = 0; m <= k; m++) {
    v += (LTH_JET_AT(F0, m, i, j) * val[m] + LTH_JET_AT(F1, m, i, j) * val[k + 1 + m]) * hp;
    hp *= h;
  }
  return v;
}

/* max |interpolant - D| / max(1, max |D|) of one field at the split point. */
static double field_error(int k, const lth_jet *F0, const lth_jet *F1, const lth_jet *D, double h,
                          const double *val) {
  double e = 0.0, scale = 1.0;
  for (int j = 0; j < D->cols; j++) {
    for (int i = 0; i < D->rows; i++) {
      double d = LTH_JET_AT(D, 0, i, j);
      e = fmax(e, fabs(interp(k, F0, F1, i, j, h, val) - d));
      scale = fmax(scale, fabs(d));
    }
  }
  return e / scale;
}

/* The interpolation error of [P0, P1] at M's time (its split point), val
 * the basis weights there. */
static double middle_error(const nbuild *c, const lth_point *P0, const lth_point *P1,
                           const lth_point *M, const double *val) {
  double h = P1->t - P0->t;
  double e = field_error(c->k, &P0->Ahat, &P1->Ahat, &M->Ahat, h, val);
  e = fmax(e, field_error(c->k, &P0->g, &P1->g, &M->g, h, val));
  e = fmax(e, field_error(c->k, &P0->P, &P1->P, &M->P, h, val));
  e = fmax(e, field_error(c->k, &P0->Bhat, &P1->Bhat, &M->Bhat, h, val));
  e = fmax(e, field_error(c->k, &P0->q, &P1->q, &M->q, h, val));
  return fmax(e, field_error(c->k, &P0->G, &P1->G, &M->G, h, val));
}

/* ---- refinement ---- */

typedef struct hnodes {
  lth_point **pt;      /* nodes, increasing t (owned) */
  unsigned char *open; /* per interval [pt[j], pt[j+1]]: 1 while unchecked */
  size_t n;
  double pending; /* largest error of the last round's split intervals */
} hnodes;

static void hnodes_free(hnodes *h) {
  for (size_t j = 0; h->pt && j < h->n; j++) {
    lth_point_free(h->pt[j]);
  }
  free(h->pt);
  free(h->open);
  memset(h, 0, sizeof *h);
}

/* Takes the points of res (freed). */
static lth_status hnodes_take(hnodes *h, lth_grid_result *res, lth_error *err) {
  h->pt = res->points;
  h->n = res->n;
  res->points = NULL;
  res->n = 0;
  lth_grid_result_free(res);
  h->open = malloc((h->n ? h->n : 1) * sizeof *h->open);
  if (!h->open) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  memset(h->open, 1, h->n ? h->n : 1);
  return LTH_OK;
}

/* One round: the middles of the open intervals, decomposed together; each
 * becomes a node, and its interval's halves stay open when the check failed
 * and they are longer than the local sample spacing. */
static lth_status refine(nbuild *c, const hdata *d, hnodes *h, size_t nopen, lth_error *err) {
  double *mid = malloc(nopen * sizeof *mid), val[64];
  size_t n2 = h->n + nopen;
  lth_point **pt = malloc(n2 * sizeof *pt);
  unsigned char *open = malloc(n2 * sizeof *open);
  lth_grid_result *res = NULL;
  lth_status st = mid && pt && open ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  size_t q = 0;
  for (size_t j = 0; st == LTH_OK && j + 1 < h->n; j++) {
    if (h->open[j]) {
      mid[q++] = split_point(d, h->pt[j]->t, h->pt[j + 1]->t);
    }
  }
  st = st == LTH_OK ? decompose(c, mid, nopen, &res, err) : st;
  if (st != LTH_OK) {
    free(mid);
    free(pt);
    free(open);
    return st;
  }
  size_t u = 0;
  q = 0;
  h->pending = 0.0;
  for (size_t j = 0; j < h->n; j++) {
    pt[u] = h->pt[j];
    open[u++] = 0;
    if (j + 1 == h->n || !h->open[j]) {
      continue;
    }
    lth_point *M = res->points[q];
    res->points[q++] = NULL;
    samples_nodes_weights(c->k, c->basis, (M->t - h->pt[j]->t) / (h->pt[j + 1]->t - h->pt[j]->t),
                          val, NULL);
    double e = middle_error(c, h->pt[j], h->pt[j + 1], M, val);
    /* halves no shorter than the local sample spacing (without samples, a
     * fixed fraction of the span) */
    double shortest = fmax(local_spacing(d, M->t), NODES_MIN_SPLIT * (c->t_hi - c->t_lo));
    int more = !(e <= c->tol) && h->pt[j + 1]->t - h->pt[j]->t > 2.0 * shortest;
    if (!more) {
      c->herr = fmax(c->herr, e); /* the error of what is kept (its halves' is smaller) */
    } else {
      h->pending = fmax(h->pending, e);
    }
    open[u - 1] = (unsigned char)more;
    pt[u] = M;
    open[u++] = (unsigned char)more;
  }
  lth_grid_result_free(res);
  free(mid);
  free(h->pt);
  free(h->open);
  h->pt = pt;
  h->open = open;
  h->n = u;
  return LTH_OK;
}

/* A sign change of det Pi between neighbours: Pi singular in between. */
static lth_status sign_check(const hnodes *h, lth_error *err) {
  for (size_t j = 1; j < h->n; j++) {
    const lth_point *p0 = h->pt[j - 1], *p1 = h->pt[j];
    if (p0->pi_sign != p1->pi_sign) {
      return lth_error_set_t(err, LTH_ESING, 0.5 * (p0->t + p1->t),
                             "det Pi changes sign between t = %.17g and t = %.17g: Pi is "
                             "singular in between, the coefficients cannot be interpolated "
                             "across",
                             p0->t, p1->t);
    }
  }
  return LTH_OK;
}

/* The nodes' conditioning against the largest chain norm of all of them
 * (as lth_grid_store does for one batch). */
static void cond_over_all(const hnodes *h) {
  double scale = 0.0;
  for (size_t j = 0; j < h->n; j++) scale = fmax(scale, h->pt[j]->chain_norm);
  for (size_t j = 0; j < h->n; j++) {
    lth_point *p = h->pt[j];
    p->cond_interval = fmax(p->cond_interval, p->pi_inv_norm * scale);
  }
}

lth_status samples_nodes_build(const lth_system *sys, double t_lo, double t_hi, const double *extra,
                               size_t nextra, double cond_max, double tol, samples_nodes *out,
                               lth_error *err) {
  nbuild cb = {.sys = sys,
               .t_lo = t_lo,
               .t_hi = t_hi,
               .cond_max = cond_max,
               .tol = tol,
               .extra = extra,
               .nextra = nextra,
               .k = -1},
         *c = &cb;
  hdata d = {{NULL}, 0, NULL, 0};
  d.n = swrap_data_sets(sys, d.set, NODES_MAX_SETS);
  d.n = d.n < NODES_MAX_SETS ? d.n : NODES_MAX_SETS;
  double *times = NULL;
  size_t n = 0;
  lth_grid_result *res = NULL;
  hnodes h = {NULL, NULL, 0, 0.0};
  memset(out, 0, sizeof *out);
  lth_status st = first_nodes(c, &d, &times, &n, err);
  st = st == LTH_OK ? decompose(c, times, n, &res, err) : st;
  free(times);
  st = st == LTH_OK ? hnodes_take(&h, res, err) : st;
  c->basis = malloc(sizeof(double) * (size_t)(2 * SAMPLES_NODES_MAX_K + 2) *
                    (2 * SAMPLES_NODES_MAX_K + 2));
  st = st == LTH_OK && !c->basis ? lth_error_set(err, LTH_ENOMEM, "out of memory") : st;
  st = st == LTH_OK ? hermite_basis(c->k, c->basis, err) : st;
  size_t nopen = h.n > 1 ? h.n - 1 : 0;
  while (st == LTH_OK && nopen > 0) {
    st = refine(c, &d, &h, nopen, err);
    nopen = 0;
    for (size_t j = 0; st == LTH_OK && j + 1 < h.n; j++) {
      nopen += h.open[j];
    }
    if (nopen > 0 && h.n + nopen > NODES_MAX_NODES) {
      c->herr = fmax(c->herr, h.pending); /* what is left open: its last check's error */
      nopen = 0;
    }
  }
  st = st == LTH_OK ? sign_check(&h, err) : st;
  if (st == LTH_OK) {
    cond_over_all(&h);
    out->grid = calloc(1, sizeof *out->grid);
    st = out->grid ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  out->decomps = c->decomps;
  if (st != LTH_OK) {
    hnodes_free(&h);
    free(c->basis);
    return st;
  }
  out->grid->points = h.pt;
  out->grid->n = h.n;
  out->k = c->k;
  out->basis = c->basis;
  out->err = c->herr;
  free(h.open);
  return LTH_OK;
}
