/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where the data would make a BVP's solution jump (bvp_impl.h,
 * lth_bvp_check_impulses; docs/collocation.md section 8).
 *
 * Which rows of block row j the hidden constraints hold.  Write the m-th
 * derivative of the constraint 0 = A(r,r-1) z_{r-1} + f_r as
 * sum_k C_k^(m) z_k + g^(m) = 0, with each z_l' replaced by row l of the DAE
 * (docs/theory.md section 1): C^(0) is row r's blocks, and
 *     C_k^(m+1) = (C_k^(m))' + sum_l C_l^(m) A(l,k),
 * while row l's data enter g^(m+1) as C_l^(m) f_l and C_l^(m) A(l,k).  So
 * row i of block row l reaches a constraint of order <= r - 2 only if column
 * i of some C_l^(m), m <= r - 3, is not identically zero, and a column
 * identically zero on [t0, t1] stays zero when differentiated.  The columns
 * that can be nonzero follow from the blocks' patterns alone (an entry is
 * zero when proven so: a structural zero of a sparse block, or an enclosure
 * {0} of its value over [t0, t1]): node (l, i) leads to (k, c) when
 * A(l,k)(i,c) is not proven zero, starting from the columns of row r's
 * blocks, r - 3 steps.  At index 3 that is the column pattern of A(3,2), the
 * chain R_2 of Clark's projectors; from index 4 on, the diagonal and upper
 * blocks widen it (A(4,3) A(3,3) f_3 is in the second derivative).  A
 * pattern, never values: a product that cancels numerically does not
 * cancel in its derivatives. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bvp_impl.h"
#include "core/errors.h"
#include "lth/enclose.h"
#include "source/source_rows.h"

/* to[c] = 1 for every column c of src with an entry (i, c), from[i] set,
 * that is not proven zero on [t0, t1].  Data without an enclosure: every
 * entry of the pattern (all of a dense block) counts. */
static lth_status mark_columns(const lth_source *src, double t0, double t1,
                               const unsigned char *from, unsigned char *to, lth_error *err) {
  int rows = lth_source_rows(src), cols = lth_source_cols(src), any = 0;
  for (int i = 0; i < rows && !any; i++) any = from[i];
  if (!any) return LTH_OK;
  int nnz = 0;
  const int *cp = NULL, *ri = NULL;
  int sparse =
      lth_source_is_sparse(src) && lth_source_csc_pattern(src, &nnz, &cp, &ri, NULL) == LTH_OK;
  int enc = sparse ? lth_source_can_enclose_csc(src) : lth_source_can_enclose_dense(src);
  size_t n = sparse ? (size_t)nnz : (size_t)rows * (size_t)cols;
  lth_interval *v = NULL, *work = NULL;
  if (enc) {
    v = malloc((n + 1) * sizeof *v);
    size_t nw =
        sparse ? lth_source_enclose_work_size(src, 0) : lth_source_enclose_dense_work(src, 0);
    work = malloc((nw + 1) * sizeof *work);
    if (!v || !work) {
      free(v);
      free(work);
      return lth_error_set(err, LTH_ENOMEM, "out of memory enclosing a block's pattern");
    }
    /* a failed enclosure proves nothing zero */
    lth_status st = sparse ? lth_source_enclose_csc(src, t0, t1, 0, v, n ? n : 1, work, NULL)
                           : lth_source_enclose_dense(src, t0, t1, 0, v, work, NULL);
    if (st != LTH_OK) enc = 0;
  }
  for (int c = 0; c < cols; c++) {
    int lo = sparse ? cp[c] : 0, hi = sparse ? cp[c + 1] : rows;
    for (int p = lo; p < hi && !to[c]; p++) {
      int i = sparse ? ri[p] : p;
      size_t e = sparse ? (size_t)p : (size_t)i + (size_t)c * (size_t)rows;
      to[c] = from[i] && !(enc && v[e].lo == 0.0 && v[e].hi == 0.0);
    }
  }
  free(v);
  free(work);
  return LTH_OK;
}

/* reach[offset(k) + i] = 1 if row i of block row k reaches a hidden
 * constraint (top of this file); block row r entirely. */
