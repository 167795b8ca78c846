/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Random time-varying Hessenberg systems for the tests, defined through C
 * callbacks (the path a control-design code uses).  Every entry of A is
 *     a(t) = c0 + c1 sin(w t + phi),
 * whose Taylor coefficients are known in closed form.  The chain blocks
 * A_1r, A_{i,i-1} are "identity plus small oscillation" so that Pi stays well
 * conditioned while the projectors P_i vary with t.
 *
 * Manufactured solutions (docs/theory.md section 4, item 5): with
 *     z*_k(t) = a_k sin(b_k t + c_k) + d_k,
 * f = E z*' - A z* is delivered by a callback as an exact jet, so z* solves
 * the DAE exactly.  Alternatively f is an independent random oscillation.
 */
#ifndef LTH_TESTSYS_H
#define LTH_TESTSYS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/system.h"
#include "testutil.h"

#define TS_MAXR 16

typedef struct ts_entry {
  double c0, c1, w, phi;
} ts_entry;

typedef struct ts_sys {
  int r, n[TS_MAXR], off[TS_MAXR + 1], s, m;
  ts_entry *A;   /* s x s, column-major; zero outside the chosen blocks */
  ts_entry *zs;  /* s: manufactured solution (a = c1, b = w, c = phi, d = c0) */
  ts_entry *fr;  /* s: random f when not manufactured */
  int manufactured;
  struct ts_blk { struct ts_sys *S; int i, j; } blk[TS_MAXR * TS_MAXR + TS_MAXR];
} ts_sys;

/* Taylor coefficients of c0 + c1 sin(w t + phi) at t, k = 0..K. */
static inline void ts_entry_coef(const ts_entry *e, double t, int K, double *out) {
  double fact = 1.0, wk = 1.0;
  for (int k = 0; k <= K; k++) {
    if (k > 0) {
      fact *= k;
      wk *= e->w;
    }
    out[k] = e->c1 * wk * sin(e->w * t + e->phi + k * M_PI / 2) / fact + (k == 0 ? e->c0 : 0.0);
  }
}

/* Full A jet at t (s x s x (K+1), coefficient k at A + k*s*s). */
static inline void ts_A_coef(const ts_sys *S, double t, int K, double *A) {
  double c[64];
  for (int j = 0; j < S->s; j++)
    for (int i = 0; i < S->s; i++) {
      ts_entry_coef(&S->A[i + j * S->s], t, K, c);
      for (int k = 0; k <= K; k++) A[(size_t)k * S->s * S->s + i + (size_t)j * S->s] = c[k];
    }
}

/* z* jet at t (s x (K+1)). */
static inline void ts_z_coef(const ts_sys *S, double t, int K, double *z) {
  double c[64];
  for (int i = 0; i < S->s; i++) {
    ts_entry_coef(&S->zs[i], t, K, c);
    for (int k = 0; k <= K; k++) z[(size_t)k * S->s + i] = c[k];
  }
}

static int ts_A_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  struct ts_blk *b = ctx;
  const ts_sys *S = b->S;
  double c[64];
  for (int jj = 0; jj < S->n[b->j - 1]; jj++)
    for (int ii = 0; ii < S->n[b->i - 1]; ii++) {
      int gi = S->off[b->i - 1] + ii, gj = S->off[b->j - 1] + jj;
      ts_entry_coef(&S->A[gi + gj * S->s], t, order, c);
      for (int k = 0; k <= order; k++) coef[k * stride + ii + (size_t)jj * ld] = c[k];
    }
  return 0;
}

/* f_i: random, or manufactured f = E z*' - A z* (coefficient k:
 * E (k+1) z*_{k+1} - sum_{j<=k} A_j z*_{k-j}). */
