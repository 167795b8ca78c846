/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A random family of Hessenberg DAEs of index 2..8 with a manufactured exact
 * solution, for calibrating lth's refusals (tests/test_refusal_family.c).
 *
 * Member: blocks n_1 .. n_r (n_r in {1, 2}, n_i = n_r or n_r + 1), on [0, 2].
 *   Chain blocks A(i,i-1) and A(1,r) = g(t) (J + eps R(t)): J the rectangular
 *   identity, R random functions of size <= 1, eps = 0.02, and a gain
 *   g(t) = c (1 + alpha sin(w t + phi)) with alpha up to 0.9, so that Pi =
 *   the product of the gains times (I + O(r eps)) is invertible but may vary
 *   by orders of magnitude over the interval (what cond_interval compares).
 *   Other blocks of Clark's pattern: random functions of size <= 0.5, with
 *   probability 0.5.  Mass matrices (probability 0.5): M_i(t) = diagonal
 *   1 + beta sin(w t + phi) (beta up to 0.8) plus off-diagonal entries of
 *   size <= 0.05 / n_i, in every differential block row.
 *   Near-singular members: the first row of A(r,r-1) (or the first column of
 *   A(1,r)) times c(t) = a ((t - t*)^2 + d), d from 1e-2 down to 1e-14, or
 *   a (t - t*) (det Pi changes sign at t*).
 *   Exact solution z*_k = o_k + a_k sin(w_k t + p_k); f = E z*' - A z*,
 *   written out as a formula, so z*(0) is consistent and the IVP from it
 *   returns z*.
 * Written in the block form (with M(i) statements) or as equations
 * (`problem equations`, one scalar equation per row, in a shuffled order).
 */
#ifndef LTH_REFUSAL_FAMILY_H
#define LTH_REFUSAL_FAMILY_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define RF_MAXR  8
#define RF_MAXS  24
#define RF_ENTRY 256

typedef struct rf_member {
  int r, n[RF_MAXR], off[RF_MAXR + 1], s, m;
  int mass;   /* mass matrices in the differential rows */
  int eqform; /* written as equations */
  int near;   /* 0: none; 1: c(t) = a (t - t*) (a root); 2: a ((t - t*)^2 + d) */
  double ts, d;
  char A[RF_MAXS][RF_MAXS][RF_ENTRY]; /* entries of A ("" = zero) */
  char M[RF_MAXS][RF_MAXS][RF_ENTRY]; /* mass entries, rows < m ("" = zero) */
  double za[RF_MAXS], zw[RF_MAXS], zp[RF_MAXS], zo[RF_MAXS];
} rf_member;

#define RF_T0 0.0
#define RF_T1 2.0

static inline void rf_zstar(const rf_member *F, double t, double *z) {
  for (int k = 0; k < F->s; k++) z[k] = F->zo[k] + F->za[k] * sin(F->zw[k] * t + F->zp[k]);
}

/* A smooth random function of size <= scale. */
static inline void rf_func(char *buf, double scale) {
  double c = scale * tu_uniform(-1, 1);
  switch ((int)tu_uniform(0, 4)) {
  case 0:
    snprintf(buf, RF_ENTRY, "%.6f", c);
    break;
  case 1:
    snprintf(buf, RF_ENTRY, "%.6f*sin(%.4f*t + %.4f)", c, tu_uniform(0.3, 2), tu_uniform(-3, 3));
    break;
  case 2:
    snprintf(buf, RF_ENTRY, "%.6f*cos(%.4f*t)", c, tu_uniform(0.3, 2));
    break;
  default:
    snprintf(buf, RF_ENTRY, "%.6f*exp(-%.4f*t)", c, tu_uniform(0.1, 0.8));
  }
}

static inline int rf_block_of(const rf_member *F, int row) {
  int i = 1;
  while (row >= F->off[i]) i++;
  return i; /* 1-based */
}

/* Chain block (i, j): rows of block i, columns of block j, gain text gain. */
static inline void rf_chain_block(rf_member *F, int i, int j, const char *gain, const char *c,
                                  int c_row, int c_col) {
  for (int a = 0; a < F->n[i - 1]; a++) {
    for (int b = 0; b < F->n[j - 1]; b++) {
      char e[RF_ENTRY], x[RF_ENTRY];
      rf_func(e, 0.02);
      snprintf(x, sizeof x, "%s%.96s", a == b ? "1 + " : "", e);
      int scaled = c && ((c_row && a == 0) || (c_col && b == 0));
      snprintf(F->A[F->off[i - 1] + a][F->off[j - 1] + b], RF_ENTRY, "%.64s*(%.100s)%s%.64s%s",
               gain, x, scaled ? "*(" : "", scaled ? c : "", scaled ? ")" : "");
    }
  }
}

