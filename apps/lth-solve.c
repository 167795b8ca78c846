/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve: the initial-value problem of a data file's DAE through Clark's
 * reduced ODE (docs/format.md section 2; docs/user-guide.md section 6).
 *
 * lth_ivp_solve integrates v' = Ahat v + g for the state part and rebuilds
 * z = (Nhat + Bhat) v + q at the output times; this file chooses z0, the
 * times and the options, and writes the table.  The library wants
 * nondecreasing output times; the user's --times keep their order in the
 * output, so they are sorted here and mapped back.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/problem.h"

static const char help_text[] =
    "Usage: lth-solve FILE [OPTIONS]\n"
    "Solve the initial-value problem of the Hessenberg DAE  E z' = A(t) z + f(t)\n"
    "in FILE from a consistent z0 at t0 and print z at the output times.\n"
    "\n"
    "Method: Clark's decomposition turns the DAE into an ODE for the state part\n"
    "v = (I - P) z(1:m) (m = s - n_r): v' = Ahat(t) v + g(t), integrated with a\n"
    "GSL ODE solver; the algebraic part is (w, u) = Bhat(t) v + q(t), so every\n"
    "output satisfies the constraints to rounding.  Theorem 2 says v stays in\n"
    "the state space range(I - P); the largest departure ||P v|| (\"drift\") is\n"
    "reported.  Sampled data: the decomposition is computed on the file's grid\n"
    "and interpolated (Hermite) in between.\n"
    "\n"
    "Initial value (at t0 of the file's interval):\n"
    "  --z0 V1,V2,...      s numbers z = (z_1, ..., z_{r-1}, u) (default: the\n"
    "                      file's `z0`; without either, use lth-ic to make one)\n"
    "  --project           accept an inconsistent z0: replace it by Clark's\n"
    "                      Corollary 3 projection (as `lth-ic`) and report what\n"
    "                      changed.  Without it an inconsistent z0 fails (exit 3)\n"
    "Times (default: the file's `grid`, else 101 uniform points):\n"
    "  --times T1,T2,...   these times (in [t0, t1], printed in the given order)\n"
    "  --grid N            N >= 2 uniform points from t0 to t1\n"
    "Integration:\n"
    "  --method M          rk8pd (default: explicit Runge-Kutta Prince-Dormand\n"
    "                      8(9)), rkf45 (Runge-Kutta-Fehlberg 4(5)), msadams\n"
    "                      (variable-order Adams), msbdf (variable-order BDF, for\n"
    "                      stiff problems), bsimp (implicit Bulirsch-Stoer, stiff)\n"
    "  --rtol R            relative local error tolerance (default 1e-10)\n"
    "  --atol A            absolute local error tolerance (default 1e-12)\n"
    "  --stabilize G       drift damping rate (default: auto, 0 = off).  Ahat is\n"
    "                      only unique on the state space, so lth integrates\n"
    "                      v' = (Ahat - G P) v + g instead: the same ODE for every\n"
    "                      v with P v = 0 (the solution does not change), while a\n"
    "                      departure P v created by rounding and truncation errors\n"
    "                      decays at rate G instead of growing.  Auto picks\n"
    "                      G = max(0.25 ||Ahat(t0)||_1, 1/span) (span: t0 to the\n"
    "                      last output time); too large a G\n"
    "                      makes the ODE stiff\n"
    "  --reproject         also set v <- (I - P) v at every output time\n"
    "  --cond-max X        fail (exit 3) where the chain condition\n"
    "                      ||Pi^-1|| max||L_i|| max||R_j|| exceeds X (default 1e12)\n"
    "Output:\n"
    "  --format FMT        text (default: a table and statistics), csv or json\n"
    "  -o, --output FILE   write to FILE instead of standard output (a run that\n"
    "                      fails leaves FILE alone)\n"
    "  -q, --quiet         no progress line on stderr (warnings still appear)\n"
    "  -h, --help          this text\n"
    "  --version           version and license\n"
    "\n"
    "Example (the linearised pendulum; z = (dx', dy', dx, dy, d lambda)):\n"
    "  lth-solve data/pendulum.lth --times 0,1,2 --format json\n"
    "  {\"times\": [0, 1, 2], \"z\": [[0.1, 0, 0.05, 0, 0], [...], [...]],\n"
    "   \"drift\": 0, \"drift_rel\": 0, \"projected\": false, ...}\n"
    "where z[k] is z at times[k]; dx(t) = 0.05 cos(w t) + (0.1/w) sin(w t),\n"
    "w = sqrt(9.81).\n"
    "\n"
    "JSON keys: times, z (one row of s numbers per time), drift = max ||P v||;\n"
    "extensions: drift_rel (relative to max(1, ||v||)), projected, z0_used,\n"
    "z0_residual (||M0 z0 - b0|| of the given z0), with --project also z0_given,\n"
    "z0_change, z0_worst (1-based) and z0_worst_name, method, rtol, atol,\n"
    "components (names), stats {steps, rhs_evals, decomps, seconds,\n"
    "seconds_decomp, gamma}, and for sampled data \"sampling\".\n"
    "CSV: header t,\"z[1]\",...,\"z[s]\", then one row per time (%.17g).\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, time outside the\n"
    "interval, no z0), 2 input error (unreadable or malformed file; the message\n"
    "names file:line:column), 3 numerical failure (inconsistent z0 without\n"
    "--project, Pi singular or ill-conditioned at some t, integrator failure).\n";

