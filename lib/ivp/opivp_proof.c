/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pi between the operator solve's output times (opivp_impl.h, opivp_prove;
 * include/lth/opivp.h): proven nonsingular and within cond_max piece by piece
 * from the chain's enclosures (lib/decomp/op_piproof.c), as the dense path's
 * scan proves it (lib/decomp/pi_scan.c, docs/conditioning.md section 2.1),
 * and sampled where the proof fails.
 *
 * A piece [a, b] counts as proven when q <= OPIVP_PROOF_Q (then ||Pi^-1|| <=
 * ||Pi(c)^-1|| / (1 - q): within a factor 4 of its value at the middle) and
 * the bound of ||Pi^-1|| times the bound of chain_norm, which bounds
 * cond_interval = ||Pi^-1|| chain_norm(t) everywhere on it, is within
 * cond_max.  Otherwise det Pi and the condition are sampled at its ends and
 * middle (a decomposition refuses a t where Pi is singular or too
 * ill-conditioned, naming it; a sign change between two samples is bisected
 * to its t) and the piece is halved, depth first.  Near a t where Pi is
 * nearly singular only the pieces around it fail, so the middles close in on
 * it by halves: a dip of det Pi narrower than the integrator's steps is found
 * after about log2(step / dip width) halvings.  A piece still failing after
 * OPIVP_PROOF_DEPTH halvings, or beyond OPIVP_PROOF_PIECES pieces per output
 * interval, stays unproven (its samples having passed): it counts against
 * lth_opivp_result.pi_proven.
 *
 * opivp_prove_interval (opivp_proof.h) makes the same proof outside a solve,
 * for lth_bvp_solve_op over [t0, t1], with a context of its own. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "decomp/op_piproof.h"
#include "decomp/refusal.h"
#include "opivp_impl.h"
#include "opivp_proof.h"

/* The scale: the piece of [t0, t1] with the largest bound halved (at most
 * OPIVP_SCALE_SPLITS times) until that bound is within OPIVP_SCALE_TOL of the
 * largest chain norm evaluated (pi_scan.c's SCALE_TOL and SCALE_SPLITS). */
#define OPIVP_SCALE_SPLITS 64
#define OPIVP_SCALE_TOL    (1.0 / 1024.0)

#define OPIVP_PROOF_Q      0.75
#define OPIVP_PROOF_DEPTH  48
#define OPIVP_PROOF_PIECES 1024

typedef struct {
  double a, b;
  int sa, sb; /* det Pi's sign at a, b (0: not sampled yet) */
  int depth;
} piece;

/* det Pi's sign at t from a decomposition (which refuses an exactly singular
 * Pi and a cond_chain above cond_max itself, naming t), and cond_interval
 * judged with the interval's scale, as the dense path's scan judges it (the
 * decompositions themselves take the chain norm at t: their a priori error
 * amplification, which they cannot measure, stays that of the point). */
static lth_status sample(opivp_ctx *c, double t, int *sign, lth_error *err) {
  lth_status st = opivp_decompose(c, t, err);
  if (st != LTH_OK) return st;
  const lth_opinfo *in = lth_oppoint_info(c->pt);
  double scale = fmax(c->scale, in->chain_norm);
  if (!(in->pi_inv_norm * scale <= c->cond_max)) {
    return lth_decomp_interval_error(err, t, in->r, in->pi_inv_norm, scale, c->cond_max);
  }
  *sign = in->pi_sign;
  return LTH_OK;
}

/* The samples of a piece not proven: its ends (where not sampled yet) and
 * middle; a sign change between two of them is refused at its t. */
static lth_status sample_piece(opivp_ctx *c, piece *p, double mid, int *sm, lth_error *err) {
  lth_status st = LTH_OK;
  if (!p->sa) st = sample(c, p->a, &p->sa, err);
  if (st == LTH_OK && !p->sb) st = sample(c, p->b, &p->sb, err);
  if (st == LTH_OK) st = sample(c, mid, sm, err);
  if (st != LTH_OK) return st;
  if (p->sa != *sm) return opivp_sign_change(c, p->a, p->sa, mid, err);
  if (*sm != p->sb) return opivp_sign_change(c, mid, *sm, p->b, err);
  return LTH_OK;
}

/* cond_interval = ||Pi^-1|| max(scale, chain_norm(t)) is within cond_max on
 * all of the piece. */
static int proven(const opivp_ctx *c, const lth_pi_piece *pc) {
  return pc->proven && pc->q <= OPIVP_PROOF_Q &&
         pc->pinv_bound * fmax(c->scale, pc->chain_bound) <= c->cond_max;
}

typedef struct {
  double a, b, value, bound;
} chain_piece;

static void chain_at(opivp_ctx *c, chain_piece *q, double a, double b) {
  q->a = a;
  q->b = b;
  op_piproof_chain(c->proof, a, b, &q->value, &q->bound);
}

void opivp_scale(opivp_ctx *c, double t0, double t1) {
  if (!c->proof || !(t1 > t0)) return;
  chain_piece q[OPIVP_SCALE_SPLITS + 1];
  int n = 1;
  chain_at(c, &q[0], t0, t1);
  double scale = q[0].value;
  for (int it = 0; it < OPIVP_SCALE_SPLITS && isfinite(scale); it++) {
    int worst = 0;
    for (int k = 1; k < n; k++) worst = q[k].bound > q[worst].bound ? k : worst;
    double a = q[worst].a, b = q[worst].b, mid = 0.5 * (a + b);
    if (q[worst].bound <= scale * (1.0 + OPIVP_SCALE_TOL) || !(mid > a && mid < b)) break;
    chain_at(c, &q[worst], a, mid);
    chain_at(c, &q[n], mid, b);
    scale = fmax(scale, fmax(q[worst].value, q[n].value));
    n++;
  }
  if (isfinite(scale)) c->scale = scale;
}

