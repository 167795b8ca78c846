/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: inputs and outputs of the block form (`problem dae`,
 * docs/format.md section 1.4):
 *
 *   inputs u1 u2              # n_u names (problem_io.c, as in the equation form)
 *   B(1) = [0; 1]             # block row i's input matrix, n_i x n_u, may depend on t
 *   u1(t) = sin(2*t)          # the signals (problem_io.c)
 *   outputs y1 y2             # optional names for the rows of C and D
 *   C = [1, 0, 0; 0, 0, 1]    # n_y x s, may depend on t
 *   D = [0; 1]                # n_y x n_u, may depend on t
 *
 * so that E z' = A z + B u + f, y = C z + D u.  The number of outputs n_y is
 * the number of names in `outputs`, else the rows of the first of C, D read
 * (the outputs are then called y[1] .. y[n_y]).  B(i) is held until the end,
 * where M(i)^{-1} applies to it as to A(i,j) and f(i) (problem_block.c);
 * then the system gets the inputs, B, the signals and the outputs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/samples.h"
#include "problem_impl.h"

struct lth_piob {
  lth_source **B; /* r slots: B(i) until the end */
  lth_spos *at_B;
  lth_source *C, *D;
  lth_spos at_C, at_D;
  int ny;        /* rows of C and D as read (0: neither read yet) */
  int used_line; /* the first B(i) or D */
};

static struct lth_piob *iob_state(lth_pp *P) {
  if (!P->iob && P->r > 0) {
    struct lth_piob *Q = calloc(1, sizeof *Q);
    if (Q && (Q->B = calloc((size_t)P->r, sizeof *Q->B)) &&
        (Q->at_B = calloc((size_t)P->r, sizeof *Q->at_B))) {
      P->iob = Q;
    } else if (Q) {
      free(Q->B);
      free(Q);
    }
  }
  return P->iob;
}

void lth_pp_iob_free(lth_pp *P) {
  struct lth_piob *Q = P->iob;
  if (!Q) {
    return;
  }
  for (int i = 0; i < P->r; i++) {
    lth_source_free(Q->B[i]);
  }
  free(Q->B);
  free(Q->at_B);
  lth_source_free(Q->C);
  lth_source_free(Q->D);
  free(Q);
  P->iob = NULL;
}

int lth_pp_iob_used_line(const lth_pp *P) { return P->iob ? P->iob->used_line : 0; }

lth_source **lth_pp_iob_B_slot(lth_pp *P, int i) {
  return P->iob && P->iob->B[i - 1] ? &P->iob->B[i - 1] : NULL;
}

/* The statement needs `blocks` (and, with inputs set, `inputs`) before it. */
static lth_status need(lth_pp *P, size_t kw, const char *label, int inputs) {
  if (!P->pb->sys) {
    return LTH_PERR(P, kw, LTH_EPARSE, "%s before `blocks`: the block sizes must be given first",
                    label);
  }
  if (inputs && lth_pp_io_ninputs(P) == 0) {
    return LTH_PERR(P, kw, LTH_EPARSE,
                    "%s before `inputs`: declare the inputs first (inputs u1 u2), their number "
                    "is the number of columns of %s",
                    label, label);
  }
  return iob_state(P) ? LTH_OK : LTH_PERR(P, kw, LTH_ENOMEM, "out of memory");
}

/* A sampled right-hand side is recorded for the coverage check. */
static lth_status keep(lth_pp *P, const char *label, lth_source *src, size_t pb_, size_t pn) {
  return lth_source_is_samples(src)
             ? lth_pp_add_sampled(P, label, src, lth_pp_here(P, pb_), P->c.tx->buf + pb_, pn)
             : LTH_OK;
}

