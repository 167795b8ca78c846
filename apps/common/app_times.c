/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Choice of report times (app_times.h). */
#include "app_times.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"

int app_times_uniform(app_times *tm, double t0, double t1, size_t n) {
  memset(tm, 0, sizeof *tm);
  tm->owned = malloc((n ? n : 1) * sizeof *tm->owned);
  if (!tm->owned) {
    return -1;
  }
  /* the same formula as the data files' `grid N`, so --grid N equals it */
  for (size_t k = 0; k < n; k++) {
    tm->owned[k] = k + 1 == n ? t1 : t0 + (t1 - t0) * ((double)k / (double)(n - 1));
  }
  tm->t = tm->owned;
  tm->n = n;
  tm->source = APP_TIMES_UNIFORM;
  return 0;
}

static int times_from_list(app_times *tm, const app_list *list, const char *opt_name, double t0,
                           double t1) {
  for (size_t k = 0; k < list->n; k++) {
    double t = list->v[k];
    if (!(t >= t0 && t <= t1)) {
      char bt[32], b0[32], b1[32];
      return app_usage_error("%s: time %s lies outside the interval [%s, %s] of the data file",
                             opt_name, app_fmt_exact(bt, sizeof bt, t),
                             app_fmt_exact(b0, sizeof b0, t0), app_fmt_exact(b1, sizeof b1, t1));
    }
  }
  tm->owned = malloc(list->n * sizeof *tm->owned);
  if (!tm->owned) {
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  memcpy(tm->owned, list->v, list->n * sizeof *tm->owned);
  tm->t = tm->owned;
  tm->n = list->n;
  tm->source = APP_TIMES_LIST;
  return 0;
}

int app_times_select(app_times *tm, const lth_problem *pb, const app_list *list,
                     const char *opt_name, long uniform_n) {
  double t0, t1;
  memset(tm, 0, sizeof *tm);
  lth_problem_interval(pb, &t0, &t1);
  if (list && list->n > 0) {
    return times_from_list(tm, list, opt_name, t0, t1);
  }
  if (uniform_n > 0) {
    if (uniform_n < 2) {
      return app_usage_error("--grid needs at least 2 points");
    }
    if (app_times_uniform(tm, t0, t1, (size_t)uniform_n) != 0) {
      return app_failf(APP_EXIT_NUMERIC, "out of memory for %ld grid points", uniform_n);
    }
    return 0;
  }
  tm->n = lth_problem_grid(pb, &tm->t);
  tm->source = APP_TIMES_FILE;
  return 0;
}

void app_times_free(app_times *tm) {
  free(tm->owned);
  memset(tm, 0, sizeof *tm);
}
