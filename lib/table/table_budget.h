/* SPDX-License-Identifier: GPL-3.0-or-later */
/* For the IVP's automatic choice between the table and direct decompositions
 * (lib/ivp/ivp_coef.c).  A build with a budget: the choice is taken between
 * builds, and one build over data whose panels come out narrow could
 * otherwise run for minutes before the choice is looked at again.  And what
 * the table's errors cost the solution, which decides it too. */
#ifndef LTH_TABLE_BUDGET_H
#define LTH_TABLE_BUDGET_H

#include "lth/table.h"

/* As lth_table_build, but stops between panels once the table holds
 * max_decomps decompositions (0: no limit) and has at least one panel:
 * LTH_ERANGE then (err untouched), the covered part still usable. */
lth_status lth_table_build_budget(lth_table *tab, double t, size_t max_decomps, lth_error *err);

/* What the tabulated panels' interpolation errors can add to a solution of
 * v' = (Ahat - gamma P) v + g over the covered part, relative to max(1, |v|):
 * the errors the panels' estimates allow for Ahat, P and g, accumulated over
 * the panels' widths, forgotten where Ahat - gamma P contracts (its
 * logarithmic norm; lib/table/coef_table_bias.c).  The IVP compares it with
 * its tolerance: an interpolant's error is a bias that accumulates over the
 * span, where the rounding of direct decompositions averages out.  Returns
 * the largest value over the covered part; *t_pass: the left end of the
 * panel where it first exceeds limit (INFINITY if it never does). */
double lth_table_rhs_error(lth_table *tab, double gamma, double limit, double *t_pass);

#endif
