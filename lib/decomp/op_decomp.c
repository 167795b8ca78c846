/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Clark's Algorithm 1 at one point in operator form (include/lth/opdecomp.h;
 * the formulas and their derivation from the uniform form: op_impl.h). */
#include "lth/opdecomp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/conditioning.h"
#include "lth/defaults.h"
#include "op_impl.h"
#include "op_sparsepi.h"
#include "refusal.h"
#include "system/pi_text.h"

/* Columns a block row's mass matrix is solved for at once (KLU solves four
 * right-hand sides at a time). */
#define MASS_CHUNK 4

struct lth_opdecomp_ws {
  const lth_opsys *sys;
  int out_order, K;
  double cond_max, scale;
  lth_jet_lu *lu;
  lth_jet *R, *T; /* index i-1: R_i, T_i at their columns sa[i-1] (n_r x sa.n) */
  lth_jet Pinv;   /* n_r x n_r: the jet of Pi^{-1} */
  lth_jet E;      /* n_r x W: E_i = D[C_i] */
  lth_jet sm;     /* n_r x n_r */
  double *work;   /* dense sources' scratch (op_work_size) */
  /* The columns of R_i that its pattern allows to be nonzero (so those of
   * S_i = Pi^{-1} R_i and T_i; the others are exact zeros at every t), and
   * the rows of L_i, F_ij (op_columns.c, op_thin_sets): with few
   * constraints acting locally these are a few dozen, and the thin factors
   * are stored and multiplied at those alone; for dense blocks, all. */
  op_rows *sa, *lr, *fr;
  lth_jet Ld; /* L_i' at L_i's rows */
  int Wc;     /* the columns of C_i (op_columns.c): E is n_r x Wc */
};

static int imin(int a, int b) { return a < b ? a : b; }

static void lower(lth_jet *J, int order) {
  if (order < J->order) {
    J->order = order;
  }
}

/* Columns c0 .. c0+cols-1 of J, all rows, with J's order. */
static lth_jet cols_of(const lth_jet *J, int c0, int cols) {
  return lth_jet_view(J, 0, c0, J->rows, cols);
}

/* ---- the point ---- */

static size_t jet_bytes(const lth_jet *J) {
  return J && J->c ? (size_t)(J->maxorder + 1) * J->stride * sizeof(double) : 0;
}

static lth_status point_jets(lth_oppoint *pt, lth_error *err) {
  const lth_opsys *sys = pt->sys;
  /* the sparse-Pi path (op_sparsepi.h) uses no thin factor: one row each */
  int r = sys->r, nr = op_sparsepi_on(sys) ? 1 : sys->nr, K = pt->K, W = pt->W;
  lth_status st = LTH_OK;
  for (int k = 0; k < r * r && st == LTH_OK; k++) {
    const op_block *b = &sys->A[k];
    op_csc *a = &pt->A[k];
    *a = (op_csc){.rows = b->rows,
                  .cols = b->cols,
                  .nnz = b->nnz,
                  .colptr = b->colptr,
                  .rowind = b->rowind,
                  .order = -1,
                  .nrm = -1.0,
                  .stride = b->nnz > 0 ? (size_t)b->nnz : 1};
    if (b->set) {
      a->val = calloc(a->stride * (size_t)(K + 1), sizeof(double));
      st = a->val ? LTH_OK : LTH_ENOMEM;
      pt->info.bytes += a->stride * (size_t)(K + 1) * sizeof(double);
    }
    int i = k % r + 1; /* block (i, j) at k = (i - 1) + r (j - 1) */
    if (b->set && b->mass && st == LTH_OK && !pt->mass[i - 1]) {
      pt->mass[i - 1] = op_mass_alloc(sys->mass[i - 1], sys->mlabel[i - 1], MASS_CHUNK, K, err);
      st = pt->mass[i - 1] ? LTH_OK : LTH_ENOMEM;
    }
    a->mass = b->mass ? pt->mass[i - 1] : NULL;
  }
  for (int i = 1; i < r && st == LTH_OK; i++) { /* a row whose only mass-solved part is f_i */
    if (sys->mass[i - 1] && !pt->mass[i - 1]) {
      pt->mass[i - 1] = op_mass_alloc(sys->mass[i - 1], sys->mlabel[i - 1], MASS_CHUNK, K, err);
      st = pt->mass[i - 1] ? LTH_OK : LTH_ENOMEM;
    }
  }
  struct {
    lth_jet *J;
    int rows, cols;
  } list[] = {{&pt->f, sys->s, 1}, {&pt->Pi, nr, nr}, {&pt->g, sys->m, 1}, {&pt->q, sys->s, 1}};
  for (size_t k = 0; k < sizeof list / sizeof list[0] && st == LTH_OK; k++) {
    st = lth_jet_init(list[k].J, list[k].rows, list[k].cols, K, err);
  }
  for (int i = 0; i < r && st == LTH_OK; i++) {
    st = lth_jet_init(&pt->C[i], nr, W, K, err);
  }
  if (st == LTH_OK && pt->compact) {
    pt->xg = lth_jet_alloc(W, pt->max_cols, K, err);
    st = pt->xg ? LTH_OK : LTH_ENOMEM;
  }
  for (int i = 1; i < r && st == LTH_OK; i++) {
    st = lth_jet_init(&pt->L[i - 1], pt->lr[i - 1].n, nr, K, err);
    if (st == LTH_OK) st = lth_jet_init(&pt->S[i - 1], nr, pt->sa[i - 1].n, K, err);
    if (st == LTH_OK) st = lth_jet_init(&pt->D[i - 1], nr, W, K, err);
    for (int j = i; j < r && st == LTH_OK; j++) {
      int ij = (i - 1) + r * (j - 1);
      if (j == i || sys->A[ij].set) st = lth_jet_init(&pt->F[ij], pt->fr[ij].n, nr, K, err);
    }
  }
  if (st == LTH_OK) {
    pt->work = lth_jet_alloc(nr, 2 * r * pt->max_cols, K, err);
    st = pt->work ? LTH_OK : LTH_ENOMEM;
  }
  return st;
}

