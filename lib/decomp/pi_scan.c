/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Scans of Pi(t) over an interval (include/lth/conditioning.h). */
#include "lth/defaults.h"
#include "lth/conditioning.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_impl.h"
#include "pi_proof.h"
#include "core/errors.h"
#include "lth/decomp.h"
#include "lth/jet.h"
#include "lth/source.h"
#include "system/pi_text.h"
#include "core/small_blas.h"

/* Golden-section steps per refined maximum (bracket shrinks by 0.618^n). */
#define GOLDEN_STEPS 48
/* Local maxima refined per scan, largest first. */
#define MAX_REFINE 64
/* Bisection steps for a sign change. */
#define BISECT_STEPS 64
/* Automatic scans stay below this many multiply-adds in all. */
#define SCAN_FLOP_BUDGET 2e8
/* The proof from enclosures (lib/decomp/pi_proof.c): a piece counts as proven
 * when q <= PROOF_Q (then ||Pi^-1|| <= ||Pi(c)^-1|| / (1 - q), within a factor
 * 1 / (1 - PROOF_Q) of its value at the middle).  One proof costs about
 * PROOF_EVALS evaluations of the chain at a point (measured: 7 us against
 * 0.4 us on bench_peer's rational problem), so a piece narrower than
 * PROOF_EVALS spacings of the sampled scan is cheaper sampled, and the proofs
 * of one scan stop at the cost of the sampled scan: (points - 1) / PROOF_EVALS
 * of them.  A piece whose q predicts more halvings than that width allows (q
 * falls at most by 4 per halving: the s^2 term) goes to sampling at once. */
#define PROOF_Q     0.75
#define PROOF_EVALS 16.0
/* The scale on the proven part: the piece with the largest bound of
 * chain_norm is halved (a proof of the chain alone, half the cost: at most
 * SCALE_SPLITS of them, and no more than the proofs) until that bound is
 * within SCALE_TOL of the largest chain_norm evaluated. */
#define SCALE_TOL    (1.0 / 1024.0)
#define SCALE_SPLITS 48

/* Values of the chain blocks at one t and what follows from them. */
typedef struct {
  const lth_system *sys;
  int r, nr, nmax;
  lth_jet *blk;   /* blk[0] = A(1,r), blk[i-1] = A(i,i-1) for i = 2..r (order 0) */
  double *L, *L2; /* nmax x nr products */
  lth_jet Pi;     /* nr x nr, order 0 */
  lth_jet_lu *lu;
  double *work; /* source scratch */
  size_t evals;
} chain_eval;

typedef struct {
  double t, chain, pinv; /* pinv = ||Pi^-1||_1 (inf: exactly singular) */
  int sign;              /* sign of det Pi (0: singular or not evaluated) */
  int ok;
} sample;

static const lth_source *chain_source(const lth_system *sys, int k) {
  int r = lth_system_index(sys);
  return k == 0 ? lth_system_A(sys, 1, r) : lth_system_A(sys, k + 1, k);
}

static void eval_free(chain_eval *ev) {
  for (int k = 0; ev->blk && k < ev->r; k++) lth_jet_release(&ev->blk[k]);
  free(ev->blk);
  free(ev->L);
  free(ev->L2);
  free(ev->work);
  lth_jet_release(&ev->Pi);
  lth_jet_lu_free(ev->lu);
}

static lth_status eval_alloc(chain_eval *ev, const lth_system *sys, lth_error *err) {
  memset(ev, 0, sizeof *ev);
  lth_status st = lth_system_validate(sys, err);
  if (st != LTH_OK) return st;
  ev->sys = sys;
  ev->r = lth_system_index(sys);
  ev->nr = lth_system_block_size(sys, ev->r);
  size_t wmax = 0;
  for (int i = 1; i <= ev->r; i++) {
    int n = lth_system_block_size(sys, i);
    ev->nmax = n > ev->nmax ? n : ev->nmax;
  }
  ev->blk = calloc((size_t)ev->r, sizeof *ev->blk);
  ev->L = malloc(((size_t)ev->nmax * ev->nr + 1) * sizeof(double));
  ev->L2 = malloc(((size_t)ev->nmax * ev->nr + 1) * sizeof(double));
  ev->lu = lth_jet_lu_alloc(ev->nr, err);
  if (!ev->blk || !ev->L || !ev->L2 || !ev->lu) {
    eval_free(ev);
    return lth_error_set(err, LTH_ENOMEM, "out of memory for a scan of Pi");
  }
  for (int k = 0; k < ev->r && st == LTH_OK; k++) {
    const lth_source *src = chain_source(sys, k);
    st = lth_jet_init(&ev->blk[k], lth_source_rows(src), lth_source_cols(src), 0, err);
    size_t w = lth_source_work_size(src, 0);
    wmax = w > wmax ? w : wmax;
  }
  if (st == LTH_OK) st = lth_jet_init(&ev->Pi, ev->nr, ev->nr, 0, err);
  ev->work = malloc((wmax + 1) * sizeof(double));
  if (st == LTH_OK && !ev->work) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st != LTH_OK) eval_free(ev);
  return st;
}

