/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Scalar expressions in t: parser and compiler (evaluation: lib/jet/expr_taylor.c)
 * (include/lth/expr.h, language in docs/format.md section 1.1).
 *
 * The recursive-descent parser emits nodes in postfix order into one flat
 * array, so every node's operands come before it and evaluation is a single
 * forward sweep with no recursion.  A node whose operands are all constants
 * is evaluated at once (order 0, same kernel as at run time) and replaced by
 * a constant; if that evaluation fails (log(-1), 1/0) the node is kept so the
 * error is reported, with t and column, when the expression is evaluated.
 *
 * Behaviour the header leaves open: a syntax error at the end of the text is
 * reported at column len + 1; only spaces and tabs separate tokens; numbers
 * are scanned like C pp-numbers, so "3.4.5", "2t" and "1e" are one bad
 * number; t, pi and the function names are reserved (never passed to lookup);
 * there is no algebraic simplification, so t*0 still depends on t.
 *
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_impl.h"

#define MAX_DEPTH 200           /* nesting levels (parentheses, unary signs, powers) */
#define MAX_NUMBER_LEN 100      /* longest number token accepted */
#define MAX_TEXT_LEN (1u << 28) /* keeps node counts and columns in int range */
#define SHOW_MAX 40             /* longest token quoted in a message */

/* ------------------------------------------------------------------------ */
/* Lexer                                                                    */

enum { TK_END, TK_NUM, TK_NAME, TK_PUNCT, TK_OTHER };

typedef struct token {
  int kind;
  size_t start, end; /* byte range in the text */
  double num;        /* TK_NUM value */
} token;

typedef struct parser {
  const char *s;
  size_t len, pos;
  token tok;
  lth_expr_lookup_fn lookup;
  void *ctx;
  enode *nodes;
  int n, cap;
  int depth;
  lth_error *err;
} parser;

