/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where the data would make a BVP's solution jump (bvp_impl.h,
 * lth_bvp_check_impulses; docs/collocation.md section 8). */
#include <float.h>
#include <stdio.h>
#include <string.h>

#include "bvp_impl.h"
#include "core/errors.h"

/* One block of row j: its first non-smooth point at order j - 1, if any. */
static lth_status block_impulse(const lth_source *src, const char *name, int j, double t0,
                                double t1, lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_enclose *enc = lth_enclose_alloc_sources(&src, 1, j - 1, err);
  if (!enc) return lth_error_status(err);
  lth_pieces pc;
  memset(&pc, 0, sizeof pc);
  lth_status st = lth_enclose_known(enc)
                      ? lth_pieces_find(enc, t0, t1, j - 2, DBL_MAX, 0.0, 100000, &pc, err)
                      : LTH_OK;
  if (st == LTH_OK && pc.npoint > 0) {
    size_t k = pc.first;
    double t = pc.t[k] + 0.5 * (pc.t[k + 1] - pc.t[k]);
    const char *entry = strstr(pc.what, " entry");
    char how[160] = "its value jumps there, and the constraints hold block row 2's data";
    if (j > 2) {
      snprintf(how, sizeof how,
               "its derivative of order %d jumps there, and the hidden constraints hold block "
               "row %d's data differentiated %d time%s",
               j - 2, j, j - 2, j == 3 ? "" : "s");
    }
    st = lth_error_set_t(err, LTH_ENOSOL, t,
                         "no solution without an impulse: %s%s is not smooth enough at t (%s, "
                         "so the differential components would jump too); split the interval "
                         "there, or smooth the data",
                         name, entry ? entry : "", how);
  }
  lth_pieces_release(&pc);
  lth_enclose_free(enc);
  return st;
}

lth_status lth_bvp_check_impulses(const lth_system *sys, double t0, double t1, lth_error *err) {
  int r = lth_system_index(sys);
  lth_status st = LTH_OK;
  char name[32];
  for (int j = 2; j <= r && st == LTH_OK; j++) {
    for (int k = 1; k <= r + 1 && st == LTH_OK; k++) {
      const lth_source *src = k <= r ? lth_system_A(sys, j, k) : lth_system_forcing(sys, j);
      if (!src) continue;
      if (k <= r) {
        snprintf(name, sizeof name, "A(%d,%d)", j, k);
      } else {
        snprintf(name, sizeof name, "f(%d)", j);
      }
      st = block_impulse(src, name, j, t0, t1, err);
    }
  }
  return st;
}

lth_status lth_bvp_check_data(const lth_system *sys, double t0, double t1, lth_error *err) {
  if (!sys || !(t0 < t1)) {
    return lth_error_set(err, LTH_EINVAL, "lth_bvp_check_data: need a system and t0 < t1");
  }
  return lth_bvp_check_impulses(sys, t0, t1, err);
}
