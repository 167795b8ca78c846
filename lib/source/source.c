/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Jet sources (include/lth/source.h): the interface and the exact kinds —
 * constants, callbacks and expression matrices (scaled and transposed views:
 * source_scaled.c). */
#include "lth/source.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "source_rebind.h"

struct lth_source {
  const lth_source_type *type;
  void *state;
  int rows, cols;
  lth_source_rebind_fn rebind; /* composites (lib/source/source_rebind.h); NULL: a leaf */
};

lth_source *lth_source_new(const lth_source_type *type, void *state, int rows, int cols,
                           lth_error *err) {
  lth_source *src = NULL;
  if (!type || !type->fill || rows < 0 || cols < 0) {
    lth_error_set(err, LTH_EINVAL, "invalid source type or size %d x %d", rows, cols);
  } else if (!(src = malloc(sizeof *src))) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a source");
  }
  if (!src) {
    if (type && type->destroy && state) {
      type->destroy(state);
    }
    return NULL;
  }
  src->type = type;
  src->state = state;
  src->rows = rows;
  src->cols = cols;
  src->rebind = NULL;
  return src;
}

void lth_source_set_rebind(lth_source *src, lth_source_rebind_fn fn) {
  if (src) {
    src->rebind = fn;
  }
}

lth_status lth_source_rebind(const lth_source *src, lth_leaf_map map, void *ctx,
                             const lth_source **use, lth_source **own, lth_error *err) {
  *own = NULL;
  *use = NULL;
  const lth_source *repl = NULL;
  lth_status st =
      src->rebind ? src->rebind(src->state, map, ctx, own, err) : map(ctx, src, &repl, err);
  if (st != LTH_OK) {
    lth_source_free(*own);
    *own = NULL;
    return st;
  }
  *use = *own ? *own : repl ? repl : src;
  return LTH_OK;
}

void lth_source_free(lth_source *src) {
  if (!src) {
    return;
  }
  if (src->type->destroy) {
    src->type->destroy(src->state);
  }
  free(src);
}

int lth_source_rows(const lth_source *src) { return src->rows; }
int lth_source_cols(const lth_source *src) { return src->cols; }
const lth_source_type *lth_source_get_type(const lth_source *src) { return src->type; }
const void *lth_source_state(const lth_source *src) { return src->state; }
int lth_source_is_exact(const lth_source *src) { return src->type->exact; }

void lth_source_domain(const lth_source *src, double *lo, double *hi) {
  *lo = -INFINITY;
  *hi = INFINITY;
  if (src->type->domain) {
    src->type->domain(src->state, lo, hi);
  }
}

size_t lth_source_work_size(const lth_source *src, int order) {
  return src->type->work_size ? src->type->work_size(src->state, order) : 0;
}

lth_status lth_source_fill(const lth_source *src, double t, int order, lth_jet *out, double *work,
                           lth_error *err) {
  if (out->rows != src->rows || out->cols != src->cols || order > out->maxorder || order < 0) {
    return lth_error_set(err, LTH_EDIM, "source of size %d x %d filled into %d x %d (order %d)",
                         src->rows, src->cols, out->rows, out->cols, order);
  }
  double lo, hi;
  lth_source_domain(src, &lo, &hi);
  if (!(t >= lo && t <= hi)) {
    return lth_error_set_t(err, LTH_ERANGE, t, "%s data defined on [%g, %g] only", src->type->name,
                           lo, hi);
  }
  lth_status st = src->type->fill(src->state, t, order, out, work, err);
  if (st != LTH_OK) {
    return st;
  }
  out->order = order;
  for (int k = 0; k <= order; k++) {
    for (int j = 0; j < out->cols; j++) {
      for (int i = 0; i < out->rows; i++) {
        if (!isfinite(LTH_JET_AT(out, k, i, j))) {
          return lth_error_set_t(err, LTH_ENOTFINITE, t,
                                 "%s entry (%d,%d) has a non-finite Taylor coefficient of order %d",
                                 src->type->name, i + 1, j + 1, k);
        }
      }
    }
  }
  return LTH_OK;
}

/* ---- constants ---- */

typedef struct {
  int rows, cols;
  double a[]; /* column-major, ld = rows */
} const_state;

