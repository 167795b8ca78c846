/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: a cache in lth_system for the chain scale of its interval (the
 * largest ||A(r,r-1)||...||A(2,1)|| ||A(1,r)|| on a scan of [t0, t1], which every
 * decomposition workspace needs for cond_interval, docs/conditioning.md).  It
 * costs a scan of a few hundred Pi evaluations: computed once per solve
 * instead of once per workspace (a collocation run allocates three, a table
 * one per thread).  The system only stores the number; lib/decomp/decomp.c computes
 * it.  Setting a block, f or the interval forgets it, and so does the start of
 * every solve (lth_ivp_prescan), since a callback's data may change between
 * solves (a sweep over its context). */
#ifndef LTH_SYSTEM_SCALE_H
#define LTH_SYSTEM_SCALE_H

#include "lth/system.h"

/* The cached scale, or a negative number if none; lth_system_scale_store
 * with a negative number forgets it. */
double lth_system_scale_cached(const lth_system *sys);
void lth_system_scale_store(const lth_system *sys, double scale);

/* The workspaces that read it: lth_decomp_ws_alloc_shared
 * (lib/decomp/decomp_shared.h). */

#endif
