/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: boundary conditions as equations (the equation form,
 * docs/equations.md section 9).
 *
 *   bc x1(0) = 0.5
 *   bc x1(12) - 2*x2(12) = 0
 *   bc v(t1) = 0                    # t0, t1: the ends of the interval
 *   bc x1'(t0) = 0                  # a velocity that x1'' brings
 *   bc [x2(0); x3(0)] = [1; 0.25]   # a vector: one condition per row
 *
 * Each condition is linear in the values of the unknowns at the two ends,
 * with constant coefficients (numbers and params).  The values are parsed by
 * the literal parser (problem_lit.c) with a hook for x(T): the term of
 * x^(o)(T) is numbered var * BC_NT + k in the linear forms, k indexing the
 * times of the statement.  Once the model is analysed (the velocities and the
 * canonical order are known) the conditions become the rows of B0, B1 and
 * beta of B0 z(t0) + B1 z(t1) = beta, exactly as `bc B0 = [...]` with
 * columns in the order of the unknowns would give them; there must be
 * exactly p of them.  The matrix form and this one do not mix.
 */
#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/names_hash.h"
#include "problem_lit.h"

#define BC_NT 4 /* different times in one statement: t0, t1 and two numbers */
/* A number this close to an end (relative to the interval's magnitude) is
 * that end: the same expression rounded differently, e.g. 3*0.1 for 0.3. */
#define BC_END_TOL (4 * DBL_EPSILON)

typedef struct bctime {
  int end; /* 0: t0, 1: t1, -1: the number t (an end once resolved) */
  double t;
  lth_spos at; /* the time as written */
} bctime;

typedef struct bcrow {
  lth_plin lin; /* lhs - rhs; term numbers var * BC_NT + time */
  bctime tm[BC_NT];
  int ntm;
  lth_spos at; /* the statement */
} bcrow;

struct lth_pbc {
  lth_pp *P;
  bcrow *row;
  int nrow, caprow;
  bctime cur[BC_NT]; /* the times of the statement being read */
  int ncur;
};

void lth_pp_bc_free(lth_pp *P) {
  struct lth_pbc *B = P->bceq;
  if (!B) {
    return;
  }
  for (int k = 0; k < B->nrow; k++) {
    lth_plin_free(&B->row[k].lin);
  }
  free(B->row);
  free(B);
  P->bceq = NULL;
}

int lth_pp_bc_first_line(const lth_pp *P) {
  return P->bceq && P->bceq->nrow > 0 ? P->bceq->row[0].at.line : 0;
}

/* "x1''(t1)" for messages. */
static const char *term_name(const lth_pp *P, const bctime *tm, int code, int order, char *buf,
                             size_t size) {
  const bctime *w = &tm[code % BC_NT];
  char when[32];
  if (w->end >= 0) {
    snprintf(when, sizeof when, "t%d", w->end);
  } else {
    snprintf(when, sizeof when, "%.15g", w->t);
  }
  snprintf(buf, size, "%.60s%.*s(%s)", lth_pp_eqn_name(P, code / BC_NT), order > 20 ? 20 : order,
           "''''''''''''''''''''", when);
  return buf;
}

static const char *bc_var_name(void *ctx, int code, int order, char *buf, size_t size) {
  const struct lth_pbc *B = ctx;
  return term_name(B->P, B->cur, code, order, buf, size);
}

/* Every name that reaches the lookup (no param, function or builder) is
 * taken as an unknown, so that bc_unknown_at names one that does not exist,
 * also before '(' (else the grammar would call it an unknown function). */
#define BC_NO_VAR INT_MAX

static int bc_lookup(void *ctx, const char *name, size_t len) {
  const struct lth_pbc *B = ctx;
  int v = lth_pp_eqn_find(B->P, name, len);
  return v >= 0 ? v : BC_NO_VAR;
}

