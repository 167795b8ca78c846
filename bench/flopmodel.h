/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Analytical FLOP count of one lth_decomp_at call, product by product, in the
 * order lib/decomp/decomp.c performs them (bench/README.md, "FLOP model").
 *
 * A truncated Cauchy product of order k of an M x Kd jet by a Kd x N jet is
 * (k+1)(k+2)/2 matrix products of 2 M N Kd flops each (lth_jet_gemm, whether
 * it takes the packed wide-dgemm path or not).  A jet solve with the LU of
 * Pi_0 of order k (lth_jet_lu_solve) is k(k+1)/2 dgemms plus k+1 dgetrs of
 * 2 nr^2 N each: (k+1)(k+2)/2 * 2 nr^2 N as well.
 *
 * What the BLAS counter (bench/blascount.h) sees is less: lib/jet/jet.c sums
 * products of at most 512 multiply-adds itself (TINY_PRODUCT) and applies
 * small LU factors itself (nr^2 N <= 4096, SMALL_PRODUCT).  The model keeps
 * both: `total` (all flops, the figure reported) and `blas` (the part that
 * goes through BLAS, checked against the count).  Level-1 work (copies,
 * axpys, scalings, derivatives) is O(s^2 K) and not modelled.
 *
 * Orders (lib/decomp/decomp.c header): inputs have order K = o + r - 1 (o = output
 * order); chains, solves and projectors run at order K; step i of the
 * reduction runs at order o + i - 1; the outputs Q_i and G at order o.
 */
#ifndef LTH_FLOPMODEL_H
#define LTH_FLOPMODEL_H

#include <stdio.h>

#define FM_MAXPROD 512

typedef struct fm_product {
  char what[96];
  int M, N, Kd, order;
  double flops;
} fm_product;

typedef struct fm_model {
  int np;
  double total; /* all flops */
  double blas;  /* the flops that go through BLAS calls */
  fm_product p[FM_MAXPROD];
} fm_model;

static inline double fm_tri(int k) { return (k + 1.0) * (k + 2.0) / 2.0; }

static inline void fm_add_raw(fm_model *md, const char *what, int M, int N, int Kd, int order,
                              double flops, double blas) {
  if (md->np < FM_MAXPROD) {
    fm_product *p = &md->p[md->np++];
    snprintf(p->what, sizeof p->what, "%s", what);
    p->M = M;
    p->N = N;
    p->Kd = Kd;
    p->order = order;
    p->flops = flops;
  }
  md->total += flops;
  md->blas += blas;
}

/* lib/jet/jet.c's threshold for summing a product itself. */
static inline int fm_tiny(int M, int N, int Kd) { return (double)M * N * Kd <= 512; }

/* A jet product (or jet solve) M x Kd by Kd x N of order k. */
static inline void fm_add(fm_model *md, const char *what, int M, int N, int Kd, int k) {
  double f = fm_tri(k) * 2.0 * M * N * Kd;
  fm_add_raw(md, what, M, N, Kd, k, f, fm_tiny(M, N, Kd) ? 0.0 : f);
}

/* A jet solve with the LU of Pi_0 (see above). */
static inline void fm_add_solve(fm_model *md, const char *what, int nr, int N, int k) {
  double prods = k * (k + 1.0) / 2.0 * 2.0 * nr * nr * N, apply = (k + 1.0) * 2.0 * nr * nr * N;
  fm_add_raw(md, what, nr, N, nr, k, prods + apply,
             (fm_tiny(nr, N, nr) ? 0.0 : prods) + ((double)nr * nr * N > 4096 ? apply : 0.0));
}

