/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A small JSON reader (RFC 8259) for lth-plot: the whole document as a tree.
 *
 * Arrays whose elements are all numbers are stored as one double vector
 * (nums), so the matrices of a large lth-decompose output cost 8 bytes per
 * number plus a node per row.  Strings are UTF-8 with escapes resolved
 * (\uXXXX and surrogate pairs); an embedded NUL is an error.  Nesting is
 * limited to APP_JR_MAXDEPTH; numbers must be finite.  Errors name
 * the line and column (lth_error: LTH_EPARSE, file/line/column set).
 */
#ifndef LTH_APP_JSONREAD_H
#define LTH_APP_JSONREAD_H

#include <stddef.h>

#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APP_JR_MAXDEPTH 128

typedef enum app_jtype {
  APP_JNULL = 0,
  APP_JBOOL,
  APP_JNUM,
  APP_JSTR,
  APP_JARR,
  APP_JOBJ
} app_jtype;

typedef struct app_jval app_jval;
struct app_jval {
  app_jtype type;
  size_t n;        /* elements (array, object) or bytes (string) */
  double num;      /* number; bool as 0/1 */
  char *str;       /* string (NUL-terminated) */
  double *nums;    /* array of numbers only: n values (items is NULL) */
  app_jval *items; /* other arrays and objects: n values */
  char **keys;     /* object: n keys */
};

/* Parse text[0..len-1]; `name` is used in messages. */
lth_status app_jr_parse(const char *text, size_t len, const char *name, app_jval **out,
                        lth_error *err);
/* Read and parse a file ("-": standard input). */
lth_status app_jr_read_file(const char *path, app_jval **out, lth_error *err);
void app_jr_free(app_jval *v);

/* Member of an object (NULL if absent or v is not an object). */
const app_jval *app_jr_get(const app_jval *v, const char *key);
/* Number of elements of an array (0 for other values). */
size_t app_jr_len(const app_jval *v);
/* Element i of an array as a number: 0 on success, -1 if absent or not a number. */
int app_jr_num_at(const app_jval *v, size_t i, double *x);
/* Element i of an array as a value (NULL for numeric arrays and out of range). */
const app_jval *app_jr_at(const app_jval *v, size_t i);
/* v as a number (numbers and booleans): 0 on success, -1 otherwise. */
int app_jr_number(const app_jval *v, double *x);

#ifdef __cplusplus
}
#endif
#endif
