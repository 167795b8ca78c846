/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Taylor-mode evaluation of compiled expressions (include/lth/expr.h): one
 * forward sweep over the nodes that lib/jet/expr_build.c compiles (operands
 * before their operation), each node a kernel with its domain checks.
 *
 * Taylor recurrences: Griewank & Walther, "Evaluating Derivatives", 2nd ed.,
 * ch. 13, written for x_m = x^{(m)}(t)/m!.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_impl.h"

const char *const lth_expr_op_names[OP_COUNT] = {
    "constant", "t",   "unary '-'", "'+'",  "'-'",  "'*'",  "'/'",  "'^'",  "'^'",  "sin",  "cos",
    "tan",      "exp", "log",       "sqrt", "sinh", "cosh", "tanh", "asin", "acos", "atan", "abs"};

/* Series (of K+1 doubles each) a node owns in the workspace: its value plus
 * auxiliary series (cos for sin, 1+T^2 for tan, sqrt(1-a^2) for asin, ...). */
const int lth_expr_op_nseries[OP_COUNT] = {1, 1, 1, 1, 1, 1, 1, 4, 3, 2, 2,
                                           2, 1, 1, 1, 2, 2, 2, 3, 3, 2, 1};

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */

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
    case OP_NEG:
      k->y[m] = -a[m];
      break;
    case OP_ADD:
      k->y[m] = a[m] + b[m];
      break;
    default:
      k->y[m] = a[m] - b[m];
      break;
    }
  }
}

static lth_status k_elementary(const kargs *k) {
  int K = k->K, op = k->nd->op;
  switch (op) {
  case OP_EXP:
    s_exp(k->a, k->y, K);
    return LTH_OK;
  case OP_LOG:
    return k_log(k);
  case OP_SQRT:
    return k_sqrt(k);
  case OP_ABS:
    return k_abs(k);
  case OP_SIN:
    s_sincos(k->a, k->y, AUX(k, 1), K, 0);
    return LTH_OK;
  case OP_COS:
    s_sincos(k->a, AUX(k, 1), k->y, K, 0);
    return LTH_OK;
  case OP_SINH:
    s_sincos(k->a, k->y, AUX(k, 1), K, 1);
    return LTH_OK;
  case OP_COSH:
    s_sincos(k->a, AUX(k, 1), k->y, K, 1);
    return LTH_OK;
  case OP_TAN:
    s_tan(k->a, k->y, AUX(k, 1), K, 1);
    return LTH_OK;
  case OP_TANH:
    s_tan(k->a, k->y, AUX(k, 1), K, -1);
    return LTH_OK;
  case OP_ASIN:
    return k_asin(k, 0);
  case OP_ACOS:
    return k_asin(k, 1);
  default:
    k_atan(k);
    return LTH_OK;
  }
}

static lth_status k_dispatch(const kargs *k) {
  switch (k->nd->op) {
  case OP_CONST:
    s_const(k->y, k->nd->v, k->K);
    return LTH_OK;
  case OP_T:
    s_const(k->y, k->t, k->K);
    if (k->K > 0) {
      k->y[1] = 1.0;
    }
    return LTH_OK;
  case OP_NEG:
  case OP_ADD:
  case OP_SUB:
    k_linear(k);
    return LTH_OK;
  case OP_MUL:
    s_mul(k->a, k->b, k->y, k->K);
    return LTH_OK;
  case OP_DIV:
    return k_div(k);
  case OP_POWC:
    return k_powc(k);
  case OP_POW:
    return k_pow(k);
  default:
    return k_elementary(k);
  }
}

/* Evaluate one node and reject non-finite results where they arise, so the
 * message names the operation that overflowed. */
lth_status lth_expr_eval_node(const kargs *k) {
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

lth_status lth_expr_taylor_all(const lth_expr *e, double t, int order, double *work,
                               lth_error *err) {
  size_t k1 = (size_t)order + 1;
  for (int i = 0; i < e->n; i++) {
    const enode *nd = &e->nodes[i];
    kargs k = {.nd = nd,
               .a = nd->a >= 0 ? work + e->nodes[nd->a].off * k1 : NULL,
               .b = nd->b >= 0 ? work + e->nodes[nd->b].off * k1 : NULL,
               .y = work + nd->off * k1,
               .K = order,
               .t = t,
               .err = err};
    lth_status st = lth_expr_eval_node(&k);
    if (st != LTH_OK) {
      return st;
    }
  }
  return LTH_OK;
}

lth_status lth_expr_taylor(const lth_expr *e, double t, int order, double *coef, double *work,
                           lth_error *err) {
  if (!e || !coef || !work || order < 0) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_expr_taylor: NULL argument or negative order");
  }
  lth_status st = lth_expr_taylor_all(e, t, order, work, err);
  if (st == LTH_OK) {
    size_t k1 = (size_t)order + 1;
    memcpy(coef, work + e->nodes[e->n - 1].off * k1, k1 * sizeof *coef);
  }
  return st;
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
