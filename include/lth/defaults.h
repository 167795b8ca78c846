/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth's default settings, in one place.
 *
 * The option structures take them from their *_opts_init functions, the
 * tools and the Python package from here (the tools' --help and the Python
 * signatures print these numbers).  A field left 0 in an option structure
 * means "the default" wherever its header says so; that default is the one
 * below.
 */
#ifndef LTH_DEFAULTS_H
#define LTH_DEFAULTS_H

/* Largest accepted chain condition (lth_point.cond_chain, cond_interval and
 * the error amplification; docs/conditioning.md): above it a decomposition
 * refuses the point (LTH_ECOND). */
#define LTH_DEFAULT_COND_MAX 1e12

/* The operator form of index 2 (include/lth/opdecomp.h, lth_opsys_set_pi_factor,
 * LTH_OP_PI_AUTO) factors Pi sparsely (SuiteSparse KLU, no thin dense factors)
 * from this n_r on, densely below it.  On bench_scale's Stokes-type grids one
 * decomposition with KLU is 4x faster at n_r = 16 and 100x at n_r = 324
 * (docs/performance.md); below 16 the thin factors cost little either way. */
#define LTH_DEFAULT_OP_SPARSE_PI_NR 16

/* The operator path proves Pi nonsingular between the integrator's times
 * (lib/decomp/op_piproof.c) up to this n_r: its model of Pi is dense
 * n_r x n_r (LAPACK's LU and n_r^3 products per piece), the chain's thin
 * products O(nnz n_r).  Above it (Stokes-type systems, Pi sparse) the proof
 * is off and det Pi's sign at the integrator's times is checked alone. */
#define LTH_DEFAULT_OP_PI_PROOF_NR 64

/* Local error tolerances of the reduced ODE's integrator (lth_ivp_opts,
 * lth_bvp_opts.ivp, lth_lqr_opts.ivp): relative and absolute. */
#define LTH_DEFAULT_RTOL 1e-10
#define LTH_DEFAULT_ATOL 1e-12

/* Error tolerance of the adaptive collocation mesh (lth_bvp_opts.colloc.tol). */
#define LTH_DEFAULT_COLLOC_TOL 1e-8

/* Largest collocation mesh, in intervals, before the solve refuses with
 * LTH_ETOL (lth_bvp_opts.colloc.max_intervals, and the LQR problem's
 * collocation). */
#define LTH_DEFAULT_COLLOC_MAX_INTERVALS 100000

/* Multiple shooting: a node is placed where the fundamental solution has
 * grown by more than this since the last one (lth_bvp_opts.multiple.growth). */
#define LTH_DEFAULT_MULTIPLE_GROWTH 1e2

/* Finite differences: grid points N+1 (lth_bvp_opts.fd.points). */
#define LTH_DEFAULT_FD_POINTS 1001

/* Collocation: the uniform mesh the adaptation starts from, in intervals. */
#define LTH_DEFAULT_COLLOC_INITIAL 8

/* Coefficient tables (lth_table_opts): interpolation error per panel
 * relative to max(1, max |F|), the degree the panel width aims at, the
 * derivatives stored per node (1: values and first derivatives, Hermite),
 * and the memory for the coefficients. */
#define LTH_DEFAULT_TABLE_TOL       1e-12
#define LTH_DEFAULT_TABLE_DEGREE    24
#define LTH_DEFAULT_TABLE_JET       1
#define LTH_DEFAULT_TABLE_MAX_BYTES ((size_t)1 << 30)

/* A mass matrix that is neither diagonal nor sparse-solvable is factored
 * densely (n x n per point and Taylor order): beyond this many entries of
 * n x n it is refused before anything is allocated (the same budget as a
 * data file's stored entries), instead of running out of memory. */
#define LTH_DEFAULT_DENSE_MASS_MAX_ENTRIES 5e7
/* A sparse mass matrix that is not diagonal and has more rows than this is
 * checked by a sparse LU (SuiteSparse KLU) and, constant, kept as one on the
 * operator path (lth_opsys_mass_rows); smaller ones keep the dense LAPACK
 * solve on both paths (their results stay those of before). */
#define LTH_DEFAULT_SPARSE_MASS_MIN_ROWS 64

/* A data file's grid without a `grid` statement: uniform points over the
 * interval. */
#define LTH_DEFAULT_GRID_POINTS 101

/* State-space realizations (lth_ss_opts): local error tolerances of the
 * minimal-rotation basis Q(t) (relative to ||Q|| = 1), and the largest
 * distance of the propagated basis from the state space, ||P Q||_F relative
 * to max(1, ||P||_F), before it is refused (LTH_ETOL naming t). */
#define LTH_DEFAULT_SS_RTOL      1e-12
#define LTH_DEFAULT_SS_ATOL      1e-13
#define LTH_DEFAULT_SS_RANGE_TOL 1e-8

/* The operator-form initial-value solver (lth_opivp_opts.max_steps): CVODE's
 * steps per output interval before it gives up (LTH_EINTEG naming t). */
#define LTH_DEFAULT_OPIVP_MAX_STEPS 1000000

/* lth_opivp_solve preconditions BDF's GMRES (LTH_OPIVP_PREC_AUTO, a library
 * with SuiteSparse KLU) when the interval is stiff: ||A_v(t0)||_1 |t_end - t0|
 * at least this, A_v the m x m leading part of A (the block A_11 at index 2).
 * On bench_scale's Stokes case (||A_11||_1 = 8 nu N^2) it pays from N ~ 12
 * (1.2e3; at N = 8, 5e2, it is even) and gives 5x at N = 48; on its index-3
 * chain (about 40) it would cost a third more (docs/performance.md). */
#define LTH_DEFAULT_OPIVP_PREC_STIFF 1e3

/* The tools' automatic choice between the dense path (lth_decomp_at,
 * lth_ivp_solve: s x s matrices) and the operator path (lth_opdecomp_at,
 * lth_opivp_solve: O(nnz(A) + s n_r) per point): the operator path from this
 * size s on, when A's stored entries (lth_opsys_nnz; a block that is not
 * sparse counts rows x cols) are at most this fraction of s^2.  Below the
 * size the dense path costs seconds at most and has what the operator path
 * lacks (the scan of Pi, coefficient tables, every output field).  Measured
 * with lth-solve on the chain of scripts/gen-chain.py --mm (rtol 1e-8): s =
 * 503, 0.27 s and 6 MB against 16.6 s and 116 MB dense; with A(2,1) = eye, a
 * dense block (25 % of s^2 stored), 1.0 s against 12.5 s; at s = 3003 with
 * eye, 46 s against more than 12 minutes and 3.8 GB (stopped).  Only a
 * nearly full A keeps the dense path above the size. */
#define LTH_DEFAULT_OPERATOR_MIN_SIZE    500
#define LTH_DEFAULT_OPERATOR_MAX_DENSITY 0.5

/* lth-bvp on the dense path warns before a collocation whose stage LUs on its
 * first two meshes take more flops than this (about a minute at tens of
 * Gflop/s): the chain of scripts/gen-chain.py --bvp at s = 1003 (p = 994)
 * needs 5e12. */
#define LTH_DEFAULT_BVP_DENSE_WARN_FLOPS 1e12

#endif
