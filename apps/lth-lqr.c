/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-lqr: totally singular LQR problems (`problem lqr` files) by Clark's
 * section 4.2 (docs/format.md section 2; docs/user-guide.md section 8;
 * docs/lqr-example.md).
 *
 * lth_lqr_solve answers three questions: does a smooth optimum exist
 * (Theorem 5), is it unique, and what is it (Theorem 6's closed loop and the
 * cost).  When it does not exist the optimum has impulses at the ends; the
 * library then returns the singular arc between them and the infimum of the
 * cost.  This file must never let that arc pass for a smooth optimum: the
 * JSON says "exists": false with a note, the text says it in words, and
 * stderr says it too.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "lth/decomp.h"
#include "lth/lqr.h"
#include "lth/problem.h"

static const char help_text[] =
    "Usage: lth-lqr FILE [OPTIONS]\n"
    "Solve the totally singular LQR problem of a `problem lqr` FILE:\n"
    "    minimise 1/2 x(t1)' C x(t1) + 1/2 int_t0^t1 x' H x dt\n"
    "    subject to x' = A(t) x + B(t) u, x(t0) = x0   (no control cost, R = 0)\n"
    "by Clark's section 4.2: the optimality conditions\n"
    "    x' = A x + B u,  lambda' = -H x - A' lambda,  0 = B' lambda,\n"
    "    lambda(t1) = C x(t1)\n"
    "form an index-3 Hessenberg DAE (Pi = -B'HB must be invertible).  With its\n"
    "fundamental solution the two-point conditions become W c = (x0, 0):\n"
    "  exists   a smooth optimum exists iff (x0, 0) is in range(W) (Theorem 5),\n"
    "           i.e. x0 is consistent, and B(t1)'C x(t1) = 0 at the end;\n"
    "  unique   W is injective on the state space (Theorem 5, Corollary 5);\n"
    "  cost     J = 1/2 x0' lambda(t0).\n"
    "Otherwise (exists = false) the optimal control has an impulse at t0 that\n"
    "moves x0 along range(B(t0)) onto the smooth optimal manifold, to the state\n"
    "x0_consistent (the cheapest one if several; the impulse itself costs\n"
    "nothing since R = 0), and/or one at t1 that lowers the terminal cost for\n"
    "free.  lth-lqr then shows the singular arc between the jumps, and the cost\n"
    "is the infimum (not attained by any smooth control); it says so on stderr\n"
    "and in the output.\n"
    "\n"
    "Options:\n"
    "  --times T1,T2,...   output times (in [t0, t1], in the given order; default:\n"
    "                      the file's `grid`, else 101 uniform points)\n"
    "  --grid N            N >= 2 uniform output times from t0 to t1\n"
    "  --gain              also print the closed-loop gain K(t) (nu x 2 nx) of\n"
    "                      Theorem 6: u = K [x; lambda] on the optimal manifold\n"
    "                      (K = the u rows of G = [Nhat + Bhat](I - P))\n"
    "  --rtol R            relative integration tolerance of the fundamental\n"
    "                      solution (default 1e-10; existence is judged at 100 R)\n"
    "  --cond-max X        fail (exit 3) where the chain condition of\n"
    "                      Pi = -B'HB exceeds X (default 1e12)\n"
    "  --format FMT        text (default: a report and a table), csv or json\n"
    "  -o, --output FILE   write to FILE instead of standard output (a run that\n"
    "                      fails leaves FILE alone)\n"
    "  -h, --help          this text\n"
    "  --version           version and license\n"
    "\n"
    "Example (data/lqr_double_integrator.lth: x0 on the singular arc):\n"
    "  lth-lqr data/lqr_double_integrator.lth --times 0,2 --format json\n"
    "  {\"times\": [0, 2], \"x\": [[3.76..., -3.62...], [1, 0]],\n"
    "   \"lambda\": [[3.62..., 0], [0, 0]], \"u\": [[3.76...], [1]],\n"
    "   \"cost\": 6.8226..., \"exists\": true, \"unique\": true, ...}\n"
    "data/lqr_timevarying.lth gives \"exists\": false, impulses at both ends and\n"
    "the infimum 0.3256983783...; see docs/lqr-example.md.\n"
    "\n"
    "JSON keys: times, x, lambda, u (one row per time), cost (null when there\n"
    "is no trajectory), exists, unique; extensions: have_trajectory, note (what\n"
    "the trajectories and the cost are), x0, x0_consistent, jump, jump_in_range_B,\n"
    "terminal_impulse, terminal_jump, residual (relative distance of (x0, 0) from\n"
    "range(W)), cond_W, theorem4 (max deviation from P_1' = P_2), drift, nx, nu,\n"
    "p, gain (with --gain: one nu x 2nx matrix per time).\n"
    "CSV: t, \"x[i]\", \"lambda[i]\", \"u[i]\" (with --gain also \"K[i,j]\"), one\n"
    "row per time; no rows when there is no trajectory.\n"
    "\n"
    "Exit status: 0 success (also when no smooth optimum exists: that is an\n"
    "answer), 1 usage error (bad option, time outside the interval), 2 input\n"
    "error (unreadable or malformed file, or not a `problem lqr` file),\n"
    "3 numerical failure (B'HB singular or ill-conditioned at some t, named).\n";

