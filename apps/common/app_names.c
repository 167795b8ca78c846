/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Component names (app_names.h). */
#include "app_names.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A copy of the formatted string (NULL when out of memory). */
static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (s) {
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  return s;
}

/* "z[4] (z_2[1])" -> "z_2[1]": the block name is what a header needs */
static int block_names(app_names *nm, const lth_system *sys) {
  for (int i = 0; i < nm->n; i++) {
    char full[APP_NAME_MAX];
    lth_system_component_name(sys, i, full, sizeof full);
    const char *open = strchr(full, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    nm->full[i] = format("%s", full);
    if (open && close && close > open + 1) {
      nm->name[i] = format("%.*s", (int)(close - open - 1), open + 1);
    } else {
      nm->name[i] = format("%s", full);
    }
    if (!nm->name[i] || !nm->full[i]) {
      return -1;
    }
    nm->order[i] = i;
    nm->user_index[i] = i;
  }
  return 0;
}

/* The equation form: canonical position i holds the user's unknown perm[i]
 * (names of any length). */
static int user_names(app_names *nm, const lth_problem *pb) {
  const int *perm = lth_problem_perm(pb);
  for (int i = 0; i < nm->n; i++) {
    int u = perm[i];
    nm->name[i] = format("%s", lth_problem_var_name(pb, u));
    nm->full[i] = nm->name[i] ? format("z[%d] (%s)", i + 1, nm->name[i]) : NULL;
    if (!nm->full[i]) {
      return -1;
    }
    nm->order[u] = i;
    nm->user_index[i] = u;
  }
  nm->user = 1;
  return 0;
}

int app_names_init(app_names *nm, const lth_system *sys, const lth_problem *pb) {
  int s = lth_system_size(sys), eq = pb && lth_problem_get_form(pb) == LTH_FORM_EQUATIONS &&
                                     lth_problem_nvars(pb) >= s && lth_problem_perm(pb);
  s = eq ? lth_problem_nvars(pb) : s; /* the equation form: z, then the index-1 unknowns */
  memset(nm, 0, sizeof *nm);
  nm->n = s;
  nm->s = lth_system_size(sys);
  nm->name = calloc((size_t)s + 1, sizeof *nm->name);
  nm->full = calloc((size_t)s + 1, sizeof *nm->full);
  nm->order = calloc((size_t)s + 1, sizeof *nm->order);
  nm->user_index = calloc((size_t)s + 1, sizeof *nm->user_index);
  int st = nm->name && nm->full && nm->order && nm->user_index ? 0 : -1;
  if (st == 0 && eq) {
    st = user_names(nm, pb);
  } else if (st == 0) {
    st = block_names(nm, sys);
  }
  if (st != 0) {
    app_names_free(nm);
  }
  return st;
}

void app_names_free(app_names *nm) {
  for (int i = 0; nm->name && i < nm->n; i++) free(nm->name[i]);
  for (int i = 0; nm->full && i < nm->n; i++) free(nm->full[i]);
  free(nm->name);
  free(nm->full);
  free(nm->order);
  free(nm->user_index);
  memset(nm, 0, sizeof *nm);
}

int app_names_to_canonical(const app_names *nm, double *x) {
  if (!nm->user) {
    return 0;
  }
  double *tmp = malloc(sizeof(double) * ((size_t)nm->n + 1));
  if (!tmp) {
    return -1;
  }
  for (int k = 0; k < nm->n; k++) {
    tmp[nm->order[k]] = x[k];
  }
  memcpy(x, tmp, sizeof(double) * (size_t)nm->n);
  free(tmp);
  return 0;
}

int app_names_find(const app_names *nm, const char *name, size_t len) {
  char *end;
  long k = strtol(name, &end, 10);
  if (len > 0 && (size_t)(end - name) == len) {
    return k >= 1 && k <= nm->n ? nm->order[k - 1] : -1;
  }
  for (int i = 0; i < nm->n; i++) {
    if (strlen(nm->name[i]) == len && strncmp(nm->name[i], name, len) == 0) {
      return i;
    }
    char zi[32];
    int zl = snprintf(zi, sizeof zi, "z[%d]", i + 1);
    if ((size_t)zl == len && strncmp(zi, name, len) == 0) {
      return i;
    }
  }
  /* x' spelled without the apostrophe, for the shell: d.x, x_dot */
  char *copy = malloc(len + 1);
  int found = -1;
  if (copy) {
    memcpy(copy, name, len);
    copy[len] = '\0';
    found = lth_name_find((const char *const *)nm->name, nm->n, copy);
    free(copy);
  }
  return found;
}
