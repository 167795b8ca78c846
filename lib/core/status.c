/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Status codes and error records (include/lth/status.h). */
#include "lth/status.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *lth_strerror(int status) {
  switch (status) {
#define LTH_X_TEXT(name, value, kind, text)                                                        \
  case value:                                                                                      \
    return text;
    LTH_STATUS_LIST(LTH_X_TEXT)
#undef LTH_X_TEXT
  default:
    return "unknown status code";
  }
}

int lth_status_exit_code(int status) {
  switch (status) {
#define LTH_X_KIND(name, value, kind, text)                                                        \
  case value:                                                                                      \
    return kind;
    LTH_STATUS_LIST(LTH_X_KIND)
#undef LTH_X_KIND
  default:
    return 3;
  }
}

void lth_error_clear(lth_error *err) {
  if (err) {
    memset(err, 0, sizeof *err);
  }
}

static void set_message(lth_error *err, lth_status status, const char *fmt, va_list ap) {
  err->status = status;
  vsnprintf(err->message, sizeof err->message, fmt, ap);
}

lth_status lth_error_set(lth_error *err, lth_status status, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    set_message(err, status, fmt, ap);
    va_end(ap);
  }
  return status;
}

lth_status lth_error_set_t(lth_error *err, lth_status status, double t, const char *fmt, ...) {
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    set_message(err, status, fmt, ap);
    va_end(ap);
    err->has_t = 1;
    err->t = t;
  }
  return status;
}

void lth_error_prefix(lth_error *err, const char *fmt, ...) {
  if (!err) {
    return;
  }
  char pre[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(pre, sizeof pre, fmt, ap);
  va_end(ap);
  size_t np = n < 0 ? 0 : ((size_t)n < sizeof pre ? (size_t)n : sizeof pre - 1);
  size_t cap = sizeof err->message - 1, old = strlen(err->message);
  old = old > cap ? cap : old;
  /* shift the old message right (truncating its end), then put the prefix in front */
  size_t keep = old + np > cap ? cap - np : old;
  memmove(err->message + np, err->message, keep);
  memcpy(err->message, pre, np);
  err->message[np + keep] = '\0';
}

void lth_error_set_pos(lth_error *err, const char *file, int line, int column) {
  if (!err) {
    return;
  }
  if (file) {
    snprintf(err->file, sizeof err->file, "%s", file);
  }
  err->line = line;
  err->column = column;
}

char *lth_error_format(const lth_error *err, char *buf, size_t size) {
  if (!buf || size == 0) {
    return buf;
  }
  buf[0] = '\0';
  if (!err) {
    return buf;
  }
  size_t used = 0;
#define LTH_APPEND(...)                                                                            \
  do {                                                                                             \
    if (used < size) {                                                                             \
      int n_ = snprintf(buf + used, size - used, __VA_ARGS__);                                     \
      used = n_ < 0 ? size : (used + (size_t)n_ < size ? used + (size_t)n_ : size);                \
    }                                                                                              \
  } while (0)
  if (err->file[0]) {
    LTH_APPEND("%s:", err->file);
    if (err->line > 0) {
      LTH_APPEND("%d:", err->line);
      if (err->column > 0) {
        LTH_APPEND("%d:", err->column);
      }
    }
    LTH_APPEND(" ");
  }
  LTH_APPEND("%s", err->message[0] ? err->message : lth_strerror(err->status));
  if (err->has_t || err->has_cond) {
    LTH_APPEND(" (");
    if (err->has_t) {
      LTH_APPEND("t = %.17g", err->t);
    }
    if (err->has_cond) {
      if (isfinite(err->cond)) {
        LTH_APPEND("%scondition estimate %.3e", err->has_t ? ", " : "", err->cond);
      } else {
        LTH_APPEND("%sexactly singular", err->has_t ? ", " : "");
      }
    }
    LTH_APPEND(")");
  }
#undef LTH_APPEND
  return buf;
}
