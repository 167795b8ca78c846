/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Grid decompositions (include/lth/grid.h): points computed in parallel,
 * each thread with its own workspace, delivered in time order through a
 * bounded ring of result slots. */
#define _POSIX_C_SOURCE 200809L
#include "lth/grid.h"

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#ifdef LTH_HAVE_OPENMP
#include <omp.h>
#endif

#include "blas_threads.h"
#include "decomp_impl.h"
#include "lth/wellposed.h"

void lth_grid_opts_init(lth_grid_opts *opts) {
  memset(opts, 0, sizeof *opts);
}

/* Per-thread state: a workspace and, when verifying, a verification workspace. */
typedef struct {
  lth_decomp_ws *ws;
  lth_verify_ws *vw;
} worker;

/* A slot of the ring of results: the result, its check, its status, and
 * whether it is ready to be delivered. */
typedef struct {
  lth_point *pt;
  lth_verify_report rep;
  lth_status st;
  lth_error err;
  atomic_int ready;
} slot;

typedef struct {
  const lth_system *sys;
  const double *times;
  size_t n;
  lth_grid_opts o;
  int nthreads;
  size_t batch; /* ring size: results computed but not yet delivered */
  worker *workers;
  slot *slots;
  atomic_size_t next;      /* next point to claim */
  atomic_size_t delivered; /* points handed to the consumer */
  atomic_int stop;
  lth_grid_consumer consumer;
  void *ctx;
  lth_status st;           /* first failure in time order */
  lth_error *err;
  /* cond_interval over the grid (include/lth/wellposed.h): the scale is the
   * largest chain norm of the workspaces' scan and of the points delivered */
  double scale, pinv_max, t_pinv_max;
  int pinv_max_measured; /* the amplification at t_pinv_max was measured */
} grid_run;

static void run_free(grid_run *g) {
  for (int k = 0; g->workers && k < g->nthreads; k++) {
    lth_decomp_ws_free(g->workers[k].ws);
    lth_verify_ws_free(g->workers[k].vw);
  }
  for (size_t k = 0; g->slots && k < g->batch; k++) {
    lth_point_free(g->slots[k].pt);
  }
  free(g->workers);
  free(g->slots);
}

static lth_status run_alloc(grid_run *g, lth_error *err) {
  g->workers = calloc((size_t)g->nthreads, sizeof *g->workers);
  g->slots = calloc(g->batch, sizeof *g->slots);
  if (!g->workers || !g->slots) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating grid workspaces");
  }
  for (int k = 0; k < g->nthreads; k++) {
    /* one scan of the system's interval (if it has one) serves every thread */
    g->workers[k].ws = lth_decomp_ws_alloc_scaled(g->sys, g->o.out_order, k ? g->scale : -1.0,
                                                  err);
    if (!g->workers[k].ws) {
      return err ? err->status : LTH_ENOMEM;
    }
    g->scale = lth_decomp_ws_scale(g->workers[k].ws);
    if (g->o.cond_max > 0) {
      lth_decomp_ws_set_cond_max(g->workers[k].ws, g->o.cond_max);
    }
    if (g->o.verify && !(g->workers[k].vw = lth_verify_ws_alloc(g->sys, err))) {
      return err ? err->status : LTH_ENOMEM;
    }
  }
  for (size_t k = 0; k < g->batch; k++) {
    atomic_init(&g->slots[k].ready, 0);
    if (!(g->slots[k].pt = lth_point_alloc(g->sys, g->o.out_order, err))) {
      return err ? err->status : LTH_ENOMEM;
    }
  }
  return LTH_OK;
}

