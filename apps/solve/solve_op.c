/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve's operator path (solve_op.h). */
#include "solve_op.h"

lth_status solve_op(const lth_opsys *sys, double t0, const double *z0, const double *times,
                    size_t n, const solve_op_opts *o, lth_ivp_result **out, solve_op_stats *stats,
                    lth_error *err) {
  lth_opivp_opts c;
  lth_opivp_opts_init(&c);
  c.method = o->adams ? LTH_OPIVP_ADAMS : LTH_OPIVP_BDF;
  c.rtol = o->rtol;
  c.atol = o->atol;
  c.cond_max = o->cond_max;
  c.project = o->project;
  c.progress = o->progress;
  c.progress_ctx = o->progress_ctx;
  return lth_opsolve(sys, t0, z0, times, n, &c, o->error_estimate, out, stats, err);
}
