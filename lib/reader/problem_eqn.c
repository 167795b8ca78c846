/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: the equation form (`problem equations`, docs/equations.md).
 *
 *   problem equations
 *   variables x1 x2 v1 v2 lambda     # any order
 *   interval 0 10
 *   param m = 2, k = 3
 *   x1' = v1
 *   m*v1' = -k*x1 + cos(t)*lambda
 *   0 = cos(t)*x1 + sin(t)*x2 - 1
 *
 * Each equation `lhs = rhs` (scalar, or a vector of scalar equations) is
 * parsed into a value (problem_lit.c) whose entries are affine in the
 * unknowns and their derivatives; lhs - rhs = sum c x^(o) + c0 becomes the
 * model row E x' = A x + f (lth/model.h) with E += c for derivatives,
 * A -= c for the unknowns, f = -c0.  An unknown differentiated k >= 2 times
 * brings velocity unknowns x', x'', ..., x^(k-1) (named so, placed right
 * after x in the unknowns' order) and the equations d/dt x^(j) = x^(j+1);
 * then x^(o) for 0 < o < k is the unknown x^(o) and x^(k) the derivative of
 * x^(k-1).  z0 and bc columns follow the unknowns' order (with the
 * velocities) and are stored in the canonical order of the system.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"
#include "core/names_hash.h"

#define MAX_ORDER          20 /* highest derivative of an unknown */
#define EQN_SAMPLING_ORDER 6  /* default degree of sampled fits in the equation form */
/* unknowns with the velocities x': each costs O(1), what the equations store
 * is bounded by LTH_P_MAX_OPS and LTH_P_MAX_DEP, and the blocks of the
 * system are sparse (lib/model/model_system.c) */
#define MAX_UNKNOWNS 1000000

typedef struct evar {
  char *name;
  size_t len;
  lth_spos at;  /* declaration */
  int maxo;     /* highest derivative used */
  lth_spos ato; /* its first use */
} evar;

typedef struct eeq {
  lth_plin lin; /* lhs - rhs */
  lth_spos at;
} eeq;

struct lth_peqn {
  lth_pp *P; /* for the inputs (problem_io.c) */
  evar *v;
  int nv, capv;
  int *slots; /* hash table of the names: index + 1, 0 = empty */
  int nslots;
  eeq *e;
  int ne, cape;
  lth_pval z0, bc[3]; /* as written (user order), checked at the end */
};

static const char *const KEYWORDS[] = {"lth",   "problem",  "interval",  "grid",
                                       "param", "sampling", "variables", "z0",
                                       "bc",    "inputs",   "outputs"};

static int find_var(const struct lth_peqn *E, const char *s, size_t n) {
  if (!E || !E->nslots) {
    return -1;
  }
  for (size_t k = lth_name_hash(s, n) & (size_t)(E->nslots - 1);;
       k = (k + 1) & (size_t)(E->nslots - 1)) {
    int idx = E->slots[k] - 1;
    if (idx < 0) {
      return -1;
    }
    if (E->v[idx].len == n && memcmp(E->v[idx].name, s, n) == 0) {
      return idx;
    }
  }
}

/* Enter unknown idx into the hash table (grown to keep it at most half full). */
static int hash_add(struct lth_peqn *E, int idx) {
  if (2 * (E->nv + 1) > E->nslots) {
    int ns = E->nslots ? 2 * E->nslots : 64;
    int *slots = calloc((size_t)ns, sizeof *slots);
    if (!slots) {
      return 0;
    }
    free(E->slots);
    E->slots = slots;
    E->nslots = ns;
    for (int k = 0; k < E->nv; k++) {
      if (k != idx) {
        hash_add(E, k);
      }
    }
  }
  size_t k = lth_name_hash(E->v[idx].name, E->v[idx].len) & (size_t)(E->nslots - 1);
  while (E->slots[k]) {
    k = (k + 1) & (size_t)(E->nslots - 1);
  }
  E->slots[k] = idx + 1;
  return 1;
}

/* An unknown's index, or an input's code LTH_P_INPUT_VAR + k. */
static int lookup_var(void *ctx, const char *name, size_t len) {
  struct lth_peqn *E = ctx;
  int k = find_var(E, name, len);
  if (k < 0 && (k = lth_pp_io_find_input(E->P, name, len)) >= 0) {
    k += LTH_P_INPUT_VAR;
  }
  return k;
}

