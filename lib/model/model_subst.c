/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The index-1 unknowns substituted (model_impl.h, docs/equations.md section 10):
 * with the constraints 0 = K y + L z + f_K that fix y (model_index1.c),
 *     y = -K^{-1} (L z + f_K),
 * and an equation's block row B z + A_y y + f becomes
 *     (B - A_y K^{-1} L) z + (f - A_y K^{-1} f_K).
 * K^{-1} L and K^{-1} f_K are jet solves (lth_source_solve: one LU of K(t)
 * per point and the recurrence of docs/theory.md section 3), and the
 * product with A_y is a truncated Cauchy product, so every Taylor
 * coefficient of the substituted blocks is exact to rounding -- the
 * decomposition differentiates them up to r times (Clark's reduction needs
 * the derivatives of K^{-1} L, never differences of values).  The same
 * solves give the values of y for the outputs (lth_model_values). */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/jet.h"
#include "model_impl.h"
#include "source/source_rebind.h"

/* ---- B - A_y W as a source (W = K^{-1} X) ---- */

typedef struct subst_state {
  const lth_source *B, *Ay, *W; /* B may be NULL */
  lth_source *B_own, *Ay_own, *W_own;
  int rows, cols, ny;
  /* B, Ay and W all sparse (subst_sparse_new): the pattern of B - Ay W,
   * and the value counts of the three */
  int *colptr, *rowind, nnz, nb, na, nw;
} subst_state;

static void subst_destroy(void *state) {
  subst_state *ss = state;
  if (ss) {
    lth_source_free(ss->B_own);
    lth_source_free(ss->Ay_own);
    lth_source_free(ss->W_own);
    free(ss->colptr);
    free(ss->rowind);
    free(ss);
  }
}

static size_t subst_work(const void *state, int order) {
  const subst_state *ss = state;
  size_t sub = lth_source_work_size(ss->Ay, order), w = lth_source_work_size(ss->W, order);
  size_t b = ss->B ? lth_source_work_size(ss->B, order) : 0;
  sub = w > sub ? w : sub;
  sub = b > sub ? b : sub;
  return (size_t)(order + 1) * (size_t)ss->ny * (size_t)(ss->rows + ss->cols) + sub + 1;
}

static void subst_domain(const void *state, double *lo, double *hi) {
  const subst_state *ss = state;
  const lth_source *parts[3] = {ss->Ay, ss->W, ss->B};
  for (int k = 0; k < 3; k++) {
    double a, b;
    if (parts[k]) {
      lth_source_domain(parts[k], &a, &b);
      *lo = a > *lo ? a : *lo;
      *hi = b < *hi ? b : *hi;
    }
  }
}

static lth_status subst_fill(const void *state, double t, int order, lth_jet *out, double *work,
                             lth_error *err) {
  const subst_state *ss = state;
  size_t sa = (size_t)ss->rows * (size_t)ss->ny, sw = (size_t)ss->ny * (size_t)ss->cols;
  double *a = work, *w = a + sa * (size_t)(order + 1), *sub = w + sw * (size_t)(order + 1);
  lth_jet A = lth_jet_wrap(a, ss->rows, ss->ny, ss->rows, sa, order);
  lth_jet W = lth_jet_wrap(w, ss->ny, ss->cols, ss->ny, sw, order);
  lth_status st = LTH_OK;
  if (ss->B) {
    st = lth_source_fill(ss->B, t, order, out, sub, err);
  } else {
    lth_jet_set_zero(out, order);
  }
  if (st == LTH_OK) {
    st = lth_source_fill(ss->Ay, t, order, &A, sub, err);
  }
  if (st == LTH_OK && (st = lth_source_fill(ss->W, t, order, &W, sub, err)) != LTH_OK) {
    lth_model_k_message(err);
  }
  return st == LTH_OK ? lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, -1.0, &A, &W, 1.0, out, err) : st;
}

/* Resolved where its parts are (the solve's through K and X). */
static int subst_parts(const void *state, const lth_source **parts) {
  const subst_state *ss = state;
  int n = 0;
  parts[n++] = ss->Ay;
  parts[n++] = ss->W;
  if (ss->B) {
    parts[n++] = ss->B;
  }
  return n;
}