/* Chain blocks at t: chain_norm, Pi = A(r,r-1) (... (A(2,1) A(1,r))), ||Pi^-1||, sign det Pi. */
static void eval_at(chain_eval *ev, double t, sample *sm) {
  memset(sm, 0, sizeof *sm);
  sm->t = t;
  ev->evals++;
  double chain = 1.0;
  for (int k = 0; k < ev->r; k++) {
    if (lth_source_fill(chain_source(ev->sys, k), t, 0, &ev->blk[k], ev->work, NULL) != LTH_OK) {
      return;
    }
    chain *= lth_jet_norm1(&ev->blk[k], 0);
  }
  int nr = ev->nr, rows = ev->blk[0].rows;
  for (int j = 0; j < nr; j++) {
    memcpy(ev->L + (size_t)j * rows, &LTH_JET_AT(&ev->blk[0], 0, 0, j),
           (size_t)rows * sizeof(double));
  }
  for (int k = 1; k < ev->r; k++) { /* L <- A(k+1,k) L */
    const lth_jet *a = &ev->blk[k];
    double *out = k == ev->r - 1 ? ev->Pi.c : ev->L2;
    int ld = k == ev->r - 1 ? ev->Pi.ld : a->rows;
    /* small products without BLAS's lock: the scan runs beside an integration */
    lth_small_gemm(CblasNoTrans, CblasNoTrans, a->rows, nr, a->cols, 1.0, a->c, a->ld, ev->L,
                   a->cols, 0.0, out, ld);
    if (k < ev->r - 1) {
      double *tmp = ev->L;
      ev->L = ev->L2;
      ev->L2 = tmp;
    }
  }
  ev->Pi.order = 0;
  double npi = lth_jet_norm1(&ev->Pi, 0), cond = 0.0;
  if (!isfinite(npi) || !isfinite(chain)) return;
  sm->chain = chain;
  sm->ok = 1;
  lth_status st = lth_jet_lu_factor(ev->lu, &ev->Pi, 0.0, &cond, NULL);
  if (st == LTH_OK && npi > 0 && isfinite(cond)) {
    sm->pinv = cond / npi;
    sm->sign = lth_jet_lu_det_sign(ev->lu);
  } else {
    sm->pinv = INFINITY; /* exactly singular */
  }
}

static void note(lth_pi_scan *out, const sample *sm) {
  if (!sm->ok) return;
  out->scale = fmax(out->scale, sm->chain);
}

/* Bisection of a sign change of det Pi between a (sign sa) and b. */
static void bisect(chain_eval *ev, sample a, sample b, lth_pi_scan *out, sample *root) {
  for (int it = 0; it < BISECT_STEPS && b.t - a.t > 4e-16 * fmax(fabs(a.t), fabs(b.t)); it++) {
    sample mid;
    eval_at(ev, 0.5 * (a.t + b.t), &mid);
    note(out, &mid);
    if (!mid.ok) break;
    if (mid.sign == 0) { /* exactly singular */
      a = b = mid;
      break;
    }
    if (mid.sign == a.sign)
      a = mid;
    else
      b = mid;
  }
  *root = a.pinv >= b.pinv ? a : b;
  root->t = a.t == b.t ? a.t : 0.5 * (a.t + b.t);
  out->lo = a.t;
  out->hi = b.t;
}

/* Golden-section search for the largest ||Pi^-1|| on [a, b] around m.  A
 * sign change met on the way is bisected (*changed = 1). */
