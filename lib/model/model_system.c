/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The canonical system of a model (include/lth/model.h): its blocks are
 * sources that read the model's coefficients (no copies), the rows of a
 * block row with a mass matrix M_i become M_i^{-1} A_ij and M_i^{-1} f_i
 * (lth_source_solve: exact jets), the mass matrices are checked at the
 * check times, and a structure whose Pi is singular on the whole interval is
 * refused in the user's terms.  The blocks themselves: model_block.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/jet.h"
#include "model_impl.h"
#include "system/pi_text.h"
#include "core/errors.h"
#include "system/system_parts.h"

/* Irregular points inside the interval (as in model_detect.c). */
static const double FRAC[7] = {0.0731, 0.1917, 0.3306, 0.4818, 0.6151, 0.7743, 0.9128};
#define PI_SINGULAR 1e14 /* Pi's condition relative to its factors' sizes */

/* ---- mass matrices ---- */

/* First canonical position / row of block row i (1-based). */
static int block_start(const lth_model *m, int i) {
  int pos = 0;
  for (int k = 1; k < i; k++) {
    pos += m->n[k - 1];
  }
  return pos;
}

/* The E entries of a group's equations are on the group's unknowns (the
 * groups are the connected components of E). */
static lth_mass_kind group_kind(const lth_model *m, const lth_mgroup *g) {
  lth_mass_kind kind = LTH_MASS_IDENTITY;
  for (int i = 0; i < g->pub.nvars; i++) {
    int q = g->pub.eqs[i];
    for (int j = m->estart[q]; j < m->estart[q + 1]; j++) {
      const lth_mentry *e = &m->ent[m->eidx[j]];
      if (!e->nz || e->part != LTH_MODEL_E) {
        continue;
      }
      if (e->c.kind == MCOEF_SOURCE || (e->c.kind == MCOEF_EXPR && lth_expr_depends_on_t(e->c.e))) {
        return LTH_MASS_VARYING;
      }
      if (e->c.kind == MCOEF_EXPR || g->pub.nvars > 1 || e->c.v != 1.0) {
        kind = LTH_MASS_CONSTANT;
      }
    }
  }
  return kind;
}

/* 1 if the group is one unknown whose E coefficient is a constant (*c),
 * nonzero: its mass matrix is that 1 x 1 constant. */
static int const_scalar(const lth_model *m, const lth_mgroup *g, double *c) {
  if (g->pub.nvars != 1) {
    return 0;
  }
  int q = g->pub.eqs[0], found = 0;
  for (int j = m->estart[q]; j < m->estart[q + 1]; j++) {
    const lth_mentry *e = &m->ent[m->eidx[j]];
    if (e->nz && e->part == LTH_MODEL_E) {
      if (e->c.kind != MCOEF_CONST || found) {
        return 0;
      }
      *c = e->c.v;
      found = 1;
    }
  }
  return found && *c != 0.0 && isfinite(*c);
}

/* Relabel a mass matrix failure as a structure error at the group's first
 * equation, keeping t and the condition estimate. */
static lth_status mass_error(const lth_model *m, const lth_mgroup *g, lth_status st,
                             lth_error *err) {
  if (st == LTH_ENOMEM || !err) {
    return st == LTH_ENOMEM ? st : LTH_EMODEL;
  }
  int q = g->pub.eqs[0];
  err->status = LTH_EMODEL;
  if (m->eline[q] > 0 || m->file[0]) {
    lth_error_set_pos(err, m->file, m->eline[q], m->eline[q] > 0 ? m->ecol[q] : 0);
  }
  return LTH_EMODEL;
}

