/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a coefficient table keeps its Chebyshev coefficients: chunks that
 * never move (lib/table/coef_table_impl.h, tab_chunk).
 *
 * A long table holds tens of megabytes (idx5 over [0, 1500] at 1e-12: 62 MB
 * for 1069 panels), written once as the panels are accepted.  Grown by
 * realloc, every doubling copied what was there, and every new 4 KiB page
 * cost a fault on first touch: a fifth of a one-thread build was page faults
 * (15000 per build), and a second thread faulting into the same process made
 * both slower.  So the coefficients go into chunks that are never moved nor
 * copied, each twice the size of the last (at most TAB_CHUNK_MAX doubles);
 * chunks of 2 MiB and more are aligned to 2 MiB and offered to the kernel for
 * transparent huge pages (Linux madvise; elsewhere, or where the kernel
 * declines, they are ordinary memory).  Measured on that build: 1 thread
 * 0.57 -> 0.38 s, 2 threads 0.29 -> 0.20 s (docs/performance.md).
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "coef_table_impl.h"

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define TAB_CHUNK_MIN  4096              /* doubles: 32 KiB, a small table's all */
#define TAB_CHUNK_MAX  ((size_t)1 << 20) /* doubles: 8 MiB */
#define TAB_HUGE_BYTES ((size_t)2 << 20) /* x86-64's huge page */

static double *chunk_alloc(size_t *n) {
  size_t bytes = *n * sizeof(double);
  if (bytes < TAB_HUGE_BYTES) {
    return malloc(bytes);
  }
  bytes = (bytes + TAB_HUGE_BYTES - 1) / TAB_HUGE_BYTES * TAB_HUGE_BYTES;
  double *p = aligned_alloc(TAB_HUGE_BYTES, bytes);
  if (!p) {
    return NULL;
  }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  (void)madvise(p, bytes, MADV_HUGEPAGE); /* advice only: a refusal changes nothing */
#endif
  *n = bytes / sizeof(double);
  return p;
}

static size_t grown(size_t last, size_t need) {
  size_t n = last ? 2 * last : TAB_CHUNK_MIN;
  if (n > TAB_CHUNK_MAX) n = TAB_CHUNK_MAX;
  return n < need ? need : n;
}

/* A new chunk with room for at least nc and nd doubles (nd = 0: none). */
static lth_status new_chunk(lth_table *tab, size_t nc, size_t nd, lth_error *err) {
  if (tab->store.nchunks == tab->store.chunk_cap) {
    size_t cap = tab->store.chunk_cap ? 2 * tab->store.chunk_cap : 8;
    tab_chunk *ch = realloc(tab->store.chunks, cap * sizeof *ch);
    if (!ch) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory growing the coefficient table");
    }
    tab->store.chunks = ch;
    tab->store.chunk_cap = cap;
  }
  const tab_chunk *last = tab->store.nchunks ? &tab->store.chunks[tab->store.nchunks - 1] : NULL;
  size_t want = grown(last ? last->ccap : 0, nc);
  if (!last && tab->store.chunk_hint > want) want = tab->store.chunk_hint;
  tab_chunk c = {0};
  c.ccap = want;
  /* derivative room in the proportion of this panel's needs */
  c.dcap = nd ? (size_t)((double)want * ((double)nd / (double)nc)) + nd : 0;
  c.c = chunk_alloc(&c.ccap);
  c.d = c.c && nd ? chunk_alloc(&c.dcap) : NULL;
  if (!c.c || (nd && !c.d)) {
    free(c.c);
    free(c.d);
    return lth_error_set(err, LTH_ENOMEM, "out of memory growing the coefficient table");
  }
  tab->store.chunks[tab->store.nchunks++] = c;
  return LTH_OK;
}

/* Doubles of coefficients the budget leaves beside the work arrays. */
static size_t coef_limit(const lth_table *tab) {
  size_t work = tab->store.work;
  return work < tab->o.max_bytes ? (tab->o.max_bytes - work) / sizeof(double) : 0;
}

static lth_status over_budget(const lth_table *tab, lth_error *err) {
  return lth_error_set(err, LTH_ENOMEM,
                       "the coefficient table would exceed its memory budget of %zu bytes "
                       "(lth_table_opts.max_bytes; %zu of them work arrays)",
                       tab->o.max_bytes, tab->store.work);
}

lth_status tab_store_claim(lth_table *tab, size_t nc, size_t nd, tab_panel *p, double **c,
                           double **d, lth_error *err) {
  if (tab->store.stored + nc + nd > coef_limit(tab)) {
    return over_budget(tab, err);
  }
  tab_chunk *k = tab->store.nchunks ? &tab->store.chunks[tab->store.nchunks - 1] : NULL;
  if (!k || k->cn + nc > k->ccap || k->dn + nd > k->dcap) {
    lth_status st = new_chunk(tab, nc, nd, err);
    if (st != LTH_OK) {
      return st;
    }
    k = &tab->store.chunks[tab->store.nchunks - 1];
  }
  p->chunk = (int)(tab->store.nchunks - 1);
  p->off = k->cn;
  p->doff = k->dn;
  *c = k->c + k->cn;
  *d = nd ? k->d + k->dn : NULL;
  k->cn += nc;
  k->dn += nd;
  tab->store.stored += nc + nd;
  return LTH_OK;
}

lth_status tab_store_adopt(lth_table *tab, lth_table *sub, int *first, lth_error *err) {
  if (tab->store.stored + sub->store.stored > coef_limit(tab)) {
    return over_budget(tab, err);
  }
  size_t need = tab->store.nchunks + sub->store.nchunks;
  if (need > tab->store.chunk_cap) {
    size_t cap = tab->store.chunk_cap ? tab->store.chunk_cap : 8;
    while (cap < need) cap *= 2;
    tab_chunk *ch = realloc(tab->store.chunks, cap * sizeof *ch);
    if (!ch) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory merging a table stretch");
    }
    tab->store.chunks = ch;
    tab->store.chunk_cap = cap;
  }
  *first = (int)tab->store.nchunks;
  if (sub->store.nchunks) {
    memcpy(tab->store.chunks + tab->store.nchunks, sub->store.chunks,
           sub->store.nchunks * sizeof *sub->store.chunks);
  }
  tab->store.nchunks = need;
  tab->store.stored += sub->store.stored;
  sub->store.nchunks = 0; /* the chunks are tab's now */
  sub->store.stored = 0;
  return LTH_OK;
}

void tab_store_free(lth_table *tab) {
  for (size_t k = 0; k < tab->store.nchunks; k++) {
    free(tab->store.chunks[k].c);
    free(tab->store.chunks[k].d);
  }
  free(tab->store.chunks);
  tab->store.chunks = NULL;
  tab->store.nchunks = tab->store.chunk_cap = 0;
}
