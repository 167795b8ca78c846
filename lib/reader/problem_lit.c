/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file literals and expressions (lib/reader/problem_impl.h; docs/equations.md):
 * a recursive-descent parser over one statement that evaluates to an
 * lth_pval (problem_val.c).  The grammar is lib/jet/expr.c's (same precedence,
 * `^` right-associative and tighter than unary minus) plus what MATLAB users
 * write: matrix literals with blank- or comma-separated entries (and
 * matrices as entries, i.e. concatenation), eye / eye(n) / zeros / ones /
 * diag, matrix sums and products, transposes ' and .', and, in the equation
 * form, unknowns with derivative quotes (x', x'').
 *
 * Blanks inside [ ] (outside parentheses) separate entries as in MATLAB: a
 * '+' or '-' with a blank before it and none after it starts a new entry
 * (`[1 -2]` is two entries), otherwise it is binary (`[1 - 2]`, `[1-2]`,
 * `[1 -  2]`... the last is binary too: blanks on both sides); a number,
 * name, '(' or '[' after a blank starts a new entry; a quote after a blank
 * is an error.  A newline ends a row unless the row ends in ','.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_lit.h"

#define SHOW_MAX LTH_PLIT_SHOW_MAX
#define MAX_DEPTH 200 /* nesting of parentheses, brackets and unary signs */

static const char *const FUNCS[] = {"sin",  "cos",  "tan",  "exp",  "log",  "sqrt", "sinh",
                                    "cosh", "tanh", "asin", "acos", "atan", "abs"};

static int at(const lth_plp *p, size_t i) {
  return i < p->c->st.e ? (unsigned char)p->c->tx->buf[i] : -1;
}
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int is_blank(int c) { return c == ' ' || c == '\t'; }

#define ERR LTH_PLIT_ERR

/* ------------------------------------------------------------------------ */
/* Tokens                                                                   */

void lth_plit_next(lth_plp *p) {
  size_t q = p->pos;
  while (is_blank(at(p, q))) {
    q++;
  }
  lth_ptok *t = &p->tk;
  t->sp_before = q > p->pos;
  t->b = q;
  int ch = at(p, q);
  t->ch = ch;
  if (ch < 0) {
    t->kind = T_END;
  } else if (ch == '\n') {
    t->kind = T_NL;
    q++;
  } else if (is_digit(ch) || (ch == '.' && is_digit(at(p, q + 1)))) {
    t->kind = T_NUM; /* a C pp-number, as lib/jet/expr.c scans it */
    while (is_alnum(at(p, q)) || at(p, q) == '.' ||
           ((at(p, q) == '+' || at(p, q) == '-') && (at(p, q - 1) == 'e' || at(p, q - 1) == 'E'))) {
      q++;
    }
  } else if (is_alpha(ch)) {
    t->kind = T_NAME;
    while (is_alnum(at(p, q))) {
      q++;
    }
  } else if (ch == '.' && at(p, q + 1) == '\'') {
    t->kind = T_OP;
    t->ch = 'T';
    q += 2;
  } else if (strchr("+-*/^()[],;'=", ch)) {
    t->kind = T_OP;
    q++;
  } else {
    t->kind = T_OTHER;
    q++;
  }
  t->e = q;
  t->sp_after = is_blank(at(p, q)) || at(p, q) == '\n' || at(p, q) < 0;
  p->pos = q;
}

static int name_is(const lth_plp *p, const char *w) {
  size_t n = p->tk.e - p->tk.b;
  return p->tk.kind == T_NAME && strlen(w) == n && memcmp(p->c->tx->buf + p->tk.b, w, n) == 0;
}

/* "'text'" or "the end of the line" for the current token. */
static void show(const lth_plp *p, char *buf, size_t size) {
  if (p->tk.kind == T_END || p->tk.kind == T_NL) {
    snprintf(buf, size, "the end of the line");
    return;
  }
  lth_pcur_show(p->c, p->tk.b, buf, size);
  if (p->tk.kind == T_OP && p->tk.ch == 'T') {
    snprintf(buf, size, "\".'\"");
  }
}

/* A hint for a token a MATLAB user may have meant as an operator. */
static const char *habit_hint(const lth_plp *p) {
  int ch = at(p, p->tk.b), nx = at(p, p->tk.b + 1);
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

lth_status lth_plit_unexpected(lth_plp *p, const char *what) {
  char shown[SHOW_MAX + 32];
  show(p, shown, sizeof shown);
  return ERR(p, p->tk.b, "%s, found %s%s", what, shown, habit_hint(p));
}

/* ------------------------------------------------------------------------ */
/* Expressions                                                              */

static lth_status p_unary(lth_plp *p, const char *after, lth_pval *out);

/* Parse a parenthesised or bracketed part with blanks insignificant (or,
 * for a bracket, significant) and the nesting depth bounded. */
lth_status lth_plit_nested(lth_plp *p, int bracket, const char *after, lth_pval *out) {
  if (++p->depth > MAX_DEPTH) {
    return ERR(p, p->tk.b, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
  }
  int saved = p->bracket;
  p->bracket = bracket;
  lth_status st = bracket ? lth_plit_matrix(p, out) : lth_plit_expr(p, after, out);
  p->bracket = saved;
  p->depth--;
  return st;
}

lth_status lth_plit_expect_close(lth_plp *p, size_t open, lth_pval *v) {
  if (lth_plit_is_op(p, ')')) {
    lth_plit_next(p);
    return LTH_OK;
  }
  lth_pval_free(v);
  char what[80];
  int line, col;
  lth_ptext_where(p->c->tx, &p->c->st, open, &line, &col);
  snprintf(what, sizeof what, "expected ')' to close the '(' at %d:%d", line, col);
  return lth_plit_unexpected(p, what);
}

/* "(" expr ")" at the current '('. */
static lth_status p_group(lth_plp *p, lth_pval *out) {
  size_t open = p->tk.b;
  lth_plit_next(p);
  lth_status st = lth_plit_nested(p, 0, "'('", out);
  return st != LTH_OK ? st : lth_plit_expect_close(p, open, out);
}

static lth_status p_number(lth_plp *p, lth_pval *out) {
  lth_expr *e = NULL;
  double v = 0.0;
  size_t b = p->tk.b, n = p->tk.e - b;
  lth_error *err = p->c->err;
  lth_status st = lth_expr_parse(p->c->tx->buf + b, n, NULL, NULL, &e, err);
  if (st == LTH_OK) {
    st = lth_expr_eval(e, 0.0, &v, err);
  }
  lth_expr_free(e);
  if (st != LTH_OK) {
    int col = err ? err->column : 0;
    return lth_pcur_locate(p->c, b + (size_t)(col > 0 ? col - 1 : 0),
                           st == LTH_ENOMEM ? st : LTH_EPARSE);
  }
  lth_plit_next(p);
  return lth_pval_const(&p->x, b, v, out);
}

static lth_status p_function(lth_plp *p, const char *fn, lth_pval *out) {
  size_t b = p->tk.b;
  lth_plit_next(p);
  if (!lth_plit_is_op(p, '(')) {
    char what[64];
    snprintf(what, sizeof what, "expected '(' after function name '%s'", fn);
    return lth_plit_unexpected(p, what);
  }
  size_t open = p->tk.b;
  lth_plit_next(p);
  lth_status st = lth_plit_nested(p, 0, "'('", out);
  if (st == LTH_OK) {
    st = lth_plit_expect_close(p, open, out);
  }
  if (st == LTH_OK && (st = lth_pval_func(&p->x, b, fn, out)) != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

static const char *name_hint(const char *s, size_t n) {
  if ((n == 3 && (!memcmp(s, "Inf", 3) || !memcmp(s, "inf", 3) || !memcmp(s, "NaN", 3) ||
                  !memcmp(s, "nan", 3)))) {
    return " (non-finite values are not allowed in data files)";
  }
  if (n == 1 && s[0] == 'e') {
    return " (Euler's number is exp(1))";
  }
  return "";
}

/* A name that is not a function or a builder: t, pi, a param, an unknown. */
static lth_status p_name(lth_plp *p, lth_pval *out) {
  const char *s = p->c->tx->buf + p->tk.b;
  size_t b = p->tk.b, n = p->tk.e - b;
  int len = (int)(n > 40 ? 40 : n);
  double v;
  lth_plit_next(p);
  int call = lth_plit_is_op(p, '(') && !(p->bracket && p->tk.sp_before);
  if (n == 1 && s[0] == 't') {
    return call ? ERR(p, b, "t is the time, not a function: write t*(...) for a product")
                : lth_pval_t(&p->x, b, out);
  }
  if (n == 2 && !memcmp(s, "pi", 2)) {
    return lth_pval_const(&p->x, b, 3.14159265358979323846, out);
  }
  if (p->c->lookup && p->c->lookup(p->c->ctx, s, n, &v)) {
    if (call) {
      return ERR(p, b, "'%.*s' is a param, not a function: write %.*s*(...) for a product", len, s,
                 len, s);
    }
    return lth_pval_const(&p->x, b, v, out);
  }
  int var = p->o->lookup_var ? p->o->lookup_var(p->o->var_ctx, s, n) : -1;
  if (var >= 0) {
    if (call) {
      return ERR(p, b, "'%.*s' is an unknown, not a function: write %.*s, not %.*s(t)", len, s, len,
                 s, len, s);
    }
    int order = 0;
    while (lth_plit_is_op(p, '\'') && !p->tk.sp_before) {
      order++;
      lth_plit_next(p);
    }
    return lth_pval_unknown(&p->x, b, var, order, out);
  }
  if (call) {
    return ERR(p, b, "unknown function '%.*s'", len, s);
  }
  return ERR(p, b, "unknown name '%.*s'%s%s", len, s,
             p->o->lookup_var ? ": neither a declared variable nor a param" : "", name_hint(s, n));
}

static lth_status p_primary(lth_plp *p, const char *after, lth_pval *out) {
  memset(out, 0, sizeof *out);
  switch (p->tk.kind) {
  case T_NUM: return p_number(p, out);
  case T_NAME:
    for (size_t k = 0; k < sizeof FUNCS / sizeof FUNCS[0]; k++) {
      if (name_is(p, FUNCS[k])) {
        return p_function(p, FUNCS[k], out);
      }
    }
    if (name_is(p, "eye") || name_is(p, "zeros") || name_is(p, "ones") || name_is(p, "diag")) {
      char fn[8];
      snprintf(fn, sizeof fn, "%.*s", (int)(p->tk.e - p->tk.b), p->c->tx->buf + p->tk.b);
      return lth_plit_builder(p, fn, out);
    }
    if (name_is(p, "samples") && p->o->samples) {
      size_t b = p->tk.b;
      const lth_source *src = NULL;
      p->c->pos = p->tk.e;
      lth_status st = p->o->samples(p->o->samples_ctx, b, &src);
      if (st == LTH_OK) {
        p->pos = p->c->pos;
        lth_plit_next(p);
        st = lth_pval_samples(&p->x, b, src, out);
      }
      return st;
    }
    if (name_is(p, "samples")) {
      return ERR(p, p->tk.b, "samples(\"...\") must be the whole right-hand side of a block");
    }
    return p_name(p, out);
  case T_END:
  case T_NL:
    if (!after) {
      return ERR(p, p->tk.b, "empty expression");
    }
    return ERR(p, p->tk.b, "expected an expression after %s", after);
  default:
    if (lth_plit_is_op(p, '(')) {
      return p_group(p, out);
    }
    if (lth_plit_is_op(p, '[')) {
      return lth_plit_nested(p, 1, NULL, out);
    }
    if (!after) {
      return lth_plit_unexpected(p, "expected an expression");
    }
    char what[64];
    snprintf(what, sizeof what, "expected an expression after %s", after);
    return lth_plit_unexpected(p, what);
  }
}

/* primary, then transposes ' and .' */
static lth_status p_postfix(lth_plp *p, const char *after, lth_pval *out) {
  lth_status st = p_primary(p, after, out);
  while (st == LTH_OK && (lth_plit_is_op(p, '\'') || lth_plit_is_op(p, 'T'))) {
    if (p->bracket && p->tk.sp_before) {
      st = ERR(p, p->tk.b,
               "a quote after a blank: write a transpose right after its operand "
               "(A', not A ')");
    } else if (lth_pval_has_unknowns(out)) {
      st = ERR(p, p->tk.b, "a derivative applies to an unknown only: write x' (not (...)')");
    } else {
      st = lth_pval_transpose(&p->x, p->tk.b, out);
      lth_plit_next(p);
    }
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

/* power := postfix ['^' unary] */
static lth_status p_power(lth_plp *p, const char *after, lth_pval *out) {
  lth_status st = p_postfix(p, after, out);
  if (st != LTH_OK || !lth_plit_is_op(p, '^')) {
    return st;
  }
  size_t pos = p->tk.b;
  lth_pval e, a = *out;
  memset(out, 0, sizeof *out); /* a owns the operand now */
  lth_plit_next(p);
  if ((st = p_unary(p, "'^'", &e)) != LTH_OK) {
    lth_pval_free(&a);
    return st;
  }
  return lth_pval_binop(&p->x, pos, '^', &a, &e, out);
}

static lth_status p_unary(lth_plp *p, const char *after, lth_pval *out) {
  memset(out, 0, sizeof *out); /* every parser leaves *out empty on failure */
  if (!lth_plit_is_op(p, '-') && !lth_plit_is_op(p, '+')) {
    return p_power(p, after, out);
  }
  if (++p->depth > MAX_DEPTH) {
    return ERR(p, p->tk.b, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
  }
  int neg = lth_plit_is_op(p, '-');
  size_t pos = p->tk.b;
  lth_plit_next(p);
  lth_status st = p_unary(p, neg ? "unary '-'" : "unary '+'", out);
  p->depth--;
  if (st == LTH_OK && neg && (st = lth_pval_neg(&p->x, pos, out)) != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

/* A '+' or '-' that starts a new entry of a [ ] (MATLAB's rule). */
static int starts_entry(const lth_plp *p) {
  return p->bracket && p->tk.sp_before && !p->tk.sp_after;
}

/* level 1: unary (('*'|'/') unary)*;  level 0: term (('+'|'-') term)* */
static lth_status p_binary(lth_plp *p, const char *after, int level, lth_pval *out) {
  const char *ops = level ? "*/" : "+-";
  lth_status st = level ? p_unary(p, after, out) : p_binary(p, after, 1, out);
  while (st == LTH_OK && p->tk.kind == T_OP && p->tk.ch && strchr(ops, p->tk.ch) &&
         !(level == 0 && starts_entry(p))) {
    int op = p->tk.ch;
    size_t pos = p->tk.b;
    const char *what = op == '+' ? "'+'" : op == '-' ? "'-'" : op == '*' ? "'*'" : "'/'";
    lth_pval a = *out, b;
    memset(out, 0, sizeof *out); /* a owns the operand now */
    lth_plit_next(p);
    if (op == '*' && lth_plit_is_op(p, '*')) {
      lth_pval_free(&a);
      return ERR(p, pos, "'**' is not an operator: write '^' for a power");
    }
    st = level ? p_unary(p, what, &b) : p_binary(p, what, 1, &b);
    if (st != LTH_OK) {
      lth_pval_free(&a);
      return st;
    }
    st = lth_pval_binop(&p->x, pos, op, &a, &b, out);
  }
  return st;
}

lth_status lth_plit_expr(lth_plp *p, const char *after, lth_pval *out) {
  return p_binary(p, after, 0, out);
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                              */

lth_status lth_plit_parse(lth_pcur *c, const lth_plit_opts *o, lth_pval *out) {
  lth_plp p;
  memset(&p, 0, sizeof p);
  memset(out, 0, sizeof *out);
  p.c = c;
  p.o = o;
  p.x = (lth_pvctx){c, o->var_name, o->var_ctx};
  p.pos = c->pos;
  lth_plit_next(&p);
  lth_status st = lth_plit_expr(&p, NULL, out);
  if (st == LTH_OK && !(o->stop_at_eq && lth_plit_is_op(&p, '=')) && p.tk.kind != T_END) {
    lth_pval_free(out);
    st = lth_plit_is_op(&p, ')')
             ? ERR(&p, p.tk.b, "unexpected ')' without a matching '('")
             : lth_plit_unexpected(&p, "unexpected token after the expression: expected the "
                                       "end of the statement");
  }
  c->pos = p.tk.b;
  return st;
}
