/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared code of the lth command-line tools (library lth_appcommon).
 *
 * Everything here is prefixed app_ (internal to the tools, not part of liblth).
 * A tool includes "app.h" and follows this skeleton:
 *
 *   int main(int argc, char **argv) {
 *     app_init("lth-foo");                   // name for messages; GSL handler off
 *     app_option opts[] = {...};             // app_opts.h
 *     app_spec spec = {HELP, opts, n, 1, 1};
 *     const char *args[1];
 *     int nargs, rc = app_parse(&spec, argc, argv, args, &nargs);
 *     if (rc != APP_CONTINUE) return rc;     // --help/--version (0) or usage error (1)
 *     lth_problem *pb;
 *     rc = app_load_problem(args[0], &pb);   // 0, or exit status 2/3 with message
 *     ...
 *     app_times tm;                           // app_times.h: grid / --grid / --at
 *     app_out out;                            // app_out.h: stdout or -o FILE (atomic)
 *     app_json js;                            // app_json.h / app_csv.h / app_text.h
 *     app_sampling smp;                       // app_sampling.h: sampled-data errors
 *     ...on an lth_error: return app_fail(&err);   // "lth-foo: file:line:col: msg", exit code
 *   }
 *
 * Exit statuses (docs/format.md section 2): 0 success, 1 usage error, 2 input error
 * (file/format), 3 numerical failure; lth_status_exit_code maps library codes.
 */
#ifndef LTH_APP_H
#define LTH_APP_H

#include <stddef.h>
#include <stdio.h>

#include "lth/problem.h"
#include "lth/status.h"

#include "app_csv.h"
#include "app_json.h"
#include "app_opts.h"
#include "app_out.h"
#include "app_sampling.h"
#include "app_text.h"
#include "app_times.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Version printed by --version (the CMake project version). */
#define APP_VERSION "0.1.0"

/* Exit statuses. */
enum { APP_EXIT_OK = 0, APP_EXIT_USAGE = 1, APP_EXIT_INPUT = 2, APP_EXIT_NUMERIC = 3 };

/* Call first: records the tool's name for messages and turns GSL's aborting
 * error handler off (the library returns codes; a tool must never abort). */
void app_init(const char *tool);
/* The name given to app_init ("lth" before). */
const char *app_name(void);

/* "TOOL: warning: ..." on stderr. */
void app_warn(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "TOOL: ..." on stderr; returns exit_code (so: return app_failf(3, "...")). */
int app_failf(int exit_code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "TOOL: file:line:col: message (t = ..., condition estimate ...)" from a
 * library error record (lth_error_format); returns lth_status_exit_code of
 * its status (2 input, 3 numerical, 1 usage). */
int app_fail(const lth_error *err);
/* Same for a status without a record (uses lth_strerror). */
int app_fail_status(lth_status st);
/* "TOOL: message" and "Try 'TOOL --help' for more information." on stderr;
 * returns APP_EXIT_USAGE. */
int app_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Read a data file.  Returns 0 and sets *pb, or prints the error (naming
 * file:line:column) and returns its exit status (2 for bad input). */
int app_load_problem(const char *path, lth_problem **pb);
/* "dae" or "lqr". */
const char *app_problem_kind_name(const lth_problem *pb);

/* Wall-clock seconds from an arbitrary origin (for elapsed times). */
double app_seconds(void);

/* Progress line on stderr, shown only when stderr is a terminal and not
 * quiet: "\rLABEL: 4200/10000 points (42%)", cleared by app_progress_end.
 * app_progress_update has the signature of lth_grid_opts.progress:
 *   opts.progress = app_progress_update; opts.progress_ctx = &prog;  */
typedef struct app_progress {
  const char *label; /* e.g. "decomposing" */
  const char *unit;  /* e.g. "points" */
  int enabled;
  int shown;         /* a line is on the terminal */
  double last;       /* time of the last redraw (throttles to ~10 per second) */
} app_progress;
void app_progress_init(app_progress *p, const char *label, const char *unit, int quiet);
void app_progress_update(void *ctx, size_t done, size_t total);
void app_progress_end(app_progress *p);

#ifdef __cplusplus
}
#endif
#endif