static int ts_f_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ld;
  struct ts_blk *b = ctx;
  const ts_sys *S = b->S;
  int s = S->s, o = S->off[b->i - 1], ni = S->n[b->i - 1];
  if (!S->manufactured) {
    double c[64];
    for (int ii = 0; ii < ni; ii++) {
      ts_entry_coef(&S->fr[o + ii], t, order, c);
      for (int k = 0; k <= order; k++) coef[k * stride + ii] = c[k];
    }
    return 0;
  }
  double *A = malloc(sizeof(double) * (size_t)s * s * (order + 1));
  double *z = malloc(sizeof(double) * (size_t)s * (order + 2));
  if (!A || !z) {
    free(A);
    free(z);
    return 1;
  }
  ts_A_coef(S, t, order, A);
  ts_z_coef(S, t, order + 1, z);
  for (int k = 0; k <= order; k++)
    for (int ii = 0; ii < ni; ii++) {
      int gi = o + ii;
      double v = gi < S->m ? (k + 1) * z[(size_t)(k + 1) * s + gi] : 0.0;
      for (int j = 0; j <= k; j++)
        for (int l = 0; l < s; l++)
          v -= A[(size_t)j * s * s + gi + (size_t)l * s] * z[(size_t)(k - j) * s + l];
      coef[k * stride + ii] = v;
    }
  free(A);
  free(z);
  return 0;
}

static inline int ts_in_pattern(int r, int i, int j) {
  if (i == 1) return 1;
  if (i == r) return j == r - 1;
  return j >= i - 1 && j <= r - 1;
}

static inline int ts_is_chain(int r, int i, int j) { return (i == 1 && j == r) || j == i - 1; }

/* A random system with block sizes n[0..r-1]; `amp` scales the oscillation of
 * the chain blocks (time variation of the projectors). */
static inline ts_sys *ts_new(int r, const int *n, uint64_t seed, double amp, int manufactured) {
  ts_sys *S = calloc(1, sizeof *S);
  S->r = r;
  for (int i = 0; i < r; i++) {
    S->n[i] = n[i];
    S->off[i] = S->s;
    S->s += n[i];
  }
  S->off[r] = S->s;
  S->m = S->s - n[r - 1];
  S->manufactured = manufactured;
  S->A = calloc((size_t)S->s * S->s, sizeof *S->A);
  S->zs = calloc((size_t)S->s, sizeof *S->zs);
  S->fr = calloc((size_t)S->s, sizeof *S->fr);
  tu_seed(seed);
  for (int i = 1; i <= r; i++)
    for (int j = 1; j <= r; j++) {
      if (!ts_in_pattern(r, i, j)) continue;
      int chain = ts_is_chain(r, i, j);
      for (int jj = 0; jj < n[j - 1]; jj++)
        for (int ii = 0; ii < n[i - 1]; ii++) {
          ts_entry *e = &S->A[S->off[i - 1] + ii + (S->off[j - 1] + jj) * S->s];
          double a = chain ? amp : 0.8;
          e->c0 = chain ? (ii == jj ? 1.0 + 0.3 * ii / (double)n[i - 1] : 0.0) : tu_uniform(-1, 1);
          e->c1 = a * tu_uniform(-1, 1) / (chain ? sqrt((double)n[i - 1]) : 1.0);
          e->w = tu_uniform(0.5, 2.5);
          e->phi = tu_uniform(0, 2 * M_PI);
        }
    }
  for (int k = 0; k < S->s; k++) {
    S->zs[k] = (ts_entry){tu_uniform(-1, 1), tu_uniform(0.5, 2), tu_uniform(0.3, 1.7),
                          tu_uniform(0, 6)};
    S->fr[k] = (ts_entry){tu_uniform(-1, 1), tu_uniform(0.5, 2), tu_uniform(0.3, 1.7),
                          tu_uniform(0, 6)};
  }
  return S;
}

/* The lth_system over S (S must outlive it). */
static inline lth_system *ts_system(ts_sys *S) {
  lth_system *sys = lth_system_alloc(S->r, S->n, NULL);
  int nb = 0;
  for (int i = 1; i <= S->r; i++) {
    for (int j = 1; j <= S->r; j++) {
      if (!ts_in_pattern(S->r, i, j)) continue;
      S->blk[nb] = (struct ts_blk){S, i, j};
      lth_system_set_A(sys, i, j,
                       lth_source_callback(S->n[i - 1], S->n[j - 1], ts_A_cb, &S->blk[nb], NULL),
                       NULL);
      nb++;
    }
    S->blk[nb] = (struct ts_blk){S, i, 0};
    lth_system_set_f(sys, i, lth_source_callback(S->n[i - 1], 1, ts_f_cb, &S->blk[nb], NULL),
                     NULL);
    nb++;
  }
  return sys;
}

static inline void ts_free(ts_sys *S) {
  if (!S) return;
  free(S->A);
  free(S->zs);
  free(S->fr);
  free(S);
}

#endif
