/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GNU-style option parsing (app_opts.h). */
#include "app_opts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

int app_parse_double(const char *s, double *v) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  /* strtod accepts "nan" and "inf"; the tools want finite numbers only */
  if (end == s || *end != '\0' || !isfinite(x) || errno == ERANGE) {
    return -1;
  }
  *v = x;
  return 0;
}

int app_parse_long(const char *s, long *v) {
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE) {
    return -1;
  }
  *v = x;
  return 0;
}

void app_list_free(app_list *l) {
  if (l) {
    free(l->v);
    l->v = NULL;
    l->n = 0;
  }
}

int app_parse_list(const char *s, app_list *out, size_t *bad_item) {
  size_t cap = 1;
  for (const char *c = s; *c; c++) {
    cap += *c == ',';
  }
  double *v = malloc(cap * sizeof *v);
  char *copy = malloc(strlen(s) + 1);
  *bad_item = 0;
  if (!v || !copy) {
    free(v);
    free(copy);
    return -1;
  }
  strcpy(copy, s);
  size_t n = 0;
  int ok = *s != '\0';
  char *item = copy;
  while (ok) {
    char *comma = strchr(item, ',');
    if (comma) {
      *comma = '\0';
    }
    if (app_parse_double(item, &v[n]) != 0) {
      *bad_item = n + 1;
      ok = 0;
      break;
    }
    n++;
    if (!comma) {
      break;
    }
    item = comma + 1;
  }
  free(copy);
  if (!ok) {
    free(v);
    return -1;
  }
  app_list_free(out);
  out->v = v;
  out->n = n;
  return 0;
}

/* "--name" for messages: the spelling used, else the first long name. */
static void opt_label(const app_option *o, char *buf, size_t size) {
  if (o->used[0]) {
    snprintf(buf, size, "%s", o->used);
  } else if (o->name) {
    snprintf(buf, size, "--%.*s", (int)strcspn(o->name, "|"), o->name);
  } else {
    snprintf(buf, size, "-%c", o->short_name);
  }
}

static int in_range(const app_option *o, double x) {
  return !(o->min < o->max) || (x >= o->min && x <= o->max);
}

static int choice_index(const char *choices, const char *val) {
  size_t len = strlen(val);
  int k = 0;
  for (const char *c = choices; *c; k++) {
    const char *bar = strchr(c, '|');
    size_t n = bar ? (size_t)(bar - c) : strlen(c);
    if (n == len && strncmp(c, val, n) == 0) {
      return k;
    }
    if (!bar) {
      break;
    }
    c = bar + 1;
  }
  return -1;
}

static int bad_value(const char *label, const char *val, const char *what) {
  return app_usage_error("invalid value '%s' for %s: %s", val, label, what);
}

/* Store val into o->dest; 0 or a usage error (1). */
static int store_value(app_option *o, const char *val) {
  char label[64], what[160];
  opt_label(o, label, sizeof label);
  o->given = 1;
  switch (o->type) {
  case APP_OPT_FLAG:
    *(int *)o->dest = 1;
    return 0;
  case APP_OPT_STRINGS: {
    app_strings *ss = o->dest;
    const char **nv = realloc(ss->v, (ss->n + 1) * sizeof *nv);
    if (!*val || !nv) {
      if (nv) ss->v = nv;
      return bad_value(label, val, nv ? "expected a non-empty argument" : "out of memory");
    }
    ss->v = nv;
    ss->v[ss->n++] = val;
    return 0;
  }
  case APP_OPT_STRING:
    if (!*val) {
      return bad_value(label, val, "expected a non-empty argument");
    }
    *(const char **)o->dest = val;
    return 0;
  case APP_OPT_INT: {
    long x;
    if (app_parse_long(val, &x) != 0 || !in_range(o, (double)x)) {
      if (o->min < o->max) {
        snprintf(what, sizeof what, "expected an integer from %.0f to %.0f", o->min, o->max);
      } else {
        snprintf(what, sizeof what, "expected an integer");
      }
      return bad_value(label, val, what);
    }
    *(long *)o->dest = x;
    return 0;
  }
  case APP_OPT_DOUBLE: {
    double x;
    if (app_parse_double(val, &x) != 0 || !in_range(o, x)) {
      if (o->min < o->max) {
        snprintf(what, sizeof what, "expected a number from %g to %g", o->min, o->max);
      } else {
        snprintf(what, sizeof what, "expected a finite number");
      }
      return bad_value(label, val, what);
    }
    *(double *)o->dest = x;
    return 0;
  }
  case APP_OPT_LIST: {
    size_t bad;
    if (app_parse_list(val, (app_list *)o->dest, &bad) != 0) {
      if (bad > 0) {
        snprintf(what, sizeof what,
                 "item %zu is not a finite number (expected numbers "
                 "separated by commas, e.g. 0,0.5,1)",
                 bad);
      } else {
        snprintf(what, sizeof what, "expected numbers separated by commas, e.g. 0,0.5,1");
      }
      return bad_value(label, val, what);
    }
    return 0;
  }
  case APP_OPT_CHOICE: {
    int k = choice_index(o->choices, val);
    if (k < 0) {
      snprintf(what, sizeof what, "expected one of %s", o->choices);
      return bad_value(label, val, what);
    }
    *(int *)o->dest = k;
    return 0;
  }
  }
  return bad_value(label, val, "unsupported option type");
}

