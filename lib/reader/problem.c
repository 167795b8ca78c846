/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files (include/lth/problem.h, docs/format.md section 1): statements and
 * the lth_problem they build.  The text layer is lib/reader/problem_lex.c.
 *
 * Statement order rules (checked, each with a positioned message):
 *   - `lth 1` only as the first statement; `problem dae|equations|lqr`
 *     before every statement except `lth 1`;
 *   - in `problem equations` files (lib/reader/problem_eqn.c) a statement that does
 *     not start with a statement name (or starts with an unknown or a param)
 *     is an equation; `variables` come before the equations that use them;
 *   - `blocks` (`sizes` for LQR) before any statement that needs the sizes
 *     (blocks, z0, bc, x0); `param` names before their use;
 *   - `sampling order` before the first samples(...) block (it fixes the
 *     degree of the fits);
 *   - `bc` as equations (`bc x(0) = 1`, problem_bc.c) in `problem equations`
 *     files, not mixed with `bc B0`, `bc B1`, `bc beta`;
 *   - `inputs` before the statements that use them (equations, B(i), D,
 *     signals u(t) = ...); in the block form not after a B(i) or D;
 *   - `interval` and `grid` may come anywhere; checks that need both, and
 *     the coverage of sampled data, run once the file has been read.
 * Nothing is ignored: every statement is used or is an error.
 *
 * Defaults: kind dae; grid of 101 uniform points; sampled data fitted with
 * an automatic degree (`sampling order K` fixes it: at least r, at most 20;
 * the equation form fixes 6 unless given) and the noise level estimated from
 * the data (`sampling noise EPS` declares it); blocks not given are zero;
 * LQR C = 0.
 * Right-hand sides are MATLAB-like expressions (lib/reader/problem_lit.c,
 * docs/equations.md): matrix literals with entries separated by ',' or blanks
 * and rows by ';' or a newline, eye / eye(n) / zeros / ones / diag, sums,
 * products, transposes; one ';' may end any statement.  Vectors (z0, x0,
 * bc beta, grid points, and blocks of n x 1 or 1 x n) may be written as a
 * row or a column; other blocks must have their exact shape.  samples("...")
 * stands alone.
 * Text: UTF-8 (an initial byte order mark and CR-LF line ends are accepted),
 * '#' starts a comment except inside "..." (CSV names cannot contain '"');
 * columns in messages count characters.
 * Limits against hostile input: file 64 MiB, line 1 MiB, r <= 64, block
 * sizes <= 100000, 50 million block entries in total, 250000 entries that
 * depend on t, grid 10^7 points.
 */
#include "lth/problem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"
#include "source/csc.h"

static const struct stmt_def {
  const char *kw;
  int kinds;
  lth_pp_handler fn;
} STATEMENTS[] = {
    {"lth", LTH_P_KIND_ALL, lth_pp_st_lth},
    {"problem", LTH_P_KIND_ALL, lth_pp_st_problem},
    {"blocks", LTH_P_KIND_DAE, lth_pp_st_blocks},
    {"sizes", LTH_P_KIND_LQR, lth_pp_st_sizes},
    {"interval", LTH_P_KIND_ALL, lth_pp_st_interval},
    {"grid", LTH_P_KIND_ALL, lth_pp_st_grid},
    {"param", LTH_P_KIND_ALL, lth_pp_st_param},
    {"sampling", LTH_P_KIND_ALL, lth_pp_st_sampling},
    {"variables", LTH_P_KIND_EQN, lth_pp_st_variables},
    {"inputs", LTH_P_KIND_DAE | LTH_P_KIND_EQN, lth_pp_st_inputs},
    {"outputs", LTH_P_KIND_DAE | LTH_P_KIND_EQN, lth_pp_st_outputs},
    {"A", LTH_P_KIND_BOTH, lth_pp_st_A},
    {"f", LTH_P_KIND_DAE, lth_pp_st_f},
    {"M", LTH_P_KIND_DAE, lth_pp_st_M},
    {"z0", LTH_P_KIND_DAE | LTH_P_KIND_EQN, lth_pp_st_z0},
    {"bc", LTH_P_KIND_DAE | LTH_P_KIND_EQN, lth_pp_st_bc},
    {"B", LTH_P_KIND_BOTH, lth_pp_st_B}, /* B(i) in the block form */
    {"H", LTH_P_KIND_LQR, lth_pp_st_H},
    {"C", LTH_P_KIND_BOTH, lth_pp_st_C}, /* the outputs' C in the block form */
    {"D", LTH_P_KIND_DAE, lth_pp_st_D},
    {"x0", LTH_P_KIND_LQR, lth_pp_st_x0},
};

