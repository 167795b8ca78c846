/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Running gnuplot for app_plot: the script goes to the child's standard
 * input, the picture comes from its standard output (so that no file name
 * is ever given to gnuplot), its messages are captured and returned in the
 * error record.  The child is started with fork and execv and the fixed
 * arguments `gnuplot -d`: no shell, and no initialization file of the user
 * or the system changes the picture.
 *
 * The program is $LTH_GNUPLOT if set, else `gnuplot` from PATH.  A program
 * that cannot be found or started is LTH_EIO with a message that names the
 * Debian package (gnuplot-nox); a script error is LTH_EIO with gnuplot's
 * first message lines.
 */
#ifndef LTH_APP_GNUPLOT_H
#define LTH_APP_GNUPLOT_H

#include <stdio.h>

#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The gnuplot program to run (never NULL). */
const char *app_gnuplot_program(void);
/* Run the program with `script` (a stream positioned anywhere; it is rewound)
 * as its standard input and the open file descriptor out_fd as its standard
 * output, and wait for it. */
lth_status app_gnuplot_run(FILE *script, int out_fd, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
