/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator path's collocation mesh (bvp_op_impl.h): uniform, with the
 * output times and the ends of the data's pieces as mesh points
 * (docs/collocation.md section 8), halved until two meshes agree
 * (bvp_op.c, adapt). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvp_op_impl.h"
#include "colloc/pieces.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The first of t[0..n) (sorted) at or after x: n if none. */
static size_t first_from(const double *t, size_t n, double x) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Within this of a mesh point an output time is that point: the output is
 * then z there, exactly. */
static double mesh_tiny(double t0, double t1) {
  return 16 * DBL_EPSILON * (fabs(t0) + fabs(t1) + (t1 - t0));
}

/* t[0..*n) sorted, with the times closer than tiny to the point before them
 * dropped (the first and last kept as t0 and t1). */
static void mesh_sort(double *t, size_t *n, double t0, double t1) {
  qsort(t, *n, sizeof(double), cmp_double);
  double tiny = mesh_tiny(t0, t1);
  size_t w = 0;
  for (size_t k = 0; k < *n; k++) {
    if (w == 0 || t[k] - t[w - 1] > tiny) t[w++] = t[k];
  }
  t[0] = t0;
  t[w - 1] = t1;
  *n = w;
}

/* M with the pieces' ends (lth_pieces_merge: its points inside a POINT piece
 * or next to a piece end dropped), then the output times put back unless a
 * point is within mesh_tiny of them.  0, or -1 when out of memory. */
static int mesh_with_pieces(omesh *M, const lth_pieces *pc, const double *times, size_t n) {
  size_t np;
  double *x = lth_pieces_merge(pc, M->t, M->N + 1, &np);
  double *t = x ? realloc(x, (np + n + 1) * sizeof(double)) : NULL;
  if (!t) {
    free(x);
    return -1;
  }
  double tiny = mesh_tiny(M->t[0], M->t[M->N]);
  size_t w = np;
  for (size_t k = 0; k < n; k++) {
    size_t lo = first_from(t, np, times[k]);
    int near = (lo < np && t[lo] - times[k] <= tiny) || (lo > 0 && times[k] - t[lo - 1] <= tiny);
    if (!near) t[w++] = times[k];
  }
  qsort(t, w, sizeof(double), cmp_double);
  size_t u = 1; /* an output time given twice is one point */
  for (size_t k = 1; k < w; k++) {
    if (t[k] != t[u - 1]) t[u++] = t[k];
  }
  w = u;
  free(M->t);
  M->t = t;
  M->N = w - 1;
  return 0;
}

int lth_bvpop_mesh_make(omesh *M, size_t N, double t0, double t1, const double *times, size_t n,
                        const lth_pieces *pc) {
  double *t = malloc((N + n + 1) * sizeof(double));
  if (!t) return -1;
  for (size_t k = 0; k <= N; k++) t[k] = k == N ? t1 : t0 + (t1 - t0) * (double)k / (double)N;
  memcpy(t + N + 1, times, n * sizeof(double));
  size_t w = N + n + 1;
  mesh_sort(t, &w, t0, t1);
  M->t = t;
  M->N = w - 1;
  return pc && pc->n > 1 ? mesh_with_pieces(M, pc, times, n) : 0;
}

int lth_bvpop_mesh_halve(const omesh *M, omesh *H) {
  H->N = 2 * M->N;
  H->t = malloc((H->N + 1) * sizeof(double));
  if (!H->t) return -1;
  for (size_t k = 0; k < M->N; k++) {
    H->t[2 * k] = M->t[k];
    H->t[2 * k + 1] = 0.5 * (M->t[k] + M->t[k + 1]);
  }
  H->t[H->N] = M->t[M->N];
  return 0;
}

size_t lth_bvpop_mesh_index(const omesh *M, double t) {
  size_t lo = first_from(M->t, M->N, t); /* nearest mesh point (every output time is one) */
  if (lo > 0 && fabs(M->t[lo - 1] - t) < fabs(M->t[lo] - t)) lo--;
  return lo;
}
