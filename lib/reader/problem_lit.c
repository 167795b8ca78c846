/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file literals and expressions (lib/reader/problem_impl.h; docs/equations.md).
 * The grammar is the jet layer's (lib/jet/expr_grammar.h: one parser for
 * every scalar expression, with its precedence, functions and messages), run
 * with the reader's values (lth_pval, problem_val.c) and what MATLAB users
 * write on top: matrix literals with blank- or comma-separated entries (and
 * matrices as entries, i.e. concatenation; problem_mat.c), eye / eye(n) /
 * zeros / ones / diag, matrix sums and products, transposes ' and .', and,
 * in the equation form, unknowns with derivative quotes (x', x'') and
 * samples("file.csv").
 *
 * Blanks inside [ ] (outside parentheses) separate entries as in MATLAB (the
 * grammar's blank rule): a '+' or '-' with a blank before it and none after
 * it starts a new entry (`[1 -2]` is two entries), otherwise it is binary
 * (`[1 - 2]`, `[1-2]`, `[1 -  2]`... the last is binary too: blanks on both
 * sides); a number, name, '(' or '[' after a blank starts a new entry; a
 * quote after a blank is an error.  A newline ends a row unless the row ends
 * in ','.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_lit.h"
#include "source/csc.h"

#define ERR LTH_PLIT_ERR

_Static_assert(sizeof(lth_pval) <= sizeof(lth_gval), "an lth_pval fits a grammar value");

void lth_plit_put(lth_gval *slot, const lth_pval *v) { memcpy(slot->bytes, v, sizeof *v); }

lth_pval lth_plit_get(const lth_gval *slot) {
  lth_pval v;
  memcpy(&v, slot->bytes, sizeof v);
  return v;
}

static int at(const lth_plp *p, size_t i) {
  return i < p->c->st.e ? (unsigned char)p->c->tx->buf[i] : -1;
}

/* ------------------------------------------------------------------------ */
/* The algebra: lth_pval operations (problem_val.c, problem_valmat.c)       */

/* Store the result of an operation that made *v (freed on failure). */
static lth_status put(lth_gval *slot, lth_pval *v, lth_status st) {
  if (st != LTH_OK) {
    lth_pval_free(v);
  }
  lth_plit_put(slot, v);
  return st;
}

static lth_status v_number(lth_gparser *g, size_t pos, double v, lth_gval *out) {
  lth_pval r;
  return put(out, &r, lth_pval_const(&lth_plit_of(g)->x, pos, v, &r));
}

static lth_status v_t(lth_gparser *g, size_t pos, lth_gval *out) {
  lth_pval r;
  return put(out, &r, lth_pval_t(&lth_plit_of(g)->x, pos, &r));
}

static lth_status v_neg(lth_gparser *g, size_t pos, lth_gval *a) {
  lth_pval v = lth_plit_get(a);
  return put(a, &v, lth_pval_neg(&lth_plit_of(g)->x, pos, &v));
}

static lth_status v_binary(lth_gparser *g, size_t pos, int op, lth_gval *a, lth_gval *b,
                           lth_gval *out) {
  lth_pval va = lth_plit_get(a), vb = lth_plit_get(b), r;
  return put(out, &r, lth_pval_binop(&lth_plit_of(g)->x, pos, op, &va, &vb, &r));
}

static lth_status v_func(lth_gparser *g, size_t pos, int fn, lth_gval *a) {
  lth_pval v = lth_plit_get(a);
  return put(a, &v, lth_pval_func(&lth_plit_of(g)->x, pos, fn, &v));
}

static void v_drop(lth_gparser *g, lth_gval *slot) {
  (void)g;
  lth_pval v = lth_plit_get(slot);
  lth_pval_free(&v);
  lth_plit_put(slot, &v);
}

/* ------------------------------------------------------------------------ */
/* Extensions: names, '[', transposes                                       */

/* samples("file.csv") at the current name (the equation form). */
static lth_status samples_term(lth_plp *p, lth_pval *out) {
  size_t b = p->g.tok.start;
  const lth_source *src = NULL;
  if (!p->o->samples) {
    return ERR(p, b, "samples(\"...\") must be the whole right-hand side of a block");
  }
  p->c->pos = p->g.tok.end;
  lth_status st = p->o->samples(p->o->samples_ctx, b, &src);
  if (st == LTH_OK) {
    st = lth_gparser_seek(&p->g, p->c->pos);
  }
  return st == LTH_OK ? lth_pval_samples(&p->x, b, src, out) : st;
}

/* mm("file.mtx") at the current name (a '(' follows): the matrix of a
 * Matrix Market file, where the statement allows one. */
static lth_status mm_term(lth_plp *p, lth_pval *out) {
  size_t b = p->g.tok.start;
  lth_csc *m = NULL;
  if (!p->o->mm) {
    return ERR(p, b,
               "mm(\"file.mtx\") gives the matrix of a block: it may appear only on the "
               "right-hand side of a block of a `problem dae` file (A(i,j), f(i), M(i), B(i), C, "
               "D, bc B0, bc B1, bc beta) or of an LQR matrix");
  }
  p->c->pos = p->g.tok.end;
  lth_status st = p->o->mm(p->o->mm_ctx, b, &m);
  if (st == LTH_OK) {
    st = lth_gparser_seek(&p->g, p->c->pos);
  }
  if (st != LTH_OK) {
    lth_csc_free(m);
    return st;
  }
  return lth_pval_mm(&p->x, b, m, out);
}

/* 1 if the name at the current token is `mm` called with a string: mm("...
 * (a string is no expression, so this reads no file written before mm(...)
 * existed differently; a param, unknown or named function called mm keeps
 * its meaning). */
static int at_mm_call(const lth_plp *p, int call) {
  const char *s = p->c->tx->buf;
  size_t b = p->g.tok.start, i = p->g.tok.end;
  if (!call || i - b != 2 || memcmp(s + b, "mm", 2) != 0) {
    return 0;
  }
  while (i < p->c->st.e && (s[i] == ' ' || s[i] == '\t')) {
    i++;
  }
  i += i < p->c->st.e && s[i] == '(';
  while (i < p->c->st.e && (s[i] == ' ' || s[i] == '\t')) {
    i++;
  }
  return i < p->c->st.e && s[i] == '"';
}

/* An unknown of the equation form at the current name, with its quotes. */
static lth_status unknown(lth_plp *p, int var, int call, lth_pval *out) {
  const char *s = p->c->tx->buf + p->g.tok.start;
  size_t b = p->g.tok.start, n = p->g.tok.end - b;
  int len = (int)(n > 40 ? 40 : n), order = 0;
  if (p->o->function) {
    return ERR(p, b,
               "the named function %s uses the unknown %.*s: a named function depends on t "
               "only (write the term in the equations)",
               p->o->function, len, s);
  }
  if (call && !p->o->unknown_at) {
    return ERR(p, b, "'%.*s' is an unknown, not a function: write %.*s, not %.*s(t)", len, s, len,
               s, len, s);
  }
  lth_status st = lth_gparser_next(&p->g);
  while (st == LTH_OK && lth_gparser_at(&p->g, '\'') && !p->g.tok.sp_before) {
    order++;
    st = lth_gparser_next(&p->g);
  }
  if (st == LTH_OK && p->o->unknown_at) { /* x(T): a boundary condition */
    st = p->o->unknown_at(p, var, order, b, &var);
  }
  return st == LTH_OK ? lth_pval_unknown(&p->x, b, var, order, out) : st;
}

static int r_name(lth_gparser *g, int call, lth_gval *out, lth_status *st) {
  lth_plp *p = lth_plit_of(g);
  const char *s = p->c->tx->buf + g->tok.start;
  size_t n = g->tok.end - g->tok.start;
  static const char *const builders[] = {"eye", "zeros", "ones", "diag"};
  lth_pval v;
  memset(&v, 0, sizeof v);
  *st = LTH_OK;
  int var = -1, known = 0;
  for (size_t k = 0; k < sizeof builders / sizeof builders[0] && !known; k++) {
    if (strlen(builders[k]) == n && memcmp(s, builders[k], n) == 0) {
      *st = lth_plit_builder(p, builders[k], call, &v);
      known = 1;
    }
  }
  if (!known && n == 7 && memcmp(s, "samples", 7) == 0) {
    *st = samples_term(p, &v);
    known = 1;
  }
  if (!known && p->o->lookup_var && (var = p->o->lookup_var(p->o->var_ctx, s, n)) >= 0) {
    *st = unknown(p, var, call, &v);
    known = 1;
  }
  if (!known && lth_pfunc_name(p, call, &v, st)) {
    known = 1;
  }
  if (!known && at_mm_call(p, call)) {
    *st = mm_term(p, &v);
    known = 1;
  }
  if (known) {
    put(out, &v, *st);
  }
  return known;
}

static int r_primary(lth_gparser *g, lth_gval *out, lth_status *st) {
  if (!lth_gparser_at(g, '[')) {
    return 0;
  }
  lth_plp *p = lth_plit_of(g);
  lth_pval v;
  memset(&v, 0, sizeof v);
  int saved = g->blanks;
  g->blanks = 1;
  *st = lth_plit_matrix(p, &v);
  g->blanks = saved;
  put(out, &v, *st);
  return 1;
}

static int at_transpose(const lth_plp *p) {
  return lth_gparser_at(&p->g, '\'') ||
         (lth_gparser_at(&p->g, '.') && at(p, p->g.tok.start + 1) == '\'');
}

/* Transposes ' and .' after a primary. */
static lth_status r_postfix(lth_gparser *g, lth_gval *slot) {
  lth_plp *p = lth_plit_of(g);
  lth_pval v = lth_plit_get(slot);
  lth_status st = LTH_OK;
  while (st == LTH_OK && at_transpose(p)) {
    size_t b = g->tok.start, e = b + (at(p, b) == '.' ? 2 : 1);
    if (g->blanks && g->tok.sp_before) {
      st = ERR(p, b,
               "a quote after a blank: write a transpose right after its operand "
               "(A', not A ')");
    } else if (lth_pval_has_unknowns(&v) && at(p, b) == '.') {
      st = ERR(p, b,
               "\".'\" transposes coefficients, not a value that holds unknowns (its "
               "derivative is written with ': (m*v)' = m*v' + (dm/dt)*v)");
    } else if (lth_pval_has_unknowns(&v)) {
      /* the product rule: (c x)' = c' x + c x', entrywise */
      if ((st = lth_pval_deriv(&p->x, b, &v)) == LTH_OK) {
        st = lth_gparser_seek(g, e);
      }
    } else if (b == p->named_end && v.rows == 1 && v.cols == 1) {
      st = ERR(p, b,
               "a quote after a named function: the transpose of a scalar changes nothing; "
               "lth differentiates a coefficient inside a product, (k(t)*x)' = k(t)*x' + "
               "(dk/dt)*x, or define dk/dt as a named function of its own");
    } else if (p->o->lookup_var && v.rows == 1 && v.cols == 1 && v.ext && v.ext[0] &&
               at(p, b) == '\'') {
      /* in an equation (sin(t))' would be a transpose, which changes nothing,
       * where its reader sees cos(t): refused rather than read either way (the
       * block form keeps MATLAB's transpose, as the format defines it) */
      st = ERR(p, b,
               "a quote after a coefficient that depends on t: the transpose of a scalar "
               "changes nothing, and lth does not read it as d/dt; write the derivative "
               "(cos(t) for sin(t)'), or differentiate a product with an unknown, "
               "(c(t)*x)' = c(t)*x' + (dc/dt)*x");
    } else if ((st = lth_pval_transpose(&p->x, b, &v)) == LTH_OK) {
      st = lth_gparser_seek(g, e);
    }
  }
  return put(slot, &v, st);
}

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */

/* "'text'" or "the end of the line" for the current token. */
static void r_show(const lth_gparser *g, char *buf, size_t size) {
  const lth_plp *p = g->ctx;
  if (g->tok.kind == LTH_GTK_END || lth_gparser_at(g, '\n')) {
    snprintf(buf, size, "the end of the line");
  } else if (at_transpose(p) && at(p, g->tok.start) == '.') {
    snprintf(buf, size, "\".'\"");
  } else {
    lth_pcur_show(p->c, g->tok.start, buf, size);
  }
}

static void r_where(const lth_gparser *g, size_t pos, char *buf, size_t size) {
  const lth_plp *p = g->ctx;
  int line, col;
  lth_ptext_where(p->c->tx, &p->c->st, pos, &line, &col);
  snprintf(buf, size, "%d:%d", line, col);
}

/* A hint for a token a MATLAB user may have meant as an operator. */
static const char *r_hint(const lth_gparser *g) {
  const lth_plp *p = g->ctx;
  int ch = at(p, g->tok.start), nx = at(p, g->tok.start + 1);
  if (ch == '%') {
    return " ('%' does not start a comment: comments start with '#')";
  }
  if (ch == '{' || ch == '}') {
    return " (matrix literals are written with '[' and ']')";
  }
  if (ch == ':') {
    return " (ranges a:b are not supported)";
  }
  if (ch == '.' && (nx == '*' || nx == '/' || nx == '^')) {
    return " (elementwise operators are not supported: '*' is the matrix product, and it "
           "scales by a scalar)";
  }
  if (ch == '.' && nx == '.') {
    return " ('...' continuation is not needed: a matrix literal may span lines)";
  }
  if (ch == '"') {
    return " (strings appear only in samples(\"file.csv\"))";
  }
  if (ch == '*') {
    return " ('**' is not an operator: write '^' for a power)";
  }
  return "";
}

static lth_status r_error(lth_gparser *g, size_t pos, lth_status st, const char *msg) {
  return lth_pcur_error(lth_plit_of(g)->c, pos, st, "%s", msg);
}

static const char *r_unknown_note(const lth_gparser *g) {
  const lth_plp *p = g->ctx;
  return p->o->lookup_var ? ": neither a declared variable nor a param" : "";
}

static const lth_grammar READER_GRAMMAR = {.number = v_number,
                                           .t = v_t,
                                           .neg = v_neg,
                                           .binary = v_binary,
                                           .func = v_func,
                                           .drop = v_drop,
                                           .name = r_name,
                                           .primary = r_primary,
                                           .postfix = r_postfix,
                                           .show = r_show,
                                           .where = r_where,
                                           .hint = r_hint,
                                           .error = r_error,
                                           .unknown_note = r_unknown_note};

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */

lth_status lth_plit_arg(lth_plp *p, const char *after, lth_pval *out) {
  lth_gval v;
  size_t b = p->g.tok.start;
  lth_status st = lth_gparser_nested(&p->g, 0, after, &v);
  *out = st == LTH_OK ? lth_plit_get(&v) : (lth_pval){0, 0, NULL, NULL, NULL};
  st = st == LTH_OK ? lth_pval_eye_dense(&p->x, b, out) : st;
  if (st == LTH_OK && out->sp) {
    lth_pval_free(out);
    st = lth_pval_sparse_refuse(&p->x, b, "a matrix from mm(...) as an argument");
  }
  return st;
}

lth_status lth_plit_parse(lth_pcur *c, const lth_plit_opts *o, lth_pval *out) {
  lth_plp p;
  memset(&p, 0, sizeof p);
  memset(out, 0, sizeof *out);
  p.named_end = (size_t)-1;
  p.c = c;
  p.o = o;
  p.x = (lth_pvctx){.c = c, .var_name = o->var_name, .var_ctx = o->var_ctx, .what = o->label};
  lth_gval v;
  lth_status st = lth_gparser_init(&p.g, &READER_GRAMMAR, &p, c->tx->buf, c->st.e, c->pos, c->err);
  p.g.lookup = c->lookup;
  p.g.lookup_ctx = c->ctx;
  if (st == LTH_OK) {
    st = lth_gparser_expr(&p.g, NULL, &v);
  }
  if (st == LTH_OK) {
    *out = lth_plit_get(&v);
  }
  if (st == LTH_OK && !(o->stop_at_eq && lth_gparser_at(&p.g, '=')) &&
      p.g.tok.kind != LTH_GTK_END) {
    lth_pval_free(out);
    st = lth_gparser_at(&p.g, ')')
             ? ERR(&p, p.g.tok.start, "unexpected ')' without a matching '('")
             : lth_gparser_unexpected(&p.g, "unexpected token after the expression: expected the "
                                            "end of the statement");
  }
  c->pos = p.g.tok.start;
  return st;
}

lth_status lth_plit_parse_equation(lth_pcur *c, lth_plit_opts *o, const lth_pvctx *x,
                                   const char *no_eq, lth_pval *out) {
  lth_pval L, R;
  o->stop_at_eq = 1;
  lth_status st = lth_plit_parse(c, o, &L);
  if (st != LTH_OK) {
    return st;
  }
  if (lth_pcur_peek(c) != '=') {
    lth_pval_free(&L);
    return lth_pcur_error(c, c->pos, LTH_EPARSE, "%s", no_eq);
  }
  size_t eq = c->pos++;
  o->stop_at_eq = 0;
  if ((st = lth_plit_parse(c, o, &R)) != LTH_OK) {
    lth_pval_free(&L);
    return st;
  }
  return lth_pval_binop(x, eq, '-', &L, &R, out);
}

int lth_plit_named(lth_pcur *c, const lth_plit_opts *o, size_t pos, int call, lth_pval *out,
                   size_t *end, lth_status *st) {
  lth_plp p;
  memset(&p, 0, sizeof p);
  memset(out, 0, sizeof *out);
  p.named_end = (size_t)-1;
  p.c = c;
  p.o = o;
  p.x = (lth_pvctx){.c = c, .var_name = o->var_name, .var_ctx = o->var_ctx, .what = o->label};
  *st = lth_gparser_init(&p.g, &READER_GRAMMAR, &p, c->tx->buf, c->st.e, pos, c->err);
  p.g.lookup = c->lookup;
  p.g.lookup_ctx = c->ctx;
  if (*st != LTH_OK) {
    return 1;
  }
  int is = lth_pfunc_name(&p, call, out, st);
  *end = p.g.tok.start;
  return is;
}
