/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The boundary conditions B0 z(t0) + B1 z(t1) = beta in either form the
 * callers need: dense p x s (lth_problem_bc, the dense path's collocation and
 * shooting) or compressed columns (lth_problem_bc_csc, the operator path).
 * A file gives them one way (B0, B1 as mm("file.mtx") stay sparse; literals
 * and the equation form's bc are dense); the other form is made on the first
 * call that asks for it and kept.  p x s dense is 1.6 GB for both matrices
 * at s = 10^4, so a sparse bc that only the operator path reads never makes
 * it.  The problem is otherwise read-only after parsing; bc_mu makes the two
 * accessors safe to call from several threads. */
#include <stdlib.h>

#include "lth/bvp.h"
#include "lth/problem.h"
#include "lth/system.h"
#include "problem_impl.h"
#include "source/csc.h"

/* Dense rows x s (ld rows) from compressed columns; NULL when out of memory. */
static double *to_dense(const lth_csc *m) {
  double *d = calloc((size_t)m->rows * (size_t)m->cols + 1, sizeof *d);
  for (int j = 0; d && j < m->cols; j++) {
    for (int q = m->colptr[j]; q < m->colptr[j + 1]; q++) {
      d[m->rowind[q] + (size_t)j * m->rows] = m->val[q];
    }
  }
  return d;
}

/* Compressed columns of a dense rows x s matrix (its nonzeros). */
static lth_csc *to_sparse(const double *B, int rows, int s) {
  size_t nz = 0;
  for (size_t k = 0; k < (size_t)rows * s; k++) nz += B[k] != 0.0;
  lth_csc *m = nz < 2147483647u ? lth_csc_alloc(rows, s, (int)nz, 0, NULL) : NULL;
  int q = 0;
  for (int j = 0; m && j < s; j++) {
    m->colptr[j] = q;
    for (int i = 0; i < rows; i++) {
      double v = B[i + (size_t)j * rows];
      if (v != 0.0) {
        m->rowind[q] = i;
        m->val[q++] = v;
      }
    }
  }
  if (m) {
    m->colptr[s] = q;
  }
  return m;
}

int lth_problem_bc_wrote(lth_problem *pb, int which, size_t k) {
  if (pb->bc_nwrote[which] == pb->bc_capwrote[which]) {
    size_t cap = pb->bc_capwrote[which] ? 2 * pb->bc_capwrote[which] : 64;
    size_t *g = realloc(pb->bc_wrote[which], cap * sizeof *g);
    if (!g) {
      return -1;
    }
    pb->bc_wrote[which] = g;
    pb->bc_capwrote[which] = cap;
  }
  pb->bc_wrote[which][pb->bc_nwrote[which]++] = k;
  return 0;
}

static int cmp_index(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

/* Compressed columns of the dense rows x s matrix B from the n entries k
 * (= i + col rows, repeats allowed) that were written, read alone: sorted,
 * k runs through the columns in order and each column's rows in order. */
static lth_csc *to_sparse_listed(const double *B, int rows, int s, size_t *k, size_t n) {
  qsort(k, n, sizeof *k, cmp_index);
  size_t nz = 0, end = (size_t)rows * s;
  for (size_t q = 0; q < n; q++) {
    nz += (q == 0 || k[q] != k[q - 1]) && k[q] < end && B[k[q]] != 0.0;
  }
  lth_csc *m = nz < 2147483647u ? lth_csc_alloc(rows, s, (int)nz, 0, NULL) : NULL;
  int at = 0, c = 0;
  for (size_t q = 0; m && q < n; q++) {
    if ((q > 0 && k[q] == k[q - 1]) || k[q] >= end || B[k[q]] == 0.0) {
      continue;
    }
    int col = (int)(k[q] / (size_t)rows);
    while (c <= col) {
      m->colptr[c++] = at;
    }
    m->rowind[at] = (int)(k[q] % (size_t)rows);
    m->val[at++] = B[k[q]];
  }
  while (m && c <= s) {
    m->colptr[c++] = at;
  }
  return m;
}

int lth_problem_bc(const lth_problem *pb, const double **B0, const double **B1,
                   const double **beta) {
  lth_problem *w = (lth_problem *)pb; /* the cache; pb was allocated writable */
  pthread_mutex_lock(&w->bc_mu);
  for (int k = 0; k < 2 && pb->nbc > 0; k++) {
    double **d = k == 0 ? &w->B0 : &w->B1;
    if (!*d && pb->bcsp[k]) {
      *d = to_dense(pb->bcsp[k]);
    }
  }
  pthread_mutex_unlock(&w->bc_mu);
  *B0 = pb->B0;
  *B1 = pb->B1;
  *beta = pb->beta;
  return pb->nbc;
}

int lth_problem_bc_csc(const lth_problem *pb, lth_bvp_sparse_bc *bc) {
  lth_problem *w = (lth_problem *)pb;
  int s = lth_system_size(pb->sys), ok = 1;
  pthread_mutex_lock(&w->bc_mu);
  for (int k = 0; k < 2 && pb->nbc > 0; k++) {
    const double *d = k == 0 ? pb->B0 : pb->B1;
    if (!pb->bcsp[k] && d) {
      w->bcsp[k] = pb->bc_listed ? to_sparse_listed(d, pb->nbc, s, w->bc_wrote[k], pb->bc_nwrote[k])
                                 : to_sparse(d, pb->nbc, s);
    }
    ok = ok && pb->bcsp[k];
  }
  pthread_mutex_unlock(&w->bc_mu);
  *bc = (lth_bvp_sparse_bc){.rows = pb->nbc, .beta = pb->beta};
  if (pb->nbc == 0) {
    return 0;
  }
  if (!ok) {
    return -1;
  }
  bc->B0 = (lth_bvp_csc){pb->bcsp[0]->colptr, pb->bcsp[0]->rowind, pb->bcsp[0]->val};
  bc->B1 = (lth_bvp_csc){pb->bcsp[1]->colptr, pb->bcsp[1]->rowind, pb->bcsp[1]->val};
  return pb->nbc;
}
