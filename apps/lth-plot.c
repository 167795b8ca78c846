/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-plot: pictures of the JSON results of the lth tools (docs/plots.md).
 *
 * Reads what lth-decompose, lth-solve, lth-bvp or lth-lqr write with
 * --format json (a file or standard input), recognizes the tool by its keys,
 * and draws the fitting figure through app_plot (gnuplot): condition numbers
 * and selected entries for a decomposition, z(t) by component for IVP and
 * BVP solutions, x, lambda and u for an LQR optimum.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_jsonread.h"
#include "app_plot.h"

static const char help_text[] =
    "Usage: lth-plot RESULT.json -o FILE [OPTIONS]\n"
    "Draw the result of an lth tool: the JSON it writes with --format json\n"
    "(RESULT.json, or - for standard input), as a PNG, SVG or PDF picture.\n"
    "\n"
    "  lth-decompose  cond_pi and cond_chain (log scale), q(t) and g(t) entry by\n"
    "                 entry (or the entries of --select), the --check residual\n"
    "                 (log scale; exact zeros drawn on a floor the legend states)\n"
    "  lth-solve      z(t) by component, one panel per block (z_1, ..., u); for an\n"
    "                 equation-form file one per unknown, in the file's order\n"
    "  lth-bvp        the same, with the condition and error estimates noted\n"
    "  lth-lqr        x(t), lambda(t) and u(t); for a plant with a cost, the\n"
    "                 closed loop's unknowns, inputs and outputs, by name\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   the picture; its extension picks the format: .png,\n"
    "                      .svg or .pdf (required)\n"
    "  --size WxH          size in pixels (default 900 wide, 240 per panel)\n"
    "  --title TEXT        the title (default: the tool and RESULT)\n"
    "  --select LIST       lth-decompose: draw these entries instead of q and g,\n"
    "                      e.g. P[1,1],Ahat[2,1],q[3] (1-based, rows then columns)\n"
    "  -h, --help          this text\n"
    "  --version           version and license\n"
    "\n"
    "Example:\n"
    "  lth-solve data/slope.lth --format json | lth-plot - -o slope.png\n"
    "\n"
    "The drawing is done by gnuplot (Debian package gnuplot-nox), run as a child\n"
    "process (no shell) that is given every name and title as literal text;\n"
    "LTH_GNUPLOT names another gnuplot program.\n"
    "\n"
    "Exit status: 0 success, 1 usage error, 2 input error (unreadable JSON, not\n"
    "the output of an lth tool, or gnuplot missing or failing; the message says\n"
    "which).\n";

typedef struct plot_cli {
  const char *out;
  const char *size;
  const char *title;
  const char *select;
} plot_cli;

typedef struct plot_run {
  const plot_cli *cli;
  const char *path;
  const app_jval *doc;
  app_plot *fig;
  lth_error err;
} plot_run;

/* ------------------------------------------------------------------------ */
/* Reading series out of the document                                      */

/* t[k] = times[k] (or points[k].t); returns n or 0. */
static size_t read_times(const app_jval *arr, double **t) {
  size_t n = app_jr_len(arr);
  *t = malloc((n ? n : 1) * sizeof **t);
  for (size_t k = 0; *t && k < n; k++) {
    if (app_jr_num_at(arr, k, &(*t)[k]) != 0 &&
        app_jr_number(app_jr_get(app_jr_at(arr, k), "t"), &(*t)[k]) != 0) {
      return 0;
    }
  }
  return *t ? n : 0;
}

/* Rows of a per-time table (z, x, u, ...): n rows of dim numbers into a
 * row-major n x dim array; -1 if the shape is wrong. */
static int read_table(const app_jval *rows, size_t n, int dim, double *out) {
  if (app_jr_len(rows) != n) {
    return -1;
  }
  for (size_t k = 0; k < n; k++) {
    const app_jval *row = app_jr_at(rows, k);
    if (app_jr_len(row) != (size_t)dim) {
      return -1;
    }
    for (int i = 0; i < dim; i++) {
      if (app_jr_num_at(row, (size_t)i, &out[k * (size_t)dim + (size_t)i]) != 0) {
        return -1;
      }
    }
  }
  return 0;
}

