/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The data of the singular LQR's optimality DAE (lib/lqr/plqr_sing.h) as
 * exact Taylor jets: the realization's jets (lth_ss_jets), the cost's
 * sources, and the elimination of u1 by jet products and R1's jet inverse.
 * The nine blocks are computed together at each t and served to the
 * system's sources from that cache (the sources may be called from several
 * threads: a mutex keeps the realization's basis and the cache whole). */
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "plqr_sing.h"

enum { B11, B12, B13, B21, B22, B32, F1, F2, F3, NBLK };
enum {
  JW,
  JL,
  JC,
  JM,
  JN,
  JMV,
  JWM,
  JWN,
  JWMV,
  JQ,
  JS,
  JR,
  JQV,
  JRV,
  JC0,
  JU,
  JBU,
  JSU,
  JRU0,
  JRU,
  JRUV,
  JX,
  JT1,
  JT2,
  JT3,
  JAT,
  JQT,
  JGT,
  JQTV,
  JCT,
  NJET
};

typedef struct slot {
  plqr_sing *S;
  int blk;
} slot;

struct plqr_sing {
  plqr *L;
  int p, nu, nu1, nu2, n, s, ny, K;
  double *U;
  lth_ss_jets *J;
  lth_jet j[NJET], blk[NBLK];
  double *work;
  size_t nwork;
  double t;
  int have;
  slot slots[NBLK];
  pthread_mutex_t mu;
  lth_error err;
  int failed;
};

void plqr_sing_free(plqr_sing *S) {
  if (!S) {
    return;
  }
  for (int k = 0; k < NJET; k++) {
    lth_jet_release(&S->j[k]);
  }
  for (int k = 0; k < NBLK; k++) {
    lth_jet_release(&S->blk[k]);
  }
  lth_ss_jets_free(S->J);
  free(S->work);
  free(S->U);
  pthread_mutex_destroy(&S->mu);
  free(S);
}

static size_t cost_work(const lth_plqr_cost *c, int K) {
  const lth_source *src[3] = {c->W, c->l, c->c};
  size_t w = 1;
  for (int k = 0; k < 3; k++) {
    size_t need = src[k] ? lth_source_work_size(src[k], K) : 0;
    w = need > w ? need : w;
  }
  return w;
}

/* (Re)allocate every jet for order K. */
static lth_status alloc_order(plqr_sing *S, int K, lth_error *err) {
  int p = S->p, nu = S->nu, n = S->n, a = S->nu1, b = S->nu2;
  int dims[NJET][2] = {
      [JW] = {n, n},    [JL] = {n, 1},   [JC] = {1, 1},   [JM] = {n, p},     [JN] = {n, nu},
      [JMV] = {n, 1},   [JWM] = {n, p},  [JWN] = {n, nu}, [JWMV] = {n, 1},   [JQ] = {p, p},
      [JS] = {p, nu},   [JR] = {nu, nu}, [JQV] = {p, 1},  [JRV] = {nu, 1},   [JC0] = {1, 1},
      [JU] = {nu, nu},  [JBU] = {p, nu}, [JSU] = {p, nu}, [JRU0] = {nu, nu}, [JRU] = {nu, nu},
      [JRUV] = {nu, 1}, [JX] = {a, a},   [JT1] = {a, p},  [JT2] = {a, p},    [JT3] = {a, 1},
      [JAT] = {p, p},   [JQT] = {p, p},  [JGT] = {p, 1},  [JQTV] = {p, 1},   [JCT] = {1, 1}};
  int bd[NBLK][2] = {[B11] = {p + 1, p + 1}, [B12] = {p + 1, p}, [B13] = {p + 1, b},
                     [B21] = {p, p + 1},     [B22] = {p, p},     [B32] = {b, p},
                     [F1] = {p + 1, 1},      [F2] = {p, 1},      [F3] = {b, 1}};
  for (int k = 0; k < NJET; k++) {
    lth_jet_release(&S->j[k]);
    lth_status st = lth_jet_init(&S->j[k], dims[k][0], dims[k][1], K, err);
    if (st != LTH_OK) {
      return st;
    }
  }
  for (int k = 0; k < NBLK; k++) {
    lth_jet_release(&S->blk[k]);
    lth_status st = lth_jet_init(&S->blk[k], bd[k][0], bd[k][1], K, err);
    if (st != LTH_OK) {
      return st;
    }
  }
  lth_jet *U = &S->j[JU];
  lth_jet_set_zero(U, K);
  memcpy(LTH_JET_COEF(U, 0), S->U, (size_t)nu * nu * sizeof(double));
  U->order = K;
  lth_ss_jets_free(S->J);
  S->J = lth_ss_jets_alloc(S->L->ss, K, err);
  free(S->work);
  size_t pp = (size_t)S->p * (size_t)(S->p + 1);
  S->nwork = cost_work(S->L->cost, K);
  S->nwork = S->nwork > pp ? S->nwork : pp;
  S->work = calloc(S->nwork, sizeof(double));
  if (!S->J || !S->work) {
    return S->J ? lth_error_set(err, LTH_ENOMEM, "out of memory") : lth_error_status(err);
  }
  S->K = K;
  S->have = 0;
  return LTH_OK;
}

