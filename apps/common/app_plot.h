/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pictures of results: a figure of panels stacked over a common t axis,
 * each with named series y(t), drawn by gnuplot (app_gnuplot.h).
 *
 * Why gnuplot: it is the plotting program a Debian user already has or gets
 * with one package (gnuplot-nox, no X11), it writes PNG, SVG and PDF with
 * cairo, and driving it through a pipe adds no library dependency to the
 * tools (PLplot or cairo would have to be linked into every tool and bring
 * their -dev packages into the build).  When it is missing the render fails
 * with LTH_EIO (exit status 2) naming the package to install.  The program
 * is `gnuplot` from PATH, or $LTH_GNUPLOT.
 *
 *   app_plot *pl = app_plot_new("lth-solve: slope.lth");
 *   app_plot_add_trajectories(pl, names, t, z, n, s, s);  // a panel per block
 *   int k = app_plot_panel(pl, "condition", "", APP_PLOT_LOG);
 *   app_plot_series(pl, k, "cond_pi", t, cond_pi, n, 1);
 *   app_plot_note(pl, "drift max ||P v|| = 1.1e-15");
 *   lth_status st = app_plot_render(pl, "out.png", 0, 0, &err);  // .png .svg .pdf
 *   app_plot_free(pl);
 *
 * Log-scale panels (condition numbers, residuals) draw values <= 0 as open
 * markers on a floor, the largest power of ten at least a decade below the
 * smallest positive value, stated in the legend, and a series with such gaps with its points;
 * non-finite values are gaps.  Series data are copied.  Every text (title,
 * notes, names) is drawn literally: gnuplot interprets none of it.
 */
#ifndef LTH_APP_PLOT_H
#define LTH_APP_PLOT_H

#include <stddef.h>

#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum app_plot_scale { APP_PLOT_LINEAR = 0, APP_PLOT_LOG = 1 } app_plot_scale;

typedef struct app_plot app_plot;

/* A figure with a title (NULL: none).  NULL when out of memory. */
app_plot *app_plot_new(const char *title);
void app_plot_free(app_plot *p);
/* Label of the common horizontal axis (default "t"). */
int app_plot_xlabel(app_plot *p, const char *xlabel);
/* A line of text under the title (several calls: several lines). */
int app_plot_note(app_plot *p, const char *note);
/* A new panel below the others; returns its index, or -1 (no memory). */
int app_plot_panel(app_plot *p, const char *title, const char *ylabel, app_plot_scale yscale);
/* Series `name` in panel k: y[0], y[inc], ... at t[0..n-1].  0 or -1. */
int app_plot_series(app_plot *p, int panel, const char *name, const double *t, const double *y,
                    size_t n, size_t inc);
/* Trajectories z (n times, dim components, component i of time k at
 * z[k*ld + i]) with names "z_1[1]", "u[2]", "x[1]", ...: one panel per name
 * prefix (the part before '['), in order of appearance.  0 or -1. */
int app_plot_add_trajectories(app_plot *p, const char *const *names, const double *t,
                              const double *z, size_t n, int dim, size_t ld);
int app_plot_panels(const app_plot *p);

/* The format of a file name: "png", "svg", "pdf", or NULL if unsupported. */
const char *app_plot_format(const char *path);
/* Draw to path (format by extension); width x height pixels (0: 900 wide,
 * 240 per panel plus room for the title).  LTH_EIO when gnuplot is missing
 * (the message names the Debian package) or fails (its message is
 * included), LTH_EINVAL for an unknown extension or an empty figure. */
lth_status app_plot_render(const app_plot *p, const char *path, int width, int height,
                           lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
