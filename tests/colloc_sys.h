/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Manufactured Hessenberg systems with fast modes for the collocation tests
 * (tests/test_bvp_colloc*.c).  Every entry of A and of the exact solution is
 *     a(t) = c0 + c1 sin(w t + phi) + ce exp(mu (t - tau)),
 * with Taylor coefficients in closed form; f = E z*' - A z* is delivered as
 * an exact jet (as tests/testsys.h does), so z* solves the DAE exactly.  The
 * exponential term puts boundary layers (mu = +-lambda) into z*, while
 * diagonal entries +-lambda of A(1,1) give the problem growing and decaying
 * modes (a dichotomy).
 */
#ifndef LTH_COLLOC_SYS_H
#define LTH_COLLOC_SYS_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/system.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define CS_MAXS 12
#define CS_MAXK 24

typedef struct cs_fn {
  double c0, c1, w, phi, ce, mu, tau;
} cs_fn;

typedef struct cs_sys {
  int r, n[6], off[7], s, m;
  cs_fn A[CS_MAXS * CS_MAXS]; /* column-major, zero outside the pattern */
  cs_fn z[CS_MAXS];           /* exact solution */
  struct cs_blk {
    struct cs_sys *S;
    int i, j;
  } blk[64];
} cs_sys;

/* Taylor coefficients of a at t, k = 0..K. */
static inline void cs_coef(const cs_fn *a, double t, int K, double *out) {
  double fact = 1.0, wk = 1.0, mk = 1.0, e = a->ce != 0.0 ? a->ce * exp(a->mu * (t - a->tau)) : 0.0;
  for (int k = 0; k <= K; k++) {
    if (k > 0) {
      fact *= k;
      wk *= a->w;
      mk *= a->mu;
    }
    out[k] = a->c1 * wk * sin(a->w * t + a->phi + k * M_PI / 2) / fact + e * mk / fact +
             (k == 0 ? a->c0 : 0.0);
  }
}

static inline double cs_val(const cs_fn *a, double t) {
  double v;
  cs_coef(a, t, 0, &v);
  return v;
}

static int cs_A_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  struct cs_blk *b = ctx;
  const cs_sys *S = b->S;
  double c[CS_MAXK + 1];
  if (order > CS_MAXK) return 1;
  for (int jj = 0; jj < S->n[b->j - 1]; jj++)
    for (int ii = 0; ii < S->n[b->i - 1]; ii++) {
      cs_coef(&S->A[S->off[b->i - 1] + ii + (S->off[b->j - 1] + jj) * S->s], t, order, c);
      for (int k = 0; k <= order; k++) coef[k * stride + ii + (size_t)jj * ld] = c[k];
    }
  return 0;
}

/* f_i coefficient k: E (k+1) z*_{k+1} - sum_{j<=k} A_j z*_{k-j}, rows of block i. */
static int cs_f_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ld;
  struct cs_blk *b = ctx;
  const cs_sys *S = b->S;
  int s = S->s;
  if (order + 1 > CS_MAXK) return 1;
  double z[CS_MAXS][CS_MAXK + 2], a[CS_MAXK + 1];
  for (int l = 0; l < s; l++) cs_coef(&S->z[l], t, order + 1, z[l]);
  for (int ii = 0; ii < S->n[b->i - 1]; ii++) {
    int gi = S->off[b->i - 1] + ii;
    for (int k = 0; k <= order; k++)
      coef[k * stride + ii] = gi < S->m ? (k + 1) * z[gi][k + 1] : 0.0;
    for (int l = 0; l < s; l++) {
      cs_coef(&S->A[gi + l * s], t, order, a);
      for (int k = 0; k <= order; k++)
        for (int j = 0; j <= k; j++) coef[k * stride + ii] -= a[j] * z[l][k - j];
    }
  }
  return 0;
}

static inline int cs_in_pattern(int r, int i, int j) {
  if (i == 1) return 1;
  if (i == r) return j == r - 1;
  return j >= i - 1 && j <= r - 1;
}

/* Empty system with blocks n[0..r-1]. */
static inline void cs_init(cs_sys *S, int r, const int *n) {
  memset(S, 0, sizeof *S);
  S->r = r;
  for (int i = 0; i < r; i++) {
    S->n[i] = n[i];
    S->off[i] = S->s;
    S->s += n[i];
  }
  S->off[r] = S->s;
  S->m = S->s - n[r - 1];
}

/* Entry (i, j) of A (0-based, global indices). */
static inline cs_fn *cs_A(cs_sys *S, int i, int j) { return &S->A[i + j * S->s]; }

static inline lth_system *cs_system(cs_sys *S) {
  lth_system *sys = lth_system_alloc(S->r, S->n, NULL);
  int nb = 0;
  for (int i = 1; i <= S->r; i++) {
    for (int j = 1; j <= S->r; j++) {
      if (!cs_in_pattern(S->r, i, j)) continue;
      S->blk[nb] = (struct cs_blk){S, i, j};
      lth_system_set_A(sys, i, j,
                       lth_source_callback(S->n[i - 1], S->n[j - 1], cs_A_cb, &S->blk[nb], NULL),
                       NULL);
      nb++;
    }
    S->blk[nb] = (struct cs_blk){S, i, 0};
    lth_system_set_f(sys, i, lth_source_callback(S->n[i - 1], 1, cs_f_cb, &S->blk[nb], NULL), NULL);
    nb++;
  }
  return sys;
}

/* z*(t) into z (s entries). */
static inline void cs_exact(const cs_sys *S, double t, double *z) {
  for (int i = 0; i < S->s; i++) z[i] = cs_val(&S->z[i], t);
}

#endif