/* The end t0 or t1 written as a bare name from byte i; *close: its ')'. */
static int bare_end(const lth_pcur *c, size_t i, size_t *close) {
  const char *s = c->tx->buf;
  size_t e = c->st.e;
  while (i < e && (s[i] == ' ' || s[i] == '\t')) {
    i++;
  }
  if (i + 2 > e || s[i] != 't' || (s[i + 1] != '0' && s[i + 1] != '1')) {
    return -1;
  }
  size_t j = i + 2;
  if (j < e && (isalnum((unsigned char)s[j]) || s[j] == '_')) {
    return -1;
  }
  while (j < e && (s[j] == ' ' || s[j] == '\t')) {
    j++;
  }
  *close = j;
  return j < e && s[j] == ')' ? s[i + 1] - '0' : -1;
}

/* The time in x(T) from its '(': t0, t1, or a constant expression. */
static lth_status parse_time(lth_plp *p, const char *what, bctime *tm) {
  lth_pcur *c = p->c;
  struct lth_pbc *B = p->o->var_ctx;
  size_t open = p->g.tok.start, close = 0, arg = open + 1;
  while (arg < c->st.e && (c->tx->buf[arg] == ' ' || c->tx->buf[arg] == '\t')) {
    arg++;
  }
  tm->at = lth_pp_here(B->P, arg);
  tm->end = bare_end(c, open + 1, &close);
  if (tm->end >= 0) {
    double v;
    if (lth_pp_param_value(B->P, tm->end ? "t1" : "t0", 2, &v)) {
      return LTH_PLIT_ERR(p, arg,
                          "t%d is a param and, in a boundary condition, the interval's end: "
                          "rename the param",
                          tm->end);
    }
    return lth_gparser_seek(&p->g, close + 1);
  }
  lth_status st = lth_gparser_next(&p->g);
  lth_pval a;
  lth_gval slot;
  if (st == LTH_OK && (st = lth_plit_arg(p, "'('", &a)) == LTH_OK) {
    lth_plit_put(&slot, &a);
    st = lth_gparser_close(&p->g, open, &slot);
    a = lth_plit_get(&slot);
  }
  if (st != LTH_OK) {
    return st;
  }
  int ok = a.rows == 1 && a.cols == 1 && lth_pval_entry_const(&a, 0, &tm->t);
  lth_pval_free(&a);
  if (!ok) {
    return LTH_PLIT_ERR(p, arg,
                        "the time in %s(...) must be t0, t1 or a constant (numbers and params): "
                        "a boundary condition takes the unknowns at the ends of the interval",
                        what);
  }
  return LTH_OK;
}

/* The lth_plit_opts hook: x^(order)(T) at the token after the quotes. */
static lth_status bc_unknown_at(lth_plp *p, int var, int order, size_t name_pos, int *code) {
  struct lth_pbc *B = p->o->var_ctx;
  char what[96];
  if (var == BC_NO_VAR) {
    const char *s = p->c->tx->buf + name_pos;
    int n = 0;
    while (n < 40 && (isalnum((unsigned char)s[n]) || s[n] == '_')) {
      n++;
    }
    return LTH_PLIT_ERR(p, name_pos, "unknown name '%.*s': neither a declared variable nor a param",
                        n, s);
  }
  snprintf(what, sizeof what, "%.60s%.*s", lth_pp_eqn_name(B->P, var), order > 20 ? 20 : order,
           "''''''''''''''''''''");
  if (!lth_gparser_at(&p->g, '(') || (p->g.blanks && p->g.tok.sp_before)) {
    return LTH_PLIT_ERR(p, name_pos,
                        "a boundary condition takes the unknowns at the ends of the interval: "
                        "write %s(t0) or %s(t1) (or the end's value, e.g. %s(0))",
                        what, what, what);
  }
  bctime tm;
  lth_status st = parse_time(p, what, &tm);
  if (st != LTH_OK) {
    return st;
  }
  int k = 0;
  while (k < B->ncur && !(B->cur[k].end == tm.end && (tm.end >= 0 || B->cur[k].t == tm.t))) {
    k++;
  }
  if (k == BC_NT) {
    return lth_pcur_error(p->c, name_pos, LTH_EPARSE,
                          "more than %d different times in one boundary condition: it relates "
                          "the values at the two ends of the interval only",
                          BC_NT);
  }
  if (k == B->ncur) {
    B->cur[B->ncur++] = tm;
  }
  *code = var * BC_NT + k;
  return LTH_OK;
}

