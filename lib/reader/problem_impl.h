/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of the data-file reader.  The layers, in the order data flow:
 *
 *   text       problem_lex.c    bytes, comments, statements, positions, and a
 *                               cursor with the small scanners statements need;
 *   literals   problem_lit.c,   MATLAB-like values: the expression grammar of the
 *              problem_mat.c    jet layer (lib/jet/expr_grammar.h, one parser for
 *              problem_val.c,   every scalar expression) computing with matrices,
 *              problem_valmat.c plus matrix literals [ ] and eye, zeros, ...; the
 *                               values are matrices of linear forms in the
 *                               unknowns whose coefficients are constants or
 *                               expressions in t built with the jet layer's
 *                               builder (lib/jet/expr_build.h), never as text;
 *   statements problem.c        entry points, dispatch; problem_common.c: the
 *                               statements every kind shares, params;
 *                               problem_rhs.c: right-hand sides of blocks;
 *   front ends problem_block.c  the block form (`problem dae`, M(i)),
 *              problem_eqn.c    the equation form (`problem equations`), which
 *                               fills a model (lth/model.h: model*.c finds the
 *                               Hessenberg structure and builds the system),
 *              problem_bc.c     boundary conditions as equations, bc x(0) = 1;
 *              problem_lqr.c    `problem lqr`;
 *   user view  problem_vars.c   names, orders, free initial values;
 *   system     lth_system (lib/system/system.c), which the decomposition consumes.
 */
#ifndef LTH_PROBLEM_IMPL_H
#define LTH_PROBLEM_IMPL_H

#include <pthread.h>
#include <stddef.h>

#include "jet/expr_build.h"
#include "lth/expr.h"
#include "lth/source.h"
#include "lth/status.h"

#define LTH_P_MAX_FILE ((size_t)64 << 20) /* bytes in a data file */
#define LTH_P_MAX_LINE ((size_t)1 << 20)  /* bytes in one line */
#define LTH_P_MAX_DEP  1000000            /* t-dependent matrix entries per file */
#define LTH_P_MAX_OPS  2e8                /* entry operations per file (lth_pval_charge) */
/* Entry operations per expression node built or compiled: a node holds 32
 * bytes while the file is read and a compiled one runs at every t, so that
 * the budget admits 10^7 of them (a 1 MB formula of 120,000 terms uses
 * 1.3 10^6) and refuses formulas that grow through matrix products within
 * some 400 MB. */
#define LTH_P_NODE_OPS 16.0

#if defined(__GNUC__)
#define LTH_P_PRINTF(i, j) __attribute__((format(printf, i, j)))
#else
#define LTH_P_PRINTF(i, j)
#endif

/* The text of a data file. */
typedef struct lth_ptext {
  const char *orig; /* the bytes as given (columns count UTF-8 characters here) */
  char *buf;        /* copy with comments and the CR of CR-LF blanked to spaces */
  size_t len;
  size_t start;     /* 3 after a UTF-8 byte order mark, else 0 */
  const char *name; /* file name for messages */
  int nlines;       /* number of the last line */
} lth_ptext;

/* Where the statement splitter stands. */
typedef struct lth_pscan {
  size_t pos; /* start of the next line */
  int line;   /* its number */
} lth_pscan;

/* One statement: bytes [b, e) of the text, starting on line `line`, whose
 * first byte is at line_start.  e is the end of the statement's last line. */
typedef struct lth_pstmt {
  size_t b, e;
  int line;
  size_t line_start;
} lth_pstmt;

/* A cursor over one statement, with what expressions need. */
typedef struct lth_pcur {
  const lth_ptext *tx;
  lth_pstmt st;
  size_t pos;
  lth_expr_lookup_fn lookup; /* params */
  void *ctx;
  size_t *ndep; /* running count of t-dependent entries */
  lth_error *err;
  double ops;               /* entry operations so far (lth_pval_charge) */
  lth_ebuild *eb;           /* the expressions in t the values hold (emptied after each
                               statement of the block form, but for the named functions':
                               its values are sources then) */
  struct lth_pfuncs *funcs; /* the named functions of t (problem_func.c), NULL if none */
} lth_pcur;

/* ---- text ---- */
lth_status lth_ptext_init(lth_ptext *tx, const char *text, size_t len, const char *name,
                          lth_error *err);
void lth_ptext_free(lth_ptext *tx);
/* Next statement: *found = 0 at the end of the text. */
lth_status lth_ptext_next(const lth_ptext *tx, lth_pscan *sc, lth_pstmt *st, int *found,
                          lth_error *err);
/* 1-based line and column (in characters) of byte pos of statement st. */
void lth_ptext_where(const lth_ptext *tx, const lth_pstmt *st, size_t pos, int *line, int *col);

/* ---- cursor ---- */
/* Error at byte pos of the current statement; returns status. */
lth_status lth_pcur_error(lth_pcur *c, size_t pos, lth_status status, const char *fmt, ...)
    LTH_P_PRINTF(4, 5);
