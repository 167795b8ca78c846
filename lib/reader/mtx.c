/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Matrix Market files (lib/reader/mtx.h): the NIST format's header, size
 * line and entries, coordinate or array, into a CSC matrix. */
#define _POSIX_C_SOURCE 200809L /* fileno, fstat, mkdtemp */
#include "mtx.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/numparse.h"

enum { FMT_COORD, FMT_ARRAY };
enum { FLD_REAL, FLD_INTEGER, FLD_PATTERN };
enum { SYM_GENERAL, SYM_SYMMETRIC, SYM_SKEW };

typedef struct mtx_reader {
  const char *text, *name;
  size_t len, pos; /* pos: start of the next line */
  const char *ln;  /* the current line (without its end) */
  size_t lnlen;
  int line;
  int format, field, sym;
  lth_error *err;
  /* triplets, 0-based */
  int *ri, *ci;
  double *v;
  size_t n, cap;
} mtx_reader;

static lth_status mtx_error(mtx_reader *r, lth_status st, const char *at, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* An error at byte `at` of the current line (NULL: no column). */
static lth_status mtx_error(mtx_reader *r, lth_status st, const char *at, const char *fmt, ...) {
  if (r->err) {
    char msg[LTH_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(r->err);
    lth_error_set(r->err, st, "%s", msg);
    lth_error_set_pos(r->err, r->name, r->line, at ? (int)(at - r->ln) + 1 : 0);
  }
  return st;
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r'; }

/* Next line into r->ln; 0 at the end of the text. */
static int next_line(mtx_reader *r) {
  if (r->pos >= r->len) {
    return 0;
  }
  const char *s = r->text + r->pos, *nl = memchr(s, '\n', r->len - r->pos);
  r->ln = s;
  r->lnlen = nl ? (size_t)(nl - s) : r->len - r->pos;
  r->pos += r->lnlen + (nl != NULL);
  r->line++;
  return 1;
}

/* Next line that is neither blank nor a comment; 0 at the end. */
static int next_data_line(mtx_reader *r) {
  while (next_line(r)) {
    size_t i = 0;
    while (i < r->lnlen && is_blank(r->ln[i])) {
      i++;
    }
    if (i < r->lnlen && r->ln[i] != '%') {
      return 1;
    }
  }
  return 0;
}

/* The next blank-separated token of the current line from *i: [*b, *e). */
static int token(const mtx_reader *r, size_t *i, size_t *b, size_t *e) {
  while (*i < r->lnlen && is_blank(r->ln[*i])) {
    (*i)++;
  }
  *b = *i;
  while (*i < r->lnlen && !is_blank(r->ln[*i])) {
    (*i)++;
  }
  *e = *i;
  return *e > *b;
}

static int word_is(const char *s, size_t n, const char *w) {
  if (n != strlen(w)) {
    return 0;
  }
  for (size_t k = 0; k < n; k++) {
    int c = s[k] >= 'A' && s[k] <= 'Z' ? s[k] - 'A' + 'a' : s[k];
    if (c != w[k]) {
      return 0;
    }
  }
  return 1;
}

/* One of words[] (index) or -1. */
static int which_word(const char *s, size_t n, const char *const *words, int nw) {
  for (int k = 0; k < nw; k++) {
    if (word_is(s, n, words[k])) {
      return k;
    }
  }
  return -1;
}

static lth_status header(mtx_reader *r) {
  static const char *const formats[] = {"coordinate", "array"};
  static const char *const fields[] = {"real", "integer", "pattern", "complex"};
  static const char *const syms[] = {"general", "symmetric", "skew-symmetric", "hermitian"};
  if (!next_line(r) || r->lnlen < 14 || memcmp(r->ln, "%%MatrixMarket", 14) != 0) {
    r->line = 1;
    r->ln = r->text;
    return mtx_error(r, LTH_EPARSE, r->text,
                     "not a Matrix Market file: the first line must be `%%%%MatrixMarket matrix "
                     "coordinate|array real|integer|pattern general|symmetric|skew-symmetric`");
  }
  size_t i = 14, b[4], e[4];
  int k = 0;
  while (k < 4 && token(r, &i, &b[k], &e[k])) {
    k++;
  }
  size_t bx, ex;
  if (k < 4 || token(r, &i, &bx, &ex)) {
    return mtx_error(r, LTH_EPARSE, r->ln + (k < 4 ? i : bx),
                     "the header needs exactly four words after %%%%MatrixMarket (object, "
                     "format, field, symmetry), found %s",
                     k < 4 ? "fewer" : "more");
  }
  const char *L = r->ln;
  if (!word_is(L + b[0], e[0] - b[0], "matrix")) {
    return mtx_error(r, LTH_EDATA, L + b[0], "object '%.*s': only `matrix` is supported",
                     (int)(e[0] - b[0] > 40 ? 40 : e[0] - b[0]), L + b[0]);
  }
  r->format = which_word(L + b[1], e[1] - b[1], formats, 2);
  r->field = which_word(L + b[2], e[2] - b[2], fields, 4);
  r->sym = which_word(L + b[3], e[3] - b[3], syms, 4);
  if (r->format < 0) {
    return mtx_error(r, LTH_EPARSE, L + b[1], "format '%.*s': expected coordinate or array",
                     (int)(e[1] - b[1] > 40 ? 40 : e[1] - b[1]), L + b[1]);
  }
  if (r->field == 3) {
    return mtx_error(r, LTH_EDATA, L + b[2],
                     "complex matrices are not supported: lth's data are real");
  }
  if (r->field < 0) {
    return mtx_error(r, LTH_EPARSE, L + b[2], "field '%.*s': expected real, integer or pattern",
                     (int)(e[2] - b[2] > 40 ? 40 : e[2] - b[2]), L + b[2]);
  }
  if (r->sym == 3) {
    return mtx_error(r, LTH_EDATA, L + b[3],
                     "hermitian matrices are not supported: lth's data are real (a real "
                     "symmetric matrix is written `symmetric`)");
  }
  if (r->sym < 0) {
    return mtx_error(r, LTH_EPARSE, L + b[3],
                     "symmetry '%.*s': expected general, symmetric or skew-symmetric",
                     (int)(e[3] - b[3] > 40 ? 40 : e[3] - b[3]), L + b[3]);
  }
  if (r->field == FLD_PATTERN && r->format == FMT_ARRAY) {
    return mtx_error(r, LTH_EPARSE, L + b[2], "`pattern` needs the coordinate format");
  }
  if (r->field == FLD_PATTERN && r->sym == SYM_SKEW) {
    return mtx_error(r, LTH_EPARSE, L + b[3], "a pattern cannot be skew-symmetric");
  }
  return LTH_OK;
}

/* A nonnegative decimal integer token [b, e) at most hi. */
static lth_status index_token(mtx_reader *r, size_t b, size_t e, long long lo, long long hi,
                              const char *what, long long *out) {
  long long v = 0;
  size_t k = b;
  for (; k < e && r->ln[k] >= '0' && r->ln[k] <= '9'; k++) {
    v = v <= hi ? 10 * v + (r->ln[k] - '0') : v;
  }
  if (k == b || k != e) {
    return mtx_error(r, LTH_EPARSE, r->ln + b, "expected %s (an integer), found '%.*s'", what,
                     (int)(e - b > 40 ? 40 : e - b), r->ln + b);
  }
  if (v < lo || v > hi) {
    return mtx_error(r, LTH_EDATA, r->ln + b, "%s %.*s is outside %lld..%lld", what,
                     (int)(e - b > 40 ? 40 : e - b), r->ln + b, lo, hi);
  }
  *out = v;
  return LTH_OK;
}

/* The value token [b, e): a finite number (an integer for FIELD integer). */
static lth_status value_token(mtx_reader *r, size_t b, size_t e, double *v) {
  const char *s = r->ln + b;
  int n = (int)(e - b > 40 ? 40 : e - b);
  int kind = lth_parse_number(s, e - b, v);
  if (kind == 2) {
    return mtx_error(r, LTH_EDATA, s, "value '%.*s' is not a finite number", n, s);
  }
  if (kind == 0) {
    return mtx_error(r, LTH_EPARSE, s, "expected a number, found '%.*s'", n, s);
  }
  if (r->field == FLD_INTEGER) {
    for (size_t k = b + (s[0] == '+' || s[0] == '-'); k < e; k++) {
      if (r->ln[k] < '0' || r->ln[k] > '9') {
        return mtx_error(r, LTH_EPARSE, s,
                         "expected an integer (the field is `integer`), found "
                         "'%.*s'",
                         n, s);
      }
    }
  }
  return LTH_OK;
}

static lth_status push(mtx_reader *r, long long i, long long j, double v) {
  if (r->n == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 1024;
    if (cap > (size_t)INT_MAX) {
      return mtx_error(r, LTH_EDATA, NULL, "more than %d entries", INT_MAX);
    }
    int *ri = realloc(r->ri, cap * sizeof *ri);
    r->ri = ri ? ri : r->ri;
    int *ci = realloc(r->ci, cap * sizeof *ci);
    r->ci = ci ? ci : r->ci;
    double *vv = realloc(r->v, cap * sizeof *vv);
    r->v = vv ? vv : r->v;
    if (!ri || !ci || !vv) {
      return mtx_error(r, LTH_ENOMEM, NULL, "out of memory reading a Matrix Market file");
    }
    r->cap = cap;
  }
  r->ri[r->n] = (int)i;
  r->ci[r->n] = (int)j;
  r->v[r->n++] = v;
  return LTH_OK;
}

/* Entry (i, j) = v (0-based) and its mirror image. */
static lth_status put(mtx_reader *r, long long i, long long j, double v) {
  lth_status st = push(r, i, j, v);
  if (st == LTH_OK && r->sym != SYM_GENERAL && i != j) {
    st = push(r, j, i, r->sym == SYM_SKEW ? -v : v);
  }
  return st;
}

/* Anything after the last field of an entry is an error. */
static lth_status line_end(mtx_reader *r, size_t i, const char *what) {
  size_t b, e;
  if (token(r, &i, &b, &e)) {
    return mtx_error(r, LTH_EPARSE, r->ln + b, "unexpected '%.*s' after %s",
                     (int)(e - b > 40 ? 40 : e - b), r->ln + b, what);
  }
  return LTH_OK;
}

static lth_status coordinate_entry(mtx_reader *r, long long M, long long N, long long k,
                                   long long nz) {
  size_t i = 0, b, e;
  long long row = 0, col = 0;
  double v = 1.0;
  lth_status st = LTH_OK;
  const char *what[3] = {"the row index", "the column index", "the value"};
  int nf = r->field == FLD_PATTERN ? 2 : 3;
  for (int f = 0; f < nf && st == LTH_OK; f++) {
    if (!token(r, &i, &b, &e)) {
      return mtx_error(r, LTH_EPARSE, r->ln + i,
                       "entry %lld of %lld: expected %s%s, found the end of the line", k + 1, nz,
                       what[f], f == 2 ? " (the field is not `pattern`)" : "");
    }
    st = f == 0   ? index_token(r, b, e, 1, M, "row index", &row)
         : f == 1 ? index_token(r, b, e, 1, N, "column index", &col)
                  : value_token(r, b, e, &v);
  }
  if (st == LTH_OK) {
    st = line_end(r, i, nf == 2 ? "the indices of a pattern entry" : "the value of an entry");
  }
  if (st == LTH_OK && r->sym != SYM_GENERAL && (col > row || (r->sym == SYM_SKEW && col == row))) {
    st = mtx_error(r, LTH_EDATA, r->ln,
                   "entry (%lld, %lld) of a %s matrix: only the entries %s the diagonal are "
                   "given (the others are mirrored)",
                   row, col, r->sym == SYM_SKEW ? "skew-symmetric" : "symmetric",
                   r->sym == SYM_SKEW ? "below" : "on and below");
  }
  return st == LTH_OK ? put(r, row - 1, col - 1, v) : st;
}

static lth_status entries(mtx_reader *r, long long M, long long N, long long nz) {
  lth_status st = LTH_OK;
  long long k = 0, i = 0, j = 0;
  if (r->format == FMT_ARRAY) { /* column by column, the stored triangle only */
    i = r->sym == SYM_SKEW ? 1 : 0;
  }
  for (; k < nz && st == LTH_OK; k++) {
    if (!next_data_line(r)) {
      r->ln = r->text + r->len;
      r->lnlen = 0;
      return mtx_error(r, LTH_EPARSE, NULL,
                       "the file ends after %lld of the %lld entries its size line declares", k,
                       nz);
    }
    if (r->format == FMT_COORD) {
      st = coordinate_entry(r, M, N, k, nz);
      continue;
    }
    size_t p = 0, b, e;
    double v = 0.0;
    token(r, &p, &b, &e);
    st = value_token(r, b, e, &v);
    if (st == LTH_OK) {
      st = line_end(r, p, "the value of an entry (the array format has one per line)");
    }
    if (st == LTH_OK && v != 0.0) { /* an array lists every entry: its zeros are no pattern */
      st = put(r, i, j, v);
    }
    if (++i == M) { /* next column: from the diagonal (below it, skew) */
      j++;
      i = r->sym == SYM_GENERAL ? 0 : r->sym == SYM_SKEW ? j + 1 : j;
    }
  }
  if (st == LTH_OK && next_data_line(r)) {
    size_t p = 0, b, e;
    token(r, &p, &b, &e);
    st = mtx_error(r, LTH_EPARSE, r->ln + b, "more entries than the %lld the size line declares",
                   nz);
  }
  return st;
}

static lth_status size_line(mtx_reader *r, long long *M, long long *N, long long *nz) {
  if (!next_data_line(r)) {
    return mtx_error(r, LTH_EPARSE, NULL, "missing size line after the header (%s)",
                     r->format == FMT_COORD ? "rows columns entries" : "rows columns");
  }
  size_t i = 0, b, e;
  long long *dst[3] = {M, N, nz};
  const char *what[3] = {"the number of rows", "the number of columns", "the number of entries"};
  int nf = r->format == FMT_COORD ? 3 : 2;
  for (int f = 0; f < nf; f++) {
    if (!token(r, &i, &b, &e)) {
      return mtx_error(r, LTH_EPARSE, r->ln + i,
                       "size line: expected %s, found the end of the line", what[f]);
    }
    lth_status st = index_token(r, b, e, f < 2 ? 1 : 0, INT_MAX, what[f] + 4, dst[f]);
    if (st != LTH_OK) {
      return st;
    }
  }
  lth_status st = line_end(r, i, "the size line");
  if (st == LTH_OK && r->sym != SYM_GENERAL && *M != *N) {
    st = mtx_error(r, LTH_EDATA, r->ln, "a %s matrix must be square, this one is %lld x %lld",
                   r->sym == SYM_SKEW ? "skew-symmetric" : "symmetric", *M, *N);
  }
  if (st == LTH_OK && r->format == FMT_ARRAY) { /* the entries the array lists */
    long long n = *M;
    *nz = r->sym == SYM_GENERAL     ? *M * *N
          : r->sym == SYM_SYMMETRIC ? n * (n + 1) / 2
                                    : n * (n - 1) / 2;
  }
  return st;
}

lth_csc *lth_mtx_parse(const char *text, size_t len, const char *name, lth_error *err) {
  mtx_reader r;
  memset(&r, 0, sizeof r);
  r.text = text;
  r.len = len;
  r.name = name ? name : "";
  r.err = err;
  r.ln = text;
  long long M = 0, N = 0, nz = 0;
  lth_status st = header(&r);
  if (st == LTH_OK) {
    st = size_line(&r, &M, &N, &nz);
  }
  if (st == LTH_OK) {
    st = entries(&r, M, N, nz);
  }
  lth_csc *m = NULL;
  if (st == LTH_OK) {
    m = lth_csc_from_triplets((int)M, (int)N, r.n, r.ri, r.ci, r.v, err);
    if (!m) {
      lth_error_set_pos(err, r.name, 0, 0);
    }
  }
  free(r.ri);
  free(r.ci);
  free(r.v);
  return m;
}

/* The whole file (NUL-terminated); a FIFO or device would never end. */
static lth_status read_all(const char *path, char **out, size_t *len, lth_error *err) {
  *out = NULL;
  FILE *fp = fopen(path, "rb");
  struct stat sb;
  lth_status st = LTH_OK;
  if (!fp) {
    st = lth_error_set(err, LTH_EIO, "cannot open the Matrix Market file: %s", strerror(errno));
  } else if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    st = lth_error_set(err, LTH_EIO, "the Matrix Market file is not a regular file");
  } else if ((size_t)sb.st_size > LTH_MTX_MAX_BYTES) {
    st = lth_error_set(err, LTH_EDATA, "the Matrix Market file is larger than %zu MiB",
                       LTH_MTX_MAX_BYTES >> 20);
  }
  size_t cap = st == LTH_OK ? (size_t)sb.st_size + 1 : 0, n = 0;
  char *buf = st == LTH_OK ? malloc(cap + 1) : NULL;
  if (st == LTH_OK && !buf) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory reading a Matrix Market file");
  }
  if (st == LTH_OK) { /* one byte more than its size: a file that grew is refused */
    n = fread(buf, 1, cap, fp);
    if (ferror(fp) || n == cap) {
      st = lth_error_set(err, LTH_EIO, "error reading the Matrix Market file%s",
                         n == cap ? " (it changed while read)" : "");
    }
  }
  if (fp) {
    fclose(fp);
  }
  if (st != LTH_OK) {
    free(buf);
    lth_error_set_pos(err, path, 0, 0);
    return st;
  }
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return LTH_OK;
}

lth_csc *lth_mtx_read(const char *path, lth_error *err) {
  char *buf;
  size_t len;
  if (read_all(path, &buf, &len, err) != LTH_OK) {
    return NULL;
  }
  lth_csc *m = lth_mtx_parse(buf, len, path, err);
  free(buf);
  return m;
}
