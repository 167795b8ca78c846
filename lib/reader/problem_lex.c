/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file text layer (lib/reader/problem_impl.h): byte checks, comments,
 * statements, positions, and the scanners the statements are made of
 * (docs/format.md section 1).  Matrix literals are lib/reader/problem_lit.c. */
#include "problem_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOW_MAX 24 /* longest token quoted in a message */

/* ------------------------------------------------------------------------ */
/* Text                                                                     */

/* Length of the UTF-8 sequence at s[0..n-1], 0 if invalid (overlong forms,
 * surrogates and code points above U+10FFFF are invalid). */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  unsigned lo = 0x80, hi = 0xbf; /* allowed range of the second byte */
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    lo = c == 0xe0 ? 0xa0 : 0x80;
    hi = c == 0xed ? 0x9f : 0xbf;
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    lo = c == 0xf0 ? 0x90 : 0x80;
    hi = c == 0xf4 ? 0x8f : 0xbf;
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi) {
    return 0;
  }
  for (size_t k = 2; k < len; k++) {
    if (s[k] < 0x80 || s[k] > 0xbf) {
      return 0;
    }
  }
  return len;
}

/* Characters (not bytes) in orig[from, to): UTF-8 continuation bytes do not count. */
static int char_count(const char *orig, size_t from, size_t to) {
  int n = 0;
  for (size_t i = from; i < to; i++) {
    n += ((unsigned char)orig[i] & 0xc0) != 0x80;
  }
  return n;
}

static lth_status text_error(const lth_ptext *tx, int line, size_t line_start, size_t pos,
                             lth_error *err, const char *fmt, ...) LTH_P_PRINTF(6, 7);
static lth_status text_error(const lth_ptext *tx, int line, size_t line_start, size_t pos,
                             lth_error *err, const char *fmt, ...) {
  if (err) {
    char msg[LTH_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(err);
    lth_error_set(err, LTH_EPARSE, "%s", msg);
    lth_error_set_pos(err, tx->name, line, 1 + char_count(tx->orig, line_start, pos));
  }
  return LTH_EPARSE;
}

/* Every byte must be printable UTF-8, a tab, or a line end (LF or CR-LF);
 * lines are at most LTH_P_MAX_LINE bytes.  Also counts the lines. */
static lth_status check_bytes(lth_ptext *tx, lth_error *err) {
  const unsigned char *s = (const unsigned char *)tx->orig;
  size_t ls = tx->start;
  int line = 1;
  for (size_t i = tx->start; i < tx->len; i++) {
    unsigned c = s[i];
    if (i - ls >= LTH_P_MAX_LINE && c != '\n') {
      return text_error(tx, line, ls, i, err, "line longer than %zu bytes (1 MiB)", LTH_P_MAX_LINE);
    }
    if (c == '\n') {
      line++;
      ls = i + 1;
    } else if (c == 0) {
      return text_error(tx, line, ls, i, err, "NUL byte: a data file must be plain text");
    } else if (c == '\r' && !(i + 1 < tx->len && s[i + 1] == '\n')) {
      return text_error(tx, line, ls, i, err,
                        "carriage return not followed by a line feed (control character 0x0d)");
    } else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
      return text_error(tx, line, ls, i, err,
                        "control character 0x%02x: a data file must be plain text", c);
    } else if (c >= 0x80) {
      size_t n = utf8_len(s + i, tx->len - i);
      if (n == 0) {
        return text_error(tx, line, ls, i, err,
                          "invalid UTF-8 (byte 0x%02x): a data file must be UTF-8 text", c);
      }
      i += n - 1;
    }
  }
  tx->nlines = tx->len > tx->start && s[tx->len - 1] == '\n' ? line - 1 : line;
  tx->nlines = tx->nlines < 1 ? 1 : tx->nlines;
  return LTH_OK;
}

/* Blank comments ('#' to the end of the line, outside "strings") and the CR
 * of CR-LF, so later stages see only statements; byte offsets stay put. */
