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
#include "table_budget.h"

int tab_split_count(const lth_table *tab, double goal) {
  if (tab->bld.no_split || tab->bld.splitting || tab->store.np < TAB_SPLIT_HISTORY ||
      !(tab->bld.w_ref > 0) || tab->o.tol < TAB_SPLIT_MIN_TOL) {
    return 1;
  }
  double k = (goal - tab->bld.covered) / (TAB_SPLIT_PANELS * tab->bld.w_ref);
  int n = k < 2 ? 1 : (k >= TAB_SPLIT_MAX ? TAB_SPLIT_MAX : (int)k);
  /* every stretch but the first is a table with work arrays of its own, all
   * alive until merged: they may take half of what the budget has left */
  size_t used = tab->store.work + tab->store.stored * sizeof(double);
  size_t left = used < tab->o.max_bytes ? tab->o.max_bytes - used : 0;
  while (n > 1 && (size_t)(n - 1) * tab->store.work1 > left / 2) n--;
  return n;
}

typedef struct split_run {
  lth_table *tab;
  int k, next; /* stretches; the next one to claim (1 .. k-1) */
  double edge[TAB_SPLIT_MAX + 1];
  double w0, noise_floor0, noise_seen0; /* the table's state at the split: the seeds */
  size_t share;                         /* memory budget of each stretch's table (bytes) */
  size_t budget;                        /* decompositions of each stretch's build (0: none) */
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
  o.max_bytes = r->share;
  lth_error_clear(&r->err[j]);
  lth_table *sub = lth_table_alloc(tab->sys, r->edge[j], r->edge[j + 1], &o, &r->err[j]);
  r->sub[j] = sub;
  if (!sub) {
    r->st[j] = r->err[j].status != LTH_OK ? r->err[j].status : LTH_ENOMEM;
    return;
  }
  sub->store.work = sub->store.work1; /* one thread: room for its workspace only */
  sub->lay.span = tab->lay.span; /* the direct-panel threshold is relative to the whole table */
  sub->bld.no_split = 1;
  sub->bld.out_density = tab->bld.out_density;
  sub->bld.w_next = r->w0;
  sub->bld.w_ref = r->w0;
  sub->bld.noise_floor = r->noise_floor0;
  sub->bld.noise_seen = r->noise_seen0;
  sub->store.chunk_hint = r->chunk_hint;
  r->st[j] = lth_table_build_budget(sub, r->edge[j + 1], r->budget, &r->err[j]);
}

/* A pool task: stretches while there are any. */
static void stretch_task(void *vp) {
  split_run *r = vp;
  for (int j = claim_stretch(r); j > 0; j = claim_stretch(r)) build_stretch(r, j);
}

/* Append the panels of sub (which starts where tab is covered) and take over
 * its builder state.  Its coefficients stay where they were built (its
 * chunks join the table's): copying them cost a tenth of a 1000-panel build. */
static lth_status merge(lth_table *tab, lth_table *sub, lth_error *err) {
  if (tab->store.np + sub->store.np > tab->store.pcap) {
    size_t cap = tab->store.pcap ? tab->store.pcap : 64;
    while (cap < tab->store.np + sub->store.np) cap *= 2;
    tab_panel *p = realloc(tab->store.panels, cap * sizeof *p);
    if (!p) return lth_error_set(err, LTH_ENOMEM, "out of memory growing the coefficient table");
    tab->store.panels = p;
    tab->store.pcap = cap;
  }
  int first = 0;
  lth_status st = tab_store_adopt(tab, sub, &first, err);
  if (st != LTH_OK) {
    return st;
  }
  for (size_t i = 0; i < sub->store.np; i++) {
    tab_panel p = sub->store.panels[i];
    p.chunk += first;
    tab->store.panels[tab->store.np++] = p;
  }
  tab->stats.stretches++;
  tab->stats.nodes += sub->stats.nodes;
  tab->stats.decomps += sub->stats.decomps;
  tab->stats.direct_panels += sub->stats.direct_panels;
  tab->stats.stalled += sub->stats.stalled;
  tab->stats.max_degree =
      sub->stats.max_degree > tab->stats.max_degree ? sub->stats.max_degree : tab->stats.max_degree;
  tab->stats.err_est = fmax(tab->stats.err_est, sub->stats.err_est);
  tab->stats.cond_chain = fmax(tab->stats.cond_chain, sub->stats.cond_chain);
  tab->bld.noise_seen = fmax(tab->bld.noise_seen, sub->bld.noise_seen);
  /* continue from the stretch's right end exactly as it would have */
  tab->bld.covered = sub->bld.covered;
  tab->bld.w_next = sub->bld.w_next;
  if (sub->bld.w_ref > 0) tab->bld.w_ref = sub->bld.w_ref;
  tab->bld.noise_floor = sub->bld.noise_floor;
  tab->bld.left_known = sub->bld.left_known;
  tab->bld.left_sign = sub->bld.left_sign;
  tab->bld.given_up = sub->bld.given_up;
  tab_node_copy(tab, 0, sub, 0);
  memcpy(tab->cur.V, sub->cur.V, sizeof(double) * (size_t)(tab->lay.jet + 1) * tab->lay.E);
  return LTH_OK;
}

