/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file values, part 1 (lib/reader/problem_impl.h): scalars (constants or
 * expressions in t) and linear forms in the unknowns.  Matrices of them are
 * lib/reader/problem_valmat.c.
 *
 * A scalar is a constant or a node of the file's expression builder
 * (lib/jet/expr_build.h), and scalars combine by the builder's algebra:
 * constants are folded at once (+ - * and / in C doubles, which is what the
 * jet layer's constant folding computes too; ^ and the functions by the jet
 * layer's kernels, so domain errors read the same); exact zeros stay exact:
 * 0 * x is 0 and x + 0 is x, and a coefficient that becomes 0 drops its term,
 * so structural zeros survive matrix algebra (the equation form's structure
 * detection relies on it).  Nodes are shared, never copied: an operation
 * costs one node whatever its operands hold, and every node is charged to
 * the file's budget.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"

const lth_plin LTH_PLIN_ZERO = {{0.0, -1, NULL, 0.0}, NULL, 0};

lth_status lth_pval_nomem(const lth_pvctx *x, size_t pos) {
  return lth_pcur_error(x->c, pos, LTH_ENOMEM, "out of memory evaluating an expression");
}

void lth_plin_free(lth_plin *l) {
  free(l->t);
  *l = LTH_PLIN_ZERO;
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                  */

static lth_escalar esc(const lth_psc *s) { return (lth_escalar){s->v, s->node}; }

/* After a builder operation begun with `before` nodes: its error (reported by
 * the jet layer, positioned here as an input error), or its nodes charged. */
static lth_status built(const lth_pvctx *x, size_t pos, lth_status st, size_t before) {
  if (st != LTH_OK) {
    return lth_pcur_locate(x->c, pos, st == LTH_ENOMEM ? st : LTH_EPARSE);
  }
  size_t made = lth_ebuild_size(x->c->eb) - before;
  return made ? lth_pval_charge(x, pos, LTH_P_NODE_OPS * (double)made) : LTH_OK;
}

lth_status lth_psc_const_binop(const lth_pvctx *x, size_t pos, int op, double a, double b,
                               double *v) {
  lth_escalar r = {0.0, -1};
  lth_status st =
      lth_ebuild_combine(x->c->eb, op, (lth_escalar){a, -1}, (lth_escalar){b, -1}, &r, x->c->err);
  *v = r.v;
  return built(x, pos, st, lth_ebuild_size(x->c->eb)); /* constants: no nodes */
}

/* out = a op b on the constant or formula parts (src ignored). */
static lth_status base_binop(const lth_pvctx *x, size_t pos, int op, const lth_psc *a,
                             const lth_psc *b, lth_psc *out) {
  size_t before = lth_ebuild_size(x->c->eb);
  lth_escalar r = {0.0, -1};
  lth_status st = lth_ebuild_combine(x->c->eb, op, esc(a), esc(b), &r, x->c->err);
  *out = (lth_psc){r.v, r.node, NULL, 0.0};
  return built(x, pos, st, before);
}

/* With samples(...) terms: sums of one such term and a formula, and
 * constant multiples; anything else is refused at pos. */
lth_status lth_psc_binop(const lth_pvctx *x, size_t pos, int op, const lth_psc *a, const lth_psc *b,
                         lth_psc *out) {
  if (!a->src && !b->src) {
    return base_binop(x, pos, op, a, b, out);
  }
  lth_psc ab = {a->v, a->node, NULL, 0.0}, bb = {b->v, b->node, NULL, 0.0};
  const lth_psc *s = a->src ? a : b, *k = a->src ? b : a;
  lth_status st;
  *out = LTH_PSC_CONST(0.0);
  if ((op == '+' || op == '-') && a->src && b->src) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "a coefficient may hold one samples(...) term only (here '%c' combines "
                          "two)",
                          op);
  }
  if (op == '+' || op == '-') {
    st = base_binop(x, pos, op, &ab, &bb, out);
    out->src = s->src;
    out->sf = op == '-' && s == b ? -s->sf : s->sf;
    return st;
  }
  if ((op == '*' || (op == '/' && s == a)) && !k->src && k->node < 0) {
    lth_psc sb = {s->v, s->node, NULL, 0.0};
    st = s == a ? base_binop(x, pos, op, &sb, k, out) : base_binop(x, pos, op, k, &sb, out);
    double f = op == '*' ? s->sf * k->v : s->sf / k->v;
    if (st == LTH_OK && f != 0.0) {
      out->src = s->src;
      out->sf = f;
    }
    return st;
  }
  return lth_pcur_error(x->c, pos, LTH_EPARSE,
                        "samples(...) may only be added to a formula or multiplied (or divided) "
                        "by a constant, not combined by '%c' with %s",
                        op, k->src ? "another samples(...)" : "a function of t");
}

