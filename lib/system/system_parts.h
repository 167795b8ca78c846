/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the parts of a system's forcing F = f + B u apart (lib/system/system.c,
 * system_io.c), for the input maps of the decomposition
 * (lib/decomp/input_maps.c), which need f and B separately and work with free
 * inputs.  Scratch: lth_system_work_size(sys, order) doubles. */
#ifndef LTH_SYSTEM_PARTS_H
#define LTH_SYSTEM_PARTS_H

#include "lth/system.h"

/* 1 if block (i, j) (1-based) lies in Clark's Hessenberg pattern (2.2) of index r. */
int lth_system_in_pattern(int r, int i, int j);

/* As lth_system_eval, with f alone (without B u): free inputs allowed. */
lth_status lth_system_eval_unforced(const lth_system *sys, double t, int order, lth_jet *A,
                                    lth_jet *f, double *work, lth_error *err);
/* The jets of B (s x nu, block rows B_i, zero where not set) at t.  LTH_EDIM
 * without inputs or for a jet of the wrong size. */
lth_status lth_system_eval_B(const lth_system *sys, double t, int order, lth_jet *B, double *work,
                             lth_error *err);

/* Scratch for lth_system_eval at this order, and its bookkeeping: acquire
 * for a workspace that lives until it releases it (the size is remembered
 * meanwhile: lth_system_set_input refuses a signal that would not fit).  The
 * ledger is reference-counted: a workspace may be freed after its system.
 * needed: scratch that lives within one call. */
typedef struct lth_work_ledger lth_work_ledger;
lth_work_ledger *lth_system_work_acquire(const lth_system *sys, int order, size_t *size);
void lth_work_ledger_release(lth_work_ledger *ledger, int order);
size_t lth_system_work_needed(const lth_system *sys, int order);

#endif
