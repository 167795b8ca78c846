/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which columns of the thin factors can be nonzero, from the blocks'
 * patterns alone (lib/decomp/op_impl.h): entries outside a pattern are exact
 * zeros at every t, so a column that no product can reach is zero at every
 * point, and the decomposition and its applies skip it.  With a few
 * constraints acting locally (a chain of masses with m links) the thin
 * factors C_i, D_i have a few dozen nonzero columns of the W = m + 1 of
 * [v | 1]; with dense blocks every column is in and nothing changes. */
#include <stdlib.h>
#include <string.h>

#include "op_impl.h"

/* The block (i, j) of the system (1-based), or NULL where it is not set. */
static const op_block *blk(const lth_opsys *sys, int i, int j) {
  const op_block *b = &sys->A[(i - 1) + sys->r * (j - 1)];
  return b->set ? b : NULL;
}

/* A block M_i^{-1} B (a => mass, op_mass.c) has entries in every row of a
 * column where B has one (M_i^{-1} is dense for a connected M_i, and nothing
 * smaller is known from the pattern): its row i is reached from a set of
 * rows `in` of block row i when any of them is in. */
static int any_in(const op_block *a, const char *in) {
  for (int q = 0; in && q < a->rows; q++) {
    if (in[q]) return 1;
  }
  return !in;
}

/* act(R_{r-1}) = the nonempty columns of A_{r,r-1}; act(R_i) = the columns
 * of A_{i+1,i} with an entry in a row of act(R_{i+1}) (R_i = R_{i+1}
 * A_{i+1,i}): into act[off_{i-1} + jj] (0/1). */
static void act_mask(const lth_opsys *sys, char *act) {
  int r = sys->r;
  for (int i = r - 1; i >= 1; i--) {
    const op_block *a = blk(sys, i + 1, i);
    const char *in = i == r - 1 ? NULL : act + sys->off[i];
    char *out = act + sys->off[i - 1];
    int all = a && a->mass && any_in(a, in);
    for (int jj = 0; jj < sys->n[i - 1]; jj++) {
      out[jj] = 0;
      for (int p = a ? a->colptr[jj] : 0; a && p < a->colptr[jj + 1] && !out[jj]; p++) {
        out[jj] = all || (!a->mass && (!in || in[a->rowind[p]]));
      }
    }
  }
}

/* to[off_k + jj] = 1 for the columns jj of A_jk with an entry in a row that
 * from[off_j + .] marks: the columns of X A_jk for X with columns `from`. */
static void spread(const lth_opsys *sys, int j, int k, const char *from, char *to) {
  const op_block *a = blk(sys, j, k);
  if (!a) {
    return;
  }
  const char *in = from + sys->off[j - 1];
  char *out = to + sys->off[k - 1];
  int all = a->mass && any_in(a, in);
  for (int jj = 0; jj < sys->n[k - 1]; jj++) {
    for (int p = a->colptr[jj]; p < a->colptr[jj + 1] && !out[jj]; p++) {
      out[jj] = all || (!a->mass && in[a->rowind[p]]);
    }
  }
}

static void unite(char *to, const char *from, int w) {
  for (int c = 0; c < w; c++) to[c] |= from[c];
}

/* The columns of C_i (i = 0..r-1), following Algorithm 1 in operator form
 * (op_impl.h) term by term, into cm[i * w ..] (w = m + 1, the last the
 * affine one); E_i and D_i have those of C_{i-1}:
 *   C_{r-1}:  the affine column (Clark (3.4));
 *   E_i     = C_i' + sum_{j>i} C_i^(j) (A_jk V_k + F_jk C_k + L_j D_j + f_j):
 *             C_i's, the spread of C_i's through A_jk (k >= j - 1), C_k's
 *             (k >= j), D_j's = C_{j-1}'s, the affine one;
 *   C_{i-1} = E_i - S_i (A_ij V_j + F_ij C_j + f_i) - T_i V_i:
 *             E_i's, the spread of act(S_i) through A_ij (j >= i), C_j's
 *             (j >= i), the affine one, act(S_i) itself (T_i V_i).
 * (C_k's columns are C_{k-1}'s too, through F_kk C_k; the unions of E_i
 * repeat them, as the formula does.) */
static void c_masks(const lth_opsys *sys, const char *act, char *cm) {
  int r = sys->r, w = sys->m + 1;
  memset(cm, 0, (size_t)r * (size_t)w);
  cm[(size_t)(r - 1) * w + sys->m] = 1;
  for (int i = r - 1; i >= 1; i--) {
    const char *ci = cm + (size_t)i * w;
    char *cn = cm + (size_t)(i - 1) * w; /* C_{i-1}, gathering E_i first */
    unite(cn, ci, w);
    for (int j = i + 1; j < r; j++) {
      for (int k = j - 1; k < r; k++) spread(sys, j, k, ci, cn);
      for (int k = j - 1; k < r; k++) unite(cn, cm + (size_t)k * w, w); /* C_k, D_j = C_{j-1} */
    }
    for (int j = i; j < r; j++) {
      spread(sys, i, j, act, cn);
      unite(cn, cm + (size_t)j * w, w);
    }
    for (int jj = 0; jj < sys->n[i - 1]; jj++)
      cn[sys->off[i - 1] + jj] |= act[sys->off[i - 1] + jj];
    cn[sys->m] = 1;
  }
}

