/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Scalar expressions in t: the one parser of the language (lib/jet/expr_grammar.h)
 * and lth_expr_parse (include/lth/expr.h), which parses with the expression
 * builder (lib/jet/expr_build.c) as its algebra.  Evaluation:
 * lib/jet/expr_taylor.c.
 *
 * The parser is recursive descent over a client's values: lth_expr_parse's
 * values are builder nodes, the data-file reader's are matrices of linear
 * forms (lib/reader/problem_lit.c), so both read the same language with the
 * same messages.
 *
 * lth_expr_parse: a node whose operands are all constants is evaluated at
 * once (order 0, same kernel as at run time) and replaced by a constant; if
 * that evaluation fails (log(-1), 1/0) the node is kept so the error is
 * reported, with t and column, when the expression is evaluated.  There is
 * no algebraic simplification, so t*0 still depends on t.  A syntax error at
 * the end of the text is reported at column len + 1.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_grammar.h"
#include "expr_impl.h"

#define MAX_DEPTH      LTH_GRAMMAR_MAX_DEPTH
#define MAX_NUMBER_LEN 100        /* longest number token accepted */
#define MAX_TEXT_LEN   (1u << 28) /* keeps node counts and columns in int range */
#define SHOW_MAX       40         /* longest token quoted in a message */

/* ------------------------------------------------------------------------ */
/* Messages                                                                 */

static lth_status report(lth_gparser *g, size_t pos, lth_status st, const char *msg) {
  if (g->gr->error) {
    return g->gr->error(g, pos, st, msg);
  }
  if (g->err) {
    lth_error_clear(g->err);
    lth_error_set(g->err, st, "%s", msg);
    lth_error_set_pos(g->err, NULL, 0, (int)pos + 1);
  }
  return st;
}

