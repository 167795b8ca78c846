/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-ss: the text report (ss.h; docs/user-guide.md section 9).  A summary,
 * then at each time shown the realization as three tables whose rows read
 * as equations: x[i]' (y_k, z_l) = the row's entries times the column
 * heads x[1..p], u, u', ..., plus the affine part g (y_f, z_f).  Maps of
 * u^(j), j >= 1, that are zero to rounding at that time are left out and
 * named below their table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "lth/problem.h"
#include "ss.h"

#define SS_LABEL (APP_NAME_MAX + 16)
#define SS_NUM   12 /* width of a number, %12.6g as app_text */

const char *ss_input_name(const app_run *run, int k, int j, char *buf, size_t size) {
  const char *u = lth_problem_input_name(run->pb, k);
  if (j <= 3) {
    snprintf(buf, size, "%s%.*s", u, j, "'''");
  } else {
    snprintf(buf, size, "%s^(%d)", u, j);
  }
  return buf;
}

/* "u", "u'", "u''", "u'''", "u^(4)": the j-th derivative of u, for the summary. */
static const char *deriv(int j, char *buf, size_t size) {
  if (j <= 3) {
    snprintf(buf, size, "u%.*s", j, "'''");
  } else {
    snprintf(buf, size, "u^(%d)", j);
  }
  return buf;
}

/* A column of a table: its head, its entries (rows contiguous), and whether
 * a bar separates it from the column before. */
typedef struct ss_col {
  char head[SS_LABEL];
  const double *v;
  int bar;
} ss_col;

typedef struct ss_table {
  ss_col *col;
  int ncol;
  int nrow;
  const char *const *row_name; /* nrow names */
  const int *row_of;           /* row k of the table is entry row_of[k] (NULL: k) */
} ss_table;

static int imax(int a, int b) { return a > b ? a : b; }

static void put_number(FILE *fp, double x, int width) {
  if (x == 0.0) {
    x = 0.0; /* -0 prints as 0 */
  }
  fprintf(fp, " %*.6g", width, x);
}

static void print_table(FILE *fp, const char *title, const ss_table *T) {
  int lw = (int)strlen(title);
  for (int k = 0; k < T->nrow; k++) {
    lw = imax(lw, (int)strlen(T->row_name[k]) + 2);
  }
  fprintf(fp, "  %-*s", lw, title);
  for (int c = 0; c < T->ncol; c++) {
    fprintf(fp, "%s %*s", T->col[c].bar ? " |" : "", imax(SS_NUM, (int)strlen(T->col[c].head)),
            T->col[c].head);
  }
  fputc('\n', fp);
  for (int k = 0; k < T->nrow; k++) {
    int i = T->row_of ? T->row_of[k] : k;
    fprintf(fp, "    %-*s", lw - 2, T->row_name[k]);
    for (int c = 0; c < T->ncol; c++) {
      fprintf(fp, "%s", T->col[c].bar ? " |" : "");
      put_number(fp, T->col[c].v[i], imax(SS_NUM, (int)strlen(T->col[c].head)));
    }
    fputc('\n', fp);
  }
}

/* Columns x[1..p] of a rows x p matrix. */
static void cols_x(ss_table *T, const double *a, int rows, int p) {
  for (int c = 0; c < p; c++) {
    ss_col *col = &T->col[T->ncol++];
    snprintf(col->head, sizeof col->head, "x[%d]", c + 1);
    col->v = a + (size_t)rows * c;
    col->bar = 0;
  }
}

/* Columns u^(j) of map j (rows x nu). */
static void cols_u(ss_table *T, const app_run *run, const double *a, int rows, int nu, int j) {
  for (int c = 0; c < nu; c++) {
    ss_col *col = &T->col[T->ncol++];
    ss_input_name(run, c, j, col->head, sizeof col->head);
    col->v = a + (size_t)rows * c;
    col->bar = c == 0 && T->ncol > 1;
  }
}

static void col_affine(ss_table *T, const char *head, const double *v) {
  ss_col *col = &T->col[T->ncol++];
  snprintf(col->head, sizeof col->head, "%s", head);
  col->v = v;
  col->bar = T->ncol > 1;
}

/* Maps j = 0..count-1 of `maps` as columns; those j >= 1 that are zero to
 * rounding (what: 'b', 'y', 'z' as ss_map_negligible) are left out and
 * listed in `left` ("D1, D2"). */
static void cols_maps(ss_table *T, const app_run *run, const lth_ss_point *pt, const double *maps,
                      int rows, int count, char what, const char *name, char *left, size_t size) {
  left[0] = '\0';
  for (int j = 0; j < count; j++) {
    if (j >= 1 && ss_map_negligible(pt, what, j)) {
      size_t used = strlen(left);
      snprintf(left + used, size - used, "%s%s%d", used ? ", " : "", name, j);
      continue;
    }
    cols_u(T, run, ss_map(maps, rows, pt->nu, j), rows, pt->nu, j);
  }
}