static void blank_comments(lth_ptext *tx) {
  int in_str = 0;
  for (size_t i = 0; i < tx->len; i++) {
    char ch = tx->buf[i];
    if (i < tx->start || ch == '\r') {
      tx->buf[i] = ' ';
    } else if (ch == '\n') {
      in_str = 0;
    } else if (ch == '"') {
      in_str = !in_str;
    } else if (ch == '#' && !in_str) {
      for (; i < tx->len && tx->buf[i] != '\n'; i++) {
        tx->buf[i] = ' ';
      }
      i--; /* let the loop see the '\n' */
    }
  }
}

lth_status lth_ptext_init(lth_ptext *tx, const char *text, size_t len, const char *name,
                          lth_error *err) {
  memset(tx, 0, sizeof *tx);
  tx->orig = text ? text : "";
  tx->len = text ? len : 0;
  tx->name = name;
  if (tx->len > LTH_P_MAX_FILE) {
    lth_error_clear(err);
    lth_error_set(err, LTH_EPARSE, "data file larger than %zu MiB", LTH_P_MAX_FILE >> 20);
    lth_error_set_pos(err, name, 0, 0);
    return LTH_EPARSE;
  }
  if (tx->len >= 3 && memcmp(tx->orig, "\xef\xbb\xbf", 3) == 0) {
    tx->start = 3;
  }
  lth_status st = check_bytes(tx, err);
  if (st != LTH_OK) {
    return st;
  }
  tx->buf = malloc(tx->len + 1);
  if (!tx->buf) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_ENOMEM, "out of memory reading a data file");
  }
  memcpy(tx->buf, tx->orig, tx->len);
  tx->buf[tx->len] = '\0';
  blank_comments(tx);
  return LTH_OK;
}

void lth_ptext_free(lth_ptext *tx) {
  free(tx->buf);
  tx->buf = NULL;
}

/* Scan one statement from its first byte b: to the end of the line, or on
 * while a '[' is open.  Sets *end; reports an unterminated '[' at itself. */
static lth_status statement_end(const lth_ptext *tx, size_t b, int line, size_t ls, size_t *end,
                                int *last_line, lth_error *err) {
  const char *s = tx->buf;
  int depth = 0, in_str = 0, open_line = 0;
  size_t open_pos = 0, open_ls = 0, q;
  for (q = b; q < tx->len; q++) {
    char ch = s[q];
    if (ch == '\n') {
      in_str = 0;
      if (depth == 0) {
        break;
      }
      line++;
      ls = q + 1;
    } else if (in_str) {
      in_str = ch != '"';
    } else if (ch == '"') {
      in_str = 1;
    } else if (ch == '[' && depth++ == 0) {
      open_pos = q;
      open_line = line;
      open_ls = ls;
    } else if (ch == ']' && depth > 0) {
      depth--;
    }
  }
  if (depth > 0) {
    return text_error(tx, open_line, open_ls, open_pos, err,
                      "unterminated '[': no matching ']' before the end of the file");
  }
  *end = q;
  *last_line = line;
  return LTH_OK;
}

lth_status lth_ptext_next(const lth_ptext *tx, lth_pscan *sc, lth_pstmt *st, int *found,
                          lth_error *err) {
  *found = 0;
  if (sc->line == 0) {
    sc->line = 1;
    sc->pos = sc->pos < tx->start ? tx->start : sc->pos;
  }
  while (sc->pos < tx->len) {
    size_t ls = sc->pos, p = ls;
    while (p < tx->len && (tx->buf[p] == ' ' || tx->buf[p] == '\t')) {
      p++;
    }
    if (p < tx->len && tx->buf[p] == '\n') {
      sc->pos = p + 1;
      sc->line++;
      continue;
    }
    if (p == tx->len) {
      break;
    }
    size_t e = tx->len;
    int last = sc->line;
    lth_status s = statement_end(tx, p, sc->line, ls, &e, &last, err);
    if (s != LTH_OK) {
      return s;
    }
    st->b = p;
    st->e = e;
    st->line = sc->line;
    st->line_start = ls;
    sc->pos = e < tx->len ? e + 1 : tx->len;
    sc->line = last + 1;
    *found = 1;
    return LTH_OK;
  }
  sc->pos = tx->len;
  return LTH_OK;
}

