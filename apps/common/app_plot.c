/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Figures of panels over t, written as a gnuplot script (app_plot.h). */
#define _POSIX_C_SOURCE 200809L

#include "app_plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app_gnuplot.h"
#include "app_out.h"

typedef struct plot_series {
  char *name;
  double *t, *y;
  size_t n;
} plot_series;

typedef struct plot_panel {
  char *title, *ylabel;
  app_plot_scale scale;
  plot_series *s;
  int ns, cap;
} plot_panel;

struct app_plot {
  char *title, *xlabel;
  char **notes;
  int nnotes;
  plot_panel *pn;
  int np, cap;
};

static char *dup_str(const char *s) {
  s = s ? s : "";
  char *d = malloc(strlen(s) + 1);
  return d ? strcpy(d, s) : NULL;
}

app_plot *app_plot_new(const char *title) {
  app_plot *p = calloc(1, sizeof *p);
  if (p && (!(p->title = dup_str(title)) || !(p->xlabel = dup_str("t")))) {
    app_plot_free(p);
    return NULL;
  }
  return p;
}

void app_plot_free(app_plot *p) {
  if (!p) {
    return;
  }
  for (int k = 0; k < p->np; k++) {
    plot_panel *pn = &p->pn[k];
    for (int j = 0; j < pn->ns; j++) {
      free(pn->s[j].name);
      free(pn->s[j].t);
      free(pn->s[j].y);
    }
    free(pn->s);
    free(pn->title);
    free(pn->ylabel);
  }
  for (int k = 0; k < p->nnotes; k++) {
    free(p->notes[k]);
  }
  free(p->notes);
  free(p->pn);
  free(p->title);
  free(p->xlabel);
  free(p);
}

int app_plot_xlabel(app_plot *p, const char *xlabel) {
  char *d = dup_str(xlabel);
  if (!d) {
    return -1;
  }
  free(p->xlabel);
  p->xlabel = d;
  return 0;
}

int app_plot_note(app_plot *p, const char *note) {
  char **n = realloc(p->notes, (size_t)(p->nnotes + 1) * sizeof *n);
  if (!n) {
    return -1;
  }
  p->notes = n;
  if (!(n[p->nnotes] = dup_str(note))) {
    return -1;
  }
  p->nnotes++;
  return 0;
}

int app_plot_panel(app_plot *p, const char *title, const char *ylabel, app_plot_scale yscale) {
  if (p->np == p->cap) {
    int cap = p->cap ? 2 * p->cap : 4;
    plot_panel *pn = realloc(p->pn, (size_t)cap * sizeof *pn);
    if (!pn) {
      return -1;
    }
    p->pn = pn;
    p->cap = cap;
  }
  plot_panel *pn = &p->pn[p->np];
  memset(pn, 0, sizeof *pn);
  pn->scale = yscale;
  if (!(pn->title = dup_str(title)) || !(pn->ylabel = dup_str(ylabel))) {
    free(pn->title);
    return -1;
  }
  return p->np++;
}

int app_plot_panels(const app_plot *p) { return p->np; }

int app_plot_series(app_plot *p, int panel, const char *name, const double *t, const double *y,
                    size_t n, size_t inc) {
  if (panel < 0 || panel >= p->np) {
    return -1;
  }
  plot_panel *pn = &p->pn[panel];
  if (pn->ns == pn->cap) {
    int cap = pn->cap ? 2 * pn->cap : 4;
    plot_series *s = realloc(pn->s, (size_t)cap * sizeof *s);
    if (!s) {
      return -1;
    }
    pn->s = s;
    pn->cap = cap;
  }
  plot_series *s = &pn->s[pn->ns];
  s->n = n;
  s->name = dup_str(name);
  s->t = malloc((n ? n : 1) * sizeof *s->t);
  s->y = malloc((n ? n : 1) * sizeof *s->y);
  if (!s->name || !s->t || !s->y) {
    free(s->name);
    free(s->t);
    free(s->y);
    return -1;
  }
  for (size_t k = 0; k < n; k++) {
    s->t[k] = t[k];
    s->y[k] = y[k * inc];
  }
  pn->ns++;
  return 0;
}