static void note_left(FILE *fp, const char *left) {
  if (left[0]) {
    fprintf(fp, "    (%s: zero to rounding at this t, left out)\n", left);
  }
}

/* The three tables of one time. */
static void text_point(FILE *fp, const app_run *run, const lth_ss_point *pt, ss_col *cols,
                       char **xnames) {
  char bt[32], left[256];
  int p = pt->p, ny = pt->ny, s = pt->s;
  fprintf(fp, "\nAt t = %s:  ||Q^T Q - I|| = %.2g, ||P Q|| = %.2g, error amplification %.3g\n",
          app_fmt_exact(bt, sizeof bt, pt->t), pt->orth_err, pt->range_err, pt->amplification);
  ss_table T = {.col = cols, .nrow = p, .row_name = (const char *const *)xnames};
  if (p > 0) {
    cols_x(&T, pt->A, p, p);
    cols_maps(&T, run, pt, pt->B, p, pt->nb, 'b', "B", left, sizeof left);
    col_affine(&T, "g", pt->g);
    print_table(fp, "x'", &T);
    note_left(fp, left);
  } else {
    fprintf(fp, "  x'  none: p = 0 (u and f fix every unknown)\n");
  }
  if (ny > 0) {
    T = (ss_table){.col = cols, .nrow = ny, .row_name = run->ynames};
    cols_x(&T, pt->C, ny, p);
    cols_maps(&T, run, pt, pt->D, ny, pt->nd, 'y', "D", left, sizeof left);
    col_affine(&T, "y_f", pt->yf);
    print_table(fp, "y", &T);
    note_left(fp, left);
  }
  /* the unknowns in the file's order */
  const app_names *nm = &run->names;
  T = (ss_table){.col = cols, .nrow = s, .row_name = (const char *const *)nm->name};
  int *order = nm->user ? malloc((size_t)s * sizeof *order) : NULL;
  const char **rn = nm->user ? malloc((size_t)s * sizeof *rn) : NULL;
  if (order && rn) {
    int k = 0;
    for (int i = 0; i < nm->n; i++) {
      if (nm->order[i] < s) { /* index-1 unknowns are not in z */
        order[k] = nm->order[i];
        rn[k++] = nm->name[nm->order[i]];
      }
    }
    T.row_of = order;
    T.row_name = rn;
  }
  cols_x(&T, pt->Z, s, p);
  cols_maps(&T, run, pt, pt->Dz, s, pt->nd, 'z', "Dz", left, sizeof left);
  col_affine(&T, "z_f", pt->zf);
  print_table(fp, "z", &T);
  note_left(fp, left);
  free(order);
  free(rn);
}

static void list_names(FILE *fp, const app_run *run, int outputs) {
  int n = outputs ? run->ny : lth_problem_ninputs(run->pb);
  for (int k = 0; k < n; k++) {
    fprintf(fp, "%s%s", k ? ", " : "",
            outputs ? run->ynames[k] : lth_problem_input_name(run->pb, k));
  }
}

/* " + D1 u' + D2 u''" for maps j = from..count-1. */
static void sum_maps(FILE *fp, const char *name, int from, int count) {
  char b[16];
  for (int j = from; j < count; j++) {
    fprintf(fp, " + %s%d %s", name, j, deriv(j, b, sizeof b));
  }
}

static void text_model(FILE *fp, const app_ctx *C, const app_run *run) {
  const lth_ss_point *sh = C->shape;
  fprintf(fp, "realization    x' = A x");
  sum_maps(fp, "B", 0, sh->nb);
  fprintf(fp, " + g\n");
  if (sh->ny > 0) {
    fprintf(fp, "               y  = C x");
    sum_maps(fp, "D", 0, sh->nd);
    fprintf(fp, " + y_f\n");
  }
  fprintf(fp, "               z  = Z x");
  sum_maps(fp, "Dz", 0, sh->nd);
  fprintf(fp, " + z_f   (the DAE's unknowns)\n");
  fprintf(fp, "               x in R^%d, u = (", sh->p);
  list_names(fp, run, 0);
  fprintf(fp, ")\n");
  if (sh->nk > 0) {
    fprintf(fp, "change         v = Q x");
    for (int k = 1; k <= sh->nk; k++) {
      char b[16];
      fprintf(fp, " + K%d %s", k, deriv(k - 1, b, sizeof b));
    }
    fprintf(fp, ": the input derivatives moved out of the state equation\n");
  } else {
    fprintf(fp, "change         none: v = Q x%s\n",
            C->raw ? " (--raw)" : " (no input derivative enters the state equation)");
  }
}

