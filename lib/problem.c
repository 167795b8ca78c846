/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files (include/lth/problem.h, docs/format.md section 1): statements and
 * the lth_problem they build.  The text layer is lib/problem_lex.c.
 *
 * Statement order rules (checked, each with a positioned message):
 *   - `lth 1` only as the first statement; `problem dae|lqr` before every
 *     statement except `lth 1`;
 *   - `blocks` (`sizes` for LQR) before any statement that needs the sizes
 *     (blocks, z0, bc, x0); `param` names before their use;
 *   - `sampling order` before the first samples(...) block (it fixes the
 *     degree of the fits);
 *   - `interval` and `grid` may come anywhere; checks that need both, and
 *     the coverage of sampled data, run once the file has been read.
 * Nothing is ignored: every statement is used or is an error.
 *
 * Defaults: kind dae; grid of 101 uniform points; sampled data fitted with
 * an automatic degree (`sampling order K` fixes it: at least r, at most 20)
 * and the noise level estimated from the data (`sampling noise EPS`
 * declares it); blocks not given are zero; LQR C = 0.
 * Literals: rows end at ';' or a newline, entries at ','; a newline right
 * after ',' continues the row; blank lines and a ';' before ']' are allowed.
 * Vectors (z0, x0, bc beta, grid points) may be written as a row or a column;
 * blocks must have their exact shape.  `eye` and samples("...") stand alone.
 * Text: UTF-8 (an initial byte order mark and CR-LF line ends are accepted),
 * '#' starts a comment except inside "..." (CSV names cannot contain '"');
 * columns in messages count characters.
 * Limits against hostile input: file 64 MiB, line 1 MiB, r <= 64, block
 * sizes <= 100000, 50 million block entries in total, 250000 entries that
 * depend on t, grid 10^7 points.
 */
#include "lth/problem.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/samples.h"
#include "problem_impl.h"

#define MAX_BLOCKS 64
#define MAX_BLOCK_SIZE 100000L
#define MAX_ENTRIES 50000000.0 /* sum of rows*cols over the given blocks */
#define MAX_GRID 10000000L
#define DEFAULT_GRID 101
#define MAX_SAMPLING_ORDER 20
#define SYM_TOL 1e-12

typedef struct spos {
  int line, col; /* line 0: not given */
} spos;

typedef struct sampled_entry {
  char label[16];
  const lth_source *src;
  spos at;    /* the statement, for the coverage check */
  char *path; /* as written in the file */
} sampled_entry;

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
  sampled_entry *sampled;
  size_t nsampled;
  /* `problem lqr` */
  lth_lqr_spec lqr;
  lth_source *lqr_src[3]; /* A, B, H (the system refers to them) */
  double *C, *x0;
};

typedef struct param {
  char *name;
  size_t len;
  double value;
} param;

enum { KIND_DAE = 1, KIND_LQR = 2, KIND_BOTH = 3 };
enum { LQR_A, LQR_B, LQR_H, LQR_C };

typedef struct parser {
  lth_ptext tx;
  lth_pcur c; /* the current statement */
  lth_problem *pb;
  lth_error *err;
  const char *basedir;
  int nstmt;
  spos at_lth, at_problem, at_blocks, at_sizes, at_interval, at_grid, at_sampling, at_z0, at_x0;
  spos at_bc[3];  /* B0, B1, beta */
  spos at_lqr[4]; /* A, B, H, C */
  spos *at_block; /* A(i,j) at (i-1)*r + j-1, f(i) at r*r + i-1 */
  int r, nx, nu;
  double entries; /* sum of rows*cols over the given blocks */
  size_t ndep;
  long grid_n;            /* uniform grid (0: explicit points or default) */
  double *grid_pts;       /* explicit grid */
  size_t ngrid_pts;
  int K_given;
  spos at_noise;              /* `sampling noise EPS [relative]` (lth/samples.h) */
  int noise_kind;
  double noise;
  size_t first_samples_line;
  param *params;
  size_t nparams, pcap;
  size_t *slots; /* hash table of params: index + 1, 0 = empty */
  size_t nslots;
  size_t cap_sampled;
} parser;

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */

static spos here(parser *P, size_t pos) {
  spos s;
  lth_ptext_where(&P->tx, &P->c.st, pos, &s.line, &s.col);
  return s;
}

#define PERR(P, pos, status, ...) lth_pcur_error(&(P)->c, (pos), (status), __VA_ARGS__)

/* An error at a recorded position (line 0: the file's last line). */
static lth_status at_error(parser *P, spos at, lth_status status, const char *fmt, ...)
    LTH_P_PRINTF(4, 5);
static lth_status at_error(parser *P, spos at, lth_status status, const char *fmt, ...) {
  if (P->err) {
    char msg[LTH_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    lth_error_clear(P->err);
    lth_error_set(P->err, status, "%s", msg);
    lth_error_set_pos(P->err, P->tx.name, at.line ? at.line : P->tx.nlines, at.line ? at.col : 0);
  }
  return status;
}

/* Move an error another module reported to a recorded position, as an input
 * error (status codes that are not input errors become LTH_EPARSE). */
static lth_status relocate(parser *P, spos at, lth_status st) {
  if (st != LTH_ENOMEM && lth_status_exit_code(st) != 2) {
    st = LTH_EPARSE;
  }
  if (P->err) {
    P->err->status = st;
    P->err->has_t = 0;
    lth_error_set_pos(P->err, P->tx.name, at.line ? at.line : P->tx.nlines, at.col);
  }
  return st;
}

static lth_status once(parser *P, spos *seen, size_t kw, const char *what) {
  if (seen->line) {
    return PERR(P, kw, LTH_EPARSE, "duplicate `%s` statement (first given on line %d)", what,
                seen->line);
  }
  *seen = here(P, kw);
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* Params: an open-addressing hash table, so lookups stay fast in big files */

static size_t name_hash(const char *s, size_t n) {
  size_t h = 1469598103934665603ULL & SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ (unsigned char)s[i]) * (1099511628211ULL & SIZE_MAX);
  }
  return h;
}

static param *param_find(const parser *P, const char *s, size_t n) {
  if (!P->nslots) {
    return NULL;
  }
  for (size_t k = name_hash(s, n) & (P->nslots - 1);; k = (k + 1) & (P->nslots - 1)) {
    size_t idx = P->slots[k];
    if (idx == 0) {
      return NULL;
    }
    param *pa = &P->params[idx - 1];
    if (pa->len == n && memcmp(pa->name, s, n) == 0) {
      return pa;
    }
  }
}

static int param_lookup(void *ctx, const char *name, size_t len, double *value) {
  param *pa = param_find(ctx, name, len);
  if (pa) {
    *value = pa->value;
  }
  return pa != NULL;
}

static int rehash(parser *P) {
  size_t ns = P->nslots ? 2 * P->nslots : 64;
  size_t *slots = calloc(ns, sizeof *slots);
  if (!slots) {
    return 0;
  }
  for (size_t i = 0; i < P->nparams; i++) {
    size_t k = name_hash(P->params[i].name, P->params[i].len) & (ns - 1);
    while (slots[k]) {
      k = (k + 1) & (ns - 1);
    }
    slots[k] = i + 1;
  }
  free(P->slots);
  P->slots = slots;
  P->nslots = ns;
  return 1;
}

