/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: helpers every statement uses, params, and the statements
 * every kind shares (lth, problem, interval, grid, param, sampling order),
 * with the checks that run once the file has been read.  lib/reader/problem_impl.h. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/defaults.h"
#include "lth/samples.h"
#include "core/names_hash.h"
#include "problem_impl.h"

/* ------------------------------------------------------------------------ */
/* Helpers                                                                  */

lth_spos lth_pp_here(lth_pp *P, size_t pos) {
  lth_spos s;
  lth_ptext_where(&P->tx, &P->c.st, pos, &s.line, &s.col);
  return s;
}

#define LTH_PERR(P, pos, status, ...) lth_pcur_error(&(P)->c, (pos), (status), __VA_ARGS__)

/* An error at a recorded position (line 0: the file's last line). */
lth_status lth_pp_at_error(lth_pp *P, lth_spos at, lth_status status, const char *fmt, ...)
    LTH_P_PRINTF(4, 5);
lth_status lth_pp_at_error(lth_pp *P, lth_spos at, lth_status status, const char *fmt, ...) {
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
lth_status lth_pp_relocate(lth_pp *P, lth_spos at, lth_status st) {
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

lth_status lth_pp_once(lth_pp *P, lth_spos *seen, size_t kw, const char *what) {
  if (seen->line) {
    return LTH_PERR(P, kw, LTH_EPARSE, "duplicate `%s` statement (first given on line %d)", what,
                    seen->line);
  }
  *seen = lth_pp_here(P, kw);
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* Params: an open-addressing hash table, so lookups stay fast in big files */

static lth_pparam *param_find(const lth_pp *P, const char *s, size_t n) {
  if (!P->nslots) {
    return NULL;
  }
  for (size_t k = lth_name_hash(s, n) & (P->nslots - 1);; k = (k + 1) & (P->nslots - 1)) {
    size_t idx = P->slots[k];
    if (idx == 0) {
      return NULL;
    }
    lth_pparam *pa = &P->params[idx - 1];
    if (pa->len == n && memcmp(pa->name, s, n) == 0) {
      return pa;
    }
  }
}

int lth_pp_param_lookup(void *ctx, const char *name, size_t len, double *value) {
  lth_pparam *pa = param_find(ctx, name, len);
  if (pa) {
    *value = pa->value;
  }
  return pa != NULL;
}

int lth_pp_param_value(lth_pp *P, const char *s, size_t n, double *value) {
  return lth_pp_param_lookup(P, s, n, value);
}

static int rehash(lth_pp *P) {
  size_t ns = P->nslots ? 2 * P->nslots : 64;
  size_t *slots = calloc(ns, sizeof *slots);
  if (!slots) {
    return 0;
  }
  for (size_t i = 0; i < P->nparams; i++) {
    size_t k = lth_name_hash(P->params[i].name, P->params[i].len) & (ns - 1);
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

static lth_status param_add(lth_pp *P, const char *s, size_t n, double v, size_t pos) {
  if (P->nparams == P->pcap) {
    size_t cap = P->pcap ? 2 * P->pcap : 16;
    lth_pparam *np = realloc(P->params, cap * sizeof *np);
    if (!np) {
      return LTH_PERR(P, pos, LTH_ENOMEM, "out of memory storing a param");
    }
    P->params = np;
    P->pcap = cap;
  }
  char *name = malloc(n + 1);
  if (!name) {
    return LTH_PERR(P, pos, LTH_ENOMEM, "out of memory storing a param");
  }
  memcpy(name, s, n);
  name[n] = '\0';
  P->params[P->nparams++] = (lth_pparam){name, n, v};
  if (2 * P->nparams > P->nslots && !rehash(P)) {
    return LTH_PERR(P, pos, LTH_ENOMEM, "out of memory storing a param");
  }
  size_t k = lth_name_hash(s, n) & (P->nslots - 1);
  while (P->slots[k] && P->slots[k] != P->nparams) {
    k = (k + 1) & (P->nslots - 1);
  }
  P->slots[k] = P->nparams;
  return LTH_OK;
}

int lth_pp_reserved_name(const char *s, size_t n) {
  static const char *const words[] = {"t", "pi", "eye", "zeros", "ones", "diag", "samples"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    if (strlen(words[i]) == n && memcmp(words[i], s, n) == 0) {
      return 1;
    }
  }
  return lth_expr_func_find(s, n) >= 0; /* the functions of the grammar */
}

lth_status lth_pp_charge_entries(lth_pp *P, size_t kw, int rows, int cols) {
  P->entries += (double)rows * (double)cols;
  if (P->entries > LTH_P_MAX_ENTRIES) {
    return LTH_PERR(P, kw, LTH_EDIM,
                    "the blocks hold more than %.0f million entries in total: too large for a data "
                    "file",
                    LTH_P_MAX_ENTRIES / 1e6);
  }
  return LTH_OK;
}

lth_status lth_pp_parse_block(lth_pp *P, size_t kw, const char *label, int rows, int cols,
                              lth_source **out, size_t *path_b, size_t *path_n) {
  int sparse = lth_pp_rhs_sparse_text(P); /* charged by what it stores, once read */
  lth_status st = sparse ? LTH_OK : lth_pp_charge_entries(P, kw, rows, cols);
  *out = NULL;
  if (st == LTH_OK) {
    st = lth_pp_parse_rhs(P, label, rows, cols, out, path_b, path_n);
  }
  if (st == LTH_OK && sparse && (st = lth_pp_charge_source(P, kw, *out)) != LTH_OK) {
    lth_source_free(*out);
    *out = NULL;
  }
  return st;
}

lth_status lth_pp_charge_source(lth_pp *P, size_t kw, const lth_source *src) {
  int nnz = 0;
  const int *cp, *ri;
  if (lth_source_is_sparse(src) && lth_source_csc_pattern(src, &nnz, &cp, &ri, NULL) == LTH_OK) {
    P->entries += (double)nnz;
    return P->entries > LTH_P_MAX_ENTRIES ? lth_pp_charge_entries(P, kw, 0, 0) : LTH_OK;
  }
  return lth_pp_charge_entries(P, kw, lth_source_rows(src), lth_source_cols(src));
}

/* ------------------------------------------------------------------------ */
/* Statements every kind shares                                             */

lth_status lth_pp_st_lth(lth_pp *P, size_t kw) {
  long v;
  size_t at;
  if (P->nstmt != 0) {
    return LTH_PERR(P, kw, LTH_EPARSE, "`lth 1` may only be the first statement of a file");
  }
  P->at_lth = lth_pp_here(P, kw);
  lth_status st = lth_pcur_int(&P->c, 0, 1000000, "a format version after `lth`", &v, &at);
  if (st == LTH_OK && v != 1) {
    return LTH_PERR(P, at, LTH_EPARSE,
                    "format version %ld is not supported: this reader knows "
                    "version 1 (`lth 1`)",
                    v);
  }
  return st != LTH_OK ? st : lth_pcur_end(&P->c, "the format version");
}

lth_status lth_pp_st_problem(lth_pp *P, size_t kw) {
  lth_status st = lth_pp_once(P, &P->at_problem, kw, "problem");
  if (st != LTH_OK) {
    return st;
  }
  if (P->nstmt > (P->at_lth.line ? 1 : 0)) {
    return LTH_PERR(P, kw, LTH_EPARSE,
                    "`problem` must come before every other statement (only `lth 1` may precede "
                    "it)");
  }
  size_t b, n = lth_pcur_name(&P->c, &b);
  if (n && lth_pcur_name_is(&P->c, b, n, "dae")) {
    P->pb->kind = LTH_PROBLEM_DAE;
  } else if (n && lth_pcur_name_is(&P->c, b, n, "equations")) {
    P->pb->kind = LTH_PROBLEM_DAE;
    lth_status st2 = lth_pp_eqn_begin(P, kw);
    if (st2 != LTH_OK) {
      return st2;
    }
  } else if (n && lth_pcur_name_is(&P->c, b, n, "lqr")) {
    P->pb->kind = LTH_PROBLEM_LQR;
    P->r = 3;
  } else {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return LTH_PERR(P, b, LTH_EPARSE,
                    "expected `dae`, `equations` or `lqr` after `problem`, found %s", shown);
  }
  return lth_pcur_end(&P->c, "the problem kind");
}

static lth_status const_field(lth_pp *P, const char *what, const char *stmt, double *v,
                              size_t *at) {
  size_t b, e;
  if (!lth_pcur_field(&P->c, &b, &e)) {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return LTH_PERR(P, b, LTH_EPARSE, "expected %s (`%s`), found %s", what, stmt, shown);
  }
  *at = b;
  return lth_pcur_const(&P->c, b, e, what, v);
}

lth_status lth_pp_st_interval(lth_pp *P, size_t kw) {
  double t0 = 0.0, t1 = 0.0;
  size_t a = 0, b = 0;
  lth_status st = lth_pp_once(P, &P->at_interval, kw, "interval");
  if (st == LTH_OK) {
    st = const_field(P, "t0", "interval t0 t1", &t0, &a);
  }
  if (st == LTH_OK) {
    st = const_field(P, "t1", "interval t0 t1", &t1, &b);
  }
  if (st == LTH_OK && !(t0 < t1)) {
    st = LTH_PERR(P, b, LTH_EPARSE, "the interval needs t0 < t1, found t0 = %.17g, t1 = %.17g", t0,
                  t1);
  }
  if (st == LTH_OK && !isfinite(t1 - t0)) {
    st = LTH_PERR(P, b, LTH_EPARSE, "the interval [%g, %g] is too wide: t1 - t0 overflows", t0, t1);
  }
  if (st != LTH_OK || (st = lth_pcur_end(&P->c, "`interval t0 t1`")) != LTH_OK) {
    return st;
  }
  P->pb->t0 = t0;
  P->pb->t1 = t1;
  return LTH_OK;
}

static lth_status grid_points(lth_pp *P) {
  lth_pcur *c = &P->c;
  lth_pcur_skip_ws(c);
  size_t open = c->pos;
  lth_plit_opts o = {.eye_rows = 0, .eye_cols = 0, .label = "grid", .stop_at_eq = 0};
  lth_pval m;
  lth_status st = lth_plit_parse(c, &o, &m);
  if (st != LTH_OK) {
    return st;
  }
  size_t n = (size_t)m.rows * (size_t)m.cols;
  if (lth_pval_has_t(&m)) {
    st = LTH_PERR(P, lth_pcur_find_t(c, open, c->st.e), LTH_EPARSE,
                  "grid points must be constant, but this one uses t");
  } else if (m.rows != 1 && m.cols != 1) {
    st = LTH_PERR(P, open, LTH_EDIM,
                  "grid points must be a row or a column, found a %d x %d matrix", m.rows, m.cols);
  } else if (n < 2 || n > (size_t)LTH_P_MAX_GRID) {
    st = LTH_PERR(P, open, LTH_EDIM, "a grid needs 2 to %ld points, found %zu", LTH_P_MAX_GRID, n);
  }
  for (size_t k = 1; st == LTH_OK && k < n; k++) {
    if (!(m.val[k] > m.val[k - 1])) {
      st =
          LTH_PERR(P, open, LTH_EPARSE,
                   "grid points must be strictly increasing: point %zu (%.17g) is not greater than "
                   "point %zu (%.17g)",
                   k + 1, m.val[k], k, m.val[k - 1]);
    }
  }
  if (st == LTH_OK) {
    P->grid_pts = m.val; /* a vector: row- and column-major agree */
    P->ngrid_pts = n;
    m.val = NULL;
  }
  lth_pval_free(&m);
  return st;
}

lth_status lth_pp_st_grid(lth_pp *P, size_t kw) {
  lth_status st = lth_pp_once(P, &P->at_grid, kw, "grid");
  if (st != LTH_OK) {
    return st;
  }
  if (lth_pcur_peek(&P->c) == '[') {
    return grid_points(P);
  }
  size_t at;
  st = lth_pcur_int(&P->c, 2, LTH_P_MAX_GRID,
                    "the number of grid points (or a list [t_1, t_2, ...])", &P->grid_n, &at);
  return st != LTH_OK ? st : lth_pcur_end(&P->c, "the number of grid points");
}

/* The override of param name[0..n-1] (`--param NAME=VALUE`), if any:
 * *found = 1 and *v its value. */
static lth_status param_override(lth_pp *P, const char *name, size_t n, size_t pos, int *found,
                                 double *v) {
  *found = 0;
  for (size_t k = 0; P->opts && k < P->opts->nparams; k++) {
    const char *o = P->opts->params[k], *eq = o ? strchr(o, '=') : NULL;
    if (!eq || (size_t)(eq - o) != n || memcmp(o, name, n) != 0) {
      continue;
    }
    lth_expr *e = NULL;
    lth_status st = lth_expr_parse(eq + 1, strlen(eq + 1), lth_pp_param_lookup, P, &e, P->err);
    if (st == LTH_OK && lth_expr_depends_on_t(e)) {
      st = lth_error_set(P->err, LTH_EINVAL, "must be constant, but it uses t");
    }
    if (st == LTH_OK) {
      st = lth_expr_eval(e, 0.0, v, P->err);
    }
    lth_expr_free(e);
    if (st != LTH_OK) {
      lth_pp_relocate(P, lth_pp_here(P, pos), st);
      lth_error_prefix(P->err, "opts.params %.60s: ", o);
      if (P->err) {
        P->err->status = LTH_EINVAL;
      }
      return LTH_EINVAL;
    }
    P->override_used[k] = 1;
    *found = 1;
  }
  return LTH_OK;
}

/* One `NAME = EXPR` of a param statement, EXPR up to a ',' outside
 * parentheses (or the end). */
static lth_status param_one(lth_pp *P) {
  lth_pcur *c = &P->c;
  size_t b, n = lth_pcur_name(c, &b);
  char shown[64], what[80];
  if (!n) {
    lth_pcur_show(c, b, shown, sizeof shown);
    return LTH_PERR(P, b, LTH_EPARSE, "expected a name after `param`, found %s", shown);
  }
  if (lth_pp_reserved_name(c->tx->buf + b, n)) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "'%.*s' cannot be a param name: t, pi, eye, zeros, ones, diag, samples and the "
                    "function names are reserved",
                    (int)n, c->tx->buf + b);
  }
  if (lth_pp_eqn_has_variable(P, c->tx->buf + b, n)) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "'%.*s' is an unknown (see `variables`): it cannot be a param",
                    (int)(n > 40 ? 40 : n), c->tx->buf + b);
  }
  if (lth_pp_func_line(P, c->tx->buf + b, n)) {
    return LTH_PERR(P, b, LTH_EPARSE, "'%.*s' is a named function (line %d): it cannot be a param",
                    (int)(n > 40 ? 40 : n), c->tx->buf + b, lth_pp_func_line(P, c->tx->buf + b, n));
  }
  if (param_find(P, c->tx->buf + b, n)) {
    return LTH_PERR(P, b, LTH_EPARSE, "param '%.*s' is already defined", (int)(n > 40 ? 40 : n),
                    c->tx->buf + b);
  }
  lth_status st = lth_pcur_expect(c, '=', "'=' after the param name");
  if (st != LTH_OK) {
    return st;
  }
  lth_pcur_skip_ws(c);
  size_t e = c->pos;
  for (int depth = 0; e < c->st.e && !(c->tx->buf[e] == ',' && depth == 0); e++) {
    depth += c->tx->buf[e] == '(';
    depth -= c->tx->buf[e] == ')';
  }
  double v;
  int overridden;
  snprintf(what, sizeof what, "param '%.*s'", (int)(n > 40 ? 40 : n), c->tx->buf + b);
  st = lth_pcur_const(c, c->pos, e, what, &v);
  if (st == LTH_OK) {
    st = param_override(P, c->tx->buf + b, n, b, &overridden, &v);
  }
  c->pos = e;
  return st != LTH_OK ? st : param_add(P, c->tx->buf + b, n, v, b);
}

/* param NAME = EXPR [, NAME = EXPR ...] */
lth_status lth_pp_st_param(lth_pp *P, size_t kw) {
  (void)kw;
  lth_status st = param_one(P);
  while (st == LTH_OK && lth_pcur_peek(&P->c) == ',') {
    P->c.pos++;
    st = param_one(P);
  }
  return st;
}

lth_status lth_pp_check_overrides(lth_pp *P) {
  for (size_t k = 0; P->opts && k < P->opts->nparams; k++) {
    const char *o = P->opts->params[k], *eq = o ? strchr(o, '=') : NULL;
    if (!eq || eq == o) {
      lth_error_clear(P->err);
      return lth_error_set(P->err, LTH_EINVAL, "opts.params %.60s: expected NAME=VALUE",
                           o ? o : "(null)");
    }
    if (!P->override_used[k]) {
      char list[256] = "";
      size_t len = 0;
      for (size_t i = 0; i < P->nparams && len + 2 < sizeof list; i++) {
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                P->params[i].name);
      }
      lth_error_clear(P->err);
      return lth_error_set(P->err, LTH_EINVAL,
                           "opts.params %.60s: %s defines no param '%.*s' (%s%s)", o, P->tx.name,
                           (int)(eq - o > 40 ? 40 : eq - o), o,
                           P->nparams ? "its params: " : "it has no params", list);
    }
  }
  return LTH_OK;
}

