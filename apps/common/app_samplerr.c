/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sampling contribution to a solution's error (app_samplerr.h). */
#include "app_samplerr.h"

#include <math.h>
#include <stdlib.h>

#include "lth/sampling_error.h"

/* At most this many output times get the map term (1 + r * entries
 * decompositions each): evenly spread over the run's times. */
#define MAP_TIMES 200

/* Sum over the sampled data sets of max |z - z_set|. */
static lth_status variants(const lth_system *sys, size_t n, const double *z, app_resolve_fn resolve,
                           void *ctx, double *sum, lth_error *err) {
  int nb = lth_system_sampled_blocks(sys);
  size_t s = (size_t)lth_system_size(sys);
  double *zw = malloc(sizeof(double) * (s * n + 1));
  lth_status st = zw ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  *sum = 0.0;
  for (int w = 0; st == LTH_OK && w < nb; w++) {
    lth_system *sv = lth_system_sampling_variant(sys, w, err);
    st = sv ? resolve(ctx, sv, zw, err) : (err ? err->status : LTH_ENOMEM);
    double d = 0.0;
    for (size_t i = 0; st == LTH_OK && i < s * n; i++) {
      d = fmax(d, fabs(zw[i] - z[i]));
    }
    *sum += d;
    lth_system_free(sv);
  }
  free(zw);
  return st;
}

/* max over (some) output times of |G error| |v|_1 + |q error|. */
static lth_status map_term(const lth_system *sys, const double *times, size_t n, const double *v,
                           size_t ldv, double *local, lth_error *err) {
  *local = 0.0;
  if (n == 0) {
    return LTH_OK;
  }
  int m = lth_system_state_dim(sys);
  lth_decomp_error *de = lth_decomp_error_alloc(sys, err);
  if (!de) {
    return err ? err->status : LTH_ENOMEM;
  }
  size_t step = n > MAP_TIMES ? (n + MAP_TIMES - 1) / MAP_TIMES : 1;
  lth_status st = LTH_OK;
  size_t k = 0;
  while (st == LTH_OK) {
    lth_decomp_errest e;
    st = lth_decomp_error_at(de, times[k], &e, err);
    double vn = 0.0;
    for (int i = 0; st == LTH_OK && i < m; i++) {
      vn += fabs(v[k * ldv + (size_t)i]);
    }
    if (st == LTH_OK) {
      *local = fmax(*local, e.abs[LTH_OUT_GMAT] * vn + e.abs[LTH_OUT_Q]);
    }
    if (k == n - 1) {
      break;
    }
    k = k + step < n ? k + step : n - 1; /* the last time always counts */
  }
  lth_decomp_error_free(de);
  return st;
}

lth_status app_sampling_error(const lth_system *sys, const double *times, size_t n, const double *z,
                              const double *v, app_resolve_fn resolve, void *ctx, double *out,
                              lth_error *err) {
  *out = NAN;
  if (lth_system_sampled_blocks(sys) == 0) {
    return LTH_OK;
  }
  double sum = 0.0, local = 0.0;
  lth_status st = variants(sys, n, z, resolve, ctx, &sum, err);
  if (st == LTH_OK) {
    /* without v, its bound: |v| = |(I - P) z(1:m)| <~ |z(1:m)| */
    size_t ldv = v ? (size_t)lth_system_state_dim(sys) : (size_t)lth_system_size(sys);
    st = map_term(sys, times, n, v ? v : z, ldv, &local, err);
  }
  if (st == LTH_OK) {
    *out = sum + local;
  }
  return st;
}
