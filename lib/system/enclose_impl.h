/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of the enclosures of a system's data (enclose.c). */
#ifndef LTH_SYSTEM_ENCLOSE_IMPL_H
#define LTH_SYSTEM_ENCLOSE_IMPL_H

#include "lth/enclose.h"

/* dense != 0: enclose every piece of data entry by entry as rows x cols,
 * also the sparse sources that carry an enclosure on their pattern (which
 * are otherwise enclosed there, O(nnz)).  The verdicts are the same either
 * way (tests/unit/system/test_enclose.c compares them); the dense way is
 * kept to show it.  Reallocates the handle's workspace (LTH_ENOMEM). */
lth_status lth_enclose_set_dense(lth_enclose *enc, int dense, lth_error *err);

#endif