/* The prefix of a component name before '[' ("z_2[1]" -> "z_2"). */
static size_t prefix_len(const char *name) {
  const char *b = strchr(name, '[');
  return b ? (size_t)(b - name) : strlen(name);
}

int app_plot_add_trajectories(app_plot *p, const char *const *names, const double *t,
                              const double *z, size_t n, int dim, size_t ld) {
  for (int i = 0; i < dim; i++) {
    size_t len = prefix_len(names[i]);
    int first = 1;
    for (int j = 0; j < i; j++) {
      first = first && !(prefix_len(names[j]) == len && strncmp(names[j], names[i], len) == 0);
    }
    if (!first) {
      continue; /* its panel exists */
    }
    char title[80];
    snprintf(title, sizeof title, "%.*s", (int)(len < 70 ? len : 70), names[i]);
    int k = app_plot_panel(p, title, "", APP_PLOT_LINEAR);
    for (int j = i; k >= 0 && j < dim; j++) {
      if (prefix_len(names[j]) == len && strncmp(names[j], names[i], len) == 0 &&
          app_plot_series(p, k, names[j], t, z + j, n, ld) != 0) {
        return -1;
      }
    }
    if (k < 0) {
      return -1;
    }
  }
  return 0;
}

const char *app_plot_format(const char *path) {
  const char *dot = strrchr(path, '.');
  static const char *const fmts[] = {"png", "svg", "pdf"};
  for (int k = 0; dot && k < 3; k++) {
    const char *a = dot + 1, *b = fmts[k];
    while (*a && *b && (*a | 0x20) == *b) {
      a++;
      b++;
    }
    if (!*a && !*b) {
      return fmts[k];
    }
  }
  return NULL;
}

/* ---- the script ---- */

/* The label bytes written as they are: none means anything to gnuplot inside
 * a double-quoted string, nor to its line reader or macro expansion. */
static int plain_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c != '\0' && strchr(" _.,:+-=()[]/", c) != NULL);
}

/* The length of the UTF-8 sequence at s (1 to 4), or 0 if it is not one. */
static int utf8_len(const unsigned char *s) {
  int n = 0; /* from the lead byte; 0x80..0xc1 and 0xf5.. never lead */
  if (s[0] < 0x80) {
    n = 1;
  } else if (s[0] >= 0xc2 && s[0] < 0xe0) {
    n = 2;
  } else if (s[0] >= 0xe0 && s[0] < 0xf0) {
    n = 3;
  } else if (s[0] >= 0xf0 && s[0] < 0xf5) {
    n = 4;
  }
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xc0) != 0x80) {
      return 0; /* also stops at the terminating NUL */
    }
  }
  if ((n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) ||
      (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))) {
    return 0; /* overlong, a surrogate, or beyond U+10FFFF */
  }
  return n;
}

/* One byte of a label: as it is, or as an octal escape.  gnuplot reads
 * "\ooo" with at most three digits but "\0ooo" with four, so a byte below
 * 0100 gets the four-digit form and a digit after it is never taken in. */
static void put_byte(FILE *fp, unsigned char c) {
  if (plain_byte(c)) {
    fputc(c, fp);
  } else {
    fprintf(fp, c < 0100 ? "\\0%03o" : "\\%03o", (unsigned)c);
  }
}

/* A text of the picture (a component name, a title, a file name: anything
 * that comes from the user) as a gnuplot double-quoted string that gnuplot
 * takes literally.  gnuplot runs `command` inside double quotes, expands
 * @macros outside quotes, runs a line that starts with '!' and ends a
 * command at a newline; here every byte other than letters, digits, blank
 * and _.,:+-=()[]/ is an octal escape, so the script holds none of the
 * label's quotes, backquotes, '@', '!', '$', '#', '\' or line ends.  Control
 * characters are drawn as blanks and bytes that are not UTF-8 as U+FFFD. */