/* The first stretch, by the table itself (its right end as the table's end). */
static lth_status first_stretch(lth_table *tab, double b, lth_error *err) {
  double t_hi = tab->lay.t_hi;
  tab->lay.t_hi = b;
  tab->bld.splitting = 1;
  lth_status st = LTH_OK;
  while (st == LTH_OK && tab->bld.covered < b) {
    st = tab_over_budget(tab) ? LTH_ERANGE : tab_build_panel(tab, err);
  }
  tab->bld.splitting = 0;
  tab->lay.t_hi = t_hi;
  return st;
}

/* Pool tasks for k stretches: one per thread besides the caller's, at most
 * one per stretch besides the first; none where the build must stay serial
 * (tab_pool_ready). */
static int task_count(lth_table *tab, int k) {
  int n = (tab->thr.nthreads < k ? tab->thr.nthreads : k) - 1;
  return n > 0 && tab_pool_ready(tab) ? n : 0;
}

lth_status tab_build_split(lth_table *tab, double goal, int k, lth_error *err) {
  split_run r;
  memset(&r, 0, sizeof r);
  r.tab = tab;
  r.k = k;
  r.next = 1;
  double a = tab->bld.covered;
  for (int j = 0; j <= k; j++) r.edge[j] = a + (goal - a) * (double)j / (double)k;
  r.edge[k] = goal;
  r.w0 = tab->bld.w_ref;
  r.noise_floor0 = tab->bld.noise_floor;
  r.noise_seen0 = tab->bld.noise_seen;
  /* the stretches share what is left of the budget (each its own table until
   * merged: with the whole budget each, k of them could hold k times it) */
  size_t used = tab->store.work + tab->store.stored * sizeof(double);
  size_t others = (size_t)(k - 1) * tab->store.work1; /* the stretches' work (tab_split_count) */
  size_t left = used + others < tab->o.max_bytes ? tab->o.max_bytes - used - others : 0;
  r.share = tab->store.work1 + left / (size_t)k;
  /* a budget of decompositions is shared the same way */
  if (tab->bld.budget > 0) {
    size_t dleft = tab->bld.budget > tab->stats.decomps ? tab->bld.budget - tab->stats.decomps : 0;
    r.budget = dleft / (size_t)k > 0 ? dleft / (size_t)k : 1;
  }
  /* a quarter more than the panels so far predict, so that most stretches
   * fill one chunk (and one or two huge pages, lib/table/coef_store.c) */
  double per_panel = tab->store.np ? (double)tab->store.stored / (double)tab->store.np : 0.0;
  double panels = (r.edge[1] - r.edge[0]) / r.w0;
  r.chunk_hint =
      (size_t)fmin(1.25 * per_panel * panels, (double)(left / (size_t)k) / sizeof(double));
  pthread_mutex_init(&r.mu, NULL);
  int tasks = task_count(tab, k);
  for (int i = 0; i < tasks; i++) {
    if (lth_pool_submit(tab->thr.pool, stretch_task, &r) != 0) break; /* fewer: still correct */
  }
  lth_status st = first_stretch(tab, r.edge[1], err);
  if (st != LTH_OK) {
    pthread_mutex_lock(&r.mu);
    r.next = k; /* nothing more to start */
    pthread_mutex_unlock(&r.mu);
  }
  for (int j = claim_stretch(&r); j > 0; j = claim_stretch(&r)) build_stretch(&r, j);
  if (tasks > 0) lth_pool_wait(tab->thr.pool); /* (tasks not started find none left) */
  for (int j = 1; st == LTH_OK && j < k; j++) {
    if (r.sub[j]) st = merge(tab, r.sub[j], err);
    if (st == LTH_OK && r.st[j] != LTH_OK) {
      if (err && r.st[j] != LTH_ERANGE) *err = r.err[j]; /* (a spent budget is no error) */
      st = r.st[j];
    }
  }
  for (int j = 1; j < k; j++) lth_table_free(r.sub[j]);
  pthread_mutex_destroy(&r.mu);
  return st;
}