static sample refine(chain_eval *ev, sample a, sample m, sample b, lth_pi_scan *out, int *changed) {
  const double g = 0.5 * (3.0 - sqrt(5.0));
  sample best = m;
  *changed = 0;
  double lo = a.t, hi = b.t;
  for (int it = 0; it < GOLDEN_STEPS && best.pinv < INFINITY; it++) {
    /* probe the larger side of the current best point */
    double x =
        (best.t - lo > hi - best.t) ? best.t - g * (best.t - lo) : best.t + g * (hi - best.t);
    if (!(x > lo && x < hi) || x == best.t) break;
    sample s;
    eval_at(ev, x, &s);
    note(out, &s);
    if (!s.ok) break;
    if (s.sign != 0 && best.sign != 0 && s.sign != best.sign) {
      sample root;
      if (s.t < best.t)
        bisect(ev, s, best, out, &root);
      else
        bisect(ev, best, s, out, &root);
      *changed = 1;
      return root;
    }
    if (s.pinv > best.pinv) {
      if (x < best.t)
        hi = best.t;
      else
        lo = best.t;
      best = s;
    } else {
      if (x < best.t)
        lo = x;
      else
        hi = x;
    }
  }
  out->lo = lo;
  out->hi = hi;
  return best;
}

/* 1 if every chain block is constant on [t0, t1]: its enclosure there
 * (include/lth/enclose.h) bounds the first Taylor coefficient, the derivative
 * divided by 1, to exactly [0, 0] for every entry.  Constants and expressions
 * without t qualify; anything without an enclosure (callbacks, samples) or
 * whose bound is not exactly zero does not.  Pi is then the same at every t
 * of the interval, so its value at t0 is the whole scan. */
static int chain_constant(const chain_eval *ev, double t0, double t1) {
  for (int k = 0; k < ev->r; k++) {
    const lth_source *src = chain_source(ev->sys, k);
    if (!lth_source_can_enclose(src)) return 0;
    size_t cells = (size_t)lth_source_rows(src) * (size_t)lth_source_cols(src);
    size_t nw = lth_source_enclose_work_size(src, 1);
    lth_interval *coef = malloc((2 * cells + 1) * sizeof *coef);
    lth_interval *work = malloc((nw + 1) * sizeof *work);
    int constant = coef && work && lth_source_enclose(src, t0, t1, 1, coef, work, NULL) == LTH_OK;
    for (size_t c = 0; constant && c < cells; c++) {
      constant = coef[cells + c].lo == 0.0 && coef[cells + c].hi == 0.0;
    }
    free(coef);
    free(work);
    if (!constant) return 0;
  }
  return 1;
}

static size_t auto_points(const lth_system *sys, size_t dflt) {
  int r = lth_system_index(sys), nr = lth_system_block_size(sys, r);
  double flops = 0.0;
  for (int i = 1; i <= r; i++) {
    int ni = lth_system_block_size(sys, i), nj = lth_system_block_size(sys, i == 1 ? r : i - 1);
    flops += (double)ni * nj * (1.0 + nr);
  }
  double n = SCAN_FLOP_BUDGET / fmax(flops, 1.0);
  return n >= (double)dflt ? dflt : (n < 65 ? 65 : (size_t)n);
}

typedef struct {
  size_t k;
  double pinv;
} peak;

static int peak_cmp(const void *a, const void *b) {
  double x = ((const peak *)a)->pinv, y = ((const peak *)b)->pinv;
  return x < y ? 1 : (x > y ? -1 : 0);
}