static const char *var_name(void *ctx, int var, int order, char *buf, size_t size) {
  const struct lth_peqn *E = ctx;
  if (var >= LTH_P_INPUT_VAR) {
    snprintf(buf, size, "%.60s%.*s", lth_pp_io_input_name(E->P, var - LTH_P_INPUT_VAR),
             order > 20 ? 20 : order, "''''''''''''''''''''");
    return buf;
  }
  snprintf(buf, size, "%.60s%.*s", E->v[var].name, order > 20 ? 20 : order, "''''''''''''''''''''");
  return buf;
}

lth_status lth_pp_eqn_begin(lth_pp *P, size_t kw) {
  P->eqn = calloc(1, sizeof *P->eqn);
  if (!P->eqn) {
    return LTH_PERR(P, kw, LTH_ENOMEM, "out of memory");
  }
  P->eqn->P = P;
  P->pb->form = LTH_FORM_EQUATIONS;
  return LTH_OK;
}

void lth_pp_eqn_free(lth_pp *P) {
  struct lth_peqn *E = P->eqn;
  if (!E) {
    return;
  }
  for (int k = 0; k < E->nv; k++) {
    free(E->v[k].name);
  }
  for (int k = 0; k < E->ne; k++) {
    lth_plin_free(&E->e[k].lin);
  }
  free(E->v);
  free(E->slots);
  free(E->e);
  lth_pval_free(&E->z0);
  for (int k = 0; k < 3; k++) {
    lth_pval_free(&E->bc[k]);
  }
  free(E);
  P->eqn = NULL;
}

int lth_pp_eqn_has_variable(lth_pp *P, const char *s, size_t n) {
  return find_var(P->eqn, s, n) >= 0;
}

static int is_keyword(const char *s, size_t n) {
  for (size_t k = 0; k < sizeof KEYWORDS / sizeof KEYWORDS[0]; k++) {
    if (strlen(KEYWORDS[k]) == n && memcmp(KEYWORDS[k], s, n) == 0) {
      return 1;
    }
  }
  return 0;
}

int lth_pp_eqn_is_equation(lth_pp *P, size_t b, size_t n) {
  const char *s = P->c.tx->buf + b;
  double v;
  if (n == 0 || find_var(P->eqn, s, n) >= 0 || lth_pp_param_value(P, s, n, &v)) {
    return 1;
  }
  static const char *const others[] = {"blocks", "A", "f", "M", "sizes", "B", "H", "C", "D", "x0"};
  for (size_t k = 0; k < sizeof others / sizeof others[0]; k++) {
    if (strlen(others[k]) == n && memcmp(others[k], s, n) == 0) {
      return 0; /* the dispatcher says where it belongs */
    }
  }
  return !is_keyword(s, n);
}

/* The position of pos >= from, given that of from (*at): the names of a
 * long `variables` line are placed in one pass over it, not each from the
 * statement's start (quadratic in the line's length). */
static lth_spos advance_pos(const lth_ptext *tx, size_t from, lth_spos at, size_t pos) {
  for (size_t i = from; i < pos; i++) {
    if (tx->buf[i] == '\n') {
      at.line++;
      at.col = 1;
    } else {
      at.col += ((unsigned char)tx->orig[i] & 0xc0) != 0x80;
    }
  }
  return at;
}

