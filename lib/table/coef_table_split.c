/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Building a coefficient table in stretches, concurrently (lib/table/coef_table_impl.h).
 *
 * The panels of one table are built left to right, each width predicted from
 * the last, and the nodes of one panel level are too few (9 to 33) to keep two
 * threads busy: node-level parallelism gave 1.12x with two threads on a
 * 1000-panel build.  A long build is therefore cut into stretches of at least
 * TAB_SPLIT_PANELS panels of the last accepted width.  The table itself builds
 * the first stretch; every other stretch is a table of its own (one thread, no
 * further split), seeded with the width and noise level the table had when it
 * was split, and built by whichever thread claims it.  Their panels are then
 * appended in order, as if built serially.  The cut points and seeds depend on
 * the table's state only, so one and several threads build the same table.
 *
 * A stretch that fails (a singular Pi, a refusal) contributes the panels it
 * built before failing and its error; the stretches after it are dropped, so
 * the table ends where a serial build would have stopped.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coef_table_impl.h"

#ifdef LTH_HAVE_OPENMP
#include <omp.h>
#endif

int tab_split_count(const lth_table *tab, double goal) {
  if (tab->no_split || tab->splitting || tab->np < TAB_SPLIT_HISTORY || !(tab->w_ref > 0) ||
      tab->o.tol < TAB_SPLIT_MIN_TOL) {
    return 1;
  }
  double k = (goal - tab->covered) / (TAB_SPLIT_PANELS * tab->w_ref);
  return k < 2 ? 1 : (k >= TAB_SPLIT_MAX ? TAB_SPLIT_MAX : (int)k);
}

typedef struct split_run {
  lth_table *tab;
  int k, next; /* stretches; the next one to claim (1 .. k-1) */
  double edge[TAB_SPLIT_MAX + 1];
  double w0, noise_floor0, noise_seen0; /* the table's state at the split: the seeds */
  size_t share; /* memory budget of each stretch's table (bytes) */
  size_t chunk_hint; /* doubles a stretch is expected to store: its first chunk */
  lth_table *sub[TAB_SPLIT_MAX];
  lth_status st[TAB_SPLIT_MAX];
  lth_error err[TAB_SPLIT_MAX];
  pthread_mutex_t mu;
} split_run;

static int claim_stretch(split_run *r) {
  pthread_mutex_lock(&r->mu);
  int j = r->next < r->k ? r->next++ : 0;
  pthread_mutex_unlock(&r->mu);
  return j;
}

/* Stretch j >= 1 as a table of its own. */
static void build_stretch(split_run *r, int j) {
  const lth_table *tab = r->tab;
  lth_table_opts o = tab->o;
  o.threads = 1;
  o.min_width = tab->min_width;
  o.max_bytes = r->share;
  lth_error_clear(&r->err[j]);
  lth_table *sub = lth_table_alloc(tab->sys, r->edge[j], r->edge[j + 1], &o, &r->err[j]);
  r->sub[j] = sub;
  if (!sub) {
    r->st[j] = r->err[j].status != LTH_OK ? r->err[j].status : LTH_ENOMEM;
    return;
  }
  sub->span = tab->span; /* the direct-panel threshold is relative to the whole table */
  sub->no_split = 1;
  sub->out_density = tab->out_density;
  sub->w_next = r->w0;
  sub->w_ref = r->w0;
  sub->noise_floor = r->noise_floor0;
  sub->noise_seen = r->noise_seen0;
  sub->chunk_hint = r->chunk_hint;
  r->st[j] = lth_table_build(sub, r->edge[j + 1], &r->err[j]);
}

static void *stretch_worker(void *vp) {
  split_run *r = vp;
  for (int j = claim_stretch(r); j > 0; j = claim_stretch(r)) build_stretch(r, j);
  return NULL;
}

/* Append the panels of sub (which starts where tab is covered) and take over
 * its builder state.  Its coefficients stay where they were built (its
 * chunks join the table's): copying them cost a tenth of a 1000-panel build. */
