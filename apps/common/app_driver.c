/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The driver of the lth tools (app_driver.h). */
#define _POSIX_C_SOURCE 200809L

#include "app_driver.h"
#include "app_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lth/defaults.h"
#include "lth/decomp.h"

#include "app_blas.h"
#include "app_help.h"

/* The common options, in the order of app_help's block. */
enum { C_TIMES, C_GRID, C_FORMAT, C_OUTPUT, C_QUIET, C_THREADS, C_COND_MAX, C_PARAM, C_COUNT };

typedef struct driver {
  const app_tool *tool;
  app_common opt;
  app_option *all; /* the common options, then the tool's */
  size_t nall;
  char *help;
  char formats[64];            /* --format's choices: the tool's writers, "text|csv|json" */
  int format_of[APP_NFORMATS]; /* choice index -> app_format */
} driver;

const char *app_format_name(int format) {
  static const char *const names[APP_NFORMATS] = {"text", "csv", "json", "mat"};
  return format >= 0 && format < APP_NFORMATS ? names[format] : "?";
}

/* --format offers the formats the tool has a writer for, in app_format's order. */
static void format_choices(driver *D) {
  size_t used = 0;
  int k = 0;
  for (int f = 0; f < APP_NFORMATS; f++) {
    if (D->tool->write[f]) {
      used += (size_t)snprintf(D->formats + used, sizeof D->formats - used, "%s%s", k ? "|" : "",
                               app_format_name(f));
      D->format_of[k++] = f;
    }
  }
}

static void common_options(driver *D, app_option *o) {
  app_common *c = &D->opt;
  const app_tool *T = D->tool;
  /* lth-ic takes one time: "--at T" is its first spelling */
  o[C_TIMES] = (app_option){.name = T->times == APP_TIMES_ONE ? "at|times" : "times|at",
                            .type = APP_OPT_LIST,
                            .dest = &c->times};
  o[C_GRID] =
      (app_option){.name = "grid", .type = APP_OPT_INT, .dest = &c->grid_n, .min = 2, .max = 1e8};
  format_choices(D);
  o[C_FORMAT] = (app_option){
      .name = "format", .type = APP_OPT_CHOICE, .dest = &c->format, .choices = D->formats};
  o[C_OUTPUT] = (app_option){
      .name = "output", .short_name = 'o', .type = APP_OPT_STRING, .dest = &c->out_path};
  o[C_QUIET] =
      (app_option){.name = "quiet", .short_name = 'q', .type = APP_OPT_FLAG, .dest = &c->quiet};
  o[C_THREADS] = (app_option){
      .name = "threads", .type = APP_OPT_INT, .dest = &c->threads, .min = 1, .max = 256};
  o[C_COND_MAX] = (app_option){
      .name = "cond-max", .type = APP_OPT_DOUBLE, .dest = &c->cond_max, .min = 1, .max = 1e300};
  o[C_PARAM] = (app_option){.name = "param", .type = APP_OPT_STRINGS, .dest = &c->params};
  if (T->times == APP_TIMES_NONE) {
    o[C_TIMES].name = NULL; /* no long name: never matches */
  }
  if (T->times != APP_TIMES_MANY) {
    o[C_GRID].name = NULL;
  }
}

/* Exclusions and counts of the common options. */
static int check_common(driver *D) {
  const app_option *o = D->all;
  app_common *c = &D->opt;
  const app_tool *T = D->tool;
  const char *first = T->times == APP_TIMES_ONE ? "--at" : "--times";
  c->times_opt = o[C_TIMES].given ? o[C_TIMES].used : first;
  if (o[C_TIMES].given && o[C_GRID].given) {
    return app_usage_error("%s and --grid exclude each other", c->times_opt);
  }
  if (T->times == APP_TIMES_ONE && o[C_TIMES].given && c->times.n != 1) {
    return app_usage_error("%s takes one time for %s (%zu given)", c->times_opt, T->name,
                           c->times.n);
  }
  c->format = D->format_of[c->format]; /* the choice's index -> app_format */
  if (!T->write[c->format]) {
    return app_usage_error("--format %s is not available for %s", app_format_name(c->format),
                           T->name);
  }
  return 0;
}

