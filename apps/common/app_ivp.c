/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Integrator settings from a run (app_ivp.h). */
#include "app_ivp.h"

void app_ivp_setup(app_run *run, lth_ivp_opts *o) {
  o->cond_max = run->opt->cond_max;
  o->progress = app_progress_time;
  o->progress_ctx = &run->progress;
}