lth_status lth_gparser_error(lth_gparser *g, size_t pos, lth_status st, const char *fmt, ...) {
  char msg[LTH_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return report(g, pos, st, msg);
}

#define ERR(g, pos, ...) lth_gparser_error((g), (pos), LTH_EPARSE, __VA_ARGS__)

static int at(const lth_gparser *g, size_t i) { return i < g->len ? (unsigned char)g->s[i] : -1; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int is_blank(int c) { return c == ' ' || c == '\t'; }

/* The current token for a message: the client's way, or "name 'x'",
 * "'('", "end of input", "byte 0x0a"; at most SHOW_MAX bytes of it. */
static void show(const lth_gparser *g, char *buf, size_t size) {
  const lth_gtok *tk = &g->tok;
  if (g->gr->show) {
    g->gr->show(g, buf, size);
    return;
  }
  if (tk->kind == LTH_GTK_END) {
    snprintf(buf, size, "end of input");
    return;
  }
  int c = at(g, tk->start);
  if (tk->kind == LTH_GTK_OTHER && (c < 0x20 || c > 0x7e)) {
    snprintf(buf, size, "byte 0x%02x", (unsigned)c);
    return;
  }
  size_t n = tk->end - tk->start;
  const char *kind = tk->kind == LTH_GTK_NUM ? "number " : tk->kind == LTH_GTK_NAME ? "name " : "";
  snprintf(buf, size, "%s'%.*s%s'", kind, (int)(n > SHOW_MAX ? SHOW_MAX : n), g->s + tk->start,
           n > SHOW_MAX ? "..." : "");
}

lth_status lth_gparser_unexpected(lth_gparser *g, const char *what) {
  char shown[SHOW_MAX + 32];
  show(g, shown, sizeof shown);
  const char *hint = g->gr->hint ? g->gr->hint(g) : "";
  return ERR(g, g->tok.start, "%s, found %s%s", what, shown, hint ? hint : "");
}

/* ------------------------------------------------------------------------ */
/* Lexer                                                                    */

/* Convert a scanned pp-number (C-style: digits, letters, '_', '.', and a sign
 * after e/E) that must match digits [. digits] [e [+-] digits].  The '.' is
 * removed and the exponent adjusted, so strtod sees only digits and 'e' and
 * the result does not depend on the locale's decimal point. */
static lth_status convert_number(lth_gparser *g, size_t b, size_t e, double *out) {
  char buf[MAX_NUMBER_LEN + 32];
  size_t i = b, nd = 0;
  long frac = 0, ex = 0;
  int seen_dot = 0;
  for (; i < e && (is_digit(at(g, i)) || (at(g, i) == '.' && !seen_dot)); i++) {
    if (g->s[i] == '.') {
      seen_dot = 1;
      continue;
    }
    buf[nd++] = g->s[i];
    frac += seen_dot;
  }
  int ok = nd > 0;
  if (ok && i < e && (g->s[i] == 'e' || g->s[i] == 'E')) {
    i++;
    int neg = i < e && g->s[i] == '-';
    i += i < e && (g->s[i] == '-' || g->s[i] == '+');
    ok = i < e && is_digit(at(g, i));
    for (; i < e && is_digit(at(g, i)); i++) {
      ex = ex < 1000000 ? 10 * ex + (g->s[i] - '0') : ex; /* saturate: beyond any range */
    }
    ex = neg ? -ex : ex;
  }
  if (!ok || i != e) {
    size_t n = e - b;
    return ERR(g, b, "bad number '%.*s%s'", (int)(n > SHOW_MAX ? SHOW_MAX : n), g->s + b,
               n > SHOW_MAX ? "..." : "");
  }
  snprintf(buf + nd, sizeof buf - nd, "e%ld", ex - frac);
  *out = strtod(buf, NULL);
  if (!isfinite(*out)) {
    return ERR(g, b, "number out of range '%.*s'", (int)(e - b), g->s + b);
  }
  return LTH_OK;
}

static lth_status lex_number(lth_gparser *g) {
  size_t i = g->pos;
  while (i < g->len) {
    int c = at(g, i), prev = at(g, i - 1);
    int sign = (c == '+' || c == '-') && (prev == 'e' || prev == 'E');
    if (!(is_alnum(c) || c == '.' || sign)) {
      break;
    }
    i++;
  }
  g->tok.kind = LTH_GTK_NUM;
  g->tok.end = i;
  if (i - g->pos > MAX_NUMBER_LEN) {
    return ERR(g, g->pos, "number too long (more than %d characters)", MAX_NUMBER_LEN);
  }
  lth_status st = convert_number(g, g->pos, i, &g->tok.num);
  g->pos = i;
  return st;
}

/* Scan the token at pos into tok.  Only spaces and tabs separate tokens. */
static lth_status lex(lth_gparser *g) {
  size_t b = g->pos;
  while (is_blank(at(g, g->pos))) {
    g->pos++;
  }
  lth_gtok *tk = &g->tok;
  tk->sp_before = g->pos > b;
  tk->start = tk->end = g->pos;
  tk->num = 0.0;
  int c = at(g, g->pos);
  lth_status st = LTH_OK;
  if (c < 0) {
    tk->kind = LTH_GTK_END;
  } else if (is_digit(c) || (c == '.' && is_digit(at(g, g->pos + 1)))) {
    st = lex_number(g);
  } else if (is_alpha(c)) {
    while (is_alnum(at(g, g->pos))) {
      g->pos++;
    }
    tk->kind = LTH_GTK_NAME;
  } else {
    g->pos++;
    tk->kind = strchr("+-*/^()", c) ? LTH_GTK_PUNCT : LTH_GTK_OTHER;
  }
  tk->end = g->pos;
  int nx = at(g, g->pos);
  tk->sp_after = is_blank(nx) || nx == '\n' || nx < 0;
  return st;
}

lth_status lth_gparser_next(lth_gparser *g) { return lex(g); }

lth_status lth_gparser_seek(lth_gparser *g, size_t pos) {
  g->pos = pos < g->len ? pos : g->len;
  return lex(g);
}

int lth_gparser_at(const lth_gparser *g, int ch) {
  return (g->tok.kind == LTH_GTK_PUNCT || g->tok.kind == LTH_GTK_OTHER) &&
         at(g, g->tok.start) == ch;
}

lth_status lth_gparser_init(lth_gparser *g, const lth_grammar *gr, void *ctx, const char *s,
                            size_t len, size_t pos, lth_error *err) {
  memset(g, 0, sizeof *g);
  g->gr = gr;
  g->ctx = ctx;
  g->s = s ? s : "";
  g->len = s ? len : 0;
  g->pos = pos;
  g->err = err;
  return lex(g);
}

/* ------------------------------------------------------------------------ */
/* Recursive descent                                                        */

static lth_status parse_unary(lth_gparser *g, const char *after, lth_gval *out);

static void drop(lth_gparser *g, lth_gval *v) { g->gr->drop(g, v); }

lth_status lth_gparser_close(lth_gparser *g, size_t open, lth_gval *v) {
  if (lth_gparser_at(g, ')')) {
    lth_status st = lex(g);
    if (st != LTH_OK) {
      drop(g, v);
    }
    return st;
  }
  drop(g, v);
  char where[64], what[128];
  if (g->gr->where) {
    g->gr->where(g, open, where, sizeof where);
  } else {
    snprintf(where, sizeof where, "column %zu", open + 1);
  }
  snprintf(what, sizeof what, "expected ')' to close the '(' at %s", where);
  return lth_gparser_unexpected(g, what);
}

lth_status lth_gparser_nested(lth_gparser *g, int blanks, const char *after, lth_gval *out) {
  int saved = g->blanks;
  g->blanks = blanks;
  lth_status st = lth_gparser_expr(g, after, out);
  g->blanks = saved;
  return st;
}

/* "(" expr ")" at the current '(' (blanks insignificant inside). */
static lth_status parse_group(lth_gparser *g, lth_gval *out) {
  size_t open = g->tok.start;
  lth_status st = lex(g);
  if (st == LTH_OK) {
    st = lth_gparser_nested(g, 0, "'('", out);
  }
  return st != LTH_OK ? st : lth_gparser_close(g, open, out);
}

/* f(expr) at the name of function fn. */
static lth_status parse_call(lth_gparser *g, int fn, lth_gval *out) {
  size_t name_pos = g->tok.start;
  lth_status st = lex(g);
  if (st != LTH_OK) {
    return st;
  }
  if (!lth_gparser_at(g, '(')) {
    char what[64];
    snprintf(what, sizeof what, "expected '(' after function name '%s'", lth_expr_func_name(fn));
    return lth_gparser_unexpected(g, what);
  }
  st = parse_group(g, out);
  return st != LTH_OK ? st : g->gr->func(g, name_pos, fn, out);
}

/* A hint for a name a user may have meant as a number. */
static const char *name_hint(const char *s, size_t n) {
  if (n == 3 && (!memcmp(s, "Inf", 3) || !memcmp(s, "inf", 3) || !memcmp(s, "NaN", 3) ||
                 !memcmp(s, "nan", 3))) {
    return " (non-finite values are not allowed)";
  }
  if (n == 1 && s[0] == 'e') {
    return " (Euler's number is exp(1))";
  }
  return "";
}

/* A name followed by '(' (after blanks, which the blank rule forbids). */
static int is_call(const lth_gparser *g) {
  size_t q = g->tok.end;
  while (!g->blanks && is_blank(at(g, q))) {
    q++;
  }
  return at(g, q) == '(';
}

/* t, pi, a param, or the client's name; else unknown. */
static lth_status parse_name(lth_gparser *g, lth_gval *out) {
  const char *s = g->s + g->tok.start;
  size_t b = g->tok.start, n = g->tok.end - b;
  int len = (int)(n > SHOW_MAX ? SHOW_MAX : n), call = is_call(g);
  const char *more = n > SHOW_MAX ? "..." : "";
  double v = 0.0;
  lth_status st;
  int fn = lth_expr_func_find(s, n);
  if (fn >= 0) {
    return parse_call(g, fn, out);
  }
  if (n == 1 && s[0] == 't') {
    if (call) {
      return ERR(g, b, "t is the time, not a function: write t*(...) for a product");
    }
    st = g->gr->t(g, b, out);
  } else if (n == 2 && !memcmp(s, "pi", 2)) {
    if (call) {
      return ERR(g, b, "pi is a constant, not a function: write pi*(...) for a product");
    }
    st = g->gr->number(g, b, LTH_EXPR_PI, out);
  } else if (g->lookup && g->lookup(g->lookup_ctx, s, n, &v)) {
    if (!isfinite(v)) {
      return ERR(g, b, "parameter '%.*s%s' has a non-finite value", len, s, more);
    }
    if (call) {
      return ERR(g, b, "'%.*s%s' is a param, not a function: write %.*s%s*(...) for a product", len,
                 s, more, len, s, more);
    }
    st = g->gr->number(g, b, v, out);
  } else if (g->gr->name && g->gr->name(g, call, out, &st)) {
    return st;
  } else if (call) {
    return ERR(g, b, "unknown function '%.*s%s'", len, s, more);
  } else {
    const char *note = g->gr->unknown_note ? g->gr->unknown_note(g) : "";
    return ERR(g, b, "unknown name '%.*s%s'%s%s", len, s, more, note, name_hint(s, n));
  }
  if (st == LTH_OK && (st = lex(g)) != LTH_OK) {
    drop(g, out);
  }
  return st;
}

/* after: what came before this operand, for messages (NULL at the start). */
static lth_status parse_primary(lth_gparser *g, const char *after, lth_gval *out) {
  lth_status st;
  switch (g->tok.kind) {
  case LTH_GTK_NUM:
    st = g->gr->number(g, g->tok.start, g->tok.num, out);
    if (st == LTH_OK && (st = lex(g)) != LTH_OK) {
      drop(g, out);
    }
    return st;
  case LTH_GTK_NAME:
    return parse_name(g, out);
  case LTH_GTK_END:
    if (!after) {
      return ERR(g, g->tok.start, "empty expression");
    }
    return ERR(g, g->tok.start, "expected an expression after %s", after);
  default:
    if (lth_gparser_at(g, '(')) {
      return parse_group(g, out);
    }
    if (g->gr->primary && g->gr->primary(g, out, &st)) {
      return st;
    }
    if (!after) {
      return lth_gparser_unexpected(g, "expected an expression");
    }
    char what[64];
    snprintf(what, sizeof what, "expected an expression after %s", after);
    return lth_gparser_unexpected(g, what);
  }
}

/* power := primary postfix* ['^' unary] */
static lth_status parse_power(lth_gparser *g, const char *after, lth_gval *out) {
  lth_status st = parse_primary(g, after, out);
  if (st == LTH_OK && g->gr->postfix) {
    st = g->gr->postfix(g, out);
  }
  if (st != LTH_OK || !lth_gparser_at(g, '^')) {
    return st;
  }
  size_t pos = g->tok.start;
  lth_gval e;
  if ((st = lex(g)) != LTH_OK || (st = parse_unary(g, "'^'", &e)) != LTH_OK) {
    drop(g, out);
    return st;
  }
  lth_gval a = *out;
  return g->gr->binary(g, pos, '^', &a, &e, out);
}

/* unary := ('-' | '+') unary | power.  Every recursion cycle passes here, so
 * the depth limit here bounds the C stack on hostile input. */
static lth_status parse_unary(lth_gparser *g, const char *after, lth_gval *out) {
  if (++g->depth > MAX_DEPTH) {
    g->depth--;
    return ERR(g, g->tok.start, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
  }
  lth_status st;
  if (lth_gparser_at(g, '-') || lth_gparser_at(g, '+')) {
    int neg = lth_gparser_at(g, '-');
    size_t pos = g->tok.start;
    st = lex(g);
    if (st == LTH_OK) {
      st = parse_unary(g, neg ? "unary '-'" : "unary '+'", out);
    }
    if (st == LTH_OK && neg) {
      st = g->gr->neg(g, pos, out);
    }
  } else {
    st = parse_power(g, after, out);
  }
  g->depth--;
  return st;
}

/* A binary operator of this level (0: + -, 1: * /) that continues the
 * expression: under the blank rule, "+x" after a blank starts an entry. */
static int continues(const lth_gparser *g, int level) {
  const lth_gtok *tk = &g->tok;
  int c = at(g, tk->start);
  if (tk->kind != LTH_GTK_PUNCT || !strchr(level ? "*/" : "+-", c)) {
    return 0;
  }
  return level || !(g->blanks && tk->sp_before && !tk->sp_after);
}

/* Left-associative binary levels: term := unary (('*'|'/') unary)*,
 * expr := term (('+'|'-') term)*. */
static lth_status parse_binary(lth_gparser *g, const char *after, int level, lth_gval *out) {
  lth_status st = level ? parse_unary(g, after, out) : parse_binary(g, after, 1, out);
  while (st == LTH_OK && continues(g, level)) {
    int c = at(g, g->tok.start);
    size_t pos = g->tok.start;
    const char *what = c == '+' ? "'+'" : c == '-' ? "'-'" : c == '*' ? "'*'" : "'/'";
    lth_gval a = *out, b;
    if ((st = lex(g)) != LTH_OK) {
      drop(g, &a);
      return st;
    }
    if (c == '*' && lth_gparser_at(g, '*') && !g->tok.sp_before) {
      drop(g, &a);
      return ERR(g, pos, "'**' is not an operator: write '^' for a power");
    }
    st = level ? parse_unary(g, what, &b) : parse_binary(g, what, 1, &b);
    if (st != LTH_OK) {
      drop(g, &a);
      return st;
    }
    st = g->gr->binary(g, pos, c, &a, &b, out);
  }
  return st;
}

lth_status lth_gparser_expr(lth_gparser *g, const char *after, lth_gval *out) {
  return parse_binary(g, after, 0, out);
}

/* ------------------------------------------------------------------------ */
/* lth_expr_parse: the builder as the algebra                               */

static int col_of(size_t pos) { return (int)pos + 1; }

static lth_status built(lth_gparser *g, size_t pos, int node, lth_gval *out) {
  out->node = node;
  if (node < 0) {
    return lth_gparser_error(g, pos, LTH_ENOMEM, "out of memory while compiling an expression");
  }
  return LTH_OK;
}

static lth_status b_number(lth_gparser *g, size_t pos, double v, lth_gval *out) {
  return built(g, pos, lth_ebuild_const(g->ctx, v, col_of(pos)), out);
}

static lth_status b_t(lth_gparser *g, size_t pos, lth_gval *out) {
  return built(g, pos, lth_ebuild_t(g->ctx, col_of(pos)), out);
}

static lth_status b_neg(lth_gparser *g, size_t pos, lth_gval *a) {
  return built(g, pos, lth_ebuild_neg(g->ctx, a->node, col_of(pos)), a);
}

static lth_status b_binary(lth_gparser *g, size_t pos, int op, lth_gval *a, lth_gval *b,
                           lth_gval *out) {
  return built(g, pos, lth_ebuild_binary(g->ctx, op, a->node, b->node, col_of(pos)), out);
}

static lth_status b_func(lth_gparser *g, size_t pos, int fn, lth_gval *a) {
  return built(g, pos, lth_ebuild_func(g->ctx, fn, a->node, col_of(pos)), a);
}

static void b_drop(lth_gparser *g, lth_gval *v) {
  (void)g;
  v->node = -1; /* nodes live in the builder */
}

static const lth_grammar EXPR_GRAMMAR = {
    .number = b_number, .t = b_t, .neg = b_neg, .binary = b_binary, .func = b_func, .drop = b_drop};

/* The whole text is one expression. */
static lth_status parse_all(lth_gparser *g, lth_gval *out) {
  lth_status st = lth_gparser_expr(g, NULL, out);
  if (st != LTH_OK || g->tok.kind == LTH_GTK_END) {
    return st;
  }
  if (lth_gparser_at(g, ')')) {
    return ERR(g, g->tok.start, "unexpected ')' without a matching '('");
  }
  char shown[SHOW_MAX + 32];
  show(g, shown, sizeof shown);
  return ERR(g, g->tok.start, "unexpected %s after expression", shown);
}

lth_status lth_expr_parse(const char *text, size_t len, lth_expr_lookup_fn lookup, void *ctx,
                          lth_expr **out, lth_error *err) {
  if (!out || (!text && len > 0)) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_expr_parse: NULL text or output pointer");
  }
  *out = NULL;
  lth_ebuild *b = lth_ebuild_alloc();
  if (!b) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_ENOMEM, "out of memory while compiling an expression");
  }
  lth_gparser g;
  lth_gval root = {.node = -1};
  lth_status st;
  if (len > MAX_TEXT_LEN) {
    g = (lth_gparser){.gr = &EXPR_GRAMMAR,
                      .ctx = b,
                      .s = "",
                      .len = 0,
                      .pos = 0,
                      .depth = 0,
                      .blanks = 0,
                      .err = err};
    st = ERR(&g, 0, "expression too long (%zu bytes)", len);
  } else {
    st = lth_gparser_init(&g, &EXPR_GRAMMAR, b, text, len, 0, err);
    g.lookup = lookup;
    g.lookup_ctx = ctx;
    if (st == LTH_OK) {
      st = parse_all(&g, &root);
    }
  }
  if (st == LTH_OK) {
    st = lth_ebuild_compile(b, root.node, SIZE_MAX, out, NULL, err);
  }
  lth_ebuild_free(b);
  return st;
}

void lth_expr_free(lth_expr *e) {
  if (e) {
    free(e->nodes);
    free(e);
  }
}
