/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the layers above the decomposition (tables, IVPs): a workspace whose
 * chain scale is shared by the workspaces of one solve.  Not public: the
 * sharing goes through the system's cache (lib/system/system_scale.h),
 * which every solve clears when it starts (lth_ivp_prescan). */
#ifndef LTH_DECOMP_SHARED_H
#define LTH_DECOMP_SHARED_H

#include "lth/decomp.h"

/* Like lth_decomp_ws_alloc, but the chain scale comes from the system's
 * cache when it holds one (computed and stored there otherwise).  The public
 * allocators always compute it afresh: a callback's data may have changed
 * since the last call. */
lth_decomp_ws *lth_decomp_ws_alloc_shared(const lth_system *sys, int out_order, lth_error *err);

#endif