static int current_kind(const lth_pp *P) {
  return P->pb->kind == LTH_PROBLEM_LQR ? LTH_P_KIND_LQR : P->eqn ? LTH_P_KIND_EQN : LTH_P_KIND_DAE;
}

static lth_status unknown_statement(lth_pp *P, size_t b, size_t n) {
  int lqr = P->pb->kind == LTH_PROBLEM_LQR;
  const char *list =
      lqr ? "sizes, interval, grid, param, A, B, H, C, x0, sampling order, sampling noise"
          : "blocks, interval, grid, param, A(i,j), f(i), M(i), z0, bc, inputs, B(i), "
            "outputs, C, D, sampling order, sampling noise";
  if (!n) {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return LTH_PERR(P, b, LTH_EPARSE, "expected a statement (%s), found %s", list, shown);
  }
  const char *name = P->c.tx->buf + b;
  int len = (int)(n > 40 ? 40 : n), next = lth_pcur_peek(&P->c);
  if (next == '\'' && !lqr) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "unknown statement '%.*s': to write the DAE as equations (%.*s' = ...), start "
                    "the file with `problem equations`; statements are %s",
                    len, name, len, name, list);
  }
  if (next == '=') {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "unknown statement '%.*s': to define a constant write `param %.*s = ...`; "
                    "statements are %s",
                    len, name, len, name, list);
  }
  return LTH_PERR(P, b, LTH_EPARSE, "unknown statement '%.*s': expected one of %s", len, name,
                  list);
}

static lth_status wrong_kind(lth_pp *P, size_t b, const struct stmt_def *d, int kind) {
  if (kind == LTH_P_KIND_LQR) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "`%s` is a DAE statement and not allowed in a `problem lqr` file", d->kw);
  }
  if (kind == LTH_P_KIND_EQN) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "`%s` belongs to the block form (`problem dae`); a `problem equations` file "
                    "gives the DAE as equations in its unknowns",
                    d->kw);
  }
  if (d->kinds == LTH_P_KIND_EQN) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "`%s` belongs to `problem equations` files; this file is in the block form "
                    "(start it with `problem equations` to write equations)",
                    d->kw);
  }
  return LTH_PERR(P, b, LTH_EPARSE,
                  "`%s` belongs to `problem lqr` files; this file is a DAE problem (start "
                  "it with `problem lqr`)",
                  d->kw);
}

/* MATLAB habit: one ';' may end any statement (`A(1,1) = [1 2; 3 4];`). */
static void strip_semicolon(lth_pp *P) {
  const char *buf = P->tx.buf;
  size_t e = P->c.st.e;
  while (e > P->c.st.b && (buf[e - 1] == ' ' || buf[e - 1] == '\t')) {
    e--;
  }
  if (e > P->c.st.b && buf[e - 1] == ';') {
    P->c.st.e = e - 1;
  }
}

