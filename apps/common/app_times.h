/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The times a tool reports at: the data file's grid, N uniform points over
 * the file's interval (--grid N), or an explicit list (--at / --times).
 * Explicit times must lie in [t0, t1]; a time outside is a usage error that
 * names it (exit status 1).  Explicit lists keep the user's order.
 */
#ifndef LTH_APP_TIMES_H
#define LTH_APP_TIMES_H

#include <stddef.h>

#include "lth/problem.h"

#include "app_opts.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum app_times_source {
  APP_TIMES_FILE = 0, /* the file's grid statement (or its default) */
  APP_TIMES_UNIFORM,  /* --grid N */
  APP_TIMES_LIST      /* --at / --times */
} app_times_source;

typedef struct app_times {
  const double *t; /* n times */
  size_t n;
  double *owned; /* storage when not the problem's grid */
  app_times_source source;
} app_times;

/* Choose the times: `list` if given (list != NULL and list->n > 0; opt_name
 * such as "--at" is used in messages), else `uniform_n` >= 2 uniform points
 * if uniform_n > 0, else the problem's grid.  Returns 0, or an exit status
 * after reporting the problem (1: a time outside the interval, 3: no memory). */
int app_times_select(app_times *tm, const lth_problem *pb, const app_list *list,
                     const char *opt_name, long uniform_n);
/* n uniform points from t0 to t1 (the last exactly t1), as the data files'
 * `grid N` statement makes them.  Returns 0 or -1 (no memory). */
int app_times_uniform(app_times *tm, double t0, double t1, size_t n);
void app_times_free(app_times *tm);

#ifdef __cplusplus
}
#endif
#endif