/* The worst point: sign changes first (bisected), then the refined maxima. */
static void analyse(chain_eval *ev, sample *sm, size_t n, int refine_on, lth_pi_scan *out) {
  sample worst = {0};
  int have = 0;
  peak *pk = malloc((n + 1) * sizeof *pk);
  size_t npk = 0;
  for (size_t k = 0; k < n; k++) {
    if (!sm[k].ok) continue;
    if (!have || sm[k].pinv > worst.pinv) {
      worst = sm[k];
      have = 1;
      out->lo = out->hi = sm[k].t;
    }
    /* local maxima of ||Pi^-1|| among the valid neighbours */
    int left = k == 0 || !sm[k - 1].ok || sm[k].pinv >= sm[k - 1].pinv;
    int right = k + 1 == n || !sm[k + 1].ok || sm[k].pinv > sm[k + 1].pinv;
    if (pk && left && right && n > 1) pk[npk++] = (peak){k, sm[k].pinv};
  }
  for (size_t k = 0; refine_on && k + 1 < n && worst.pinv < INFINITY; k++) {
    if (sm[k].ok && sm[k + 1].ok && sm[k].sign && sm[k + 1].sign && sm[k].sign != sm[k + 1].sign) {
      sample root;
      bisect(ev, sm[k], sm[k + 1], out, &root);
      out->sign_change = 1;
      worst = root;
      break;
    }
  }
  if (refine_on && pk && !out->sign_change && worst.pinv < INFINITY) {
    qsort(pk, npk, sizeof *pk, peak_cmp);
    for (size_t j = 0; j < npk && j < MAX_REFINE; j++) {
      size_t k = pk[j].k;
      sample a = k > 0 && sm[k - 1].ok ? sm[k - 1] : sm[k];
      sample b = k + 1 < n && sm[k + 1].ok ? sm[k + 1] : sm[k];
      double lo0 = out->lo, hi0 = out->hi;
      int changed = 0;
      sample s = refine(ev, a, sm[k], b, out, &changed);
      if (changed || s.pinv > worst.pinv) {
        worst = s;
        out->sign_change = changed;
      } else {
        out->lo = lo0;
        out->hi = hi0;
      }
      if (changed || worst.pinv == INFINITY) break;
    }
  }
  free(pk);
  if (have) {
    out->worst_t = worst.t;
    out->pi_inv = worst.pinv;
  }
}

/* ---- the proof from enclosures (lib/decomp/pi_proof.c) ---- */

/* A piece of [t0, t1]: proven (bounds below) or to be sampled. */
typedef struct {
  double a, b, pinv, chain; /* proven: ||Pi^-1||_1 <= pinv, chain_norm <= chain on [a, b] */
  int proven, sampled;
} piece;

typedef struct {
  piece *v;
  size_t n, cap;
  int failed; /* out of memory: the caller samples everything */
} pieces;

static void pieces_insert(pieces *P, size_t at, piece x) {
  if (P->n == P->cap) {
    size_t cap = P->cap ? 2 * P->cap : 32;
    piece *v = realloc(P->v, cap * sizeof *v);
    if (!v) {
      P->failed = 1;
      return;
    }
    P->v = v;
    P->cap = cap;
  }
  memmove(P->v + at + 1, P->v + at, (P->n - at) * sizeof *P->v);
  P->v[at] = x;
  P->n++;
}

/* A point of a proven piece: its chain_norm enters the scale, its ||Pi^-1||
 * the worst point (the proof bounds them; these are the values reported). */
static void take_point(chain_eval *ev, double t, lth_pi_scan *out, int *have) {
  sample sm;
  eval_at(ev, t, &sm);
  note(out, &sm);
  if (!sm.ok || out->sign_change) return;
  if (!*have || sm.pinv > out->pi_inv) {
    out->pi_inv = sm.pinv;
    out->worst_t = out->lo = out->hi = t;
    *have = 1;
  }
}

/* Halve [t0, t1] until each piece is proven with q <= PROOF_Q and a bound of
 * cond_interval within cmax, or too narrow (or the proofs spent): then it is
 * left to the sampled scan.  The pieces come out in order of t. */
static void prove_pieces(chain_eval *ev, lth_pi_proof *pp, double t0, double t1, size_t n,
                         double cmax, pieces *P, lth_pi_scan *out, int *have) {
  double minw = (t1 - t0) * PROOF_EVALS / (double)(n - 1), stack[2 * 64];
  size_t budget = (size_t)((double)(n - 1) / PROOF_EVALS);
  int top = 0;
  stack[top++] = t0;
  stack[top++] = t1;
  take_point(ev, t0, out, have);
  while (top > 0 && !P->failed) {
    double b = stack[--top], a = stack[--top], c = 0.5 * (a + b);
    lth_pi_piece pc = {0};
    int tried = out->proofs < budget;
    if (tried) {
      lth_pi_proof_piece(pp, a, b, 0, &pc);
      out->proofs++;
    }
    if (tried && pc.proven && pc.q <= PROOF_Q &&
        pc.pinv_bound * fmax(pc.chain_bound, out->scale) <= cmax) {
      pieces_insert(P, P->n, (piece){a, b, pc.pinv_bound, pc.chain_bound, 1, 0});
      take_point(ev, c, out, have);
      take_point(ev, b, out, have);
    } else if (tried && b - a >= 2.0 * minw && c > a && c < b && top + 4 <= 2 * 64 &&
               !(pc.q < INFINITY && (b - a) / sqrt(sqrt(pc.q / PROOF_Q)) < minw)) {
      stack[top++] = c; /* right half below the left: the left is examined first */
      stack[top++] = b;
      stack[top++] = a;
      stack[top++] = c;
    } else {
      pieces_insert(P, P->n, (piece){a, b, 0.0, 0.0, 0, 0});
    }
  }
}

