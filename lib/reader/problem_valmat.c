/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file values, part 2 (lib/reader/problem_impl.h): matrices whose entries are
 * linear forms (lib/reader/problem_val.c), with MATLAB's rules for sums, products,
 * transposes and concatenation, and the sources they become. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"

#define PRODUCT_MAX 1e9 /* multiply-adds of one matrix product */

void lth_pval_free(lth_pval *v) {
  size_t n = (size_t)v->rows * (size_t)v->cols;
  if (v->ext) {
    for (size_t k = 0; k < n; k++) {
      if (v->ext[k]) {
        lth_plin_free(v->ext[k]);
        free(v->ext[k]);
      }
    }
  }
  free(v->ext);
  free(v->val);
  lth_psparse_free(v->sp);
  memset(v, 0, sizeof *v);
}

/* ------------------------------------------------------------------------ */
/* Matrix values                                                            */

static const lth_plin *entry(const lth_pval *a, size_t k, lth_plin *tmp) {
  if (a->ext && a->ext[k]) {
    return a->ext[k];
  }
  *tmp = LTH_PLIN_ZERO;
  tmp->c0.v = a->val[k];
  return tmp;
}

int lth_pval_entry_const(const lth_pval *a, size_t k, double *v) {
  lth_plin tmp;
  if (a->sp) {
    *v = 0.0;
    return 0;
  }
  const lth_plin *l = entry(a, k, &tmp);
  *v = l->c0.v;
  return lth_plin_const(l);
}

/* Store l (moved) as entry k of out. */
static lth_status store(const lth_pvctx *x, size_t pos, lth_pval *out, size_t k, lth_plin *l) {
  if (lth_plin_const(l)) {
    out->val[k] = l->c0.v + 0.0; /* no negative zeros */
    lth_plin_free(l);            /* terms that cancelled may leave storage */
    return LTH_OK;
  }
  size_t n = (size_t)out->rows * (size_t)out->cols;
  if (!out->ext && !(out->ext = calloc(n, sizeof *out->ext))) {
    lth_plin_free(l);
    return lth_pval_nomem(x, pos);
  }
  if (!(out->ext[k] = malloc(sizeof **out->ext))) {
    lth_plin_free(l);
    return lth_pval_nomem(x, pos);
  }
  *out->ext[k] = *l;
  out->val[k] = 0.0;
  *l = LTH_PLIN_ZERO;
  return LTH_OK;
}

lth_status lth_pval_zeros(const lth_pvctx *x, size_t pos, long rows, long cols, lth_pval *out) {
  memset(out, 0, sizeof *out);
  if (rows < 0 || cols < 0 || rows > 100000000L || cols > 100000000L ||
      (double)rows * (double)cols > LTH_P_MAX_ENTRIES) {
    return lth_pcur_error(x->c, pos, LTH_EDIM,
                          "a %ld x %ld matrix is too large for a data file (at most %.0f million "
                          "entries)",
                          rows, cols, LTH_P_MAX_ENTRIES / 1e6);
  }
  x->c->ops += (double)rows * (double)cols;
  if (x->c->ops > LTH_P_MAX_OPS) {
    return lth_pcur_error(x->c, pos, LTH_EDIM,
                          "the matrix algebra of this file would take more than %.0e entry "
                          "operations: too large for a data file",
                          LTH_P_MAX_OPS);
  }
  size_t n = (size_t)rows * (size_t)cols;
  if (!(out->val = calloc(n ? n : 1, sizeof *out->val))) {
    return lth_pval_nomem(x, pos);
  }
  out->rows = (int)rows;
  out->cols = (int)cols;
  return LTH_OK;
}

lth_status lth_pval_const(const lth_pvctx *x, size_t pos, double v, lth_pval *out) {
  lth_status st = lth_pval_zeros(x, pos, 1, 1, out);
  if (st == LTH_OK) {
    out->val[0] = v;
  }
  return st;
}