lth_status lth_psc_func(const lth_pvctx *x, size_t pos, int fn, const lth_psc *a, lth_psc *out) {
  *out = LTH_PSC_CONST(0.0);
  if (a->src) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "%s(samples(...)): functions of sampled data are not supported",
                          lth_expr_func_name(fn));
  }
  size_t before = lth_ebuild_size(x->c->eb);
  lth_escalar r = {0.0, -1};
  lth_status st = lth_ebuild_apply(x->c->eb, fn, esc(a), &r, x->c->err);
  *out = (lth_psc){r.v, r.node, NULL, 0.0};
  return built(x, pos, st, before);
}

/* ------------------------------------------------------------------------ */
/* Linear forms                                                             */

static lth_status lin_reserve(const lth_pvctx *x, size_t pos, lth_plin *l, int n) {
  if (n > 0 && !(l->t = malloc((size_t)n * sizeof *l->t))) {
    return lth_pval_nomem(x, pos);
  }
  return LTH_OK;
}

static int term_cmp(const lth_pterm *a, const lth_pterm *b) {
  return a->var != b->var ? (a->var < b->var ? -1 : 1)
                          : (a->order != b->order ? (a->order < b->order ? -1 : 1) : 0);
}

/* out = a op b for op '+' or '-' (merging sorted terms; zero coefficients drop). */
lth_status lth_plin_add(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                        const lth_plin *b, lth_plin *out) {
  *out = LTH_PLIN_ZERO;
  lth_status st = lth_psc_binop(x, pos, op, &a->c0, &b->c0, &out->c0);
  if (st == LTH_OK) {
    st = lin_reserve(x, pos, out, a->n + b->n);
  }
  int i = 0, j = 0;
  while (st == LTH_OK && (i < a->n || j < b->n)) {
    int cmp = i == a->n ? 1 : j == b->n ? -1 : term_cmp(&a->t[i], &b->t[j]);
    lth_pterm *tm = &out->t[out->n];
    lth_psc zero = LTH_PSC_CONST(0.0);
    if (cmp < 0) {
      *tm = a->t[i++]; /* the coefficient's node is shared */
    } else {
      const lth_pterm *bt = &b->t[j++];
      tm->var = bt->var;
      tm->order = bt->order;
      st = lth_psc_binop(x, pos, op, cmp == 0 ? &a->t[i++].c : &zero, &bt->c, &tm->c);
    }
    if (st == LTH_OK && !lth_psc_is(&tm->c, 0.0)) {
      out->n++;
    }
  }
  if (st != LTH_OK) {
    lth_plin_free(out);
  }
  return st;
}

