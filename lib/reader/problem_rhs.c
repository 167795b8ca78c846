/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: right-hand sides of blocks -- matrix literals, `eye`,
 * samples("file.csv"), bare expressions, mm("file.mtx") and its
 * combinations -- and the sources they become.
 * lib/reader/problem_impl.h. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/samples.h"
#include "mtx.h"
#include "problem_impl.h"

/* Budget against hostile sizes: the total of rows*cols over the blocks. */

static char *join_path(const char *dir, const char *s, size_t n) {
  size_t dn = (dir && s[0] != '/') ? strlen(dir) : 0;
  char *p = malloc(dn + 1 + n + 1);
  if (p) {
    if (dn) {
      memcpy(p, dir, dn);
      p[dn++] = '/';
    }
    memcpy(p + dn, s, n);
    p[dn + n] = '\0';
  }
  return p;
}

lth_status lth_pp_add_sampled(lth_pp *P, const char *label, const lth_source *src, lth_spos at,
                              const char *path, size_t n) {
  lth_problem *pb = P->pb;
  if (pb->nsampled == P->cap_sampled) {
    size_t cap = P->cap_sampled ? 2 * P->cap_sampled : 4;
    lth_psampled *ns = realloc(pb->sampled, cap * sizeof *ns);
    if (!ns) {
      return lth_pp_at_error(P, at, LTH_ENOMEM, "out of memory");
    }
    pb->sampled = ns;
    P->cap_sampled = cap;
  }
  lth_psampled *se = &pb->sampled[pb->nsampled];
  snprintf(se->label, sizeof se->label, "%s", label);
  se->src = src;
  se->at = at;
  se->path = join_path(NULL, path, n);
  if (!se->path) {
    return lth_pp_at_error(P, at, LTH_ENOMEM, "out of memory");
  }
  pb->nsampled++;
  return LTH_OK;
}

/* ("name") after a word such as `samples` or `mm`, the cursor after the word:
 * the name's offset and length into *b, *n (what: the call's name in messages,
 * kind: what the file is, e.g. "CSV file"). */
static lth_status quoted_file_arg(lth_pp *P, const char *what, const char *kind,
                                  const char *example, size_t *b, size_t *n) {
  lth_pcur *c = &P->c;
  char msg[96];
  snprintf(msg, sizeof msg, "'(' after `%s`", what);
  lth_status st = lth_pcur_expect(c, '(', msg);
  if (st == LTH_OK) {
    snprintf(msg, sizeof msg, "a quoted %s name: %s", kind, example);
    st = lth_pcur_expect(c, '"', msg);
  }
  if (st != LTH_OK) {
    return st;
  }
  *b = c->pos;
  while (c->pos < c->st.e && c->tx->buf[c->pos] != '"' && c->tx->buf[c->pos] != '\n') {
    c->pos++;
  }
  if (c->pos >= c->st.e || c->tx->buf[c->pos] != '"') {
    return LTH_PERR(P, *b - 1, LTH_EPARSE,
                    "unterminated string: expected '\"' to end the file name");
  }
  if (c->pos == *b) {
    return LTH_PERR(P, *b - 1, LTH_EPARSE, "empty %s name in %s(\"\")", kind, what);
  }
  *n = c->pos++ - *b;
  return lth_pcur_expect(c, ')', "')' after the file name");
}