/* W, l, c at t to order K (zero where not given). */
static lth_status cost_jets(plqr_sing *S, double t, lth_error *err) {
  const lth_plqr_cost *c = S->L->cost;
  const lth_source *src[3] = {c->W, c->l, c->c};
  lth_jet *dst[3] = {&S->j[JW], &S->j[JL], &S->j[JC]};
  const char *name[3] = {"the cost's weight W", "the cost's linear term l",
                         "the cost's constant c"};
  for (int k = 0; k < 3; k++) {
    lth_jet_set_zero(dst[k], S->K);
    lth_status st = src[k] ? lth_source_fill(src[k], t, S->K, dst[k], S->work, err) : LTH_OK;
    if (st != LTH_OK) {
      lth_error_prefix(err, "%s: ", name[k]);
      return st;
    }
    dst[k]->order = S->K;
  }
  return LTH_OK;
}

/* M = [Z; 0; C], N = [Dz; I; D], m = [z_f; 0; y_f], coefficient by coefficient. */
static void stack_maps(plqr_sing *S) {
  const lth_ss_jets *J = S->J;
  int s = S->s, nu = S->nu, ny = S->ny, p = S->p;
  lth_jet *M = &S->j[JM], *N = &S->j[JN], *mv = &S->j[JMV];
  lth_jet_set_zero(M, S->K);
  lth_jet_set_zero(N, S->K);
  lth_jet_set_zero(mv, S->K);
  for (int c = 0; c <= S->K; c++) {
    for (int j = 0; j < p; j++) {
      for (int i = 0; i < s; i++) {
        LTH_JET_AT(M, c, i, j) = LTH_JET_AT(&J->Z, c, i, j);
      }
      for (int i = 0; i < ny; i++) {
        LTH_JET_AT(M, c, s + nu + i, j) = LTH_JET_AT(&J->C, c, i, j);
      }
    }
    for (int k = 0; k < nu; k++) {
      for (int i = 0; i < s; i++) {
        LTH_JET_AT(N, c, i, k) = LTH_JET_AT(&J->Dz, c, i, k);
      }
      LTH_JET_AT(N, c, s + k, k) = c == 0 ? 1.0 : 0.0;
      for (int i = 0; i < ny; i++) {
        LTH_JET_AT(N, c, s + nu + i, k) = LTH_JET_AT(&J->D, c, i, k);
      }
    }
    for (int i = 0; i < s; i++) {
      LTH_JET_AT(mv, c, i, 0) = LTH_JET_AT(&J->zf, c, i, 0);
    }
    for (int i = 0; i < ny; i++) {
      LTH_JET_AT(mv, c, s + nu + i, 0) = LTH_JET_AT(&J->yf, c, i, 0);
    }
  }
  M->order = N->order = mv->order = S->K;
}

