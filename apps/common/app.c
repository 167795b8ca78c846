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

/* The library's messages name its options (opts.cond_max) and functions;
 * a tool's user has flags and tools instead.  Longest spellings first. */
static const struct {
  const char *lib, *tool;
} OPTION_NAMES[] = {
    {"opts.method = LTH_BVP_COLLOCATION", "--method collocation"},
    {"opts.method = LTH_LQR_COLLOCATION", "--method collocation"},
    {"(lth_ic_project, lth_ic_nearest)", "(lth-ic)"},
    {"opts.cond_max", "--cond-max"},
    {"opts.stabilize = ", "--stabilize "},
    {"opts.stabilize", "--stabilize"},
    {"set opts.project", "use --project"},
    {"opts.fd_points", "--points"},
    {"opts.params ", "--param "},
};

const char *app_tool_message(const char *msg, char *buf, size_t size) {
  size_t len = 0;
  if (size == 0) return "";
  while (*msg && len + 1 < size) {
    size_t k = 0, nk = sizeof OPTION_NAMES / sizeof OPTION_NAMES[0];
    while (k < nk && strncmp(msg, OPTION_NAMES[k].lib, strlen(OPTION_NAMES[k].lib)) != 0) k++;
    if (k < nk) {
      int w = snprintf(buf + len, size - len, "%s", OPTION_NAMES[k].tool);
      len = w < 0 ? len : (size_t)w >= size - len ? size - 1 : len + (size_t)w;
      msg += strlen(OPTION_NAMES[k].lib);
    } else {
      buf[len++] = *msg++;
    }
  }
  buf[len] = '\0';
  return buf;
}

int app_fail(const lth_error *err) {
  char raw[LTH_ERROR_MSG_MAX + LTH_ERROR_FILE_MAX + 128];
  char buf[sizeof raw + 256];
  lth_error_format(err, raw, sizeof raw);
  fprintf(stderr, "%s: %s\n", tool_name, app_tool_message(raw, buf, sizeof buf));
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