/* Give an error record filled by another module the position of byte pos. */
lth_status lth_pcur_locate(lth_pcur *c, size_t pos, lth_status status);
/* "'word'" / "end of line" for the token at pos, for messages. */
void lth_pcur_show(const lth_pcur *c, size_t pos, char *buf, size_t size);
void lth_pcur_skip_ws(lth_pcur *c);
/* Next byte after blanks (-1 at the end of the statement); does not consume. */
int lth_pcur_peek(lth_pcur *c);
/* Read an identifier [A-Za-z_][A-Za-z0-9_]*: returns its length (0 if none). */
size_t lth_pcur_name(lth_pcur *c, size_t *b);
int lth_pcur_name_is(const lth_pcur *c, size_t b, size_t n, const char *word);
/* Consume the byte ch or fail with "expected <what>, found ...". */
lth_status lth_pcur_expect(lth_pcur *c, int ch, const char *what);
/* A decimal integer in [lo, hi]; what names it in messages. *at = its position. */
lth_status lth_pcur_int(lth_pcur *c, long lo, long hi, const char *what, long *value, size_t *at);
/* A blank-separated field (blanks inside parentheses do not end it). */
int lth_pcur_field(lth_pcur *c, size_t *b, size_t *e);
/* The statement must end here: "unexpected ... after <after>". */
lth_status lth_pcur_end(lth_pcur *c, const char *after);
/* Compile text [b, e): *ex is NULL and *value set for a constant. */
lth_status lth_pcur_expr(lth_pcur *c, size_t b, size_t e, lth_expr **ex, double *value);
/* A constant expression over [b, e) (what names it in the message if it uses t). */
lth_status lth_pcur_const(lth_pcur *c, size_t b, size_t e, const char *what, double *value);
/* Position of the first name t in [b, e) (b if none). */
size_t lth_pcur_find_t(const lth_pcur *c, size_t b, size_t e);

/* ---- values (problem_val.c, problem_valmat.c) ----
 * What a right-hand side or a side of an equation evaluates to: a matrix
 * (a scalar is 1 x 1) whose entries are affine in the unknowns of the
 * equation form (none in the block form), with coefficients that are
 * constants or expressions in t.  A t-dependent coefficient is a node of the
 * file's expression builder (c->eb), combined by the builder's algebra
 * (lth_ebuild_combine): constants are folded as they arise, with the
 * arithmetic and errors of lib/jet, and multiplying by an exact 0 gives an
 * exact (structural) zero.  Nodes are shared, never copied, so a value costs
 * the operations that made it; lth_psc_compile turns a node into an
 * expression. */

/* A scalar: the constant v (node < 0) or the expression node in t, plus
 * sf * src(t) when src is set (a samples(...) term of the equation form;
 * src is owned by the problem). */
typedef struct lth_psc {
  double v;
  int node;
  const lth_source *src;
  double sf;
} lth_psc;

#define LTH_PSC_CONST(v) ((lth_psc){(v), -1, NULL, 0.0})

/* A term c * x^(order) of a linear form (x = unknown number var). */
typedef struct lth_pterm {
  int var, order;
  lth_psc c;
} lth_pterm;

/* c0 + sum of terms, sorted by (var, order), no duplicates. */
typedef struct lth_plin {
  lth_psc c0;
  lth_pterm *t;
  int n;
} lth_plin;

/* A sparse value (problem_valsp.c): sum_k c_k M_k, scalars c_k (constants
 * or expressions in t, no samples, no unknowns) times constant sparse
 * matrices M_k read by mm("file.mtx") (owned). */
struct lth_csc;
typedef struct lth_psterm {
  lth_psc c;
  struct lth_csc *m;
} lth_psterm;
typedef struct lth_psparse {
  int n, cap;
  lth_psterm *t;
  int dense_ok; /* made of eye and constant literals alone (no mm(...)): may
                 * become a dense value where a sparse one cannot go
                 * (lth_pval_eye_dense) */
} lth_psparse;

/* A matrix value.  Entry k (row-major) is val[k] when ext is NULL or
 * ext[k] is NULL, else the linear form *ext[k] (val[k] is then 0).  A
 * sparse value (sp != NULL) is rows x cols with no val and no ext. */
typedef struct lth_pval {
  int rows, cols;
  double *val;
  lth_plin **ext;
  lth_psparse *sp;
} lth_pval;

/* Names of unknowns for messages (the equation form), NULL in the block form. */
typedef const char *(*lth_pvar_name_fn)(void *ctx, int var, int order, char *buf, size_t size);

/* Context of value operations: errors go to the cursor at the operator. */
typedef struct lth_pvctx {
  lth_pcur *c;
  lth_pvar_name_fn var_name;
  void *var_ctx;
  const char *what; /* what is parsed, for messages ("an output"); NULL: an equation */
} lth_pvctx;
/* What a message about linearity names: "the output", else "the equation"
 * (equations and boundary conditions). */
const char *lth_pvctx_subject(const lth_pvctx *x);

void lth_plin_free(lth_plin *l);
void lth_pval_free(lth_pval *v);
/* A rows x cols value of constants (zeros); rows*cols is checked against
 * LTH_P_MAX_ENTRIES (error at pos). */
lth_status lth_pval_zeros(const lth_pvctx *x, size_t pos, long rows, long cols, lth_pval *out);
/* 1 x 1 values: a constant, t, and the unknown var^(order). */
lth_status lth_pval_const(const lth_pvctx *x, size_t pos, double v, lth_pval *out);
lth_status lth_pval_t(const lth_pvctx *x, size_t pos, lth_pval *out);
lth_status lth_pval_unknown(const lth_pvctx *x, size_t pos, int var, int order, lth_pval *out);
/* 1 x 1: the sampled function src (1 x 1, not owned). */
lth_status lth_pval_samples(const lth_pvctx *x, size_t pos, const lth_source *src, lth_pval *out);
/* out = a op b for op in + - * / ^ (MATLAB rules: a scalar combines with a
 * matrix entrywise for + - and scales it for * and /; * of two matrices is
 * the matrix product; ^ and / need a scalar right operand, ^ a scalar base).
 * a and b are consumed (freed), also on failure. */
