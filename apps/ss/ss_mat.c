/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-ss: MATLAB/Octave v5 .mat output through libmatio (ss.h;
 * docs/format.md section 2.7).  Built without libmatio, --format mat is
 * refused before any work (lth-ss.c, validate).
 *
 * A time-dependent matrix is a 3-D array with time last, M(:,:,k) at
 * times(k), the way an Octave user indexes a sequence of matrices; a set of
 * maps over the derivative order j is one variable per j (B0, B1, D2, ...)
 * named as the formulas write them.  libmatio writes to a path, not a
 * stream: the file is made under a private temporary name and copied into
 * the tool's output (standard output or -o FILE, which app_out replaces
 * only when the copy is complete). */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "ss.h"

#ifdef LTH_HAVE_MATIO
#include <errno.h>
#include <unistd.h>

#include <matio.h>

#include "lth/problem.h"

int ss_have_mat(void) { return 1; }

/* libmatio reports through a log function; keep its last message for ours
 * (it must never print on its own). */
static char mat_message[512];

static void mat_log(int level, char *message) {
  (void)level;
  snprintf(mat_message, sizeof mat_message, "%s", message ? message : "");
}

typedef struct mat_out {
  mat_t *mat;
  int failed;
  lth_error *err;
} mat_out;

static void mat_fail(mat_out *o, const char *what) {
  if (!o->failed) {
    lth_error_set(o->err, LTH_EIO, "writing the .mat file: %s%s%s", what,
                  mat_message[0] ? ": " : "", mat_message);
  }
  o->failed = 1;
}

/* Write a variable (freed here; data owned by the caller). */
static void put_var(mat_out *o, matvar_t *v, const char *name) {
  if (o->failed) {
    Mat_VarFree(v);
    return;
  }
  if (!v || Mat_VarWrite(o->mat, v, MAT_COMPRESSION_NONE) != 0) {
    char what[128];
    snprintf(what, sizeof what, "the variable %s", name);
    mat_fail(o, what);
  }
  Mat_VarFree(v);
}

/* A double array of rank 2 or 3 (data column-major, time last). */
static void put_double(mat_out *o, const char *name, double *data, size_t d0, size_t d1, size_t d2,
                       int rank) {
  size_t dims[3] = {d0, d1, d2};
  static double none;
  matvar_t *v = Mat_VarCreate(name, MAT_C_DOUBLE, MAT_T_DOUBLE, rank, dims, data ? data : &none,
                              MAT_F_DONT_COPY_DATA);
  put_var(o, v, name);
}

static void put_scalar(mat_out *o, const char *name, double x) {
  put_double(o, name, &x, 1, 1, 1, 2);
}

static void put_logical(mat_out *o, const char *name, int b) {
  size_t dims[2] = {1, 1};
  unsigned char x = b ? 1 : 0;
  matvar_t *v = Mat_VarCreate(name, MAT_C_UINT8, MAT_T_UINT8, 2, dims, &x,
                              MAT_F_DONT_COPY_DATA | MAT_F_LOGICAL);
  put_var(o, v, name);
}

/* A 1 x n cell array of strings. */
static void put_names(mat_out *o, const char *name, const char *const *s, int n) {
  size_t dims[2] = {1, (size_t)n};
  matvar_t *cell = Mat_VarCreate(name, MAT_C_CELL, MAT_T_CELL, 2, dims, NULL, 0);
  for (int k = 0; cell && k < n; k++) {
    size_t sd[2] = {1, strlen(s[k])};
    matvar_t *str = Mat_VarCreate(NULL, MAT_C_CHAR, MAT_T_UTF8, 2, sd, (void *)s[k], 0);
    if (!str) {
      Mat_VarFree(cell);
      cell = NULL;
      break;
    }
    Mat_VarSetCell(cell, k, str);
  }
  put_var(o, cell, name);
}

/* What a per-time variable takes from each point: map j of a set (or the
 * matrix itself, j = 0 of a set of one), rows x cols. */
typedef enum { MV_A, MV_B, MV_C, MV_D, MV_G, MV_YF, MV_Q, MV_K, MV_Z, MV_DZ, MV_ZF } mat_item;

