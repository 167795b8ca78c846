/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --help of a tool: its own text (usage, description, its options), the
 * block of common options (written once, here, for every tool), then its
 * tail (examples, output keys, exit statuses). */
#ifndef LTH_APP_HELP_H
#define LTH_APP_HELP_H

#include "app_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The whole --help text (malloc'ed; NULL when out of memory). */
char *app_help_compose(const app_tool *tool);

#ifdef __cplusplus
}
#endif
#endif