#define GEMM(ta, tb, al, A, B, be, C)                                                              \
  do {                                                                                             \
    if (st == LTH_OK) st = lth_jet_gemm(ta, tb, al, A, B, be, C, err);                             \
  } while (0)

/* The weights Q, S, R, q, r, c0 (plqr_impl.h) as jets, then rotated by U. */
static lth_status weights(plqr_sing *S, lth_error *err) {
  lth_jet *j = S->j;
  lth_status st = LTH_OK;
  GEMM(LTH_NOTRANS, LTH_NOTRANS, 1.0, &j[JW], &j[JM], 0.0, &j[JWM]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, 1.0, &j[JW], &j[JN], 0.0, &j[JWN]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, 1.0, &j[JW], &j[JMV], 0.0, &j[JWMV]);
  if (st == LTH_OK) {
    st = lth_jet_axpy(1.0, &j[JL], &j[JWMV], err); /* W m + l */
  }
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JM], &j[JWM], 0.0, &j[JQ]);
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JM], &j[JWN], 0.0, &j[JS]);
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JN], &j[JWN], 0.0, &j[JR]);
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JM], &j[JWMV], 0.0, &j[JQV]);
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JN], &j[JWMV], 0.0, &j[JRV]);
  /* c0 = m'(W m + l) + l'm + c */
  if (st == LTH_OK) {
    st = lth_jet_copy(&j[JC0], &j[JC], err);
  }
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JMV], &j[JWMV], 1.0, &j[JC0]);
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JL], &j[JMV], 1.0, &j[JC0]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, 1.0, &j[JS], &j[JU], 0.0, &j[JSU]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, 1.0, &S->J->B, &j[JU], 0.0, &j[JBU]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, 1.0, &j[JR], &j[JU], 0.0, &j[JRU0]);
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JU], &j[JRU0], 0.0, &j[JRU]);
  GEMM(LTH_TRANS, LTH_NOTRANS, 1.0, &j[JU], &j[JRV], 0.0, &j[JRUV]);
  return st;
}

/* The split must hold at t: U2'R U2, U1'R U2 and S U2 zero against the
 * scale of R and S (else the rank of R or its kernel changed). */
static lth_status check_split(plqr_sing *S, double t, lth_error *err) {
  int p = S->p, nu = S->nu, a = S->nu1;
  const lth_jet *RU = &S->j[JRU], *SU = &S->j[JSU];
  double wmax = lth_jet_maxabs(&S->j[JW], 0), nmax = lth_jet_maxabs(&S->j[JN], 0);
  double mmax = lth_jet_maxabs(&S->j[JM], 0);
  double scale = fmax(wmax * fmax(1.0, nmax * nmax), 1e-300);
  double sscale = fmax(wmax * fmax(1.0, nmax) * fmax(1.0, mmax), 1e-300);
  double r2 = 0.0, s2 = 0.0;
  for (int k = a; k < nu; k++) {
    for (int i = 0; i < nu; i++) {
      r2 = fmax(r2, fabs(LTH_JET_AT(RU, 0, i, k)));
    }
    for (int i = 0; i < p; i++) {
      s2 = fmax(s2, fabs(LTH_JET_AT(SU, 0, i, k)));
    }
  }
  if (r2 > LTH_PLQR_RANK_TOL * scale) {
    return lth_error_set_t(err, LTH_EDATA, t,
                           "the weight of the inputs R(t) changes rank or kernel at t = %.10g "
                           "(|R U2| = %.3e against %.3e at the start): a singular LQR problem "
                           "needs R of constant rank with a constant kernel",
                           t, r2, scale);
  }
  if (s2 > LTH_PLQR_RANK_TOL * sscale) {
    return lth_error_set_t(err, LTH_EDATA, t,
                           "the cost couples the state with inputs it does not weigh (S U2 = "
                           "%.3e at t = %.10g): the integrand must be a positive semidefinite "
                           "form in (z, u, y)",
                           s2, t);
  }
  return LTH_OK;
}

