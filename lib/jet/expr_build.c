/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The expression builder (lib/jet/expr_build.h): an arena of immutable nodes,
 * the algebra with exact zeros, and the compiler to the flat program that
 * lib/jet/expr_taylor.c and lib/jet/expr_enclose.c run. */
#include "expr_build.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expr_impl.h"

#define CHUNK_BITS 14 /* nodes are stored in chunks of 2^14 (512 KiB): growing */
#define CHUNK_MASK ((1 << CHUNK_BITS) - 1) /* never copies them, never holds 2 copies */
#define MAX_NODES  (INT_MAX / 2)           /* ids stay int; the compiled program's too */

/* A node of the arena: 32 bytes. */
typedef struct bnode {
  double v; /* constant value, or the exponent of OP_POWC */
  int a, b; /* operands (-1 if unused) */
  int col;  /* for domain errors */
  int map;  /* compile scratch: the node's index in the program, -1 outside a compile */
  unsigned char op, dep;
} bnode;

struct lth_ebuild {
  bnode **chunk;
  int nchunks, capchunks;
  int n;
};

static bnode *nd(const lth_ebuild *b, int id) {
  return &b->chunk[id >> CHUNK_BITS][id & CHUNK_MASK];
}

static const char *const FUNC_NAMES[LTH_EFN_COUNT] = {"sin",  "cos",  "tan",  "exp",  "log",
                                                      "sqrt", "sinh", "cosh", "tanh", "asin",
                                                      "acos", "atan", "abs"};

int lth_expr_func_find(const char *name, size_t len) {
  for (int k = 0; k < LTH_EFN_COUNT; k++) {
    if (strlen(FUNC_NAMES[k]) == len && memcmp(FUNC_NAMES[k], name, len) == 0) {
      return k;
    }
  }
  return -1;
}

const char *lth_expr_func_name(int fn) {
  return fn >= 0 && fn < LTH_EFN_COUNT ? FUNC_NAMES[fn] : "?";
}

lth_ebuild *lth_ebuild_alloc(void) { return calloc(1, sizeof(lth_ebuild)); }

void lth_ebuild_free(lth_ebuild *b) {
  if (b) {
    for (int k = 0; k < b->nchunks; k++) {
      free(b->chunk[k]);
    }
    free(b->chunk);
    free(b);
  }
}

size_t lth_ebuild_size(const lth_ebuild *b) { return b ? (size_t)b->n : 0; }

void lth_ebuild_reset(lth_ebuild *b) {
  if (b) {
    b->n = 0; /* the chunks stay for the next nodes */
  }
}

void lth_ebuild_truncate(lth_ebuild *b, size_t n) {
  if (b && n < (size_t)b->n) {
    b->n = (int)n;
  }
}

/* ------------------------------------------------------------------------ */
/* Nodes as written                                                         */

static int add(lth_ebuild *b, bnode x) {
  if (b->n >= MAX_NODES) {
    return -1;
  }
  if (b->n >> CHUNK_BITS == b->nchunks) {
    if (b->nchunks == b->capchunks) {
      int cap = b->capchunks ? 2 * b->capchunks : 16;
      bnode **nc = realloc(b->chunk, (size_t)cap * sizeof *nc);
      if (!nc) {
        return -1;
      }
      b->chunk = nc;
      b->capchunks = cap;
    }
    if (!(b->chunk[b->nchunks] = malloc(((size_t)CHUNK_MASK + 1) * sizeof(bnode)))) {
      return -1;
    }
    b->nchunks++;
  }
  x.map = -1;
  *nd(b, b->n) = x;
  return b->n++;
}

int lth_ebuild_const(lth_ebuild *b, double v, int col) {
  return add(b, (bnode){.v = v, .a = -1, .b = -1, .col = col, .map = -1, .op = OP_CONST, .dep = 0});
}

int lth_ebuild_t(lth_ebuild *b, int col) {
  return add(b, (bnode){.v = 0.0, .a = -1, .b = -1, .col = col, .map = -1, .op = OP_T, .dep = 1});
}

static int valid(const lth_ebuild *b, int x) { return x >= 0 && x < b->n; }

/* Evaluate op on constant operands once, with the run-time kernel (order
 * 0): 1 on success, 0 if the kernel refuses (the node then stays). */
static int fold(const bnode *x, double av, double bv, double *value, lth_error *err) {
  enode nd = {.op = x->op, .a = 0, .b = 0, .col = x->col, .dep = 0, .off = 0, .v = x->v, .same = 0};
  double y[8];
  kargs k = {.nd = &nd, .a = &av, .b = &bv, .y = y, .K = 0, .t = 0.0, .err = err};
  if (lth_expr_eval_node(&k) != LTH_OK) {
    return 0;
  }
  *value = y[0];
  return 1;
}

