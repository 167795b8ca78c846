/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file values, part 3 (lib/reader/problem_impl.h): sparse values, the
 * matrices mm("file.mtx") reads (lib/reader/mtx.c) and their combinations
 * sum_k c_k(t) M_k with scalar coefficients, which become one sparse source
 * (lib/source/source_sparse.h).  The matrices are never expanded here: a
 * block of 10^5 x 10^5 with 10^6 entries costs its entries.
 *
 * What a user writes and what it becomes:
 *     mm("K.mtx")                     1 * K
 *     -(1 + 0.1*sin(t)) * mm("K.mtx") (-(1 + 0.1 sin t)) * K   (the scalar's node)
 *     mm("K.mtx")/2 - mm("D.mtx")     0.5 K + (-1) D
 *     mm("G.mtx")'                    1 * G^T
 *     mm("K.mtx") + 2*eye             1 * K + 1 * (2 I)        (a constant matrix
 *                                                               joins by its nonzeros)
 * Coefficients combine by the scalar algebra of problem_val.c (constants
 * folded, nodes shared, budget charged).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"
#include "source/source_sparse.h"

#define HINT_T                                                                                     \
  "write a time-dependent matrix as scalar functions of t times constant matrices, e.g. "          \
  "(1 + 0.1*sin(t))*mm(\"K.mtx\") + cos(t)*mm(\"D.mtx\")"

void lth_psparse_free(lth_psparse *sp) {
  if (sp) {
    for (int k = 0; k < sp->n; k++) {
      lth_csc_free(sp->t[k].m);
    }
    free(sp->t);
    free(sp);
  }
}

int lth_psparse_has_t(const lth_psparse *sp) {
  for (int k = 0; sp && k < sp->n; k++) {
    if (sp->t[k].c.node >= 0) {
      return 1;
    }
  }
  return 0;
}

lth_status lth_pval_sparse_refuse(const lth_pvctx *x, size_t pos, const char *what) {
  return lth_pcur_error(x->c, pos, LTH_EPARSE,
                        "%s is not supported: matrices from mm(...) combine by sums, "
                        "differences, transposes and scalar factors (functions of t)",
                        what);
}

/* Append the term c * m (m moved; freed on failure). */
static lth_status add_term(const lth_pvctx *x, size_t pos, lth_psparse *sp, lth_psc c, lth_csc *m) {
  if (sp->n == sp->cap) {
    int cap = sp->cap ? 2 * sp->cap : 4;
    lth_psterm *nt = realloc(sp->t, (size_t)cap * sizeof *nt);
    if (!nt) {
      lth_csc_free(m);
      return lth_pval_nomem(x, pos);
    }
    sp->t = nt;
    sp->cap = cap;
  }
  sp->t[sp->n++] = (lth_psterm){c, m};
  return LTH_OK;
}

/* An empty sparse value of the given size in *out. */
static lth_status sparse_empty(const lth_pvctx *x, size_t pos, int rows, int cols, lth_pval *out) {
  memset(out, 0, sizeof *out);
  if (!(out->sp = calloc(1, sizeof *out->sp))) {
    return lth_pval_nomem(x, pos);
  }
  out->rows = rows;
  out->cols = cols;
  return LTH_OK;
}

lth_status lth_pval_mm(const lth_pvctx *x, size_t pos, lth_csc *m, lth_pval *out) {
  lth_status st = lth_pval_charge(x, pos, (double)m->nnz);
  if (st == LTH_OK) {
    st = sparse_empty(x, pos, m->rows, m->cols, out);
  }
  if (st != LTH_OK) {
    lth_csc_free(m);
    return st;
  }
  return add_term(x, pos, out->sp, LTH_PSC_CONST(1.0), m);
}

/* Move the terms of src (a sparse value, emptied) into dst, each
 * coefficient times sign. */
static lth_status move_terms(const lth_pvctx *x, size_t pos, lth_psparse *dst, lth_psparse *src,
                             double sign) {
  lth_status st = LTH_OK;
  lth_psc s = LTH_PSC_CONST(sign);
  for (int k = 0; k < src->n; k++) {
    lth_psc c = src->t[k].c;
    if (st == LTH_OK && sign != 1.0) {
      st = lth_psc_binop(x, pos, '*', &s, &src->t[k].c, &c);
    }
    if (st == LTH_OK) {
      st = add_term(x, pos, dst, c, src->t[k].m);
    } else {
      lth_csc_free(src->t[k].m);
    }
    src->t[k].m = NULL;
  }
  src->n = 0;
  return st;
}

/* A dense constant value as a sparse matrix of its nonzeros. */
static lth_status dense_to_csc(const lth_pvctx *x, size_t pos, const lth_pval *a, lth_csc **out) {
  int m = a->rows, n = a->cols;
  size_t cnt = (size_t)m * (size_t)n, nz = 0;
  for (size_t k = 0; k < cnt; k++) {
    nz += a->val[k] != 0.0;
  }
  int *ri = malloc((nz ? nz : 1) * sizeof *ri), *ci = malloc((nz ? nz : 1) * sizeof *ci);
  double *v = malloc((nz ? nz : 1) * sizeof *v);
  *out = NULL;
  if (ri && ci && v) {
    nz = 0;
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        if (a->val[(size_t)i * n + j] != 0.0) {
          ri[nz] = i;
          ci[nz] = j;
          v[nz++] = a->val[(size_t)i * n + j];
        }
      }
    }
    *out = lth_csc_from_triplets(m, n, nz, ri, ci, v, NULL);
  }
  free(ri);
  free(ci);
  free(v);
  return *out ? lth_pval_charge(x, pos, (double)cnt) : lth_pval_nomem(x, pos);
}