static lth_status statement(lth_pp *P, const lth_pstmt *stmt) {
  P->c.st = *stmt;
  P->c.pos = stmt->b;
  strip_semicolon(P);
  size_t b, n = lth_pcur_name(&P->c, &b);
  int kind = current_kind(P);
  /* INPUT(t) = ...: the signal of a declared input */
  if (lth_pp_io_is_signal(P, b, n)) {
    return lth_pp_st_signal(P, b);
  }
  /* NAME(t) = ...: a named function (an equation exp(t) = x stays one) */
  if (lth_pp_func_is_def(P, b, n) &&
      !(kind == LTH_P_KIND_EQN && lth_expr_func_find(P->c.tx->buf + b, n) >= 0)) {
    for (size_t k = 0; k < sizeof STATEMENTS / sizeof STATEMENTS[0]; k++) {
      if (lth_pcur_name_is(&P->c, b, n, STATEMENTS[k].kw) && (STATEMENTS[k].kinds & kind)) {
        return LTH_PERR(P, b, LTH_EPARSE,
                        "`%s` is a statement: a named function needs another name",
                        STATEMENTS[k].kw);
      }
    }
    return lth_pp_st_func(P, b);
  }
  /* cost integral ... / cost final ... (an unknown called cost starts an equation) */
  if (lth_pp_cost_is_statement(P, b, n)) {
    return lth_pp_st_cost(P, b);
  }
  if (kind == LTH_P_KIND_EQN && lth_pp_eqn_is_equation(P, b, n)) {
    return lth_pp_eqn_equation(P, stmt->b);
  }
  for (size_t k = 0; n && k < sizeof STATEMENTS / sizeof STATEMENTS[0]; k++) {
    const struct stmt_def *d = &STATEMENTS[k];
    if (!lth_pcur_name_is(&P->c, b, n, d->kw)) {
      continue;
    }
    return d->kinds & kind ? d->fn(P, b) : wrong_kind(P, b, d, kind);
  }
  return unknown_statement(P, b, n);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */

static void parser_free(lth_pp *P) {
  lth_ptext_free(&P->tx);
  for (size_t i = 0; i < P->nparams; i++) {
    free(P->params[i].name);
  }
  free(P->params);
  free(P->slots);
  free(P->at_block);
  if (P->blk) {
    for (int k = 0; k < P->r * (P->r + 1); k++) {
      lth_source_free(P->blk[k]);
    }
  }
  free(P->blk);
  free(P->at_mass);
  lth_pp_eqn_free(P);
  lth_pp_funcs_free(P);
  lth_pp_bc_free(P);
  lth_pp_io_free(P);
  lth_pp_iob_free(P);
  lth_pp_cost_free(P);
  free(P->override_used);
  free(P->grid_pts);
  lth_ebuild_free(P->c.eb);
}

static lth_status parse_all(lth_pp *P) {
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
    if (!P->eqn) { /* the statement's values are sources now */
      lth_ebuild_truncate(P->c.eb, lth_pp_func_mark(P));
    }
    P->nstmt++;
  }
}

void lth_problem_opts_init(lth_problem_opts *opts) { memset(opts, 0, sizeof *opts); }

lth_status lth_problem_parse(const char *text, size_t len, const char *name, const char *basedir,
                             lth_problem **out, lth_error *err) {
  return lth_problem_parse_opts(text, len, name, basedir, NULL, out, err);
}

