/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Scalar expressions in t: parser, compiler and Taylor-mode evaluation
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
 * Taylor recurrences: Griewank & Walther, "Evaluating Derivatives", 2nd ed.,
 * ch. 13, written for x_m = x^{(m)}(t)/m!.
 */
#include "lth/expr.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LTH_EXPR_PI 3.14159265358979323846
#define MAX_DEPTH 200           /* nesting levels (parentheses, unary signs, powers) */
#define MAX_NUMBER_LEN 100      /* longest number token accepted */
#define MAX_TEXT_LEN (1u << 28) /* keeps node counts and columns in int range */
#define SHOW_MAX 40             /* longest token quoted in a message */

/* Operations.  The order of the function entries matches FUNCS below. */
enum {
  OP_CONST,
  OP_T,
  OP_NEG,
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_POWC,
  OP_POW,
  OP_SIN,
  OP_COS,
  OP_TAN,
  OP_EXP,
  OP_LOG,
  OP_SQRT,
  OP_SINH,
  OP_COSH,
  OP_TANH,
  OP_ASIN,
  OP_ACOS,
  OP_ATAN,
  OP_ABS,
  OP_COUNT
};

static const char *const OP_NAMES[OP_COUNT] = {
    "constant", "t",   "unary '-'", "'+'",  "'-'",  "'*'",  "'/'",  "'^'",  "'^'",  "sin",  "cos",
    "tan",      "exp", "log",       "sqrt", "sinh", "cosh", "tanh", "asin", "acos", "atan", "abs"};

/* Series (of K+1 doubles each) a node owns in the workspace: its value plus
 * auxiliary series (cos for sin, 1+T^2 for tan, sqrt(1-a^2) for asin, ...). */
static const int OP_NSERIES[OP_COUNT] = {1, 1, 1, 1, 1, 1, 1, 4, 3, 2, 2,
                                         2, 1, 1, 1, 2, 2, 2, 3, 3, 2, 1};

#define FIRST_FUNC OP_SIN

typedef struct enode {
  int op;
  int a, b;   /* operand node indices (-1 if unused) */
  int col;    /* 1-based source column of the operator or function name */
  int dep;    /* depends on t */
  size_t off; /* first series of this node in the workspace */
  double v;   /* constant value, or the exponent of OP_POWC */
} enode;

struct lth_expr {
  enode *nodes;
  int n;
  size_t nseries; /* total series in the workspace */
};

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */

#if defined(__GNUC__)
#define LTH_PRINTF(i, j) __attribute__((format(printf, i, j)))
#else
#define LTH_PRINTF(i, j)
#endif

static lth_status domain_error(lth_error *err, double t, int col, const char *fmt, ...)
    LTH_PRINTF(4, 5);
