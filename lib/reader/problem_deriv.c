/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Derivatives of values that hold unknowns (lib/reader/problem_impl.h): the
 * equation form's (m(t)*v)' = F, (C*e)', (a(t)*x + b(t)*y)'.  A term c x^(o)
 * of a linear form becomes c' x^(o) + c x^(o+1) by the product rule, the free
 * term c0 becomes c0'.  The derivative of a coefficient is built by the jet
 * layer (lth_ebuild_deriv: the chain rule on the coefficient's nodes, with
 * exact zeros), so it is an expression like any the user writes: its Taylor
 * coefficients are exact to rounding and its enclosures valid, and a constant
 * coefficient gives no term (m*v)' = m*v'. */
#include <stdlib.h>

#include "problem_impl.h"

/* *out = d/dt s; samples(...) have no formula to differentiate. */
static lth_status psc_deriv(const lth_pvctx *x, size_t pos, const lth_psc *s, lth_psc *out) {
  *out = LTH_PSC_CONST(0.0);
  if (s->src) {
    return lth_pcur_error(x->c, pos, LTH_EPARSE,
                          "the derivative of a term whose coefficient holds samples(...) is not "
                          "available (sampled data have no formula to differentiate): write the "
                          "derivative of the unknown alone");
  }
  if (s->node < 0) {
    return LTH_OK;
  }
  size_t before = lth_ebuild_size(x->c->eb);
  lth_escalar r = {0.0, -1};
  lth_status st = lth_ebuild_deriv(x->c->eb, (lth_escalar){s->v, s->node}, &r, x->c->err);
  if (st != LTH_OK) {
    return lth_pcur_locate(x->c, pos, st == LTH_ENOMEM ? st : LTH_EPARSE);
  }
  *out = (lth_psc){r.v, r.node, NULL, 0.0};
  size_t made = lth_ebuild_size(x->c->eb) - before;
  return made ? lth_pval_charge(x, pos, LTH_P_NODE_OPS * (double)made) : LTH_OK;
}

/* *out = d/dt l: the coefficients' derivatives at the same orders plus the
 * coefficients one order up, merged (both lists stay sorted by (var, order)). */
static lth_status plin_deriv(const lth_pvctx *x, size_t pos, const lth_plin *l, lth_plin *out) {
  lth_plin dc = LTH_PLIN_ZERO, up = LTH_PLIN_ZERO;
  *out = LTH_PLIN_ZERO;
  if (l->n > 0 && (!(dc.t = malloc((size_t)l->n * sizeof *dc.t)) ||
                   !(up.t = malloc((size_t)l->n * sizeof *up.t)))) {
    lth_plin_free(&dc);
    return lth_pval_nomem(x, pos);
  }
  lth_status st = psc_deriv(x, pos, &l->c0, &dc.c0);
  for (int k = 0; k < l->n && st == LTH_OK; k++) {
    const lth_pterm *tm = &l->t[k];
    up.t[up.n++] = (lth_pterm){tm->var, tm->order + 1, tm->c};
    lth_pterm *d = &dc.t[dc.n];
    *d = (lth_pterm){tm->var, tm->order, LTH_PSC_CONST(0.0)};
    st = psc_deriv(x, pos, &tm->c, &d->c);
    dc.n += st == LTH_OK && !lth_psc_is(&d->c, 0.0);
  }
  if (st == LTH_OK) {
    st = lth_plin_add(x, pos, '+', &dc, &up, out);
  }
  lth_plin_free(&dc);
  lth_plin_free(&up);
  return st;
}

lth_status lth_pval_deriv(const lth_pvctx *x, size_t pos, lth_pval *a) {
  size_t n = (size_t)a->rows * (size_t)a->cols;
  lth_status st = LTH_OK;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    lth_plin *l = a->ext ? a->ext[k] : NULL, d;
    if (!l) {
      a->val[k] = 0.0; /* a constant */
      continue;
    }
    if ((st = plin_deriv(x, pos, l, &d)) != LTH_OK) {
      break;
    }
    lth_plin_free(l);
    if (lth_plin_const(&d)) {
      a->val[k] = d.c0.v + 0.0;
      lth_plin_free(&d);
      free(l);
      a->ext[k] = NULL;
    } else {
      *l = d;
    }
  }
  if (st != LTH_OK) {
    lth_pval_free(a);
  }
  return st;
}
