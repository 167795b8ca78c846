/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the cost statements of the equation form (docs/equations.md
 * section 12): parsed into quadratic polynomials in the variables
 * (problem_cost.c), then placed in w = (z, u, y) and turned into the
 * problem's sources once the model exists (problem_cost_w.c). */
#ifndef LTH_PROBLEM_COST_H
#define LTH_PROBLEM_COST_H

#include "problem_impl.h"

#define COST_OUTPUT_VAR 0x20000000 /* output k in a cost: COST_OUTPUT_VAR + k */
#define KEY_ORDERS      64         /* key = var * KEY_ORDERS + order */
#define NO_KEY          (-1LL)

/* c w_a w_b (a <= b), or c w_a (b = NO_KEY); a key is (var, order). */
typedef struct cterm {
  long long a, b;
  lth_psc c;
} cterm;

/* c0 + sum of terms, sorted by (a, b), no duplicates, no exact zeros. */
typedef struct cpoly {
  lth_psc c0;
  cterm *t;
  int n;
} cpoly;

/* Where a variable is first used, for the checks that need the model. */
typedef struct cuse {
  long long key;
  lth_spos at;
  int final;
} cuse;

struct lth_pcost {
  cpoly sum[2]; /* the integrands, the final costs */
  lth_spos at[2];
  cuse *use;
  int nuse, capuse;
};

static inline long long key_of(int var, int order) { return (long long)var * KEY_ORDERS + order; }
static inline int key_var(long long k) { return (int)(k / KEY_ORDERS); }
static inline int key_order(long long k) { return (int)(k % KEY_ORDERS); }

/* The name of a variable for messages ("x1'", "u1", "y1"). */
const char *lth_pp_cost_key_name(lth_pp *P, long long key, char *buf, size_t size);

#endif