static int fail_input(plot_run *R, const char *what) {
  return app_failf(APP_EXIT_INPUT, "%s: %s", R->path, what);
}

/* ------------------------------------------------------------------------ */
/* Trajectories: lth-solve, lth-bvp, lth-lqr                               */

/* The names of dim components: the document's "components", else base[i]. */
static char **component_names(const app_jval *comps, int dim, const char *base) {
  char **names = calloc((size_t)dim + 1, sizeof *names);
  for (int i = 0; names && i < dim; i++) {
    const app_jval *c = app_jr_at(comps, (size_t)i);
    char buf[96];
    const char *name = buf;
    if (app_jr_len(comps) == (size_t)dim && c && c->type == APP_JSTR) {
      name = c->str;
    } else {
      snprintf(buf, sizeof buf, "%s[%d]", base, i + 1);
    }
    names[i] = malloc(strlen(name) + 1);
    if (!names[i]) {
      return names; /* freed by the caller; the missing name fails below */
    }
    strcpy(names[i], name);
  }
  return names;
}

static void free_names(char **names, int dim) {
  for (int i = 0; names && i < dim; i++) {
    free(names[i]);
  }
  free(names);
}

/* The equation form (docs/format.md, section 2.1): "variables" names the
 * file's unknowns in the file's order, "variable_index"[i] is the 1-based
 * place among them of component i of z.  *user = 1 and col[k] = the
 * component of the k-th unknown when the document has both keys, *user = 0
 * when it has neither.  Returns 0, or the exit status of a refusal: a map
 * that is not a permutation would draw one unknown under another's name. */
static int user_order(plot_run *R, int dim, int *col, int *user) {
  const app_jval *vars = app_jr_get(R->doc, "variables");
  const app_jval *idx = app_jr_get(R->doc, "variable_index");
  *user = vars || idx;
  if (!*user) {
    return 0;
  }
  if (app_jr_len(vars) != (size_t)dim || app_jr_len(idx) != (size_t)dim) {
    char msg[160];
    snprintf(msg, sizeof msg,
             "\"variables\" and \"variable_index\" must both list the %d "
             "components of z",
             dim);
    return fail_input(R, msg);
  }
  for (int k = 0; k < dim; k++) {
    col[k] = -1;
  }
  for (int i = 0; i < dim; i++) {
    double x;
    const app_jval *v = app_jr_at(vars, (size_t)i);
    if (!v || v->type != APP_JSTR) {
      return fail_input(R, "\"variables\" must be names (strings)");
    }
    if (app_jr_num_at(idx, (size_t)i, &x) != 0 || x != floor(x) || x < 1 || x > dim ||
        col[(int)x - 1] >= 0) {
      return fail_input(R, "\"variable_index\" is not a permutation of 1, ..., the number "
                           "of components");
    }
    col[(int)x - 1] = i;
  }
  return 0;
}

/* A table key of the document as panels, one per name prefix; z in the
 * order of the file's unknowns and with their names for the equation form
 * (reorder), y with the names of "outputs" as they are. */
