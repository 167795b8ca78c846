/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Output sink of a tool: standard output, or the file of `-o FILE`.
 *
 * A file is written to a temporary file beside it and renamed over FILE
 * only when the tool commits, so a failing run never leaves a half-written
 * result under the requested name (and keeps an older FILE intact).  A FILE
 * that exists keeps its permissions; a new one gets 0666 less the umask.
 * Existing non-regular files (/dev/null, a FIFO) are written in place.
 * A signal that ends the run removes the temporary file (app_out_guard).
 * Standard output cannot be taken back: a run that fails after writing part
 * of its output exits non-zero (docs/format.md section 2) and the partial output
 * must not be trusted.
 */
#ifndef LTH_APP_OUT_H
#define LTH_APP_OUT_H

#include <stdio.h>

#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct app_out {
  FILE *fp;    /* write here */
  char *path;  /* final name (NULL: stdout) */
  char *tmp;   /* temporary name while writing */
  int special; /* FILE is not a regular file (/dev/null, a FIFO): written in place */
} app_out;

/* path NULL or "-": standard output.  Otherwise creates the temporary file
 * (LTH_EIO naming the file if that fails). */
lth_status app_out_open(app_out *o, const char *path, lth_error *err);
/* Flush and check for write errors; rename the temporary file to its final
 * name.  LTH_EIO on failure (the temporary file is removed). */
lth_status app_out_commit(app_out *o, lth_error *err);
/* Give up: close and remove the temporary file (stdout is only flushed). */
void app_out_abort(app_out *o);
/* Finish a write: abort (nothing left behind) when the writer failed (`bad`)
 * or the stream has an error, else commit. */
lth_status app_out_finish(app_out *o, int bad, lth_error *err);

/* While a temporary file is being written: a signal that ends the run
 * (SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ) removes `tmp` first, then ends
 * the run as that signal would have.  One file at a time; app_out_open and
 * app_out_commit/_abort do this for -o FILE, lth-plot for its picture. */
void app_out_guard(const char *tmp);
void app_out_unguard(void);

#ifdef __cplusplus
}
#endif
#endif