static const lth_source_type subst_types[2] = {
    {.name = "index-1 substitution",
     .fill = subst_fill,
     .work_size = subst_work,
     .domain = subst_domain,
     .destroy = subst_destroy,
     .exact = 0,
     .parts = subst_parts},
    {.name = "index-1 substitution",
     .fill = subst_fill,
     .work_size = subst_work,
     .domain = subst_domain,
     .destroy = subst_destroy,
     .exact = 1,
     .parts = subst_parts},
};

/* ---- B - A_y W on a pattern, when all three are sparse ----
 * A diagonal K (each index-1 unknown fixed by an equation of its own, as a
 * spring force f_i = k_i(t) (x_i - x_{i+1}) is) keeps W = K^{-1} X on X's
 * pattern (lth_source_solve); B - A_y W then has the pattern of B and of
 * the product, found once, and its values are the same truncated Cauchy
 * products on that pattern alone: O(nnz(B) + flops(A_y W)) per point
 * and order^2, nothing rows x cols. */

static int sub_pattern(const void *state, const int **colptr, const int **rowind) {
  const subst_state *ss = state;
  *colptr = ss->colptr;
  *rowind = ss->rowind;
  return ss->nnz;
}

/* The work array, in doubles: B's, Ay's and W's values (orders 0..order)
 * from 0, the row map (rows ints in rows doubles) from sub_map, the dense
 * fill's values from sub_vals, the sources' scratch from sub_scratch. */
static size_t sub_map(const subst_state *ss, int order) {
  return ((size_t)ss->nb + (size_t)ss->na + (size_t)ss->nw) * ((size_t)order + 1);
}
static size_t sub_vals(const subst_state *ss, int order) {
  return sub_map(ss, order) + (size_t)ss->rows;
}
static size_t sub_scratch(const subst_state *ss, int order) {
  return sub_vals(ss, order) + (size_t)ss->nnz * ((size_t)order + 1);
}

static size_t sub_work(const void *state, int order) {
  const subst_state *ss = state;
  size_t sub = lth_source_work_size(ss->Ay, order), w = lth_source_work_size(ss->W, order);
  size_t b = ss->B ? lth_source_work_size(ss->B, order) : 0;
  sub = w > sub ? w : sub;
  sub = b > sub ? b : sub;
  return sub_scratch(ss, order) + sub + 1;
}

/* values[q + m stride] += sign * sum_{l <= m} a[l sa] b[(m - l) sb]. */
static void cauchy_add(double *v, size_t stride, const double *a, size_t sa, const double *b,
                       size_t sb, int order, double sign) {
  for (int m = 0; m <= order; m++) {
    double acc = 0.0;
    for (int l = 0; l <= m; l++) {
      acc += a[(size_t)l * sa] * b[(size_t)(m - l) * sb];
    }
    v[(size_t)m * stride] += sign * acc;
  }
}

static lth_status sub_fill_csc(const void *state, double t, int order, double *values,
                               size_t stride, double *work, lth_error *err) {
  const subst_state *ss = state;
  size_t k1 = (size_t)order + 1;
  double *bv = work, *av = bv + (size_t)ss->nb * k1, *wv = av + (size_t)ss->na * k1;
  int *map = (int *)(void *)(work + sub_map(ss, order));
  double *sub = work + sub_scratch(ss, order);
  int bn, an, wn;
  const int *bcp = NULL, *bri = NULL, *acp, *ari, *wcp, *wri;
  lth_status st = LTH_OK;
  for (int m = 0; m <= order; m++) {
    memset(values + (size_t)m * stride, 0, (size_t)ss->nnz * sizeof *values);
  }
  if (ss->B) {
    lth_source_csc_pattern(ss->B, &bn, &bcp, &bri, NULL);
    st = lth_source_fill_csc(ss->B, t, order, bv, (size_t)ss->nb, sub, err);
  }
  lth_source_csc_pattern(ss->Ay, &an, &acp, &ari, NULL);
  lth_source_csc_pattern(ss->W, &wn, &wcp, &wri, NULL);
  if (st == LTH_OK) {
    st = lth_source_fill_csc(ss->Ay, t, order, av, (size_t)ss->na, sub, err);
  }
  if (st == LTH_OK &&
      (st = lth_source_fill_csc(ss->W, t, order, wv, (size_t)ss->nw, sub, err)) != LTH_OK) {
    lth_model_k_message(err);
  }
  for (int j = 0; j < ss->cols && st == LTH_OK; j++) {
    for (int q = ss->colptr[j]; q < ss->colptr[j + 1]; q++) {
      map[ss->rowind[q]] = q;
    }
    for (int p = bcp ? bcp[j] : 0; bcp && p < bcp[j + 1]; p++) {
      for (int m = 0; m <= order; m++) {
        values[(size_t)map[bri[p]] + (size_t)m * stride] += bv[(size_t)p + (size_t)m * ss->nb];
      }
    }
    for (int pw = wcp[j]; pw < wcp[j + 1]; pw++) {
      int k = wri[pw];
      for (int pa = acp[k]; pa < acp[k + 1]; pa++) {
        cauchy_add(values + map[ari[pa]], stride, av + pa, (size_t)ss->na, wv + pw, (size_t)ss->nw,
                   order, -1.0);
      }
    }
  }
  return st;
}