/* variables NAME [,] NAME ... */
lth_status lth_pp_st_variables(lth_pp *P, size_t kw) {
  lth_pcur *c = &P->c;
  struct lth_peqn *E = P->eqn;
  int count = 0;
  size_t here = kw;
  lth_spos here_at = lth_pp_here(P, kw);
  for (;;) {
    if (count > 0 && lth_pcur_peek(c) == ',') {
      c->pos++;
    }
    size_t b, n = lth_pcur_name(c, &b);
    const char *s = c->tx->buf + b;
    int len = (int)(n > 40 ? 40 : n);
    if (!n && lth_pcur_peek(c) < 0 && count > 0) {
      return LTH_OK;
    }
    if (!n) {
      char shown[64];
      lth_pcur_show(c, b, shown, sizeof shown);
      return LTH_PERR(P, b, LTH_EPARSE,
                      "expected the name of an unknown (`variables x y ...`), "
                      "found %s",
                      shown);
    }
    double v;
    if (lth_pp_reserved_name(s, n) || is_keyword(s, n)) {
      return LTH_PERR(P, b, LTH_EPARSE,
                      "'%.*s' cannot be an unknown: t, pi, the function names, eye, zeros, ones, "
                      "diag, samples and the statement names are reserved",
                      len, s);
    }
    if (lth_pp_param_value(P, s, n, &v)) {
      return LTH_PERR(P, b, LTH_EPARSE, "'%.*s' is a param: it cannot be an unknown too", len, s);
    }
    if (lth_pp_func_line(P, s, n)) {
      return LTH_PERR(P, b, LTH_EPARSE,
                      "'%.*s' is a named function (line %d): it cannot be an "
                      "unknown too",
                      len, s, lth_pp_func_line(P, s, n));
    }
    int k = find_var(E, s, n);
    if (k >= 0) {
      return LTH_PERR(P, b, LTH_EPARSE, "the unknown '%.*s' is declared twice (first on line %d)",
                      len, s, E->v[k].at.line);
    }
    const char *what;
    if ((k = lth_pp_io_taken(P, s, n, &what)) > 0) {
      return LTH_PERR(P, b, LTH_EPARSE, "'%.*s' is %s (line %d): it cannot be an unknown too", len,
                      s, what, k);
    }
    if (lth_pcur_peek(c) == '\'') {
      return LTH_PERR(P, c->pos, LTH_EPARSE,
                      "declare the unknown %.*s, not its derivative: x' and x'' come with x", len,
                      s);
    }
    if (E->nv >= MAX_UNKNOWNS) {
      return LTH_PERR(P, b, LTH_EDIM, "more than %d unknowns: too many for a data file",
                      MAX_UNKNOWNS);
    }
    char *name = malloc(n + 1);
    if (!name || !lth_grow((void **)&E->v, &E->capv, E->nv + 1, sizeof *E->v)) {
      free(name);
      return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
    }
    memcpy(name, s, n);
    name[n] = '\0';
    here_at = advance_pos(c->tx, here, here_at, b);
    here = b;
    E->v[E->nv] = (evar){.name = name, .len = n, .at = here_at, .maxo = 0, .ato = {0, 0}};
    if (!hash_add(E, E->nv)) {
      free(name);
      return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
    }
    E->nv++;
    count++;
  }
}

/* samples("file.csv") inside an equation: a 1 x 1 sampled function, owned
 * by the problem.  Its fits have degree `sampling order` if given before,
 * else EQN_SAMPLING_ORDER (the index is not known yet). */
static lth_status eqn_samples(void *ctx, size_t name_pos, const lth_source **out) {
  lth_pp *P = ctx;
  lth_problem *pb = P->pb;
  lth_spos at = lth_pp_here(P, name_pos);
  char label[16];
  snprintf(label, sizeof label, "line %d", at.line);
  if (!P->K_given) {
    pb->K = EQN_SAMPLING_ORDER;
  }
  if (!P->first_samples_line) {
    P->first_samples_line = (size_t)at.line;
  }
  if (pb->neqsrc == pb->capeqsrc) {
    size_t cap = pb->capeqsrc ? 2 * pb->capeqsrc : 4;
    lth_source **ns = realloc(pb->eqsrc, cap * sizeof *ns);
    if (!ns) {
      return LTH_PERR(P, name_pos, LTH_ENOMEM, "out of memory");
    }
    pb->eqsrc = ns;
    pb->capeqsrc = cap;
  }
  lth_source *src = NULL;
  size_t path_b, path_n;
  lth_status st = lth_pp_samples_call(P, label, 1, 1, &src, &path_b, &path_n, 0);
  if (st != LTH_OK) {
    return st;
  }
  pb->eqsrc[pb->neqsrc++] = src;
  *out = src;
  return lth_pp_add_sampled(P, label, src, lth_pp_here(P, path_b), P->c.tx->buf + path_b, path_n);
}

void lth_pp_eqn_lit_opts(lth_pp *P, lth_plit_opts *o) {
  o->lookup_var = lookup_var;
  o->var_name = var_name;
  o->var_ctx = P->eqn;
  o->samples = eqn_samples;
  o->samples_ctx = P;
}