/* `sampling noise EPS [relative|absolute]`: the samples' noise level, declared
 * instead of estimated from the data (lth_samples_opts). */
static lth_status st_sampling_noise(lth_pp *P, size_t kw) {
  lth_status st = lth_pp_once(P, &P->at_noise, kw, "sampling noise");
  if (st == LTH_OK && P->first_samples_line) {
    st = LTH_PERR(P, kw, LTH_EPARSE,
                  "`sampling noise` must come before the first samples(...) block (line %zu): "
                  "it sets how their fits are chosen",
                  P->first_samples_line);
  }
  size_t b, e, wb, wn;
  if (st == LTH_OK && !lth_pcur_field(&P->c, &b, &e)) {
    st = LTH_PERR(P, P->c.pos, LTH_EPARSE, "expected a noise level after `sampling noise`");
  }
  double v = 0.0;
  if (st == LTH_OK && (st = lth_pcur_const(&P->c, b, e, "the noise level", &v)) == LTH_OK &&
      !(v >= 0.0 && v < 1e300)) {
    st = LTH_PERR(P, b, LTH_EPARSE, "the noise level must be a finite number >= 0, found %g", v);
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
      return LTH_PERR(P, wb, LTH_EPARSE,
                      "expected `relative`, `absolute` or the end of the line after the noise "
                      "level");
    }
  }
  return lth_pcur_end(&P->c, "the noise level");
}