/* The columns of C_i and D_i (op_columns.c) and their maps; pt->W becomes
 * their number. */
static lth_status point_columns(lth_oppoint *pt) {
  const lth_opsys *sys = pt->sys;
  char *act = NULL;
  int wc = 0;
  lth_status st = op_structure(sys, &act, &pt->ucol, &wc);
  free(act);
  pt->cb = malloc((size_t)(sys->r + 1) * sizeof(int));
  pt->upos = malloc((size_t)(sys->m + 1) * sizeof(int));
  if (st != LTH_OK || !pt->cb || !pt->upos) {
    return LTH_ENOMEM;
  }
  for (int w = 0; w <= sys->m; w++) pt->upos[w] = -1;
  for (int c = 0; c < wc; c++) pt->upos[pt->ucol[c]] = c;
  for (int k = 1, c = 0; k <= sys->r; k++) {
    while (c < wc && pt->ucol[c] < sys->off[k - 1]) c++;
    pt->cb[k] = c; /* cb[r]: the affine column m, the last */
  }
  pt->compact = wc < pt->W;
  pt->W = pt->Wc = wc;
  pt->uloc = malloc((size_t)wc * sizeof(int));
  if (!pt->uloc) {
    return LTH_ENOMEM;
  }
  for (int k = 1; k < sys->r; k++) {
    for (int c = pt->cb[k]; c < pt->cb[k + 1]; c++) pt->uloc[c] = pt->ucol[c] - sys->off[k - 1];
  }
  pt->uloc[wc - 1] = -1; /* the affine column */
  return op_thin_sets(sys, pt->lr, pt->fr, pt->sa);
}

static void point_bytes(lth_oppoint *pt) {
  int r = pt->sys->r;
  const lth_jet *one[] = {&pt->f, &pt->Pi, &pt->g, &pt->q, pt->work, pt->xg};
  for (size_t k = 0; k < sizeof one / sizeof one[0]; k++) pt->info.bytes += jet_bytes(one[k]);
  for (int i = 0; i < r; i++) pt->info.bytes += jet_bytes(&pt->C[i]);
  for (int i = 0; i + 1 < r; i++) {
    pt->info.bytes += jet_bytes(&pt->L[i]) + jet_bytes(&pt->S[i]) + jet_bytes(&pt->D[i]);
  }
  for (int k = 0; k < r * r; k++) pt->info.bytes += jet_bytes(&pt->F[k]);
  for (int k = 0; k < r; k++) pt->info.bytes += op_mass_bytes(pt->mass[k]);
}

lth_oppoint *lth_oppoint_alloc(const lth_opsys *sys, int order, int max_cols, lth_error *err) {
  if (order < 0 || max_cols < 1) {
    lth_error_set(err, LTH_EINVAL, "result order %d must be >= 0 and max_cols %d >= 1", order,
                  max_cols);
    return NULL;
  }
  lth_oppoint *pt = calloc(1, sizeof *pt);
  int r = sys->r;
  if (pt) {
    pt->A = calloc((size_t)r * (size_t)r, sizeof *pt->A);
    pt->F = calloc((size_t)r * (size_t)r, sizeof *pt->F);
    pt->L = calloc((size_t)r, sizeof *pt->L);
    pt->S = calloc((size_t)r, sizeof *pt->S);
    pt->C = calloc((size_t)r, sizeof *pt->C);
    pt->D = calloc((size_t)r, sizeof *pt->D);
    pt->lr = calloc((size_t)r, sizeof *pt->lr);
    pt->sa = calloc((size_t)r, sizeof *pt->sa);
    pt->fr = calloc((size_t)r * (size_t)r, sizeof *pt->fr);
    pt->mass = calloc((size_t)r, sizeof *pt->mass);
  }
  if (!pt || !pt->A || !pt->F || !pt->L || !pt->S || !pt->C || !pt->D || !pt->lr || !pt->sa ||
      !pt->fr || !pt->mass) {
    lth_oppoint_free(pt);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an operator-form result");
    return NULL;
  }
  pt->sys = sys;
  pt->K = order + r - 1;
  pt->W = sys->m + 1;
  pt->max_cols = max_cols;
  pt->info =
      (lth_opinfo){.t = NAN, .order = order, .r = r, .s = sys->s, .m = sys->m, .nr = sys->nr};
  if (point_columns(pt) != LTH_OK || point_jets(pt, err) != LTH_OK) {
    lth_oppoint_free(pt);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an operator-form result");
    return NULL;
  }
  point_bytes(pt);
  if (op_sparsepi_on(sys)) {
    pt->sp = op_sparsepi_alloc(pt, err);
    if (!pt->sp) {
      lth_oppoint_free(pt);
      return NULL;
    }
    pt->info.bytes += op_sparsepi_bytes(pt->sp);
    pt->info.sparse_pi = 1;
  }
  return pt;
}

