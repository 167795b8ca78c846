/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Grid decompositions (include/lth/grid.h): batches of points computed in
 * parallel, each thread with its own workspace, delivered in time order. */
#include "lth/grid.h"

#include <stdlib.h>
#include <string.h>

#ifdef LTH_HAVE_OPENMP
#include <omp.h>
#endif

#include "blas_threads.h"

void lth_grid_opts_init(lth_grid_opts *opts) {
  memset(opts, 0, sizeof *opts);
}

static int available_threads(int requested) {
#ifdef LTH_HAVE_OPENMP
  int mx = omp_get_max_threads();
  return requested <= 0 ? mx : requested;
#else
  (void)requested;
  return 1;
#endif
}

/* Per-thread state: a workspace and, when verifying, a verification workspace. */
typedef struct {
  lth_decomp_ws *ws;
  lth_verify_ws *vw;
} worker;

/* Per-batch-slot state: the result, its check and its status. */
typedef struct {
  lth_point *pt;
  lth_verify_report rep;
  lth_status st;
  lth_error err;
} slot;

typedef struct {
  const lth_system *sys;
  lth_grid_opts o;
  int nthreads;
  size_t batch;
  worker *workers;
  slot *slots;
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
    g->workers[k].ws = lth_decomp_ws_alloc(g->sys, g->o.out_order, err);
    if (!g->workers[k].ws) {
      return err ? err->status : LTH_ENOMEM;
    }
    if (g->o.cond_max > 0) {
      lth_decomp_ws_set_cond_max(g->workers[k].ws, g->o.cond_max);
    }
    if (g->o.verify && !(g->workers[k].vw = lth_verify_ws_alloc(g->sys, err))) {
      return err ? err->status : LTH_ENOMEM;
    }
  }
  for (size_t k = 0; k < g->batch; k++) {
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

static void compute_point(grid_run *g, double t, slot *sl) {
  worker *w = &g->workers[thread_id()];
  lth_error_clear(&sl->err);
  sl->st = lth_decomp_at(w->ws, t, sl->pt, &sl->err);
  if (sl->st == LTH_OK && g->o.verify) {
    sl->st = lth_verify_at(w->vw, w->ws, sl->pt, &sl->rep, &sl->err);
  }
}

/* Compute points [k0, k0 + cnt) into the slots. */
static void compute_batch(grid_run *g, const double *times, size_t k0, size_t cnt) {
  long n = (long)cnt;
#ifdef LTH_HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(g->nthreads) if (g->nthreads > 1)
#endif
  for (long k = 0; k < n; k++) {
    compute_point(g, times[k0 + (size_t)k], &g->slots[k]);
  }
}

lth_status lth_grid_decompose(const lth_system *sys, const double *times, size_t n,
                              const lth_grid_opts *opts, lth_grid_consumer consumer, void *ctx,
                              lth_error *err) {
  grid_run g;
  memset(&g, 0, sizeof g);
  g.sys = sys;
  if (opts) {
    g.o = *opts;
  }
  if (g.o.verify && g.o.out_order < 1) {
    g.o.out_order = 1;
  }
  g.nthreads = available_threads(g.o.threads);
  g.batch = g.o.batch ? g.o.batch : (size_t)16 * (size_t)g.nthreads;
  if (g.batch > n && n > 0) {
    g.batch = n;
  }
  if ((size_t)g.nthreads > g.batch) {
    g.nthreads = (int)g.batch;
  }
  if (n == 0) {
    return LTH_OK;
  }
  lth_status st = run_alloc(&g, err);
  /* BLAS runs single-threaded inside the grid: parallelism is over points. */
  int blas_saved = lth_blas_threads_push(1);
  for (size_t k0 = 0; k0 < n && st == LTH_OK; k0 += g.batch) {
    size_t cnt = n - k0 < g.batch ? n - k0 : g.batch;
    compute_batch(&g, times, k0, cnt);
    for (size_t k = 0; k < cnt && st == LTH_OK; k++) {
      slot *sl = &g.slots[k];
      if (sl->st != LTH_OK) {
        if (err) {
          *err = sl->err;
        }
        st = sl->st;
      } else if (consumer && consumer(ctx, k0 + k, sl->pt, g.o.verify ? &sl->rep : NULL)) {
        st = lth_error_set_t(err, LTH_ECALLBACK, times[k0 + k], "grid consumer stopped the run");
      }
    }
    if (g.o.progress && st == LTH_OK) {
      g.o.progress(g.o.progress_ctx, k0 + cnt, n);
    }
  }
  lth_blas_threads_pop(blas_saved);
  run_free(&g);
  return st;
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
