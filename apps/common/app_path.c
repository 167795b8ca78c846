/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dense or the operator path (app_path.h): the library's choice
 * (lth_path_choose, include/lth/path.h) in the tools' words. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app_path.h"

#include "app.h"
#include "app_text.h"

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

/* Text from column 15 on, wrapped at 79 columns with 15 spaces on the next
 * lines (the reports' layout). */
static void put_wrapped(FILE *fp, const char *text) {
  int col = 15;
  const char *w = text;
  while (*w) {
    const char *e = strchr(w, ' ');
    int len = e ? (int)(e - w) : (int)strlen(w);
    if (col > 15 && col + 1 + len > 79) {
      fprintf(fp, "\n               ");
      col = 15;
    } else if (col > 15) {
      fputc(' ', fp);
      col++;
    }
    fwrite(w, 1, (size_t)len, fp);
    col += len;
    w += len + (e != NULL);
  }
  fputc('\n', fp);
}

void app_text_pi_proof(FILE *fp, const char *points, const char *off, double proven,
                       size_t proofs, double inv_bound, double t0, double t1) {
  char b0[32], b1[32], s[256];
  if (off) {
    snprintf(s, sizeof s,
             "checked at %s only (a sign change of det Pi between two of them is refused); "
             "not proven in between:",
             points);
    fputs("Pi             ", fp);
    put_wrapped(fp, s);
    fprintf(fp, "               %s\n", off);
    return;
  }
  double pct = 100.0 * proven;
  if (proven < 1.0) pct = fmin(pct, 99.99); /* never rounded up to all */
  fprintf(fp, "Pi             proven nonsingular on %.4g%% of [%s, %s] from the data's enclosures\n",
          pct, app_fmt_exact(b0, sizeof b0, t0), app_fmt_exact(b1, sizeof b1, t1));
  if (proven > 0) {
    fprintf(fp, "               (%zu %s examined, ||Pi^-1|| <= %.3g there)%s%s\n", proofs,
            app_plural((double)proofs, "piece", "pieces"), inv_bound,
            proven < 1.0 ? "; the rest sampled and checked at " : "", proven < 1.0 ? points : "");
  }
}
