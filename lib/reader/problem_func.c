/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Named functions of t (docs/equations.md, docs/format.md):
 *
 *   k1(t) = 2 + 0.5*sin(t)
 *   k2(t) = k1(t)^2 + m            # may use params and earlier named functions
 *   R(t)  = [cos(t) -sin(t); sin(t) cos(t)]
 *
 * A definition `NAME(t) = VALUE` stores the value (a scalar or a matrix,
 * free of unknowns) as the reader computes it: constants and nodes of the
 * file's expression builder, never text.  A call `NAME(t)` anywhere later
 * (equations, blocks, matrix literals, other definitions) is that value, its
 * nodes shared; `NAME(e)` for a scalar expression e free of unknowns is the
 * composition, t replaced by e (lth_ebuild_subst_t), so `k1(0)` is a number
 * and `k1(2*t)` a formula.  Jets and enclosures are those of the formula
 * written out, since it is the same expression.
 *
 * Names: an identifier that is not reserved (t, pi, the functions of the
 * language, eye, zeros, ones, diag, samples), not a statement of the file's
 * kind, not a param, not an unknown, and not defined before.  A function is
 * defined before its use, which also rules out recursion; each error names
 * the lines concerned.  In the block form the builder is emptied after each
 * statement except for the nodes of the named functions (lth_pp_func_mark).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names_hash.h"
#include "problem_impl.h"
#include "problem_lit.h"

typedef struct pfunc {
  char *name; /* NUL-terminated copy */
  size_t len;
  lth_spos at;
  lth_pval val; /* free of unknowns; nodes below the mark */
} pfunc;

struct lth_pfuncs {
  pfunc *f;
  int n, cap;
  int *slots; /* hash table: index + 1, 0 = empty */
  int nslots;
  size_t mark;          /* builder nodes the functions use */
  const char *defining; /* the name being defined, and its length */
  size_t deflen;
};

#define SHOW(n) ((int)((n) > 40 ? 40 : (n)))

static int find(const struct lth_pfuncs *F, const char *s, size_t n) {
  if (!F || !F->nslots) {
    return -1;
  }
  size_t mask = (size_t)F->nslots - 1;
  for (size_t k = lth_name_hash(s, n) & mask;; k = (k + 1) & mask) {
    int idx = F->slots[k] - 1;
    if (idx < 0) {
      return -1;
    }
    if (F->f[idx].len == n && memcmp(F->f[idx].name, s, n) == 0) {
      return idx;
    }
  }
}

/* Enter function idx (the table kept at most half full). */
static int hash_add(struct lth_pfuncs *F, int idx) {
  if (2 * (F->n + 1) > F->nslots) {
    int ns = F->nslots ? 2 * F->nslots : 16;
    int *slots = calloc((size_t)ns, sizeof *slots);
    if (!slots) {
      return 0;
    }
    free(F->slots);
    F->slots = slots;
    F->nslots = ns;
    for (int k = 0; k < F->n; k++) {
      if (k != idx) {
        hash_add(F, k);
      }
    }
  }
  size_t mask = (size_t)F->nslots - 1, k = lth_name_hash(F->f[idx].name, F->f[idx].len) & mask;
  while (F->slots[k]) {
    k = (k + 1) & mask;
  }
  F->slots[k] = idx + 1;
  return 1;
}

void lth_pp_funcs_free(lth_pp *P) {
  struct lth_pfuncs *F = P->c.funcs;
  if (!F) {
    return;
  }
  for (int k = 0; k < F->n; k++) {
    free(F->f[k].name);
    lth_pval_free(&F->f[k].val);
  }
  free(F->f);
  free(F->slots);
  free(F);
  P->c.funcs = NULL;
}

size_t lth_pp_func_mark(const lth_pp *P) { return P->c.funcs ? P->c.funcs->mark : 0; }

int lth_pp_func_line(lth_pp *P, const char *s, size_t n) {
  int k = find(P->c.funcs, s, n);
  return k >= 0 ? P->c.funcs->f[k].at.line : 0;
}

/* ------------------------------------------------------------------------ */
/* Definitions                                                              */

static int is_blank(int ch) { return ch == ' ' || ch == '\t'; }
static int is_ident(int ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_';
}

/* 1 if bytes [q, e) of buf, after a name, read ( t ) = (not ==). */
static int def_tail(const char *buf, size_t q, size_t e) {
  static const char seq[] = "(t)=";
  for (const char *w = seq; *w; w++) {
    while (q < e && is_blank((unsigned char)buf[q])) {
      q++;
    }
    if (q >= e || buf[q] != *w) {
      return 0;
    }
    q++;
    if (*w == 't' && q < e && is_ident((unsigned char)buf[q])) {
      return 0; /* k(tau) */
    }
  }
  return q >= e || buf[q] != '=';
}

int lth_pp_func_is_def(lth_pp *P, size_t b, size_t n) {
  return n > 0 && def_tail(P->c.tx->buf, b + n, P->c.st.e);
}

