/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Integrator settings that every integrating tool (lth-solve, lth-bvp,
 * lth-lqr) takes from the run the same way: --cond-max, the progress line,
 * and for sampled data the Hermite grid. */
#ifndef LTH_APP_IVP_H
#define LTH_APP_IVP_H

#include "lth/ivp.h"

#include "app_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* o->cond_max from --cond-max and the progress line (time reached).  With
 * t_hi finite, sampled data are interpolated (Hermite) on the file's grid
 * when it covers [t0, t_hi] (else the library's 201 uniform points). */
void app_ivp_setup(app_run *run, lth_ivp_opts *o, double t_hi);

#ifdef __cplusplus
}
#endif
#endif
