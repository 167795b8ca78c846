/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The 2-norm of x - y as the tools write it (apps/common/app_check.c's
 * app_dist2, the same loops): the plain sum of squares in index order when it
 * neither overflows nor underflows (so that a reader recomputing it gets the
 * last bit), else scaled by the largest entry. */
#ifndef LTH_CORE_DIST2_H
#define LTH_CORE_DIST2_H

#include <stddef.h>

/* ||x - y||_2 (y NULL: ||x||_2). */
double lth_dist2(const double *x, const double *y, size_t n);

#endif
