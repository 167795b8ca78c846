/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Library-internal: where the operator form's data come from, for the
 * solvers above it that look between their points (lib/ivp/opivp_stretch.c,
 * lib/bvp/bvp_op.c: include/lth/enclose.h). */
#ifndef LTH_OP_DATA_H
#define LTH_OP_DATA_H

#include "lth/opdecomp.h"
#include "lth/system.h"

/* The system lth_opsys_from_system made sys from, while every block and f_i
 * of sys are still that system's sources: its enclosures are then sys's
 * (lth_enclose_alloc).  NULL for a system built block by block or changed
 * since (callbacks, constant blocks: their data carry no enclosure here). */
const lth_system *op_sys_origin(const lth_opsys *sys);

#endif
