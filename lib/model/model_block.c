/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A block of a model's coefficients as a source (lth_model_block_source,
 * lth_model_output_block): it reads the model's coefficients in place (no
 * copies), as compressed columns on the block's own pattern, with exact jets
 * where every coefficient has them and enclosures where every one has
 * them. */
#include <stdlib.h>
#include <string.h>

#include "lth/jet.h"
#include "model_impl.h"
#include "source/source_rebind.h"
#include "core/errors.h"

/* ---- a block of the model's coefficients as a source ---- */

typedef struct mblock {
  int rows, cols, nnz;
  int *ii, *jj;
  const lth_mcoef **c;
  /* a copy made by mblock_rebind: coefficients whose source was replaced
   * (nnz, unused ones zero) and the replacements it owns (nnz, or NULL) */
  lth_mcoef *own;
  lth_source **own_src;
  /* the pattern (compressed sparse column, lth_source_csc_pattern): entry k
   * of the triplets sits at pos[k]; an entry given twice sits once (the
   * last coefficient wins, as in the dense fill) */
  int *colptr, *rowind, *pos, npat;
} mblock;

static void mblock_destroy(void *state) {
  mblock *b = state;
  if (b) {
    for (int k = 0; b->own_src && k < b->nnz; k++) {
      lth_source_free(b->own_src[k]);
    }
    free(b->own_src);
    free(b->own);
    free(b->ii);
    free(b->jj);
    free(b->c);
    free(b->colptr);
    free(b->rowind);
    free(b->pos);
    free(b);
  }
}

/* The pattern of the triplets (b->colptr, rowind, pos, npat) by a counting
 * sort on the columns, the rows kept in order within each column: O(nnz +
 * cols + rows). */
static lth_status mblock_pattern(mblock *b, lth_error *err) {
  size_t n = (size_t)b->nnz;
  int *cnt = calloc((size_t)b->cols + 1, sizeof *cnt), *byrow = malloc((n + 1) * sizeof *byrow);
  int *last = malloc(((size_t)b->rows + 1) * sizeof *last);
  b->colptr = calloc((size_t)b->cols + 1, sizeof *b->colptr);
  b->rowind = malloc((n + 1) * sizeof *b->rowind);
  b->pos = malloc((n + 1) * sizeof *b->pos);
  int *order = malloc((n + 1) * sizeof *order);
  lth_status st = LTH_OK;
  if (!cnt || !byrow || !last || !b->colptr || !b->rowind || !b->pos || !order) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory building the pattern of a block");
  }
  if (st == LTH_OK) {
    /* the triplets by row (a counting sort on ii), then by column (stable):
     * rows increase within each column */
    int *rc = calloc((size_t)b->rows + 1, sizeof *rc);
    if (!rc) {
      st = lth_error_set(err, LTH_ENOMEM, "out of memory building the pattern of a block");
    } else {
      for (size_t k = 0; k < n; k++) {
        rc[b->ii[k] + 1]++;
      }
      for (int i = 0; i < b->rows; i++) {
        rc[i + 1] += rc[i];
      }
      for (size_t k = 0; k < n; k++) {
        byrow[rc[b->ii[k]]++] = (int)k;
      }
      free(rc);
      for (size_t k = 0; k < n; k++) {
        cnt[b->jj[k] + 1]++;
      }
      for (int j = 0; j < b->cols; j++) {
        cnt[j + 1] += cnt[j];
      }
      for (size_t q = 0; q < n; q++) {
        int k = byrow[q];
        order[cnt[b->jj[k]]++] = k;
      }
      /* order: by column, then row; merge repeated (row, column) */
      for (int i = 0; i < b->rows; i++) {
        last[i] = -1;
      }
      int np = 0, col = 0;
      for (size_t q = 0; q < n; q++) {
        int k = order[q];
        while (col < b->jj[k]) {
          b->colptr[++col] = np;
        }
        int i = b->ii[k];
        if (last[i] >= 0 && last[i] >= b->colptr[col]) {
          b->pos[k] = last[i]; /* the same entry again */
          continue;
        }
        b->rowind[np] = i;
        last[i] = np;
        b->pos[k] = np++;
      }
      while (col < b->cols) {
        b->colptr[++col] = np;
      }
      b->npat = np;
    }
  }
  free(cnt);
  free(byrow);
  free(last);
  free(order);
  return st;
}