/* B(i) = ...: block row i's input matrix, n_i x n_u. */
lth_status lth_pp_iob_B(lth_pp *P, size_t kw) {
  long i;
  size_t at;
  lth_status st = lth_pcur_expect(&P->c, '(', "'(' after B: a DAE file writes B(i) = ...");
  st = st == LTH_OK ? lth_pcur_int(&P->c, 0, 1000000, "a block row", &i, &at) : st;
  st = st == LTH_OK ? lth_pcur_expect(&P->c, ')', "')' after the block row") : st;
  st = st == LTH_OK ? lth_pcur_expect(&P->c, '=', "'=' after B(i)") : st;
  if (st != LTH_OK) {
    return st;
  }
  char label[32];
  snprintf(label, sizeof label, "B(%ld)", i);
  if ((st = need(P, kw, label, 1)) != LTH_OK) {
    return st;
  }
  struct lth_piob *Q = P->iob;
  if (i < 1 || i > P->r) {
    return LTH_PERR(P, at, LTH_ESTRUCT, "%s: the block rows are 1..%d (`blocks` gives %d sizes)",
                    label, P->r, P->r);
  }
  if (Q->at_B[i - 1].line) {
    return LTH_PERR(P, kw, LTH_EPARSE, "%s is given twice (first on line %d)", label,
                    Q->at_B[i - 1].line);
  }
  int rows = lth_system_block_size(P->pb->sys, (int)i), cols = lth_pp_io_ninputs(P);
  size_t pb_, pn;
  lth_source *src;
  if ((st = lth_pp_parse_block(P, kw, label, rows, cols, &src, &pb_, &pn)) != LTH_OK) {
    return st;
  }
  Q->B[i - 1] = src;
  Q->at_B[i - 1] = lth_pp_here(P, kw);
  Q->used_line = Q->used_line ? Q->used_line : Q->at_B[i - 1].line;
  return keep(P, label, src, pb_, pn);
}

/* The right-hand side of C or D (cols columns) whose number of rows is the
 * number of outputs: named, or fixed by the other of C, D, else the
 * literal's. */
static lth_status output_rhs(lth_pp *P, size_t kw, const char *label, int cols, lth_source **out) {
  struct lth_piob *Q = P->iob;
  lth_pcur *c = &P->c;
  int rows = lth_pp_io_noutputs(P) ? lth_pp_io_noutputs(P) : Q->ny;
  size_t pb_, pn;
  lth_status st;
  if (rows > 0) {
    st = lth_pp_parse_block(P, kw, label, rows, cols, out, &pb_, &pn);
    st = st == LTH_OK ? keep(P, label, *out, pb_, pn) : st;
    Q->ny = st == LTH_OK ? rows : Q->ny;
    return st;
  }
  lth_pcur_skip_ws(c);
  size_t rhs = c->pos, b, n = lth_pcur_name(c, &b);
  if (n && lth_pcur_name_is(c, b, n, "samples")) {
    return LTH_PERR(P, rhs, LTH_EPARSE,
                    "%.1s = samples(...) needs the number of outputs n_y: name them first "
                    "(outputs y1 y2), or give %.1s as a matrix literal",
                    label, label);
  }
  c->pos = rhs;
  lth_plit_opts o = {.label = label};
  lth_pval v;
  if ((st = lth_plit_parse(c, &o, &v)) != LTH_OK) {
    return st;
  }
  if (v.cols != cols) {
    st = LTH_PERR(P, rhs, LTH_EDIM,
                  "%.1s has one row per output and %d columns (%s), but the matrix literal is "
                  "%d x %d",
                  label, cols, label[0] == 'C' ? "s, the size of z" : "the number of inputs",
                  v.rows, v.cols);
  }
  st = st == LTH_OK ? lth_pp_charge_entries(P, kw, v.rows, cols) : st;
  st = st == LTH_OK ? lth_pval_source(c, rhs, &v, out) : st;
  Q->ny = st == LTH_OK ? v.rows : Q->ny;
  lth_pval_free(&v);
  return st;
}

/* C = ... (n_y x s) in a DAE file; `problem lqr` files keep their terminal weight C. */
lth_status lth_pp_iob_C(lth_pp *P, size_t kw) {
  struct lth_piob *Q;
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after C");
  st = st == LTH_OK ? need(P, kw, "C", 0) : st;
  if (st != LTH_OK) {
    return st;
  }
  Q = P->iob;
  if (Q->at_C.line) {
    return LTH_PERR(P, kw, LTH_EPARSE, "C is given twice (first on line %d)", Q->at_C.line);
  }
  Q->at_C = lth_pp_here(P, kw);
  return output_rhs(P, kw, "C (n_y x s)", lth_system_size(P->pb->sys), &Q->C);
}