enum { FMT_TEXT = 0, FMT_CSV = 1, FMT_JSON = 2 };

typedef struct lqr_cli {
  app_list times;
  long grid_n;
  int format, gain;
  double rtol, cond_max;
  const char *out_path;
} lqr_cli;

typedef struct lqr_tool {
  const lqr_cli *cli;
  const char *path;
  const lth_problem *pb;
  const lth_lqr_spec *spec;
  app_times tm;
  lth_lqr_result *res;
  int initial_impulse; /* x0 was moved: the jump is not zero */
  char note[4096];     /* what the output is, when it is not a smooth optimum */
} lqr_tool;

/* ------------------------------------------------------------------------ */
/* Command line                                                             */

static int parse_cli(int argc, char **argv, lqr_cli *cli, const char **path) {
  memset(cli, 0, sizeof *cli);
  cli->rtol = 1e-10;
  cli->cond_max = LTH_DEFAULT_COND_MAX;
  app_option opts[] = {
      {"times", 0, APP_OPT_LIST, &cli->times, NULL, 0, 0, 0},
      {"grid", 0, APP_OPT_INT, &cli->grid_n, NULL, 2, 1e8, 0},
      {"gain", 0, APP_OPT_FLAG, &cli->gain, NULL, 0, 0, 0},
      {"rtol", 0, APP_OPT_DOUBLE, &cli->rtol, NULL, 1e-15, 1e-2, 0},
      {"cond-max", 0, APP_OPT_DOUBLE, &cli->cond_max, NULL, 1, 1e300, 0},
      {"format", 0, APP_OPT_CHOICE, &cli->format, "text|csv|json", 0, 0, 0},
      {"output", 'o', APP_OPT_STRING, &cli->out_path, NULL, 0, 0, 0},
  };
  app_spec spec = {help_text, opts, sizeof opts / sizeof opts[0], 1, 1};
  const char *args[1];
  int nargs;
  int rc = app_parse(&spec, argc, argv, args, &nargs);
  if (rc != APP_CONTINUE) {
    return rc;
  }
  if (opts[0].given && opts[1].given) {
    return app_usage_error("--times and --grid exclude each other");
  }
  *path = args[0];
  return APP_CONTINUE;
}

/* ------------------------------------------------------------------------ */
/* Solving and reading the answer                                           */

static double norm2(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += x[i] * x[i];
  }
  return sqrt(s);
}

/* "[a, b]" with short round-trip numbers, for notes. */
static void fmt_vec(char *buf, size_t size, const double *x, int n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && used < size; i++) {
    char b[32];
    int k = snprintf(buf + used, size - used, "%s%s", i ? ", " : "[",
                     app_fmt_g(b, sizeof b, x[i] == 0.0 ? 0.0 : x[i], 10));
    used += k > 0 ? (size_t)k : 0;
  }
  if (used < size) {
    snprintf(buf + used, size - used, "]");
  }
}

