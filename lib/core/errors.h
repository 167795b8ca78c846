/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error records inside the library.  A caller may pass a NULL lth_error *;
 * a function that reads the status a callee recorded (an allocator that
 * returned NULL) then writes into a record of its own, so that the status
 * is never lost: without it, an LTH_EINVAL from below became LTH_ENOMEM. */
#ifndef LTH_CORE_ERRORS_H
#define LTH_CORE_ERRORS_H

#include "lth/status.h"

/* At the top of a function with a parameter `lth_error *err`. */
#define LTH_ERROR_RECORD(err)                                                                      \
  lth_error err##_own_;                                                                            \
  if (!(err)) {                                                                                    \
    lth_error_clear(&err##_own_);                                                                  \
    (err) = &err##_own_;                                                                           \
  }

/* The status a callee that failed recorded in err; LTH_ENOMEM if it recorded
 * none (a malloc that returned NULL). */
static inline lth_status lth_error_status(const lth_error *err) {
  return err && err->status != LTH_OK ? err->status : LTH_ENOMEM;
}

#endif
