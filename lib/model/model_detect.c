/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Structure detection for models (include/lth/model.h, docs/equations.md):
 * which coefficients are structural zeros, which unknowns are differential,
 * the mass blocks, the Hessenberg chain and the canonical order.  Every
 * refusal names the user's unknowns and equations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"

/* Structurally nonzero?  A coefficient is zero only when its expression is
 * identically zero (the constant 0, or an expression whose enclosure is
 * exactly {0}, e.g. 0*sin(t): lth_expr_is_zero); anything else stays in the
 * equations, however small or however often it vanishes.  (A decision from
 * values at a few points dropped 2000*exp(-2000*t), which is below 1e-60 at
 * every point past t = 0.07.) */
static int nonzero(const lth_model *m, const lth_mcoef *c) {
  if (c->kind == MCOEF_CONST) {
    return c->v != 0.0;
  }
  if (c->kind == MCOEF_SOURCE) {
    return 1;
  }
  return !lth_expr_is_zero_on(c->e, m->t0, m->t1);
}

/* Working state of the detection. */
typedef struct det {
  lth_model *m;
  lth_error *err;
  int *usedE, *usedA; /* per unknown */
  int *hasE, *hasA;   /* per equation */
  int *comp;          /* per unknown: its group (differential), -1 (algebraic) */
  int *ecomp;         /* per equation: its group, -1 for constraints */
  int ncomp;
  int *dist, *level; /* per group */
  int *uses_u;       /* per group */
} det;