/* The dense view: the values on the pattern, scattered. */
static lth_status sub_fill(const void *state, double t, int order, lth_jet *out, double *work,
                           lth_error *err) {
  const subst_state *ss = state;
  size_t nz = (size_t)ss->nnz;
  double *vals = work + sub_vals(ss, order); /* sub_fill_csc leaves this region alone */
  lth_status st = sub_fill_csc(state, t, order, vals, nz, work, err);
  if (st != LTH_OK) {
    return st;
  }
  lth_jet_set_zero(out, order);
  for (int m = 0; m <= order; m++) {
    for (int j = 0; j < ss->cols; j++) {
      for (int p = ss->colptr[j]; p < ss->colptr[j + 1]; p++) {
        LTH_JET_AT(out, m, ss->rowind[p], j) = vals[(size_t)m * nz + (size_t)p];
      }
    }
  }
  return LTH_OK;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The pattern of B - Ay W (rows ascending in each column) into ss. */
static lth_status sub_structure(subst_state *ss, lth_error *err) {
  int bn = 0, an, wn;
  const int *bcp = NULL, *bri = NULL, *acp, *ari, *wcp, *wri;
  if (ss->B) {
    lth_source_csc_pattern(ss->B, &bn, &bcp, &bri, NULL);
  }
  lth_source_csc_pattern(ss->Ay, &an, &acp, &ari, NULL);
  lth_source_csc_pattern(ss->W, &wn, &wcp, &wri, NULL);
  ss->nb = bn;
  ss->na = an;
  ss->nw = wn;
  int *mark = malloc(((size_t)ss->rows + 1) * sizeof *mark);
  size_t cap = (size_t)bn + (size_t)wn + 16, nz = 0;
  ss->colptr = malloc(((size_t)ss->cols + 1) * sizeof *ss->colptr);
  ss->rowind = malloc(cap * sizeof *ss->rowind);
  lth_status st = mark && ss->colptr && ss->rowind
                      ? LTH_OK
                      : lth_error_set(err, LTH_ENOMEM, "out of memory building a substitution");
  for (int i = 0; st == LTH_OK && i < ss->rows; i++) {
    mark[i] = -1;
  }
  for (int j = 0; j < ss->cols && st == LTH_OK; j++) {
    ss->colptr[j] = (int)nz;
    for (int pass = 0; pass < 2 && st == LTH_OK; pass++) {
      /* pass 0: B's rows; pass 1: the product's, column j of W times Ay */
      int lo = pass ? wcp[j] : (bcp ? bcp[j] : 0), hi = pass ? wcp[j + 1] : (bcp ? bcp[j + 1] : 0);
      for (int p = lo; p < hi && st == LTH_OK; p++) {
        int a0 = pass ? acp[wri[p]] : 0, a1 = pass ? acp[wri[p] + 1] : 1;
        for (int pa = a0; pa < a1 && st == LTH_OK; pa++) {
          int i = pass ? ari[pa] : bri[p];
          if (mark[i] == j) {
            continue;
          }
          if (nz == cap || nz >= (size_t)INT_MAX) {
            int *nr = nz < (size_t)INT_MAX ? realloc(ss->rowind, 2 * cap * sizeof *nr) : NULL;
            if (!nr) {
              st = lth_error_set(err, LTH_ENOMEM, "out of memory building a substitution");
              break;
            }
            ss->rowind = nr;
            cap *= 2;
          }
          mark[i] = j;
          ss->rowind[nz++] = i;
        }
      }
    }
    qsort(ss->rowind + ss->colptr[j], nz - (size_t)ss->colptr[j], sizeof(int), cmp_int);
  }
  if (st == LTH_OK) {
    ss->colptr[ss->cols] = (int)nz;
    ss->nnz = (int)nz;
  }
  free(mark);
  return st;
}

static const lth_source_type sub_types[2] = {
    {.name = "index-1 substitution",
     .fill = sub_fill,
     .work_size = sub_work,
     .domain = subst_domain,
     .destroy = subst_destroy,
     .exact = 0,
     .parts = subst_parts,
     .csc_pattern = sub_pattern,
     .fill_csc = sub_fill_csc},
    {.name = "index-1 substitution",
     .fill = sub_fill,
     .work_size = sub_work,
     .domain = subst_domain,
     .destroy = subst_destroy,
     .exact = 1,
     .parts = subst_parts,
     .csc_pattern = sub_pattern,
     .fill_csc = sub_fill_csc},
};

static lth_status subst_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                               lth_error *err);

