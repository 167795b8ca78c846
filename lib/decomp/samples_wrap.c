/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Views of sampled data for the sampled-data error estimates
 * (lib/decomp/samples_wrap.h): a data view delivers its data set, or its
 * alternative (next-degree) fits, plus an
 * optional perturbation of its Taylor coefficients; a block view reads the
 * block rebuilt over the data views (lib/source/source_rebind.h) and owns what was
 * made for it. */
#include "samples_wrap.h"

#include <stdlib.h>
#include <string.h>

#include "lth/sampling_error.h"
#include "lth/samples.h"
#include "source/source_rebind.h"
#include "core/errors.h"

static void swrap_destroy(void *state) {
  swrap *w = state;
  if (w) {
    for (int k = 0; k < w->nkept; k++) {
      lth_source_free(w->kept[k]);
    }
    free(w->kept);
    lth_source_free(w->own);
    free(w->delta);
    free(w);
  }
}

static size_t tmp_size(const swrap *w, int order) {
  return (size_t)w->rows * (size_t)w->cols * (size_t)(order + 1);
}

static size_t swrap_work_size(const void *state, int order) {
  const swrap *w = state;
  if (w->variant && w->samp) {
    return lth_samples_error_work_size(w->samp, order);
  }
  return lth_source_work_size(w->base, order);
}

static void swrap_domain(const void *state, double *lo, double *hi) {
  lth_source_domain(((const swrap *)state)->base, lo, hi);
}

/* The variant of the data: its alternative fits, the ones the error
 * estimate compares the chosen fits with (include/lth/sampling_error.h). */
static lth_status fill_variant(const swrap *w, double t, int order, lth_jet *out, double *work,
                               lth_error *err) {
  return lth_samples_fill_alternative(w->samp, t, order, out, work, err);
}

static lth_status swrap_fill(const void *state, double t, int order, lth_jet *out, double *work,
                             lth_error *err) {
  const swrap *w = state;
  lth_status st = w->variant && w->samp ? fill_variant(w, t, order, out, work, err)
                                        : lth_source_fill(w->base, t, order, out, work, err);
  if (st != LTH_OK) {
    return st;
  }
  out->order = order;
  size_t sz = (size_t)w->rows * (size_t)w->cols;
  for (int m = 0; w->active && m <= order && m <= w->dorder; m++) {
    for (int j = 0; j < w->cols; j++) {
      for (int i = 0; i < w->rows; i++) {
        LTH_JET_AT(out, m, i, j) += w->delta[(size_t)m * sz + (size_t)i + (size_t)j * w->rows];
      }
    }
  }
  return LTH_OK;
}

static const lth_source_type swrap_types[2] = {
    {.name = "view",
     .fill = swrap_fill,
     .work_size = swrap_work_size,
     .domain = swrap_domain,
     .destroy = swrap_destroy,
     .exact = 1},
    {.name = "view",
     .fill = swrap_fill,
     .work_size = swrap_work_size,
     .domain = swrap_domain,
     .destroy = swrap_destroy,
     .exact = 0},
};

/* A view of base (see swrap); its state in *out. */
static lth_source *swrap_new(const lth_source *base, swrap **out, lth_error *err) {
  swrap *w = calloc(1, sizeof *w);
  if (!w) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  w->base = base;
  w->rows = lth_source_rows(base);
  w->cols = lth_source_cols(base);
  w->dorder = -1;
  *out = w;
  return lth_source_new(&swrap_types[lth_source_is_exact(base) ? 0 : 1], w, w->rows, w->cols, err);
}

static lth_status block_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                               lth_error *err);

/* A block's view of what it reads (owning own), seen through by
 * lth_source_rebind. */
static lth_source *block_new(const lth_source *use, lth_source *own, swrap **out, lth_error *err) {
  swrap *w = NULL;
  lth_source *v = swrap_new(use, &w, err);
  if (!v) {
    lth_source_free(own);
    return NULL;
  }
  w->own = own;
  lth_source_set_rebind(v, block_rebind);
  *out = w;
  return v;
}