static int add_table_as(plot_run *R, const char *key, const char *base, const double *t, size_t n,
                        const app_jval *comps, int reorder) {
  const app_jval *rows = app_jr_get(R->doc, key);
  int dim = n > 0 ? (int)app_jr_len(app_jr_at(rows, 0)) : 0;
  if (dim <= 0) {
    return fail_input(R, "a trajectory has no components");
  }
  double *z = malloc(n * (size_t)dim * sizeof *z);
  int *col = malloc((size_t)dim * sizeof *col);
  int user = 0, rc = comps && col && reorder ? user_order(R, dim, col, &user) : 0;
  if (rc != 0) {
    free(z);
    free(col);
    return rc;
  }
  char **names = component_names(user ? app_jr_get(R->doc, "variables") : comps, dim, base);
  if (!z || !col || !names || (names && !names[dim - 1])) {
    rc = app_failf(APP_EXIT_NUMERIC, "out of memory");
  } else if (read_table(rows, n, dim, z) != 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "\"%s\" is not a table of %zu %s of numbers", key, n,
             app_plural((double)n, "row", "rows"));
    rc = fail_input(R, msg);
  } else {
    if (user) { /* each row permuted in place into the unknowns' order */
      double *row = malloc((size_t)dim * sizeof *row);
      for (size_t k = 0; row && k < n; k++) {
        memcpy(row, z + k * (size_t)dim, (size_t)dim * sizeof *row);
        for (int j = 0; j < dim; j++) {
          z[k * (size_t)dim + (size_t)j] = row[col[j]];
        }
      }
      rc = row ? 0 : app_failf(APP_EXIT_NUMERIC, "out of memory");
      free(row);
    }
    if (rc == 0 && app_plot_add_trajectories(R->fig, (const char *const *)names, t, z, n, dim,
                                             (size_t)dim) != 0) {
      rc = app_failf(APP_EXIT_NUMERIC, "out of memory");
    }
  }
  free(z);
  free(col);
  free_names(names, dim);
  return rc;
}

static int add_table(plot_run *R, const char *key, const char *base, const double *t, size_t n,
                     const app_jval *comps) {
  return add_table_as(R, key, base, t, n, comps, 1);
}

/* The outputs y (docs/equations.md section 11), one panel per output. */
static int add_outputs(plot_run *R, const double *t, size_t n) {
  const app_jval *names = app_jr_get(R->doc, "outputs");
  if (app_jr_len(names) == 0 || app_jr_len(app_jr_get(R->doc, "y")) == 0) {
    return 0;
  }
  return add_table_as(R, "y", "y", t, n, names, 0);
}

static void note_number(plot_run *R, const char *label, const char *key) {
  double x;
  if (app_jr_number(app_jr_get(R->doc, key), &x) == 0) {
    char buf[160];
    snprintf(buf, sizeof buf, "%s %.3g", label, x);
    app_plot_note(R->fig, buf);
  }
}

/* "sampling": [{"block", "degree", "error": [per derivative order]}, ...]
 * (sampled data): one note per block with its largest estimated errors. */
static void note_sampling(plot_run *R) {
  const app_jval *smp = app_jr_get(R->doc, "sampling");
  for (size_t k = 0; k < app_jr_len(smp); k++) {
    const app_jval *b = app_jr_at(smp, k), *label = app_jr_get(b, "block");
    const app_jval *e = app_jr_get(b, "error");
    char buf[256];
    size_t used = (size_t)snprintf(buf, sizeof buf, "sampled %s: estimated error of derivative",
                                   label && label->type == APP_JSTR ? label->str : "block");
    double x;
    for (size_t d = 0; used < sizeof buf && app_jr_num_at(e, d, &x) == 0; d++) {
      used += (size_t)snprintf(buf + used, sizeof buf - used, "%s %zu: %.2g", d ? "," : "", d, x);
    }
    app_plot_note(R->fig, buf);
  }
}

static int draw_trajectories(plot_run *R, const char *kind) {
  double *t = NULL;
  size_t n = read_times(app_jr_get(R->doc, "times"), &t);
  int rc = 0;
  if (n == 0) {
    rc = fail_input(R, "no \"times\" to draw over");
  } else if (strcmp(kind, "lqr plant") == 0) { /* z in the order of "variables", with names */
    rc = add_table_as(R, "z", "z", t, n, app_jr_get(R->doc, "variables"), 0);
    rc = rc ? rc : add_table_as(R, "u", "u", t, n, app_jr_get(R->doc, "inputs"), 0);
    rc = rc ? rc : add_outputs(R, t, n);
    note_number(R, "optimal cost J =", "cost");
    note_number(R, "closed loop's cost J =", "cost_closed");
  } else if (strcmp(kind, "lqr") == 0) {
    if (app_jr_len(app_jr_get(R->doc, "x")) == 0) {
      rc = fail_input(R, "the LQR result has no trajectory (have_trajectory is false)");
    }
    rc = rc ? rc : add_table(R, "x", "x", t, n, NULL);
    rc = rc ? rc : add_table(R, "lambda", "lambda", t, n, NULL);
    rc = rc ? rc : add_table(R, "u", "u", t, n, NULL);
    note_number(R, "cost J =", "cost");
  } else {
    rc = add_table(R, "z", "z", t, n, app_jr_get(R->doc, "components"));
    rc = rc ? rc : add_outputs(R, t, n);
    if (strcmp(kind, "bvp") == 0) {
      note_number(R, "condition estimate (cond_shooting)", "cond_shooting");
      note_number(R, "condition of the BVP (cond_bvp)", "cond_bvp");
      note_number(R, "estimated error (error_estimate)", "error_estimate");
      note_number(R, "estimated error (fd_error)", "fd_error");
    }
    note_number(R, "drift max ||P v|| =", "drift");
    note_sampling(R);
  }
  free(t);
  return rc;
}