/* A new substitution reading B, Ay, W and owning the *_own ones (each NULL
 * or the source beside it), also on failure. */
static lth_source *subst_new(const lth_source *B, const lth_source *Ay, const lth_source *W,
                             lth_source *B_own, lth_source *Ay_own, lth_source *W_own,
                             lth_error *err) {
  subst_state *ss = calloc(1, sizeof *ss);
  if (!ss) {
    lth_source_free(B_own);
    lth_source_free(Ay_own);
    lth_source_free(W_own);
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  *ss = (subst_state){.B = B,
                      .Ay = Ay,
                      .W = W,
                      .B_own = B_own,
                      .Ay_own = Ay_own,
                      .W_own = W_own,
                      .rows = lth_source_rows(Ay),
                      .cols = lth_source_cols(W),
                      .ny = lth_source_cols(Ay)};
  int exact = lth_source_is_exact(Ay) && lth_source_is_exact(W) && (!B || lth_source_is_exact(B));
  int sparse =
      lth_source_is_sparse(Ay) && lth_source_is_sparse(W) && (!B || lth_source_is_sparse(B));
  if (sparse && sub_structure(ss, err) != LTH_OK) {
    subst_destroy(ss);
    return NULL;
  }
  lth_source *src =
      lth_source_new(sparse ? &sub_types[exact] : &subst_types[exact], ss, ss->rows, ss->cols, err);
  lth_source_set_rebind(src, subst_rebind);
  return src;
}

/* The same substitution reading the replacements of its leaves (the
 * sampled-data error estimates move sampled coefficients). */
static lth_status subst_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                               lth_error *err) {
  const subst_state *ss = state;
  const lth_source *use[3] = {ss->B, ss->Ay, ss->W};
  lth_source *own[3] = {NULL, NULL, NULL};
  lth_status st = LTH_OK;
  int changed = 0;
  for (int k = 0; k < 3 && st == LTH_OK; k++) {
    if (use[k]) {
      const lth_source *was = use[k];
      st = lth_source_rebind(was, map, ctx, &use[k], &own[k], err);
      changed = changed || (st == LTH_OK && use[k] != was);
    }
  }
  if (st != LTH_OK || !changed) {
    for (int k = 0; k < 3; k++) {
      lth_source_free(own[k]);
    }
    return st;
  }
  *out = subst_new(use[0], use[1], use[2], own[0], own[1], own[2], err);
  return *out ? LTH_OK : LTH_ENOMEM;
}

/* Does y_j (its reach: the unknowns y depends on) touch the columns? */
static int reaches(const lth_model *m, int j, int part, int c0, int nc) {
  if (part == LTH_MODEL_F || part == LTH_MODEL_B) {
    return 1; /* f_K (or B_K): any y may carry it */
  }
  for (int k = m->rstart[j]; k < m->rstart[j + 1]; k++) {
    int c = m->iperm[m->reach[k]] - c0;
    if (c >= 0 && c < nc) {
      return 1;
    }
  }
  return 0;
}

