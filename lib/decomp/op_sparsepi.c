/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator form of index 2 with a sparse LU of Pi (op_sparsepi.h).
 *
 * Index 2: z = (x, u), x' = A11 x + A12 u + f1, 0 = A21 x + f2, with
 * L = A12 (m x n_r), R = A21 (n_r x m), Pi = R L, P = L Pi^{-1} R
 * (Clark (2.3)).  Algorithm 1 has one step (docs/theory.md section 2; Clark
 * (3.4), (3.6), (3.7)):
 *   w    = -L Pi^{-1} f2                           (the start (3.4), q_x)
 *   Ahat = (I - P) A11 - P P'      on the state space
 *   u    = Pi^{-1} R [-P' v - A11 v + w' - A11 w - f1]
 * (P v' = -P P' v, Clark's Corollary 1, turns Q_1 v' into -Pi^{-1} R P' v).
 * Neither P' nor Pi^{-1}' is formed.  For any x, with S = Pi^{-1} R and
 * S L = I,
 *   P P' (I - P) x = L Pi^{-1} R' (I - P) x,    R P' v = R' v  (P v = 0),
 * since P' = L' S + L S', S (I - P) = 0 and S' = Pi^{-1} (R' - Pi' S)
 * (the derivative of Pi^{-1} is -Pi^{-1} Pi' Pi^{-1}).  So, applied to x,
 *   b(x)   = Pi^{-1} [R A11 x + R' (I - P) x]
 *   Ahat x = A11 x - L b(x)            (= A11 x + L (D_1 x) of op_impl.h)
 *   Bhat x = (0; -b(x)),   G x = ((I - P) x; -b((I - P) x))   (Corollary 3)
 * and with c = -Pi^{-1} f2 (n_r), h = A11 L c - L' c + f1 (= f1 + F_11 c):
 *   g = (I - P) h,   q = (L c; c' - Pi^{-1} R h).
 * These are the thin-factor formulas of op_impl.h with C_1 = [0 | c],
 * T_1 x = S P' x = Pi^{-1} R' (I - P) x and D_1 = C_0 - E_1, so both paths
 * give the same Ahat, Bhat, g, q on every x (not only on the state space).
 *
 * Jets: every product is a truncated Cauchy product of value jets; L' and R'
 * are the shifted jets (M')_k = (k + 1) M_{k+1} of A12 and A21, and
 * Pi = A21 A12 is a jet on the sparse pattern of the product.  A solve with
 * the jet of Pi is one LU of Pi(t) and the recurrence
 *   y_c = Pi_0^{-1} (b_c - sum_{a=1..c} Pi_a y_{c-a}),
 * which is Pi^{-1}' = -Pi^{-1} Pi' Pi^{-1} and its higher derivatives
 * applied to a vector.  Orders: inputs to K = order + 1; c to K, L', R' and
 * h to K - 1 = order, so every output has the point's order.
 *
 * The LU: KLU (SuiteSparse).  Pi = A21 A12 is in general unsymmetric (A21 is
 * not -A12^T once a weighting or a time-varying constraint enters), so a
 * Cholesky factorization (CHOLMOD) would serve only the symmetric special
 * case; KLU analyses the fixed pattern once (AMD ordering, block triangular
 * form) and factors each t with partial pivoting, gives the 1-norm condition
 * estimate (klu_condest, Hager/Higham) the refusals need, and is the solver
 * of the peer the benchmark compares with (IDA + KLU).  UMFPACK would gain
 * on Pi with much larger fronts (3-D meshes); at these sizes it costs more
 * per factorization.
 *
 * Memory: the value jets of the blocks and of L', R' (O(nnz(A) K)), Pi's
 * (O(nnz(Pi) K)), KLU's factors of Pi(t), vectors of s rows. */
#include "op_sparsepi.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lth/conditioning.h"
#include "lth/defaults.h"
#include "refusal.h"
#include "system/pi_text.h"

#ifdef LTH_HAVE_KLU
#include <klu.h>
#endif

static inline int imin(int a, int b) { return a < b ? a : b; }

/* ---- selection (lth_opsys_set_pi_factor) ---- */

#ifdef LTH_HAVE_KLU
#define HAVE_KLU 1
#else
#define HAVE_KLU 0
#endif

int lth_op_sparse_pi_available(void) { return HAVE_KLU; }

int op_sparsepi_on(const lth_opsys *sys) {
  switch (sys->pi_factor) {
  case LTH_OP_PI_SPARSE:
    return 1;
  case LTH_OP_PI_DENSE:
    return 0;
  default:
    return HAVE_KLU && sys->r == 2 && sys->nr >= LTH_DEFAULT_OP_SPARSE_PI_NR && !sys->nmass;
  }
}

lth_status lth_opsys_set_pi_factor(lth_opsys *sys, lth_op_pi_factor how, lth_error *err) {
  if (how != LTH_OP_PI_AUTO && how != LTH_OP_PI_DENSE && how != LTH_OP_PI_SPARSE) {
    return lth_error_set(err, LTH_EINVAL, "unknown factorization of Pi %d", (int)how);
  }
  if (how == LTH_OP_PI_SPARSE && !HAVE_KLU) {
    return lth_error_set(err, LTH_EINVAL,
                         "a sparse factorization of Pi needs SuiteSparse KLU, and this library "
                         "was built without it (CMake option LTH_SUITESPARSE, libsuitesparse-dev)");
  }
  if (how == LTH_OP_PI_SPARSE && sys->r != 2) {
    return lth_error_set(err, LTH_EINVAL,
                         "index %d: the sparse factorization of Pi is implemented for index 2 "
                         "only; index %d keeps the dense one (n_r = %d)",
                         sys->r, sys->r, sys->nr);
  }
  for (int i = 1; how == LTH_OP_PI_SPARSE && i < sys->r; i++) {
    if (sys->mass[i - 1]) {
      return lth_error_set(err, LTH_EINVAL,
                           "the sparse factorization of Pi takes the blocks as sparse matrices, "
                           "and block row %d is the mass matrix %s's solve M^-1 A(%d,j) (not "
                           "diagonal): Pi keeps the dense factorization",
                           i, sys->mlabel[i - 1], i);
    }
  }
  sys->pi_factor = how;
  return LTH_OK;
}

#ifndef LTH_HAVE_KLU

/* Without KLU op_sparsepi_on is 0 unless forced, and forcing refuses. */
op_sparsepi *op_sparsepi_alloc(const lth_oppoint *pt, lth_error *err) {
  (void)pt;
  lth_error_set(err, LTH_EINVAL, "a sparse factorization of Pi needs SuiteSparse KLU");
  return NULL;
}
void op_sparsepi_free(op_sparsepi *sp) { (void)sp; }
size_t op_sparsepi_bytes(const op_sparsepi *sp) {
  (void)sp;
  return 0;
}
lth_status op_sparsepi_at(lth_oppoint *pt, double t, lth_status st, double cond_max, double scale,
                          lth_error *err) {
  (void)pt, (void)st, (void)cond_max, (void)scale;
  return lth_error_set_t(err, LTH_EINVAL, t, "a sparse factorization of Pi needs SuiteSparse KLU");
}
#define NO_KLU_CHUNK(name)                                                                         \
  lth_status name(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {           \
    (void)pt, (void)x, (void)y;                                                                    \
    return lth_error_set(err, LTH_EINVAL, "a sparse factorization of Pi needs SuiteSparse KLU");   \
  }
NO_KLU_CHUNK(op_sparsepi_P)
NO_KLU_CHUNK(op_sparsepi_IP)
NO_KLU_CHUNK(op_sparsepi_Ahat)
NO_KLU_CHUNK(op_sparsepi_Bhat)
NO_KLU_CHUNK(op_sparsepi_G)

#else

struct op_sparsepi {
  int m, nr, K;
  op_csc Pi;        /* the value jets of Pi = A21 A12 on the product's pattern */
  op_csc dL, dR;    /* the jets of L' = A12' and R' = A21' */
  int *mark;        /* n_r: position of a row in the column being multiplied */
  klu_common kc;    /* settings and status (klu_solve writes it: one thread) */
  klu_symbolic *ks; /* the pattern's analysis, once */
  klu_numeric *kn;  /* the LU of Pi(t), per decomposition */
  lth_jet vr[2];    /* n_r x max_cols scratch, orders 0..K */
  lth_jet vm[2];    /* m x max_cols scratch */
  lth_jet c, h;     /* n_r x 1 and m x 1: the start and f1 + F_11 c */
  size_t bytes;     /* what op_sparsepi_alloc allocated */
  size_t base;      /* the point's bytes without KLU's factors */
};

static const op_csc *blk(const lth_oppoint *pt, int i, int j) { return op_A(pt, i, j); }

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The pattern of A21 A12 (structural: every product of stored entries). */
static int pi_pattern(op_sparsepi *sp, const op_csc *R, const op_csc *L) {
  int nr = sp->nr;
  int *cp = calloc((size_t)nr + 1, sizeof(int));
  if (!cp) return 0;
  for (int i = 0; i < nr; i++) sp->mark[i] = -1;
  size_t nz = 0;
  for (int pass = 0; pass < 2; pass++) {
    nz = 0;
    for (int j = 0; j < nr; j++) {
      size_t c0 = nz;
      for (int p = L->colptr[j]; L->val && p < L->colptr[j + 1]; p++) {
        int l = L->rowind[p];
        for (int q = R->colptr[l]; R->val && q < R->colptr[l + 1]; q++) {
          int i = R->rowind[q];
          if (sp->mark[i] != j) {
            sp->mark[i] = j;
            if (pass == 1) ((int *)sp->Pi.rowind)[nz] = i;
            nz++;
          }
        }
      }
      if (pass == 1) qsort((int *)sp->Pi.rowind + c0, nz - c0, sizeof(int), cmp_int);
      cp[j + 1] = (int)nz;
    }
    if (pass == 0) {
      if (nz > (size_t)INT_MAX) {
        free(cp);
        return 0;
      }
      sp->Pi.rowind = malloc((nz ? nz : 1) * sizeof(int));
      if (!sp->Pi.rowind) {
        free(cp);
        return 0;
      }
      for (int i = 0; i < nr; i++) sp->mark[i] = -1;
    }
  }
  sp->Pi.colptr = cp;
  sp->Pi.nnz = (int)nz;
  sp->Pi.rows = sp->Pi.cols = nr;
  sp->Pi.stride = nz ? nz : 1;
  return 1;
}

/* An op_csc with A's pattern and its own value jets of orders 0..order. */
static int csc_like(op_csc *D, const op_csc *A, int order) {
  *D = *A;
  D->order = -1;
  D->val = A->val ? calloc(A->stride * (size_t)(order + 1), sizeof(double)) : NULL;
  return !A->val || D->val;
}

static void free_sp(op_sparsepi *sp) {
  if (!sp) return;
  if (sp->kn) klu_free_numeric(&sp->kn, &sp->kc);
  if (sp->ks) klu_free_symbolic(&sp->ks, &sp->kc);
  free((int *)sp->Pi.colptr);
  free((int *)sp->Pi.rowind);
  free(sp->Pi.val);
  free(sp->dL.val);
  free(sp->dR.val);
  free(sp->mark);
  for (int k = 0; k < 2; k++) {
    lth_jet_release(&sp->vr[k]);
    lth_jet_release(&sp->vm[k]);
  }
  lth_jet_release(&sp->c);
  lth_jet_release(&sp->h);
  free(sp);
}

void op_sparsepi_free(op_sparsepi *sp) { free_sp(sp); }

size_t op_sparsepi_bytes(const op_sparsepi *sp) { return sp ? sp->bytes : 0; }

op_sparsepi *op_sparsepi_alloc(const lth_oppoint *pt, lth_error *err) {
  const lth_opsys *sys = pt->sys;
  if (sys->r != 2) {
    lth_error_set(err, LTH_EINVAL, "index %d: the sparse factorization of Pi is for index 2 only",
                  sys->r);
    return NULL;
  }
  op_sparsepi *sp = calloc(1, sizeof *sp);
  int ok = sp != NULL;
  if (ok) {
    sp->m = sys->m;
    sp->nr = sys->nr;
    sp->K = pt->K;
    sp->mark = malloc((size_t)sys->nr * sizeof(int));
    ok = sp->mark && pi_pattern(sp, blk(pt, 2, 1), blk(pt, 1, 2));
  }
  if (ok) {
    sp->Pi.val = calloc(sp->Pi.stride * (size_t)(pt->K + 1), sizeof(double));
    ok = sp->Pi.val && csc_like(&sp->dL, blk(pt, 1, 2), pt->K - 1) &&
         csc_like(&sp->dR, blk(pt, 2, 1), pt->K - 1);
  }
  lth_status st = ok ? LTH_OK : LTH_ENOMEM;
  for (int k = 0; k < 2 && st == LTH_OK; k++) {
    st = lth_jet_init(&sp->vr[k], sys->nr, pt->max_cols, pt->K, err);
    if (st == LTH_OK) st = lth_jet_init(&sp->vm[k], sys->m, pt->max_cols, pt->K, err);
  }
  if (st == LTH_OK) st = lth_jet_init(&sp->c, sys->nr, 1, pt->K, err);
  if (st == LTH_OK) st = lth_jet_init(&sp->h, sys->m, 1, pt->K, err);
  if (st == LTH_OK) {
    klu_defaults(&sp->kc);
    sp->ks = klu_analyze(sys->nr, (int *)sp->Pi.colptr, (int *)sp->Pi.rowind, &sp->kc);
    st = sp->ks ? LTH_OK : LTH_ENOMEM;
  }
  if (st != LTH_OK) {
    free_sp(sp);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating the sparse factorization of Pi");
    return NULL;
  }
  size_t K1 = (size_t)pt->K + 1, nz = (size_t)sp->Pi.nnz;
  sp->bytes = nz * (sizeof(int) + K1 * sizeof(double)) + (size_t)(sys->nr + 1) * sizeof(int) +
              (sp->dL.stride + sp->dR.stride) * (K1 - 1) * sizeof(double) +
              K1 * sizeof(double) * (2 * (size_t)pt->max_cols * (size_t)sys->s + (size_t)sys->s);
  return sp;
}

/* ---- jets of the point ---- */

/* D's value jets: (A')_k = (k + 1) A_{k+1}, k = 0..A's order - 1. */
static void shift_deriv(op_csc *D, const op_csc *A) {
  if (!A->val) return;
  D->order = A->order - 1;
  for (int k = 0; k <= D->order; k++) {
    const double *a = A->val + (size_t)(k + 1) * A->stride;
    double *d = D->val + (size_t)k * D->stride;
    for (int p = 0; p < A->nnz; p++) d[p] = (double)(k + 1) * a[p];
  }
}

/* Pi_k = sum_{a+b=k} A21_a A12_b on Pi's pattern (Gustavson, column by
 * column: column j of Pi is A21 times column j of A12). */
static void pi_values(op_sparsepi *sp, const op_csc *R, const op_csc *L) {
  op_csc *Pi = &sp->Pi;
  Pi->order = imin(R->order, L->order);
  memset(Pi->val, 0, Pi->stride * (size_t)(Pi->order + 1) * sizeof(double));
  for (int j = 0; j < sp->nr; j++) {
    for (int p = Pi->colptr[j]; p < Pi->colptr[j + 1]; p++) sp->mark[Pi->rowind[p]] = p;
    for (int k = 0; k <= Pi->order; k++) {
      double *pk = Pi->val + (size_t)k * Pi->stride;
      for (int b = 0; b <= k; b++) {
        const double *lv = L->val + (size_t)b * L->stride;
        const double *rv = R->val + (size_t)(k - b) * R->stride;
        for (int p = L->colptr[j]; p < L->colptr[j + 1]; p++) {
          int l = L->rowind[p];
          for (int q = R->colptr[l]; q < R->colptr[l + 1]; q++) {
            pk[sp->mark[R->rowind[q]]] += rv[q] * lv[p];
          }
        }
      }
    }
  }
}

/* B <- Pi^{-1} B as jets, in place, orders 0..min(B's, Pi's):
 * y_c = Pi_0^{-1} (b_c - sum_{a=1..c} Pi_a y_{c-a}). */
static lth_status pi_solve(op_sparsepi *sp, lth_jet *B, lth_error *err) {
  const op_csc *Pi = &sp->Pi;
  B->order = imin(B->order, Pi->order);
  for (int c = 0; c <= B->order; c++) {
    double *bc = LTH_JET_COEF(B, c);
    for (int a = 1; a <= c; a++) {
      const double *pa = Pi->val + (size_t)a * Pi->stride;
      const double *y = LTH_JET_COEF(B, c - a);
      for (int col = 0; col < B->cols; col++) {
        const double *yk = y + (size_t)col * B->ld;
        double *bk = bc + (size_t)col * B->ld;
        for (int jj = 0; jj < sp->nr; jj++) {
          double yj = yk[jj];
          for (int p = Pi->colptr[jj]; yj != 0.0 && p < Pi->colptr[jj + 1]; p++) {
            bk[Pi->rowind[p]] -= pa[p] * yj;
          }
        }
      }
    }
    if (!klu_solve(sp->ks, sp->kn, B->ld, B->cols, bc, &sp->kc)) {
      return lth_error_set(err, LTH_ENOMEM, "the sparse solve with Pi failed (KLU status %d)",
                           sp->kc.status);
    }
  }
  return LTH_OK;
}

/* The sign of det Pi(t) from KLU's factors: (Rs^{-1} Pi)(Pnum, Q) is block
 * upper triangular with unit lower triangular L per block, Rs > 0. */
static int perm_sign(const int *p, int n, int *seen) {
  int sign = 1;
  for (int i = 0; i < n; i++) seen[i] = 0;
  for (int i = 0; i < n; i++) {
    int len = 0;
    for (int j = i; !seen[j]; j = p[j]) {
      seen[j] = 1;
      len++;
    }
    if (len > 0 && len % 2 == 0) sign = -sign;
  }
  return sign;
}

static int det_sign(op_sparsepi *sp) {
  const double *ud = sp->kn->Udiag;
  int sign = perm_sign(sp->kn->Pnum, sp->nr, sp->mark) * perm_sign(sp->ks->Q, sp->nr, sp->mark);
  for (int i = 0; i < sp->nr; i++) sign = ud[i] < 0 ? -sign : sign;
  return sign;
}

/* ---- the decomposition at t ---- */

/* The thresholds and messages of op_decomp.c's judge() (those of
 * lth_decomp_at): cond_chain, cond_interval, the a priori amplification. */
static lth_status judge(const lth_oppoint *pt, lth_opinfo *in, double t, double cond_max,
                        double scale, lth_error *err) {
  op_sparsepi *sp = pt->sp;
  double npi = op_csc_norm1(&sp->Pi), nl = op_csc_norm1(blk(pt, 1, 2));
  double nrr = op_csc_norm1(blk(pt, 2, 1));
  in->pi_inv_norm = npi > 0 ? in->cond_pi / npi : INFINITY;
  in->cond_chain = fmax(nl * nrr * in->pi_inv_norm, in->cond_pi);
  if (!(in->cond_chain <= cond_max)) {
    return lth_decomp_chain_error(err, t, 2, in->cond_pi, in->cond_chain, cond_max);
  }
  in->chain_norm = nl * nrr;
  in->cond_interval = fmax(in->pi_inv_norm * fmax(in->chain_norm, scale), in->cond_pi);
  in->amplification = lth_cond_amplification(in->cond_interval, 2);
  if (!(in->cond_interval <= cond_max)) {
    return lth_decomp_interval_error(err, t, 2, in->pi_inv_norm, fmax(in->chain_norm, scale),
                                     cond_max);
  }
  if (in->amplification > LTH_AMPLIFICATION_MEASURE) {
    char pi[LTH_PI_TEXT_MAX];
    lth_error_set_t(err, LTH_ECOND, t,
                    "Pi = %s: the a priori error amplification cond_interval = %.3e exceeds "
                    "%.3e, above which the dense decomposition measures it; the operator form "
                    "does not, so it refuses the point",
                    lth_pi_text(2, 0, pi, sizeof pi), in->amplification, LTH_AMPLIFICATION_MEASURE);
    if (err) {
      err->has_cond = 1;
      err->cond = in->cond_interval;
    }
    return LTH_ECOND;
  }
  return LTH_OK;
}

/* KLU's LU of Pi_0, the condition estimate and the sign of det Pi. */
static lth_status factor(lth_oppoint *pt, double t, lth_error *err) {
  op_sparsepi *sp = pt->sp;
  if (sp->kn) klu_free_numeric(&sp->kn, &sp->kc);
  sp->kn = klu_factor((int *)sp->Pi.colptr, (int *)sp->Pi.rowind, sp->Pi.val, sp->ks, &sp->kc);
  if (sp->kc.status == KLU_OUT_OF_MEMORY) {
    return lth_error_set_t(err, LTH_ENOMEM, t, "out of memory factoring Pi (KLU)");
  }
  if (!sp->kn || sp->kc.status == KLU_SINGULAR) {
    return lth_decomp_singular_error(err, t, 2);
  }
  if (!klu_condest((int *)sp->Pi.colptr, sp->Pi.val, sp->ks, sp->kn, &sp->kc)) {
    return lth_error_set_t(err, LTH_ENOMEM, t, "the condition estimate of Pi failed (KLU)");
  }
  pt->info.cond_pi = sp->kc.condest;
  pt->info.pi_sign = det_sign(sp);
  pt->info.pi_factor_nnz = (size_t)sp->kn->lnz + (size_t)sp->kn->unz + (size_t)sp->kn->nzoff;
  if (!sp->base) sp->base = pt->info.bytes;
  pt->info.bytes = sp->base + pt->info.pi_factor_nnz * (sizeof(double) + sizeof(int));
  return LTH_OK;
}

static lth_jet rows(const lth_jet *J, int r0, int n) { return lth_jet_view(J, r0, 0, n, J->cols); }

/* c = -Pi^{-1} f2 (Clark (3.4)), h = A11 L c - L' c + f1; q = (L c;
 * c' - Pi^{-1} R h), g = h - L Pi^{-1} R h = (I - P) h. */
static lth_status affine(lth_oppoint *pt, lth_error *err) {
  op_sparsepi *sp = pt->sp;
  int m = sp->m, nr = sp->nr, K = pt->K;
  lth_jet f1 = rows(&pt->f, 0, m), f2 = rows(&pt->f, m, nr);
  lth_jet qx = rows(&pt->q, 0, m), qu = rows(&pt->q, m, nr);
  lth_jet *c = &sp->c, *h = &sp->h;
  lth_jet sh = lth_jet_view(&sp->vr[0], 0, 0, nr, 1);
  lth_status st = lth_jet_copy(c, &f2, err);
  lth_jet_scale(c, -1.0);
  if (st == LTH_OK) st = pi_solve(sp, c, err);
  lth_jet_set_zero(&qx, K);
  op_csc_left(1.0, blk(pt, 1, 2), c, &qx); /* q_x = L c, order K */
  if (st == LTH_OK) st = lth_jet_copy(h, &f1, err);
  op_csc_left(1.0, blk(pt, 1, 1), &qx, h);
  op_csc_left(-1.0, &sp->dL, c, h);
  lth_jet_set_zero(&sh, h->order);
  op_csc_left(1.0, blk(pt, 2, 1), h, &sh);
  if (st == LTH_OK) st = pi_solve(sp, &sh, err);
  if (st == LTH_OK) st = lth_jet_deriv(&qu, c, err); /* c' */
  if (st == LTH_OK) st = lth_jet_axpy(-1.0, &sh, &qu, err);
  pt->q.order = imin(qx.order, qu.order);
  lth_jet g = pt->g;
  if (st == LTH_OK) st = lth_jet_copy(&g, h, err);
  op_csc_left(-1.0, blk(pt, 1, 2), &sh, &g);
  pt->g.order = g.order;
  return st;
}

/* 1 if every coefficient of J is finite (x * 0 is NaN for x not finite). */
static int finite_jet(const lth_jet *J) {
  double acc = 0.0;
  for (int k = 0; k <= J->order; k++)
    for (int j = 0; j < J->cols; j++)
      for (int i = 0; i < J->rows; i++) acc += LTH_JET_AT(J, k, i, j) * 0.0;
  return acc == 0.0;
}

static lth_status decompose(lth_oppoint *pt, double t, double cond_max, double scale,
                            lth_error *err) {
  op_sparsepi *sp = pt->sp;
  shift_deriv(&sp->dL, blk(pt, 1, 2));
  shift_deriv(&sp->dR, blk(pt, 2, 1));
  pi_values(sp, blk(pt, 2, 1), blk(pt, 1, 2));
  lth_status st = factor(pt, t, err);
  if (st == LTH_OK) st = judge(pt, &pt->info, t, cond_max, scale, err);
  if (st == LTH_OK) st = affine(pt, err);
  if (st == LTH_OK && !(finite_jet(&pt->g) && finite_jet(&pt->q))) {
    return lth_error_set_t(err, LTH_ENOTFINITE, t,
                           "g or q is not finite (overflow in the sparse solves with Pi)");
  }
  int o = pt->info.order;
  if (st == LTH_OK && (pt->g.order < o || pt->q.order < o)) {
    return lth_error_set_t(err, LTH_EORDER, t, "operator form: outputs below order %d", o);
  }
  return st;
}

lth_status op_sparsepi_at(lth_oppoint *pt, double t, lth_status st, double cond_max, double scale,
                          lth_error *err) {
  if (st == LTH_OK) st = decompose(pt, t, cond_max, scale, err);
  if (st == LTH_OK) {
    pt->info.t = t;
  } else if (err && !err->has_t) {
    err->has_t = 1;
    err->t = t;
  }
  return st;
}

/* ---- the applies ---- */

static lth_jet scr(const lth_jet *J, int k, int order) {
  lth_jet V = lth_jet_view(J, 0, 0, J->rows, k);
  lth_jet_set_zero(&V, order);
  return V;
}

/* y -= L Pi^{-1} R x or y += ... (sign), with y holding x or 0 on entry. */
static lth_status add_LSx(const lth_oppoint *pt, double sign, const lth_jet *x, lth_jet *y,
                          lth_error *err) {
  lth_jet c = scr(&pt->sp->vr[0], x->cols, x->order);
  op_csc_left(1.0, blk(pt, 2, 1), x, &c);
  lth_status st = pi_solve(pt->sp, &c, err);
  op_csc_left(sign, blk(pt, 1, 2), &c, y);
  if (c.order < y->order) y->order = c.order;
  return st;
}

lth_status op_sparsepi_P(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  return add_LSx(pt, 1.0, x, y, err);
}

lth_status op_sparsepi_IP(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  lth_status st = lth_jet_copy(y, x, err);
  if (st == LTH_OK) st = add_LSx(pt, -1.0, x, y, err);
  return st;
}

/* b = Pi^{-1} [R A11 x + R' (I - P) x] into vr[1] (the given (I - P) x when
 * ipx is not NULL), and A11 x into a (m rows, zeroed, x's order). */
static lth_status bvec(const lth_oppoint *pt, const lth_jet *x, const lth_jet *ipx, lth_jet *a,
                       lth_jet *b, lth_error *err) {
  op_sparsepi *sp = pt->sp;
  int k = x->cols, o = x->order;
  lth_status st = LTH_OK;
  op_csc_left(1.0, blk(pt, 1, 1), x, a);
  lth_jet w = scr(&sp->vm[1], k, o);
  if (!ipx) {
    st = op_sparsepi_IP(pt, x, &w, err);
    ipx = &w;
  }
  *b = scr(&sp->vr[1], k, o);
  op_csc_left(1.0, blk(pt, 2, 1), a, b);
  op_csc_left(1.0, &sp->dR, ipx, b);
  if (st == LTH_OK) st = pi_solve(sp, b, err);
  return st;
}

/* Ahat x = A11 x - L b(x). */
lth_status op_sparsepi_Ahat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  lth_jet b;
  lth_status st = bvec(pt, x, NULL, y, &b, err);
  op_csc_left(-1.0, blk(pt, 1, 2), &b, y);
  if (b.order < y->order) y->order = b.order;
  return st;
}

/* u rows of y = -b(x) (ipx: (I - P) x if known); the x rows stay. */
static lth_status u_rows(const lth_oppoint *pt, const lth_jet *x, const lth_jet *ipx, lth_jet *y,
                         lth_error *err) {
  op_sparsepi *sp = pt->sp;
  lth_jet a = scr(&sp->vm[0], x->cols, x->order), b;
  lth_status st = bvec(pt, x, ipx, &a, &b, err);
  lth_jet yu = rows(y, sp->m, sp->nr);
  if (st == LTH_OK) st = lth_jet_copy(&yu, &b, err);
  lth_jet_scale(&yu, -1.0);
  if (yu.order < y->order) y->order = yu.order;
  return st;
}

/* Bhat x = (0; -b(x)): the x rows of the algebraic part are L (C_1 x) = 0. */
lth_status op_sparsepi_Bhat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  return u_rows(pt, x, NULL, y, err);
}

/* G x = ((I - P) x; -b((I - P) x)), with (I - P)^2 = I - P. */
lth_status op_sparsepi_G(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err) {
  lth_jet v = rows(y, 0, pt->sp->m);
  lth_status st = op_sparsepi_IP(pt, x, &v, err);
  if (v.order < y->order) y->order = v.order;
  v.order = y->order;
  if (st == LTH_OK) st = u_rows(pt, &v, &v, y, err);
  return st;
}

#endif
