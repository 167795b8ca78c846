/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Output-time bookkeeping (lib/core/times.h). */
#include "times.h"

#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

lth_status lth_time_union(double t0, double t1, const double *times, size_t n, double **all,
                          size_t *nall, size_t *idx, lth_error *err) {
  size_t cap = n + 2;
  double *u = malloc(cap * sizeof(double));
  if (!u) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  size_t k = 0;
  u[k++] = t0;
  for (size_t i = 0; i < n; i++) u[k++] = times[i];
  u[k++] = t1;
  qsort(u, k, sizeof *u, cmp_double);
  size_t m = 0;
  for (size_t i = 0; i < k; i++) {
    if (m == 0 || u[i] != u[m - 1]) u[m++] = u[i];
  }
  for (size_t i = 0; i < n; i++) {
    size_t lo = 0, hi = m - 1;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (u[mid] < times[i])
        lo = mid + 1;
      else
        hi = mid;
    }
    idx[i] = lo;
  }
  *all = u;
  *nall = m;
  return LTH_OK;
}