lth_status lth_pval_binop(const lth_pvctx *x, size_t pos, int op, lth_pval *a, lth_pval *b,
                          lth_pval *out);
/* In place: d/dt a entrywise (problem_deriv.c): a term c x^(o) becomes
 * c' x^(o) + c x^(o+1) (the product rule, c' exact: lth_ebuild_deriv), the
 * free term c0 becomes c0'; coefficients holding samples(...) are refused. */
lth_status lth_pval_deriv(const lth_pvctx *x, size_t pos, lth_pval *a);
/* In place: -a, a', and fn(a) for a scalar a without unknowns (fn: LTH_EFN_*,
 * lib/jet/expr_build.h). */
lth_status lth_pval_neg(const lth_pvctx *x, size_t pos, lth_pval *a);
lth_status lth_pval_transpose(const lth_pvctx *x, size_t pos, lth_pval *a);
lth_status lth_pval_func(const lth_pvctx *x, size_t pos, int fn, lth_pval *a);
/* [a, b] and [a; b]: consume a and b, result in a (error at pos). */
lth_status lth_pval_hcat(const lth_pvctx *x, size_t pos, lth_pval *a, lth_pval *b,
                         const char *what);
lth_status lth_pval_vcat(const lth_pvctx *x, size_t pos, lth_pval *a, lth_pval *b,
                         const char *what);
/* 1 if entry k is a constant (then *v is it). */
int lth_pval_entry_const(const lth_pval *a, size_t k, double *v);
/* 1 if some entry uses an unknown / depends on t. */
int lth_pval_has_unknowns(const lth_pval *a);
int lth_pval_has_t(const lth_pval *a);
/* A copy of the constants, column-major (ld = rows); needs no t, no unknowns. */
double *lth_pval_colmajor(const lth_pval *a);
/* Compile the scalar sign * s (no samples) into *e: its nodes are charged to
 * the budget (lth_pval_charge), a t-dependent one counts against
 * LTH_P_MAX_DEP (errors at pos). */
lth_status lth_psc_compile(lth_pcur *c, size_t pos, const lth_psc *s, double sign, lth_expr **e);
/* The value (no unknowns) as a source: constant, or expressions; error at pos. */
lth_status lth_pval_source(lth_pcur *c, size_t pos, const lth_pval *a, lth_source **out);

/* ---- sparse values (problem_valsp.c): mm("file.mtx") and their sums ----
 * Operations the value algebra routes here when an operand is sparse: sums
 * and differences of sparse values of one size (a constant dense matrix of
 * the size joins as a term of its nonzeros), scaling by a scalar function of
 * t (* on either side, / on the right), negation and transposes.  Everything
 * else (products of matrices, functions, powers, concatenation) is refused
 * at pos, naming what to write instead. */
/* 1 x 1 term: *m (moved, owned by out) with the coefficient 1. */
lth_status lth_pval_mm(const lth_pvctx *x, size_t pos, struct lth_csc *m, lth_pval *out);
/* a op b with a or b sparse; a and b are left to the caller. */
lth_status lth_pval_sparse_binop(const lth_pvctx *x, size_t pos, int op, lth_pval *a, lth_pval *b,
                                 lth_pval *out);
lth_status lth_pval_sparse_neg(const lth_pvctx *x, size_t pos, lth_pval *a);
lth_status lth_pval_sparse_transpose(const lth_pvctx *x, size_t pos, lth_pval *a);
/* The refusal of `what` (e.g. "sin(...)") applied to a sparse value. */
lth_status lth_pval_sparse_refuse(const lth_pvctx *x, size_t pos, const char *what);
/* In place: a sparse value made of eye and constants alone (sp->dense_ok)
 * as the dense value it stands for, where a sparse value cannot go (inside
 * [ ... ], an argument, a product with a matrix, a sum with a matrix that
 * depends on t); rows x cols is charged against LTH_P_MAX_ENTRIES.  Any
 * other value is left as it is (LTH_OK). */
lth_status lth_pval_eye_dense(const lth_pvctx *x, size_t pos, lth_pval *a);
void lth_psparse_free(lth_psparse *sp);
/* 1 if some coefficient depends on t. */
int lth_psparse_has_t(const lth_psparse *sp);
/* The sparse value as a source (lib/source/source_sparse.h); its matrices
 * move to the source.  Errors at pos. */
lth_status lth_pval_sparse_source(lth_pcur *c, size_t pos, lth_pval *a, lth_source **out);

/* Internals shared by problem_val.c (scalars, linear forms) and
 * problem_valmat.c (matrices).  Binary operations leave their operands
 * unchanged; op is one of + - * / ^. */