/* One condition (a row of lhs - rhs): constant coefficients, some unknown. */
static lth_status add_row(lth_pp *P, size_t kw, lth_plin *l, int vector) {
  struct lth_pbc *B = P->bceq;
  if (!l || l->n == 0) {
    return LTH_PERR(P, kw, LTH_EPARSE,
                    "%s involves no unknown: a boundary condition relates the unknowns at the "
                    "ends of the interval (bc x(t0) = 1, bc x(0) - y(t1) = 0)",
                    vector ? "a row of this boundary condition" : "this boundary condition");
  }
  if (!lth_grow((void **)&B->row, &B->caprow, B->nrow + 1, sizeof *B->row)) {
    return LTH_PERR(P, kw, LTH_ENOMEM, "out of memory");
  }
  bcrow *r = &B->row[B->nrow++];
  memset(r, 0, sizeof *r);
  r->lin = *l;
  memcpy(r->tm, B->cur, sizeof B->cur);
  r->ntm = B->ncur;
  r->at = lth_pp_here(P, kw);
  free(l);
  return LTH_OK;
}

lth_status lth_pp_bc_equation(lth_pp *P, size_t kw) {
  lth_pcur *c = &P->c;
  if (!P->eqn) {
    return LTH_PERR(P, c->pos, LTH_EPARSE,
                    "boundary conditions as equations (bc x(0) = 1) need named unknowns, a "
                    "`problem equations` file; the block form gives them as matrices: "
                    "bc B0 = [...], bc B1 = [...], bc beta = [...]");
  }
  for (int k = 0; k < 3; k++) {
    if (P->at_bc[k].line) {
      return LTH_PERR(P, kw, LTH_EPARSE,
                      "boundary conditions are written as equations (bc x(0) = 1) or as "
                      "matrices (bc B0, B1, beta), not both: `bc %s` is on line %d",
                      k == 0   ? "B0"
                      : k == 1 ? "B1"
                               : "beta",
                      P->at_bc[k].line);
    }
  }
  if (!P->bceq && !(P->bceq = calloc(1, sizeof *P->bceq))) {
    return LTH_PERR(P, kw, LTH_ENOMEM, "out of memory");
  }
  struct lth_pbc *B = P->bceq;
  B->P = P;
  B->ncur = 0;
  lth_plit_opts o = {.label = "a boundary condition",
                     .lookup_var = bc_lookup,
                     .var_name = bc_var_name,
                     .var_ctx = B,
                     .stop_at_eq = 1,
                     .unknown_at = bc_unknown_at};
  lth_pvctx x = {.c = c, .var_name = bc_var_name, .var_ctx = B};
  lth_pval D;
  size_t start = c->pos;
  lth_status st = lth_plit_parse_equation(
      c, &o, &x,
      "expected '=': a boundary condition is an equation (bc x(t0) = 1) or one of bc B0 = "
      "[...], bc B1 = [...], bc beta = [...]",
      &D);
  if (st != LTH_OK) {
    return st;
  }
  if (D.rows != 1 && D.cols != 1) {
    st = LTH_PERR(P, start, LTH_EDIM,
                  "a boundary condition is a scalar or a vector equation, found %d x %d sides",
                  D.rows, D.cols);
  } else if (lth_pval_has_t(&D)) {
    st = LTH_PERR(P, lth_pcur_find_t(c, start, c->st.e), LTH_EPARSE,
                  "a boundary condition has constant coefficients (numbers and params), but this "
                  "one uses t: write the unknowns at an end, x(t0) or x(t1)");
  }
  size_t n = (size_t)D.rows * (size_t)D.cols;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    st = add_row(P, kw, D.ext ? D.ext[k] : NULL, n > 1);
    if (st == LTH_OK && D.ext) {
      D.ext[k] = NULL;
    }
  }
  lth_pval_free(&D);
  return st;
}