static lth_status parse_error(parser *p, size_t where, const char *fmt, ...) LTH_PRINTF(3, 4);
static lth_status parse_error(parser *p, size_t where, const char *fmt, ...) {
  if (p->err) {
    char msg[LTH_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(p->err);
    lth_error_set(p->err, LTH_EPARSE, "%s", msg);
    lth_error_set_pos(p->err, NULL, 0, (int)where + 1);
  }
  return LTH_EPARSE;
}

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int at(const parser *p, size_t i) { return i < p->len ? (unsigned char)p->s[i] : -1; }

/* Quote a token for a message: "'text'" truncated to SHOW_MAX bytes. */
static void show(const parser *p, const token *tk, char *buf, size_t size) {
  if (tk->kind == TK_END) {
    snprintf(buf, size, "end of input");
    return;
  }
  int c = at(p, tk->start);
  if (tk->kind == TK_OTHER && (c < 0x20 || c > 0x7e)) {
    snprintf(buf, size, "byte 0x%02x", (unsigned)c);
    return;
  }
  size_t n = tk->end - tk->start;
  const char *kind = tk->kind == TK_NUM ? "number " : tk->kind == TK_NAME ? "name " : "";
  snprintf(buf, size, "%s'%.*s%s'", kind, (int)(n > SHOW_MAX ? SHOW_MAX : n), p->s + tk->start,
           n > SHOW_MAX ? "..." : "");
}

/* Convert a scanned pp-number (C-style: digits, letters, '_', '.', and a sign
 * after e/E) that must match digits [. digits] [e [+-] digits].  The '.' is
 * removed and the exponent adjusted, so strtod sees only digits and 'e' and
 * the result does not depend on the locale's decimal point. */
static lth_status convert_number(parser *p, size_t b, size_t e, double *out) {
  char buf[MAX_NUMBER_LEN + 32];
  size_t i = b, nd = 0;
  long frac = 0, ex = 0;
  int seen_dot = 0;
  for (; i < e && (is_digit(at(p, i)) || (at(p, i) == '.' && !seen_dot)); i++) {
    if (p->s[i] == '.') {
      seen_dot = 1;
      continue;
    }
    buf[nd++] = p->s[i];
    frac += seen_dot;
  }
  int ok = nd > 0;
  if (ok && i < e && (p->s[i] == 'e' || p->s[i] == 'E')) {
    i++;
    int neg = i < e && p->s[i] == '-';
    i += i < e && (p->s[i] == '-' || p->s[i] == '+');
    ok = i < e && is_digit(at(p, i));
    for (; i < e && is_digit(at(p, i)); i++) {
      ex = ex < 1000000 ? 10 * ex + (p->s[i] - '0') : ex; /* saturate: beyond any range */
    }
    ex = neg ? -ex : ex;
  }
  if (!ok || i != e) {
    token tk = {TK_NUM, b, e, 0.0};
    char shown[SHOW_MAX + 32];
    show(p, &tk, shown, sizeof shown);
    return parse_error(p, b, "bad %s", shown);
  }
  snprintf(buf + nd, sizeof buf - nd, "e%ld", ex - frac);
  *out = strtod(buf, NULL);
  if (!isfinite(*out)) {
    return parse_error(p, b, "number out of range '%.*s'", (int)(e - b), p->s + b);
  }
  return LTH_OK;
}

static lth_status lex_number(parser *p) {
  size_t i = p->pos;
  while (i < p->len) {
    int c = at(p, i), prev = at(p, i - 1);
    int sign = (c == '+' || c == '-') && (prev == 'e' || prev == 'E');
    if (!(is_alnum(c) || c == '.' || sign)) {
      break;
    }
    i++;
  }
  p->tok.kind = TK_NUM;
  p->tok.end = i;
  if (i - p->pos > MAX_NUMBER_LEN) {
    return parse_error(p, p->pos, "number too long (more than %d characters)", MAX_NUMBER_LEN);
  }
  lth_status st = convert_number(p, p->pos, i, &p->tok.num);
  p->pos = i;
  return st;
}

/* Scan the next token into p->tok.  Only spaces and tabs separate tokens. */
static lth_status next(parser *p) {
  while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t')) {
    p->pos++;
  }
  p->tok.start = p->pos;
  p->tok.end = p->pos;
  int c = at(p, p->pos);
  if (c < 0) {
    p->tok.kind = TK_END;
    return LTH_OK;
  }
  if (is_digit(c) || (c == '.' && is_digit(at(p, p->pos + 1)))) {
    return lex_number(p);
  }
  if (is_alpha(c)) {
    while (is_alnum(at(p, p->pos))) {
      p->pos++;
    }
    p->tok.kind = TK_NAME;
  } else {
    p->pos++;
    p->tok.kind = c && strchr("+-*/^()", c) ? TK_PUNCT : TK_OTHER;
  }
  p->tok.end = p->pos;
  return LTH_OK;
}

static int tok_is(const parser *p, int c) {
  return p->tok.kind == TK_PUNCT && at(p, p->tok.start) == c;
}

/* ------------------------------------------------------------------------ */
/* Code generation with constant folding                                    */

static lth_status push(parser *p, enode nd) {
  if (p->n == p->cap) {
    int cap = p->cap ? 2 * p->cap : 16;
    enode *nn = realloc(p->nodes, (size_t)cap * sizeof *nn);
    if (!nn) {
      lth_error_clear(p->err);
      return lth_error_set(p->err, LTH_ENOMEM, "out of memory while compiling an expression");
    }
    p->nodes = nn;
    p->cap = cap;
  }
  p->nodes[p->n++] = nd;
  return LTH_OK;
}

static lth_status push_const(parser *p, double v, size_t pos) {
  enode nd = {OP_CONST, -1, -1, (int)pos + 1, 0, 0, v, 0};
  return push(p, nd);
}

/* Try to evaluate a node whose operands are constants; 1 on success. */
static int fold(const enode *nd, const enode *a, const enode *b, double *value) {
  double y[8], av = a ? a->v : 0.0, bv = b ? b->v : 0.0;
  kargs k = {nd, &av, &bv, y, 0, 0.0, NULL};
  if (lth_expr_eval_node(&k) != LTH_OK) {
    return 0;
  }
  *value = y[0];
  return 1;
}

