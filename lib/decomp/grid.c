/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Grid decompositions (include/lth/grid.h): points computed in parallel on a
 * thread pool (lib/core/threads.h), each thread with its own workspace,
 * delivered in time order through a bounded ring of result slots. */
#define _POSIX_C_SOURCE 200809L
#include "lth/defaults.h"
#include "lth/grid.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/threads.h"
#include "decomp_impl.h"
#include "lth/conditioning.h"
#include "core/errors.h"

void lth_grid_opts_init(lth_grid_opts *opts) { memset(opts, 0, sizeof *opts); }

/* Per-thread state: a workspace and, when verifying, a verification workspace. */
typedef struct {
  lth_decomp_ws *ws;
  lth_verify_ws *vw;
} worker;

/* A slot of the ring of results: the result, its check, its status, and
 * whether it is ready to be delivered (under grid_run.mu). */
typedef struct {
  lth_point *pt;
  lth_verify_report rep;
  lth_status st;
  lth_error err;
  int ready;
} slot;

typedef struct grid_run grid_run;

/* What a pool task gets: the run and its worker's index (1 .. nthreads-1). */
typedef struct {
  grid_run *g;
  int tid;
} task_arg;

struct grid_run {
  const lth_system *sys;
  const double *times;
  size_t n;
  lth_grid_opts o;
  int nthreads;
  size_t batch; /* ring size: results computed but not yet delivered */
  worker *workers;
  slot *slots;
  task_arg *args;
  /* Claiming and delivering, under mu.  A thread that finds the ring full
   * sleeps on `room`; the calling thread, when the next point to deliver is
   * still being computed and there is nothing to claim, on `ready`. */
  pthread_mutex_t mu;
  pthread_cond_t room, ready;
  size_t next;      /* next point to claim */
  size_t delivered; /* points handed to the consumer */
  int stop, room_waiters, ready_waits;
  lth_grid_consumer consumer;
  void *ctx;
  lth_status st; /* first failure in time order */
  lth_error *err;
  /* cond_interval over the grid (include/lth/conditioning.h): the scale is the
   * largest chain norm of the workspaces' scan and of the points delivered */
  double scale, pinv_max, t_pinv_max;
  int pinv_max_measured; /* the amplification at t_pinv_max was measured */
};

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
  free(g->args);
}

static lth_status run_alloc(grid_run *g, lth_error *err) {
  LTH_ERROR_RECORD(err);
  g->workers = calloc((size_t)g->nthreads, sizeof *g->workers);
  g->slots = calloc(g->batch, sizeof *g->slots);
  g->args = calloc((size_t)g->nthreads, sizeof *g->args);
  if (!g->workers || !g->slots || !g->args) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory allocating grid workspaces");
  }
  for (int k = 0; k < g->nthreads; k++) {
    /* one scan of the system's interval (if it has one) serves every thread */
    g->workers[k].ws = lth_decomp_ws_alloc_scaled(g->sys, g->o.out_order, k ? g->scale : -1.0, err);
    if (!g->workers[k].ws) {
      return lth_error_status(err);
    }
    g->scale = lth_decomp_ws_scale(g->workers[k].ws);
    if (g->o.cond_max > 0) {
      lth_decomp_ws_set_cond_max(g->workers[k].ws, g->o.cond_max);
    }
    if (g->o.verify && !(g->workers[k].vw = lth_verify_ws_alloc(g->sys, err))) {
      return lth_error_status(err);
    }
  }
  for (size_t k = 0; k < g->batch; k++) {
    if (!(g->slots[k].pt = lth_point_alloc(g->sys, g->o.out_order, err))) {
      return lth_error_status(err);
    }
  }
  return LTH_OK;
}

/* Point k with thread tid's workspaces (mu not held: slot k is the claimer's
 * until it is marked ready). */
static void compute_point(grid_run *g, int tid, size_t k) {
  worker *w = &g->workers[tid];
  slot *sl = &g->slots[k % g->batch];
  lth_error_clear(&sl->err);
  sl->st = lth_decomp_at(w->ws, g->times[k], sl->pt, &sl->err);
  if (sl->st == LTH_OK && g->o.verify) {
    sl->st = lth_verify_at(w->vw, w->ws, sl->pt, &sl->rep, &sl->err);
  }
}

/* Claim point k if the ring has room (mu held); 0 if there is none to claim. */
static int claim(grid_run *g, size_t *k) {
  if (g->stop || g->next >= g->n || g->next >= g->delivered + g->batch) {
    return 0;
  }
  *k = g->next++;
  return 1;
}