enum { FMT_TEXT = 0, FMT_CSV = 1, FMT_JSON = 2 };

typedef struct solve_cli {
  app_list z0, times;
  long grid_n;
  double rtol, atol, stabilize, cond_max;
  int method, format, project, reproject, quiet;
  const char *out_path;
} solve_cli;

/* The solution in the user's order, and what the writers need. */
typedef struct solve_run {
  const solve_cli *cli;
  const char *path;
  const lth_problem *pb;
  const lth_system *sys;
  int r, s, p;
  double t0;
  const double *z0; /* the given initial value */
  const char *z0_source;
  app_times tm;   /* in the user's order */
  double *sorted; /* tm sorted */
  size_t *rank;   /* tm.t[k] = sorted[rank[k]] */
  lth_ivp_result *res;
  app_sampling smp;
  char (*names)[64]; /* short component names: z_1[1], ..., u[1] */
} solve_run;

/* ------------------------------------------------------------------------ */
/* Command line                                                             */

static int parse_cli(int argc, char **argv, solve_cli *cli, const char **path) {
  memset(cli, 0, sizeof *cli);
  cli->rtol = 1e-10;
  cli->atol = 1e-12;
  cli->stabilize = -1.0;
  cli->cond_max = LTH_DEFAULT_COND_MAX;
  app_option opts[] = {
      {"z0", 0, APP_OPT_LIST, &cli->z0, NULL, 0, 0, 0},
      {"times", 0, APP_OPT_LIST, &cli->times, NULL, 0, 0, 0},
      {"grid", 0, APP_OPT_INT, &cli->grid_n, NULL, 2, 1e8, 0},
      {"rtol", 0, APP_OPT_DOUBLE, &cli->rtol, NULL, 1e-15, 1, 0},
      {"atol", 0, APP_OPT_DOUBLE, &cli->atol, NULL, 0, 1e300, 0},
      {"method", 0, APP_OPT_CHOICE, &cli->method, "rk8pd|rkf45|msadams|msbdf|bsimp", 0, 0, 0},
      {"format", 0, APP_OPT_CHOICE, &cli->format, "text|csv|json", 0, 0, 0},
      {"output", 'o', APP_OPT_STRING, &cli->out_path, NULL, 0, 0, 0},
      {"project", 0, APP_OPT_FLAG, &cli->project, NULL, 0, 0, 0},
      {"reproject", 0, APP_OPT_FLAG, &cli->reproject, NULL, 0, 0, 0},
      {"stabilize", 0, APP_OPT_DOUBLE, &cli->stabilize, NULL, 0, 1e300, 0},
      {"cond-max", 0, APP_OPT_DOUBLE, &cli->cond_max, NULL, 1, 1e300, 0},
      {"quiet", 'q', APP_OPT_FLAG, &cli->quiet, NULL, 0, 0, 0},
  };
  app_spec spec = {help_text, opts, sizeof opts / sizeof opts[0], 1, 1};
  const char *args[1];
  int nargs;
  int rc = app_parse(&spec, argc, argv, args, &nargs);
  if (rc != APP_CONTINUE) {
    return rc;
  }
  if (opts[1].given && opts[2].given) {
    return app_usage_error("--times and --grid exclude each other");
  }
  *path = args[0];
  return APP_CONTINUE;
}