/* The note says what the trajectories and the cost are when exists = 0. */
static void compose_note(lqr_tool *T) {
  const lth_lqr_result *res = T->res;
  int nx = res->nx;
  char a[256], b[256], c[256];
  T->note[0] = '\0';
  if (res->exists) {
    return;
  }
  fmt_vec(a, sizeof a, T->spec->x0, nx);
  fmt_vec(b, sizeof b, res->x0_consistent, nx);
  fmt_vec(c, sizeof c, res->jump, nx);
  if (!res->have_trajectory) {
    snprintf(T->note, sizeof T->note,
             "no smooth optimum, and no optimal trajectory: x0 = %s is not consistent, and "
             "the nearest state on the smooth optimal manifold, x0_consistent = %s, is not "
             "reachable by an impulse along range(B(t0)) (jump %s); x, lambda, u are empty "
             "and the cost is null",
             a, b, c);
    return;
  }
  char end[1024] = "";
  if (res->terminal_impulse) {
    fmt_vec(c, sizeof c, res->terminal_jump, nx);
    snprintf(end, sizeof end,
             "%s at t1 that moves x(t1) by %s along range(B(t1)), lowering the terminal cost "
             "for free",
             T->initial_impulse ? ", and one" : "an impulse", c);
  }
  char start[1024] = "";
  if (T->initial_impulse) {
    fmt_vec(c, sizeof c, res->jump, nx);
    snprintf(start, sizeof start,
             "an impulse at t0 that moves x0 = %s to x0_consistent = %s "
             "(jump %s)",
             a, b, c);
  }
  snprintf(T->note, sizeof T->note,
           "no smooth optimum: the optimal control has %s%s; the trajectories shown are the "
           "singular arc %s and the cost is the infimum (not attained by a smooth control)",
           start, end, T->initial_impulse ? "after the jump" : "before the terminal jump");
}

static lth_status solve(lqr_tool *T, lth_error *err) {
  lth_lqr_opts o;
  lth_lqr_opts_init(&o);
  o.ivp.rtol = T->cli->rtol;
  o.ivp.cond_max = T->cli->cond_max;
  o.cond_max = T->cli->cond_max;
  lth_status st = lth_lqr_solve(T->spec, T->tm.t, T->tm.n, &o, &T->res, err);
  if (st != LTH_OK) {
    return st;
  }
  T->initial_impulse = !T->res->exists && norm2(T->res->jump, T->res->nx) > 0.0;
  compose_note(T);
  return LTH_OK;
}

static int all_finite(const double *x, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(x[i])) {
      return 0;
    }
  }
  return 1;
}

