/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Error estimates of the decomposition's outputs caused by sampled data
 * (docs/sampled-data.md, "Error bars").
 *
 * Exact sources (expressions, callbacks, constants) give the decomposition to
 * rounding; sampled blocks carry the error of their local fits, which the
 * decomposition propagates to its outputs.  lth_decomp_error_at estimates
 * that propagated error at t by first-order perturbation: for every sampled
 * block, every derivative order m the decomposition needs and (blocks of up
 * to 16 entries) every entry, the block's Taylor coefficient m is perturbed
 * by its own error estimate (lth_samples_error_jet: est_m, in the pattern
 * over the entries of the difference to the alternative fit), the
 * decomposition is repeated, and the absolute changes of the outputs are
 * summed.  So the estimate does not rely on errors cancelling; it costs
 * 1 + r * (the sampled entries; 1 per block above 16 entries) decompositions
 * per time.
 *
 * Outputs (values at t, order 0), in the canonical form that is unique:
 *   P, Ahat (I - P), g, Bhat (I - P), q and G = [Nhat + Bhat][I - P].
 *
 * For the IVP, BVP and LQR solvers, whose solutions depend on the data over
 * the whole interval, lth_system_sampling_variant gives the same system with
 * sampled data on their alternative fits (the fits their error estimate
 * compares with, at every t the solver asks for, between samples too):
 * solving with it too and differencing estimates the sampling contribution
 * to the solution's error (run it with the same tolerances; that difference
 * is what the tools print as sampling_error).
 *
 * Sampled data are found wherever the system reads them: a block that is a
 * samples(...) source, a scaled view of one (the LQR optimality DAE), a block
 * behind a mass matrix (M^{-1} A), or a coefficient of an equation-form
 * block; each data set counts once however many blocks read it.
 */
#ifndef LTH_SAMPLING_ERROR_H
#define LTH_SAMPLING_ERROR_H

#include "lth/decomp.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The outputs, in this order. */
enum {
  LTH_OUT_P = 0,    /* P */
  LTH_OUT_AHAT = 1, /* Ahat (I - P)   m x m */
  LTH_OUT_G = 2,    /* g              m x 1 */
  LTH_OUT_BHAT = 3, /* Bhat (I - P)   s x m */
  LTH_OUT_Q = 4,    /* q              s x 1 */
  LTH_OUT_GMAT = 5, /* G              s x m */
  LTH_NOUT = 6
};

/* "P", "Ahat", "g", "Bhat", "q", "G" (NULL outside 0..LTH_NOUT-1): the keys
 * the tools use in `error_estimate`. */
const char *lth_decomp_output_name(int which);

typedef struct lth_decomp_errest {
  double t;
  double abs[LTH_NOUT]; /* estimated largest |error| over the output's entries */
  double rel[LTH_NOUT]; /* abs / max(1, largest |entry|) */
  double overall;       /* largest rel */
  int nsampled;         /* sampled data sets that contribute (0: exact data, all estimates 0) */
} lth_decomp_errest;

typedef struct lth_decomp_error lth_decomp_error;

/* Workspace for the estimates of sys (which must outlive it).  Sampled data
 * are sources made by lth/samples.h, wherever the blocks read them (see
 * above). */
lth_decomp_error *lth_decomp_error_alloc(const lth_system *sys, lth_error *err);
void lth_decomp_error_free(lth_decomp_error *de);
/* As lth_decomp_ws_set_cond_max. */
void lth_decomp_error_set_cond_max(lth_decomp_error *de, double cond_max);
/* Number of sampled data sets. */
int lth_decomp_error_nsampled(const lth_decomp_error *de);

/* Decompose at t and estimate the outputs' errors into *out.  Errors as
 * lth_decomp_at (they name t).  Does not allocate. */
lth_status lth_decomp_error_at(lth_decomp_error *de, double t, lth_decomp_errest *out,
                               lth_error *err);
/* After a successful lth_decomp_error_at: the decomposition at t (order 0)... */
const lth_point *lth_decomp_error_point(const lth_decomp_error *de);
/* ...and the estimates entry by entry: |error| of each entry of output
 * `which` (rows x cols, column-major, leading dimension rows), whose largest
 * is the errest's abs[which]; valid until the next lth_decomp_error_at.
 * NULL for which outside 0..LTH_NOUT-1. */
const double *lth_decomp_error_entries(const lth_decomp_error *de, int which, int *rows, int *cols);

/* Number of sampled data sets sys reads (see above; a variant's data sets
 * count too), in the order in which A(1,1), ..., A(1,r), f(1), A(2,1), ...,
 * f(r) first read them.  The name is historical: in the block form every
 * samples(...) block is one data set. */
int lth_system_sampled_blocks(const lth_system *sys);

/* The system sys with its sampled data on their alternative fits
 * (lth_samples_fill_alternative: the fits the error estimate compares the
 * chosen ones with): every data set (which = -1), or only the which-th
 * (0 .. lth_system_sampled_blocks - 1); what reads no data is shared.  sys
 * must outlive it; free with lth_system_free.  For a solution z: the sum over
 * which = 0 .. nb - 1 of |z - z_which| estimates z's sampling error without
 * counting on errors cancelling between data sets (nb extra solves);
 * |z - z_all| is one solve and can be smaller than the truth by the
 * cancellation (docs/sampled-data.md). */
lth_system *lth_system_sampling_variant(const lth_system *sys, int which, lth_error *err);
/* The same for one source (e.g. a block of an LQR problem, lth_lqr_spec): a
 * view that delivers the alternative fits of the sampled data it reads (src
 * itself when it is sampled data; src unchanged when it reads none).  src
 * must outlive it; free with lth_source_free. */
lth_source *lth_source_sampling_variant(const lth_source *src, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
