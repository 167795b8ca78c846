/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Manufactured time-varying Hessenberg systems for bench_ivp and bench_bvp
 * (the idea of tests/fixtures/testsys.h, docs/theory.md section 4 item 5), plus the small
 * helpers both benchmarks share: a clock, a deterministic random source and
 * the error against the exact solution.
 *
 * Every entry of A is a(t) = c0 + c1 sin(w t + phi), set through C callbacks
 * (the path a control code uses).  The chain blocks A_1r, A_{i,i-1} are
 * "identity plus a small oscillation", so Pi stays well conditioned while the
 * projectors P_i turn with t.  The exact solution is
 *     z*_k(t) = a_k sin(b_k t + c_k) + d_k,
 * and f = E z*' - A z* is delivered as an exact jet, so z* solves the DAE
 * exactly and every error the benchmarks print is a true error.
 *
 * Optional dichotomy (for the BVP interval sweep): a constant +L / -L is added
 * on the diagonal of A_ii (i < r) in the entries 2, 3, ... of each block.  The
 * algebraic directions are close to e_1 (the chain blocks are near identity),
 * so the state space is close to span(e_2, ...) and the reduced ODE gets
 * growing and decaying modes ~ e^{+-L t}: the fundamental solution spreads
 * like e^{L T}, which is what breaks single shooting. */
#ifndef LTH_IVPBVP_SYS_H
#define LTH_IVPBVP_SYS_H

/* The including file defines _POSIX_C_SOURCE 200809L first (clock_gettime). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lth/source.h"
#include "lth/system.h"

#define IB_MAXR 8
#define IB_MAXS 32
#define IB_MAXK 24 /* highest Taylor order a callback serves */
#define IB_PI   3.14159265358979323846

/* ---- small shared helpers ---- */

static inline double ib_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* splitmix64: deterministic, so every run benchmarks the same systems. */
static inline double ib_uniform(uint64_t *state, double lo, double hi) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * 0x1.0p-53;
}

/* ---- the manufactured system ---- */

typedef struct ib_entry {
  double c0, c1, w, phi;
  int nz; /* 0: structurally zero (outside the pattern) */
} ib_entry;

typedef struct ib_sys ib_sys;
typedef struct ib_blk {
  const ib_sys *S;
  int i, j; /* 1-based block; j = 0 for f_i */
} ib_blk;

struct ib_sys {
  int r, n[IB_MAXR], off[IB_MAXR + 1], s, m;
  ib_entry A[IB_MAXS * IB_MAXS]; /* s x s, column-major */
  ib_entry zs[IB_MAXS];          /* exact solution: a = c1, b = w, c = phi, d = c0 */
  ib_blk blk[IB_MAXR * IB_MAXR + IB_MAXR];
};

/* Taylor coefficients out[k] = a^{(k)}(t)/k!, k = 0..K, of c0 + c1 sin(w t + phi):
 * one sin and one cos per entry, then sin(th + k pi/2) cycles through four
 * values, so the callbacks stay cheap next to the decomposition. */
static inline void ib_entry_jet(const ib_entry *e, double t, int K, double *out) {
  double th = e->w * t + e->phi, sn = sin(th), cs = cos(th);
  const double cyc[4] = {sn, cs, -sn, -cs};
  double scale = e->c1;
  out[0] = e->c0 + e->c1 * sn;
  for (int k = 1; k <= K; k++) {
    scale *= e->w / k;
    out[k] = scale * cyc[k & 3];
  }
}

/* z*(t) and its jet: z[k*s + i] = coefficient k of z*_i. */
static inline void ib_exact_jet(const ib_sys *S, double t, int K, double *z) {
  double c[IB_MAXK + 2];
  for (int i = 0; i < S->s; i++) {
    ib_entry_jet(&S->zs[i], t, K, c);
    for (int k = 0; k <= K; k++) z[(size_t)k * S->s + i] = c[k];
  }
}