lth_status lth_pval_t(const lth_pvctx *x, size_t pos, lth_pval *out) {
  lth_plin l = LTH_PLIN_ZERO;
  lth_status st = lth_pval_zeros(x, pos, 1, 1, out);
  if (st == LTH_OK && (l.c0.node = lth_ebuild_t(x->c->eb, 0)) < 0) {
    st = lth_pval_nomem(x, pos);
  }
  if (st == LTH_OK) {
    st = lth_pval_charge(x, pos, LTH_P_NODE_OPS);
  }
  return st == LTH_OK ? store(x, pos, out, 0, &l) : st;
}

lth_status lth_pval_samples(const lth_pvctx *x, size_t pos, const lth_source *src, lth_pval *out) {
  lth_plin l = LTH_PLIN_ZERO;
  lth_status st = lth_pval_zeros(x, pos, 1, 1, out);
  l.c0.src = src;
  l.c0.sf = 1.0;
  return st == LTH_OK ? store(x, pos, out, 0, &l) : st;
}

lth_status lth_pval_unknown(const lth_pvctx *x, size_t pos, int var, int order, lth_pval *out) {
  lth_plin l = LTH_PLIN_ZERO;
  lth_status st = lth_pval_zeros(x, pos, 1, 1, out);
  if (st == LTH_OK) {
    st = (l.t = malloc(sizeof *l.t)) ? LTH_OK : lth_pval_nomem(x, pos);
  }
  if (st != LTH_OK) {
    return st;
  }
  l.t[0] = (lth_pterm){var, order, LTH_PSC_CONST(1.0)};
  l.n = 1;
  return store(x, pos, out, 0, &l);
}

/* Apply f to every entry pair (broadcasting a 1 x 1 operand). */
typedef lth_status (*entry_op)(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                               const lth_plin *b, lth_plin *out);

lth_status lth_pval_charge(const lth_pvctx *x, size_t pos, double n) {
  x->c->ops += n;
  if (x->c->ops > LTH_P_MAX_OPS) {
    return lth_pcur_error(x->c, pos, LTH_EDIM,
                          "the matrix algebra and formulas of this file would take more than "
                          "%.0e entry operations: too large for a data file",
                          LTH_P_MAX_OPS);
  }
  return LTH_OK;
}

static lth_status lin_mul_op(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                             const lth_plin *b, lth_plin *out) {
  (void)op;
  return lth_plin_mul(x, pos, a, b, out);
}

