/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Streaming JSON writer (app_json.h). */
#include "app_json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void app_json_init(app_json *j, FILE *fp, int wrap_depth) {
  memset(j, 0, sizeof *j);
  j->fp = fp;
  j->wrap_depth = wrap_depth;
}

static void newline_indent(app_json *j, int depth) {
  fputc('\n', j->fp);
  for (int k = 0; k < depth; k++) {
    fputs("  ", j->fp);
  }
}

/* Separator and layout before an item at the current depth: a member's key
 * (is_key), a container (is_container) or a scalar value. */
static void before(app_json *j, int is_key, int is_container) {
  if (j->after_key) {
    j->after_key = 0;
    if (is_key) {
      j->misuse = 1; /* two keys in a row */
    }
    return; /* the value of a member follows its key on the same line */
  }
  if (j->depth == 0) {
    if (j->count[0]++ > 0) {
      j->misuse = 1; /* a second top-level value */
    }
    return;
  }
  if ((j->kind[j->depth] == '{') != is_key) {
    j->misuse = 1; /* object members need keys; array elements have none */
  }
  if (j->count[j->depth] == 0) {
    /* the first element decides: arrays of numbers stay on one line */
    j->wrapped[j->depth] = j->depth <= j->wrap_depth && (j->kind[j->depth] == '{' || is_container);
  }
  if (j->count[j->depth]++ > 0) {
    fputc(',', j->fp);
    if (!j->wrapped[j->depth]) {
      fputc(' ', j->fp);
    }
  }
  if (j->wrapped[j->depth]) {
    newline_indent(j, j->depth);
  }
}

static void before_item(app_json *j) { before(j, 0, 0); }

static void begin(app_json *j, char open) {
  before(j, 0, 1);
  fputc(open, j->fp);
  if (j->depth >= APP_JSON_MAXDEPTH) {
    j->misuse = 1;
    return;
  }
  j->depth++;
  j->kind[j->depth] = open;
  j->count[j->depth] = 0;
  j->wrapped[j->depth] = 0;
  j->key[j->depth] = NULL;
}

static void end(app_json *j, char open, char close) {
  if (j->depth == 0 || j->kind[j->depth] != open || j->after_key) {
    j->misuse = 1;
    return;
  }
  int wrapped = j->count[j->depth] > 0 && j->wrapped[j->depth];
  j->depth--;
  if (wrapped) {
    newline_indent(j, j->depth);
  }
  fputc(close, j->fp);
}

void app_json_begin_object(app_json *j) { begin(j, '{'); }
void app_json_end_object(app_json *j) { end(j, '{', '}'); }
void app_json_begin_array(app_json *j) { begin(j, '['); }
void app_json_end_array(app_json *j) { end(j, '[', ']'); }

static void put_string(FILE *fp, const char *s) {
  fputc('"', fp);
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    switch (*c) {
    case '"':
      fputs("\\\"", fp);
      break;
    case '\\':
      fputs("\\\\", fp);
      break;
    case '\n':
      fputs("\\n", fp);
      break;
    case '\r':
      fputs("\\r", fp);
      break;
    case '\t':
      fputs("\\t", fp);
      break;
    case '\b':
      fputs("\\b", fp);
      break;
    case '\f':
      fputs("\\f", fp);
      break;
    default:
      if (*c < 0x20) {
        fprintf(fp, "\\u%04x", *c);
      } else {
        fputc(*c, fp); /* UTF-8 passes through unchanged */
      }
    }
  }
  fputc('"', fp);
}

void app_json_key(app_json *j, const char *key) {
  if (j->depth == 0 || j->kind[j->depth] != '{' || j->after_key) {
    j->misuse = 1;
    return;
  }
  before(j, 1, 0);
  put_string(j->fp, key);
  fputs(": ", j->fp);
  j->key[j->depth] = key;
  j->after_key = 1;
}

/* The innermost key in scope, for messages about non-finite numbers. */
static const char *current_key(const app_json *j) {
  for (int d = j->depth; d > 0; d--) {
    if (j->key[d]) {
      return j->key[d];
    }
  }
  return "(top level)";
}

void app_json_number(app_json *j, double x) {
  before_item(j);
  if (!isfinite(x)) {
    /* JSON cannot hold it; keep the document parseable, remember the failure */
    if (j->nonfinite++ == 0) {
      snprintf(j->bad_key, sizeof j->bad_key, "%s", current_key(j));
    }
    fputs("null", j->fp);
    return;
  }
  fprintf(j->fp, "%.17g", x == 0.0 ? 0.0 : x); /* -0 -> 0 */
}

void app_json_int(app_json *j, long long v) {
  before_item(j);
  fprintf(j->fp, "%lld", v);
}

void app_json_bool(app_json *j, int b) {
  before_item(j);
  fputs(b ? "true" : "false", j->fp);
}

void app_json_null(app_json *j) {
  before_item(j);
  fputs("null", j->fp);
}

void app_json_string(app_json *j, const char *s) {
  before_item(j);
  put_string(j->fp, s);
}

void app_json_vector(app_json *j, const double *x, size_t n, size_t inc) {
  app_json_begin_array(j);
  for (size_t k = 0; k < n; k++) {
    app_json_number(j, x[k * inc]);
  }
  app_json_end_array(j);
}

void app_json_int_vector(app_json *j, const int *x, size_t n) {
  app_json_begin_array(j);
  for (size_t k = 0; k < n; k++) {
    app_json_int(j, x[k]);
  }
  app_json_end_array(j);
}

void app_json_matrix(app_json *j, const double *a, int rows, int cols, int ld) {
  app_json_begin_array(j);
  for (int i = 0; i < rows; i++) {
    app_json_vector(j, a + i, (size_t)cols, (size_t)ld);
  }
  app_json_end_array(j);
}

int app_json_finish(app_json *j) {
  fputc('\n', j->fp);
  int complete = j->depth == 0 && j->count[0] == 1 && !j->after_key && !j->misuse;
  return complete && j->nonfinite == 0 && !ferror(j->fp) ? 0 : -1;
}

int app_json_nonfinite(const app_json *j) { return j->nonfinite; }

void app_json_put_number(app_json *j, const char *key, double x) {
  app_json_key(j, key);
  app_json_number(j, x);
}

void app_json_put_int(app_json *j, const char *key, long long v) {
  app_json_key(j, key);
  app_json_int(j, v);
}

void app_json_put_bool(app_json *j, const char *key, int b) {
  app_json_key(j, key);
  app_json_bool(j, b);
}

void app_json_put_string(app_json *j, const char *key, const char *s) {
  app_json_key(j, key);
  app_json_string(j, s);
}

void app_json_put_vector(app_json *j, const char *key, const double *x, size_t n) {
  app_json_key(j, key);
  app_json_vector(j, x, n, 1);
}
