/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Shared code of the lth command-line tools (library lth_appcommon).
 *
 * Everything here is prefixed app_ (internal to the tools, not part of liblth).
 * A tool is an app_tool handed to app_main (app_driver.h), which owns main,
 * the common options, loading, times, progress, output and exit statuses.
 * The pieces: app_opts.h (options), app_times.h (report times), app_out.h
 * (stdout or -o FILE, atomic), app_json.h / app_csv.h / app_text.h /
 * app_table.h (formats), app_check.h (finite results, scaled norms),
 * app_names.h (component names), app_sampling.h (sampled-data errors).
 * Messages: app_fail(&err) prints "lth-foo: file:line:col: msg" and returns
 * the exit status.
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
/* A library message in the tools' words: the library names its options
 * (opts.cond_max) and functions, the tools' users have flags (--cond-max)
 * and tools (lth-ic).  Writes into buf (size bytes, cut if longer) and
 * returns it. */
const char *app_tool_message(const char *msg, char *buf, size_t size);
/* Same for a status without a record (uses lth_strerror). */
int app_fail_status(lth_status st);
/* "TOOL: message" and "Try 'TOOL --help' for more information." on stderr;
 * returns APP_EXIT_USAGE. */
int app_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* "dae" or "lqr". */
const char *app_problem_kind_name(const lth_problem *pb);

/* A count's noun: `one` for n = 1, else `many` ("1 panel", "3 panels"). */
const char *app_plural(double n, const char *one, const char *many);

/* Wall-clock seconds from an arbitrary origin (for elapsed times). */
double app_seconds(void);

/* Progress line on stderr, shown only when stderr is a terminal and not
 * quiet: "\rLABEL: 4200/10000 points (42%)" or "\rLABEL: t = 2.5 of 5 (50%)",
 * cleared by app_progress_end.  The driver sets one up for every run
 * (app_run.progress); a tool hands it to the library's callbacks:
 *   grid_opts.progress = app_progress_update;  (counts: done of total)
 *   ivp_opts.progress = app_progress_time;     (time reached of the end time)
 *   ...progress_ctx = &run->progress;  */
typedef struct app_progress {
  const char *label; /* e.g. "decomposing" */
  const char *unit;  /* e.g. "points" */
  double t0;         /* start of the interval (app_progress_time) */
  int enabled;
  int shown;   /* a line is on the terminal */
  double last; /* time of the last redraw (throttles to ~10 per second) */
} app_progress;
void app_progress_init(app_progress *p, const char *label, const char *unit, int quiet);
void app_progress_update(void *ctx, size_t done, size_t total);
void app_progress_time(void *ctx, double t, double t_end);
void app_progress_end(app_progress *p);

#ifdef __cplusplus
}
#endif
#endif