/* ------------------------------------------------------------------------ */
/* Setup                                                                    */

static int select_z0(solve_run *R) {
  const solve_cli *cli = R->cli;
  if (cli->z0.n > 0) {
    if (cli->z0.n != (size_t)R->s) {
      return app_usage_error("--z0 has %zu values; %s has s = %d components", cli->z0.n, R->path,
                             R->s);
    }
    R->z0 = cli->z0.v;
    R->z0_source = "--z0";
    return 0;
  }
  if (lth_problem_z0(R->pb, &R->z0)) {
    R->z0_source = "the file's z0";
    return 0;
  }
  return app_usage_error("%s has no `z0` statement and no --z0 was given: compute a consistent "
                         "initial value with `lth-ic %s` and pass it as --z0 V1,...,V%d (or add "
                         "`z0 = [...]` to the file)",
                         R->path, R->path, R->s);
}

typedef struct time_key {
  double t;
  size_t k;
} time_key;

static int time_cmp(const void *a, const void *b) {
  const time_key *x = a, *y = b;
  if (x->t != y->t) {
    return x->t < y->t ? -1 : 1;
  }
  return x->k < y->k ? -1 : x->k > y->k; /* stable: equal times keep their order */
}

/* The library integrates forward only: sort, remember where each time went. */
static int sort_times(solve_run *R) {
  size_t n = R->tm.n;
  time_key *key = malloc((n ? n : 1) * sizeof *key);
  R->sorted = malloc((n ? n : 1) * sizeof *R->sorted);
  R->rank = malloc((n ? n : 1) * sizeof *R->rank);
  if (!key || !R->sorted || !R->rank) {
    free(key);
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  for (size_t k = 0; k < n; k++) {
    key[k] = (time_key){R->tm.t[k], k};
  }
  qsort(key, n, sizeof *key, time_cmp);
  for (size_t j = 0; j < n; j++) {
    R->sorted[j] = key[j].t;
    R->rank[key[j].k] = j;
  }
  free(key);
  return 0;
}

/* "z[4] (z_2[1])" -> "z_2[1]": the block name is what a table header needs. */
static void short_names(solve_run *R) {
  for (int i = 0; i < R->s; i++) {
    char full[64];
    lth_system_component_name(R->sys, i, full, sizeof full);
    const char *open = strchr(full, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    if (open && close && close > open + 1) {
      snprintf(R->names[i], sizeof R->names[i], "%.*s", (int)(close - open - 1), open + 1);
    } else {
      snprintf(R->names[i], sizeof R->names[i], "%s", full);
    }
  }
}

static int run_setup(solve_run *R) {
  R->sys = lth_problem_system(R->pb);
  R->r = lth_system_index(R->sys);
  R->s = lth_system_size(R->sys);
  R->p = lth_system_manifold_dim(R->sys);
  double t1;
  lth_problem_interval(R->pb, &R->t0, &t1);
  R->names = calloc((size_t)R->s, sizeof *R->names);
  if (!R->names) {
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  short_names(R);
  int rc = select_z0(R);
  if (rc == 0) {
    rc = app_times_select(&R->tm, R->pb, &R->cli->times, "--times", R->cli->grid_n);
  }
  return rc == 0 ? sort_times(R) : rc;
}

/* ------------------------------------------------------------------------ */
/* Solving                                                                  */

/* lth_ivp_opts.progress reports each output time; count them for the line. */
typedef struct solve_progress {
  app_progress bar;
  size_t done, total;
} solve_progress;

static void progress_cb(void *ctx, double t, double t_end) {
  (void)t;
  (void)t_end;
  solve_progress *sp = ctx;
  sp->done++;
  app_progress_update(&sp->bar, sp->done, sp->total);
}

/* Sampled data: Hermite interpolation on the file's grid when it covers the
 * span (the library's default is 201 uniform points). */
static void hermite_grid(const solve_run *R, lth_ivp_opts *o) {
  const double *grid;
  size_t n = lth_problem_grid(R->pb, &grid);
  double t_hi = R->tm.n > 0 ? R->sorted[R->tm.n - 1] : R->t0;
  if (n >= 2 && grid[0] <= R->t0 && grid[n - 1] >= t_hi) {
    o->hermite_grid = grid;
    o->hermite_n = n;
  }
}

static lth_status solve(solve_run *R, lth_error *err) {
  const solve_cli *cli = R->cli;
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.method = (lth_ivp_method)cli->method;
  o.rtol = cli->rtol;
  o.atol = cli->atol;
  o.cond_max = cli->cond_max;
  o.reproject = cli->reproject;
  o.project = cli->project;
  o.stabilize = cli->stabilize;
  hermite_grid(R, &o);
  solve_progress sp = {.total = R->tm.n};
  /* JSON or CSV streaming to the terminal would mix with the progress line */
  int quiet = cli->quiet || (cli->format != FMT_TEXT && !cli->out_path && isatty(STDOUT_FILENO));
  app_progress_init(&sp.bar, "integrating", "output times", quiet);
  o.progress = progress_cb;
  o.progress_ctx = &sp;
  lth_status st = lth_ivp_solve(R->sys, R->t0, R->z0, R->sorted, R->tm.n, &o, &R->res, err);
  app_progress_end(&sp.bar);
  return st;
}

/* Sampled data: the derivative error of the data the decomposition used. */
static lth_status sampling_report(solve_run *R, lth_error *err) {
  lth_status st = app_sampling_init(&R->smp, R->pb, R->r, err);
  const double *grid;
  size_t n = R->smp.n > 0 ? lth_problem_grid(R->pb, &grid) : 0;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    st = app_sampling_update(&R->smp, grid[k], err);
  }
  return st;
}

static lth_status check_finite(const solve_run *R, lth_error *err) {
  const lth_ivp_result *res = R->res;
  for (size_t k = 0; k < res->n; k++) {
    for (int i = 0; i < R->s; i++) {
      if (!isfinite(res->z[k * (size_t)R->s + i])) {
        return lth_error_set_t(err, LTH_ENOTFINITE, res->times[k], "%s is not finite", R->names[i]);
      }
    }
  }
  if (!isfinite(res->drift) || !isfinite(res->drift_rel)) {
    return lth_error_set(err, LTH_ENOTFINITE, "the drift is not finite");
  }
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

/* z at the k-th time in the user's order. */
static const double *z_at(const solve_run *R, size_t k) {
  return R->res->z + R->rank[k] * (size_t)R->s;
}

static void json_stats(app_json *j, const lth_ivp_result *res) {
  app_json_key(j, "stats");
  app_json_begin_object(j);
  app_json_key(j, "steps");
  app_json_int(j, (long long)res->steps);
  app_json_key(j, "rhs_evals");
  app_json_int(j, (long long)res->rhs_evals);
  app_json_key(j, "decomps");
  app_json_int(j, (long long)res->decomps);
  app_json_key(j, "seconds");
  app_json_number(j, res->seconds_total);
  app_json_key(j, "seconds_decomp");
  app_json_number(j, res->seconds_decomp);
  app_json_key(j, "gamma");
  app_json_number(j, res->gamma);
  app_json_end_object(j);
}

static void json_initial(app_json *j, const solve_run *R) {
  const lth_ivp_result *res = R->res;
  app_json_key(j, "projected");
  app_json_bool(j, res->projected);
  app_json_key(j, "z0_used");
  app_json_vector(j, res->z0_used, (size_t)R->s, 1);
  app_json_key(j, "z0_residual");
  app_json_number(j, res->z0_residual);
  if (res->projected) {
    app_json_key(j, "z0_given");
    app_json_vector(j, R->z0, (size_t)R->s, 1);
    app_json_key(j, "z0_change");
    app_json_number(j, res->z0_change);
    if (res->z0_worst >= 0) {
      char name[64];
      lth_system_component_name(R->sys, res->z0_worst, name, sizeof name);
      app_json_key(j, "z0_worst");
      app_json_int(j, res->z0_worst + 1);
      app_json_key(j, "z0_worst_name");
      app_json_string(j, name);
    }
  }
}

static int write_json(FILE *fp, const solve_run *R) {
  const lth_ivp_result *res = R->res;
  app_json j;
  app_json_init(&j, fp, 2);
  app_json_begin_object(&j);
  app_json_key(&j, "times");
  app_json_vector(&j, R->tm.t, R->tm.n, 1);
  app_json_key(&j, "z");
  app_json_begin_array(&j);
  for (size_t k = 0; k < R->tm.n; k++) {
    app_json_vector(&j, z_at(R, k), (size_t)R->s, 1);
  }
  app_json_end_array(&j);
  app_json_key(&j, "drift");
  app_json_number(&j, res->drift);
  app_json_key(&j, "drift_rel");
  app_json_number(&j, res->drift_rel);
  json_initial(&j, R);
  app_json_key(&j, "t0");
  app_json_number(&j, R->t0);
  app_json_key(&j, "components");
  app_json_begin_array(&j);
  for (int i = 0; i < R->s; i++) {
    app_json_string(&j, R->names[i]);
  }
  app_json_end_array(&j);
  app_json_key(&j, "method");
  app_json_string(&j, lth_ivp_method_name((lth_ivp_method)R->cli->method));
  app_json_key(&j, "rtol");
  app_json_number(&j, R->cli->rtol);
  app_json_key(&j, "atol");
  app_json_number(&j, R->cli->atol);
  app_json_key(&j, "reprojected");
  app_json_bool(&j, R->cli->reproject);
  json_stats(&j, res);
  if (R->smp.n > 0) {
    app_json_key(&j, "sampling");
    app_sampling_json(&R->smp, &j);
  }
  app_json_end_object(&j);
  return app_json_finish(&j);
}

/* The header quotes every z[i] so that scripts can rely on one form
 * (`t,"z[1]",...`); the writer checks that each row has s + 1 cells. */
static int write_csv(FILE *fp, const solve_run *R) {
  fputc('t', fp);
  for (int i = 1; i <= R->s; i++) {
    fprintf(fp, ",\"z[%d]\"", i);
  }
  fputc('\n', fp);
  app_csv c;
  app_csv_init(&c, fp);
  /* the first row the writer sees fixes the row length (it counts it as its
   * header); every row is a data row here */
  for (size_t k = 0; k < R->tm.n; k++) {
    app_csv_number(&c, R->tm.t[k]);
    app_csv_matrix(&c, z_at(R, k), R->s, 1, R->s);
    app_csv_end_row(&c);
  }
  return app_csv_finish(&c);
}

static void text_header(FILE *fp, const solve_run *R) {
  const lth_ivp_result *res = R->res;
  char b[32], b2[32];
  fprintf(fp, "file           %s\n", R->path);
  fprintf(fp, "index          r = %d, s = %d components, manifold p = %d\n", R->r, R->s, R->p);
  fprintf(fp, "initial value  %s at t0 = %s, ||M0 z0 - b0|| = %.3g\n", R->z0_source,
          app_fmt_exact(b, sizeof b, R->t0), res->z0_residual);
  if (res->projected) {
    char name[64];
    lth_system_component_name(R->sys, res->z0_worst >= 0 ? res->z0_worst : 0, name, sizeof name);
    fprintf(fp,
            "projected      --project replaced z0 (Corollary 3): ||change|| = %.6g, most in "
            "%s: %s -> %s\n",
            res->z0_change, name, app_fmt_exact(b, sizeof b, R->z0[res->z0_worst]),
            app_fmt_exact(b2, sizeof b2, res->z0_used[res->z0_worst]));
  }
  fprintf(fp, "integrator     %s, rtol %.3g, atol %.3g, drift damping gamma = %.3g%s\n",
          lth_ivp_method_name((lth_ivp_method)R->cli->method), R->cli->rtol, R->cli->atol,
          res->gamma, R->cli->reproject ? ", reprojected at output times" : "");
}

static void text_footer(FILE *fp, const solve_run *R) {
  const lth_ivp_result *res = R->res;
  fprintf(fp,
          "\ndrift          max ||P v|| = %.3g (relative %.3g): how far the state part\n"
          "               left the state space range(I - P); 0 in exact arithmetic\n",
          res->drift, res->drift_rel);
  fprintf(fp,
          "statistics     %zu steps, %zu right-hand sides, %zu decompositions, %.3g s "
          "(%.3g s decomposing)\n",
          res->steps, res->rhs_evals, res->decomps, res->seconds_total, res->seconds_decomp);
  if (R->smp.n > 0) {
    app_sampling_text(&R->smp, fp);
  }
}

static void write_text(FILE *fp, const solve_run *R) {
  text_header(fp, R);
  fprintf(fp, "\n%17s", "t");
  for (int i = 0; i < R->s; i++) {
    fprintf(fp, " %17s", R->names[i]);
  }
  fputc('\n', fp);
  for (size_t k = 0; k < R->tm.n; k++) {
    const double *z = z_at(R, k);
    fprintf(fp, "%17.10g", R->tm.t[k]);
    for (int i = 0; i < R->s; i++) {
      fprintf(fp, " %17.10g", z[i] == 0.0 ? 0.0 : z[i]);
    }
    fputc('\n', fp);
  }
  text_footer(fp, R);
}

static lth_status write_output(const solve_run *R, lth_error *err) {
  app_out out;
  lth_status st = app_out_open(&out, R->cli->out_path, err);
  if (st != LTH_OK) {
    return st;
  }
  int bad = 0;
  if (R->cli->format == FMT_JSON) {
    bad = write_json(out.fp, R) != 0;
  } else if (R->cli->format == FMT_CSV) {
    bad = write_csv(out.fp, R) != 0;
  } else {
    write_text(out.fp, R);
  }
  return app_out_finish(&out, bad, err);
}

/* What --project changed, and a drift that calls for attention. */
static void notes(const solve_run *R) {
  const lth_ivp_result *res = R->res;
  if (res->projected) {
    char name[64], b[32], b2[32];
    int w = res->z0_worst >= 0 ? res->z0_worst : 0;
    lth_system_component_name(R->sys, w, name, sizeof name);
    fprintf(stderr,
            "%s: note: z0 was not consistent (||M0 z0 - b0|| = %.3g); --project replaced it "
            "by Clark's Corollary 3 projection: ||change|| = %.6g, largest in %s: %s -> %s\n",
            app_name(), res->z0_residual, res->z0_change, name,
            app_fmt_exact(b, sizeof b, R->z0[w]), app_fmt_exact(b2, sizeof b2, res->z0_used[w]));
  }
  if (res->drift_rel > 1e-6) {
    app_warn("the state part drifted off the state space: max ||P v|| = %.3g (relative %.3g); "
             "the algebraic components may be inaccurate: try a smaller --rtol, --reproject or "
             "a larger --stabilize",
             res->drift, res->drift_rel);
  }
  app_sampling_warn(&R->smp, 1e-6);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

static void run_free(solve_run *R) {
  lth_ivp_result_free(R->res);
  app_sampling_free(&R->smp);
  app_times_free(&R->tm);
  free(R->sorted);
  free(R->rank);
  free(R->names);
}

static int run(const solve_cli *cli, const char *path, const lth_problem *pb) {
  solve_run R;
  memset(&R, 0, sizeof R);
  R.cli = cli;
  R.path = path;
  R.pb = pb;
  int rc = run_setup(&R);
  if (rc != 0) {
    run_free(&R);
    return rc;
  }
  lth_error err;
  lth_error_clear(&err);
  lth_status st = solve(&R, &err);
  if (st == LTH_OK) {
    st = check_finite(&R, &err);
  }
  if (st == LTH_OK) {
    st = sampling_report(&R, &err);
  }
  if (st == LTH_OK) {
    st = write_output(&R, &err);
  }
  if (st == LTH_OK) {
    notes(&R);
  }
  rc = st == LTH_OK ? 0 : app_fail(&err);
  run_free(&R);
  return rc;
}

int main(int argc, char **argv) {
  app_init("lth-solve");
  solve_cli cli;
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
  app_list_free(&cli.z0);
  app_list_free(&cli.times);
  return rc;
}
