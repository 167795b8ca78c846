/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the threads lth starts itself (docs/library.md, "Threads").
 *
 * lth parallelises over its own work -- the points of a grid (lib/decomp/grid.c),
 * the nodes and stretches of a coefficient table (lib/table/) -- on a pool of
 * POSIX threads owned by the object that needs them: a grid call, a table.  The
 * threads are created at the first task that finds none idle, sleep on a
 * condition variable while there is nothing to do (no spinning), and are joined
 * when their owner is freed.  lth never sets BLAS's thread count nor touches
 * any other state of the host process: the host decides how many threads its
 * BLAS uses (one, for the small products of typical systems, is fastest when
 * lth runs threads of its own). */
#ifndef LTH_THREADS_H
#define LTH_THREADS_H

/* The number of threads lth may use for one piece of work: `requested` if
 * > 0; otherwise the environment's LTH_NUM_THREADS, else OMP_NUM_THREADS (its
 * first number), else the CPUs this process may run on (sched_getaffinity).
 * Always 1 .. LTH_THREADS_MAX. */
int lth_threads_available(int requested);
#define LTH_THREADS_MAX 256

/* 1 where lth must not start threads of its own: on a thread of an lth pool,
 * and (when compiled with OpenMP, LTH_OPENMP) inside a caller's OpenMP
 * parallel region -- the caller already runs one lth call per core. */
int lth_threads_nested(void);

/* ---- a thread pool (lib/core/pool.c) ----
 *
 * Tasks are helpers of a computation that the submitting thread also does
 * itself (claiming shares of shared work until none is left), so no task may
 * wait for another task: lth_pool_wait runs in the calling thread every task
 * that no pool thread has started, and sleeps only while started ones finish.
 * A descheduled pool thread therefore never delays the caller -- unlike a
 * fork-join region, whose closing barrier waits for every thread (measured
 * 3-10x slower than serial on a busy 2-core machine, docs/performance.md). */
typedef struct lth_pool lth_pool;
typedef void (*lth_pool_fn)(void *arg);

/* A pool of at most `threads` threads (>= 1), none started yet; NULL when
 * out of memory. */
lth_pool *lth_pool_alloc(int threads);
/* Waits for the tasks (lth_pool_wait), then stops and joins the threads. */
void lth_pool_free(lth_pool *pool);
/* Queue fn(arg) and wake an idle thread, or start one if none is idle and
 * the pool is not full.  0, or -1 if it could not be queued (out of memory):
 * the caller then does that share itself. */
int lth_pool_submit(lth_pool *pool, lth_pool_fn fn, void *arg);
/* Run the tasks no thread has started here, then sleep until the started
 * ones have returned. */
void lth_pool_wait(lth_pool *pool);
/* Threads started so far. */
int lth_pool_threads(const lth_pool *pool);

#endif
