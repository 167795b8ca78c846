/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Several compiled expressions as one program with their common
 * subexpressions shared (include/lth/expr.h, lth_expr_merge): the entries of
 * a matrix of expressions often repeat the same pieces (a named function, a
 * parameter's product, sin(t)), and one sweep over the merged nodes computes
 * each once.  A node is shared when its operation, operands (after merging),
 * constant (bit for bit) and flags are the same, so every node computes what
 * it computed alone, with the same operations in the same order: the
 * results are bitwise those of the entries evaluated one by one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "expr_impl.h"

static uint64_t bits(double v) {
  uint64_t u;
  memcpy(&u, &v, sizeof u);
  return u;
}

static size_t hash(const enode *nd) {
  uint64_t h = (uint64_t)nd->op * 0x9E3779B97F4A7C15u;
  h ^= ((uint64_t)(uint32_t)nd->a + 0x632BE59BD9B4E019u) * 0xBF58476D1CE4E5B9u;
  h ^= ((uint64_t)(uint32_t)nd->b + 0x85EBCA77C2B2AE63u) * 0x94D049BB133111EBu;
  h ^= bits(nd->v) * 0xD6E8FEB86659FD93u;
  h ^= (uint64_t)nd->same << 7;
  return (size_t)(h ^ (h >> 31));
}

static int same_node(const enode *x, const enode *y) {
  return x->op == y->op && x->a == y->a && x->b == y->b && bits(x->v) == bits(y->v) &&
         x->same == y->same;
}

lth_expr *lth_expr_merge(lth_expr *const *entries, size_t count, int *roots, lth_error *err) {
  size_t total = 0, maxn = 0;
  for (size_t k = 0; k < count; k++) {
    size_t n = entries[k] ? (size_t)entries[k]->n : 0;
    total += n;
    maxn = n > maxn ? n : maxn;
  }
  size_t cap = 16;
  while (cap < 2 * total) {
    cap *= 2;
  }
  lth_expr *m = calloc(1, sizeof *m);
  int *slot = malloc(cap * sizeof *slot), *map = malloc((maxn + 1) * sizeof *map);
  if (m) {
    m->nodes = malloc((total + 1) * sizeof *m->nodes);
  }
  if (!m || !m->nodes || !slot || !map) {
    lth_expr_free(m);
    free(slot);
    free(map);
    lth_error_set(err, LTH_ENOMEM, "out of memory merging expressions");
    return NULL;
  }
  for (size_t i = 0; i < cap; i++) {
    slot[i] = -1;
  }
  for (size_t k = 0; k < count; k++) {
    const lth_expr *e = entries[k];
    roots[k] = -1;
    for (int i = 0; e && i < e->n; i++) {
      enode nd = e->nodes[i];
      nd.a = nd.a >= 0 ? map[nd.a] : -1;
      nd.b = nd.b >= 0 ? map[nd.b] : -1;
      size_t h = hash(&nd) & (cap - 1);
      while (slot[h] >= 0 && !same_node(&m->nodes[slot[h]], &nd)) {
        h = (h + 1) & (cap - 1);
      }
      if (slot[h] < 0) { /* a new node: its series follow the others' */
        nd.off = m->nseries;
        m->nseries += (size_t)lth_expr_op_nseries[nd.op];
        slot[h] = m->n;
        m->nodes[m->n++] = nd;
      }
      map[i] = slot[h];
    }
    if (e && e->n > 0) {
      roots[k] = map[e->n - 1];
    }
  }
  free(slot);
  free(map);
  return m;
}

const double *lth_expr_series(const lth_expr *e, const double *work, int node, int order) {
  return work + e->nodes[node].off * ((size_t)order + 1);
}

const lth_interval *lth_expr_iseries(const lth_expr *e, const lth_interval *work, int node,
                                     int order) {
  return work + e->nodes[node].off * ((size_t)order + 1);
}
