/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of the data-file reader (lib/problem.c, lib/problem_lex.c).
 *
 * Reading a file has two layers.  problem_lex.c owns the text: it checks the
 * bytes (UTF-8, no control characters, limits), blanks comments, cuts the
 * text into statements (one line each, or several lines joined while a '['
 * is open), maps byte positions to line:column, and offers a cursor with the
 * small scanners every statement needs, including matrix literals whose
 * entries are compiled by lth_expr_parse.  problem.c gives the statements
 * their meaning and builds the lth_problem.
 */
#ifndef LTH_PROBLEM_IMPL_H
#define LTH_PROBLEM_IMPL_H

#include <stddef.h>

#include "lth/expr.h"
#include "lth/status.h"

#define LTH_P_MAX_FILE ((size_t)64 << 20) /* bytes in a data file */
#define LTH_P_MAX_LINE ((size_t)1 << 20)  /* bytes in one line */
#define LTH_P_MAX_DEP 250000              /* t-dependent matrix entries per file */

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
  size_t pos;        /* start of the next line */
  int line;          /* its number */
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
  size_t *ndep;              /* running count of t-dependent entries */
  lth_error *err;
} lth_pcur;

/* A matrix literal.  Constant entries are stored as values, t-dependent ones
 * as compiled expressions (their val[] is 0). */
typedef struct lth_pdep {
  size_t idx; /* row-major index */
  lth_expr *e;
} lth_pdep;

typedef struct lth_pmat {
  int rows, cols;
  double *val;      /* rows*cols, row-major */
  size_t n, cap;    /* entries stored so far */
  lth_pdep *dep;
  size_t ndep, depcap;
  size_t first_dep; /* byte position of the first t-dependent entry */
} lth_pmat;

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
lth_status lth_pcur_int(lth_pcur *c, long lo, long hi, const char *what, long *value,
                        size_t *at);
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

/* ---- matrix literals ---- */
/* Parse "[ ... ]" at the cursor (which must be at '['). */
lth_status lth_pmat_parse(lth_pcur *c, lth_pmat *m);
void lth_pmat_free(lth_pmat *m);

#endif
