/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-bvp: the boundary-value problem of a data file's DAE with its `bc`
 * statements (docs/format.md section 2; docs/user-guide.md section 7).
 *
 * lth_bvp_solve does the work (single or multiple shooting on Clark's
 * fundamental solution, or finite differences with the consistency
 * conditions of his section 4.1); this file reads the boundary conditions,
 * chooses the method and writes the solution and its diagnostics.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "lth/bvp.h"
#include "lth/decomp.h"
#include "lth/problem.h"

static const char help_text[] =
    "Usage: lth-bvp FILE [OPTIONS]\n"
    "Solve the boundary-value problem of the Hessenberg DAE  E z' = A(t) z + f(t)\n"
    "on the file's interval [t0, t1] with the file's boundary conditions\n"
    "    B0 z(t0) + B1 z(t1) = beta\n"
    "(statements `bc B0 = [...]`, `bc B1 = [...]`, each p x s, and\n"
    "`bc beta = [...]`, p x 1; p = dimension of the solution manifold, the\n"
    "number of free constants: the algebraic part needs no conditions).\n"
    "\n"
    "Methods (--method, default shooting):\n"
    "  shooting  Clark section 4: every solution is z = Phi(t) c + z_p(t) with\n"
    "            Phi = [Nhat + Bhat] Psi(t, t0) Q from the reduced ODE; the p x p\n"
    "            shooting matrix S = B0 Phi(t0) + B1 Phi(t1) gives c.  Solvable iff\n"
    "            S is nonsingular; cond_shooting estimates its condition.\n"
    "  multiple  multiple shooting: local bases on M subintervals joined by\n"
    "            continuity of the state part, one banded solve.  For problems\n"
    "            whose solutions grow or decay strongly (single shooting loses\n"
    "            digits like the growth of Psi).\n"
    "  fd        finite differences: implicit Euler on the full DAE on a uniform\n"
    "            grid plus the output times, completed by the boundary rows and\n"
    "            the s - p consistency conditions M0 z(t0) = b0.  First order; the\n"
    "            error is estimated from solutions on N/2, N and 2N intervals.\n"
    "            Its first r steps (index r) carry start-up errors in the\n"
    "            algebraic components (reported separately as fd_error_layer);\n"
    "            for index >= 4 prefer the shooting methods.\n"
    "\n"
    "Options:\n"
    "  --times T1,T2,...   output times (in [t0, t1], printed in the given order;\n"
    "                      default: the file's `grid`, else 101 uniform points)\n"
    "  --grid N            N >= 2 uniform output times from t0 to t1\n"
    "  --method M          shooting (default), multiple or fd\n"
    "  --intervals M       multiple: number of subintervals (default: placed\n"
    "                      automatically where ||Psi|| grows by more than 100)\n"
    "  --points N          fd: grid points N (default 1001)\n"
    "  --no-order-check    fd: skip the N/2 and 2N solves (no error estimate)\n"
    "  --rtol R            shooting methods: relative integration tolerance\n"
    "                      (default 1e-10)\n"
    "  --atol A            shooting methods: absolute tolerance (default 1e-12)\n"
    "  --cond-max X        a shooting matrix with a condition estimate above\n"
    "                      min(X, 1/rtol) means the BVP is not uniquely solvable at\n"
    "                      this accuracy (exit 3); X also bounds the chain condition\n"
    "                      of Pi (default 1e12)\n"
    "  --format FMT        text (default: a report and a table), csv or json\n"
    "  -o, --output FILE   write to FILE instead of standard output (a run that\n"
    "                      fails leaves FILE alone)\n"
    "  -h, --help          this text\n"
    "  --version           version and license\n"
    "\n"
    "Warnings on stderr: cond_shooting above 1e8 (the answer may have lost that\n"
    "many digits), and fd's start-up layer error well above its error\n"
    "elsewhere.\n"
    "\n"
    "Example (data/index2.lth: index 2, p = 2, bc z_1[1](0) = 1, z_1[2](3) = 0):\n"
    "  lth-bvp data/index2.lth --times 0,1.5,3 --format json\n"
    "  {\"times\": [0, 1.5, 3], \"z\": [[1, ...], [...], [...]],\n"
    "   \"cond_shooting\": 2.76..., \"method\": \"shooting\", \"bc_residual\": ...}\n"
    "\n"
    "JSON keys: times, z (one row of s numbers per time), cond_shooting;\n"
    "extensions: method, p, s, components, bc_residual = ||B0 z(t0) + B1 z(t1) -\n"
    "beta||, drift (shooting methods), intervals (multiple), fd_points, fd_order,\n"
    "fd_error, fd_error_layer (fd; keys whose value is not available are\n"
    "omitted), rtol, atol, and for sampled data \"sampling\".\n"
    "CSV: header t,\"z[1]\",...,\"z[s]\", then one row per time (%.17g).\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, time outside the\n"
    "interval), 2 input error (unreadable or malformed file; no, wrongly sized\n"
    "or dependent bc statements; the message names the file), 3 numerical\n"
    "failure (singular or ill-conditioned shooting matrix: the BVP is not\n"
    "uniquely solvable; Pi singular or ill-conditioned at some t).\n";

