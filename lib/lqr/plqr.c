/* SPDX-License-Identifier: GPL-3.0-or-later */
/* LQR on a DAE plant with inputs (include/lth/plqr.h): in progress. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "lth/plqr.h"

void lth_plqr_opts_init(lth_plqr_opts *opts) {
  memset(opts, 0, sizeof *opts);
  lth_ss_opts_init(&opts->ss);
  opts->table_tol = 1e-11;
  opts->rtol = 1e-11;
  opts->atol = 1e-13;
  opts->escape = 1e12;
}

void lth_plqr_result_free(lth_plqr_result *res) {
  if (!res) {
    return;
  }
  double *a[] = {res->times, res->K, res->k, res->Kz, res->kz, res->P, res->pv,
                 res->cv,    res->x, res->z, res->u,  res->y};
  for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) {
    free(a[i]);
  }
  free(res);
}

lth_status lth_plqr_solve(const lth_system *sys, const lth_plqr_cost *cost, double t0, double t1,
                          const double *z0, const double *times, size_t n,
                          const lth_plqr_opts *opts, lth_plqr_result **out, lth_error *err) {
  (void)sys, (void)cost, (void)t0, (void)t1, (void)z0, (void)times, (void)n, (void)opts;
  *out = NULL;
  return lth_error_set(err, LTH_EINVAL, "lth_plqr_solve: not yet");
}