/* rows x cols of an item; *vec: a vector (cols = 1), written rows x N. */
static void item_dims(const lth_ss_point *sh, mat_item what, size_t *rows, size_t *cols, int *vec) {
  size_t p = (size_t)sh->p, nu = (size_t)sh->nu, ny = (size_t)sh->ny, m = (size_t)sh->m,
         s = (size_t)sh->s;
  size_t r[] = {[MV_A] = p, [MV_B] = p, [MV_C] = ny, [MV_D] = ny, [MV_G] = p, [MV_YF] = ny,
                [MV_Q] = m, [MV_K] = m, [MV_Z] = s,  [MV_DZ] = s, [MV_ZF] = s};
  size_t c[] = {[MV_A] = p, [MV_B] = nu, [MV_C] = p, [MV_D] = nu,  [MV_G] = 1, [MV_YF] = 1,
                [MV_Q] = p, [MV_K] = nu, [MV_Z] = p, [MV_DZ] = nu, [MV_ZF] = 1};
  *rows = r[what];
  *cols = c[what];
  *vec = what == MV_G || what == MV_YF || what == MV_ZF;
}

/* The point's item (map j of a set); only called with entries to copy. */
static const double *item_of(const lth_ss_point *pt, mat_item what, int j) {
  switch (what) {
  case MV_A:
    return pt->A;
  case MV_B:
    return ss_map(pt->B, pt->p, pt->nu, j);
  case MV_C:
    return pt->C;
  case MV_D:
    return ss_map(pt->D, pt->ny, pt->nu, j);
  case MV_G:
    return pt->g;
  case MV_YF:
    return pt->yf;
  case MV_Q:
    return pt->Q;
  case MV_K:
    return ss_map(pt->K, pt->m, pt->nu, j);
  case MV_Z:
    return pt->Z;
  case MV_DZ:
    return ss_map(pt->Dz, pt->s, pt->nu, j);
  case MV_ZF:
    return pt->zf;
  }
  return NULL;
}

/* rows x cols x N (a vector: rows x N) from every time's item. */
static void put_series(mat_out *o, const app_ctx *C, const char *name, mat_item what, int j) {
  size_t rows = 0, cols = 0, n = C->n;
  int vec = 0;
  item_dims(C->shape, what, &rows, &cols, &vec);
  size_t per = rows * cols;
  double *buf = malloc((per * n + 1) * sizeof *buf);
  if (!buf) {
    mat_fail(o, "out of memory");
    return;
  }
  for (size_t k = 0; per > 0 && k < n; k++) {
    memcpy(buf + per * k, item_of(C->pt[k], what, j), per * sizeof *buf);
  }
  if (vec) {
    put_double(o, name, buf, rows, n, 1, 2);
  } else {
    put_double(o, name, buf, rows, cols, n, 3);
  }
  free(buf);
}

/* name0, name1, ...: one variable per map of a set. */
static void put_maps(mat_out *o, const app_ctx *C, const char *base, mat_item what, int from,
                     int count) {
  for (int j = from; j < count; j++) {
    char name[32];
    snprintf(name, sizeof name, "%s%d", base, j);
    put_series(o, C, name, what, what == MV_K ? j - 1 : j);
  }
}

/* A number per time, N x 1. */
static void put_per_time(mat_out *o, const app_ctx *C, const char *name, int which) {
  double *buf = malloc((C->n + 1) * sizeof *buf);
  if (!buf) {
    mat_fail(o, "out of memory");
    return;
  }
  for (size_t k = 0; k < C->n; k++) {
    const lth_ss_point *pt = C->pt[k];
    buf[k] = which == 0 ? pt->orth_err : which == 1 ? pt->range_err : pt->amplification;
  }
  put_double(o, name, buf, C->n, 1, 1, 2);
  free(buf);
}

