/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: inputs and outputs of the equation form (docs/equations.md
 * section 11); the inputs, signals and output names of the block form, whose
 * B(i), C and D are read by problem_ioblock.c.
 *
 *   inputs u1 u2                       # names, linear in the equations
 *   outputs y1 = x1 - 0.5*x2, y2 = lam # linear in unknowns and inputs
 *   u1(t) = sin(2*t)                   # the signal of a declared input
 *   u2(t) = samples("u2.csv")
 *
 * Inside equations an input is a term like an unknown (the literal parser
 * sees the code LTH_P_INPUT_VAR + k), which problem_eqn.c moves to the
 * model's B; it is not an unknown and does not count in s.  Outputs are
 * linear forms kept as written until the model exists (velocities x' are
 * unknowns only once every equation is read).  An input without a signal is
 * free: the system then refuses to evaluate its forcing (lth/system.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_impl.h"
#include "core/names_hash.h"

#define SHOW(n) ((int)((n) > 40 ? 40 : (n)))

typedef struct pin {
  char *name;
  lth_spos at;
  lth_source *sig; /* the signal (owned until handed to the system), NULL: free */
  lth_spos sig_at;
} pin;

typedef struct pout {
  char *name;
  lth_spos at;
  lth_plin lin;
} pout;

struct lth_pio {
  pin *in;
  int nin, capin;
  pout *out;
  int nout, capout;
};

void lth_pp_io_free(lth_pp *P) {
  struct lth_pio *I = P->io;
  if (!I) {
    return;
  }
  for (int k = 0; k < I->nin; k++) {
    free(I->in[k].name);
    lth_source_free(I->in[k].sig);
  }
  for (int k = 0; k < I->nout; k++) {
    free(I->out[k].name);
    lth_plin_free(&I->out[k].lin);
  }
  free(I->in);
  free(I->out);
  free(I);
  P->io = NULL;
}

static int find_in(const struct lth_pio *I, const char *s, size_t n) {
  for (int k = 0; I && k < I->nin; k++) {
    if (strlen(I->in[k].name) == n && memcmp(I->in[k].name, s, n) == 0) {
      return k;
    }
  }
  return -1;
}

static int find_out(const struct lth_pio *I, const char *s, size_t n) {
  for (int k = 0; I && k < I->nout; k++) {
    if (strlen(I->out[k].name) == n && memcmp(I->out[k].name, s, n) == 0) {
      return k;
    }
  }
  return -1;
}

int lth_pp_io_find_input(lth_pp *P, const char *s, size_t n) { return find_in(P->io, s, n); }
int lth_pp_io_find_output(lth_pp *P, const char *s, size_t n) { return find_out(P->io, s, n); }
const char *lth_pp_io_output_name(lth_pp *P, int k) { return P->io->out[k].name; }
const char *lth_pp_io_input_name(lth_pp *P, int k) { return P->io->in[k].name; }

int lth_pp_io_taken(lth_pp *P, const char *s, size_t n, const char **what) {
  int k = find_in(P->io, s, n);
  if (k >= 0) {
    *what = "an input";
    return P->io->in[k].at.line;
  }
  k = find_out(P->io, s, n);
  *what = "an output";
  return k >= 0 ? P->io->out[k].at.line : 0;
}

static struct lth_pio *io_state(lth_pp *P) {
  if (!P->io) {
    P->io = calloc(1, sizeof *P->io);
  }
  return P->io;
}

/* A new name at [b, b+n): not reserved, a statement, a param, a named
 * function, an unknown, an input or an output. */
static lth_status check_new(lth_pp *P, size_t b, size_t n, const char *kind) {
  static const char *const KW[] = {
      "lth",    "problem", "interval", "grid", "param", "sampling", "variables", "z0", "bc",
      "inputs", "outputs", "blocks",   "A",    "f",     "M",        "B",         "C",  "D"};
  const char *s = P->c.tx->buf + b, *what = NULL;
  double v;
  int line;
  if (!n) {
    char shown[64];
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return LTH_PERR(P, b, LTH_EPARSE, "expected the name of an %s, found %s", kind, shown);
  }
  int kw = 0;
  for (size_t k = 0; k < sizeof KW / sizeof KW[0]; k++) {
    kw = kw || (strlen(KW[k]) == n && memcmp(KW[k], s, n) == 0);
  }
  if (lth_pp_reserved_name(s, n) || kw) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "'%.*s' cannot be an %s: t, pi, the function names, eye, zeros, ones, diag, "
                    "samples and the statement names are reserved",
                    SHOW(n), s, kind);
  }
  if (lth_pp_param_value(P, s, n, &v)) {
    return LTH_PERR(P, b, LTH_EPARSE, "'%.*s' is a param: it cannot be an %s too", SHOW(n), s,
                    kind);
  }
  if ((line = lth_pp_func_line(P, s, n)) > 0) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "'%.*s' is a named function (line %d): it cannot be an %s too", SHOW(n), s,
                    line, kind);
  }
  if (P->eqn && lth_pp_eqn_find(P, s, n) >= 0) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "'%.*s' is an unknown (see `variables`): it cannot be an %s too", SHOW(n), s,
                    kind);
  }
  if ((line = lth_pp_io_taken(P, s, n, &what)) > 0) {
    return LTH_PERR(P, b, LTH_EPARSE, "'%.*s' is already %s (line %d)", SHOW(n), s, what, line);
  }
  return LTH_OK;
}

