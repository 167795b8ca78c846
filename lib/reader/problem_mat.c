/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix literals [ ... ] and the builders eye, zeros, ones, diag
 * (lib/reader/problem_lit.h; blanks as entry separators: problem_lit.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_lit.h"

#define ERR LTH_PLIT_ERR

/* A constant integer argument of eye/zeros/ones in [0, LTH_P_MAX_BLOCK_SIZE]. */
static lth_status int_arg(lth_plp *p, const char *fn, long *v) {
  lth_pval a;
  size_t b = p->tk.b;
  lth_status st = lth_plit_nested(p, 0, fn, &a);
  if (st != LTH_OK) {
    return st;
  }
  double d = 0.0;
  int ok = a.rows == 1 && a.cols == 1 && lth_pval_entry_const(&a, 0, &d);
  lth_pval_free(&a);
  if (!ok || !(d >= 0 && d <= LTH_P_MAX_BLOCK_SIZE) || d != floor(d)) {
    return ERR(p, b, "the size in %s(...) must be a constant integer from 0 to %ld", fn,
               LTH_P_MAX_BLOCK_SIZE);
  }
  *v = (long)d;
  return LTH_OK;
}

/* eye, zeros, ones with (n) or (m, n); bare eye takes the target's size. */
lth_status lth_plit_builder(lth_plp *p, const char *fn, lth_pval *out) {
  size_t b = p->tk.b;
  lth_plit_next(p);
  long m = 0, n = 0;
  int call = lth_plit_is_op(p, '(') && !(p->bracket && p->tk.sp_before);
  if (!call && strcmp(fn, "eye") != 0) {
    return lth_plit_unexpected(p, strcmp(fn, "diag") == 0
                                      ? "expected '(' after diag: diag([...])"
                                      : "expected '(' and a size after zeros/ones: "
                                        "zeros(m, n)");
  }
  if (!call) {
    const lth_plit_opts *o = p->o;
    if (o->eye_rows <= 0) {
      return ERR(p, b, "`eye` has no size here: write eye(n)");
    }
    if (o->eye_rows != o->eye_cols) {
      return ERR(p, b,
                 "`eye` needs a square block, but %s is %d x %d (write eye(m, n) for a "
                 "rectangular one)",
                 o->label ? o->label : "the target", o->eye_rows, o->eye_cols);
    }
    m = n = o->eye_rows;
  } else {
    size_t open = p->tk.b;
    lth_plit_next(p);
    if (strcmp(fn, "diag") == 0) {
      lth_pval v;
      lth_status st = lth_plit_nested(p, 0, "diag(", &v);
      if (st == LTH_OK) {
        st = lth_plit_expect_close(p, open, &v);
      }
      if (st != LTH_OK) {
        return st;
      }
      if (v.rows != 1 && v.cols != 1) {
        lth_pval_free(&v);
        return ERR(p, b, "diag(...) needs a vector, found a %d x %d matrix", v.rows, v.cols);
      }
      long k = (long)v.rows * v.cols;
      st = lth_pval_zeros(&p->x, b, k, k, out);
      for (long i = 0; st == LTH_OK && i < k; i++) {
        out->val[i * k + i] = v.val[i];
        if (v.ext && v.ext[i]) {
          if (!out->ext && !(out->ext = calloc((size_t)(k * k), sizeof *out->ext))) {
            st = lth_pcur_error(p->c, b, LTH_ENOMEM, "out of memory");
            break;
          }
          out->ext[i * k + i] = v.ext[i];
          v.ext[i] = NULL;
        }
      }
      lth_pval_free(&v);
      if (st != LTH_OK) {
        lth_pval_free(out);
      }
      return st;
    }
    lth_status st = int_arg(p, fn, &m);
    n = m;
    if (st == LTH_OK && lth_plit_is_op(p, ',')) {
      lth_plit_next(p);
      st = int_arg(p, fn, &n);
    }
    if (st == LTH_OK && !lth_plit_is_op(p, ')')) {
      char what[64];
      snprintf(what, sizeof what, "expected ')' after the size of %s", fn);
      st = lth_plit_unexpected(p, what);
    }
    if (st != LTH_OK) {
      return st;
    }
    lth_plit_next(p);
  }
  lth_status st = lth_pval_zeros(&p->x, b, m, n, out);
  for (long i = 0; st == LTH_OK && i < m; i++) {
    for (long j = 0; j < n; j++) {
      out->val[i * n + j] = fn[0] == 'o' ? 1.0 : (fn[0] == 'e' && i == j) ? 1.0 : 0.0;
    }
  }
  return st;
}

/* ------------------------------------------------------------------------ */
/* Matrix literals                                                          */

/* The literal is built without quadratic copying: scalar entries of a row
 * are appended to a run (amortised doubling), matrices become pieces of the
 * row, and the rows are stacked once at the end. */
typedef struct rowacc {
  lth_pval *rows; /* completed rows */
  int nrows, caprows;
  int all_scalar;   /* every entry so far was 1 x 1 */
  lth_pval *pieces; /* the current row: runs of scalars and matrices */
  int npieces, cappieces;
  lth_pval run; /* the current run of scalars, 1 x run.cols */
  size_t runcap;
  int count; /* entries in the current row */
  int row_scalar;
  size_t row_pos;
} rowacc;

static lth_status acc_nomem(lth_plp *p) {
  return lth_pcur_error(p->c, p->tk.b, LTH_ENOMEM, "out of memory reading a matrix literal");
}

static int grow(void **ptr, int *cap, int need, size_t size) {
  if (need <= *cap) {
    return 1;
  }
  int nc = *cap ? 2 * *cap : 8;
  nc = nc < need ? need : nc;
  void *np = realloc(*ptr, (size_t)nc * size);
  if (!np) {
    return 0;
  }
  *ptr = np;
  *cap = nc;
  return 1;
}

/* Append the 1 x 1 value e (consumed) to the run. */
static lth_status run_append(lth_plp *p, rowacc *a, lth_pval *e) {
  lth_pval *r = &a->run;
  size_t n = (size_t)r->cols;
  if (n == a->runcap) {
    size_t cap = a->runcap ? 2 * a->runcap : 16;
    double *nv = realloc(r->val, cap * sizeof *nv);
    if (nv) {
      r->val = nv;
    }
    lth_plin **ne = r->ext ? realloc(r->ext, cap * sizeof *ne) : NULL;
    if (ne) {
      r->ext = ne;
      memset(ne + n, 0, (cap - n) * sizeof *ne);
    }
    if (!nv || (r->ext && !ne)) {
      lth_pval_free(e);
      return acc_nomem(p);
    }
    a->runcap = cap;
  }
  if (e->ext && e->ext[0] && !r->ext) {
    if (!(r->ext = calloc(a->runcap, sizeof *r->ext))) {
      lth_pval_free(e);
      return acc_nomem(p);
    }
  }
  r->val[n] = e->val[0];
  if (r->ext) {
    r->ext[n] = e->ext ? e->ext[0] : NULL;
  }
  if (e->ext) {
    e->ext[0] = NULL;
  }
  r->rows = 1;
  r->cols++;
  lth_pval_free(e);
  return LTH_OK;
}

static lth_status push_piece(lth_plp *p, rowacc *a, lth_pval *e) {
  if (!grow((void **)&a->pieces, &a->cappieces, a->npieces + 1, sizeof *a->pieces)) {
    lth_pval_free(e);
    return acc_nomem(p);
  }
  a->pieces[a->npieces++] = *e;
  memset(e, 0, sizeof *e);
  return LTH_OK;
}

static lth_status flush_run(lth_plp *p, rowacc *a) {
  if (a->run.cols == 0) {
    return LTH_OK;
  }
  a->runcap = 0;
  return push_piece(p, a, &a->run);
}

static lth_status close_row(lth_plp *p, rowacc *a) {
  if (a->count == 0) {
    return LTH_OK; /* blank line, or ';' right after a row */
  }
  lth_status st = flush_run(p, a);
  lth_pval row = a->pieces[0];
  for (int k = 1; k < a->npieces; k++) {
    if (st == LTH_OK) {
      st = lth_pval_hcat(&p->x, a->row_pos, &row, &a->pieces[k], "in a row of this matrix literal");
    } else {
      lth_pval_free(&a->pieces[k]);
    }
  }
  a->npieces = 0;
  if (st == LTH_OK && a->nrows > 0 && row.cols != a->rows[0].cols) {
    int nrow = 1;
    for (int k = 0; k < a->nrows; k++) {
      nrow += a->rows[k].rows;
    }
    if (a->all_scalar && a->row_scalar) {
      st = ERR(p, a->row_pos,
               "row %d of the matrix has %d %s, but row 1 has %d: every row needs the same number "
               "of entries",
               nrow, a->count, a->count == 1 ? "entry" : "entries", a->rows[0].cols);
    } else {
      st = ERR(p, a->row_pos,
               "row %d of the matrix has %d column%s, but row 1 has %d: every row needs the same "
               "number of columns",
               nrow, row.cols, row.cols == 1 ? "" : "s", a->rows[0].cols);
    }
  }
  if (st == LTH_OK && !grow((void **)&a->rows, &a->caprows, a->nrows + 1, sizeof *a->rows)) {
    st = acc_nomem(p);
  }
  if (st != LTH_OK) {
    lth_pval_free(&row);
    return st;
  }
  a->rows[a->nrows++] = row;
  a->all_scalar = a->all_scalar && a->row_scalar;
  a->count = 0;
  a->row_scalar = 1;
  return LTH_OK;
}

static lth_status add_entry(lth_plp *p, rowacc *a) {
  if (a->count == 0) {
    a->row_pos = p->tk.b;
  }
  lth_pval e;
  lth_status st = lth_plit_expr(p, NULL, &e);
  if (st != LTH_OK) {
    return st;
  }
  a->count++;
  if (e.rows == 1 && e.cols == 1) {
    return run_append(p, a, &e);
  }
  a->row_scalar = 0;
  st = flush_run(p, a);
  return st == LTH_OK ? push_piece(p, a, &e) : (lth_pval_free(&e), st);
}

/* Stack the rows into one value (consumes them). */
static lth_status stack_rows(lth_plp *p, rowacc *a, lth_pval *out) {
  long rows = 0;
  int cols = a->rows[0].cols, any_ext = 0;
  for (int k = 0; k < a->nrows; k++) {
    rows += a->rows[k].rows;
    any_ext = any_ext || a->rows[k].ext != NULL;
  }
  lth_status st = lth_pval_zeros(&p->x, a->row_pos, rows, cols, out);
  size_t off = 0;
  if (st == LTH_OK && any_ext && !(out->ext = calloc((size_t)rows * cols, sizeof *out->ext))) {
    st = acc_nomem(p);
  }
  for (int k = 0; k < a->nrows && st == LTH_OK; k++) {
    lth_pval *r = &a->rows[k];
    size_t n = (size_t)r->rows * (size_t)r->cols;
    memcpy(out->val + off, r->val, n * sizeof *r->val);
    if (r->ext) {
      memcpy(out->ext + off, r->ext, n * sizeof *r->ext);
      memset(r->ext, 0, n * sizeof *r->ext);
    }
    off += n;
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

static void acc_free(rowacc *a) {
  for (int k = 0; k < a->nrows; k++) {
    lth_pval_free(&a->rows[k]);
  }
  for (int k = 0; k < a->npieces; k++) {
    lth_pval_free(&a->pieces[k]);
  }
  lth_pval_free(&a->run);
  free(a->rows);
  free(a->pieces);
}

lth_status lth_plit_matrix(lth_plp *p, lth_pval *out) {
  rowacc a;
  memset(&a, 0, sizeof a);
  a.all_scalar = a.row_scalar = 1;
  size_t open = p->tk.b;
  int after_comma = 0;
  lth_status st = LTH_OK;
  lth_plit_next(p);
  while (st == LTH_OK) {
    int k = p->tk.kind;
    if (after_comma && (lth_plit_is_op(p, ';') || lth_plit_is_op(p, ']') || k == T_END)) {
      st = lth_plit_unexpected(p, "expected an entry after ','");
    } else if (k == T_END) {
      st = ERR(p, p->tk.b, "expected ']' to close the '[' of this matrix literal");
    } else if (k == T_NL && after_comma) {
      lth_plit_next(p); /* a row continues after a trailing ',' */
    } else if (k == T_NL || lth_plit_is_op(p, ';') || lth_plit_is_op(p, ']')) {
      int end = lth_plit_is_op(p, ']');
      st = close_row(p, &a);
      lth_plit_next(p);
      if (end) {
        break;
      }
    } else if (lth_plit_is_op(p, ',')) {
      st = ERR(p, p->tk.b,
               after_comma ? "empty expression between two ','" : "expected an entry before ','");
    } else if (a.count > 0 && !after_comma && !p->tk.sp_before) {
      st = lth_plit_unexpected(p, "expected ',', a blank, ';' or ']' after an entry");
    } else {
      st = add_entry(p, &a);
      after_comma = st == LTH_OK && lth_plit_is_op(p, ',');
      if (after_comma) {
        lth_plit_next(p);
      }
    }
  }
  if (st == LTH_OK && a.nrows == 0) {
    st = ERR(p, open, "empty matrix literal: expected entries in '[ ]'");
  }
  if (st == LTH_OK) {
    st = stack_rows(p, &a, out);
  }
  acc_free(&a);
  return st;
}
