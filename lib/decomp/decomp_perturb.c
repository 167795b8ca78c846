/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The measured error amplification of a decomposition point
 * (include/lth/conditioning.h, docs/conditioning.md section 1.2).
 *
 * The a priori amplification cond_interval^(r-1) describes a Pi near a root
 * of its determinant; for a Pi that is merely small relative to the largest
 * size the chain reaches on the interval (chain blocks that vary a lot) it is
 * orders of magnitude too pessimistic, and near a root of high index it can
 * be too optimistic by the factorials of the derivatives.  Where it exceeds
 * LTH_AMPLIFICATION_MEASURE the point is computed a second time with the input jets and every
 * intermediate jet (the chains, Pi, S_i, P_i, each row of [Ahat | g] and map of [Bhat | q])
 * multiplied entrywise by 1 + u xi, u = LTH_PERTURB_ULPS eps and xi uniform in
 * [-1, 1] from a fixed seed: Monte Carlo arithmetic, whose spread samples the
 * rounding error of the computation.  The relative change of the canonical
 * outputs estimates their error; LTH_PERTURB_SAFETY times it, divided by
 * eps, is the amplification judged.
 */
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decomp_impl.h"
#include "core/errors.h"
#include "lth/conditioning.h"

#define PERTURB_SEED 0x5deece66dULL

lth_status lth_decomp_perturb_alloc(lth_decomp_ws *ws, lth_error *err) {
  ws->alt = lth_point_alloc(ws->sys, 0, err);
  if (!ws->alt) {
    return lth_error_status(err);
  }
  size_t W = (size_t)ws->m + 1;
  ws->canon = malloc((2 * ((size_t)ws->s + (size_t)ws->m) * W + 1) * sizeof(double));
  if (!ws->canon) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating a decomposition workspace");
  }
  return LTH_OK;
}

void lth_decomp_perturb_free(lth_decomp_ws *ws) {
  lth_point_free(ws->alt);
  free(ws->canon);
  ws->alt = NULL;
  ws->canon = NULL;
}