/* Is `name` (len characters) one of the spellings "a|b|c"? */
static int name_matches(const char *names, const char *name, size_t len) {
  for (const char *c = names; c && *c;) {
    size_t n = strcspn(c, "|");
    if (n == len && strncmp(c, name, len) == 0) {
      return 1;
    }
    c += n + (c[n] == '|');
  }
  return 0;
}

static app_option *find_long(app_spec *spec, const char *name, size_t len) {
  for (size_t k = 0; k < spec->nopts; k++) {
    app_option *o = &spec->opts[k];
    if (name_matches(o->name, name, len)) {
      snprintf(o->used, sizeof o->used, "--%.*s", (int)len, name);
      return o;
    }
  }
  return NULL;
}

static app_option *find_short(app_spec *spec, int c) {
  for (size_t k = 0; k < spec->nopts; k++) {
    app_option *o = &spec->opts[k];
    if (o->short_name == c) {
      snprintf(o->used, sizeof o->used, "-%c", c);
      return o;
    }
  }
  return NULL;
}

/* Internal: help or version was printed, the tool should exit with status 0. */
#define PRINTED (-2)

static int print_version(void) {
  printf("%s (lth) %s\n"
         "Copyright (C) the lth authors.  License GPL-3.0-or-later:\n"
         "this is free software; you may change and redistribute it.\n"
         "There is NO WARRANTY, to the extent permitted by law.\n",
         app_name(), APP_VERSION);
  return PRINTED;
}

static int print_help(const app_spec *spec) {
  fputs(spec->help, stdout);
  return PRINTED;
}

/* "--name[=value]" at argv[*i]; may consume argv[*i + 1]. */
static int parse_long_opt(app_spec *spec, int argc, char **argv, int *i) {
  const char *arg = argv[*i] + 2;
  const char *eq = strchr(arg, '=');
  size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
  if (!eq && strcmp(arg, "help") == 0) {
    return print_help(spec);
  }
  if (!eq && strcmp(arg, "version") == 0) {
    return print_version();
  }
  app_option *o = find_long(spec, arg, len);
  if (!o) {
    return app_usage_error("unknown option '--%.*s'", (int)len, arg);
  }
  if (o->type == APP_OPT_FLAG) {
    if (eq) {
      return app_usage_error("option '%s' takes no value", o->used);
    }
    return store_value(o, "");
  }
  if (eq) {
    return store_value(o, eq + 1);
  }
  if (*i + 1 >= argc) {
    return app_usage_error("option '%s' needs a value", o->used);
  }
  return store_value(o, argv[++*i]);
}

/* "-x", "-xVALUE" or "-x VALUE" (flags may be grouped: -qv). */
static int parse_short_opt(app_spec *spec, int argc, char **argv, int *i) {
  const char *arg = argv[*i] + 1;
  while (*arg) {
    if (*arg == 'h') {
      return print_help(spec);
    }
    app_option *o = find_short(spec, (unsigned char)*arg);
    if (!o) {
      return app_usage_error("unknown option '-%c'", *arg);
    }
    if (o->type == APP_OPT_FLAG) {
      int rc = store_value(o, "");
      if (rc != 0) {
        return rc;
      }
      arg++;
      continue;
    }
    if (arg[1]) {
      return store_value(o, arg + 1);
    }
    if (*i + 1 >= argc) {
      return app_usage_error("option '-%c' needs a value", o->short_name);
    }
    return store_value(o, argv[++*i]);
  }
  return 0;
}

int app_parse(app_spec *spec, int argc, char **argv, const char **args, int *nargs) {
  *nargs = 0;
  for (size_t k = 0; k < spec->nopts; k++) {
    spec->opts[k].given = 0;
    spec->opts[k].used[0] = '\0';
  }
  int only_args = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int rc;
    if (!only_args && strcmp(a, "--") == 0) {
      only_args = 1;
      continue;
    }
    if (!only_args && a[0] == '-' && a[1] != '\0') {
      rc = a[1] == '-' ? parse_long_opt(spec, argc, argv, &i)
                       : parse_short_opt(spec, argc, argv, &i);
      if (rc == PRINTED) {
        return APP_EXIT_OK; /* --help or --version: nothing else to do */
      }
      if (rc != 0) {
        return rc;
      }
      continue;
    }
    if (*nargs >= spec->max_args) {
      return app_usage_error("unexpected argument '%s'", a);
    }
    args[(*nargs)++] = a;
  }
  if (*nargs < spec->min_args) {
    return app_usage_error("missing data file argument");
  }
  return APP_CONTINUE;
}

void app_strings_free(app_strings *s) {
  free(s->v);
  s->v = NULL;
  s->n = 0;
}