/* The dense operand d of a sum with a sparse one of size rows x cols: a
 * constant matrix of that size, as a term of its own. */
static lth_status dense_term(const lth_pvctx *x, size_t pos, int op, const lth_pval *d, int rows,
                             int cols, double sign, lth_psparse *dst) {
  if (d->rows != rows || d->cols != cols) {
    if (d->rows == 1 && d->cols == 1) {
      return lth_pcur_error(x->c, pos, LTH_EDIM,
                            "'%c' of a scalar and a %d x %d matrix from mm(...): a scalar would "
                            "reach every entry (give the matrix to add, e.g. c*eye)",
                            op, rows, cols);
    }
    return lth_pcur_error(x->c, pos, LTH_EDIM,
                          "'%c' of a %d x %d matrix and a %d x %d matrix from mm(...): the sizes "
                          "must agree",
                          op, d->rows, d->cols, rows, cols);
  }
  if (lth_pval_has_t(d) || lth_pval_has_unknowns(d)) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "'%c' of a matrix from mm(...) and a matrix that depends on t: %s", op,
                          HINT_T);
  }
  lth_csc *m;
  lth_status st = dense_to_csc(x, pos, d, &m);
  return st == LTH_OK ? add_term(x, pos, dst, LTH_PSC_CONST(sign), m) : st;
}

/* The scalar of a 1 x 1 dense value s, for a factor: *c. */
static lth_status scalar_factor(const lth_pvctx *x, size_t pos, const lth_pval *s, lth_psc *c) {
  const lth_plin *l = s->ext ? s->ext[0] : NULL;
  if (l && (l->n > 0 || l->c0.src)) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "a matrix from mm(...) may be scaled by a function of t, not by %s",
                          l->n > 0 ? "an unknown" : "samples(...)");
  }
  *c = l ? l->c0 : LTH_PSC_CONST(s->val[0]);
  return LTH_OK;
}

/* Every coefficient of sp (in place) times c (c_left: c * coef, else
 * coef op c). */
static lth_status scale_terms(const lth_pvctx *x, size_t pos, int op, lth_psparse *sp,
                              const lth_psc *c, int c_left) {
  for (int k = 0; k < sp->n; k++) {
    lth_psc r;
    lth_status st = c_left ? lth_psc_binop(x, pos, op, c, &sp->t[k].c, &r)
                           : lth_psc_binop(x, pos, op, &sp->t[k].c, c, &r);
    if (st != LTH_OK) {
      return st;
    }
    sp->t[k].c = r;
  }
  return LTH_OK;
}

static lth_status sparse_sum(const lth_pvctx *x, size_t pos, int op, lth_pval *a, lth_pval *b,
                             lth_pval *out) {
  const lth_pval *s = a->sp ? a : b;
  if (a->sp && b->sp && (a->rows != b->rows || a->cols != b->cols)) {
    return lth_pcur_error(x->c, pos, LTH_EDIM,
                          "'%c' of a %d x %d and a %d x %d matrix from mm(...): the sizes must "
                          "agree",
                          op, a->rows, a->cols, b->rows, b->cols);
  }
  lth_status st = sparse_empty(x, pos, s->rows, s->cols, out);
  double sb = op == '-' ? -1.0 : 1.0;
  if (st == LTH_OK) {
    out->sp->dense_ok = (!a->sp || a->sp->dense_ok) && (!b->sp || b->sp->dense_ok);
  }
  if (st == LTH_OK) {
    st = a->sp ? move_terms(x, pos, out->sp, a->sp, 1.0)
               : dense_term(x, pos, op, a, s->rows, s->cols, 1.0, out->sp);
  }
  if (st == LTH_OK) {
    st = b->sp ? move_terms(x, pos, out->sp, b->sp, sb)
               : dense_term(x, pos, op, b, s->rows, s->cols, sb, out->sp);
  }
  return st;
}