/* ------------------------------------------------------------------------ */
/* lth-decompose                                                            */

/* Entry NAME[i] or NAME[i,j] (1-based) of every point. */
typedef struct entry_ref {
  char name[16];
  long i, j; /* j = 0 for a vector entry */
} entry_ref;

static int entry_value(const app_jval *pt, const entry_ref *e, double *x) {
  const app_jval *v = app_jr_get(pt, e->name);
  if (e->j == 0) {
    return app_jr_num_at(v, (size_t)(e->i - 1), x);
  }
  return app_jr_num_at(app_jr_at(v, (size_t)(e->i - 1)), (size_t)(e->j - 1), x);
}

static int add_entry(plot_run *R, int panel, const app_jval *pts, const double *t, size_t n,
                     const entry_ref *e, const char *label) {
  double *y = malloc((n ? n : 1) * sizeof *y);
  if (!y) {
    return app_failf(APP_EXIT_NUMERIC, "out of memory");
  }
  for (size_t k = 0; k < n; k++) {
    if (entry_value(app_jr_at(pts, k), e, &y[k]) != 0) {
      free(y);
      return app_usage_error("%s is not an entry of the decomposition (sizes: P, Ahat m x m, "
                             "g m, Bhat, G s x m, q s; 1-based)",
                             label);
    }
  }
  int rc = app_plot_series(R->fig, panel, label, t, y, n, 1) == 0
               ? 0
               : app_failf(APP_EXIT_NUMERIC, "out of memory");
  free(y);
  return rc;
}

/* --select P[1,1],q[3],...: one panel of the listed entries. */
static int add_selection(plot_run *R, const app_jval *pts, const double *t, size_t n) {
  int panel = app_plot_panel(R->fig, "selected entries", "", APP_PLOT_LINEAR);
  const char *s = R->cli->select;
  while (panel >= 0 && *s) {
    entry_ref e = {"", 0, 0};
    int used = 0;
    if (sscanf(s, "%15[A-Za-z][%ld,%ld]%n", e.name, &e.i, &e.j, &used) < 3 || used == 0) {
      e.j = 0;
      used = 0;
      if (sscanf(s, "%15[A-Za-z][%ld]%n", e.name, &e.i, &used) < 2 || used == 0) {
        return app_usage_error("--select: expected NAME[i] or NAME[i,j] at '%s'", s);
      }
    }
    if (e.i < 1 || e.j < 0) {
      return app_usage_error("--select: indices are 1-based, at '%s'", s);
    }
    char label[64];
    snprintf(label, sizeof label, "%.*s", used < 60 ? used : 60, s);
    int rc = add_entry(R, panel, pts, t, n, &e, label);
    if (rc != 0) {
      return rc;
    }
    s += used;
    if (*s == ',') {
      s++;
    } else if (*s) {
      return app_usage_error("--select: expected ',' at '%s'", s);
    }
  }
  return panel >= 0 ? 0 : app_failf(APP_EXIT_NUMERIC, "out of memory");
}

