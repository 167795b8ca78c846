/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The index-1 part of a model (model_impl.h, docs/equations.md section 10):
 * algebraic unknowns y fixed by algebraic equations 0 = K(t) y + L(t) x +
 * f(t) through a block K invertible on the whole interval (a node without a
 * capacitor in modified nodal analysis, a force defined algebraically).
 *
 * Which unknowns: every algebraic unknown that appears in a constraint (an
 * equation without derivatives).  In a Hessenberg DAE the constraints
 * involve differential unknowns only, so such an unknown must be fixed by
 * the constraints themselves; the ones it appears in are matched to these
 * unknowns (a maximum bipartite matching), and the matched constraints are
 * the rows of K.  Constraints left unmatched stay constraints of the
 * Hessenberg rest once y is substituted; the algebraic unknowns in no
 * constraint are the rest's u.  Since every algebraic unknown of the
 * matched rows is some y, y depends on differential unknowns only:
 * y = -K^{-1}(L x + f), and substituting it keeps the rest a DAE in x and u.
 *
 * The pattern after the substitution: y_j depends on the differential
 * unknowns reachable from its row through the other y of that row (the
 * structure of K^{-1} L); an equation that involves y_j then involves those.
 * A structurally nonzero entry that cancels numerically can only shorten
 * the chain found, and Pi is then singular everywhere: refused, never wrong.
 *
 * K is checked as the mass matrices are (lth_source_solve_scan): at the check
 * times relative to its size on the interval, and between neighbours by the
 * sign of its determinant; a t where the integrator or the decomposition
 * evaluates the system is checked again by the solve itself (docs/equations.md
 * section 10 says what can hide between the points).  The check goes component by
 * component of K (its connected groups), so that a refusal names the
 * unknowns and equations of the loop concerned. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"
#include "core/names_hash.h"

/* Irregular points inside the interval (as in model_detect.c). */
static const double FRAC[7] = {0.0731, 0.1917, 0.3306, 0.4818, 0.6151, 0.7743, 0.9128};

void lth_model_eq_list(const lth_model *m, const int *list, int n, char *buf, size_t size) {
  int lines = 1, eqs[9];
  n = n < 0 ? 0 : n;
  for (int k = 0; k < n; k++) { /* the first nine in increasing order */
    int q = list[k], i = k < 9 ? k : 9;
    while (i > 0 && eqs[i - 1] > q) {
      if (i < 9) {
        eqs[i] = eqs[i - 1];
      }
      i--;
    }
    if (i < 9) {
      eqs[i] = q;
    }
  }
  for (int k = 0; k < n; k++) {
    lines = lines && m->eline[list[k]] > 0;
  }
  size_t len = (size_t)snprintf(buf, size, "the equation%s %s", n == 1 ? "" : "s",
                                lines ? (n == 1 ? "on line " : "on lines ") : "");
  for (int k = 0; k < n && len < size; k++) {
    if (k == 8 && n > 9) {
      snprintf(buf + len, size - len, ", ... (%d in all)", n);
      return;
    }
    len += (size_t)snprintf(buf + len, size - len, k ? ", %d" : "%d",
                            lines ? m->eline[eqs[k]] : eqs[k] + 1);
  }
}

/* ---- which unknowns: a maximum matching of y to constraints ---- */

/* Augmenting path from y index j (iterative depth-first search): match[q]
 * = y fixed by constraint q or -1, ymatch[j] = its constraint or -1.  The
 * candidates of j are cand[cstart[j] .. cstart[j+1]-1]. */
static int augment(int j0, const int *cstart, const int *cand, int *match, int *ymatch, int *seen,
                   int stamp, int *stack, int *next) {
  int top = 0;
  stack[top] = j0;
  next[top] = cstart[j0];
  while (top >= 0) {
    int j = stack[top];
    if (next[top] == cstart[j + 1]) {
      top--;
      continue;
    }
    int q = cand[next[top]++];
    if (seen[q] == stamp) {
      continue;
    }
    seen[q] = stamp;
    if (match[q] < 0) { /* free: flip the path */
      for (int k = top; k >= 0; k--) {
        int jj = stack[k], qq = cand[next[k] - 1];
        ymatch[jj] = qq;
        match[qq] = jj;
      }
      return 1;
    }
    stack[++top] = match[q];
    next[top] = cstart[match[q]];
  }
  return 0;
}

