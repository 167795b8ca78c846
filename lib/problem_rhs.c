/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: right-hand sides of blocks -- matrix literals, `eye`,
 * samples("file.csv"), bare expressions -- and the sources they become.
 * lib/problem_impl.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/samples.h"
#include "problem_impl.h"

/* Row-major literal values to a column-major copy. */
static double *colmajor(const lth_pmat *m) {
  size_t n = (size_t)m->rows * (size_t)m->cols;
  double *a = malloc((n ? n : 1) * sizeof *a);
  if (a) {
    for (int i = 0; i < m->rows; i++) {
      for (int j = 0; j < m->cols; j++) {
        a[i + (size_t)j * m->rows] = m->val[(size_t)i * m->cols + j];
      }
    }
  }
  return a;
}

/* A source from a literal: constant if every entry is, else expressions
 * (constant nonzero entries become constant expressions; %.17g reads back
 * exactly).  The t-dependent expressions move into the source. */
static lth_source *mat_source(lth_pmat *m, lth_error *err) {
  size_t n = (size_t)m->rows * (size_t)m->cols;
  if (m->ndep == 0) {
    double *a = colmajor(m);
    lth_source *src = a ? lth_source_const(m->rows, m->cols, a, m->rows, err) : NULL;
    if (!a) {
      lth_error_set(err, LTH_ENOMEM, "out of memory building a constant block");
    }
    free(a);
    return src;
  }
  lth_expr **e = calloc(n, sizeof *e);
  if (!e) {
    lth_error_set(err, LTH_ENOMEM, "out of memory building an expression block");
    return NULL;
  }
  for (size_t k = 0; k < m->ndep; k++) {
    e[m->dep[k].idx] = m->dep[k].e;
    m->dep[k].e = NULL;
  }
  lth_status st = LTH_OK;
  for (size_t idx = 0; idx < n && st == LTH_OK; idx++) {
    if (!e[idx] && m->val[idx] != 0.0) {
      char num[40];
      snprintf(num, sizeof num, "%.17g", m->val[idx]);
      st = lth_expr_parse(num, strlen(num), NULL, NULL, &e[idx], err);
    }
  }
  /* reorder row-major -> column-major in place through a second array */
  lth_expr **cm = st == LTH_OK ? malloc(n * sizeof *cm) : NULL;
  if (!cm) {
    for (size_t k = 0; k < n; k++) {
      lth_expr_free(e[k]);
    }
    free(e);
    if (st == LTH_OK) {
      lth_error_set(err, LTH_ENOMEM, "out of memory building an expression block");
    }
    return NULL;
  }
  for (int i = 0; i < m->rows; i++) {
    for (int j = 0; j < m->cols; j++) {
      cm[i + (size_t)j * m->rows] = e[(size_t)i * m->cols + j];
    }
  }
  free(e);
  lth_source *src = lth_source_expr(m->rows, m->cols, cm, err);
  free(cm);
  return src;
}

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