static lth_status domain_error(lth_error *err, double t, int col, const char *fmt, ...) {
  if (!err) {
    return LTH_EDOMAIN;
  }
  char msg[LTH_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lth_error_clear(err);
  lth_error_set_t(err, LTH_EDOMAIN, t, "%s", msg);
  lth_error_set_pos(err, NULL, 0, col);
  return LTH_EDOMAIN;
}

/* ------------------------------------------------------------------------ */
/* Series kernels.  All take K (highest order) and write y[0..K].           */

static void s_mul(const double *a, const double *b, double *y, int K) {
  for (int m = 0; m <= K; m++) {
    double s = 0.0;
    for (int j = 0; j <= m; j++) {
      s += a[j] * b[m - j];
    }
    y[m] = s;
  }
}

/* y = a / b, b[0] != 0.  y may alias a (a_m is read before y_m is written). */
static void s_div(const double *a, const double *b, double *y, int K) {
  for (int m = 0; m <= K; m++) {
    double s = a[m];
    for (int j = 0; j < m; j++) {
      s -= y[j] * b[m - j];
    }
    y[m] = s / b[0];
  }
}

/* Orders 1..K of y = exp(a) given y[0]: y' = a' y. */
static void s_exp_tail(const double *a, double *y, int K) {
  for (int m = 1; m <= K; m++) {
    double s = 0.0;
    for (int j = 1; j <= m; j++) {
      s += j * a[j] * y[m - j];
    }
    y[m] = s / m;
  }
}

static void s_exp(const double *a, double *y, int K) {
  y[0] = exp(a[0]);
  s_exp_tail(a, y, K);
}

/* y = log(a), a[0] > 0: a y' = a'. */
static void s_log(const double *a, double *y, int K) {
  y[0] = log(a[0]);
  for (int m = 1; m <= K; m++) {
    double s = 0.0;
    for (int j = 1; j < m; j++) {
      s += j * y[j] * a[m - j];
    }
    y[m] = (a[m] - s / m) / a[0];
  }
}

/* y = sqrt(a), a[0] > 0 when K > 0: y^2 = a. */
static void s_sqrt(const double *a, double *y, int K) {
  y[0] = sqrt(a[0]);
  for (int m = 1; m <= K; m++) {
    double s = 0.0;
    for (int j = 1; j < m; j++) {
      s += y[j] * y[m - j];
    }
    y[m] = (a[m] - s) / (2.0 * y[0]);
  }
}

/* s = sin(a), c = cos(a) (hyp = 0) or sinh/cosh (hyp = 1):
 * s' = a' c, c' = -+ a' s. */
static void s_sincos(const double *a, double *s, double *c, int K, int hyp) {
  s[0] = hyp ? sinh(a[0]) : sin(a[0]);
  c[0] = hyp ? cosh(a[0]) : cos(a[0]);
  for (int m = 1; m <= K; m++) {
    double ss = 0.0, cs = 0.0;
    for (int j = 1; j <= m; j++) {
      ss += j * a[j] * c[m - j];
      cs += j * a[j] * s[m - j];
    }
    s[m] = ss / m;
    c[m] = (hyp ? cs : -cs) / m;
  }
}

/* T = tan(a) (sgn = 1) or tanh(a) (sgn = -1) through T' = u a' with
 * u = 1 + sgn T^2, built one order behind T. */
static void s_tan(const double *a, double *T, double *u, int K, int sgn) {
  T[0] = sgn > 0 ? tan(a[0]) : tanh(a[0]);
  u[0] = 1.0 + sgn * T[0] * T[0];
  for (int m = 1; m <= K; m++) {
    double s = 0.0;
    for (int j = 1; j <= m; j++) {
      s += j * a[j] * u[m - j];
    }
    T[m] = s / m;
    double q = 0.0;
    for (int j = 0; j <= m; j++) {
      q += T[j] * T[m - j];
    }
    u[m] = sgn * q;
  }
}

/* Orders 1..K of y from w y' = sgn a' (y[0] set by the caller), w[0] != 0:
 * m y_m w_0 = sgn m a_m - sum_{j=1}^{m-1} w_j (m-j) y_{m-j}. */
static void s_integrate_quotient(const double *a, const double *w, double *y, int K, double sgn) {
  for (int m = 1; m <= K; m++) {
    double s = sgn * m * a[m];
    for (int j = 1; j < m; j++) {
      s -= w[j] * (m - j) * y[m - j];
    }
    y[m] = s / (m * w[0]);
  }
}

/* y = a^b for constant b, a[0] != 0 (b real needs a[0] > 0): from a y' = b a' y,
 * y_m = (1/(m a_0)) sum_{j=1}^m (b j - (m - j)) a_j y_{m-j}. */
static void s_pow_rec(const double *a, double b, double *y, int K) {
  y[0] = pow(a[0], b);
  for (int m = 1; m <= K; m++) {
    double s = 0.0;
    for (int j = 1; j <= m; j++) {
      s += (b * j - (m - j)) * a[j] * y[m - j];
    }
    y[m] = s / (m * a[0]);
  }
}

static void s_const(double *y, double c, int K) {
  y[0] = c;
  for (int m = 1; m <= K; m++) {
    y[m] = 0.0;
  }
}

/* ------------------------------------------------------------------------ */
/* Node kernels with domain checks.  y has OP_NSERIES[op] series.            */

typedef struct kargs {
  const enode *nd;
  const double *a, *b; /* operand series */
  double *y;           /* output (and auxiliary series after it) */
  int K;
  double t;
  lth_error *err;
} kargs;

#define AUX(k, i) ((k)->y + (size_t)(i) * (size_t)((k)->K + 1))

/* a^n for an integer n, |n| <= 2^31, by repeated squaring: exact structure at
 * a_0 = 0 (t^2 at t = 0), which the power recurrence cannot handle. */
static lth_status k_powi(const kargs *k, double n) {
  int K = k->K;
  double *P = AUX(k, 1), *Q = AUX(k, 2), *S = AUX(k, 3);
  size_t bytes = (size_t)(K + 1) * sizeof(double);
  s_const(P, 1.0, K);
  memcpy(Q, k->a, bytes);
  for (unsigned long e = (unsigned long)fabs(n); e; e >>= 1) {
    if (e & 1u) {
      s_mul(P, Q, S, K);
      memcpy(P, S, bytes);
    }
    if (e > 1) {
      s_mul(Q, Q, S, K);
      memcpy(Q, S, bytes);
    }
  }
  if (n >= 0) {
    memcpy(k->y, P, bytes);
    return LTH_OK;
  }
  if (P[0] == 0.0) {
    return domain_error(k->err, k->t, k->nd->col,
                        "division by zero in '^': %g ^ %g underflows to 0", k->a[0], n);
  }
  s_const(S, 1.0, K);
  s_div(S, P, k->y, K);
  return LTH_OK;
}

static lth_status k_powc_int(const kargs *k, double n) {
  double a0 = k->a[0];
  if (a0 != 0.0 && fabs(n) > 64) {
    s_pow_rec(k->a, n, k->y, k->K); /* accurate pow() at order 0 for large n */
    return LTH_OK;
  }
  if (a0 == 0.0 && n < 0) {
    return domain_error(k->err, k->t, k->nd->col, "division by zero in '^': 0 ^ %g", n);
  }
  if (fabs(n) > 2147483648.0) {
    /* a_0 = 0, n > K: a^n = O(h^n) vanishes to every order we can hold */
    s_const(k->y, 0.0, k->K);
    return LTH_OK;
  }
  return k_powi(k, n);
}

static lth_status k_powc(const kargs *k) {
  double b = k->nd->v, a0 = k->a[0];
  if (b == floor(b)) {
    return k_powc_int(k, b);
  }
  if (a0 > 0.0) {
    s_pow_rec(k->a, b, k->y, k->K);
    return LTH_OK;
  }
  if (a0 == 0.0 && k->K == 0 && b > 0) {
    k->y[0] = 0.0;
    return LTH_OK;
  }
  return domain_error(k->err, k->t, k->nd->col,
                      "real power of a non-positive value in '^' (%g ^ %g)", a0, b);
}

/* a^b with b depending on t: exp(b log a). */
static lth_status k_pow(const kargs *k) {
  if (!(k->a[0] > 0.0)) {
    return domain_error(k->err, k->t, k->nd->col,
                        "real power of a non-positive value in '^' (base %g)", k->a[0]);
  }
  double *L = AUX(k, 1), *M = AUX(k, 2);
  s_log(k->a, L, k->K);
  s_mul(k->b, L, M, k->K);
  k->y[0] = pow(k->a[0], k->b[0]); /* more accurate than exp(M[0]) */
  s_exp_tail(M, k->y, k->K);
  return LTH_OK;
}

static lth_status k_div(const kargs *k) {
  if (k->b[0] == 0.0) {
    return domain_error(k->err, k->t, k->nd->col, "division by zero in '/' (%g / 0)", k->a[0]);
  }
  s_div(k->a, k->b, k->y, k->K);
  return LTH_OK;
}

static lth_status k_log(const kargs *k) {
  if (!(k->a[0] > 0.0)) {
    return domain_error(k->err, k->t, k->nd->col, "log of a non-positive value (%g)", k->a[0]);
  }
  s_log(k->a, k->y, k->K);
  return LTH_OK;
}

static lth_status k_sqrt(const kargs *k) {
  double a0 = k->a[0];
  if (a0 < 0.0) {
    return domain_error(k->err, k->t, k->nd->col, "sqrt of a negative value (%g)", a0);
  }
  if (a0 == 0.0 && k->K > 0) {
    return domain_error(k->err, k->t, k->nd->col,
                        "sqrt at 0 where derivatives are needed (not differentiable)");
  }
  s_sqrt(k->a, k->y, k->K);
  return LTH_OK;
}

static lth_status k_abs(const kargs *k) {
  double a0 = k->a[0];
  if (a0 == 0.0 && k->K > 0) {
    return domain_error(k->err, k->t, k->nd->col,
                        "abs at 0 where derivatives are needed (not differentiable)");
  }
  double sg = a0 < 0.0 ? -1.0 : 1.0;
  for (int m = 0; m <= k->K; m++) {
    k->y[m] = sg * k->a[m];
  }
  k->y[0] = fabs(a0); /* no -0 */
  return LTH_OK;
}

/* asin/acos: y' = -+ a' / w with w = sqrt(1 - a^2). */
static lth_status k_asin(const kargs *k, int is_acos) {
  const char *name = is_acos ? "acos" : "asin";
  double a0 = k->a[0];
  if (!(fabs(a0) <= 1.0)) {
    return domain_error(k->err, k->t, k->nd->col, "%s of a value outside [-1, 1] (%.17g)", name,
                        a0);
  }
  if (fabs(a0) == 1.0 && k->K > 0) {
    return domain_error(k->err, k->t, k->nd->col,
                        "%s at %g where derivatives are needed (not differentiable)", name, a0);
  }
  k->y[0] = is_acos ? acos(a0) : asin(a0);
  if (k->K == 0) {
    return LTH_OK;
  }
  double *U = AUX(k, 1), *W = AUX(k, 2);
  s_mul(k->a, k->a, U, k->K);
  for (int m = 0; m <= k->K; m++) {
    U[m] = -U[m];
  }
  U[0] = (1.0 - a0) * (1.0 + a0); /* accurate near |a0| = 1 */
  s_sqrt(U, W, k->K);
  s_integrate_quotient(k->a, W, k->y, k->K, is_acos ? -1.0 : 1.0);
  return LTH_OK;
}

/* atan: y' = a' / (1 + a^2). */
static void k_atan(const kargs *k) {
  double *W = AUX(k, 1);
  s_mul(k->a, k->a, W, k->K);
  W[0] += 1.0;
  k->y[0] = atan(k->a[0]);
  s_integrate_quotient(k->a, W, k->y, k->K, 1.0);
}

static void k_linear(const kargs *k) {
  const double *a = k->a, *b = k->b;
  for (int m = 0; m <= k->K; m++) {
    switch (k->nd->op) {
    case OP_NEG: k->y[m] = -a[m]; break;
    case OP_ADD: k->y[m] = a[m] + b[m]; break;
    default: k->y[m] = a[m] - b[m]; break;
    }
  }
}

static lth_status k_elementary(const kargs *k) {
  int K = k->K, op = k->nd->op;
  switch (op) {
  case OP_EXP: s_exp(k->a, k->y, K); return LTH_OK;
  case OP_LOG: return k_log(k);
  case OP_SQRT: return k_sqrt(k);
  case OP_ABS: return k_abs(k);
  case OP_SIN: s_sincos(k->a, k->y, AUX(k, 1), K, 0); return LTH_OK;
  case OP_COS: s_sincos(k->a, AUX(k, 1), k->y, K, 0); return LTH_OK;
  case OP_SINH: s_sincos(k->a, k->y, AUX(k, 1), K, 1); return LTH_OK;
  case OP_COSH: s_sincos(k->a, AUX(k, 1), k->y, K, 1); return LTH_OK;
  case OP_TAN: s_tan(k->a, k->y, AUX(k, 1), K, 1); return LTH_OK;
  case OP_TANH: s_tan(k->a, k->y, AUX(k, 1), K, -1); return LTH_OK;
  case OP_ASIN: return k_asin(k, 0);
  case OP_ACOS: return k_asin(k, 1);
  default: k_atan(k); return LTH_OK;
  }
}

static lth_status k_dispatch(const kargs *k) {
  switch (k->nd->op) {
  case OP_CONST: s_const(k->y, k->nd->v, k->K); return LTH_OK;
  case OP_T:
    s_const(k->y, k->t, k->K);
    if (k->K > 0) {
      k->y[1] = 1.0;
    }
    return LTH_OK;
  case OP_NEG:
  case OP_ADD:
  case OP_SUB: k_linear(k); return LTH_OK;
  case OP_MUL: s_mul(k->a, k->b, k->y, k->K); return LTH_OK;
  case OP_DIV: return k_div(k);
  case OP_POWC: return k_powc(k);
  case OP_POW: return k_pow(k);
  default: return k_elementary(k);
  }
}

/* Evaluate one node and reject non-finite results where they arise, so the
 * message names the operation that overflowed. */
static lth_status eval_node(const kargs *k) {
  lth_status st = k_dispatch(k);
  if (st != LTH_OK) {
    return st;
  }
  for (int m = 0; m <= k->K; m++) {
    if (!isfinite(k->y[m])) {
      if (k->nd->op == OP_T) {
        return domain_error(k->err, k->t, k->nd->col, "non-finite value of t");
      }
      return domain_error(k->err, k->t, k->nd->col,
                          "non-finite value from %s (Taylor coefficient %d is %g)",
                          OP_NAMES[k->nd->op], m, k->y[m]);
    }
  }
  return LTH_OK;
}

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
  enode nd = {OP_CONST, -1, -1, (int)pos + 1, 0, 0, v};
  return push(p, nd);
}

