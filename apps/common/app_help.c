/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --help texts (app_help.h). */
#include "app_help.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char times_many[] =
    "  --times, --at T1,T2,...\n"
    "                      report at these times (one option, two names), each in\n"
    "                      the file's interval [t0, t1], in the given order;\n"
    "                      default: %s\n";
static const char times_one[] =
    "  --at T, --times T   the time, in the file's interval [t0, t1] (one value;\n"
    "                      default: %s)\n";
static const char grid_line[] =
    "  --grid N            N >= 2 uniform times from t0 to t1 (excludes --times)\n";
/* "  --format FMT        text (default: a report), csv or json\n": the tool's formats */
static size_t format_line(const app_tool *T, char *h, size_t size) {
  const char *names[APP_NFORMATS];
  int n = 0;
  for (int f = 0; f < APP_NFORMATS; f++) {
    if (T->write[f]) {
      names[n++] = app_format_name(f);
    }
  }
  size_t used = (size_t)snprintf(h, size, "  --format FMT        ");
  for (int k = 0; k < n; k++) {
    const char *sep = k == 0 ? "" : k + 1 < n ? ", " : " or ";
    used += (size_t)snprintf(h + used, size - used, "%s%s%s", sep, names[k],
                             k == 0 && strcmp(names[k], "text") == 0 ? " (default: a report)" : "");
  }
  return used + (size_t)snprintf(h + used, size - used, "\n");
}

static const char common_rest[] =
    "  -o, --output FILE   write to FILE instead of standard output; FILE is\n"
    "                      replaced only by a complete output and keeps its\n"
    "                      permissions (a run that fails before its output is\n"
    "                      complete leaves FILE alone)\n"
    "  -q, --quiet         no progress line on stderr (shown only on a terminal;\n"
    "                      warnings still appear)\n"
    "  --threads N         threads for parallel work, 1..256 (default: all cores);\n"
    "                      the results do not depend on N\n"
    "  --cond-max X        fail (exit 3) where the chain condition\n"
    "                      ||Pi^-1|| max||L_i|| max||R_j|| exceeds X (default 1e12)\n"
    "  --param NAME=VALUE  override the file's `param NAME` (VALUE a constant\n"
    "                      expression; repeat for several params)\n"
    "  FILE may be - to read the data file from standard input.\n"
    "  -h, --help          this text\n"
    "  --version           version and license\n";

char *app_help_compose(const app_tool *T) {
  const char *head = T->help ? T->help : "";
  const char *tail = T->help_tail ? T->help_tail : "";
  const char *dflt =
      T->times_default ? T->times_default : "the file's `grid`, else 101 uniform points";
  size_t size = strlen(head) + strlen(tail) + strlen(dflt) + sizeof times_many + sizeof times_one +
                sizeof grid_line + sizeof common_rest + 256;
  char *h = malloc(size);
  if (!h) {
    return NULL;
  }
  size_t used =
      (size_t)snprintf(h, size, "%s\nCommon options (the same in every lth tool):\n", head);
  if (T->times == APP_TIMES_MANY) {
    used += (size_t)snprintf(h + used, size - used, times_many, dflt);
  } else if (T->times == APP_TIMES_ONE) {
    used += (size_t)snprintf(h + used, size - used, times_one, dflt);
  }
  if (T->times == APP_TIMES_MANY) {
    used += (size_t)snprintf(h + used, size - used, "%s", grid_line);
  }
  used += format_line(T, h + used, size - used);
  snprintf(h + used, size - used, "%s%s%s", common_rest, *tail ? "\n" : "", tail);
  return h;
}