static void put_label(FILE *fp, const char *text) {
  const unsigned char *s = (const unsigned char *)text;
  fputc('"', fp);
  while (*s) {
    int n = utf8_len(s);
    if (*s < 0x20 || *s == 0x7f) {
      fputc(' ', fp);
      s++;
    } else if (n == 0) {
      fputs("\\357\\277\\275", fp); /* U+FFFD, the replacement character */
      s++;
    } else {
      for (int i = 0; i < n; i++) {
        put_byte(fp, s[i]);
      }
      s += n;
    }
  }
  fputc('"', fp);
}

/* 1 if the panel has a point to draw (positive, for a log scale): gnuplot
 * refuses to autoscale an axis without one. */
static int drawable(const plot_panel *pn, int logscale) {
  for (int j = 0; j < pn->ns; j++) {
    for (size_t k = 0; k < pn->s[j].n; k++) {
      double y = pn->s[j].y[k];
      if (isfinite(pn->s[j].t[k]) && isfinite(y) && (!logscale || y > 0)) {
        return 1;
      }
    }
  }
  return 0;
}

/* Values a log scale cannot show: finite and <= 0 (-1 if negative ones). */
static int nonpositive(const plot_series *s) {
  int found = 0;
  for (size_t k = 0; k < s->n; k++) {
    if (isfinite(s->t[k]) && isfinite(s->y[k]) && s->y[k] <= 0) {
      if (s->y[k] < 0) {
        return -1;
      }
      found = 1;
    }
  }
  return found;
}

/* The floor of a log panel, where its values <= 0 are drawn: the largest
 * power of ten at least a decade below the smallest positive value (0 if no
 * value needs it). */
static double log_floor(const plot_panel *pn) {
  double lo = INFINITY;
  int need = 0;
  for (int j = 0; j < pn->ns; j++) {
    need = need || nonpositive(&pn->s[j]) != 0;
    for (size_t k = 0; k < pn->s[j].n; k++) {
      double y = pn->s[j].y[k];
      if (isfinite(pn->s[j].t[k]) && isfinite(y) && y > 0 && y < lo) {
        lo = y;
      }
    }
  }
  return need && isfinite(lo) ? pow(10.0, floor(log10(lo)) - 1.0) : 0.0;
}

static void put_terminal(FILE *fp, const char *fmt, int w, int h) {
  if (strcmp(fmt, "png") == 0) {
    fprintf(fp,
            "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
            "  set terminal pngcairo size %d,%d noenhanced font 'Sans,9' background '#ffffff'\n"
            "} else {\n  set terminal png size %d,%d noenhanced background '#ffffff'\n}\n",
            w, h, w, h);
  } else if (strcmp(fmt, "svg") == 0) {
    fprintf(fp, "set terminal svg size %d,%d noenhanced font 'Sans,9' background '#ffffff'\n", w,
            h);
  } else {
    fprintf(fp, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font 'Sans,7'\n", w / 100.0,
            h / 100.0);
  }
  /* no `set output`: the picture goes to standard output (app_gnuplot.h) */
}

/* Series j of panel k as datablock $D<k>_<j>: the points a log scale can
 * show, or for zero = 1 the others at the floor (NaN elsewhere: a gap). */
static void put_data(FILE *fp, int k, int j, const plot_series *s, int logscale, double lfloor,
                     int zero) {
  fprintf(fp, "$%c%d_%d << EOD\n", zero ? 'Z' : 'D', k, j);
  for (size_t i = 0; i < s->n; i++) {
    double y = s->y[i];
    int shown = isfinite(s->t[i]) && isfinite(y) && (!logscale || y > 0);
    if (zero) {
      shown = isfinite(s->t[i]) && isfinite(y) && y <= 0;
      y = lfloor;
    }
    if (shown) {
      fprintf(fp, "%.17g %.17g\n", s->t[i], y);
    } else {
      fprintf(fp, "%.17g NaN\n", isfinite(s->t[i]) ? s->t[i] : 0.0);
    }
  }
  fputs("EOD\n", fp);
}

/* The legend entries of the values <= 0 of a series drawn at the floor:
 * "NAME = 0" by its markers, then "(drawn at 1e-20)" on a line of its own
 * (an invisible curve: gnuplot centres a two-line entry on its marker and
 * lets it overlap the entry above). */
