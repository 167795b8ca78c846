/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of the literal parser: problem_lit.c (the reader's algebra and
 * extensions of the jet layer's expression grammar, lib/jet/expr_grammar.h,
 * and the entry point) and problem_mat.c (matrix literals and the builders
 * eye, zeros, ones, diag). */
#ifndef LTH_PROBLEM_LIT_H
#define LTH_PROBLEM_LIT_H

#include "jet/expr_grammar.h"
#include "problem_impl.h"

/* The parser of one value: the grammar's, with the reader's values. */
typedef struct lth_plp {
  lth_pcur *c;
  const lth_plit_opts *o;
  lth_pvctx x;
  lth_gparser g;    /* over the statement's text (byte offsets into c->tx->buf) */
  size_t named_end; /* the token after the last call of a named function */
} lth_plp;

#define LTH_PLIT_ERR(p, pos, ...) lth_pcur_error((p)->c, (pos), LTH_EPARSE, __VA_ARGS__)

/* The parser of a grammar callback. */
static inline lth_plp *lth_plit_of(lth_gparser *g) { return (lth_plp *)g->ctx; }

/* A value in the grammar's slot and back (the slot holds an lth_pval). */
void lth_plit_put(lth_gval *slot, const lth_pval *v);
lth_pval lth_plit_get(const lth_gval *slot);

/* A matrix literal at the current '[' (the blank rule on inside). */
lth_status lth_plit_matrix(lth_plp *p, lth_pval *out);
/* eye, zeros, ones, diag at the current name token (call: a '(' follows). */
lth_status lth_plit_builder(lth_plp *p, const char *fn, int call, lth_pval *out);
/* A named function of t at the current name token (problem_func.c): 1 if it
 * is one (or a use before its definition), with its value or an error. */
int lth_pfunc_name(lth_plp *p, int call, lth_pval *out, lth_status *st);
/* An expression (blanks insignificant), e.g. an argument of a builder. */
lth_status lth_plit_arg(lth_plp *p, const char *after, lth_pval *out);

#endif