/* Parse argv into the common options and the tool's; APP_CONTINUE to go on. */
static int parse(driver *D, int argc, char **argv, const char **path) {
  const app_tool *T = D->tool;
  D->nall = C_COUNT + T->nopts;
  D->all = calloc(D->nall, sizeof *D->all);
  D->help = app_help_compose(T);
  if (!D->all || !D->help) {
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  common_options(D, D->all);
  memcpy(D->all + C_COUNT, T->opts, T->nopts * sizeof *T->opts);
  app_spec spec = {.help = D->help, .opts = D->all, .nopts = D->nall, .min_args = 1, .max_args = 1};
  const char *args[1];
  int nargs;
  int rc = app_parse(&spec, argc, argv, args, &nargs);
  /* the tool reads given/used from its own table */
  for (size_t k = 0; k < T->nopts; k++) {
    T->opts[k].given = D->all[C_COUNT + k].given;
    memcpy(T->opts[k].used, D->all[C_COUNT + k].used, sizeof T->opts[k].used);
  }
  if (rc != APP_CONTINUE) {
    return rc;
  }
  *path = args[0];
  rc = check_common(D);
  return rc == 0 ? APP_CONTINUE : rc;
}

static void driver_free(driver *D) {
  for (size_t k = 0; D->all && k < D->nall; k++) {
    if (D->all[k].type == APP_OPT_LIST) {
      app_list_free(D->all[k].dest);
    }
    if (D->all[k].type == APP_OPT_STRINGS) {
      app_strings_free(D->all[k].dest);
    }
  }
  free(D->all);
  free(D->help);
}

/* Hook: parameter overrides and "-" (standard input) are read here. */
int app_load(const app_problem_opts *popts, lth_problem **pb) {
  const char *path = popts->path;
  lth_error err;
  lth_error_clear(&err);
  *pb = NULL;
  lth_problem_opts po;
  lth_problem_opts_init(&po);
  po.params = popts->params;
  po.nparams = popts->nparams;
  lth_status st = lth_problem_read_opts(path, &po, pb, &err);
  if (st == LTH_EINVAL) {
    /* a --param naming no param of the file, or a bad value: the command line's fault */
    return app_fail(&err);
  }
  if (st != LTH_OK) {
    if (!err.file[0]) {
      /* make sure the message names the file even if the reader did not */
      lth_error_set_pos(&err, path, err.line, err.column);
    }
    int code = app_fail(&err);
    /* a reader failure is about the input, whatever code it used */
    return code == APP_EXIT_USAGE ? APP_EXIT_INPUT : code;
  }
  return 0;
}

/* --times / --at, --grid, or the file's grid; lth-ic: one time, default t0. */
static int select_times(const app_tool *T, app_run *run) {
  const app_common *c = run->opt;
  if (T->times == APP_TIMES_NONE) {
    return 0;
  }
  if (T->times == APP_TIMES_ONE && c->times.n == 0) {
    app_list one = {&run->t0, 1};
    return app_times_select(&run->tm, run->pb, &one, c->times_opt, 0);
  }
  return app_times_select(&run->tm, run->pb, &c->times, c->times_opt, c->grid_n);
}

static lth_status open_output(app_out *out, app_run *run, int json_wrap, lth_error *err) {
  lth_status st = app_out_open(out, run->opt->out_path, err);
  if (st == LTH_OK) {
    run->fp = out->fp;
    app_json_init(&run->json, out->fp, json_wrap > 0 ? json_wrap : 2);
    app_csv_init(&run->csv, out->fp);
  }
  return st;
}

/* Close the document; non-finite numbers the check missed are still exit 3. */
static lth_status finish_output(app_out *out, app_run *run, lth_error *err) {
  int bad = 0;
  if (run->write_err.status != LTH_OK) {
    app_out_abort(out);
    *err = run->write_err;
    return err->status;
  }
  if (run->opt->format == APP_FMT_JSON) {
    bad = app_json_finish(&run->json) != 0;
    if (app_json_nonfinite(&run->json) > 0) {
      app_out_abort(out);
      return lth_error_set(err, LTH_ENOTFINITE, "non-finite number in the output (key \"%s\")",
                           run->json.bad_key);
    }
  } else if (run->opt->format == APP_FMT_CSV) {
    bad = app_csv_finish(&run->csv) != 0;
    if (run->csv.nonfinite > 0) {
      app_out_abort(out);
      return lth_error_set(err, LTH_ENOTFINITE, "non-finite number in the CSV output");
    }
  }
  return app_out_finish(out, bad, err);
}

/* Compute, check, write, after: the part that reports through an lth_error. */
static int execute(const app_tool *T, app_ctx *C, app_run *run) {
  const app_common *c = run->opt;
  lth_error err;
  lth_error_clear(&err);
  app_out out;
  int open = 0;
  /* JSON or CSV streaming to the terminal would mix with the progress line */
  int quiet = c->quiet || (c->format != APP_FMT_TEXT && !c->out_path && isatty(STDOUT_FILENO));
  app_progress_init(&run->progress, T->progress_label ? T->progress_label : "working",
                    T->progress_unit ? T->progress_unit : "steps", quiet);
  run->progress.t0 = run->t0;
  lth_status st = LTH_OK;
  if (T->streams) {
    st = open_output(&out, run, T->json_wrap, &err);
    open = st == LTH_OK;
  }
  if (st == LTH_OK) {
    st = T->compute(C, run, &err);
  }
  app_progress_end(&run->progress);
  if (st == LTH_OK && T->check) {
    st = T->check(C, run, &err);
  }
  if (st == LTH_OK && !open) {
    st = open_output(&out, run, T->json_wrap, &err);
    open = st == LTH_OK;
  }
  if (st == LTH_OK) {
    lth_error_clear(&run->write_err);
    T->write[c->format](C, run);
    open = 0; /* finish_output commits or removes it */
    st = finish_output(&out, run, &err);
  }
  if (open) {
    app_out_abort(&out);
  }
  if (st == LTH_OK && T->after) {
    st = T->after(C, run, &err);
  }
  return st == LTH_OK ? 0 : app_fail(&err);
}

/* Load, prepare, choose the times, execute. */
static int go(const app_tool *T, app_ctx *C, app_run *run) {
  lth_problem *pb = NULL;
  int rc = app_load(&run->popts, &pb);
  if (rc != 0) {
    return rc;
  }
  run->pb = pb;
  run->sys = lth_problem_system(pb);
  run->r = lth_system_index(run->sys);
  run->s = lth_system_size(run->sys);
  app_blas_for_size(run->s);
  run->m = lth_system_state_dim(run->sys);
  run->p = lth_system_manifold_dim(run->sys);
  lth_problem_interval(pb, &run->t0, &run->t1);
  lth_error verr;
  if (app_names_init(&run->names, run->sys, pb) != 0) {
    rc = app_failf(APP_EXIT_NUMERIC, "out of memory");
  } else if (lth_problem_model(pb) && lth_model_index1_count(lth_problem_model(pb)) > 0 &&
             (!(run->vals = lth_model_values_alloc(lth_problem_model(pb), &verr)) ||
              lth_model_values_set_inputs(run->vals, run->sys, &verr) != LTH_OK)) {
    rc = app_fail(&verr); /* the inputs in the constraints of index-1 unknowns: their signals */
  }
  run->nout = run->names.n;
  run->ny = lth_problem_noutputs(pb);
  run->ynames = malloc(((size_t)run->ny + 1) * sizeof *run->ynames);
  for (int j = 0; run->ynames && j < run->ny; j++) {
    run->ynames[j] = lth_problem_output_name(pb, j);
  }
  if (rc == 0 && !run->ynames) {
    rc = app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  run->free_input = -1;
  int k = lth_problem_free_input(pb);
  if (rc == 0 && k >= 0 && !T->free_inputs_zero) {
    rc = app_failf(APP_EXIT_USAGE,
                   "the input %s has no signal: %s needs its values; give it in the file (%s(t) = "
                   "... or samples(\"...\"), docs/equations.md section 11)",
                   lth_problem_input_name(pb, k), T->name, lth_problem_input_name(pb, k));
  }
  if (rc == 0 && k >= 0 &&
      !(run->free_in = calloc((size_t)lth_problem_ninputs(pb), sizeof *run->free_in))) {
    rc = app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  for (; rc == 0 && k >= 0; k = lth_problem_free_input(pb)) { /* taken as 0, and said so */
    run->free_input = run->free_input < 0 ? k : run->free_input;
    run->free_in[k] = 1;
    lth_source *zero = lth_source_const(1, 1, (const double[]){0.0}, 1, &verr);
    if (!zero || lth_problem_set_input(pb, k, zero, &verr) != LTH_OK) {
      rc = app_fail(&verr);
    }
  }
  if (rc == 0 && T->prepare) {
    rc = T->prepare(C, run);
  }
  if (rc == 0) {
    rc = select_times(T, run);
  }
  if (rc == 0) {
    rc = execute(T, C, run);
  }
  app_times_free(&run->tm);
  app_names_free(&run->names);
  lth_model_values_free(run->vals);
  run->vals = NULL;
  free(run->y);
  run->y = NULL;
  free(run->ynames);
  run->ynames = NULL;
  free(run->free_in);
  run->free_in = NULL;
  lth_problem_free(pb);
  return rc;
}

lth_status app_outputs(const app_run *run, const double *times, const double *z, const double *ez,
                       size_t n, double **zx, double **ezx, lth_error *err) {
  size_t s = (size_t)run->s, no = (size_t)run->nout;
  const int *perm = run->vals ? lth_model_perm(lth_problem_model(run->pb)) : NULL;
  double *user = malloc((no + 1) * sizeof *user), *euser = malloc((no + 1) * sizeof *euser);
  *zx = malloc((n * no + 1) * sizeof **zx);
  if (ezx) {
    *ezx = ez ? malloc((n * no + 1) * sizeof **ezx) : NULL;
  }
  lth_status st = user && euser && *zx && (!ezx || !ez || *ezx)
                      ? LTH_OK
                      : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    if (!run->vals) {
      memcpy(*zx + k * no, z + k * s, s * sizeof **zx);
      if (ezx && ez) {
        memcpy(*ezx + k * no, ez + k * s, s * sizeof **ezx);
      }
      continue;
    }
    st = lth_model_values_at(run->vals, times[k], z + k * s, ez ? ez + k * s : NULL, user, euser,
                             err);
    for (size_t i = 0; i < no && st == LTH_OK; i++) { /* user order -> z, then y */
      (*zx)[k * no + i] = user[perm[i]];
      if (ezx && ez) {
        (*ezx)[k * no + i] = euser[perm[i]];
      }
    }
  }
  free(user);
  free(euser);
  return st;
}

lth_status app_signal_outputs(app_run *run, const double *times, const double *zx, size_t stride,
                              size_t n, lth_error *err) {
  size_t ny = (size_t)run->ny;
  free(run->y);
  run->y = NULL;
  if (ny == 0) {
    return LTH_OK;
  }
  if (!(run->y = malloc((n * ny + 1) * sizeof *run->y))) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  lth_status st = LTH_OK;
  for (size_t k = 0; k < n && st == LTH_OK; k++) {
    st = lth_system_outputs(run->sys, times[k], zx + k * stride, run->y + k * ny, err);
  }
  return st;
}

static const char *const *output_names(const app_run *run) { return run->ynames; }

void app_text_table_run(FILE *fp, const app_run *run, const double *times, const double *zx,
                        size_t n) {
  app_text_table_y(fp, &run->names, times, zx, n, (size_t)run->nout, output_names(run), run->y,
                   run->y ? (size_t)run->ny : 0);
}

void app_csv_z_run(app_run *run, const double *times, const double *zx, size_t n) {
  app_csv_z_y(&run->csv, &run->names, times, zx, n, (size_t)run->nout, output_names(run), run->y,
              run->y ? (size_t)run->ny : 0);
}

void app_json_outputs(app_json *j, const app_run *run, size_t n) {
  if (!run->y) {
    return;
  }
  app_json_key(j, "outputs");
  app_json_begin_array(j);
  for (int k = 0; k < run->ny; k++) {
    app_json_string(j, lth_problem_output_name(run->pb, k));
  }
  app_json_end_array(j);
  app_json_rows(j, "y", run->y, n, (size_t)run->ny);
}

lth_status app_index1_consistent(const app_run *run, double t, const double *zx, lth_error *err) {
  if (!run->vals) {
    return LTH_OK;
  }
  int s = run->s, ny = run->nout - run->s;
  double *y = malloc((2 * (size_t)ny + 1) * sizeof *y), *size = y ? y + ny : NULL;
  /* y = Y z + y0, and the size of what makes it */
  lth_status st = y ? lth_model_values_apply(run->vals, t, zx, y, size, err)
                    : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (int j = 0; st == LTH_OK && j < ny; j++) {
    if (!(fabs(zx[s + j] - y[j]) <= 1e-10 * fmax(1.0, size[j]))) {
      st = lth_error_set_t(err, LTH_ECONSIST, t,
                           "z0 is not consistent: the index-1 unknown %s is %.17g, but the other "
                           "unknowns fix it to %.17g (y = -K^{-1}(L z + f), docs/equations.md "
                           "section 10); give that value, or --project",
                           run->names.name[s + j], zx[s + j], y[j]);
    }
  }
  free(y);
  return st;
}

void app_index1_line(FILE *fp, const app_run *run) {
  if (run->nout <= run->s) {
    return;
  }
  fprintf(fp, "index-1        ");
  for (int i = run->s; i < run->nout; i++) {
    fprintf(fp, "%s%s", i > run->s ? ", " : "", run->names.name[i]);
  }
  fprintf(fp, ": fixed by equations without derivatives, y = -K^-1 (L z + f)\n");
}

int app_main(const app_tool *T, app_ctx *C, int argc, char **argv) {
  app_init(T->name);
  app_blas_setup();
  driver D;
  memset(&D, 0, sizeof D);
  D.tool = T;
  D.opt.cond_max = LTH_DEFAULT_COND_MAX;
  app_run run;
  memset(&run, 0, sizeof run);
  run.opt = &D.opt;
  int rc = parse(&D, argc, argv, &run.path);
  if (rc == APP_CONTINUE) {
    rc = T->validate ? T->validate(C, &run) : 0;
  }
  if (rc == 0 && run.path) {
    if (D.opt.threads > 0) {
      /* the default of every lth call that runs threads: grids, tables, the
       * scan beside an integration (docs/library.md, "Threads") */
      char n[24];
      snprintf(n, sizeof n, "%ld", D.opt.threads);
      setenv("LTH_NUM_THREADS", n, 1);
    }
    run.popts.path = run.path;
    if (strcmp(run.path, "-") == 0) {
      run.path = "<stdin>"; /* as the reader's messages name it */
    }
    run.popts.params = D.opt.params.v;
    run.popts.nparams = D.opt.params.n;
    rc = go(T, C, &run);
  }
  if (T->cleanup) {
    T->cleanup(C);
  }
  driver_free(&D);
  return rc;
}