enum { FMT_TEXT = 0, FMT_CSV = 1, FMT_JSON = 2 };

typedef struct bvp_cli {
  app_list times;
  long grid_n, intervals, points;
  int method, format, no_order_check;
  double rtol, atol, cond_max;
  const char *out_path;
} bvp_cli;

typedef struct bvp_run {
  const bvp_cli *cli;
  const char *path;
  const lth_problem *pb;
  const lth_system *sys;
  int r, s, p, rows;
  double t0, t1;
  const double *B0, *B1, *beta;
  app_times tm;
  lth_bvp_result *res;
  app_sampling smp;
  int bc_error; /* the library refused the bc statements */
} bvp_run;

/* ------------------------------------------------------------------------ */
/* Command line and input                                                   */

static int parse_cli(int argc, char **argv, bvp_cli *cli, const char **path) {
  memset(cli, 0, sizeof *cli);
  cli->rtol = 1e-10;
  cli->atol = 1e-12;
  cli->cond_max = LTH_DEFAULT_COND_MAX;
  app_option opts[] = {
      {"times", 0, APP_OPT_LIST, &cli->times, NULL, 0, 0, 0},
      {"grid", 0, APP_OPT_INT, &cli->grid_n, NULL, 2, 1e8, 0},
      {"method", 0, APP_OPT_CHOICE, &cli->method, "shooting|multiple|fd", 0, 0, 0},
      {"intervals", 0, APP_OPT_INT, &cli->intervals, NULL, 1, 1e6, 0},
      {"points", 0, APP_OPT_INT, &cli->points, NULL, 3, 1e8, 0},
      {"no-order-check", 0, APP_OPT_FLAG, &cli->no_order_check, NULL, 0, 0, 0},
      {"rtol", 0, APP_OPT_DOUBLE, &cli->rtol, NULL, 1e-15, 1, 0},
      {"atol", 0, APP_OPT_DOUBLE, &cli->atol, NULL, 0, 1e300, 0},
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
  if (opts[3].given && cli->method != LTH_BVP_MULTIPLE) {
    return app_usage_error("--intervals applies to --method multiple only");
  }
  if ((opts[4].given || opts[5].given) && cli->method != LTH_BVP_FD) {
    return app_usage_error("--points and --no-order-check apply to --method fd only");
  }
  *path = args[0];
  return APP_CONTINUE;
}

/* The bc statements: present, and p rows (an input error otherwise). */
static int read_bc(bvp_run *R) {
  R->rows = lth_problem_bc(R->pb, &R->B0, &R->B1, &R->beta);
  if (lth_problem_get_kind(R->pb) == LTH_PROBLEM_LQR) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: a `problem lqr` file has no boundary-value problem "
                     "for lth-bvp; use lth-lqr",
                     R->path);
  }
  if (R->p == 0) {
    /* a BVP needs p conditions: with p = 0 a file cannot state any */
    return app_failf(APP_EXIT_INPUT,
                     "%s: the solution manifold has dimension p = 0: the DAE alone fixes its "
                     "only solution, there is nothing for boundary conditions to choose; use "
                     "`lth-ic %s` for its value at t0 and `lth-solve %s --z0 ...` for the rest",
                     R->path, R->path, R->path);
  }
  if (R->rows == 0) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: no boundary conditions: lth-bvp needs the statements `bc B0 = [...]` "
                     "and `bc B1 = [...]` (each p x s = %d x %d) and `bc beta = [...]` (%d x 1) "
                     "for B0 z(t0) + B1 z(t1) = beta",
                     R->path, R->p, R->s, R->p);
  }
  if (R->rows != R->p) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: the bc statements have %d rows; the solution manifold has dimension "
                     "p = %d, so exactly p boundary conditions are needed (B0, B1: %d x %d, "
                     "beta: %d x 1)",
                     R->path, R->rows, R->p, R->p, R->s, R->p);
  }
  return 0;
}

