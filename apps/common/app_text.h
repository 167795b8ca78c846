/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Readable text output: matrices with aligned columns, and short number
 * formats for reports.  Text is for people; exact values come from
 * --format json or csv. */
#ifndef LTH_APP_TEXT_H
#define LTH_APP_TEXT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Print a column-major rows x cols matrix (leading dimension ld) as
 *   INDENTname (rows x cols) =
 *   INDENT  [  1.00000   0.500000 ]
 * with 6 significant digits, right-aligned columns; "name = [] (0 x 3)" for
 * an empty matrix.  Returns the number of non-finite entries printed. */
int app_text_matrix(FILE *fp, const char *indent, const char *name, const double *a, int rows,
                    int cols, int ld);
/* A vector x[0..n-1], printed as a row: "name (n) = [ 1  2  3 ]". */
int app_text_vector(FILE *fp, const char *indent, const char *name, const double *x, size_t n);

/* "%.*g" into buf (size >= 32); returns buf.  For report lines. */
char *app_fmt_g(char *buf, size_t size, double x, int digits);
/* The shortest of %.15g, %.16g, %.17g that reads back as x (size >= 32):
 * times in messages look as the user typed them and still identify x. */
char *app_fmt_exact(char *buf, size_t size, double x);

#ifdef __cplusplus
}
#endif
#endif