/* Draw member number k of the family (deterministic in tu's state). */
static inline void rf_draw(rf_member *F, int k) {
  memset(F, 0, sizeof *F);
  F->r = 2 + k % 7;
  int nr = tu_uniform(0, 1) < 0.7 ? 1 : 2, r = F->r;
  for (int i = 0; i < r; i++) {
    F->n[i] = i == r - 1 ? nr : nr + (tu_uniform(0, 1) < 0.4);
    F->off[i + 1] = F->off[i] + F->n[i];
  }
  F->s = F->off[r];
  F->m = F->s - nr;
  F->mass = tu_uniform(0, 1) < 0.5;
  F->eqform = tu_uniform(0, 1) < 0.4;
  double u = tu_uniform(0, 1);
  F->near = u < 0.1 ? 1 : (u < 0.4 ? 2 : 0);
  char c[RF_ENTRY] = "";
  if (F->near) {
    double a = tu_uniform(0.5, 2);
    F->ts = tu_uniform(RF_T0 - 0.2, RF_T1 + 0.2);
    F->d = pow(10.0, -tu_uniform(2, 14));
    if (F->near == 1) {
      snprintf(c, sizeof c, "%.6f*(t - %.17g)", a, F->ts);
    } else {
      snprintf(c, sizeof c, "%.6f*((t - %.17g)^2 + %.6g)", a, F->ts, F->d);
    }
  }
  int c_in_first = tu_uniform(0, 1) < 0.5; /* c on A(1,r)'s first column, else A(r,r-1)'s row */
  for (int i = 1; i <= r; i++) {
    for (int j = 1; j <= r; j++) {
      int chain = (i == 1 && j == r) || j == i - 1;
      int allowed = i == 1 ? j < r : (i < r ? j >= i - 1 && j <= r - 1 : j == r - 1);
      if (chain) {
        char gain[RF_ENTRY];
        double alpha = tu_uniform(0, 0.9), scale = pow(10.0, tu_uniform(-0.5, 0.5));
        snprintf(gain, sizeof gain, "%.6f*(1 + %.4f*sin(%.4f*t + %.4f))",
                 tu_uniform(0, 1) < 0.5 ? scale : -scale, alpha, tu_uniform(1, 3.5),
                 tu_uniform(-3, 3));
        int here = F->near && ((i == 1 && j == r) ? c_in_first : (i == r && !c_in_first));
        rf_chain_block(F, i, j, gain, here ? c : NULL, i == r, i == 1);
      } else if (allowed && tu_uniform(0, 1) < 0.5) {
        for (int a = 0; a < F->n[i - 1]; a++)
          for (int b = 0; b < F->n[j - 1]; b++)
            rf_func(F->A[F->off[i - 1] + a][F->off[j - 1] + b], 0.5);
      }
    }
  }
  if (F->mass) {
    for (int i = 1; i < r; i++) {
      for (int a = 0; a < F->n[i - 1]; a++) {
        for (int b = 0; b < F->n[i - 1]; b++) {
          char *e = F->M[F->off[i - 1] + a][F->off[i - 1] + b];
          if (a == b) {
            snprintf(e, RF_ENTRY, "1 + %.4f*sin(%.4f*t + %.4f)", tu_uniform(0, 0.8),
                     tu_uniform(1, 3.5), tu_uniform(-3, 3));
          } else {
            rf_func(e, 0.05 / F->n[i - 1]);
          }
        }
      }
    }
  }
  for (int q = 0; q < F->s; q++) {
    F->za[q] = tu_uniform(0.5, 2);
    F->zw[q] = tu_uniform(0.3, 2);
    F->zp[q] = tu_uniform(-3, 3);
    F->zo[q] = tu_uniform(-1, 1);
  }
}

/* Append to a growing buffer. */
typedef struct rf_buf {
  char *p;
  size_t len, cap;
} rf_buf;

static inline void rf_put(rf_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void rf_put(rf_buf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (b->p && (size_t)n < b->cap - b->len) {
      b->len += (size_t)n;
      return;
    }
    b->cap = 2 * (b->cap + (size_t)n + 64);
    b->p = realloc(b->p, b->cap);
  }
}