/* Try to evaluate a node whose operands are constants; 1 on success. */
static int fold(const enode *nd, const enode *a, const enode *b, double *value) {
  double y[8], av = a ? a->v : 0.0, bv = b ? b->v : 0.0;
  kargs k = {nd, &av, &bv, y, 0, 0.0, NULL};
  if (eval_node(&k) != LTH_OK) {
    return 0;
  }
  *value = y[0];
  return 1;
}

/* Append op applied to the last one (unary) or two (binary) subtrees.  The
 * operands' roots are found by walking back over postfix subtrees; constant
 * operands are single nodes at the end of the array, so folding pops them. */
static lth_status push_op(parser *p, int op, int a, int b, size_t pos) {
  enode nd = {op, a, b, (int)pos + 1, 0, 0, 0.0};
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
    enode nd = {OP_T, -1, -1, (int)b + 1, 1, 0, 0.0};
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

int lth_expr_depends_on_t(const lth_expr *e) { return e && e->n > 0 && e->nodes[e->n - 1].dep; }

size_t lth_expr_work_size(const lth_expr *e, int order) {
  if (!e || order < 0) {
    return 0;
  }
  size_t k1 = (size_t)order + 1;
  if (e->nseries > SIZE_MAX / k1) {
    return SIZE_MAX; /* no allocation can satisfy it */
  }
  return e->nseries * k1;
}

lth_status lth_expr_taylor(const lth_expr *e, double t, int order, double *coef, double *work,
                           lth_error *err) {
  if (!e || !coef || !work || order < 0) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_expr_taylor: NULL argument or negative order");
  }
  size_t k1 = (size_t)order + 1;
  for (int i = 0; i < e->n; i++) {
    const enode *nd = &e->nodes[i];
    kargs k = {nd,
               nd->a >= 0 ? work + e->nodes[nd->a].off * k1 : NULL,
               nd->b >= 0 ? work + e->nodes[nd->b].off * k1 : NULL,
               work + nd->off * k1,
               order,
               t,
               err};
    lth_status st = eval_node(&k);
    if (st != LTH_OK) {
      return st;
    }
  }
  memcpy(coef, work + e->nodes[e->n - 1].off * k1, k1 * sizeof *coef);
  return LTH_OK;
}

lth_status lth_expr_eval(const lth_expr *e, double t, double *value, lth_error *err) {
  if (!e || !value) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_expr_eval: NULL argument");
  }
  double *work = malloc(lth_expr_work_size(e, 0) * sizeof *work);
  if (!work) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_ENOMEM, "out of memory evaluating an expression");
  }
  lth_status st = lth_expr_taylor(e, t, 0, value, work, err);
  free(work);
  return st;
}