static lth_status param_add(parser *P, const char *s, size_t n, double v, size_t pos) {
  if (P->nparams == P->pcap) {
    size_t cap = P->pcap ? 2 * P->pcap : 16;
    param *np = realloc(P->params, cap * sizeof *np);
    if (!np) {
      return PERR(P, pos, LTH_ENOMEM, "out of memory storing a param");
    }
    P->params = np;
    P->pcap = cap;
  }
  char *name = malloc(n + 1);
  if (!name) {
    return PERR(P, pos, LTH_ENOMEM, "out of memory storing a param");
  }
  memcpy(name, s, n);
  name[n] = '\0';
  P->params[P->nparams++] = (param){name, n, v};
  if (2 * P->nparams > P->nslots && !rehash(P)) {
    return PERR(P, pos, LTH_ENOMEM, "out of memory storing a param");
  }
  size_t k = name_hash(s, n) & (P->nslots - 1);
  while (P->slots[k] && P->slots[k] != P->nparams) {
    k = (k + 1) & (P->nslots - 1);
  }
  P->slots[k] = P->nparams;
  return LTH_OK;
}

static int reserved_name(const char *s, size_t n) {
  static const char *const words[] = {"t",    "pi",   "sin",  "cos",  "tan",     "exp",
                                      "log",  "sqrt", "sinh", "cosh", "tanh",    "asin",
                                      "acos", "atan", "abs",  "eye",  "samples"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0) {
      return 1;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Right-hand sides                                                         */

/* Row-major literal values to a column-major copy. */
static double *colmajor(const lth_pmat *m) {
  size_t n = (size_t)m->rows * (size_t)m->cols;
  double *a = malloc((n ? n : 1) * sizeof *a);
  if (a) {
    for (int i = 0; i < m->rows; i++) {
      for (int j = 0; j < m->cols; j++) {
        a[i + (size_t)j * m->rows] = m->val[(size_t)i * m->cols + j];
      }
    }
  }
  return a;
}

/* A source from a literal: constant if every entry is, else expressions
 * (constant nonzero entries become constant expressions; %.17g reads back
 * exactly).  The t-dependent expressions move into the source. */
static lth_source *mat_source(lth_pmat *m, lth_error *err) {
  size_t n = (size_t)m->rows * (size_t)m->cols;
  if (m->ndep == 0) {
    double *a = colmajor(m);
    lth_source *src = a ? lth_source_const(m->rows, m->cols, a, m->rows, err) : NULL;
    if (!a) {
      lth_error_set(err, LTH_ENOMEM, "out of memory building a constant block");
    }
    free(a);
    return src;
  }
  lth_expr **e = calloc(n, sizeof *e);
  if (!e) {
    lth_error_set(err, LTH_ENOMEM, "out of memory building an expression block");
    return NULL;
  }
  for (size_t k = 0; k < m->ndep; k++) {
    e[m->dep[k].idx] = m->dep[k].e;
    m->dep[k].e = NULL;
  }
  lth_status st = LTH_OK;
  for (size_t idx = 0; idx < n && st == LTH_OK; idx++) {
    if (!e[idx] && m->val[idx] != 0.0) {
      char num[40];
      snprintf(num, sizeof num, "%.17g", m->val[idx]);
      st = lth_expr_parse(num, strlen(num), NULL, NULL, &e[idx], err);
    }
  }
  /* reorder row-major -> column-major in place through a second array */
  lth_expr **cm = st == LTH_OK ? malloc(n * sizeof *cm) : NULL;
  if (!cm) {
    for (size_t k = 0; k < n; k++) {
      lth_expr_free(e[k]);
    }
    free(e);
    if (st == LTH_OK) {
      lth_error_set(err, LTH_ENOMEM, "out of memory building an expression block");
    }
    return NULL;
  }
  for (int i = 0; i < m->rows; i++) {
    for (int j = 0; j < m->cols; j++) {
      cm[i + (size_t)j * m->rows] = e[(size_t)i * m->cols + j];
    }
  }
  free(e);
  lth_source *src = lth_source_expr(m->rows, m->cols, cm, err);
  free(cm);
  return src;
}

/* Budget against hostile sizes: the total of rows*cols over the blocks. */
static lth_status charge_entries(parser *P, size_t kw, int rows, int cols) {
  P->entries += (double)rows * (double)cols;
  if (P->entries > MAX_ENTRIES) {
    return PERR(P, kw, LTH_EDIM,
                "the blocks hold more than %.0f million entries in total: too large for a data "
                "file",
                MAX_ENTRIES / 1e6);
  }
  return LTH_OK;
}

static char *join_path(const char *dir, const char *s, size_t n) {
  size_t dn = (dir && s[0] != '/') ? strlen(dir) : 0;
  char *p = malloc(dn + 1 + n + 1);
  if (p) {
    if (dn) {
      memcpy(p, dir, dn);
      p[dn++] = '/';
    }
    memcpy(p + dn, s, n);
    p[dn + n] = '\0';
  }
  return p;
}

static lth_status add_sampled(parser *P, const char *label, const lth_source *src, spos at,
                              const char *path, size_t n) {
  lth_problem *pb = P->pb;
  if (pb->nsampled == P->cap_sampled) {
    size_t cap = P->cap_sampled ? 2 * P->cap_sampled : 4;
    sampled_entry *ns = realloc(pb->sampled, cap * sizeof *ns);
    if (!ns) {
      return at_error(P, at, LTH_ENOMEM, "out of memory");
    }
    pb->sampled = ns;
    P->cap_sampled = cap;
  }
  sampled_entry *se = &pb->sampled[pb->nsampled];
  snprintf(se->label, sizeof se->label, "%s", label);
  se->src = src;
  se->at = at;
  se->path = join_path(NULL, path, n);
  if (!se->path) {
    return at_error(P, at, LTH_ENOMEM, "out of memory");
  }
  pb->nsampled++;
  return LTH_OK;
}

/* samples("file.csv"), the cursor after the word `samples`. */
static lth_status rhs_samples(parser *P, const char *label, int rows, int cols, lth_source **out,
                              size_t *path_b, size_t *path_n) {
  lth_pcur *c = &P->c;
  lth_status st = lth_pcur_expect(c, '(', "'(' after `samples`");
  if (st == LTH_OK) {
    st = lth_pcur_expect(c, '"', "a quoted CSV file name: samples(\"file.csv\")");
  }
  if (st != LTH_OK) {
    return st;
  }
  size_t b = c->pos;
  while (c->pos < c->st.e && c->tx->buf[c->pos] != '"' && c->tx->buf[c->pos] != '\n') {
    c->pos++;
  }
  if (c->pos >= c->st.e || c->tx->buf[c->pos] != '"') {
    return PERR(P, b - 1, LTH_EPARSE, "unterminated string: expected '\"' to end the file name");
  }
  if (c->pos == b) {
    return PERR(P, b - 1, LTH_EPARSE, "empty CSV file name in samples(\"\")");
  }
  size_t n = c->pos++ - b;
  st = lth_pcur_expect(c, ')', "')' after the file name");
  if (st == LTH_OK) {
    st = lth_pcur_end(c, "samples(...)");
  }
  if (st != LTH_OK) {
    return st;
  }
  char *path = join_path(P->basedir, c->tx->buf + b, n);
  if (!path) {
    return PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  lth_samples_opts so;
  lth_samples_opts_init(&so);
  so.degree = P->K_given ? P->pb->K : LTH_SAMPLES_AUTO;
  so.need_order = P->r; /* the decomposition and its check */
  so.noise_kind = P->noise_kind;
  so.noise = P->noise;
  *out = lth_samples_read_csv_opts(path, rows, cols, &so, P->err);
  free(path);
  *path_b = b;
  *path_n = n;
  if (*out) {
    return LTH_OK;
  }
  st = P->err ? P->err->status : LTH_ESAMPLE;
  if (!P->err || P->err->line == 0) {
    /* the file itself is the problem: point at its name in the data file */
    return lth_pcur_locate(c, b, st);
  }
  spos s = here(P, b);
  const char *base = strrchr(P->tx.name, '/'); /* the prefix has little room */
  lth_error_prefix(P->err, "%s = samples(\"%.*s\") on line %d of %s: ", label,
                   (int)(n > 32 ? 32 : n), c->tx->buf + b, s.line, base ? base + 1 : P->tx.name);
  return st;
}

/* The right-hand side of a block `label` of size rows x cols: a matrix
 * literal, `eye`, samples("file.csv") or a bare expression (1 x 1).  For
 * sampled data *path_b, *path_n locate the file name in the text (*path_n = 0
 * otherwise). */
static lth_status parse_rhs(parser *P, const char *label, int rows, int cols, lth_source **out,
                            size_t *path_b, size_t *path_n) {
  lth_pcur *c = &P->c;
  *out = NULL;
  *path_n = 0;
  size_t b, save = c->pos;
  lth_pcur_skip_ws(c);
  size_t rhs = c->pos;
  if (lth_pcur_peek(c) == '[') {
    lth_pmat m;
    lth_status st = lth_pmat_parse(c, &m);
    if (st != LTH_OK) {
      return st;
    }
    if (m.rows != rows || m.cols != cols) {
      st = PERR(P, rhs, LTH_EDIM, "%s is %d x %d, but the matrix literal is %d x %d", label, rows,
                cols, m.rows, m.cols);
    } else if ((st = lth_pcur_end(c, "the matrix literal")) == LTH_OK) {
      *out = mat_source(&m, P->err);
      st = *out ? LTH_OK : lth_pcur_locate(c, rhs, P->err ? P->err->status : LTH_ENOMEM);
    }
    lth_pmat_free(&m);
    return st;
  }
  size_t n = lth_pcur_name(c, &b);
  int next = lth_pcur_peek(c);
  if (n && lth_pcur_name_is(c, b, n, "eye") && next < 0) {
    if (rows != cols) {
      return PERR(P, b, LTH_EDIM, "`eye` needs a square block, but %s is %d x %d", label, rows,
                  cols);
    }
    *out = lth_source_identity(rows, cols, P->err);
    return *out ? LTH_OK : lth_pcur_locate(c, b, P->err ? P->err->status : LTH_ENOMEM);
  }
  if (n && lth_pcur_name_is(c, b, n, "samples") && next == '(') {
    if (!P->first_samples_line) {
      P->first_samples_line = (size_t)here(P, b).line;
    }
    return rhs_samples(P, label, rows, cols, out, path_b, path_n);
  }
  c->pos = save;
  if (rows != 1 || cols != 1) {
    return PERR(P, rhs, LTH_EDIM,
                "%s is %d x %d: give its entries as a matrix literal [ ... ] (a bare expression "
                "is a 1 x 1 block)",
                label, rows, cols);
  }
  lth_expr *x = NULL;
  double v = 0.0;
  lth_status st = lth_pcur_expr(c, rhs, c->st.e, &x, &v);
  if (st != LTH_OK) {
    return st;
  }
  c->pos = c->st.e;
  *out = x ? lth_source_expr(1, 1, &x, P->err) : lth_source_const(1, 1, &v, 1, P->err);
  return *out ? LTH_OK : lth_pcur_locate(c, rhs, P->err ? P->err->status : LTH_ENOMEM);
}

/* A constant matrix literal of the given size (rows or cols < 0: a vector of
 * -rows entries, written as a row or a column); column-major copy in *out. */
static lth_status parse_const(parser *P, const char *label, int rows, int cols, int allow_eye,
                              double **out) {
  lth_pcur *c = &P->c;
  size_t b;
  lth_pcur_skip_ws(c);
  size_t rhs = c->pos;
  if (allow_eye) {
    size_t n = lth_pcur_name(c, &b);
    if (n && lth_pcur_name_is(c, b, n, "eye") && lth_pcur_peek(c) < 0) {
      *out = calloc((size_t)rows * (size_t)cols, sizeof **out);
      if (!*out) {
        return PERR(P, b, LTH_ENOMEM, "out of memory");
      }
      for (int i = 0; i < rows && i < cols; i++) {
        (*out)[i + (size_t)i * rows] = 1.0;
      }
      return LTH_OK;
    }
    c->pos = rhs;
  }
  if (lth_pcur_peek(c) != '[') {
    char shown[64];
    lth_pcur_show(c, c->pos, shown, sizeof shown);
    return PERR(P, c->pos, LTH_EPARSE, "expected a constant matrix literal [ ... ] for %s, found %s",
                label, shown);
  }
  lth_pmat m;
  lth_status st = lth_pmat_parse(c, &m);
  if (st != LTH_OK) {
    return st;
  }
  int vec = rows < 0, ok;
  if (vec) {
    ok = (m.rows == 1 || m.cols == 1) && (long)m.rows * m.cols == -rows;
  } else {
    ok = m.rows == rows && m.cols == cols;
  }
  if (m.ndep) {
    st = PERR(P, m.first_dep, LTH_EPARSE, "%s must be constant, but this entry uses t", label);
  } else if (!ok && vec) {
    st = PERR(P, rhs, LTH_EDIM, "%s needs %d entries (a row or a column), found a %d x %d matrix",
              label, -rows, m.rows, m.cols);
  } else if (!ok) {
    st = PERR(P, rhs, LTH_EDIM, "%s must be %d x %d, found a %d x %d matrix", label, rows, cols,
              m.rows, m.cols);
  } else if ((st = lth_pcur_end(c, "the matrix literal")) == LTH_OK) {
    *out = colmajor(&m);
    st = *out ? LTH_OK : PERR(P, rhs, LTH_ENOMEM, "out of memory");
  }
  lth_pmat_free(&m);
  return st;
}

/* ------------------------------------------------------------------------ */
/* Statements; each starts with the cursor after its keyword at kw.         */

typedef lth_status (*handler)(parser *P, size_t kw);

static lth_status st_lth(parser *P, size_t kw) {
  long v;
  size_t at;
  if (P->nstmt != 0) {
    return PERR(P, kw, LTH_EPARSE, "`lth 1` may only be the first statement of a file");
  }
  P->at_lth = here(P, kw);
  lth_status st = lth_pcur_int(&P->c, 0, 1000000, "a format version after `lth`", &v, &at);
  if (st == LTH_OK && v != 1) {
    return PERR(P, at, LTH_EPARSE, "format version %ld is not supported: this reader knows "
                "version 1 (`lth 1`)", v);
  }
  return st != LTH_OK ? st : lth_pcur_end(&P->c, "the format version");
}

static lth_status st_problem(parser *P, size_t kw) {
  lth_status st = once(P, &P->at_problem, kw, "problem");
  if (st != LTH_OK) {
    return st;
  }
  if (P->nstmt > (P->at_lth.line ? 1 : 0)) {
    return PERR(P, kw, LTH_EPARSE,
                "`problem` must come before every other statement (only `lth 1` may precede "
                "it)");
  }
  size_t b, n = lth_pcur_name(&P->c, &b);
  if (n && lth_pcur_name_is(&P->c, b, n, "dae")) {
    P->pb->kind = LTH_PROBLEM_DAE;
  } else if (n && lth_pcur_name_is(&P->c, b, n, "lqr")) {
    P->pb->kind = LTH_PROBLEM_LQR;
    P->r = 3;
  } else {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return PERR(P, b, LTH_EPARSE, "expected `dae` or `lqr` after `problem`, found %s", shown);
  }
  return lth_pcur_end(&P->c, "the problem kind");
}

static lth_status st_blocks(parser *P, size_t kw) {
  int n[MAX_BLOCKS];
  size_t at[MAX_BLOCKS], pos;
  int r = 0;
  lth_status st = once(P, &P->at_blocks, kw, "blocks");
  while (st == LTH_OK && lth_pcur_peek(&P->c) >= 0) {
    long v;
    if (r == MAX_BLOCKS) {
      return PERR(P, P->c.pos, LTH_EDIM, "more than %d blocks: index r is at most %d", MAX_BLOCKS,
                  MAX_BLOCKS);
    }
    st = lth_pcur_int(&P->c, 1, MAX_BLOCK_SIZE, "a block size", &v, &pos);
    n[r] = (int)v;
    at[r++] = pos;
  }
  if (st != LTH_OK) {
    return st;
  }
  if (r < 2) {
    return PERR(P, r ? at[0] : P->c.pos, LTH_ESTRUCT,
                "`blocks` needs at least two sizes n_1 ... n_r: a Hessenberg DAE has index r >= "
                "2, found %d",
                r);
  }
  for (int i = 0; i < r - 1; i++) {
    if (n[r - 1] > n[i]) {
      return PERR(P, at[r - 1], LTH_EDIM,
                  "n_r = %d exceeds n_%d = %d: the last block (u) may not be larger than any "
                  "other, else Pi = A(r,r-1)...A(1,r) cannot be invertible",
                  n[r - 1], i + 1, n[i]);
    }
  }
  P->pb->sys = lth_system_alloc(r, n, P->err);
  P->at_block = calloc((size_t)r * (size_t)(r + 1), sizeof *P->at_block);
  if (!P->pb->sys || !P->at_block) {
    return P->pb->sys ? PERR(P, kw, LTH_ENOMEM, "out of memory")
                      : relocate(P, here(P, kw), P->err ? P->err->status : LTH_ENOMEM);
  }
  P->r = r;
  return LTH_OK;
}

static lth_status st_sizes(parser *P, size_t kw) {
  long nx, nu;
  size_t a, b;
  lth_status st = once(P, &P->at_sizes, kw, "sizes");
  if (st == LTH_OK) {
    st = lth_pcur_int(&P->c, 1, MAX_BLOCK_SIZE, "the state size nx", &nx, &a);
  }
  if (st == LTH_OK) {
    st = lth_pcur_int(&P->c, 1, MAX_BLOCK_SIZE, "the control size nu", &nu, &b);
  }
  if (st == LTH_OK && nu >= nx) {
    st = PERR(P, b, LTH_EDIM, "nu = %ld must be less than nx = %ld (`sizes nx nu`, nx > nu >= 1)",
              nu, nx);
  }
  if (st != LTH_OK || (st = lth_pcur_end(&P->c, "`sizes nx nu`")) != LTH_OK) {
    return st;
  }
  P->nx = (int)nx;
  P->nu = (int)nu;
  return LTH_OK;
}

/* A constant expression field of a statement ("t0" ...). */
static lth_status const_field(parser *P, const char *what, const char *stmt, double *v,
                              size_t *at) {
  size_t b, e;
  if (!lth_pcur_field(&P->c, &b, &e)) {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return PERR(P, b, LTH_EPARSE, "expected %s (`%s`), found %s", what, stmt, shown);
  }
  *at = b;
  return lth_pcur_const(&P->c, b, e, what, v);
}

static lth_status st_interval(parser *P, size_t kw) {
  double t0 = 0.0, t1 = 0.0;
  size_t a = 0, b = 0;
  lth_status st = once(P, &P->at_interval, kw, "interval");
  if (st == LTH_OK) {
    st = const_field(P, "t0", "interval t0 t1", &t0, &a);
  }
  if (st == LTH_OK) {
    st = const_field(P, "t1", "interval t0 t1", &t1, &b);
  }
  if (st == LTH_OK && !(t0 < t1)) {
    st = PERR(P, b, LTH_EPARSE, "the interval needs t0 < t1, found t0 = %.17g, t1 = %.17g", t0, t1);
  }
  if (st == LTH_OK && !isfinite(t1 - t0)) {
    st = PERR(P, b, LTH_EPARSE, "the interval [%g, %g] is too wide: t1 - t0 overflows", t0, t1);
  }
  if (st != LTH_OK || (st = lth_pcur_end(&P->c, "`interval t0 t1`")) != LTH_OK) {
    return st;
  }
  P->pb->t0 = t0;
  P->pb->t1 = t1;
  return LTH_OK;
}

static lth_status grid_points(parser *P) {
  lth_pcur *c = &P->c;
  size_t open = c->pos;
  lth_pmat m;
  lth_status st = lth_pmat_parse(c, &m);
  if (st != LTH_OK) {
    return st;
  }
  size_t n = (size_t)m.rows * (size_t)m.cols;
  if (m.ndep) {
    st = PERR(P, m.first_dep, LTH_EPARSE, "grid points must be constant, but this one uses t");
  } else if (m.rows != 1 && m.cols != 1) {
    st = PERR(P, open, LTH_EDIM, "grid points must be a row or a column, found a %d x %d matrix",
              m.rows, m.cols);
  } else if (n < 2 || n > (size_t)MAX_GRID) {
    st = PERR(P, open, LTH_EDIM, "a grid needs 2 to %ld points, found %zu", MAX_GRID, n);
  }
  for (size_t k = 1; st == LTH_OK && k < n; k++) {
    if (!(m.val[k] > m.val[k - 1])) {
      st = PERR(P, open, LTH_EPARSE,
                "grid points must be strictly increasing: point %zu (%.17g) is not greater than "
                "point %zu (%.17g)",
                k + 1, m.val[k], k, m.val[k - 1]);
    }
  }
  if (st == LTH_OK && (st = lth_pcur_end(c, "the grid points")) == LTH_OK) {
    P->grid_pts = m.val; /* a vector: row- and column-major agree */
    P->ngrid_pts = n;
    m.val = NULL;
  }
  lth_pmat_free(&m);
  return st;
}

static lth_status st_grid(parser *P, size_t kw) {
  lth_status st = once(P, &P->at_grid, kw, "grid");
  if (st != LTH_OK) {
    return st;
  }
  if (lth_pcur_peek(&P->c) == '[') {
    return grid_points(P);
  }
  size_t at;
  st = lth_pcur_int(&P->c, 2, MAX_GRID, "the number of grid points (or a list [t_1, t_2, ...])",
                    &P->grid_n, &at);
  return st != LTH_OK ? st : lth_pcur_end(&P->c, "the number of grid points");
}

static lth_status st_param(parser *P, size_t kw) {
  (void)kw;
  lth_pcur *c = &P->c;
  size_t b, n = lth_pcur_name(c, &b);
  char shown[64], what[80];
  if (!n) {
    lth_pcur_show(c, b, shown, sizeof shown);
    return PERR(P, b, LTH_EPARSE, "expected a name after `param`, found %s", shown);
  }
  if (reserved_name(c->tx->buf + b, n)) {
    return PERR(P, b, LTH_EPARSE,
                "'%.*s' cannot be a param name: t, pi, eye, samples and the function names are "
                "reserved",
                (int)n, c->tx->buf + b);
  }
  if (param_find(P, c->tx->buf + b, n)) {
    return PERR(P, b, LTH_EPARSE, "param '%.*s' is already defined", (int)(n > 40 ? 40 : n),
                c->tx->buf + b);
  }
  lth_status st = lth_pcur_expect(c, '=', "'=' after the param name");
  if (st != LTH_OK) {
    return st;
  }
  double v;
  snprintf(what, sizeof what, "param '%.*s'", (int)(n > 40 ? 40 : n), c->tx->buf + b);
  lth_pcur_skip_ws(c);
  st = lth_pcur_const(c, c->pos, c->st.e, what, &v);
  return st != LTH_OK ? st : param_add(P, c->tx->buf + b, n, v, b);
}

/* `sampling noise EPS [relative|absolute]`: the samples' noise level, declared
 * instead of estimated from the data (lth_samples_opts). */
static lth_status st_sampling_noise(parser *P, size_t kw) {
  lth_status st = once(P, &P->at_noise, kw, "sampling noise");
  if (st == LTH_OK && P->first_samples_line) {
    st = PERR(P, kw, LTH_EPARSE,
              "`sampling noise` must come before the first samples(...) block (line %zu): it "
              "sets how their fits are chosen",
              P->first_samples_line);
  }
  size_t b, e, wb, wn;
  if (st == LTH_OK && !lth_pcur_field(&P->c, &b, &e)) {
    st = PERR(P, P->c.pos, LTH_EPARSE, "expected a noise level after `sampling noise`");
  }
  double v = 0.0;
  if (st == LTH_OK && (st = lth_pcur_const(&P->c, b, e, "the noise level", &v)) == LTH_OK &&
      !(v >= 0.0 && v < 1e300)) {
    st = PERR(P, b, LTH_EPARSE, "the noise level must be a finite number >= 0, found %g", v);
  }
  if (st != LTH_OK) {
    return st;
  }
  P->noise = v;
  P->noise_kind = LTH_SAMPLES_NOISE_ABSOLUTE;
  if ((wn = lth_pcur_name(&P->c, &wb)) != 0) {
    if (lth_pcur_name_is(&P->c, wb, wn, "relative")) {
      P->noise_kind = LTH_SAMPLES_NOISE_RELATIVE;
    } else if (!lth_pcur_name_is(&P->c, wb, wn, "absolute")) {
      return PERR(P, wb, LTH_EPARSE,
                  "expected `relative`, `absolute` or the end of the line after the noise level");
    }
  }
  return lth_pcur_end(&P->c, "the noise level");
}

static lth_status st_sampling(parser *P, size_t kw) {
  size_t b, at, n = lth_pcur_name(&P->c, &b);
  long K;
  if (n && lth_pcur_name_is(&P->c, b, n, "noise")) {
    return st_sampling_noise(P, kw);
  }
  if (!n || !lth_pcur_name_is(&P->c, b, n, "order")) {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return PERR(P, b, LTH_EPARSE,
                "expected `order` or `noise` after `sampling` (`sampling order K`, `sampling "
                "noise EPS`), found %s",
                shown);
  }
  lth_status st = once(P, &P->at_sampling, kw, "sampling order");
  if (st == LTH_OK && P->first_samples_line) {
    st = PERR(P, kw, LTH_EPARSE,
              "`sampling order` must come before the first samples(...) block (line %zu): it "
              "sets the degree of their fits",
              P->first_samples_line);
  }
  if (st == LTH_OK) {
    st = lth_pcur_int(&P->c, 1, MAX_SAMPLING_ORDER, "the sampling order", &K, &at);
  }
  if (st != LTH_OK || (st = lth_pcur_end(&P->c, "the sampling order")) != LTH_OK) {
    return st;
  }
  P->pb->K = (int)K;
  P->K_given = 1;
  return LTH_OK;
}

/* "(i)" or "(i,j)" after a block name; what = "A" or "f". */
static lth_status block_index(parser *P, const char *what, int two, long *i, long *j) {
  size_t at;
  char shown[64];
  if (lth_pcur_peek(&P->c) != '(') {
    lth_pcur_show(&P->c, P->c.pos, shown, sizeof shown);
    return PERR(P, P->c.pos, LTH_EPARSE, "expected '(' after %s: a block is written %s, found %s",
                what, two ? "A(i,j) = ..." : "f(i) = ...", shown);
  }
  P->c.pos++;
  lth_status st = lth_pcur_int(&P->c, 0, 1000000, "a block index", i, &at);
  if (st == LTH_OK && two) {
    st = lth_pcur_expect(&P->c, ',', "',' between the block indices");
    if (st == LTH_OK) {
      st = lth_pcur_int(&P->c, 0, 1000000, "a block index", j, &at);
    }
  }
  if (st == LTH_OK) {
    st = lth_pcur_expect(&P->c, ')', "')' after the block index");
  }
  return st != LTH_OK ? st : lth_pcur_expect(&P->c, '=', "'=' after the block");
}

/* Is block A(i,j) (j = 0: f(i)) allowed?  lth_system_set_A/_f check the
 * pattern first (Clark (2.2)), so a 0 x 0 probe is refused with LTH_ESTRUCT
 * outside the pattern and with LTH_EDIM inside it; the system keeps the one
 * definition of the pattern and its message. */
static lth_status block_allowed(parser *P, long i, long j) {
  double dummy = 0.0;
  lth_error probe_err;
  lth_error_clear(&probe_err);
  lth_source *probe = lth_source_const(0, 0, &dummy, 1, &probe_err);
  lth_status st = LTH_ENOMEM;
  if (probe) {
    st = j ? lth_system_set_A(P->pb->sys, (int)i, (int)j, probe, &probe_err)
           : lth_system_set_f(P->pb->sys, (int)i, probe, &probe_err);
  }
  if (st != LTH_ESTRUCT && st != LTH_ENOMEM) {
    return LTH_OK;
  }
  if (P->err) {
    *P->err = probe_err;
  }
  return st;
}

/* A(i,j) = ... or f(i) = ... (j = 0) */
static lth_status dae_block(parser *P, size_t kw, long i, long j) {
  char label[48];
  if (j) {
    snprintf(label, sizeof label, "A(%ld,%ld)", i, j);
  } else {
    snprintf(label, sizeof label, "f(%ld)", i);
  }
  lth_system *sys = P->pb->sys;
  if (!sys) {
    return PERR(P, kw, LTH_EPARSE, "%s before `blocks`: the block sizes must be given first",
                label);
  }
  lth_status st = block_allowed(P, i, j);
  if (st != LTH_OK) {
    return relocate(P, here(P, kw), st);
  }
  int r = P->r;
  spos *seen = &P->at_block[j ? (i - 1) * r + (j - 1) : r * r + (i - 1)];
  if (seen->line) {
    return PERR(P, kw, LTH_EPARSE, "%s is given twice (first on line %d)", label, seen->line);
  }
  *seen = here(P, kw);
  int rows = lth_system_block_size(sys, (int)i), cols = j ? lth_system_block_size(sys, (int)j) : 1;
  if ((st = charge_entries(P, kw, rows, cols)) != LTH_OK) {
    return st;
  }
  lth_source *src;
  size_t pb_, pn;
  if ((st = parse_rhs(P, label, rows, cols, &src, &pb_, &pn)) != LTH_OK) {
    return st;
  }
  int sampled = lth_source_is_samples(src);
  st = j ? lth_system_set_A(sys, (int)i, (int)j, src, P->err)
         : lth_system_set_f(sys, (int)i, src, P->err);
  if (st != LTH_OK) {
    return relocate(P, here(P, kw), st);
  }
  return sampled ? add_sampled(P, label, src, here(P, pb_), P->c.tx->buf + pb_, pn) : LTH_OK;
}

static lth_status st_f(parser *P, size_t kw) {
  long i, j = 0;
  lth_status st = block_index(P, "f", 0, &i, &j);
  return st != LTH_OK ? st : dae_block(P, kw, i, 0);
}

/* LQR matrices A, B, H (sources) and C (constant). */
static lth_status lqr_matrix(parser *P, size_t kw, int which) {
  static const char *const names[] = {"A", "B", "H", "C"};
  const char *name = names[which];
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after the matrix name");
  if (st == LTH_OK) {
    st = once(P, &P->at_lqr[which], kw, name);
  }
  if (st == LTH_OK && !P->nx) {
    st = PERR(P, kw, LTH_EPARSE, "%s before `sizes`: the sizes nx nu must be given first", name);
  }
  if (st != LTH_OK) {
    return st;
  }
  int rows = P->nx, cols = which == LQR_B ? P->nu : P->nx;
  if ((st = charge_entries(P, kw, rows, cols)) != LTH_OK) {
    return st;
  }
  if (which == LQR_C) {
    return parse_const(P, "C (the terminal weight)", rows, cols, 1, &P->pb->C);
  }
  size_t pb_, pn;
  lth_source *src;
  st = parse_rhs(P, name, rows, cols, &src, &pb_, &pn);
  if (st != LTH_OK) {
    return st;
  }
  P->pb->lqr_src[which] = src;
  return lth_source_is_samples(src) ? add_sampled(P, name, src, here(P, pb_), P->c.tx->buf + pb_, pn)
                                    : LTH_OK;
}

static lth_status st_A(parser *P, size_t kw) {
  int dae = P->pb->kind == LTH_PROBLEM_DAE;
  if (lth_pcur_peek(&P->c) == '(') {
    long i, j;
    if (!dae) {
      return PERR(P, kw, LTH_EPARSE,
                  "A(i,j) is a DAE block and not allowed in a `problem lqr` file (write `A = "
                  "[...]` for the LQR dynamics)");
    }
    lth_status st = block_index(P, "A", 1, &i, &j);
    return st != LTH_OK ? st : dae_block(P, kw, i, j);
  }
  if (dae) {
    return PERR(P, kw, LTH_EPARSE,
                "expected '(' after A: a DAE block is written A(i,j) = ... (`A = ...` is for "
                "`problem lqr` files)");
  }
  return lqr_matrix(P, kw, LQR_A);
}

static lth_status st_B(parser *P, size_t kw) { return lqr_matrix(P, kw, LQR_B); }
static lth_status st_H(parser *P, size_t kw) { return lqr_matrix(P, kw, LQR_H); }
static lth_status st_C(parser *P, size_t kw) { return lqr_matrix(P, kw, LQR_C); }

static lth_status st_z0(parser *P, size_t kw) {
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after z0");
  if (st == LTH_OK) {
    st = once(P, &P->at_z0, kw, "z0");
  }
  if (st == LTH_OK && !P->pb->sys) {
    st = PERR(P, kw, LTH_EPARSE, "z0 before `blocks`: the block sizes must be given first");
  }
  if (st != LTH_OK) {
    return st;
  }
  return parse_const(P, "z0", -lth_system_size(P->pb->sys), 1, 0, &P->pb->z0);
}

static lth_status st_x0(parser *P, size_t kw) {
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after x0");
  if (st == LTH_OK) {
    st = once(P, &P->at_x0, kw, "x0");
  }
  if (st == LTH_OK && !P->nx) {
    st = PERR(P, kw, LTH_EPARSE, "x0 before `sizes`: the sizes nx nu must be given first");
  }
  return st != LTH_OK ? st : parse_const(P, "x0", -P->nx, 1, 0, &P->pb->x0);
}

static lth_status st_bc(parser *P, size_t kw) {
  static const char *const parts[] = {"B0", "B1", "beta"};
  static const char *const stmts[] = {"bc B0", "bc B1", "bc beta"};
  char shown[64];
  size_t b, n = lth_pcur_name(&P->c, &b);
  int which = -1;
  for (int k = 0; k < 3 && n; k++) {
    which = lth_pcur_name_is(&P->c, b, n, parts[k]) ? k : which;
  }
  if (which < 0) {
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return PERR(P, b, LTH_EPARSE, "expected B0, B1 or beta after `bc`, found %s", shown);
  }
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after the bc name");
  if (st == LTH_OK) {
    st = once(P, &P->at_bc[which], kw, stmts[which]);
  }
  if (st == LTH_OK && !P->pb->sys) {
    st = PERR(P, kw, LTH_EPARSE, "%s before `blocks`: the block sizes must be given first",
              stmts[which]);
  }
  if (st != LTH_OK) {
    return st;
  }
  int p = lth_system_manifold_dim(P->pb->sys), s = lth_system_size(P->pb->sys);
  if (p == 0) {
    return PERR(P, kw, LTH_EDIM,
                "boundary conditions need p = sum_{i<r}(n_i - n_r) > 0, but p = 0 here: the "
                "solution is fixed by the DAE itself");
  }
  double **dst = which == 0 ? &P->pb->B0 : which == 1 ? &P->pb->B1 : &P->pb->beta;
  char label[64];
  snprintf(label, sizeof label, which < 2 ? "%s (p x s)" : "%s (p entries)", stmts[which]);
  return which < 2 ? parse_const(P, label, p, s, 0, dst) : parse_const(P, label, -p, 1, 0, dst);
}

static const struct stmt_def {
  const char *kw;
  int kinds;
  handler fn;
} STATEMENTS[] = {
    {"lth", KIND_BOTH, st_lth},           {"problem", KIND_BOTH, st_problem},
    {"blocks", KIND_DAE, st_blocks},      {"sizes", KIND_LQR, st_sizes},
    {"interval", KIND_BOTH, st_interval}, {"grid", KIND_BOTH, st_grid},
    {"param", KIND_BOTH, st_param},       {"sampling", KIND_BOTH, st_sampling},
    {"A", KIND_BOTH, st_A},               {"f", KIND_DAE, st_f},
    {"z0", KIND_DAE, st_z0},              {"bc", KIND_DAE, st_bc},
    {"B", KIND_LQR, st_B},                {"H", KIND_LQR, st_H},
    {"C", KIND_LQR, st_C},                {"x0", KIND_LQR, st_x0},
};

static lth_status unknown_statement(parser *P, size_t b, size_t n) {
  int lqr = P->pb->kind == LTH_PROBLEM_LQR;
  const char *list =
      lqr ? "sizes, interval, grid, param, A, B, H, C, x0, sampling order, sampling noise"
          : "blocks, interval, grid, param, A(i,j), f(i), z0, bc, sampling order, sampling noise";
  if (!n) {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return PERR(P, b, LTH_EPARSE, "expected a statement (%s), found %s", list, shown);
  }
  const char *name = P->c.tx->buf + b;
  int len = (int)(n > 40 ? 40 : n);
  if (lth_pcur_peek(&P->c) == '=') {
    return PERR(P, b, LTH_EPARSE,
                "unknown statement '%.*s': to define a constant write `param %.*s = ...`; "
                "statements are %s",
                len, name, len, name, list);
  }
  return PERR(P, b, LTH_EPARSE, "unknown statement '%.*s': expected one of %s", len, name, list);
}

static lth_status statement(parser *P, const lth_pstmt *stmt) {
  P->c.st = *stmt;
  P->c.pos = stmt->b;
  size_t b, n = lth_pcur_name(&P->c, &b);
  for (size_t k = 0; n && k < sizeof STATEMENTS / sizeof STATEMENTS[0]; k++) {
    const struct stmt_def *d = &STATEMENTS[k];
    if (!lth_pcur_name_is(&P->c, b, n, d->kw)) {
      continue;
    }
    int kind = P->pb->kind == LTH_PROBLEM_LQR ? KIND_LQR : KIND_DAE;
    if (!(d->kinds & kind)) {
      return kind == KIND_LQR
                 ? PERR(P, b, LTH_EPARSE,
                        "`%s` is a DAE statement and not allowed in a `problem lqr` file", d->kw)
                 : PERR(P, b, LTH_EPARSE,
                        "`%s` belongs to `problem lqr` files; this file is a DAE problem (start "
                        "it with `problem lqr`)",
                        d->kw);
    }
    return d->fn(P, b);
  }
  return unknown_statement(P, b, n);
}

/* ------------------------------------------------------------------------ */
/* After the last statement                                                 */

static lth_status make_grid(parser *P) {
  lth_problem *pb = P->pb;
  double t0 = pb->t0, t1 = pb->t1;
  if (P->grid_pts) {
    for (size_t k = 0; k < P->ngrid_pts; k++) {
      if (!(P->grid_pts[k] >= t0 && P->grid_pts[k] <= t1)) {
        return at_error(P, P->at_grid, LTH_EPARSE,
                        "grid point %zu (%.17g) lies outside the interval [%.17g, %.17g]", k + 1,
                        P->grid_pts[k], t0, t1);
      }
    }
    pb->grid = P->grid_pts;
    pb->ngrid = P->ngrid_pts;
    P->grid_pts = NULL;
    return LTH_OK;
  }
  size_t n = P->grid_n ? (size_t)P->grid_n : DEFAULT_GRID;
  pb->grid = malloc(n * sizeof *pb->grid);
  if (!pb->grid) {
    return at_error(P, P->at_grid, LTH_ENOMEM, "out of memory for %zu grid points", n);
  }
  pb->ngrid = n;
  for (size_t k = 0; k < n; k++) {
    pb->grid[k] = k + 1 == n ? t1 : t0 + (t1 - t0) * ((double)k / (double)(n - 1));
    if (k > 0 && !(pb->grid[k] > pb->grid[k - 1])) {
      return at_error(P, P->at_grid.line ? P->at_grid : P->at_interval, LTH_EPARSE,
                      "the interval [%.17g, %.17g] is too short for %zu distinct grid points", t0,
                      t1, n);
    }
  }
  return LTH_OK;
}

static lth_status check_coverage(parser *P) {
  for (size_t k = 0; k < P->pb->nsampled; k++) {
    const sampled_entry *se = &P->pb->sampled[k];
    double lo, hi;
    lth_source_domain(se->src, &lo, &hi);
    if (!(lo <= P->pb->t0 && hi >= P->pb->t1)) {
      return at_error(P, se->at, LTH_ESAMPLE,
                      "samples(\"%.100s\") for %s cover t in [%.17g, %.17g], which does not "
                      "contain the interval [%.17g, %.17g]",
                      se->path, se->label, lo, hi, P->pb->t0, P->pb->t1);
    }
  }
  return LTH_OK;
}

static lth_status check_common(parser *P) {
  if (!P->at_interval.line) {
    return at_error(P, P->at_interval, LTH_EPARSE, "missing `interval t0 t1` statement");
  }
  if (P->K_given && P->pb->K < P->r) {
    return at_error(P, P->at_sampling, LTH_EPARSE,
                    "sampling order %d is below the index r = %d: the decomposition of an index-%d "
                    "system and its self-check need derivatives of the data up to order %d",
                    P->pb->K, P->r, P->r, P->r);
  }
  lth_status st = make_grid(P);
  return st != LTH_OK ? st : check_coverage(P);
}

static lth_status finish_dae(parser *P) {
  lth_problem *pb = P->pb;
  if (!pb->sys) {
    return at_error(P, P->at_blocks, LTH_EPARSE,
                    "missing `blocks n_1 ... n_r` statement: a DAE file must give its block sizes");
  }
  lth_status st = lth_system_validate(pb->sys, P->err);
  if (st != LTH_OK) {
    return relocate(P, P->at_blocks, st);
  }
  int given = !!P->at_bc[0].line + !!P->at_bc[1].line + !!P->at_bc[2].line;
  if (given > 0 && given < 3) {
    spos first = P->at_bc[0].line ? P->at_bc[0] : P->at_bc[1].line ? P->at_bc[1] : P->at_bc[2];
    return at_error(P, first, LTH_EPARSE,
                    "incomplete boundary conditions: missing%s%s%s (B0 z(t0) + B1 z(t1) = beta "
                    "needs all three)",
                    P->at_bc[0].line ? "" : " `bc B0`", P->at_bc[1].line ? "" : " `bc B1`",
                    P->at_bc[2].line ? "" : " `bc beta`");
  }
  pb->nbc = given ? lth_system_manifold_dim(pb->sys) : 0;
  st = check_common(P);
  if (st == LTH_OK && pb->t0 < pb->t1) {
    /* the interval's scale for cond_interval (include/lth/wellposed.h) */
    st = lth_system_set_interval(pb->sys, pb->t0, pb->t1, P->err);
  }
  return st;
}

/* Symmetry of an nx x nx column-major matrix: max |M - M'| <= tol * max |M|. */
static int symmetric(const double *M, int n, double *asym) {
  double mx = 0.0, d = 0.0;
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      double a = M[i + (size_t)j * n], b = M[j + (size_t)i * n];
      mx = fabs(a) > mx ? fabs(a) : mx;
      d = fabs(a - b) > d ? fabs(a - b) : d;
    }
  }
  *asym = d;
  return d <= SYM_TOL * mx;
}

/* H must be symmetric: checked at t0 (for constant H that is everywhere). */
static lth_status check_H(parser *P) {
  const lth_source *H = P->pb->lqr_src[LQR_H];
  int nx = P->nx;
  lth_jet J;
  lth_status st = lth_jet_init(&J, nx, nx, 0, P->err);
  double *work = NULL, asym = 0.0;
  if (st != LTH_OK) {
    return relocate(P, P->at_lqr[LQR_H], st);
  }
  size_t wn = lth_source_work_size(H, 0);
  work = malloc((wn ? wn : 1) * sizeof *work);
  if (!work) {
    st = at_error(P, P->at_lqr[LQR_H], LTH_ENOMEM, "out of memory");
  } else if ((st = lth_source_fill(H, P->pb->t0, 0, &J, work, P->err)) != LTH_OK) {
    lth_error_prefix(P->err, "H at t0 = %.17g: ", P->pb->t0);
    st = relocate(P, P->at_lqr[LQR_H], st);
  } else if (!symmetric(J.c, nx, &asym)) {
    st = at_error(P, P->at_lqr[LQR_H], LTH_EPARSE,
                  "H must be symmetric, but max |H - H'| = %.3g at t0 = %.17g", asym, P->pb->t0);
  }
  free(work);
  lth_jet_release(&J);
  return st;
}

static lth_status finish_lqr(parser *P) {
  lth_problem *pb = P->pb;
  static const char *const missing[] = {
      "missing `A = [...]` statement (the nx x nx dynamics; write zeros for A = 0)",
      "missing `B = [...]` statement (the nx x nu input matrix)",
      "missing `H = [...]` statement (the nx x nx state weight)"};
  double asym = 0.0;
  if (!P->nx) {
    return at_error(P, P->at_sizes, LTH_EPARSE, "missing `sizes nx nu` statement");
  }
  for (int k = 0; k < 3; k++) {
    if (!pb->lqr_src[k]) {
      return at_error(P, P->at_lqr[k], LTH_EPARSE, "%s", missing[k]);
    }
  }
  if (!pb->x0) {
    return at_error(P, P->at_x0, LTH_EPARSE, "missing `x0 = [...]` statement (the initial state)");
  }
  lth_status st = check_common(P);
  if (st == LTH_OK) {
    st = check_H(P);
  }
  if (st == LTH_OK && pb->C && !symmetric(pb->C, P->nx, &asym)) {
    st = at_error(P, P->at_lqr[LQR_C], LTH_EPARSE,
                  "C must be symmetric, but max |C - C'| = %.3g", asym);
  }
  if (st == LTH_OK && !pb->C && !(pb->C = calloc((size_t)P->nx * P->nx, sizeof *pb->C))) {
    st = at_error(P, P->at_sizes, LTH_ENOMEM, "out of memory");
  }
  if (st != LTH_OK) {
    return st;
  }
  pb->lqr = (lth_lqr_spec){P->nx, P->nu, pb->t0, pb->t1, pb->lqr_src[LQR_A],
                           pb->lqr_src[LQR_B], pb->lqr_src[LQR_H], pb->C, pb->x0};
  st = lth_lqr_build_system(&pb->lqr, &pb->sys, P->err);
  return st != LTH_OK ? relocate(P, P->at_sizes, st) : LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */

static void parser_free(parser *P) {
  lth_ptext_free(&P->tx);
  for (size_t i = 0; i < P->nparams; i++) {
    free(P->params[i].name);
  }
  free(P->params);
  free(P->slots);
  free(P->at_block);
  free(P->grid_pts);
}

static lth_status parse_all(parser *P) {
  lth_pscan sc = {0, 0};
  for (;;) {
    lth_pstmt stmt;
    int found = 0;
    lth_status st = lth_ptext_next(&P->tx, &sc, &stmt, &found, P->err);
    if (st != LTH_OK || !found) {
      return st;
    }
    if ((st = statement(P, &stmt)) != LTH_OK) {
      return st;
    }
    P->nstmt++;
  }
}

lth_status lth_problem_parse(const char *text, size_t len, const char *name, const char *basedir,
                             lth_problem **out, lth_error *err) {
  lth_error_clear(err);
  if (!out || (!text && len > 0)) {
    return lth_error_set(err, LTH_EINVAL, "lth_problem_parse: NULL text or output pointer");
  }
  *out = NULL;
  parser P;
  memset(&P, 0, sizeof P);
  P.err = err;
  P.basedir = basedir;
  P.pb = calloc(1, sizeof *P.pb);
  if (!P.pb) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  P.pb->kind = LTH_PROBLEM_DAE;
  P.c = (lth_pcur){&P.tx, {0, 0, 1, 0}, 0, param_lookup, &P, &P.ndep, err};
  lth_status st = lth_ptext_init(&P.tx, text, len, name ? name : "<input>", err);
  if (st == LTH_OK) {
    st = parse_all(&P);
  }
  if (st == LTH_OK) {
    st = P.pb->kind == LTH_PROBLEM_LQR ? finish_lqr(&P) : finish_dae(&P);
  }
  parser_free(&P);
  if (st != LTH_OK) {
    lth_problem_free(P.pb);
    return st;
  }
  *out = P.pb;
  return LTH_OK;
}

/* Read a whole file of at most LTH_P_MAX_FILE bytes. */
static lth_status slurp(const char *path, char **out, size_t *len, lth_error *err) {
  FILE *fp = fopen(path, "rb");
  lth_status st = LTH_OK;
  *out = NULL;
  if (!fp) {
    lth_error_set(err, LTH_EIO, "cannot open data file: %s", strerror(errno));
    lth_error_set_pos(err, path, 0, 0);
    return LTH_EIO;
  }
  size_t cap = 65536, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (n == cap) {
      char *nb = cap <= LTH_P_MAX_FILE ? realloc(buf, 2 * cap) : NULL;
      if (!nb) {
        st = cap <= LTH_P_MAX_FILE ? LTH_ENOMEM : LTH_EPARSE;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t got = fread(buf + n, 1, cap - n, fp);
    n += got;
    if (got == 0) {
      st = ferror(fp) ? LTH_EIO : LTH_OK;
      break;
    }
  }
  fclose(fp);
  if (!buf || st != LTH_OK || n > LTH_P_MAX_FILE) {
    free(buf);
    st = !buf ? LTH_ENOMEM : st != LTH_OK ? st : LTH_EPARSE;
    lth_error_set(err, st, "%s", st == LTH_EIO       ? "error reading the data file"
                                 : st == LTH_ENOMEM ? "out of memory reading the data file"
                                                    : "data file larger than 64 MiB");
    lth_error_set_pos(err, path, 0, 0);
    return st;
  }
  *out = buf;
  *len = n;
  return LTH_OK;
}

lth_status lth_problem_read(const char *path, lth_problem **out, lth_error *err) {
  lth_error_clear(err);
  if (!path || !out) {
    return lth_error_set(err, LTH_EINVAL, "lth_problem_read: NULL path or output pointer");
  }
  *out = NULL;
  char *text = NULL;
  size_t len = 0;
  lth_status st = slurp(path, &text, &len, err);
  if (st != LTH_OK) {
    return st;
  }
  /* CSV paths are relative to the data file's directory */
  const char *slash = strrchr(path, '/');
  char *dir = NULL;
  if (slash) {
    size_t dn = slash == path ? 1 : (size_t)(slash - path);
    dir = malloc(dn + 1);
    if (dir) {
      memcpy(dir, path, dn);
      dir[dn] = '\0';
    }
  }
  if (slash && !dir) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  } else {
    st = lth_problem_parse(text, len, path, dir, out, err);
  }
  free(dir);
  free(text);
  return st;
}

void lth_problem_free(lth_problem *pb) {
  if (!pb) {
    return;
  }
  lth_system_free(pb->sys); /* before the LQR sources it refers to */
  for (int k = 0; k < 3; k++) {
    lth_source_free(pb->lqr_src[k]);
  }
  for (size_t k = 0; k < pb->nsampled; k++) {
    free(pb->sampled[k].path);
  }
  free(pb->sampled);
  free(pb->grid);
  free(pb->z0);
  free(pb->B0);
  free(pb->B1);
  free(pb->beta);
  free(pb->C);
  free(pb->x0);
  free(pb);
}

lth_problem_kind lth_problem_get_kind(const lth_problem *pb) { return pb->kind; }
const lth_system *lth_problem_system(const lth_problem *pb) { return pb->sys; }

void lth_problem_interval(const lth_problem *pb, double *t0, double *t1) {
  *t0 = pb->t0;
  *t1 = pb->t1;
}

size_t lth_problem_grid(const lth_problem *pb, const double **times) {
  *times = pb->grid;
  return pb->ngrid;
}

int lth_problem_sampling_order(const lth_problem *pb) { return pb->K; }

int lth_problem_z0(const lth_problem *pb, const double **z0) {
  *z0 = pb->z0;
  return pb->z0 != NULL;
}

int lth_problem_bc(const lth_problem *pb, const double **B0, const double **B1,
                   const double **beta) {
  *B0 = pb->B0;
  *B1 = pb->B1;
  *beta = pb->beta;
  return pb->nbc;
}

size_t lth_problem_sampled_count(const lth_problem *pb) { return pb->nsampled; }

const lth_source *lth_problem_sampled(const lth_problem *pb, size_t k, const char **label) {
  if (k >= pb->nsampled) {
    if (label) {
      *label = NULL;
    }
    return NULL;
  }
  if (label) {
    *label = pb->sampled[k].label;
  }
  return pb->sampled[k].src;
}

const lth_lqr_spec *lth_problem_lqr(const lth_problem *pb) {
  return pb->kind == LTH_PROBLEM_LQR ? &pb->lqr : NULL;
}