/* Append op applied to the last one (unary) or two (binary) subtrees.  The
 * operands' roots are found by walking back over postfix subtrees; constant
 * operands are single nodes at the end of the array, so folding pops them. */
static lth_status push_op(parser *p, int op, int a, int b, size_t pos) {
  enode nd = {op, a, b, (int)pos + 1, 0, 0, 0.0, 0};
  const enode *na = &p->nodes[a], *nb = b >= 0 ? &p->nodes[b] : NULL;
  nd.dep = na->dep || (nb && nb->dep);
  if (op == OP_POW && nb->op == OP_CONST) {
    nd.op = OP_POWC; /* constant exponent: stored in the node, not evaluated */
    nd.v = nb->v;
    nd.b = -1;
    p->n--;
    nb = NULL;
  }
  double v;
  if (na->op == OP_CONST && (!nb || nb->op == OP_CONST) && fold(&nd, na, nb, &v)) {
    p->n = a;
    return push_const(p, v, pos);
  }
  return push(p, nd);
}

/* ------------------------------------------------------------------------ */
/* Recursive descent                                                        */

static lth_status parse_expr(parser *p, const char *after);
static lth_status parse_unary(parser *p, const char *after);

static const struct {
  const char *name;
  int op;
} FUNCS[] = {{"sin", OP_SIN},   {"cos", OP_COS},   {"tan", OP_TAN},   {"exp", OP_EXP},
             {"log", OP_LOG},   {"sqrt", OP_SQRT}, {"sinh", OP_SINH}, {"cosh", OP_COSH},
             {"tanh", OP_TANH}, {"asin", OP_ASIN}, {"acos", OP_ACOS}, {"atan", OP_ATAN},
             {"abs", OP_ABS}};

static int name_is(const parser *p, const char *name) {
  size_t n = p->tok.end - p->tok.start;
  return strlen(name) == n && memcmp(p->s + p->tok.start, name, n) == 0;
}

static int find_function(const parser *p) {
  for (size_t i = 0; i < sizeof FUNCS / sizeof FUNCS[0]; i++) {
    if (name_is(p, FUNCS[i].name)) {
      return FUNCS[i].op;
    }
  }
  return -1;
}

/* Expect ')' closing the '(' at byte open. */
static lth_status expect_close(parser *p, size_t open) {
  if (!tok_is(p, ')')) {
    char shown[SHOW_MAX + 32];
    show(p, &p->tok, shown, sizeof shown);
    return parse_error(p, p->tok.start, "expected ')' to close '(' opened at column %zu, found %s",
                       open + 1, shown);
  }
  return next(p);
}

/* "(" expr ")" after a function name or alone; the result is the last node. */
static lth_status parse_group(parser *p) {
  size_t open = p->tok.start;
  lth_status st = next(p);
  if (st == LTH_OK) {
    st = parse_expr(p, "'('");
  }
  return st != LTH_OK ? st : expect_close(p, open);
}

static lth_status parse_call(parser *p, int op, size_t name_pos) {
  lth_status st = next(p);
  if (st != LTH_OK) {
    return st;
  }
  if (!tok_is(p, '(')) {
    char shown[SHOW_MAX + 32];
    show(p, &p->tok, shown, sizeof shown);
    return parse_error(p, p->tok.start, "expected '(' after function name '%s', found %s",
                       OP_NAMES[op], shown);
  }
  st = parse_group(p);
  return st != LTH_OK ? st : push_op(p, op, p->n - 1, -1, name_pos);
}

/* t, pi, or a parameter known to the lookup callback. */
static lth_status parse_variable(parser *p) {
  size_t b = p->tok.start, n = p->tok.end - b;
  int len = (int)(n > SHOW_MAX ? SHOW_MAX : n);
  double v = 0.0;
  lth_status st;
  if (name_is(p, "t")) {
    enode nd = {OP_T, -1, -1, (int)b + 1, 1, 0, 0.0, 0};
    st = push(p, nd);
  } else if (name_is(p, "pi")) {
    st = push_const(p, LTH_EXPR_PI, b);
  } else if (p->lookup && p->lookup(p->ctx, p->s + b, n, &v)) {
    if (!isfinite(v)) {
      return parse_error(p, b, "parameter '%.*s' has a non-finite value", len, p->s + b);
    }
    st = push_const(p, v, b);
  } else {
    return parse_error(p, b, "unknown name '%.*s%s'", len, p->s + b, n > SHOW_MAX ? "..." : "");
  }
  return st != LTH_OK ? st : next(p);
}

