/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-decompose: Clark's decomposition of a data file's DAE on a grid or at
 * given times (docs/format.md section 2; docs/user-guide.md).
 *
 * The grid is streamed: lth_grid_decompose hands each point to one consumer
 * that writes it (JSON, CSV, or the text report's matrices) and folds it into
 * running statistics, so memory does not grow with the number of points.
 */
#define _POSIX_C_SOURCE 200809L

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
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
    "Times (default: the file's `grid`, else 101 uniform points):\n"
    "  --at T1,T2,...      these times (each in the file's interval [t0, t1])\n"
    "  --grid N            N >= 2 uniform points from t0 to t1\n"
    "\n"
    "Output:\n"
    "  --format FMT        text (default: a report), csv (one row per time) or json\n"
    "  -o, --output FILE   write to FILE instead of standard output (a run that\n"
    "                      fails before its output is complete leaves FILE alone)\n"
    "  --order K           also output derivatives of order 1..K of every result\n"
    "                      (JSON key \"derivatives\"; default 0)\n"
    "  --check             verify every point: Clark's Theorem 3 residual, the\n"
    "                      projector identities, Theorem 1's structure, rank G = p\n"
    "  --check-tol X       with --check, fail (exit 3) when a relative residual\n"
    "                      exceeds X (default 1e-8) or rank G differs from p\n"
    "  -q, --quiet         no progress line on stderr (warnings still appear)\n"
    "\n"
    "Numerics:\n"
    "  --cond-max X        fail (exit 3) where the chain condition\n"
    "                      ||Pi^-1|| max||L_i|| max||R_j|| exceeds X (default 1e12)\n"
    "  --threads N         worker threads (0 = all cores, the default); results\n"
    "                      do not depend on N\n"
    "  --sample-tol X      warn when the estimated error of a sampled block's\n"
    "                      derivative exceeds X relative to the data (default 1e-6;\n"
    "                      see below)\n"
    "\n"
    "  -h, --help          this text\n"
    "  --version           version and license\n"
    "\n"
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
    "See docs/user-guide.md for the full format.\n"
    "\n"
    "Output: P = blockdiag(P_1..P_{r-1}) and Ahat are m x m (m = s - n_r), g has m\n"
    "entries, Bhat and G = [Nhat + Bhat](I - P) are s x m, q has s entries;\n"
    "cond_pi is a 1-norm condition estimate of Pi = A(r,r-1)...A(2,1) A(1,r).\n"
    "JSON: {\"index\", \"blocks\", \"p\", \"points\": [{\"t\", \"cond_pi\", \"P\", \"Ahat\",\n"
    "\"g\", \"Bhat\", \"q\", \"G\", \"cond_chain\", ...}], \"summary\", ...}; matrices are\n"
    "row-major nested arrays, numbers %.17g.  CSV columns: t, cond_pi, P[i,j],\n"
    "Ahat[i,j], g[i], Bhat[i,j], q[i], G[i,j] (1-based, row-major), cond_chain.\n"
    "\n"
    "Sampled data: derivatives of samples(...) blocks are estimated by local\n"
    "polynomial fits; the tool reports, per sampled block and derivative order\n"
    "k = 0..(r - 1 + order), the largest estimated error over the times, and warns\n"
    "when it exceeds --sample-tol times max(largest |k-th derivative|, largest\n"
    "|value|) of that block over the times.\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, time outside the\n"
    "interval), 2 input error (unreadable or malformed file; the message names\n"
    "file:line:column), 3 numerical failure (e.g. singular or ill-conditioned Pi;\n"
    "the message names t and the condition estimate).\n";

enum { FMT_TEXT = 0, FMT_CSV = 1, FMT_JSON = 2 };

/* Command line. */
typedef struct dec_cli {
  app_list at;
  long grid_n;
  int format;
  const char *out_path;
  int check;
  double check_tol;
  double cond_max;
  long threads;
  long order;
  int quiet;
  double sample_tol;
} dec_cli;

/* Largest value seen and where. */
typedef struct peak {
  double min, max, t_max;
  int set;
} peak;

static void peak_add(peak *pk, double x, double t) {
  if (!pk->set || x < pk->min) {
    pk->min = x;
  }
  if (!pk->set || x > pk->max) {
    pk->max = x;
    pk->t_max = t;
  }
  pk->set = 1;
}

/* The relative residuals of lth_verify_report, by name. */
typedef struct check_field {
  const char *name;
  size_t offset;
} check_field;

static const check_field check_fields[] = {
    {"theorem3_linear", offsetof(lth_verify_report, theorem3_linear)},
    {"theorem3_affine", offsetof(lth_verify_report, theorem3_affine)},
    {"idempotent", offsetof(lth_verify_report, idempotent)},
    {"commute", offsetof(lth_verify_report, commute)},
    {"structure", offsetof(lth_verify_report, structure)},
    {"worst", offsetof(lth_verify_report, worst)},
};
#define NCHECK (sizeof check_fields / sizeof check_fields[0])

static double check_value(const lth_verify_report *rep, size_t k) {
  return *(const double *)((const char *)rep + check_fields[k].offset);
}

typedef struct check_stats {
  peak field[NCHECK];
  peak sv_gap;
  size_t rank_G_bad, rank_P_bad;
  double t_rank_G_bad, t_rank_P_bad;
  int rank_G_first; /* rank G at the first bad point */
} check_stats;

/* Everything a run needs; the consumer sees it as its context. */
typedef struct dec_run {
  const dec_cli *cli;
  const char *path;
  const lth_problem *pb;
  const lth_system *sys;
  int r, s, m, p;
  int decomp_order; /* order of the decomposition's result jets */
  int print_order;  /* derivatives printed (--order) */
  app_times tm;
  FILE *fp;         /* the output */
  app_json json;
  app_csv csv;
  FILE *text_pts;   /* text: the matrices, printed after the summary */
  double *scratch;  /* s * (m + 1): a derivative of a result */
  peak cond_pi, cond_chain;
  check_stats chk;
  app_sampling smp;
  size_t done;
  lth_error err;    /* why the consumer stopped */
} dec_run;

/* ------------------------------------------------------------------------ */
/* Command line                                                             */

static int parse_cli(int argc, char **argv, dec_cli *cli, const char **path) {
  memset(cli, 0, sizeof *cli);
  cli->check_tol = 1e-8;
  cli->cond_max = LTH_DEFAULT_COND_MAX;
  cli->sample_tol = 1e-6;
  app_option opts[] = {
      {"at", 0, APP_OPT_LIST, &cli->at, NULL, 0, 0, 0},
      {"grid", 0, APP_OPT_INT, &cli->grid_n, NULL, 2, 1e8, 0},
      {"format", 0, APP_OPT_CHOICE, &cli->format, "text|csv|json", 0, 0, 0},
      {"output", 'o', APP_OPT_STRING, &cli->out_path, NULL, 0, 0, 0},
      {"check", 0, APP_OPT_FLAG, &cli->check, NULL, 0, 0, 0},
      {"check-tol", 0, APP_OPT_DOUBLE, &cli->check_tol, NULL, 0, 1e300, 0},
      {"cond-max", 0, APP_OPT_DOUBLE, &cli->cond_max, NULL, 1, 1e300, 0},
      {"threads", 0, APP_OPT_INT, &cli->threads, NULL, 0, 4096, 0},
      {"order", 0, APP_OPT_INT, &cli->order, NULL, 0, 20, 0},
      {"quiet", 'q', APP_OPT_FLAG, &cli->quiet, NULL, 0, 0, 0},
      {"sample-tol", 0, APP_OPT_DOUBLE, &cli->sample_tol, NULL, 0, 1e300, 0},
  };
  app_spec spec = {help_text, opts, sizeof opts / sizeof opts[0], 1, 1};
  const char *args[1];
  int nargs;
  int rc = app_parse(&spec, argc, argv, args, &nargs);
  if (rc != APP_CONTINUE) {
    return rc;
  }
  if (opts[0].given && opts[1].given) {
    return app_usage_error("--at and --grid exclude each other");
  }
  *path = args[0];
  return APP_CONTINUE;
}

/* ------------------------------------------------------------------------ */
/* Per-point checks and statistics                                          */

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

/* The six results of a point, in output order. */
typedef struct result_ref {
  const char *name;
  const lth_jet *J;
  int vector;
} result_ref;

static void point_results(const lth_point *pt, result_ref out[6]) {
  out[0] = (result_ref){"P", &pt->P, 0};
  out[1] = (result_ref){"Ahat", &pt->Ahat, 0};
  out[2] = (result_ref){"g", &pt->g, 1};
  out[3] = (result_ref){"Bhat", &pt->Bhat, 0};
  out[4] = (result_ref){"q", &pt->q, 1};
  out[5] = (result_ref){"G", &pt->G, 0};
}

/* The contract forbids NaN/Inf in the output: refuse before writing. */
static lth_status point_finite(dec_run *R, const lth_point *pt, const lth_verify_report *rep) {
  result_ref rr[6];
  point_results(pt, rr);
  for (int k = 0; k < 6; k++) {
    if (!jet_finite(rr[k].J, R->print_order)) {
      return lth_error_set_t(&R->err, LTH_ENOTFINITE, pt->t, "%s is not finite", rr[k].name);
    }
  }
  if (!isfinite(pt->cond_pi) || !isfinite(pt->cond_chain)) {
    return lth_error_set_t(&R->err, LTH_ENOTFINITE, pt->t, "the condition estimate is not finite");
  }
  for (size_t k = 0; rep && k < NCHECK; k++) {
    if (!isfinite(check_value(rep, k))) {
      return lth_error_set_t(&R->err, LTH_ENOTFINITE, pt->t, "check residual %s is not finite",
                             check_fields[k].name);
    }
  }
  if (rep && !isfinite(rep->sv_gap)) {
    return lth_error_set_t(&R->err, LTH_ENOTFINITE, pt->t, "check sv_gap is not finite");
  }
  return LTH_OK;
}

static void stats_add(dec_run *R, const lth_point *pt, const lth_verify_report *rep) {
  peak_add(&R->cond_pi, pt->cond_pi, pt->t);
  peak_add(&R->cond_chain, pt->cond_chain, pt->t);
  if (!rep) {
    return;
  }
  check_stats *c = &R->chk;
  for (size_t k = 0; k < NCHECK; k++) {
    peak_add(&c->field[k], check_value(rep, k), pt->t);
  }
  peak_add(&c->sv_gap, rep->sv_gap, pt->t);
  if (rep->rank_G != R->p && c->rank_G_bad++ == 0) {
    c->t_rank_G_bad = pt->t;
    c->rank_G_first = rep->rank_G;
  }
  if (!rep->rank_P_ok && c->rank_P_bad++ == 0) {
    c->t_rank_P_bad = pt->t;
  }
}

/* Derivative d of a result into R->scratch (column-major, ld = rows):
 * d! times Taylor coefficient d. */
static const double *derivative(dec_run *R, const lth_jet *J, int d) {
  double fact = 1.0;
  for (int k = 2; k <= d; k++) {
    fact *= k;
  }
  for (int j = 0; j < J->cols; j++) {
    for (int i = 0; i < J->rows; i++) {
      R->scratch[i + (size_t)j * (size_t)J->rows] = fact * LTH_JET_AT(J, d, i, j);
    }
  }
  return R->scratch;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

static void json_begin(dec_run *R) {
  app_json *j = &R->json;
  app_json_init(j, R->fp, 3);
  app_json_begin_object(j);
  app_json_key(j, "index");
  app_json_int(j, R->r);
  app_json_key(j, "blocks");
  app_json_begin_array(j);
  for (int i = 1; i <= R->r; i++) {
    app_json_int(j, lth_system_block_size(R->sys, i));
  }
  app_json_end_array(j);
  app_json_key(j, "p");
  app_json_int(j, R->p);
  app_json_key(j, "kind");
  app_json_string(j, app_problem_kind_name(R->pb));
  app_json_key(j, "s");
  app_json_int(j, R->s);
  app_json_key(j, "points");
  app_json_begin_array(j);
}

static void json_value(app_json *j, const result_ref *rr, const double *a, int ld) {
  if (rr->vector) {
    app_json_vector(j, a, (size_t)rr->J->rows, 1);
  } else {
    app_json_matrix(j, a, rr->J->rows, rr->J->cols, ld);
  }
}

static void json_derivatives(dec_run *R, const result_ref rr[6]) {
  app_json *j = &R->json;
  app_json_key(j, "derivatives");
  app_json_begin_object(j);
  for (int k = 0; k < 6; k++) {
    app_json_key(j, rr[k].name);
    app_json_begin_array(j);
    for (int d = 1; d <= R->print_order; d++) {
      json_value(j, &rr[k], derivative(R, rr[k].J, d), rr[k].J->rows);
    }
    app_json_end_array(j);
  }
  app_json_end_object(j);
}

static void json_check(app_json *j, const lth_verify_report *rep) {
  app_json_key(j, "check");
  app_json_begin_object(j);
  for (size_t k = 0; k < NCHECK; k++) {
    app_json_key(j, check_fields[k].name);
    app_json_number(j, check_value(rep, k));
  }
  app_json_key(j, "rank_P_ok");
  app_json_bool(j, rep->rank_P_ok);
  app_json_key(j, "rank_G");
  app_json_int(j, rep->rank_G);
  app_json_key(j, "sv_gap");
  app_json_number(j, rep->sv_gap);
  app_json_end_object(j);
}

static void json_point(dec_run *R, const lth_point *pt, const lth_verify_report *rep) {
  app_json *j = &R->json;
  result_ref rr[6];
  point_results(pt, rr);
  app_json_begin_object(j);
  app_json_key(j, "t");
  app_json_number(j, pt->t);
  app_json_key(j, "cond_pi");
  app_json_number(j, pt->cond_pi);
  for (int k = 0; k < 6; k++) {
    app_json_key(j, rr[k].name);
    json_value(j, &rr[k], LTH_JET_COEF(rr[k].J, 0), rr[k].J->ld);
  }
  app_json_key(j, "cond_chain");
  app_json_number(j, pt->cond_chain);
  if (R->print_order > 0) {
    json_derivatives(R, rr);
  }
  if (rep) {
    json_check(j, rep);
  }
  app_json_end_object(j);
}

static void json_peak(app_json *j, const char *key, const char *tkey, const peak *pk) {
  app_json_key(j, key);
  app_json_number(j, pk->max);
  app_json_key(j, tkey);
  app_json_number(j, pk->t_max);
}

static void json_end(dec_run *R) {
  app_json *j = &R->json;
  app_json_end_array(j); /* points */
  if (R->smp.n > 0) {
    app_json_key(&R->json, "sampling");
    app_sampling_json(&R->smp, &R->json);
  }
  app_json_key(j, "summary");
  app_json_begin_object(j);
  app_json_key(j, "n_points");
  app_json_int(j, (long long)R->done);
  if (R->done > 0) {
    json_peak(j, "cond_pi_max", "t_cond_pi_max", &R->cond_pi);
    json_peak(j, "cond_chain_max", "t_cond_chain_max", &R->cond_chain);
  }
  if (R->cli->check && R->done > 0) {
    size_t w = NCHECK - 1; /* "worst" */
    json_peak(j, "check_worst", "t_check_worst", &R->chk.field[w]);
    app_json_key(j, "rank_G_mismatches");
    app_json_int(j, (long long)R->chk.rank_G_bad);
  }
  app_json_end_object(j);
  app_json_end_object(j);
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                      */

static void csv_names_of(app_csv *c, const char *name, const lth_jet *J, int vector) {
  app_csv_matrix_names(c, name, J->rows, J->cols, vector);
}

static void csv_header(dec_run *R, const lth_point *pt) {
  app_csv *c = &R->csv;
  result_ref rr[6];
  point_results(pt, rr);
  app_csv_name(c, "t");
  app_csv_name(c, "cond_pi");
  for (int k = 0; k < 6; k++) {
    csv_names_of(c, rr[k].name, rr[k].J, rr[k].vector);
  }
  app_csv_name(c, "cond_chain");
  for (int d = 1; d <= R->print_order; d++) {
    for (int k = 0; k < 6; k++) {
      char name[32];
      snprintf(name, sizeof name, "%s^(%d)", rr[k].name, d);
      csv_names_of(c, name, rr[k].J, rr[k].vector);
    }
  }
  if (R->cli->check) {
    for (size_t k = 0; k < NCHECK; k++) {
      app_csv_name(c, "check_%s", check_fields[k].name);
    }
    app_csv_name(c, "check_rank_P_ok");
    app_csv_name(c, "check_rank_G");
    app_csv_name(c, "check_sv_gap");
  }
  app_csv_end_row(c);
}

static void csv_point(dec_run *R, const lth_point *pt, const lth_verify_report *rep) {
  app_csv *c = &R->csv;
  result_ref rr[6];
  point_results(pt, rr);
  app_csv_number(c, pt->t);
  app_csv_number(c, pt->cond_pi);
  for (int k = 0; k < 6; k++) {
    app_csv_matrix(c, LTH_JET_COEF(rr[k].J, 0), rr[k].J->rows, rr[k].J->cols, rr[k].J->ld);
  }
  app_csv_number(c, pt->cond_chain);
  for (int d = 1; d <= R->print_order; d++) {
    for (int k = 0; k < 6; k++) {
      app_csv_matrix(c, derivative(R, rr[k].J, d), rr[k].J->rows, rr[k].J->cols, rr[k].J->rows);
    }
  }
  if (rep) {
    for (size_t k = 0; k < NCHECK; k++) {
      app_csv_number(c, check_value(rep, k));
    }
    app_csv_int(c, rep->rank_P_ok);
    app_csv_int(c, rep->rank_G);
    app_csv_number(c, rep->sv_gap);
  }
  app_csv_end_row(c);
}

/* ------------------------------------------------------------------------ */
/* Text                                                                     */

static void text_result(FILE *fp, const result_ref *rr, const double *a, int ld,
                        const char *suffix) {
  char name[32];
  snprintf(name, sizeof name, "%s%s", rr->name, suffix);
  if (rr->vector) {
    app_text_vector(fp, "  ", name, a, (size_t)rr->J->rows);
  } else {
    app_text_matrix(fp, "  ", name, a, rr->J->rows, rr->J->cols, ld);
  }
}

static void text_point(dec_run *R, const lth_point *pt, const lth_verify_report *rep) {
  FILE *fp = R->text_pts;
  char bt[32];
  result_ref rr[6];
  point_results(pt, rr);
  fprintf(fp, "\nAt t = %s:  cond(Pi) = %.3g,  cond_chain = %.3g\n",
          app_fmt_exact(bt, sizeof bt, pt->t), pt->cond_pi, pt->cond_chain);
  for (int k = 0; k < 6; k++) {
    text_result(fp, &rr[k], LTH_JET_COEF(rr[k].J, 0), rr[k].J->ld, "");
  }
  for (int d = 1; d <= R->print_order; d++) {
    char suffix[16];
    snprintf(suffix, sizeof suffix, "^(%d)", d);
    fprintf(fp, "  derivatives of order %d:\n", d);
    for (int k = 0; k < 6; k++) {
      text_result(fp, &rr[k], derivative(R, rr[k].J, d), rr[k].J->rows, suffix);
    }
  }
  if (rep) {
    fprintf(fp, "  check: theorem3 %.1e / %.1e, idempotent %.1e, commute %.1e, structure %.1e, "
                "rank G = %d (p = %d), rank P_i %s\n",
            rep->theorem3_linear, rep->theorem3_affine, rep->idempotent, rep->commute,
            rep->structure, rep->rank_G, R->p, rep->rank_P_ok ? "= n_r" : "WRONG");
  }
}

/* Which points the text report prints: all --at times, else the ends. */
static int text_wants(const dec_run *R, size_t k) {
  return R->tm.source == APP_TIMES_LIST || k == 0 || k + 1 == R->tm.n;
}

static const char *times_origin(const dec_run *R) {
  switch (R->tm.source) {
  case APP_TIMES_UNIFORM:
    return "uniform, --grid";
  case APP_TIMES_LIST:
    return "--at";
  case APP_TIMES_FILE:
  default:
    return "the file's grid";
  }
}

static void text_header(dec_run *R) {
  FILE *fp = R->fp;
  double t0, t1;
  char b0[32], b1[32];
  lth_problem_interval(R->pb, &t0, &t1);
  fprintf(fp, "file           %s\n", R->path);
  if (lth_problem_get_kind(R->pb) == LTH_PROBLEM_LQR) {
    const lth_lqr_spec *lq = lth_problem_lqr(R->pb);
    fprintf(fp, "kind           lqr: LQR optimality DAE (x, lambda, u), nx = %d, nu = %d\n",
            lq ? lq->nx : 0, lq ? lq->nu : 0);
  } else {
    fprintf(fp, "kind           dae: E z' = A(t) z + f(t)\n");
  }
  fprintf(fp, "index          r = %d\n", R->r);
  fprintf(fp, "blocks        ");
  for (int i = 1; i <= R->r; i++) {
    fprintf(fp, " %d", lth_system_block_size(R->sys, i));
  }
  fprintf(fp, "   (s = %d, state dimension m = s - n_r = %d)\n", R->s, R->m);
  fprintf(fp, "manifold       p = %d\n", R->p);
  fprintf(fp, "interval       [%s, %s]\n", app_fmt_exact(b0, sizeof b0, t0),
          app_fmt_exact(b1, sizeof b1, t1));
  fprintf(fp, "points         %zu (%s)\n", R->done, times_origin(R));
}

static void text_peak(FILE *fp, const char *label, const peak *pk) {
  char bt[32];
  fprintf(fp, "%-15s%.3g .. %.3g, largest at t = %s\n", label, pk->min, pk->max,
          app_fmt_exact(bt, sizeof bt, pk->t_max));
}

static void text_check(dec_run *R) {
  FILE *fp = R->fp;
  const check_stats *c = &R->chk;
  const peak *w = &c->field[NCHECK - 1];
  char bt[32];
  int ok = w->max <= R->cli->check_tol && c->rank_G_bad == 0 && c->rank_P_bad == 0;
  fprintf(fp, "check          %s: worst relative residual %.2e at t = %s (tolerance %.1e)\n",
          ok ? "passed" : "FAILED", w->max, app_fmt_exact(bt, sizeof bt, w->t_max),
          R->cli->check_tol);
  for (size_t k = 0; k + 1 < NCHECK; k++) {
    fprintf(fp, "                 %-16s %.2e at t = %s\n", check_fields[k].name,
            c->field[k].max, app_fmt_exact(bt, sizeof bt, c->field[k].t_max));
  }
  fprintf(fp, "                 sv_gap           %.2e at t = %s (sigma_p+1 / sigma_p of G)\n",
          c->sv_gap.max, app_fmt_exact(bt, sizeof bt, c->sv_gap.t_max));
  if (c->rank_G_bad == 0) {
    fprintf(fp, "                 rank G = p = %d at every point\n", R->p);
  } else {
    fprintf(fp, "                 rank G != p = %d at %zu points (first: rank %d at t = %s)\n",
            R->p, c->rank_G_bad, c->rank_G_first,
            app_fmt_exact(bt, sizeof bt, c->t_rank_G_bad));
  }
  if (c->rank_P_bad > 0) {
    fprintf(fp, "                 rank P_i != n_r at %zu points (first at t = %s)\n",
            c->rank_P_bad, app_fmt_exact(bt, sizeof bt, c->t_rank_P_bad));
  }
}

static void text_report(dec_run *R, double elapsed) {
  FILE *fp = R->fp;
  text_header(R);
  if (R->done > 0) {
    text_peak(fp, "cond(Pi)", &R->cond_pi);
    text_peak(fp, "cond_chain", &R->cond_chain);
  }
  fprintf(fp, "elapsed        %.3g s (%.3g points/s, threads: ", elapsed,
          elapsed > 0 ? (double)R->done / elapsed : 0.0);
  if (R->cli->threads > 0) {
    fprintf(fp, "%ld)\n", R->cli->threads);
  } else {
    fprintf(fp, "all cores)\n");
  }
  if (R->cli->check && R->done > 0) {
    text_check(R);
  }
  if (R->smp.n > 0) {
    app_sampling_text(&R->smp, fp);
  }
  /* the matrices, collected while streaming */
  rewind(R->text_pts);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, R->text_pts)) > 0) {
    fwrite(buf, 1, n, fp);
  }
  if (R->tm.source != APP_TIMES_LIST && R->tm.n > 2) {
    fprintf(fp, "\n(matrices at the first and last point only; use --at T to print others)\n");
  }
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

static int consume(void *ctx, size_t k, const lth_point *pt, const lth_verify_report *rep) {
  dec_run *R = ctx;
  if (point_finite(R, pt, rep) != LTH_OK || app_sampling_update(&R->smp, pt->t, &R->err) != LTH_OK) {
    return 1;
  }
  stats_add(R, pt, rep);
  switch (R->cli->format) {
  case FMT_JSON:
    json_point(R, pt, rep);
    break;
  case FMT_CSV:
    if (k == 0) {
      csv_header(R, pt);
    }
    csv_point(R, pt, rep);
    break;
  default:
    if (text_wants(R, k)) {
      text_point(R, pt, rep);
    }
  }
  R->done++;
  return 0;
}

static void run_free(dec_run *R) {
  app_sampling_free(&R->smp);
  app_times_free(&R->tm);
  free(R->scratch);
  if (R->text_pts) {
    fclose(R->text_pts);
  }
}

static lth_status run_setup(dec_run *R, lth_error *err) {
  R->sys = lth_problem_system(R->pb);
  R->r = lth_system_index(R->sys);
  R->s = lth_system_size(R->sys);
  R->m = lth_system_state_dim(R->sys);
  R->p = lth_system_manifold_dim(R->sys);
  R->print_order = (int)R->cli->order;
  R->decomp_order = R->print_order > 0 || !R->cli->check ? R->print_order : 1;
  R->scratch = malloc(((size_t)R->s * (size_t)(R->m + 1) + 1) * sizeof *R->scratch);
  if (!R->scratch) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (R->cli->format == FMT_TEXT && !(R->text_pts = tmpfile())) {
    return lth_error_set(err, LTH_EIO, "cannot create a temporary file for the report");
  }
  /* the decomposition differentiates the data to order r - 1 + decomp_order */
  return app_sampling_init(&R->smp, R->pb, R->r - 1 + R->decomp_order, err);
}

/* Decompose at every time, streaming to the consumer. */
static lth_status run_grid(dec_run *R, double *elapsed, lth_error *err) {
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.threads = (int)R->cli->threads;
  go.out_order = R->decomp_order;
  go.cond_max = R->cli->cond_max;
  go.verify = R->cli->check;
  /* JSON or CSV streaming to the terminal would mix with the progress line */
  int quiet = R->cli->quiet ||
              (R->cli->format != FMT_TEXT && !R->cli->out_path && isatty(STDOUT_FILENO));
  app_progress prog;
  app_progress_init(&prog, "decomposing", "points", quiet);
  go.progress = app_progress_update;
  go.progress_ctx = &prog;
  if (R->cli->format == FMT_JSON) {
    json_begin(R);
  } else if (R->cli->format == FMT_CSV) {
    app_csv_init(&R->csv, R->fp);
  }
  double start = app_seconds();
  lth_status st = lth_grid_decompose(R->sys, R->tm.t, R->tm.n, &go, consume, R, err);
  *elapsed = app_seconds() - start;
  app_progress_end(&prog);
  if (st == LTH_ECALLBACK && R->err.status != LTH_OK) {
    *err = R->err; /* the consumer's own reason */
    st = R->err.status;
  }
  return st;
}

/* Close the document and judge what was written. */
static lth_status run_finish(dec_run *R, double elapsed, lth_error *err) {
  int bad = 0;
  if (R->cli->format == FMT_JSON) {
    json_end(R);
    bad = app_json_finish(&R->json) != 0;
    if (app_json_nonfinite(&R->json) > 0) {
      return lth_error_set(err, LTH_ENOTFINITE, "non-finite number in the output (key \"%s\")",
                           R->json.bad_key);
    }
  } else if (R->cli->format == FMT_CSV) {
    bad = app_csv_finish(&R->csv) != 0;
    if (R->csv.nonfinite > 0) {
      return lth_error_set(err, LTH_ENOTFINITE, "non-finite number in the CSV output");
    }
  } else {
    text_report(R, elapsed);
  }
  if (bad || ferror(R->fp)) {
    return lth_error_set(err, LTH_EIO, "error writing the output");
  }
  return LTH_OK;
}

/* --check judges: residuals above --check-tol or a wrong rank fail the run. */
static lth_status judge_check(const dec_run *R, lth_error *err) {
  const check_stats *c = &R->chk;
  const peak *w = &c->field[NCHECK - 1];
  if (!R->cli->check || R->done == 0) {
    return LTH_OK;
  }
  if (w->max > R->cli->check_tol) {
    return lth_error_set_t(err, LTH_EVERIFY, w->t_max,
                           "check failed: relative residual %.3e exceeds --check-tol %.3e",
                           w->max, R->cli->check_tol);
  }
  if (c->rank_G_bad > 0) {
    return lth_error_set_t(err, LTH_EVERIFY, c->t_rank_G_bad,
                           "check failed: rank G = %d, expected p = %d (%zu points)",
                           c->rank_G_first, R->p, c->rank_G_bad);
  }
  if (c->rank_P_bad > 0) {
    return lth_error_set_t(err, LTH_EVERIFY, c->t_rank_P_bad,
                           "check failed: a projector P_i does not have rank n_r (%zu points)",
                           c->rank_P_bad);
  }
  return LTH_OK;
}

static int run(const dec_cli *cli, const char *path, const lth_problem *pb) {
  dec_run R;
  memset(&R, 0, sizeof R);
  R.cli = cli;
  R.path = path;
  R.pb = pb;
  lth_error err;
  lth_error_clear(&err);
  int rc = app_times_select(&R.tm, pb, &cli->at, "--at", cli->grid_n);
  if (rc != 0) {
    return rc;
  }
  app_out out;
  lth_status st = run_setup(&R, &err);
  if (st == LTH_OK) {
    st = app_out_open(&out, cli->out_path, &err);
  }
  if (st != LTH_OK) {
    run_free(&R);
    return app_fail(&err);
  }
  R.fp = out.fp;
  double elapsed = 0.0;
  st = run_grid(&R, &elapsed, &err);
  if (st == LTH_OK) {
    st = run_finish(&R, elapsed, &err);
  }
  if (st == LTH_OK) {
    st = app_out_commit(&out, &err);
  } else {
    app_out_abort(&out);
  }
  if (st == LTH_OK) {
    /* also with --quiet: it says the results may be wrong */
    app_sampling_warn(&R.smp, cli->sample_tol);
  }
  if (st == LTH_OK) {
    st = judge_check(&R, &err);
  }
  run_free(&R);
  return st == LTH_OK ? 0 : app_fail(&err);
}

int main(int argc, char **argv) {
  app_init("lth-decompose");
  dec_cli cli;
  const char *path = NULL;
  int rc = parse_cli(argc, argv, &cli, &path);
  if (rc == APP_CONTINUE) {
    lth_problem *pb = NULL;
    rc = app_load_problem(path, &pb);
    if (rc == 0) {
      rc = run(&cli, path, pb);
    }
    lth_problem_free(pb);
  }
  app_list_free(&cli.at);
  return rc;
}