/* Operation op on x (and y, -1 for a unary one); folded when its operands are constants. */
static int node_op(lth_ebuild *b, int op, int x, int y, int col) {
  if (!valid(b, x) || (y != -1 && !valid(b, y))) {
    return -1;
  }
  bnode z = {.v = 0.0, .a = x, .b = y, .col = col, .map = -1, .op = (unsigned char)op, .dep = 0};
  if (op == OP_POW && nd(b, y)->op == OP_CONST) {
    z.op = OP_POWC; /* constant exponent: stored in the node, not evaluated */
    z.v = nd(b, y)->v;
    z.b = y = -1;
  }
  const bnode *na = nd(b, x), *nb = y >= 0 ? nd(b, y) : NULL;
  z.dep = na->dep || (nb && nb->dep);
  double v;
  if (na->op == OP_CONST && (!nb || nb->op == OP_CONST) &&
      fold(&z, na->v, nb ? nb->v : 0.0, &v, NULL)) {
    return lth_ebuild_const(b, v, col);
  }
  return add(b, z);
}

int lth_ebuild_neg(lth_ebuild *b, int x, int col) { return node_op(b, OP_NEG, x, -1, col); }

int lth_ebuild_func(lth_ebuild *b, int fn, int x, int col) {
  return fn >= 0 && fn < LTH_EFN_COUNT ? node_op(b, FIRST_FUNC + fn, x, -1, col) : -1;
}

static int binary_op(int op) {
  switch (op) {
  case '+':
    return OP_ADD;
  case '-':
    return OP_SUB;
  case '*':
    return OP_MUL;
  case '/':
    return OP_DIV;
  case '^':
    return OP_POW;
  default:
    return -1;
  }
}

int lth_ebuild_binary(lth_ebuild *b, int op, int x, int y, int col) {
  int o = binary_op(op);
  return o < 0 ? -1 : node_op(b, o, x, y, col);
}

int lth_ebuild_is_const(const lth_ebuild *b, int x, double *v) {
  if (!valid(b, x) || nd(b, x)->op != OP_CONST) {
    return 0;
  }
  *v = nd(b, x)->v;
  return 1;
}

int lth_ebuild_depends_on_t(const lth_ebuild *b, int x) { return valid(b, x) && nd(b, x)->dep; }

int lth_ebuild_is_t(const lth_ebuild *b, int x) { return valid(b, x) && nd(b, x)->op == OP_T; }

int lth_ebuild_view(const lth_ebuild *b, int id, lth_ebview *out) {
  if (!valid(b, id)) {
    return 0;
  }
  const bnode *z = nd(b, id);
  *out = (lth_ebview){.op = z->op, .a = z->a, .b = z->b, .dep = z->dep, .v = z->v};
  return 1;
}

/* ------------------------------------------------------------------------ */
/* The algebra                                                              */

static lth_status nomem(lth_error *err) {
  lth_error_clear(err);
  return lth_error_set(err, LTH_ENOMEM, "out of memory building an expression");
}

/* x as a constant if it is one (a constant node counts). */
static int is_const(const lth_ebuild *b, lth_escalar x, double *v) {
  if (x.node < 0) {
    *v = x.v;
    return 1;
  }
  return lth_ebuild_is_const(b, x.node, v);
}

static int is(const lth_ebuild *b, lth_escalar x, double c) {
  double v;
  return is_const(b, x, &v) && v == c;
}

static lth_escalar konst(double v) { return (lth_escalar){v, -1}; }

/* A constant through the kernel (op on a and b): errors as evaluating it would give. */
static lth_status kernel_const(int op, double a, double b, double *v, lth_error *err) {
  bnode z = {.v = op == OP_POW ? b : 0.0,
             .a = 0,
             .b = 0,
             .col = 0,
             .map = -1,
             .op = (unsigned char)(op == OP_POW ? OP_POWC : op),
             .dep = 0};
  lth_error_clear(err);
  if (!fold(&z, a, b, v, err)) {
    return err ? err->status : LTH_EDOMAIN;
  }
  return LTH_OK;
}

/* + - * / in double arithmetic, ^ by the kernel. */
static lth_status const_binop(int op, double a, double b, double *v, lth_error *err) {
  switch (op) {
  case '+':
    *v = a + b;
    break;
  case '-':
    *v = a - b;
    break;
  case '*':
    *v = a * b;
    break;
  case '/':
    if (b == 0.0) {
      lth_error_clear(err);
      return lth_error_set(err, LTH_EDOMAIN, "division by zero in '/' (%g / 0)", a);
    }
    *v = a / b;
    break;
  default:
    return kernel_const(OP_POW, a, b, v, err);
  }
  if (!isfinite(*v)) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EDOMAIN, "non-finite value from '%c' (%g %c %g)", op, a, op, b);
  }
  return LTH_OK;
}

