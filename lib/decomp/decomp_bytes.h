/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a decomposition's workspace and result take, for the layers above that
 * keep a memory budget before they allocate (a coefficient table:
 * lth_table_opts.max_bytes, lib/table/coef_table_alloc.c). */
#ifndef LTH_DECOMP_BYTES_H
#define LTH_DECOMP_BYTES_H

#include <stddef.h>

#include "lth/system.h"

/* The memory lth_point_alloc(sys, order) takes (bytes). */
size_t lth_point_bytes(const lth_system *sys, int order);
/* The memory lth_decomp_ws_alloc(sys, out_order) takes (bytes): its jets of
 * s^2 and s m size; the sources' scratch and the LU of Pi (of the size of one
 * block of data) left out. */
size_t lth_decomp_ws_bytes(const lth_system *sys, int out_order);

#endif