/* lhs = rhs: one equation per entry of lhs - rhs. */
lth_status lth_pp_eqn_equation(lth_pp *P, size_t start) {
  lth_pcur *c = &P->c;
  struct lth_peqn *E = P->eqn;
  lth_plit_opts o = {.eye_rows = 0,
                     .eye_cols = 0,
                     .lookup_var = lookup_var,
                     .var_name = var_name,
                     .var_ctx = E,
                     .stop_at_eq = 1,
                     .samples = eqn_samples,
                     .samples_ctx = P};
  lth_pvctx x = {.c = c, .var_name = var_name, .var_ctx = E};
  lth_pval D;
  c->pos = start;
  lth_status st = lth_plit_parse_equation(
      c, &o, &x,
      "expected '=': an equation is written lhs = rhs (a statement that is not an equation "
      "starts with one of variables, interval, grid, param, z0, bc, sampling)",
      &D);
  if (st != LTH_OK) {
    return st;
  }
  if (D.rows != 1 && D.cols != 1) {
    lth_pval_free(&D);
    return LTH_PERR(P, start, LTH_EDIM, "an equation is a scalar or a vector, found %d x %d sides",
                    D.rows, D.cols);
  }
  size_t n = (size_t)D.rows * (size_t)D.cols;
  lth_spos at = lth_pp_here(P, start);
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    lth_plin *l = D.ext ? D.ext[k] : NULL;
    int nunk = 0; /* terms of unknowns (not inputs) */
    for (int j = 0; l && j < l->n; j++) {
      nunk += l->t[j].var < LTH_P_INPUT_VAR;
    }
    if (l && nunk == 0 && l->n > 0) {
      st = LTH_PERR(P, start, LTH_EPARSE, "%s involves inputs but no unknown",
                    n > 1 ? "a row of this vector equation" : "this equation");
      break;
    }
    if (!l || l->n == 0) {
      st = LTH_PERR(P, start, LTH_EPARSE, "%s involves no unknown (it reads %s = 0)",
                    n > 1 ? "a row of this vector equation" : "this equation",
                    l && l->c0.node >= 0 ? "a function of t" : "a constant");
      break;
    }
    for (int j = 0; j < l->n && st == LTH_OK; j++) {
      if (l->t[j].var >= LTH_P_INPUT_VAR) {
        if (l->t[j].order > 0) {
          st = LTH_PERR(P, start, LTH_EPARSE,
                        "the input %s appears differentiated: inputs enter the equations "
                        "linearly and without derivatives (lth differentiates them itself)",
                        lth_pp_io_input_name(P, l->t[j].var - LTH_P_INPUT_VAR));
        }
        continue;
      }
      evar *v = &E->v[l->t[j].var];
      if (l->t[j].order > MAX_ORDER) {
        st = LTH_PERR(P, start, LTH_EPARSE, "derivatives above order %d are not supported",
                      MAX_ORDER);
      } else if (l->t[j].order > v->maxo) {
        v->maxo = l->t[j].order;
        v->ato = at;
      }
    }
    if (st == LTH_OK && !lth_grow((void **)&E->e, &E->cape, E->ne + 1, sizeof *E->e)) {
      st = LTH_PERR(P, start, LTH_ENOMEM, "out of memory");
    }
    if (st == LTH_OK) {
      E->e[E->ne++] = (eeq){*l, at};
      free(l);
      D.ext[k] = NULL;
    }
  }
  lth_pval_free(&D);
  return st;
}

/* z0 = [...] and bc ... = [...]: constants now, sizes at the end. */
static lth_status raw_const(lth_pp *P, const char *label, lth_pval *out) {
  lth_pcur *c = &P->c;
  lth_pcur_skip_ws(c);
  size_t b = c->pos;
  lth_plit_opts o = {.eye_rows = 0, .eye_cols = 0, .label = label, .stop_at_eq = 0};
  lth_status st = lth_plit_parse(c, &o, out);
  if (st == LTH_OK && lth_pval_has_t(out)) {
    lth_pval_free(out);
    st = LTH_PERR(P, lth_pcur_find_t(c, b, c->st.e), LTH_EPARSE,
                  "%s must be constant, but this entry uses t", label);
  }
  return st;
}

lth_status lth_pp_eqn_z0(lth_pp *P, size_t kw) {
  (void)kw;
  return raw_const(P, "z0", &P->eqn->z0);
}

lth_status lth_pp_eqn_bc(lth_pp *P, size_t kw, int which) {
  static const char *const names[] = {"bc B0", "bc B1", "bc beta"};
  (void)kw;
  return raw_const(P, names[which], &P->eqn->bc[which]);
}

/* ------------------------------------------------------------------------ */
/* The model                                                                */

/* Compile sign * (the formula part of) s into *e, counting it against
 * LTH_P_MAX_DEP; errors at the equation. */
