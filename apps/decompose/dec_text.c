/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-decompose: the text report (dec.h; docs/user-guide.md section 2.1).
 * The matrices of the printed points are collected in a temporary file
 * while the grid streams and follow the summary. */
#include <stdio.h>
#include <string.h>

#include "dec.h"

static void text_structure(FILE *fp, const app_run *run);

static void text_result(FILE *fp, const dec_result *rr, const double *a, int ld,
                        const char *suffix) {
  char name[32];
  snprintf(name, sizeof name, "%s%s", dec_field_name(rr->field), suffix);
  if (rr->vector) {
    app_text_vector(fp, "  ", name, a, (size_t)rr->J->rows);
  } else {
    app_text_matrix(fp, "  ", name, a, rr->J->rows, rr->J->cols, ld);
  }
}

void dec_text_point(app_ctx *R, const app_run *run, const lth_point *pt,
                    const lth_verify_report *rep) {
  FILE *fp = R->text_pts;
  char bt[32];
  dec_result rr[DEC_NRESULTS];
  dec_point_results(pt, rr);
  fprintf(fp, "\nAt t = %s:  cond(Pi) = %.3g,  cond_chain = %.3g\n",
          app_fmt_exact(bt, sizeof bt, pt->t), pt->cond_pi, pt->cond_chain);
  if (R->fields & DEC_NORM_FIELDS) {
    fprintf(fp, "  1-norms:");
    for (int k = 0; k < DEC_NRESULTS; k++) {
      if (dec_wants(R, dec_norm_field(rr[k].field))) {
        fprintf(fp, "  %s %.6g", dec_field_name(rr[k].field), dec_norm1(rr[k].J));
      }
    }
    fprintf(fp, "\n");
  }
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (dec_wants(R, rr[k].field)) {
      text_result(fp, &rr[k], LTH_JET_COEF(rr[k].J, 0), rr[k].J->ld, "");
    }
  }
  for (int d = 1; d <= R->print_order; d++) {
    char suffix[16];
    snprintf(suffix, sizeof suffix, "^(%d)", d);
    fprintf(fp, "  derivatives of order %d:\n", d);
    for (int k = 0; k < DEC_NRESULTS; k++) {
      if (dec_wants(R, rr[k].field)) {
        text_result(fp, &rr[k], dec_derivative(R, rr[k].J, d), rr[k].J->rows, suffix);
      }
    }
  }
  if (rep && dec_wants(R, DEC_CHECK)) {
    fprintf(fp,
            "  check: theorem3 %.1e / %.1e, idempotent %.1e, commute %.1e, structure %.1e, "
            "rank G = %d (p = %d), rank P_i %s\n",
            rep->theorem3_linear, rep->theorem3_affine, rep->idempotent, rep->commute,
            rep->structure, rep->rank_G, run->p, rep->rank_P_ok ? "= n_r" : "WRONG");
  }
}

static const char *times_origin(const app_run *run) {
  switch (run->tm.source) {
  case APP_TIMES_UNIFORM:
    return "uniform, --grid";
  case APP_TIMES_LIST:
    return run->opt->times_opt; /* "--at" or "--times", as given */
  case APP_TIMES_FILE:
  default:
    return "the file's grid";
  }
}

static void text_header(const app_ctx *R, const app_run *run) {
  FILE *fp = run->fp;
  double t0, t1;
  char b0[32], b1[32];
  lth_problem_interval(run->pb, &t0, &t1);
  fprintf(fp, "file           %s\n", run->path);
  if (lth_problem_get_kind(run->pb) == LTH_PROBLEM_LQR) {
    const lth_lqr_spec *lq = lth_problem_lqr(run->pb);
    fprintf(fp, "kind           lqr: LQR optimality DAE (x, lambda, u), nx = %d, nu = %d\n",
            lq ? lq->nx : 0, lq ? lq->nu : 0);
  } else {
    fprintf(fp, "kind           dae: E z' = A(t) z + f(t)\n");
  }
  fprintf(fp, "index          r = %d\n", run->r);
  fprintf(fp, "blocks        ");
  for (int i = 1; i <= run->r; i++) {
    fprintf(fp, " %d", lth_system_block_size(run->sys, i));
  }
  fprintf(fp, "   (s = %d, state dimension m = s - n_r = %d)\n", run->s, run->m);
  fprintf(fp, "manifold       p = %d\n", run->p);
  if (R->path.op) { /* the dense path is the default's report: no line */
    fprintf(fp, "path           operator (%s)\n", R->path.why);
  }
  if (lth_problem_ninputs(run->pb) > 0) { /* g and q are those of F = B u + f */
    fprintf(fp, "inputs        ");
    for (int k = 0; k < lth_problem_ninputs(run->pb); k++) {
      fprintf(fp, " %s%s", lth_problem_input_name(run->pb, k),
              run->free_in && run->free_in[k] ? " (free: 0 in g and q)" : "");
    }
    fprintf(fp, "\n");
  }
  if (run->names.user) {
    text_structure(fp, run);
  }
  fprintf(fp, "interval       [%s, %s]\n", app_fmt_exact(b0, sizeof b0, t0),
          app_fmt_exact(b1, sizeof b1, t1));
  fprintf(fp, "points         %zu (%s)\n", R->done, times_origin(run));
}