extern const lth_plin LTH_PLIN_ZERO;
static inline int lth_psc_is(const lth_psc *s, double v) {
  return s->node < 0 && !s->src && s->v == v;
}
static inline int lth_plin_pure(const lth_plin *l) { return l->n == 0; }
static inline int lth_plin_const(const lth_plin *l) {
  return l->n == 0 && l->c0.node < 0 && !l->c0.src;
}
lth_status lth_pval_nomem(const lth_pvctx *x, size_t pos);
/* Charge n entry operations to the file's budget LTH_P_MAX_OPS: entries
 * made, multiply-adds of matrix products, and LTH_P_NODE_OPS per expression
 * node built or compiled (what evaluating the data costs at every t), so that
 * hostile literals like eye(5000)*eye(5000) or formulas that grow through
 * matrix algebra fail fast instead of taking minutes or gigabytes. */
lth_status lth_pval_charge(const lth_pvctx *x, size_t pos, double n);
lth_status lth_pcur_charge(lth_pcur *c, size_t pos, double n);
lth_status lth_psc_const_binop(const lth_pvctx *x, size_t pos, int op, double a, double b,
                               double *v);
lth_status lth_psc_binop(const lth_pvctx *x, size_t pos, int op, const lth_psc *a, const lth_psc *b,
                         lth_psc *out);
lth_status lth_psc_func(const lth_pvctx *x, size_t pos, int fn, const lth_psc *a, lth_psc *out);
/* a op b for op + or - (zero coefficients drop their terms). */
lth_status lth_plin_add(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                        const lth_plin *b, lth_plin *out);
/* a op s (or s op a if s_left) for op * or /, s free of unknowns. */
lth_status lth_plin_scale(const lth_pvctx *x, size_t pos, int op, const lth_plin *a,
                          const lth_psc *s, int s_left, lth_plin *out);
/* a * b, one of them free of unknowns (else "not linear in the unknowns"). */
lth_status lth_plin_mul(const lth_pvctx *x, size_t pos, const lth_plin *a, const lth_plin *b,
                        lth_plin *out);
/* The first unknown of l for messages ("x1'"). */
const char *lth_plin_name(const lth_pvctx *x, const lth_plin *l, char *buf, size_t size);

/* ---- literals and expressions (problem_lit.c, problem_mat.c) ----
 * The right-hand side grammar (docs/equations.md) is the expression grammar
 * of lib/jet/expr_grammar.h (numbers, t, pi, params, + - * / ^, functions,
 * parentheses: its parser, precedence and messages), computing with lth_pval,
 * plus what MATLAB users write:
 *   postfix := "'" | ".'"                      (transpose; after a primary)
 *   primary := unknown["'"...] | [rows]        (derivatives of an unknown)
 *            | eye | eye(n) | eye(m,n) | zeros(m[,n]) | ones(m[,n]) | diag(v)
 *            | samples("file.csv")             (the equation form)
 *            | mm("file.mtx")                  (a block's right-hand side)
 * Inside [ ], entries are separated by ',' or blanks and rows by ';' or a
 * newline; blanks separate entries as in MATLAB (the grammar's blank rule):
 * `[1 -2]` has two entries, `[1 - 2]` and `[1 -  2]` one. */
struct lth_plp; /* the parser of one value (problem_lit.h) */
typedef struct lth_plit_opts {
  /* bare `eye`: the target's size, for messages its label; rows = 0: unknown */
  int eye_rows, eye_cols;
  const char *label;
  /* the equation form: unknown names, NULL in the block form */
  int (*lookup_var)(void *ctx, const char *name, size_t len);
  lth_pvar_name_fn var_name;
  void *var_ctx;
  int stop_at_eq; /* stop before a top-level '=' (left side of an equation) */
  /* samples("file.csv") as a coefficient (the equation form): parse the
   * call from the cursor (at the '(' after the name at name_pos) and give
   * the 1 x 1 source; NULL: samples(...) is not allowed inside expressions */
  lth_status (*samples)(void *ctx, size_t name_pos, const lth_source **out);
  void *samples_ctx;
  /* the named function being defined (problem_func.c): unknowns are refused */
  const char *function;
  /* x(T), x'(T) (boundary conditions, problem_bc.c): from the token after
   * the unknown var^(order) named at name_pos, parse the time and give the
   * number of the term in the linear forms; NULL: an unknown takes no
   * argument */
  lth_status (*unknown_at)(struct lth_plp *p, int var, int order, size_t name_pos, int *code);
  /* mm("file.mtx") (the right-hand side of a block, problem_rhs.c): parse
   * the call from the cursor (at the '(' after the name at name_pos) and
   * give the matrix; NULL: mm(...) is not allowed here */
  lth_status (*mm)(void *ctx, size_t name_pos, struct lth_csc **out);
  void *mm_ctx;
} lth_plit_opts;

/* Parse a value from the cursor to the end of the statement (or to '=').
 * On failure *out is empty and the error is positioned. */
lth_status lth_plit_parse(lth_pcur *c, const lth_plit_opts *o, lth_pval *out);
/* A named function's call NAME(...) at byte pos of the current statement, for
 * a parser with values of its own (the cost statements, problem_cost.c): 1
 * if the name at pos is a named function (or a use before its definition),
 * with its value in *out and *end the byte after the call, or an error in
 * *st; 0 if it is not one.  call: a '(' follows the name. */
int lth_plit_named(lth_pcur *c, const lth_plit_opts *o, size_t pos, int call, lth_pval *out,
                   size_t *end, lth_status *st);
