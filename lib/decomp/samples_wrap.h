/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: a view of a system's block through which the output error
 * estimate (lib/decomp/decomp_error.c) perturbs sampled data, and the "variant"
 * system whose sampled blocks deliver their fits moved by their error
 * estimate (lth_system_sampling_variant).  lib/decomp/samples_wrap.c. */
#ifndef LTH_SAMPLES_WRAP_H
#define LTH_SAMPLES_WRAP_H

#include "lth/source.h"
#include "lth/system.h"

typedef struct swrap {
  const lth_source *base; /* the block's own source (not owned) */
  const lth_source *samp; /* the sampled data behind it (base itself, or the base of a
                             scaled view), or NULL */
  double alpha;           /* block = alpha * samp or alpha * samp^T */
  int transpose;
  int rows, cols;         /* the block's size */
  int variant;            /* 1: deliver samp's variant (see lib/decomp/samples_wrap.c) */
  int active;             /* 1: add delta to the coefficients */
  int dorder;             /* delta holds coefficients 0..dorder */
  double *delta;          /* rows x cols per coefficient, column-major (ld rows) */
  int bi, bj;             /* block A(bi,bj), or f(bi) when bj == 0 */
} swrap;

/* A system of the same structure whose blocks are views of sys's blocks
 * (sys must outlive it); *list (allocated, may be NULL when not wanted)
 * receives the views of the sampled blocks, *nlist (may be NULL) their
 * number, in the order A(1,1), ..., A(1,r), f(1), A(2,1), ..., f(r).
 * variant: -2 none, -1 every sampled block, k >= 0 the k-th sampled block
 * delivers its variant.  delta_order: the views of sampled blocks get a
 * perturbation buffer of orders 0..delta_order (-1: none). */
lth_system *swrap_system(const lth_system *sys, int variant, int delta_order, swrap ***list,
                         int *nlist, lth_error *err);

#endif