void lth_oppoint_free(lth_oppoint *pt) {
  if (!pt) {
    return;
  }
  int r = pt->sys ? pt->sys->r : 0;
  for (int k = 0; pt->A && k < r * r; k++) free(pt->A[k].val);
  for (int k = 0; pt->F && k < r * r; k++) lth_jet_release(&pt->F[k]);
  lth_jet *per[] = {pt->L, pt->S, pt->C, pt->D};
  for (int k = 0; k < 4; k++) {
    for (int i = 0; per[k] && i < r; i++) lth_jet_release(&per[k][i]);
    free(per[k]);
  }
  lth_jet *one[] = {&pt->f, &pt->Pi, &pt->g, &pt->q};
  for (int k = 0; k < 4; k++) lth_jet_release(one[k]);
  lth_jet_free(pt->work);
  lth_jet_free(pt->xg);
  for (int k = 0; k < r; k++) {
    if (pt->lr) op_rows_release(&pt->lr[k]);
    if (pt->sa) op_rows_release(&pt->sa[k]);
  }
  for (int k = 0; pt->fr && k < r * r; k++) op_rows_release(&pt->fr[k]);
  free(pt->lr);
  free(pt->sa);
  free(pt->fr);
  free(pt->cb);
  free(pt->ucol);
  free(pt->upos);
  op_sparsepi_free(pt->sp);
  for (int k = 0; pt->mass && k < r; k++) op_mass_free(pt->mass[k]);
  free(pt->mass);
  free(pt->uloc);
  free(pt->A);
  free(pt->F);
  free(pt);
}

const lth_opinfo *lth_oppoint_info(const lth_oppoint *pt) { return &pt->info; }

/* ---- the workspace ---- */

static lth_status check_chain(const lth_opsys *sys, lth_error *err) {
  int r = sys->r;
  if (!sys->A[r * (r - 1)].set) {
    return lth_error_set(err, LTH_ESTRUCT, "A(1,%d) is missing: Pi = 0", r);
  }
  for (int i = 2; i <= r; i++) {
    if (!sys->A[(i - 1) + r * (i - 2)].set) {
      return lth_error_set(err, LTH_ESTRUCT, "A(%d,%d) is missing: Pi = 0", i, i - 1);
    }
  }
  return LTH_OK;
}

/* ---- the structure of R_i, L_i, F_ij and C_i (op_columns.c) ---- */

/* The sets of the thin factors (every point of the system has the same) and
 * the jets at their sizes, with nr rows (1 on the sparse-Pi path, which
 * keeps no thin factor: n_r rows there would be s x n_r dense). */
static lth_status thin_structure(lth_opdecomp_ws *ws, int nr, lth_error *err) {
  const lth_opsys *sys = ws->sys;
  int r = sys->r, K = ws->K;
  char *act = NULL;
  int *ucol = NULL;
  lth_status st = op_structure(sys, &act, &ucol, &ws->Wc);
  free(act);
  free(ucol);
  if (st == LTH_OK) st = op_thin_sets(sys, ws->lr, ws->fr, ws->sa);
  int lmax = 1;
  for (int i = 1; i < r && st == LTH_OK; i++) {
    lmax = ws->lr[i - 1].n > lmax ? ws->lr[i - 1].n : lmax;
    st = lth_jet_init(&ws->R[i - 1], nr, ws->sa[i - 1].n, K, err);
    if (st == LTH_OK) st = lth_jet_init(&ws->T[i - 1], nr, ws->sa[i - 1].n, K, err);
  }
  if (st == LTH_OK) st = lth_jet_init(&ws->Ld, lmax, nr, K, err);
  return st;
}

lth_opdecomp_ws *lth_opdecomp_ws_alloc(const lth_opsys *sys, int out_order, lth_error *err) {
  if (out_order < 0) {
    lth_error_set(err, LTH_EINVAL, "output order %d must be >= 0", out_order);
    return NULL;
  }
  if (check_chain(sys, err) != LTH_OK) {
    return NULL;
  }
  /* the sparse-Pi path (op_sparsepi.h) uses only the scratch of op_eval */
  int r = sys->r, nr = op_sparsepi_on(sys) ? 1 : sys->nr, K = out_order + r - 1;
  lth_opdecomp_ws *ws = calloc(1, sizeof *ws);
  int ok = ws != NULL;
  if (ok) {
    ws->sys = sys;
    ws->out_order = out_order;
    ws->K = K;
    ws->cond_max = LTH_DEFAULT_COND_MAX;
    ws->R = calloc((size_t)r, sizeof(lth_jet));
    ws->T = calloc((size_t)r, sizeof(lth_jet));
    ws->sa = calloc((size_t)r, sizeof(op_rows));
    ws->lr = calloc((size_t)r, sizeof(op_rows));
    ws->fr = calloc((size_t)r * (size_t)r, sizeof(op_rows));
    ws->work = malloc((op_work_size(sys, K) + 1) * sizeof(double));
    ws->lu = lth_jet_lu_alloc(nr, err);
    ok = ws->R && ws->T && ws->sa && ws->lr && ws->fr && ws->work && ws->lu;
  }
  lth_status st = ok ? LTH_OK : LTH_ENOMEM;
  if (st == LTH_OK) st = thin_structure(ws, nr, err);
  if (st == LTH_OK) st = lth_jet_init(&ws->E, nr, ws->Wc, K, err);
  if (st == LTH_OK) st = lth_jet_init(&ws->sm, nr, nr, K, err);
  if (st == LTH_OK) st = lth_jet_init(&ws->Pinv, nr, nr, K, err);
  if (st != LTH_OK) {
    lth_opdecomp_ws_free(ws);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an operator-form workspace");
    return NULL;
  }
  return ws;
}

