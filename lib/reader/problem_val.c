/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file values, part 1 (lib/reader/problem_impl.h): scalars (constants or
 * expressions in t) and linear forms in the unknowns.  Matrices of them are
 * lib/reader/problem_valmat.c.
 *
 * Constants are folded at once.  + - * and / by a nonzero constant are done
 * in C doubles, which is what lib/jet/expr.c's constant folding computes too; ^
 * and the functions are folded by compiling and evaluating the constant
 * expression with lib/jet/expr.c, so domain errors read the same.  Exact zeros
 * stay exact: 0 * x is 0 and x + 0 is x, and a coefficient that becomes 0
 * drops its term, so structural zeros survive matrix algebra (the equation
 * form's structure detection relies on it).  A t-dependent scalar is the text
 * of a fully parenthesised expression, compiled once at the end.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"

/* bytes of one t-dependent entry's expression: a one-line formula (up to
 * LTH_P_MAX_LINE) with the parentheses its operations add fits */
#define TEXT_MAX ((size_t)16 << 20)

const lth_plin LTH_PLIN_ZERO = {{0.0, NULL, NULL, 0.0, 0, 0}, NULL, 0};

lth_status lth_pval_nomem(const lth_pvctx *x, size_t pos) {
  return lth_pcur_error(x->c, pos, LTH_ENOMEM, "out of memory evaluating an expression");
}

void lth_psc_free(lth_psc *s) {
  free(s->txt);
  s->txt = NULL;
  s->len = s->cap = 0;
}

void lth_plin_free(lth_plin *l) {
  lth_psc_free(&l->c0);
  for (int k = 0; k < l->n; k++) {
    lth_psc_free(&l->t[k].c);
  }
  free(l->t);
  *l = LTH_PLIN_ZERO;
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                  */

/* s as an operand in text: its expression, or the constant to 17 digits. */
static const char *operand(const lth_psc *s, char num[40]) {
  if (s->txt) {
    return s->txt;
  }
  snprintf(num, 40, "%.17g", s->v);
  return num;
}

static lth_status make_text(const lth_pvctx *x, size_t pos, lth_psc *out, const char *fmt, ...)
    LTH_P_PRINTF(4, 5);
static lth_status make_text(const lth_pvctx *x, size_t pos, lth_psc *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n >= 0 && lth_pval_charge(x, pos, (double)n) != LTH_OK) {
    return LTH_EDIM;
  }
  if (n < 0 || (size_t)n > TEXT_MAX) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "expression too large: an entry here would hold more than %zu bytes "
                          "of formula",
                          TEXT_MAX);
  }
  out->txt = malloc((size_t)n + 1);
  out->len = out->cap = 0;
  if (!out->txt) {
    return lth_pval_nomem(x, pos);
  }
  va_start(ap, fmt);
  vsnprintf(out->txt, (size_t)n + 1, fmt, ap);
  va_end(ap);
  out->v = 0.0;
  return LTH_OK;
}

lth_status lth_psc_append_sum(const lth_pvctx *x, size_t pos, int op, lth_psc *a,
                              const lth_psc *b) {
  char num[40];
  const char *tb = operand(b, num);
  size_t la = a->cap ? a->len : strlen(a->txt), lb = b->txt && b->cap ? b->len : strlen(tb);
  size_t need = la + lb + 4;
  if (lth_pval_charge(x, pos, (double)(lb + 3)) != LTH_OK) {
    return LTH_EDIM;
  }
  if (need - 1 > TEXT_MAX) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "expression too large: an entry here would hold more than %zu bytes "
                          "of formula",
                          TEXT_MAX);
  }
  size_t cap = a->cap ? a->cap : la + 1;
  if (need > cap) {
    cap = need > 2 * cap ? need : 2 * cap; /* doubling: a sum of n terms costs O(n) */
    char *p = realloc(a->txt, cap);
    if (!p) {
      return lth_pval_nomem(x, pos);
    }
    a->txt = p;
  }
  char *e = a->txt + la;
  *e++ = (char)op;
  *e++ = '(';
  memcpy(e, tb, lb);
  e[lb] = ')';
  e[lb + 1] = '\0';
  a->len = la + lb + 3;
  a->cap = cap;
  return LTH_OK;
}