/* Entry k of the dense value d plus c (k holds a constant or a form). */
static lth_status add_entry(const lth_pvctx *x, size_t pos, lth_pval *d, size_t k, lth_psc c) {
  if (!d->ext[k] && c.node < 0 && !c.src) {
    d->val[k] += c.v;
    return LTH_OK;
  }
  if (!d->ext[k]) {
    if (!(d->ext[k] = calloc(1, sizeof *d->ext[k]))) {
      return lth_pval_nomem(x, pos);
    }
    *d->ext[k] = LTH_PLIN_ZERO;
    d->ext[k]->c0 = LTH_PSC_CONST(d->val[k]);
    d->val[k] = 0.0;
  }
  lth_psc r;
  lth_status st = lth_psc_binop(x, pos, '+', &d->ext[k]->c0, &c, &r);
  if (st == LTH_OK) {
    d->ext[k]->c0 = r;
  }
  return st;
}

lth_status lth_pval_eye_dense(const lth_pvctx *x, size_t pos, lth_pval *a) {
  if (!a->sp || !a->sp->dense_ok) {
    return LTH_OK;
  }
  lth_pval d;
  lth_status st = lth_pval_zeros(x, pos, a->rows, a->cols, &d);
  if (st == LTH_OK && !(d.ext = calloc((size_t)a->rows * (size_t)a->cols + 1, sizeof *d.ext))) {
    st = lth_pval_nomem(x, pos);
  }
  for (int k = 0; k < a->sp->n && st == LTH_OK; k++) {
    const lth_csc *m = a->sp->t[k].m;
    for (int j = 0; j < m->cols && st == LTH_OK; j++) {
      for (int p = m->colptr[j]; p < m->colptr[j + 1] && st == LTH_OK; p++) {
        lth_psc v = LTH_PSC_CONST(m->val[p]), c;
        st = lth_psc_binop(x, pos, '*', &a->sp->t[k].c, &v, &c);
        st = st == LTH_OK ? add_entry(x, pos, &d, (size_t)m->rowind[p] * (size_t)a->cols + j, c)
                          : st;
      }
    }
  }
  if (st != LTH_OK) {
    lth_pval_free(&d);
    return st;
  }
  lth_pval_free(a);
  *a = d;
  return LTH_OK;
}

/* 1 if a op b is one the sparse algebra refuses but the dense one takes
 * (an eye that is sparse only because of its size, lth_pval_eye_dense). */
static int needs_dense(int op, const lth_pval *a, const lth_pval *b) {
  if ((a->sp && !a->sp->dense_ok) || (b->sp && !b->sp->dense_ok)) {
    return 0;
  }
  int sa = !a->sp && a->rows == 1 && a->cols == 1, sb = !b->sp && b->rows == 1 && b->cols == 1;
  const lth_pval *d = a->sp ? (b->sp ? NULL : b) : a;
  switch (op) {
  case '+':
  case '-':
    return d && (d->rows != (a->sp ? a : b)->rows || d->cols != (a->sp ? a : b)->cols ||
                 lth_pval_has_t(d) || lth_pval_has_unknowns(d));
  case '*':
    return (a->sp && b->sp) || (!sa && !sb);
  case '/':
    return !sb;
  default:
    return 1;
  }
}