void lth_opdecomp_ws_free(lth_opdecomp_ws *ws) {
  if (!ws) {
    return;
  }
  int r = ws->sys->r;
  for (int i = 0; i < r; i++) {
    if (ws->R) lth_jet_release(&ws->R[i]);
    if (ws->T) lth_jet_release(&ws->T[i]);
    if (ws->sa) op_rows_release(&ws->sa[i]);
    if (ws->lr) op_rows_release(&ws->lr[i]);
  }
  for (int k = 0; ws->fr && k < r * r; k++) op_rows_release(&ws->fr[k]);
  free(ws->R);
  free(ws->T);
  free(ws->sa);
  free(ws->lr);
  free(ws->fr);
  lth_jet_release(&ws->Ld);
  lth_jet_release(&ws->E);
  lth_jet_release(&ws->sm);
  lth_jet_release(&ws->Pinv);
  lth_jet_lu_free(ws->lu);
  free(ws->work);
  free(ws);
}

void lth_opdecomp_ws_set_cond_max(lth_opdecomp_ws *ws, double cond_max) { ws->cond_max = cond_max; }
void lth_opdecomp_ws_set_scale(lth_opdecomp_ws *ws, double scale) {
  ws->scale = scale > 0 ? scale : 0;
}

/* ---- chains and conditioning ---- */

/* The thresholds of lth_decomp_at (lib/decomp/decomp.c, chains and
 * chain_measure), with the same messages: cond_chain, then cond_interval. */
static lth_status judge(lth_opdecomp_ws *ws, lth_oppoint *pt, double t, lth_error *err) {
  int r = ws->sys->r;
  lth_opinfo *in = &pt->info;
  double npi = lth_jet_norm1(&pt->Pi, 0), lmax = 0.0, rmax = 0.0;
  for (int i = 1; i < r; i++) {
    lmax = fmax(lmax, lth_jet_norm1(&pt->L[i - 1], 0));
    rmax = fmax(rmax, lth_jet_norm1(&ws->R[i - 1], 0));
  }
  in->pi_inv_norm = npi > 0 ? in->cond_pi / npi : INFINITY;
  in->cond_chain = fmax(lmax * rmax * in->pi_inv_norm, in->cond_pi);
  if (!(in->cond_chain <= ws->cond_max)) {
    return lth_decomp_chain_error(err, t, r, in->cond_pi, in->cond_chain, ws->cond_max);
  }
  double chain = op_csc_norm1(op_A(pt, 1, r));
  for (int i = 2; i <= r; i++) chain *= op_csc_norm1(op_A(pt, i, i - 1));
  in->chain_norm = chain;
  in->cond_interval = fmax(in->pi_inv_norm * fmax(chain, ws->scale), in->cond_pi);
  in->amplification = lth_cond_amplification(in->cond_interval, r);
  if (!(in->cond_interval <= ws->cond_max)) {
    return lth_decomp_interval_error(err, t, r, in->pi_inv_norm, fmax(chain, ws->scale),
                                     ws->cond_max);
  }
  if (in->amplification > LTH_AMPLIFICATION_MEASURE) {
    char pi[LTH_PI_TEXT_MAX];
    lth_error_set_t(err, LTH_ECOND, t,
                    "Pi = %s: the a priori error amplification cond_interval^%d = %.3e exceeds "
                    "%.3e, above which the dense decomposition measures it; the operator form "
                    "does not, so it refuses the point",
                    lth_pi_text(r, 0, pi, sizeof pi), r - 1, in->amplification,
                    LTH_AMPLIFICATION_MEASURE);
    if (err) {
      err->has_cond = 1;
      err->cond = in->cond_interval;
    }
    return LTH_ECOND;
  }
  return LTH_OK;
}

/* J with room for orders 0..cap only: a product into it stops there. */
static lth_jet capped(const lth_jet *J, int cap) {
  lth_jet V = *J;
  V.maxorder = imin(V.maxorder, cap);
  return V;
}

/* The order step i needs of its pieces (op_impl.h): C_{i-1}, D_i, T_i, F_ij
 * to K - r + i, so S_i and L_i' to K - r + i + 1. */
static int step_order(const lth_oppoint *pt, int i) { return pt->K - pt->sys->r + i; }

/* L_1 = A_1r, L_i = A_{i,i-1} L_{i-1}; R_{r-1} = A_{r,r-1}, R_i = R_{i+1}
 * A_{i+1,i}; Pi = R_{r-1} L_{r-1} (Clark (2.3)); S_i = Pi^{-1} R_i, as the
 * product of the jet of Pi^{-1} (one LU of Pi_0, lth_jet_lu_inverse) with R_i:
 * a product of n_r rows costs less than triangular solves with n_r rows, and
 * either loses about eps cond(Pi).  Sparse times thin only. */