void lth_ptext_where(const lth_ptext *tx, const lth_pstmt *st, size_t pos, int *line, int *col) {
  size_t ls = st->line_start;
  int ln = st->line;
  pos = pos > tx->len ? tx->len : pos;
  for (size_t i = st->line_start; i < pos; i++) {
    if (tx->buf[i] == '\n') {
      ln++;
      ls = i + 1;
    }
  }
  *line = ln;
  *col = 1 + char_count(tx->orig, ls, pos);
}

/* ------------------------------------------------------------------------ */
/* Cursor                                                                   */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int at(const lth_pcur *c, size_t i) {
  return i < c->st.e ? (unsigned char)c->tx->buf[i] : -1;
}

lth_status lth_pcur_locate(lth_pcur *c, size_t pos, lth_status status) {
  if (c->err) {
    int line, col;
    lth_ptext_where(c->tx, &c->st, pos, &line, &col);
    c->err->status = status;
    c->err->has_t = 0;
    c->err->has_cond = 0;
    lth_error_set_pos(c->err, c->tx->name, line, col);
  }
  return status;
}

lth_status lth_pcur_error(lth_pcur *c, size_t pos, lth_status status, const char *fmt, ...) {
  if (c->err) {
    char msg[LTH_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(c->err);
    lth_error_set(c->err, status, "%s", msg);
  }
  return lth_pcur_locate(c, pos, status);
}

void lth_pcur_show(const lth_pcur *c, size_t pos, char *buf, size_t size) {
  int ch = at(c, pos);
  if (ch < 0 || ch == '\n') {
    snprintf(buf, size, "the end of the line");
    return;
  }
  size_t n = 1;
  if (is_alnum(ch) || ch == '.') {
    while (n < SHOW_MAX && (is_alnum(at(c, pos + n)) || at(c, pos + n) == '.')) {
      n++;
    }
  } else if (ch >= 0x80) {
    n = utf8_len((const unsigned char *)c->tx->buf + pos, c->st.e - pos);
    n = n ? n : 1;
  }
  snprintf(buf, size, "'%.*s'", (int)n, c->tx->buf + pos);
}

void lth_pcur_skip_ws(lth_pcur *c) {
  while (at(c, c->pos) == ' ' || at(c, c->pos) == '\t') {
    c->pos++;
  }
}

int lth_pcur_peek(lth_pcur *c) {
  lth_pcur_skip_ws(c);
  return at(c, c->pos);
}

size_t lth_pcur_name(lth_pcur *c, size_t *b) {
  lth_pcur_skip_ws(c);
  *b = c->pos;
  if (!is_alpha(at(c, c->pos))) {
    return 0;
  }
  while (is_alnum(at(c, c->pos))) {
    c->pos++;
  }
  return c->pos - *b;
}

int lth_pcur_name_is(const lth_pcur *c, size_t b, size_t n, const char *word) {
  return strlen(word) == n && memcmp(c->tx->buf + b, word, n) == 0;
}

lth_status lth_pcur_expect(lth_pcur *c, int ch, const char *what) {
  if (lth_pcur_peek(c) == ch) {
    c->pos++;
    return LTH_OK;
  }
  char shown[SHOW_MAX + 32];
  lth_pcur_show(c, c->pos, shown, sizeof shown);
  return lth_pcur_error(c, c->pos, LTH_EPARSE, "expected %s, found %s", what, shown);
}

lth_status lth_pcur_int(lth_pcur *c, long lo, long hi, const char *what, long *value,
                        size_t *at_pos) {
  char shown[SHOW_MAX + 32];
  lth_pcur_skip_ws(c);
  size_t b = c->pos;
  *at_pos = b;
  long v = 0;
  while (is_digit(at(c, c->pos))) {
    v = v < 1000000000L ? 10 * v + (at(c, c->pos) - '0') : v; /* saturate */
    c->pos++;
  }
  if (c->pos == b || is_alpha(at(c, c->pos)) || at(c, c->pos) == '.') {
    lth_pcur_show(c, b, shown, sizeof shown);
    return lth_pcur_error(c, b, LTH_EPARSE, "expected %s (an integer from %ld to %ld), found %s",
                          what, lo, hi, shown);
  }
  if (v < lo || v > hi) {
    return lth_pcur_error(c, b, LTH_EPARSE, "%s must be an integer from %ld to %ld, found %.*s",
                          what, lo, hi, (int)(c->pos - b > SHOW_MAX ? SHOW_MAX : c->pos - b),
                          c->tx->buf + b);
  }
  *value = v;
  return LTH_OK;
}

int lth_pcur_field(lth_pcur *c, size_t *b, size_t *e) {
  lth_pcur_skip_ws(c);
  *b = c->pos;
  int depth = 0;
  for (int ch = at(c, c->pos); ch >= 0 && ch != '\n'; ch = at(c, ++c->pos)) {
    if ((ch == ' ' || ch == '\t') && depth == 0) {
      break;
    }
    depth += ch == '(';
    depth -= ch == ')' && depth > 0;
  }
  *e = c->pos;
  return *e > *b;
}

lth_status lth_pcur_end(lth_pcur *c, const char *after) {
  if (lth_pcur_peek(c) < 0) {
    return LTH_OK;
  }
  char shown[SHOW_MAX + 32];
  lth_pcur_show(c, c->pos, shown, sizeof shown);
  return lth_pcur_error(c, c->pos, LTH_EPARSE,
                        "unexpected %s after %s: expected the end of the "
                        "statement",
                        shown, after);
}

/* Column of an error that lth_expr reported within text [b, e). */
static size_t expr_pos(const lth_pcur *c, size_t b, size_t e) {
  int col = c->err ? c->err->column : 0;
  size_t pos = b + (size_t)(col > 0 ? col - 1 : 0);
  return pos > e ? e : pos;
}

lth_status lth_pcur_expr(lth_pcur *c, size_t b, size_t e, lth_expr **ex, double *value) {
  lth_expr *x = NULL;
  *ex = NULL;
  *value = 0.0;
  lth_status st = lth_expr_parse(c->tx->buf + b, e - b, c->lookup, c->ctx, &x, c->err);
  if (st != LTH_OK) {
    return lth_pcur_locate(c, expr_pos(c, b, e), st == LTH_ENOMEM ? st : LTH_EPARSE);
  }
  if (lth_expr_depends_on_t(x)) {
    if (*c->ndep >= LTH_P_MAX_DEP) {
      lth_expr_free(x);
      return lth_pcur_error(c, b, LTH_EPARSE,
                            "more than %d time-dependent matrix entries in one file",
                            LTH_P_MAX_DEP);
    }
    ++*c->ndep;
    *ex = x;
    return LTH_OK;
  }
  /* constants are evaluated now, so a constant log(-1) is an input error here */
  st = lth_expr_eval(x, 0.0, value, c->err);
  lth_expr_free(x);
  if (st != LTH_OK) {
    return lth_pcur_locate(c, expr_pos(c, b, e), st == LTH_ENOMEM ? st : LTH_EPARSE);
  }
  return LTH_OK;
}

size_t lth_pcur_find_t(const lth_pcur *c, size_t b, size_t e) {
  for (size_t i = b; i < e; i++) {
    if (is_alpha(at(c, i)) && (i == b || !is_alnum(at(c, i - 1)))) {
      size_t j = i;
      while (j < e && is_alnum(at(c, j))) {
        j++;
      }
      if (j == i + 1 && at(c, i) == 't' && !(i > b && at(c, i - 1) == '.')) {
        return i;
      }
      i = j - 1;
    }
  }
  return b;
}

lth_status lth_pcur_const(lth_pcur *c, size_t b, size_t e, const char *what, double *value) {
  lth_expr *x = NULL;
  lth_status st = lth_pcur_expr(c, b, e, &x, value);
  if (st == LTH_OK && x) {
    lth_expr_free(x);
    --*c->ndep;
    return lth_pcur_error(c, lth_pcur_find_t(c, b, e), LTH_EPARSE,
                          "%s must be constant, but it uses t", what);
  }
  return st;
}
