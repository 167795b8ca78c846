/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data-file literals and expressions (lib/problem_impl.h; docs/equations.md):
 * a recursive-descent parser over one statement that evaluates to an
 * lth_pval (problem_val.c).  The grammar is lib/expr.c's (same precedence,
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

#include "problem_impl.h"

#define SHOW_MAX 24   /* longest token quoted in a message */
#define MAX_DEPTH 200 /* nesting of parentheses, brackets and unary signs */

enum { T_END, T_NUM, T_NAME, T_OP, T_NL, T_OTHER };

typedef struct tok {
  int kind;
  size_t b, e;
  int ch;        /* T_OP: the operator; '.' + '\'' is 'T' */
  int sp_before; /* a blank right before */
  int sp_after;  /* a blank or line end right after */
} tok;

typedef struct lp {
  lth_pcur *c;
  const lth_plit_opts *o;
  lth_pvctx x;
  tok tk;
  size_t pos;
  int bracket; /* at the top level of a [ ] (blanks separate entries) */
  int depth;
} lp;

static const char *const FUNCS[] = {"sin",  "cos",  "tan",  "exp",  "log",  "sqrt", "sinh",
                                    "cosh", "tanh", "asin", "acos", "atan", "abs"};

static int at(const lp *p, size_t i) {
  return i < p->c->st.e ? (unsigned char)p->c->tx->buf[i] : -1;
}
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int is_blank(int c) { return c == ' ' || c == '\t'; }

#define ERR(p, pos, ...) lth_pcur_error((p)->c, (pos), LTH_EPARSE, __VA_ARGS__)

/* ------------------------------------------------------------------------ */
/* Tokens                                                                   */

