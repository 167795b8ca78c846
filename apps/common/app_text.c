/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Readable matrix printing (app_text.h). */
#include "app_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* 6 significant digits; exact zeros print as 0 so structure stands out. */
static int put_entry(FILE *fp, double x) {
  if (x == 0.0) {
    x = 0.0; /* also turns -0 into 0 */
  }
  fprintf(fp, " %12.6g", x);
  return !isfinite(x);
}

int app_text_matrix(FILE *fp, const char *indent, const char *name, const double *a, int rows,
                    int cols, int ld) {
  if (rows == 0 || cols == 0) {
    fprintf(fp, "%s%s = [] (%d x %d)\n", indent, name, rows, cols);
    return 0;
  }
  int bad = 0;
  fprintf(fp, "%s%s (%d x %d) =\n", indent, name, rows, cols);
  for (int i = 0; i < rows; i++) {
    fprintf(fp, "%s  [", indent);
    for (int j = 0; j < cols; j++) {
      bad += put_entry(fp, a[i + (size_t)j * (size_t)ld]);
    }
    fputs(" ]\n", fp);
  }
  return bad;
}

int app_text_vector(FILE *fp, const char *indent, const char *name, const double *x, size_t n) {
  int bad = 0;
  fprintf(fp, "%s%s (%zu) = [", indent, name, n);
  for (size_t k = 0; k < n; k++) {
    bad += put_entry(fp, x[k]);
  }
  fputs(" ]\n", fp);
  return bad;
}

char *app_fmt_g(char *buf, size_t size, double x, int digits) {
  snprintf(buf, size, "%.*g", digits, x);
  return buf;
}

char *app_fmt_exact(char *buf, size_t size, double x) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, size, "%.*g", digits, x);
    if (strtod(buf, NULL) == x || !isfinite(x)) {
      break;
    }
  }
  return buf;
}
