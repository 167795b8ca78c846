/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tables of values over times, as lth-solve, lth-bvp and lth-lqr write them:
 * rows k = 0..n-1 of dim numbers at x + k*dim, row k at times[k].
 *   JSON   "key": [[row 1], [row 2], ...]
 *   CSV    header t,"z[1]",...,"z[s]" (every name quoted, one form for
 *          scripts), then one row per time, %.17g
 *   text   right-aligned columns headed by the component names
 */
#ifndef LTH_APP_TABLE_H
#define LTH_APP_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "app_csv.h"
#include "app_json.h"
#include "app_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* "key": [[...], ...] (n rows). */
void app_json_rows(app_json *j, const char *key, const double *x, size_t n, size_t dim);
/* "key": ["name 1", ...] (the short names). */
void app_json_names(app_json *j, const char *key, const app_names *names);

/* Header cells ,"NAME[1]",...,"NAME[n]" after a first cell the caller wrote. */
void app_csv_quoted_names(FILE *fp, const char *name, int n);
/* The header t,"NAME[1]",...,"NAME[dim]", then the rows t, x... */
void app_csv_table(app_csv *c, const char *name, const double *times, const double *x, size_t n,
                   size_t dim);

/* z's table: as app_csv_table(c, "z", ...) for block-form names; for the
 * equation form the header is t,"x1","v1",... and the columns are in the
 * user's order. */
void app_csv_z(app_csv *c, const app_names *names, const double *times, const double *z, size_t n,
               size_t dim);

/* The same with ny output columns after the unknowns (y: n rows of ny,
 * headed by ynames). */
void app_csv_z_y(app_csv *c, const app_names *names, const double *times, const double *z, size_t n,
                 size_t dim, const char *const *ynames, const double *y, size_t ny);

/* " %*s" per name / " %*.*g" per number (-0 printed as 0). */
void app_text_cells(FILE *fp, const char *name, int n, int width);
void app_text_numbers(FILE *fp, const double *x, size_t n, int width, int digits);
/* A blank line, the header "t  z_1[1] ..." and one row per time, widths 17,
 * 10 significant digits. */
void app_text_table(FILE *fp, const app_names *names, const double *times, const double *x,
                    size_t n, size_t dim);

void app_text_table_y(FILE *fp, const app_names *names, const double *times, const double *x,
                      size_t n, size_t dim, const char *const *ynames, const double *y, size_t ny);

#ifdef __cplusplus
}
#endif
#endif
