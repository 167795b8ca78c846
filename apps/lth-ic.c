/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-ic: a consistent initial value of a data file's DAE at one time
 * (docs/format.md section 2; docs/user-guide.md section 5).
 *
 * Three ways to turn a guess into a consistent value, all from lth/ic.h:
 * Clark's Corollary 3 (oblique projection, the default), the nearest
 * consistent value in the 2-norm (--nearest), and prescribed components
 * (--fix).  Every result is checked against the consistency conditions
 * M0 z0 = b0 of Clark's section 4.1 before it is printed.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "lth/decomp.h"
#include "lth/ic.h"
#include "lth/problem.h"

static const char help_text[] =
    "Usage: lth-ic FILE [OPTIONS]\n"
    "A consistent initial value of the Hessenberg DAE  E z' = A(t) z + f(t)  in\n"
    "FILE at one time: a z0 that satisfies the algebraic constraints and their\n"
    "hidden derivatives, so that a solution through it exists (lth-solve needs\n"
    "one).  Consistent values form an affine space of dimension p:\n"
    "z0 = G(t) v + q(t), G = [Nhat + Bhat](I - P) (Clark's Corollary 3).\n"
    "\n"
    "Input:\n"
    "  --at T              the time (default: t0 of the file's interval)\n"
    "  --guess V1,V2,...   the guess, s numbers in the order of z = (z_1, ...,\n"
    "                      z_{r-1}, u) (default: the file's `z0`, else zeros)\n"
    "\n"
    "Method (default: oblique projection, Clark's Corollary 3): keep the state\n"
    "part of the guess, v0 = (I - P(t)) z(1:m) (m = s - n_r), and compute the\n"
    "algebraic part from it: z0 = G(t) guess(1:m) + q(t).  The guess's algebraic\n"
    "components (w_i = P_i z_i and u) are ignored; a consistent guess is\n"
    "returned unchanged.\n"
    "  --nearest           instead the consistent value closest to the guess in\n"
    "                      the 2-norm (orthogonal projection onto the affine space)\n"
    "  --fix I=V,...       instead a consistent value with z[I] = V (I 1-based, as\n"
    "                      in the text report; several pairs separated by commas),\n"
    "                      the remaining freedom fitted to the guess in least\n"
    "                      squares.  Fails (exit 3) naming the component when the\n"
    "                      values contradict the constraints or each other (at most\n"
    "                      p independent ones can be prescribed)\n"
    "\n"
    "Output:\n"
    "  --format FMT        text (default: a report) or json\n"
    "  -o, --output FILE   write to FILE instead of standard output (a run that\n"
    "                      fails leaves FILE alone)\n"
    "  --conditions        also print the s - p consistency conditions M0 z0 = b0\n"
    "                      (Clark section 4.1: M0 has orthonormal rows spanning\n"
    "                      N(G^T), b0 = M0 q)\n"
    "  --cond-max X        fail (exit 3) when the chain condition\n"
    "                      ||Pi^-1|| max||L_i|| max||R_j|| at T exceeds X (default 1e12)\n"
    "  -h, --help          this text\n"
    "  --version           version and license\n"
    "\n"
    "Example (the linearised pendulum: z = (dx', dy', dx, dy, d lambda); the\n"
    "guess has a wrong dy and a wrong force):\n"
    "  lth-ic data/pendulum.lth --guess 0.1,0,0.05,0.2,3\n"
    "prints the guess, the consistent z0 = (0.1, 0, 0.05, 0, 0) and which\n"
    "components changed, and a line `z0 = [...]` to paste into the data file.\n"
    "  lth-ic data/pendulum.lth --format json      (abridged; numbers print %.17g)\n"
    "  {\"t\": 0, \"p\": 2, \"z0\": [0.1, 0, 0.05, 0, 0], \"residual\": 0, \"method\": ...}\n"
    "\n"
    "JSON keys: t, p, z0 (s numbers), residual = ||M0 z0 - b0||_2; extensions:\n"
    "method (\"project\", \"nearest\" or \"fix\"), s, index, guess, guess_source,\n"
    "guess_residual, change = ||z0 - guess||_2, changed (1-based indices of the\n"
    "components that moved), tolerance (the residual below which a value counts\n"
    "as consistent), fixed ([{\"index\", \"value\"}] with --fix), cond_chain,\n"
    "conditions ({\"M0\": [[...]], \"b0\": [...]} with --conditions).  Numbers\n"
    "are printed with %.17g and read back exactly.\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, T outside the interval,\n"
    "wrong number of guess values, bad --fix), 2 input error (unreadable or\n"
    "malformed file; the message names file:line:column), 3 numerical failure\n"
    "(Pi singular or ill-conditioned at T, --fix values that cannot hold).\n";