static int find(int *parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

/* Items 0..n-1 grouped by key[i] in 0..nkeys-1 (negative keys left out),
 * increasing within a key: idx[start[k] .. start[k+1]-1].  1 on success. */
static int csr(const int *key, int n, int nkeys, int **start, int **idx) {
  *start = calloc((size_t)nkeys + 2, sizeof **start);
  *idx = malloc(((size_t)n + 1) * sizeof **idx);
  if (!*start || !*idx) {
    return 0;
  }
  for (int i = 0; i < n; i++) {
    if (key[i] >= 0) {
      (*start)[key[i] + 2]++;
    }
  }
  for (int k = 0; k < nkeys; k++) {
    (*start)[k + 2] += (*start)[k + 1];
  }
  for (int i = 0; i < n; i++) {
    if (key[i] >= 0) {
      (*idx)[(*start)[key[i] + 1]++] = i;
    }
  }
  return 1;
}

/* An entry's sort key within its equation: part, then unknown.  The keys are
 * copied beside the index so that qsort needs no context (two models
 * analysed at once by two threads share nothing). */
typedef struct entry_key {
  int part, var, idx;
} entry_key;

static int entry_cmp(const void *a, const void *b) {
  const entry_key *x = a, *y = b;
  return x->part != y->part ? x->part - y->part : (x->var > y->var) - (x->var < y->var);
}

/* The entries by equation (m->estart, m->eidx); a coefficient set twice is
 * an error of the caller. */
static lth_status by_equation(det *D) {
  lth_model *m = D->m;
  int *key = malloc((m->nent + 1) * sizeof *key);
  if (!key) {
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  for (size_t k = 0; k < m->nent; k++) {
    key[k] = m->ent[k].eq;
  }
  int ok = csr(key, (int)m->nent, m->ne, &m->estart, &m->eidx);
  free(key);
  if (!ok) {
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  entry_key *keys = malloc((m->nent + 1) * sizeof *keys);
  if (!keys) {
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  lth_status st = LTH_OK;
  for (int q = 0; q < m->ne && st == LTH_OK; q++) {
    int b = m->estart[q], e = m->estart[q + 1];
    for (int k = b; k < e; k++) {
      const lth_mentry *x = &m->ent[m->eidx[k]];
      keys[k - b] = (entry_key){x->part, x->var, m->eidx[k]};
    }
    qsort(keys, (size_t)(e - b), sizeof *keys, entry_cmp);
    for (int k = b; k < e; k++) {
      m->eidx[k] = keys[k - b].idx;
      if (k > b && entry_cmp(&keys[k - b - 1], &keys[k - b]) == 0) {
        const lth_mentry *x = &m->ent[m->eidx[k]];
        st = lth_error_set(D->err, LTH_EINVAL,
                           "lth_model_set: the coefficient %s of equation %d is set twice",
                           x->part == LTH_MODEL_F   ? "f"
                           : x->part == LTH_MODEL_E ? "E"
                           : x->part == LTH_MODEL_B ? "B"
                                                    : "A",
                           q + 1);
        break;
      }
    }
  }
  free(keys);
  return st;
}

static lth_status usage(det *D) {
  lth_model *m = D->m;
  for (size_t k = 0; k < m->noent; k++) {
    m->oent[k].nz = nonzero(m, &m->oent[k].c);
  }
  for (size_t k = 0; k < m->nent; k++) {
    lth_mentry *e = &m->ent[k];
    e->nz = nonzero(m, &e->c);
    if (e->nz && e->part == LTH_MODEL_E) {
      D->usedE[e->var] = D->hasE[e->eq] = 1;
    } else if (e->nz && e->part == LTH_MODEL_A) {
      D->usedA[e->var] = D->hasA[e->eq] = 1;
    }
  }
  for (int v = 0; v < m->nv; v++) {
    if (!D->usedE[v] && !D->usedA[v]) {
      return lth_model_error(m, D->err, m->vline[v], m->vcol[v],
                             "the unknown %s is never used in an equation (with a coefficient "
                             "that is not zero on the interval)",
                             m->names[v]);
    }
  }
  for (int q = 0; q < m->ne; q++) {
    if (!D->hasE[q] && !D->hasA[q]) {
      char wh[64];
      lth_model_where(m, q, wh, sizeof wh);
      return lth_model_error(m, D->err, m->eline[q], m->ecol[q],
                             "the equation %s involves no unknown", wh);
    }
  }
  if (m->ne != m->nv) {
    return lth_model_error(m, D->err, m->nv ? m->vline[0] : 0, m->nv ? m->vcol[0] : 0,
                           "%d equations for %d unknowns: lth needs as many equations as "
                           "unknowns (counting the velocities x' that x'' introduces)",
                           m->ne, m->nv);
  }
  return LTH_OK;
}

/* After the index-1 unknowns are eliminated, no constraint and no
 * algebraic unknown is left: an ODE, which lth does not take. */
static lth_status only_index1(const lth_model *m, lth_error *err) {
  int *y = malloc(((size_t)m->ny + 1) * sizeof *y), *q = malloc(((size_t)m->ny + 1) * sizeof *q);
  if (!y || !q) {
    free(y);
    free(q);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int v = 0, k = 0; v < m->nv; v++) {
    if (m->ypos[v] >= 0) {
      y[k++] = v;
    }
  }
  for (int e = 0, k = 0; e < m->ne; e++) {
    if (m->qpos[e] >= 0) {
      q[k++] = e;
    }
  }
  char names[512], eqs[512];
  lth_model_names(m, y, m->ny, names, sizeof names);
  lth_model_eq_list(m, q, m->ny, eqs, sizeof eqs);
  lth_status st = lth_model_error(
      m, err, m->eline[q[0]], m->ecol[q[0]],
      "every algebraic unknown, %s, is fixed by %s (index 1): once they are eliminated the "
      "equations are an ODE, with no constraint left; lth needs a Hessenberg part of index >= "
      "2 (an algebraic unknown that appears in no equation without derivatives), so integrate "
      "this DAE of index 1 with an ODE or index-1 solver",
      names, eqs);
  free(y);
  free(q);
  return st;
}

/* Differential and algebraic unknowns; constraints; the index-1 part (the
 * algebraic unknowns in constraints, model_index1.c). */
static lth_status roles(det *D) {
  lth_model *m = D->m;
  int nu = 0, nc = 0, first_c = -1, nall = 0;
  for (int v = 0; v < m->nv; v++) {
    nall += !D->usedE[v];
  }
  if (nall == 0) {
    return lth_model_no_algebraic(m, D->err); /* an ODE, or which DAE: model_classify.c */
  }
  lth_status st = lth_model_index1_find(m, D->usedE, D->hasE, D->err);
  if (st != LTH_OK) {
    return st;
  }
  int *u = malloc((size_t)m->nv * sizeof *u);
  if (!u) {
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  for (int v = 0; v < m->nv; v++) {
    if (!D->usedE[v] && m->ypos[v] < 0) {
      u[nu++] = v;
    }
  }
  for (int q = 0; q < m->ne; q++) {
    if (!D->hasE[q] && m->qpos[q] < 0) {
      first_c = nc++ ? first_c : q;
    }
  }
  char names[512];
  lth_model_names(m, u, nu, names, sizeof names);
  if (nu == 0 && nc == 0) {
    st = only_index1(m, D->err);
  } else if (nc != nu) {
    st = lth_model_error(m, D->err, nc ? m->eline[first_c] : m->vline[u[0]],
                         nc ? m->ecol[first_c] : m->vcol[u[0]],
                         "%d equation%s without derivatives (constraints) but %d algebraic "
                         "unknown%s %s (unknowns whose derivative never appears)%s: a Hessenberg "
                         "DAE has one constraint per algebraic unknown",
                         nc, nc == 1 ? "" : "s", nu, nu == 1 ? "" : "s", names,
                         m->ny ? ", not counting the index-1 unknowns and the equations that fix "
                                 "them"
                               : "");
  }
  free(u);
  return st;
}

/* Groups of differential unknowns coupled by E; each must be square. */
static lth_status groups(det *D) {
  lth_model *m = D->m;
  int *parent = malloc((size_t)m->nv * sizeof *parent), *first = NULL, *nvar = NULL, *neq = NULL;
  int *id = malloc((size_t)m->nv * sizeof *id);
  if (!parent || !id) {
    free(parent);
    free(id);
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  for (int v = 0; v < m->nv; v++) {
    parent[v] = v;
    id[v] = -1;
  }
  for (int q = 0; q < m->ne; q++) {
    D->ecomp[q] = -1;
  }
  for (size_t k = 0; k < m->nent; k++) { /* first E unknown of each equation */
    const lth_mentry *e = &m->ent[k];
    if (e->nz && e->part == LTH_MODEL_E) {
      if (D->ecomp[e->eq] < 0) {
        D->ecomp[e->eq] = e->var;
      } else {
        parent[find(parent, e->var)] = find(parent, D->ecomp[e->eq]);
      }
    }
  }
  int nc = 0;
  for (int v = 0; v < m->nv; v++) {
    if (D->usedE[v]) {
      int root = find(parent, v);
      id[root] = id[root] < 0 ? nc++ : id[root];
      D->comp[v] = id[root];
    } else {
      D->comp[v] = -1;
    }
  }
  for (int q = 0; q < m->ne; q++) {
    D->ecomp[q] = D->ecomp[q] >= 0 ? id[find(parent, D->ecomp[q])] : -1;
  }
  D->ncomp = nc;
  nvar = calloc((size_t)nc + 1, sizeof *nvar);
  neq = calloc((size_t)nc + 1, sizeof *neq);
  first = malloc(((size_t)nc + 1) * sizeof *first);
  lth_status st =
      nvar && neq && first ? LTH_OK : lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  for (int v = 0; st == LTH_OK && v < m->nv; v++) {
    nvar[D->comp[v] >= 0 ? D->comp[v] : nc]++;
  }
  for (int c = 0; st == LTH_OK && c <= nc; c++) {
    first[c] = -1;
  }
  for (int q = 0; st == LTH_OK && q < m->ne; q++) {
    int c = D->ecomp[q] >= 0 ? D->ecomp[q] : nc;
    first[c] = first[c] < 0 ? q : first[c];
    neq[c]++;
  }
  for (int c = 0; st == LTH_OK && c < nc; c++) {
    if (neq[c] == nvar[c]) {
      continue;
    }
    int *vs = malloc((size_t)nvar[c] * sizeof *vs), k = 0;
    if (!vs) {
      st = lth_error_set(D->err, LTH_ENOMEM, "out of memory");
      break;
    }
    for (int v = 0; v < m->nv; v++) {
      if (D->comp[v] == c) {
        vs[k++] = v;
      }
    }
    char names[512], wh[64];
    lth_model_names(m, vs, k, names, sizeof names);
    lth_model_where(m, first[c], wh, sizeof wh);
    st = lth_model_error(m, D->err, m->eline[first[c]], m->ecol[first[c]],
                         "the derivatives of %s appear in %d equation%s (the first %s): the "
                         "mass matrix of a group of unknowns coupled through their derivatives "
                         "must be square and invertible, here it is %d x %d",
                         names, neq[c], neq[c] == 1 ? "" : "s", wh, neq[c], k);
    free(vs);
  }
  free(parent);
  free(id);
  free(nvar);
  free(neq);
  free(first);
  return st;
}

/* Breadth-first from the groups in the constraints; r - 1 is the least
 * distance of a group whose equations involve an algebraic unknown. */
static lth_status chain(det *D, int *r) {
  lth_model *m = D->m;
  int nc = D->ncomp, head = 0, tail = 0, best = -1;
  int *queue = malloc(((size_t)nc + 1) * sizeof *queue);
  if (!queue) {
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  for (int c = 0; c < nc; c++) {
    D->dist[c] = -1;
    D->uses_u[c] = 0;
  }
  for (int q = 0; q < m->ne; q++) { /* the pattern with the index-1 unknowns substituted */
    for (int k = m->pstart[q]; k < m->pstart[q + 1]; k++) {
      int v = m->pvar[k];
      if (D->ecomp[q] >= 0 && !D->usedE[v]) {
        D->uses_u[D->ecomp[q]] = 1;
      }
      if (D->ecomp[q] < 0 && D->dist[D->comp[v]] < 0) {
        D->dist[D->comp[v]] = 1;
        queue[tail++] = D->comp[v];
      }
    }
  }
  int *cstart = NULL, *ceq = NULL; /* the equations of each group */
  if (!csr(D->ecomp, m->ne, nc, &cstart, &ceq)) {
    free(queue);
    free(cstart);
    free(ceq);
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  while (head < tail) { /* groups in the equations of group c: distance + 1 */
    int c = queue[head++];
    for (int j = cstart[c]; j < cstart[c + 1]; j++) {
      int q = ceq[j];
      for (int k = m->pstart[q]; k < m->pstart[q + 1]; k++) {
        int v = m->pvar[k];
        if (D->usedE[v] && D->dist[D->comp[v]] < 0) {
          D->dist[D->comp[v]] = D->dist[c] + 1;
          queue[tail++] = D->comp[v];
        }
      }
    }
  }
  free(queue);
  free(cstart);
  free(ceq);
  for (int c = 0; c < nc; c++) {
    if (D->dist[c] > 0 && D->uses_u[c] && (best < 0 || D->dist[c] < best)) {
      best = D->dist[c];
    }
  }
  if (best < 0) {
    int *u = malloc((size_t)m->nv * sizeof *u), nu = 0, q = 0;
    for (int v = 0; u && v < m->nv; v++) {
      if (!D->usedE[v] && m->ypos[v] < 0) {
        u[nu++] = v;
      }
    }
    while (q < m->ne && (D->hasE[q] || m->qpos[q] >= 0)) {
      q++;
    }
    char names[512], wh[64];
    lth_model_names(m, u ? u : &q, u ? nu : 0, names, sizeof names);
    lth_model_where(m, q, wh, sizeof wh);
    free(u);
    return lth_model_error(m, D->err, m->eline[q], m->ecol[q],
                           "differentiating the constraints (the first %s) never involves the "
                           "algebraic unknowns %s: they are not determined, so the equations "
                           "are not a Hessenberg DAE",
                           wh, names);
  }
  *r = best + 1;
  if (*r > LTH_MODEL_MAX_INDEX) {
    int q = 0;
    while (q < m->ne && (D->hasE[q] || m->qpos[q] >= 0)) {
      q++;
    }
    return lth_model_error(m, D->err, m->eline[q], m->ecol[q],
                           "the equations have index %d: lth handles index r <= %d", *r,
                           LTH_MODEL_MAX_INDEX);
  }
  for (int c = 0; c < nc; c++) {
    D->level[c] = D->dist[c] > 0 && *r - D->dist[c] > 1 ? *r - D->dist[c] : 1;
  }
  return LTH_OK;
}

/* Canonical order: z_1, ..., z_{r-1} (groups by their first unknown, each in
 * the user's order), then u; equations alongside. */
static lth_status order(det *D, int r) {
  lth_model *m = D->m;
  int nv = m->nv, pos = 0, epos = 0, ng = 0;
  m->r = r;
  m->n = calloc((size_t)r, sizeof *m->n);
  m->perm = malloc((size_t)nv * sizeof *m->perm);
  m->iperm = malloc((size_t)nv * sizeof *m->iperm);
  m->eqperm = malloc((size_t)nv * sizeof *m->eqperm);
  m->ieqperm = malloc((size_t)nv * sizeof *m->ieqperm);
  m->block = malloc((size_t)nv * sizeof *m->block);
  m->groups = calloc((size_t)D->ncomp + 1, sizeof *m->groups);
  if (!m->n || !m->perm || !m->iperm || !m->eqperm || !m->ieqperm || !m->block || !m->groups) {
    return lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  int *vstart = NULL, *cvar = NULL, *cstart = NULL, *ceq = NULL; /* by group */
  lth_status st = LTH_OK;
  if (!csr(D->comp, nv, D->ncomp, &vstart, &cvar) ||
      !csr(D->ecomp, m->ne, D->ncomp, &cstart, &ceq)) {
    st = lth_error_set(D->err, LTH_ENOMEM, "out of memory");
  }
  for (int i = 1; i < r && st == LTH_OK; i++) {
    for (int v0 = 0; v0 < nv && st == LTH_OK; v0++) {
      /* groups of level i in the order of their first unknown */
      int c = D->comp[v0];
      if (c < 0 || D->level[c] != i || D->dist[c] == -2) {
        continue;
      }
      D->dist[c] = -2; /* placed */
      lth_mgroup *g = &m->groups[ng++];
      m->ngroups = ng;
      int nvc = vstart[c + 1] - vstart[c], nec = cstart[c + 1] - cstart[c];
      g->vars = malloc(((size_t)nvc + 1) * sizeof *g->vars);
      g->eqs = malloc(((size_t)nec + 1) * sizeof *g->eqs);
      if (!g->vars || !g->eqs) {
        st = lth_error_set(D->err, LTH_ENOMEM, "out of memory");
        break;
      }
      g->pub.block = i;
      for (int j = vstart[c]; j < vstart[c + 1]; j++) {
        int v = cvar[j];
        g->vars[g->pub.nvars++] = v;
        m->block[v] = i;
        m->iperm[v] = pos;
        m->perm[pos++] = v;
        m->n[i - 1]++;
      }
      for (int j = cstart[c], k = 0; j < cstart[c + 1]; j++) {
        int q = ceq[j];
        g->eqs[k++] = q;
        m->ieqperm[q] = epos;
        m->eqperm[epos++] = q;
      }
      g->pub.vars = g->vars;
      g->pub.eqs = g->eqs;
      g->pub.diagonal = g->pub.nvars == 1;
    }
  }
  free(vstart);
  free(cvar);
  free(cstart);
  free(ceq);
  if (st != LTH_OK) {
    return st;
  }
  for (int v = 0; v < nv; v++) {
    if (!D->usedE[v] && m->ypos[v] < 0) {
      m->block[v] = r;
      m->iperm[v] = pos;
      m->perm[pos++] = v;
      m->n[r - 1]++;
    }
  }
  for (int q = 0; q < m->ne; q++) {
    if (!D->hasE[q] && m->qpos[q] < 0) {
      m->ieqperm[q] = epos;
      m->eqperm[epos++] = q;
    }
  }
  m->s = pos;
  for (int v = 0; v < nv; v++) { /* the index-1 unknowns after z, row j of K fixing y_j */
    if (m->ypos[v] >= 0) {
      m->block[v] = 0;
      m->iperm[v] = pos + m->ypos[v];
      m->perm[pos + m->ypos[v]] = v;
    }
  }
  for (int q = 0; q < m->ne; q++) {
    if (m->qpos[q] >= 0) {
      m->ieqperm[q] = pos + m->qpos[q];
      m->eqperm[pos + m->qpos[q]] = q;
    }
  }
  m->ngroups = ng;
  return LTH_OK;
}

/* Every block on the chain must have at least n_r unknowns. */
static lth_status sizes(det *D) {
  lth_model *m = D->m;
  int r = m->r, nr = m->n[r - 1], pos = 0;
  m->p = 0;
  for (int i = 1; i < r; i++) {
    if (m->n[i - 1] < nr) {
      char blk[512], u[512];
      lth_model_names(m, m->perm + pos, m->n[i - 1], blk, sizeof blk);
      lth_model_names(m, m->perm + (m->s - nr), nr, u, sizeof u);
      int v = m->perm[pos];
      return lth_model_error(m, D->err, m->vline[v], m->vcol[v],
                             "the chain from the constraints to the algebraic unknowns %s passes "
                             "through %s (z_%d of an index-%d structure) with fewer unknowns "
                             "than %d: Pi = A(r,r-1)...A(1,r) cannot be invertible",
                             u, blk, i, r, nr);
    }
    m->p += m->n[i - 1] - nr;
    pos += m->n[i - 1];
  }
  return LTH_OK;
}

lth_status lth_model_detect(lth_model *m, lth_error *err) {
  if (m->nv == 0) {
    return lth_model_error(m, err, 0, 0, "no unknowns: declare them with `variables`");
  }
  det D = {.m = m, .err = err, .ncomp = 0};
  size_t nv = (size_t)m->nv, ne = (size_t)m->ne + 1;
  D.usedE = calloc(nv, sizeof *D.usedE);
  D.usedA = calloc(nv, sizeof *D.usedA);
  D.hasE = calloc(ne, sizeof *D.hasE);
  D.hasA = calloc(ne, sizeof *D.hasA);
  D.comp = calloc(nv, sizeof *D.comp);
  D.ecomp = calloc(ne, sizeof *D.ecomp);
  D.dist = calloc(nv + 1, sizeof *D.dist);
  D.level = calloc(nv + 1, sizeof *D.level);
  D.uses_u = calloc(nv + 1, sizeof *D.uses_u);
  lth_status st =
      D.usedE && D.usedA && D.hasE && D.hasA && D.comp && D.ecomp && D.dist && D.level && D.uses_u
          ? LTH_OK
          : lth_error_set(err, LTH_ENOMEM, "out of memory");
  int r = 0;
  if (st == LTH_OK) {
    st = by_equation(&D);
  }
  if (st == LTH_OK) {
    st = usage(&D);
  }
  if (st == LTH_OK) {
    st = roles(&D);
  }
  if (st == LTH_OK) {
    st = lth_model_index1_pattern(m, err);
  }
  if (st == LTH_OK) {
    st = groups(&D);
  }
  if (st == LTH_OK) {
    st = chain(&D, &r);
  }
  if (st == LTH_OK) {
    st = order(&D, r);
  }
  if (st == LTH_OK) {
    st = sizes(&D);
  }
  free(D.usedE);
  free(D.usedA);
  free(D.hasE);
  free(D.hasA);
  free(D.comp);
  free(D.ecomp);
  free(D.dist);
  free(D.level);
  free(D.uses_u);
  return st;
}
