/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth_oppoint_block (include/lth/opdecomp.h): the sparse blocks of A(t) a
 * point holds, read-only, for callers that build their own sparse
 * approximations (the preconditioner of lth_opivp_solve). */
#include <string.h>

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
  if (a->mass) {
    return lth_error_set(err, LTH_EINVAL,
                         "A(%d,%d) is the mass matrix %s's solve M^-1 A(%d,%d) (not diagonal), "
                         "kept as a factorization: it has no sparse form",
                         i, j, pt->sys->mlabel[i - 1], i, j);
  }
  *out = (lth_opblock){.rows = pt->sys->n[i - 1], .cols = pt->sys->n[j - 1]};
  if (a->val && a->nnz > 0) {
    out->nnz = a->nnz;
    out->colptr = a->colptr;
    out->rowind = a->rowind;
    out->val = a->val;
  }
  return LTH_OK;
}

/* ---- the thin part's reach (lth_oppoint_thin_reach, lth_oppoint_apply_S) ---- */

/* mask[off + idx] = 1 over a set of a block's rows or columns. */
static void mark(char *mask, int off, const op_rows *rs) {
  for (int a = 0; a < rs->n; a++) mask[off + (rs->n == rs->u ? a : rs->idx[a])] = 1;
}

lth_status lth_oppoint_thin_reach(const lth_oppoint *pt, char *cols, char *rows, lth_error *err) {
  if (!pt || !cols || !rows) {
    return lth_error_set(err, LTH_EINVAL, "lth_oppoint_thin_reach: NULL argument");
  }
  if (!(pt->info.t == pt->info.t)) {
    return lth_error_set(err, LTH_EINVAL,
                         "lth_oppoint_thin_reach: the point holds no decomposition");
  }
  if (pt->sp) {
    return lth_error_set(err, LTH_EINVAL,
                         "lth_oppoint_thin_reach: Pi is factored sparsely here (its thin factors "
                         "are operators); use LTH_OP_PI_DENSE");
  }
  const lth_opsys *sys = pt->sys;
  int r = sys->r;
  memset(cols, 0, (size_t)sys->m);
  memset(rows, 0, (size_t)sys->s);
  /* columns: those of S_i (P, I - P), and those C_i, D_i hold (Ahat, Bhat) */
  for (int i = 1; i < r; i++) mark(cols, sys->off[i - 1], &pt->sa[i - 1]);
  for (int c = 0; c < pt->Wc - 1; c++) cols[pt->ucol[c]] = 1;
  /* rows: those of L_i (P, Bhat's w, Ahat) and F_ij (Ahat), and u's (C_0) */
  for (int i = 1; i < r; i++) {
    mark(rows, sys->off[i - 1], &pt->lr[i - 1]);
    for (int j = i; j < r; j++) {
      if (pt->F[(i - 1) + r * (j - 1)].c)
        mark(rows, sys->off[i - 1], &pt->fr[(i - 1) + r * (j - 1)]);
    }
  }
  memset(rows + sys->m, 1, (size_t)(sys->s - sys->m));
  return LTH_OK;
}

lth_status lth_oppoint_apply_S(const lth_oppoint *pt, const lth_jet *x, lth_jet *y,
                               lth_error *err) {
  if (!pt || !x || !y) return lth_error_set(err, LTH_EINVAL, "lth_oppoint_apply_S: NULL argument");
  const lth_opsys *sys = pt->sys;
  int r = sys->r, nr = sys->nr;
  if (x->rows != sys->m || y->rows != (r - 1) * nr || x->cols != y->cols) {
    return lth_error_set(err, LTH_EDIM, "S x: x is %d x %d and y %d x %d, expected %d and %d rows",
                         x->rows, x->cols, y->rows, y->cols, sys->m, (r - 1) * nr);
  }
  if (!(pt->info.t == pt->info.t)) {
    return lth_error_set(err, LTH_EINVAL, "S x: the point holds no decomposition");
  }
  if (pt->sp) {
    return lth_error_set(err, LTH_EINVAL, "S x: Pi is factored sparsely here; use LTH_OP_PI_DENSE");
  }
  int o = x->order < pt->info.order ? x->order : pt->info.order;
  o = o < y->maxorder ? o : y->maxorder;
  lth_jet_set_zero(y, o);
  for (int i = 1; i < r; i++) {
    lth_jet xi = lth_jet_view(x, sys->off[i - 1], 0, sys->n[i - 1], x->cols);
    lth_jet yi = lth_jet_view(y, (i - 1) * nr, 0, nr, x->cols);
    xi.order = o;
    op_gather_mul(1.0, &pt->S[i - 1], op_idx(&pt->sa[i - 1]), NULL, &xi, &yi);
    if (yi.order < y->order) y->order = yi.order;
  }
  return LTH_OK;
}