static lth_status compile(lth_pp *P, lth_spos at, const lth_psc *s, double sign, lth_expr **e) {
  if (P->ndep >= LTH_P_MAX_DEP) {
    return lth_pp_at_error(P, at, LTH_EPARSE,
                           "more than %d time-dependent coefficients in one file", LTH_P_MAX_DEP);
  }
  lth_psc f = {0.0, s->node, NULL, 0.0};
  lth_status st = lth_psc_compile(&P->c, P->c.st.b, &f, sign, e);
  return st == LTH_OK ? st : lth_pp_relocate(P, at, st);
}

/* Compile sign * s into the model as coefficient (part, q, var). */
lth_status lth_pp_eqn_put(lth_pp *P, lth_model *m, lth_spos at, lth_model_part part, int q, int var,
                          const lth_psc *s, double sign) {
  if (s->src) {
    lth_expr *e = NULL;
    lth_status st = s->node >= 0 ? compile(P, at, s, sign, &e) : LTH_OK;
    if (st != LTH_OK) {
      return st;
    }
    lth_source *src =
        lth_source_affine(e, s->node >= 0 ? 0.0 : sign * s->v, sign * s->sf, s->src, P->err);
    return src ? lth_model_set_source(m, part, q, var, src, P->err)
               : lth_pp_relocate(P, at, LTH_ENOMEM);
  }
  if (s->node < 0) {
    return s->v == 0.0 ? LTH_OK : lth_model_set_const(m, part, q, var, sign * s->v, P->err);
  }
  lth_expr *e = NULL;
  lth_status st = compile(P, at, s, sign, &e);
  if (st != LTH_OK) {
    return st;
  }
  return lth_model_set_expr(m, part, q, var, e, P->err);
}

/* One user equation: lhs - rhs = sum c x^(o) + c0. */
static lth_status put_equation(lth_pp *P, lth_model *m, const int *base, const eeq *e) {
  struct lth_peqn *E = P->eqn;
  int q = lth_model_add_equation(m, e->at.line, e->at.col, P->err);
  if (q < 0) {
    return lth_pp_relocate(P, e->at, P->err ? P->err->status : LTH_ENOMEM);
  }
  lth_status st = lth_pp_eqn_put(P, m, e->at, LTH_MODEL_F, q, -1, &e->lin.c0, -1.0);
  for (int j = 0; j < e->lin.n && st == LTH_OK; j++) {
    const lth_pterm *tm = &e->lin.t[j];
    if (tm->var >= LTH_P_INPUT_VAR) { /* lhs - rhs = c u + ...: B = -c */
      st = lth_pp_eqn_put(P, m, e->at, LTH_MODEL_B, q, tm->var - LTH_P_INPUT_VAR, &tm->c, -1.0);
      continue;
    }
    int k = E->v[tm->var].maxo, o = tm->order, b = base[tm->var];
    if (o == 0) {
      st = lth_pp_eqn_put(P, m, e->at, LTH_MODEL_A, q, b, &tm->c, -1.0);
    } else if (k <= 1 || o == k) {
      st = lth_pp_eqn_put(P, m, e->at, LTH_MODEL_E, q, b + (k <= 1 ? 0 : k - 1), &tm->c, 1.0);
    } else {
      st = lth_pp_eqn_put(P, m, e->at, LTH_MODEL_A, q, b + o, &tm->c, -1.0);
    }
  }
  return st;
}

static lth_status build_model(lth_pp *P, lth_model *m, int *base) {
  struct lth_peqn *E = P->eqn;
  long total = 0;
  for (int v = 0; v < E->nv; v++) {
    total += E->v[v].maxo > 1 ? E->v[v].maxo : 1;
  }
  if (total > MAX_UNKNOWNS) {
    return lth_pp_at_error(P, E->v[0].at, LTH_EDIM,
                           "%ld unknowns with the velocities x' that x'' brings: more than %d, "
                           "too many for a data file",
                           total, MAX_UNKNOWNS);
  }
  lth_model_set_file(m, P->tx.name);
  for (int v = 0; v < E->nv; v++) {
    int nd = E->v[v].maxo > 1 ? E->v[v].maxo : 1; /* x, x', ..., x^(maxo-1) */
    size_t len = strlen(E->v[v].name);
    char *name = malloc(len + (size_t)nd + 1); /* a name of any length, never truncated */
    if (!name) {
      return lth_pp_at_error(P, E->v[v].at, LTH_ENOMEM, "out of memory");
    }
    memcpy(name, E->v[v].name, len);
    for (int j = 0; j < nd; j++) {
      memset(name + len, '\'', (size_t)j);
      name[len + (size_t)j] = '\0';
      int k = lth_model_add_variable(m, name, E->v[v].at.line, E->v[v].at.col, P->err);
      if (k < 0) {
        free(name);
        return lth_pp_relocate(P, E->v[v].at, P->err ? P->err->status : LTH_ENOMEM);
      }
      base[v] = j == 0 ? k : base[v];
    }
    free(name);
  }
  lth_status st = lth_pp_io_model(P, m, base);
  for (int k = 0; k < E->ne && st == LTH_OK; k++) {
    st = put_equation(P, m, base, &E->e[k]);
  }
  for (int v = 0; v < E->nv && st == LTH_OK; v++) { /* d/dt x^(j) = x^(j+1) */
    for (int j = 0; j + 1 < E->v[v].maxo && st == LTH_OK; j++) {
      lth_spos at = E->v[v].ato;
      int q = lth_model_add_equation(m, at.line, at.col, P->err);
      st = q < 0 ? LTH_ENOMEM : lth_model_set_const(m, LTH_MODEL_E, q, base[v] + j, 1.0, P->err);
      if (st == LTH_OK) {
        st = lth_model_set_const(m, LTH_MODEL_A, q, base[v] + j + 1, 1.0, P->err);
      }
      st = st == LTH_OK ? st : lth_pp_relocate(P, at, st);
    }
  }
  return st;
}