/* lhs = rhs from the cursor (o->stop_at_eq is used for lhs): *out = lhs - rhs.
 * Without the '=', the error says `no_eq` at the cursor. */
lth_status lth_plit_parse_equation(lth_pcur *c, lth_plit_opts *o, const lth_pvctx *x,
                                   const char *no_eq, lth_pval *out);

/* ------------------------------------------------------------------------ */
/* Statement layer (problem.c, problem_common.c, problem_rhs.c and the front */
/* ends).                                                                   */

#include "lth/model.h"
#include "lth/plqr.h"
#include "lth/problem.h"
#include "source/source_affine.h"

#define LTH_P_MAX_BLOCKS     64
#define LTH_P_MAX_BLOCK_SIZE 100000L
#define LTH_P_MAX_ENTRIES    50000000.0 /* stored entries over the given blocks */
/* eye in a block's right-hand side is a sparse value of its diagonal from
 * this many rows on (nothing n x n, exact jets of c(t)*eye); smaller ones
 * stay dense, as every value of a small block is */
#define LTH_P_SPARSE_EYE_MIN     65
#define LTH_P_MAX_GRID           10000000L
#define LTH_P_MAX_SAMPLING_ORDER 20

typedef struct lth_spos {
  int line, col; /* line 0: not given */
} lth_spos;

typedef struct lth_psampled {
  char label[16];
  const lth_source *src;
  lth_spos at; /* the statement, for the coverage check */
  char *path;  /* as written in the file */
} lth_psampled;

struct lth_problem {
  lth_problem_kind kind;
  lth_system *sys;
  double t0, t1;
  double *grid;
  size_t ngrid;
  int K;
  double *z0;
  int nbc;
  double *B0, *B1, *beta;
  /* the bc matrices as compressed columns (problem_bcsparse.c): read so
   * from mm() files, or made from B0, B1 on the first lth_problem_bc_csc;
   * B0, B1 made from them on the first lth_problem_bc; bc_mu guards both */
  struct lth_csc *bcsp[2];
  pthread_mutex_t bc_mu;
  /* the equation form's bc (bc_listed): the entries k = i + col p of B0, B1
   * that its terms and the folding of index-1 unknowns wrote (repeats
   * allowed), so that the compressed columns are made from them alone --
   * reading the p x s zero pages costs memory on kernels that back a page
   * read with a page (1.6 GB at s = 10^4) */
  int bc_listed;
  size_t *bc_wrote[2], bc_nwrote[2], bc_capwrote[2];
  lth_psampled *sampled;
  size_t nsampled;
  /* `problem lqr` */
  lth_lqr_spec lqr;
  lth_source *lqr_src[4]; /* A, B, H (the system refers to them), and C when given as mm() */
  double *C, *x0;
  char *name;         /* the file's name in messages (lth_problem_lqr_check) */
  lth_spos lqr_at[4]; /* where A, B, H, C are given (line 0: not given) */
  /* mass matrices M(i) of the block form, i = 1..r-1 (the system's solve
   * sources refer to them); NULL where not given */
  lth_source **mass;
  int nmass;
  /* `problem equations`: the model the system comes from (it refers to it) */
  int form; /* LTH_FORM_BLOCKS or LTH_FORM_EQUATIONS */
  lth_model *model;
  /* sampled coefficients of the equation form (the model refers to them) */
  lth_source **eqsrc;
  size_t neqsrc, capeqsrc;
  /* inputs and outputs (problem_io.c): their names */
  char **inames, **onames;
  int nin, nout;
  /* the user's unknowns (problem_vars.c) */
  char **names;
  int nnames;
  int *perm, *iperm;
  /* the cost statements (problem_cost.c): cost refers to the sources and arrays */
  int has_cost;
  lth_plqr_cost cost;
  lth_source *cost_src[3]; /* W, l, c (NULL: zero) */
  double *cost_F, *cost_f;
};

typedef struct lth_pparam {
  char *name;
  size_t len;
  double value;
} lth_pparam;

enum {
  LTH_P_KIND_DAE = 1,
  LTH_P_KIND_LQR = 2,
  LTH_P_KIND_BOTH = 3, /* block form and LQR */
  LTH_P_KIND_EQN = 4,
  LTH_P_KIND_ALL = 7
};
enum { LTH_P_LQR_A, LTH_P_LQR_B, LTH_P_LQR_H, LTH_P_LQR_C };

/* The statement parser: what the statements have seen so far. */
typedef struct lth_pp {
  lth_ptext tx;
  lth_pcur c; /* the current statement */
  lth_problem *pb;
  lth_error *err;
  const char *basedir;
  int nstmt;
  lth_spos at_lth, at_problem, at_blocks, at_sizes, at_interval, at_grid, at_sampling, at_z0, at_x0;
  lth_spos at_bc[3];  /* B0, B1, beta */
  lth_spos at_lqr[4]; /* A, B, H, C */
  lth_spos *at_block; /* A(i,j) at (i-1)*r + j-1, f(i) at r*r + i-1 */
  lth_source **blk;   /* the blocks given, indexed as at_block, until the end */
  lth_spos *at_mass;  /* M(i) at i-1 */
  int r, nx, nu;
  double entries; /* rows*cols of the dense blocks given, nnz of the sparse ones */
  size_t ndep;
  long grid_n;      /* uniform grid (0: explicit points or default) */
  double *grid_pts; /* explicit grid */
  size_t ngrid_pts;
  int K_given;
  lth_spos at_noise; /* `sampling noise EPS [relative]` (lth/samples.h) */
  int noise_kind;
  double noise;
  size_t first_samples_line;
  lth_pparam *params;
  size_t nparams, pcap;
  size_t *slots; /* hash table of params: index + 1, 0 = empty */
  size_t nslots;
  size_t cap_sampled;
  struct lth_peqn *eqn;   /* the equation form's state (problem_eqn.c) */
  struct lth_pbc *bceq;   /* boundary conditions as equations (problem_bc.c) */
  struct lth_pio *io;     /* inputs and outputs (problem_io.c) */
  struct lth_piob *iob;   /* B(i), C, D of the block form (problem_ioblock.c) */
  struct lth_pcost *cost; /* the cost statements (problem_cost.c) */
  const lth_problem_opts *opts;
  int *override_used; /* per opts->params entry */
} lth_pp;