/* Component names z_i[k], u[k] from "blocks". */
static void block_name(const app_jval *blocks, int idx, char *buf, size_t size) {
  size_t r = app_jr_len(blocks);
  double nb;
  for (size_t i = 0; i < r && app_jr_num_at(blocks, i, &nb) == 0; i++) {
    if (idx < (int)nb) {
      if (i + 1 == r) {
        snprintf(buf, size, "u[%d]", idx + 1);
      } else {
        snprintf(buf, size, "z_%zu[%d]", i + 1, idx + 1);
      }
      return;
    }
    idx -= (int)nb;
  }
  snprintf(buf, size, "[%d]", idx + 1);
}

/* q(t) (s entries, by component) and g(t) (m entries): panels of entries. */
static int add_vector_panel(plot_run *R, const app_jval *pts, const double *t, size_t n,
                            const char *key, const char *title) {
  size_t len = app_jr_len(app_jr_get(app_jr_at(pts, 0), key));
  if (len == 0) {
    return 0;
  }
  int panel = app_plot_panel(R->fig, title, "", APP_PLOT_LINEAR);
  for (size_t i = 0; panel >= 0 && i < len && i < 40; i++) {
    entry_ref e = {"", (long)i + 1, 0};
    char comp[48], label[64];
    snprintf(e.name, sizeof e.name, "%s", key);
    block_name(app_jr_get(R->doc, "blocks"), (int)i, comp, sizeof comp);
    snprintf(label, sizeof label, "%s: %s", key, comp);
    int rc = add_entry(R, panel, pts, t, n, &e, label);
    if (rc != 0) {
      return rc;
    }
  }
  return panel >= 0 ? 0 : app_failf(APP_EXIT_NUMERIC, "out of memory");
}

static int add_named(plot_run *R, int panel, const app_jval *pts, const double *t, size_t n,
                     const char *obj, const char *key) {
  double *y = malloc((n ? n : 1) * sizeof *y);
  int ok = y != NULL;
  for (size_t k = 0; ok && k < n; k++) {
    const app_jval *pt = app_jr_at(pts, k);
    ok = app_jr_number(app_jr_get(obj ? app_jr_get(pt, obj) : pt, key), &y[k]) == 0;
  }
  int rc = ok ? app_plot_series(R->fig, panel, key, t, y, n, 1) : 0;
  free(y);
  return ok && rc != 0 ? app_failf(APP_EXIT_NUMERIC, "out of memory") : 0;
}

static int draw_decomposition(plot_run *R) {
  const app_jval *pts = app_jr_get(R->doc, "points");
  double *t = NULL;
  size_t n = read_times(pts, &t);
  if (n == 0) {
    free(t);
    return fail_input(R, "no points with a time \"t\"");
  }
  int rc = 0, panel = app_plot_panel(R->fig, "condition of Pi", "", APP_PLOT_LOG);
  rc = panel < 0 ? app_failf(APP_EXIT_NUMERIC, "out of memory") : 0;
  rc = rc ? rc : add_named(R, panel, pts, t, n, NULL, "cond_pi");
  rc = rc ? rc : add_named(R, panel, pts, t, n, NULL, "cond_chain");
  if (!rc && R->cli->select) {
    rc = add_selection(R, pts, t, n);
  } else if (!rc) {
    rc = add_vector_panel(R, pts, t, n, "q", "q(t): the algebraic part (w, u) at v = 0");
    rc = rc ? rc : add_vector_panel(R, pts, t, n, "g", "g(t): the reduced ODE's inhomogeneity");
  }
  if (!rc && app_jr_get(app_jr_at(pts, 0), "check")) {
    panel = app_plot_panel(R->fig, "--check: worst relative residual", "", APP_PLOT_LOG);
    rc = add_named(R, panel, pts, t, n, "check", "worst");
  }
  double p, r;
  if (app_jr_number(app_jr_get(R->doc, "p"), &p) == 0 &&
      app_jr_number(app_jr_get(R->doc, "index"), &r) == 0) {
    char buf[96];
    snprintf(buf, sizeof buf, "index r = %.0f, manifold dimension p = %.0f", r, p);
    app_plot_note(R->fig, buf);
  }
  note_sampling(R);
  free(t);
  return rc;
}

/* ------------------------------------------------------------------------ */
/* The run                                                                  */