static void put_floor_title(FILE *fp, const char *name, int sign, double lfloor) {
  char tail[64];
  snprintf(tail, sizeof tail, "(drawn at %.0e)", lfloor);
  put_label(fp, name);
  fputs(sign < 0 ? " . \" <= 0\"" : " . \" = 0\"", fp);
  fputs(", \\\n     NaN with lines lc rgb '#ffffff' title ", fp);
  put_label(fp, tail);
}

static void put_panel(FILE *fp, const app_plot *p, int k, int last) {
  const plot_panel *pn = &p->pn[k];
  int logscale = pn->scale == APP_PLOT_LOG && drawable(pn, 1);
  int any = drawable(pn, 0);
  double lfloor = logscale ? log_floor(pn) : 0.0;
  for (int j = 0; j < pn->ns; j++) {
    put_data(fp, k, j, &pn->s[j], logscale, lfloor, 0);
    if (lfloor > 0 && nonpositive(&pn->s[j])) {
      put_data(fp, k, j, &pn->s[j], logscale, lfloor, 1);
    }
  }
  fputs("set title ", fp);
  put_label(fp, pn->title);
  fprintf(fp, "%s\nset ylabel ", any ? "" : " . ' (no finite values)'");
  put_label(fp, pn->ylabel);
  fputs("\nset xlabel ", fp);
  put_label(fp, last ? p->xlabel : "");
  fprintf(fp, "\n%s\nset format y %s\n", logscale ? "set logscale y" : "unset logscale y",
          logscale ? "'%.0e'" : "'% h'");
  if (lfloor > 0) {
    /* half a decade below the floor, so that its markers stand clear */
    fprintf(fp, "set autoscale y\nset yrange [%.17g:*]\n", lfloor / sqrt(10.0));
  } else {
    fputs(any ? "set autoscale y\n" : "set yrange [-1:1]\n", fp);
  }
  fputs("plot ", fp);
  for (int j = 0; j < pn->ns; j++) {
    const plot_series *s = &pn->s[j];
    int sign = lfloor > 0 ? nonpositive(s) : 0;
    /* a series with gaps also gets its points: a value between two gaps
     * would be no line at all */
    fprintf(fp, "%s$D%d_%d using 1:2 with %s lt %d lw 1.5 title ", j ? ", \\\n     " : "", k, j,
            s->n < 2 ? "points pt 7"
            : sign   ? "linespoints pt 7 ps 0.5"
                     : "lines",
            j + 1);
    put_label(fp, s->name);
    if (sign) {
      fprintf(fp, ", \\\n     $Z%d_%d using 1:2 with points lt %d pt 6 ps 0.7 title ", k, j, j + 1);
      put_floor_title(fp, s->name, sign, lfloor);
    }
  }
  fputc('\n', fp);
}

static int drawn_panels(const app_plot *p) {
  int n = 0;
  for (int k = 0; k < p->np; k++) {
    n += p->pn[k].ns > 0;
  }
  return n;
}

/* The title and notes, centred at the top: one line each (a newline in
 * them is drawn as a blank, put_label). */
static void put_heading(FILE *fp, const app_plot *p) {
  fputs("set label 1 ", fp);
  put_label(fp, p->title);
  for (int k = 0; k < p->nnotes; k++) {
    fputs(" . \"\\n\" . ", fp);
    put_label(fp, p->notes[k]);
  }
  fputs(" at screen 0.5, screen 1 center front offset 0,-1\n", fp);
}

/* Panels stacked in pixel units: a heading of HEAD_PX + NOTE_PX per note,
 * then equal slots, each with room for its title above and tics below; the
 * last also for the t label. */
enum { HEAD_PX = 34, NOTE_PX = 15, TITLE_PX = 22, TICS_PX = 30, XLABEL_PX = 40 };