/* samples("file.csv"), the cursor after the word `samples`. */
static lth_status rhs_samples(lth_pp *P, const char *label, int rows, int cols, lth_source **out,
                              size_t *path_b, size_t *path_n) {
  lth_pcur *c = &P->c;
  lth_status st = lth_pcur_expect(c, '(', "'(' after `samples`");
  if (st == LTH_OK) {
    st = lth_pcur_expect(c, '"', "a quoted CSV file name: samples(\"file.csv\")");
  }
  if (st != LTH_OK) {
    return st;
  }
  size_t b = c->pos;
  while (c->pos < c->st.e && c->tx->buf[c->pos] != '"' && c->tx->buf[c->pos] != '\n') {
    c->pos++;
  }
  if (c->pos >= c->st.e || c->tx->buf[c->pos] != '"') {
    return LTH_PERR(P, b - 1, LTH_EPARSE,
                    "unterminated string: expected '\"' to end the file name");
  }
  if (c->pos == b) {
    return LTH_PERR(P, b - 1, LTH_EPARSE, "empty CSV file name in samples(\"\")");
  }
  size_t n = c->pos++ - b;
  st = lth_pcur_expect(c, ')', "')' after the file name");
  if (st == LTH_OK) {
    st = lth_pcur_end(c, "samples(...)");
  }
  if (st != LTH_OK) {
    return st;
  }
  char *path = join_path(P->basedir, c->tx->buf + b, n);
  if (!path) {
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  *out = lth_samples_read_csv(path, rows, cols, P->pb->K, P->err);
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

/* The right-hand side of a block `label` of size rows x cols: a matrix
 * literal, `eye`, samples("file.csv") or a bare expression (1 x 1).  For
 * sampled data *path_b, *path_n locate the file name in the text (*path_n = 0
 * otherwise). */
lth_status lth_pp_parse_rhs(lth_pp *P, const char *label, int rows, int cols, lth_source **out,
                            size_t *path_b, size_t *path_n) {
  lth_pcur *c = &P->c;
  *out = NULL;
  *path_n = 0;
  size_t b, save = c->pos;
  lth_pcur_skip_ws(c);
  size_t rhs = c->pos;
  if (lth_pcur_peek(c) == '[') {
    lth_pmat m;
    lth_status st = lth_pmat_parse(c, &m);
    if (st != LTH_OK) {
      return st;
    }
    if (m.rows != rows || m.cols != cols) {
      st = LTH_PERR(P, rhs, LTH_EDIM, "%s is %d x %d, but the matrix literal is %d x %d", label,
                    rows, cols, m.rows, m.cols);
    } else if ((st = lth_pcur_end(c, "the matrix literal")) == LTH_OK) {
      *out = mat_source(&m, P->err);
      st = *out ? LTH_OK : lth_pcur_locate(c, rhs, P->err ? P->err->status : LTH_ENOMEM);
    }
    lth_pmat_free(&m);
    return st;
  }
  size_t n = lth_pcur_name(c, &b);
  int next = lth_pcur_peek(c);
  if (n && lth_pcur_name_is(c, b, n, "eye") && next < 0) {
    if (rows != cols) {
      return LTH_PERR(P, b, LTH_EDIM, "`eye` needs a square block, but %s is %d x %d", label, rows,
                      cols);
    }
    *out = lth_source_identity(rows, cols, P->err);
    return *out ? LTH_OK : lth_pcur_locate(c, b, P->err ? P->err->status : LTH_ENOMEM);
  }
  if (n && lth_pcur_name_is(c, b, n, "samples") && next == '(') {
    if (!P->first_samples_line) {
      P->first_samples_line = (size_t)lth_pp_here(P, b).line;
    }
    return rhs_samples(P, label, rows, cols, out, path_b, path_n);
  }
  c->pos = save;
  if (rows != 1 || cols != 1) {
    return LTH_PERR(
        P, rhs, LTH_EDIM,
        "%s is %d x %d: give its entries as a matrix literal [ ... ] (a bare expression "
        "is a 1 x 1 block)",
        label, rows, cols);
  }
  lth_expr *x = NULL;
  double v = 0.0;
  lth_status st = lth_pcur_expr(c, rhs, c->st.e, &x, &v);
  if (st != LTH_OK) {
    return st;
  }
  c->pos = c->st.e;
  *out = x ? lth_source_expr(1, 1, &x, P->err) : lth_source_const(1, 1, &v, 1, P->err);
  return *out ? LTH_OK : lth_pcur_locate(c, rhs, P->err ? P->err->status : LTH_ENOMEM);
}

/* A constant matrix literal of the given size (rows or cols < 0: a vector of
 * -rows entries, written as a row or a column); column-major copy in *out. */
lth_status lth_pp_parse_const(lth_pp *P, const char *label, int rows, int cols, int allow_eye,
                              double **out) {
  lth_pcur *c = &P->c;
  size_t b;
  lth_pcur_skip_ws(c);
  size_t rhs = c->pos;
  if (allow_eye) {
    size_t n = lth_pcur_name(c, &b);
    if (n && lth_pcur_name_is(c, b, n, "eye") && lth_pcur_peek(c) < 0) {
      *out = calloc((size_t)rows * (size_t)cols, sizeof **out);
      if (!*out) {
        return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
      }
      for (int i = 0; i < rows && i < cols; i++) {
        (*out)[i + (size_t)i * rows] = 1.0;
      }
      return LTH_OK;
    }
    c->pos = rhs;
  }
  if (lth_pcur_peek(c) != '[') {
    char shown[64];
    lth_pcur_show(c, c->pos, shown, sizeof shown);
    return LTH_PERR(P, c->pos, LTH_EPARSE,
                    "expected a constant matrix literal [ ... ] for %s, found %s", label, shown);
  }
  lth_pmat m;
  lth_status st = lth_pmat_parse(c, &m);
  if (st != LTH_OK) {
    return st;
  }
  int vec = rows < 0, ok;
  if (vec) {
    ok = (m.rows == 1 || m.cols == 1) && (long)m.rows * m.cols == -rows;
  } else {
    ok = m.rows == rows && m.cols == cols;
  }
  if (m.ndep) {
    st = LTH_PERR(P, m.first_dep, LTH_EPARSE, "%s must be constant, but this entry uses t", label);
  } else if (!ok && vec) {
    st = LTH_PERR(P, rhs, LTH_EDIM,
                  "%s needs %d entries (a row or a column), found a %d x %d matrix", label, -rows,
                  m.rows, m.cols);
  } else if (!ok) {
    st = LTH_PERR(P, rhs, LTH_EDIM, "%s must be %d x %d, found a %d x %d matrix", label, rows, cols,
                  m.rows, m.cols);
  } else if ((st = lth_pcur_end(c, "the matrix literal")) == LTH_OK) {
    *out = colmajor(&m);
    st = *out ? LTH_OK : LTH_PERR(P, rhs, LTH_ENOMEM, "out of memory");
  }
  lth_pmat_free(&m);
  return st;
}
