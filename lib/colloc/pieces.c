/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pieces of [t0, t1] by what the data's enclosures show (pieces.h). */
#include "pieces.h"
#include "core/errors.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double lth_pieces_tiny(double t0, double t1) {
  double scale = fmax(fmax(fabs(t0), fabs(t1)), t1 - t0);
  return 64.0 * DBL_EPSILON * scale;
}

void lth_pieces_release(lth_pieces *pc) {
  if (!pc) return;
  free(pc->t);
  free(pc->kind);
  pc->t = NULL;
  pc->kind = NULL;
  pc->n = 0;
}

/* ---- the scan ---- */

typedef struct span {
  double a, b;
  int point; /* 1: a localized non-smooth point, emitted as it is */
} span;

typedef struct scan {
  lth_pieces *pc;
  size_t cap;
  span *stack;
  size_t ns, scap;
} scan;

static int reserve(scan *S) {
  lth_pieces *pc = S->pc;
  if (pc->n + 1 < S->cap) return 1;
  size_t cap = S->cap ? 2 * S->cap : 64;
  double *t = realloc(pc->t, (cap + 1) * sizeof *t);
  if (t) pc->t = t;
  unsigned char *k = realloc(pc->kind, cap);
  if (k) pc->kind = k;
  if (!t || !k) return 0;
  S->cap = cap;
  return 1;
}

/* The next piece, ending at b (pieces come left to right). */
static int emit(scan *S, double b, int kind, const char *what) {
  lth_pieces *pc = S->pc;
  if (!reserve(S)) return 0;
  pc->kind[pc->n] = (unsigned char)kind;
  pc->t[++pc->n] = b;
  if (kind != LTH_PIECE_SMOOTH && pc->first == (size_t)-1) {
    pc->first = pc->n - 1;
    snprintf(pc->what, sizeof pc->what, "%s", what ? what : "");
  }
  pc->npoint += kind == LTH_PIECE_POINT;
  pc->nnarrow += kind == LTH_PIECE_NARROW;
  return 1;
}

static int push(scan *S, double a, double b, int point) {
  if (!(a < b)) return 1;
  if (S->ns == S->scap) {
    size_t cap = S->scap ? 2 * S->scap : 64;
    span *s = realloc(S->stack, cap * sizeof *s);
    if (!s) return 0;
    S->stack = s;
    S->scap = cap;
  }
  S->stack[S->ns++] = (span){a, b, point};
  return 1;
}

/* [a, b] unbounded somewhere: bisect towards the unbounded half down to
 * `tiny` (lth_enclose_check follows the larger bound).  A point localized
 * there becomes a POINT piece, widened by its width on both sides so that
 * the point lies strictly inside (a kink exactly at a bisection point must
 * not be a piece end, where the data would be evaluated); if the
 * unboundedness went away on the halves (a wide interval's overestimate), the
 * pieces are examined again. */
static lth_status localize(scan *S, lth_enclose *enc, double a, double b, int degree, double tiny,
                           int *ok, lth_error *err) {
  lth_enclose_verdict v;
  lth_status st = lth_enclose_check(enc, a, b, degree, DBL_MAX, tiny, &v, err);
  if (st != LTH_OK) return st;
  double lo = v.t_feature - 0.5 * v.t_width, hi = v.t_feature + 0.5 * v.t_width;
  if (v.answer == LTH_ENCLOSE_UNRESOLVED && v.t_width <= tiny) {
    double w = fmax(hi - lo, 0.25 * tiny);
    lo = fmax(a, lo - w);
    hi = fmin(b, hi + w);
    *ok = push(S, hi, b, 0) && push(S, lo, hi, 1) && push(S, a, lo, 0);
  } else if (v.answer != LTH_ENCLOSE_UNRESOLVED || (lo <= a && hi >= b)) {
    double m = a + 0.5 * (b - a);
    *ok = push(S, m, b, 0) && push(S, a, m, 0);
  } else {
    *ok = push(S, hi, b, 0) && push(S, lo, hi, 0) && push(S, a, lo, 0);
  }
  return LTH_OK;
}

