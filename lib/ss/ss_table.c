/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The realization as a coefficient table (include/lth/ss.h): Chebyshev
 * interpolants on panels, halved until accepted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "cheb.h"
#include "ss_impl.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { NDEG = LTH_SS_TABLE_DEGREE, NFIELD = 11 };

typedef struct panel {
  double a, b;
  double *coef; /* (NDEG + 1) x L: coefficient j of entry e at coef[e + L j] */
  double orth_err, range_err, amplification;
} panel;

struct lth_ss_table {
  lth_ss *ss;
  double t0, t1, tol;
  size_t L; /* entries of a point */
  panel *pan;
  size_t n, cap;
  size_t evals;
  lth_ss_point *pt; /* scratch */
  double *f;        /* (NDEG + 1) x L node values, then 2 x L check values */
};

/* The arrays of a point in a fixed order, and their lengths. */
static void fields(lth_ss_point *pt, double **ptr, size_t *cnt) {
  size_t p = (size_t)pt->p, nu = (size_t)pt->nu, ny = (size_t)pt->ny, m = (size_t)pt->m,
         s = (size_t)pt->s;
  double *a[NFIELD] = {pt->A, pt->B, pt->C, pt->D, pt->g, pt->yf, pt->Q, pt->K, pt->Z, pt->Dz, pt->zf};
  size_t c[NFIELD] = {p * p,     p * nu * pt->nb, ny * p, ny * nu * pt->nd, p, ny,
                      m * p,     m * nu * pt->nk, s * p,  s * nu * pt->nd,  s};
  for (int k = 0; k < NFIELD; k++) {
    ptr[k] = a[k];
    cnt[k] = a[k] ? c[k] : 0;
  }
}

static void pack(lth_ss_point *pt, double *v) {
  double *ptr[NFIELD];
  size_t cnt[NFIELD];
  fields(pt, ptr, cnt);
  for (int k = 0; k < NFIELD; k++) {
    if (cnt[k] > 0) { /* (a field the plant lacks, C and D without outputs, is NULL) */
      memcpy(v, ptr[k], cnt[k] * sizeof(double));
    }
    v += cnt[k];
  }
}

/* The realization at t packed into v; the worst errors into pn. */
static lth_status sample(lth_ss_table *tab, double t, double *v, panel *pn, lth_error *err) {
  lth_status st = lth_ss_at(tab->ss, t, tab->pt, err);
  tab->evals++;
  if (st == LTH_OK) {
    pack(tab->pt, v);
    pn->orth_err = fmax(pn->orth_err, tab->pt->orth_err);
    pn->range_err = fmax(pn->range_err, tab->pt->range_err);
    pn->amplification = fmax(pn->amplification, tab->pt->amplification);
  }
  return st;
}

/* 1 if the panel's interpolant is accepted (header: tails and two checks). */
static lth_status try_panel(lth_ss_table *tab, panel *pn, int *ok, lth_error *err) {
  size_t L = tab->L;
  double mid = 0.5 * (pn->a + pn->b), half = 0.5 * (pn->b - pn->a);
  double *f = tab->f, *chk = f + L * (NDEG + 1), *val = chk + 2 * L;
  lth_status st = LTH_OK;
  for (int k = NDEG; k >= 0 && st == LTH_OK; k--) { /* x_k from -1 to 1: left to right */
    st = sample(tab, mid + half * cos(M_PI * k / NDEG), f + L * (size_t)k, pn, err);
  }
  for (int c = 0; c < 2 && st == LTH_OK; c++) {
    st = sample(tab, mid + half * (c == 0 ? -0.5 : 0.5), chk + L * (size_t)c, pn, err);
  }
  if (st != LTH_OK) {
    return st;
  }
  lth_cheb_coef(f, L, NDEG, pn->coef);
  *ok = lth_cheb_tails_below(f, pn->coef, L, NDEG, tab->tol);
  for (int c = 0; c < 2 && *ok; c++) {
    lth_cheb_eval(pn->coef, L, NDEG, 0, L, c == 0 ? -0.5 : 0.5, val);
    for (size_t e = 0; e < L && *ok; e++) {
      double ref = chk[e + L * (size_t)c];
      *ok = fabs(val[e] - ref) <= 10.0 * tab->tol * fmax(1.0, fabs(ref));
    }
  }
  return LTH_OK;
}

static lth_status push(lth_ss_table *tab, const panel *pn, lth_error *err) {
  if (tab->n == tab->cap) {
    size_t cap = tab->cap ? 2 * tab->cap : 16;
    panel *np = realloc(tab->pan, cap * sizeof *np);
    if (!np) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory building a realization table");
    }
    tab->pan = np;
    tab->cap = cap;
  }
  tab->pan[tab->n++] = *pn;
  return LTH_OK;
}