/* Tighten the scale on the proven part: halve the proven piece with the
 * largest bound of chain_norm until that bound is within SCALE_TOL of the
 * largest chain_norm evaluated (a halve inherits its piece's bounds). */
static void refine_scale(chain_eval *ev, lth_pi_proof *pp, size_t n, pieces *P, lth_pi_scan *out,
                         int *have) {
  size_t budget = (size_t)((double)(n - 1) / PROOF_EVALS);
  budget = budget < SCALE_SPLITS ? budget : SCALE_SPLITS;
  for (size_t it = 0; it < budget && !P->failed; it++) {
    size_t best = P->n;
    for (size_t k = 0; k < P->n; k++) {
      if (P->v[k].proven && (best == P->n || P->v[k].chain > P->v[best].chain)) best = k;
    }
    if (best == P->n || P->v[best].chain <= out->scale * (1.0 + SCALE_TOL)) return;
    piece x = P->v[best], half[2] = {x, x};
    double c = 0.5 * (x.a + x.b);
    if (!(c > x.a && c < x.b)) return;
    half[0].b = half[1].a = c;
    for (int j = 0; j < 2; j++) {
      lth_pi_piece pc;
      lth_pi_proof_piece(pp, half[j].a, half[j].b, 1, &pc);
      out->proofs++;
      half[j].chain = fmin(x.chain, pc.chain_bound);
      take_point(ev, 0.5 * (half[j].a + half[j].b), out, have);
    }
    P->v[best] = half[0];
    pieces_insert(P, best + 1, half[1]);
  }
}

/* The sampled scan (with refinement when refine_on) of every run of pieces
 * not proven and not yet sampled, at the density of n points on [t0, t1];
 * the worst of them joins out: a sign change first, else the largest
 * ||Pi^-1||. */
static void sample_runs(chain_eval *ev, pieces *P, double t0, double t1, size_t n, int refine_on,
                        lth_pi_scan *out, int *have) {
  for (size_t k = 0; k < P->n;) {
    if (P->v[k].proven || P->v[k].sampled) {
      k++;
      continue;
    }
    size_t e = k;
    while (e < P->n && !P->v[e].proven && !P->v[e].sampled) P->v[e++].sampled = 1;
    double a = P->v[k].a, b = P->v[e - 1].b;
    size_t m = (size_t)ceil((double)(n - 1) * (b - a) / (t1 - t0) - 1e-9) + 1;
    m = m < 3 ? 3 : m;
    sample *sm = malloc(m * sizeof *sm);
    lth_pi_scan part;
    memset(&part, 0, sizeof part);
    int any = 0;
    for (size_t j = 0; sm && j < m; j++) {
      double t = j + 1 == m ? b : a + (b - a) * (double)j / (double)(m - 1);
      eval_at(ev, t, &sm[j]);
      note(&part, &sm[j]);
      any = any || sm[j].ok;
    }
    if (sm) analyse(ev, sm, m, refine_on, &part);
    free(sm);
    out->points += m;
    out->scale = fmax(out->scale, part.scale);
    if (any && !out->sign_change && (part.sign_change || !*have || part.pi_inv > out->pi_inv)) {
      out->worst_t = part.worst_t;
      out->pi_inv = part.pi_inv;
      out->lo = part.lo;
      out->hi = part.hi;
      out->sign_change = part.sign_change;
      *have = 1;
    }
    k = e;
  }
}

/* The scan where every chain block has an enclosure: proven pieces, the rest
 * sampled.  A proven piece whose bound of cond_interval exceeds cmax with
 * the final scale goes back to sampling.  0 if the proof cannot run (no
 * enclosures, memory): the caller samples the whole interval. */