static int thread_id(void) {
#ifdef LTH_HAVE_OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

static void compute_point(grid_run *g, int tid, size_t k) {
  worker *w = &g->workers[tid];
  slot *sl = &g->slots[k % g->batch];
  lth_error_clear(&sl->err);
  sl->st = lth_decomp_at(w->ws, g->times[k], sl->pt, &sl->err);
  if (sl->st == LTH_OK && g->o.verify) {
    sl->st = lth_verify_at(w->vw, w->ws, sl->pt, &sl->rep, &sl->err);
  }
  atomic_store_explicit(&sl->ready, 1, memory_order_release);
}

/* Claim and compute one point if the ring has room; 0 if there was none. */
static int work_once(grid_run *g, int tid) {
  size_t k = atomic_load(&g->next);
  if (k >= g->n || atomic_load(&g->stop) || k >= atomic_load(&g->delivered) + g->batch) {
    return 0;
  }
  if (!atomic_compare_exchange_weak(&g->next, &k, k + 1)) {
    return 1; /* somebody else took k: try again */
  }
  compute_point(g, tid, k);
  return 1;
}

static double cond_max_of(const grid_run *g) {
  return g->o.cond_max > 0 ? g->o.cond_max : LTH_DEFAULT_COND_MAX;
}

/* cond_interval kappa of a point against the grid's scale: within cond_max,
 * and its amplification acceptable a priori or measured by the
 * decomposition itself (which refuses a measured one above the limit). */
static int grid_acceptable(const grid_run *g, double kappa, int r, int measured) {
  return kappa <= cond_max_of(g) &&
         (measured || lth_cond_amplification(kappa, r) <= lth_amplification_limit(cond_max_of(g)));
}

/* cond_interval of point k against the largest chain norm of the grid so far
 * (delivery is in time order, so the numbers do not depend on the threads);
 * the points after it are judged at the end (interval_final). */
static int interval_check(grid_run *g, lth_point *pt) {
  g->scale = fmax(g->scale, pt->chain_norm);
  double kappa = pt->pi_inv_norm * g->scale;
  pt->cond_interval = fmax(pt->cond_interval, kappa);
  if (!(pt->pi_inv_norm <= g->pinv_max)) {
    g->pinv_max = pt->pi_inv_norm;
    g->t_pinv_max = pt->t;
    g->pinv_max_measured = pt->amplification_measured;
  }
  if (grid_acceptable(g, kappa, pt->r, pt->amplification_measured)) {
    return 0;
  }
  g->st = lth_decomp_interval_error(g->err, pt->t, pt->r, pt->pi_inv_norm, g->scale,
                                    cond_max_of(g));
  return 1;
}

/* After the last point: the largest ||Pi^-1|| against the largest chain norm. */
static void interval_final(grid_run *g) {
  int r = lth_system_index(g->sys);
  if (g->st == LTH_OK && g->n > 0 &&
      !grid_acceptable(g, g->pinv_max * g->scale, r, g->pinv_max_measured)) {
    g->st = lth_decomp_interval_error(g->err, g->t_pinv_max, r,
                                      g->pinv_max, g->scale, cond_max_of(g));
  }
}

/* Thread 0: hand the ready results to the consumer in time order. */
static void deliver_ready(grid_run *g) {
  size_t d = atomic_load(&g->delivered);
  while (d < g->n && !atomic_load(&g->stop)) {
    slot *sl = &g->slots[d % g->batch];
    if (!atomic_load_explicit(&sl->ready, memory_order_acquire)) {
      break;
    }
    if (sl->st != LTH_OK) {
      if (g->err) {
        *g->err = sl->err;
      }
      g->st = sl->st;
      atomic_store(&g->stop, 1);
      break;
    }
    if (interval_check(g, sl->pt)) {
      atomic_store(&g->stop, 1);
      break;
    }
    if (g->consumer && g->consumer(g->ctx, d, sl->pt, g->o.verify ? &sl->rep : NULL)) {
      g->st = lth_error_set_t(g->err, LTH_ECALLBACK, g->times[d], "grid consumer stopped the run");
      atomic_store(&g->stop, 1);
      break;
    }
    atomic_store_explicit(&sl->ready, 0, memory_order_relaxed);
    atomic_store(&g->delivered, ++d);
    if (g->o.progress && (d % g->batch == 0 || d == g->n)) {
      g->o.progress(g->o.progress_ctx, d, g->n);
    }
  }
  if (d >= g->n) {
    atomic_store(&g->stop, 1);
  }
}

/* Every thread computes points; thread 0 also delivers them.  No barrier
 * between batches: nobody spins while the consumer writes output. */
static void run_threads(grid_run *g) {
#ifdef LTH_HAVE_OPENMP
#pragma omp parallel num_threads(g->nthreads) if (g->nthreads > 1)
#endif
  {
    int tid = thread_id();
    while (!atomic_load(&g->stop)) {
      if (tid == 0) {
        deliver_ready(g);
      }
      if (!work_once(g, tid)) {
        if (tid != 0 && atomic_load(&g->next) >= g->n) {
          break; /* everything claimed: thread 0 delivers the rest */
        }
        sched_yield();
      }
    }
  }
}

lth_status lth_grid_decompose(const lth_system *sys, const double *times, size_t n,
                              const lth_grid_opts *opts, lth_grid_consumer consumer, void *ctx,
                              lth_error *err) {
  grid_run g;
  memset(&g, 0, sizeof g);
  g.sys = sys;
  g.times = times;
  g.n = n;
  g.consumer = consumer;
  g.ctx = ctx;
  g.err = err;
  if (opts) {
    g.o = *opts;
  }
  if (g.o.verify && g.o.out_order < 1) {
    g.o.out_order = 1;
  }
  if (n == 0) {
    return LTH_OK;
  }
  g.nthreads = lth_threads_available(g.o.threads);
  g.batch = g.o.batch ? g.o.batch : (size_t)16 * (size_t)g.nthreads;
  g.batch = g.batch > n ? n : g.batch;
  g.nthreads = (size_t)g.nthreads > g.batch ? (int)g.batch : g.nthreads;
  atomic_init(&g.next, 0);
  atomic_init(&g.delivered, 0);
  atomic_init(&g.stop, 0);
  g.st = run_alloc(&g, err);
  /* BLAS runs single-threaded inside the grid: parallelism is over points. */
  int blas_saved = lth_blas_threads_push(1);
  if (g.st == LTH_OK) {
    run_threads(&g);
  }
  lth_blas_threads_pop(blas_saved);
  run_free(&g);
  interval_final(&g);
  return g.st;
}

/* ---- stored results ---- */

typedef struct {
  lth_grid_result *res;
  const lth_system *sys;
  int order;
  lth_error *err;
} store_ctx;

static int store_point(void *vctx, size_t k, const lth_point *pt, const lth_verify_report *rep) {
  store_ctx *sc = vctx;
  lth_point *copy = lth_point_alloc(sc->sys, sc->order, sc->err);
  if (!copy || lth_point_copy(copy, pt, sc->err) != LTH_OK) {
    lth_point_free(copy);
    return 1;
  }
  sc->res->points[k] = copy;
  if (rep && sc->res->checks) {
    sc->res->checks[k] = *rep;
  }
  return 0;
}

lth_status lth_grid_store(const lth_system *sys, const double *times, size_t n,
                          const lth_grid_opts *opts, lth_grid_result **out, lth_error *err) {
  *out = NULL;
  lth_grid_result *res = calloc(1, sizeof *res);
  int verify = opts && opts->verify;
  if (res) {
    res->n = n;
    res->points = calloc(n ? n : 1, sizeof *res->points);
    res->checks = verify ? calloc(n ? n : 1, sizeof *res->checks) : NULL;
  }
  if (!res || !res->points || (verify && !res->checks)) {
    lth_grid_result_free(res);
    return lth_error_set(err, LTH_ENOMEM, "out of memory storing %zu grid points", n);
  }
  int order = opts ? opts->out_order : 0;
  if (verify && order < 1) {
    order = 1;
  }
  lth_error local;
  lth_error_clear(&local);
  store_ctx sc = {res, sys, order, &local};
  lth_status st = lth_grid_decompose(sys, times, n, opts, store_point, &sc, err);
  if (st == LTH_ECALLBACK && local.status != LTH_OK) {
    st = local.status;
    if (err) {
      *err = local;
    }
  }
  if (st != LTH_OK) {
    lth_grid_result_free(res);
    return st;
  }
  /* streamed points saw the chain norms before them; stored ones get all */
  double scale = 0.0;
  for (size_t k = 0; k < n; k++) scale = fmax(scale, res->points[k]->chain_norm);
  for (size_t k = 0; k < n; k++) {
    lth_point *pt = res->points[k];
    pt->cond_interval = fmax(pt->cond_interval, pt->pi_inv_norm * scale);
    if (!pt->amplification_measured) {
      pt->amplification = lth_cond_amplification(pt->cond_interval, pt->r);
    }
  }
  *out = res;
  return LTH_OK;
}

void lth_grid_result_free(lth_grid_result *res) {
  if (!res) {
    return;
  }
  for (size_t k = 0; res->points && k < res->n; k++) {
    lth_point_free(res->points[k]);
  }
  free(res->points);
  free(res->checks);
  free(res);
}
