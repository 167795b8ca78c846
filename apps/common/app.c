/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Tool identity, messages, problem loading and the progress line (app.h). */
#define _POSIX_C_SOURCE 200809L

#include "app.h"

#include <gsl/gsl_errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *tool_name = "lth";

void app_init(const char *tool) {
  tool_name = tool;
  /* GSL's default handler calls abort(); the library maps GSL codes itself. */
  gsl_set_error_handler_off();
}

const char *app_name(void) { return tool_name; }

void app_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: warning: ", tool_name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int app_failf(int exit_code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", tool_name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return exit_code;
}

int app_fail(const lth_error *err) {
  char buf[LTH_ERROR_MSG_MAX + LTH_ERROR_FILE_MAX + 128];
  lth_error_format(err, buf, sizeof buf);
  fprintf(stderr, "%s: %s\n", tool_name, buf);
  int code = lth_status_exit_code(err->status);
  /* A record that was never filled must still not look like success. */
  return code == 0 ? APP_EXIT_NUMERIC : code;
}

int app_fail_status(lth_status st) {
  fprintf(stderr, "%s: %s\n", tool_name, lth_strerror(st));
  int code = lth_status_exit_code(st);
  return code == 0 ? APP_EXIT_NUMERIC : code;
}

int app_usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", tool_name);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\nTry '%s --help' for more information.\n", tool_name);
  va_end(ap);
  return APP_EXIT_USAGE;
}

const char *app_problem_kind_name(const lth_problem *pb) {
  return lth_problem_get_kind(pb) == LTH_PROBLEM_LQR ? "lqr" : "dae";
}

const char *app_plural(double n, const char *one, const char *many) {
  return n == 1.0 ? one : many;
}

double app_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void app_progress_init(app_progress *p, const char *label, const char *unit, int quiet) {
  memset(p, 0, sizeof *p);
  p->label = label;
  p->unit = unit;
  /* only people watching a terminal want it; logs and pipes stay clean */
  p->enabled = !quiet && isatty(STDERR_FILENO);
  p->last = app_seconds();
}

void app_progress_update(void *ctx, size_t done, size_t total) {
  app_progress *p = ctx;
  if (!p || !p->enabled || total == 0) {
    return;
  }
  double now = app_seconds();
  if (done < total && now - p->last < 0.1) {
    return; /* redrawing faster than people read only costs time */
  }
  p->last = now;
  fprintf(stderr, "\r%s: %zu/%zu %s (%d%%)\033[K", p->label, done, total, p->unit,
          (int)(100.0 * (double)done / (double)total));
  fflush(stderr);
  p->shown = 1;
}

void app_progress_time(void *ctx, double t, double t_end) {
  app_progress *p = ctx;
  if (!p || !p->enabled) {
    return;
  }
  double now = app_seconds();
  if (t < t_end && now - p->last < 0.1) {
    return;
  }
  p->last = now;
  double span = t_end - p->t0, frac = span > 0 ? (t - p->t0) / span : 1.0;
  frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
  fprintf(stderr, "\r%s: t = %.6g of %.6g (%d%%)\033[K", p->label, t, t_end, (int)(100.0 * frac));
  fflush(stderr);
  p->shown = 1;
}

void app_progress_end(app_progress *p) {
  if (p && p->shown) {
    fputs("\r\033[K", stderr); /* carriage return, erase to end of line */
    fflush(stderr);
    p->shown = 0;
  }
}
