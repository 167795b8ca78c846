/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A build with a budget, for the IVP's automatic choice between the table and
 * direct decompositions (lib/ivp/ivp_coef.c): the choice is taken between
 * builds, and one build over data whose panels come out narrow could
 * otherwise run for minutes before the choice is looked at again. */
#ifndef LTH_TABLE_BUDGET_H
#define LTH_TABLE_BUDGET_H

#include "lth/table.h"

/* As lth_table_build, but stops between panels once the table holds
 * max_decomps decompositions (0: no limit) and has at least one panel:
 * LTH_ERANGE then (err untouched), the covered part still usable. */
lth_status lth_table_build_budget(lth_table *tab, double t, size_t max_decomps, lth_error *err);

#endif