static lth_status const_fill(const void *state, double t, int order, lth_jet *out, double *work,
                             lth_error *err) {
  (void)t;
  (void)work;
  (void)err;
  const const_state *cs = state;
  lth_jet_set_zero(out, order);
  for (int j = 0; j < cs->cols; j++) {
    memcpy(LTH_JET_COEF(out, 0) + (size_t)j * out->ld, cs->a + (size_t)j * cs->rows,
           (size_t)cs->rows * sizeof(double));
  }
  return LTH_OK;
}

/* A constant's coefficients are exact points: the value, then zeros. */
static lth_status const_enclose(const void *state, double a, double b, int order,
                                lth_interval *coef, lth_interval *work, lth_error *err) {
  (void)a;
  (void)b;
  (void)work;
  (void)err;
  const const_state *cs = state;
  size_t sz = (size_t)cs->rows * (size_t)cs->cols;
  for (size_t k = 0; k < sz * (size_t)(order + 1); k++) {
    coef[k] = (lth_interval){k < sz ? cs->a[k] : 0.0, k < sz ? cs->a[k] : 0.0};
  }
  return LTH_OK;
}

static const lth_source_type const_type = {
    .name = "constant", .fill = const_fill, .destroy = free, .exact = 1, .enclose = const_enclose};

static const_state *const_state_alloc(int rows, int cols, lth_error *err) {
  if (rows < 0 || cols < 0) {
    lth_error_set(err, LTH_EINVAL, "invalid constant size %d x %d", rows, cols);
    return NULL;
  }
  const_state *cs = calloc(1, sizeof *cs + (size_t)rows * (size_t)cols * sizeof(double));
  if (!cs) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a constant source");
    return NULL;
  }
  cs->rows = rows;
  cs->cols = cols;
  return cs;
}

lth_source *lth_source_const(int rows, int cols, const double *a, int lda, lth_error *err) {
  const_state *cs = const_state_alloc(rows, cols, err);
  if (!cs) {
    return NULL;
  }
  for (int j = 0; j < cols; j++) {
    for (int i = 0; i < rows; i++) {
      cs->a[i + (size_t)j * rows] = a[i + (size_t)j * lda];
    }
  }
  return lth_source_new(&const_type, cs, rows, cols, err);
}

/* ---- callbacks ---- */

typedef struct {
  lth_source_callback_fn fn;
  void *ctx;
} callback_state;

static lth_status callback_fill(const void *state, double t, int order, lth_jet *out, double *work,
                                lth_error *err) {
  (void)work;
  const callback_state *cb = state;
  lth_jet_set_zero(out, order);
  int rc = cb->fn(cb->ctx, t, order, out->c, out->ld, out->stride);
  if (rc != 0) {
    return lth_error_set_t(err, LTH_ECALLBACK, t, "user callback returned %d", rc);
  }
  return LTH_OK;
}

static const lth_source_type callback_type = {
    .name = "callback", .fill = callback_fill, .destroy = free, .exact = 1};

lth_source *lth_source_callback(int rows, int cols, lth_source_callback_fn fn, void *ctx,
                                lth_error *err) {
  if (!fn) {
    lth_error_set(err, LTH_EINVAL, "callback source without a function");
    return NULL;
  }
  callback_state *cb = malloc(sizeof *cb);
  if (!cb) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a callback source");
    return NULL;
  }
  cb->fn = fn;
  cb->ctx = ctx;
  return lth_source_new(&callback_type, cb, rows, cols, err);
}

/* ---- expression matrices ---- */

typedef struct {
  int rows, cols;
  lth_expr **e;   /* column-major; NULL entries are zero */
  lth_expr *prog; /* the entries as one program, common subexpressions shared */
  int *root;      /* entry k's value: node root[k] of prog (-1: zero) */
  int any;        /* some entry is not zero */
} expr_state;

static void expr_destroy(void *state) {
  expr_state *es = state;
  if (!es) {
    return;
  }
  size_t n = (size_t)es->rows * (size_t)es->cols;
  for (size_t k = 0; es->e && k < n; k++) {
    lth_expr_free(es->e[k]);
  }
  lth_expr_free(es->prog);
  free(es->root);
  free(es->e);
  free(es);
}

static size_t expr_work_size(const void *state, int order) {
  const expr_state *es = state;
  return lth_expr_work_size(es->prog, order);
}

/* One sweep over the merged program (lth_expr_merge: each shared piece once,
 * the results bitwise those of the entries alone), then scattered. */