static char *dup_text(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  return d ? memcpy(d, s, n) : NULL;
}

static lth_status sc_copy(const lth_pvctx *x, size_t pos, const lth_psc *a, lth_psc *out) {
  *out = (lth_psc){a->v, NULL, a->src, a->sf, 0, 0};
  if (a->txt && !(out->txt = dup_text(a->txt))) {
    return lth_pval_nomem(x, pos);
  }
  return LTH_OK;
}

/* Evaluate a constant expression text with lib/jet/expr.c (errors at pos). */
static lth_status fold_text(const lth_pvctx *x, size_t pos, const char *text, double *v) {
  lth_expr *e = NULL;
  lth_error *err = x->c->err;
  lth_status st = lth_expr_parse(text, strlen(text), NULL, NULL, &e, err);
  if (st == LTH_OK) {
    st = lth_expr_eval(e, 0.0, v, err);
  }
  lth_expr_free(e);
  return st == LTH_OK ? st : lth_pcur_locate(x->c, pos, st == LTH_ENOMEM ? st : LTH_EPARSE);
}

static lth_status sc_neg(const lth_pvctx *x, size_t pos, const lth_psc *a, lth_psc *out) {
  *out = (lth_psc){-a->v + 0.0, NULL, a->src, -a->sf, 0, 0};
  return a->txt ? make_text(x, pos, out, "-(%s)", a->txt) : LTH_OK;
}

lth_status lth_psc_const_binop(const lth_pvctx *x, size_t pos, int op, double a, double b,
                               double *v) {
  char text[128];
  switch (op) {
  case '+': *v = a + b; break;
  case '-': *v = a - b; break;
  case '*': *v = a * b; break;
  case '/':
    if (b == 0.0) {
      return lth_pcur_error(x->c, pos, LTH_EPARSE, "division by zero in '/' (%g / 0)", a);
    }
    *v = a / b;
    break;
  default: snprintf(text, sizeof text, "(%.17g)^(%.17g)", a, b); return fold_text(x, pos, text, v);
  }
  if (!isfinite(*v)) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE, "non-finite value from '%c' (%g %c %g)", op, a, op,
                          b);
  }
  return LTH_OK;
}

/* out = a op b on the constant or formula parts (src ignored). */
static lth_status base_binop(const lth_pvctx *x, size_t pos, int op, const lth_psc *a,
                             const lth_psc *b, lth_psc *out) {
  *out = (lth_psc){0.0, NULL, NULL, 0.0, 0, 0};
  if (!a->txt && !b->txt) {
    return lth_psc_const_binop(x, pos, op, a->v, b->v, &out->v);
  }
  switch (op) {
  case '*':
    if (lth_psc_is(a, 0.0) || lth_psc_is(b, 0.0)) {
      return LTH_OK;
    }
    if (lth_psc_is(a, 1.0) || lth_psc_is(b, 1.0)) {
      return sc_copy(x, pos, lth_psc_is(a, 1.0) ? b : a, out);
    }
    break;
  case '+':
    if (lth_psc_is(a, 0.0) || lth_psc_is(b, 0.0)) {
      return sc_copy(x, pos, lth_psc_is(a, 0.0) ? b : a, out);
    }
    break;
  case '-':
    if (lth_psc_is(b, 0.0)) {
      return sc_copy(x, pos, a, out);
    }
    if (lth_psc_is(a, 0.0)) {
      return sc_neg(x, pos, b, out);
    }
    break;
  case '/':
    if (lth_psc_is(b, 0.0)) {
      return lth_pcur_error(x->c, pos, LTH_EPARSE, "division by zero in '/' (a function of t / 0)");
    }
    if (lth_psc_is(b, 1.0) || lth_psc_is(a, 0.0)) {
      return sc_copy(x, pos, a, out);
    }
    break;
  default:
    if (lth_psc_is(b, 0.0)) {
      *out = (lth_psc){1.0, NULL, NULL, 0.0, 0, 0};
      return LTH_OK;
    }
    if (lth_psc_is(b, 1.0)) {
      return sc_copy(x, pos, a, out);
    }
  }
  char na[40], nb[40];
  return make_text(x, pos, out, "(%s)%c(%s)", operand(a, na), op, operand(b, nb));
}

