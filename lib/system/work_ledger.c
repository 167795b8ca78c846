/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The scratch a system has handed out (lib/system/system_parts.h): a
 * workspace sizes its scratch for the system's sources once, so a signal
 * given later (lth_system_set_input) must fit in what was handed out.  The
 * record is shared by the system and the workspaces that hold scratch, and
 * freed with the last of them: a workspace may be freed after its system. */
#include <pthread.h>
#include <stdlib.h>

#include "system_impl.h"

/* issued: by lth_system_work_size, for good (the caller's memory is not known
 * to be freed); held: by lth_system_work_acquire while `live` workspaces hold
 * it.  Under mu: workspaces are allocated in threads.  refs: the system and
 * each workspace holding scratch. */
struct lth_work_ledger {
  pthread_mutex_t mu;
  int refs;
  size_t issued[LTH_SYSTEM_ISSUED_ORDERS], held[LTH_SYSTEM_ISSUED_ORDERS];
  int live[LTH_SYSTEM_ISSUED_ORDERS];
  int beyond; /* an order >= LTH_SYSTEM_ISSUED_ORDERS was handed out */
};

lth_work_ledger *lth_work_ledger_new(void) {
  lth_work_ledger *g = calloc(1, sizeof *g);
  if (g && pthread_mutex_init(&g->mu, NULL) != 0) {
    free(g);
    return NULL;
  }
  if (g) {
    g->refs = 1;
  }
  return g;
}

void lth_work_ledger_drop(lth_work_ledger *g) {
  if (!g) {
    return;
  }
  pthread_mutex_lock(&g->mu);
  int left = --g->refs;
  pthread_mutex_unlock(&g->mu);
  if (left == 0) {
    pthread_mutex_destroy(&g->mu);
    free(g);
  }
}

size_t lth_system_work_size(const lth_system *sys, int order) {
  size_t w = lth_system_work_needed(sys, order);
  lth_work_ledger *g = sys->ledger;
  pthread_mutex_lock(&g->mu);
  if (order >= LTH_SYSTEM_ISSUED_ORDERS) {
    g->beyond = 1;
  } else if (order >= 0 && g->issued[order] < w) {
    g->issued[order] = w;
  }
  pthread_mutex_unlock(&g->mu);
  return w;
}

lth_work_ledger *lth_system_work_acquire(const lth_system *sys, int order, size_t *size) {
  size_t w = lth_system_work_needed(sys, order);
  lth_work_ledger *g = sys->ledger;
  pthread_mutex_lock(&g->mu);
  g->refs++;
  if (order >= LTH_SYSTEM_ISSUED_ORDERS) {
    g->beyond = 1;
  } else if (order >= 0) {
    g->live[order]++;
    g->held[order] = g->held[order] < w ? w : g->held[order];
  }
  pthread_mutex_unlock(&g->mu);
  *size = w;
  return g;
}

void lth_work_ledger_release(lth_work_ledger *g, int order) {
  if (!g) {
    return;
  }
  pthread_mutex_lock(&g->mu);
  if (order >= 0 && order < LTH_SYSTEM_ISSUED_ORDERS && g->live[order] > 0 &&
      --g->live[order] == 0) {
    g->held[order] = 0;
  }
  pthread_mutex_unlock(&g->mu);
  lth_work_ledger_drop(g);
}

int lth_system_work_check(const lth_system *sys, size_t *have, size_t *need) {
  lth_work_ledger *g = sys->ledger;
  int bad = -1;
  pthread_mutex_lock(&g->mu);
  if (g->beyond) {
    *have = 0;
    *need = 1;
    bad = LTH_SYSTEM_ISSUED_ORDERS;
  }
  for (int o = 0; o < LTH_SYSTEM_ISSUED_ORDERS && bad < 0; o++) {
    size_t h = g->issued[o], hh = g->live[o] > 0 ? g->held[o] : 0;
    if (h == 0 && hh == 0) {
      continue;
    }
    size_t n = lth_system_work_needed(sys, o);
    if ((h > 0 && n > h) || (hh > 0 && n > hh)) {
      *have = h > 0 && n > h ? h : hh;
      *need = n;
      bad = o;
    }
  }
  pthread_mutex_unlock(&g->mu);
  return bad;
}