/* The free term of row q: f_q = sum_b M_qb zb*' - sum_c A_qc zc* (M = I if none). */
static inline void rf_free_term(rf_buf *b, const rf_member *F, int q) {
  rf_put(b, "0");
  if (q < F->m) {
    for (int c = 0; c < F->m; c++) {
      const char *mq = F->mass ? F->M[q][c] : (c == q ? "1" : "");
      if (!mq[0]) continue;
      rf_put(b, " + (%s)*(%.17g*cos(%.17g*t + %.17g))", mq, F->za[c] * F->zw[c], F->zw[c],
             F->zp[c]);
    }
  }
  for (int c = 0; c < F->s; c++) {
    if (!F->A[q][c][0]) continue;
    rf_put(b, " - (%s)*(%.17g + %.17g*sin(%.17g*t + %.17g))", F->A[q][c], F->zo[c], F->za[c],
           F->zw[c], F->zp[c]);
  }
}

static inline void rf_block_text(rf_buf *b, const rf_member *F) {
  rf_put(b, "blocks");
  for (int i = 0; i < F->r; i++) rf_put(b, " %d", F->n[i]);
  rf_put(b, "\ninterval %g %g\n", RF_T0, RF_T1);
  for (int i = 1; i <= F->r; i++) {
    for (int j = 1; j <= F->r; j++) {
      int any = 0;
      for (int a = 0; a < F->n[i - 1]; a++)
        for (int c = 0; c < F->n[j - 1]; c++) any |= F->A[F->off[i - 1] + a][F->off[j - 1] + c][0];
      if (!any) continue;
      rf_put(b, "A(%d,%d) = [", i, j);
      for (int a = 0; a < F->n[i - 1]; a++) {
        for (int c = 0; c < F->n[j - 1]; c++) {
          const char *e = F->A[F->off[i - 1] + a][F->off[j - 1] + c];
          rf_put(b, "%s(%s)", c ? ", " : "", e[0] ? e : "0");
        }
        rf_put(b, a + 1 < F->n[i - 1] ? "; " : "]\n");
      }
    }
    if (F->mass && i < F->r) {
      rf_put(b, "M(%d) = [", i);
      for (int a = 0; a < F->n[i - 1]; a++) {
        for (int c = 0; c < F->n[i - 1]; c++)
          rf_put(b, "%s(%s)", c ? ", " : "", F->M[F->off[i - 1] + a][F->off[i - 1] + c]);
        rf_put(b, a + 1 < F->n[i - 1] ? "; " : "]\n");
      }
    }
    rf_put(b, "f(%d) = [", i);
    for (int a = 0; a < F->n[i - 1]; a++) {
      rf_free_term(b, F, F->off[i - 1] + a);
      rf_put(b, a + 1 < F->n[i - 1] ? "; " : "]\n");
    }
  }
}

static inline void rf_equation_text(rf_buf *b, const rf_member *F) {
  rf_put(b, "problem equations\nvariables");
  for (int q = 0; q < F->s; q++) rf_put(b, " q%d", q + 1);
  rf_put(b, "\ninterval %g %g\n", RF_T0, RF_T1);
  int order[RF_MAXS];
  for (int q = 0; q < F->s; q++) order[q] = q;
  for (int q = F->s - 1; q > 0; q--) { /* shuffled equations */
    int k = (int)tu_uniform(0, q + 1), x = order[q];
    order[q] = order[k];
    order[k] = x;
  }
  for (int e = 0; e < F->s; e++) {
    int q = order[e];
    if (q < F->m) {
      int any = 0;
      for (int c = 0; c < F->m; c++) {
        const char *mq = F->mass ? F->M[q][c] : (c == q ? "1" : "");
        if (!mq[0]) continue;
        rf_put(b, "%s(%s)*q%d'", any++ ? " + " : "", mq, c + 1);
      }
    } else {
      rf_put(b, "0");
    }
    rf_put(b, " = ");
    for (int c = 0; c < F->s; c++) {
      if (F->A[q][c][0]) rf_put(b, "(%s)*q%d + ", F->A[q][c], c + 1);
    }
    rf_free_term(b, F, q);
    rf_put(b, "\n");
  }
}

/* The member's data-file text (malloc'd). */
static inline char *rf_text(const rf_member *F) {
  rf_buf b = {0};
  if (F->eqform) {
    rf_equation_text(&b, F);
  } else {
    rf_block_text(&b, F);
  }
  return b.p;
}

#endif
