/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Calculus on built expressions (lib/jet/expr_build.h): the derivative d/dt
 * of a node by the chain rule, and the substitution of an expression for t.
 * Both rebuild nodes with the builder's algebra (exact zeros and ones, folded
 * constants), so what they make is an ordinary expression: its Taylor
 * coefficients come from the same kernels as every other expression's
 * (exact to rounding) and its enclosures are valid for the same reasons.
 *
 * One walker serves both: nodes in postorder from the root, each once (a
 * table maps a node to its result), on an explicit stack, since a formula
 * built by matrix algebra can be a chain of 10^5 nodes. */
#include <stdlib.h>

#include "expr_build.h"
#include "expr_impl.h"

/* Results by node id: open addressing, at most half full. */
typedef struct memo {
  int *key; /* id + 1, 0 = empty */
  lth_escalar *val;
  size_t cap, n;
} memo;

static size_t slot_of(const memo *m, int id) {
  size_t h = (size_t)(unsigned)id * 0x9e3779b97f4a7c15u;
  size_t k = (h ^ (h >> 29)) & (m->cap - 1);
  while (m->key[k] && m->key[k] != id + 1) {
    k = (k + 1) & (m->cap - 1);
  }
  return k;
}

static int memo_get(const memo *m, int id, lth_escalar *v) {
  if (m->cap == 0) {
    return 0;
  }
  size_t k = slot_of(m, id);
  if (!m->key[k]) {
    return 0;
  }
  *v = m->val[k];
  return 1;
}

static int memo_put(memo *m, int id, lth_escalar v) {
  if (2 * (m->n + 1) > m->cap) {
    memo g = {NULL, NULL, m->cap ? 2 * m->cap : 64, 0};
    g.key = calloc(g.cap, sizeof *g.key);
    g.val = malloc(g.cap * sizeof *g.val);
    if (!g.key || !g.val) {
      free(g.key);
      free(g.val);
      return 0;
    }
    for (size_t k = 0; k < m->cap; k++) {
      if (m->key[k]) {
        size_t j = slot_of(&g, m->key[k] - 1);
        g.key[j] = m->key[k];
        g.val[j] = m->val[k];
        g.n++;
      }
    }
    free(m->key);
    free(m->val);
    *m = g;
  }
  size_t k = slot_of(m, id);
  m->n += !m->key[k];
  m->key[k] = id + 1;
  m->val[k] = v;
  return 1;
}

static lth_status nomem(lth_error *err) {
  lth_error_clear(err);
  return lth_error_set(err, LTH_ENOMEM, "out of memory building an expression");
}

/* What a transformation does: at a leaf (a node free of t, or t itself), and
 * at an operation given its operands' results ra, rb. */
typedef struct xform {
  lth_escalar (*leaf)(const struct xform *f, int id, const lth_ebview *z);
  lth_status (*rule)(lth_ebuild *b, int id, const lth_ebview *z, lth_escalar ra, lth_escalar rb,
                     lth_escalar *out, lth_error *err);
  lth_escalar arg; /* the substitution's t */
} xform;

static lth_status transform(lth_ebuild *b, int root, const xform *f, lth_escalar *out,
                            lth_error *err) {
  memo m = {NULL, NULL, 0, 0};
  size_t sp = 0, cap = 64;
  int *stack = malloc(cap * sizeof *stack);
  lth_status st = stack ? LTH_OK : nomem(err);
  lth_ebview z;
  if (st == LTH_OK && !lth_ebuild_view(b, root, &z)) {
    lth_error_clear(err);
    st = lth_error_set(err, LTH_EINVAL, "no such expression");
  }
  if (st == LTH_OK) {
    stack[sp++] = root;
  }
  while (st == LTH_OK && sp > 0) {
    int id = stack[sp - 1];
    lth_escalar r, ra = {0.0, -1}, rb = {0.0, -1};
    lth_ebuild_view(b, id, &z);
    if (memo_get(&m, id, &r)) {
      sp--;
      continue;
    }
    int leaf = !z.dep || z.op == OP_T;
    int next = leaf                                  ? -1
               : z.a >= 0 && !memo_get(&m, z.a, &ra) ? z.a
               : z.b >= 0 && !memo_get(&m, z.b, &rb) ? z.b
                                                     : -1;
    if (next >= 0) {
      int *ns = sp == cap ? realloc(stack, (cap *= 2) * sizeof *ns) : stack;
      if (!ns) {
        st = nomem(err);
        break;
      }
      stack = ns;
      stack[sp++] = next;
      continue;
    }
    if (leaf) {
      r = f->leaf(f, id, &z);
    } else {
      if (z.b >= 0) {
        memo_get(&m, z.b, &rb);
      }
      st = f->rule(b, id, &z, ra, rb, &r, err);
    }
    if (st == LTH_OK && !memo_put(&m, id, r)) {
      st = nomem(err);
    }
    sp--;
  }
  if (st == LTH_OK) {
    memo_get(&m, root, out);
  }
  free(stack);
  free(m.key);
  free(m.val);
  return st;
}

/* ------------------------------------------------------------------------ */
/* d/dt                                                                     */

static lth_escalar K(double v) { return (lth_escalar){v, -1}; }
static lth_escalar N(int id) { return (lth_escalar){0.0, id}; }

static lth_escalar d_leaf(const xform *f, int id, const lth_ebview *z) {
  (void)f;
  (void)id;
  return K(z->op == OP_T ? 1.0 : 0.0);
}

/* Shorthands of the algebra; each stops at the first error. */
#define OP(op, x, y, r)                                                                            \
  do {                                                                                             \
    if (st == LTH_OK) {                                                                            \
      st = lth_ebuild_combine(b, (op), (x), (y), &(r), err);                                       \
    }                                                                                              \
  } while (0)
