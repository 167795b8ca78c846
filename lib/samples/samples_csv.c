/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CSV files of sampled data (include/lth/samples.h, docs/format.md 1.1).
 *
 * Rows: t, then the block's entries in row-major order.  '#' starts a
 * comment; blank lines are skipped; CR-LF line ends and blanks around cells
 * are accepted.  The first row that is not a comment is a header when none
 * of its cells looks like a number (a cell looks like one when it starts with
 * a digit, a sign or '.', or reads as a number); otherwise it is data, so a
 * malformed first row ("-1.0.0, 9") is an error naming its line and column,
 * never a header silently dropped.
 *
 * Numbers: as lib/core/numparse.h reads them (locale-independent, correctly
 * rounded); inf, nan and values that overflow are "not a finite number".
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/numparse.h"
#include "samples_impl.h"

#define CSV_MAX_BYTES ((size_t)512 << 20)

/* Read a whole file (NUL-terminated copy). */
static lth_status read_file(const char *path, char **out, size_t *len, lth_error *err) {
  *out = NULL;
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    lth_error_set(err, LTH_EIO, "cannot open CSV file: %s", strerror(errno));
    lth_error_set_pos(err, path, 0, 0);
    return LTH_EIO;
  }
  size_t cap = 0, n = 0;
  char *buf = NULL;
  lth_status st = LTH_OK;
  for (;;) {
    if (n + 65536 + 1 > cap) {
      size_t ncap = cap ? 2 * cap : 131072;
      char *nb = ncap <= CSV_MAX_BYTES + 65537 ? realloc(buf, ncap) : NULL;
      if (!nb) {
        st = ncap <= CSV_MAX_BYTES + 65537
                 ? lth_error_set(err, LTH_ENOMEM, "out of memory reading a CSV file")
                 : lth_error_set(err, LTH_ESAMPLE, "CSV file larger than %zu MiB",
                                 CSV_MAX_BYTES >> 20);
        break;
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + n, 1, 65536, fp);
    n += got;
    if (got < 65536) {
      if (ferror(fp)) {
        st = lth_error_set(err, LTH_EIO, "error reading CSV file");
      }
      break;
    }
  }
  fclose(fp);
  if (st == LTH_OK && n > CSV_MAX_BYTES) {
    st = lth_error_set(err, LTH_ESAMPLE, "CSV file larger than %zu MiB", CSV_MAX_BYTES >> 20);
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

typedef struct csv_reader {
  const char *path;
  int ncols;          /* 1 + rows*cols */
  size_t ncap;        /* cells stored per row: no row can have more than the file has bytes */
  size_t nrows, cap;  /* data rows read */
  double *t, *v;      /* times and row-major values */
  double *cells;      /* one row of cells */
  int header_allowed; /* nothing but comments seen so far */
  int line;
  lth_error *err;
} csv_reader;

static lth_status csv_error(csv_reader *r, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static lth_status csv_error(csv_reader *r, int col, const char *fmt, ...) {
  if (r->err) {
    va_list ap;
    va_start(ap, fmt);
    char msg[LTH_ERROR_MSG_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(r->err);
    lth_error_set(r->err, LTH_ESAMPLE, "%s", msg);
    lth_error_set_pos(r->err, r->path, r->line, col);
  }
  return LTH_ESAMPLE;
}

static int is_blank(int c) { return c == ' ' || c == '\t' || c == '\r'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }

/* Split one line (comment already cut) into r->cells.  *ncells is the
 * number of cells found; *bad the 1-based index of the first cell that is
 * not a finite number (0: none), *bad_kind its lth_parse_number result and
 * *bad_col its column; *numeric counts the cells that look like numbers. */
static void split_cells(csv_reader *r, const char *s, size_t n, int *ncells, int *bad,
                        int *bad_kind, int *bad_col, int *numeric) {
  int count = 0;
  size_t b = 0;
  *bad = 0;
  *numeric = 0;
  for (;;) {
    size_t e = b;
    while (e < n && s[e] != ',') {
      e++;
    }
    size_t cb = b, ce = e;
    while (cb < ce && is_blank(s[cb])) {
      cb++;
    }
    while (ce > cb && is_blank(s[ce - 1])) {
      ce--;
    }
    double v = 0.0;
    int kind = lth_parse_number(s + cb, ce - cb, &v);
    if ((size_t)count < r->ncap) {
      r->cells[count] = v;
    }
    count++;
    *numeric += kind != 0 || (cb < ce && (is_digit(s[cb]) || strchr("+-.", s[cb])));
    if (kind != 1 && !*bad) {
      *bad = count;
      *bad_kind = kind;
      *bad_col = (int)cb + 1;
    }
    if (e >= n) {
      break;
    }
    b = e + 1;
  }
  *ncells = count;
}

static lth_status append_row(csv_reader *r) {
  size_t nv = (size_t)r->ncols - 1;
  if (r->nrows == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    double *nt = realloc(r->t, cap * sizeof *nt);
    if (nt) {
      r->t = nt;
    }
    double *nv2 = nt ? realloc(r->v, cap * nv * sizeof *nv2) : NULL;
    if (!nv2) {
      return lth_error_set(r->err, LTH_ENOMEM, "out of memory reading CSV rows");
    }
    r->v = nv2;
    r->cap = cap;
  }
  r->t[r->nrows] = r->cells[0];
  memcpy(r->v + r->nrows * nv, r->cells + 1, nv * sizeof *r->v);
  r->nrows++;
  return LTH_OK;
}

static lth_status csv_line(csv_reader *r, const char *s, size_t n) {
  const char *hash = memchr(s, '#', n);
  n = hash ? (size_t)(hash - s) : n;
  size_t k = 0;
  while (k < n && is_blank(s[k])) {
    k++;
  }
  if (k == n) {
    return LTH_OK; /* blank or comment line */
  }
  int ncells, bad, kind = 0, col = 0, numeric;
  split_cells(r, s, n, &ncells, &bad, &kind, &col, &numeric);
  int header = r->header_allowed && numeric == 0;
  r->header_allowed = 0;
  if (ncells != r->ncols) {
    return csv_error(r, 0,
                     "%s has %d columns, expected %d (t, then the block's entries in "
                     "row-major order)",
                     header ? "header row" : "row", ncells, r->ncols);
  }
  if (header) {
    return LTH_OK;
  }
  if (bad) {
    return csv_error(r, col, "column %d is %s", bad,
                     kind == 2 ? "not a finite number" : "not a number");
  }
  if (r->nrows > 0 && !(r->cells[0] > r->t[r->nrows - 1])) {
    return csv_error(r, 1,
                     "t = %.17g is not greater than t = %.17g on the previous row: t must "
                     "be strictly increasing",
                     r->cells[0], r->t[r->nrows - 1]);
  }
  return append_row(r);
}

static lth_status csv_parse(csv_reader *r, const char *buf, size_t len) {
  size_t b = 0;
  r->line = 0;
  while (b < len) {
    const char *nl = memchr(buf + b, '\n', len - b);
    size_t e = nl ? (size_t)(nl - buf) : len;
    r->line++;
    lth_status st = csv_line(r, buf + b, e - b);
    if (st != LTH_OK) {
      return st;
    }
    b = e + 1;
  }
  return LTH_OK;
}

lth_source *lth_samples_read_csv_opts(const char *path, int rows, int cols,
                                      const lth_samples_opts *opts, lth_error *err) {
  lth_samples_opts o;
  if (opts) {
    o = *opts;
  } else {
    lth_samples_opts_init(&o);
  }
  if (!path || rows < 1 || cols < 1 || rows > 100000 || cols > 100000) {
    lth_error_set(err, LTH_EINVAL, "CSV path is NULL or block size %d x %d is invalid", rows, cols);
    return NULL;
  }
  char *buf = NULL;
  size_t len = 0;
  lth_source *src = NULL;
  csv_reader r = {.path = path,
                  .ncols = 1 + rows * cols,
                  .ncap = 0,
                  .nrows = 0,
                  .cap = 0,
                  .header_allowed = 1,
                  .line = 0,
                  .err = err};
  if (read_file(path, &buf, &len, err) != LTH_OK) {
    goto cleanup;
  }
  r.ncap = (size_t)r.ncols < len + 1 ? (size_t)r.ncols : len + 1;
  r.cells = malloc(r.ncap * sizeof *r.cells);
  if (!r.cells) {
    lth_error_set(err, LTH_ENOMEM, "out of memory reading a CSV file");
    goto cleanup;
  }
  if (csv_parse(&r, buf, len) != LTH_OK) {
    goto cleanup;
  }
  src = lth_source_samples_opts(rows, cols, r.nrows, r.t, r.v, &o, err);
  if (!src && err) {
    /* too few rows: name the file's end; other errors: the file */
    int few = err->status == LTH_ESAMPLE && strstr(err->message, " samples, but ") != NULL;
    if (few) {
      char msg[LTH_ERROR_MSG_MAX];
      snprintf(msg, sizeof msg, "%s", err->message);
      r.line = r.line > 0 ? r.line : 1;
      csv_error(&r, 0, "%zu data rows%s", r.nrows, strstr(msg, ", but "));
    } else {
      lth_error_set_pos(err, path, 0, 0);
    }
  }
cleanup:
  free(buf);
  free(r.cells);
  free(r.t);
  free(r.v);
  return src;
}

lth_source *lth_samples_read_csv(const char *path, int rows, int cols, int degree, lth_error *err) {
  lth_samples_opts o;
  lth_samples_opts_init(&o);
  o.degree = degree;
  return lth_samples_read_csv_opts(path, rows, cols, &o, err);
}