/* D = ... (n_y x n_u). */
lth_status lth_pp_st_D(lth_pp *P, size_t kw) {
  struct lth_piob *Q;
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after D");
  st = st == LTH_OK ? need(P, kw, "D", 1) : st;
  if (st != LTH_OK) {
    return st;
  }
  Q = P->iob;
  if (Q->at_D.line) {
    return LTH_PERR(P, kw, LTH_EPARSE, "D is given twice (first on line %d)", Q->at_D.line);
  }
  Q->at_D = lth_pp_here(P, kw);
  Q->used_line = Q->used_line ? Q->used_line : Q->at_D.line;
  return output_rhs(P, kw, "D (n_y x n_u)", lth_pp_io_ninputs(P), &Q->D);
}

/* The inputs and B into the system: every input enters some B(i) or D. */
static lth_status set_inputs(lth_pp *P, struct lth_piob *Q, lth_system *sys) {
  int nu = lth_pp_io_ninputs(P), any = Q && Q->D;
  for (int i = 0; Q && i < P->r; i++) {
    any = any || Q->B[i];
  }
  if (nu > 0 && !any) {
    return lth_pp_at_error(P, lth_pp_io_input_at(P, 0), LTH_EPARSE,
                           "the file declares %d input%s (first: %s) but gives no B(i) = [...] "
                           "(n_i x %d) and no D: the inputs would act on nothing",
                           nu, nu == 1 ? "" : "s", lth_pp_io_input_name(P, 0), nu);
  }
  lth_status st = nu > 0 ? lth_system_set_inputs(sys, nu, P->err) : LTH_OK;
  st = st == LTH_OK ? st : lth_pp_relocate(P, P->at_blocks, st);
  for (int i = 0; Q && i < P->r && st == LTH_OK; i++) {
    if (Q->B[i]) {
      st = lth_system_set_B(sys, i + 1, Q->B[i], P->err);
      Q->B[i] = NULL; /* the system owns it, also on failure */
      st = st == LTH_OK ? st : lth_pp_relocate(P, Q->at_B[i], st);
    }
  }
  return st == LTH_OK ? lth_pp_io_signals(P, sys) : st;
}

/* C and D into the system, with the outputs' names. */
static lth_status set_outputs(lth_pp *P, struct lth_piob *Q, lth_system *sys) {
  int named = lth_pp_io_noutputs(P);
  if (named > 0 && (!Q || (!Q->C && !Q->D))) {
    return lth_pp_at_error(P, lth_pp_io_output_at(P, 0), LTH_EPARSE,
                           "the file names %d output%s but gives no C = [...] (%d x s) and no D "
                           "= [...]: the outputs are y = C z + D u",
                           named, named == 1 ? "" : "s", named);
  }
  if (!Q || (!Q->C && !Q->D)) {
    return LTH_OK;
  }
  lth_spos at = Q->C ? Q->at_C : Q->at_D;
  if (named > 0 && named != Q->ny) {
    return lth_pp_at_error(P, at, LTH_EDIM,
                           "%s has %d row%s, but `outputs` (line %d) names %d output%s: one row "
                           "per output",
                           Q->C ? "C" : "D", Q->ny, Q->ny == 1 ? "" : "s",
                           lth_pp_io_output_at(P, 0).line, named, named == 1 ? "" : "s");
  }
  lth_status st = named ? LTH_OK : lth_pp_io_default_outputs(P, Q->ny, at);
  if (st != LTH_OK) {
    return st;
  }
  st = lth_system_set_outputs(sys, Q->ny, Q->C, Q->D, NULL, P->err);
  Q->C = Q->D = NULL; /* the system owns them, also on failure */
  return st == LTH_OK ? st : lth_pp_relocate(P, at, st);
}

lth_status lth_pp_iob_finish(lth_pp *P) {
  lth_status st = set_inputs(P, P->iob, P->pb->sys);
  return st == LTH_OK ? set_outputs(P, P->iob, P->pb->sys) : st;
}