/* JSON has no NaN or Inf: check everything that will be printed. */
static lth_status check_finite(const lqr_tool *T, lth_error *err) {
  const lth_lqr_result *r = T->res;
  size_t n = r->n, nx = (size_t)r->nx, nu = (size_t)r->nu;
  int ok = all_finite(r->x0_consistent, nx) && all_finite(r->jump, nx) &&
           all_finite(r->terminal_jump, nx) && isfinite(r->residual) && isfinite(r->theorem4) &&
           isfinite(r->drift);
  if (r->have_trajectory) {
    ok = ok && all_finite(r->x, n * nx) && all_finite(r->lambda, n * nx) &&
         all_finite(r->u, n * nu) && isfinite(r->cost);
  }
  if (T->cli->gain) {
    ok = ok && all_finite(r->gain, n * nu * 2 * nx);
  }
  return ok ? LTH_OK : lth_error_set(err, LTH_ENOTFINITE, "the LQR solution is not finite");
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                     */

/* One row per time of a per-time vector field (x + k*dim), or [] if none. */
static void json_rows(app_json *j, const char *key, const double *a, size_t n, int dim, int have) {
  app_json_key(j, key);
  app_json_begin_array(j);
  for (size_t k = 0; have && k < n; k++) {
    app_json_vector(j, a + k * (size_t)dim, (size_t)dim, 1);
  }
  app_json_end_array(j);
}

static void json_extensions(app_json *j, const lqr_tool *T) {
  const lth_lqr_result *r = T->res;
  app_json_key(j, "have_trajectory");
  app_json_bool(j, r->have_trajectory);
  app_json_key(j, "note");
  app_json_string(j, r->exists ? "the smooth optimum (Clark's Theorems 5-6)" : T->note);
  app_json_key(j, "x0");
  app_json_vector(j, T->spec->x0, (size_t)r->nx, 1);
  app_json_key(j, "x0_consistent");
  app_json_vector(j, r->x0_consistent, (size_t)r->nx, 1);
  app_json_key(j, "jump");
  app_json_vector(j, r->jump, (size_t)r->nx, 1);
  /* without a jump at t0 the library leaves the flag unset; a zero jump is in range(B) */
  app_json_key(j, "jump_in_range_B");
  app_json_bool(j, r->jump_in_range_B || !T->initial_impulse);
  app_json_key(j, "terminal_impulse");
  app_json_bool(j, r->terminal_impulse);
  app_json_key(j, "terminal_jump");
  app_json_vector(j, r->terminal_jump, (size_t)r->nx, 1);
  app_json_key(j, "residual");
  app_json_number(j, r->residual);
  if (isfinite(r->cond_W)) {
    app_json_key(j, "cond_W");
    app_json_number(j, r->cond_W);
  }
  app_json_key(j, "theorem4");
  app_json_number(j, r->theorem4);
  app_json_key(j, "drift");
  app_json_number(j, r->drift);
  app_json_key(j, "nx");
  app_json_int(j, r->nx);
  app_json_key(j, "nu");
  app_json_int(j, r->nu);
  app_json_key(j, "p");
  app_json_int(j, r->p);
}

static void json_gain(app_json *j, const lth_lqr_result *r) {
  int m = 2 * r->nx;
  app_json_key(j, "gain");
  app_json_begin_array(j);
  for (size_t k = 0; k < r->n; k++) {
    app_json_matrix(j, r->gain + k * (size_t)r->nu * m, r->nu, m, r->nu);
  }
  app_json_end_array(j);
}

static int write_json(FILE *fp, const lqr_tool *T) {
  const lth_lqr_result *r = T->res;
  app_json j;
  app_json_init(&j, fp, 2);
  app_json_begin_object(&j);
  app_json_key(&j, "times");
  app_json_vector(&j, T->tm.t, T->tm.n, 1);
  json_rows(&j, "x", r->x, r->n, r->nx, r->have_trajectory);
  json_rows(&j, "lambda", r->lambda, r->n, r->nx, r->have_trajectory);
  json_rows(&j, "u", r->u, r->n, r->nu, r->have_trajectory);
  app_json_key(&j, "cost");
  if (r->have_trajectory) {
    app_json_number(&j, r->cost);
  } else {
    app_json_null(&j);
  }
  app_json_key(&j, "exists");
  app_json_bool(&j, r->exists);
  app_json_key(&j, "unique");
  app_json_bool(&j, r->unique);
  json_extensions(&j, T);
  if (T->cli->gain) {
    json_gain(&j, r);
  }
  app_json_end_object(&j);
  return app_json_finish(&j);
}

/* ------------------------------------------------------------------------ */
/* CSV and text                                                             */

/* Every name quoted (K[i,j] needs it; the others follow for one form). */
static void csv_header(FILE *fp, const lth_lqr_result *r, int gain) {
  fputc('t', fp);
  for (int i = 1; i <= r->nx; i++) {
    fprintf(fp, ",\"x[%d]\"", i);
  }
  for (int i = 1; i <= r->nx; i++) {
    fprintf(fp, ",\"lambda[%d]\"", i);
  }
  for (int i = 1; i <= r->nu; i++) {
    fprintf(fp, ",\"u[%d]\"", i);
  }
  for (int i = 1; gain && i <= r->nu; i++) {
    for (int j = 1; j <= 2 * r->nx; j++) {
      fprintf(fp, ",\"K[%d,%d]\"", i, j);
    }
  }
  fputc('\n', fp);
}

static int write_csv(FILE *fp, const lqr_tool *T) {
  const lth_lqr_result *r = T->res;
  int nx = r->nx, nu = r->nu, gain = T->cli->gain;
  csv_header(fp, r, gain);
  app_csv c;
  app_csv_init(&c, fp); /* counts the first data row as its header: checks lengths */
  for (size_t k = 0; r->have_trajectory && k < r->n; k++) {
    app_csv_number(&c, T->tm.t[k]);
    app_csv_matrix(&c, r->x + k * (size_t)nx, nx, 1, nx);
    app_csv_matrix(&c, r->lambda + k * (size_t)nx, nx, 1, nx);
    app_csv_matrix(&c, r->u + k * (size_t)nu, nu, 1, nu);
    if (gain) {
      app_csv_matrix(&c, r->gain + k * (size_t)nu * 2 * nx, nu, 2 * nx, nu);
    }
    app_csv_end_row(&c);
  }
  return app_csv_finish(&c);
}

static void text_vec_line(FILE *fp, const char *label, const double *x, int n) {
  char b[256];
  fmt_vec(b, sizeof b, x, n);
  fprintf(fp, "%-15s%s\n", label, b);
}

static void text_verdict(FILE *fp, const lqr_tool *T) {
  const lth_lqr_result *r = T->res;
  char b[32];
  if (r->exists) {
    fprintf(fp,
            "exists         yes: a smooth optimum (x0 is consistent: (x0, 0) in range(W), "
            "relative residual %.3g)\n",
            r->residual);
  } else if (T->initial_impulse) {
    fprintf(fp,
            "exists         NO smooth optimum: x0 is not consistent (relative residual of "
            "(x0, 0) from range(W): %.3g)%s\n",
            r->residual, r->terminal_impulse ? ", and B(t1)'C x(t1) != 0 at the end" : "");
  } else {
    fprintf(fp, "exists         NO smooth optimum: x0 is consistent, but B(t1)'C x(t1) != 0 at "
                "the end (a terminal impulse)\n");
  }
  fprintf(fp, "unique         %s (cond W on the state space %s)\n",
          r->unique ? "yes" : "NO: W is not injective, one of the optima is shown",
          isfinite(r->cond_W) ? app_fmt_g(b, sizeof b, r->cond_W, 3) : "infinite");
  text_vec_line(fp, "x0", T->spec->x0, r->nx);
  if (!r->exists && T->initial_impulse) {
    text_vec_line(fp, "x0_consistent", r->x0_consistent, r->nx);
    text_vec_line(fp, "jump at t0", r->jump, r->nx);
    fprintf(fp, "               %s\n",
            r->jump_in_range_B ? "(in range(B(t0)): reachable by an impulse)"
                               : "(NOT in range(B(t0)): no impulse reaches it)");
  }
  if (!r->exists) {
    if (r->terminal_impulse) {
      text_vec_line(fp, "jump at t1", r->terminal_jump, r->nx);
    }
  }
  if (r->have_trajectory) {
    fprintf(fp, "cost           %.10g%s\n", r->cost,
            r->exists ? "" : "  (the infimum; not attained by a smooth control)");
  } else {
    fprintf(fp, "cost           none (no trajectory)\n");
  }
  fprintf(fp, "checks         Theorem 4 (P_1' = P_2) deviation %.3g; drift max ||P v|| %.3g\n",
          r->theorem4, r->drift);
}

/* Column names right-aligned to the numbers' widths. */
static void text_names(FILE *fp, const char *name, int n, int width) {
  for (int i = 1; i <= n; i++) {
    char b[32];
    snprintf(b, sizeof b, "%s[%d]", name, i);
    fprintf(fp, " %*s", width, b);
  }
}

static void text_numbers(FILE *fp, const double *x, int n) {
  for (int i = 0; i < n; i++) {
    fprintf(fp, " %16.10g", x[i] == 0.0 ? 0.0 : x[i]);
  }
}

static void text_table(FILE *fp, const lqr_tool *T) {
  const lth_lqr_result *r = T->res;
  int nx = r->nx, nu = r->nu, m = 2 * nx, gain = T->cli->gain;
  fprintf(fp, "%14s", "t");
  text_names(fp, "x", nx, 16);
  text_names(fp, "lambda", nx, 16);
  text_names(fp, "u", nu, 16);
  for (int i = 1; gain && i <= nu; i++) {
    for (int j = 1; j <= m; j++) {
      char b[32];
      snprintf(b, sizeof b, "K[%d,%d]", i, j);
      fprintf(fp, " %16s", b);
    }
  }
  fputc('\n', fp);
  for (size_t k = 0; k < r->n; k++) {
    fprintf(fp, "%14.8g", T->tm.t[k]);
    text_numbers(fp, r->x + k * nx, nx);
    text_numbers(fp, r->lambda + k * nx, nx);
    text_numbers(fp, r->u + k * nu, nu);
    for (int i = 0; gain && i < nu; i++) {
      for (int j = 0; j < m; j++) {
        text_numbers(fp, r->gain + k * nu * m + i + (size_t)j * nu, 1);
      }
    }
    fputc('\n', fp);
  }
}

static void write_text(FILE *fp, const lqr_tool *T) {
  const lth_lqr_result *r = T->res;
  char b0[32], b1[32];
  fprintf(fp, "file           %s\n", T->path);
  fprintf(fp,
          "problem        singular LQR, nx = %d, nu = %d, on [%s, %s]: minimise 1/2 x(t1)' "
          "C x(t1) + 1/2 int x' H x dt, x' = A x + B u, R = 0\n",
          r->nx, r->nu, app_fmt_exact(b0, sizeof b0, T->spec->t0),
          app_fmt_exact(b1, sizeof b1, T->spec->t1));
  text_verdict(fp, T);
  if (!r->exists) {
    fprintf(fp, "\nNOTE: %s.\n", T->note);
  }
  if (!r->have_trajectory) {
    return;
  }
  fprintf(fp, "\n%s%s:\n",
          r->exists ? "the optimal trajectory" : "the singular arc (NOT a smooth optimum)",
          T->cli->gain ? " and the closed-loop gain u = K [x; lambda]" : "");
  text_table(fp, T);
}

static lth_status write_output(const lqr_tool *T, lth_error *err) {
  app_out out;
  lth_status st = app_out_open(&out, T->cli->out_path, err);
  if (st != LTH_OK) {
    return st;
  }
  int bad = 0;
  if (T->cli->format == FMT_JSON) {
    bad = write_json(out.fp, T) != 0;
  } else if (T->cli->format == FMT_CSV) {
    bad = write_csv(out.fp, T) != 0;
  } else {
    write_text(out.fp, T);
  }
  return app_out_finish(&out, bad, err);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

static int run(const lqr_cli *cli, const char *path, const lth_problem *pb) {
  lqr_tool T;
  memset(&T, 0, sizeof T);
  T.cli = cli;
  T.path = path;
  T.pb = pb;
  T.spec = lth_problem_lqr(pb);
  if (!T.spec) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: not a `problem lqr` file (it is a DAE problem): lth-lqr needs "
                     "`problem lqr` with `sizes`, A, B, H, C and x0; use lth-solve or lth-bvp "
                     "for DAE files",
                     path);
  }
  int rc = app_times_select(&T.tm, pb, &cli->times, "--times", cli->grid_n);
  if (rc != 0) {
    return rc;
  }
  lth_error err;
  lth_error_clear(&err);
  lth_status st = solve(&T, &err);
  if (st == LTH_OK) {
    st = check_finite(&T, &err);
  }
  if (st == LTH_OK) {
    st = write_output(&T, &err);
  }
  if (st == LTH_OK && !T.res->exists) {
    /* exit 0 (it is an answer), but nobody should miss it in a pipeline */
    fprintf(stderr, "%s: %s\n", app_name(), T.note);
  }
  rc = st == LTH_OK ? 0 : app_fail(&err);
  lth_lqr_result_free(T.res);
  app_times_free(&T.tm);
  return rc;
}

int main(int argc, char **argv) {
  app_init("lth-lqr");
  lqr_cli cli;
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
  app_list_free(&cli.times);
  return rc;
}
