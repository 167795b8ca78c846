/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Streaming JSON writer (RFC 8259) for the tools' machine-readable output.
 *
 * Numbers are printed with %.17g, so they read back exactly (docs/format.md
 * section 2).  JSON has no NaN or Inf: a non-finite number is written as
 * null and remembered (app_json_nonfinite); the tool must then fail with exit
 * status 3 (better: check values before writing, so the message can name t).
 * Matrices arrive column-major with a leading dimension, as everywhere in
 * lth, and are written row-major as nested arrays [[row 1], [row 2], ...];
 * vectors are flat arrays.  Commas, quotes and escapes are handled here.
 *
 * Negative zero is written as 0 (the sign of a zero is rounding noise and
 * would only make outputs of different BLAS builds differ).
 *
 * Layout: objects nested at most `wrap_depth` deep, and arrays of objects or
 * arrays nested that deep, put each element on its own indented line; all
 * else stays on one line.  With wrap_depth 3 a list of objects of matrices
 * reads as one key per line, one matrix per line; wrap_depth 0 gives one line.
 */
#ifndef LTH_APP_JSON_H
#define LTH_APP_JSON_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define APP_JSON_MAXDEPTH 32

typedef struct app_json {
  FILE *fp;
  int depth;                           /* open containers */
  int count[APP_JSON_MAXDEPTH + 1];    /* elements written at each depth */
  char kind[APP_JSON_MAXDEPTH + 1];    /* '{' or '[' */
  char wrapped[APP_JSON_MAXDEPTH + 1]; /* elements on their own lines */
  int after_key;                       /* a key was written, its value is next */
  int wrap_depth;
  const char *key[APP_JSON_MAXDEPTH + 1]; /* last key at each depth (for messages) */
  int nonfinite;                          /* number of non-finite numbers written */
  char bad_key[64];                       /* key of the first one */
  int misuse;                             /* a call out of place (a bug in the tool) */
} app_json;

void app_json_init(app_json *j, FILE *fp, int wrap_depth);

void app_json_begin_object(app_json *j);
void app_json_end_object(app_json *j);
void app_json_begin_array(app_json *j);
void app_json_end_array(app_json *j);
/* Key of the next member (inside an object); the string is escaped. */
void app_json_key(app_json *j, const char *key);

void app_json_number(app_json *j, double x);
void app_json_int(app_json *j, long long v);
void app_json_bool(app_json *j, int b);
void app_json_null(app_json *j);
void app_json_string(app_json *j, const char *s);

/* A member: its key, then its value (inside an object). */
void app_json_put_number(app_json *j, const char *key, double x);
void app_json_put_int(app_json *j, const char *key, long long v);
void app_json_put_bool(app_json *j, const char *key, int b);
void app_json_put_string(app_json *j, const char *key, const char *s);
void app_json_put_vector(app_json *j, const char *key, const double *x, size_t n);

/* Flat array x[0], x[inc], ..., x[(n-1)*inc]. */
void app_json_vector(app_json *j, const double *x, size_t n, size_t inc);
void app_json_int_vector(app_json *j, const int *x, size_t n);
/* Column-major rows x cols matrix with leading dimension ld, written
 * row-major: [[a11, a12, ...], [a21, ...], ...] ([] when rows = 0). */
void app_json_matrix(app_json *j, const double *a, int rows, int cols, int ld);

/* Finish: a newline after the top-level value.  Returns 0 if the document is
 * complete, finite and the stream had no write error; -1 otherwise. */
int app_json_finish(app_json *j);
/* Number of non-finite numbers written so far (each written as null). */
int app_json_nonfinite(const app_json *j);

#ifdef __cplusplus
}
#endif
#endif
