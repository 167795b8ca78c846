/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth_oppoint_block (include/lth/opdecomp.h): the sparse blocks of A(t) a
 * point holds, read-only, for callers that build their own sparse
 * approximations (the preconditioner of lth_opivp_solve). */
#include "op_impl.h"

lth_status lth_oppoint_block(const lth_oppoint *pt, int i, int j, lth_opblock *out,
                             lth_error *err) {
  if (!pt || !out) return lth_error_set(err, LTH_EINVAL, "lth_oppoint_block: NULL argument");
  int r = pt->sys->r;
  if (i < 1 || i > r || j < 1 || j > r) {
    return lth_error_set(err, LTH_EINVAL, "lth_oppoint_block: block (%d,%d) outside 1..%d", i, j,
                         r);
  }
  if (!(pt->info.t == pt->info.t)) {
    return lth_error_set(err, LTH_EINVAL, "lth_oppoint_block: the point holds no decomposition");
  }
  const op_csc *a = op_A(pt, i, j);
  *out = (lth_opblock){.rows = pt->sys->n[i - 1], .cols = pt->sys->n[j - 1]};
  if (a->val && a->nnz > 0) {
    out->nnz = a->nnz;
    out->colptr = a->colptr;
    out->rowind = a->rowind;
    out->val = a->val;
  }
  return LTH_OK;
}
