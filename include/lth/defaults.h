/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth's default settings, in one place.
 *
 * The option structures take them from their *_opts_init functions, the
 * tools and the Python package from here (the tools' --help and the Python
 * signatures print these numbers).  A field left 0 in an option structure
 * means "the default" wherever its header says so; that default is the one
 * below.
 */
#ifndef LTH_DEFAULTS_H
#define LTH_DEFAULTS_H

/* Largest accepted chain condition (lth_point.cond_chain, cond_interval and
 * the error amplification; docs/conditioning.md): above it a decomposition
 * refuses the point (LTH_ECOND). */
#define LTH_DEFAULT_COND_MAX 1e12

/* Local error tolerances of the reduced ODE's integrator (lth_ivp_opts,
 * lth_bvp_opts.ivp, lth_lqr_opts.ivp): relative and absolute. */
#define LTH_DEFAULT_RTOL 1e-10
#define LTH_DEFAULT_ATOL 1e-12

/* Error tolerance of the adaptive collocation mesh (lth_bvp_opts.tol). */
#define LTH_DEFAULT_COLLOC_TOL 1e-8

#endif
