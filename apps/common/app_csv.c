/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CSV writer (app_csv.h). */
#include "app_csv.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void app_csv_init(app_csv *c, FILE *fp) {
  memset(c, 0, sizeof *c);
  c->fp = fp;
}

static void separator(app_csv *c) {
  if (c->col++ > 0) {
    fputc(',', c->fp);
  }
}

/* RFC 4180: quote a field with a comma, quote or line break; double quotes. */
static void put_field(FILE *fp, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, fp);
    return;
  }
  fputc('"', fp);
  for (; *s; s++) {
    if (*s == '"') {
      fputc('"', fp);
    }
    fputc(*s, fp);
  }
  fputc('"', fp);
}

void app_csv_name(app_csv *c, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  separator(c);
  put_field(c->fp, buf);
}

void app_csv_matrix_names(app_csv *c, const char *name, int rows, int cols, int vector) {
  for (int i = 1; i <= rows; i++) {
    for (int j = 1; j <= cols; j++) {
      if (vector) {
        app_csv_name(c, "%s[%d]", name, i);
      } else {
        app_csv_name(c, "%s[%d,%d]", name, i, j);
      }
    }
  }
}

void app_csv_number(app_csv *c, double x) {
  separator(c);
  if (!isfinite(x)) {
    c->nonfinite++; /* CSV readers would take "nan" as data; leave the cell empty */
    return;
  }
  fprintf(c->fp, "%.17g", x == 0.0 ? 0.0 : x); /* -0 -> 0, as in JSON */
}

void app_csv_int(app_csv *c, long long v) {
  separator(c);
  fprintf(c->fp, "%lld", v);
}

void app_csv_matrix(app_csv *c, const double *a, int rows, int cols, int ld) {
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      app_csv_number(c, a[i + (size_t)j * (size_t)ld]);
    }
  }
}

void app_csv_end_row(app_csv *c) {
  fputc('\n', c->fp);
  if (c->ncols == 0) {
    c->ncols = c->col;
  } else {
    if (c->col != c->ncols) {
      c->misuse = 1;
    }
    c->rows++;
  }
  c->col = 0;
}

int app_csv_finish(app_csv *c) {
  return c->col == 0 && !c->misuse && c->nonfinite == 0 && !ferror(c->fp) ? 0 : -1;
}