/* samples("file.csv"), the cursor after the word `samples`. */
lth_status lth_pp_samples_call(lth_pp *P, const char *label, int rows, int cols, lth_source **out,
                               size_t *path_b, size_t *path_n, int to_end) {
  lth_pcur *c = &P->c;
  size_t b = 0, n = 0;
  lth_status st = quoted_file_arg(P, "samples", "CSV file", "samples(\"file.csv\")", &b, &n);
  if (st == LTH_OK && to_end) {
    st = lth_pcur_end(c, "samples(...)");
  }
  if (st != LTH_OK) {
    return st;
  }
  char *path = join_path(P->basedir, c->tx->buf + b, n);
  if (!path) {
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  lth_samples_opts so;
  lth_samples_opts_init(&so);
  /* block form: an automatic degree unless `sampling order` fixes it; the
   * equation form fixes its own (EQN_SAMPLING_ORDER: the index is not known
   * while its equations are read) */
  so.degree = P->K_given || P->pb->K > 0 ? P->pb->K : LTH_SAMPLES_AUTO;
  so.need_order = P->r; /* the decomposition and its check */
  so.noise_kind = P->noise_kind;
  so.noise = P->noise;
  *out = lth_samples_read_csv_opts(path, rows, cols, &so, P->err);
  free(path);
  *path_b = b;
  *path_n = n;
  if (*out) {
    return LTH_OK;
  }
  st = P->err ? P->err->status : LTH_ESAMPLE;
  if (!P->err || P->err->line == 0) {
    /* the file itself is the problem: point at its name in the data file */
    return lth_pcur_locate(c, b, st);
  }
  lth_spos s = lth_pp_here(P, b);
  const char *base = strrchr(P->tx.name, '/'); /* the prefix has little room */
  lth_error_prefix(P->err, "%s = samples(\"%.*s\") on line %d of %s: ", label,
                   (int)(n > 32 ? 32 : n), c->tx->buf + b, s.line, base ? base + 1 : P->tx.name);
  return st;
}

/* mm("file.mtx"), the cursor at the '(' after the name: the matrix of the
 * Matrix Market file (lib/reader/mtx.c), the path relative to the data
 * file's folder.  An error inside the file is reported at the file name in
 * the data file, its message naming the Matrix Market file's line and
 * column. */
static lth_status mm_call(void *ctx, size_t name_pos, lth_csc **out) {
  lth_pp *P = ctx;
  lth_pcur *c = &P->c;
  (void)name_pos;
  *out = NULL;
  size_t b = 0, n = 0;
  lth_status st = quoted_file_arg(P, "mm", "file", "mm(\"file.mtx\")", &b, &n);
  if (st != LTH_OK) {
    return st;
  }
  char *path = join_path(P->basedir, c->tx->buf + b, n);
  if (!path) {
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  *out = lth_mtx_read(path, P->err);
  free(path);
  if (*out) {
    return LTH_OK;
  }
  st = P->err ? P->err->status : LTH_EIO;
  if (P->err && P->err->line > 0) {
    lth_error_prefix(P->err, "mm(\"%.*s\"), line %d, column %d: ", (int)(n > 48 ? 48 : n),
                     c->tx->buf + b, P->err->line, P->err->column);
  } else {
    lth_error_prefix(P->err, "mm(\"%.*s\"): ", (int)(n > 48 ? 48 : n), c->tx->buf + b);
  }
  return lth_pcur_locate(c, b, st);
}

/* A sparse value for a target of rows x cols: exactly its size. */
static lth_status sparse_rhs(lth_pp *P, const char *label, int rows, int cols, size_t rhs,
                             lth_pval *v, lth_source **out) {
  if (v->rows != rows || v->cols != cols) {
    return LTH_PERR(P, rhs, LTH_EDIM, "%s is %d x %d, but the matrix from mm(...) is %d x %d%s",
                    label, rows, cols, v->rows, v->cols,
                    v->rows == cols && v->cols == rows ? " (transpose it: mm(\"...\")')" : "");
  }
  return lth_pval_sparse_source(&P->c, rhs, v, out);
}

/* Fit a value to a target of rows x cols: exact shape, or a vector of the
 * right length given as a row for a column (or the reverse).  Messages name
 * the target and its size. */
static lth_status fit_shape(lth_pp *P, const char *label, int rows, int cols, size_t rhs,
                            lth_pval *v) {
  lth_pvctx x = {.c = &P->c};
  if (v->rows == rows && v->cols == cols) {
    return LTH_OK;
  }
  if ((rows == 1 || cols == 1) && (v->rows == 1 || v->cols == 1) &&
      (long)v->rows * v->cols == (long)rows * cols) {
    return lth_pval_transpose(&x, rhs, v);
  }
  if (v->rows == 1 && v->cols == 1) {
    return LTH_PERR(P, rhs, LTH_EDIM,
                    "%s is %d x %d, but the right-hand side is a scalar: give its entries as a "
                    "matrix literal [ ... ] (a bare expression is a 1 x 1 block; for a "
                    "multiple of the identity write c*eye)",
                    label, rows, cols);
  }
  return LTH_PERR(P, rhs, LTH_EDIM, "%s is %d x %d, but the matrix literal is %d x %d", label, rows,
                  cols, v->rows, v->cols);
}

/* 1 if the right-hand side at the cursor is a bare `eye` and nothing else
 * (the cursor stays put). */
static int bare_eye(lth_pcur *c) {
  size_t at = c->pos, b;
  size_t n = lth_pcur_name(c, &b);
  int eye = n && lth_pcur_name_is(c, b, n, "eye") && lth_pcur_peek(c) < 0;
  c->pos = at;
  return eye;
}

/* 1 if the name w (len n) starts at i of the statement (not inside a longer
 * name) and, if call, a '(' follows it. */
static int name_at(const lth_pcur *c, size_t i, const char *w, size_t n, int call) {
  const char *s = c->tx->buf;
  if (i + n > c->st.e || memcmp(s + i, w, n) != 0 ||
      (i > c->st.b && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
    return 0;
  }
  size_t k = i + n;
  if (k < c->st.e && (isalnum((unsigned char)s[k]) || s[k] == '_')) {
    return 0;
  }
  while (call && k < c->st.e && (s[k] == ' ' || s[k] == '\t')) {
    k++;
  }
  return !call || (k < c->st.e && s[k] == '(');
}

int lth_pp_rhs_sparse_text(lth_pp *P) {
  lth_pcur *c = &P->c;
  lth_pcur_skip_ws(c);
  for (size_t i = c->pos; i < c->st.e; i++) { /* mm(...), or eye (sparse at size) */
    if (name_at(c, i, "mm", 2, 1) || name_at(c, i, "eye", 3, 0)) {
      return 1;
    }
  }
  return 0;
}

lth_status lth_pp_parse_rhs(lth_pp *P, const char *label, int rows, int cols, lth_source **out,
                            size_t *path_b, size_t *path_n) {
  lth_pcur *c = &P->c;
  *out = NULL;
  *path_n = 0;
  size_t b;
  lth_pcur_skip_ws(c);
  size_t rhs = c->pos;
  if (rows == cols && rows > 0 && bare_eye(c)) {
    /* the identity as a sparse source of n entries, nothing n x n (a
     * non-square target keeps the literal parser's message) */
    c->pos = c->st.e;
    *out = lth_source_identity(rows, cols, P->err);
    return *out ? LTH_OK : lth_pcur_locate(c, rhs, LTH_ENOMEM);
  }
  size_t n = lth_pcur_name(c, &b);
  if (n && lth_pcur_name_is(c, b, n, "samples") && lth_pcur_peek(c) == '(') {
    if (!P->first_samples_line) {
      P->first_samples_line = (size_t)lth_pp_here(P, b).line;
    }
    return lth_pp_samples_call(P, label, rows, cols, out, path_b, path_n, 1);
  }
  c->pos = rhs;
  lth_plit_opts o = {.eye_rows = rows,
                     .eye_cols = cols,
                     .label = label,
                     .stop_at_eq = 0,
                     .mm = mm_call,
                     .mm_ctx = P};
  lth_pval v;
  lth_status st = lth_plit_parse(c, &o, &v);
  if (st != LTH_OK) {
    return st;
  }
  if (v.sp) {
    st = sparse_rhs(P, label, rows, cols, rhs, &v, out);
    lth_pval_free(&v);
    return st;
  }
  st = fit_shape(P, label, rows, cols, rhs, &v);
  if (st == LTH_OK) {
    st = lth_pval_source(c, rhs, &v, out);
  }
  lth_pval_free(&v);
  return st;
}

/* A constant matrix of the given size (rows < 0: a vector of -rows entries,
 * written as a row or a column); column-major copy in *out. */
/* The dense rows x cols value of a sparse one with constant coefficients:
 * sum_k c_k M_k (a vector target, rows < 0, takes p x 1 or 1 x p). */
static lth_status sparse_const(lth_pp *P, const char *label, int rows, int cols, size_t rhs,
                               const lth_pval *v, double **out) {
  int vec = rows < 0;
  int ok = vec ? (v->rows == 1 || v->cols == 1) && (long)v->rows * v->cols == -rows
               : v->rows == rows && v->cols == cols;
  if (lth_psparse_has_t(v->sp)) {
    return LTH_PERR(P, rhs, LTH_EPARSE, "%s must be constant, but a coefficient uses t", label);
  }
  if (!ok) {
    return LTH_PERR(P, rhs, LTH_EDIM, "%s must be %d x %d, found a %d x %d matrix", label,
                    vec ? -rows : rows, vec ? 1 : cols, v->rows, v->cols);
  }
  double cells = (double)v->rows * (double)v->cols;
  if (cells > LTH_P_MAX_ENTRIES) {
    return LTH_PERR(P, rhs, LTH_EDIM,
                    "%s is held as a dense %d x %d matrix, %.3g entries, over the limit of "
                    "%.3g",
                    label, v->rows, v->cols, cells, LTH_P_MAX_ENTRIES);
  }
  double *d = calloc((size_t)cells + 1, sizeof *d);
  if (!d) {
    return LTH_PERR(P, rhs, LTH_ENOMEM, "out of memory");
  }
  /* a p x 1 or 1 x p value lands in the same p entries either way */
  for (int k = 0; k < v->sp->n; k++) {
    const lth_csc *m = v->sp->t[k].m;
    double c = v->sp->t[k].c.v;
    for (int j = 0; j < m->cols; j++) {
      for (int q = m->colptr[j]; q < m->colptr[j + 1]; q++) {
        d[m->rowind[q] + (size_t)j * m->rows] += c * (m->val ? m->val[q] : 1.0);
      }
    }
  }
  *out = d;
  return LTH_OK;
}

/* The rows x cols sparse value sum_k c_k M_k with constant coefficients as
 * compressed columns (entries given by more than one term are summed). */
static lth_status sparse_keep(lth_pp *P, const char *label, int rows, int cols, size_t rhs,
                              const lth_pval *v, lth_csc **sp) {
  if (lth_psparse_has_t(v->sp)) {
    return LTH_PERR(P, rhs, LTH_EPARSE, "%s must be constant, but a coefficient uses t", label);
  }
  if (v->rows != rows || v->cols != cols) {
    return LTH_PERR(P, rhs, LTH_EDIM, "%s must be %d x %d, found a %d x %d matrix", label, rows,
                    cols, v->rows, v->cols);
  }
  size_t n = 0;
  for (int k = 0; k < v->sp->n; k++) n += (size_t)v->sp->t[k].m->nnz;
  int *ri = malloc((n + 1) * 2 * sizeof *ri);
  double *val = malloc((n + 1) * sizeof *val);
  lth_status st = ri && val ? LTH_OK : LTH_PERR(P, rhs, LTH_ENOMEM, "out of memory");
  size_t q = 0;
  for (int k = 0; st == LTH_OK && k < v->sp->n; k++) {
    const lth_csc *m = v->sp->t[k].m;
    for (int j = 0; j < m->cols; j++) {
      for (int e = m->colptr[j]; e < m->colptr[j + 1]; e++, q++) {
        ri[q] = m->rowind[e];
        ri[n + q] = j;
        val[q] = v->sp->t[k].c.v * (m->val ? m->val[e] : 1.0);
      }
    }
  }
  if (st == LTH_OK && !(*sp = lth_csc_from_triplets(rows, cols, n, ri, ri + n, val, NULL))) {
    st = LTH_PERR(P, rhs, LTH_ENOMEM, "out of memory");
  }
  free(ri);
  free(val);
  return st;
}

static lth_status parse_const(lth_pp *P, const char *label, int rows, int cols, int flags,
                              double **out, lth_csc **sp) {
  lth_pcur *c = &P->c;
  lth_pcur_skip_ws(c);
  size_t rhs = c->pos;
  int vec = rows < 0, allow_eye = flags & LTH_PP_CONST_EYE;
  lth_plit_opts o = {.eye_rows = allow_eye ? rows : 0,
                     .eye_cols = allow_eye ? cols : 0,
                     .label = label,
                     .stop_at_eq = 0,
                     .mm = (flags & LTH_PP_CONST_MM) ? mm_call : NULL,
                     .mm_ctx = P};
  lth_pval v;
  lth_status st = lth_plit_parse(c, &o, &v);
  if (st != LTH_OK) {
    return st;
  }
  if (v.sp) {
    st = sp && !v.sp->dense_ok ? sparse_keep(P, label, rows, cols, rhs, &v, sp)
                               : sparse_const(P, label, rows, cols, rhs, &v, out);
    lth_pval_free(&v);
    return st;
  }
  int ok = vec ? (v.rows == 1 || v.cols == 1) && (long)v.rows * v.cols == -rows
               : v.rows == rows && v.cols == cols;
  if (lth_pval_has_t(&v)) {
    st = LTH_PERR(P, lth_pcur_find_t(c, rhs, c->st.e), LTH_EPARSE,
                  "%s must be constant, but this entry uses t", label);
  } else if (!ok && vec) {
    st = LTH_PERR(P, rhs, LTH_EDIM,
                  "%s needs %d entries (a row or a column), found a %d x %d matrix", label, -rows,
                  v.rows, v.cols);
  } else if (!ok) {
    st = LTH_PERR(P, rhs, LTH_EDIM, "%s must be %d x %d, found a %d x %d matrix", label, rows, cols,
                  v.rows, v.cols);
  } else {
    *out = lth_pval_colmajor(&v);
    st = *out ? LTH_OK : LTH_PERR(P, rhs, LTH_ENOMEM, "out of memory");
  }
  lth_pval_free(&v);
  return st;
}

lth_status lth_pp_parse_const(lth_pp *P, const char *label, int rows, int cols, int flags,
                              double **out) {
  return parse_const(P, label, rows, cols, flags, out, NULL);
}

lth_status lth_pp_parse_const_sparse(lth_pp *P, const char *label, int rows, int cols,
                                     double **out, lth_csc **sp) {
  *out = NULL;
  *sp = NULL;
  return parse_const(P, label, rows, cols, LTH_PP_CONST_MM, out, sp);
}