static int mblock_csc_pattern(const void *state, const int **colptr, const int **rowind) {
  const mblock *b = state;
  *colptr = b->colptr;
  *rowind = b->rowind;
  return b->npat;
}

/* The values on the pattern: entry k's coefficients at pos[k] (the same
 * order as mblock_fill, so a repeated entry keeps its last coefficient). */
static lth_status mblock_fill_csc(const void *state, double t, int order, double *values,
                                  size_t stride, double *work, lth_error *err) {
  const mblock *b = state;
  double *y = work, *w = work + order + 1;
  for (int m = 0; m <= order; m++) {
    memset(values + (size_t)m * stride, 0, (size_t)b->npat * sizeof *values);
  }
  for (int k = 0; k < b->nnz; k++) {
    lth_status st = lth_mcoef_taylor(b->c[k], t, order, y, w, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      values[(size_t)m * stride + (size_t)b->pos[k]] = y[m];
    }
  }
  return LTH_OK;
}

static size_t mblock_work(const void *state, int order) {
  const mblock *b = state;
  size_t mx = 0;
  for (int k = 0; k < b->nnz; k++) {
    size_t w = lth_mcoef_work_size(b->c[k], order);
    mx = w > mx ? w : mx;
  }
  return mx + (size_t)order + 1;
}

static void mblock_domain(const void *state, double *lo, double *hi) {
  const mblock *b = state;
  for (int k = 0; k < b->nnz; k++) {
    if (b->c[k]->kind == MCOEF_SOURCE) {
      double a, e;
      lth_source_domain(b->c[k]->s, &a, &e);
      *lo = a > *lo ? a : *lo;
      *hi = e < *hi ? e : *hi;
    }
  }
}

static lth_status mblock_fill(const void *state, double t, int order, lth_jet *out, double *work,
                              lth_error *err) {
  const mblock *b = state;
  double *y = work, *w = work + order + 1;
  lth_jet_set_zero(out, order);
  for (int k = 0; k < b->nnz; k++) {
    lth_status st = lth_mcoef_taylor(b->c[k], t, order, y, w, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      LTH_JET_AT(out, m, b->ii[k], b->jj[k]) = y[m];
    }
  }
  return LTH_OK;
}

static size_t mblock_enclose_work(const void *state, int order) {
  const mblock *b = state;
  size_t mx = 0;
  for (int k = 0; k < b->nnz; k++) {
    size_t w = b->c[k]->kind == MCOEF_EXPR ? lth_expr_enclose_work_size(b->c[k]->e, order) : 0;
    mx = w > mx ? w : mx;
  }
  return mx + (size_t)order + 1;
}

/* The enclosed Taylor series y[0..order] of one coefficient on [a, e]. */
static lth_status coef_enclose(const lth_mcoef *c, double a, double e, int order, lth_interval *y,
                               lth_interval *w, lth_error *err) {
  if (c->kind == MCOEF_EXPR) {
    return lth_expr_enclose(c->e, a, e, order, y, w, err);
  }
  y[0] = (lth_interval){c->v, c->v};
  for (int m = 1; m <= order; m++) {
    y[m] = (lth_interval){0.0, 0.0};
  }
  return LTH_OK;
}

/* Only for blocks of constants and expressions (mblock_types[.][1]). */
static lth_status mblock_enclose(const void *state, double a, double e, int order,
                                 lth_interval *coef, lth_interval *work, lth_error *err) {
  const mblock *b = state;
  size_t sz = (size_t)b->rows * (size_t)b->cols;
  lth_interval *y = work, *w = work + order + 1;
  for (size_t k = 0; k < sz * (size_t)(order + 1); k++) {
    coef[k] = (lth_interval){0.0, 0.0};
  }
  for (int k = 0; k < b->nnz; k++) {
    lth_status st = coef_enclose(b->c[k], a, e, order, y, w, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      coef[m * sz + (size_t)b->ii[k] + (size_t)b->jj[k] * (size_t)b->rows] = y[m];
    }
  }
  return LTH_OK;
}

/* The same on the pattern: entry k at pos[k] (a repeated entry keeps its
 * last coefficient, as mblock_enclose). */