lth_status lth_model_masses(lth_model *m, const double *times, size_t n, lth_error *err) {
  int r = m->r;
  m->M = calloc((size_t)r, sizeof *m->M);
  m->mscale = calloc((size_t)r, sizeof *m->mscale);
  m->mlabel = calloc((size_t)r, sizeof *m->mlabel);
  if (!m->M || !m->mscale || !m->mlabel) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  lth_status st = LTH_OK;
  for (int k = 0; k < m->ngroups && st == LTH_OK; k++) {
    lth_mgroup *g = &m->groups[k];
    g->pub.kind = group_kind(m, g);
    if (g->pub.kind == LTH_MASS_IDENTITY) {
      g->pub.size = 1.0;
      continue;
    }
    double c1;
    if (g->pub.kind == LTH_MASS_CONSTANT && const_scalar(m, g, &c1)) {
      /* a constant m x' (c1 != 0, a structural nonzero): the scan would find
       * size |c1| and condition 1 at every time */
      g->pub.size = fabs(c1);
      m->mscale[g->pub.block - 1] = fmax(m->mscale[g->pub.block - 1], g->pub.size);
      continue;
    }
    char label[600];
    lth_model_names(m, g->pub.vars, g->pub.nvars, label + 9, sizeof label - 9);
    memcpy(label, "of block ", 9);
    lth_source *M = NULL;
    st = lth_model_block_source(m, LTH_MODEL_E, m->ieqperm[g->pub.eqs[0]], g->pub.nvars,
                                m->iperm[g->pub.vars[0]], g->pub.nvars, &M, err);
    if (st == LTH_OK) {
      st = lth_source_solve_scan(M, times, n, 0.0, label, &g->pub.size, err);
      st = st == LTH_OK ? st : mass_error(m, g, st, err);
    }
    lth_source_free(M);
    int i = g->pub.block;
    m->mscale[i - 1] = fmax(m->mscale[i - 1], g->pub.size);
  }
  for (int i = 1; i < r && st == LTH_OK; i++) { /* M_i over the whole block row */
    int identity = 1;
    for (int k = 0; k < m->ngroups; k++) {
      identity =
          identity && (m->groups[k].pub.block != i || m->groups[k].pub.kind == LTH_MASS_IDENTITY);
    }
    if (identity) {
      continue;
    }
    int s0 = block_start(m, i), ni = m->n[i - 1];
    char names[512];
    lth_model_names(m, m->perm + s0, ni, names, sizeof names);
    m->mlabel[i - 1] = malloc(strlen(names) + 16);
    if (!m->mlabel[i - 1]) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory");
    }
    sprintf(m->mlabel[i - 1], "of block %s", names);
    st = lth_model_block_source(m, LTH_MODEL_E, s0, ni, s0, ni, &m->M[i - 1], err);
  }
  return st;
}

/* ---- the system ---- */

/* Block row i (1-based) of `part` and columns c0..c0+nc-1, the index-1
 * unknowns substituted and the mass matrix eliminated; NULL if zero. */
static lth_status row_block(const lth_model *m, int part, int i, int c0, int nc, lth_source **out,
                            lth_error *err) {
  lth_source *src = NULL;
  lth_status st = lth_model_subst_block(m, part, block_start(m, i), m->n[i - 1], c0, nc, &src, err);
  *out = NULL;
  if (st == LTH_OK && src && i < m->r && m->M[i - 1]) {
    src = lth_source_solve(m->M[i - 1], src, m->mscale[i - 1], 0.0, m->mlabel[i - 1], err);
    st = src ? LTH_OK : LTH_ENOMEM;
  }
  *out = src;
  return st;
}

/* Inputs (free: the caller gives the signals) and outputs. */
static lth_status system_io(const lth_model *m, lth_system *sys, lth_error *err) {
  lth_status st = m->nin > 0 ? lth_system_set_inputs(sys, m->nin, err) : LTH_OK;
  for (int i = 1; i <= m->r && m->nin > 0 && st == LTH_OK; i++) {
    lth_source *src = NULL;
    st = row_block(m, LTH_MODEL_B, i, 0, m->nin, &src, err);
    st = st == LTH_OK && src ? lth_system_set_B(sys, i, src, err) : st;
  }
  if (st == LTH_OK && m->nout > 0) {
    lth_source *C = NULL, *D = NULL, *y0 = NULL;
    st = lth_model_output_sources(m, &C, &D, &y0, err);
    st = st == LTH_OK ? lth_system_set_outputs(sys, m->nout, C, D, y0, err) : st;
  }
  return st;
}

/* The canonical system, with its inputs and outputs if io. */
static lth_status model_system(const lth_model *m, int io, lth_system **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  if (!m->analyzed) {
    return lth_error_set(err, LTH_EINVAL, "lth_model_system: the model is not analysed");
  }
  int r = m->r;
  lth_system *sys = lth_system_alloc(r, m->n, err);
  if (!sys) {
    return lth_error_status(err);
  }
  lth_status st = LTH_OK;
  for (int i = 1; i <= r && st == LTH_OK; i++) {
    for (int j = 0; j <= r && st == LTH_OK; j++) { /* j = 0: f_i */
      lth_source *src = NULL;
      st = row_block(m, j ? LTH_MODEL_A : LTH_MODEL_F, i, j ? block_start(m, j) : 0,
                     j ? m->n[j - 1] : 1, &src, err);
      if (st != LTH_OK || !src) {
        continue;
      }
      st = j ? lth_system_set_A(sys, i, j, src, err) : lth_system_set_f(sys, i, src, err);
    }
  }
  if (st == LTH_OK) {
    st = lth_system_validate(sys, err);
  }
  if (st == LTH_OK && io) {
    st = system_io(m, sys, err);
  }
  if (st != LTH_OK) {
    lth_system_free(sys);
    return st;
  }
  *out = sys;
  return LTH_OK;
}