static void text_feedthrough(FILE *fp, const app_ctx *C) {
  char b[16];
  const lth_ss_point *sh = C->shape;
  fprintf(fp, "feedthrough    ");
  if (sh->ny > 0) {
    fprintf(fp, "y depends on %s, z on ",
            C->feed_y > 0 ? deriv(C->feed_y, b, sizeof b) : "no derivative of u");
  } else {
    fprintf(fp, "z depends on ");
  }
  fprintf(fp, "%s at these times;",
          C->feed_z > 0 ? deriv(C->feed_z, b, sizeof b) : "no derivative of u");
  if (sh->nd > 1) {
    fprintf(fp, " at most %s by the structure\n", deriv(sh->nd - 1, b, sizeof b));
  } else {
    fprintf(fp, " none by the structure\n");
  }
}

static const char *times_origin(const app_run *run) {
  switch (run->tm.source) {
  case APP_TIMES_UNIFORM:
    return "uniform, --grid";
  case APP_TIMES_LIST:
    return run->opt->times_opt;
  case APP_TIMES_FILE:
  default:
    return "the file's grid";
  }
}

/* Which times the report shows: every listed time, else the ends. */
static int shown(const app_run *run, size_t k) {
  return run->tm.source == APP_TIMES_LIST || k == 0 || k + 1 == run->tm.n;
}

static void text_header(FILE *fp, const app_ctx *C, const app_run *run) {
  const lth_ss_point *sh = C->shape;
  char b[32];
  fprintf(fp, "file           %s\n", run->path);
  fprintf(fp,
          "plant          index r = %d, s = %d unknowns, state space of dimension p = %d "
          "(in m = %d)\n",
          run->r, sh->s, sh->p, sh->m);
  fprintf(fp, "inputs         ");
  list_names(fp, run, 0);
  fprintf(fp, " (their signals are not used)\n");
  fprintf(fp, "outputs        ");
  if (sh->ny > 0) {
    list_names(fp, run, 1);
    fprintf(fp, "\n");
  } else {
    fprintf(fp, "none (the file has no `outputs`: C and D are empty)\n");
  }
  if (run->names.n > run->s) {
    fprintf(fp, "index-1        ");
    for (int i = run->s; i < run->names.n; i++) {
      fprintf(fp, "%s%s", i > run->s ? ", " : "", run->names.name[i]);
    }
    fprintf(fp, ": not in z (they follow from z, docs/equations.md section 10; name them "
                "in `outputs` for their maps)\n");
  }
  text_model(fp, C, run);
  text_feedthrough(fp, C);
  fprintf(fp,
          "basis          Q (%d x %d) of minimal rotation (Q^T Q' = 0) from t = %s: "
          "||Q^T Q - I|| <= %.2g, ||P Q|| <= %.2g\n",
          sh->m, sh->p, app_fmt_exact(b, sizeof b, C->t_start), C->orth_max, C->range_max);
  fprintf(fp, "times          %zu (%s)\n", run->tm.n, times_origin(run));
  fprintf(fp, "statistics     %ld %s, %ld %s, %.3g s\n", C->steps,
          app_plural((double)C->steps, "step", "steps"), C->decomps,
          app_plural((double)C->decomps, "decomposition", "decompositions"), C->elapsed);
  if (C->smp.n > 0) {
    app_sampling_text(&C->smp, fp);
  }
}

void ss_write_text(const app_ctx *C, app_run *run) {
  FILE *fp = run->fp;
  const lth_ss_point *sh = C->shape;
  text_header(fp, C, run);
  int width = sh->p + sh->nu * (sh->nb > sh->nd ? sh->nb : sh->nd) + 1;
  ss_col *cols = malloc((size_t)width * sizeof *cols);
  char **xnames = malloc(((size_t)sh->p + 1) * sizeof *xnames);
  char *xbuf = malloc((size_t)sh->p * 32 + 1);
  if (!cols || !xnames || !xbuf) {
    lth_error_set(&run->write_err, LTH_ENOMEM, "out of memory writing the report");
  }
  for (int i = 0; xbuf && xnames && i < sh->p; i++) {
    xnames[i] = xbuf + 32 * (size_t)i;
    snprintf(xnames[i], 32, "x[%d]'", i + 1);
  }
  for (size_t k = 0; run->write_err.status == LTH_OK && k < C->n; k++) {
    if (shown(run, k)) {
      text_point(fp, run, C->pt[k], cols, xnames);
    }
  }
  if (run->tm.source != APP_TIMES_LIST && run->tm.n > 2) {
    fprintf(fp, "\n(the first and the last time only: --at T1,T2,... shows others, --format json "
                "or mat every time)\n");
  }
  free(xbuf);
  free(xnames);
  free(cols);
}