/* ------------------------------------------------------------------------ */
/* The matrices                                                             */

/* Each time of row r as an end of the interval [t0, t1]. */
static lth_status resolve_ends(lth_pp *P, bcrow *r) {
  double t0 = P->pb->t0, t1 = P->pb->t1, scale = fmax(fabs(t0), fabs(t1));
  for (int k = 0; k < r->ntm; k++) {
    bctime *w = &r->tm[k];
    if (w->end >= 0) {
      continue;
    }
    w->end = fabs(w->t - t0) <= BC_END_TOL * scale   ? 0
             : fabs(w->t - t1) <= BC_END_TOL * scale ? 1
                                                     : -1;
    if (w->end < 0) {
      return lth_pp_at_error(P, w->at, LTH_EPARSE,
                             "the time %.17g is neither end of the interval [%.17g, %.17g]: a "
                             "boundary condition relates the unknowns at t0 and t1 only",
                             w->t, t0, t1);
    }
  }
  return LTH_OK;
}

/* Column of x^(order) among the model's unknowns (user order, velocities
 * after their unknown), or an error if x^(order) is not an unknown. */
static lth_status column(lth_pp *P, const bcrow *r, const int *base, const lth_pterm *tm,
                         int *col) {
  int var = tm->var / BC_NT, o = tm->order, k = lth_pp_eqn_maxorder(P, var);
  if (o == 0 || o < k) {
    *col = base[var] + o;
    return LTH_OK;
  }
  char name[128], top[96], vel[96];
  term_name(P, r->tm, tm->var, o, name, sizeof name);
  const char *x = lth_pp_eqn_name(P, var);
  const char *q = "''''''''''''''''''''";
  snprintf(top, sizeof top, "%.60s%.*s", x, o > 20 ? 20 : o, q);
  snprintf(vel, sizeof vel, "%.60s%.*s", x, k - 1 > 20 ? 20 : k - 1, q);
  if (k <= 1) {
    return lth_pp_at_error(P, r->at, LTH_EPARSE,
                           "%s: %s is not an unknown (only %.60s'' in an equation would make "
                           "%.60s' one); a boundary condition holds the unknowns",
                           name, top, x, x);
  }
  return lth_pp_at_error(P, r->at, LTH_EPARSE,
                         "%s: %s is not an unknown; the unknowns of %.60s are %.60s up to %s "
                         "(the velocities that %.60s%.*s in the equations brings)",
                         name, top, x, x, vel, x, k > 20 ? 20 : k, q);
}

/* The conditions into B0, B1 (p x s column-major, zero on entry) in the
 * system's column order: the term of unknown column `col` goes to column
 * pos[col].  Only the terms are visited, never all p x s entries: at size the
 * matrices are zero pages but for a few entries a row (nothing p x s is
 * touched here). */