enum { FMT_TEXT = 0, FMT_JSON = 1 };
enum { METHOD_PROJECT = 0, METHOD_NEAREST = 1, METHOD_FIX = 2 };

typedef struct ic_cli {
  double at;
  int at_given;
  app_list guess;
  int guess_given;
  int format;
  const char *out_path;
  int nearest;
  const char *fix;
  int conditions;
  double cond_max;
} ic_cli;

/* Everything a run computes, for the writers. */
typedef struct ic_run {
  const ic_cli *cli;
  const char *path;
  const lth_problem *pb;
  const lth_system *sys;
  int method;
  int r, s, p;
  double t;
  double *guess, *z0; /* s each */
  const char *guess_source;
  int nfix;
  int *fix_idx; /* 0-based */
  double *fix_val;
  double residual, guess_residual, tolerance, change, cond_chain;
  int nchanged;
  int *changed; /* 0-based indices of moved components */
  const lth_ic *ic;
} ic_run;

/* ------------------------------------------------------------------------ */
/* Command line                                                             */

static int parse_cli(int argc, char **argv, ic_cli *cli, const char **path) {
  memset(cli, 0, sizeof *cli);
  cli->cond_max = LTH_DEFAULT_COND_MAX;
  app_option opts[] = {
      {"at", 0, APP_OPT_DOUBLE, &cli->at, NULL, 0, 0, 0},
      {"guess", 0, APP_OPT_LIST, &cli->guess, NULL, 0, 0, 0},
      {"format", 0, APP_OPT_CHOICE, &cli->format, "text|json", 0, 0, 0},
      {"output", 'o', APP_OPT_STRING, &cli->out_path, NULL, 0, 0, 0},
      {"nearest", 0, APP_OPT_FLAG, &cli->nearest, NULL, 0, 0, 0},
      {"fix", 0, APP_OPT_STRING, &cli->fix, NULL, 0, 0, 0},
      {"conditions", 0, APP_OPT_FLAG, &cli->conditions, NULL, 0, 0, 0},
      {"cond-max", 0, APP_OPT_DOUBLE, &cli->cond_max, NULL, 1, 1e300, 0},
  };
  app_spec spec = {help_text, opts, sizeof opts / sizeof opts[0], 1, 1};
  const char *args[1];
  int nargs;
  int rc = app_parse(&spec, argc, argv, args, &nargs);
  if (rc != APP_CONTINUE) {
    return rc;
  }
  cli->at_given = opts[0].given;
  cli->guess_given = opts[1].given;
  if (cli->nearest && cli->fix) {
    return app_usage_error("--nearest and --fix exclude each other");
  }
  *path = args[0];
  return APP_CONTINUE;
}