static lth_status merge(lth_table *tab, lth_table *sub, lth_error *err) {
  if (tab->np + sub->np > tab->pcap) {
    size_t cap = tab->pcap ? tab->pcap : 64;
    while (cap < tab->np + sub->np) cap *= 2;
    tab_panel *p = realloc(tab->panels, cap * sizeof *p);
    if (!p) return lth_error_set(err, LTH_ENOMEM, "out of memory growing the coefficient table");
    tab->panels = p;
    tab->pcap = cap;
  }
  int first = 0;
  lth_status st = tab_store_adopt(tab, sub, &first, err);
  if (st != LTH_OK) {
    return st;
  }
  for (size_t i = 0; i < sub->np; i++) {
    tab_panel p = sub->panels[i];
    p.chunk += first;
    tab->panels[tab->np++] = p;
  }
  tab->stretches++;
  tab->nodes += sub->nodes;
  tab->decomps += sub->decomps;
  tab->direct_panels += sub->direct_panels;
  tab->max_degree = sub->max_degree > tab->max_degree ? sub->max_degree : tab->max_degree;
  tab->err_est = fmax(tab->err_est, sub->err_est);
  tab->cond_chain = fmax(tab->cond_chain, sub->cond_chain);
  tab->noise_seen = fmax(tab->noise_seen, sub->noise_seen);
  /* continue from the stretch's right end exactly as it would have */
  tab->covered = sub->covered;
  tab->w_next = sub->w_next;
  if (sub->w_ref > 0) tab->w_ref = sub->w_ref;
  tab->noise_floor = sub->noise_floor;
  tab->left_known = sub->left_known;
  tab->left_sign = sub->left_sign;
  tab->node[0] = sub->node[0];
  memcpy(tab->V, sub->V, sizeof(double) * (size_t)(tab->jet + 1) * tab->E);
  return LTH_OK;
}

/* The first stretch, by the table itself (its right end as the table's end). */
static lth_status first_stretch(lth_table *tab, double b, lth_error *err) {
  double t_hi = tab->t_hi;
  tab->t_hi = b;
  tab->splitting = 1;
  lth_status st = LTH_OK;
  while (st == LTH_OK && tab->covered < b) st = tab_build_panel(tab, err);
  tab->splitting = 0;
  tab->t_hi = t_hi;
  return st;
}

static int worker_count(const lth_table *tab, int k) {
  int n = (tab->nthreads < k ? tab->nthreads : k) - 1;
#ifdef LTH_HAVE_OPENMP
  if (omp_in_parallel()) n = 0; /* inside a caller's parallel region: serial */
#endif
  return n > 0 ? n : 0;
}

lth_status tab_build_split(lth_table *tab, double goal, int k, lth_error *err) {
  split_run r;
  memset(&r, 0, sizeof r);
  r.tab = tab;
  r.k = k;
  r.next = 1;
  double a = tab->covered;
  for (int j = 0; j <= k; j++) r.edge[j] = a + (goal - a) * (double)j / (double)k;
  r.edge[k] = goal;
  r.w0 = tab->w_ref;
  r.noise_floor0 = tab->noise_floor;
  r.noise_seen0 = tab->noise_seen;
  /* the stretches share what is left of the budget (each its own table until
   * merged: with the whole budget each, k of them could hold k times it) */
  size_t used = tab->stored * sizeof(double);
  r.share = used < tab->o.max_bytes ? (tab->o.max_bytes - used) / (size_t)k : 0;
  if (r.share == 0) r.share = 1; /* 0 would mean the default budget */
  /* a quarter more than the panels so far predict, so that most stretches
   * fill one chunk (and one or two huge pages, lib/table/coef_store.c) */
  double per_panel = tab->np ? (double)tab->stored / (double)tab->np : 0.0;
  double panels = (r.edge[1] - r.edge[0]) / r.w0;
  r.chunk_hint = (size_t)fmin(1.25 * per_panel * panels, (double)r.share / sizeof(double));
  pthread_mutex_init(&r.mu, NULL);
  pthread_t th[TAB_SPLIT_MAX];
  int nw = 0, want = worker_count(tab, k);
  for (; nw < want; nw++) {
    if (pthread_create(&th[nw], NULL, stretch_worker, &r) != 0) break; /* fewer: still correct */
  }
  lth_status st = first_stretch(tab, r.edge[1], err);
  if (st != LTH_OK) {
    pthread_mutex_lock(&r.mu);
    r.next = k; /* nothing more to start */
    pthread_mutex_unlock(&r.mu);
  }
  for (int j = claim_stretch(&r); j > 0; j = claim_stretch(&r)) build_stretch(&r, j);
  for (int i = 0; i < nw; i++) pthread_join(th[i], NULL);
  for (int j = 1; st == LTH_OK && j < k; j++) {
    if (r.sub[j]) st = merge(tab, r.sub[j], err);
    if (st == LTH_OK && r.st[j] != LTH_OK) {
      if (err) *err = r.err[j];
      st = r.st[j];
    }
  }
  for (int j = 1; j < k; j++) lth_table_free(r.sub[j]);
  pthread_mutex_destroy(&r.mu);
  return st;
}