static lth_status fill_user(lth_pp *P, int p, const int *pos, double *B0, double *B1,
                            double *beta) {
  struct lth_pbc *B = P->bceq;
  int nv = lth_pp_eqn_nvars(P);
  int *base = malloc((size_t)(nv > 0 ? nv : 1) * sizeof *base);
  if (!base) {
    return lth_pp_at_error(P, B->row[0].at, LTH_ENOMEM, "out of memory");
  }
  for (int v = 0, acc = 0; v < nv; v++) {
    base[v] = acc;
    acc += lth_pp_eqn_maxorder(P, v) > 1 ? lth_pp_eqn_maxorder(P, v) : 1;
  }
  lth_status st = LTH_OK;
  for (int i = 0; i < B->nrow && st == LTH_OK; i++) {
    bcrow *r = &B->row[i];
    st = resolve_ends(P, r);
    for (int j = 0; j < r->lin.n && st == LTH_OK; j++) {
      const lth_pterm *tm = &r->lin.t[j];
      int col = 0;
      if ((st = column(P, r, base, tm, &col)) == LTH_OK) {
        int e = r->tm[tm->var % BC_NT].end;
        size_t k = i + (size_t)pos[col] * p;
        (e ? B1 : B0)[k] += tm->c.v;
        if (lth_problem_bc_wrote(P->pb, e, k) != 0) {
          st = lth_pp_at_error(P, r->at, LTH_ENOMEM, "out of memory");
        }
      }
    }
    beta[i] = -r->lin.c0.v;
    int nz = 0; /* x(0) - x(t0): terms may cancel; only the terms' columns can be nonzero */
    for (int j = 0; j < r->lin.n && st == LTH_OK && !nz; j++) {
      int col = 0;
      if ((st = column(P, r, base, &r->lin.t[j], &col)) == LTH_OK) {
        size_t k = i + (size_t)pos[col] * p;
        nz = B0[k] != 0.0 || B1[k] != 0.0;
      }
    }
    if (st == LTH_OK && !nz) {
      st = lth_pp_at_error(P, r->at, LTH_EPARSE,
                           "the terms of this boundary condition cancel: it involves no unknown");
    }
  }
  free(base);
  return st;
}

lth_status lth_pp_bc_finish(lth_pp *P, const lth_model *m) {
  struct lth_pbc *B = P->bceq;
  if (!B || B->nrow == 0) {
    return LTH_OK;
  }
  int s = lth_model_nvars(m), p = lth_model_manifold_dim(m), nr = B->nrow;
  if (p == 0) {
    return lth_pp_at_error(P, B->row[0].at, LTH_EDIM,
                           "boundary conditions need p > 0 free initial values, but p = 0 here: "
                           "the solution is fixed by the DAE itself (remove the bc statements)");
  }
  if (nr != p) {
    return lth_pp_at_error(P, B->row[nr > p ? p : nr - 1].at, LTH_EDIM,
                           "%d boundary condition%s, but this DAE needs exactly p = %d: its "
                           "solutions have p = %d free initial values (the equations fix the "
                           "other %d of the s = %d unknowns), and each condition fixes one",
                           nr, nr == 1 ? "" : "s", p, p, s - p, s);
  }
  /* calloc: at size the zero pages are never touched (fill_user writes the
   * terms alone), so the p x s matrices cost their nonzeros, not p s */
  double *beta = malloc((size_t)p * sizeof *beta);
  int *pos = malloc((size_t)s * sizeof *pos);
  lth_problem *pb = P->pb;
  pb->B0 = calloc((size_t)p * s, sizeof *pb->B0);
  pb->B1 = calloc((size_t)p * s, sizeof *pb->B1);
  pb->bc_listed = 1; /* fill_user and lth_pp_fold_index1 list what they write */
  lth_status st = beta && pos && pb->B0 && pb->B1
                      ? LTH_OK
                      : lth_pp_at_error(P, B->row[0].at, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) {
    const int *perm = lth_model_perm(m); /* column k of the system is unknown perm[k] */
    for (int k = 0; k < s; k++) pos[perm[k]] = k;
    st = fill_user(P, p, pos, pb->B0, pb->B1, beta);
  }
  if (st == LTH_OK) {
    pb->beta = beta;
    beta = NULL;
    pb->nbc = p;
  }
  free(pos);
  free(beta);
  /* the index-1 unknowns' columns are folded into z's, as for bc matrices */
  int sz = lth_model_size(m);
  return st == LTH_OK && sz < s ? lth_pp_fold_index1(P, m, p, sz) : st;
}