/* out = a op s or s op a (s_left) for op '*' or '/', s a scalar. */
lth_status lth_plin_scale(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                          const lth_psc *s, int s_left, lth_plin *out) {
  *out = LTH_PLIN_ZERO;
  lth_status st = s_left ? lth_psc_binop(x, pos, op, s, &a->c0, &out->c0)
                         : lth_psc_binop(x, pos, op, &a->c0, s, &out->c0);
  if (st == LTH_OK) {
    st = lin_reserve(x, pos, out, a->n);
  }
  for (int k = 0; st == LTH_OK && k < a->n; k++) {
    lth_pterm *tm = &out->t[out->n];
    tm->var = a->t[k].var;
    tm->order = a->t[k].order;
    st = s_left ? lth_psc_binop(x, pos, op, s, &a->t[k].c, &tm->c)
                : lth_psc_binop(x, pos, op, &a->t[k].c, s, &tm->c);
    if (st == LTH_OK && !lth_psc_is(&tm->c, 0.0)) {
      out->n++;
    }
  }
  if (st != LTH_OK) {
    lth_plin_free(out);
  }
  return st;
}

const char *lth_plin_name(const lth_pvctx *x, const lth_plin *l, char *buf, size_t size) {
  if (x->var_name && l->n > 0) {
    return x->var_name(x->var_ctx, l->t[0].var, l->t[0].order, buf, size);
  }
  snprintf(buf, size, "an unknown");
  return buf;
}

/* out = a * b: one of them must be free of unknowns. */
lth_status lth_plin_mul(const lth_pvctx *x, size_t pos, const lth_plin *a, const lth_plin *b,
                        lth_plin *out) {
  if (lth_plin_pure(a)) {
    return lth_plin_scale(x, pos, '*', b, &a->c0, 1, out);
  }
  if (lth_plin_pure(b)) {
    return lth_plin_scale(x, pos, '*', a, &b->c0, 0, out);
  }
  char n1[80], n2[80];
  *out = LTH_PLIN_ZERO;
  return lth_pcur_error(
      x->c, pos, LTH_EPARSE, "%s is not linear in the unknowns: '*' multiplies %s by %s",
      lth_pvctx_subject(x), lth_plin_name(x, a, n1, sizeof n1), lth_plin_name(x, b, n2, sizeof n2));
}

lth_status lth_pcur_charge(lth_pcur *c, size_t pos, double n) {
  lth_pvctx x = {.c = c};
  return lth_pval_charge(&x, pos, n);
}

lth_status lth_psc_compile(lth_pcur *c, size_t pos, const lth_psc *s, double sign, lth_expr **e) {
  *e = NULL;
  if (s->node >= 0) {
    if (*c->ndep >= LTH_P_MAX_DEP) {
      return lth_pcur_error(c, pos, LTH_EPARSE,
                            "more than %d time-dependent matrix entries in one file",
                            LTH_P_MAX_DEP);
    }
    ++*c->ndep;
  }
  int root = s->node >= 0 ? s->node : lth_ebuild_const(c->eb, s->v * sign, 0);
  if (root >= 0 && s->node >= 0 && sign < 0) {
    root = lth_ebuild_neg(c->eb, root, 0);
  }
  if (root < 0) {
    return lth_pcur_error(c, pos, LTH_ENOMEM, "out of memory compiling an expression");
  }
  /* the nodes an evaluation runs: what is left of the budget */
  double left = (LTH_P_MAX_OPS - c->ops) / LTH_P_NODE_OPS;
  size_t nodes = 0;
  lth_status st = lth_ebuild_compile(c->eb, root, left > 0 ? (size_t)left : 0, e, &nodes, c->err);
  if (st == LTH_EDIM) {
    return lth_pcur_charge(c, pos, LTH_P_MAX_OPS); /* the budget's message */
  }
  if (st != LTH_OK) {
    return lth_pcur_locate(c, pos, st == LTH_ENOMEM ? st : LTH_EPARSE);
  }
  st = lth_pcur_charge(c, pos, LTH_P_NODE_OPS * (double)nodes);
  if (st != LTH_OK) {
    lth_expr_free(*e);
    *e = NULL;
  }
  return st;
}

const char *lth_pvctx_subject(const lth_pvctx *x) {
  return x->what && strcmp(x->what, "an output") == 0 ? "the output" : "the equation";
}
