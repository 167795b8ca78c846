/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Running gnuplot for app_plot: the script goes to the child's standard
 * input, its messages are captured and returned in the error record.
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
 * as its standard input and wait for it. */
lth_status app_gnuplot_run(FILE *script, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
