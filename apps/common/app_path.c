/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dense or the operator path (app_path.h): the library's choice
 * (lth_path_choose, include/lth/path.h) in the tools' words. */
#include <stdio.h>

#include "app_path.h"

const char *app_path_name(const app_path *p) { return p->op ? "operator" : "dense"; }

void app_path_free(app_path *p) {
  lth_opsys_free(p->sys);
  p->sys = NULL;
}

int app_path_choose(app_path *p, const app_run *run, int opt, const char *dense_only,
                    unsigned flags) {
  *p = (app_path){0};
  lth_path_mode mode = opt == APP_PATH_DENSE      ? LTH_PATH_DENSE
                       : opt == APP_PATH_OPERATOR ? LTH_PATH_OPERATOR
                                                  : LTH_PATH_AUTO;
  lth_path_choice c;
  lth_error err;
  lth_error_clear(&err);
  lth_status st =
      lth_path_choose(run->sys, mode, flags, dense_only, &c, &err);
  if (st != LTH_OK && c.obstacle && mode == LTH_PATH_OPERATOR) {
    return app_usage_error("--path operator: the operator path does not take %s; use --path "
                           "dense (or auto)",
                           c.obstacle);
  }
  if (st != LTH_OK) {
    lth_path_choice_free(&c);
    return app_fail(&err);
  }
  if (c.obstacle) {
    app_warn("s = %d would take the operator path, but this run asks for %s: the dense path "
             "(s x s matrices) is used",
             run->s, c.obstacle);
  }
  p->op = c.op;
  p->sys = c.sys;
  p->nnz = c.nnz;
  p->density = c.density;
  if (mode == LTH_PATH_DENSE) {
    snprintf(p->why, sizeof p->why, "--path dense");
  } else if (mode == LTH_PATH_OPERATOR) {
    snprintf(p->why, sizeof p->why, "--path operator; %s", c.why);
  } else {
    snprintf(p->why, sizeof p->why, "%s", c.why);
  }
  return 0;
}