static lth_status chains(lth_opdecomp_ws *ws, lth_oppoint *pt, double t, lth_error *err) {
  int r = ws->sys->r, K = pt->K;
  op_csc_dense_map(op_A(pt, 1, r), pt->lr[0].pos, NULL, &pt->L[0]);
  for (int i = 2; i < r; i++) {
    lth_jet_set_zero(&pt->L[i - 1], K);
    op_csc_left_rows(1.0, op_A(pt, i, i - 1), &pt->L[i - 2], &pt->lr[i - 2], &pt->L[i - 1],
                     pt->lr[i - 1].pos);
  }
  op_csc_dense_map(op_A(pt, r, r - 1), NULL, ws->sa[r - 2].idx, &ws->R[r - 2]);
  for (int i = r - 2; i >= 1; i--) {
    lth_jet Ri = capped(&ws->R[i - 1], step_order(pt, i) + 1);
    lth_jet_set_zero(&Ri, Ri.maxorder);
    op_csc_right_cols(1.0, &ws->R[i], ws->sa[i].pos, op_A(pt, i + 1, i), &Ri, ws->sa[i - 1].idx);
    ws->R[i - 1].order = Ri.order;
  }
  /* Pi = R_{r-1} L_{r-1} over act(R_{r-1}), L_{r-1}'s rows there */
  lth_jet_set_zero(&pt->Pi, K);
  op_gather_mul(1.0, &ws->R[r - 2], op_idx(&ws->sa[r - 2]), op_pos(&pt->lr[r - 2]), &pt->L[r - 2],
                &pt->Pi);
  lth_status st = lth_jet_lu_factor(ws->lu, &pt->Pi, 0.0, &pt->info.cond_pi, err);
  if (st == LTH_ESING) {
    return lth_decomp_singular_error(err, t, r);
  }
  if (st != LTH_OK) {
    return st;
  }
  pt->info.pi_sign = lth_jet_lu_det_sign(ws->lu);
  st = judge(ws, pt, t, err);
  if (st == LTH_OK) st = lth_jet_lu_inverse(ws->lu, &ws->Pinv, err);
  for (int i = 1; i < r && st == LTH_OK; i++) { /* S_i on act(R_i) */
    lth_jet Si = capped(&pt->S[i - 1], step_order(pt, i) + 1);
    st = lth_jet_mul(&ws->Pinv, &ws->R[i - 1], &Si, err);
    pt->S[i - 1].order = Si.order;
  }
  return st;
}

/* T_i = S_i P_i' = S_i L_i' S_i + S_i' (with S_i L_i = I), and F_ii = A_ii L_i -
 * L_i', F_ij = A_ij L_j (j > i): the thin pieces of step i (op_impl.h), to the
 * order step i needs, each at its rows or columns (op_thin_sets). */
static lth_status thin_pieces(lth_opdecomp_ws *ws, lth_oppoint *pt, lth_error *err) {
  int r = ws->sys->r;
  lth_status st = LTH_OK;
  for (int i = 1; i < r && st == LTH_OK; i++) {
    int o = step_order(pt, i), ii = (i - 1) + r * (i - 1);
    const op_rows *lr = &pt->lr[i - 1], *fr = &pt->fr[ii];
    lth_jet T = capped(&ws->T[i - 1], o), Fii = capped(&pt->F[ii], o);
    lth_jet Ld = capped(&ws->Ld, o);
    Ld.rows = lr->n;
    st = lth_jet_deriv(&T, &pt->S[i - 1], err);                    /* S_i' */
    if (st == LTH_OK) st = lth_jet_deriv(&Ld, &pt->L[i - 1], err); /* L_i' */
    if (st == LTH_OK) {                                            /* S_i L_i' */
      lth_jet_set_zero(&ws->sm, ws->sm.maxorder);
      op_gather_mul(1.0, &pt->S[i - 1], op_idx(&pt->sa[i - 1]), op_pos(lr), &Ld, &ws->sm);
      st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &ws->sm, &pt->S[i - 1], 1.0, &T, err);
    }
    ws->T[i - 1].order = T.order;
    /* F_ii = -L_i' (at L_i's rows, among F_ii's) + A_ii L_i */
    lth_jet_set_zero(&Fii, o);
    Fii.order = Ld.order < o ? Ld.order : o;
    for (int k = 0; k <= Fii.order; k++) {
      for (int c = 0; c < Fii.cols; c++) {
        for (int q = 0; q < lr->n; q++) {
          LTH_JET_AT(&Fii, k, fr->pos[lr->idx[q]], c) = -LTH_JET_AT(&Ld, k, q, c);
        }
      }
    }
    op_csc_left_rows(1.0, op_A(pt, i, i), &pt->L[i - 1], lr, &Fii, fr->pos);
    pt->F[ii].order = Fii.order;
    for (int j = i + 1; j < r; j++) {
      const op_csc *a = op_A(pt, i, j);
      int ij = (i - 1) + r * (j - 1);
      lth_jet Fij = capped(&pt->F[ij], o);
      if (a->val) {
        lth_jet_set_zero(&Fij, o);
        op_csc_left_rows(1.0, a, &pt->L[j - 1], &pt->lr[j - 1], &Fij, pt->fr[ij].pos);
        pt->F[ij].order = Fij.order;
      }
    }
  }
  return st;
}

/* ---- the steps ----
 * Columns: C_i, D_i and E hold the columns of [v | 1] op_columns.c finds
 * (all of them for dense blocks), block k's at cb[k] .. cb[k+1]-1, the
 * affine one last.  C_i can be nonzero only from block i+1 on (C_0:
 * everywhere, C_{r-1}: the affine column alone), D_i and E_i from block i on
 * (op_impl.h).  Every product works on those columns only; the columns left
 * of them are never written after the zeroed allocation, and never read. */