static int proven_scan(chain_eval *ev, double t0, double t1, size_t n, int refine_on, double cmax,
                       lth_pi_scan *out) {
  lth_pi_proof *pp = lth_pi_proof_alloc(ev->sys);
  if (!pp) return 0;
  pieces P = {0};
  int have = 0;
  prove_pieces(ev, pp, t0, t1, n, cmax, &P, out, &have);
  refine_scale(ev, pp, n, &P, out, &have);
  lth_pi_proof_free(pp);
  if (P.failed) {
    free(P.v);
    memset(out, 0, sizeof *out);
    out->t0 = out->worst_t = t0;
    out->t1 = t1;
    return 0;
  }
  for (int pass = 0, again = 1; again && pass < 4; pass++) {
    sample_runs(ev, &P, t0, t1, n, refine_on, out, &have);
    again = 0;
    for (size_t k = 0; k < P.n; k++) {
      piece *x = &P.v[k];
      if (x->proven && x->pinv * fmax(x->chain, out->scale) > cmax) {
        x->proven = 0;
        again = 1;
      }
    }
  }
  double len = 0.0;
  for (size_t k = 0; k < P.n; k++) {
    if (!P.v[k].proven) continue;
    len += P.v[k].b - P.v[k].a;
    out->pi_inv_bound = fmax(out->pi_inv_bound, P.v[k].pinv);
    out->scale_bound = fmax(out->scale_bound, P.v[k].chain);
  }
  out->proven = fmin(1.0, len / (t1 - t0));
  free(P.v);
  return 1;
}

/* The scan; cmax: the threshold the proof's pieces are proven against. */
static lth_status scan(const lth_system *sys, double t0, double t1, size_t points, int refine_on,
                       double cmax, lth_pi_scan *out, lth_error *err) {
  memset(out, 0, sizeof *out);
  out->t0 = t0;
  out->t1 = t1;
  out->worst_t = t0;
  if (!(t0 <= t1) || !isfinite(t0) || !isfinite(t1)) {
    return lth_error_set(err, LTH_EINVAL, "scan of Pi on [%g, %g]: need finite t0 <= t1", t0, t1);
  }
  size_t n = points >= 2 ? points : auto_points(sys, LTH_PI_SCAN_POINTS);
  chain_eval ev;
  lth_status st = eval_alloc(&ev, sys, err);
  if (st != LTH_OK) return st;
  /* constant chain: every point would give the same Pi and chain norm, and
   * the scan of n points would report t0 (the first of equal maxima) */
  if (t0 == t1 || chain_constant(&ev, t0, t1)) n = 1;
  if (n > 1 && proven_scan(&ev, t0, t1, n, refine_on, cmax, out)) n = 0;
  sample *sm = n ? malloc(n * sizeof *sm) : NULL;
  if (n && !sm) {
    eval_free(&ev);
    return lth_error_set(err, LTH_ENOMEM, "out of memory for a scan of Pi");
  }
  for (size_t k = 0; k < n; k++) {
    double t = n == 1 ? t0 : (k + 1 == n ? t1 : t0 + (t1 - t0) * (double)k / (double)(n - 1));
    eval_at(&ev, t, &sm[k]);
    note(out, &sm[k]);
  }
  if (n) {
    out->points = n;
    analyse(&ev, sm, n, refine_on, out);
  }
  out->worst = out->pi_inv * out->scale;
  if (out->pi_inv == INFINITY || out->sign_change) out->worst = INFINITY;
  out->amplification = lth_cond_amplification(out->worst, lth_system_index(sys));
  out->evals = ev.evals;
  free(sm);
  eval_free(&ev);
  return LTH_OK;
}

lth_status lth_pi_scan_run(const lth_system *sys, double t0, double t1, size_t points,
                           int refine_on, lth_pi_scan *out, lth_error *err) {
  return scan(sys, t0, t1, points, refine_on, LTH_DEFAULT_COND_MAX, out, err);
}

double lth_cond_amplification(double cond_interval, int r) {
  return r <= 2 ? cond_interval : pow(cond_interval, r - 1);
}

double lth_amplification_limit(double cond_max) {
  return fmax(cond_max > 0 ? cond_max : LTH_DEFAULT_COND_MAX, LTH_AMPLIFICATION_MAX);
}

int lth_cond_acceptable(double cond_interval, int r, double cond_max) {
  return cond_interval <= cond_max &&
         lth_cond_amplification(cond_interval, r) <= lth_amplification_limit(cond_max);
}