static lth_status block_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                               lth_error *err) {
  const swrap *w = state;
  const lth_source *use;
  lth_source *own;
  lth_status st = lth_source_rebind(w->base, map, ctx, &use, &own, err);
  if (st != LTH_OK || use == w->base) {
    return st;
  }
  swrap *nw;
  *out = block_new(use, own, &nw, err);
  return *out ? LTH_OK : LTH_ENOMEM;
}

/* ---- rebuilding the blocks over data views ---- */

typedef struct wctx {
  int variant, delta_order;
  int bi, bj;              /* the block being rebuilt */
  lth_source **views;      /* the data views made so far (owned until handed to a block) */
  swrap **states;          /* their states */
  const lth_source **sets; /* the data sets they view */
  int n, cap, handed;      /* views[0..handed) belong to blocks */
  int count_only;          /* swrap_data_sets: record the data sets, make nothing */
} wctx;

static lth_status grow(wctx *c, lth_error *err) {
  if (c->n < c->cap) {
    return LTH_OK;
  }
  int cap = c->cap ? 2 * c->cap : 8;
  lth_source **v = realloc(c->views, (size_t)cap * sizeof *v);
  c->views = v ? v : c->views;
  swrap **s = v ? realloc(c->states, (size_t)cap * sizeof *s) : NULL;
  c->states = s ? s : c->states;
  const lth_source **d = s ? realloc(c->sets, (size_t)cap * sizeof *d) : NULL;
  c->sets = d ? d : c->sets;
  if (!d) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  c->cap = cap;
  return LTH_OK;
}

/* The sampled data a leaf delivers: itself, or (when only counting) the
 * data behind a data view, so that a variant system shows its data sets
 * too; NULL for other sources. */
static const lth_source *data_of(const wctx *c, const lth_source *leaf) {
  if (lth_source_is_samples(leaf)) {
    return leaf;
  }
  const lth_source_type *ty = lth_source_get_type(leaf);
  if (c->count_only && (ty == &swrap_types[0] || ty == &swrap_types[1])) {
    return ((const swrap *)lth_source_state(leaf))->samp;
  }
  return NULL;
}

/* lth_leaf_map: sampled data read their view (one per data set). */
static lth_status data_view(void *ctx, const lth_source *leaf, const lth_source **use,
                            lth_error *err) {
  LTH_ERROR_RECORD(err);
  wctx *c = ctx;
  *use = NULL;
  leaf = data_of(c, leaf);
  if (!leaf) {
    return LTH_OK;
  }
  for (int k = 0; k < c->n; k++) {
    if (c->sets[k] == leaf) {
      *use = c->views[k];
      return LTH_OK;
    }
  }
  lth_status st = grow(c, err);
  if (st != LTH_OK) {
    return st;
  }
  swrap *w = NULL;
  lth_source *v = c->count_only ? NULL : swrap_new(leaf, &w, err);
  if (!c->count_only && !v) {
    return lth_error_status(err);
  }
  if (w) {
    w->samp = leaf;
    w->bi = c->bi;
    w->bj = c->bj;
    w->variant = c->variant == -1 || c->variant == c->n;
    if (c->delta_order >= 0) {
      w->dorder = c->delta_order;
      w->delta = calloc(tmp_size(w, c->delta_order), sizeof *w->delta);
      if (!w->delta) {
        lth_source_free(v);
        return lth_error_set(err, LTH_ENOMEM, "out of memory");
      }
    }
  }
  c->views[c->n] = v;
  c->states[c->n] = w;
  c->sets[c->n++] = leaf;
  *use = v;
  return LTH_OK;
}

/* The view of block (i, j) (j = 0: f(i)) over the data views; it owns the
 * rebuilt block and the data views made for it. */
