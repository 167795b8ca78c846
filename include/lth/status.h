/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth status codes and error records.
 *
 * Every library function that can fail returns an lth_status and, when the
 * caller passes a non-NULL lth_error *, fills that record with a readable
 * message and, where it applies, the time t, a condition estimate, or the
 * file:line:column of bad input.  The library never prints, exits or aborts.
 */
#ifndef LTH_STATUS_H
#define LTH_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One list generates both the enum and lth_strerror (lib/core/status.c).
 * X(name, value, kind, text): kind 2 = input error, 3 = numerical failure,
 * 1 = usage error; it is the exit status the command-line tools use. */
#define LTH_STATUS_LIST(X)                                                                         \
  X(LTH_OK, 0, 0, "success")                                                                       \
  X(LTH_EINVAL, 1, 1, "invalid argument")                                                          \
  X(LTH_ENOMEM, 2, 3, "out of memory")                                                             \
  X(LTH_EDIM, 3, 2, "dimension mismatch")                                                          \
  X(LTH_ESTRUCT, 4, 2, "block outside the Hessenberg pattern or missing")                          \
  X(LTH_EPARSE, 5, 2, "syntax error")                                                              \
  X(LTH_EIO, 6, 2, "file could not be read or written")                                            \
  X(LTH_ESAMPLE, 7, 2, "bad sampled data")                                                         \
  X(LTH_EDOMAIN, 8, 3, "function evaluated outside its domain")                                    \
  X(LTH_ESING, 9, 3, "singular matrix")                                                            \
  X(LTH_ECOND, 10, 3, "ill-conditioned matrix")                                                    \
  X(LTH_EORDER, 11, 1, "Taylor order too low for the requested result")                            \
  X(LTH_ERANGE, 12, 2, "time outside the interval")                                                \
  X(LTH_ECONSIST, 13, 3, "inconsistent initial value")                                             \
  X(LTH_ENOTUNIQUE, 14, 3, "problem not uniquely solvable")                                        \
  X(LTH_ENOSOL, 15, 3, "no solution exists")                                                       \
  X(LTH_EINTEG, 16, 3, "integrator failure")                                                       \
  X(LTH_ENOTFINITE, 17, 3, "result is not finite")                                                 \
  X(LTH_ELAPACK, 18, 3, "LAPACK reported an error")                                                \
  X(LTH_ECALLBACK, 19, 3, "user callback reported an error")                                       \
  X(LTH_EVERIFY, 20, 3, "verification failed")                                                     \
  X(LTH_EBC, 21, 2, "bad boundary conditions")                                                     \
  X(LTH_EDATA, 22, 2, "data violate a stated requirement")                                         \
  X(LTH_ETOL, 23, 3, "requested tolerance cannot be reached")                                      \
  X(LTH_EMODEL, 24, 2, "equations have no Hessenberg structure")

typedef enum lth_status {
#define LTH_X_ENUM(name, value, kind, text) name = value,
  LTH_STATUS_LIST(LTH_X_ENUM)
#undef LTH_X_ENUM
} lth_status;

/* Error record.  Fields that do not apply are marked by the has_* flags. */
#define LTH_ERROR_MSG_MAX  512
#define LTH_ERROR_FILE_MAX 256
typedef struct lth_error {
  lth_status status;
  char message[LTH_ERROR_MSG_MAX]; /* what went wrong and what was expected */
  int has_t;
  double t; /* time of a numerical failure */
  int has_cond;
  double cond;                   /* 1-norm condition estimate, when relevant */
  char file[LTH_ERROR_FILE_MAX]; /* input file ("" when not from a file) */
  int line, column;              /* 1-based; 0 when unknown */
} lth_error;

/* Readable text for a status code (never NULL). */
const char *lth_strerror(int status);

/* The exit status a command-line tool uses for this code: 0 success,
 * 1 usage error, 2 input error, 3 numerical failure. */
int lth_status_exit_code(int status);

/* Clear a record (no-op for NULL). */
void lth_error_clear(lth_error *err);

/* Fill a record and return `status` (printf-style message; no-op for NULL err).
 * Internal helpers below are used throughout the library. */
lth_status lth_error_set(lth_error *err, lth_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Same, also recording the time t. */
lth_status lth_error_set_t(lth_error *err, lth_status status, double t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Prepend context ("A(2,1): ") to the message of an existing record. */
void lth_error_prefix(lth_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Attach a file position to an existing record (keeps message/status). */
void lth_error_set_pos(lth_error *err, const char *file, int line, int column);

/* Format "file:line:col: message (t = ..., cond = ...)" into buf; returns buf. */
char *lth_error_format(const lth_error *err, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
