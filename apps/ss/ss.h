/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-ss's own modules: the tool's context (its options and the realization
 * at every report time), the facts derived from it, and the writers of its
 * three formats (ss_text.c, ss_json.c, ss_mat.c).  apps/lth-ss.c is the
 * tool; every file here is part of it only. */
#ifndef LTH_SS_APP_H
#define LTH_SS_APP_H

#include <stddef.h>

#include "app_driver.h"
#include "app_sampling.h"
#include "lth/ss.h"

/* The options of lth-ss and the realization it computed. */
struct app_ctx {
  /* options */
  int raw;
  double rtol, atol, sample_tol;
  double basis_start; /* NAN: the file's t0 */
  /* the run */
  lth_ss *ss;
  const lth_ss_point *shape; /* the dimensions (p, nb, nd, nk, ...) */
  lth_ss_point **pt;         /* one per report time, in the user's order */
  size_t n;
  int feed_y, feed_z; /* highest j with D_j (Dz_j) not zero to rounding at some time */
  double orth_max, range_max, amp_max;
  long steps, decomps;
  double t_start; /* where the basis started */
  double elapsed;
  app_sampling smp;
};

/* An entry counts as zero when it is within this factor of the rounding
 * bound: |entry| <= SS_ZERO_REL * amplification * max(1, largest |entry| of
 * the maps at that time) (docs/format.md, lth-ss). */
#define SS_ZERO_REL 1e-12

/* Map j of a set of nmaps maps, each rows x cols, stacked (lth_ss_point). */
static inline const double *ss_map(const double *maps, int rows, int cols, int j) {
  return maps + (size_t)rows * (size_t)cols * (size_t)j;
}

/* 1 when map j of the point's D (ny x nu; what = 'y'), Dz (s x nu;
 * what = 'z') or B (p x nu; what = 'b') is zero to rounding (SS_ZERO_REL). */
int ss_map_negligible(const lth_ss_point *pt, char what, int j);

/* "u1", "u1'", "u1''", "u1'''", "u1^(4)": the name of input k's j-th derivative. */
const char *ss_input_name(const app_run *run, int k, int j, char *buf, size_t size);

void ss_write_text(const app_ctx *c, app_run *run);
void ss_write_json(const app_ctx *c, app_run *run);
/* The .mat file into run->fp; failures in run->write_err. */
void ss_write_mat(const app_ctx *c, app_run *run);
/* 1 when this build has libmatio (--format mat works). */
int ss_have_mat(void);

#endif