/* First column where C_i (i = 0..r-1) can be nonzero: block i+1's first
 * (C_{r-1}: the affine one). */
static int c_start(const lth_oppoint *pt, int i) { return i == 0 ? 0 : pt->cb[i + 1]; }

/* The affine column of C_i, D_i and E. */
static int c_aff(const lth_oppoint *pt) { return pt->Wc - 1; }

/* Columns c0 .. of J. */
static lth_jet from_col(const lth_jet *J, int c0) { return cols_of(J, c0, J->cols - c0); }

/* C's columns in block j (1..r-1): the n_r x nu_j left factor C^(j). */
static lth_jet c_block(const lth_oppoint *pt, const lth_jet *C, int j) {
  return cols_of(C, pt->cb[j], pt->cb[j + 1] - pt->cb[j]);
}

/* Y += alpha C^(j) J(rows at C's columns in block j, :) for J a factor
 * with block j's rows, stored at its rows jr (NULL: all of them). */
static void c_rows_mul(double alpha, const lth_oppoint *pt, const lth_jet *Cb, int j,
                       const lth_jet *J, const op_rows *jr, lth_jet *Y) {
  op_gather_mul(alpha, Cb, pt->compact ? pt->uloc + pt->cb[j] : NULL, jr ? op_pos(jr) : NULL, J, Y);
}

/* Y's columns in block k (1..r-1): the view and the columns of block k
 * they hold (Y holding C_i's columns). */
static lth_jet k_cols(const lth_oppoint *pt, const lth_jet *Y, int k) {
  lth_jet V = cols_of(Y, pt->cb[k], pt->cb[k + 1] - pt->cb[k]);
  V.order = Y->order;
  return V;
}

/* Y(:, block j's columns) -= S_i A_ij (A_ij sparse; S_i at act(S_i); Y
 * holds C_{i-1}'s columns, and only those of block j are computed). */
static void s_right(const lth_oppoint *pt, int i, int j, lth_jet *Y) {
  lth_jet V = k_cols(pt, Y, j);
  op_csc_right_cols(-1.0, &pt->S[i - 1], pt->sa[i - 1].pos, op_A(pt, i, j), &V,
                    pt->uloc + pt->cb[j]);
  Y->order = V.order;
}

/* ws->sm = S_i F (F at its rows fr, n_i x n_r in full): over act(S_i). */
static void s_times(lth_opdecomp_ws *ws, const lth_oppoint *pt, int i, const lth_jet *F,
                    const op_rows *fr) {
  lth_jet_set_zero(&ws->sm, ws->sm.maxorder);
  op_gather_mul(1.0, &pt->S[i - 1], op_idx(&pt->sa[i - 1]), op_pos(fr), F, &ws->sm);
}

/* C_{i-1}(:, block i) -= T_i (orders 0..min(T's, order)); returns the order
 * kept.  T_i is zero outside act(S_i), whose columns C holds. */
static int t_sub(lth_opdecomp_ws *ws, const lth_oppoint *pt, int i, lth_jet *C, int order) {
  const lth_jet *T = &ws->T[i - 1];
  const op_rows *sa = &pt->sa[i - 1];
  int o = imin(order, T->order), off = ws->sys->off[i - 1];
  for (int k = 0; k <= o; k++) {
    for (int a = 0; a < sa->n; a++) {
      const double *tc = LTH_JET_COEF(T, k) + (size_t)a * T->ld;
      double *cc = LTH_JET_COEF(C, k) + (size_t)pt->upos[off + sa->idx[a]] * C->ld;
      for (int rr = 0; rr < C->rows; rr++) cc[rr] -= tc[rr];
    }
  }
  return o;
}

/* E_i = D[C_i] = C_i' + C_i Y on columns cb[i] .., the second term through
 * the rows j > i of Y (C_i vanishes left of block i+1):
 *   C_i^(j) Y_j = sum_k C_i^(j) A_jk V_k + sum_k (C_i^(j) F_jk) C_k + (C_i^(j) L_j) D_j
 *                 + [0 | C_i^(j) f_j]. */
