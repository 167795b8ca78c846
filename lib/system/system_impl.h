/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of systems (include/lth/system.h): system.c (blocks, checks,
 * evaluation) and system_io.c (inputs and outputs: B, the signals, the
 * forcing F_i = f_i + B_i u, C, D). */
#ifndef LTH_SYSTEM_IMPL_H
#define LTH_SYSTEM_IMPL_H

#include <pthread.h>

#include "lth/system.h"
#include "system_parts.h"

/* orders of lth_system_work_size that are remembered (higher ones: see system.c) */
#define LTH_SYSTEM_ISSUED_ORDERS 128

struct lth_system {
  int r;
  int *n;   /* n[0..r-1] = n_1..n_r */
  int *off; /* off[i-1] = row offset of block i in z */
  int s, m, p;
  lth_source **A;   /* A[(i-1)*r + (j-1)], NULL = zero block */
  lth_source **f;   /* f[i-1] */
  int has_interval; /* lth_system_set_interval was called */
  double t0, t1;
  /* inputs (system_io.c): nu inputs, B[i-1] (n_i x nu, NULL = zero), the
   * signals u[k] (1 x 1, NULL = free), and per block row the forcing
   * F[i-1] = f_i + B_i u (NULL when B_i is zero: f_i is the forcing) */
  int nu;
  lth_source **B, **u, **F;
  /* outputs: y = C z + D u + y0 (each NULL = zero) */
  int ny;
  lth_source *C, *D, *y0;
  /* the scratch handed out (system_parts.h): shared with the workspaces that
   * hold some, which may outlive the system */
  lth_work_ledger *ledger;
};

/* The record of scratch handed out (work_ledger.c): one reference. */
lth_work_ledger *lth_work_ledger_new(void);
/* One reference less; the last frees it. */
void lth_work_ledger_drop(lth_work_ledger *ledger);
/* -1 if every scratch handed out (and still held) fits the system's sources,
 * else the first order that does not (*have: what was handed out, *need; an
 * order beyond the remembered ones: LTH_SYSTEM_ISSUED_ORDERS, *have = 0). */
int lth_system_work_check(const lth_system *sys, size_t *have, size_t *need);

/* The forcing of block row i (1-based): F_i, else f_i (NULL: zero). */
static inline const lth_source *lth_system_forcing_of(const lth_system *sys, int i) {
  return sys->F && sys->F[i - 1] ? sys->F[i - 1] : sys->f[i - 1];
}
/* (Re)build F_i after f_i, B_i or a signal changed. */
lth_status lth_system_forcing_rebuild(lth_system *sys, int i, lth_error *err);
/* Free what system_io.c allocated. */
void lth_system_io_free(lth_system *sys);

#endif
