/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dense or the operator path (include/lth/path.h). */
#include <stdio.h>
#include <string.h>

#include "lth/defaults.h"
#include "lth/opivp.h"
#include "lth/path.h"

const char *lth_path_name(const lth_path_choice *c) { return c->op ? "operator" : "dense"; }

void lth_path_choice_free(lth_path_choice *c) {
  if (c) {
    lth_opsys_free(c->sys);
    c->sys = NULL;
  }
}

/* What keeps this request off the operator path (NULL: nothing). */
static const char *operator_obstacle(const lth_system *sys, const char *dense_only,
                                     unsigned flags) {
  if (!lth_system_is_exact(sys)) {
    return "sampled data (samples(...) blocks: their derivatives are fitted and checked on the "
           "dense path only)";
  }
  if (dense_only) {
    return dense_only;
  }
  if ((flags & LTH_PATH_INTEGRATES) && !lth_opivp_available()) {
    return "this build has no SUNDIALS CVODE (the operator path's integrator)";
  }
  return NULL;
}

lth_status lth_path_choose(const lth_system *sys, lth_path_mode mode, unsigned flags,
                           const char *dense_only, lth_path_choice *out, lth_error *err) {
  memset(out, 0, sizeof *out);
  if (!sys || (mode != LTH_PATH_AUTO && mode != LTH_PATH_DENSE && mode != LTH_PATH_OPERATOR)) {
    return lth_error_set(err, LTH_EINVAL, "lth_path_choose: %s",
                         sys ? "mode is not LTH_PATH_AUTO, _DENSE or _OPERATOR" : "no system");
  }
  int s = lth_system_size(sys);
  if (mode == LTH_PATH_DENSE) {
    return LTH_OK;
  }
  if (mode == LTH_PATH_AUTO && s < LTH_DEFAULT_OPERATOR_MIN_SIZE) {
    snprintf(out->why, sizeof out->why, "s = %d < %d", s, LTH_DEFAULT_OPERATOR_MIN_SIZE);
    return LTH_OK;
  }
  out->obstacle = operator_obstacle(sys, dense_only, flags);
  if (out->obstacle && mode == LTH_PATH_OPERATOR) {
    return lth_error_set(err, LTH_EINVAL, "the operator path does not take %s", out->obstacle);
  }
  if (out->obstacle) {
    snprintf(out->why, sizeof out->why, "s = %d, but only it takes %.120s", s, out->obstacle);
    return LTH_OK;
  }
  out->sys = lth_opsys_from_system(sys, err);
  if (!out->sys) {
    lth_error_prefix(err, "building the operator form: ");
    return err->status != LTH_OK ? err->status : LTH_ENOMEM;
  }
  if ((flags & LTH_PATH_SPARSE_A) && lth_opsys_mass_rows(out->sys) > 0) {
    lth_path_choice_free(out);
    out->obstacle = "a mass matrix that is not diagonal (its block row is M^-1 A(i,j), kept as a "
                    "factorization: the operator path's collocation assembles A's blocks as "
                    "sparse matrices and does not take it yet)";
    if (mode == LTH_PATH_OPERATOR) {
      return lth_error_set(err, LTH_EINVAL, "the operator path does not take %s", out->obstacle);
    }
    snprintf(out->why, sizeof out->why, "s = %d, but only it takes %.150s", s, out->obstacle);
    return LTH_OK;
  }
  out->nnz = lth_opsys_nnz(out->sys);
  out->density = (double)out->nnz / ((double)s * (double)s);
  if (mode == LTH_PATH_AUTO && out->density > LTH_DEFAULT_OPERATOR_MAX_DENSITY) {
    snprintf(out->why, sizeof out->why, "s = %d, but A stores %.3g%% of s^2 entries > %g%%", s,
             100 * out->density, 100 * LTH_DEFAULT_OPERATOR_MAX_DENSITY);
    lth_path_choice_free(out);
    return LTH_OK;
  }
  out->op = 1;
  if (mode == LTH_PATH_OPERATOR) {
    snprintf(out->why, sizeof out->why, "A stores %zu entries, %.3g%% of s^2", out->nnz,
             100 * out->density);
  } else {
    snprintf(out->why, sizeof out->why, "s = %d >= %d, A stores %zu entries, %.3g%% of s^2", s,
             LTH_DEFAULT_OPERATOR_MIN_SIZE, out->nnz, 100 * out->density);
  }
  return LTH_OK;
}
