/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Gauss-Legendre collocation tableau on [0, 1] (lib/colloc/colloc.h).
 *
 * Nodes and weights by Golub-Welsch: the eigenvalues of the symmetric
 * tridiagonal Jacobi matrix of the Legendre recurrence (off-diagonal
 * k / sqrt(4k^2 - 1)) are the nodes on [-1, 1], and twice the squared first
 * components of the eigenvectors the weights (LAPACK dstev).  The collocation
 * matrix a_jl = int_0^{c_j} l_l(x) dx integrates the Lagrange basis exactly by
 * the s-point Gauss rule mapped to [0, c_j] (degree s - 1 <= 2s - 1).
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "colloc.h"

/* l_l(x): Lagrange basis polynomial l at x for the nodes c[0..s-1]. */
static double lagrange(const double *c, int s, int l, double x) {
  double v = 1.0;
  for (int j = 0; j < s; j++) {
    if (j != l) v *= (x - c[j]) / (c[l] - c[j]);
  }
  return v;
}

void lth_colloc_gauss_integrals(const lth_colloc_tableau *tab, double tau, double *a) {
  int s = tab->s;
  for (int l = 0; l < s; l++) {
    double v = 0.0;
    for (int i = 0; i < s; i++) v += tab->b[i] * lagrange(tab->c, s, l, tau * tab->c[i]);
    a[l] = tau * v;
  }
}

lth_status lth_colloc_gauss(int s, lth_colloc_tableau *tab, lth_error *err) {
  if (s < 1 || s > LTH_COLLOC_MAX_STAGES) {
    return lth_error_set(err, LTH_EINVAL, "collocation stages %d: need 1 <= stages <= %d", s,
                         LTH_COLLOC_MAX_STAGES);
  }
  double d[LTH_COLLOC_MAX_STAGES], e[LTH_COLLOC_MAX_STAGES];
  double Z[LTH_COLLOC_MAX_STAGES * LTH_COLLOC_MAX_STAGES];
  double work[2 * LTH_COLLOC_MAX_STAGES];
  for (int k = 0; k < s; k++) {
    d[k] = 0.0;
    e[k] = (k + 1.0) / sqrt(4.0 * (k + 1.0) * (k + 1.0) - 1.0);
  }
  lapack_int info = LAPACKE_dstev_work(LAPACK_COL_MAJOR, 'V', s, d, e, Z, s, work);
  if (info != 0) {
    return lth_error_set(err, LTH_ELAPACK, "Gauss nodes: dstev failed (info %d)", (int)info);
  }
  memset(tab, 0, sizeof *tab);
  tab->s = s;
  for (int k = 0; k < s; k++) { /* dstev sorts the eigenvalues ascending */
    tab->c[k] = 0.5 * (1.0 + d[k]);
    tab->b[k] = Z[(size_t)k * s] * Z[(size_t)k * s]; /* 2 z^2 on [-1, 1], halved */
  }
  /* exact symmetry c_{s-1-k} = 1 - c_k, b_{s-1-k} = b_k (and 1/2 at the middle) */
  for (int k = 0; k < s / 2; k++) {
    double c = 0.5 * (tab->c[k] + 1.0 - tab->c[s - 1 - k]),
           b = 0.5 * (tab->b[k] + tab->b[s - 1 - k]);
    tab->c[k] = c;
    tab->c[s - 1 - k] = 1.0 - c;
    tab->b[k] = tab->b[s - 1 - k] = b;
  }
  if (s % 2) tab->c[s / 2] = 0.5;
  double a[LTH_COLLOC_MAX_STAGES];
  for (int j = 0; j < s; j++) {
    lth_colloc_gauss_integrals(tab, tab->c[j], a);
    for (int l = 0; l < s; l++) tab->A[j + (size_t)l * s] = a[l];
  }
  return LTH_OK;
}

int lth_colloc_default_stages(double tol) {
  double d = 3.0 + floor(0.5 * log10(1.0 / tol) + 0.5);
  return d < 3 ? 3 : d > LTH_COLLOC_MAX_STAGES ? LTH_COLLOC_MAX_STAGES : (int)d;
}
