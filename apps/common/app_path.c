/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dense or the operator path (app_path.h). */
#include <stdio.h>

#include "app_path.h"
#include "lth/defaults.h"
#include "lth/opivp.h"

const char *app_path_name(const app_path *p) { return p->op ? "operator" : "dense"; }

void app_path_free(app_path *p) {
  lth_opsys_free(p->sys);
  p->sys = NULL;
}

/* What keeps this run off the operator path (NULL: nothing). */
static const char *operator_obstacle(const app_run *run, const char *dense_only, int needs_cvode) {
  if (!lth_system_is_exact(run->sys)) {
    return "sampled data (samples(...) blocks: their derivatives are fitted and checked on the "
           "dense path only)";
  }
  if (dense_only) {
    return dense_only;
  }
  if (needs_cvode && !lth_opivp_available()) {
    return "this build has no SUNDIALS CVODE (the operator path's integrator)";
  }
  return NULL;
}

int app_path_choose(app_path *p, const app_run *run, int opt, const char *dense_only,
                    int needs_cvode) {
  *p = (app_path){0};
  int s = run->s;
  if (opt == APP_PATH_DENSE) {
    snprintf(p->why, sizeof p->why, "--path dense");
    return 0;
  }
  if (opt == APP_PATH_AUTO && s < LTH_DEFAULT_OPERATOR_MIN_SIZE) {
    snprintf(p->why, sizeof p->why, "s = %d < %d", s, LTH_DEFAULT_OPERATOR_MIN_SIZE);
    return 0;
  }
  const char *obstacle = operator_obstacle(run, dense_only, needs_cvode);
  if (obstacle && opt == APP_PATH_OPERATOR) {
    return app_usage_error("--path operator: the operator path does not take %s; use --path "
                           "dense (or auto)",
                           obstacle);
  }
  if (obstacle) {
    app_warn("s = %d would take the operator path, but this run asks for %s: the dense path "
             "(s x s matrices) is used",
             s, obstacle);
    snprintf(p->why, sizeof p->why, "s = %d, but only it takes %.120s", s, obstacle);
    return 0;
  }
  lth_error err;
  lth_error_clear(&err);
  p->sys = lth_opsys_from_system(run->sys, &err);
  if (!p->sys) {
    lth_error_prefix(&err, "building the operator form: ");
    return app_fail(&err);
  }
  p->nnz = lth_opsys_nnz(p->sys);
  p->density = (double)p->nnz / ((double)s * (double)s);
  if (opt == APP_PATH_AUTO && p->density > LTH_DEFAULT_OPERATOR_MAX_DENSITY) {
    snprintf(p->why, sizeof p->why, "s = %d, but A stores %.3g%% of s^2 entries > %g%%", s,
             100 * p->density, 100 * LTH_DEFAULT_OPERATOR_MAX_DENSITY);
    app_path_free(p);
    return 0;
  }
  p->op = 1;
  if (opt == APP_PATH_OPERATOR) {
    snprintf(p->why, sizeof p->why, "--path operator; A stores %zu entries, %.3g%% of s^2", p->nnz,
             100 * p->density);
  } else {
    snprintf(p->why, sizeof p->why, "s = %d >= %d, A stores %zu entries, %.3g%% of s^2", s,
             LTH_DEFAULT_OPERATOR_MIN_SIZE, p->nnz, 100 * p->density);
  }
  return 0;
}
