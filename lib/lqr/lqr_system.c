/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The optimality DAE of a totally singular LQR problem (Clark (4.9) with
 * R = 0, docs/theory.md section 6): Hessenberg of index 3 with blocks (nx, nx, nu). */
#include "lth/lqr.h"
#include "core/errors.h"

lth_status lth_lqr_build_system(const lth_lqr_spec *spec, lth_system **out, lth_error *err) {
  LTH_ERROR_RECORD(err);
  *out = NULL;
  int nx = spec->nx, nu = spec->nu;
  if (!(nx > nu && nu >= 1)) {
    return lth_error_set(err, LTH_EDIM, "LQR sizes nx = %d, nu = %d: need nx > nu >= 1", nx, nu);
  }
  if (!spec->A || !spec->B || !spec->H) {
    return lth_error_set(err, LTH_EINVAL, "LQR problem needs A, B and H");
  }
  int n[3] = {nx, nx, nu};
  lth_system *sys = lth_system_alloc(3, n, err);
  if (!sys) {
    return lth_error_status(err);
  }
  /* x' = A x + B u;  lambda' = -H x - A' lambda;  0 = B' lambda */
  struct {
    int i, j;
    const lth_source *base;
    double alpha;
    int transpose;
  } blocks[] = {
      {1, 1, spec->A, 1.0, 0},  {1, 3, spec->B, 1.0, 0}, {2, 1, spec->H, -1.0, 0},
      {2, 2, spec->A, -1.0, 1}, {3, 2, spec->B, 1.0, 1},
  };
  for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
    lth_source *src = lth_source_scaled(blocks[k].base, blocks[k].alpha, blocks[k].transpose, err);
    lth_status st = src ? lth_system_set_A(sys, blocks[k].i, blocks[k].j, src, err) : LTH_ENOMEM;
    if (st != LTH_OK) {
      lth_system_free(sys);
      return st;
    }
  }
  /* the interval of interest: decompositions judge Pi = -B'HB against the
   * size of B and H over all of it (include/lth/conditioning.h) */
  lth_status st =
      spec->t0 < spec->t1 ? lth_system_set_interval(sys, spec->t0, spec->t1, err) : LTH_OK;
  if (st != LTH_OK) {
    lth_system_free(sys);
    return st;
  }
  *out = sys;
  return LTH_OK;
}
