/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Names of a problem's s components, for every label a tool writes: text
 * table headers, JSON "components", messages about a component.  The driver
 * makes them once after loading (app_run.names).
 *
 * A block-form file names its components by the block structure (z_1[2],
 * u[1]); a `problem equations` file by the user's own unknowns (x1, v1,
 * lambda, x1').  The arrays are indexed by the canonical position in z (the
 * library's order, and the JSON's); `order` lists the canonical positions in
 * the user's order, for the tables a person or a script reads (text, CSV). */
#ifndef LTH_APP_NAMES_H
#define LTH_APP_NAMES_H

#include "lth/problem.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest block-form component name ("z[12] (z_3[4])"); an unknown's name
 * in the equation form may be of any length. */
#define APP_NAME_MAX 64

typedef struct app_names {
  int n;           /* s, or for an equation-form file every unknown: z's s positions, then
                      the index-1 unknowns (lth_model_perm) */
  int s;           /* the system's size (n - s index-1 unknowns follow z) */
  int user;        /* 1: the user's unknowns (equation form) */
  char **name;     /* short: "z_1[2]", "u[1]", or "x1" (table headers, JSON) */
  char **full;     /* with the position in z: "z[2] (z_1[2])" (reports) */
  int *order;      /* order[k]: canonical position of the user's unknown k */
  int *user_index; /* user_index[i]: the user's index (0-based) of position i */
} app_names;

/* 0, or -1 when out of memory.  pb may be NULL (block names). */
int app_names_init(app_names *nm, const lth_system *sys, const lth_problem *pb);
void app_names_free(app_names *nm);

/* Reorder x (n entries) in place from the user's order to the canonical one
 * (nothing for block names).  0, or -1 when out of memory (x unchanged). */
int app_names_to_canonical(const app_names *nm, double *x);

/* Component by name ("x1", "x1'" also spelled "d.x1" or "x1_dot", "z_1[2]",
 * "z[3]") or 1-based position in the user's order ("3"): its canonical
 * position, or -1. */
int app_names_find(const app_names *nm, const char *name, size_t len);

#ifdef __cplusplus
}
#endif
#endif
