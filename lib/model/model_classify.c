/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Why equations in which every unknown's derivative appears are no
 * Hessenberg DAE (model_impl.h, lth_model_no_algebraic): an ODE when the
 * leading matrix E is invertible; otherwise a DAE that is not in Hessenberg
 * form, of index 1 when G1 = E - A Q is invertible (Q the projector onto
 * ker E: the tractability index of Marz; E z' = A z + f here), of index >= 2
 * or without a unique solution when it is not (Gear and Petzold's example,
 * Kunkel and Mehrmann's Example 3.1).  The message names the equations that
 * combine to one without derivatives (a left null vector of E) and the
 * unknowns whose derivatives E leaves undetermined (a right null vector). */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_impl.h"

/* Irregular points inside the interval (as in model_detect.c). */
static const double FRAC[7] = {0.0731, 0.1917, 0.3306, 0.4818, 0.6151, 0.7743, 0.9128};
#define RANK_TOL   1e-12 /* singular values below RANK_TOL * the largest count as zero */
#define G1_TOL     1e-10 /* G1 singular below G1_TOL * its largest singular value */
#define WEIGHT_TOL 1e-8  /* entries of a null vector that name an equation or unknown */
#define MAX_DENSE  1000  /* larger systems get the structural message only */

typedef struct work {
  int n;
  double *E, *A, *U, *VT, *s, *G, *sb, *cw;
  size_t cwn;
} work;

static void work_free(work *W) {
  free(W->E);
  free(W->A);
  free(W->U);
  free(W->VT);
  free(W->s);
  free(W->G);
  free(W->sb);
  free(W->cw);
}

static int work_alloc(work *W, const lth_model *m) {
  size_t n = (size_t)m->nv, nn = n * n;
  memset(W, 0, sizeof *W);
  W->n = m->nv;
  for (size_t k = 0; k < m->nent; k++) {
    size_t w = lth_mcoef_work_size(&m->ent[k].c, 0);
    W->cwn = w > W->cwn ? w : W->cwn;
  }
  W->E = malloc(nn * sizeof *W->E);
  W->A = malloc(nn * sizeof *W->A);
  W->U = malloc(nn * sizeof *W->U);
  W->VT = malloc(nn * sizeof *W->VT);
  W->G = malloc(nn * sizeof *W->G);
  W->s = malloc(n * sizeof *W->s);
  W->sb = malloc(n * sizeof *W->sb);
  W->cw = malloc((W->cwn + 1) * sizeof *W->cw);
  return W->E && W->A && W->U && W->VT && W->G && W->s && W->sb && W->cw;
}

/* E and A at t (column-major, ld n); 0 when a coefficient cannot be evaluated. */
static int fill(const lth_model *m, work *W, double t) {
  size_t nn = (size_t)W->n * (size_t)W->n;
  memset(W->E, 0, nn * sizeof *W->E);
  memset(W->A, 0, nn * sizeof *W->A);
  for (size_t k = 0; k < m->nent; k++) {
    const lth_mentry *e = &m->ent[k];
    double y;
    if (!e->nz || (e->part != LTH_MODEL_E && e->part != LTH_MODEL_A)) {
      continue;
    }
    if (lth_mcoef_taylor(&e->c, t, 0, &y, W->cw, NULL) != LTH_OK || !isfinite(y)) {
      return 0;
    }
    (e->part == LTH_MODEL_E ? W->E : W->A)[e->eq + (size_t)e->var * W->n] = y;
  }
  return 1;
}

/* Rank of E at t, with its SVD in U, s, VT (E overwritten; a copy in G);
 * -1 on failure. */
static int rank_E(work *W) {
  int n = W->n;
  memcpy(W->G, W->E, (size_t)n * (size_t)n * sizeof *W->G);
  if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'A', 'A', n, n, W->E, n, W->s, W->U, n, W->VT, n, W->sb) !=
      0) {
    return -1;
  }
  int r = 0;
  while (r < n && W->s[r] > RANK_TOL * W->s[0]) {
    r++;
  }
  return r;
}

/* G1 = E - A Q with Q = V2 V2' (V2: the columns of V beyond the rank, the
 * rows of VT): invertible means index 1.  G holds E on entry; A V2 goes to
 * U, which is no longer needed. */
static int g1_invertible(work *W, int rank) {
  int n = W->n, nul = n - rank;
  double *AV = W->U; /* n x nul */
  for (int k = 0; k < nul; k++) {
    for (int i = 0; i < n; i++) {
      double a = 0.0;
      for (int l = 0; l < n; l++) {
        a += W->A[i + (size_t)l * n] * W->VT[rank + k + (size_t)l * n];
      }
      AV[i + (size_t)k * n] = a;
    }
  }
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      double aq = 0.0;
      for (int k = 0; k < nul; k++) {
        aq += AV[i + (size_t)k * n] * W->VT[rank + k + (size_t)j * n];
      }
      W->G[i + (size_t)j * n] -= aq;
    }
  }
  if (LAPACKE_dgesvd(LAPACK_COL_MAJOR, 'N', 'N', n, n, W->G, n, W->s, NULL, 1, NULL, 1, W->sb) !=
      0) {
    return 0;
  }
  return W->s[0] > 0.0 && W->s[n - 1] > G1_TOL * W->s[0];
}