typedef lth_status (*lth_pp_handler)(lth_pp *P, size_t kw);

/* An error at byte pos of the current statement. */
#define LTH_PERR(P, pos, status, ...) lth_pcur_error(&(P)->c, (pos), (status), __VA_ARGS__)

/* ---- helpers (problem_common.c) ---- */
/* Line and column of byte pos of the current statement. */
lth_spos lth_pp_here(lth_pp *P, size_t pos);
/* An error at a recorded position (line 0: the file's last line). */
lth_status lth_pp_at_error(lth_pp *P, lth_spos at, lth_status status, const char *fmt, ...)
    LTH_P_PRINTF(4, 5);
/* Move an error another module reported to a recorded position, as an input
 * error (status codes that are not input errors become LTH_EPARSE). */
lth_status lth_pp_relocate(lth_pp *P, lth_spos at, lth_status st);
/* A statement that may be given once: records it, or fails naming the first. */
lth_status lth_pp_once(lth_pp *P, lth_spos *seen, size_t kw, const char *what);
/* t, pi, the functions and the builders (eye, zeros, ...): not names of params or unknowns. */
int lth_pp_reserved_name(const char *s, size_t n);
/* A param's value by name, 1 if it exists. */
int lth_pp_param_value(lth_pp *P, const char *s, size_t n, double *value);
/* Param lookup for expressions (ctx is the lth_pp). */
int lth_pp_param_lookup(void *ctx, const char *name, size_t len, double *value);
void lth_pp_params_free(lth_pp *P);
/* Budget against hostile sizes: the total of rows*cols over the blocks. */
lth_status lth_pp_charge_entries(lth_pp *P, size_t kw, int rows, int cols);

/* ---- statements every kind shares (problem_common.c) ---- */
lth_status lth_pp_st_lth(lth_pp *P, size_t kw);
lth_status lth_pp_st_problem(lth_pp *P, size_t kw);
lth_status lth_pp_st_interval(lth_pp *P, size_t kw);
lth_status lth_pp_st_grid(lth_pp *P, size_t kw);
lth_status lth_pp_st_param(lth_pp *P, size_t kw);
lth_status lth_pp_st_sampling(lth_pp *P, size_t kw);
/* Every `--param NAME=VALUE` override named a param of the file (LTH_EINVAL). */
lth_status lth_pp_check_overrides(lth_pp *P);
/* After the last statement: interval given, sampling order, grid, coverage. */
lth_status lth_pp_check_common(lth_pp *P);
/* Times where data are checked once the file is read (mass matrices,
 * structure): the grid (thinned to at most 100001 points) and 257 uniform
 * points of the interval, sorted, without repeats.  Caller frees. */
lth_status lth_pp_check_times(lth_pp *P, double **times, size_t *n);
/* A mass matrix error (LTH_ESING/LTH_ECOND from lth_source_solve_scan) as
 * an input error (LTH_EMODEL) at the statement `at`, keeping t and cond. */
lth_status lth_pp_mass_error(lth_pp *P, lth_spos at, lth_status st);

/* ---- right-hand sides (problem_rhs.c) ---- */
/* 1 if the right-hand side at the cursor may read as a sparse block (mm( or
 * eye in its text): such a block is charged by its stored entries once read
 * (lth_pp_charge_source), every other one by rows x cols before. */
int lth_pp_rhs_sparse_text(lth_pp *P);
/* Charge a block read as src: its stored entries if sparse, else rows x cols. */
lth_status lth_pp_charge_source(lth_pp *P, size_t kw, const lth_source *src);
/* The right-hand side of a block of rows x cols (lth_pp_parse_rhs), charged
 * to the file's entries: rows x cols before it is read, or what it stores
 * after (a sparse text, lth_pp_rhs_sparse_text); errors at kw. */
lth_status lth_pp_parse_block(lth_pp *P, size_t kw, const char *label, int rows, int cols,
                              lth_source **out, size_t *path_b, size_t *path_n);
/* The right-hand side of a block `label` of size rows x cols: a matrix
 * literal, `eye` (alone: the sparse lth_source_identity), mm("file.mtx")
 * combinations, samples("file.csv") or a bare expression (1 x 1).  For
 * sampled data *path_b, *path_n locate the file name in the text (*path_n = 0
 * otherwise). */
lth_status lth_pp_parse_rhs(lth_pp *P, const char *label, int rows, int cols, lth_source **out,
                            size_t *path_b, size_t *path_n);