static lth_status reached_rows(const lth_system *sys, double t0, double t1, unsigned char *reach,
                               lth_error *err) {
  int r = lth_system_index(sys), s = lth_system_size(sys);
  unsigned char *prev = calloc((size_t)s + 1, 1);
  if (!prev) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  memset(reach, 0, (size_t)s);
  unsigned char *last = reach + lth_system_block_offset(sys, r);
  memset(last, 1, (size_t)lth_system_block_size(sys, r));
  lth_status st = LTH_OK;
  for (int k = 1; k < r && st == LTH_OK; k++) { /* C^(0): row r's blocks */
    const lth_source *A = lth_system_A(sys, r, k);
    if (A) st = mark_columns(A, t0, t1, last, reach + lth_system_block_offset(sys, k), err);
  }
  for (int m = 0; m < r - 3 && st == LTH_OK; m++) { /* C^(m+1) from C^(m) */
    memcpy(prev, reach, (size_t)s);
    for (int l = 1; l < r && st == LTH_OK; l++) {
      for (int k = 1; k < r && st == LTH_OK; k++) {
        const lth_source *A = lth_system_A(sys, l, k);
        if (A) {
          st = mark_columns(A, t0, t1, prev + lth_system_block_offset(sys, l),
                            reach + lth_system_block_offset(sys, k), err);
        }
      }
    }
  }
  free(prev);
  return st;
}

/* One block of row j, its rows where keep[i] is set: its first non-smooth
 * point at order j - 1, if any.  The block is enclosed through a row view
 * (source_rows.h) when rows are dropped, and also when it is a scaled view
 * (B', -A' of an LQR system), which lth_enclose would examine through its
 * base and name the base's entries.  Data without an enclosure by either
 * route (composites, seen through their parts) are checked in every row. */
static lth_status block_impulse(const lth_source *src, const unsigned char *keep, const char *name,
                                int j, double t0, double t1, lth_error *err) {
  LTH_ERROR_RECORD(err);
  int rows = lth_source_rows(src), nkeep = 0;
  for (int i = 0; i < rows; i++) nkeep += keep[i] != 0;
  if (nkeep == 0) return LTH_OK;
  lth_source *view = NULL;
  int leaf = lth_source_can_enclose(src);
  if ((nkeep < rows || !leaf) &&
      (lth_source_can_enclose_dense(src) || lth_source_can_enclose_csc(src))) {
    if (!(view = lth_source_rows_kept(src, keep, err))) return lth_error_status(err);
    src = view;
  }
  lth_enclose *enc = lth_enclose_alloc_sources(&src, 1, j - 1, err);
  if (!enc) {
    lth_source_free(view);
    return lth_error_status(err);
  }
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
  lth_source_free(view);
  return st;
}

lth_status lth_bvp_check_impulses(const lth_system *sys, double t0, double t1, lth_error *err) {
  int r = lth_system_index(sys);
  unsigned char *reach = malloc((size_t)lth_system_size(sys) + 1);
  if (!reach) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  lth_status st = reached_rows(sys, t0, t1, reach, err);
  char name[32];
  for (int j = 2; j <= r && st == LTH_OK; j++) {
    const unsigned char *keep = reach + lth_system_block_offset(sys, j);
    for (int k = 1; k <= r + 1 && st == LTH_OK; k++) {
      const lth_source *src = k <= r ? lth_system_A(sys, j, k) : lth_system_forcing(sys, j);
      if (!src) continue;
      if (k <= r) {
        snprintf(name, sizeof name, "A(%d,%d)", j, k);
      } else {
        snprintf(name, sizeof name, "f(%d)", j);
      }
      st = block_impulse(src, keep, name, j, t0, t1, err);
    }
  }
  free(reach);
  return st;
}

lth_status lth_bvp_check_data(const lth_system *sys, double t0, double t1, lth_error *err) {
  if (!sys || !(t0 < t1)) {
    return lth_error_set(err, LTH_EINVAL, "lth_bvp_check_data: need a system and t0 < t1");
  }
  return lth_bvp_check_impulses(sys, t0, t1, err);
}