static void put_all(mat_out *o, const app_ctx *C, const app_run *run) {
  const lth_ss_point *sh = C->shape;
  double *times = malloc((C->n + 1) * sizeof *times);
  if (!times) {
    mat_fail(o, "out of memory");
    return;
  }
  memcpy(times, run->tm.t, C->n * sizeof *times);
  put_double(o, "times", times, C->n, 1, 1, 2);
  free(times);
  put_scalar(o, "p", sh->p);
  int nu = sh->nu;
  const char **in = malloc(((size_t)nu + 1) * sizeof *in);
  if (!in) {
    mat_fail(o, "out of memory");
    return;
  }
  for (int k = 0; k < nu; k++) {
    in[k] = lth_problem_input_name(run->pb, k);
  }
  put_names(o, "inputs", in, nu);
  free(in);
  put_names(o, "outputs", run->ynames, run->ny);
  put_series(o, C, "A", MV_A, 0);
  put_maps(o, C, "B", MV_B, 0, sh->nb);
  put_series(o, C, "C", MV_C, 0);
  put_maps(o, C, "D", MV_D, 0, sh->nd);
  put_series(o, C, "g", MV_G, 0);
  put_series(o, C, "y_f", MV_YF, 0);
  put_series(o, C, "Z", MV_Z, 0);
  put_maps(o, C, "Dz", MV_DZ, 0, sh->nd);
  put_series(o, C, "z_f", MV_ZF, 0);
  put_series(o, C, "Q", MV_Q, 0);
  put_maps(o, C, "K", MV_K, 1, sh->nk + 1);
  put_names(o, "components", (const char *const *)run->names.name, run->s);
  put_scalar(o, "nb", sh->nb);
  put_scalar(o, "nd", sh->nd);
  put_scalar(o, "nk", sh->nk);
  put_scalar(o, "derivative_feedthrough", C->feed_y);
  put_scalar(o, "derivative_feedthrough_z", C->feed_z);
  put_scalar(o, "derivative_feedthrough_bound", sh->nd - 1);
  put_logical(o, "raw", C->raw);
  put_scalar(o, "basis_start", C->t_start);
  put_per_time(o, C, "orth_err", 0);
  put_per_time(o, C, "range_err", 1);
  put_per_time(o, C, "amplification", 2);
}

/* Copy the finished file into the tool's output. */
static void copy_into(FILE *src, FILE *dst, mat_out *o) {
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, src)) > 0) {
    if (fwrite(buf, 1, n, dst) != n) {
      return; /* the stream's error: the driver names it */
    }
  }
  if (ferror(src)) {
    mat_fail(o, "reading back the temporary file");
  }
}

void ss_write_mat(const app_ctx *C, app_run *run) {
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/lth-ss-XXXXXX", dir && *dir ? dir : "/tmp");
  mat_out o = {.err = &run->write_err};
  mat_message[0] = '\0';
  Mat_LogInitFunc("lth-ss", mat_log);
  int fd = mkstemp(path);
  if (fd < 0) {
    lth_error_set(&run->write_err, LTH_EIO,
                  "cannot create a temporary file for the .mat file "
                  "in %s: %s",
                  dir && *dir ? dir : "/tmp", strerror(errno));
    return;
  }
  close(fd);
  o.mat = Mat_CreateVer(path, "MATLAB 5.0 MAT-file, written by lth-ss (lth " APP_VERSION ")",
                        MAT_FT_MAT5);
  if (!o.mat) {
    mat_fail(&o, "cannot create it");
  } else {
    put_all(&o, C, run);
    if (Mat_Close(o.mat) != 0) {
      mat_fail(&o, "closing it");
    }
  }
  FILE *src = o.failed ? NULL : fopen(path, "rb");
  unlink(path); /* open or not, nothing is left behind */
  if (!o.failed && !src) {
    mat_fail(&o, "reading back the temporary file");
  }
  if (src) {
    copy_into(src, run->fp, &o);
    fclose(src);
  }
}

#else /* without libmatio */

int ss_have_mat(void) { return 0; }

void ss_write_mat(const app_ctx *C, app_run *run) {
  (void)C;
  lth_error_set(&run->write_err, LTH_EINVAL,
                "--format mat: this lth-ss was built without libmatio (libmatio-dev)");
}

#endif