static lth_status flow_derivative(lth_opdecomp_ws *ws, lth_oppoint *pt, int i, lth_error *err) {
  const lth_opsys *sys = ws->sys;
  int r = sys->r, e0 = pt->cb[i], cs = c_start(pt, i);
  lth_jet E = from_col(&ws->E, e0), Ed = from_col(&ws->E, cs), Ez = cols_of(&ws->E, e0, cs - e0);
  lth_jet Ci = from_col(&pt->C[i], cs);
  lth_jet_set_zero(&Ez, pt->K);
  lth_status st = lth_jet_deriv(&Ed, &Ci, err);
  E.order = Ed.order;
  for (int j = i + 1; j < r && st == LTH_OK; j++) {
    lth_jet Cb = c_block(pt, &pt->C[i], j);
    for (int k = j - 1; k < r; k++) {
      lth_jet Ek = ws->E; /* written at block k's columns alone */
      Ek.order = E.order;
      Ek = k_cols(pt, &Ek, k);
      op_csc_right_cols(1.0, &pt->C[i], pt->upos + sys->off[j - 1], op_A(pt, j, k), &Ek,
                        pt->uloc + pt->cb[k]);
      lower(&E, Ek.order);
    }
    for (int k = j; k < r && st == LTH_OK; k++) {
      const lth_jet *F = &pt->F[(j - 1) + r * (k - 1)];
      lth_jet Ck = from_col(&pt->C[k], c_start(pt, k)), Ek = from_col(&ws->E, c_start(pt, k));
      Ek.order = E.order;
      if (F->c) {
        lth_jet_set_zero(&ws->sm, ws->sm.maxorder);
        c_rows_mul(1.0, pt, &Cb, j, F, &pt->fr[(j - 1) + r * (k - 1)], &ws->sm);
        st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &ws->sm, &Ck, 1.0, &Ek, err);
        lower(&E, Ek.order);
      }
    }
    lth_jet Dj = from_col(&pt->D[j - 1], pt->cb[j]), Ej = from_col(&ws->E, pt->cb[j]);
    Ej.order = E.order;
    lth_jet_set_zero(&ws->sm, ws->sm.maxorder);
    c_rows_mul(1.0, pt, &Cb, j, &pt->L[j - 1], &pt->lr[j - 1], &ws->sm);
    if (st == LTH_OK) st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &ws->sm, &Dj, 1.0, &Ej, err);
    lower(&E, Ej.order);
    lth_jet fj = lth_jet_view(&pt->f, sys->off[j - 1], 0, sys->n[j - 1], 1);
    lth_jet Ew = cols_of(&ws->E, c_aff(pt), 1);
    Ew.order = E.order;
    c_rows_mul(1.0, pt, &Cb, j, &fj, NULL, &Ew);
    lower(&E, Ew.order);
  }
  ws->E.order = E.order;
  return st;
}

/* Step i (Clark (3.6), (3.7), op_impl.h): C_{i-1} = E_i - S_i Ut_i - T_i V_i,
 * D_i = C_{i-1} - E_i, and the affine column of Y_i,
 * g_i = f_i + sum_j F_ij C_j(:, W) + L_i D_i(:, W); all on columns cb[i] .. */
static lth_status reduce_row(lth_opdecomp_ws *ws, lth_oppoint *pt, int i, lth_error *err) {
  const lth_opsys *sys = ws->sys;
  int r = sys->r, oi = sys->off[i - 1], ni = sys->n[i - 1], ci = pt->cb[i], aff = c_aff(pt);
  lth_status st = flow_derivative(ws, pt, i, err);
  lth_jet Cn = from_col(&pt->C[i - 1], ci), E = from_col(&ws->E, ci);
  E.order = ws->E.order;
  if (st == LTH_OK) st = lth_jet_copy(&Cn, &E, err);
  for (int j = i; j < r && st == LTH_OK; j++) {
    lth_jet Call = pt->C[i - 1]; /* written at block j's columns alone */
    Call.order = Cn.order;
    s_right(pt, i, j, &Call);
    lower(&Cn, Call.order);
    const lth_jet *F = &pt->F[(i - 1) + r * (j - 1)];
    if (F->c) {
      int cs = c_start(pt, j);
      lth_jet Cs = from_col(&pt->C[j], cs), Cd = from_col(&pt->C[i - 1], cs);
      Cd.order = Cn.order;
      s_times(ws, pt, i, F, &pt->fr[(i - 1) + r * (j - 1)]);
      st = lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, -1.0, &ws->sm, &Cs, 1.0, &Cd, err);
      lower(&Cn, Cd.order);
    }
  }
  lth_jet fi = lth_jet_view(&pt->f, oi, 0, ni, 1);
  lth_jet Cw = cols_of(&pt->C[i - 1], aff, 1);
  Cw.order = Cn.order;
  op_gather_mul(-1.0, &pt->S[i - 1], op_idx(&pt->sa[i - 1]), NULL, &fi, &Cw);
  int to = t_sub(ws, pt, i, &pt->C[i - 1], Cn.order);
  lower(&Cn, imin(Cw.order, to));
  pt->C[i - 1].order = Cn.order;
  lth_jet Di = from_col(&pt->D[i - 1], ci);
  if (st == LTH_OK) st = lth_jet_copy(&Di, &Cn, err);
  if (st == LTH_OK) st = lth_jet_axpy(-1.0, &E, &Di, err);
  pt->D[i - 1].order = Di.order;
  /* g_i */
  lth_jet gi = lth_jet_view(&pt->g, oi, 0, ni, 1);
  if (st == LTH_OK) st = lth_jet_copy(&gi, &fi, err);
  for (int j = i; j < r && st == LTH_OK; j++) {
    const lth_jet *F = &pt->F[(i - 1) + r * (j - 1)];
    lth_jet cw = cols_of(&pt->C[j], aff, 1);
    if (F->c) op_scatter_mul(1.0, F, op_idx(&pt->fr[(i - 1) + r * (j - 1)]), &cw, &gi);
  }
  lth_jet dw = cols_of(&pt->D[i - 1], aff, 1);
  op_scatter_mul(1.0, &pt->L[i - 1], op_idx(&pt->lr[i - 1]), &dw, &gi);
  lower(&pt->g, gi.order);
  return st;
}