lth_status op_structure(const lth_opsys *sys, char **act_out, int **ucol_out, int *wc_out) {
  int r = sys->r, w = sys->m + 1;
  char *act = calloc((size_t)w, 1), *cm = calloc((size_t)r * (size_t)w, 1);
  int *ucol = malloc((size_t)w * sizeof(int));
  lth_status st = act && cm && ucol ? LTH_OK : LTH_ENOMEM;
  if (st == LTH_OK) {
    act_mask(sys, act);
    c_masks(sys, act, cm);
    for (int i = 1; i < r; i++) unite(cm, cm + (size_t)i * w, w);
    int wc = 0;
    for (int c = 0; c < w; c++) {
      if (cm[c]) ucol[wc++] = c;
    }
    *wc_out = wc;
  }
  free(cm);
  if (st != LTH_OK) {
    free(act);
    free(ucol);
    act = NULL;
    ucol = NULL;
  }
  *act_out = act;
  *ucol_out = ucol;
  return st;
}

/* ---- the rows of L_i and F_ij, the columns of R_i, S_i, T_i ----
 * L_1 = A_1r, L_i = A_{i,i-1} L_{i-1} (Clark (2.3)): a row of L_i can be
 * nonzero only where A_{i,i-1} has an entry in a column that is a row of
 * L_{i-1} can be; F_ij = A_ij L_j has the rows A_ij reaches from L_j's, and
 * F_ii = A_ii L_i - L_i' L_i's rows too.  The other rows are exact zeros at
 * every t, as are the columns of R_i outside act(R_i) (and so of
 * S_i = Pi^{-1} R_i, T_i = S_i' + S_i L_i' S_i). */

lth_status op_rows_from_mask(const char *mask, int u, op_rows *out) {
  int n = 0;
  for (int k = 0; k < u; k++) n += mask[k] != 0;
  int keep0 = n == 0; /* an empty set keeps entry 0 (then an exact zero) */
  n += keep0;
  out->n = n;
  out->u = u;
  out->idx = malloc((size_t)n * sizeof(int));
  out->pos = malloc((size_t)u * sizeof(int));
  if (!out->idx || !out->pos) {
    return LTH_ENOMEM;
  }
  for (int k = 0, c = 0; k < u; k++) {
    int in = mask[k] != 0 || (keep0 && k == 0);
    out->pos[k] = in ? c : -1;
    if (in) out->idx[c++] = k;
  }
  return LTH_OK;
}

void op_rows_release(op_rows *rs) {
  if (rs) {
    free(rs->idx);
    free(rs->pos);
    *rs = (op_rows){0};
  }
}

/* out[row] = 1 for the rows of a with an entry in a column in (NULL: every
 * column). */
static void reach(const op_block *a, const char *in, char *out) {
  for (int jj = 0; a && jj < a->cols; jj++) {
    for (int p = a->colptr[jj]; (!in || in[jj]) && p < a->colptr[jj + 1]; p++) {
      if (a->mass) { /* M^{-1} B: every row */
        memset(out, 1, (size_t)a->rows);
        return;
      }
      out[a->rowind[p]] = 1;
    }
  }
}

lth_status op_thin_sets(const lth_opsys *sys, op_rows *lr, op_rows *fr, op_rows *sa) {
  int r = sys->r, w = sys->m + 1;
  char *lm = calloc((size_t)w, 1), *fm = calloc((size_t)sys->nmax + 1, 1), *act = NULL;
  int *ucol = NULL, wc = 0;
  lth_status st = lm && fm ? op_structure(sys, &act, &ucol, &wc) : LTH_ENOMEM;
  for (int i = 1; i < r && st == LTH_OK; i++) { /* L_i's rows into lm[off_{i-1} ..] */
    reach(blk(sys, i, i == 1 ? r : i - 1), i == 1 ? NULL : lm + sys->off[i - 2],
          lm + sys->off[i - 1]);
  }
  for (int i = 1; i < r && st == LTH_OK; i++) {
    int ni = sys->n[i - 1];
    st = op_rows_from_mask(lm + sys->off[i - 1], ni, &lr[i - 1]);
    if (st == LTH_OK) st = op_rows_from_mask(act + sys->off[i - 1], ni, &sa[i - 1]);
    for (int j = i; j < r && st == LTH_OK; j++) {
      if (j != i && !blk(sys, i, j)) {
        continue;
      }
      memset(fm, 0, (size_t)ni);
      reach(blk(sys, i, j), lm + sys->off[j - 1], fm);
      if (j == i) unite(fm, lm + sys->off[i - 1], ni);
      st = op_rows_from_mask(fm, ni, &fr[(i - 1) + r * (j - 1)]);
    }
  }
  free(lm);
  free(fm);
  free(act);
  free(ucol);
  return st;
}
