/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Noise level of sampled data (lib/samples/samples_impl.h; docs/sampled-data.md).
 *
 * For q + 2 consecutive samples the divided difference of order q + 1,
 *     d = sum_j w_j v_j,   w_j = 1 / prod_{i != j} (x_j - x_i),
 * vanishes on polynomials of degree <= q, so for smooth data it is a
 * truncation term of size |f^(q+1)| h^(q+1) that falls quickly with q, while
 * for independent noise of standard deviation sigma, d / ||w||_2 has standard
 * deviation exactly sigma, whatever q and the spacing.  The estimate is the
 * smallest over q = 3, 5, ..., 15 of the lower quartile of |d| / ||w||_2 over
 * all windows, divided by 0.3186 (the lower quartile of |N(0, 1)|): the decay
 * of high-order differences stops at the noise level, and the quartile
 * ignores the part of the data where the sampling is too coarse for the
 * differences to have decayed.  Times inside a window are scaled to [0, 1]
 * (w then has moderate size); the weights are explicit, no system is solved.
 * The sum is formed as sum_j w_j (v_j - v_0) (the same number, since the
 * weights annihilate constants), whose terms are small, so that for exact
 * data the estimate sees the values' own rounding (a standard deviation of
 * 0.29 units in the last place), not its own.  A declared `sampling noise`
 * replaces the estimate.  Every entry's level is at least the rounding of its
 * values, 0.3 eps max |v|.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "samples_impl.h"

#define NOISE_QUARTILE_GAUSS 0.31863936396437514 /* P(|N(0,1)| <= x) = 1/4 */

/* The k-th smallest of r[0..n-1] (0-based; reorders r): Hoare's selection. */
static double kth_smallest(double *r, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = r[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (r[i] < pivot) {
        i++;
      }
      while (r[j] > pivot) {
        j--;
      }
      if (i <= j) {
        double tmp = r[i];
        r[i] = r[j];
        r[j] = tmp;
        i++;
        if (j == 0) {
          break;
        }
        j--;
      }
    }
    if (k <= j) {
      hi = j;
    } else if (k >= i) {
      lo = i;
    } else {
      return r[k];
    }
  }
  return r[k];
}

/* Divided-difference weights of samples k .. k+q+1 (times scaled to [0, 1]),
 * normalised to ||w||_2 = 1. */
static void dd_weights(const samples_state *s, size_t k, int q, double *w) {
  int np = q + 2;
  double t0 = s->t[k], span = s->t[k + (size_t)np - 1] - t0, nrm = 0.0, x[20];
  for (int j = 0; j < np; j++) {
    x[j] = (s->t[k + (size_t)j] - t0) / span;
  }
  for (int j = 0; j < np; j++) {
    double p = 1.0;
    for (int i = 0; i < np; i++) {
      p *= i != j ? x[j] - x[i] : 1.0;
    }
    w[j] = 1.0 / p;
    nrm += w[j] * w[j];
  }
  nrm = sqrt(nrm);
  for (int j = 0; j < np; j++) {
    w[j] /= nrm;
  }
}

/* sigma per entry from the data (see the file comment); r: n * nrhs scratch. */
static void noise_estimate(samples_state *s, double *r) {
  static const int qs[] = {3, 5, 7, 9, 11, 13, 15};
  double w[20];
  for (size_t e = 0; e < s->nrhs; e++) {
    s->sigma[e] = INFINITY;
  }
  for (size_t iq = 0; iq < sizeof qs / sizeof qs[0]; iq++) {
    int q = qs[iq];
    if (s->n < (size_t)q + 2 + 4) {
      break; /* too few windows for a median */
    }
    size_t nw = s->n - (size_t)q - 1;
    for (size_t k = 0; k < nw; k++) {
      dd_weights(s, k, q, w);
      for (size_t e = 0; e < s->nrhs; e++) {
        double d = 0.0, v0 = s->v[k * s->nrhs + e];
        for (int j = 1; j < q + 2; j++) {
          d += w[j] * (s->v[(k + (size_t)j) * s->nrhs + e] - v0);
        }
        r[e * nw + k] = fabs(d);
      }
    }
    for (size_t e = 0; e < s->nrhs; e++) {
      double *re = r + e * nw;
      double sig = kth_smallest(re, nw, (nw - 1) / 4) / NOISE_QUARTILE_GAUSS;
      s->sigma[e] = sig < s->sigma[e] ? sig : s->sigma[e];
    }
  }
  for (size_t e = 0; e < s->nrhs; e++) {
    s->sigma[e] = isfinite(s->sigma[e]) ? s->sigma[e] : 0.0; /* too few samples to tell */
  }
}

lth_status samples_noise_init(samples_state *s, lth_error *err) {
  s->sigma = calloc(s->nrhs, sizeof *s->sigma);
  double *r =
      s->noise_kind == LTH_SAMPLES_NOISE_ESTIMATED ? malloc(s->n * s->nrhs * sizeof *r) : NULL;
  if (!s->sigma || (s->noise_kind == LTH_SAMPLES_NOISE_ESTIMATED && !r)) {
    free(r);
    return lth_error_set(err, LTH_ENOMEM, "out of memory estimating the noise of %zu samples",
                         s->n);
  }
  if (r) {
    noise_estimate(s, r);
    free(r);
  }
  s->sigma_max = 0.0;
  for (size_t e = 0; e < s->nrhs; e++) {
    double vmax = 0.0;
    for (size_t k = 0; k < s->n; k++) {
      vmax = fmax(vmax, fabs(s->v[k * s->nrhs + e]));
    }
    double floor = SAMPLES_ROUNDING * vmax, sig = s->sigma[e];
    if (s->noise_kind == LTH_SAMPLES_NOISE_ABSOLUTE) {
      sig = s->noise_declared;
    } else if (s->noise_kind == LTH_SAMPLES_NOISE_RELATIVE) {
      sig = s->noise_declared * vmax;
    }
    s->sigma[e] = sig > floor ? sig : floor;
    s->sigma_max = fmax(s->sigma_max, s->sigma[e]);
  }
  return LTH_OK;
}