static void next(lp *p) {
  size_t q = p->pos;
  while (is_blank(at(p, q))) {
    q++;
  }
  tok *t = &p->tk;
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
    t->kind = T_NUM; /* a C pp-number, as lib/expr.c scans it */
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

static int is_op(const lp *p, int ch) { return p->tk.kind == T_OP && p->tk.ch == ch; }

static int name_is(const lp *p, const char *w) {
  size_t n = p->tk.e - p->tk.b;
  return p->tk.kind == T_NAME && strlen(w) == n && memcmp(p->c->tx->buf + p->tk.b, w, n) == 0;
}

/* "'text'" or "the end of the line" for the current token. */
static void show(const lp *p, char *buf, size_t size) {
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
static const char *habit_hint(const lp *p) {
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

static lth_status unexpected(lp *p, const char *what) {
  char shown[SHOW_MAX + 32];
  show(p, shown, sizeof shown);
  return ERR(p, p->tk.b, "%s, found %s%s", what, shown, habit_hint(p));
}

/* ------------------------------------------------------------------------ */
/* Expressions                                                              */

static lth_status p_expr(lp *p, const char *after, lth_pval *out);
static lth_status p_unary(lp *p, const char *after, lth_pval *out);
static lth_status p_matrix(lp *p, lth_pval *out);

/* Parse a parenthesised or bracketed part with blanks insignificant (or,
 * for a bracket, significant) and the nesting depth bounded. */
static lth_status nested(lp *p, int bracket, const char *after, lth_pval *out) {
  if (++p->depth > MAX_DEPTH) {
    return ERR(p, p->tk.b, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
  }
  int saved = p->bracket;
  p->bracket = bracket;
  lth_status st = bracket ? p_matrix(p, out) : p_expr(p, after, out);
  p->bracket = saved;
  p->depth--;
  return st;
}

static lth_status expect_close(lp *p, size_t open, lth_pval *v) {
  if (is_op(p, ')')) {
    next(p);
    return LTH_OK;
  }
  lth_pval_free(v);
  char what[80];
  int line, col;
  lth_ptext_where(p->c->tx, &p->c->st, open, &line, &col);
  snprintf(what, sizeof what, "expected ')' to close the '(' at %d:%d", line, col);
  return unexpected(p, what);
}

/* "(" expr ")" at the current '('. */
static lth_status p_group(lp *p, lth_pval *out) {
  size_t open = p->tk.b;
  next(p);
  lth_status st = nested(p, 0, "'('", out);
  return st != LTH_OK ? st : expect_close(p, open, out);
}

static lth_status p_number(lp *p, lth_pval *out) {
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
  next(p);
  return lth_pval_const(&p->x, b, v, out);
}

/* A constant integer argument of eye/zeros/ones in [0, LTH_P_MAX_BLOCK_SIZE]. */
static lth_status int_arg(lp *p, const char *fn, long *v) {
  lth_pval a;
  size_t b = p->tk.b;
  lth_status st = nested(p, 0, fn, &a);
  if (st != LTH_OK) {
    return st;
  }
  double d = 0.0;
  int ok = a.rows == 1 && a.cols == 1 && lth_pval_entry_const(&a, 0, &d);
  lth_pval_free(&a);
  if (!ok || d != (double)(long)d || d < 0 || d > LTH_P_MAX_BLOCK_SIZE) {
    return ERR(p, b, "the size in %s(...) must be a constant integer from 0 to %ld", fn,
               LTH_P_MAX_BLOCK_SIZE);
  }
  *v = (long)d;
  return LTH_OK;
}

/* eye, zeros, ones with (n) or (m, n); bare eye takes the target's size. */
static lth_status p_builder(lp *p, const char *fn, lth_pval *out) {
  size_t b = p->tk.b;
  next(p);
  long m = 0, n = 0;
  int call = is_op(p, '(') && !(p->bracket && p->tk.sp_before);
  if (!call && strcmp(fn, "eye") != 0) {
    return unexpected(p, strcmp(fn, "diag") == 0 ? "expected '(' after diag: diag([...])"
                                                 : "expected '(' and a size after zeros/ones: "
                                                   "zeros(m, n)");
  }
  if (!call) {
    const lth_plit_opts *o = p->o;
    if (o->eye_rows <= 0) {
      return ERR(p, b, "`eye` has no size here: write eye(n)");
    }
    if (o->eye_rows != o->eye_cols) {
      return ERR(p, b,
                 "`eye` needs a square block, but %s is %d x %d (write eye(m, n) for a "
                 "rectangular one)",
                 o->label ? o->label : "the target", o->eye_rows, o->eye_cols);
    }
    m = n = o->eye_rows;
  } else {
    size_t open = p->tk.b;
    next(p);
    if (strcmp(fn, "diag") == 0) {
      lth_pval v;
      lth_status st = nested(p, 0, "diag(", &v);
      if (st == LTH_OK) {
        st = expect_close(p, open, &v);
      }
      if (st != LTH_OK) {
        return st;
      }
      if (v.rows != 1 && v.cols != 1) {
        lth_pval_free(&v);
        return ERR(p, b, "diag(...) needs a vector, found a %d x %d matrix", v.rows, v.cols);
      }
      long k = (long)v.rows * v.cols;
      st = lth_pval_zeros(&p->x, b, k, k, out);
      for (long i = 0; st == LTH_OK && i < k; i++) {
        out->val[i * k + i] = v.val[i];
        if (v.ext && v.ext[i]) {
          if (!out->ext && !(out->ext = calloc((size_t)(k * k), sizeof *out->ext))) {
            st = lth_pcur_error(p->c, b, LTH_ENOMEM, "out of memory");
            break;
          }
          out->ext[i * k + i] = v.ext[i];
          v.ext[i] = NULL;
        }
      }
      lth_pval_free(&v);
      if (st != LTH_OK) {
        lth_pval_free(out);
      }
      return st;
    }
    lth_status st = int_arg(p, fn, &m);
    n = m;
    if (st == LTH_OK && is_op(p, ',')) {
      next(p);
      st = int_arg(p, fn, &n);
    }
    if (st == LTH_OK && !is_op(p, ')')) {
      char what[64];
      snprintf(what, sizeof what, "expected ')' after the size of %s", fn);
      st = unexpected(p, what);
    }
    if (st != LTH_OK) {
      return st;
    }
    next(p);
  }
  lth_status st = lth_pval_zeros(&p->x, b, m, n, out);
  for (long i = 0; st == LTH_OK && i < m; i++) {
    for (long j = 0; j < n; j++) {
      out->val[i * n + j] = fn[0] == 'o' ? 1.0 : (fn[0] == 'e' && i == j) ? 1.0 : 0.0;
    }
  }
  return st;
}

static lth_status p_function(lp *p, const char *fn, lth_pval *out) {
  size_t b = p->tk.b;
  next(p);
  if (!is_op(p, '(')) {
    char what[64];
    snprintf(what, sizeof what, "expected '(' after function name '%s'", fn);
    return unexpected(p, what);
  }
  size_t open = p->tk.b;
  next(p);
  lth_status st = nested(p, 0, "'('", out);
  if (st == LTH_OK) {
    st = expect_close(p, open, out);
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
static lth_status p_name(lp *p, lth_pval *out) {
  const char *s = p->c->tx->buf + p->tk.b;
  size_t b = p->tk.b, n = p->tk.e - b;
  int len = (int)(n > 40 ? 40 : n);
  double v;
  next(p);
  int call = is_op(p, '(') && !(p->bracket && p->tk.sp_before);
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
    while (is_op(p, '\'') && !p->tk.sp_before) {
      order++;
      next(p);
    }
    return lth_pval_unknown(&p->x, b, var, order, out);
  }
  if (call) {
    return ERR(p, b, "unknown function '%.*s'", len, s);
  }
  return ERR(p, b, "unknown name '%.*s'%s%s", len, s,
             p->o->lookup_var ? ": neither a declared variable nor a param" : "", name_hint(s, n));
}

static lth_status p_primary(lp *p, const char *after, lth_pval *out) {
  memset(out, 0, sizeof *out);
  switch (p->tk.kind) {
  case T_NUM:
    return p_number(p, out);
  case T_NAME:
    for (size_t k = 0; k < sizeof FUNCS / sizeof FUNCS[0]; k++) {
      if (name_is(p, FUNCS[k])) {
        return p_function(p, FUNCS[k], out);
      }
    }
    if (name_is(p, "eye") || name_is(p, "zeros") || name_is(p, "ones") || name_is(p, "diag")) {
      char fn[8];
      snprintf(fn, sizeof fn, "%.*s", (int)(p->tk.e - p->tk.b), p->c->tx->buf + p->tk.b);
      return p_builder(p, fn, out);
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
    if (is_op(p, '(')) {
      return p_group(p, out);
    }
    if (is_op(p, '[')) {
      return nested(p, 1, NULL, out);
    }
    if (!after) {
      return unexpected(p, "expected an expression");
    }
    char what[64];
    snprintf(what, sizeof what, "expected an expression after %s", after);
    return unexpected(p, what);
  }
}

/* primary, then transposes ' and .' */
static lth_status p_postfix(lp *p, const char *after, lth_pval *out) {
  lth_status st = p_primary(p, after, out);
  while (st == LTH_OK && (is_op(p, '\'') || is_op(p, 'T'))) {
    if (p->bracket && p->tk.sp_before) {
      st = ERR(p, p->tk.b,
               "a quote after a blank: write a transpose right after its operand "
               "(A', not A ')");
    } else if (lth_pval_has_unknowns(out)) {
      st = ERR(p, p->tk.b, "a derivative applies to an unknown only: write x' (not (...)')");
    } else {
      st = lth_pval_transpose(&p->x, p->tk.b, out);
      next(p);
    }
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

/* power := postfix ['^' unary] */
static lth_status p_power(lp *p, const char *after, lth_pval *out) {
  lth_status st = p_postfix(p, after, out);
  if (st != LTH_OK || !is_op(p, '^')) {
    return st;
  }
  size_t pos = p->tk.b;
  lth_pval e, a = *out;
  next(p);
  if ((st = p_unary(p, "'^'", &e)) != LTH_OK) {
    lth_pval_free(&a);
    return st;
  }
  return lth_pval_binop(&p->x, pos, '^', &a, &e, out);
}

static lth_status p_unary(lp *p, const char *after, lth_pval *out) {
  if (!is_op(p, '-') && !is_op(p, '+')) {
    return p_power(p, after, out);
  }
  if (++p->depth > MAX_DEPTH) {
    return ERR(p, p->tk.b, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
  }
  int neg = is_op(p, '-');
  size_t pos = p->tk.b;
  next(p);
  lth_status st = p_unary(p, neg ? "unary '-'" : "unary '+'", out);
  p->depth--;
  if (st == LTH_OK && neg && (st = lth_pval_neg(&p->x, pos, out)) != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

/* A '+' or '-' that starts a new entry of a [ ] (MATLAB's rule). */
static int starts_entry(const lp *p) { return p->bracket && p->tk.sp_before && !p->tk.sp_after; }

/* level 1: unary (('*'|'/') unary)*;  level 0: term (('+'|'-') term)* */
static lth_status p_binary(lp *p, const char *after, int level, lth_pval *out) {
  const char *ops = level ? "*/" : "+-";
  lth_status st = level ? p_unary(p, after, out) : p_binary(p, after, 1, out);
  while (st == LTH_OK && p->tk.kind == T_OP && p->tk.ch && strchr(ops, p->tk.ch) &&
         !(level == 0 && starts_entry(p))) {
    int op = p->tk.ch;
    size_t pos = p->tk.b;
    const char *what = op == '+' ? "'+'" : op == '-' ? "'-'" : op == '*' ? "'*'" : "'/'";
    lth_pval a = *out, b;
    next(p);
    if (op == '*' && is_op(p, '*')) {
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

static lth_status p_expr(lp *p, const char *after, lth_pval *out) {
  return p_binary(p, after, 0, out);
}

/* ------------------------------------------------------------------------ */
/* Matrix literals                                                          */

/* The literal is built without quadratic copying: scalar entries of a row
 * are appended to a run (amortised doubling), matrices become pieces of the
 * row, and the rows are stacked once at the end. */
typedef struct rowacc {
  lth_pval *rows; /* completed rows */
  int nrows, caprows;
  int all_scalar;   /* every entry so far was 1 x 1 */
  lth_pval *pieces; /* the current row: runs of scalars and matrices */
  int npieces, cappieces;
  lth_pval run; /* the current run of scalars, 1 x run.cols */
  size_t runcap;
  int count; /* entries in the current row */
  int row_scalar;
  size_t row_pos;
} rowacc;

static lth_status acc_nomem(lp *p) {
  return lth_pcur_error(p->c, p->tk.b, LTH_ENOMEM, "out of memory reading a matrix literal");
}

static int grow(void **ptr, int *cap, int need, size_t size) {
  if (need <= *cap) {
    return 1;
  }
  int nc = *cap ? 2 * *cap : 8;
  nc = nc < need ? need : nc;
  void *np = realloc(*ptr, (size_t)nc * size);
  if (!np) {
    return 0;
  }
  *ptr = np;
  *cap = nc;
  return 1;
}

/* Append the 1 x 1 value e (consumed) to the run. */
static lth_status run_append(lp *p, rowacc *a, lth_pval *e) {
  lth_pval *r = &a->run;
  size_t n = (size_t)r->cols;
  if (n == a->runcap) {
    size_t cap = a->runcap ? 2 * a->runcap : 16;
    double *nv = realloc(r->val, cap * sizeof *nv);
    if (nv) {
      r->val = nv;
    }
    lth_plin **ne = r->ext ? realloc(r->ext, cap * sizeof *ne) : NULL;
    if (ne) {
      r->ext = ne;
      memset(ne + n, 0, (cap - n) * sizeof *ne);
    }
    if (!nv || (r->ext && !ne)) {
      lth_pval_free(e);
      return acc_nomem(p);
    }
    a->runcap = cap;
  }
  if (e->ext && e->ext[0] && !r->ext) {
    if (!(r->ext = calloc(a->runcap, sizeof *r->ext))) {
      lth_pval_free(e);
      return acc_nomem(p);
    }
  }
  r->val[n] = e->val[0];
  if (r->ext) {
    r->ext[n] = e->ext ? e->ext[0] : NULL;
  }
  if (e->ext) {
    e->ext[0] = NULL;
  }
  r->rows = 1;
  r->cols++;
  lth_pval_free(e);
  return LTH_OK;
}

static lth_status push_piece(lp *p, rowacc *a, lth_pval *e) {
  if (!grow((void **)&a->pieces, &a->cappieces, a->npieces + 1, sizeof *a->pieces)) {
    lth_pval_free(e);
    return acc_nomem(p);
  }
  a->pieces[a->npieces++] = *e;
  memset(e, 0, sizeof *e);
  return LTH_OK;
}

static lth_status flush_run(lp *p, rowacc *a) {
  if (a->run.cols == 0) {
    return LTH_OK;
  }
  a->runcap = 0;
  return push_piece(p, a, &a->run);
}

static lth_status close_row(lp *p, rowacc *a) {
  if (a->count == 0) {
    return LTH_OK; /* blank line, or ';' right after a row */
  }
  lth_status st = flush_run(p, a);
  lth_pval row = a->pieces[0];
  for (int k = 1; k < a->npieces; k++) {
    if (st == LTH_OK) {
      st = lth_pval_hcat(&p->x, a->row_pos, &row, &a->pieces[k], "in a row of this matrix literal");
    } else {
      lth_pval_free(&a->pieces[k]);
    }
  }
  a->npieces = 0;
  if (st == LTH_OK && a->nrows > 0 && row.cols != a->rows[0].cols) {
    int nrow = 1;
    for (int k = 0; k < a->nrows; k++) {
      nrow += a->rows[k].rows;
    }
    if (a->all_scalar && a->row_scalar) {
      st = ERR(p, a->row_pos,
               "row %d of the matrix has %d %s, but row 1 has %d: every row needs the same number "
               "of entries",
               nrow, a->count, a->count == 1 ? "entry" : "entries", a->rows[0].cols);
    } else {
      st = ERR(p, a->row_pos,
               "row %d of the matrix has %d column%s, but row 1 has %d: every row needs the same "
               "number of columns",
               nrow, row.cols, row.cols == 1 ? "" : "s", a->rows[0].cols);
    }
  }
  if (st == LTH_OK && !grow((void **)&a->rows, &a->caprows, a->nrows + 1, sizeof *a->rows)) {
    st = acc_nomem(p);
  }
  if (st != LTH_OK) {
    lth_pval_free(&row);
    return st;
  }
  a->rows[a->nrows++] = row;
  a->all_scalar = a->all_scalar && a->row_scalar;
  a->count = 0;
  a->row_scalar = 1;
  return LTH_OK;
}

static lth_status add_entry(lp *p, rowacc *a) {
  if (a->count == 0) {
    a->row_pos = p->tk.b;
  }
  lth_pval e;
  lth_status st = p_expr(p, NULL, &e);
  if (st != LTH_OK) {
    return st;
  }
  a->count++;
  if (e.rows == 1 && e.cols == 1) {
    return run_append(p, a, &e);
  }
  a->row_scalar = 0;
  st = flush_run(p, a);
  return st == LTH_OK ? push_piece(p, a, &e) : (lth_pval_free(&e), st);
}

/* Stack the rows into one value (consumes them). */
static lth_status stack_rows(lp *p, rowacc *a, lth_pval *out) {
  long rows = 0;
  int cols = a->rows[0].cols, any_ext = 0;
  for (int k = 0; k < a->nrows; k++) {
    rows += a->rows[k].rows;
    any_ext = any_ext || a->rows[k].ext != NULL;
  }
  lth_status st = lth_pval_zeros(&p->x, a->row_pos, rows, cols, out);
  size_t off = 0;
  if (st == LTH_OK && any_ext && !(out->ext = calloc((size_t)rows * cols, sizeof *out->ext))) {
    st = acc_nomem(p);
  }
  for (int k = 0; k < a->nrows && st == LTH_OK; k++) {
    lth_pval *r = &a->rows[k];
    size_t n = (size_t)r->rows * (size_t)r->cols;
    memcpy(out->val + off, r->val, n * sizeof *r->val);
    if (r->ext) {
      memcpy(out->ext + off, r->ext, n * sizeof *r->ext);
      memset(r->ext, 0, n * sizeof *r->ext);
    }
    off += n;
  }
  if (st != LTH_OK) {
    lth_pval_free(out);
  }
  return st;
}

static void acc_free(rowacc *a) {
  for (int k = 0; k < a->nrows; k++) {
    lth_pval_free(&a->rows[k]);
  }
  for (int k = 0; k < a->npieces; k++) {
    lth_pval_free(&a->pieces[k]);
  }
  lth_pval_free(&a->run);
  free(a->rows);
  free(a->pieces);
}

static lth_status p_matrix(lp *p, lth_pval *out) {
  rowacc a;
  memset(&a, 0, sizeof a);
  a.all_scalar = a.row_scalar = 1;
  size_t open = p->tk.b;
  int after_comma = 0;
  lth_status st = LTH_OK;
  next(p);
  while (st == LTH_OK) {
    int k = p->tk.kind;
    if (after_comma && (is_op(p, ';') || is_op(p, ']') || k == T_END)) {
      st = unexpected(p, "expected an entry after ','");
    } else if (k == T_END) {
      st = ERR(p, p->tk.b, "expected ']' to close the '[' of this matrix literal");
    } else if (k == T_NL && after_comma) {
      next(p); /* a row continues after a trailing ',' */
    } else if (k == T_NL || is_op(p, ';') || is_op(p, ']')) {
      int end = is_op(p, ']');
      st = close_row(p, &a);
      next(p);
      if (end) {
        break;
      }
    } else if (is_op(p, ',')) {
      st = ERR(p, p->tk.b,
               after_comma ? "empty expression between two ','" : "expected an entry before ','");
    } else if (a.count > 0 && !after_comma && !p->tk.sp_before) {
      st = unexpected(p, "expected ',', a blank, ';' or ']' after an entry");
    } else {
      st = add_entry(p, &a);
      after_comma = st == LTH_OK && is_op(p, ',');
      if (after_comma) {
        next(p);
      }
    }
  }
  if (st == LTH_OK && a.nrows == 0) {
    st = ERR(p, open, "empty matrix literal: expected entries in '[ ]'");
  }
  if (st == LTH_OK) {
    st = stack_rows(p, &a, out);
  }
  acc_free(&a);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                              */

lth_status lth_plit_parse(lth_pcur *c, const lth_plit_opts *o, lth_pval *out) {
  lp p;
  memset(&p, 0, sizeof p);
  memset(out, 0, sizeof *out);
  p.c = c;
  p.o = o;
  p.x = (lth_pvctx){c, o->var_name, o->var_ctx};
  p.pos = c->pos;
  next(&p);
  lth_status st = p_expr(&p, NULL, out);
  if (st == LTH_OK && !(o->stop_at_eq && is_op(&p, '=')) && p.tk.kind != T_END) {
    lth_pval_free(out);
    st = is_op(&p, ')') ? ERR(&p, p.tk.b, "unexpected ')' without a matching '('")
                        : unexpected(&p, "unexpected token after the expression: expected the "
                                         "end of the statement");
  }
  c->pos = p.tk.b;
  return st;
}