/* "the equation on line 9" / "a combination of the equations on lines 8, 9":
 * the equations with weight in the left null vector u (column `col` of U). */
static void combination(const lth_model *m, const work *W, int col, char *buf, size_t size,
                        int *first) {
  const double *u = W->U + (size_t)col * W->n;
  double mx = 0.0;
  int cnt = 0, len = 0;
  for (int i = 0; i < W->n; i++) {
    mx = fmax(mx, fabs(u[i]));
  }
  *first = -1;
  for (int i = 0; i < W->n; i++) {
    if (fabs(u[i]) > WEIGHT_TOL * mx) {
      *first = *first < 0 ? i : *first;
      cnt++;
    }
  }
  if (cnt == 1 && m->eline[*first] > 0) {
    snprintf(buf, size, "the equation on line %d has", m->eline[*first]);
    return;
  }
  if (cnt == 1) {
    snprintf(buf, size, "equation %d has", *first + 1);
    return;
  }
  int lines = 1; /* every equation's line known: "on lines 8, 9", else "2, 3" */
  for (int i = 0; i < W->n; i++) {
    lines = lines && (fabs(u[i]) <= WEIGHT_TOL * mx || m->eline[i] > 0);
  }
  len = snprintf(buf, size, "a combination of the equations %s", lines ? "on lines " : "");
  for (int i = 0, k = 0; i < W->n && len > 0 && (size_t)len < size; i++) {
    if (fabs(u[i]) <= WEIGHT_TOL * mx) {
      continue;
    }
    if (k == 8 && cnt > 9) {
      len += snprintf(buf + len, size - (size_t)len, ", ... (%d in all)", cnt);
      break;
    }
    len += snprintf(buf + len, size - (size_t)len, k ? ", %d" : "%d", lines ? m->eline[i] : i + 1);
    k++;
  }
  if (len > 0 && (size_t)len < size) {
    snprintf(buf + len, size - (size_t)len, " has");
  }
}

/* The unknowns with weight in the right null vector (row `row` of VT). */
static void undetermined(const lth_model *m, const work *W, int row, char *buf, size_t size) {
  int *vs = malloc((size_t)W->n * sizeof *vs), k = 0;
  double mx = 0.0;
  if (!vs) {
    snprintf(buf, size, "{...}");
    return;
  }
  for (int j = 0; j < W->n; j++) {
    mx = fmax(mx, fabs(W->VT[row + (size_t)j * W->n]));
  }
  for (int j = 0; j < W->n; j++) {
    if (fabs(W->VT[row + (size_t)j * W->n]) > WEIGHT_TOL * mx) {
      vs[k++] = j;
    }
  }
  lth_model_names(m, vs, k, buf, size);
  free(vs);
}

lth_status lth_model_no_algebraic(const lth_model *m, lth_error *err) {
  static const char tail[] =
      "lth needs a Hessenberg DAE of index >= 2, in which the derivatives of "
      "the algebraic unknowns never appear (docs/equations.md)";
  work W;
  if (m->nv > MAX_DENSE) {
    return lth_model_error(m, err, m->vline[0], m->vcol[0],
                           "every unknown's derivative appears, so no unknown is algebraic: the "
                           "equations are an ODE, or a DAE not in Hessenberg form; %s",
                           tail);
  }
  if (!work_alloc(&W, m)) {
    work_free(&W);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  int rank = -1, nsing = 0, nchecked = 0, index1 = 0;
  double tsing = 0.0;
  char eqs[200] = "", vars[256] = "";
  int first = 0;
  for (int k = 0; k < 7; k++) {
    double t = m->t0 + (m->t1 - m->t0) * FRAC[k];
    if (!fill(m, &W, t)) {
      continue;
    }
    int r = rank_E(&W);
    if (r < 0) {
      continue;
    }
    nchecked++;
    if (r == W.n) {
      continue;
    }
    if (nsing++ == 0) { /* the first singular point is the one described */
      rank = r;
      tsing = t;
      combination(m, &W, W.n - 1, eqs, sizeof eqs, &first);
      undetermined(m, &W, W.n - 1, vars, sizeof vars);
      index1 = g1_invertible(&W, r);
    }
  }
  work_free(&W);
  if (nsing == 0) {
    return lth_model_error(m, err, m->vline[0], m->vcol[0],
                           "every unknown's derivative appears and the leading matrix E (their "
                           "coefficients) is invertible: the equations are an ODE, not a DAE; %s",
                           tail);
  }
  char when[96];
  if (nsing == nchecked) {
    snprintf(when, sizeof when, "at every t checked (rank %d of %d at t = %.6g)", rank, m->nv,
             tsing);
  } else {
    snprintf(when, sizeof when, "at t = %.17g (rank %d of %d)", tsing, rank, m->nv);
  }
  return lth_model_error(
      m, err, first >= 0 ? m->eline[first] : m->vline[0], first >= 0 ? m->ecol[first] : m->vcol[0],
      "every unknown's derivative appears, yet the leading matrix E is singular %s: %s no "
      "derivative, and E does not determine the derivatives of %s. %s; %s",
      when, eqs, vars,
      index1 ? "A DAE of index 1 (E - A Q is invertible, Q the projector onto ker E)"
             : "A DAE of index >= 2 (or without a unique solution), not in Hessenberg form",
      tail);
}