lth_status lth_model_system(const lth_model *m, lth_system **out, lth_error *err) {
  return model_system(m, 1, out, err);
}

/* ---- Pi on the whole interval ---- */

/* Y = B X and *nrm = ||B||_1 for block B = A(i,j) of sys at t (order 0;
 * none: Y = 0), X cols x nr, Y rows x nr (column-major): a sparse block on
 * its pattern, a dense one through its jet.  The sums run over the columns
 * of B in order, as a dense product would. */
static lth_status src_times(const lth_source *src, int rows, int cols, double t, const double *X,
                            int nr, double *Y, double *nrm, lth_error *err);

static lth_status block_times(const lth_system *sys, int i, int j, double t, const double *X,
                              int nr, double *Y, double *nrm, lth_error *err) {
  const lth_source *src = lth_system_A(sys, i, j), *M, *B;
  int rows = lth_system_block_size(sys, i), cols = lth_system_block_size(sys, j);
  memset(Y, 0, (size_t)rows * (size_t)nr * sizeof *Y);
  *nrm = 0.0;
  if (!src) {
    return LTH_OK;
  }
  /* a mass matrix's solve M^{-1} B with M sparse: B X, then M^{-1} on its nr
   * columns (a sparse LU), ||M^{-1} B||_1 bounded by ||M^{-1}||_1 ||B||_1
   * with the LU's estimate of ||M^{-1}||_1; nothing rows x rows */
  if (lth_source_solve_parts(src, &M, &B, NULL) && lth_source_is_sparse(M)) {
    double inv = 0.0;
    lth_status st = src_times(B, rows, cols, t, X, nr, Y, nrm, err);
    lth_status ss = st == LTH_OK ? lth_source_solve_sparse(M, t, Y, rows, nr, &inv, NULL) : st;
    if (ss != LTH_EINVAL) { /* LTH_EINVAL: no KLU, the dense solve below */
      *nrm *= inv;
      return ss;
    }
    memset(Y, 0, (size_t)rows * (size_t)nr * sizeof *Y);
  }
  return src_times(src, rows, cols, t, X, nr, Y, nrm, err);
}

static lth_status src_times(const lth_source *src, int rows, int cols, double t, const double *X,
                            int nr, double *Y, double *nrm, lth_error *err) {
  int nnz = 0;
  const int *cp = NULL, *ri = NULL;
  int sparse =
      lth_source_is_sparse(src) && lth_source_csc_pattern(src, &nnz, &cp, &ri, NULL) == LTH_OK;
  size_t nv = sparse ? (size_t)nnz : (size_t)rows * (size_t)cols;
  size_t nw = lth_source_work_size(src, 0);
  double *v = malloc((nv + nw + 1) * sizeof *v);
  if (!v) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  lth_status st;
  if (sparse) {
    st = lth_source_fill_csc(src, t, 0, v, nv, v + nv, err);
  } else {
    lth_jet J = lth_jet_wrap(v, rows, cols, rows > 0 ? rows : 1, nv, 0);
    st = lth_source_fill(src, t, 0, &J, v + nv, err);
  }
  for (int q = 0; q < cols && st == LTH_OK; q++) {
    int p0 = sparse ? cp[q] : 0, p1 = sparse ? cp[q + 1] : rows;
    double cs = 0.0;
    for (int p = p0; p < p1; p++) {
      int a = sparse ? ri[p] : p;
      double bq = v[sparse ? (size_t)p : (size_t)a + (size_t)q * rows];
      cs += fabs(bq);
      for (int c = 0; c < nr; c++) {
        Y[a + (size_t)c * rows] += bq * X[q + (size_t)c * cols];
      }
    }
    *nrm = fmax(*nrm, cs);
  }
  free(v);
  return st;
}

/* ||Pi^{-1}|| times the product of the 1-norms of its factors, with
 * Pi = A(r,r-1) ... A(2,1) A(1,r) at t (order 0), block by block: nothing
 * s x s, O(nnz + s n_r) for sparse blocks; INFINITY if singular.  w holds
 * 2 max(n_i) n_r doubles. */
