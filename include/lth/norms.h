/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The 2-norm of a difference as lth's tools write it (residuals, the change
 * of an initial value): the plain sum of squares in index order when it
 * neither overflows nor underflows (so that a reader recomputing it from the
 * printed vectors gets the last bit), else scaled by the largest entry, so
 * it never overflows to inf for finite x and y (lib/core/dist2.c). */
#ifndef LTH_NORMS_H
#define LTH_NORMS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ||x - y||_2 of n entries (y NULL: ||x||_2); NaN if an entry is NaN. */
double lth_dist2(const double *x, const double *y, size_t n);

#ifdef __cplusplus
}
#endif
#endif