lth_status lth_model_subst_block(const lth_model *m, int part, int r0, int nr, int c0, int nc,
                                 lth_source **out, lth_error *err) {
  lth_source *B = NULL, *Ay = NULL, *X = NULL;
  lth_status st = lth_model_block_source(m, part, r0, nr, c0, nc, &B, err);
  *out = B;
  int touch = 0; /* a y of these rows depends on the columns (structurally) */
  for (int k = 0; st == LTH_OK && m->ny > 0 && k < nr && !touch; k++) {
    int q = m->eqperm[r0 + k];
    for (int j = m->estart[q]; j < m->estart[q + 1] && !touch; j++) {
      const lth_mentry *e = &m->ent[m->eidx[j]];
      touch = e->nz && e->part == LTH_MODEL_A && m->ypos[e->var] >= 0 &&
              reaches(m, m->ypos[e->var], part, c0, nc);
    }
  }
  if (st != LTH_OK || !touch) {
    return st;
  }
  st = lth_model_block_source(m, LTH_MODEL_A, r0, nr, m->s, m->ny, &Ay, err);
  if (st == LTH_OK) {
    st = lth_model_block_source(m, part, m->s, m->ny, c0, nc, &X, err);
  }
  if (st != LTH_OK || !Ay || !X) {
    lth_source_free(Ay);
    lth_source_free(X);
    return st;
  }
  lth_source *W = lth_source_solve(m->K, X, m->kscale, 0.0, m->klabel, err);
  *out = W ? subst_new(B, Ay, W, B, Ay, W, err) : NULL;
  if (!W) {
    lth_source_free(B);
    lth_source_free(Ay);
  }
  return *out ? LTH_OK : LTH_ENOMEM;
}

/* ---- the outputs of the canonical system ---- */

/* y = C_z z + C_y y + D u + y0 with y = -K^{-1}(L z + B_K u + f_K):
 *     C = C_z - C_y K^{-1} L,   D = D - C_y K^{-1} B_K,   y0 = y0 - C_y K^{-1} f_K. */
lth_status lth_model_output_sources(const lth_model *m, lth_source **C, lth_source **D,
                                    lth_source **y0, lth_error *err) {
  enum { NP = 3 }; /* the products with C_y: for C (L), y0 (f_K), D (B_K) */
  lth_source *Cy[NP] = {NULL, NULL, NULL}, *X[NP] = {NULL, NULL, NULL},
             *out[NP] = {NULL, NULL, NULL};
  *C = *D = *y0 = NULL;
  lth_status st = lth_model_output_block(m, LTH_MODEL_C, 0, m->s, &out[0], err);
  st = st == LTH_OK ? lth_model_output_block(m, LTH_MODEL_Y0, 0, 1, &out[1], err) : st;
  st = st == LTH_OK && m->nin > 0 ? lth_model_output_block(m, LTH_MODEL_D, 0, m->nin, &out[2], err)
                                  : st;
  for (int k = 0; k < NP && st == LTH_OK && m->ny > 0; k++) { /* C_y, once for each product */
    st = lth_model_output_block(m, LTH_MODEL_C, m->s, m->ny, &Cy[k], err);
  }
  if (st == LTH_OK && Cy[0]) {
    st = lth_model_block_source(m, LTH_MODEL_A, m->s, m->ny, 0, m->s, &X[0], err);
    st = st == LTH_OK ? lth_model_block_source(m, LTH_MODEL_F, m->s, m->ny, 0, 1, &X[1], err) : st;
    st = st == LTH_OK && m->nin > 0
             ? lth_model_block_source(m, LTH_MODEL_B, m->s, m->ny, 0, m->nin, &X[2], err)
             : st;
  }
  for (int k = 0; k < NP && st == LTH_OK; k++) {
    if (!Cy[k] || !X[k]) {
      continue;
    }
    lth_source *W = lth_source_solve(m->K, X[k], m->kscale, 0.0, m->klabel, err);
    X[k] = NULL; /* owned by the solve, also on failure */
    if (!W) {
      lth_source_free(out[k]);
      out[k] = NULL;
      st = LTH_ENOMEM;
      continue;
    }
    lth_source *S = subst_new(out[k], Cy[k], W, out[k], Cy[k], W, err);
    Cy[k] = NULL;
    out[k] = S;
    st = S ? LTH_OK : LTH_ENOMEM;
  }
  for (int k = 0; k < NP; k++) {
    lth_source_free(Cy[k]);
    lth_source_free(X[k]);
  }
  if (st != LTH_OK) {
    for (int k = 0; k < NP; k++) {
      lth_source_free(out[k]);
    }
    return st;
  }
  *C = out[0];
  *y0 = out[1];
  *D = out[2];
  return LTH_OK;
}

