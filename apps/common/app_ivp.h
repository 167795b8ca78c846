/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Integrator settings that every integrating tool (lth-solve, lth-bvp,
 * lth-lqr) takes from the run the same way: --cond-max and the progress
 * line.  (Sampled data are decomposed where the library's checks put nodes,
 * never at the file's grid: the grid sets where the tools report.) */
#ifndef LTH_APP_IVP_H
#define LTH_APP_IVP_H

#include "lth/ivp.h"

#include "app_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* o->cond_max from --cond-max and the progress line (time reached). */
void app_ivp_setup(app_run *run, lth_ivp_opts *o);

#ifdef __cplusplus
}
#endif
#endif