static lth_status mblock_enclose_csc(const void *state, double a, double e, int order,
                                     lth_interval *coef, size_t stride, lth_interval *work,
                                     lth_error *err) {
  const mblock *b = state;
  lth_interval *y = work, *w = work + order + 1;
  for (int m = 0; m <= order; m++) {
    for (int p = 0; p < b->npat; p++) {
      coef[(size_t)m * stride + (size_t)p] = (lth_interval){0.0, 0.0};
    }
  }
  for (int k = 0; k < b->nnz; k++) {
    lth_status st = coef_enclose(b->c[k], a, e, order, y, w, err);
    if (st != LTH_OK) {
      return st;
    }
    for (int m = 0; m <= order; m++) {
      coef[(size_t)m * stride + (size_t)b->pos[k]] = y[m];
    }
  }
  return LTH_OK;
}

/* [exact][enclosable]: sampled coefficients carry no enclosure. */
static const lth_source_type mblock_types[2][2] = {
    {{.name = "equations",
      .fill = mblock_fill,
      .work_size = mblock_work,
      .domain = mblock_domain,
      .destroy = mblock_destroy,
      .exact = 0,
      .csc_pattern = mblock_csc_pattern,
      .fill_csc = mblock_fill_csc},
     {.name = "equations",
      .fill = mblock_fill,
      .work_size = mblock_work,
      .domain = mblock_domain,
      .destroy = mblock_destroy,
      .exact = 0,
      .enclose = mblock_enclose,
      .enclose_work_size = mblock_enclose_work,
      .csc_pattern = mblock_csc_pattern,
      .fill_csc = mblock_fill_csc,
      .enclose_csc = mblock_enclose_csc}},
    {{.name = "equations",
      .fill = mblock_fill,
      .work_size = mblock_work,
      .domain = mblock_domain,
      .destroy = mblock_destroy,
      .exact = 1,
      .csc_pattern = mblock_csc_pattern,
      .fill_csc = mblock_fill_csc},
     {.name = "equations",
      .fill = mblock_fill,
      .work_size = mblock_work,
      .domain = mblock_domain,
      .destroy = mblock_destroy,
      .exact = 1,
      .enclose = mblock_enclose,
      .enclose_work_size = mblock_enclose_work,
      .csc_pattern = mblock_csc_pattern,
      .fill_csc = mblock_fill_csc,
      .enclose_csc = mblock_enclose_csc}},
};

static lth_status mblock_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                lth_error *err);

static lth_source *mblock_new(mblock *b, int exact, int enclosable, lth_error *err) {
  if (mblock_pattern(b, err) != LTH_OK) {
    mblock_destroy(b);
    return NULL;
  }
  lth_source *src = lth_source_new(&mblock_types[exact][enclosable], b, b->rows, b->cols, err);
  lth_source_set_rebind(src, mblock_rebind);
  return src;
}

/* A copy of the block whose source coefficients read their leaves'
 * replacements (lib/source/source_rebind.h); the model's coefficients are shared. */
static lth_status mblock_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                lth_error *err) {
  const mblock *b = state;
  size_t n = (size_t)b->nnz;
  mblock *cp = calloc(1, sizeof *cp);
  if (cp) {
    cp->ii = malloc(n * sizeof *cp->ii);
    cp->jj = malloc(n * sizeof *cp->jj);
    cp->c = malloc(n * sizeof *cp->c);
    cp->own = calloc(n, sizeof *cp->own);
    cp->own_src = calloc(n, sizeof *cp->own_src);
  }
  if (!cp || !cp->ii || !cp->jj || !cp->c || !cp->own || !cp->own_src) {
    mblock_destroy(cp);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  *cp = (mblock){.rows = b->rows,
                 .cols = b->cols,
                 .nnz = b->nnz,
                 .ii = cp->ii,
                 .jj = cp->jj,
                 .c = cp->c,
                 .own = cp->own,
                 .own_src = cp->own_src};
  int changed = 0, exact = 1;
  lth_status st = LTH_OK;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    cp->ii[k] = b->ii[k];
    cp->jj[k] = b->jj[k];
    cp->c[k] = b->c[k];
    if (b->c[k]->kind != MCOEF_SOURCE) {
      continue;
    }
    const lth_source *use;
    st = lth_source_rebind(b->c[k]->s, map, ctx, &use, &cp->own_src[k], err);
    if (st == LTH_OK && use != b->c[k]->s) {
      cp->own[k] = *b->c[k];
      cp->own[k].s = (lth_source *)use; /* read only: the copy owns own_src[k] */
      cp->c[k] = &cp->own[k];
      changed = 1;
    }
    exact = exact && (st != LTH_OK || lth_source_is_exact(cp->c[k]->s));
  }
  if (st != LTH_OK || !changed) {
    mblock_destroy(cp);
    return st;
  }
  *out = mblock_new(cp, exact, 0, err); /* (a rebound block reads sources: no enclosure) */
  return *out ? LTH_OK : LTH_ENOMEM;
}