lth_status lth_pp_finish_eqn(lth_pp *P) {
  struct lth_peqn *E = P->eqn;
  lth_problem *pb = P->pb;
  if (E->nv == 0) {
    return lth_pp_at_error(P, P->at_problem, LTH_EPARSE,
                           "missing `variables` statement: declare the unknowns (`variables x "
                           "v lambda`)");
  }
  lth_status st = lth_pp_check_common(P); /* interval, grid (P->r = 0: no order check yet) */
  double *times = NULL;
  size_t nt = 0;
  int *base = calloc((size_t)E->nv, sizeof *base);
  if (st == LTH_OK && !(pb->model = lth_model_alloc(P->err))) {
    st = LTH_ENOMEM;
  }
  if (st == LTH_OK && !base) {
    st = lth_pp_at_error(P, P->at_problem, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) {
    st = build_model(P, pb->model, base);
  }
  if (st == LTH_OK) {
    st = lth_pp_check_times(P, &times, &nt);
  }
  if (st == LTH_OK) {
    st = lth_model_analyze(pb->model, pb->t0, pb->t1, times, nt, P->err);
  }
  if (st == LTH_OK) {
    st = lth_model_system(pb->model, &pb->sys, P->err);
  }
  if (st == LTH_OK) {
    st = lth_pp_io_signals(P, pb->sys);
  }
  free(times);
  free(base);
  if (st != LTH_OK) {
    return st;
  }
  P->r = lth_model_index(pb->model);
  if (P->K_given && pb->K < P->r) {
    return lth_pp_at_error(P, P->at_sampling, LTH_EPARSE,
                           "sampling order %d is below the index r = %d found in the equations: "
                           "the decomposition needs derivatives of the data up to order %d",
                           pb->K, P->r, P->r);
  }
  if (!P->K_given && pb->neqsrc > 0 && pb->K < P->r) {
    return lth_pp_at_error(P, P->at_problem, LTH_EPARSE,
                           "the samples(...) were fitted with degree %d (the default in the "
                           "equation form), below the index r = %d: give `sampling order %d` (or "
                           "more) before the first samples(...)",
                           pb->K, P->r, P->r + 2);
  }
  pb->K = P->K_given || pb->neqsrc > 0 ? pb->K : 0; /* 0: automatic (block form) */
  st = P->at_z0.line ? lth_pp_user_z0(P, &E->z0, pb->model) : LTH_OK;
  st = st == LTH_OK ? lth_pp_user_bc(P, E->bc, pb->model) : st;
  st = st == LTH_OK ? lth_pp_bc_finish(P, pb->model) : st;
  return st == LTH_OK ? lth_pp_cost_finish(P, pb->model) : st;
}

/* ------------------------------------------------------------------------ */
/* The unknowns as written, for boundary conditions (problem_bc.c)          */

int lth_pp_eqn_find(lth_pp *P, const char *s, size_t n) { return find_var(P->eqn, s, n); }
int lth_pp_eqn_nvars(const lth_pp *P) { return P->eqn ? P->eqn->nv : 0; }
const char *lth_pp_eqn_name(const lth_pp *P, int var) { return P->eqn->v[var].name; }
int lth_pp_eqn_maxorder(const lth_pp *P, int var) { return P->eqn->v[var].maxo; }
