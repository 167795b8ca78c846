/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The expression grammar (docs/format.md section 1.1), for clients that
 * compute with values of their own: lth_expr_parse builds expressions
 * (lib/jet/expr.c), the data-file reader matrices of linear forms
 * (lib/reader/problem_lit.c).  One lexer, one precedence, one set of
 * functions and one set of messages:
 *
 *   expr    := term (('+'|'-') term)*
 *   term    := unary (('*'|'/') unary)*
 *   unary   := ('-'|'+') unary | power
 *   power   := primary postfix* ['^' unary]     (right-associative; 2^-1 allowed)
 *   primary := number | t | pi | param | f '(' expr ')' | '(' expr ')'
 *            | what the client adds (names, '[')
 *
 * Numbers are scanned like C pp-numbers ("3.4.5", "2t" and "1e" are one bad
 * number); only spaces and tabs separate tokens; t, pi and the function names
 * are reserved.  Positions are byte offsets into the text; the client turns
 * them into lines and columns.  Nesting (parentheses, signs, powers, and the
 * client's brackets, which pass through unary) is bounded, so hostile input
 * cannot exhaust the C stack.
 *
 * MATLAB's blank rule (the client sets `blanks` inside a matrix literal): a
 * '+' or '-' with a blank before it and none after it ends the expression (it
 * starts the next entry: `[1 -2]`), and a name followed by '(' after a blank
 * is not a call.
 */
#ifndef LTH_EXPR_GRAMMAR_H
#define LTH_EXPR_GRAMMAR_H

#include <stddef.h>

#include "expr_build.h"
#include "lth/expr.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LTH_GRAMMAR_MAX_DEPTH 200 /* nesting levels */

enum { LTH_GTK_END, LTH_GTK_NUM, LTH_GTK_NAME, LTH_GTK_PUNCT, LTH_GTK_OTHER };

typedef struct lth_gtok {
  int kind;          /* LTH_GTK_*: PUNCT is one of + - * / ^ ( ), OTHER any other byte */
  size_t start, end; /* byte range in the text */
  double num;        /* LTH_GTK_NUM: the value */
  int sp_before;     /* a blank right before */
  int sp_after;      /* a blank, a line end or the end of the text right after */
} lth_gtok;

/* A value of the client's algebra; the parser holds operands in these. */
typedef union lth_gval {
  int node;
  void *ptr;
  unsigned char bytes[32];
  long long align_ll;
  double align_d;
} lth_gval;

typedef struct lth_gparser lth_gparser;

/* What a client supplies.  Every operation consumes its operands (drop), also
 * when it fails; a failing operation reports its error through
 * lth_gparser_error (or the client's own, positioned, record). */
typedef struct lth_grammar {
  lth_status (*number)(lth_gparser *g, size_t pos, double v, lth_gval *out); /* also pi, params */
  lth_status (*t)(lth_gparser *g, size_t pos, lth_gval *out);
  lth_status (*neg)(lth_gparser *g, size_t pos, lth_gval *a);
  lth_status (*binary)(lth_gparser *g, size_t pos, int op, lth_gval *a, lth_gval *b, lth_gval *out);
  lth_status (*func)(lth_gparser *g, size_t pos, int fn, lth_gval *a); /* fn: LTH_EFN_* */
  void (*drop)(lth_gparser *g, lth_gval *v);
  /* Optional (NULL: none). name: a name at the current token that is no
   * function, t, pi or param (call: a '(' follows it); primary: a token that
   * starts no expression of the language.  Each returns 1 if it is the
   * client's, with the value in *out or an error in *st, the parser then at
   * the token after it.  postfix: after each primary (transposes). */
  int (*name)(lth_gparser *g, int call, lth_gval *out, lth_status *st);
  int (*primary)(lth_gparser *g, lth_gval *out, lth_status *st);
  lth_status (*postfix)(lth_gparser *g, lth_gval *v);
  /* Messages (NULL: "name 'x'" and "end of input"; "column N"; no hint;
   * errors in the lth_error with column = byte offset + 1). */
  void (*show)(const lth_gparser *g, char *buf, size_t size); /* the current token */
  void (*where)(const lth_gparser *g, size_t pos, char *buf, size_t size);
  const char *(*hint)(const lth_gparser *g); /* after "found X" */
  lth_status (*error)(lth_gparser *g, size_t pos, lth_status st, const char *msg);
  const char *(*unknown_note)(const lth_gparser *g); /* after "unknown name 'x'" */
} lth_grammar;

struct lth_gparser {
  const lth_grammar *gr;
  void *ctx; /* the client's */
  lth_expr_lookup_fn lookup;
  void *lookup_ctx;
  const char *s; /* the text s[0..len-1] */
  size_t len, pos;
  lth_gtok tok; /* the current token; pos is its end */
  int depth;
  int blanks; /* MATLAB's blank rule */
  lth_error *err;
};

/* Start at byte pos of s[0..len-1] and read the first token. */
lth_status lth_gparser_init(lth_gparser *g, const lth_grammar *gr, void *ctx, const char *s,
                            size_t len, size_t pos, lth_error *err);
/* The next token; lth_gparser_seek: the token at byte pos. */
lth_status lth_gparser_next(lth_gparser *g);
lth_status lth_gparser_seek(lth_gparser *g, size_t pos);
/* 1 if the current token is the single byte ch. */
int lth_gparser_at(const lth_gparser *g, int ch);

/* One expression from the current token; it ends before the first token
 * that cannot continue it.  after: what precedes it, for messages (NULL at
 * the start).  On failure *out holds nothing. */
lth_status lth_gparser_expr(lth_gparser *g, const char *after, lth_gval *out);
/* The same with the blank rule set to `blanks` (restored after). */
lth_status lth_gparser_nested(lth_gparser *g, int blanks, const char *after, lth_gval *out);
/* ')' closing the '(' at byte open; v is dropped on failure. */
lth_status lth_gparser_close(lth_gparser *g, size_t open, lth_gval *v);

/* An error at byte pos (status st); "<what>, found <token><hint>" at the token. */
lth_status lth_gparser_error(lth_gparser *g, size_t pos, lth_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
lth_status lth_gparser_unexpected(lth_gparser *g, const char *what);

#ifdef __cplusplus
}
#endif
#endif