/* ---- the values of y for the outputs ---- */

struct lth_model_values {
  const lth_model *m;
  lth_source *Wz, *Wf;   /* K^{-1} L (ny x s), K^{-1} f_K (ny x 1); each may be NULL */
  lth_source *Wb;        /* K^{-1} B_K (ny x nin): inputs in the constraints of y; may be NULL */
  const lth_system *sys; /* the signals of the inputs (lth_model_values_set_inputs) */
  double *jz, *jf, *jb, *work, *swork;
  /* Wz sparse (a diagonal K, lth_source_solve): jz holds its values on its
   * pattern (znz of them), nothing ny x s; ytmp: ny values and ny errors */
  int zsparse, znz;
  const int *zcp, *zri;
  double *ytmp;
};

lth_model_values *lth_model_values_alloc(const lth_model *m, lth_error *err) {
  if (!m->analyzed) {
    lth_error_set(err, LTH_EINVAL, "lth_model_values_alloc: the model is not analysed");
    return NULL;
  }
  lth_model_values *w = calloc(1, sizeof *w);
  if (!w) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  w->m = m;
  int ny = m->ny, s = m->s;
  lth_source *L = NULL, *F = NULL;
  lth_status st = LTH_OK;
  if (ny > 0) {
    st = lth_model_block_source(m, LTH_MODEL_A, s, ny, 0, s, &L, err);
    if (st == LTH_OK) {
      st = lth_model_block_source(m, LTH_MODEL_F, s, ny, 0, 1, &F, err);
    }
    if (st == LTH_OK && L) { /* the solves own L and F, also on failure */
      st = (w->Wz = lth_source_solve(m->K, L, m->kscale, 0.0, m->klabel, err)) ? st : LTH_ENOMEM;
      L = NULL;
    }
    if (st == LTH_OK && F) {
      st = (w->Wf = lth_source_solve(m->K, F, m->kscale, 0.0, m->klabel, err)) ? st : LTH_ENOMEM;
      F = NULL;
    }
    lth_source *Bk = NULL;
    if (st == LTH_OK && m->nin > 0) {
      st = lth_model_block_source(m, LTH_MODEL_B, s, ny, 0, m->nin, &Bk, err);
    }
    if (st == LTH_OK && Bk) {
      st = (w->Wb = lth_source_solve(m->K, Bk, m->kscale, 0.0, m->klabel, err)) ? st : LTH_ENOMEM;
    }
  }
  size_t wz = w->Wz ? lth_source_work_size(w->Wz, 0) : 0,
         wf = w->Wf ? lth_source_work_size(w->Wf, 0) : 0,
         wb = w->Wb ? lth_source_work_size(w->Wb, 0) : 0;
  wz = wf > wz ? wf : wz;
  wz = wb > wz ? wb : wz;
  if (w->Wz && lth_source_is_sparse(w->Wz)) {
    w->zsparse = 1;
    lth_source_csc_pattern(w->Wz, &w->znz, &w->zcp, &w->zri, NULL);
  }
  w->jz = malloc(((w->zsparse ? (size_t)w->znz : (size_t)ny * (size_t)s) + 1) * sizeof *w->jz);
  w->ytmp = malloc((2 * (size_t)ny + 1) * sizeof *w->ytmp);
  w->jf = malloc(((size_t)ny + 1) * sizeof *w->jf);
  w->jb = malloc(((size_t)ny * (size_t)m->nin + 1) * sizeof *w->jb);
  w->work = malloc((wz + 1) * sizeof *w->work);
  if (st == LTH_OK && (!w->jz || !w->jf || !w->jb || !w->work || !w->ytmp)) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  lth_source_free(L);
  lth_source_free(F);
  if (st != LTH_OK) {
    lth_model_values_free(w);
    return NULL;
  }
  return w;
}

void lth_model_values_free(lth_model_values *w) {
  if (w) {
    lth_source_free(w->Wz);
    lth_source_free(w->Wf);
    lth_source_free(w->Wb);
    free(w->jz);
    free(w->ytmp);
    free(w->jf);
    free(w->jb);
    free(w->work);
    free(w->swork);
    free(w);
  }
}