/* u1's elimination: X = R1^-1, T1 = X S1', T2 = X B1', t3 = X r1, and the
 * tilde data of plqr_sing.h. */
static lth_status eliminate(plqr_sing *S, double t, lth_error *err) {
  lth_jet *j = S->j;
  int p = S->p, a = S->nu1;
  lth_status st = lth_jet_copy(&j[JAT], &S->J->A, err);
  if (st == LTH_OK) st = lth_jet_copy(&j[JQT], &j[JQ], err);
  if (st == LTH_OK) st = lth_jet_copy(&j[JGT], &S->J->g, err);
  if (st == LTH_OK) st = lth_jet_copy(&j[JQTV], &j[JQV], err);
  if (st == LTH_OK) st = lth_jet_copy(&j[JCT], &j[JC0], err);
  if (st != LTH_OK || a == 0) {
    return st;
  }
  lth_jet R1 = lth_jet_view(&j[JRU], 0, 0, a, a);
  lth_jet B1 = lth_jet_view(&j[JBU], 0, 0, p, a), S1 = lth_jet_view(&j[JSU], 0, 0, p, a);
  lth_jet r1 = lth_jet_view(&j[JRUV], 0, 0, a, 1);
  double cond = 0.0;
  st = lth_jet_inverse(&R1, &j[JX], 1e-13, &cond, err);
  if (st != LTH_OK) {
    lth_error_prefix(err, "the weight of the weighted inputs U1'R U1 at t = %.10g: ", t);
    if (!err->has_t) {
      err->has_t = 1;
      err->t = t;
    }
    return st;
  }
  GEMM(LTH_NOTRANS, LTH_TRANS, 1.0, &j[JX], &S1, 0.0, &j[JT1]);
  GEMM(LTH_NOTRANS, LTH_TRANS, 1.0, &j[JX], &B1, 0.0, &j[JT2]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, 1.0, &j[JX], &r1, 0.0, &j[JT3]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, -1.0, &B1, &j[JT1], 1.0, &j[JAT]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, -1.0, &S1, &j[JT1], 1.0, &j[JQT]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, -1.0, &B1, &j[JT3], 1.0, &j[JGT]);
  GEMM(LTH_NOTRANS, LTH_NOTRANS, -1.0, &S1, &j[JT3], 1.0, &j[JQTV]);
  GEMM(LTH_TRANS, LTH_NOTRANS, -1.0, &r1, &j[JT3], 1.0, &j[JCT]);
  return st;
}

/* dst(r0 + i, c0 + k) = alpha src(i, k) (or src(k, i) transposed), orders 0..K. */
static void put(lth_jet *dst, int r0, int c0, const lth_jet *src, int trans, double alpha, int K) {
  int rows = trans ? src->cols : src->rows, cols = trans ? src->rows : src->cols;
  for (int c = 0; c <= K; c++) {
    for (int k = 0; k < cols; k++) {
      for (int i = 0; i < rows; i++) {
        double v = trans ? LTH_JET_AT(src, c, k, i) : LTH_JET_AT(src, c, i, k);
        LTH_JET_AT(dst, c, r0 + i, c0 + k) = alpha * v;
      }
    }
  }
}

/* The integrand convex in (x, u): Qt = Q - S1 R1^-1 S1' positive
 * semidefinite at t (with R1 > 0 and S2 = 0 the Schur complement of
 * [Q S; S' R]).  An indefinite one makes the optimality DAE's solution a
 * stationary point only, which may be no minimum (docs/theory.md section 6:
 * the Aly-Chan example). */