static lth_status block_view(lth_system *dst, const lth_source *base, int i, int j, wctx *c,
                             lth_error *err) {
  LTH_ERROR_RECORD(err);
  const lth_source *use;
  lth_source *own;
  c->bi = i;
  c->bj = j;
  lth_status st = lth_source_rebind(base, data_view, c, &use, &own, err);
  if (st != LTH_OK || c->count_only) {
    return st;
  }
  swrap *w = NULL;
  lth_source *v = block_new(use, own, &w, err);
  if (!v) {
    return lth_error_status(err);
  }
  w->nkept = c->n - c->handed;
  w->kept = w->nkept ? malloc((size_t)w->nkept * sizeof *w->kept) : NULL;
  if (w->nkept && !w->kept) {
    w->nkept = 0;
    lth_source_free(v);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int k = 0; k < w->nkept; k++) {
    w->kept[k] = c->views[c->handed + k];
  }
  c->handed = c->n;
  return j > 0 ? lth_system_set_A(dst, i, j, v, err) : lth_system_set_f(dst, i, v, err);
}

static void wctx_release(wctx *c) {
  for (int k = c->handed; k < c->n; k++) {
    lth_source_free(c->views[k]);
  }
  free(c->views);
  free(c->sets);
}

/* Every block of sys through block_view (into dst unless c->count_only). */
static lth_status each_block(const lth_system *sys, lth_system *dst, wctx *c, lth_error *err) {
  int r = lth_system_index(sys);
  lth_status st = LTH_OK;
  for (int i = 1; i <= r && st == LTH_OK; i++) {
    for (int j = 1; j <= r && st == LTH_OK; j++) {
      const lth_source *a = lth_system_A(sys, i, j);
      st = a ? block_view(dst, a, i, j, c, err) : LTH_OK;
    }
    const lth_source *f = lth_system_forcing(sys, i);
    st = st == LTH_OK && f ? block_view(dst, f, i, 0, c, err) : st;
  }
  return st;
}

lth_system *swrap_system(const lth_system *sys, int variant, int delta_order, swrap ***list,
                         int *nlist, lth_error *err) {
  int r = lth_system_index(sys), *n = malloc((size_t)r * sizeof *n);
  for (int i = 1; n && i <= r; i++) {
    n[i - 1] = lth_system_block_size(sys, i);
  }
  lth_system *dst = n ? lth_system_alloc(r, n, err) : NULL;
  free(n);
  wctx c = {.variant = variant, .delta_order = delta_order};
  lth_status st = dst ? each_block(sys, dst, &c, err) : LTH_ENOMEM;
  if (st == LTH_OK && list) {
    *list = c.states ? c.states : calloc(1, sizeof **list);
    c.states = *list ? NULL : c.states;
    st = *list ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (nlist) {
    *nlist = c.n;
  }
  free(c.states);
  wctx_release(&c);
  if (st != LTH_OK) {
    lth_system_free(dst);
    return NULL;
  }
  return dst;
}

int swrap_data_sets(const lth_system *sys, const lth_source **out, int cap) {
  wctx c = {.variant = -2, .delta_order = -1, .count_only = 1};
  lth_error e;
  lth_error_clear(&e);
  each_block(sys, NULL, &c, &e);
  for (int k = 0; k < c.n && k < cap; k++) {
    out[k] = c.sets[k];
  }
  int n = c.n;
  free(c.states);
  wctx_release(&c);
  return n;
}

lth_system *lth_system_sampling_variant(const lth_system *sys, int which, lth_error *err) {
  int n = lth_system_sampled_blocks(sys);
  if (which < -1 || which >= n) {
    lth_error_set(err, LTH_EINVAL, "sampled data set %d of %d (-1: all)", which, n);
    return NULL;
  }
  return swrap_system(sys, which, -1, NULL, NULL, err);
}

int lth_system_sampled_blocks(const lth_system *sys) { return swrap_data_sets(sys, NULL, 0); }

lth_source *lth_source_sampling_variant(const lth_source *src, lth_error *err) {
  if (!src) {
    lth_error_set(err, LTH_EINVAL, "no source");
    return NULL;
  }
  wctx c = {.variant = -1, .delta_order = -1};
  const lth_source *use;
  lth_source *own;
  lth_status st = lth_source_rebind(src, data_view, &c, &use, &own, err);
  swrap *w = NULL;
  lth_source *v = st == LTH_OK ? block_new(use, own, &w, err) : NULL;
  if (v) {
    w->kept = c.views; /* every view (c.n of them) */
    w->nkept = c.n;
    c.views = NULL;
    c.n = 0;
  }
  free(c.states);
  wctx_release(&c);
  return v;
}