lth_status lth_pieces_find(lth_enclose *enc, double t0, double t1, int degree, double tol,
                           double wmin, size_t max_pieces, lth_pieces *out, lth_error *err) {
  memset(out, 0, sizeof *out);
  out->first = (size_t)-1;
  out->known = lth_enclose_known(enc);
  scan S = {out, 0, NULL, 0, 0};
  lth_status st = LTH_OK;
  int ok = reserve(&S);
  if (ok) out->t[0] = t0;
  if (ok && !out->known) {
    ok = emit(&S, t1, LTH_PIECE_SMOOTH, NULL);
  } else if (ok) {
    ok = push(&S, t0, t1, 0);
  }
  double tiny = lth_pieces_tiny(t0, t1);
  while (ok && st == LTH_OK && S.ns > 0) {
    span sp = S.stack[--S.ns];
    if (sp.point) {
      lth_enclose_verdict v;
      st = lth_enclose_check(enc, sp.a, sp.b, degree, DBL_MAX, sp.b - sp.a, &v, err);
      ok = emit(&S, sp.b, LTH_PIECE_POINT, v.what);
      continue;
    }
    lth_enclose_verdict v;
    st = lth_enclose_check(enc, sp.a, sp.b, degree, tol, sp.b - sp.a, &v, err);
    if (st != LTH_OK) break;
    if (v.answer != LTH_ENCLOSE_UNRESOLVED) {
      ok = emit(&S, sp.b, LTH_PIECE_SMOOTH, NULL);
    } else if (sp.b - sp.a <= tiny) {
      ok = emit(&S, sp.b, LTH_PIECE_POINT, v.what);
    } else if (isfinite(v.bound) && wmin > 0 && sp.b - sp.a <= wmin) {
      ok = emit(&S, sp.b, LTH_PIECE_NARROW, v.what);
    } else if (isfinite(v.bound)) {
      double m = sp.a + 0.5 * (sp.b - sp.a);
      ok = push(&S, m, sp.b, 0) && push(&S, sp.a, m, 0);
    } else {
      st = localize(&S, enc, sp.a, sp.b, degree, tiny, &ok, err);
    }
    if (ok && st == LTH_OK && out->n > max_pieces) {
      st = lth_error_set_t(err, LTH_ETOL, sp.b,
                           "the data are not resolved on fewer than %zu pieces of [%g, %g] "
                           "(%s varies faster than that at t)",
                           max_pieces, t0, t1, v.what[0] ? v.what : "the data");
    }
  }
  if (!ok && st == LTH_OK) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (out->first == (size_t)-1) out->first = out->n;
  if (out->n > 0) out->t[out->n] = t1; /* the last end exactly */
  free(S.stack);
  if (st != LTH_OK) lth_pieces_release(out);
  return st;
}

/* ---- users ---- */

lth_status lth_pieces_points(const lth_system *sys, double t0, double t1, int degree,
                             lth_pieces *out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  memset(out, 0, sizeof *out);
  lth_enclose *enc = lth_enclose_alloc(sys, degree, err);
  if (!enc) return lth_error_status(err);
  lth_status st = LTH_OK;
  if (lth_enclose_known(enc)) {
    st = lth_pieces_find(enc, t0, t1, degree, DBL_MAX, 0.0, 100000, out, err);
    if (st == LTH_OK && out->npoint == 0) lth_pieces_release(out);
  }
  lth_enclose_free(enc);
  return st;
}

int lth_pieces_at_point(const lth_pieces *pc, double a, double b) {
  if (pc->npoint == 0 || pc->n == 0 || !(a >= pc->t[0])) return 0;
  size_t lo = 0, hi = pc->n; /* pc->t[lo] <= a < pc->t[hi] */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (pc->t[mid] <= a) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return pc->kind[lo] == LTH_PIECE_POINT && b <= pc->t[lo + 1];
}

double *lth_pieces_merge(const lth_pieces *pc, const double *x, size_t n, size_t *nout) {
  double *y = malloc((n + pc->n + 2) * sizeof *y);
  if (!y) return NULL;
  size_t k = 0, j = 0; /* pc->t[j] is the next piece end to place */
  for (size_t i = 1; i + 1 < n; i++) {
    double xi = x[i];
    while (j <= pc->n && pc->t[j] <= xi) {
      if (k == 0 || pc->t[j] > y[k - 1]) y[k++] = pc->t[j];
      j++;
    }
    if (j == 0 || j > pc->n || xi == pc->t[j - 1]) continue;
    double lo = pc->t[j - 1], hi = pc->t[j], gap = 0.05 * fmin(xi - x[i - 1], x[i + 1] - xi);
    if (pc->kind[j - 1] == LTH_PIECE_POINT || xi - lo < gap || hi - xi < gap) continue;
    y[k++] = xi;
  }
  for (; j <= pc->n; j++) {
    if (k == 0 || pc->t[j] > y[k - 1]) y[k++] = pc->t[j];
  }
  *nout = k;
  return y;
}