/* (model_impl.h) Only the rows' entries are visited (m->estart, m->eidx). */
lth_status lth_model_block_source(const lth_model *m, int part, int r0, int nr, int c0, int nc,
                                  lth_source **out, lth_error *err) {
  mblock *b = calloc(1, sizeof *b);
  int cap = 0, exact = 1, enclosable = 1;
  *out = NULL;
  for (int pass = 0; pass < 2 && b; pass++) {
    for (int k = 0; k < nr; k++) {
      int q = m->eqperm[r0 + k];
      for (int j = m->estart[q]; j < m->estart[q + 1]; j++) {
        const lth_mentry *e = &m->ent[m->eidx[j]];
        int col = part == LTH_MODEL_F   ? 0
                  : part == LTH_MODEL_B ? e->var - c0
                  : e->var >= 0         ? m->iperm[e->var] - c0
                                        : -1;
        if (!e->nz || e->part != part || col < 0 || col >= (part == LTH_MODEL_F ? 1 : nc)) {
          continue;
        }
        if (pass == 0) {
          cap++;
          continue;
        }
        b->ii[b->nnz] = k;
        b->jj[b->nnz] = col;
        b->c[b->nnz++] = &e->c;
        exact = exact && (e->c.kind != MCOEF_SOURCE || lth_source_is_exact(e->c.s));
        enclosable = enclosable && e->c.kind != MCOEF_SOURCE;
      }
    }
    if (pass == 0) {
      b->ii = malloc(((size_t)cap + 1) * sizeof *b->ii);
      b->jj = malloc(((size_t)cap + 1) * sizeof *b->jj);
      b->c = malloc(((size_t)cap + 1) * sizeof *b->c);
      if (!b->ii || !b->jj || !b->c) {
        break;
      }
    }
  }
  if (!b || !b->ii || !b->jj || !b->c) {
    mblock_destroy(b);
    return lth_error_set(err, LTH_ENOMEM, "out of memory building the system");
  }
  b->rows = nr;
  b->cols = part == LTH_MODEL_F ? 1 : nc;
  if (b->nnz == 0) {
    mblock_destroy(b);
    return LTH_OK;
  }
  *out = mblock_new(b, exact, enclosable, err);
  return *out ? LTH_OK : LTH_ENOMEM;
}

/* (model_impl.h) The outputs' coefficients: row = output. */
lth_status lth_model_output_block(const lth_model *m, int part, int c0, int nc, lth_source **out,
                                  lth_error *err) {
  mblock *b = calloc(1, sizeof *b);
  size_t n = m->noent + 1;
  int exact = 1, enclosable = 1;
  *out = NULL;
  if (b) {
    b->ii = malloc(n * sizeof *b->ii);
    b->jj = malloc(n * sizeof *b->jj);
    b->c = malloc(n * sizeof *b->c);
  }
  if (!b || !b->ii || !b->jj || !b->c) {
    mblock_destroy(b);
    return lth_error_set(err, LTH_ENOMEM, "out of memory building the outputs");
  }
  for (size_t k = 0; k < m->noent; k++) {
    const lth_mentry *e = &m->oent[k];
    if (!e->nz || e->part != part) {
      continue; /* (another part's var may be -1: the offset y0) */
    }
    int col = part == LTH_MODEL_Y0 ? 0 : part == LTH_MODEL_D ? e->var - c0 : m->iperm[e->var] - c0;
    if (col < 0 || col >= (part == LTH_MODEL_Y0 ? 1 : nc)) {
      continue;
    }
    b->ii[b->nnz] = e->eq;
    b->jj[b->nnz] = col;
    b->c[b->nnz++] = &e->c;
    exact = exact && (e->c.kind != MCOEF_SOURCE || lth_source_is_exact(e->c.s));
    enclosable = enclosable && e->c.kind != MCOEF_SOURCE;
  }
  b->rows = m->nout;
  b->cols = part == LTH_MODEL_Y0 ? 1 : nc;
  if (b->nnz == 0) {
    mblock_destroy(b);
    return LTH_OK;
  }
  *out = mblock_new(b, exact, enclosable, err);
  return *out ? LTH_OK : LTH_ENOMEM;
}