#define FN(fn, x, r)                                                                               \
  do {                                                                                             \
    if (st == LTH_OK) {                                                                            \
      st = lth_ebuild_apply(b, (fn), (x), &(r), err);                                              \
    }                                                                                              \
  } while (0)

/* d/dt of node id = op(a, b), given da and db. */
static lth_status d_rule(lth_ebuild *b, int id, const lth_ebview *z, lth_escalar da, lth_escalar db,
                         lth_escalar *out, lth_error *err) {
  lth_status st = LTH_OK;
  lth_escalar A = N(z->a), B = N(z->b), Z = N(id), p = K(0.0), q = K(0.0), r = K(0.0);
  switch (z->op) {
  case OP_NEG:
    return lth_ebuild_negate(b, da, out, err);
  case OP_ADD:
  case OP_SUB:
    OP(z->op == OP_ADD ? '+' : '-', da, db, *out);
    return st;
  case OP_MUL: /* a' b + a b' */
    OP('*', da, B, p);
    OP('*', A, db, q);
    OP('+', p, q, *out);
    return st;
  case OP_DIV: /* (a' - z b') / b */
    OP('*', Z, db, p);
    OP('-', da, p, q);
    OP('/', q, B, *out);
    return st;
  case OP_POWC: /* c a^(c-1) a' */
    OP('^', A, K(z->v - 1.0), p);
    OP('*', K(z->v), p, q);
    OP('*', q, da, *out);
    return st;
  case OP_POW: /* z (b' log a + b a' / a) */
    FN(LTH_EFN_LOG, A, p);
    OP('*', db, p, p);
    OP('*', B, da, q);
    OP('/', q, A, q);
    OP('+', p, q, r);
    OP('*', Z, r, *out);
    return st;
  case OP_SIN:
    FN(LTH_EFN_COS, A, p);
    break;
  case OP_COS:
    FN(LTH_EFN_SIN, A, q);
    if (st == LTH_OK) {
      st = lth_ebuild_negate(b, q, &p, err);
    }
    break;
  case OP_TAN:  /* 1 + tan^2 */
  case OP_TANH: /* 1 - tanh^2 */
    OP('*', Z, Z, q);
    OP(z->op == OP_TAN ? '+' : '-', K(1.0), q, p);
    break;
  case OP_EXP:
    p = Z;
    break;
  case OP_LOG:
    OP('/', da, A, *out);
    return st;
  case OP_SQRT: /* a' / (2 sqrt a) */
    OP('*', K(2.0), Z, q);
    OP('/', da, q, *out);
    return st;
  case OP_SINH:
    FN(LTH_EFN_COSH, A, p);
    break;
  case OP_COSH:
    FN(LTH_EFN_SINH, A, p);
    break;
  case OP_ASIN:
  case OP_ACOS: /* -+ a' / sqrt(1 - a^2) */
    OP('*', A, A, q);
    OP('-', K(1.0), q, q);
    FN(LTH_EFN_SQRT, q, q);
    OP('/', da, q, p);
    if (st == LTH_OK && z->op == OP_ACOS) {
      st = lth_ebuild_negate(b, p, &p, err);
    }
    *out = p;
    return st;
  case OP_ATAN: /* a' / (1 + a^2) */
    OP('*', A, A, q);
    OP('+', K(1.0), q, q);
    OP('/', da, q, *out);
    return st;
  case OP_ABS: /* sign(a) a' = (a / |a|) a': exactly +-1, undefined at 0 like |a|' */
    OP('/', A, Z, p);
    break;
  default:
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "d/dt: unknown operation");
  }
  OP('*', p, da, *out); /* f'(a) a' */
  return st;
}

/* ------------------------------------------------------------------------ */
/* t := arg                                                                 */

static lth_escalar s_leaf(const xform *f, int id, const lth_ebview *z) {
  return z->op == OP_T ? f->arg : N(id);
}

static lth_status s_rule(lth_ebuild *b, int id, const lth_ebview *z, lth_escalar ra, lth_escalar rb,
                         lth_escalar *out, lth_error *err) {
  static const char BINARY[] = {
      [OP_ADD] = '+', [OP_SUB] = '-', [OP_MUL] = '*', [OP_DIV] = '/', [OP_POW] = '^'};
  (void)id;
  switch (z->op) {
  case OP_NEG:
    return lth_ebuild_negate(b, ra, out, err);
  case OP_POWC:
    return lth_ebuild_combine(b, '^', ra, K(z->v), out, err);
  case OP_ADD:
  case OP_SUB:
  case OP_MUL:
  case OP_DIV:
  case OP_POW:
    return lth_ebuild_combine(b, BINARY[z->op], ra, rb, out, err);
  default:
    return lth_ebuild_apply(b, z->op - FIRST_FUNC, ra, out, err);
  }
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                             */

lth_status lth_ebuild_deriv(lth_ebuild *b, lth_escalar x, lth_escalar *out, lth_error *err) {
  *out = K(0.0);
  if (x.node < 0) {
    return LTH_OK;
  }
  xform f = {d_leaf, d_rule, {0.0, -1}};
  return transform(b, x.node, &f, out, err);
}

lth_status lth_ebuild_subst_t(lth_ebuild *b, lth_escalar x, lth_escalar arg, lth_escalar *out,
                              lth_error *err) {
  *out = x;
  if (x.node < 0 || (arg.node >= 0 && lth_ebuild_is_t(b, arg.node))) {
    return LTH_OK; /* x(t) is x: its nodes are shared */
  }
  xform f = {s_leaf, s_rule, arg};
  return transform(b, x.node, &f, out, err);
}