void lth_decomp_perturb_jet(lth_decomp_ws *ws, lth_jet *J) {
  for (int k = 0; k <= J->order; k++) {
    for (int j = 0; j < J->cols; j++) {
      for (int i = 0; i < J->rows; i++) {
        uint64_t x = ws->rng; /* xorshift64*: the same sequence on every machine */
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        ws->rng = x;
        double xi = 2.0 * ((double)((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0) - 1.0;
        LTH_JET_AT(J, k, i, j) *= 1.0 + ws->perturb * xi;
      }
    }
  }
}

/* The canonical outputs at order 0 (unique, unlike Bhat and Ahat on range P):
 * out = [G | q] (s x W) followed by [Ahat (I - P) | g] (m x W). */
static void canonical(const lth_point *pt, double *out) {
  int s = pt->s, m = pt->m, W = m + 1;
  double *gq = out, *ag = out + (size_t)s * W;
  for (int j = 0; j < m; j++) {
    for (int i = 0; i < s; i++) gq[i + (size_t)j * s] = LTH_JET_AT(&pt->G, 0, i, j);
    for (int i = 0; i < m; i++) ag[i + (size_t)j * m] = LTH_JET_AT(&pt->Ahat, 0, i, j);
  }
  for (int i = 0; i < s; i++) gq[i + (size_t)m * s] = LTH_JET_AT(&pt->q, 0, i, 0);
  for (int i = 0; i < m; i++) ag[i + (size_t)m * m] = LTH_JET_AT(&pt->g, 0, i, 0);
  if (m > 0) { /* Ahat (I - P) = Ahat - Ahat P */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, m, m, -1.0, pt->Ahat.c, pt->Ahat.ld,
                pt->P.c, pt->P.ld, 1.0, ag, m);
  }
}

/* ||x - y||_2 and ||x||_2 of n entries. */
static void diff_norm(size_t n, const double *x, const double *y, double *d, double *nx) {
  double dd = 0.0, xx = 0.0;
  for (size_t k = 0; k < n; k++) {
    dd += (x[k] - y[k]) * (x[k] - y[k]);
    xx += x[k] * x[k];
  }
  *d = sqrt(dd);
  *nx = sqrt(xx);
}

static double rel(double d, double scale) {
  if (d == 0.0) return 0.0;
  return scale > 0.0 ? d / scale : INFINITY;
}

/* The largest relative change between the canonical outputs a (the result)
 * and b (the perturbed run), each relative to a size of the data: G to
 * max(||G||, 1) (||Nhat + Bhat|| >= 1), q to itself, Ahat (I - P) to
 * max(itself, ||A||), g to max(itself, ||A|| ||q|| + ||f||) (g is made of A q +
 * f - q', Clark (3.6)).  With p = 0 the state space is {0}: G, Ahat (I - P)
 * and g are rounding noise by construction and only q counts (z = q). */
static double canonical_change(const lth_decomp_ws *ws, int p, const double *a, const double *b,
                               double nA, double nf) {
  size_t s = (size_t)ws->s, m = (size_t)ws->m, W = m + 1;
  double d, n, nq;
  diff_norm(s, a + m * s, b + m * s, &d, &nq);
  double change = rel(d, nq);
  if (p == 0) return change;
  diff_norm(m * s, a, b, &d, &n);
  change = fmax(change, rel(d, fmax(n, 1.0)));
  diff_norm(m * m, a + s * W, b + s * W, &d, &n);
  change = fmax(change, rel(d, fmax(n, nA)));
  diff_norm(m, a + s * W + m * m, b + s * W + m * m, &d, &n);
  change = fmax(change, rel(d, fmax(n, nA * nq + nf)));
  return change;
}

/* The relative change of the outputs when the point is recomputed with every
 * intermediate jet perturbed; ws->A and ws->f are evaluated again afterwards
 * (deterministic: the same jets), and the workspace's scalars restored. */
static lth_status measure(lth_decomp_ws *ws, const lth_point *pt, double *change, lth_error *err) {
  double saved[] = {ws->cond_pi, ws->cond_chain, ws->pi_inv_norm, ws->chain_norm,
                    ws->cond_interval};
  int sign = ws->pi_sign;
  double nA = lth_jet_fro0(&ws->A), nf = lth_jet_fro0(&ws->f);
  double *a = ws->canon, *b = ws->canon + ((size_t)ws->s + (size_t)ws->m) * ((size_t)ws->m + 1);
  canonical(pt, a);
  ws->rng = PERTURB_SEED;
  ws->perturb = LTH_PERTURB_ULPS * DBL_EPSILON;
  lth_decomp_mca(ws, &ws->A);
  lth_decomp_mca(ws, &ws->f);
  lth_error local;
  lth_error_clear(&local);
  lth_status st = lth_decomp_run(ws, pt->t, 0, &local);
  if (st == LTH_OK) {
    st = lth_decomp_outputs(ws, ws->alt, &local);
  }
  ws->perturb = 0.0;
  *change = INFINITY; /* the perturbed run failing is evidence too */
  if (st == LTH_OK) {
    canonical(ws->alt, b);
    double c = canonical_change(ws, pt->p, a, b, nA, nf);
    *change = isnan(c) ? INFINITY : c;
  }
  ws->cond_pi = saved[0];
  ws->cond_chain = saved[1];
  ws->pi_inv_norm = saved[2];
  ws->chain_norm = saved[3];
  ws->cond_interval = saved[4];
  ws->pi_sign = sign;
  return lth_decomp_eval(ws, pt->t, err);
}

lth_status lth_decomp_judge_amplification(lth_decomp_ws *ws, lth_point *pt, lth_error *err) {
  double limit = lth_amplification_limit(ws->cond_max);
  int r = ws->r;
  double apriori = lth_cond_amplification(pt->cond_interval, r);
  pt->amplification = apriori;
  pt->amplification_measured = 0;
  if (!ws->measure_always && apriori <= LTH_AMPLIFICATION_MEASURE && apriori <= limit) {
    return LTH_OK;
  }
  double change;
  lth_status st = measure(ws, pt, &change, err);
  if (st != LTH_OK) {
    return st;
  }
  pt->amplification = LTH_PERTURB_SAFETY * change / DBL_EPSILON;
  pt->amplification_measured = 1;
  if (pt->amplification <= limit) {
    return LTH_OK;
  }
  lth_error_set_t(err, LTH_ECOND, pt->t,
                  "Pi = A(%d,%d)...A(2,1) A(1,%d) is too close to singular here for the %d "
                  "derivatives index %d needs: cond_interval = %.3e (a priori error "
                  "amplification cond_interval^%d = %.3e), and recomputed with every "
                  "intermediate result perturbed by %g ulps the outputs change by %.2e "
                  "(relative): measured amplification %.3e exceeds %.3e (opts.cond_max; the "
                  "outputs would keep fewer than 2 digits)",
                  r, r - 1, r, r - 1, r, pt->cond_interval, r - 1, apriori, LTH_PERTURB_ULPS,
                  change, pt->amplification, limit);
  if (err) {
    err->has_cond = 1;
    err->cond = pt->cond_interval;
  }
  return LTH_ECOND;
}
