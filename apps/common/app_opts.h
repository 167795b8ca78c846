/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GNU-style option parsing for the lth tools.
 *
 *   --name VALUE, --name=VALUE, -x VALUE, -xVALUE, flags (--quiet), "--" ends
 *   the options; positional arguments (the data file first) may come anywhere.
 *   --help / -h and --version are built in.  An option's value is always the
 *   next argument, so negative numbers work: --at -1,2.
 *   Unknown options, missing or bad values, values out of range, too few or
 *   too many positional arguments are usage errors: a message on stderr, the
 *   hint "Try 'TOOL --help'", exit status 1.
 *
 * Example (the APP_* macros below write one entry each):
 *   app_list at = {0};  long n = 0;  int fmt = 0;  double tol = 1e-8;
 *   app_option opts[] = {
 *     APP_LIST("at", &at),
 *     APP_INT("grid", &n, 2, 1e9),
 *     APP_CHOICE("format", &fmt, "text|csv|json"),
 *     APP_DOUBLE("tol", &tol, 0, 1),
 *     {.name = "output", .short_name = 'o', .type = APP_OPT_STRING, .dest = &out},
 *   };
 * After parsing, opts[k].given says whether option k appeared and
 * opts[k].used how it was spelled (for messages: "--at" or "--times").
 */
#ifndef LTH_APP_OPTS_H
#define LTH_APP_OPTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One option-table entry (long name only). */
#define APP_FLAG(nm, dst)                                                                          \
  { .name = (nm), .type = APP_OPT_FLAG, .dest = (dst) }
#define APP_STRING(nm, dst)                                                                        \
  { .name = (nm), .type = APP_OPT_STRING, .dest = (dst) }
#define APP_LIST(nm, dst)                                                                          \
  { .name = (nm), .type = APP_OPT_LIST, .dest = (dst) }
#define APP_CHOICE(nm, dst, list)                                                                  \
  { .name = (nm), .type = APP_OPT_CHOICE, .dest = (dst), .choices = (list) }
#define APP_INT(nm, dst, lo, hi)                                                                   \
  { .name = (nm), .type = APP_OPT_INT, .dest = (dst), .min = (lo), .max = (hi) }
#define APP_DOUBLE(nm, dst, lo, hi)                                                                \
  { .name = (nm), .type = APP_OPT_DOUBLE, .dest = (dst), .min = (lo), .max = (hi) }
/* Number of entries of an option table. */
#define APP_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* app_parse's return value when the tool should go on. */
#define APP_CONTINUE (-1)

typedef enum app_opt_type {
  APP_OPT_FLAG,   /* dest int *: set to 1 (takes no value) */
  APP_OPT_INT,    /* dest long *: integer in [min, max] */
  APP_OPT_DOUBLE, /* dest double *: finite number in [min, max] (if min < max) */
  APP_OPT_LIST,   /* dest app_list *: finite numbers separated by commas */
  APP_OPT_STRING, /* dest const char **: the argument itself (not copied) */
  APP_OPT_CHOICE, /* dest int *: index of the value in choices "a|b|c" */
  APP_OPT_STRINGS /* dest app_strings *: every occurrence's argument, in order */
} app_opt_type;

/* The arguments of a repeatable option (pointers into argv; the array is
 * owned: release with app_strings_free). */
typedef struct app_strings {
  const char **v;
  size_t n;
} app_strings;
void app_strings_free(app_strings *s);

/* A list of numbers (owned; release with app_list_free). */
typedef struct app_list {
  double *v;
  size_t n;
} app_list;

typedef struct app_option {
  const char *name; /* long name without "--" (NULL: short only); "times|at" gives
                       one option two spellings */
  int short_name;   /* single letter, 0 if none */
  app_opt_type type;
  void *dest;
  const char *choices; /* APP_OPT_CHOICE: "text|csv|json" */
  double min, max;     /* APP_OPT_INT / APP_OPT_DOUBLE: inclusive range, if min < max */
  int given;           /* set by app_parse: 1 if the option appeared */
  char used[32];       /* set by app_parse: the spelling last used ("--at", "-o") */
} app_option;

typedef struct app_spec {
  const char *help; /* full --help text (printed as is) */
  app_option *opts;
  size_t nopts;
  int min_args, max_args; /* positional arguments */
} app_spec;

/* Parse argv.  args (max_args entries) receives the positional arguments,
 * *nargs their number.  Returns APP_CONTINUE, 0 after --help/--version
 * (already printed), or 1 after a usage error (already reported).  Later
 * occurrences of an option override earlier ones. */
int app_parse(app_spec *spec, int argc, char **argv, const char **args, int *nargs);

/* Strict number parsing: the whole string must be one finite number.
 * Return 0 on success, -1 otherwise. */
int app_parse_double(const char *s, double *v);
int app_parse_long(const char *s, long *v);
/* "1,2.5,-3" -> list (replaces and frees out's old contents).  Empty items,
 * non-numbers and non-finite values fail (-1, *bad_item set to the item's
 * 1-based position, or 0 for an empty list). */
int app_parse_list(const char *s, app_list *out, size_t *bad_item);
void app_list_free(app_list *l);

#ifdef __cplusplus
}
#endif
#endif