/* samples("file.csv") from the '(' after the name: reads the CSV (rows x
 * cols, degree pb->K); to_end: nothing may follow. */
lth_status lth_pp_samples_call(lth_pp *P, const char *label, int rows, int cols, lth_source **out,
                               size_t *path_b, size_t *path_n, int to_end);
/* A constant matrix literal of the given size (rows < 0: a vector of -rows
 * entries, written as a row or a column); column-major copy in *out.
 * flags: LTH_PP_CONST_EYE lets a bare eye mean the identity of that size,
 * LTH_PP_CONST_MM allows mm("file.mtx") terms (with constant coefficients;
 * the value is made dense). */
#define LTH_PP_CONST_EYE 1
#define LTH_PP_CONST_MM  2
lth_status lth_pp_parse_const(lth_pp *P, const char *label, int rows, int cols, int flags,
                              double **out);
/* The same for a rows x cols matrix (rows > 0) that may stay sparse: a value
 * made of mm("file.mtx") terms with constant coefficients is summed into
 * *sp (compressed columns, nothing dense; *out NULL), any other as
 * lth_pp_parse_const with LTH_PP_CONST_MM (*sp NULL). */
lth_status lth_pp_parse_const_sparse(lth_pp *P, const char *label, int rows, int cols,
                                     double **out, struct lth_csc **sp);
/* Record a sampled block for error reports and the coverage check. */
lth_status lth_pp_add_sampled(lth_pp *P, const char *label, const lth_source *src, lth_spos at,
                              const char *path, size_t n);

/* ---- the block form, `problem dae` (problem_block.c) ---- */
lth_status lth_pp_st_blocks(lth_pp *P, size_t kw);
lth_status lth_pp_st_A(lth_pp *P, size_t kw); /* A(i,j) = ..., or the LQR `A = ...` */
lth_status lth_pp_st_f(lth_pp *P, size_t kw);
lth_status lth_pp_st_M(lth_pp *P, size_t kw);
lth_status lth_pp_st_z0(lth_pp *P, size_t kw);
lth_status lth_pp_st_bc(lth_pp *P, size_t kw);
lth_status lth_pp_finish_dae(lth_pp *P);

/* ---- the equation form, `problem equations` (problem_eqn.c) ---- */
lth_status lth_pp_eqn_begin(lth_pp *P, size_t kw);
/* 1 if the statement at name [b, b+n) is an equation (a declared unknown
 * or a param starts it, or no statement keyword does). */
int lth_pp_eqn_is_equation(lth_pp *P, size_t b, size_t n);
lth_status lth_pp_st_variables(lth_pp *P, size_t kw);
lth_status lth_pp_eqn_equation(lth_pp *P, size_t start);
lth_status lth_pp_eqn_z0(lth_pp *P, size_t kw);
lth_status lth_pp_eqn_bc(lth_pp *P, size_t kw, int which);
lth_status lth_pp_finish_eqn(lth_pp *P);
void lth_pp_eqn_free(lth_pp *P);
/* 1 if a param name is taken by an unknown (params and unknowns share names). */
int lth_pp_eqn_has_variable(lth_pp *P, const char *s, size_t n);
/* The unknowns and samples(...) of equations, for the values of other statements. */
void lth_pp_eqn_lit_opts(lth_pp *P, lth_plit_opts *o);

/* Compile sign * s into the model as coefficient (part, q, var); errors at `at`. */
lth_status lth_pp_eqn_put(lth_pp *P, lth_model *m, lth_spos at, lth_model_part part, int q, int var,
                          const lth_psc *s, double sign);

/* ---- inputs and outputs of the equation form (problem_io.c) ----
 * In the linear forms of equations and outputs, input k is the term of
 * var = LTH_P_INPUT_VAR + k. */
#define LTH_P_INPUT_VAR 0x40000000
lth_status lth_pp_st_inputs(lth_pp *P, size_t kw);
lth_status lth_pp_st_outputs(lth_pp *P, size_t kw);
/* 1 if the statement at name [b, b+n) reads INPUT(t) = ... for a declared input. */
int lth_pp_io_is_signal(lth_pp *P, size_t b, size_t n);
lth_status lth_pp_st_signal(lth_pp *P, size_t kw);
int lth_pp_io_find_input(lth_pp *P, const char *s, size_t n);
const char *lth_pp_io_input_name(lth_pp *P, int k);
/* The line of the input or output called s[0..n-1] (*what says which), 0 if none. */
int lth_pp_io_taken(lth_pp *P, const char *s, size_t n, const char **what);
/* Inputs, outputs and the outputs' coefficients into the model (base: the
 * model's index of each unknown as written). */
lth_status lth_pp_io_model(lth_pp *P, lth_model *m, const int *base);
/* The signals given into the system (which owns them). */
lth_status lth_pp_io_signals(lth_pp *P, lth_system *sys);
/* The names into the problem. */
lth_status lth_pp_io_names(lth_pp *P);
/* Inputs and outputs declared so far; where output k was named. */
int lth_pp_io_ninputs(const lth_pp *P);
int lth_pp_io_noutputs(const lth_pp *P);
lth_spos lth_pp_io_output_at(const lth_pp *P, int k);
lth_spos lth_pp_io_input_at(const lth_pp *P, int k);
/* ny outputs named y[1] .. y[ny] (the block form without `outputs`). */
lth_status lth_pp_io_default_outputs(lth_pp *P, int ny, lth_spos at);
/* Outputs by name (-1: none) and output k's name. */
int lth_pp_io_find_output(lth_pp *P, const char *s, size_t n);
const char *lth_pp_io_output_name(lth_pp *P, int k);
/* ---- the cost of an LQR design, `cost integral ...`, `cost final ...` (problem_cost.c) ---- */
/* 1 if the statement at name [b, b+n) is a cost statement: `cost` then
 * `integral` or `final`, or `cost` that names no unknown or param. */