static lth_status check_convex(plqr_sing *S, double t, lth_error *err) {
  int p = S->p;
  double *a = S->work, *w = a + (size_t)p * p;
  const lth_jet *Qt = &S->j[JQT];
  double qmax = 0.0;
  for (int j = 0; j < p; j++) {
    for (int i = 0; i < p; i++) {
      double v = 0.5 * (LTH_JET_AT(Qt, 0, i, j) + LTH_JET_AT(Qt, 0, j, i));
      a[i + (size_t)j * p] = v;
      qmax = fmax(qmax, fabs(v));
    }
  }
  if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', p, a, p, w) != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, t, "the eigenvalues of the state's weight failed");
  }
  double scale =
      fmax(qmax, lth_jet_maxabs(&S->j[JW], 0) *
                     fmax(1.0, lth_jet_maxabs(&S->j[JM], 0) * lth_jet_maxabs(&S->j[JM], 0)));
  if (w[0] < -1e-12 * fmax(scale, 1e-300)) {
    return lth_error_set_t(err, LTH_EDATA, t,
                           "the cost is indefinite in the state at t = %.10g (Q - S R1^-1 S' has "
                           "the eigenvalue %.3e): a singular problem's stationary point need not "
                           "be a minimum",
                           t, w[0]);
  }
  return LTH_OK;
}

/* The blocks of plqr_sing.h from the tilde data. */
static lth_status blocks(plqr_sing *S, lth_error *err) {
  lth_jet *j = S->j, *b = S->blk;
  int p = S->p, a = S->nu1, nu2 = S->nu2, K = S->K;
  for (int k = 0; k < NBLK; k++) {
    lth_jet_set_zero(&b[k], K);
    b[k].order = K;
  }
  lth_jet B2 = lth_jet_view(&j[JBU], 0, a, p, nu2), r2 = lth_jet_view(&j[JRUV], a, 0, nu2, 1);
  lth_status st = LTH_OK;
  put(&b[B11], 0, 0, &j[JAT], 0, 1.0, K);
  put(&b[B11], p, 0, &j[JQTV], 1, 1.0, K);
  if (a > 0) { /* -B1 R1^-1 B1' */
    lth_jet B1 = lth_jet_view(&j[JBU], 0, 0, p, a), top = lth_jet_view(&b[B12], 0, 0, p, p);
    GEMM(LTH_NOTRANS, LTH_NOTRANS, -1.0, &B1, &j[JT2], 0.0, &top);
  }
  put(&b[B12], p, 0, &j[JGT], 1, 1.0, K);
  put(&b[B13], 0, 0, &B2, 0, 1.0, K);
  put(&b[B13], p, 0, &r2, 1, 1.0, K);
  put(&b[B21], 0, 0, &j[JQT], 0, -1.0, K);
  put(&b[B22], 0, 0, &j[JAT], 1, -1.0, K);
  put(&b[B32], 0, 0, &B2, 1, 1.0, K);
  put(&b[F1], 0, 0, &j[JGT], 0, 1.0, K);
  put(&b[F1], p, 0, &j[JCT], 0, 1.0, K);
  put(&b[F2], 0, 0, &j[JQTV], 0, -1.0, K);
  put(&b[F3], 0, 0, &r2, 0, 1.0, K);
  for (int k = 0; k < NBLK; k++) {
    b[k].order = K;
  }
  return st;
}

/* Everything at t (S->mu held). */
static lth_status compute(plqr_sing *S, double t, lth_error *err) {
  if (S->have && S->t == t) {
    return LTH_OK;
  }
  S->have = 0;
  lth_status st = lth_ss_jets_at(S->J, t, err);
  if (st == LTH_OK) {
    st = cost_jets(S, t, err);
  }
  if (st == LTH_OK) {
    stack_maps(S);
    st = weights(S, err);
  }
  if (st == LTH_OK) {
    st = check_split(S, t, err);
  }
  if (st == LTH_OK) {
    st = eliminate(S, t, err);
  }
  if (st == LTH_OK) {
    st = check_convex(S, t, err);
  }
  if (st == LTH_OK) {
    st = blocks(S, err);
  }
  if (st == LTH_OK) {
    S->t = t;
    S->have = 1;
  }
  return st;
}