static const char *recognize(const app_jval *doc) {
  if (app_jr_get(doc, "points")) {
    return "decompose";
  }
  if (app_jr_get(doc, "lambda") && app_jr_get(doc, "x")) {
    return "lqr";
  }
  if (app_jr_get(doc, "z") && app_jr_get(doc, "cost_closed")) {
    return "lqr plant"; /* lth-lqr on a DAE plant with a cost */
  }
  if (app_jr_get(doc, "z") && app_jr_get(doc, "cond_shooting")) {
    return "bvp";
  }
  if (app_jr_get(doc, "z") && app_jr_get(doc, "times")) {
    return "solve";
  }
  return NULL;
}

static int parse_size(const char *s, int *w, int *h) {
  int used = 0;
  if (!s) {
    return 0;
  }
  if (sscanf(s, "%dx%d%n", w, h, &used) != 2 || s[used] != '\0' || *w < 200 || *h < 100 ||
      *w > 20000 || *h > 20000) {
    return app_usage_error("--size: expected WxH with W in 200..20000 and H in 100..20000, "
                           "not '%s'",
                           s);
  }
  return 0;
}

static int run(const plot_cli *cli, const char *path) {
  int w = 0, h = 0, rc = parse_size(cli->size, &w, &h);
  if (rc != 0) {
    return rc;
  }
  if (!app_plot_format(cli->out)) {
    return app_usage_error("-o %s: the picture must be a .png, .svg or .pdf file", cli->out);
  }
  plot_run R = {.cli = cli, .path = path};
  app_jval *doc = NULL;
  lth_error_clear(&R.err);
  if (app_jr_read_file(path, &doc, &R.err) != LTH_OK) {
    rc = app_fail(&R.err);
    return rc == APP_EXIT_USAGE ? APP_EXIT_INPUT : rc;
  }
  R.doc = doc;
  const char *kind = recognize(doc);
  if (!kind) {
    rc = fail_input(&R, app_jr_get(doc, "z0") ? "lth-ic's result is one time: nothing to draw "
                                                "over t"
                                              : "not the JSON output of lth-decompose, "
                                                "lth-solve, lth-bvp or lth-lqr");
    app_jr_free(doc);
    return rc;
  }
  char title[512];
  snprintf(title, sizeof title, "lth-%s: %s", strcmp(kind, "lqr plant") ? kind : "lqr",
           strcmp(path, "-") ? path : "<stdin>");
  R.fig = app_plot_new(cli->title ? cli->title : title);
  if (!R.fig) {
    rc = app_failf(APP_EXIT_NUMERIC, "out of memory");
  } else {
    rc = strcmp(kind, "decompose") == 0 ? draw_decomposition(&R) : draw_trajectories(&R, kind);
  }
  if (rc == 0 && app_plot_render(R.fig, cli->out, w, h, &R.err) != LTH_OK) {
    /* options were checked above: what is left is about the input or gnuplot */
    app_fail(&R.err);
    rc = APP_EXIT_INPUT;
  }
  app_plot_free(R.fig);
  app_jr_free(doc);
  return rc;
}

int main(int argc, char **argv) {
  app_init("lth-plot");
  plot_cli cli = {NULL, NULL, NULL, NULL};
  app_option opts[] = {
      {.name = "output", .short_name = 'o', .type = APP_OPT_STRING, .dest = &cli.out},
      {.name = "size", .type = APP_OPT_STRING, .dest = &cli.size},
      {.name = "title", .type = APP_OPT_STRING, .dest = &cli.title},
      {.name = "select", .type = APP_OPT_STRING, .dest = &cli.select},
  };
  app_spec spec = {.help = help_text,
                   .opts = opts,
                   .nopts = sizeof opts / sizeof opts[0],
                   .min_args = 1,
                   .max_args = 1};
  const char *args[1];
  int nargs;
  int rc = app_parse(&spec, argc, argv, args, &nargs);
  if (rc != APP_CONTINUE) {
    return rc;
  }
  if (!cli.out) {
    return app_usage_error("-o FILE is required (a .png, .svg or .pdf file)");
  }
  return run(&cli, args[0]);
}