/* "I=V,I=V,...": 1-based indices into z (checked against s), finite values. */
static int parse_fix(const char *text, int s, ic_run *R) {
  size_t cap = 1;
  for (const char *c = text; *c; c++) {
    cap += *c == ',';
  }
  char *copy = malloc(strlen(text) + 1);
  R->fix_idx = malloc(cap * sizeof *R->fix_idx);
  R->fix_val = malloc(cap * sizeof *R->fix_val);
  if (!copy || !R->fix_idx || !R->fix_val) {
    free(copy);
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  strcpy(copy, text);
  int rc = APP_CONTINUE;
  char *save = NULL;
  R->nfix = 0;
  for (char *item = strtok_r(copy, ",", &save); item && rc == APP_CONTINUE;
       item = strtok_r(NULL, ",", &save)) {
    char *eq = strchr(item, '=');
    long idx = 0;
    double val = 0.0;
    if (!eq) {
      rc = app_usage_error("--fix: '%s' is not I=VALUE (I a 1-based index into z)", item);
      break;
    }
    *eq = '\0';
    if (app_parse_long(item, &idx) != 0 || idx < 1 || idx > s) {
      rc = app_usage_error("--fix: index '%s' is not an integer in 1..%d (s = %d components)", item,
                           s, s);
    } else if (app_parse_double(eq + 1, &val) != 0) {
      rc = app_usage_error("--fix: value '%s' for z[%ld] is not a finite number", eq + 1, idx);
    }
    for (int k = 0; k < R->nfix && rc == APP_CONTINUE; k++) {
      if (R->fix_idx[k] == idx - 1) {
        rc = app_usage_error("--fix: z[%ld] is given twice", idx);
      }
    }
    if (rc == APP_CONTINUE) {
      R->fix_idx[R->nfix] = (int)(idx - 1);
      R->fix_val[R->nfix++] = val;
    }
  }
  if (rc == APP_CONTINUE && R->nfix == 0) {
    rc = app_usage_error("--fix needs at least one I=VALUE pair");
  }
  free(copy);
  return rc;
}

/* --at T inside the interval (the same message as the other tools' --at). */
static int select_time(ic_run *R) {
  double t0, t1;
  lth_problem_interval(R->pb, &t0, &t1);
  R->t = t0;
  if (!R->cli->at_given) {
    return 0;
  }
  double at = R->cli->at;
  app_list one = {&at, 1};
  app_times tm;
  int rc = app_times_select(&tm, R->pb, &one, "--at", 0);
  app_times_free(&tm);
  R->t = R->cli->at;
  return rc;
}

/* The guess: --guess, else the file's z0, else zeros. */
static int select_guess(ic_run *R) {
  const double *fz0 = NULL;
  if (R->cli->guess_given) {
    if (R->cli->guess.n != (size_t)R->s) {
      char blocks[128] = "";
      size_t used = 0;
      for (int i = 1; i <= R->r && used < sizeof blocks; i++) {
        int k = snprintf(blocks + used, sizeof blocks - used, "%s%d", i > 1 ? " " : "",
                         lth_system_block_size(R->sys, i));
        used += k > 0 ? (size_t)k : 0;
      }
      return app_usage_error("--guess has %zu values; %s has s = %d components (blocks %s)",
                             R->cli->guess.n, R->path, R->s, blocks);
    }
    memcpy(R->guess, R->cli->guess.v, (size_t)R->s * sizeof *R->guess);
    R->guess_source = "--guess";
  } else if (lth_problem_z0(R->pb, &fz0)) {
    memcpy(R->guess, fz0, (size_t)R->s * sizeof *R->guess);
    R->guess_source = "the file's z0";
  } else {
    memset(R->guess, 0, (size_t)R->s * sizeof *R->guess);
    R->guess_source = "zeros (no --guess, no z0 in the file)";
  }
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Computation                                                              */

static lth_status compute(ic_run *R, lth_ic *ic, lth_error *err) {
  lth_ic_set_cond_max(ic, R->cli->cond_max);
  lth_status st = lth_ic_setup(ic, R->t, err);
  if (st != LTH_OK) {
    return st;
  }
  R->ic = ic;
  R->cond_chain = lth_ic_point(ic)->cond_chain;
  switch (R->method) {
  case METHOD_NEAREST:
    st = lth_ic_nearest(ic, R->guess, R->z0, err);
    break;
  case METHOD_FIX:
    st = lth_ic_fix(ic, R->guess, R->nfix, R->fix_idx, R->fix_val, R->z0, err);
    break;
  default:
    st = lth_ic_project(ic, R->guess, R->z0, err);
  }
  if (st != LTH_OK) {
    if (!err->has_t) {
      err->has_t = 1;
      err->t = R->t;
    }
    return st;
  }
  R->residual = lth_ic_residual(ic, R->z0);
  R->guess_residual = lth_ic_residual(ic, R->guess);
  R->tolerance = lth_ic_tolerance(ic, R->z0);
  for (int i = 0; i < R->s; i++) {
    if (!isfinite(R->z0[i])) {
      return lth_error_set_t(err, LTH_ENOTFINITE, R->t, "z0[%d] is not finite", i + 1);
    }
  }
  /* a value that misses the conditions would be silently wrong: refuse it */
  if (!(R->residual <= R->tolerance)) {
    return lth_error_set_t(err, LTH_EVERIFY, R->t,
                           "the computed z0 misses the consistency conditions: ||M0 z0 - b0|| "
                           "= %.3e exceeds %.3e (cond_chain %.3e)",
                           R->residual, R->tolerance, R->cond_chain);
  }
  double ch = 0.0;
  for (int i = 0; i < R->s; i++) {
    double d = R->z0[i] - R->guess[i];
    ch += d * d;
    /* "changed": beyond the rounding of a consistent value */
    if (fabs(d) > R->tolerance) {
      R->changed[R->nchanged++] = i;
    }
  }
  R->change = sqrt(ch);
  return LTH_OK;
}

/* ------------------------------------------------------------------------ */
/* Output                                                                   */

static const char *method_key(int method) {
  return method == METHOD_NEAREST ? "nearest" : method == METHOD_FIX ? "fix" : "project";
}

static const char *method_text(int method) {
  switch (method) {
  case METHOD_NEAREST:
    return "nearest consistent value in the 2-norm (--nearest)";
  case METHOD_FIX:
    return "prescribed components, the rest fitted to the guess (--fix)";
  default:
    return "oblique projection, Clark's Corollary 3: z0 = G (guess) + q";
  }
}

static void json_conditions(app_json *j, const ic_run *R) {
  const double *M0, *b0;
  int np = lth_ic_conditions(R->ic, &M0, &b0);
  app_json_key(j, "conditions");
  app_json_begin_object(j);
  app_json_key(j, "M0");
  app_json_matrix(j, M0, np, R->s, np > 0 ? np : 1);
  app_json_key(j, "b0");
  app_json_vector(j, b0, (size_t)np, 1);
  app_json_end_object(j);
}

static void json_fixed(app_json *j, const ic_run *R) {
  app_json_key(j, "fixed");
  app_json_begin_array(j);
  for (int k = 0; k < R->nfix; k++) {
    app_json_begin_object(j);
    app_json_key(j, "index");
    app_json_int(j, R->fix_idx[k] + 1);
    app_json_key(j, "value");
    app_json_number(j, R->fix_val[k]);
    app_json_end_object(j);
  }
  app_json_end_array(j);
}

static int write_json(FILE *fp, const ic_run *R) {
  app_json j;
  app_json_init(&j, fp, 2);
  app_json_begin_object(&j);
  app_json_key(&j, "t");
  app_json_number(&j, R->t);
  app_json_key(&j, "p");
  app_json_int(&j, R->p);
  app_json_key(&j, "z0");
  app_json_vector(&j, R->z0, (size_t)R->s, 1);
  app_json_key(&j, "residual");
  app_json_number(&j, R->residual);
  app_json_key(&j, "method");
  app_json_string(&j, method_key(R->method));
  app_json_key(&j, "index");
  app_json_int(&j, R->r);
  app_json_key(&j, "s");
  app_json_int(&j, R->s);
  app_json_key(&j, "guess");
  app_json_vector(&j, R->guess, (size_t)R->s, 1);
  app_json_key(&j, "guess_source");
  app_json_string(&j, R->guess_source);
  app_json_key(&j, "guess_residual");
  app_json_number(&j, R->guess_residual);
  app_json_key(&j, "change");
  app_json_number(&j, R->change);
  app_json_key(&j, "changed");
  app_json_begin_array(&j);
  for (int k = 0; k < R->nchanged; k++) {
    app_json_int(&j, R->changed[k] + 1);
  }
  app_json_end_array(&j);
  app_json_key(&j, "tolerance");
  app_json_number(&j, R->tolerance);
  app_json_key(&j, "cond_chain");
  app_json_number(&j, R->cond_chain);
  if (R->method == METHOD_FIX) {
    json_fixed(&j, R);
  }
  if (R->cli->conditions) {
    json_conditions(&j, R);
  }
  app_json_end_object(&j);
  return app_json_finish(&j);
}

static int is_fixed(const ic_run *R, int i) {
  for (int k = 0; k < R->nfix; k++) {
    if (R->fix_idx[k] == i) {
      return 1;
    }
  }
  return 0;
}

/* One row per component: name, guess, z0, change, a mark for moved ones. */
static void text_table(FILE *fp, const ic_run *R) {
  fprintf(fp, "\n  %-18s %24s %24s %12s\n", "component", "guess", "z0", "change");
  for (int i = 0; i < R->s; i++) {
    char name[64], bg[32], bz[32];
    lth_system_component_name(R->sys, i, name, sizeof name);
    double d = R->z0[i] - R->guess[i];
    const char *mark = is_fixed(R, i) ? "  (fixed)" : fabs(d) > R->tolerance ? "  *" : "";
    fprintf(fp, "  %-18s %24s %24s %12.3g%s\n", name, app_fmt_exact(bg, sizeof bg, R->guess[i]),
            app_fmt_exact(bz, sizeof bz, R->z0[i]), d, mark);
  }
}

static void text_conditions(FILE *fp, const ic_run *R) {
  const double *M0, *b0;
  int np = lth_ic_conditions(R->ic, &M0, &b0);
  fprintf(fp,
          "\nconsistency conditions M0 z0 = b0 (Clark section 4.1; s - p = %d rows,\n"
          "M0 with orthonormal rows spanning N(G^T), b0 = M0 q):\n",
          np);
  app_text_matrix(fp, "  ", "M0", M0, np, R->s, np > 0 ? np : 1);
  app_text_vector(fp, "  ", "b0", b0, (size_t)np);
}

static void write_text(FILE *fp, const ic_run *R) {
  char b[32], b2[32];
  fprintf(fp, "file           %s\n", R->path);
  fprintf(fp, "index          r = %d, s = %d components, manifold p = %d\n", R->r, R->s, R->p);
  fprintf(fp, "time           t = %s\n", app_fmt_exact(b, sizeof b, R->t));
  fprintf(fp, "method         %s\n", method_text(R->method));
  fprintf(fp, "guess          %s; ||M0 guess - b0|| = %.3g (%s)\n", R->guess_source,
          R->guess_residual,
          R->guess_residual <= lth_ic_tolerance(R->ic, R->guess) ? "consistent" : "inconsistent");
  fprintf(fp, "result         ||M0 z0 - b0|| = %s (tolerance %s): consistent\n",
          app_fmt_g(b, sizeof b, R->residual, 3), app_fmt_g(b2, sizeof b2, R->tolerance, 3));
  if (R->nchanged == 0) {
    fprintf(fp, "change         none: the guess is returned unchanged\n");
  } else {
    fprintf(fp, "change         ||z0 - guess|| = %.6g in %d component%s (marked *)\n", R->change,
            R->nchanged, R->nchanged == 1 ? "" : "s");
  }
  text_table(fp, R);
  /* shortest digits that read back exactly: pasting loses nothing */
  fprintf(fp, "\nfor the data file:\n  z0 = [");
  for (int i = 0; i < R->s; i++) {
    fprintf(fp, "%s%s", i ? "; " : "",
            app_fmt_exact(b, sizeof b, R->z0[i] == 0.0 ? 0.0 : R->z0[i]));
  }
  fprintf(fp, "]\n");
  if (R->cli->conditions) {
    text_conditions(fp, R);
  }
}

static lth_status write_output(const ic_run *R, lth_error *err) {
  app_out out;
  lth_status st = app_out_open(&out, R->cli->out_path, err);
  if (st != LTH_OK) {
    return st;
  }
  int bad = 0;
  if (R->cli->format == FMT_JSON) {
    bad = write_json(out.fp, R) != 0;
  } else {
    write_text(out.fp, R);
  }
  return app_out_finish(&out, bad, err);
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

static void run_free(ic_run *R) {
  free(R->guess);
  free(R->z0);
  free(R->changed);
  free(R->fix_idx);
  free(R->fix_val);
}

static int run_setup(ic_run *R) {
  R->sys = lth_problem_system(R->pb);
  R->r = lth_system_index(R->sys);
  R->s = lth_system_size(R->sys);
  R->p = lth_system_manifold_dim(R->sys);
  R->method = R->cli->fix ? METHOD_FIX : R->cli->nearest ? METHOD_NEAREST : METHOD_PROJECT;
  R->guess = calloc((size_t)R->s, sizeof *R->guess);
  R->z0 = calloc((size_t)R->s, sizeof *R->z0);
  R->changed = calloc((size_t)R->s, sizeof *R->changed);
  if (!R->guess || !R->z0 || !R->changed) {
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  int rc = select_time(R);
  if (rc == 0) {
    rc = select_guess(R);
  }
  if (rc == 0 && R->cli->fix) {
    rc = parse_fix(R->cli->fix, R->s, R);
    rc = rc == APP_CONTINUE ? 0 : rc;
  }
  return rc;
}

static int run(const ic_cli *cli, const char *path, const lth_problem *pb) {
  ic_run R;
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
  lth_ic *ic = lth_ic_alloc(R.sys, &err);
  lth_status st = ic ? compute(&R, ic, &err) : err.status;
  if (st == LTH_OK) {
    st = write_output(&R, &err);
  }
  rc = st == LTH_OK ? 0 : app_fail(&err);
  lth_ic_free(ic);
  run_free(&R);
  return rc;
}

int main(int argc, char **argv) {
  app_init("lth-ic");
  ic_cli cli;
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
  app_list_free(&cli.guess);
  return rc;
}
