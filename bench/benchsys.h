/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Random time-varying Hessenberg systems for the benchmark, delivered through
 * C callbacks (the path a control code uses).
 *
 * Every block of A and every f_i is
 *     M(t) = C0 + sin(w t + phi) C1 + cos(w t + phi) C2,
 * one frequency w and phase phi per block, so entry (i, j) is
 * c0 + a sin(w t + phi_ij) with its own amplitude and phase.  The Taylor
 * coefficients are closed-form,
 *     M_k = [k == 0] C0 + (w^k / k!) (sin(th + k pi/2) C1 + cos(th + k pi/2) C2),
 * th = w t + phi, which costs two trig calls per block and two multiply-adds
 * per entry and order: the callbacks stay a small share of a point even for
 * large blocks (the benchmark prints that share), unlike one sin() per entry.
 *
 * Chain blocks A_1r and A_{i,i-1} are "eye plus a small oscillation" so that
 * Pi = A_{r,r-1} ... A_21 A_1r stays well conditioned while the projectors
 * P_i vary with t; the other blocks are random with entries scaled by
 * 1/sqrt(cols) so that products neither grow nor shrink with the size.
 */
#ifndef LTH_BENCHSYS_H
#define LTH_BENCHSYS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "lth/source.h"
#include "lth/system.h"

#define BS_MAXR 16

typedef struct bs_block {
  int rows, cols;
  double w, phi;
  double *c; /* C0, C1, C2 back to back, each rows x cols column-major */
} bs_block;

typedef struct bs_sys {
  int r, n[BS_MAXR];
  int nblk;
  bs_block blk[BS_MAXR * BS_MAXR + BS_MAXR]; /* A blocks then f blocks */
} bs_sys;

/* splitmix64: deterministic, so every run benchmarks the same systems. */
static inline double bs_uniform(uint64_t *state, double lo, double hi) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * 0x1.0p-53;
}

static int bs_callback(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const bs_block *b = ctx;
  size_t nc = (size_t)b->rows * (size_t)b->cols;
  const double *c0 = b->c, *c1 = b->c + nc, *c2 = b->c + 2 * nc;
  double th = b->w * t + b->phi, s = sin(th), c = cos(th);
  /* sin and cos of th + k pi/2 cycle through (s, c), (c, -s), (-s, -c), (-c, s). */
  const double sk[4] = {s, c, -s, -c}, ck[4] = {c, -s, -c, s};
  double scale = 1.0;
  for (int k = 0; k <= order; k++) {
    if (k > 0) {
      scale *= b->w / k;
    }
    double a1 = scale * sk[k % 4], a2 = scale * ck[k % 4];
    double *out = coef + (size_t)k * stride;
    for (int j = 0; j < b->cols; j++) {
      for (int i = 0; i < b->rows; i++) {
        size_t e = (size_t)i + (size_t)j * (size_t)b->rows;
        out[i + (size_t)j * (size_t)ld] = (k == 0 ? c0[e] : 0.0) + a1 * c1[e] + a2 * c2[e];
      }
    }
  }
  return 0;
}

static inline int bs_in_pattern(int r, int i, int j) {
  if (i == 1) {
    return 1;
  }
  if (i == r) {
    return j == r - 1;
  }
  return j >= i - 1 && j <= r - 1;
}

static inline int bs_is_chain(int r, int i, int j) { return (i == 1 && j == r) || j == i - 1; }

/* Fill one block's C0, C1, C2.  kind: 0 chain, 1 other A block, 2 f. */
static inline int bs_block_init(bs_block *b, int rows, int cols, int kind, uint64_t *rng) {
  size_t nc = (size_t)rows * (size_t)cols;
  b->rows = rows;
  b->cols = cols;
  b->w = bs_uniform(rng, 0.5, 2.5);
  b->phi = bs_uniform(rng, 0.0, 6.283185307179586);
  b->c = malloc(3 * nc * sizeof *b->c);
  if (!b->c) {
    return -1;
  }
  double sc = 1.0 / sqrt((double)cols);
  for (int j = 0; j < cols; j++) {
    for (int i = 0; i < rows; i++) {
      size_t e = (size_t)i + (size_t)j * (size_t)rows;
      if (kind == 0) {
        /* eye with a spread diagonal, plus an oscillation of norm ~0.2 */
        double amp = 0.2 / sqrt((double)(rows > cols ? rows : cols));
        b->c[e] = i == j ? 1.0 + 0.3 * i / (double)rows : 0.0;
        b->c[nc + e] = amp * bs_uniform(rng, -1, 1);
        b->c[2 * nc + e] = amp * bs_uniform(rng, -1, 1);
      } else {
        double s = kind == 1 ? sc : 1.0;
        b->c[e] = s * bs_uniform(rng, -1, 1);
        b->c[nc + e] = 0.5 * s * bs_uniform(rng, -1, 1);
        b->c[2 * nc + e] = 0.5 * s * bs_uniform(rng, -1, 1);
      }
    }
  }
  return 0;
}

static inline void bs_free(bs_sys *S) {
  if (!S) {
    return;
  }
  for (int k = 0; k < S->nblk; k++) {
    free(S->blk[k].c);
  }
  free(S);
}

/* Coefficients for block sizes n[0..r-1] (seeded by the sizes, so a case is
 * the same system in every run). */
static inline bs_sys *bs_new(int r, const int *n) {
  bs_sys *S = calloc(1, sizeof *S);
  if (!S || r > BS_MAXR) {
    free(S);
    return NULL;
  }
  uint64_t rng = 0x5eed;
  S->r = r;
  for (int i = 0; i < r; i++) {
    S->n[i] = n[i];
    rng = rng * 31 + (uint64_t)n[i];
  }
  for (int i = 1; i <= r; i++) {
    for (int j = 1; j <= r; j++) {
      if (bs_in_pattern(r, i, j) && bs_block_init(&S->blk[S->nblk++], n[i - 1], n[j - 1],
                                                  bs_is_chain(r, i, j) ? 0 : 1, &rng) != 0) {
        bs_free(S);
        return NULL;
      }
    }
  }
  for (int i = 1; i <= r; i++) {
    if (bs_block_init(&S->blk[S->nblk++], n[i - 1], 1, 2, &rng) != 0) {
      bs_free(S);
      return NULL;
    }
  }
  return S;
}

/* The lth_system over S, every block of the pattern and every f_i set
 * (S must outlive it).  NULL on failure, with err filled. */
static inline lth_system *bs_system(bs_sys *S, lth_error *err) {
  lth_system *sys = lth_system_alloc(S->r, S->n, err);
  int k = 0;
  lth_status st = sys ? LTH_OK : LTH_ENOMEM;
  for (int i = 1; i <= S->r && st == LTH_OK; i++) {
    for (int j = 1; j <= S->r && st == LTH_OK; j++) {
      if (bs_in_pattern(S->r, i, j)) {
        bs_block *b = &S->blk[k++];
        st = lth_system_set_A(sys, i, j, lth_source_callback(b->rows, b->cols, bs_callback, b, err),
                              err);
      }
    }
  }
  for (int i = 1; i <= S->r && st == LTH_OK; i++) {
    bs_block *b = &S->blk[k++];
    st = lth_system_set_f(sys, i, lth_source_callback(b->rows, 1, bs_callback, b, err), err);
  }
  if (st != LTH_OK) {
    lth_system_free(sys);
    return NULL;
  }
  return sys;
}

#endif
