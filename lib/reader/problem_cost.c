/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: the cost of an LQR design on the plant (docs/equations.md
 * section 12, include/lth/plqr.h), in the equation form:
 *
 *   cost integral y1^2 + 0.01*u1^2 + q(t)*(y2 - r(t))^2   # L(t, w)
 *   cost final 10*y1^2                                     # phi(w(t1))
 *
 * J = phi + int_{t0}^{t1} L dt exactly as written (no hidden 1/2); several
 * statements of a kind add up.  Each is a quadratic polynomial in the
 * outputs, the unknowns (as named in `variables`, with the velocities x'
 * where x'' appears) and the inputs, with coefficients that are constants
 * or functions of t (t, params, named functions), computed by the reader's
 * scalar algebra (lth_psc, problem_val.c), never as text.
 *
 * The grammar is the expression grammar (lib/jet/expr_grammar.h) run with
 * values of this file: polynomials of degree <= 2 in the variables, whose
 * products are expanded exactly.  Refused, at the operator or the name: a
 * product of degree above 2, a variable in a function's argument, in a
 * divisor or in an exponent, a power other than 0, 1, 2 of a value with
 * variables, a derivative of an input or output, an input in the final cost,
 * samples(...).  A named function's call is read by the reader's own grammar
 * (lth_plit_named), so it is the value the equations see.
 *
 * Once the model exists (lth_pp_cost_finish, problem_cost_w.c) each variable gets its place
 * in w = (z, u, y): the unknown at canonical position k is w_k (an index-1
 * unknown is eliminated from z: refused, an output can weigh it; a
 * derivative x' is refused unless it is the velocity unknown x'' brings),
 * input j is w_{s+j}, output j is w_{s+nu+j}.  The polynomial
 * c0 + sum_a l_a w_a + sum_{a<=b} q_ab w_a w_b is then
 * L = w'W w + 2 w'l + c with W_aa = q_aa, W_ab = W_ba = q_ab/2 (a != b),
 * l = l_a/2, c = c0; the final cost's coefficients are evaluated at t1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names_hash.h"
#include "jet/expr_grammar.h"
#include "problem_cost.h"
#include "problem_impl.h"

#define SHOW(n) ((int)((n) > 40 ? 40 : (n)))

/* The parser of one cost statement. */
typedef struct cparse {
  lth_pp *P;
  lth_pvctx x;
  lth_gparser g;
  int final;
} cparse;

static void poly_free(cpoly *p) {
  if (p) {
    free(p->t);
    p->t = NULL;
    p->n = 0;
  }
}

static void poly_dispose(cpoly *p) {
  poly_free(p);
  free(p);
}

void lth_pp_cost_free(lth_pp *P) {
  struct lth_pcost *C = P->cost;
  if (!C) {
    return;
  }
  poly_free(&C->sum[0]);
  poly_free(&C->sum[1]);
  free(C->use);
  free(C);
  P->cost = NULL;
}

const char *lth_pp_cost_key_name(lth_pp *P, long long key, char *buf, size_t size) {
  int var = key_var(key), o = key_order(key);
  const char *s = var >= LTH_P_INPUT_VAR   ? lth_pp_io_input_name(P, var - LTH_P_INPUT_VAR)
                  : var >= COST_OUTPUT_VAR ? lth_pp_io_output_name(P, var - COST_OUTPUT_VAR)
                                           : lth_pp_eqn_name(P, var);
  snprintf(buf, size, "%.60s%.*s", s, o > 20 ? 20 : o, "''''''''''''''''''''");
  return buf;
}

static int degree(const cpoly *p) {
  int d = 0;
  for (int k = 0; k < p->n; k++) {
    d = p->t[k].b == NO_KEY ? (d > 1 ? d : 1) : 2;
  }
  return d;
}

static lth_status nomem(cparse *q, size_t pos) { return lth_pval_nomem(&q->x, pos); }

/* A new polynomial (in the grammar's slot as a pointer). */
static cpoly *poly_new(cparse *q, size_t pos, int nterms, lth_status *st) {
  cpoly *p = calloc(1, sizeof *p);
  if (p && nterms > 0 && !(p->t = malloc((size_t)nterms * sizeof *p->t))) {
    free(p);
    p = NULL;
  }
  if (p) {
    p->c0 = LTH_PSC_CONST(0.0);
    *st = lth_pval_charge(&q->x, pos, (double)nterms + 1.0);
  } else {
    *st = nomem(q, pos);
  }
  if (*st != LTH_OK) {
    poly_dispose(p);
    p = NULL;
  }
  return p;
}

static int term_cmp(const void *u, const void *v) {
  const cterm *a = u, *b = v;
  if (a->a != b->a) {
    return a->a < b->a ? -1 : 1;
  }
  return a->b < b->b ? -1 : a->b > b->b ? 1 : 0;
}

/* Sort, add up duplicates, drop exact zeros. */
static lth_status normalise(cparse *q, size_t pos, cpoly *p) {
  if (p->n > 1) { /* (t may be NULL when empty) */
    qsort(p->t, (size_t)p->n, sizeof *p->t, term_cmp);
  }
  int n = 0;
  lth_status st = LTH_OK;
  for (int k = 0; k < p->n && st == LTH_OK; k++) {
    if (n > 0 && term_cmp(&p->t[n - 1], &p->t[k]) == 0) {
      lth_psc sum;
      st = lth_psc_binop(&q->x, pos, '+', &p->t[n - 1].c, &p->t[k].c, &sum);
      p->t[n - 1].c = sum;
    } else {
      p->t[n++] = p->t[k];
    }
  }
  int m = 0;
  for (int k = 0; k < n; k++) {
    if (!lth_psc_is(&p->t[k].c, 0.0)) {
      p->t[m++] = p->t[k];
    }
  }
  p->n = m;
  return st;
}

/* ------------------------------------------------------------------------ */
/* The algebra                                                              */

static cpoly *get(const lth_gval *v) { return (cpoly *)v->ptr; }

/* Store p (or NULL on failure) in the slot. */
static lth_status put(lth_gval *slot, cpoly *p, lth_status st) {
  if (st != LTH_OK) {
    poly_dispose(p);
    p = NULL;
  }
  slot->ptr = p;
  return st;
}

static lth_status v_number(lth_gparser *g, size_t pos, double v, lth_gval *out) {
  lth_status st;
  cpoly *p = poly_new(g->ctx, pos, 0, &st);
  if (p) {
    p->c0 = LTH_PSC_CONST(v);
  }
  return put(out, p, st);
}

static lth_status v_t(lth_gparser *g, size_t pos, lth_gval *out) {
  cparse *q = g->ctx;
  lth_status st;
  cpoly *p = poly_new(q, pos, 0, &st);
  if (p && (p->c0.node = lth_ebuild_t(q->P->c.eb, 0)) < 0) {
    st = nomem(q, pos);
  }
  return put(out, p, st);
}

/* p = a op s (s_left: s op a) for op * or /, s a scalar: in place. */
static lth_status scale(cparse *q, size_t pos, int op, cpoly *a, const lth_psc *s, int s_left) {
  lth_psc r;
  lth_status st = s_left ? lth_psc_binop(&q->x, pos, op, s, &a->c0, &r)
                         : lth_psc_binop(&q->x, pos, op, &a->c0, s, &r);
  a->c0 = r;
  for (int k = 0; k < a->n && st == LTH_OK; k++) {
    st = s_left ? lth_psc_binop(&q->x, pos, op, s, &a->t[k].c, &r)
                : lth_psc_binop(&q->x, pos, op, &a->t[k].c, s, &r);
    a->t[k].c = r;
  }
  return st == LTH_OK ? normalise(q, pos, a) : st;
}

static lth_status v_neg(lth_gparser *g, size_t pos, lth_gval *a) {
  lth_psc m1 = LTH_PSC_CONST(-1.0);
  cpoly *p = get(a);
  return put(a, p, scale(g->ctx, pos, '*', p, &m1, 1));
}

/* a op b for op + or - into a new polynomial. */
static cpoly *add(cparse *q, size_t pos, int op, const cpoly *a, const cpoly *b, lth_status *st) {
  cpoly *r = poly_new(q, pos, a->n + b->n, st);
  if (!r) {
    return NULL;
  }
  *st = lth_psc_binop(&q->x, pos, op, &a->c0, &b->c0, &r->c0);
  if (a->n > 0) { /* (a NULL t when empty: memcpy's pointers must be valid) */
    memcpy(r->t, a->t, (size_t)a->n * sizeof *a->t);
  }
  r->n = a->n;
  lth_psc zero = LTH_PSC_CONST(0.0);
  for (int k = 0; k < b->n && *st == LTH_OK; k++) {
    cterm tm = b->t[k];
    if (op == '-') {
      *st = lth_psc_binop(&q->x, pos, '-', &zero, &b->t[k].c, &tm.c);
    }
    r->t[r->n++] = tm;
  }
  if (*st == LTH_OK) {
    *st = normalise(q, pos, r);
  }
  return r;
}

/* The first variable of p, for messages. */
static const char *first_name(cparse *q, const cpoly *p, char *buf, size_t size) {
  const cterm *best = NULL;
  for (int k = 0; k < p->n; k++) {
    if (!best || (p->t[k].b != NO_KEY && best->b == NO_KEY)) {
      best = &p->t[k];
    }
  }
  return best ? lth_pp_cost_key_name(q->P, best->a, buf, size) : "a constant";
}

/* a * b, their degrees adding up to at most 2. */
static cpoly *mul(cparse *q, size_t pos, const cpoly *a, const cpoly *b, lth_status *st) {
  int da = degree(a), db = degree(b);
  if (da + db > 2) {
    char n1[80], n2[80];
    *st = LTH_PERR(q->P, pos, LTH_EPARSE,
                   "the cost is not quadratic: '*' multiplies a term of degree %d in %s by one of "
                   "degree %d in %s; a cost is a quadratic form in the outputs, unknowns and "
                   "inputs",
                   da, first_name(q, a, n1, sizeof n1), db, first_name(q, b, n2, sizeof n2));
    return NULL;
  }
  if (da == 0 || db == 0) {
    const cpoly *s = da == 0 ? a : b, *v = da == 0 ? b : a;
    cpoly *r = poly_new(q, pos, v->n, st);
    if (r) {
      r->c0 = v->c0;
      if (v->n > 0) {
        memcpy(r->t, v->t, (size_t)v->n * sizeof *v->t);
      }
      r->n = v->n;
      *st = scale(q, pos, '*', r, &s->c0, da == 0);
    }
    return r;
  }
  /* (a0 + sum a_i w_i)(b0 + sum b_j w_j), both of degree 1 */
  if ((double)a->n * (double)b->n > 1e8) {
    *st = lth_pval_charge(&q->x, pos, 2.0 * LTH_P_MAX_OPS); /* the budget's message */
    return NULL;
  }
  cpoly *r = poly_new(q, pos, a->n + b->n + a->n * b->n, st);
  if (!r) {
    return NULL;
  }
  *st = lth_psc_binop(&q->x, pos, '*', &a->c0, &b->c0, &r->c0);
  for (int i = 0; i < a->n && *st == LTH_OK; i++) {
    cterm *tm = &r->t[r->n++];
    *tm = (cterm){a->t[i].a, NO_KEY, LTH_PSC_CONST(0.0)};
    *st = lth_psc_binop(&q->x, pos, '*', &a->t[i].c, &b->c0, &tm->c);
  }
  for (int j = 0; j < b->n && *st == LTH_OK; j++) {
    cterm *tm = &r->t[r->n++];
    *tm = (cterm){b->t[j].a, NO_KEY, LTH_PSC_CONST(0.0)};
    *st = lth_psc_binop(&q->x, pos, '*', &a->c0, &b->t[j].c, &tm->c);
  }
  for (int i = 0; i < a->n && *st == LTH_OK; i++) {
    for (int j = 0; j < b->n && *st == LTH_OK; j++) {
      long long ka = a->t[i].a, kb = b->t[j].a;
      cterm *tm = &r->t[r->n++];
      *tm = (cterm){ka < kb ? ka : kb, ka < kb ? kb : ka, LTH_PSC_CONST(0.0)};
      *st = lth_psc_binop(&q->x, pos, '*', &a->t[i].c, &b->t[j].c, &tm->c);
    }
  }
  if (*st == LTH_OK) {
    *st = normalise(q, pos, r);
  }
  return r;
}

/* a ^ e: e free of variables; with variables in a, e a constant 0, 1 or 2. */
static cpoly *power(cparse *q, size_t pos, const cpoly *a, const cpoly *e, lth_status *st) {
  char n1[80];
  if (degree(e) > 0) {
    *st = LTH_PERR(q->P, pos, LTH_EPARSE,
                   "the exponent holds %s: in a cost an exponent is a constant (the cost is a "
                   "quadratic form in the outputs, unknowns and inputs)",
                   first_name(q, e, n1, sizeof n1));
    return NULL;
  }
  if (degree(a) == 0) {
    cpoly *r = poly_new(q, pos, 0, st);
    if (r) {
      *st = lth_psc_binop(&q->x, pos, '^', &a->c0, &e->c0, &r->c0);
    }
    return r;
  }
  double v = e->c0.v;
  int whole = e->c0.node < 0 && !e->c0.src && (v == 0.0 || v == 1.0 || v == 2.0);
  if (!whole || (v == 2.0 && degree(a) > 1)) {
    char ex[32];
    snprintf(ex, sizeof ex, "%.6g", v);
    *st =
        LTH_PERR(q->P, pos, LTH_EPARSE,
                 "the cost is not quadratic: a power %s of a value with %s%s; a cost is a "
                 "quadratic form in the outputs, unknowns and inputs (squares are written "
                 "(...)^2)",
                 whole                          ? ex
                 : e->c0.node >= 0 || e->c0.src ? "that depends on t"
                                                : ex,
                 first_name(q, a, n1, sizeof n1), whole ? " of degree 2 (a term of degree 4)" : "");
    return NULL;
  }
  if (v == 2.0) {
    return mul(q, pos, a, a, st);
  }
  cpoly *r = poly_new(q, pos, v == 1.0 ? a->n : 0, st);
  if (r && v == 1.0) {
    r->c0 = a->c0;
    if (a->n > 0) { /* (a NULL t when empty: memcpy's pointers must be valid) */
      memcpy(r->t, a->t, (size_t)a->n * sizeof *a->t);
    }
    r->n = a->n;
  } else if (r) {
    r->c0 = LTH_PSC_CONST(1.0);
  }
  return r;
}

static lth_status v_binary(lth_gparser *g, size_t pos, int op, lth_gval *ga, lth_gval *gb,
                           lth_gval *out) {
  cparse *q = g->ctx;
  cpoly *a = get(ga), *b = get(gb), *r = NULL;
  lth_status st = LTH_OK;
  char n1[80];
  if (op == '+' || op == '-') {
    r = add(q, pos, op, a, b, &st);
  } else if (op == '*') {
    r = mul(q, pos, a, b, &st);
  } else if (op == '/' && degree(b) > 0) {
    st = LTH_PERR(q->P, pos, LTH_EPARSE,
                  "the cost divides by a value with %s: a cost is a quadratic form in the "
                  "outputs, unknowns and inputs (divide coefficients only)",
                  first_name(q, b, n1, sizeof n1));
  } else if (op == '/') {
    r = poly_new(q, pos, a->n, &st);
    if (r) {
      r->c0 = a->c0;
      if (a->n > 0) { /* (a NULL t when empty: memcpy's pointers must be valid) */
        memcpy(r->t, a->t, (size_t)a->n * sizeof *a->t);
      }
      r->n = a->n;
      st = scale(q, pos, '/', r, &b->c0, 0);
    }
  } else {
    r = power(q, pos, a, b, &st);
  }
  poly_dispose(a);
  poly_dispose(b);
  ga->ptr = gb->ptr = NULL;
  return put(out, r, st);
}

static lth_status v_func(lth_gparser *g, size_t pos, int fn, lth_gval *ga) {
  cparse *q = g->ctx;
  cpoly *a = get(ga);
  char n1[80];
  if (degree(a) > 0) {
    return put(ga, a,
               LTH_PERR(q->P, pos, LTH_EPARSE,
                        "%s(...) of a value with %s: a cost is a quadratic form in the outputs, "
                        "unknowns and inputs, and functions apply to its coefficients only",
                        lth_expr_func_name(fn), first_name(q, a, n1, sizeof n1)));
  }
  lth_psc r;
  lth_status st = lth_psc_func(&q->x, pos, fn, &a->c0, &r);
  a->c0 = r;
  return put(ga, a, st);
}

static void v_drop(lth_gparser *g, lth_gval *v) {
  (void)g;
  poly_dispose(get(v));
  v->ptr = NULL;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */

/* Remember where a variable is first used (checked once the model exists). */
static lth_status note_use(cparse *q, size_t pos, long long key) {
  struct lth_pcost *C = q->P->cost;
  for (int k = 0; k < C->nuse; k++) {
    if (C->use[k].key == key && C->use[k].final == q->final) {
      return LTH_OK;
    }
  }
  if (!lth_grow((void **)&C->use, &C->capuse, C->nuse + 1, sizeof *C->use)) {
    return nomem(q, pos);
  }
  C->use[C->nuse++] = (cuse){key, lth_pp_here(q->P, pos), q->final};
  return LTH_OK;
}

/* The variable var at the current name, with its quotes (x', x''). */
static lth_status variable(cparse *q, int var, int call, lth_gval *out) {
  lth_gparser *g = &q->g;
  const char *s = q->P->c.tx->buf + g->tok.start;
  size_t b = g->tok.start, n = g->tok.end - b;
  const char *kind = var >= LTH_P_INPUT_VAR   ? "an input"
                     : var >= COST_OUTPUT_VAR ? "an output"
                                              : "an unknown";
  if (call) {
    return LTH_PERR(q->P, b, LTH_EPARSE,
                    "'%.*s' is %s, not a function: write %.*s, not %.*s(t), in a cost", SHOW(n), s,
                    kind, SHOW(n), s, SHOW(n), s);
  }
  if (q->final && var >= LTH_P_INPUT_VAR) {
    return LTH_PERR(q->P, b, LTH_EPARSE,
                    "the final cost weighs the input %.*s: it is a function of the state at t1 "
                    "(outputs and unknowns); weigh the input in `cost integral`",
                    SHOW(n), s);
  }
  int order = 0;
  lth_status st = lth_gparser_next(g);
  while (st == LTH_OK && lth_gparser_at(g, '\'') && !g->tok.sp_before) {
    if (var >= COST_OUTPUT_VAR) {
      return LTH_PERR(q->P, g->tok.start, LTH_EPARSE,
                      "a derivative of %s %.*s in a cost: a cost weighs the outputs, unknowns "
                      "and inputs themselves",
                      kind, SHOW(n), s);
    }
    if (++order > 20) {
      return LTH_PERR(q->P, g->tok.start, LTH_EPARSE, "derivatives above order 20");
    }
    st = lth_gparser_next(g);
  }
  long long key = key_of(var, order);
  if (st == LTH_OK) {
    st = note_use(q, b, key);
  }
  cpoly *p = st == LTH_OK ? poly_new(q, b, 1, &st) : NULL;
  if (p) {
    p->t[0] = (cterm){key, NO_KEY, LTH_PSC_CONST(1.0)};
    p->n = 1;
  }
  return put(out, p, st);
}

/* A named function's call (the reader's own grammar reads it). */
static lth_status named(cparse *q, int call, lth_gval *out, int *is) {
  lth_plit_opts o = {.label = "a cost"};
  lth_pp_eqn_lit_opts(q->P, &o);
  lth_pval v;
  size_t end = 0, b = q->g.tok.start;
  lth_status st = LTH_OK;
  memset(&v, 0, sizeof v);
  *is = lth_plit_named(&q->P->c, &o, b, call, &v, &end, &st);
  if (!*is || st != LTH_OK) {
    return st;
  }
  const lth_plin *l = v.ext ? v.ext[0] : NULL;
  cpoly *p = NULL;
  if (v.rows != 1 || v.cols != 1) {
    st = LTH_PERR(q->P, b, LTH_EDIM, "a named function in a cost is a scalar, found %d x %d",
                  v.rows, v.cols);
  } else if (l && l->c0.src) {
    st = LTH_PERR(q->P, b, LTH_EPARSE,
                  "the named function holds samples(...): sampled data are not supported in a "
                  "cost (write the function of t as a formula)");
  } else if ((p = poly_new(q, b, 0, &st)) != NULL) {
    p->c0 = l ? l->c0 : LTH_PSC_CONST(v.val[0]);
    st = lth_gparser_seek(&q->g, end);
  }
  lth_pval_free(&v);
  return put(out, p, st);
}

static int r_name(lth_gparser *g, int call, lth_gval *out, lth_status *st) {
  cparse *q = g->ctx;
  lth_pp *P = q->P;
  const char *s = P->c.tx->buf + g->tok.start;
  size_t n = g->tok.end - g->tok.start;
  int var = lth_pp_eqn_find(P, s, n), is = 0;
  if (var < 0 && (var = lth_pp_io_find_input(P, s, n)) >= 0) {
    var += LTH_P_INPUT_VAR;
  }
  if (var < 0 && (var = lth_pp_io_find_output(P, s, n)) >= 0) {
    var += COST_OUTPUT_VAR;
  }
  if (var >= 0) {
    *st = variable(q, var, call, out);
    return 1;
  }
  if (n == 7 && memcmp(s, "samples", 7) == 0) {
    *st = LTH_PERR(P, g->tok.start, LTH_EPARSE,
                   "samples(...) in a cost: sampled data are not supported in a cost (write the "
                   "function of t as a formula)");
    return 1;
  }
  *st = named(q, call, out, &is);
  return is;
}

/* A quote after a parenthesis or a function: not a derivative in a cost. */
static lth_status r_postfix(lth_gparser *g, lth_gval *v) {
  cparse *q = g->ctx;
  if (lth_gparser_at(g, '\'') || (lth_gparser_at(g, '.') && g->tok.start + 1 < q->P->c.st.e &&
                                  q->P->c.tx->buf[g->tok.start + 1] == '\'')) {
    v_drop(g, v);
    return LTH_PERR(q->P, g->tok.start, LTH_EPARSE,
                    "a quote in a cost: a cost weighs the outputs, unknowns and inputs (and the "
                    "velocity x' where x'' appears), not derivatives of expressions");
  }
  return LTH_OK;
}

static void r_show(const lth_gparser *g, char *buf, size_t size) {
  const cparse *q = g->ctx;
  if (g->tok.kind == LTH_GTK_END) {
    snprintf(buf, size, "the end of the line");
  } else {
    lth_pcur_show(&q->P->c, g->tok.start, buf, size);
  }
}

static void r_where(const lth_gparser *g, size_t pos, char *buf, size_t size) {
  const cparse *q = g->ctx;
  int line, col;
  lth_ptext_where(q->P->c.tx, &q->P->c.st, pos, &line, &col);
  snprintf(buf, size, "%d:%d", line, col);
}

static lth_status r_error(lth_gparser *g, size_t pos, lth_status st, const char *msg) {
  cparse *q = g->ctx;
  return lth_pcur_error(&q->P->c, pos, st, "%s", msg);
}

static const char *r_unknown_note(const lth_gparser *g) {
  (void)g;
  return ": neither an unknown, an input, an output, a param nor a named function";
}

static const lth_grammar COST_GRAMMAR = {.number = v_number,
                                         .t = v_t,
                                         .neg = v_neg,
                                         .binary = v_binary,
                                         .func = v_func,
                                         .drop = v_drop,
                                         .name = r_name,
                                         .postfix = r_postfix,
                                         .show = r_show,
                                         .where = r_where,
                                         .error = r_error,
                                         .unknown_note = r_unknown_note};

/* ------------------------------------------------------------------------ */
/* The statement                                                            */

int lth_pp_cost_is_statement(lth_pp *P, size_t b, size_t n) {
  if (!lth_pcur_name_is(&P->c, b, n, "cost")) {
    return 0;
  }
  lth_pcur c = P->c;
  c.pos = b + n;
  size_t wb, wn = lth_pcur_name(&c, &wb);
  int known = lth_pcur_name_is(&c, wb, wn, "integral") || lth_pcur_name_is(&c, wb, wn, "final");
  /* an unknown or a param called cost starts an equation unless `integral`
   * or `final` follows */
  double v;
  return known || (!lth_pp_eqn_has_variable(P, P->c.tx->buf + b, n) &&
                   !lth_pp_param_value(P, P->c.tx->buf + b, n, &v));
}

/* cost integral EXPR | cost final EXPR */
lth_status lth_pp_st_cost(lth_pp *P, size_t kw) {
  lth_pcur *c = &P->c;
  if (!P->eqn) {
    return LTH_PERR(P, kw, LTH_EPARSE,
                    "cost statements belong to `problem equations` files: the cost weighs the "
                    "outputs, unknowns and inputs by name (docs/equations.md section 12)");
  }
  c->pos = kw + 4;
  size_t wb, wn = lth_pcur_name(c, &wb);
  int final = lth_pcur_name_is(c, wb, wn, "final");
  if (!final && !lth_pcur_name_is(c, wb, wn, "integral")) {
    char shown[64];
    lth_pcur_show(c, wb, shown, sizeof shown);
    return LTH_PERR(P, wb, LTH_EPARSE,
                    "expected `integral` or `final` after `cost` (cost integral y1^2 + "
                    "0.01*u1^2, cost final 10*y1^2), found %s",
                    shown);
  }
  if (!P->cost && !(P->cost = calloc(1, sizeof *P->cost))) {
    return LTH_PERR(P, kw, LTH_ENOMEM, "out of memory");
  }
  struct lth_pcost *C = P->cost;
  if (!C->at[final].line) {
    C->at[final] = lth_pp_here(P, kw);
    C->sum[final].c0 = LTH_PSC_CONST(0.0);
  }
  cparse q = {.P = P, .final = final};
  q.x = (lth_pvctx){.c = c, .what = "a cost"};
  lth_gval v = {.ptr = NULL};
  lth_status st = lth_gparser_init(&q.g, &COST_GRAMMAR, &q, c->tx->buf, c->st.e, c->pos, c->err);
  q.g.lookup = c->lookup;
  q.g.lookup_ctx = c->ctx;
  if (st == LTH_OK) {
    st = lth_gparser_expr(&q.g, final ? "`cost final`" : "`cost integral`", &v);
  }
  if (st == LTH_OK && q.g.tok.kind != LTH_GTK_END) {
    v_drop(&q.g, &v);
    st = lth_gparser_at(&q.g, ')')
             ? LTH_PERR(P, q.g.tok.start, LTH_EPARSE, "unexpected ')' without a matching '('")
             : lth_gparser_unexpected(&q.g, "unexpected token after the cost: expected the end "
                                            "of the statement");
  }
  if (st != LTH_OK) {
    return st;
  }
  cpoly *sum = add(&q, kw, '+', &C->sum[final], get(&v), &st);
  poly_dispose(get(&v));
  if (sum) {
    poly_free(&C->sum[final]);
    C->sum[final] = *sum;
    free(sum);
  }
  return st;
}