lth_status lth_model_values_set_inputs(lth_model_values *w, const lth_system *sys, lth_error *err) {
  const lth_model *m = w->m;
  if (lth_system_ninputs(sys) != m->nin) {
    return lth_error_set(err, LTH_EDIM, "the system has %d inputs, the model %d",
                         lth_system_ninputs(sys), m->nin);
  }
  size_t need = 1;
  for (int k = 0; k < m->nin; k++) {
    const lth_source *u = lth_system_input(sys, k);
    size_t n = u ? lth_source_work_size(u, 0) : 0;
    need = n > need ? n : need;
  }
  double *work = malloc(need * sizeof *work);
  if (!work) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  free(w->swork);
  w->swork = work;
  w->sys = sys;
  return LTH_OK;
}

/* jf += K^{-1} B_K u(t): the inputs' part of y (docs/equations.md section 11);
 * an input without a signal that reaches y is refused, naming both. */
static lth_status add_inputs(lth_model_values *w, double t, lth_error *err) {
  const lth_model *m = w->m;
  int ny = m->ny;
  lth_jet Jb = lth_jet_wrap(w->jb, ny, m->nin, ny, (size_t)ny * (size_t)m->nin, 0);
  lth_status st = lth_source_fill(w->Wb, t, 0, &Jb, w->work, err);
  for (int k = 0; k < m->nin && st == LTH_OK; k++) {
    int j = 0;
    while (j < ny && w->jb[j + (size_t)k * ny] == 0.0) {
      j++;
    }
    if (j == ny) {
      continue; /* no index-1 unknown depends on input k here */
    }
    const lth_source *src = w->sys ? lth_system_input(w->sys, k) : NULL;
    if (!src) {
      return lth_error_set_t(err, LTH_EINVAL, t,
                             "the index-1 unknown %s depends on the input %s, which has no signal",
                             m->names[m->perm[m->s + j]], m->inames[k]);
    }
    double u;
    lth_jet J = lth_jet_wrap(&u, 1, 1, 1, 1, 0);
    st = lth_source_fill(src, t, 0, &J, w->swork, err);
    for (int i = 0; i < ny && st == LTH_OK; i++) {
      w->jf[i] += w->jb[i + (size_t)k * ny] * u;
    }
  }
  return st;
}

/* K^{-1} L and K^{-1} (f_K + B_K u) at t into jz, jf (zero where absent;
 * without the inputs' part unless inputs, K^{-1} B_K then in jb). */
static lth_status fill_at(lth_model_values *w, double t, int inputs, lth_error *err) {
  int ny = w->m->ny, s = w->m->s;
  lth_jet Jz = lth_jet_wrap(w->jz, ny, s, ny > 0 ? ny : 1, (size_t)ny * (size_t)s, 0);
  lth_jet Jf = lth_jet_wrap(w->jf, ny, 1, ny > 0 ? ny : 1, (size_t)ny, 0);
  lth_status st = LTH_OK;
  if (w->zsparse) {
    st = lth_source_fill_csc(w->Wz, t, 0, w->jz, (size_t)w->znz, w->work, err);
  } else if (w->Wz) {
    st = lth_source_fill(w->Wz, t, 0, &Jz, w->work, err);
  } else {
    lth_jet_set_zero(&Jz, 0);
  }
  if (st == LTH_OK && w->Wf) {
    st = lth_source_fill(w->Wf, t, 0, &Jf, w->work, err);
  } else if (st == LTH_OK) {
    lth_jet_set_zero(&Jf, 0);
  }
  if (st == LTH_OK && w->Wb && inputs) {
    st = add_inputs(w, t, err);
  } else if (st == LTH_OK && w->Wb) {
    lth_jet Jb = lth_jet_wrap(w->jb, ny, w->m->nin, ny, (size_t)ny * (size_t)w->m->nin, 0);
    st = lth_source_fill(w->Wb, t, 0, &Jb, w->work, err);
  }
  if (st != LTH_OK) {
    lth_model_k_message(err);
  }
  return st;
}

/* Y = -K^{-1} L (ny x s, ld ldy) from jz, dense or on Wz's pattern. */
static void minus_wz(const lth_model_values *w, double *Y, int ldy) {
  int ny = w->m->ny, s = w->m->s;
  for (int k = 0; Y && k < s; k++) {
    for (int j = 0; j < ny; j++) {
      Y[j + (size_t)k * ldy] = w->zsparse ? 0.0 : -w->jz[j + (size_t)k * ny];
    }
    for (int p = w->zsparse ? w->zcp[k] : 0; w->zsparse && p < w->zcp[k + 1]; p++) {
      Y[w->zri[p] + (size_t)k * ldy] = -w->jz[p];
    }
  }
}