/* Clark (3.4): C_{r-1} = [0 | -Pi^{-1} f_r] (its one column). */
static lth_status start(lth_opdecomp_ws *ws, lth_oppoint *pt, lth_error *err) {
  const lth_opsys *sys = ws->sys;
  lth_jet *C = &pt->C[sys->r - 1];
  lth_jet fr = lth_jet_view(&pt->f, sys->off[sys->r - 1], 0, sys->nr, 1);
  lth_jet cw = cols_of(C, c_aff(pt), 1);
  lth_status st = lth_jet_lu_solve(ws->lu, &fr, &cw, err);
  lth_jet_scale(&cw, -1.0);
  C->order = cw.order;
  return st;
}

/* q_i = L_i C_i(:, W), q_u = C_0(:, W). */
static lth_status affine_q(lth_oppoint *pt, lth_error *err) {
  const lth_opsys *sys = pt->sys;
  int r = sys->r, aff = c_aff(pt);
  lth_status st = LTH_OK;
  pt->q.order = pt->K;
  for (int i = 1; i < r && st == LTH_OK; i++) {
    lth_jet qi = lth_jet_view(&pt->q, sys->off[i - 1], 0, sys->n[i - 1], 1);
    lth_jet cw = cols_of(&pt->C[i], aff, 1);
    const op_rows *lr = &pt->lr[i - 1]; /* q_i's other rows: zero from the allocation on */
    for (int k = 0; k <= qi.maxorder; k++) {
      for (int p = 0; p < lr->n; p++) LTH_JET_AT(&qi, k, lr->idx[p], 0) = 0.0;
    }
    qi.order = qi.maxorder;
    op_scatter_mul(1.0, &pt->L[i - 1], op_idx(lr), &cw, &qi);
    lower(&pt->q, qi.order);
  }
  lth_jet qu = lth_jet_view(&pt->q, sys->m, 0, sys->nr, 1), cw = cols_of(&pt->C[0], aff, 1);
  if (st == LTH_OK) st = lth_jet_copy(&qu, &cw, err);
  lower(&pt->q, qu.order);
  return st;
}

/* 1 if every coefficient of J's columns c0.. is finite: x * 0 is 0 for a
 * finite x and NaN otherwise, and a sum stays 0 only if all are (four sums,
 * independent, so that the additions need not wait on each other). */
static int jet_finite(const lth_jet *J, int c0) {
  double acc[4] = {0.0, 0.0, 0.0, 0.0};
  for (int k = 0; k <= J->order; k++) {
    for (int j = c0; j < J->cols; j++) {
      const double *x = LTH_JET_COEF(J, k) + (size_t)j * J->ld;
      int i = 0;
      for (; i + 4 <= J->rows; i += 4) {
        for (int u = 0; u < 4; u++) acc[u] += x[i + u] * 0.0;
      }
      for (; i < J->rows; i++) acc[0] += x[i] * 0.0;
    }
  }
  return acc[0] + acc[1] + acc[2] + acc[3] == 0.0;
}

static lth_status check_results(lth_oppoint *pt, double t, lth_error *err) {
  int r = pt->sys->r;
  int ok = jet_finite(&pt->g, 0) && jet_finite(&pt->q, 0);
  for (int i = 0; i < r && ok; i++) ok = jet_finite(&pt->C[i], c_start(pt, i));
  for (int i = 1; i < r && ok; i++) ok = jet_finite(&pt->D[i - 1], pt->cb[i]);
  if (!ok) {
    return lth_error_set_t(err, LTH_ENOTFINITE, t,
                           "the thin factors of Ahat, Bhat, g or q are not finite (overflow in "
                           "the derivative chain)");
  }
  /* every output has the point's order (op_impl.h); less is a defect here */
  int o = pt->info.order;
  int low = pt->g.order < o || pt->q.order < o || pt->C[0].order < o || pt->D[0].order < o;
  if (low) {
    return lth_error_set_t(err, LTH_EORDER, t, "operator form: outputs below order %d", o);
  }
  return LTH_OK;
}

lth_status lth_opdecomp_at(lth_opdecomp_ws *ws, double t, lth_oppoint *pt, lth_error *err) {
  if (pt->sys != ws->sys || pt->info.order > ws->out_order || pt->Wc != ws->Wc) {
    return lth_error_set(err, LTH_EORDER,
                         "result of order %d from a workspace of output order %d (or of "
                         "another system)",
                         pt->info.order, ws->out_order);
  }
  if (!pt->sp && ws->Pinv.rows != ws->sys->nr) {
    return lth_error_set(err, LTH_EINVAL,
                         "a point with a dense Pi from a workspace for a sparse "
                         "one (lth_opsys_set_pi_factor between the two)");
  }
  pt->info.t = NAN;
  lth_status st = op_eval(ws->sys, t, pt->K, pt, ws->work, err);
  if (pt->sp) {
    return op_sparsepi_at(pt, t, st, ws->cond_max, ws->scale, err);
  }
  if (st == LTH_OK) st = chains(ws, pt, t, err);
  if (st == LTH_OK) st = thin_pieces(ws, pt, err);
  if (st == LTH_OK) st = start(ws, pt, err);
  pt->g.order = pt->K; /* every g_i is written whole (reduce_row) */
  for (int i = ws->sys->r - 1; i >= 1 && st == LTH_OK; i--) {
    st = reduce_row(ws, pt, i, err);
  }
  if (st == LTH_OK) st = affine_q(pt, err);
  if (st == LTH_OK) st = check_results(pt, t, err);
  if (st == LTH_OK) {
    pt->info.t = t;
  } else if (err && !err->has_t) {
    err->has_t = 1;
    err->t = t;
  }
  return st;
}