/* Refusal when the constraints cannot fix every y. */
static lth_status unmatched(const lth_model *m, const int *yvar, int ny, const int *ymatch,
                            const int *cstart, const int *cand, lth_error *err) {
  int *vs = calloc((size_t)ny + 1, sizeof *vs), *qs = calloc((size_t)m->ne + 1, sizeof *qs);
  int nvs = 0, nqs = 0, *mark = calloc((size_t)m->ne + 1, sizeof *mark);
  if (!vs || !qs || !mark) {
    free(vs);
    free(qs);
    free(mark);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  int first = -1;
  for (int j = 0; j < ny; j++) {
    if (ymatch[j] >= 0) {
      continue;
    }
    first = first < 0 ? j : first;
    vs[nvs++] = yvar[j];
    for (int k = cstart[j]; k < cstart[j + 1]; k++) {
      if (!mark[cand[k]]) {
        mark[cand[k]] = 1;
      }
    }
  }
  for (int q = 0; q < m->ne; q++) {
    if (mark[q]) {
      qs[nqs++] = q;
    }
  }
  char names[512], eqs[512];
  lth_model_names(m, vs, nvs, names, sizeof names);
  lth_model_eq_list(m, qs, nqs, eqs, sizeof eqs);
  int v = yvar[first];
  lth_status st = lth_model_error(
      m, err, m->vline[v], m->vcol[v],
      "the algebraic unknown%s %s appear%s in equations without derivatives (%s) that do not fix "
      "%s: each algebraic unknown in such an equation must be fixed by one of its own (index 1: "
      "0 = K y + L x + f with K invertible), and these equations are shared with other "
      "unknowns; %s neither a Hessenberg algebraic unknown (which appears in no equation "
      "without derivatives) nor an index-1 one",
      nvs == 1 ? "" : "s", names, nvs == 1 ? "s" : "", eqs, nvs == 1 ? "it" : "them all",
      nvs == 1 ? "it is" : "they are");
  free(vs);
  free(qs);
  free(mark);
  return st;
}

lth_status lth_model_index1_find(lth_model *m, const int *usedE, const int *hasE, lth_error *err) {
  int nv = m->nv, ne = m->ne, ny = 0;
  m->ypos = malloc(((size_t)nv + 1) * sizeof *m->ypos);
  m->qpos = malloc(((size_t)ne + 1) * sizeof *m->qpos);
  int *yvar = malloc(((size_t)nv + 1) * sizeof *yvar);
  int *cstart = calloc((size_t)nv + 2, sizeof *cstart), *cand = NULL;
  int *match = malloc(((size_t)ne + 1) * sizeof *match), *ymatch = NULL;
  int *seen = calloc((size_t)ne + 1, sizeof *seen), *stack = NULL, *next = NULL;
  lth_status st = m->ypos && m->qpos && yvar && cstart && match && seen
                      ? LTH_OK
                      : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (int v = 0; st == LTH_OK && v < nv; v++) {
    m->ypos[v] = -1;
  }
  for (size_t k = 0; st == LTH_OK && k < m->nent; k++) { /* y: algebraic, in a constraint */
    const lth_mentry *e = &m->ent[k];
    if (e->nz && e->part == LTH_MODEL_A && !hasE[e->eq] && !usedE[e->var] && m->ypos[e->var] < 0) {
      m->ypos[e->var] = 0;
    }
  }
  for (int v = 0; st == LTH_OK && v < nv; v++) {
    if (m->ypos[v] == 0) {
      m->ypos[v] = ny;
      yvar[ny++] = v;
    }
  }
  m->ny = ny;
  if (st == LTH_OK) { /* the constraints each y appears in */
    for (size_t k = 0; k < m->nent; k++) {
      const lth_mentry *e = &m->ent[k];
      if (e->nz && e->part == LTH_MODEL_A && !hasE[e->eq] && m->ypos[e->var] >= 0) {
        cstart[m->ypos[e->var] + 2]++;
      }
    }
    for (int j = 0; j < ny; j++) {
      cstart[j + 2] += cstart[j + 1];
    }
    cand = malloc(((size_t)cstart[ny + 1] + 1) * sizeof *cand);
    ymatch = malloc(((size_t)ny + 1) * sizeof *ymatch);
    stack = malloc(((size_t)ny + 1) * sizeof *stack);
    next = malloc(((size_t)ny + 1) * sizeof *next);
    if (!cand || !ymatch || !stack || !next) {
      st = lth_error_set(err, LTH_ENOMEM, "out of memory");
    }
  }
  if (st == LTH_OK) {
    for (size_t k = 0; k < m->nent; k++) {
      const lth_mentry *e = &m->ent[k];
      if (e->nz && e->part == LTH_MODEL_A && !hasE[e->eq] && m->ypos[e->var] >= 0) {
        cand[cstart[m->ypos[e->var] + 1]++] = e->eq;
      }
    }
    for (int q = 0; q < ne; q++) {
      match[q] = -1;
    }
    int all = 1;
    for (int j = 0; j < ny; j++) {
      ymatch[j] = -1;
      all = augment(j, cstart, cand, match, ymatch, seen, j + 1, stack, next) && all;
    }
    if (!all) {
      st = unmatched(m, yvar, ny, ymatch, cstart, cand, err);
    }
  }
  for (int q = 0; st == LTH_OK && q < ne; q++) {
    m->qpos[q] = match[q];
  }
  free(yvar);
  free(cstart);
  free(cand);
  free(match);
  free(ymatch);
  free(seen);
  free(stack);
  free(next);
  return st;
}

/* ---- components of K, the reach of each y, the pattern ---- */

static int find_root(int *parent, int x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

/* Renumber y by the components of K (in the order of their first unknown,
 * each in the user's order): ypos, qpos and kstart. */
static lth_status components(lth_model *m, lth_error *err) {
  int ny = m->ny;
  int *parent = malloc(((size_t)ny + 1) * sizeof *parent), *var = NULL, *cid = NULL, *nid = NULL;
  var = malloc(((size_t)ny + 1) * sizeof *var);
  cid = malloc(((size_t)ny + 1) * sizeof *cid);
  nid = malloc(((size_t)ny + 1) * sizeof *nid);
  m->kstart = calloc((size_t)ny + 2, sizeof *m->kstart);
  if (!parent || !var || !cid || !nid || !m->kstart) {
    free(parent);
    free(var);
    free(cid);
    free(nid);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int j = 0; j < ny; j++) {
    parent[j] = j;
  }
  for (int v = 0; v < m->nv; v++) {
    if (m->ypos[v] >= 0) {
      var[m->ypos[v]] = v;
    }
  }
  for (size_t k = 0; k < m->nent; k++) { /* y's sharing a row of K */
    const lth_mentry *e = &m->ent[k];
    if (e->nz && e->part == LTH_MODEL_A && m->qpos[e->eq] >= 0 && m->ypos[e->var] >= 0) {
      parent[find_root(parent, m->ypos[e->var])] = find_root(parent, m->qpos[e->eq]);
    }
  }
  int nk = 0, pos = 0;
  for (int j = 0; j < ny; j++) {
    cid[j] = -1;
  }
  for (int j = 0; j < ny; j++) { /* component ids in the order of their first unknown */
    int root = find_root(parent, j);
    cid[root] = cid[root] < 0 ? nk++ : cid[root];
  }
  for (int c = 0; c < nk; c++) {
    m->kstart[c] = pos;
    for (int j = 0; j < ny; j++) {
      if (cid[find_root(parent, j)] == c) {
        nid[j] = pos++;
      }
    }
  }
  m->kstart[nk] = pos;
  m->nk = nk;
  for (int j = 0; j < ny; j++) {
    m->ypos[var[j]] = nid[j];
  }
  for (int q = 0; q < m->ne; q++) {
    m->qpos[q] = m->qpos[q] >= 0 ? nid[m->qpos[q]] : -1;
  }
  free(parent);
  free(var);
  free(cid);
  free(nid);
  return LTH_OK;
}

/* The differential unknowns each y depends on: from its row, through the
 * other y of the rows reached (rstart, reach). */
static lth_status reach(lth_model *m, int *qof, lth_error *err) {
  int ny = m->ny, nv = m->nv, cap = 64, len = 0;
  int *stack = malloc(((size_t)ny + 1) * sizeof *stack),
      *seen = calloc((size_t)ny + 1, sizeof *seen);
  int *vmark = calloc((size_t)nv + 1, sizeof *vmark);
  m->rstart = malloc(((size_t)ny + 1) * sizeof *m->rstart);
  m->reach = malloc((size_t)cap * sizeof *m->reach);
  lth_status st = stack && seen && vmark && m->rstart && m->reach
                      ? LTH_OK
                      : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (int j = 0; st == LTH_OK && j < ny; j++) {
    int top = 0;
    m->rstart[j] = len;
    stack[top++] = j;
    seen[j] = j + 1;
    while (top > 0 && st == LTH_OK) {
      int q = qof[stack[--top]];
      for (int k = m->estart[q]; k < m->estart[q + 1]; k++) {
        const lth_mentry *e = &m->ent[m->eidx[k]];
        if (!e->nz || e->part != LTH_MODEL_A) {
          continue;
        }
        int y = m->ypos[e->var];
        if (y >= 0 && seen[y] != j + 1) {
          seen[y] = j + 1;
          stack[top++] = y;
        } else if (y < 0 && vmark[e->var] != j + 1) {
          vmark[e->var] = j + 1;
          if (len == cap && !lth_grow((void **)&m->reach, &cap, len + 1, sizeof *m->reach)) {
            st = lth_error_set(err, LTH_ENOMEM, "out of memory");
            break;
          }
          m->reach[len++] = e->var;
        }
      }
    }
  }
  m->rstart[ny] = len;
  free(stack);
  free(seen);
  free(vmark);
  return st;
}

/* Per equation (not a row of K): its A unknowns other than y, and the reach
 * of its y. */
static lth_status pattern(lth_model *m, lth_error *err) {
  int nv = m->nv, ne = m->ne, cap = (int)m->nent + 16, len = 0;
  int *mark = calloc((size_t)nv + 1, sizeof *mark);
  m->pstart = malloc(((size_t)ne + 1) * sizeof *m->pstart);
  m->pvar = malloc((size_t)cap * sizeof *m->pvar);
  if (!mark || !m->pstart || !m->pvar) {
    free(mark);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int q = 0; q < ne; q++) {
    m->pstart[q] = len;
    for (int k = m->estart[q]; m->qpos[q] < 0 && k < m->estart[q + 1]; k++) {
      const lth_mentry *e = &m->ent[m->eidx[k]];
      if (!e->nz || e->part != LTH_MODEL_A) {
        continue;
      }
      int y = m->ypos[e->var], b = y < 0 ? 0 : m->rstart[y], n = y < 0 ? 1 : m->rstart[y + 1] - b;
      for (int i = 0; i < n; i++) {
        int v = y < 0 ? e->var : m->reach[b + i];
        if (mark[v] == q + 1) {
          continue;
        }
        mark[v] = q + 1;
        if (len == cap && !lth_grow((void **)&m->pvar, &cap, len + 1, sizeof *m->pvar)) {
          free(mark);
          return lth_error_set(err, LTH_ENOMEM, "out of memory");
        }
        m->pvar[len++] = v;
      }
    }
  }
  m->pstart[ne] = len;
  free(mark);
  return LTH_OK;
}

lth_status lth_model_index1_pattern(lth_model *m, lth_error *err) {
  lth_status st = m->ny > 0 ? components(m, err) : LTH_OK;
  int *qof = malloc(((size_t)m->ny + 1) * sizeof *qof);
  if (!qof) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (int q = 0; q < m->ne; q++) {
    if (m->qpos[q] >= 0) {
      qof[m->qpos[q]] = q;
    }
  }
  if (st == LTH_OK) {
    st = reach(m, qof, err);
  }
  free(qof);
  return st == LTH_OK ? pattern(m, err) : st;
}

/* ---- K on the interval ---- */

void lth_model_k_message(lth_error *err) {
  static const char from[] = "the mass matrix ";
  if (!err || (err->status != LTH_ESING && err->status != LTH_ECOND) ||
      strncmp(err->message, from, sizeof from - 1) != 0) {
    return;
  }
  char msg[LTH_ERROR_MSG_MAX];
  snprintf(msg, sizeof msg, "the index-1 block K %s", err->message + sizeof from - 1);
  snprintf(err->message, sizeof err->message, "%s", msg);
}

/* "of {e3, e4} in the equations on lines 18, 19" for y[b .. b+n-1]. */
static char *k_label(const lth_model *m, int b, int n) {
  char names[512], eqs[512];
  lth_model_names(m, m->perm + m->s + b, n, names, sizeof names);
  lth_model_eq_list(m, m->eqperm + m->s + b, n, eqs, sizeof eqs);
  char *label = malloc(strlen(names) + strlen(eqs) + 16);
  if (label) {
    sprintf(label, "of %s in %s", names, eqs);
  }
  return label;
}

/* A component singular at every irregular point: a loop that does not fix
 * its unknowns anywhere. */
static int singular_everywhere(const lth_model *m, const lth_source *Kc) {
  for (int k = 0; k < 7; k++) {
    double t = m->t0 + (m->t1 - m->t0) * FRAC[k], size;
    if (lth_source_solve_scan(Kc, &t, 1, 0.0, "", &size, NULL) == LTH_OK) {
      return 0;
    }
  }
  return 1;
}

static lth_status component_check(lth_model *m, int c, const double *times, size_t n, double *size,
                                  lth_error *err) {
  int b = m->kstart[c], nc = m->kstart[c + 1] - b, q = m->eqperm[m->s + b];
  lth_source *Kc = NULL;
  char *label = k_label(m, b, nc);
  lth_status st = label
                      ? lth_model_block_source(m, LTH_MODEL_A, m->s + b, nc, m->s + b, nc, &Kc, err)
                      : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) {
    st = lth_source_solve_scan(Kc, times, n, 0.0, label, size, err);
  }
  if (st == LTH_ENOMEM || st == LTH_OK) {
    free(label);
    lth_source_free(Kc);
    return st;
  }
  if (singular_everywhere(m, Kc)) {
    char names[512], eqs[512];
    lth_model_names(m, m->perm + m->s + b, nc, names, sizeof names);
    lth_model_eq_list(m, m->eqperm + m->s + b, nc, eqs, sizeof eqs);
    st = lth_model_error(m, err, m->eline[q], m->ecol[q],
                         "%s do%s not fix the algebraic unknown%s %s: %s K (the coefficients "
                         "of %s there) is singular at every t checked, so %s neither "
                         "index 1 nor part of a Hessenberg DAE",
                         eqs, nc == 1 ? "es" : "", nc == 1 ? "" : "s", names,
                         nc == 1 ? "its coefficient" : "their block", names,
                         nc == 1 ? "it is" : "they are");
  } else {
    lth_model_k_message(err);
    if (err) {
      err->status = LTH_EMODEL;
      if (m->eline[q] > 0 || m->file[0]) {
        lth_error_set_pos(err, m->file, m->eline[q], m->eline[q] > 0 ? m->ecol[q] : 0);
      }
    }
    st = LTH_EMODEL;
  }
  free(label);
  lth_source_free(Kc);
  return st;
}

lth_status lth_model_index1_check(lth_model *m, const double *times, size_t n, lth_error *err) {
  if (m->ny == 0) {
    return LTH_OK;
  }
  lth_status st = LTH_OK;
  m->kscale = 0.0;
  for (int c = 0; c < m->nk && st == LTH_OK; c++) {
    double size = 0.0;
    st = component_check(m, c, times, n, &size, err);
    m->kscale = fmax(m->kscale, size);
  }
  if (st == LTH_OK && !(m->klabel = k_label(m, 0, m->ny))) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) {
    st = lth_model_block_source(m, LTH_MODEL_A, m->s, m->ny, m->s, m->ny, &m->K, err);
  }
  return st;
}