lth_status lth_pp_st_sampling(lth_pp *P, size_t kw) {
  size_t b, at, n = lth_pcur_name(&P->c, &b);
  long K;
  if (n && lth_pcur_name_is(&P->c, b, n, "noise")) {
    return st_sampling_noise(P, kw);
  }
  if (!n || !lth_pcur_name_is(&P->c, b, n, "order")) {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return LTH_PERR(P, b, LTH_EPARSE,
                    "expected `order` or `noise` after `sampling` (`sampling order K`, "
                    "`sampling noise EPS`), found %s",
                    shown);
  }
  lth_status st = lth_pp_once(P, &P->at_sampling, kw, "sampling order");
  if (st == LTH_OK && P->first_samples_line) {
    st = LTH_PERR(P, kw, LTH_EPARSE,
                  "`sampling order` must come before the first samples(...) block (line %zu): it "
                  "sets the degree of their fits",
                  P->first_samples_line);
  }
  if (st == LTH_OK) {
    st = lth_pcur_int(&P->c, 1, LTH_P_MAX_SAMPLING_ORDER, "the sampling order", &K, &at);
  }
  if (st != LTH_OK || (st = lth_pcur_end(&P->c, "the sampling order")) != LTH_OK) {
    return st;
  }
  P->pb->K = (int)K;
  P->K_given = 1;
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* After the last statement                                                 */

static lth_status make_grid(lth_pp *P) {
  lth_problem *pb = P->pb;
  double t0 = pb->t0, t1 = pb->t1;
  if (P->grid_pts) {
    for (size_t k = 0; k < P->ngrid_pts; k++) {
      if (!(P->grid_pts[k] >= t0 && P->grid_pts[k] <= t1)) {
        return lth_pp_at_error(P, P->at_grid, LTH_EPARSE,
                               "grid point %zu (%.17g) lies outside the interval [%.17g, %.17g]",
                               k + 1, P->grid_pts[k], t0, t1);
      }
    }
    pb->grid = P->grid_pts;
    pb->ngrid = P->ngrid_pts;
    P->grid_pts = NULL;
    return LTH_OK;
  }
  size_t n = P->grid_n ? (size_t)P->grid_n : LTH_DEFAULT_GRID_POINTS;
  pb->grid = malloc(n * sizeof *pb->grid);
  if (!pb->grid) {
    return lth_pp_at_error(P, P->at_grid, LTH_ENOMEM, "out of memory for %zu grid points", n);
  }
  pb->ngrid = n;
  for (size_t k = 0; k < n; k++) {
    pb->grid[k] = k + 1 == n ? t1 : t0 + (t1 - t0) * ((double)k / (double)(n - 1));
    if (k > 0 && !(pb->grid[k] > pb->grid[k - 1])) {
      return lth_pp_at_error(
          P, P->at_grid.line ? P->at_grid : P->at_interval, LTH_EPARSE,
          "the interval [%.17g, %.17g] is too short for %zu distinct grid points", t0, t1, n);
    }
  }
  return LTH_OK;
}

static lth_status check_coverage(lth_pp *P) {
  for (size_t k = 0; k < P->pb->nsampled; k++) {
    const lth_psampled *se = &P->pb->sampled[k];
    double lo, hi;
    lth_source_domain(se->src, &lo, &hi);
    if (!(lo <= P->pb->t0 && hi >= P->pb->t1)) {
      return lth_pp_at_error(P, se->at, LTH_ESAMPLE,
                             "samples(\"%.100s\") for %s cover t in [%.17g, %.17g], which does not "
                             "contain the interval [%.17g, %.17g]",
                             se->path, se->label, lo, hi, P->pb->t0, P->pb->t1);
    }
  }
  return LTH_OK;
}

lth_status lth_pp_check_common(lth_pp *P) {
  if (!P->at_interval.line) {
    return lth_pp_at_error(P, P->at_interval, LTH_EPARSE, "missing `interval t0 t1` statement");
  }
  if (P->K_given && P->pb->K < P->r) {
    return lth_pp_at_error(
        P, P->at_sampling, LTH_EPARSE,
        "sampling order %d is below the index r = %d: the decomposition of an index-%d "
        "system and its self-check need derivatives of the data up to order %d",
        P->pb->K, P->r, P->r, P->r);
  }
  lth_status st = make_grid(P);
  return st != LTH_OK ? st : check_coverage(P);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

lth_status lth_pp_check_times(lth_pp *P, double **times, size_t *n) {
  const size_t uniform = 257, grid_max = 100001;
  lth_problem *pb = P->pb;
  size_t step = pb->ngrid > grid_max ? (pb->ngrid + grid_max - 1) / grid_max : 1;
  size_t cap = uniform + pb->ngrid / step + 2, k = 0;
  double *t = malloc(cap * sizeof *t);
  if (!t) {
    return lth_pp_at_error(P, P->at_interval, LTH_ENOMEM, "out of memory");
  }
  for (size_t i = 0; i < uniform; i++) {
    t[k++] = i + 1 == uniform ? pb->t1 : pb->t0 + (pb->t1 - pb->t0) * ((double)i / (uniform - 1));
  }
  for (size_t i = 0; i < pb->ngrid; i += step) {
    t[k++] = pb->grid[i];
  }
  qsort(t, k, sizeof *t, cmp_double);
  size_t m = 0;
  for (size_t i = 0; i < k; i++) {
    if (m == 0 || t[i] > t[m - 1]) {
      t[m++] = t[i];
    }
  }
  *times = t;
  *n = m;
  return LTH_OK;
}

lth_status lth_pp_mass_error(lth_pp *P, lth_spos at, lth_status st) {
  if (st == LTH_ENOMEM) {
    return lth_pp_relocate(P, at, st); /* a mass matrix too large to solve densely */
  }
  if (P->err) {
    P->err->status = LTH_EMODEL;
    lth_error_set_pos(P->err, P->tx.name, at.line ? at.line : P->tx.nlines, at.col);
  }
  return LTH_EMODEL;
}
