/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Component names (app_names.h). */
#include "app_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_names_init(app_names *nm, const lth_system *sys) {
  int s = lth_system_size(sys);
  nm->n = s;
  nm->name = calloc((size_t)s + 1, sizeof *nm->name);
  nm->full = calloc((size_t)s + 1, sizeof *nm->full);
  if (!nm->name || !nm->full) {
    app_names_free(nm);
    return -1;
  }
  for (int i = 0; i < s; i++) {
    lth_system_component_name(sys, i, nm->full[i], sizeof nm->full[i]);
    /* "z[4] (z_2[1])" -> "z_2[1]": the block name is what a header needs */
    const char *open = strchr(nm->full[i], '(');
    const char *close = open ? strchr(open, ')') : NULL;
    if (open && close && close > open + 1) {
      snprintf(nm->name[i], sizeof nm->name[i], "%.*s", (int)(close - open - 1), open + 1);
    } else {
      snprintf(nm->name[i], sizeof nm->name[i], "%s", nm->full[i]);
    }
  }
  return 0;
}

void app_names_free(app_names *nm) {
  free(nm->name);
  free(nm->full);
  nm->name = nm->full = NULL;
  nm->n = 0;
}
