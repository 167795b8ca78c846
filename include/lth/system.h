/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A linear time-varying Hessenberg DAE  E z' = A(t) z + f(t)  of index r
 * (Clark (2.1)-(2.2), docs/theory.md section 1):
 *     z = (z_1, ..., z_{r-1}, u),  z_i in R^{n_i},  u in R^{n_r},
 *     s = n_1 + ... + n_r,  m = s - n_r (state-space dimension of v),
 *     p = sum_{i<r} (n_i - n_r) (dimension of the solution manifold).
 * Blocks are numbered from 1 as in Clark's paper.  Allowed blocks (2.2):
 *     row 1: A(1,1) ... A(1,r);   rows 2..r-1: A(i,j) for i-1 <= j <= r-1;
 *     row r: A(r,r-1) only.
 * A(1,r) and every A(i,i-1) (i = 2..r) must be given (else Pi = 0).
 */
#ifndef LTH_SYSTEM_H
#define LTH_SYSTEM_H

#include "lth/jet.h"
#include "lth/source.h"
#include "lth/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_system lth_system;

/* r >= 2 blocks of sizes n[0..r-1] = n_1..n_r, each >= 1, with n_r <= n_i. */
lth_system *lth_system_alloc(int r, const int *n, lth_error *err);
void lth_system_free(lth_system *sys);

/* Set block A_ij (1-based) / f_i.  The system takes ownership of src, also
 * when the call fails (LTH_ESTRUCT outside the pattern, LTH_EDIM for a wrong
 * size, LTH_EINVAL for a block set twice). */
lth_status lth_system_set_A(lth_system *sys, int i, int j, lth_source *src, lth_error *err);
lth_status lth_system_set_f(lth_system *sys, int i, lth_source *src, lth_error *err);

/* Check that the chain A(1,r), A(2,1), ..., A(r,r-1) is complete. */
lth_status lth_system_validate(const lth_system *sys, lth_error *err);

/* The interval of interest [t0, t1] (optional; the data-file reader and
 * lth_lqr_build_system set it).  Decomposition workspaces allocated after this
 * judge how close Pi(t) is to singular against the size of the chain blocks
 * over the whole interval (lth_point.cond_interval), not only at t. */
lth_status lth_system_set_interval(lth_system *sys, double t0, double t1, lth_error *err);
/* 1 and [t0, t1] if an interval was set, else 0 (t0, t1 untouched). */
int lth_system_interval(const lth_system *sys, double *t0, double *t1);

int lth_system_index(const lth_system *sys);               /* r */
int lth_system_block_size(const lth_system *sys, int i);   /* n_i, 1-based */
int lth_system_block_offset(const lth_system *sys, int i); /* row of z_i in z, 0-based */
int lth_system_size(const lth_system *sys);                /* s */
int lth_system_state_dim(const lth_system *sys);           /* m = s - n_r */
int lth_system_manifold_dim(const lth_system *sys);        /* p */
/* The sources set by lth_system_set_A / _set_f (owned by the system; with
 * inputs, lth_system_forcing is what the system's f evaluates to): NULL
 * for a block not set (zero) and for i, j outside 1..r. */
const lth_source *lth_system_A(const lth_system *sys, int i, int j);
const lth_source *lth_system_f(const lth_system *sys, int i);
/* 1 if every block is exact (no sampled data). */
int lth_system_is_exact(const lth_system *sys);
/* Intersection of the blocks' domains (lth_source_domain; [-inf, inf] when
 * no block is limited): lth_system_eval refuses a t outside it (LTH_ERANGE). */
void lth_system_domain(const lth_system *sys, double *lo, double *hi);

/* Readable name of component idx (0-based) of z: "z_2[1]" or "u[1]" (1-based
 * block entries), plus the overall position: "z[4] (z_2[1])". */
void lth_system_component_name(const lth_system *sys, int idx, char *buf, size_t size);

/* ---- inputs and outputs ----
 *     E z' = A(t) z + B(t) u(t) + f(t),   y = C(t) z + D(t) u(t) + y0(t),
 * u in R^{nu}, y in R^{ny}.  B_i (block row i, n_i x nu), C (ny x s), D
 * (ny x nu) and y0 (ny x 1) are kept as given; lth_system_eval's f is the
 * forcing F = B u + f, with the exact jets of u (a truncated Cauchy product
 * of the jets of B and u).  An input may be free (no signal): every
 * evaluation of F then fails with LTH_EINVAL naming the input (never taken
 * for zero).  Give the inputs before allocating workspaces on the system. */
/* Declare nu >= 1 inputs (once, before lth_system_set_B). */
lth_status lth_system_set_inputs(lth_system *sys, int nu, lth_error *err);
int lth_system_ninputs(const lth_system *sys); /* nu (0: none) */
/* Block B_i (1-based, n_i x nu); ownership as lth_system_set_A. */
lth_status lth_system_set_B(lth_system *sys, int i, lth_source *src, lth_error *err);
/* The signal u_k(t) of input k (0-based; 1 x 1; NULL makes it free),
 * replacing (and freeing) the one given before; owned by the system.  Not
 * while anything evaluates the system.  Workspaces size their scratch once:
 * while one lives (lth_decomp_ws and what is built on it), or once a caller
 * has sized scratch with lth_system_work_size, a signal that needs more
 * scratch than was handed out is refused (LTH_EINVAL, the old signal kept). */
lth_status lth_system_set_input(lth_system *sys, int k, lth_source *signal, lth_error *err);
/* B_i and the signal of input k as set (NULL: zero block, free input). */
const lth_source *lth_system_B(const lth_system *sys, int i);
const lth_source *lth_system_input(const lth_system *sys, int k);
/* The first input without a signal (0-based), -1 if every input has one. */
int lth_system_free_input(const lth_system *sys);
/* The forcing of block row i that lth_system_eval reads: f_i + B_i u (a
 * source reading f_i, B_i and the signals) when B_i is set, else f_i (NULL:
 * zero). */
const lth_source *lth_system_forcing(const lth_system *sys, int i);
/* ny >= 1 outputs y = C z + D u + y0 (each source owned, also on failure;
 * NULL: zero; D needs inputs).  Once. */
lth_status lth_system_set_outputs(lth_system *sys, int ny, lth_source *C, lth_source *D,
                                  lth_source *y0, lth_error *err);
int lth_system_noutputs(const lth_system *sys); /* ny (0: none) */
const lth_source *lth_system_C(const lth_system *sys);
const lth_source *lth_system_D(const lth_system *sys);
const lth_source *lth_system_output_offset(const lth_system *sys); /* y0 */
/* y (ny entries) at t for the solution value z (s entries, canonical
 * order); D u needs the signals (LTH_EINVAL naming a free input). */
lth_status lth_system_outputs(const lth_system *sys, double t, const double *z, double *y,
                              lth_error *err);

/* Scratch (doubles) for lth_system_eval at this order.  Remembered: a signal
 * given later must fit in it (lth_system_set_input). */
size_t lth_system_work_size(const lth_system *sys, int order);
/* The assembled jets of A (s x s) and f (s x 1: the forcing, B u + f with
 * inputs) at t, orders 0..order. */
lth_status lth_system_eval(const lth_system *sys, double t, int order, lth_jet *A, lth_jet *f,
                           double *work, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
