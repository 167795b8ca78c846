/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-lqr on a DAE plant with inputs, outputs and a cost (a `problem
 * equations` file with `cost integral` / `cost final`, docs/control.md
 * section 10): lth_plqr_solve (include/lth/plqr.h) on the file's interval
 * from the file's z0, the results in the user's names and order, and their
 * writers.  apps/lth-lqr.c dispatches here when the file has a cost. */
#ifndef LTH_APP_LQR_PLANT_H
#define LTH_APP_LQR_PLANT_H

#include "app_driver.h"
#include "lth/plqr.h"

typedef struct lqr_plant {
  lth_plqr_result *res;
  int nvars, s, nu, ny, p;
  size_t n;      /* report times (the user's order) */
  double *z;     /* n rows of nvars: the closed loop's unknowns, the user's order */
  double *u, *y; /* n rows of nu, ny */
  double *K, *k; /* per time: nu x nvars (column-major, ld nu) and nu: u = -K z + k */
  double cost, cost_closed;
  int singular; /* dim ker R: no gains (K, k zero and not written) */
} lqr_plant;

/* The file's checks (a cost, inputs, z0): 0 or an exit status (reported). */
int lqr_plant_prepare(const app_run *run);
/* Solve at the report times; rtol > 0 sets the Riccati and closed-loop
 * integrations' tolerance (0: the library's). */
lth_status lqr_plant_compute(lqr_plant *L, const app_run *run, double rtol, lth_error *err);
lth_status lqr_plant_check(const lqr_plant *L, const app_run *run, lth_error *err);
/* The writers; gain: K and k in text and CSV too (JSON always has them, except
 * for a singular problem, which has none). */
void lqr_plant_text(const lqr_plant *L, app_run *run, int gain);
void lqr_plant_csv(const lqr_plant *L, app_run *run, int gain);
void lqr_plant_json(const lqr_plant *L, app_run *run);
void lqr_plant_free(lqr_plant *L);

#endif