static int as_node(lth_ebuild *b, lth_escalar x) {
  return x.node >= 0 ? x.node : lth_ebuild_const(b, x.v, 0);
}

lth_status lth_ebuild_negate(lth_ebuild *b, lth_escalar x, lth_escalar *out, lth_error *err) {
  double v;
  if (is_const(b, x, &v)) {
    *out = konst(-v + 0.0); /* no negative zeros */
    return LTH_OK;
  }
  *out = (lth_escalar){0.0, lth_ebuild_neg(b, x.node, 0)};
  return out->node >= 0 ? LTH_OK : nomem(err);
}

/* The identities of exact zeros and ones, x or y a constant: 1 if one applies. */
static int identity(lth_ebuild *b, int op, lth_escalar x, lth_escalar y, lth_escalar *out,
                    lth_status *st, lth_error *err) {
  *st = LTH_OK;
  switch (op) {
  case '*':
    if (is(b, x, 0.0) || is(b, y, 0.0)) {
      *out = konst(0.0);
    } else if (is(b, x, 1.0) || is(b, y, 1.0)) {
      *out = is(b, x, 1.0) ? y : x;
    } else {
      return 0;
    }
    return 1;
  case '+':
    if (!is(b, x, 0.0) && !is(b, y, 0.0)) {
      return 0;
    }
    *out = is(b, x, 0.0) ? y : x;
    return 1;
  case '-':
    if (is(b, y, 0.0)) {
      *out = x;
    } else if (is(b, x, 0.0)) {
      *st = lth_ebuild_negate(b, y, out, err);
    } else {
      return 0;
    }
    return 1;
  case '/':
    if (is(b, y, 0.0)) {
      lth_error_clear(err);
      *st = lth_error_set(err, LTH_EDOMAIN, "division by zero in '/' (a function of t / 0)");
    } else if (is(b, y, 1.0) || is(b, x, 0.0)) {
      *out = x;
    } else {
      return 0;
    }
    return 1;
  default:
    if (is(b, y, 0.0)) {
      *out = konst(1.0);
    } else if (is(b, y, 1.0)) {
      *out = x;
    } else {
      return 0;
    }
    return 1;
  }
}

lth_status lth_ebuild_combine(lth_ebuild *b, int op, lth_escalar x, lth_escalar y, lth_escalar *out,
                              lth_error *err) {
  double xv, yv;
  lth_status st;
  if (binary_op(op) < 0) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_ebuild_combine: unknown operation");
  }
  if (is_const(b, x, &xv) && is_const(b, y, &yv)) {
    *out = konst(0.0);
    return const_binop(op, xv, yv, &out->v, err);
  }
  if (identity(b, op, x, y, out, &st, err)) {
    return st;
  }
  int nx = as_node(b, x), ny = nx < 0 ? -1 : as_node(b, y);
  *out = (lth_escalar){0.0, ny < 0 ? -1 : lth_ebuild_binary(b, op, nx, ny, 0)};
  return out->node >= 0 ? LTH_OK : nomem(err);
}

lth_status lth_ebuild_apply(lth_ebuild *b, int fn, lth_escalar x, lth_escalar *out,
                            lth_error *err) {
  double v;
  if (fn < 0 || fn >= LTH_EFN_COUNT) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_ebuild_apply: unknown function");
  }
  if (is_const(b, x, &v)) {
    *out = konst(0.0);
    return kernel_const(FIRST_FUNC + fn, v, 0.0, &out->v, err);
  }
  *out = (lth_escalar){0.0, lth_ebuild_func(b, fn, x.node, 0)};
  return out->node >= 0 ? LTH_OK : nomem(err);
}

/* ------------------------------------------------------------------------ */
/* Compiling                                                                */

/* The nodes reachable from root in postorder, operands first (the left one
 * first), each once: order[0..*count-1], and each node's map its index.  The
 * stack holds the path from root to the node at hand (a DAG has no cycles),
 * so a shared node, once placed, is only skipped. */
static lth_status walk(lth_ebuild *b, int root, size_t max_nodes, int **order, int *count,
                       lth_error *err) {
  int sp = 0, stcap = 64, ocap = 64, n = 0;
  int *stack = malloc((size_t)stcap * sizeof *stack), *ord = malloc((size_t)ocap * sizeof *ord);
  lth_status st = stack && ord ? LTH_OK : nomem(err);
  if (st == LTH_OK) {
    stack[sp++] = root;
  }
  while (st == LTH_OK && sp > 0) {
    bnode *z = nd(b, stack[sp - 1]);
    int a = z->a, c = z->b;
    int next = z->map >= 0                   ? -2
               : a >= 0 && nd(b, a)->map < 0 ? a
               : c >= 0 && nd(b, c)->map < 0 ? c
                                             : -1; /* -1: its operands are placed */
    if (next == -2) {
      sp--; /* placed already */
    } else if (next >= 0) {
      int *ns = sp == stcap ? realloc(stack, (size_t)(stcap *= 2) * sizeof *ns) : stack;
      st = ns ? LTH_OK : nomem(err);
      stack = ns ? ns : stack;
      if (ns) {
        stack[sp++] = next;
      }
    } else if ((size_t)n >= max_nodes) {
      lth_error_clear(err);
      st =
          lth_error_set(err, LTH_EDIM, "expression too large: more than %zu operations", max_nodes);
    } else {
      int *no = n == ocap ? realloc(ord, (size_t)(ocap *= 2) * sizeof *no) : ord;
      st = no ? LTH_OK : nomem(err);
      ord = no ? no : ord;
      if (no) {
        z->map = n;
        ord[n++] = stack[--sp];
      }
    }
  }
  free(stack);
  *order = ord;
  *count = n;
  return st;
}

