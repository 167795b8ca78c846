/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Models (include/lth/model.h): storage of unknowns, equations and
 * coefficients, the accessors, and the summary.  The structure is found in
 * model_detect.c, the system built in model_system.c. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"
#include "core/names_hash.h"

static int find_name(char *const *names, int n, const char *name);

lth_model *lth_model_alloc(lth_error *err) {
  lth_model *m = calloc(1, sizeof *m);
  if (!m) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a model");
  }
  return m;
}

static void coef_free(lth_mcoef *c) {
  lth_expr_free(c->e);
  lth_source_free(c->s);
  memset(c, 0, sizeof *c);
}

/* Forget the results of an analysis. */
static void reset(lth_model *m) {
  for (int i = 0; m->M && i < m->r - 1; i++) {
    lth_source_free(m->M[i]);
    free(m->mlabel[i]);
  }
  free(m->M);
  free(m->mscale);
  free(m->mlabel);
  for (int k = 0; m->groups && k <= m->ngroups; k++) {
    free(m->groups[k].vars);
    free(m->groups[k].eqs);
  }
  free(m->groups);
  free(m->n);
  free(m->perm);
  free(m->iperm);
  free(m->eqperm);
  free(m->ieqperm);
  free(m->block);
  free(m->estart);
  free(m->eidx);
  m->estart = m->eidx = NULL;
  free(m->ypos);
  free(m->qpos);
  free(m->kstart);
  free(m->rstart);
  free(m->reach);
  free(m->pstart);
  free(m->pvar);
  lth_source_free(m->K);
  free(m->klabel);
  m->ypos = m->qpos = m->kstart = m->rstart = m->reach = m->pstart = m->pvar = NULL;
  m->K = NULL;
  m->klabel = NULL;
  m->ny = m->nk = m->s = 0;
  m->kscale = 0.0;
  m->M = NULL;
  m->mscale = NULL;
  m->mlabel = NULL;
  m->groups = NULL;
  m->n = m->perm = m->iperm = m->eqperm = m->ieqperm = m->block = NULL;
  m->ngroups = m->r = m->p = 0;
  m->analyzed = 0;
}

void lth_model_free(lth_model *m) {
  if (!m) {
    return;
  }
  reset(m);
  for (size_t k = 0; k < m->nent; k++) {
    coef_free(&m->ent[k].c);
  }
  free(m->ent);
  for (size_t k = 0; k < m->noent; k++) {
    coef_free(&m->oent[k].c);
  }
  free(m->oent);
  for (int k = 0; k < m->nin; k++) {
    free(m->inames[k]);
  }
  for (int k = 0; k < m->nout; k++) {
    free(m->onames[k]);
  }
  free(m->inames);
  free(m->onames);
  free(m->iline);
  free(m->icol);
  free(m->oline);
  free(m->ocol);
  for (int k = 0; k < m->nv; k++) {
    free(m->names[k]);
  }
  free(m->names);
  free(m->slots);
  free(m->vline);
  free(m->vcol);
  free(m->eline);
  free(m->ecol);
  free(m);
}

void lth_model_set_file(lth_model *m, const char *file) {
  snprintf(m->file, sizeof m->file, "%s", file ? file : "");
}

int lth_model_find_variable(const lth_model *m, const char *name, size_t len) {
  if (!m->nslots) {
    return -1;
  }
  size_t mask = (size_t)m->nslots - 1;
  for (size_t k = lth_name_hash(name, len) & mask;; k = (k + 1) & mask) {
    int idx = m->slots[k] - 1;
    if (idx < 0) {
      return -1;
    }
    if (strlen(m->names[idx]) == len && memcmp(m->names[idx], name, len) == 0) {
      return idx;
    }
  }
}