static inline void ib_exact(const ib_sys *S, double t, double *z) { ib_exact_jet(S, t, 0, z); }

static int ib_A_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  const ib_blk *b = ctx;
  const ib_sys *S = b->S;
  double c[IB_MAXK + 1];
  if (order > IB_MAXK) return 1;
  for (int jj = 0; jj < S->n[b->j - 1]; jj++) {
    for (int ii = 0; ii < S->n[b->i - 1]; ii++) {
      const ib_entry *e = &S->A[S->off[b->i - 1] + ii + (S->off[b->j - 1] + jj) * S->s];
      ib_entry_jet(e, t, order, c);
      for (int k = 0; k <= order; k++) coef[(size_t)k * stride + ii + (size_t)jj * ld] = c[k];
    }
  }
  return 0;
}

/* f_i = rows of E z*' - A z*; coefficient k is
 * E (k+1) z*_{k+1} - sum_{j<=k} A_j z*_{k-j} (a Cauchy product of jets).
 * Only the rows of block i are computed: reentrant, no allocation. */
static int ib_f_cb(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  (void)ld;
  const ib_blk *b = ctx;
  const ib_sys *S = b->S;
  int s = S->s, o = S->off[b->i - 1];
  double z[IB_MAXS * (IB_MAXK + 2)], a[IB_MAXK + 1];
  if (order > IB_MAXK) return 1;
  ib_exact_jet(S, t, order + 1, z);
  for (int ii = 0; ii < S->n[b->i - 1]; ii++) {
    int gi = o + ii;
    double *out = coef + ii;
    for (int k = 0; k <= order; k++) {
      out[(size_t)k * stride] = gi < S->m ? (k + 1) * z[(size_t)(k + 1) * s + gi] : 0.0;
    }
    for (int l = 0; l < s; l++) {
      const ib_entry *e = &S->A[gi + l * s];
      if (!e->nz) continue;
      ib_entry_jet(e, t, order, a);
      for (int k = 0; k <= order; k++) {
        double v = 0.0;
        for (int j = 0; j <= k; j++) v += a[j] * z[(size_t)(k - j) * s + l];
        out[(size_t)k * stride] -= v;
      }
    }
  }
  return 0;
}

static inline int ib_in_pattern(int r, int i, int j) {
  if (i == 1) return 1;
  if (i == r) return j == r - 1;
  return j >= i - 1 && j <= r - 1;
}

static inline int ib_is_chain(int r, int i, int j) { return (i == 1 && j == r) || j == i - 1; }

/* Random coefficients for block sizes n[0..r-1]: `amp` scales the oscillation
 * of the chain blocks (how fast the projectors turn), `dich` the dichotomy
 * (0: none), `damp` a constant -damp on the same diagonal entries (keeps the
 * random reduced ODE from growing, so an IVP error measures the integrator
 * rather than the problem's instability).  NULL if the sizes exceed IB_MAXR /
 * IB_MAXS. */