static lth_status parse_name(parser *p) {
  size_t b = p->tok.start, n = p->tok.end - b, q = p->tok.end;
  int op = find_function(p);
  if (op >= 0) {
    return parse_call(p, op, b);
  }
  while (at(p, q) == ' ' || at(p, q) == '\t') {
    q++;
  }
  if (at(p, q) == '(') {
    return parse_error(p, b, "unknown function '%.*s%s'", (int)(n > SHOW_MAX ? SHOW_MAX : n),
                       p->s + b, n > SHOW_MAX ? "..." : "");
  }
  return parse_variable(p);
}

/* after: what came before this operand, for messages (NULL at the start). */
static lth_status parse_primary(parser *p, const char *after) {
  char shown[SHOW_MAX + 32];
  switch (p->tok.kind) {
  case TK_NUM: {
    lth_status st = push_const(p, p->tok.num, p->tok.start);
    return st != LTH_OK ? st : next(p);
  }
  case TK_NAME: return parse_name(p);
  case TK_END:
    if (!after) {
      return parse_error(p, p->tok.start, "empty expression");
    }
    return parse_error(p, p->tok.start, "expected an expression after %s", after);
  default:
    if (tok_is(p, '(')) {
      return parse_group(p);
    }
    show(p, &p->tok, shown, sizeof shown);
    return parse_error(p, p->tok.start, "expected an expression%s%s, found %s",
                       after ? " after " : "", after ? after : "", shown);
  }
}

/* power := primary [ '^' unary ]  (right-associative; 2^-1 allowed) */
static lth_status parse_power(parser *p, const char *after) {
  lth_status st = parse_primary(p, after);
  if (st != LTH_OK || !tok_is(p, '^')) {
    return st;
  }
  size_t pos = p->tok.start;
  int a = p->n - 1;
  st = next(p);
  if (st == LTH_OK) {
    st = parse_unary(p, "'^'");
  }
  return st != LTH_OK ? st : push_op(p, OP_POW, a, p->n - 1, pos);
}

/* unary := ('-' | '+') unary | power.  Every recursion cycle passes here, so
 * the depth limit here bounds the C stack on hostile input. */
static lth_status parse_unary(parser *p, const char *after) {
  if (++p->depth > MAX_DEPTH) {
    return parse_error(p, p->tok.start, "expression nested too deeply (more than %d levels)",
                       MAX_DEPTH);
  }
  lth_status st;
  if (tok_is(p, '-') || tok_is(p, '+')) {
    int neg = tok_is(p, '-');
    size_t pos = p->tok.start;
    st = next(p);
    if (st == LTH_OK) {
      st = parse_unary(p, neg ? "unary '-'" : "unary '+'");
    }
    if (st == LTH_OK && neg) {
      st = push_op(p, OP_NEG, p->n - 1, -1, pos);
    }
  } else {
    st = parse_power(p, after);
  }
  p->depth--;
  return st;
}

/* Left-associative binary levels: term := unary (('*'|'/') unary)*,
 * expr := term (('+'|'-') term)*. */
static lth_status parse_binary(parser *p, const char *after, int level) {
  const char *ops = level ? "*/" : "+-";
  lth_status st = level ? parse_unary(p, after) : parse_binary(p, after, 1);
  while (st == LTH_OK && p->tok.kind == TK_PUNCT && strchr(ops, at(p, p->tok.start))) {
    int c = at(p, p->tok.start);
    size_t pos = p->tok.start;
    int a = p->n - 1;
    const char *what = c == '+' ? "'+'" : c == '-' ? "'-'" : c == '*' ? "'*'" : "'/'";
    st = next(p);
    if (st == LTH_OK) {
      st = level ? parse_unary(p, what) : parse_binary(p, what, 1);
    }
    if (st == LTH_OK) {
      int op = c == '+' ? OP_ADD : c == '-' ? OP_SUB : c == '*' ? OP_MUL : OP_DIV;
      st = push_op(p, op, a, p->n - 1, pos);
    }
  }
  return st;
}

