/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-decompose: Clark's decomposition of a data file's DAE on a grid or at
 * given times (docs/format.md section 2; docs/user-guide.md section 2).
 *
 * The grid is streamed: lth_grid_decompose hands each point to one consumer
 * that writes it (JSON, CSV, or the text report's matrices; apps/decompose/)
 * and folds it into running statistics, so memory does not grow with the
 * number of points.  The driver (app_driver.h) does options, loading,
 * times, the output file.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_check.h"
#include "app_driver.h"
#include "dec.h"
#include "lth/decomp.h"
#include "lth/grid.h"
#include "lth/problem.h"
#include "lth/verify.h"

static const char help_text[] =
    "Usage: lth-decompose FILE [OPTIONS]\n"
    "Clark's decomposition of the Hessenberg DAE  E z' = A(t) z + f(t)  in FILE:\n"
    "projectors P, the reduced ODE v' = Ahat v + g for the state part v, and the\n"
    "algebraic part (w, u) = Bhat v + q, at every grid point or at given times.\n"
    "\n"
    "Output:\n"
    "  --fields F1,F2,...  write only these results of every point, in every\n"
    "                      format: cond_pi, P, Ahat, g, Bhat, q, G, cond_chain,\n"
    "                      check (with --check), and on request only the 1-norms\n"
    "                      norm_P, norm_Ahat, norm_g, norm_Bhat, norm_q, norm_G\n"
    "                      (norms: all six); t is always written (default: all\n"
    "                      but the norms).  E.g. --fields cond_pi,norms for a\n"
    "                      large system or a long grid\n"
    "  --order K           also output derivatives of order 1..K of every result\n"
    "                      (JSON key \"derivatives\"; default 0)\n"
    "  --check             verify every point: Clark's Theorem 3 residual, the\n"
    "                      projector identities, Theorem 1's structure, rank G = p\n"
    "  --check-tol X       with --check, fail (exit 3) when a relative residual\n"
    "                      exceeds X (default 1e-8) or rank G differs from p\n"
    "  --sample-tol X      warn when the estimated error of a sampled block's\n"
    "                      derivative exceeds X relative to the data (default 1e-6;\n"
    "                      see below)\n"
    "  --path P            auto (default), dense or operator.  The operator path\n"
    "                      (large sparse systems: nothing s x s is formed) writes\n"
    "                      cond_pi, g, q, cond_chain, norm_g and norm_q; without\n"
    "                      --fields the default is cut to these (a warning says\n"
    "                      so), other fields are refused naming their size.  Auto\n"
    "                      takes it from s = 500 on when A stores at most 50% of\n"
    "                      s^2 entries; sampled data and --check keep auto on the\n"
    "                      dense path and refuse --path operator\n";

static const char help_tail[] =
    "Data file (one statement per line, '#' starts a comment; a sliding mass on\n"
    "a slope, index 3, z = (velocity, position, force)):\n"
    "  blocks 2 2 1               # n_1 ... n_r: here r = 3, s = 5\n"
    "  interval 0 5               # t0 t1\n"
    "  grid 101                   # or grid [0, 0.5, 1, ...]\n"
    "  param g = 9.81\n"
    "  A(1,3) = [1; 2]            # block A_ij (n_i x n_j); expressions may use t\n"
    "  A(2,1) = eye\n"
    "  A(3,2) = [1, 2]\n"
    "  f(1) = [0; -g]\n"
    "  f(3) = -4\n"
    "Blocks not given are zero.  Entries may be expressions in t (sin, exp, ^, ...)\n"
    "or samples(\"file.csv\"); `problem lqr` files give the LQR optimality DAE.\n"
    "See docs/format.md for the data-file format and every output key.\n"
    "\n"
    "Output: P = blockdiag(P_1..P_{r-1}) and Ahat are m x m (m = s - n_r), g has m\n"
    "entries, Bhat and G = [Nhat + Bhat](I - P) are s x m, q has s entries;\n"
    "cond_pi is a 1-norm condition estimate of Pi = A(r,r-1)...A(2,1) A(1,r).\n"
    "JSON: {\"index\", \"blocks\", \"p\", \"points\": [{\"t\", \"cond_pi\", \"P\", \"Ahat\",\n"
    "\"g\", \"Bhat\", \"q\", \"G\", \"cond_chain\", ...}], \"summary\", ...}; matrices are\n"
    "row-major nested arrays, numbers %.17g.  CSV columns: t, cond_pi, P[i,j],\n"
    "Ahat[i,j], g[i], Bhat[i,j], q[i], G[i,j] (1-based, row-major), cond_chain\n"
    "(with --fields: t and the selected ones, in this order, the norms after\n"
    "cond_chain).\n"
    "\n"
    "Sampled data: derivatives of samples(...) blocks are estimated by local\n"
    "polynomial fits; the tool reports, per sampled block and derivative order\n"
    "k = 0..(r - 1 + order), the largest estimated error over the times, and warns\n"
    "when it exceeds --sample-tol times max(largest |k-th derivative|, largest\n"
    "|value|) of that block over the times.\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, time outside the\n"
    "interval), 2 input error (unreadable or malformed file; the message names\n"
    "file:line:column), 3 numerical failure (e.g. singular or ill-conditioned Pi,\n"
    "a result that is not finite; the message names t and the condition estimate).\n";

/* ------------------------------------------------------------------------ */
/* Options and setup                                                        */

static int validate(app_ctx *D, const app_run *run) {
  (void)run;
  int rc = 0;
  D->fields = D->fields_opt ? dec_fields_parse(D->fields_opt, &rc) : DEC_DEFAULT_FIELDS;
  if (rc == 0 && !D->check && D->fields_opt && dec_wants(D, DEC_CHECK)) {
    rc = app_usage_error("--fields check needs --check");
  }
  return rc;
}

/* The fields the operator path writes: nothing s x s or m x m. */
#define DEC_OP_FIELDS                                                                              \
  ((1u << DEC_COND_PI) | (1u << DEC_G_VEC) | (1u << DEC_Q) | (1u << DEC_COND_CHAIN) |              \
   (1u << DEC_NORM_G_VEC) | (1u << DEC_NORM_Q))

/* On the operator path: the fields asked for must be among DEC_OP_FIELDS
 * (a refusal names the first that is not, and its size); without --fields
 * the default is cut to them, and said so. */
static int op_fields(app_ctx *D, const app_run *run) {
  unsigned extra = D->fields & ~DEC_OP_FIELDS;
  if (!extra) {
    return 0;
  }
  if (!D->fields_opt) {
    D->fields &= DEC_OP_FIELDS;
    app_warn("s = %d: the operator path writes t, cond_pi, g, q and cond_chain (P, Ahat, Bhat "
             "and G are %d x %d and larger, never formed); --fields P,... --path dense forms them",
             run->s, run->m, run->m);
    return 0;
  }
  int f = 0;
  while (!((extra >> f) & 1u)) {
    f++;
  }
  int rows = f == DEC_BHAT || f == DEC_G || f == DEC_NORM_BHAT || f == DEC_NORM_G ? run->s : run->m;
  return app_usage_error(
      "--fields %s: at s = %d the operator path forms nothing of size s x s, and %s%s is %d x %d "
      "(%.3g MB per point); it writes cond_pi, g, q, cond_chain, norm_g and norm_q.  --path dense "
      "forms the matrices anyway",
      dec_field_name((dec_field)f), run->s, f >= DEC_NORM_P ? "the norm of " : "",
      f >= DEC_NORM_P ? dec_field_name((dec_field)(f - DEC_NORM_P + DEC_P))
                      : dec_field_name((dec_field)f),
      rows, run->m, 8e-6 * rows * (double)run->m);
}

static int prepare(app_ctx *D, app_run *run) {
  lth_error err;
  lth_error_clear(&err);
  D->print_order = (int)D->order;
  D->decomp_order = D->print_order > 0 || !D->check ? D->print_order : 1;
  int rc = app_path_choose(&D->path, run, D->path_opt,
                           D->check ? "--check (it verifies the s x s results)" : NULL, 0);
  rc = rc == 0 && D->path.op ? op_fields(D, run) : rc;
  if (rc) {
    return rc;
  }
  /* a derivative of a result: s x (m + 1) on the dense path, s on the operator path */
  size_t cols = D->path.op ? 1 : (size_t)(run->m + 1);
  D->scratch = malloc(((size_t)run->s * cols + 1) * sizeof *D->scratch);
  if (!D->scratch) {
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  if (run->opt->format == APP_FMT_TEXT && !(D->text_pts = tmpfile())) {
    return app_failf(APP_EXIT_INPUT, "cannot create a temporary file for the report");
  }
  /* the decomposition differentiates the data to order r - 1 + decomp_order */
  if (app_sampling_init(&D->smp, run->pb, run->r - 1 + D->decomp_order, &err) != LTH_OK ||
      app_outerr_init(&D->oe, run->pb, run->sys, run->opt->cond_max, &err) != LTH_OK) {
    return app_fail(&err);
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Per point: finite, statistics, written                                   */

static int jet_finite(const lth_jet *J, int order) {
  for (int d = 0; d <= order; d++) {
    for (int j = 0; j < J->cols; j++) {
      for (int i = 0; i < J->rows; i++) {
        if (!isfinite(LTH_JET_AT(J, d, i, j))) {
          return 0;
        }
      }
    }
  }
  return 1;
}

/* The contract forbids NaN/Inf in the output: refuse before writing.  Every
 * result is checked, written or not (--fields): a non-finite one means the
 * decomposition failed at t. */
static lth_status point_finite(app_ctx *D, const lth_point *pt, const lth_verify_report *rep) {
  dec_result rr[DEC_NRESULTS];
  dec_point_results(pt, rr);
  lth_error *err = &D->err;
  for (int k = 0; k < DEC_NRESULTS; k++) {
    if (!jet_finite(rr[k].J, D->print_order)) {
      return lth_error_set_t(err, LTH_ENOTFINITE, pt->t, "%s is not finite",
                             dec_field_name(rr[k].field));
    }
  }
  lth_status st = LTH_OK;
  for (int k = 0; k < DEC_NRESULTS; k++) { /* (finite entries may sum past DBL_MAX) */
    dec_field nf = dec_norm_field(rr[k].field);
    if (dec_wants(D, nf)) {
      st = app_check_value(st, err, dec_field_name(nf), pt->t, dec_norm1(rr[k].J));
    }
  }
  st = app_check_value(st, err, "the condition estimate cond_pi", pt->t, pt->cond_pi);
  st = app_check_value(st, err, "the condition estimate cond_chain", pt->t, pt->cond_chain);
  for (size_t k = 0; rep && k < DEC_NCHECK; k++) {
    st = app_check_value(st, err, dec_check_name(k), pt->t, dec_check_value(rep, k));
  }
  return rep ? app_check_value(st, err, "check sv_gap", pt->t, rep->sv_gap) : st;
}

static void stats_add(app_ctx *D, const lth_point *pt, const lth_verify_report *rep) {
  dec_peak_add(&D->cond_pi, pt->cond_pi, pt->t);
  dec_peak_add(&D->cond_chain, pt->cond_chain, pt->t);
  if (!rep) {
    return;
  }
  dec_check_stats *c = &D->chk;
  for (size_t k = 0; k < DEC_NCHECK; k++) {
    dec_peak_add(&c->field[k], dec_check_value(rep, k), pt->t);
  }
  dec_peak_add(&c->sv_gap, rep->sv_gap, pt->t);
  if (rep->rank_G != D->run->p && c->rank_G_bad++ == 0) {
    c->t_rank_G_bad = pt->t;
    c->rank_G_first = rep->rank_G;
  }
  if (!rep->rank_P_ok && c->rank_P_bad++ == 0) {
    c->t_rank_P_bad = pt->t;
  }
}

/* Which points the text report prints: all listed times, else the ends. */
static int text_wants(const app_run *run, size_t k) {
  return run->tm.source == APP_TIMES_LIST || k == 0 || k + 1 == run->tm.n;
}

/* lth_grid_decompose's consumer (its context is the tool's). */
static int consume(void *ctx, size_t k, const lth_point *pt, const lth_verify_report *rep) {
  app_ctx *D = ctx;
  app_run *run = D->run;
  if (point_finite(D, pt, rep) != LTH_OK ||
      app_sampling_update(&D->smp, pt->t, &D->err) != LTH_OK ||
      app_outerr_at(&D->oe, pt->t, &D->err) != LTH_OK) {
    return 1;
  }
  stats_add(D, pt, rep);
  switch (run->opt->format) {
  case APP_FMT_JSON:
    dec_json_point(D, run, pt, rep);
    break;
  case APP_FMT_CSV:
    if (k == 0) {
      dec_csv_header(D, run, pt);
    }
    dec_csv_point(D, run, pt, rep);
    break;
  default:
    if (text_wants(run, k)) {
      dec_text_point(D, run, pt, rep);
    }
  }
  D->done++;
  return 0;
}

/* The operator path's point as an lth_point for the writers: t, the
 * condition figures, g and q (jets of order decomp_order over buf); P,
 * Ahat, Bhat and G empty (0 x 0: op_fields keeps them out of the output). */
static lth_status op_point(app_ctx *D, const lth_oppoint *opt, double *buf, lth_point *pt,
                           lth_error *err) {
  const lth_opinfo *in = lth_oppoint_info(opt);
  const app_run *run = D->run;
  int K = D->decomp_order;
  size_t s = (size_t)run->s;
  memset(pt, 0, sizeof *pt);
  *pt = (lth_point){.t = in->t,
                    .order = K,
                    .cond_pi = in->cond_pi,
                    .cond_chain = in->cond_chain,
                    .pi_sign = in->pi_sign,
                    .pi_inv_norm = in->pi_inv_norm,
                    .chain_norm = in->chain_norm,
                    .cond_interval = in->cond_interval,
                    .amplification = in->amplification,
                    .r = run->r,
                    .s = run->s,
                    .m = run->m,
                    .p = run->p};
  pt->g = lth_jet_wrap(buf, run->m, 1, run->m, s, K);
  pt->q = lth_jet_wrap(buf + s * (size_t)(K + 1), run->s, 1, run->s, s, K);
  pt->g.maxorder = pt->q.maxorder = K;
  lth_jet empty = lth_jet_wrap(buf, 0, 0, 1, 0, K);
  pt->P = pt->Ahat = pt->Bhat = pt->G = pt->Pi = empty;
  lth_status st = lth_oppoint_g(opt, &pt->g, err);
  return st == LTH_OK ? lth_oppoint_q(opt, &pt->q, err) : st;
}

/* The operator path: lth_opdecomp_at at every time, in order, the points
 * through the dense path's consumer. */
static lth_status compute_op(app_ctx *D, app_run *run, lth_error *err) {
  int K = D->decomp_order;
  size_t s = (size_t)run->s;
  lth_opdecomp_ws *ws = lth_opdecomp_ws_alloc(D->path.sys, K, err);
  lth_oppoint *opt = ws ? lth_oppoint_alloc(D->path.sys, K, 1, err) : NULL;
  double *buf = malloc(2 * s * (size_t)(K + 1) * sizeof *buf);
  lth_status st = opt && buf ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK && run->opt->cond_max > 0) {
    lth_opdecomp_ws_set_cond_max(ws, run->opt->cond_max);
  }
  for (size_t k = 0; st == LTH_OK && k < run->tm.n; k++) {
    lth_point pt;
    st = lth_opdecomp_at(ws, run->tm.t[k], opt, err);
    st = st == LTH_OK ? op_point(D, opt, buf, &pt, err) : st;
    if (st == LTH_OK && consume(D, k, &pt, NULL) != 0) {
      *err = D->err;
      st = D->err.status;
    }
    app_progress_update(&run->progress, k + 1, run->tm.n);
  }
  free(buf);
  lth_oppoint_free(opt);
  lth_opdecomp_ws_free(ws);
  return st;
}

/* Decompose at every time, streaming to the consumer. */
static lth_status compute(app_ctx *D, app_run *run, lth_error *err) {
  D->run = run;
  lth_error_clear(&D->err);
  if (D->path.op) {
    if (run->opt->format == APP_FMT_JSON) {
      dec_json_begin(D, run);
    }
    double start = app_seconds();
    lth_status st = compute_op(D, run, err);
    D->elapsed = app_seconds() - start;
    return st;
  }
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.threads = (int)run->opt->threads;
  go.out_order = D->decomp_order;
  go.cond_max = run->opt->cond_max;
  go.verify = D->check;
  go.progress = app_progress_update;
  go.progress_ctx = &run->progress;
  if (run->opt->format == APP_FMT_JSON) {
    dec_json_begin(D, run);
  }
  double start = app_seconds();
  lth_status st = lth_grid_decompose(run->sys, run->tm.t, run->tm.n, &go, consume, D, err);
  D->elapsed = app_seconds() - start;
  if (st == LTH_ECALLBACK && D->err.status != LTH_OK) {
    *err = D->err; /* the consumer's own reason */
    st = D->err.status;
  }
  return st;
}

/* ------------------------------------------------------------------------ */
/* The end of the document, and the verdict of --check                      */

static void write_json(const app_ctx *D, app_run *run) { dec_json_end(D, run); }

static void write_csv(const app_ctx *D, app_run *run) {
  (void)D;
  (void)run; /* every row is written as its point arrives */
}

static void write_text(const app_ctx *D, app_run *run) { dec_text_report(D, run); }

/* Sampled-data warnings (also with --quiet: the results may be wrong), then
 * --check: residuals above --check-tol or a wrong rank fail the run, after
 * the output is written so that it can be inspected. */
static lth_status after(app_ctx *D, const app_run *run, lth_error *err) {
  app_sampling_warn(&D->smp, D->sample_tol);
  const dec_check_stats *c = &D->chk;
  const dec_peak *w = &c->field[DEC_NCHECK - 1];
  if (!D->check || D->done == 0) {
    return LTH_OK;
  }
  if (w->max > D->check_tol) {
    return lth_error_set_t(err, LTH_EVERIFY, w->t_max,
                           "check failed: relative residual %.3e exceeds --check-tol %.3e", w->max,
                           D->check_tol);
  }
  if (c->rank_G_bad > 0) {
    return lth_error_set_t(err, LTH_EVERIFY, c->t_rank_G_bad,
                           "check failed: rank G = %d, expected p = %d (%zu %s)", c->rank_G_first,
                           run->p, c->rank_G_bad,
                           app_plural((double)c->rank_G_bad, "point", "points"));
  }
  if (c->rank_P_bad > 0) {
    return lth_error_set_t(err, LTH_EVERIFY, c->t_rank_P_bad,
                           "check failed: a projector P_i does not have rank n_r (%zu %s)",
                           c->rank_P_bad, app_plural((double)c->rank_P_bad, "point", "points"));
  }
  return LTH_OK;
}

static void cleanup(app_ctx *D) {
  app_path_free(&D->path);
  app_sampling_free(&D->smp);
  app_outerr_free(&D->oe);
  free(D->scratch);
  if (D->text_pts) {
    fclose(D->text_pts);
  }
}

/* The tool's options (with their defaults) and its description for the driver. */
static app_ctx ctx = {.check_tol = 1e-8, .sample_tol = 1e-6};
static app_option opts[] = {
    APP_STRING("fields", &ctx.fields_opt),
    APP_FLAG("check", &ctx.check),
    APP_DOUBLE("check-tol", &ctx.check_tol, 0, 1e300),
    APP_INT("order", &ctx.order, 0, 20),
    APP_DOUBLE("sample-tol", &ctx.sample_tol, 0, 1e300),
    APP_CHOICE("path", &ctx.path_opt, APP_PATH_CHOICES),
};
static const app_tool tool = {
    .name = "lth-decompose",
    .free_inputs_zero = 1,
    .help = help_text,
    .help_tail = help_tail,
    .times = APP_TIMES_MANY,
    .streams = 1,
    .json_wrap = 3,
    .progress_label = "decomposing",
    .progress_unit = "points",
    .opts = opts,
    .nopts = APP_COUNT(opts),
    .validate = validate,
    .prepare = prepare,
    .compute = compute,
    .after = after,
    .write = {write_text, write_csv, write_json},
    .cleanup = cleanup,
};

int main(int argc, char **argv) { return app_main(&tool, &ctx, argc, argv); }