static inline ib_sys *ib_new(int r, const int *n, uint64_t seed, double amp, double dich,
                             double damp) {
  if (r < 2 || r > IB_MAXR) return NULL;
  ib_sys *S = calloc(1, sizeof *S);
  if (!S) return NULL;
  S->r = r;
  for (int i = 0; i < r; i++) {
    S->n[i] = n[i];
    S->off[i] = S->s;
    S->s += n[i];
  }
  S->off[r] = S->s;
  S->m = S->s - n[r - 1];
  if (S->s > IB_MAXS) {
    free(S);
    return NULL;
  }
  uint64_t rng = seed;
  for (int i = 1; i <= r; i++) {
    for (int j = 1; j <= r; j++) {
      if (!ib_in_pattern(r, i, j)) continue;
      int chain = ib_is_chain(r, i, j);
      for (int jj = 0; jj < n[j - 1]; jj++) {
        for (int ii = 0; ii < n[i - 1]; ii++) {
          ib_entry *e = &S->A[S->off[i - 1] + ii + (S->off[j - 1] + jj) * S->s];
          e->nz = 1;
          e->c0 = chain ? (ii == jj ? 1.0 + 0.3 * ii / (double)n[i - 1] : 0.0)
                        : ib_uniform(&rng, -1, 1);
          e->c1 = (chain ? amp / sqrt((double)n[i - 1]) : 0.8) * ib_uniform(&rng, -1, 1);
          e->w = ib_uniform(&rng, 0.5, 2.5);
          e->phi = ib_uniform(&rng, 0, 2 * IB_PI);
          if (i == j && ii == jj && ii > 0) e->c0 += (ii % 2 ? dich : -dich) - damp;
        }
      }
    }
  }
  for (int k = 0; k < S->s; k++) {
    S->zs[k].c0 = ib_uniform(&rng, -1, 1);
    S->zs[k].c1 = ib_uniform(&rng, 0.5, 2);
    S->zs[k].w = ib_uniform(&rng, 0.3, 1.7);
    S->zs[k].phi = ib_uniform(&rng, 0, 6);
    S->zs[k].nz = 1;
  }
  return S;
}

/* The lth_system over S (S must outlive it); NULL on failure. */
static inline lth_system *ib_system(ib_sys *S) {
  lth_system *sys = lth_system_alloc(S->r, S->n, NULL);
  if (!sys) return NULL;
  int nb = 0, ok = 1;
  for (int i = 1; i <= S->r && ok; i++) {
    for (int j = 1; j <= S->r && ok; j++) {
      if (!ib_in_pattern(S->r, i, j)) continue;
      S->blk[nb] = (ib_blk){S, i, j};
      lth_source *src = lth_source_callback(S->n[i - 1], S->n[j - 1], ib_A_cb, &S->blk[nb++], NULL);
      ok = src && lth_system_set_A(sys, i, j, src, NULL) == LTH_OK;
    }
    S->blk[nb] = (ib_blk){S, i, 0};
    lth_source *src = ok ? lth_source_callback(S->n[i - 1], 1, ib_f_cb, &S->blk[nb++], NULL) : NULL;
    ok = src && lth_system_set_f(sys, i, src, NULL) == LTH_OK;
  }
  if (!ok || lth_system_validate(sys, NULL) != LTH_OK) {
    lth_system_free(sys);
    return NULL;
  }
  return sys;
}

/* max_k ||z_k - z*(t_k)||_inf / max(1, max |z*|) over the times k >= first
 * (the error measure of tests/unit/ivp/test_ivp.c: relative to the solution's size). */
static inline double ib_error(const ib_sys *S, const double *times, size_t n, const double *z,
                              size_t first) {
  double err = 0.0, scale = 1.0, ze[IB_MAXS];
  for (size_t k = first; k < n; k++) {
    ib_exact(S, times[k], ze);
    for (int i = 0; i < S->s; i++) {
      double d = fabs(z[k * (size_t)S->s + i] - ze[i]);
      err = d > err || d != d ? d : err; /* NaN sticks */
      scale = fmax(scale, fabs(ze[i]));
    }
  }
  return err / scale;
}

/* ---- output: one table as aligned text or as CSV ---- */

/* Print one row of cells: right-aligned to widths[] (text) or comma-separated
 * (CSV; cells never contain commas). */
static inline void ib_emit(int csv, int ncol, const char *const *cells, const int *widths) {
  for (int c = 0; c < ncol; c++) {
    if (csv) {
      printf("%s%s", c ? "," : "", cells[c]);
    } else {
      printf("%*s%s", widths[c], cells[c], c + 1 < ncol ? " " : "");
    }
  }
  putchar('\n');
}

/* A table's title: a section line in CSV (blank line, "# title"), so each table
 * is a block with its own header row. */
static inline void ib_title(int csv, const char *title) {
  printf(csv ? "\n# %s\n" : "\n== %s ==\n", title);
}

#endif