/* The pieces of [a, b], depth first (the file's comment). */
static lth_status prove(opivp_ctx *c, double a, double b, lth_error *err) {
  piece stack[OPIVP_PROOF_DEPTH + 2];
  int top = 0;
  size_t pieces = 0;
  stack[top++] = (piece){a, b, 0, 0, 0};
  lth_status st = LTH_OK;
  while (top > 0 && st == LTH_OK) {
    piece p = stack[--top];
    lth_pi_piece pc;
    op_piproof_piece(c->proof, p.a, p.b, &pc);
    c->proofs++;
    pieces++;
    if (proven(c, &pc)) {
      c->proven_len += p.b - p.a;
      c->pinv_bound = fmax(c->pinv_bound, pc.pinv_bound);
      continue;
    }
    double mid = 0.5 * (p.a + p.b);
    int sm = 0;
    st = sample_piece(c, &p, mid, &sm, err);
    if (st != LTH_OK || p.depth >= OPIVP_PROOF_DEPTH ||
        pieces + (size_t)top >= OPIVP_PROOF_PIECES || !(mid > p.a && mid < p.b)) {
      continue; /* a refusal, or unproven: the samples passed */
    }
    stack[top++] = (piece){mid, p.b, sm, p.sb, p.depth + 1};
    stack[top++] = (piece){p.a, mid, p.sa, sm, p.depth + 1};
  }
  return st;
}

lth_status opivp_prove(opivp_ctx *c, double a, double b, lth_error *err) {
  if (!c->proof || !(b > a)) return LTH_OK;
  lth_status st = prove(c, a, b, err);
  if (st != LTH_OK) {
    lth_error_prefix(err,
                     "Pi between the output times %.17g and %.17g (not proven nonsingular there "
                     "from the data's enclosures): ",
                     a, b);
  }
  return st;
}

/* ---- the proof outside a solve (opivp_proof.h) ---- */

static int by_value(const void *x, const void *y) {
  double u = *(const double *)x, v = *(const double *)y;
  return (u > v) - (u < v);
}

/* The cuts inside (a, b), ascending and distinct, into t[1..]; t[0] = a and
 * b after them.  Returns the number of parts. */
static size_t parts(double a, double b, const double *cuts, size_t n, double *t) {
  size_t k = 1;
  t[0] = a;
  for (size_t i = 0; i < n; i++) {
    if (cuts[i] > a && cuts[i] < b) t[k++] = cuts[i];
  }
  qsort(t + 1, k - 1, sizeof *t, by_value);
  size_t w = 1;
  for (size_t i = 1; i < k; i++) {
    if (t[i] > t[w - 1]) t[w++] = t[i];
  }
  t[w] = b;
  return w;
}

static lth_status prove_parts(opivp_ctx *c, const double *t, size_t np, lth_error *err) {
  lth_status st = LTH_OK;
  for (size_t k = 0; k < np && st == LTH_OK; k++) st = prove(c, t[k], t[k + 1], err);
  if (st != LTH_OK) {
    lth_error_prefix(err,
                     "Pi on [%.17g, %.17g] (not proven nonsingular there from the data's "
                     "enclosures): ",
                     t[0], t[np]);
  }
  return st;
}

lth_status opivp_prove_interval(const lth_opsys *sys, double a, double b, const double *cuts,
                                size_t n, double cond_max, opivp_pi_proof *out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  memset(out, 0, sizeof *out);
  if (!sys || !(a < b) || !(cond_max > 0) || (n > 0 && !cuts)) {
    return lth_error_set(err, LTH_EINVAL,
                         "opivp_prove_interval: need a system, a < b and cond_max > 0");
  }
  opivp_ctx c;
  memset(&c, 0, sizeof c);
  c.sys = sys;
  c.cond_max = cond_max;
  c.proof = op_piproof_alloc(sys, &c.proof_off);
  if (!c.proof) {
    out->off = c.proof_off;
    return LTH_OK;
  }
  double *t = malloc((n + 2) * sizeof(double));
  c.ws = t ? lth_opdecomp_ws_alloc(sys, 0, err) : NULL;
  c.pt = c.ws ? lth_oppoint_alloc(sys, 0, 1, err) : NULL;
  lth_status st = LTH_OK;
  if (!t) st = lth_error_set(err, LTH_ENOMEM, "out of memory for the proof that Pi is nonsingular");
  if (st == LTH_OK && !c.pt) st = lth_error_status(err);
  if (st == LTH_OK) {
    lth_opdecomp_ws_set_cond_max(c.ws, cond_max);
    opivp_scale(&c, a, b);
    st = prove_parts(&c, t, parts(a, b, cuts, n, t), err);
  }
  if (st == LTH_OK) {
    out->proven = fmin(1.0, c.proven_len / (b - a));
    out->pinv_bound = c.pinv_bound;
    out->pieces = c.proofs;
  }
  free(t);
  lth_oppoint_free(c.pt);
  lth_opdecomp_ws_free(c.ws);
  op_piproof_free(c.proof);
  return st;
}