/* A name into the list of inputs (out = 0) or of outputs (out = 1). */
static lth_status add_name(lth_pp *P, struct lth_pio *I, int out, size_t b, size_t n) {
  char *name = malloc(n + 1);
  int ok = name && (out ? lth_grow((void **)&I->out, &I->capout, I->nout + 1, sizeof *I->out)
                        : lth_grow((void **)&I->in, &I->capin, I->nin + 1, sizeof *I->in));
  if (!ok) {
    free(name);
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  memcpy(name, P->c.tx->buf + b, n);
  name[n] = '\0';
  if (out) {
    I->out[I->nout++] = (pout){.name = name, .at = lth_pp_here(P, b)};
  } else {
    I->in[I->nin++] = (pin){.name = name, .at = lth_pp_here(P, b)};
  }
  return LTH_OK;
}

/* NAME [,] NAME ...: the inputs, or the outputs of the block form. */
static lth_status name_list(lth_pp *P, size_t kw, int out) {
  lth_pcur *c = &P->c;
  const char *kind = out ? "output" : "input";
  struct lth_pio *I = io_state(P);
  if (!I) {
    return LTH_PERR(P, kw, LTH_ENOMEM, "out of memory");
  }
  for (int count = 0;; count++) {
    if (count > 0 && lth_pcur_peek(c) == ',') {
      c->pos++;
    }
    size_t b, n = lth_pcur_name(c, &b);
    if (!n && lth_pcur_peek(c) < 0 && count > 0) {
      return LTH_OK;
    }
    lth_status st = check_new(P, b, n, kind);
    if (st != LTH_OK) {
      return st;
    }
    if (lth_pcur_peek(c) == '\'') {
      return LTH_PERR(P, c->pos, LTH_EPARSE, "declare the %s %.*s, not its derivative", kind,
                      SHOW(n), c->tx->buf + b);
    }
    if (out && lth_pcur_peek(c) == '=') {
      return LTH_PERR(P, c->pos, LTH_EPARSE,
                      "in the block form the outputs are named (outputs %.*s ...) and given by "
                      "C = [...] and D = [...]; `outputs y1 = x1 - x2` belongs to `problem "
                      "equations` files",
                      SHOW(n), c->tx->buf + b);
    }
    if ((st = add_name(P, I, out, b, n)) != LTH_OK) {
      return st;
    }
  }
}

/* inputs NAME [,] NAME ... */
lth_status lth_pp_st_inputs(lth_pp *P, size_t kw) {
  int line = P->eqn ? 0 : lth_pp_iob_used_line(P);
  if (line > 0) {
    return LTH_PERR(P, kw, LTH_EPARSE,
                    "`inputs` after B(i) or D (line %d): declare every input before the blocks "
                    "that have a column for it",
                    line);
  }
  return name_list(P, kw, 0);
}

/* One `NAME = linear form` of an outputs statement, up to a top-level ','. */
static lth_status output_one(lth_pp *P, struct lth_pio *I) {
  lth_pcur *c = &P->c;
  size_t b, n = lth_pcur_name(c, &b);
  lth_status st = check_new(P, b, n, "output");
  st = st == LTH_OK ? lth_pcur_expect(c, '=', "'=' after the output's name (y1 = x1 - x2)") : st;
  if (st != LTH_OK) {
    return st;
  }
  lth_pcur_skip_ws(c);
  size_t e = c->pos, end = c->st.e, rhs = c->pos;
  for (int depth = 0; e < end && !(c->tx->buf[e] == ',' && depth == 0); e++) {
    depth += c->tx->buf[e] == '(' || c->tx->buf[e] == '[';
    depth -= c->tx->buf[e] == ')' || c->tx->buf[e] == ']';
  }
  lth_plit_opts o = {.label = "an output"};
  lth_pp_eqn_lit_opts(P, &o);
  lth_pval v;
  c->st.e = e;
  st = lth_plit_parse(c, &o, &v);
  c->st.e = end;
  if (st != LTH_OK) {
    return st;
  }
  c->pos = e;
  if (v.rows != 1 || v.cols != 1) {
    lth_pval_free(&v);
    return LTH_PERR(P, rhs, LTH_EDIM, "an output is a scalar, found %d x %d", v.rows, v.cols);
  }
  lth_plin *l = v.ext ? v.ext[0] : NULL;
  if (!l || l->n == 0) {
    lth_pval_free(&v);
    return LTH_PERR(P, rhs, LTH_EPARSE,
                    "the output involves no unknown and no input: an output is a linear "
                    "combination of them (y1 = x1 - 0.5*x2)");
  }
  char *name = malloc(n + 1);
  if (!name || !lth_grow((void **)&I->out, &I->capout, I->nout + 1, sizeof *I->out)) {
    free(name);
    lth_pval_free(&v);
    return LTH_PERR(P, b, LTH_ENOMEM, "out of memory");
  }
  memcpy(name, c->tx->buf + b, n);
  name[n] = '\0';
  I->out[I->nout++] = (pout){.name = name, .at = lth_pp_here(P, b), .lin = *l};
  free(l);
  v.ext[0] = NULL;
  lth_pval_free(&v);
  return LTH_OK;
}

/* outputs NAME = FORM [, NAME = FORM ...]; the block form: outputs NAME [,] NAME ... */
lth_status lth_pp_st_outputs(lth_pp *P, size_t kw) {
  if (!P->eqn) { /* the block form: names for the rows of C and D */
    return name_list(P, kw, 1);
  }
  struct lth_pio *I = io_state(P);
  if (!I) {
    return LTH_PERR(P, kw, LTH_ENOMEM, "out of memory");
  }
  lth_status st = output_one(P, I);
  while (st == LTH_OK && lth_pcur_peek(&P->c) == ',') {
    P->c.pos++;
    st = output_one(P, I);
  }
  return st == LTH_OK ? lth_pcur_end(&P->c, "the outputs") : st;
}

int lth_pp_io_ninputs(const lth_pp *P) { return P->io ? P->io->nin : 0; }
int lth_pp_io_noutputs(const lth_pp *P) { return P->io ? P->io->nout : 0; }
lth_spos lth_pp_io_output_at(const lth_pp *P, int k) { return P->io->out[k].at; }
lth_spos lth_pp_io_input_at(const lth_pp *P, int k) { return P->io->in[k].at; }

lth_status lth_pp_io_default_outputs(lth_pp *P, int ny, lth_spos at) {
  struct lth_pio *I = io_state(P);
  if (!I || !lth_grow((void **)&I->out, &I->capout, ny, sizeof *I->out)) {
    return lth_pp_at_error(P, at, LTH_ENOMEM, "out of memory");
  }
  for (int k = 0; k < ny; k++) {
    char name[32];
    snprintf(name, sizeof name, "y[%d]", k + 1);
    char *copy = malloc(strlen(name) + 1);
    if (!copy) {
      return lth_pp_at_error(P, at, LTH_ENOMEM, "out of memory");
    }
    strcpy(copy, name);
    I->out[I->nout++] = (pout){.name = copy, .at = at};
  }
  return LTH_OK;
}

int lth_pp_io_is_signal(lth_pp *P, size_t b, size_t n) {
  return find_in(P->io, P->c.tx->buf + b, n) >= 0 && lth_pp_func_is_def(P, b, n);
}

/* NAME(t) = EXPR or samples("file.csv") for a declared input NAME. */
lth_status lth_pp_st_signal(lth_pp *P, size_t kw) {
  lth_pcur *c = &P->c;
  struct lth_pio *I = P->io;
  size_t b, n;
  c->pos = kw;
  n = lth_pcur_name(c, &b);
  int k = find_in(I, c->tx->buf + b, n);
  if (I->in[k].sig) {
    return LTH_PERR(P, b, LTH_EPARSE,
                    "the signal of the input %s is given twice (first on line %d)", I->in[k].name,
                    I->in[k].sig_at.line);
  }
  while (c->tx->buf[c->pos] != '=') {
    c->pos++; /* ( t ), checked by lth_pp_func_is_def */
  }
  c->pos++;
  size_t path_b, path_n;
  lth_source *src = NULL;
  lth_status st = lth_pp_parse_rhs(P, I->in[k].name, 1, 1, &src, &path_b, &path_n);
  if (st == LTH_OK && path_n > 0) {
    st = lth_pp_add_sampled(P, I->in[k].name, src, lth_pp_here(P, path_b), c->tx->buf + path_b,
                            path_n);
  }
  if (st != LTH_OK) {
    lth_source_free(src);
    return st;
  }
  I->in[k].sig = src;
  I->in[k].sig_at = lth_pp_here(P, b);
  return LTH_OK;
}

/* The outputs into the model: y_o = sum c x^(o) + c0. */
static lth_status model_output(lth_pp *P, lth_model *m, const int *base, int q, const pout *y) {
  lth_status st = lth_pp_eqn_put(P, m, y->at, LTH_MODEL_Y0, q, -1, &y->lin.c0, 1.0);
  for (int j = 0; j < y->lin.n && st == LTH_OK; j++) {
    const lth_pterm *tm = &y->lin.t[j];
    if (tm->var >= LTH_P_INPUT_VAR) {
      if (tm->order > 0) {
        return lth_pp_at_error(P, y->at, LTH_EPARSE,
                               "the output %s uses a derivative of the input %s: outputs are "
                               "linear in the unknowns and the inputs",
                               y->name, P->io->in[tm->var - LTH_P_INPUT_VAR].name);
      }
      st = lth_pp_eqn_put(P, m, y->at, LTH_MODEL_D, q, tm->var - LTH_P_INPUT_VAR, &tm->c, 1.0);
      continue;
    }
    int k = lth_pp_eqn_maxorder(P, tm->var), o = tm->order;
    if (o > 0 && !(k >= 2 && o < k)) {
      const char *x = lth_pp_eqn_name(P, tm->var);
      return lth_pp_at_error(P, y->at, LTH_EPARSE,
                             "the output %s uses %s%.*s, which is not an unknown (a velocity "
                             "%s' is one only where %s'' appears): outputs are linear in the "
                             "unknowns and the inputs",
                             y->name, x, o > 20 ? 20 : o, "''''''''''''''''''''", x, x);
    }
    st = lth_pp_eqn_put(P, m, y->at, LTH_MODEL_C, q, base[tm->var] + o, &tm->c, 1.0);
  }
  return st;
}

lth_status lth_pp_io_model(lth_pp *P, lth_model *m, const int *base) {
  struct lth_pio *I = P->io;
  lth_status st = LTH_OK;
  for (int k = 0; I && k < I->nin && st == LTH_OK; k++) {
    if (lth_model_add_input(m, I->in[k].name, I->in[k].at.line, I->in[k].at.col, P->err) < 0) {
      st = lth_pp_relocate(P, I->in[k].at, P->err ? P->err->status : LTH_ENOMEM);
    }
  }
  for (int k = 0; I && k < I->nout && st == LTH_OK; k++) {
    int q = lth_model_add_output(m, I->out[k].name, I->out[k].at.line, I->out[k].at.col, P->err);
    st = q < 0 ? lth_pp_relocate(P, I->out[k].at, P->err ? P->err->status : LTH_ENOMEM)
               : model_output(P, m, base, q, &I->out[k]);
  }
  return st;
}

lth_status lth_pp_io_signals(lth_pp *P, lth_system *sys) {
  struct lth_pio *I = P->io;
  lth_status st = LTH_OK;
  for (int k = 0; I && k < I->nin && st == LTH_OK; k++) {
    if (I->in[k].sig) {
      st = lth_system_set_input(sys, k, I->in[k].sig, P->err);
      I->in[k].sig = NULL; /* the system owns it, also on failure */
      st = st == LTH_OK ? st : lth_pp_relocate(P, I->in[k].sig_at, st);
    }
  }
  return st;
}

/* The names for the problem (copies). */
lth_status lth_pp_io_names(lth_pp *P) {
  struct lth_pio *I = P->io;
  lth_problem *pb = P->pb;
  int nin = I ? I->nin : 0, nout = I ? I->nout : 0;
  pb->inames = calloc((size_t)nin + 1, sizeof *pb->inames);
  pb->onames = calloc((size_t)nout + 1, sizeof *pb->onames);
  if (!pb->inames || !pb->onames) {
    return lth_pp_at_error(P, P->at_problem, LTH_ENOMEM, "out of memory");
  }
  for (int k = 0; k < nin + nout; k++) {
    const char *s = k < nin ? I->in[k].name : I->out[k - nin].name;
    char *copy = malloc(strlen(s) + 1);
    if (!copy) {
      return lth_pp_at_error(P, P->at_problem, LTH_ENOMEM, "out of memory");
    }
    strcpy(copy, s);
    if (k < nin) {
      pb->inames[pb->nin++] = copy;
    } else {
      pb->onames[pb->nout++] = copy;
    }
  }
  return LTH_OK;
}

/* ---- the public view (lth/problem.h) ---- */

int lth_problem_ninputs(const lth_problem *pb) { return pb->nin; }
int lth_problem_noutputs(const lth_problem *pb) { return pb->nout; }
const char *lth_problem_input_name(const lth_problem *pb, int k) {
  return k >= 0 && k < pb->nin ? pb->inames[k] : NULL;
}
const char *lth_problem_output_name(const lth_problem *pb, int k) {
  return k >= 0 && k < pb->nout ? pb->onames[k] : NULL;
}

lth_status lth_problem_set_input(lth_problem *pb, int k, lth_source *signal, lth_error *err) {
  if (!pb->sys || k < 0 || k >= pb->nin) {
    lth_source_free(signal);
    return lth_error_set(err, LTH_EINVAL, "input %d: the problem has %d input%s", k + 1, pb->nin,
                         pb->nin == 1 ? "" : "s");
  }
  return lth_system_set_input(pb->sys, k, signal, err);
}

int lth_problem_free_input(const lth_problem *pb) {
  return pb->sys && pb->nin > 0 ? lth_system_free_input(pb->sys) : -1;
}