lth_status lth_problem_parse_opts(const char *text, size_t len, const char *name,
                                  const char *basedir, const lth_problem_opts *opts,
                                  lth_problem **out, lth_error *err) {
  lth_error_clear(err);
  if (!out || (!text && len > 0)) {
    return lth_error_set(err, LTH_EINVAL, "lth_problem_parse: NULL text or output pointer");
  }
  *out = NULL;
  lth_pp P;
  memset(&P, 0, sizeof P);
  P.err = err;
  P.basedir = basedir;
  P.opts = opts;
  P.pb = calloc(1, sizeof *P.pb);
  P.override_used = calloc(opts && opts->nparams ? opts->nparams : 1, sizeof *P.override_used);
  if (!P.pb || !P.override_used) {
    free(P.pb);
    free(P.override_used);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  P.pb->kind = LTH_PROBLEM_DAE;
  pthread_mutex_init(&P.pb->bc_mu, NULL);
  P.c = (lth_pcur){.tx = &P.tx,
                   .st = {0, 0, 1, 0},
                   .pos = 0,
                   .lookup = lth_pp_param_lookup,
                   .ctx = &P,
                   .ndep = &P.ndep,
                   .err = err,
                   .ops = 0.0};
  if (!(P.c.eb = lth_ebuild_alloc())) {
    free(P.pb);
    free(P.override_used);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  lth_status st = lth_ptext_init(&P.tx, text, len, name ? name : "<input>", err);
  if (st == LTH_OK) {
    st = parse_all(&P);
  }
  if (st == LTH_OK) {
    st = lth_pp_check_overrides(&P);
  }
  if (st == LTH_OK) {
    st = P.pb->kind == LTH_PROBLEM_LQR ? lth_pp_finish_lqr(&P)
         : P.eqn                       ? lth_pp_finish_eqn(&P)
                                       : lth_pp_finish_dae(&P);
  }
  if (st == LTH_OK && P.pb->kind != LTH_PROBLEM_LQR && P.pb->sys && P.pb->t0 < P.pb->t1) {
    /* the interval's scale for cond_interval (include/lth/conditioning.h) */
    st = lth_system_set_interval(P.pb->sys, P.pb->t0, P.pb->t1, err);
  }
  if (st == LTH_OK) {
    st = lth_pp_make_names(&P);
  }
  if (st == LTH_OK) {
    st = lth_pp_io_names(&P);
  }
  parser_free(&P);
  if (st != LTH_OK) {
    lth_problem_free(P.pb);
    return st;
  }
  *out = P.pb;
  return LTH_OK;
}

/* Read a whole file of at most LTH_P_MAX_FILE bytes ("-": standard input). */
static lth_status slurp(const char *path, char **out, size_t *len, lth_error *err) {
  int is_stdin = strcmp(path, "-") == 0;
  FILE *fp = is_stdin ? stdin : fopen(path, "rb");
  lth_status st = LTH_OK;
  path = is_stdin ? "<stdin>" : path;
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
  if (!is_stdin) {
    fclose(fp);
  }
  if (!buf || st != LTH_OK || n > LTH_P_MAX_FILE) {
    free(buf);
    st = !buf ? LTH_ENOMEM : st != LTH_OK ? st : LTH_EPARSE;
    lth_error_set(err, st, "%s",
                  st == LTH_EIO      ? "error reading the data file"
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
  return lth_problem_read_opts(path, NULL, out, err);
}

lth_status lth_problem_read_opts(const char *path, const lth_problem_opts *opts, lth_problem **out,
                                 lth_error *err) {
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
  /* CSV paths are relative to the data file's directory (standard input:
   * the current directory) */
  int is_stdin = strcmp(path, "-") == 0;
  const char *slash = is_stdin ? NULL : strrchr(path, '/');
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
    st = lth_problem_parse_opts(text, len, is_stdin ? "<stdin>" : path, dir, opts, out, err);
  }
  free(dir);
  free(text);
  return st;
}

void lth_problem_free(lth_problem *pb) {
  if (!pb) {
    return;
  }
  lth_system_free(pb->sys); /* before the LQR sources, mass matrices and model it refers to */
  lth_pp_cost_release(pb);
  lth_model_free(pb->model);
  for (size_t k = 0; k < pb->neqsrc; k++) {
    lth_source_free(pb->eqsrc[k]);
  }
  free(pb->eqsrc);
  lth_pp_names_free(pb);
  for (int k = 0; k < pb->nin; k++) {
    free(pb->inames[k]);
  }
  for (int k = 0; k < pb->nout; k++) {
    free(pb->onames[k]);
  }
  free(pb->inames);
  free(pb->onames);
  for (int k = 0; k < 4; k++) {
    lth_source_free(pb->lqr_src[k]);
  }
  for (int k = 0; pb->mass && k < pb->nmass; k++) {
    lth_source_free(pb->mass[k]);
  }
  free(pb->mass);
  for (size_t k = 0; k < pb->nsampled; k++) {
    free(pb->sampled[k].path);
  }
  free(pb->sampled);
  free(pb->grid);
  free(pb->z0);
  free(pb->B0);
  free(pb->B1);
  lth_csc_free(pb->bcsp[0]);
  lth_csc_free(pb->bcsp[1]);
  free(pb->bc_wrote[0]);
  free(pb->bc_wrote[1]);
  pthread_mutex_destroy(&pb->bc_mu);
  free(pb->beta);
  free(pb->C);
  free(pb->x0);
  free(pb->name);
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