static int run_setup(bvp_run *R) {
  R->sys = lth_problem_system(R->pb);
  R->r = lth_system_index(R->sys);
  R->s = lth_system_size(R->sys);
  R->p = lth_system_manifold_dim(R->sys);
  lth_problem_interval(R->pb, &R->t0, &R->t1);
  int rc = read_bc(R);
  return rc == 0 ? app_times_select(&R->tm, R->pb, &R->cli->times, "--times", R->cli->grid_n) : rc;
}

/* ------------------------------------------------------------------------ */
/* Solving                                                                  */

static void set_opts(const bvp_run *R, lth_bvp_opts *o) {
  const bvp_cli *cli = R->cli;
  lth_bvp_opts_init(o);
  o->method = (lth_bvp_method)cli->method;
  o->ivp.rtol = cli->rtol;
  o->ivp.atol = cli->atol;
  o->ivp.cond_max = cli->cond_max;
  o->cond_max = cli->cond_max;
  o->intervals = (int)cli->intervals;
  o->fd_points = (size_t)cli->points;
  o->fd_order_check = !cli->no_order_check;
  /* sampled data: Hermite interpolation on the file's grid (when it covers
   * the interval; else the library's 201 uniform points) */
  const double *grid;
  size_t n = lth_problem_grid(R->pb, &grid);
  if (n >= 2 && grid[0] <= R->t0 && grid[n - 1] >= R->t1) {
    o->ivp.hermite_grid = grid;
    o->ivp.hermite_n = n;
  }
}

static lth_status solve(bvp_run *R, lth_error *err) {
  lth_bvp_opts o;
  set_opts(R, &o);
  lth_status st = lth_bvp_solve(R->sys, R->t0, R->t1, R->rows, R->B0, R->B1, R->beta, R->tm.t,
                                R->tm.n, &o, &R->res, err);
  if (st == LTH_EBC) {
    /* about the bc statements (e.g. rank [B0 B1] < p): an input error */
    R->bc_error = 1;
    lth_error_prefix(err, "bc statements: ");
    lth_error_set_pos(err, R->path, 0, 0);
  }
  if (st == LTH_OK) {
    st = app_sampling_init(&R->smp, R->pb, R->r, err);
  }
  for (size_t k = 0; st == LTH_OK && R->smp.n > 0 && k < R->tm.n; k++) {
    st = app_sampling_update(&R->smp, R->tm.t[k], err);
  }
  return st;
}

