/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of the expressions (include/lth/expr.h): the compiled form that
 * the builder (lib/jet/expr_build.c) writes and the Taylor-mode evaluator
 * (lib/jet/expr_taylor.c) and the enclosures (lib/jet/expr_enclose.c) run. */
#ifndef LTH_EXPR_IMPL_H
#define LTH_EXPR_IMPL_H

#include <stddef.h>

#include "lth/expr.h"

#define LTH_EXPR_PI 3.14159265358979323846

#if defined(__GNUC__)
#define LTH_PRINTF(i, j) __attribute__((format(printf, i, j)))
#else
#define LTH_PRINTF(i, j)
#endif

/* Operations.  The functions come in the order of LTH_EFN_* (lib/jet/expr_build.h):
 * OP_SIN + LTH_EFN_x is function x. */
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

#define FIRST_FUNC OP_SIN

typedef struct enode {
  int op;
  int a, b;   /* operand node indices (-1 if unused) */
  int col;    /* 1-based source column of the operator or function name */
  int dep;    /* depends on t */
  size_t off; /* first series of this node in the workspace */
  double v;   /* constant value, or the exponent of OP_POWC */
  int same;   /* OP_SUB: both operands are the same subexpression, so the
                 difference is exactly 0 (enclosures, lib/jet/expr_enclose.c) */
} enode;

struct lth_expr {
  enode *nodes;
  int n;
  size_t nseries; /* total series in the workspace */
};

/* Names of the operations for messages, and the series (of K+1 doubles
 * each) a node owns in the workspace: its value plus auxiliary series (cos
 * for sin, 1+T^2 for tan, sqrt(1-a^2) for asin, ...). */
extern const char *const lth_expr_op_names[OP_COUNT];
extern const int lth_expr_op_nseries[OP_COUNT];
#define OP_NAMES   lth_expr_op_names
#define OP_NSERIES lth_expr_op_nseries

/* One node's kernel call: operand series in, y (with its auxiliary series) out. */
typedef struct kargs {
  const enode *nd;
  const double *a, *b; /* operand series */
  double *y;           /* output (and auxiliary series after it) */
  int K;
  double t;
  lth_error *err;
} kargs;

/* A builder node as the jet layer's own walkers (lib/jet/expr_deriv.c) see
 * it: op (OP_*), operands (-1 if unused), constant or OP_POWC exponent,
 * dependence on t.  Returns 0 for an invalid id. */
struct lth_ebuild;
typedef struct lth_ebview {
  int op, a, b, dep;
  double v;
} lth_ebview;
int lth_ebuild_view(const struct lth_ebuild *b, int id, lth_ebview *out);

/* Evaluate one node (with its domain checks; errors name t and the column). */
lth_status lth_expr_eval_node(const kargs *k);

#endif
