/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve's own modules: the tool's context (its options and the solution
 * in the user's order), the operator path (solve_op.c) and the writers of the
 * three formats (solve_out.c).  apps/lth-solve.c is the tool; every file here
 * is part of it only. */
#ifndef LTH_SOLVE_H
#define LTH_SOLVE_H

#include "app.h"
#include "app_driver.h"
#include "app_path.h"
#include "app_samplerr.h"
#include "lth/ivp.h"
#include "solve_op.h"

/* The options of lth-solve, and the solution in the user's order. */
struct app_ctx {
  app_list z0_opt;
  double rtol, atol, stabilize;
  double table_memory; /* --table-memory MB (0: the library's default) */
  int method, project, reproject, coefficients;
  int method_given; /* --method was given (constant data then integrate) */
  int error_off;    /* --error-estimate: 0 on (default), 1 off */
  const double *z0; /* the given initial value */
  const char *z0_source;
  double *sorted;  /* the times, sorted for the library */
  double *z;       /* z at tm.t[k] (the user's order): z + k*s */
  double *z_error; /* its estimated error, the same way (NULL: none) */
  lth_ivp_result *res;
  app_sampling smp;
  double sampling_error;  /* the data's contribution to z's error (NaN: exact data) */
  int path_opt;           /* --path: APP_PATH_AUTO, _DENSE, _OPERATOR */
  app_path path;          /* the path taken */
  solve_op_stats opstats; /* the operator path's Krylov and projection counts */
};

/* The writers of app_tool.write (text, CSV, JSON; docs/format.md). */
void solve_write_text(const app_ctx *C, app_run *run);
void solve_write_csv(const app_ctx *C, app_run *run);
void solve_write_json(const app_ctx *C, app_run *run);

#endif
