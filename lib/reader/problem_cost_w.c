/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: the cost statements into the problem (lib/reader/problem_cost.h):
 * once the model exists (lth_pp_cost_finish) each variable gets its place
 * in w = (z, u, y) -- the unknown at canonical position k is w_k (an index-1
 * unknown is eliminated from z: refused, an output can weigh it; a
 * derivative x' is refused unless it is the velocity unknown x'' brings),
 * input j is w_{s+j}, output j is w_{s+nu+j} -- and the polynomial
 * c0 + sum_a l_a w_a + sum_{a<=b} q_ab w_a w_b becomes
 * L = w'W w + 2 w'l + c with W_aa = q_aa, W_ab = W_ba = q_ab/2 (a != b),
 * l = l_a/2, c = c0; the final cost's coefficients are evaluated at t1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem_cost.h"
#include "problem_impl.h"

/* The place in w of a variable used at `at`, or an error there. */
static lth_status position(lth_pp *P, const lth_model *m, long long key, lth_spos at, int *w) {
  int var = key_var(key), o = key_order(key), s = lth_model_size(m);
  int nu = lth_pp_io_ninputs(P);
  char nm[96];
  if (var >= LTH_P_INPUT_VAR) {
    *w = s + var - LTH_P_INPUT_VAR;
    return LTH_OK;
  }
  if (var >= COST_OUTPUT_VAR) {
    *w = s + nu + var - COST_OUTPUT_VAR;
    return LTH_OK;
  }
  const char *x = lth_pp_eqn_name(P, var);
  int k = lth_pp_eqn_maxorder(P, var);
  if (o > 0 && !(k >= 2 && o < k)) {
    return lth_pp_at_error(P, at, LTH_EPARSE,
                           "the cost weighs %s, which is not an unknown (a velocity %s' is one "
                           "only where %s'' appears): a cost is a quadratic form in the "
                           "outputs, unknowns and inputs (define an output for other "
                           "quantities)",
                           lth_pp_cost_key_name(P, key, nm, sizeof nm), x, x);
  }
  /* the model's name of x^(o): x and o quotes, of any length */
  size_t len = strlen(x);
  char *full = malloc(len + (size_t)o + 1);
  if (!full) {
    return lth_pp_at_error(P, at, LTH_ENOMEM, "out of memory");
  }
  memcpy(full, x, len);
  memset(full + len, '\'', (size_t)o);
  int mv = lth_model_find_variable(m, full, len + (size_t)o);
  free(full);
  int pos = mv >= 0 ? lth_model_iperm(m)[mv] : -1;
  lth_pp_cost_key_name(P, key, nm, sizeof nm);
  if (pos < 0 || pos >= s) {
    return lth_pp_at_error(P, at, LTH_EPARSE,
                           "the cost weighs %s, an index-1 unknown, which lth eliminates from "
                           "the plant's unknowns (docs/equations.md section 10): write it as an "
                           "output (outputs y_%s = %s) and weigh the output",
                           nm, x, nm);
  }
  *w = pos;
  return LTH_OK;
}

/* The value of a coefficient at t (the final cost's, at t1). */
static lth_status coef_at(lth_pp *P, lth_spos at, const lth_psc *s, double t, double *v) {
  if (s->node < 0) {
    *v = s->v;
    return LTH_OK;
  }
  lth_escalar r;
  lth_status st =
      lth_ebuild_subst_t(P->c.eb, (lth_escalar){s->v, s->node}, (lth_escalar){t, -1}, &r, P->err);
  if (st == LTH_OK && r.node < 0) {
    *v = r.v;
    return LTH_OK;
  }
  lth_expr *e = NULL;
  if (st == LTH_OK) {
    st = lth_psc_compile(&P->c, P->c.st.b, s, 1.0, &e);
  }
  if (st == LTH_OK) {
    st = lth_expr_eval(e, t, v, P->err);
  }
  lth_expr_free(e);
  if (st != LTH_OK) {
    st = lth_pp_relocate(P, at, st);
    lth_error_prefix(P->err, "the final cost at t1: ");
  }
  return st;
}

/* Entry k of part (W, l or c) of the integrand: the constant or the
 * compiled coefficient h. */
static lth_status put_entry(lth_pp *P, const lth_psc *h, size_t k, double *v, lth_expr **e) {
  if (v) {
    v[k] = h->v;
    return LTH_OK;
  }
  return h->node >= 0 || h->v != 0.0 ? lth_psc_compile(&P->c, P->c.st.b, h, 1.0, &e[k]) : LTH_OK;
}

/* One part of the integrands as a source: W (part 0, n x n: W_ab = W_ba =
 * q_ab/2, W_aa = q_aa), l (part 1, n x 1: l_a/2) or c (part 2: c0);
 * constant when no coefficient of the part depends on t. */
static lth_status integrand_part(lth_pp *P, const int *wpos, const int *tpos, int n, int part,
                                 lth_source **out) {
  const cpoly *p = &P->cost->sum[0];
  int rows = part == 2 ? 1 : n, cols = part == 0 ? n : 1, dep = part == 2 && p->c0.node >= 0;
  for (int k = 0; k < p->n && part < 2; k++) {
    dep |= (p->t[k].b == NO_KEY) == (part == 1) && p->t[k].c.node >= 0;
  }
  size_t cnt = (size_t)rows * (size_t)cols;
  double *v = dep ? NULL : calloc(cnt, sizeof *v);
  lth_expr **e = dep ? calloc(cnt, sizeof *e) : NULL;
  lth_status st = v || e ? LTH_OK : lth_pp_at_error(P, P->cost->at[0], LTH_ENOMEM, "out of memory");
  lth_pvctx x = {.c = &P->c, .what = "a cost"};
  lth_psc half = LTH_PSC_CONST(0.5);
  if (st == LTH_OK && part == 2) {
    st = put_entry(P, &p->c0, 0, v, e);
  }
  for (int k = 0; k < p->n && st == LTH_OK && part < 2; k++) {
    const cterm *tm = &p->t[k];
    if ((tm->b == NO_KEY) != (part == 1)) {
      continue;
    }
    int a = wpos[tpos[2 * k]], b = part == 1 ? 0 : wpos[tpos[2 * k + 1]];
    lth_psc h = tm->c;
    if (part == 1 || a != b) {
      st = lth_psc_binop(&x, P->c.st.b, '*', &tm->c, &half, &h);
    }
    st = st == LTH_OK ? put_entry(P, &h, (size_t)a + (size_t)b * (size_t)rows, v, e) : st;
    if (st == LTH_OK && part == 0 && a != b) {
      st = put_entry(P, &h, (size_t)b + (size_t)a * (size_t)rows, v, e);
    }
  }
  if (st == LTH_OK) {
    *out = dep ? lth_source_expr(rows, cols, e, P->err)
               : lth_source_const(rows, cols, v, rows, P->err);
    st = *out ? LTH_OK : LTH_ENOMEM;
    if (dep) {
      memset(e, 0, cnt * sizeof *e); /* the source owns them, also on failure */
    }
  }
  for (size_t k = 0; e && k < cnt; k++) {
    lth_expr_free(e[k]);
  }
  free(e);
  free(v);
  return st;
}

/* The integrands as the sources W (n x n), l (n x 1), c (1 x 1). */
static lth_status integrand(lth_pp *P, const int *wpos, const int *tpos, int n) {
  lth_problem *pb = P->pb;
  lth_spos at = P->cost->at[0];
  if ((double)n * (double)n > LTH_P_MAX_ENTRIES) {
    return lth_pp_at_error(P, at, LTH_EDIM,
                           "the cost's weight W on (z, u, y) would be %d x %d: too large for a "
                           "data file (at most %.0f million entries)",
                           n, n, LTH_P_MAX_ENTRIES / 1e6);
  }
  lth_status st = LTH_OK;
  for (int part = 0; part < 3 && st == LTH_OK; part++) {
    st = integrand_part(P, wpos, tpos, n, part, &pb->cost_src[part]);
    st = st == LTH_OK ? st : lth_pp_relocate(P, at, st);
  }
  if (st == LTH_OK) {
    pb->cost.W = pb->cost_src[0];
    pb->cost.l = pb->cost_src[1];
    pb->cost.c = pb->cost_src[2];
  }
  return st;
}

/* The final costs at t1 as F (n x n), f (n), cF. */
static lth_status final_cost(lth_pp *P, const int *wpos, const int *tpos, int n) {
  struct lth_pcost *C = P->cost;
  lth_problem *pb = P->pb;
  const cpoly *p = &C->sum[1];
  lth_spos at = C->at[1];
  if ((double)n * (double)n > LTH_P_MAX_ENTRIES) {
    return lth_pp_at_error(P, at, LTH_EDIM,
                           "the final cost's weight F on (z, u, y) would be %d x %d: too large "
                           "for a data file (at most %.0f million entries)",
                           n, n, LTH_P_MAX_ENTRIES / 1e6);
  }
  pb->cost_F = calloc((size_t)n * (size_t)n + 1, sizeof *pb->cost_F);
  pb->cost_f = calloc((size_t)n + 1, sizeof *pb->cost_f);
  if (!pb->cost_F || !pb->cost_f) {
    return lth_pp_at_error(P, at, LTH_ENOMEM, "out of memory");
  }
  lth_status st = coef_at(P, at, &p->c0, pb->t1, &pb->cost.cF);
  for (int k = 0; k < p->n && st == LTH_OK; k++) {
    const cterm *tm = &p->t[k];
    double v;
    int a = wpos[tpos[2 * k]], b = tm->b == NO_KEY ? -1 : wpos[tpos[2 * k + 1]];
    st = coef_at(P, at, &tm->c, pb->t1, &v);
    if (b < 0) {
      pb->cost_f[a] = 0.5 * v;
    } else if (a == b) {
      pb->cost_F[a + (size_t)a * n] = v;
    } else {
      pb->cost_F[a + (size_t)b * n] = pb->cost_F[b + (size_t)a * n] = 0.5 * v;
    }
  }
  pb->cost.F = pb->cost_F;
  pb->cost.f = pb->cost_f;
  return st;
}

/* Index of key among the uses (-1: none). */
static int use_of(const struct lth_pcost *C, long long key) {
  for (int k = 0; k < C->nuse; k++) {
    if (C->use[k].key == key) {
      return k;
    }
  }
  return -1;
}

lth_status lth_pp_cost_finish(lth_pp *P, const lth_model *m) {
  struct lth_pcost *C = P->cost;
  if (!C) {
    return LTH_OK;
  }
  int s = lth_model_size(m), n = s + lth_pp_io_ninputs(P) + lth_pp_io_noutputs(P);
  int *wpos = malloc(((size_t)C->nuse + 1) * sizeof *wpos);
  int nt = C->sum[0].n > C->sum[1].n ? C->sum[0].n : C->sum[1].n;
  int *tpos = malloc((2 * (size_t)nt + 1) * sizeof *tpos);
  lth_status st =
      wpos && tpos ? LTH_OK : lth_pp_at_error(P, P->at_problem, LTH_ENOMEM, "out of memory");
  for (int k = 0; k < C->nuse && st == LTH_OK; k++) {
    st = position(P, m, C->use[k].key, C->use[k].at, &wpos[k]);
  }
  for (int part = 0; part < 2 && st == LTH_OK; part++) {
    const cpoly *p = &C->sum[part];
    for (int k = 0; k < p->n; k++) { /* each term's variables among the uses */
      tpos[2 * k] = use_of(C, p->t[k].a);
      tpos[2 * k + 1] = p->t[k].b == NO_KEY ? -1 : use_of(C, p->t[k].b);
    }
    if (part == 0 && C->at[0].line) {
      st = integrand(P, wpos, tpos, n);
    } else if (part == 1 && C->at[1].line) {
      st = final_cost(P, wpos, tpos, n);
    }
  }
  free(wpos);
  free(tpos);
  P->pb->has_cost = st == LTH_OK;
  return st;
}

/* ---- the public view (lth/problem.h) ---- */

const lth_plqr_cost *lth_problem_cost(const lth_problem *pb) {
  return pb->has_cost ? &pb->cost : NULL;
}

void lth_pp_cost_release(lth_problem *pb) {
  for (int k = 0; k < 3; k++) {
    lth_source_free(pb->cost_src[k]);
    pb->cost_src[k] = NULL;
  }
  free(pb->cost_F);
  free(pb->cost_f);
  pb->cost_F = pb->cost_f = NULL;
  pb->has_cost = 0;
}