lth_status lth_model_values_map(lth_model_values *w, double t, double *Y, int ldy, double *y0,
                                lth_error *err) {
  int ny = w->m->ny;
  lth_status st = ny > 0 ? fill_at(w, t, 1, err) : LTH_OK;
  if (st == LTH_OK && ny > 0) {
    minus_wz(w, Y, ldy);
  }
  for (int j = 0; st == LTH_OK && j < ny; j++) {
    if (y0) {
      y0[j] = -w->jf[j];
    }
  }
  return st;
}

lth_status lth_model_values_apply(lth_model_values *w, double t, const double *z, double *y,
                                  double *size, lth_error *err) {
  const lth_model *m = w->m;
  int ny = m->ny, s = m->s;
  lth_status st = ny > 0 ? fill_at(w, t, 1, err) : LTH_OK;
  for (int j = 0; st == LTH_OK && j < ny; j++) {
    y[j] = -w->jf[j];
    if (size) {
      size[j] = fabs(w->jf[j]);
    }
  }
  for (int k = 0; st == LTH_OK && k < s; k++) {
    int p0 = w->zsparse ? w->zcp[k] : 0, p1 = w->zsparse ? w->zcp[k + 1] : ny;
    for (int p = p0; p < p1; p++) {
      int j = w->zsparse ? w->zri[p] : p;
      double c = w->zsparse ? w->jz[p] : w->jz[j + (size_t)k * ny];
      y[j] -= c * z[k];
      if (size) {
        size[j] += fabs(c * z[k]);
      }
    }
  }
  return st;
}

lth_status lth_model_values_maps(lth_model_values *w, double t, double *Y, int ldy, double *Yu,
                                 int ldyu, double *y0, lth_error *err) {
  const lth_model *m = w->m;
  int ny = m->ny;
  lth_status st = ny > 0 ? fill_at(w, t, 0, err) : LTH_OK;
  if (st == LTH_OK && ny > 0) {
    minus_wz(w, Y, ldy);
  }
  for (int j = 0; st == LTH_OK && j < ny; j++) {
    for (int k = 0; Yu && k < m->nin; k++) {
      Yu[j + (size_t)k * ldyu] = w->Wb ? -w->jb[j + (size_t)k * ny] : 0.0;
    }
    if (y0) {
      y0[j] = -w->jf[j];
    }
  }
  return st;
}

lth_status lth_model_values_at(lth_model_values *w, double t, const double *z, const double *ez,
                               double *user, double *euser, lth_error *err) {
  const lth_model *m = w->m;
  int ny = m->ny, s = m->s;
  lth_status st = ny > 0 ? fill_at(w, t, 1, err) : LTH_OK;
  if (st != LTH_OK) {
    return st;
  }
  for (int k = 0; k < s; k++) {
    user[m->perm[k]] = z[k];
    if (euser) {
      euser[m->perm[k]] = ez ? ez[k] : 0.0;
    }
  }
  /* y = -K^{-1}(L z + f_K), linear in z: error -K^{-1} L ez */
  double *yv = w->ytmp, *ev = w->ytmp + ny;
  for (int j = 0; j < ny; j++) {
    yv[j] = -w->jf[j];
    ev[j] = 0.0;
  }
  for (int k = 0; k < s; k++) {
    int p0 = w->zsparse ? w->zcp[k] : 0, p1 = w->zsparse ? w->zcp[k + 1] : ny;
    for (int p = p0; p < p1; p++) {
      int j = w->zsparse ? w->zri[p] : p;
      double c = w->zsparse ? w->jz[p] : w->jz[j + (size_t)k * ny];
      yv[j] -= c * z[k];
      ev[j] -= ez ? c * ez[k] : 0.0;
    }
  }
  for (int j = 0; j < ny; j++) {
    double y = yv[j], e = ev[j];
    if (!isfinite(y)) {
      return lth_error_set_t(err, LTH_ENOTFINITE, t,
                             "the index-1 unknown %s is not finite at t = %.10g",
                             m->names[m->perm[s + j]], t);
    }
    user[m->perm[s + j]] = y;
    if (euser) {
      euser[m->perm[s + j]] = e;
    }
  }
  return LTH_OK;
}