/* Compute claimed point k and mark it ready (mu held on entry and return). */
static void compute_claimed(grid_run *g, int tid, size_t k) {
  pthread_mutex_unlock(&g->mu);
  compute_point(g, tid, k);
  pthread_mutex_lock(&g->mu);
  g->slots[k % g->batch].ready = 1;
  if (g->ready_waits && k == g->delivered) {
    pthread_cond_signal(&g->ready);
  }
}

/* A pool thread: points while there are any; asleep while the ring is full. */
static void worker_task(void *vp) {
  task_arg *a = vp;
  grid_run *g = a->g;
  pthread_mutex_lock(&g->mu);
  while (!g->stop && g->next < g->n) {
    size_t k;
    if (claim(g, &k)) {
      compute_claimed(g, a->tid, k);
    } else {
      g->room_waiters++;
      pthread_cond_wait(&g->room, &g->mu);
      g->room_waiters--;
    }
  }
  pthread_mutex_unlock(&g->mu);
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
  g->st =
      lth_decomp_interval_error(g->err, pt->t, pt->r, pt->pi_inv_norm, g->scale, cond_max_of(g));
  return 1;
}

/* After the last point: the largest ||Pi^-1|| against the largest chain norm. */
static void interval_final(grid_run *g) {
  int r = lth_system_index(g->sys);
  if (g->st == LTH_OK && g->n > 0 &&
      !grid_acceptable(g, g->pinv_max * g->scale, r, g->pinv_max_measured)) {
    g->st =
        lth_decomp_interval_error(g->err, g->t_pinv_max, r, g->pinv_max, g->scale, cond_max_of(g));
  }
}

/* Hand point d (ready) to the consumer, mu not held; 1 to stop the run. */
static int deliver(grid_run *g, size_t d) {
  slot *sl = &g->slots[d % g->batch];
  if (sl->st != LTH_OK) {
    if (g->err) {
      *g->err = sl->err;
    }
    g->st = sl->st;
    return 1;
  }
  if (interval_check(g, sl->pt)) {
    return 1;
  }
  if (g->consumer && g->consumer(g->ctx, d, sl->pt, g->o.verify ? &sl->rep : NULL)) {
    g->st = lth_error_set_t(g->err, LTH_ECALLBACK, g->times[d], "grid consumer stopped the run");
    return 1;
  }
  if (g->o.progress && ((d + 1) % g->batch == 0 || d + 1 == g->n)) {
    g->o.progress(g->o.progress_ctx, d + 1, g->n);
  }
  return 0;
}

/* The calling thread: deliver the next point when it is ready, else compute
 * one, else sleep until the next one is ready.  The consumer runs without
 * the lock: nobody waits on a barrier while it writes output. */
static void run_caller(grid_run *g) {
  pthread_mutex_lock(&g->mu);
  while (!g->stop && g->delivered < g->n) {
    size_t d = g->delivered, k;
    if (g->slots[d % g->batch].ready) {
      pthread_mutex_unlock(&g->mu);
      int stop = deliver(g, d);
      pthread_mutex_lock(&g->mu);
      g->slots[d % g->batch].ready = 0;
      g->stop = stop;
      g->delivered = d + 1;
      if (g->room_waiters) {
        pthread_cond_broadcast(&g->room);
      }
    } else if (claim(g, &k)) {
      compute_claimed(g, 0, k);
    } else {
      g->ready_waits = 1;
      pthread_cond_wait(&g->ready, &g->mu);
      g->ready_waits = 0;
    }
  }
  g->stop = 1;
  pthread_cond_broadcast(&g->room);
  pthread_mutex_unlock(&g->mu);
}

/* Every thread computes points; the calling thread also delivers them. */
static void run_threads(grid_run *g) {
  lth_pool *pool = g->nthreads > 1 ? lth_pool_alloc(g->nthreads - 1) : NULL;
  for (int k = 1; pool && k < g->nthreads; k++) {
    g->args[k] = (task_arg){.g = g, .tid = k};
    if (lth_pool_submit(pool, worker_task, &g->args[k]) != 0) break;
  }
  run_caller(g);
  lth_pool_free(pool); /* (waits for the tasks: they return once stop is set) */
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
  g.nthreads = lth_threads_nested() ? 1 : lth_threads_available(g.o.threads);
  g.batch = g.o.batch ? g.o.batch : (size_t)16 * (size_t)g.nthreads;
  g.batch = g.batch > n ? n : g.batch;
  g.nthreads = (size_t)g.nthreads > g.batch ? (int)g.batch : g.nthreads;
  g.st = run_alloc(&g, err);
  if (g.st == LTH_OK) {
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.room, NULL);
    pthread_cond_init(&g.ready, NULL);
    run_threads(&g);
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.room);
    pthread_cond_destroy(&g.ready);
  }
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
  store_ctx sc = {.res = res, .sys = sys, .order = order, .err = &local};
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
