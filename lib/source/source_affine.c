/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A 1 x 1 jet source c(t) + a S(t): a formula c (an expression, or the
 * constant c0) plus a constant multiple of another source S, e.g. sampled
 * data (the equation form's samples(...) coefficients, lib/reader/problem_eqn.c).
 * S is shared; exactness and domain are S's. */
#include <stdlib.h>

#include "source_affine.h"
#include "source_rebind.h"

/* A coefficient c(t) + a S(t) with S sampled (shared, owned by the problem)
 * and c an expression (owned unless shared_e) or the constant c0.  A copy
 * made by affine_rebind shares e and reads S's replacement (owning S_own). */
typedef struct affine {
  lth_expr *e;
  double c0, a;
  const lth_source *S;
  int shared_e;
  lth_source *S_own;
} affine;

static void affine_destroy(void *state) {
  affine *af = state;
  if (af) {
    if (!af->shared_e) {
      lth_expr_free(af->e);
    }
    lth_source_free(af->S_own);
    free(af);
  }
}

static size_t affine_work(const void *state, int order) {
  const affine *af = state;
  size_t we = af->e ? lth_expr_work_size(af->e, order) : 0, ws = lth_source_work_size(af->S, order);
  return (we > ws ? we : ws) + 2 * ((size_t)order + 1);
}

static void affine_domain(const void *state, double *lo, double *hi) {
  lth_source_domain(((const affine *)state)->S, lo, hi);
}

static lth_status affine_fill(const void *state, double t, int order, lth_jet *out, double *work,
                              lth_error *err) {
  const affine *af = state;
  double *y = work, *w = work + order + 1;
  lth_jet J = lth_jet_wrap(y, 1, 1, 1, 1, order);
  lth_status st = lth_source_fill(af->S, t, order, &J, w, err);
  for (int k = 0; st == LTH_OK && k <= order; k++) {
    LTH_JET_AT(out, k, 0, 0) = af->a * y[k] + (k == 0 ? af->c0 : 0.0);
  }
  if (st == LTH_OK && af->e) {
    st = lth_expr_taylor(af->e, t, order, y, w, err);
    for (int k = 0; st == LTH_OK && k <= order; k++) {
      LTH_JET_AT(out, k, 0, 0) += y[k];
    }
  }
  return st;
}

static const lth_source_type AFFINE[2] = {
    {.name = "sampled coefficient",
     .fill = affine_fill,
     .work_size = affine_work,
     .domain = affine_domain,
     .destroy = affine_destroy,
     .exact = 0},
    {.name = "sampled coefficient",
     .fill = affine_fill,
     .work_size = affine_work,
     .domain = affine_domain,
     .destroy = affine_destroy,
     .exact = 1},
};

static lth_status affine_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                lth_error *err);

/* The source over af (owned, destroyed on failure). */
static lth_source *affine_new(affine *af, lth_error *err) {
  lth_source *src = lth_source_new(&AFFINE[lth_source_is_exact(af->S)], af, 1, 1, err);
  lth_source_set_rebind(src, affine_rebind);
  return src;
}

static lth_status affine_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                lth_error *err) {
  const affine *af = state;
  const lth_source *S;
  lth_source *S_own;
  lth_status st = lth_source_rebind(af->S, map, ctx, &S, &S_own, err);
  if (st != LTH_OK || S == af->S) {
    return st;
  }
  affine *cp = malloc(sizeof *cp);
  if (!cp) {
    lth_source_free(S_own);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  *cp = (affine){.e = af->e, .c0 = af->c0, .a = af->a, .S = S, .shared_e = 1, .S_own = S_own};
  *out = affine_new(cp, err);
  return *out ? LTH_OK : LTH_ENOMEM;
}

lth_source *lth_source_affine(lth_expr *e, double c0, double a, const lth_source *S,
                              lth_error *err) {
  affine *af = malloc(sizeof *af);
  if (!af) {
    lth_expr_free(e);
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  *af = (affine){.e = e, .c0 = c0, .a = a, .S = S, .shared_e = 0};
  return affine_new(af, err);
}