/* The line of a definition of s[0..n-1] after the current statement, or 0:
 * for the message about a use before the definition (the error path only). */
static int later_definition(lth_pcur *c, const char *s, size_t n) {
  lth_pscan sc = {0, 0};
  for (;;) {
    lth_pstmt st;
    int found = 0;
    if (lth_ptext_next(c->tx, &sc, &st, &found, NULL) != LTH_OK || !found) {
      return 0;
    }
    if (st.b <= c->st.b) {
      continue;
    }
    const char *buf = c->tx->buf;
    size_t q = st.b;
    while (q < st.e && is_blank((unsigned char)buf[q])) {
      q++;
    }
    if (q + n <= st.e && memcmp(buf + q, s, n) == 0 && def_tail(buf, q + n, st.e) &&
        (q + n == st.e || !is_ident((unsigned char)buf[q + n]))) {
      return st.line;
    }
  }
}

/* The checks of a new name at [b, b+n). */
static lth_status check_name(lth_pp *P, size_t b, size_t n) {
  const char *s = P->c.tx->buf + b;
  double v;
  int line;
  if (lth_pp_reserved_name(s, n)) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "'%.*s' cannot name a function: t, pi, the functions of the language (sin, "
                    "cos, ...), eye, zeros, ones, diag and samples are reserved",
                    SHOW(n), s);
  }
  if (lth_pp_param_value(P, s, n, &v)) {
    return LTH_PERR(P, b, LTH_EPARSE, "'%.*s' is a param: a named function needs a name of its own",
                    SHOW(n), s);
  }
  if (P->eqn && lth_pp_eqn_has_variable(P, s, n)) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "'%.*s' is an unknown (see `variables`): a named function needs a name of its "
                    "own",
                    SHOW(n), s);
  }
  if ((line = lth_pp_func_line(P, s, n)) > 0) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "the named function '%.*s' is defined twice (first on line %d)", SHOW(n), s,
                    line);
  }
  return LTH_OK;
}

/* samples(...) in a definition of the block form, where a sampled block is
 * a whole right-hand side. */
static lth_status no_samples(void *ctx, size_t name_pos, const lth_source **out) {
  (void)out;
  return LTH_PERR((lth_pp *)ctx, name_pos, LTH_EPARSE,
                  "samples(...) in a named function needs the equation form (`problem "
                  "equations`); in the block form a sampled block is written A(i,j) = "
                  "samples(\"file.csv\")");
}

