/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix literals [ ... ] and the builders eye, zeros, ones, diag
 * (lib/reader/problem_lit.h; blanks as entry separators: problem_lit.c),
 * on the tokens of the jet layer's grammar (lib/jet/expr_grammar.h), which
 * parses every entry. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_lit.h"
#include "source/csc.h"

#define ERR LTH_PLIT_ERR

/* A constant integer argument of eye/zeros/ones in [0, LTH_P_MAX_BLOCK_SIZE]. */
static lth_status int_arg(lth_plp *p, const char *fn, long *v) {
  lth_pval a;
  size_t b = p->g.tok.start;
  lth_status st = lth_plit_arg(p, fn, &a);
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

/* diag(v) from the token after its '(' at open. */
static lth_status diag(lth_plp *p, size_t b, size_t open, lth_pval *out) {
  lth_pval v;
  lth_status st = lth_plit_arg(p, "diag(", &v);
  if (st == LTH_OK) {
    lth_gval slot;
    lth_plit_put(&slot, &v);
    st = lth_gparser_close(&p->g, open, &slot);
    v = lth_plit_get(&slot);
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

/* (m) or (m, n) of zeros, ones, eye from the token after the '('. */
static lth_status sizes(lth_plp *p, const char *fn, long *m, long *n) {
  lth_status st = int_arg(p, fn, m);
  *n = *m;
  if (st == LTH_OK && lth_gparser_at(&p->g, ',')) {
    st = lth_gparser_next(&p->g);
    if (st == LTH_OK) {
      st = int_arg(p, fn, n);
    }
  }
  if (st == LTH_OK && !lth_gparser_at(&p->g, ')')) {
    char what[64];
    snprintf(what, sizeof what, "expected ')' after the size of %s", fn);
    st = lth_gparser_unexpected(&p->g, what);
  }
  return st != LTH_OK ? st : lth_gparser_next(&p->g);
}

/* eye, zeros, ones with (n) or (m, n); bare eye takes the target's size. */
lth_status lth_plit_builder(lth_plp *p, const char *fn, int call, lth_pval *out) {
  size_t b = p->g.tok.start;
  long m = 0, n = 0;
  memset(out, 0, sizeof *out);
  lth_status st = lth_gparser_next(&p->g);
  if (st != LTH_OK) {
    return st;
  }
  if (!call && strcmp(fn, "eye") != 0) {
    return lth_gparser_unexpected(&p->g, strcmp(fn, "diag") == 0
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
    size_t open = p->g.tok.start;
    if ((st = lth_gparser_next(&p->g)) != LTH_OK) {
      return st;
    }
    if (strcmp(fn, "diag") == 0) {
      return diag(p, b, open, out);
    }
    if ((st = sizes(p, fn, &m, &n)) != LTH_OK) {
      return st;
    }
  }
  if (fn[0] == 'e' && p->o->mm && (m >= LTH_P_SPARSE_EYE_MIN || n >= LTH_P_SPARSE_EYE_MIN)) {
    /* where sparse values are allowed (a block's right-hand side), a large
     * identity is a sparse value of its diagonal: c(t)*eye and
     * mm("K.mtx") + c(t)*eye cost n entries; where it meets what a sparse
     * value cannot (a matrix literal, a product with a matrix) it becomes
     * dense again (lth_pval_eye_dense) */
    lth_csc *eye = lth_csc_identity((int)m, (int)n, NULL);
    st = eye ? lth_pval_mm(&p->x, b, eye, out)
             : lth_pcur_error(p->c, b, LTH_ENOMEM, "out of memory");
    if (st == LTH_OK) {
      out->sp->dense_ok = 1;
    }
    return st;
  }
  st = lth_pval_zeros(&p->x, b, m, n, out);
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
  return lth_pcur_error(p->c, p->g.tok.start, LTH_ENOMEM, "out of memory reading a matrix literal");
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
    a->row_pos = p->g.tok.start;
  }
  lth_gval slot;
  size_t eb = p->g.tok.start;
  lth_status st = lth_gparser_expr(&p->g, NULL, &slot);
  if (st != LTH_OK) {
    return st;
  }
  lth_pval e = lth_plit_get(&slot);
  if ((st = lth_pval_eye_dense(&p->x, eb, &e)) != LTH_OK) {
    lth_pval_free(&e);
    return st;
  }
  if (e.sp) {
    lth_pval_free(&e);
    return lth_pval_sparse_refuse(&p->x, eb, "a matrix from mm(...) inside [ ... ]");
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

/* At the current '[' (the blank rule on). */
lth_status lth_plit_matrix(lth_plp *p, lth_pval *out) {
  rowacc a;
  memset(&a, 0, sizeof a);
  memset(out, 0, sizeof *out);
  a.all_scalar = a.row_scalar = 1;
  lth_gparser *g = &p->g;
  size_t open = g->tok.start;
  int after_comma = 0;
  lth_status st = lth_gparser_next(g);
  while (st == LTH_OK) {
    int end = g->tok.kind == LTH_GTK_END, nl = lth_gparser_at(g, '\n');
    if (after_comma && (lth_gparser_at(g, ';') || lth_gparser_at(g, ']') || end)) {
      st = lth_gparser_unexpected(g, "expected an entry after ','");
    } else if (end) {
      st = ERR(p, g->tok.start, "expected ']' to close the '[' of this matrix literal");
    } else if (nl && after_comma) {
      st = lth_gparser_next(g); /* a row continues after a trailing ',' */
    } else if (nl || lth_gparser_at(g, ';') || lth_gparser_at(g, ']')) {
      int close = lth_gparser_at(g, ']');
      st = close_row(p, &a);
      if (st == LTH_OK) {
        st = lth_gparser_next(g);
      }
      if (close) {
        break;
      }
    } else if (lth_gparser_at(g, ',')) {
      st = ERR(p, g->tok.start,
               after_comma ? "empty expression between two ','" : "expected an entry before ','");
    } else if (a.count > 0 && !after_comma && !g->tok.sp_before) {
      st = lth_gparser_unexpected(g, "expected ',', a blank, ';' or ']' after an entry");
    } else {
      st = add_entry(p, &a);
      after_comma = st == LTH_OK && lth_gparser_at(g, ',');
      if (after_comma) {
        st = lth_gparser_next(g);
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