static void put_script(FILE *fp, const app_plot *p, const char *fmt, int w, int h) {
  put_terminal(fp, fmt, w, h);
  int np = drawn_panels(p);
  fputs("set grid\nset key at screen 0.82, graph 1 left top vertical Left reverse samplen 2\n"
        "set lmargin at screen 0.10\nset rmargin at screen 0.80\nset multiplot\n",
        fp);
  double head = (p->title[0] ? HEAD_PX : 6) + NOTE_PX * p->nnotes;
  double slot = (h - head - XLABEL_PX) / np;
  if (p->title[0] || p->nnotes) {
    put_heading(fp, p);
  }
  int row = 0;
  for (int k = 0; k < p->np; k++) {
    if (p->pn[k].ns == 0) {
      continue;
    }
    double top = h - head - row * slot, bottom = top - slot;
    int last = row + 1 == np;
    fprintf(fp, "set tmargin at screen %.5f\nset bmargin at screen %.5f\n", (top - TITLE_PX) / h,
            (last ? XLABEL_PX : bottom + TICS_PX) / (double)h);
    put_panel(fp, p, k, last);
    fputs("unset label 1\n", fp);
    row++;
  }
  fputs("unset multiplot\n", fp);
}

/* A new file beside path for the picture, open for writing, its name in
 * *name: path.PID.tmp, or path.PID.N.tmp if that exists.  -1 if none. */
static int open_beside(const char *path, char **name) {
  size_t len = strlen(path) + 64;
  *name = malloc(len);
  for (int n = 0; *name && n < 100; n++) {
    if (n == 0) {
      snprintf(*name, len, "%s.%ld.tmp", path, (long)getpid());
    } else {
      snprintf(*name, len, "%s.%ld.%d.tmp", path, (long)getpid(), n);
    }
    int fd = open(*name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) {
      return fd;
    }
  }
  errno = *name ? EEXIST : ENOMEM;
  return -1;
}

lth_status app_plot_render(const app_plot *p, const char *path, int width, int height,
                           lth_error *err) {
  const char *fmt = app_plot_format(path);
  if (!fmt) {
    return lth_error_set(err, LTH_EINVAL,
                         "cannot draw to '%s': the file name must end in .png, .svg or .pdf", path);
  }
  int np = drawn_panels(p);
  if (np == 0) {
    return lth_error_set(err, LTH_EINVAL, "nothing to draw: no series over t");
  }
  int w = width > 0 ? width : 900;
  int h = height > 0 ? height : 60 + 14 * p->nnotes + 240 * np;
  if (w < 200 || h < 100 || w > 20000 || h > 20000) {
    return lth_error_set(err, LTH_EINVAL,
                         "a picture of %d x %d pixels: sizes are 200..20000 "
                         "wide and 100..20000 high",
                         w, h);
  }
  FILE *script = tmpfile();
  if (!script) {
    return lth_error_set(err, LTH_EIO, "cannot draw: no temporary file for the script");
  }
  /* drawn to a temporary file beside the target, renamed when complete;
   * gnuplot writes it to its standard output and never sees a file name */
  char *tmp = NULL;
  int fd = open_beside(path, &tmp);
  if (fd < 0) {
    int e = errno;
    fclose(script);
    free(tmp);
    return lth_error_set(err, LTH_EIO, "cannot write '%s': %s", path, strerror(e));
  }
  app_out_guard(tmp); /* a signal removes what gnuplot wrote so far */
  put_script(script, p, fmt, w, h);
  lth_status st = ferror(script) ? lth_error_set(err, LTH_EIO, "cannot write the plot script")
                                 : app_gnuplot_run(script, fd, err);
  fclose(script);
  struct stat sb;
  if (st == LTH_OK && (fstat(fd, &sb) != 0 || sb.st_size == 0)) {
    st = lth_error_set(err, LTH_EIO, "cannot draw: gnuplot wrote nothing to '%s'", path);
  }
  if (close(fd) != 0 && st == LTH_OK) {
    st = lth_error_set(err, LTH_EIO, "cannot write '%s': %s", path, strerror(errno));
  }
  if (st == LTH_OK && rename(tmp, path) != 0) {
    st = lth_error_set(err, LTH_EIO, "cannot write '%s': %s", path, strerror(errno));
  }
  if (st != LTH_OK) {
    remove(tmp);
  }
  app_out_unguard();
  free(tmp);
  return st;
}
