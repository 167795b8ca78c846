/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file matrix literals (lib/problem_impl.h, docs/format.md section 1):
 * '[' rows ']' with entries compiled by lth_expr_parse through the cursor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"

#define SHOW_MAX 24 /* longest token quoted in a message */

static int at(const lth_pcur *c, size_t i) {
  return i < c->st.e ? (unsigned char)c->tx->buf[i] : -1;
}

/* ------------------------------------------------------------------------ */
/* Matrix literals: '[' rows ']', rows separated by ';' or a newline,       */
/* entries by ','; a newline right after ',' continues the row.            */

void lth_pmat_free(lth_pmat *m) {
  for (size_t k = 0; k < m->ndep; k++) {
    lth_expr_free(m->dep[k].e);
  }
  free(m->dep);
  free(m->val);
  memset(m, 0, sizeof *m);
}

static lth_status pmat_store(lth_pcur *c, lth_pmat *m, lth_expr *x, double v, size_t pos) {
  if (m->n == m->cap) {
    size_t cap = m->cap ? 2 * m->cap : 16;
    double *nv = realloc(m->val, cap * sizeof *nv);
    if (!nv) {
      lth_expr_free(x);
      return lth_pcur_error(c, pos, LTH_ENOMEM, "out of memory reading a matrix literal");
    }
    m->val = nv;
    m->cap = cap;
  }
  if (x && m->ndep == m->depcap) {
    size_t cap = m->depcap ? 2 * m->depcap : 8;
    lth_pdep *nd = realloc(m->dep, cap * sizeof *nd);
    if (!nd) {
      lth_expr_free(x);
      return lth_pcur_error(c, pos, LTH_ENOMEM, "out of memory reading a matrix literal");
    }
    m->dep = nd;
    m->depcap = cap;
  }
  if (x) {
    m->first_dep = m->ndep == 0 ? pos : m->first_dep;
    m->dep[m->ndep].idx = m->n;
    m->dep[m->ndep++].e = x;
  }
  m->val[m->n++] = v;
  return LTH_OK;
}

/* One entry from the cursor: up to ',' outside parentheses, or ';', ']',
 * '[' or a newline. */
static lth_status pmat_entry(lth_pcur *c, lth_pmat *m) {
  size_t b = c->pos;
  int depth = 0;
  for (int ch = at(c, c->pos); ch >= 0; ch = at(c, ++c->pos)) {
    if ((ch == ',' && depth == 0) || ch == ';' || ch == ']' || ch == '[' || ch == '\n') {
      break;
    }
    depth += ch == '(';
    depth -= ch == ')' && depth > 0;
  }
  if (at(c, c->pos) == '[') {
    return lth_pcur_error(c, c->pos, LTH_EPARSE,
                          "unexpected '[' inside a matrix literal: literals do not nest");
  }
  lth_expr *x = NULL;
  double v = 0.0;
  lth_status st = lth_pcur_expr(c, b, c->pos, &x, &v);
  return st != LTH_OK ? st : pmat_store(c, m, x, v, b);
}

/* Close the current row of `count` entries that started at row_pos. */
static lth_status pmat_row(lth_pcur *c, lth_pmat *m, int *count, size_t row_pos) {
  if (*count == 0) {
    return LTH_OK; /* blank line, or ';' right after a row */
  }
  if (m->rows > 0 && *count != m->cols) {
    return lth_pcur_error(c, row_pos, LTH_EDIM,
                          "row %d of the matrix has %d %s, but row 1 has %d: every row "
                          "needs the same number of entries",
                          m->rows + 1, *count, *count == 1 ? "entry" : "entries", m->cols);
  }
  m->cols = *count;
  m->rows++;
  *count = 0;
  return LTH_OK;
}

lth_status lth_pmat_parse(lth_pcur *c, lth_pmat *m) {
  memset(m, 0, sizeof *m);
  size_t open = c->pos, row_pos = c->pos;
  int count = 0, after_comma = 0;
  lth_status st = lth_pcur_expect(c, '[', "'['");
  while (st == LTH_OK) {
    int ch = lth_pcur_peek(c);
    if (after_comma && (ch == ';' || ch == ']' || ch < 0)) {
      char shown[SHOW_MAX + 32];
      lth_pcur_show(c, c->pos, shown, sizeof shown);
      st = lth_pcur_error(c, c->pos, LTH_EPARSE, "expected an entry after ',', found %s", shown);
    } else if (ch < 0) {
      st = lth_pcur_error(c, c->pos, LTH_EPARSE,
                          "expected ']' to close the '[' of this matrix literal");
    } else if (ch == '\n' && after_comma) {
      c->pos++; /* a row continues after a trailing ',' */
    } else if (ch == '\n' || ch == ';' || ch == ']') {
      c->pos++;
      st = pmat_row(c, m, &count, row_pos);
      if (st == LTH_OK && ch == ']') {
        break;
      }
    } else {
      row_pos = count == 0 ? c->pos : row_pos;
      st = pmat_entry(c, m);
      count++;
      after_comma = st == LTH_OK && at(c, c->pos) == ',';
      c->pos += after_comma;
    }
  }
  if (st == LTH_OK && m->rows == 0) {
    st = lth_pcur_error(c, open, LTH_EPARSE, "empty matrix literal: expected entries in '[ ]'");
  }
  if (st != LTH_OK) {
    lth_pmat_free(m);
  }
  return st;
}