static double pi_rel_cond(const lth_model *m, const lth_system *sys, double t, double *w,
                          lth_status *st) {
  int r = m->r, nr = m->n[r - 1];
  double scale = 0.0, *L = w, *N = w + (size_t)m->s * nr;
  /* L = A(1,r) (the product with the identity), its norm the scale */
  double *I = calloc((size_t)nr * nr + 1, sizeof *I);
  if (!I) {
    *st = LTH_ENOMEM;
    return INFINITY;
  }
  for (int b = 0; b < nr; b++) {
    I[b + (size_t)b * nr] = 1.0;
  }
  *st = block_times(sys, 1, r, t, I, nr, L, &scale, NULL);
  free(I);
  for (int i = 2; i <= r && *st == LTH_OK; i++) {
    double nrm = 0.0;
    *st = block_times(sys, i, i - 1, t, L, nr, N, &nrm, NULL);
    memcpy(L, N, (size_t)m->n[i - 1] * nr * sizeof *L);
    scale *= nrm;
  }
  if (*st != LTH_OK) {
    return INFINITY;
  }
  lth_jet P = lth_jet_wrap(L, nr, nr, nr, (size_t)nr * nr, 0);
  double cond = INFINITY, pnorm = 0.0;
  for (int b = 0; b < nr; b++) {
    double cs = 0.0;
    for (int a = 0; a < nr; a++) {
      cs += fabs(L[a + b * nr]);
    }
    pnorm = fmax(pnorm, cs);
  }
  if (pnorm == 0.0 || lth_jet_cond(&P, &cond, NULL) != LTH_OK || !isfinite(cond)) {
    return INFINITY;
  }
  return cond / pnorm * scale;
}

/* The refusal when Pi is singular at every point: in the user's terms. */
static lth_status pi_error(const lth_model *m, lth_error *err) {
  int nr = m->n[m->r - 1], q = 0;
  char u[512], wh[64];
  lth_model_names(m, m->perm + (m->s - nr), nr, u, sizeof u);
  for (int k = 0; k < m->ngroups; k++) { /* an equation with two derivatives */
    const lth_model_mass *g = &m->groups[k].pub;
    for (int e = 0; g->nvars > 1 && e < g->nvars; e++) {
      int v[2], nvv = 0;
      int qe = g->eqs[e];
      for (int j = m->estart[qe]; j < m->estart[qe + 1] && nvv < 2; j++) {
        const lth_mentry *en = &m->ent[m->eidx[j]];
        if (en->nz && en->part == LTH_MODEL_E) {
          v[nvv++] = en->var;
        }
      }
      if (nvv < 2) {
        continue;
      }
      char grp[512];
      lth_model_names(m, g->vars, g->nvars, grp, sizeof grp);
      lth_model_where(m, g->eqs[e], wh, sizeof wh);
      return lth_model_error(m, err, m->eline[g->eqs[e]], m->ecol[g->eqs[e]],
                             "the equation %s involves the derivatives of both %s and %s: lth "
                             "then takes %s as one block with a mass matrix, and with that "
                             "structure the constraints do not determine %s (Pi is singular on "
                             "the whole interval); write each derivative in an equation of its "
                             "own (substitute %s' from its equation)",
                             wh, m->names[v[0]], m->names[v[1]], grp, u, m->names[v[0]]);
    }
  }
  while (q < m->ne && (m->ieqperm[q] < m->s - nr || m->ieqperm[q] >= m->s)) {
    q++;
  }
  lth_model_where(m, q, wh, sizeof wh);
  char pi[LTH_PI_TEXT_MAX];
  return lth_model_error(m, err, m->eline[q], m->ecol[q],
                         "the constraints (the first %s) do not determine the algebraic unknowns "
                         "%s: in the structure found (index %d), Pi = %s is singular on the "
                         "whole interval, so the equations are not a Hessenberg DAE of index %d",
                         wh, u, m->r, lth_pi_text(m->r, 0, pi, sizeof pi), m->r);
}

lth_status lth_model_check_pi(const lth_model *m, lth_error *err) {
  lth_system *sys = NULL;
  lth_status st = model_system(m, 0, &sys, err); /* Pi does not depend on the inputs */
  if (st != LTH_OK) {
    return st;
  }
  int nr = m->n[m->r - 1], evaluated = 0, regular = 0;
  double *work = malloc((2 * (size_t)m->s * nr + 1) * sizeof *work);
  if (!work) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int k = 0; k < 7 && st == LTH_OK && !regular; k++) {
    double t = m->t0 + (m->t1 - m->t0) * FRAC[k];
    lth_status se = LTH_OK;
    double rc = pi_rel_cond(m, sys, t, work, &se);
    if (se == LTH_ENOMEM) {
      st = lth_error_set(err, LTH_ENOMEM, "out of memory");
    }
    if (se != LTH_OK) {
      continue; /* the tools report such failures with their t */
    }
    evaluated++;
    regular = rc <= PI_SINGULAR;
  }
  free(work);
  lth_system_free(sys);
  if (st == LTH_OK && evaluated && !regular) {
    st = pi_error(m, err);
  }
  return st;
}