static lth_status expr_fill(const void *state, double t, int order, lth_jet *out, double *work,
                            lth_error *err) {
  const expr_state *es = state;
  lth_jet_set_zero(out, order);
  if (!es->any) {
    return LTH_OK;
  }
  lth_status st = lth_expr_taylor_all(es->prog, t, order, work, err);
  if (st != LTH_OK) {
    return st;
  }
  for (int j = 0; j < es->cols; j++) {
    for (int i = 0; i < es->rows; i++) {
      int node = es->root[i + (size_t)j * es->rows];
      if (node < 0) {
        continue;
      }
      const double *y = lth_expr_series(es->prog, work, node, order);
      for (int k = 0; k <= order; k++) {
        LTH_JET_AT(out, k, i, j) = y[k];
      }
    }
  }
  return LTH_OK;
}

static size_t expr_enclose_work(const void *state, int order) {
  const expr_state *es = state;
  return lth_expr_enclose_work_size(es->prog, order);
}

static lth_status expr_enclose(const void *state, double a, double b, int order, lth_interval *coef,
                               lth_interval *work, lth_error *err) {
  const expr_state *es = state;
  size_t sz = (size_t)es->rows * (size_t)es->cols;
  if (!(a <= b)) {
    return lth_error_set(err, LTH_EINVAL, "an enclosure on [%g, %g]: a > b", a, b);
  }
  if (es->any) {
    lth_expr_enclose_all(es->prog, a, b, order, work);
  }
  for (size_t k = 0; k < sz; k++) {
    const lth_interval *y =
        es->root[k] >= 0 ? lth_expr_iseries(es->prog, work, es->root[k], order) : NULL;
    for (int m = 0; m <= order; m++) {
      coef[m * sz + k] = y ? y[m] : (lth_interval){0.0, 0.0};
    }
  }
  return LTH_OK;
}

static size_t expr_ellipse_work(const void *state) {
  const expr_state *es = state;
  return lth_expr_ellipse_work_size(es->prog, (size_t)es->rows * (size_t)es->cols);
}

static int expr_ellipse(const void *state, double a, double b, double rho, const double *target,
                        double *M, double *over, lth_interval *work) {
  const expr_state *es = state;
  size_t sz = (size_t)es->rows * (size_t)es->cols;
  if (!es->any) {
    for (size_t k = 0; k < sz; k++) M[k] = 0.0;
    if (over) *over = INFINITY; /* (the cover did not stop: no hint) */
    return LTH_ELLIPSE_BOUNDED;
  }
  return lth_expr_ellipse_bound(es->prog, a, b, rho, es->root, sz, target, M, over, work);
}

static int expr_ellipse_first(const void *state) {
  const expr_state *es = state;
  return es->any && lth_expr_has_poles(es->prog);
}

static const lth_source_type expr_type = {.name = "expression",
                                          .ellipse_first = expr_ellipse_first,
                                          .ellipse = expr_ellipse,
                                          .ellipse_work_size = expr_ellipse_work,
                                          .fill = expr_fill,
                                          .work_size = expr_work_size,
                                          .destroy = expr_destroy,
                                          .exact = 1,
                                          .enclose = expr_enclose,
                                          .enclose_work_size = expr_enclose_work};

lth_source *lth_source_expr(int rows, int cols, lth_expr **entries, lth_error *err) {
  size_t n = (size_t)(rows > 0 ? rows : 0) * (size_t)(cols > 0 ? cols : 0);
  expr_state *es = calloc(1, sizeof *es);
  if (es) {
    es->rows = rows;
    es->cols = cols;
    es->e = calloc(n ? n : 1, sizeof *es->e);
  }
  if (!es || !es->e) {
    for (size_t k = 0; k < n; k++) {
      lth_expr_free(entries[k]);
    }
    expr_destroy(es);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an expression source");
    return NULL;
  }
  memcpy(es->e, entries, n * sizeof *es->e);
  es->root = malloc((n ? n : 1) * sizeof *es->root);
  es->prog = es->root ? lth_expr_merge(es->e, n, es->root, err) : NULL;
  if (!es->prog) {
    expr_destroy(es);
    if (!err || err->status == LTH_OK) {
      lth_error_set(err, LTH_ENOMEM, "out of memory allocating an expression source");
    }
    return NULL;
  }
  for (size_t k = 0; k < n; k++) {
    es->any |= es->root[k] >= 0;
  }
  return lth_source_new(&expr_type, es, rows, cols, err);
}