static int serve(void *ctx, double t, int order, double *coef, int ld, size_t stride) {
  slot *sl = ctx;
  plqr_sing *S = sl->S;
  pthread_mutex_lock(&S->mu);
  lth_error e;
  lth_error_clear(&e);
  lth_status st = order > S->K ? alloc_order(S, order, &e) : LTH_OK;
  if (st == LTH_OK) {
    st = compute(S, t, &e);
  }
  if (st == LTH_OK) {
    const lth_jet *b = &S->blk[sl->blk];
    for (int c = 0; c <= order; c++) {
      for (int k = 0; k < b->cols; k++) {
        for (int i = 0; i < b->rows; i++) {
          coef[(size_t)c * stride + i + (size_t)k * ld] = LTH_JET_AT(b, c, i, k);
        }
      }
    }
  } else if (!S->failed) {
    S->failed = 1;
    S->err = e;
  }
  pthread_mutex_unlock(&S->mu);
  return st == LTH_OK ? 0 : 1;
}

plqr_sing *plqr_sing_alloc(plqr *L, int nu2, const double *U, lth_error *err) {
  plqr_sing *S = calloc(1, sizeof *S);
  if (!S) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  pthread_mutex_init(&S->mu, NULL);
  S->L = L;
  S->p = L->p;
  S->nu = L->nu;
  S->nu2 = nu2;
  S->nu1 = L->nu - nu2;
  S->n = L->n;
  S->s = L->s;
  S->ny = L->ny;
  S->U = malloc((size_t)L->nu * L->nu * sizeof(double));
  if (!S->U) {
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    plqr_sing_free(S);
    return NULL;
  }
  memcpy(S->U, U, (size_t)L->nu * L->nu * sizeof(double));
  for (int k = 0; k < NBLK; k++) {
    S->slots[k].S = S;
    S->slots[k].blk = k;
  }
  if (alloc_order(S, 2, err) != LTH_OK) {
    plqr_sing_free(S);
    return NULL;
  }
  return S;
}

lth_status plqr_sing_system(plqr_sing *S, lth_system **out, lth_error *err) {
  int n[3] = {S->p + 1, S->p, S->nu2};
  lth_system *sys = lth_system_alloc(3, n, err);
  if (!sys) {
    return lth_error_status(err);
  }
  static const int at[NBLK][2] = {{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2},
                                  {3, 2}, {1, 0}, {2, 0}, {3, 0}};
  lth_status st = LTH_OK;
  for (int k = 0; k < NBLK && st == LTH_OK; k++) {
    lth_source *src = lth_source_callback(S->blk[k].rows, S->blk[k].cols, serve, &S->slots[k], err);
    if (!src) {
      st = lth_error_status(err);
    } else if (at[k][1] > 0) {
      st = lth_system_set_A(sys, at[k][0], at[k][1], src, err);
    } else {
      st = lth_system_set_f(sys, at[k][0], src, err);
    }
  }
  if (st == LTH_OK) {
    st = lth_system_set_interval(sys, S->L->t0, S->L->t1, err);
  }
  if (st != LTH_OK) {
    lth_system_free(sys);
    return st;
  }
  *out = sys;
  return LTH_OK;
}

lth_status plqr_sing_values_at(plqr_sing *S, double t, plqr_sing_values *v, lth_error *err) {
  pthread_mutex_lock(&S->mu);
  lth_status st = compute(S, t, err);
  pthread_mutex_unlock(&S->mu);
  if (st != LTH_OK) {
    return st;
  }
  const lth_jet *j = S->j;
  v->M = LTH_JET_COEF(&j[JM], 0);
  v->N = LTH_JET_COEF(&j[JN], 0);
  v->mv = LTH_JET_COEF(&j[JMV], 0);
  v->W = LTH_JET_COEF(&j[JW], 0);
  v->l = LTH_JET_COEF(&j[JL], 0);
  v->c = LTH_JET_AT(&j[JC], 0, 0, 0);
  v->T1 = LTH_JET_COEF(&j[JT1], 0);
  v->T2 = LTH_JET_COEF(&j[JT2], 0);
  v->t3 = LTH_JET_COEF(&j[JT3], 0);
  v->ldT = S->j[JT1].ld;
  return LTH_OK;
}

const lth_error *plqr_sing_error(const plqr_sing *S) { return S->failed ? &S->err : NULL; }