/* Enter unknown idx (< m->nv or = m->nv) into the table, at most half full. */
static int hash_add(lth_model *m, int idx) {
  if (2 * (m->nv + 1) > m->nslots) {
    int ns = m->nslots ? 2 * m->nslots : 64;
    int *slots = calloc((size_t)ns, sizeof *slots);
    if (!slots) {
      return 0;
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = ns;
    for (int k = 0; k < m->nv; k++) {
      if (k != idx) {
        hash_add(m, k);
      }
    }
  }
  size_t mask = (size_t)m->nslots - 1,
         k = lth_name_hash(m->names[idx], strlen(m->names[idx])) & mask;
  while (m->slots[k]) {
    k = (k + 1) & mask;
  }
  m->slots[k] = idx + 1;
  return 1;
}

int lth_model_add_variable(lth_model *m, const char *name, int line, int col, lth_error *err) {
  if (m->analyzed || !name || !name[0]) {
    lth_error_set(err, LTH_EINVAL, "lth_model_add_variable: %s",
                  m->analyzed ? "the model is already analysed" : "empty name");
    return -1;
  }
  if (lth_model_find_variable(m, name, strlen(name)) >= 0) {
    lth_error_set(err, LTH_EINVAL, "the unknown %s is declared twice", name);
    return -1;
  }
  if (find_name(m->inames, m->nin, name) >= 0 || find_name(m->onames, m->nout, name) >= 0) {
    lth_error_set(err, LTH_EINVAL, "%s is already an input or an output", name);
    return -1;
  }
  int cap = m->capv, ok = 1;
  ok = ok && lth_grow((void **)&m->names, &cap, m->nv + 1, sizeof *m->names);
  cap = m->capv;
  ok = ok && lth_grow((void **)&m->vline, &cap, m->nv + 1, sizeof *m->vline);
  cap = m->capv;
  ok = ok && lth_grow((void **)&m->vcol, &cap, m->nv + 1, sizeof *m->vcol);
  char *copy = ok ? malloc(strlen(name) + 1) : NULL;
  if (!copy) {
    lth_error_set(err, LTH_ENOMEM, "out of memory adding an unknown");
    return -1;
  }
  m->capv = cap;
  strcpy(copy, name);
  m->names[m->nv] = copy;
  m->vline[m->nv] = line;
  m->vcol[m->nv] = col;
  if (!hash_add(m, m->nv)) {
    free(copy);
    lth_error_set(err, LTH_ENOMEM, "out of memory adding an unknown");
    return -1;
  }
  return m->nv++;
}

int lth_model_add_equation(lth_model *m, int line, int col, lth_error *err) {
  if (m->analyzed) {
    lth_error_set(err, LTH_EINVAL, "lth_model_add_equation: the model is already analysed");
    return -1;
  }
  int cap = m->cape, ok = lth_grow((void **)&m->eline, &cap, m->ne + 1, sizeof *m->eline);
  cap = m->cape;
  ok = ok && lth_grow((void **)&m->ecol, &cap, m->ne + 1, sizeof *m->ecol);
  if (!ok) {
    lth_error_set(err, LTH_ENOMEM, "out of memory adding an equation");
    return -1;
  }
  m->cape = cap;
  m->eline[m->ne] = line;
  m->ecol[m->ne] = col;
  return m->ne++;
}

/* The index of name among names[0..n-1], -1 if none. */
static int find_name(char *const *names, int n, const char *name) {
  for (int k = 0; k < n; k++) {
    if (strcmp(names[k], name) == 0) {
      return k;
    }
  }
  return -1;
}

/* A name taken by an unknown, an input or an output: what it is, else NULL. */
static const char *taken(const lth_model *m, const char *name) {
  if (lth_model_find_variable(m, name, strlen(name)) >= 0) {
    return "an unknown";
  }
  if (find_name(m->inames, m->nin, name) >= 0) {
    return "an input";
  }
  return find_name(m->onames, m->nout, name) >= 0 ? "an output" : NULL;
}

/* Add name to a list of inputs or outputs. */
static int add_named(lth_model *m, char ***names, int *n, int *cap, int **line, int **col,
                     const char *name, int l, int c, const char *what, lth_error *err) {
  const char *is = name && name[0] && !m->analyzed ? taken(m, name) : NULL;
  if (m->analyzed || !name || !name[0] || is) {
    lth_error_set(err, LTH_EINVAL, "lth_model_add_%s: %s%s%s", what,
                  m->analyzed ? "the model is already analysed"
                  : is        ? name
                              : "empty name",
                  is ? " is already " : "", is ? is : "");
    return -1;
  }
  int c1 = *cap, ok = lth_grow((void **)names, &c1, *n + 1, sizeof **names);
  c1 = *cap;
  ok = ok && lth_grow((void **)line, &c1, *n + 1, sizeof **line);
  c1 = *cap;
  ok = ok && lth_grow((void **)col, &c1, *n + 1, sizeof **col);
  char *copy = ok ? malloc(strlen(name) + 1) : NULL;
  if (!copy) {
    lth_error_set(err, LTH_ENOMEM, "out of memory adding an %s", what);
    return -1;
  }
  *cap = c1;
  strcpy(copy, name);
  (*names)[*n] = copy;
  (*line)[*n] = l;
  (*col)[*n] = c;
  return (*n)++;
}

int lth_model_add_input(lth_model *m, const char *name, int line, int col, lth_error *err) {
  return add_named(m, &m->inames, &m->nin, &m->capin, &m->iline, &m->icol, name, line, col, "input",
                   err);
}

int lth_model_add_output(lth_model *m, const char *name, int line, int col, lth_error *err) {
  return add_named(m, &m->onames, &m->nout, &m->capout, &m->oline, &m->ocol, name, line, col,
                   "output", err);
}

int lth_model_ninputs(const lth_model *m) { return m->nin; }
int lth_model_noutputs(const lth_model *m) { return m->nout; }
const char *lth_model_input_name(const lth_model *m, int k) {
  return k >= 0 && k < m->nin ? m->inames[k] : NULL;
}
const char *lth_model_output_name(const lth_model *m, int k) {
  return k >= 0 && k < m->nout ? m->onames[k] : NULL;
}

/* Is (part, eq, var) a coefficient the model has? */
static int valid_coef(const lth_model *m, lth_model_part part, int eq, int var) {
  int rows = part >= LTH_MODEL_C ? m->nout : m->ne;
  int cols = part == LTH_MODEL_B || part == LTH_MODEL_D    ? m->nin
             : part == LTH_MODEL_F || part == LTH_MODEL_Y0 ? 1
                                                           : m->nv;
  if (part == LTH_MODEL_F || part == LTH_MODEL_Y0) {
    var = 0;
  }
  return part >= LTH_MODEL_E && part <= LTH_MODEL_Y0 && eq >= 0 && eq < rows && var >= 0 &&
         var < cols;
}

/* Store a coefficient (taking ownership of c's pointers, also on failure). */
static lth_status set_coef(lth_model *m, lth_model_part part, int eq, int var, lth_mcoef *c,
                           lth_error *err) {
  lth_status st = LTH_OK;
  int out = part >= LTH_MODEL_C;
  lth_mentry **ent = out ? &m->oent : &m->ent;
  size_t *n = out ? &m->noent : &m->nent, *capn = out ? &m->capoent : &m->capent;
  if (m->analyzed) {
    st = lth_error_set(err, LTH_EINVAL, "lth_model_set: the model is already analysed");
  } else if (!valid_coef(m, part, eq, var)) {
    st = lth_error_set(err, LTH_EINVAL, "lth_model_set: no %s %d or %s %d",
                       out ? "output" : "equation", eq,
                       part == LTH_MODEL_B || part == LTH_MODEL_D ? "input" : "unknown", var);
  } else if (c->kind == MCOEF_SOURCE &&
             (lth_source_rows(c->s) != 1 || lth_source_cols(c->s) != 1)) {
    st = lth_error_set(err, LTH_EDIM, "lth_model_set: a coefficient source must be 1 x 1");
  }
  /* coefficients set twice: lth_model_analyze */
  var = part == LTH_MODEL_F || part == LTH_MODEL_Y0 ? -1 : var;
  if (st == LTH_OK && *n == *capn) {
    size_t cap = *capn ? 2 * *capn : 64;
    lth_mentry *ne = realloc(*ent, cap * sizeof *ne);
    if (!ne) {
      st = lth_error_set(err, LTH_ENOMEM, "out of memory storing a coefficient");
    } else {
      *ent = ne;
      *capn = cap;
    }
  }
  if (st != LTH_OK) {
    coef_free(c);
    return st;
  }
  (*ent)[(*n)++] = (lth_mentry){.eq = eq, .var = var, .part = (int)part, .c = *c, .nz = 0};
  return LTH_OK;
}

lth_status lth_model_set_const(lth_model *m, lth_model_part part, int eq, int var, double value,
                               lth_error *err) {
  lth_mcoef c = {MCOEF_CONST, value, NULL, NULL};
  if (!isfinite(value)) {
    return lth_error_set(err, LTH_EINVAL, "lth_model_set_const: a non-finite coefficient");
  }
  return set_coef(m, part, eq, var, &c, err);
}

lth_status lth_model_set_expr(lth_model *m, lth_model_part part, int eq, int var, lth_expr *e,
                              lth_error *err) {
  lth_mcoef c = {MCOEF_EXPR, 0.0, e, NULL};
  if (!e) {
    return lth_error_set(err, LTH_EINVAL, "lth_model_set_expr: no expression");
  }
  return set_coef(m, part, eq, var, &c, err);
}

lth_status lth_model_set_source(lth_model *m, lth_model_part part, int eq, int var,
                                lth_source *coef, lth_error *err) {
  lth_mcoef c = {MCOEF_SOURCE, 0.0, NULL, coef};
  if (!coef) {
    return lth_error_set(err, LTH_EINVAL, "lth_model_set_source: no source");
  }
  return set_coef(m, part, eq, var, &c, err);
}

size_t lth_mcoef_work_size(const lth_mcoef *c, int order) {
  switch (c->kind) {
  case MCOEF_EXPR:
    return lth_expr_work_size(c->e, order);
  case MCOEF_SOURCE:
    return lth_source_work_size(c->s, order) + (size_t)order + 1;
  default:
    return 0;
  }
}

lth_status lth_mcoef_taylor(const lth_mcoef *c, double t, int order, double *coef, double *work,
                            lth_error *err) {
  if (c->kind == MCOEF_EXPR) {
    return lth_expr_taylor(c->e, t, order, coef, work, err);
  }
  if (c->kind == MCOEF_SOURCE) {
    lth_jet J = lth_jet_wrap(coef, 1, 1, 1, 1, order);
    return lth_source_fill(c->s, t, order, &J, work, err);
  }
  coef[0] = c->v;
  for (int k = 1; k <= order; k++) {
    coef[k] = 0.0;
  }
  return LTH_OK;
}

lth_status lth_model_error(const lth_model *m, lth_error *err, int line, int col, const char *fmt,
                           ...) {
  if (err) {
    char msg[LTH_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(err);
    lth_error_set(err, LTH_EMODEL, "%s", msg);
    if (line > 0 || m->file[0]) {
      lth_error_set_pos(err, m->file, line, line > 0 ? col : 0);
    }
  }
  return LTH_EMODEL;
}

void lth_model_names(const lth_model *m, const int *vars, int n, char *buf, size_t size) {
  size_t len = 0;
  len += (size_t)snprintf(buf, size, "{");
  for (int k = 0; k < n && len < size; k++) {
    if (len > 200) {
      len += (size_t)snprintf(buf + len, size - len, ", ... (%d in all)", n);
      break;
    }
    len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? ", " : "", m->names[vars[k]]);
  }
  if (len < size) {
    snprintf(buf + len, size - len, "}");
  }
}

void lth_model_where(const lth_model *m, int eq, char *buf, size_t size) {
  if (m->eline[eq] > 0) {
    snprintf(buf, size, "on line %d", m->eline[eq]);
  } else {
    snprintf(buf, size, "(equation %d)", eq + 1);
  }
}

lth_status lth_model_analyze(lth_model *m, double t0, double t1, const double *times, size_t n,
                             lth_error *err) {
  lth_error_clear(err);
  if (m->analyzed) {
    return lth_error_set(err, LTH_EINVAL, "lth_model_analyze: the model is already analysed");
  }
  if (!(t0 < t1) || !isfinite(t1 - t0)) {
    return lth_error_set(err, LTH_EINVAL, "lth_model_analyze: the interval needs t0 < t1");
  }
  m->t0 = t0;
  m->t1 = t1;
  double *own = NULL;
  if (!times) {
    n = 257;
    if (!(own = malloc(n * sizeof *own))) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < n; k++) {
      own[k] = k + 1 == n ? t1 : t0 + (t1 - t0) * ((double)k / (double)(n - 1));
    }
    times = own;
  }
  lth_status st = lth_model_detect(m, err);
  if (st == LTH_OK) {
    m->analyzed = 1;
    st = lth_model_masses(m, times, n, err);
  }
  if (st == LTH_OK) {
    st = lth_model_index1_check(m, times, n, err);
  }
  if (st == LTH_OK) {
    st = lth_model_check_pi(m, err);
  }
  if (st != LTH_OK) {
    reset(m); /* the model may be changed and analysed again */
  }
  free(own);
  return st;
}

