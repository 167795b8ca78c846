/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tables of values over times (app_table.h). */
#include "app_table.h"

void app_json_rows(app_json *j, const char *key, const double *x, size_t n, size_t dim) {
  app_json_key(j, key);
  app_json_begin_array(j);
  for (size_t k = 0; k < n; k++) {
    app_json_vector(j, x + k * dim, dim, 1);
  }
  app_json_end_array(j);
}

void app_json_names(app_json *j, const char *key, const app_names *names) {
  app_json_key(j, key);
  app_json_begin_array(j);
  for (int i = 0; i < names->n; i++) {
    app_json_string(j, names->name[i]);
  }
  app_json_end_array(j);
  if (names->user) {
    /* the equation form: the user's unknowns in their order, and for each
     * position of z (canonical) the 1-based index of its unknown there */
    app_json_key(j, "variables");
    app_json_begin_array(j);
    for (int k = 0; k < names->n; k++) {
      app_json_string(j, names->name[names->order[k]]);
    }
    app_json_end_array(j);
    app_json_key(j, "variable_index");
    app_json_begin_array(j);
    for (int i = 0; i < names->n; i++) {
      app_json_int(j, names->user_index[i] + 1);
    }
    app_json_end_array(j);
  }
  if (names->user && names->n > names->s) {
    /* the index-1 unknowns: the components after z's s */
    app_json_key(j, "index1");
    app_json_begin_array(j);
    for (int i = names->s; i < names->n; i++) {
      app_json_string(j, names->name[i]);
    }
    app_json_end_array(j);
  }
}

void app_csv_quoted_names(FILE *fp, const char *name, int n) {
  for (int i = 1; i <= n; i++) {
    fprintf(fp, ",\"%s[%d]\"", name, i);
  }
}

void app_csv_table(app_csv *c, const char *name, const double *times, const double *x, size_t n,
                   size_t dim) {
  fputc('t', c->fp);
  app_csv_quoted_names(c->fp, name, (int)dim);
  fputc('\n', c->fp);
  /* the writer takes the first row it sees for the header and checks that
   * every later row has as many cells: all rows here are data rows */
  for (size_t k = 0; k < n; k++) {
    app_csv_number(c, times[k]);
    app_csv_matrix(c, x + k * dim, (int)dim, 1, (int)dim);
    app_csv_end_row(c);
  }
}

void app_text_cells(FILE *fp, const char *name, int n, int width) {
  for (int i = 1; i <= n; i++) {
    char b[64];
    snprintf(b, sizeof b, "%s[%d]", name, i);
    fprintf(fp, " %*s", width, b);
  }
}

void app_text_numbers(FILE *fp, const double *x, size_t n, int width, int digits) {
  for (size_t i = 0; i < n; i++) {
    fprintf(fp, " %*.*g", width, digits, x[i] == 0.0 ? 0.0 : x[i]);
  }
}

void app_text_table(FILE *fp, const app_names *names, const double *times, const double *x,
                    size_t n, size_t dim) {
  app_text_table_y(fp, names, times, x, n, dim, NULL, NULL, 0);
}

void app_text_table_y(FILE *fp, const app_names *names, const double *times, const double *x,
                      size_t n, size_t dim, const char *const *ynames, const double *y, size_t ny) {
  fprintf(fp, "\n%17s", "t");
  for (size_t c = 0; c < dim; c++) {
    fprintf(fp, " %17s", names->name[names->order[c]]);
  }
  for (size_t c = 0; c < ny; c++) {
    fprintf(fp, " %17s", ynames[c]);
  }
  fputc('\n', fp);
  for (size_t k = 0; k < n; k++) {
    fprintf(fp, "%17.10g", times[k]);
    for (size_t c = 0; c < dim; c++) {
      app_text_numbers(fp, x + k * dim + names->order[c], 1, 17, 10);
    }
    app_text_numbers(fp, y ? y + k * ny : NULL, ny, 17, 10);
    fputc('\n', fp);
  }
}

void app_csv_z(app_csv *c, const app_names *names, const double *times, const double *z, size_t n,
               size_t dim) {
  app_csv_z_y(c, names, times, z, n, dim, NULL, NULL, 0);
}

void app_csv_z_y(app_csv *c, const app_names *names, const double *times, const double *z, size_t n,
                 size_t dim, const char *const *ynames, const double *y, size_t ny) {
  if (!names->user && ny == 0) {
    app_csv_table(c, "z", times, z, n, dim);
    return;
  }
  fputc('t', c->fp);
  if (!names->user) {
    app_csv_quoted_names(c->fp, "z", (int)dim);
  }
  for (size_t k = 0; names->user && k < dim; k++) {
    fprintf(c->fp, ",\"%s\"", names->name[names->order[k]]);
  }
  for (size_t k = 0; k < ny; k++) {
    fprintf(c->fp, ",\"%s\"", ynames[k]);
  }
  fputc('\n', c->fp);
  for (size_t r = 0; r < n; r++) {
    app_csv_number(c, times[r]);
    for (size_t k = 0; k < dim; k++) {
      app_csv_number(c, z[r * dim + (size_t)(names->user ? names->order[k] : (int)k)]);
    }
    for (size_t k = 0; k < ny; k++) {
      app_csv_number(c, y[r * ny + k]);
    }
    app_csv_end_row(c);
  }
}