/* With samples(...) terms: sums of one such term and a formula, and
 * constant multiples; anything else is refused at pos. */
lth_status lth_psc_binop(const lth_pvctx *x, size_t pos, int op, const lth_psc *a, const lth_psc *b,
                         lth_psc *out) {
  if (!a->src && !b->src) {
    return base_binop(x, pos, op, a, b, out);
  }
  lth_psc ab = {a->v, a->txt, NULL, 0.0, 0, 0}, bb = {b->v, b->txt, NULL, 0.0, 0, 0};
  const lth_psc *s = a->src ? a : b, *k = a->src ? b : a;
  lth_status st;
  *out = (lth_psc){0.0, NULL, NULL, 0.0, 0, 0};
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
  if ((op == '*' || (op == '/' && s == a)) && !k->src && !k->txt) {
    lth_psc sb = {s->v, s->txt, NULL, 0.0, 0, 0};
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

lth_status lth_psc_func(const lth_pvctx *x, size_t pos, const char *fn, const lth_psc *a,
                        lth_psc *out) {
  if (a->src) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "%s(samples(...)): functions of sampled data are not supported", fn);
  }
  if (a->txt) {
    return make_text(x, pos, out, "%s(%s)", fn, a->txt);
  }
  char text[128];
  snprintf(text, sizeof text, "%s(%.17g)", fn, a->v);
  *out = (lth_psc){0.0, NULL, NULL, 0.0, 0, 0};
  return fold_text(x, pos, text, &out->v);
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
    lth_psc zero = {0.0, NULL, NULL, 0.0, 0, 0};
    if (cmp < 0) {
      *tm = a->t[i++];
      st = sc_copy(x, pos, &a->t[i - 1].c, &tm->c);
    } else {
      const lth_pterm *bt = &b->t[j++];
      tm->var = bt->var;
      tm->order = bt->order;
      st = lth_psc_binop(x, pos, op, cmp == 0 ? &a->t[i++].c : &zero, &bt->c, &tm->c);
    }
    if (st == LTH_OK && !lth_psc_is(&tm->c, 0.0)) {
      out->n++;
    } else {
      lth_psc_free(&tm->c);
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
    } else {
      lth_psc_free(&tm->c);
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
  return lth_pcur_error(x->c, pos, LTH_EPARSE,
                        "the equation is not linear in the unknowns: '*' multiplies %s by %s",
                        lth_plin_name(x, a, n1, sizeof n1), lth_plin_name(x, b, n2, sizeof n2));
}

lth_status lth_psc_compile(lth_pcur *c, size_t pos, const lth_psc *s, lth_expr **e) {
  char num[40];
  const char *text = operand(s, num);
  *e = NULL;
  if (s->txt) {
    if (*c->ndep >= LTH_P_MAX_DEP) {
      return lth_pcur_error(c, pos, LTH_EPARSE,
                            "more than %d time-dependent matrix entries in one file",
                            LTH_P_MAX_DEP);
    }
    ++*c->ndep;
  }
  lth_status st = lth_expr_parse(text, strlen(text), NULL, NULL, e, c->err);
  return st == LTH_OK ? st : lth_pcur_locate(c, pos, st == LTH_ENOMEM ? st : LTH_EPARSE);
}
