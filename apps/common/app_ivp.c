/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Integrator settings from a run (app_ivp.h). */
#include "app_ivp.h"

#include <math.h>

void app_ivp_setup(app_run *run, lth_ivp_opts *o, double t_hi) {
  o->cond_max = run->opt->cond_max;
  o->progress = app_progress_time;
  o->progress_ctx = &run->progress;
  const double *grid;
  size_t n = lth_problem_grid(run->pb, &grid);
  if (isfinite(t_hi) && n >= 2 && grid[0] <= run->t0 && grid[n - 1] >= t_hi) {
    o->hermite_grid = grid;
    o->hermite_n = n;
  }
}
