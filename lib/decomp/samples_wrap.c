/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Views of a system's blocks for the sampled-data error estimates
 * (lib/decomp/samples_wrap.h): a source that delivers its base block, or for
 * sampled data the alternative (next-degree) fits, plus an optional
 * perturbation of its Taylor coefficients. */
#include "samples_wrap.h"

#include <stdlib.h>
#include <string.h>

#include "lth/decomp_error.h"
#include "lth/samples.h"

static void swrap_destroy(void *state) {
  swrap *w = state;
  if (w) {
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
    return tmp_size(w, order) + lth_samples_error_work_size(w->samp, order);
  }
  return lth_source_work_size(w->base, order);
}

static void swrap_domain(const void *state, double *lo, double *hi) {
  lth_source_domain(((const swrap *)state)->base, lo, hi);
}

/* The alternative fits of the sampled data, seen through alpha and transpose. */
static lth_status fill_variant(const swrap *w, double t, int order, lth_jet *out, double *work,
                               lth_error *err) {
  int sr = lth_source_rows(w->samp), sc = lth_source_cols(w->samp);
  size_t sz = (size_t)sr * (size_t)sc;
  lth_jet tmp = lth_jet_wrap(work, sr, sc, sr, sz, order);
  tmp.maxorder = order;
  lth_status st = lth_samples_fill_alternative(w->samp, t, order, &tmp, work + tmp_size(w, order),
                                               err);
  for (int m = 0; st == LTH_OK && m <= order; m++) {
    for (int j = 0; j < w->cols; j++) {
      for (int i = 0; i < w->rows; i++) {
        double x = w->transpose ? LTH_JET_AT(&tmp, m, j, i) : LTH_JET_AT(&tmp, m, i, j);
        LTH_JET_AT(out, m, i, j) = w->alpha * x;
      }
    }
  }
  return st;
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
    {"view", swrap_fill, swrap_work_size, swrap_domain, swrap_destroy, 1, NULL, NULL, NULL},
    {"view", swrap_fill, swrap_work_size, swrap_domain, swrap_destroy, 0, NULL, NULL, NULL},
};

static lth_source *swrap_new(const lth_source *base, int variant, int delta_order, swrap **out,
                             lth_error *err) {
  swrap *w = calloc(1, sizeof *w);
  if (!w) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  w->base = base;
  w->rows = lth_source_rows(base);
  w->cols = lth_source_cols(base);
  w->alpha = 1.0;
  w->variant = variant;
  w->dorder = -1;
  if (lth_source_is_samples(base)) {
    w->samp = base;
  } else {
    const lth_source *b = lth_source_scaled_base(base, &w->alpha, &w->transpose);
    w->samp = lth_source_is_samples(b) ? b : NULL;
    w->alpha = w->samp ? w->alpha : 1.0;
    w->transpose = w->samp ? w->transpose : 0;
  }
  if (w->samp && delta_order >= 0) {
    w->dorder = delta_order;
    w->delta = calloc((size_t)w->rows * (size_t)w->cols * (size_t)(delta_order + 1),
                      sizeof *w->delta);
    if (!w->delta) {
      free(w);
      lth_error_set(err, LTH_ENOMEM, "out of memory");
      return NULL;
    }
  }
  *out = w;
  return lth_source_new(&swrap_types[lth_source_is_exact(base) ? 0 : 1], w, w->rows, w->cols,
                        err);
}

static lth_status add_view(lth_system *dst, const lth_source *base, int i, int j, int variant,
                           int delta_order, swrap **list, int *nlist, lth_error *err) {
  swrap *w = NULL;
  lth_source *v = swrap_new(base, 0, delta_order, &w, err);
  if (!v) {
    return err ? err->status : LTH_ENOMEM;
  }
  w->bi = i;
  w->bj = j;
  if (w->samp) {
    w->variant = variant == -1 || variant == *nlist;
    if (list) {
      list[*nlist] = w;
    }
    (*nlist)++;
  }
  return j > 0 ? lth_system_set_A(dst, i, j, v, err) : lth_system_set_f(dst, i, v, err);
}

lth_system *swrap_system(const lth_system *sys, int variant, int delta_order, swrap ***list,
                         int *nlist, lth_error *err) {
  int r = lth_system_index(sys), *n = malloc((size_t)r * sizeof *n);
  for (int i = 1; n && i <= r; i++) {
    n[i - 1] = lth_system_block_size(sys, i);
  }
  lth_system *dst = n ? lth_system_alloc(r, n, err) : NULL;
  free(n);
  swrap **l = list ? calloc((size_t)r * (size_t)(r + 1) + 1, sizeof *l) : NULL;
  int cnt = 0; /* sampled blocks so far */
  lth_status st = dst && (!list || l) ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (int i = 1; i <= r && st == LTH_OK; i++) {
    for (int j = 1; j <= r && st == LTH_OK; j++) {
      const lth_source *a = lth_system_A(sys, i, j);
      st = a ? add_view(dst, a, i, j, variant, delta_order, l, &cnt, err) : LTH_OK;
    }
    const lth_source *f = lth_system_f(sys, i);
    st = st == LTH_OK && f ? add_view(dst, f, i, 0, variant, delta_order, l, &cnt, err) : st;
  }
  if (st != LTH_OK) {
    lth_system_free(dst);
    free(l);
    return NULL;
  }
  if (list) {
    *list = l;
  }
  if (nlist) {
    *nlist = cnt;
  }
  return dst;
}

lth_system *lth_system_sampling_variant(const lth_system *sys, int which, lth_error *err) {
  int n = lth_system_sampled_blocks(sys);
  if (which < -1 || which >= n) {
    lth_error_set(err, LTH_EINVAL, "sampled block %d of %d (-1: all)", which, n);
    return NULL;
  }
  return swrap_system(sys, which, -1, NULL, NULL, err);
}

int lth_system_sampled_blocks(const lth_system *sys) {
  int r = lth_system_index(sys), n = 0;
  for (int i = 1; i <= r; i++) {
    for (int j = 1; j <= r + 1; j++) {
      const lth_source *src = j <= r ? lth_system_A(sys, i, j) : lth_system_f(sys, i);
      double alpha;
      int tr;
      n += src && (lth_source_is_samples(src) ||
                   lth_source_is_samples(lth_source_scaled_base(src, &alpha, &tr)));
    }
  }
  return n;
}

lth_source *lth_source_sampling_variant(const lth_source *src, lth_error *err) {
  swrap *w = NULL;
  if (!src) {
    lth_error_set(err, LTH_EINVAL, "no source");
    return NULL;
  }
  return swrap_new(src, 1, -1, &w, err);
}
