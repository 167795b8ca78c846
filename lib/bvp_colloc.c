/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Collocation for DAE boundary-value problems (include/lth/bvp.h): not yet
 * implemented; the method is refused with LTH_EINVAL. */
#include "bvp_impl.h"

lth_status lth_bvp_collocation(const lth_bvp_problem *bp, const lth_bvp_opts *o,
                               lth_bvp_result *res, lth_error *err) {
  (void)bp;
  (void)o;
  (void)res;
  return lth_error_set(err, LTH_EINVAL, "the collocation method is not available yet");
}
