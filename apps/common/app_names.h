/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Names of a problem's s components, for every label a tool writes: text
 * table headers, JSON "components", messages about a component.  The driver
 * makes them once after loading (app_run.names).  Today they come from the
 * block structure; this is the one place where the user's own variable
 * names would come in. */
#ifndef LTH_APP_NAMES_H
#define LTH_APP_NAMES_H

#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

#define APP_NAME_MAX 64

typedef struct app_names {
  int n;
  char (*name)[APP_NAME_MAX]; /* short: "z_1[2]", "u[1]" (table headers, JSON) */
  char (*full)[APP_NAME_MAX]; /* with the position in z: "z[2] (z_1[2])" (reports) */
} app_names;

/* 0, or -1 when out of memory. */
int app_names_init(app_names *nm, const lth_system *sys);
void app_names_free(app_names *nm);

#ifdef __cplusplus
}
#endif
#endif