static lth_status check_finite(const bvp_run *R, lth_error *err) {
  const lth_bvp_result *res = R->res;
  for (size_t k = 0; k < res->n; k++) {
    for (int i = 0; i < R->s; i++) {
      if (!isfinite(res->z[k * (size_t)R->s + i])) {
        char name[64];
        lth_system_component_name(R->sys, i, name, sizeof name);
        return lth_error_set_t(err, LTH_ENOTFINITE, res->times[k], "%s is not finite", name);
      }
    }
  }
  if (!isfinite(res->cond_shooting) || !isfinite(res->bc_residual)) {
    return lth_error_set(err, LTH_ENOTFINITE,
                         "the condition estimate or the boundary residual is not finite");
  }
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

static int is_shooting(const lth_bvp_result *res) { return res->method != LTH_BVP_FD; }

/* "z[4] (z_2[1])" -> "z_2[1]": the block name, for headers and JSON. */
static void short_name(const lth_system *sys, int i, char *buf, size_t size) {
  char full[64];
  lth_system_component_name(sys, i, full, sizeof full);
  const char *open = strchr(full, '(');
  snprintf(buf, size, "%s", open ? open + 1 : full);
  buf[strcspn(buf, ")")] = '\0';
}

/* JSON has no NaN: a value that was not estimated is left out. */
static void json_opt(app_json *j, const char *key, double x) {
  if (isfinite(x)) {
    app_json_key(j, key);
    app_json_number(j, x);
  }
}

static void json_method(app_json *j, const bvp_run *R) {
  const lth_bvp_result *res = R->res;
  app_json_key(j, "method");
  app_json_string(j, lth_bvp_method_name(res->method));
  app_json_key(j, "p");
  app_json_int(j, R->p);
  app_json_key(j, "s");
  app_json_int(j, R->s);
  app_json_key(j, "bc_residual");
  app_json_number(j, res->bc_residual);
  if (is_shooting(res)) {
    json_opt(j, "drift", res->drift);
    app_json_key(j, "rtol");
    app_json_number(j, R->cli->rtol);
    app_json_key(j, "atol");
    app_json_number(j, R->cli->atol);
  }
  if (res->method == LTH_BVP_MULTIPLE) {
    app_json_key(j, "intervals");
    app_json_int(j, res->intervals);
  }
  if (res->method == LTH_BVP_FD) {
    app_json_key(j, "fd_points");
    app_json_int(j, (long long)res->fd_points);
    json_opt(j, "fd_order", res->fd_order);
    json_opt(j, "fd_error", res->fd_error);
    json_opt(j, "fd_error_layer", res->fd_error_layer);
  }
}

static int write_json(FILE *fp, const bvp_run *R) {
  const lth_bvp_result *res = R->res;
  app_json j;
  app_json_init(&j, fp, 2);
  app_json_begin_object(&j);
  app_json_key(&j, "times");
  app_json_vector(&j, res->times, res->n, 1);
  app_json_key(&j, "z");
  app_json_begin_array(&j);
  for (size_t k = 0; k < res->n; k++) {
    app_json_vector(&j, res->z + k * (size_t)R->s, (size_t)R->s, 1);
  }
  app_json_end_array(&j);
  app_json_key(&j, "cond_shooting");
  app_json_number(&j, res->cond_shooting);
  json_method(&j, R);
  app_json_key(&j, "components");
  app_json_begin_array(&j);
  for (int i = 0; i < R->s; i++) {
    char name[64];
    short_name(R->sys, i, name, sizeof name);
    app_json_string(&j, name);
  }
  app_json_end_array(&j);
  if (R->smp.n > 0) {
    app_json_key(&j, "sampling");
    app_sampling_json(&R->smp, &j);
  }
  app_json_end_object(&j);
  return app_json_finish(&j);
}

/* Header quoted like lth-solve's: t,"z[1]",...; the writer checks row lengths. */
static int write_csv(FILE *fp, const bvp_run *R) {
  fputc('t', fp);
  for (int i = 1; i <= R->s; i++) {
    fprintf(fp, ",\"z[%d]\"", i);
  }
  fputc('\n', fp);
  app_csv c;
  app_csv_init(&c, fp);
  for (size_t k = 0; k < R->res->n; k++) {
    app_csv_number(&c, R->res->times[k]);
    app_csv_matrix(&c, R->res->z + k * (size_t)R->s, R->s, 1, R->s);
    app_csv_end_row(&c);
  }
  return app_csv_finish(&c);
}

static const char *method_text(lth_bvp_method m) {
  switch (m) {
  case LTH_BVP_MULTIPLE:
    return "multiple shooting";
  case LTH_BVP_FD:
    return "finite differences (implicit Euler + consistency conditions)";
  default:
    return "single shooting (Clark section 4)";
  }
}

static void text_header(FILE *fp, const bvp_run *R) {
  const lth_bvp_result *res = R->res;
  char b0[32], b1[32];
  fprintf(fp, "file           %s\n", R->path);
  fprintf(fp, "index          r = %d, s = %d components, manifold p = %d (= bc rows)\n", R->r, R->s,
          R->p);
  fprintf(fp, "interval       [%s, %s]\n", app_fmt_exact(b0, sizeof b0, R->t0),
          app_fmt_exact(b1, sizeof b1, R->t1));
  fprintf(fp, "method         %s\n", method_text(res->method));
  fprintf(fp, "cond_shooting  %.3g%s\n", res->cond_shooting,
          res->method == LTH_BVP_FD         ? " (condition of the banded system)"
          : res->method == LTH_BVP_MULTIPLE ? " (condition of the multiple-shooting system)"
                                            : " (shooting matrix S = B0 Phi(t0) + B1 Phi(t1))");
  fprintf(fp, "bc residual    ||B0 z(t0) + B1 z(t1) - beta|| = %.3g\n", res->bc_residual);
  if (res->method == LTH_BVP_MULTIPLE) {
    fprintf(fp, "intervals      %d\n", res->intervals);
  }
  if (is_shooting(res)) {
    fprintf(fp, "integrator     rtol %.3g, atol %.3g; drift max ||P v|| = %.3g\n", R->cli->rtol,
            R->cli->atol, res->drift);
  } else {
    fprintf(fp, "grid           %zu points\n", res->fd_points);
    if (isfinite(res->fd_error)) {
      fprintf(fp,
              "fd error       ~%.3g (observed order %.3g); in the first r = %d steps "
              "~%.3g\n",
              res->fd_error, res->fd_order, R->r, res->fd_error_layer);
    } else {
      fprintf(fp, "fd error       not estimated (--no-order-check)\n");
    }
  }
  if (R->smp.n > 0) {
    app_sampling_text(&R->smp, fp);
  }
}

static void write_text(FILE *fp, const bvp_run *R) {
  text_header(fp, R);
  fprintf(fp, "\n%17s", "t");
  for (int i = 0; i < R->s; i++) {
    char name[64];
    short_name(R->sys, i, name, sizeof name);
    fprintf(fp, " %17s", name);
  }
  fputc('\n', fp);
  for (size_t k = 0; k < R->res->n; k++) {
    const double *z = R->res->z + k * (size_t)R->s;
    fprintf(fp, "%17.10g", R->res->times[k]);
    for (int i = 0; i < R->s; i++) {
      fprintf(fp, " %17.10g", z[i] == 0.0 ? 0.0 : z[i]);
    }
    fputc('\n', fp);
  }
}

static lth_status write_output(const bvp_run *R, lth_error *err) {
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

/* The two cases where a result needs a second look. */
static void warnings(const bvp_run *R) {
  const lth_bvp_result *res = R->res;
  if (res->cond_shooting > 1e8 && res->method == LTH_BVP_FD) {
    app_warn("the finite-difference system has condition estimate %.3g (it grows like "
             "h^-(r-1) for index r = %d): about %.0f digits may be lost; prefer --method "
             "shooting or multiple",
             res->cond_shooting, R->r, floor(log10(res->cond_shooting)));
  } else if (res->cond_shooting > 1e8) {
    app_warn("cond_shooting = %.3g: the boundary conditions barely determine the solution; "
             "about %.0f digits may be lost (check the bc statements%s)",
             res->cond_shooting, floor(log10(res->cond_shooting)),
             res->method == LTH_BVP_SHOOTING ? ", or try --method multiple" : "");
  }
  /* implicit Euler's first r steps: the algebraic components there come from
   * differences of differences and are only O(1) accurate for index >= 3 */
  if (res->method == LTH_BVP_FD && isfinite(res->fd_error_layer) &&
      res->fd_error_layer > 10.0 * fmax(res->fd_error, 1e-12) && res->fd_error_layer > 1e-6) {
    app_warn("finite differences: the error in the first r = %d steps after t0 is ~%.3g, "
             "against ~%.3g elsewhere: implicit Euler's algebraic components start with an "
             "error there (index %d); use a shooting method for accurate values near t0",
             R->r, res->fd_error_layer, res->fd_error, R->r);
  }
  app_sampling_warn(&R->smp, 1e-6);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

static int run(const bvp_cli *cli, const char *path, const lth_problem *pb) {
  bvp_run R;
  memset(&R, 0, sizeof R);
  R.cli = cli;
  R.path = path;
  R.pb = pb;
  int rc = run_setup(&R);
  lth_error err;
  lth_error_clear(&err);
  if (rc == 0) {
    lth_status st = solve(&R, &err);
    if (st == LTH_OK) {
      st = check_finite(&R, &err);
    }
    if (st == LTH_OK) {
      st = write_output(&R, &err);
    }
    if (st == LTH_OK) {
      warnings(&R);
    }
    rc = st == LTH_OK ? 0 : app_fail(&err);
    rc = R.bc_error ? APP_EXIT_INPUT : rc;
  }
  lth_bvp_result_free(R.res);
  app_sampling_free(&R.smp);
  app_times_free(&R.tm);
  return rc;
}

int main(int argc, char **argv) {
  app_init("lth-bvp");
  bvp_cli cli;
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
