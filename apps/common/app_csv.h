/* SPDX-License-Identifier: GPL-3.0-or-later */
/* CSV writer (RFC 4180): a header row of named columns, then one row per
 * record; numbers with %.17g (they read back exactly; -0 is written 0).  Fields holding a
 * comma, a quote or a line break are quoted, so a column named P[1,2] is
 * written "P[1,2]" and every CSV reader sees one column of that name.
 * Like the JSON writer, a non-finite number is refused: the cell stays empty
 * and app_csv_nonfinite counts it; the tool must fail with exit status 3.
 */
#ifndef LTH_APP_CSV_H
#define LTH_APP_CSV_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_csv {
  FILE *fp;
  size_t col;   /* cells written in the current row */
  size_t ncols; /* cells of the header row (0 until the header ends) */
  size_t rows;  /* data rows finished */
  int nonfinite;
  int misuse; /* a row with a different number of cells than the header */
} app_csv;

void app_csv_init(app_csv *c, FILE *fp);

/* One header cell (quoted if needed); printf-style. */
void app_csv_name(app_csv *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Header cells NAME[i,j] for a rows x cols matrix in row-major order (1-based),
 * or NAME[i] when vector != 0 (cols must be 1). */
void app_csv_matrix_names(app_csv *c, const char *name, int rows, int cols, int vector);

void app_csv_number(app_csv *c, double x);
void app_csv_int(app_csv *c, long long v);
/* Cells of a column-major matrix in row-major order. */
void app_csv_matrix(app_csv *c, const double *a, int rows, int cols, int ld);
/* End the current row (the first one ends the header). */
void app_csv_end_row(app_csv *c);

/* 0 if every row matched the header, all numbers were finite and the
 * stream had no write error; -1 otherwise. */
int app_csv_finish(app_csv *c);

#ifdef __cplusplus
}
#endif
#endif