/* Chains L_i, R_i, Pi, its LU, S_i = Pi^{-1} R_i and P_i = L_i S_i, order K. */
static inline void fm_chains(fm_model *md, int r, const int *n, int K) {
  int nr = n[r - 1];
  char w[96];
  for (int i = 2; i <= r - 1; i++) {
    snprintf(w, sizeof w, "L_%d = A(%d,%d) L_%d", i, i, i - 1, i - 1);
    fm_add(md, w, n[i - 1], nr, n[i - 2], K);
  }
  for (int i = r - 2; i >= 1; i--) {
    snprintf(w, sizeof w, "R_%d = R_%d A(%d,%d)", i, i + 1, i + 1, i);
    fm_add(md, w, nr, n[i - 1], n[i], K);
  }
  fm_add(md, "Pi = R_{r-1} L_{r-1}", nr, nr, n[r - 2], K);
  /* a 1 x 1 Pi is factored without LAPACK (lth_jet_lu_factor): no dgetrf to count */
  if (nr > 1) {
    double f = 2.0 * nr * nr * (double)nr / 3.0;
    fm_add_raw(md, "LU of Pi_0 (dgetrf)", nr, nr, nr, 0, f, f);
  }
  for (int i = 1; i <= r - 1; i++) {
    snprintf(w, sizeof w, "S_%d = Pi^-1 R_%d (solve)", i, i);
    fm_add_solve(md, w, nr, n[i - 1], K);
  }
  for (int i = 1; i <= r - 1; i++) {
    snprintf(w, sizeof w, "P_%d = L_%d S_%d", i, i, i);
    fm_add(md, w, n[i - 1], n[i - 1], nr, K);
  }
  fm_add_solve(md, "z = Pi^-1 f_r (solve)", nr, 1, K);
  fm_add(md, "w_{r-1} = -L_{r-1} z", n[r - 2], 1, nr, K);
}

/* Step i of the reduction (reduce_row), order k = o + i - 1, on the
 * Wi = m + 1 - off_i columns right of block i. */
static inline void fm_step(fm_model *md, int r, const int *n, const int *off, int m, int i, int k) {
  int nr = n[r - 1], ni = n[i - 1], Wi = m + 1 - off[i - 1];
  char w[96];
  if (i < r - 1) {
    snprintf(w, sizeof w, "[%d] D[X_%d] += X_%d Y", i, i, i);
    fm_add(md, w, ni, Wi, m - off[i], k);
  }
  for (int j = i; j <= r - 1; j++) {
    snprintf(w, sizeof w, "[%d] U_%d += A(%d,%d) X_%d", i, i, i, j, j);
    fm_add(md, w, ni, Wi, n[j - 1], k);
  }
  snprintf(w, sizeof w, "[%d] Z = S_%d U_%d", i, i, i);
  fm_add(md, w, nr, Wi, ni, k);
  snprintf(w, sizeof w, "[%d] Y_%d -= L_%d Z", i, i, i);
  fm_add(md, w, ni, Wi, nr, k);
  snprintf(w, sizeof w, "[%d] Y_%d%d -= P_%d P_%d'", i, i, i, i, i);
  fm_add(md, w, ni, ni, ni, k);
  snprintf(w, sizeof w, "[%d] Z_%d += S_%d P_%d'", i, i, i, i);
  fm_add(md, w, nr, ni, ni, k);
  if (i >= 2) {
    snprintf(w, sizeof w, "[%d] X_%d = -L_%d Z", i, i - 1, i - 1);
    fm_add(md, w, n[i - 2], Wi, nr, k);
  }
}

/* Outputs at order o: Q_i = L_{i-1} S_i (i >= 2) and G_j (I - P_j). */
static inline void fm_outputs(fm_model *md, int r, const int *n, int s, int o) {
  int nr = n[r - 1];
  char w[96];
  for (int i = 2; i <= r - 1; i++) {
    snprintf(w, sizeof w, "Q_%d = L_%d S_%d", i, i - 1, i);
    fm_add(md, w, n[i - 2], n[i - 1], nr, o);
  }
  for (int j = 1; j <= r - 1; j++) {
    snprintf(w, sizeof w, "G_%d P_%d", j, j);
    fm_add(md, w, s, n[j - 1], n[j - 1], o);
  }
}

/* The whole point: block sizes n[0..r-1], output order o. */
static inline void fm_decomp(fm_model *md, int r, const int *n, int o) {
  int off[64], s = 0;
  md->np = 0;
  md->total = 0.0;
  md->blas = 0.0;
  for (int i = 0; i < r && i < 63; i++) {
    off[i] = s;
    s += n[i];
  }
  int m = s - n[r - 1], K = o + r - 1;
  fm_chains(md, r, n, K);
  for (int i = r - 1; i >= 1; i--) {
    fm_step(md, r, n, off, m, i, o + i - 1);
  }
  fm_outputs(md, r, n, s, o);
}

#endif
