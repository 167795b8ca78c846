/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: views of sampled data through which the output error estimate
 * (lib/decomp/sampling_error.c) perturbs them, and the "variant" systems whose
 * sampled data deliver their fits moved by their error estimate
 * (lth_system_sampling_variant).  lib/decomp/samples_wrap.c.
 *
 * The unit is a sampled data set (a source made by lth/samples.h), wherever
 * the system reads it: as a block, through a scaled view (the LQR optimality
 * DAE), behind a mass matrix, or as one coefficient of an equation-form
 * block (lib/source/source_rebind.h rebuilds those composites to read the views). */
#ifndef LTH_SAMPLES_WRAP_H
#define LTH_SAMPLES_WRAP_H

#include "lth/source.h"
#include "lth/system.h"

typedef struct swrap {
  const lth_source *base; /* what the view reads (not owned unless own) */
  const lth_source *samp; /* sampled data: base itself, or NULL for a block's view */
  int rows, cols;         /* base's size */
  int variant;            /* 1: deliver samp's alternative fits */
  int active;             /* 1: add delta to the coefficients */
  int dorder;             /* delta holds coefficients 0..dorder */
  double *delta;          /* rows x cols per coefficient, column-major (ld rows) */
  int bi, bj;             /* the first block that reads it: A(bi,bj), or f(bi) when bj == 0 */
  lth_source *own;        /* a block's view: the rebuilt block it reads (owned) */
  lth_source **kept;      /* a block's view: data views it owns (first read there) */
  int nkept;
} swrap;

/* A system of the same structure whose blocks are views of sys's blocks
 * (sys must outlive it), reading views of sys's sampled data sets; *list
 * (allocated, may be NULL when not wanted) receives those views, *nlist (may
 * be NULL) their number, in the order in which A(1,1), ..., A(1,r), f(1),
 * A(2,1), ..., f(r) first read them.  variant: -2 none, -1 every data set,
 * k >= 0 the k-th delivers its variant.  delta_order: the data views get a
 * perturbation buffer of orders 0..delta_order (-1: none). */
lth_system *swrap_system(const lth_system *sys, int variant, int delta_order, swrap ***list,
                         int *nlist, lth_error *err);

/* The sampled data sets sys reads, in the order above: their number, and the
 * first `cap` of them into out (may be NULL when cap is 0). */
int swrap_data_sets(const lth_system *sys, const lth_source **out, int cap);

#endif