/* Mark x - x for the same subexpression x (enode.same; the enclosure is then
 * exactly 0, lib/jet/expr_enclose.c): canonical ids by hashing each node's
 * operation, value and operands' ids, so equal subtrees get equal ids
 * whether shared or written twice. */
static int mark_same(enode *nodes, int n) {
  size_t ns = 16;
  while (ns < 2 * (size_t)n) {
    ns *= 2;
  }
  int *canon = malloc(((size_t)n + 1) * sizeof *canon), *slot = calloc(ns, sizeof *slot);
  if (!canon || !slot) {
    free(canon);
    free(slot);
    return 0;
  }
  for (int i = 0; i < n; i++) {
    enode *nd = &nodes[i];
    int valued = nd->op == OP_CONST || nd->op == OP_POWC;
    double v = valued ? nd->v + 0.0 : 0.0; /* -0 == 0 */
    int ca = nd->a >= 0 ? canon[nd->a] : -1, cb = nd->b >= 0 ? canon[nd->b] : -1;
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t h = (uint64_t)nd->op * 0x9e3779b97f4a7c15u ^ bits;
    h = (h ^ (uint64_t)(unsigned)ca) * 0xff51afd7ed558ccdu;
    h = (h ^ (uint64_t)(unsigned)cb) * 0xc4ceb9fe1a85ec53u;
    size_t k = (size_t)(h ^ (h >> 29)) & (ns - 1);
    canon[i] = i;
    for (; slot[k]; k = (k + 1) & (ns - 1)) {
      const enode *q = &nodes[slot[k] - 1];
      int qa = q->a >= 0 ? canon[q->a] : -1, qb = q->b >= 0 ? canon[q->b] : -1;
      if (q->op == nd->op && (!valued || q->v == nd->v) && qa == ca && qb == cb) {
        canon[i] = canon[slot[k] - 1];
        break;
      }
    }
    if (!slot[k]) {
      slot[k] = i + 1;
    }
    nd->same = nd->op == OP_SUB && ca == cb;
  }
  free(canon);
  free(slot);
  return 1;
}

/* Lay out the workspace: node i owns OP_NSERIES[op] series from off. */
static size_t layout(enode *nodes, int n) {
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    nodes[i].off = off;
    off += (size_t)OP_NSERIES[nodes[i].op];
  }
  return off;
}

lth_status lth_ebuild_compile(lth_ebuild *b, int root, size_t max_nodes, lth_expr **out,
                              size_t *nodes, lth_error *err) {
  if (!out || !b || !valid(b, root)) {
    lth_error_clear(err);
    return lth_error_set(err, LTH_EINVAL, "lth_ebuild_compile: no such expression");
  }
  *out = NULL;
  int *order = NULL, n = 0;
  lth_status st = walk(b, root, max_nodes, &order, &n, err);
  lth_expr *e = st == LTH_OK ? malloc(sizeof *e) : NULL;
  enode *prog = e ? malloc((size_t)n * sizeof *prog) : NULL;
  for (int k = 0; prog && k < n; k++) {
    const bnode *x = nd(b, order[k]);
    prog[k] = (enode){.op = x->op,
                      .a = x->a >= 0 ? nd(b, x->a)->map : -1,
                      .b = x->b >= 0 ? nd(b, x->b)->map : -1,
                      .col = x->col,
                      .dep = x->dep,
                      .off = 0,
                      .v = x->v,
                      .same = 0};
  }
  for (int k = 0; order && k < n; k++) {
    nd(b, order[k])->map = -1;
  }
  free(order);
  if (st == LTH_OK && (!prog || !mark_same(prog, n))) {
    st = nomem(err);
  }
  if (st != LTH_OK) {
    free(prog);
    free(e);
    return st;
  }
  e->nodes = prog;
  e->n = n;
  e->nseries = layout(prog, n);
  *out = e;
  if (nodes) {
    *nodes = (size_t)n;
  }
  return LTH_OK;
}