int lth_pp_cost_is_statement(lth_pp *P, size_t b, size_t n);
lth_status lth_pp_st_cost(lth_pp *P, size_t kw);
/* Once the model is analysed: the cost as the problem's lth_plqr_cost
 * (positions in w = (z, u, y), the final cost at t1). */
lth_status lth_pp_cost_finish(lth_pp *P, const lth_model *m);
void lth_pp_cost_free(lth_pp *P);
/* Free what the problem holds of the cost. */
void lth_pp_cost_release(lth_problem *pb);
/* ---- inputs and outputs of the block form (problem_ioblock.c) ----
 * `inputs` and `u(t) = ...` as above, B(i) = ..., C = ..., D = ..., and
 * `outputs` as names for the rows of C and D. */
lth_status lth_pp_iob_B(lth_pp *P, size_t kw); /* B(i) = ... */
lth_status lth_pp_iob_C(lth_pp *P, size_t kw); /* C = ... */
lth_status lth_pp_st_D(lth_pp *P, size_t kw);  /* D = ... */
/* Line of the first B(i) or D (0: none), for `inputs` after them. */
int lth_pp_iob_used_line(const lth_pp *P);
/* The slot of B(i) until the end (NULL if B(i) was not given), for M(i). */
lth_source **lth_pp_iob_B_slot(lth_pp *P, int i);
/* Once the blocks are in the system: inputs, B, signals and outputs. */
lth_status lth_pp_iob_finish(lth_pp *P);
void lth_pp_iob_free(lth_pp *P);
void lth_pp_io_free(lth_pp *P);

/* ---- named functions of t, `k1(t) = 2 + 0.5*sin(t)` (problem_func.c) ---- */
/* 1 if the statement at name [b, b+n) reads NAME ( t ) = ... */
int lth_pp_func_is_def(lth_pp *P, size_t b, size_t n);
lth_status lth_pp_st_func(lth_pp *P, size_t kw);
/* The line of the named function s[0..n-1], 0 if there is none. */
int lth_pp_func_line(lth_pp *P, const char *s, size_t n);
/* Builder nodes to keep across statements (those of the named functions). */
size_t lth_pp_func_mark(const lth_pp *P);
void lth_pp_funcs_free(lth_pp *P);
/* The unknowns as written (no velocities): index by name (-1: none),
 * count, name, highest derivative in the equations so far. */
int lth_pp_eqn_find(lth_pp *P, const char *s, size_t n);
int lth_pp_eqn_nvars(const lth_pp *P);
const char *lth_pp_eqn_name(const lth_pp *P, int var);
int lth_pp_eqn_maxorder(const lth_pp *P, int var);

/* ---- boundary conditions as equations (problem_bc.c) ---- */
/* `bc x1(0) - 2*x2(t1) = 0.5` from the token after `bc` (the equation form). */
lth_status lth_pp_bc_equation(lth_pp *P, size_t kw);
/* Line of the first equation bc (0: none), for the matrix form's check. */
int lth_pp_bc_first_line(const lth_pp *P);
/* Once the model is analysed: the conditions as B0, B1, beta of the problem
 * (canonical order), exactly p of them. */
lth_status lth_pp_bc_finish(lth_pp *P, const lth_model *m);
void lth_pp_bc_free(lth_pp *P);

/* ---- the user's unknowns (problem_vars.c) ---- */
/* z0 (a vector) and bc (B0, B1, beta) of the equation form, written in the
 * order of the model's unknowns, into the problem in the canonical order. */
lth_status lth_pp_user_z0(lth_pp *P, const lth_pval *z, const lth_model *m);
lth_status lth_pp_user_bc(lth_pp *P, const lth_pval bc[3], const lth_model *m);
lth_status lth_pp_fold_index1(lth_pp *P, const lth_model *m, int p, int s);
/* lib/reader/problem_bcsparse.c: entry k of B0 (which = 0) or B1 was
 * written (pb->bc_listed); 0, or -1 when out of memory. */
int lth_problem_bc_wrote(lth_problem *pb, int which, size_t k);
/* Names and orders once the system exists. */
lth_status lth_pp_make_names(lth_pp *P);
void lth_pp_names_free(lth_problem *pb);

/* ---- `problem lqr` (problem_lqr.c) ---- */
lth_status lth_pp_st_sizes(lth_pp *P, size_t kw);
lth_status lth_pp_lqr_A(lth_pp *P, size_t kw);
lth_status lth_pp_st_B(lth_pp *P, size_t kw);
lth_status lth_pp_st_H(lth_pp *P, size_t kw);
lth_status lth_pp_st_C(lth_pp *P, size_t kw);
lth_status lth_pp_st_x0(lth_pp *P, size_t kw);
lth_status lth_pp_finish_lqr(lth_pp *P);

#endif