/* Panels from a to b, left to right, halving a rejected one. */
static lth_status build(lth_ss_table *tab, lth_error *err) {
  double a = tab->t0, w = tab->t1 - tab->t0, wmin = 1e-8 * (tab->t1 - tab->t0);
  size_t L = tab->L;
  while (a < tab->t1) {
    double b = a + w < tab->t1 ? a + w : tab->t1;
    panel pn = {.a = a, .b = b, .coef = malloc(L * (NDEG + 1) * sizeof(double))};
    if (!pn.coef) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory building a realization table");
    }
    int ok = 0;
    lth_status st = try_panel(tab, &pn, &ok, err);
    if (st == LTH_OK && !ok && b - a <= wmin) {
      st = lth_error_set_t(err, LTH_ETOL, a,
                           "the realization table cannot reach tolerance %.3g on [%.17g, %.17g]",
                           tab->tol, a, b);
    }
    if (st != LTH_OK || !ok) {
      free(pn.coef);
      if (st != LTH_OK) {
        return st;
      }
      w = 0.5 * (b - a);
      continue;
    }
    st = push(tab, &pn, err);
    if (st != LTH_OK) {
      free(pn.coef);
      return st;
    }
    a = b;
    w *= 2.0; /* try a wider panel next */
  }
  return LTH_OK;
}

lth_ss_table *lth_ss_table_build(lth_ss *ss, double t0, double t1, double tol, lth_error *err) {
  LTH_ERROR_RECORD(err);
  if (!(t1 > t0) || !isfinite(t0) || !isfinite(t1)) {
    lth_error_set(err, LTH_EINVAL, "a realization table needs t0 < t1 (finite)");
    return NULL;
  }
  lth_ss_table *tab = calloc(1, sizeof *tab);
  if (!tab) {
    lth_error_set(err, LTH_ENOMEM, "out of memory building a realization table");
    return NULL;
  }
  tab->ss = ss;
  tab->t0 = t0;
  tab->t1 = t1;
  tab->tol = tol > 0 ? tol : 1e-10;
  tab->pt = lth_ss_point_alloc(ss, err);
  lth_status st = tab->pt ? LTH_OK : lth_error_status(err);
  if (st == LTH_OK) {
    double *ptr[NFIELD];
    size_t cnt[NFIELD];
    fields(tab->pt, ptr, cnt);
    for (int k = 0; k < NFIELD; k++) {
      tab->L += cnt[k];
    }
    tab->f = malloc((tab->L * (NDEG + 5) + 1) * sizeof(double));
    st = tab->f ? build(tab, err) : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st != LTH_OK) {
    lth_ss_table_free(tab);
    return NULL;
  }
  return tab;
}

void lth_ss_table_free(lth_ss_table *tab) {
  if (!tab) {
    return;
  }
  for (size_t k = 0; k < tab->n; k++) {
    free(tab->pan[k].coef);
  }
  free(tab->pan);
  free(tab->f);
  lth_ss_point_free(tab->pt);
  free(tab);
}

lth_status lth_ss_table_eval(const lth_ss_table *tab, double t, lth_ss_point *pt, lth_error *err) {
  LTH_ERROR_RECORD(err);
  const lth_ss_point *sh = lth_ss_shape(tab->ss);
  if (pt->p != sh->p || pt->m != sh->m || pt->nu != sh->nu || pt->ny != sh->ny ||
      pt->nb != sh->nb || pt->nd != sh->nd || pt->nk != sh->nk || pt->s != sh->s) {
    return lth_error_set(err, LTH_EDIM, "a realization point of another realization");
  }
  if (!(t >= tab->t0 && t <= tab->t1)) {
    return lth_error_set_t(err, LTH_ERANGE, t, "t outside the realization table's [%.17g, %.17g]",
                           tab->t0, tab->t1);
  }
  size_t lo = 0, hi = tab->n; /* the panel with a <= t (binary search) */
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (tab->pan[mid].a <= t) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const panel *pn = &tab->pan[lo];
  double x = (2.0 * t - pn->a - pn->b) / (pn->b - pn->a);
  x = x < -1.0 ? -1.0 : (x > 1.0 ? 1.0 : x);
  double *ptr[NFIELD];
  size_t cnt[NFIELD], e0 = 0;
  fields(pt, ptr, cnt);
  for (int k = 0; k < NFIELD; k++) { /* straight into pt: eval may run in several threads */
    lth_cheb_eval(pn->coef, tab->L, NDEG, e0, cnt[k], x, ptr[k]);
    e0 += cnt[k];
  }
  pt->t = t;
  pt->orth_err = pn->orth_err;
  pt->range_err = pn->range_err;
  pt->amplification = pn->amplification;
  return LTH_OK;
}

void lth_ss_table_counts(const lth_ss_table *tab, size_t *panels, size_t *evals) {
  if (panels) {
    *panels = tab->n;
  }
  if (evals) {
    *evals = tab->evals;
  }
}