static lth_status entrywise(const lth_pvctx *x, size_t pos, int op, entry_op f, const lth_pval *a,
                            const lth_pval *b, lth_pval *out) {
  int sa = a->rows == 1 && a->cols == 1, sb = b->rows == 1 && b->cols == 1;
  const lth_pval *shape = sa && !sb ? b : a;
  lth_status st = lth_pval_zeros(x, pos, shape->rows, shape->cols, out);
  size_t n = (size_t)out->rows * (size_t)out->cols;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    lth_plin ta, tb, r;
    const lth_plin *ea = entry(a, sa ? 0 : k, &ta), *eb = entry(b, sb ? 0 : k, &tb);
    if (lth_plin_const(ea) && lth_plin_const(eb)) {
      st = lth_psc_const_binop(x, pos, op, ea->c0.v, eb->c0.v, &out->val[k]);
      continue;
    }
    st = f(x, pos, op, ea, eb, &r);
    if (st == LTH_OK) {
      st = store(x, pos, out, k, &r);
    } else {
      lth_plin_free(&r);
    }
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

/* Matrix product of constants, then the general case through linear forms. */
static lth_status matmul(const lth_pvctx *x, size_t pos, const lth_pval *a, const lth_pval *b,
                         lth_pval *out) {
  int m = a->rows, q = a->cols, n = b->cols;
  x->c->ops += (double)m * q * n;
  if ((double)m * q * n > PRODUCT_MAX || x->c->ops > LTH_P_MAX_OPS) {
    return lth_pcur_error(x->c, pos, LTH_EDIM,
                          "a product of a %d x %d and a %d x %d matrix is too large for a data "
                          "file",
                          m, q, q, n);
  }
  lth_status st = lth_pval_zeros(x, pos, m, n, out);
  if (st == LTH_OK && !a->ext && !b->ext && m > 0 && n > 0 && q > 0) { /* numbers: BLAS */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, q, 1.0, a->val, q, b->val, n, 0.0,
                out->val, n);
    for (size_t k = 0; k < (size_t)m * n && st == LTH_OK; k++) {
      out->val[k] += 0.0; /* no negative zeros */
      if (!isfinite(out->val[k])) {
        st = lth_pcur_error(x->c, pos, LTH_EPARSE, "non-finite value from '*' (matrix product)");
      }
    }
    if (st != LTH_OK) {
      lth_pval_free(out);
    }
    return st;
  }
  for (int i = 0; i < m && st == LTH_OK; i++) {
    for (int j = 0; j < n && st == LTH_OK; j++) {
      lth_plin acc = LTH_PLIN_ZERO;
      double s = 0.0;
      int general = 0;
      for (int k = 0; k < q && st == LTH_OK; k++) {
        lth_plin ta, tb, p, sum;
        const lth_plin *ea = entry(a, (size_t)i * q + k, &ta);
        const lth_plin *eb = entry(b, (size_t)k * n + j, &tb);
        if (lth_plin_const(ea) && lth_plin_const(eb)) {
          s += ea->c0.v * eb->c0.v;
          continue;
        }
        general = 1;
        st = lth_plin_mul(x, pos, ea, eb, &p);
        if (st == LTH_OK) {
          st = lth_plin_add(x, pos, '+', &acc, &p, &sum);
          lth_plin_free(&p);
          lth_plin_free(&acc);
          acc = sum;
        }
      }
      if (st == LTH_OK && !isfinite(s)) {
        st = lth_pcur_error(x->c, pos, LTH_EPARSE, "non-finite value from '*' (matrix product)");
      }
      if (st == LTH_OK && general) {
        lth_plin cs = LTH_PLIN_ZERO, sum;
        cs.c0.v = s;
        st = lth_plin_add(x, pos, '+', &acc, &cs, &sum);
        if (st == LTH_OK) {
          st = store(x, pos, out, (size_t)i * n + j, &sum);
        }
      } else if (st == LTH_OK) {
        out->val[(size_t)i * n + j] = s;
      }
      lth_plin_free(&acc);
    }
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

static lth_status lin_add_op(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                             const lth_plin *b, lth_plin *out) {
  return lth_plin_add(x, pos, op, a, b, out);
}

/* a / s or a ^ s entrywise, s a scalar free of unknowns. */
static lth_status lin_div_op(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                             const lth_plin *b, lth_plin *out) {
  return lth_plin_scale(x, pos, op, a, &b->c0, 0, out);
}

static lth_status binop_checked(const lth_pvctx *x, size_t pos, int op, lth_pval *a, lth_pval *b,
                                lth_pval *out) {
  if (a->sp || b->sp) {
    return lth_pval_sparse_binop(x, pos, op, a, b, out);
  }
  int sa = a->rows == 1 && a->cols == 1, sb = b->rows == 1 && b->cols == 1;
  char nm[80];
  lth_plin tmp;
  switch (op) {
  case '+':
  case '-':
    if (!sa && !sb && (a->rows != b->rows || a->cols != b->cols)) {
      return lth_pcur_error(x->c, pos, LTH_EDIM,
                            "'%c' of a %d x %d and a %d x %d matrix: the sizes must agree", op,
                            a->rows, a->cols, b->rows, b->cols);
    }
    return entrywise(x, pos, op, lin_add_op, a, b, out);
  case '*':
    if (sa || sb) {
      return entrywise(x, pos, op, lin_mul_op, a, b, out);
    }
    if (a->cols != b->rows) {
      return lth_pcur_error(x->c, pos, LTH_EDIM,
                            "'*' of a %d x %d and a %d x %d matrix: the inner sizes must agree "
                            "(%d != %d)",
                            a->rows, a->cols, b->rows, b->cols, a->cols, b->rows);
    }
    return matmul(x, pos, a, b, out);
  default: /* '/' and '^' */
    if (!sb) {
      return lth_pcur_error(
          x->c, pos, LTH_EDIM, "'%c' needs a scalar on its right, found a %d x %d matrix%s", op,
          b->rows, b->cols, op == '/' ? " (matrix division is not supported)" : "");
    }
    if (!lth_plin_pure(entry(b, 0, &tmp))) {
      return lth_pcur_error(
          x->c, pos, LTH_EPARSE, "%s is not linear in the unknowns: %s %s %s", lth_pvctx_subject(x),
          op == '/' ? "division by" : "power with the exponent",
          lth_plin_name(x, entry(b, 0, &tmp), nm, sizeof nm), op == '/' ? "" : "(an unknown)");
    }
    if (op == '^' && !sa) {
      return lth_pcur_error(x->c, pos, LTH_EDIM,
                            "'^' of a %d x %d matrix: matrix powers are not supported (write "
                            "the product)",
                            a->rows, a->cols);
    }
    if (op == '^' && !lth_plin_pure(entry(a, 0, &tmp)) &&
        !lth_psc_is(&entry(b, 0, &tmp)->c0, 1.0)) {
      return lth_pcur_error(
          x->c, pos, LTH_EPARSE, "%s is not linear in the unknowns: '^' raises %s to a power",
          lth_pvctx_subject(x), lth_plin_name(x, entry(a, 0, &tmp), nm, sizeof nm));
    }
    if (op == '^' && !lth_plin_pure(entry(a, 0, &tmp))) { /* x^1 */
      lth_pval one = {1, 1, NULL, NULL, NULL};
      double v = 1.0;
      one.val = &v;
      return entrywise(x, pos, '*', lin_mul_op, a, &one, out);
    }
    return entrywise(x, pos, op, lin_div_op, a, b, out);
  }
}

lth_status lth_pval_binop(const lth_pvctx *x, size_t pos, int op, lth_pval *a, lth_pval *b,
                          lth_pval *out) {
  memset(out, 0, sizeof *out);
  lth_status st = binop_checked(x, pos, op, a, b, out);
  lth_pval_free(a);
  lth_pval_free(b);
  return st;
}

lth_status lth_pval_neg(const lth_pvctx *x, size_t pos, lth_pval *a) {
  if (a->sp) {
    return lth_pval_sparse_neg(x, pos, a);
  }
  size_t n = (size_t)a->rows * (size_t)a->cols;
  for (size_t k = 0; k < n; k++) {
    a->val[k] = -a->val[k] + 0.0; /* no negative zeros */
    lth_plin *l = a->ext ? a->ext[k] : NULL;
    if (!l) {
      continue;
    }
    lth_psc s = LTH_PSC_CONST(-1.0);
    lth_plin r;
    lth_status st = lth_plin_scale(x, pos, '*', l, &s, 1, &r);
    if (st != LTH_OK) {
      return st;
    }
    lth_plin_free(l);
    *l = r;
  }
  return LTH_OK;
}

lth_status lth_pval_transpose(const lth_pvctx *x, size_t pos, lth_pval *a) {
  if (a->sp) {
    return lth_pval_sparse_transpose(x, pos, a);
  }
  int m = a->rows, n = a->cols;
  if (m <= 1 && n <= 1) {
    return LTH_OK;
  }
  size_t cnt = (size_t)m * (size_t)n;
  double *val = malloc(cnt * sizeof *val);
  lth_plin **ext = a->ext ? malloc(cnt * sizeof *ext) : NULL;
  if (!val || (a->ext && !ext)) {
    free(val);
    free(ext);
    return lth_pval_nomem(x, pos);
  }
  for (int i = 0; i < m; i++) {
    for (int j = 0; j < n; j++) {
      val[(size_t)j * m + i] = a->val[(size_t)i * n + j];
      if (ext) {
        ext[(size_t)j * m + i] = a->ext[(size_t)i * n + j];
      }
    }
  }
  free(a->val);
  free(a->ext);
  a->val = val;
  a->ext = ext;
  a->rows = n;
  a->cols = m;
  return LTH_OK;
}

lth_status lth_pval_func(const lth_pvctx *x, size_t pos, int fn, lth_pval *a) {
  char nm[80];
  lth_plin tmp, r = LTH_PLIN_ZERO;
  lth_status dst = lth_pval_eye_dense(x, pos, a); /* fn(eye): the dense one's message */
  if (dst != LTH_OK) {
    return dst;
  }
  if (a->sp) {
    char what[32];
    snprintf(what, sizeof what, "%s(mm(...))", lth_expr_func_name(fn));
    return lth_pval_sparse_refuse(x, pos, what);
  }
  if (a->rows != 1 || a->cols != 1) {
    return lth_pcur_error(x->c, pos, LTH_EDIM,
                          "%s of a %d x %d matrix: functions apply to scalars (entrywise "
                          "functions are not supported)",
                          lth_expr_func_name(fn), a->rows, a->cols);
  }
  const lth_plin *l = entry(a, 0, &tmp);
  if (!lth_plin_pure(l)) {
    return lth_pcur_error(
        x->c, pos, LTH_EPARSE, "%s is not linear in the unknowns: %s is inside %s(...)",
        lth_pvctx_subject(x), lth_plin_name(x, l, nm, sizeof nm), lth_expr_func_name(fn));
  }
  lth_status st = lth_psc_func(x, pos, fn, &l->c0, &r.c0);
  if (st == LTH_OK && a->ext && a->ext[0]) {
    lth_plin_free(a->ext[0]);
    free(a->ext[0]);
    a->ext[0] = NULL;
  }
  return st == LTH_OK ? store(x, pos, a, 0, &r) : st;
}

/* Concatenation: place b's entries next to (hcat) or below (vcat) a's. */
static lth_status concat(const lth_pvctx *x, size_t pos, lth_pval *a, lth_pval *b, int horiz) {
  lth_pval out;
  lth_status dst = lth_pval_eye_dense(x, pos, a);
  dst = dst == LTH_OK ? lth_pval_eye_dense(x, pos, b) : dst;
  if (dst != LTH_OK || a->sp || b->sp) {
    lth_pval_free(a);
    lth_pval_free(b);
    return dst != LTH_OK ? dst
                         : lth_pval_sparse_refuse(x, pos, "a matrix from mm(...) inside [ ... ]");
  }
  int rows = horiz ? a->rows : a->rows + b->rows, cols = horiz ? a->cols + b->cols : a->cols;
  lth_status st = lth_pval_zeros(x, pos, rows, cols, &out);
  for (int part = 0; part < 2 && st == LTH_OK; part++) {
    lth_pval *src = part ? b : a;
    int r0 = part && !horiz ? a->rows : 0, c0 = part && horiz ? a->cols : 0;
    for (int i = 0; i < src->rows; i++) {
      for (int j = 0; j < src->cols; j++) {
        size_t ks = (size_t)i * src->cols + j, kd = (size_t)(r0 + i) * cols + (c0 + j);
        out.val[kd] = src->val[ks];
        if (src->ext && src->ext[ks]) {
          if (!out.ext && !(out.ext = calloc((size_t)rows * cols, sizeof *out.ext))) {
            st = lth_pval_nomem(x, pos);
            break;
          }
          out.ext[kd] = src->ext[ks];
          src->ext[ks] = NULL;
        }
      }
    }
  }
  lth_pval_free(b);
  if (st != LTH_OK) {
    lth_pval_free(&out);
    lth_pval_free(a);
    return st;
  }
  lth_pval_free(a);
  *a = out;
  return LTH_OK;
}

lth_status lth_pval_hcat(const lth_pvctx *x, size_t pos, lth_pval *a, lth_pval *b,
                         const char *what) {
  if (a->rows != b->rows) {
    lth_status st = lth_pcur_error(x->c, pos, LTH_EDIM,
                                   "%s: a %d x %d matrix next to a %d x %d one (entries side by "
                                   "side need the same number of rows)",
                                   what, b->rows, b->cols, a->rows, a->cols);
    lth_pval_free(a);
    lth_pval_free(b);
    return st;
  }
  return concat(x, pos, a, b, 1);
}

lth_status lth_pval_vcat(const lth_pvctx *x, size_t pos, lth_pval *a, lth_pval *b,
                         const char *what) {
  if (a->cols != b->cols) {
    lth_status st = lth_pcur_error(x->c, pos, LTH_EDIM, "%s", what);
    lth_pval_free(a);
    lth_pval_free(b);
    return st;
  }
  return concat(x, pos, a, b, 0);
}

int lth_pval_has_unknowns(const lth_pval *a) {
  size_t n = (size_t)a->rows * (size_t)a->cols;
  for (size_t k = 0; a->ext && k < n; k++) {
    if (a->ext[k] && a->ext[k]->n > 0) {
      return 1;
    }
  }
  return 0;
}

int lth_pval_has_t(const lth_pval *a) {
  if (a->sp) {
    return lth_psparse_has_t(a->sp);
  }
  size_t n = (size_t)a->rows * (size_t)a->cols;
  for (size_t k = 0; a->ext && k < n; k++) {
    const lth_plin *l = a->ext[k];
    if (l && (l->c0.node >= 0 || l->c0.src)) {
      return 1;
    }
    for (int i = 0; l && i < l->n; i++) {
      if (l->t[i].c.node >= 0 || l->t[i].c.src) {
        return 1;
      }
    }
  }
  return 0;
}

double *lth_pval_colmajor(const lth_pval *a) {
  size_t n = (size_t)a->rows * (size_t)a->cols;
  double *out = malloc((n ? n : 1) * sizeof *out);
  if (out) {
    for (int i = 0; i < a->rows; i++) {
      for (int j = 0; j < a->cols; j++) {
        out[i + (size_t)j * a->rows] = a->val[(size_t)i * a->cols + j];
      }
    }
  }
  return out;
}

lth_status lth_pval_source(lth_pcur *c, size_t pos, const lth_pval *a, lth_source **out) {
  int m = a->rows, n = a->cols;
  size_t cnt = (size_t)m * (size_t)n;
  *out = NULL;
  if (a->sp) {
    lth_pvctx x = {.c = c};
    return lth_pval_sparse_refuse(&x, pos, "a matrix from mm(...) here");
  }
  if (!lth_pval_has_t(a)) {
    double *cm = lth_pval_colmajor(a);
    *out = cm ? lth_source_const(m, n, cm, m > 0 ? m : 1, c->err) : NULL;
    free(cm);
    return *out ? LTH_OK : lth_pcur_locate(c, pos, LTH_ENOMEM);
  }
  lth_expr **e = calloc(cnt, sizeof *e);
  if (!e) {
    return lth_pcur_error(c, pos, LTH_ENOMEM, "out of memory building an expression block");
  }
  lth_status st = LTH_OK;
  for (int i = 0; i < m && st == LTH_OK; i++) {
    for (int j = 0; j < n && st == LTH_OK; j++) {
      lth_plin tmp;
      const lth_plin *l = entry(a, (size_t)i * n + j, &tmp);
      if (l->c0.src) {
        st = lth_pcur_error(c, pos, LTH_EPARSE,
                            "samples(...) inside a formula belongs to the equation form; in a "
                            "block, samples(\"file.csv\") stands alone");
      } else if (l->c0.node >= 0 || l->c0.v != 0.0) {
        st = lth_psc_compile(c, pos, &l->c0, 1.0, &e[i + (size_t)j * m]);
      }
    }
  }
  if (st != LTH_OK) {
    for (size_t k = 0; k < cnt; k++) {
      lth_expr_free(e[k]);
    }
    free(e);
    return st;
  }
  *out = lth_source_expr(m, n, e, c->err);
  free(e);
  return *out ? LTH_OK : lth_pcur_locate(c, pos, LTH_ENOMEM);
}
