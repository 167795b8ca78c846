/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Building expressions (include/lth/expr.h) without text: for the jet layer's
 * parser (lib/jet/expr.c) and for layers above that compute with expressions
 * (the data-file reader's matrix algebra, lib/reader/problem_val.c).
 *
 * A builder is an arena of immutable nodes; an expression under construction
 * is the id of its root node.  Nodes never change, so an id may be used in
 * any number of later expressions (a matrix product uses each entry of its
 * factors n times): subtrees are shared, never copied, and building costs one
 * node per operation whatever the operands' sizes.  lth_ebuild_compile turns
 * the nodes reachable from a root into a compiled expression, each shared
 * node once, in the order lth_expr_parse would emit a tree (operands before
 * their operation, the left one first).
 *
 * Two kinds of operation:
 *   - nodes as written (lth_ebuild_unary, lth_ebuild_binary): what the parser
 *     builds.  Operands that are all constants are folded (evaluated once by
 *     the run-time kernel); where that fails (log(-1), 1/0) the node stays,
 *     so the error comes, with t, when the expression is evaluated.  No other
 *     simplification: t*0 still depends on t.
 *   - the algebra (lth_ebuild_combine, lth_ebuild_apply): scalars that are a
 *     constant or a node, combined with exact zeros and ones (0*x = 0,
 *     x + 0 = x, 1*x = x, x/1 = x, 0/x = 0, x^0 = 1, x^1 = x, 0 - x = -x),
 *     so that structural zeros stay exact through matrix algebra; constants
 *     are folded at once and a failure is an error (LTH_EDOMAIN) here.
 */
#ifndef LTH_EXPR_BUILD_H
#define LTH_EXPR_BUILD_H

#include <stddef.h>

#include "lth/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The functions of the language (docs/format.md section 1.1), by index. */
enum {
  LTH_EFN_SIN,
  LTH_EFN_COS,
  LTH_EFN_TAN,
  LTH_EFN_EXP,
  LTH_EFN_LOG,
  LTH_EFN_SQRT,
  LTH_EFN_SINH,
  LTH_EFN_COSH,
  LTH_EFN_TANH,
  LTH_EFN_ASIN,
  LTH_EFN_ACOS,
  LTH_EFN_ATAN,
  LTH_EFN_ABS,
  LTH_EFN_COUNT
};
/* The function named name[0..len-1], or -1. */
int lth_expr_func_find(const char *name, size_t len);
const char *lth_expr_func_name(int fn);

typedef struct lth_ebuild lth_ebuild;

lth_ebuild *lth_ebuild_alloc(void);
void lth_ebuild_free(lth_ebuild *b);
/* Nodes built so far (the work done, and the memory held: 32 bytes each). */
size_t lth_ebuild_size(const lth_ebuild *b);
/* Forget every node (their ids become invalid); the storage is kept. */
void lth_ebuild_reset(lth_ebuild *b);
/* Forget the nodes built after the first n (ids >= n become invalid): what a
 * client keeps across uses (the data file's named functions) stays. */
void lth_ebuild_truncate(lth_ebuild *b, size_t n);

/* ---- nodes as written: ids >= 0, or -1 when out of memory ----
 * col: the 1-based column a domain error names (0: none).  Binary op is one
 * of '+' '-' '*' '/' '^'; a '^' whose exponent is a constant keeps it in the
 * node (integer powers are exact at a zero base, t^2 at t = 0). */
int lth_ebuild_const(lth_ebuild *b, double v, int col);
int lth_ebuild_t(lth_ebuild *b, int col);
int lth_ebuild_neg(lth_ebuild *b, int x, int col);
int lth_ebuild_func(lth_ebuild *b, int fn, int x, int col);
int lth_ebuild_binary(lth_ebuild *b, int op, int x, int y, int col);

/* 1 if node x is a constant (then *v is its value). */
int lth_ebuild_is_const(const lth_ebuild *b, int x, double *v);
int lth_ebuild_depends_on_t(const lth_ebuild *b, int x);

/* ---- the algebra ----
 * A scalar: the constant v (node < 0) or the expression node. */
typedef struct lth_escalar {
  double v;
  int node;
} lth_escalar;

/* *out = x op y (op as above) with exact zeros and ones; a constant result
 * has node < 0.  Constants: + - * / in double arithmetic, '^' by the
 * run-time kernel.  Errors (message in err, no position): LTH_EDOMAIN for a
 * constant outside a domain, a non-finite constant, or division by an exact
 * 0; LTH_ENOMEM. */
lth_status lth_ebuild_combine(lth_ebuild *b, int op, lth_escalar x, lth_escalar y, lth_escalar *out,
                              lth_error *err);
/* *out = -x, and *out = fn(x) (a constant is evaluated now, errors as above). */
lth_status lth_ebuild_negate(lth_ebuild *b, lth_escalar x, lth_escalar *out, lth_error *err);
lth_status lth_ebuild_apply(lth_ebuild *b, int fn, lth_escalar x, lth_escalar *out, lth_error *err);

/* ---- calculus (lib/jet/expr_deriv.c) ----
 * *out = d/dt x, built by the chain rule from the nodes of x with the
 * algebra above (so d/dt of a constant is an exact 0, of t an exact 1, and
 * d/dt (1 + 0.5*sin(t)) is the node 0.5*cos(t)): an ordinary expression, so
 * its Taylor coefficients are exact to rounding and its enclosures valid
 * like those of any expression.  Where x is not differentiable the
 * derivative fails when evaluated, naming t (|a|' = (a/|a|) a' at a = 0,
 * a^c' = c a^(c-1) a' at a = 0 for c < 1, sqrt' at 0, asin' at +-1).
 * *out = x with t replaced by the scalar arg (x(arg(t)), the same
 * operations on the new operands; constants fold, and a constant that
 * leaves a domain is an error here: log(t) at arg 0).  Shared subtrees are
 * visited once (the cost is the nodes of x), and neither recurses on the C
 * stack.  Errors: LTH_EDOMAIN (message in err), LTH_ENOMEM. */
lth_status lth_ebuild_deriv(lth_ebuild *b, lth_escalar x, lth_escalar *out, lth_error *err);
lth_status lth_ebuild_subst_t(lth_ebuild *b, lth_escalar x, lth_escalar arg, lth_escalar *out,
                              lth_error *err);
/* 1 if node x is t itself. */
int lth_ebuild_is_t(const lth_ebuild *b, int x);

/* ---- compiling ----
 * The expression of node root.  max_nodes bounds the compiled size (its
 * evaluation cost): LTH_EDIM beyond it.  *nodes (may be NULL) is the size. */
lth_status lth_ebuild_compile(lth_ebuild *b, int root, size_t max_nodes, lth_expr **out,
                              size_t *nodes, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