int lth_model_nvars(const lth_model *m) { return m->nv; }
int lth_model_nequations(const lth_model *m) { return m->ne; }
const char *lth_model_var_name(const lth_model *m, int var) {
  return var >= 0 && var < m->nv ? m->names[var] : NULL;
}
int lth_model_equation_line(const lth_model *m, int eq) {
  return eq >= 0 && eq < m->ne ? m->eline[eq] : 0;
}
int lth_model_index(const lth_model *m) { return m->analyzed ? m->r : 0; }
int lth_model_block_size(const lth_model *m, int i) {
  return m->analyzed && i >= 1 && i <= m->r ? m->n[i - 1] : 0;
}
int lth_model_manifold_dim(const lth_model *m) { return m->analyzed ? m->p : 0; }
int lth_model_size(const lth_model *m) { return m->analyzed ? m->s : 0; }
int lth_model_index1_count(const lth_model *m) { return m->analyzed ? m->ny : 0; }
const int *lth_model_perm(const lth_model *m) { return m->analyzed ? m->perm : NULL; }
const int *lth_model_iperm(const lth_model *m) { return m->analyzed ? m->iperm : NULL; }
const int *lth_model_eq_perm(const lth_model *m) { return m->analyzed ? m->eqperm : NULL; }
int lth_model_var_block(const lth_model *m, int var) {
  return m->analyzed && var >= 0 && var < m->nv ? m->block[var] : 0;
}
int lth_model_mass_count(const lth_model *m) { return m->analyzed ? m->ngroups : 0; }
const lth_model_mass *lth_model_mass_block(const lth_model *m, int k) {
  return m->analyzed && k >= 0 && k < m->ngroups ? &m->groups[k].pub : NULL;
}

