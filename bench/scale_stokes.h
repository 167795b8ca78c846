/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench_scale's Stokes-type case (bench/scale_stokes.c). */
#ifndef LTH_BENCH_SCALE_STOKES_H
#define LTH_BENCH_SCALE_STOKES_H

/* Grids of N x N cells (s = 2 N (N + 1) + N^2, n_r = N^2): IDA + KLU on the
 * index-1 form against lth_opivp_solve with the sparse factorization of Pi
 * (and with the dense one where s <= dense_max; IDA where s <= ida_max),
 * each stopped after cpu_max
 * seconds of CPU.  quick: returns nonzero if a
 * tool fails or misses 1e-5. */
int stokes_bench(const int *grids, int ng, double rtol, int dense_max, int ida_max, double cpu_max,
                 int quick);

#endif