/* The equation form: the structure found, in the user's unknowns, and which
 * p of them can be given freely at t0 (lth_problem_describe,
 * lth_problem_free_initial). */
#define APP_FREE_MAX 256

static void text_structure(FILE *fp, const app_run *run) {
  char buf[4096];
  lth_problem_describe(run->pb, buf, sizeof buf);
  const char *line = strchr(buf, '\n'); /* the first line repeats index and p */
  const char *label = "structure     ";
  while (line && line[1]) {
    const char *end = strchr(line + 1, '\n');
    int len = end ? (int)(end - line - 1) : (int)strlen(line + 1);
    fprintf(fp, "%s %.*s\n", label, len, line + 1);
    label = "              ";
    line = end;
  }
  int vars[APP_FREE_MAX];
  lth_error err;
  if (run->p > 0 && run->p <= APP_FREE_MAX &&
      lth_problem_free_initial(run->pb, run->t0, vars, &err) == LTH_OK) {
    fprintf(fp, "free values   ");
    for (int k = 0; k < run->p; k++) {
      fprintf(fp, "%s%s", k ? ", " : " ", lth_problem_var_name(run->pb, vars[k]));
    }
    fprintf(fp, " at t0 (given these, the constraints fix the rest)\n");
  }
}

static void text_peak(FILE *fp, const char *label, const dec_peak *pk) {
  char bt[32];
  fprintf(fp, "%-15s%.3g .. %.3g, largest at t = %s\n", label, pk->min, pk->max,
          app_fmt_exact(bt, sizeof bt, pk->t_max));
}

static void text_check(const app_ctx *R, const app_run *run) {
  FILE *fp = run->fp;
  const dec_check_stats *c = &R->chk;
  const dec_peak *w = &c->field[DEC_NCHECK - 1];
  char bt[32];
  int ok = w->max <= R->check_tol && c->rank_G_bad == 0 && c->rank_P_bad == 0;
  fprintf(fp, "check          %s: worst relative residual %.2e at t = %s (tolerance %.1e)\n",
          ok ? "passed" : "FAILED", w->max, app_fmt_exact(bt, sizeof bt, w->t_max), R->check_tol);
  for (size_t k = 0; k + 1 < DEC_NCHECK; k++) {
    fprintf(fp, "                 %-16s %.2e at t = %s\n", dec_check_name(k), c->field[k].max,
            app_fmt_exact(bt, sizeof bt, c->field[k].t_max));
  }
  fprintf(fp, "                 sv_gap           %.2e at t = %s (sigma_p+1 / sigma_p of G)\n",
          c->sv_gap.max, app_fmt_exact(bt, sizeof bt, c->sv_gap.t_max));
  if (c->rank_G_bad == 0) {
    fprintf(fp, "                 rank G = p = %d at every point\n", run->p);
  } else {
    fprintf(fp, "                 rank G != p = %d at %zu %s (first: rank %d at t = %s)\n", run->p,
            c->rank_G_bad, app_plural((double)c->rank_G_bad, "point", "points"), c->rank_G_first,
            app_fmt_exact(bt, sizeof bt, c->t_rank_G_bad));
  }
  if (c->rank_P_bad > 0) {
    fprintf(fp, "                 rank P_i != n_r at %zu %s (first at t = %s)\n", c->rank_P_bad,
            app_plural((double)c->rank_P_bad, "point", "points"),
            app_fmt_exact(bt, sizeof bt, c->t_rank_P_bad));
  }
}

void dec_text_report(const app_ctx *R, app_run *run) {
  FILE *fp = run->fp;
  double elapsed = R->elapsed;
  text_header(R, run);
  if (R->done > 0) {
    text_peak(fp, "cond(Pi)", &R->cond_pi);
    text_peak(fp, "cond_chain", &R->cond_chain);
  }
  fprintf(fp, "elapsed        %.3g s (%.3g points/s, threads: ", elapsed,
          elapsed > 0 ? (double)R->done / elapsed : 0.0);
  if (R->path.op) { /* one point after the other (compute_op) */
    fprintf(fp, "1, the operator path)\n");
  } else if (run->opt->threads > 0) {
    fprintf(fp, "%ld)\n", run->opt->threads);
  } else {
    fprintf(fp, "all cores)\n");
  }
  if (R->check && R->done > 0) {
    text_check(R, run);
  }
  if (R->smp.n > 0) {
    app_sampling_text(&R->smp, fp);
  }
  app_outerr_text(&R->oe, fp);
  /* the matrices, collected while streaming */
  rewind(R->text_pts);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, R->text_pts)) > 0) {
    fwrite(buf, 1, n, fp);
  }
  if (run->tm.source != APP_TIMES_LIST && run->tm.n > 2) {
    fprintf(fp, "\n(matrices at the first and last point only; use --at T to print others)\n");
  }
}