/* The 1 x 1 mass groups of the same block and kind as group k (not the
 * identity): their unknowns in vars, and their number; -1 if an earlier
 * group is one of them (the line is written there). */
static int same_one_by_one(const lth_model *m, int k, int *vars) {
  const lth_model_mass *g = &m->groups[k].pub;
  int n = 0;
  for (int j = 0; j < m->ngroups; j++) {
    const lth_model_mass *h = &m->groups[j].pub;
    if (h->nvars == 1 && h->block == g->block && h->kind == g->kind) {
      if (j < k) {
        return -1;
      }
      vars[n++] = h->vars[0];
    }
  }
  return n;
}

/* "{v1, ..., v50}" when the n >= 4 names are a prefix, consecutive numbers from
 * the first to the last and a common suffix (x1', x2', ...), else the list. */
static void range_names(const lth_model *m, const int *vars, int n, char *buf, size_t size) {
  size_t pre = 0, suf = 0;
  long first = 0;
  int ok = n >= 4;
  for (int k = 0; k < n && ok; k++) {
    const char *s = m->names[vars[k]];
    size_t len = strlen(s), e = len;
    while (e > 0 && !isdigit((unsigned char)s[e - 1])) {
      e--;
    }
    size_t b = e;
    while (b > 0 && isdigit((unsigned char)s[b - 1])) {
      b--;
    }
    const char *s0 = m->names[vars[0]];
    ok = b < e && e - b < 9 && (s[b] != '0' || e - b == 1);
    long num = ok ? strtol(s + b, NULL, 10) : 0;
    if (k == 0) {
      pre = b;
      suf = len - e;
      first = num;
    }
    ok = ok && b == pre && len - e == suf && num == first + k && memcmp(s, s0, pre) == 0 &&
         strcmp(s + e, s0 + strlen(s0) - suf) == 0;
  }
  if (ok) {
    snprintf(buf, size, "{%s, ..., %s}", m->names[vars[0]], m->names[vars[n - 1]]);
  } else {
    lth_model_names(m, vars, n, buf, size);
  }
}

