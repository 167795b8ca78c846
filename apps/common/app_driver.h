/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The one driver of the lth tools: main(), the common options, loading the
 * data file, the report times, the progress line, the output file and the
 * exit status are here; a tool only describes itself (an app_tool) and
 * computes.  An option or a behaviour added here is the same in every tool.
 *
 *   struct app_ctx { ...the tool's own options and results... };
 *   static app_ctx ctx = {...defaults...};
 *   static app_option opts[] = {APP_LIST("guess", &ctx.guess), ...};
 *   static const app_tool tool = {.name = "lth-ic", .help = ..., .opts = opts, ...,
 *       .compute = compute, .write = {write_text, write_csv, write_json}};
 *   int main(int argc, char **argv) { return app_main(&tool, &ctx, argc, argv); }
 *
 * Typing.  Every tool defines its own `struct app_ctx` in its .c file; here
 * the type is incomplete, and the driver only hands the pointer back to the
 * tool's callbacks.  Each program is one tool, so each program has exactly
 * one complete definition: every callback is typed (no void * to cast in
 * every function, as a void *ctx would need), the compiler checks that the
 * callbacks take the tool's context, and the driver cannot depend on a
 * tool's fields.  What the driver owns and a tool reads (common options,
 * the problem, the times, names, progress) is in app_run, also typed.
 *
 * A run: parse the common options and the tool's (usage errors, exit 1) ->
 * tool.validate -> load the data file (app_problem_opts; exit 2) -> tool.prepare
 * -> the report times (--times/--at, --grid, the file's grid) -> tool.compute
 * (with run->progress) -> tool.check (finiteness, before a byte is written)
 * -> the writer of --format into stdout or the -o file (atomic) ->
 * tool.after (notes and warnings on stderr; may still fail the run).
 * Tools that stream (lth-decompose) have the output opened before compute.
 *
 * Hooks for what comes next (one place each): --param NAME=VALUE and reading
 * the data file from "-" go into app_problem_opts and app_load (app_driver.c);
 * the user's variable names into app_names (app_names.h), from which the
 * tables, JSON "components" and messages of lth-ic, lth-solve and lth-bvp
 * take their labels; --plot FILE would be one more entry of app_tool (a
 * writer beside .write) and one common option here; error-estimate lines
 * belong to a tool's writers and check; a BVP method is one more name in
 * lth-bvp's --method choice.
 */
#ifndef LTH_APP_DRIVER_H
#define LTH_APP_DRIVER_H

#include <stdio.h>

#include "lth/defaults.h"
#include "lth/problem.h"
#include "lth/status.h"

#include "app.h"
#include "app_names.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Defined by each tool (see above). */
typedef struct app_ctx app_ctx;

/* The output formats; a tool offers those it has a writer for (app_tool.write).
 * APP_FMT_MAT: MATLAB/Octave v5 .mat, a binary file (lth-ss). */
typedef enum app_format {
  APP_FMT_TEXT = 0,
  APP_FMT_CSV = 1,
  APP_FMT_JSON = 2,
  APP_FMT_MAT = 3
} app_format;
#define APP_NFORMATS 4
/* The format's name as --format spells it ("text", "csv", "json", "mat"). */
const char *app_format_name(int format);

/* How a tool takes times. */
typedef enum app_times_use {
  APP_TIMES_NONE = 0, /* no --times/--at */
  APP_TIMES_ONE,      /* one time (lth-ic): --at T or --times T; default t0 */
  APP_TIMES_MANY      /* a list or --grid N; default the file's grid */
} app_times_use;

/* Everything that decides how the data file becomes a problem; app_load
 * gets it.  (Hook: parameter overrides, "-" for standard input.) */
typedef struct app_problem_opts {
  const char *path;          /* "-": standard input */
  const char *const *params; /* --param NAME=VALUE, in order */
  size_t nparams;
} app_problem_opts;

/* The common options (the same name and meaning in every tool). */
typedef struct app_common {
  int format;            /* app_format */
  const char *out_path;  /* -o FILE (NULL: standard output) */
  int quiet;             /* -q: no progress line */
  long threads;          /* --threads N (0: not given, all cores) */
  double cond_max;       /* --cond-max X (default LTH_DEFAULT_COND_MAX) */
  app_list times;        /* --times / --at */
  const char *times_opt; /* how the user spelled it: "--times" or "--at" */
  long grid_n;           /* --grid N (0: not given) */
  app_strings params;    /* --param NAME=VALUE (repeatable) */
} app_common;

/* What the driver gives the tool's callbacks. */
typedef struct app_run {
  const app_common *opt;
  app_problem_opts popts;
  const char *path; /* the data file in messages and reports: "<stdin>" for "-" */
  const lth_problem *pb;
  const lth_system *sys;
  int r, s, m, p;         /* index, size, state dimension, manifold dimension */
  double t0, t1;          /* the file's interval */
  app_times tm;           /* the report times (tool.times != NONE), in the user's order */
  app_names names;        /* names of the nout components */
  int nout;               /* components in the outputs: s, and the index-1 unknowns of an
                             equation-form file after them (app_outputs) */
  lth_model_values *vals; /* their values (NULL: none) */
  int ny;                 /* the file's outputs (lth_problem_noutputs) */
  const char **ynames;    /* their names */
  double *y;              /* their rows at the report times (app_signal_outputs), or NULL */
  int free_input;         /* the first input without a signal, set to 0 (free_inputs_zero), or -1 */
  int *free_in;           /* per input: 1 if it was free and set to 0 (NULL: none was) */
  app_progress progress;  /* hand to library callbacks (app_progress_update / _time) */
  FILE *fp;               /* the output (streaming tools: already during compute) */
  app_json json;          /* initialised for --format json on fp */
  app_csv csv;            /* initialised for --format csv on fp */
  /* A writer that fails on its own (a binary format's library, not the
   * stream) records why here; the output is then removed and the run fails
   * with this error.  Clear (LTH_OK) before the writer runs. */
  lth_error write_err;
} app_run;

typedef struct app_tool {
  const char *name;          /* "lth-ic" */
  const char *help;          /* --help: usage, description, the tool's own options */
  const char *help_tail;     /* --help after the common options: examples, keys, exit status */
  const char *times_default; /* --help: the times without --times (NULL: the file's grid) */
  app_times_use times;
  int streams;   /* output opened before compute, which writes into it */
  int json_wrap; /* app_json_init's wrap_depth (0: 2) */
  /* 1: a free input (no signal in the file) is taken as 0 and said so (the
   * decomposition's P, Ahat, Bhat, G do not depend on it); 0: it is a usage
   * error naming the input (the tool needs its values) */
  int free_inputs_zero;
  const char *progress_label, *progress_unit;
  app_option *opts; /* the tool's own options */
  size_t nopts;
  /* After parsing, before loading: exclusions between options.  0 or an
   * exit status (app_usage_error). */
  int (*validate)(app_ctx *c, const app_run *run);
  /* After loading, before the times: read what the tool needs from the
   * problem and the options.  0 or an exit status (already reported). */
  int (*prepare)(app_ctx *c, app_run *run);
  lth_status (*compute)(app_ctx *c, app_run *run, lth_error *err);
  /* Every number about to be written is finite, else LTH_ENOTFINITE naming
   * the quantity and t (app_check.h). */
  lth_status (*check)(const app_ctx *c, const app_run *run, lth_error *err);
  /* Writers by app_format (NULL: format not offered; --help and --format
   * list only the offered ones).  Text and MAT write to run->fp, CSV to
   * run->csv, JSON to run->json; a writer may fail through run->write_err. */
  void (*write[APP_NFORMATS])(const app_ctx *c, app_run *run);
  /* After a successful write: notes and warnings; may fail the run. */
  lth_status (*after)(app_ctx *c, const app_run *run, lth_error *err);
  void (*cleanup)(app_ctx *c);
} app_tool;

/* Rows of z (s entries each, canonical) at times[0..n-1] -> new rows of
 * run->nout entries: z, then the index-1 unknowns y = -K^{-1}(L z + f) of an
 * equation-form file (lth_model_values_at); ez (NULL: none) is z's error
 * estimate, and *ezx (NULL: not wanted) gets it with y's (-K^{-1} L ez). */
lth_status app_outputs(const app_run *run, const double *times, const double *z, const double *ez,
                       size_t n, double **zx, double **ezx, lth_error *err);
/* The outputs y = C z + D u + y0 at times[0..n-1] from rows of zx (stride
 * entries each, canonical z first) into run->y (n rows of run->ny); nothing
 * without outputs. */
lth_status app_signal_outputs(app_run *run, const double *times, const double *zx, size_t stride,
                              size_t n, lth_error *err);
/* The table of z (rows of run->nout) with the outputs' columns after it
 * (text, CSV), and the JSON keys "outputs" (names) and "y" (rows). */
void app_text_table_run(FILE *fp, const app_run *run, const double *times, const double *zx,
                        size_t n);
void app_csv_z_run(app_run *run, const double *times, const double *zx, size_t n);
void app_json_outputs(app_json *j, const app_run *run, size_t n);

/* A value given for every unknown at t (nout entries, canonical then y):
 * LTH_ECONSIST naming the first index-1 unknown whose value is not the one
 * the others fix (relative 1e-10 of the data's size), LTH_OK otherwise. */
lth_status app_index1_consistent(const app_run *run, double t, const double *zx, lth_error *err);

/* The report line "index-1        e1, iV, e3, e4: eliminated, ..." (nothing
 * without index-1 unknowns). */
void app_index1_line(FILE *fp, const app_run *run);

/* The tool's main: returns the exit status. */
int app_main(const app_tool *tool, app_ctx *ctx, int argc, char **argv);

/* Load a data file as popts says.  0 and *pb, or the exit status (2 for
 * bad input) after reporting the error naming file:line:column. */
int app_load(const app_problem_opts *popts, lth_problem **pb);

#ifdef __cplusplus
}
#endif
#endif