/* NAME ( t ) = VALUE */
lth_status lth_pp_st_func(lth_pp *P, size_t kw) {
  lth_pcur *c = &P->c;
  size_t b, n;
  c->pos = kw;
  n = lth_pcur_name(c, &b);
  lth_status st = check_name(P, b, n);
  if (st != LTH_OK) {
    return st;
  }
  while (c->tx->buf[c->pos] != '=') {
    c->pos++; /* ( t ), checked by lth_pp_func_is_def */
  }
  c->pos++;
  struct lth_pfuncs *F = c->funcs;
  if (!F && !(F = c->funcs = calloc(1, sizeof *F))) {
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  char *name = malloc(n + 1);
  if (!name || !lth_grow((void **)&F->f, &F->cap, F->n + 1, sizeof *F->f)) {
    free(name);
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  memcpy(name, c->tx->buf + b, n);
  name[n] = '\0';
  lth_plit_opts o = {.eye_rows = 0, .eye_cols = 0, .label = name, .stop_at_eq = 0};
  if (P->eqn) {
    lth_pp_eqn_lit_opts(P, &o);
  } else {
    o.samples = no_samples;
    o.samples_ctx = P;
  }
  o.function = name;
  F->defining = c->tx->buf + b;
  F->deflen = n;
  lth_pval val;
  st = lth_plit_parse(c, &o, &val);
  F->defining = NULL;
  if (st != LTH_OK) {
    free(name);
    return st;
  }
  F->f[F->n] = (pfunc){name, n, lth_pp_here(P, b), val};
  if (!hash_add(F, F->n)) {
    free(name);
    lth_pval_free(&val);
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  F->n++;
  F->mark = lth_ebuild_size(c->eb);
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* Calls                                                                    */

/* The scalar argument of a call (free of unknowns and of samples). */
static lth_status argument(lth_plp *p, const pfunc *f, size_t open, lth_escalar *arg) {
  char after[64];
  snprintf(after, sizeof after, "'%.40s('", f->name);
  lth_pval a;
  size_t b = p->g.tok.start;
  lth_status st = lth_plit_arg(p, after, &a);
  if (st == LTH_OK) {
    lth_gval slot;
    lth_plit_put(&slot, &a);
    st = lth_gparser_close(&p->g, open, &slot);
    a = lth_plit_get(&slot);
  }
  if (st != LTH_OK) {
    return st;
  }
  const lth_plin *l = a.ext ? a.ext[0] : NULL;
  if (a.rows != 1 || a.cols != 1) {
    st = LTH_PLIT_ERR(p, b, "the argument of %s(...) must be a scalar, found a %d x %d value",
                      f->name, a.rows, a.cols);
  } else if (l && l->n > 0) {
    st = LTH_PLIT_ERR(p, b,
                      "the argument of %s(...) holds an unknown: a named function is a "
                      "function of t (write %s(t)*x for a product)",
                      f->name, f->name);
  } else if (l && l->c0.src) {
    st = LTH_PLIT_ERR(p, b, "the argument of %s(...) holds samples(...): not supported", f->name);
  } else {
    *arg = l ? (lth_escalar){l->c0.v, l->c0.node} : (lth_escalar){a.val[0], -1};
  }
  lth_pval_free(&a);
  return st;
}

/* *out = f's value with t := arg (its nodes shared when arg is t). */
static lth_status instance(lth_plp *p, size_t pos, const pfunc *f, lth_escalar arg, lth_pval *out) {
  const lth_pval *v = &f->val;
  lth_ebuild *eb = p->c->eb;
  size_t n = (size_t)v->rows * (size_t)v->cols, before = lth_ebuild_size(eb);
  int same = arg.node >= 0 && lth_ebuild_is_t(eb, arg.node);
  lth_status st = lth_pval_zeros(&p->x, pos, v->rows, v->cols, out);
  if (st != LTH_OK) {
    return st;
  }
  memcpy(out->val, v->val, n * sizeof *v->val);
  if (v->ext && !(out->ext = calloc(n, sizeof *out->ext))) {
    st = lth_pval_nomem(&p->x, pos);
  }
  for (size_t k = 0; st == LTH_OK && v->ext && k < n; k++) {
    const lth_plin *l = v->ext[k];
    if (!l) {
      continue;
    }
    lth_psc c0 = l->c0;
    if (c0.src && !same) {
      st = LTH_PLIT_ERR(p, pos,
                        "%s holds samples(...): call it as %s(t) (a sampled function is not "
                        "composed)",
                        f->name, f->name);
      break;
    }
    lth_escalar r = {c0.v, c0.node};
    if (!same && (st = lth_ebuild_subst_t(eb, r, arg, &r, p->c->err)) != LTH_OK) {
      st = lth_pcur_locate(p->c, pos, st == LTH_ENOMEM ? st : LTH_EPARSE);
      break;
    }
    c0.v = r.v;
    c0.node = r.node;
    if (c0.node < 0 && !c0.src) {
      out->val[k] = c0.v;
    } else if (!(out->ext[k] = malloc(sizeof *out->ext[k]))) {
      st = lth_pval_nomem(&p->x, pos);
    } else {
      *out->ext[k] = LTH_PLIN_ZERO;
      out->ext[k]->c0 = c0;
    }
  }
  size_t made = lth_ebuild_size(eb) - before;
  if (st == LTH_OK && made) {
    st = lth_pval_charge(&p->x, pos, LTH_P_NODE_OPS * (double)made);
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

int lth_pfunc_name(lth_plp *p, int call, lth_pval *out, lth_status *st) {
  struct lth_pfuncs *F = p->c->funcs;
  const char *s = p->c->tx->buf + p->g.tok.start;
  size_t b = p->g.tok.start, n = p->g.tok.end - b;
  int k = find(F, s, n), line;
  if (k < 0 && call && F && F->defining && F->deflen == n && !memcmp(F->defining, s, n)) {
    *st = LTH_PLIT_ERR(p, b,
                       "the named function %.*s calls itself: a named function is a formula in "
                       "t, params and the named functions defined before it (no recursion)",
                       SHOW(n), s);
    return 1;
  }
  if (k < 0 && call && (line = later_definition(p->c, s, n)) > 0) {
    *st = LTH_PLIT_ERR(p, b,
                       "the named function %.*s is used before its definition on line %d: define "
                       "it before the statements that use it",
                       SHOW(n), s, line);
    return 1;
  }
  if (k < 0) {
    return 0;
  }
  const pfunc *f = &F->f[k];
  if (!call) {
    *st = LTH_PLIT_ERR(p, b, "'%s' is a named function of t (line %d): call it as %s(t)%s", f->name,
                       f->at.line, f->name,
                       p->g.blanks ? ", with no blank before '(' inside [ ]" : "");
    return 1;
  }
  lth_escalar arg = {0.0, -1};
  size_t open;
  if ((*st = lth_gparser_next(&p->g)) != LTH_OK) { /* to the '(' */
    return 1;
  }
  open = p->g.tok.start;
  if ((*st = lth_gparser_next(&p->g)) == LTH_OK) {
    *st = argument(p, f, open, &arg);
  }
  if (*st == LTH_OK) {
    *st = instance(p, b, f, arg, out);
  }
  p->named_end = p->g.tok.start;
  return 1;
}