size_t lth_model_describe(const lth_model *m, char *buf, size_t size) {
  char tmp[65536];
  size_t len = 0;
#define OUT(...)                                                                                   \
  len += (size_t)snprintf(tmp + len, len < sizeof tmp ? sizeof tmp - len : 0, __VA_ARGS__)
  if (!m->analyzed) {
    OUT("(not analysed)\n");
  } else {
    OUT("index r = %d, p = %d free initial values\n", m->r, m->p);
    int pos = 0;
    for (int i = 1; i <= m->r; i++) {
      char names[512];
      lth_model_names(m, m->perm + pos, m->n[i - 1], names, sizeof names);
      if (i < m->r) {
        OUT("z_%d = %s (differential)\n", i, names);
      } else {
        OUT("u   = %s (algebraic)\n", names);
      }
      pos += m->n[i - 1];
    }
    for (int c = 0; c < m->nk; c++) {
      char names[512], eqs[512];
      int b = m->kstart[c], n = m->kstart[c + 1] - b;
      lth_model_names(m, m->perm + m->s + b, n, names, sizeof names);
      lth_model_eq_list(m, m->eqperm + m->s + b, n, eqs, sizeof eqs);
      OUT("y   = %s (index 1: fixed by %s)\n", names, eqs);
    }
    int *one = malloc(((size_t)m->ngroups + 1) * sizeof *one);
    for (int k = 0; k < m->ngroups; k++) {
      const lth_model_mass *g = &m->groups[k].pub;
      int n = one && g->nvars == 1 ? same_one_by_one(m, k, one) : 0;
      if (g->kind == LTH_MASS_IDENTITY || n < 0) {
        continue;
      }
      char names[512];
      const char *kind = g->kind == LTH_MASS_CONSTANT ? "constant" : "time-varying";
      if (n > 1) {
        range_names(m, one, n, names, sizeof names);
        OUT("mass matrices of %s in z_%d: %s 1 x 1 each\n", names, g->block, kind);
        continue;
      }
      lth_model_names(m, g->vars, g->nvars, names, sizeof names);
      OUT("mass matrix of %s in z_%d: %s %d x %d%s\n", names, g->block, kind, g->nvars, g->nvars,
          g->diagonal ? "" : ", not diagonal");
    }
    free(one);
  }
#undef OUT
  if (size) {
    snprintf(buf, size, "%s", tmp);
  }
  return len;
}
