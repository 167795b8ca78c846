/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: output-time bookkeeping shared by the BVP and LQR solvers. */
#ifndef LTH_TIMES_H
#define LTH_TIMES_H

#include <stddef.h>

#include "lth/status.h"

/* Sorted distinct union of t0, t1 and times[0..n-1] (malloc'ed into *all);
 * idx[k] = position of times[k] in it. */
lth_status lth_time_union(double t0, double t1, const double *times, size_t n, double **all,
                          size_t *nall, size_t *idx, lth_error *err);

#endif
