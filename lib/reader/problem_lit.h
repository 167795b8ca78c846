/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of the literal and expression parser: problem_lit.c
 * (tokens, expressions, the entry point) and problem_mat.c (matrix
 * literals and the builders eye, zeros, ones, diag). */
#ifndef LTH_PROBLEM_LIT_H
#define LTH_PROBLEM_LIT_H

#include "problem_impl.h"

#define LTH_PLIT_SHOW_MAX 24 /* longest token quoted in a message */

enum { T_END, T_NUM, T_NAME, T_OP, T_NL, T_OTHER };

typedef struct lth_ptok {
  int kind;
  size_t b, e;
  int ch;        /* T_OP: the operator; '.' + '\'' is 'T' */
  int sp_before; /* a blank right before */
  int sp_after;  /* a blank or line end right after */
} lth_ptok;

typedef struct lth_plp {
  lth_pcur *c;
  const lth_plit_opts *o;
  lth_pvctx x;
  lth_ptok tk;
  size_t pos;
  int bracket; /* at the top level of a [ ] (blanks separate entries) */
  int depth;
} lth_plp;

static inline int lth_plit_is_op(const lth_plp *p, int ch) {
  return p->tk.kind == T_OP && p->tk.ch == ch;
}

#define LTH_PLIT_ERR(p, pos, ...) lth_pcur_error((p)->c, (pos), LTH_EPARSE, __VA_ARGS__)

/* The next token into p->tk. */
void lth_plit_next(lth_plp *p);
/* "<what>, found <token>" with a hint for MATLAB habits. */
lth_status lth_plit_unexpected(lth_plp *p, const char *what);
/* A parenthesised part (bracket = 0; blanks insignificant) or a matrix
 * literal at '[' (bracket = 1), with the nesting depth bounded. */
lth_status lth_plit_nested(lth_plp *p, int bracket, const char *after, lth_pval *out);
/* ')' closing the '(' at open (v is freed on failure). */
lth_status lth_plit_expect_close(lth_plp *p, size_t open, lth_pval *v);
lth_status lth_plit_expr(lth_plp *p, const char *after, lth_pval *out);
lth_status lth_plit_matrix(lth_plp *p, lth_pval *out);
/* eye, zeros, ones, diag at the current name token. */
lth_status lth_plit_builder(lth_plp *p, const char *fn, lth_pval *out);

#endif