static lth_status parse_expr(parser *p, const char *after) { return parse_binary(p, after, 0); }

static lth_status parse_all(parser *p) {
  lth_status st = next(p);
  if (st == LTH_OK) {
    st = parse_expr(p, NULL);
  }
  if (st != LTH_OK || p->tok.kind == TK_END) {
    return st;
  }
  char shown[SHOW_MAX + 32];
  show(p, &p->tok, shown, sizeof shown);
  if (tok_is(p, ')')) {
    return parse_error(p, p->tok.start, "unexpected ')' without a matching '('");
  }
  return parse_error(p, p->tok.start, "unexpected %s after expression", shown);
}

/* Lay out the workspace: node i owns OP_NSERIES[op] series from off. */
static size_t layout(enode *nodes, int n) {
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    nodes[i].off = off;
    off += (size_t)OP_NSERIES[nodes[i].op];
  }
  return off;
}

/* Are the subtrees ending at nodes x and y (starting at sx, sy) the same
 * expression?  Postfix order: equal trees are equal runs of nodes. */
static int same_tree(const enode *nodes, int sx, int x, int sy, int y) {
  if (x - sx != y - sy) {
    return 0;
  }
  for (int k = 0; k <= x - sx; k++) {
    const enode *p = &nodes[sx + k], *q = &nodes[sy + k];
    int valued = p->op == OP_CONST || p->op == OP_POWC;
    if (p->op != q->op || (valued && !(p->v == q->v)) || (p->a < 0) != (q->a < 0) ||
        (p->b < 0) != (q->b < 0) ||
        (p->a >= 0 && p->a - sx != q->a - sy) || (p->b >= 0 && p->b - sx != q->b - sy)) {
      return 0;
    }
  }
  return 1;
}

/* Mark x - x (enode.same); start[i]: first node of the subtree of node i. */
static int mark_same(enode *nodes, int n) {
  int *start = malloc(((size_t)n + 1) * sizeof *start);
  if (!start) {
    return 0;
  }
  for (int i = 0; i < n; i++) {
    enode *nd = &nodes[i];
    start[i] = nd->a >= 0 ? start[nd->a] : i;
    nd->same = nd->op == OP_SUB && same_tree(nodes, start[nd->a], nd->a, start[nd->b], nd->b);
  }
  free(start);
  return 1;
}

lth_status lth_expr_parse(const char *text, size_t len, lth_expr_lookup_fn lookup, void *ctx,
                          lth_expr **out, lth_error *err) {
  if (!out || (!text && len > 0)) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_expr_parse: NULL text or output pointer");
  }
  *out = NULL;
  parser p = {text ? text : "", len, 0, {TK_END, 0, 0, 0.0}, lookup, ctx, NULL, 0, 0, 0, err};
  if (len > MAX_TEXT_LEN) {
    return parse_error(&p, 0, "expression too long (%zu bytes)", len);
  }
  lth_status st = parse_all(&p);
  lth_expr *e = st == LTH_OK ? malloc(sizeof *e) : NULL;
  if (e && !mark_same(p.nodes, p.n)) {
    free(e);
    e = NULL;
  }
  if (st == LTH_OK && !e) {
    lth_error_clear(err);
    st = lth_error_set(err, LTH_ENOMEM, "out of memory while compiling an expression");
  }
  if (st != LTH_OK) {
    free(p.nodes);
    return st;
  }
  e->nodes = p.nodes;
  e->n = p.n;
  e->nseries = layout(e->nodes, e->n);
  *out = e;
  return LTH_OK;
}

void lth_expr_free(lth_expr *e) {
  if (e) {
    free(e->nodes);
    free(e);
  }
}