lth_status lth_pval_sparse_binop(const lth_pvctx *x, size_t pos, int op, lth_pval *a, lth_pval *b,
                                 lth_pval *out) {
  memset(out, 0, sizeof *out);
  if (needs_dense(op, a, b)) {
    lth_status st = lth_pval_eye_dense(x, pos, a);
    st = st == LTH_OK ? lth_pval_eye_dense(x, pos, b) : st;
    lth_pval da = *a, db = *b;
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    if (st != LTH_OK) {
      lth_pval_free(&da);
      lth_pval_free(&db);
      return st;
    }
    return lth_pval_binop(x, pos, op, &da, &db, out);
  }
  int sa = !a->sp && a->rows == 1 && a->cols == 1, sb = !b->sp && b->rows == 1 && b->cols == 1;
  lth_status st;
  lth_psc c;
  switch (op) {
  case '+':
  case '-':
    st = sparse_sum(x, pos, op, a, b, out);
    break;
  case '*':
    if (a->sp && b->sp) {
      return lth_pcur_error(x->c, pos, LTH_EPARSE,
                            "a product of two matrices from mm(...) is not supported: give the "
                            "product as a Matrix Market file of its own");
    }
    if (!sa && !sb) {
      return lth_pcur_error(x->c, pos, LTH_EPARSE,
                            "a product of a matrix and a matrix from mm(...) is not supported: "
                            "mm(...) matrices may be scaled by scalars only (give the product "
                            "as a Matrix Market file of its own)");
    }
    st = scalar_factor(x, pos, sa ? a : b, &c);
    if (st == LTH_OK) {
      *out = sa ? *b : *a; /* the sparse operand moves to out */
      memset(sa ? b : a, 0, sizeof *a);
      st = scale_terms(x, pos, '*', out->sp, &c, sa);
    }
    break;
  case '/':
    if (!sb) {
      return lth_pcur_error(x->c, pos, LTH_EPARSE,
                            "'/' with a matrix from mm(...) on its right: only a division by a "
                            "scalar is supported");
    }
    st = scalar_factor(x, pos, b, &c);
    if (st == LTH_OK) {
      *out = *a;
      memset(a, 0, sizeof *a);
      st = scale_terms(x, pos, '/', out->sp, &c, 0);
    }
    break;
  default:
    return lth_pval_sparse_refuse(x, pos, "'^' of a matrix from mm(...)");
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

lth_status lth_pval_sparse_neg(const lth_pvctx *x, size_t pos, lth_pval *a) {
  lth_psc m1 = LTH_PSC_CONST(-1.0);
  return scale_terms(x, pos, '*', a->sp, &m1, 1);
}

lth_status lth_pval_sparse_transpose(const lth_pvctx *x, size_t pos, lth_pval *a) {
  for (int k = 0; k < a->sp->n; k++) {
    lth_csc *t = lth_csc_transpose(a->sp->t[k].m, NULL);
    if (!t) {
      return lth_pval_nomem(x, pos);
    }
    lth_csc_free(a->sp->t[k].m);
    a->sp->t[k].m = t;
    lth_status st = lth_pval_charge(x, pos, (double)t->nnz);
    if (st != LTH_OK) {
      return st;
    }
  }
  int r = a->rows;
  a->rows = a->cols;
  a->cols = r;
  return LTH_OK;
}

lth_status lth_pval_sparse_source(lth_pcur *c, size_t pos, lth_pval *a, lth_source **out) {
  lth_psparse *sp = a->sp;
  int n = sp->n;
  *out = NULL;
  lth_expr **phi = calloc((size_t)(n ? n : 1), sizeof *phi);
  double *cv = calloc((size_t)(n ? n : 1), sizeof *cv);
  lth_csc **mats = calloc((size_t)(n ? n : 1), sizeof *mats);
  lth_status st = phi && cv && mats ? LTH_OK : lth_pcur_error(c, pos, LTH_ENOMEM, "out of memory");
  for (int k = 0; k < n && st == LTH_OK; k++) {
    const lth_psc *s = &sp->t[k].c;
    if (s->src) { /* not reachable from the block form; refused all the same */
      st = lth_pcur_error(c, pos, LTH_EPARSE, "samples(...) cannot scale a matrix from mm(...)");
    } else if (s->node >= 0) {
      st = lth_psc_compile(c, pos, s, 1.0, &phi[k]);
    } else {
      cv[k] = s->v;
    }
  }
  if (st == LTH_OK) {
    for (int k = 0; k < n; k++) {
      mats[k] = sp->t[k].m;
      sp->t[k].m = NULL;
    }
    sp->n = 0;
    *out = lth_source_sparse_sum(a->rows, a->cols, n, phi, cv, mats, c->err);
    st = *out ? LTH_OK : lth_pcur_locate(c, pos, c->err ? c->err->status : LTH_ENOMEM);
  } else {
    for (int k = 0; k < n && phi; k++) {
      lth_expr_free(phi[k]);
    }
  }
  free(phi);
  free(cv);
  free(mats);
  return st;
}