double lth_pi_chain_scale(const lth_system *sys, double t0, double t1, size_t points) {
  lth_pi_scan sc;
  if (lth_pi_scan_run(sys, t0, t1, points ? points : auto_points(sys, 257), 0, &sc, NULL) !=
      LTH_OK) {
    return 0.0;
  }
  return sc.scale;
}

double lth_pi_interval_scale(const lth_system *sys) {
  double t0, t1;
  if (lth_system_validate(sys, NULL) != LTH_OK || !lth_system_interval(sys, &t0, &t1)) {
    return 0.0; /* the workspace that needs the system will say why */
  }
  return lth_pi_chain_scale(sys, t0, t1, 0);
}

/* Where the a priori amplification at the scan's worst point is large, the
 * decomposition there measures it (lib/decomp/decomp_perturb.c) and refuses if the
 * measured one exceeds the limit: the coefficients there have lost their
 * digits, and an integrator that steps near it uses them. */
static lth_status measure_worst(const lth_system *sys, double cond_max, lth_pi_scan *sc,
                                lth_error *err) {
  lth_decomp_ws *ws = lth_decomp_ws_alloc_scaled(sys, 0, sc->scale, err);
  lth_point *pt = ws ? lth_point_alloc(sys, 0, err) : NULL;
  lth_status st = pt ? LTH_OK : lth_error_status(err);
  if (st == LTH_OK) {
    lth_decomp_ws_set_cond_max(ws, cond_max);
    st = lth_decomp_at(ws, sc->worst_t, pt, err);
  }
  if (st == LTH_OK) {
    sc->amplification = pt->amplification;
  }
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  return st;
}

lth_status lth_pi_scan_check(const lth_system *sys, double t0, double t1, size_t points,
                             double cond_max, lth_pi_scan *out, lth_error *err) {
  lth_pi_scan local;
  lth_pi_scan *sc = out ? out : &local;
  double cmax = cond_max > 0 ? cond_max : LTH_DEFAULT_COND_MAX;
  lth_status st = scan(sys, t0, t1, points, 1, cmax, sc, err);
  if (st != LTH_OK) return st;
  int r = lth_system_index(sys);
  int refused = sc->sign_change || sc->pi_inv == INFINITY || sc->worst > cmax;
  char pi[LTH_PI_TEXT_MAX], norms[LTH_PI_TEXT_MAX];
  if (refused) { /* the texts name Pi in a refusal only (formatting them was a fifth of a
                    scan of constant data) */
    lth_pi_text(r, 0, pi, sizeof pi);
    lth_pi_text(r, 1, norms, sizeof norms);
  }
  if (sc->sign_change || sc->pi_inv == INFINITY) {
    if (sc->sign_change && sc->pi_inv < INFINITY) {
      st = lth_error_set_t(err, LTH_ESING, sc->worst_t,
                           "Pi = %s is singular at t = %.17g: det Pi changes sign between "
                           "t = %.17g and %.17g (||Pi^-1|| = %.3e there, cond_interval = "
                           "%.3e); the system is not Hessenberg of index %d on [%g, %g]",
                           pi, sc->worst_t, sc->lo, sc->hi, sc->pi_inv, sc->pi_inv * sc->scale, r,
                           t0, t1);
    } else {
      st = lth_error_set_t(err, LTH_ESING, sc->worst_t,
                           "Pi = %s is exactly singular at t = %.17g: the system is not "
                           "Hessenberg of index %d on [%g, %g]",
                           pi, sc->worst_t, r, t0, t1);
    }
  } else if (sc->worst > cmax) {
    st = lth_error_set_t(err, LTH_ECOND, sc->worst_t,
                         "Pi = %s is nearly singular at t = %.17g relative to the data on "
                         "[%g, %g]: cond_interval = ||Pi^-1|| x max %s = %.3e x %.3e = %.3e "
                         "exceeds %.3e (opts.cond_max)",
                         pi, sc->worst_t, t0, t1, norms, sc->pi_inv, sc->scale, sc->worst, cmax);
  } else if (lth_cond_amplification(sc->worst, r) > LTH_AMPLIFICATION_MEASURE) {
    return measure_worst(sys, cmax, sc, err);
  } else {
    return LTH_OK;
  }
  if (err) {
    err->has_cond = 1;
    err->cond = sc->worst;
  }
  return st;
}
