/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Multiple shooting for DAE BVPs (include/lth/bvp.h).
 *
 * Nodes t0 = tau_0 < ... < tau_M = t1.  On [tau_k, tau_{k+1}] the state is
 * v = Y_k(t) c_k + y_k(t) with Y_k(tau_k) = Q_k, an orthonormal basis of the
 * state space range(I - P(tau_k)), and y_k(tau_k) = 0 (Clark (3.18) locally).
 * Continuity of the state part at tau_{k+1}, where both sides lie in
 * range(I - P(tau_{k+1})) = range(Q_{k+1}):
 *     c_{k+1} - Q_{k+1}' Y_k(tau_{k+1}) c_k = Q_{k+1}' y_k(tau_{k+1}),
 * and the boundary conditions on z = (Nhat + Bhat) v + q at t0 and t1 give a
 * two-point block system solved banded (lib/bvp/twopoint.c).  Short subintervals
 * keep every Y_k well conditioned where single shooting's Psi(t1, t0) is not.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvp_impl.h"
#include "lth/defaults.h"
#include "twopoint.h"
#include "core/errors.h"

/* The probe integrates a cheap homogeneous problem through PROBE_POINTS
 * checkpoints, and a segment whose growth exceeds growth^2 again through
 * PROBE_REFINE sub-checkpoints.  (256 plain checkpoints cost ~3000
 * decompositions even where one interval suffices: 18x single shooting.) */
#define PROBE_POINTS  64
#define PROBE_REFINE  8
#define MAX_NODES     (PROBE_POINTS * PROBE_REFINE)
#define MAX_INTERVALS 100000

/* Spread of the columns of V (m x p): max column norm, and the ratio of the
 * largest to the smallest |R_ii| of a QR factorization (loss of independence). */
static double spread(const double *V, int m, int p, double *scratch) {
  double mx = 0.0;
  for (int j = 0; j < p; j++) mx = fmax(mx, cblas_dnrm2(m, V + (size_t)j * m, 1));
  memcpy(scratch, V, (size_t)m * p * sizeof(double));
  double *tau = scratch + (size_t)m * p;
  if (LAPACKE_dgeqrf(LAPACK_COL_MAJOR, m, p, scratch, m, tau) != 0) return INFINITY;
  double rmax = 0.0, rmin = INFINITY;
  for (int j = 0; j < p && j < m; j++) {
    double r = fabs(scratch[j + (size_t)j * m]);
    rmax = fmax(rmax, r);
    rmin = fmin(rmin, r);
  }
  return fmax(mx, rmin > 0 ? rmax / rmin : INFINITY);
}

/* Restart the probe at t from the state-space basis there. */
static lth_status restart(lth_ivp *iv, double t, double *V, lth_error *err) {
  const lth_point *pt;
  lth_status st = lth_ivp_point(iv, t, &pt, err);
  if (st == LTH_OK) st = lth_state_basis(pt, V, err);
  if (st == LTH_OK) st = lth_ivp_start(iv, t, V, err);
  return st;
}

/* Advance the probe to t; place a node there (and restart from the state-space
 * basis) when the columns have spread by more than G since the last node. */
static lth_status probe_step(lth_ivp *iv, double t, double *V, int m, int p, double G, double *tau,
                             int *k, double *spread_out, lth_error *err) {
  lth_status st = lth_ivp_advance(iv, t, V, err);
  double sp = st == LTH_OK ? spread(V, m, p, V + (size_t)m * p) : 0.0;
  if (spread_out) *spread_out = sp;
  if (st == LTH_OK && sp > G) {
    tau[(*k)++] = t;
    st = restart(iv, t, V, err);
  }
  return st;
}

/* Nodes where the fundamental solution grows by more than `growth` since the
 * last node, found by a cheap homogeneous probe integration. */
static lth_status place_nodes(const lth_bvp_problem *bp, const lth_bvp_opts *o, double *tau, int *M,
                              lth_error *err) {
  LTH_ERROR_RECORD(err);
  int m = lth_system_state_dim(bp->sys), p = bp->p;
  size_t mp = (size_t)m * p;
  double G = o->multiple.growth > 0 ? o->multiple.growth : LTH_DEFAULT_MULTIPLE_GROWTH,
         h = (bp->t1 - bp->t0) / PROBE_POINTS;
  lth_ivp_opts io = o->ivp;
  io.rtol = fmax(io.rtol, 1e-6);
  io.atol = fmax(io.atol, 1e-9);
  lth_ivp *iv = lth_ivp_alloc(bp->sys, p, 0, &io, bp->t0, bp->t1, err);
  double *V = malloc(sizeof(double) * (3 * mp + (size_t)p + 2)), *saved = V + 2 * mp + p + 1;
  lth_status st =
      (iv && V) ? restart(iv, bp->t0, V, err)
                : (iv ? lth_error_set(err, LTH_ENOMEM, "out of memory") : (lth_error_status(err)));
  int k = 0;
  tau[k++] = bp->t0;
  for (int i = 1; i < PROBE_POINTS && st == LTH_OK; i++) {
    double t_prev = bp->t0 + h * (i - 1), t = bp->t0 + h * i, sp = 0.0;
    memcpy(saved, V, mp * sizeof(double));
    int k_prev = k;
    st = probe_step(iv, t, V, m, p, G, tau, &k, &sp, err);
    if (st == LTH_OK && sp > G * G) {
      /* too much growth in one segment: redo it more finely from its start */
      k = k_prev;
      memcpy(V, saved, mp * sizeof(double));
      st = lth_ivp_start(iv, t_prev, V, err);
      for (int j = 1; j <= PROBE_REFINE && st == LTH_OK; j++) {
        st = probe_step(iv, t_prev + h * j / PROBE_REFINE, V, m, p, G, tau, &k, NULL, err);
      }
    }
  }
  if (k > 1 && bp->t1 - tau[k - 1] < 1e-3 * h) {
    k--; /* a node right at t1 would make an empty last interval */
  }
  tau[k++] = bp->t1;
  *M = k - 1;
  lth_ivp_free(iv);
  free(V);
  return st;
}

typedef struct {
  int s, m, p, M;
  double *tau;              /* M + 1 nodes */
  double *Q;                /* M blocks m x p */
  double *Y, *y;            /* M blocks: Y_k(tau_{k+1}) m x p, y_k(tau_{k+1}) m */
  double *Vout;             /* per output time: m x (p+1) */
  int *sub;                 /* per output time: its subinterval */
  const lth_pieces *pieces; /* the data's non-smooth points (bp->pieces) */
} ms_data;

/* Segment k is the piece around a non-smooth point of the data? */
static int at_point(const ms_data *d, int k) {
  const lth_pieces *pc = d->pieces;
  if (!pc || pc->npoint == 0) return 0;
  size_t lo = 0, hi = pc->n; /* the piece holding tau_k: pc->t[lo] <= tau_k < pc->t[lo + 1] */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (pc->t[mid] <= d->tau[k]) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return pc->kind[lo] == LTH_PIECE_POINT && d->tau[k + 1] <= pc->t[lo + 1];
}

/* Integrate every subinterval, recording the end values and the outputs. */
static lth_status sweep(lth_ivp *iv, ms_data *d, const double *all, size_t nall, lth_error *err) {
  int m = d->m, p = d->p;
  size_t w = (size_t)m * (p + 1), j = 0;
  double *V = calloc(w + 1, sizeof(double));
  lth_status st = V ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (int k = 0; k < d->M && st == LTH_OK; k++) {
    const lth_point *pt;
    st = lth_ivp_point(iv, d->tau[k], &pt, err);
    if (st == LTH_OK) st = lth_state_basis(pt, d->Q + (size_t)k * m * p, err);
    if (st != LTH_OK) break;
    memcpy(V, d->Q + (size_t)k * m * p, (size_t)m * p * sizeof(double));
    memset(V + (size_t)m * p, 0, (size_t)m * sizeof(double));
    /* a segment a few ulps wide around a kink or jump is not integrated (its
     * stages could land on the point, where the data have no derivatives):
     * the state crosses it unchanged, up to its width times v' */
    int across = at_point(d, k);
    if (!across) st = lth_ivp_start(iv, d->tau[k], V, err);
    int last = k == d->M - 1;
    while (st == LTH_OK && j < nall &&
           (all[j] < d->tau[k + 1] || (last && all[j] <= d->tau[k + 1]))) {
      if (!across) st = lth_ivp_advance(iv, all[j], V, err);
      memcpy(d->Vout + j * w, V, w * sizeof(double));
      d->sub[j++] = k;
    }
    if (st == LTH_OK && !across) st = lth_ivp_advance(iv, d->tau[k + 1], V, err);
    if (st == LTH_OK) {
      memcpy(d->Y + (size_t)k * m * p, V, (size_t)m * p * sizeof(double));
      memcpy(d->y + (size_t)k * m, V + (size_t)m * p, (size_t)m * sizeof(double));
    }
  }
  free(V);
  return st;
}

/* out = (Nhat + Bhat(t)) V (V m x cols) at a decomposed point. */
static void lift(const lth_point *pt, const double *V, int cols, double *out) {
  int s = pt->s, m = pt->m;
  for (int j = 0; j < cols; j++) {
    memset(out + (size_t)j * s, 0, (size_t)s * sizeof(double));
    memcpy(out + (size_t)j * s, V + (size_t)j * m, (size_t)m * sizeof(double));
  }
  if (cols > 0) {
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, s, cols, m, 1.0, pt->Bhat.c, pt->Bhat.ld,
                V, m, 1.0, out, s);
  }
}

/* The two-point system in the unknowns c_0 .. c_{M-1}. */
static lth_status assemble_solve(lth_ivp *iv, const lth_bvp_problem *bp, ms_data *d, double *c,
                                 double *green, double *cond, lth_error *err) {
  int s = d->s, m = d->m, p = d->p, M = d->M;
  size_t pp = (size_t)p * p;
  double *buf = calloc(3 * pp + 2 * (size_t)s * p + 2 * (size_t)s + 2 * (size_t)p +
                           ((size_t)M) * (2 * pp + p) + 1,
                       sizeof(double));
  if (!buf) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *D0 = buf, *DN = D0 + pp, *Phi = DN + pp, *zq = Phi + (size_t)s * p, *dvec = zq + s;
  double *C = dvec + p + 1, *E = C + (size_t)M * pp, *e = E + (size_t)M * pp;
  const lth_point *pt;
  /* D0 = B0 (Nhat + Bhat(t0)) Q_0;  d = beta - B0 q(t0) - ... */
  lth_status st = lth_ivp_point(iv, bp->t0, &pt, err);
  if (st == LTH_OK) {
    lift(pt, d->Q, p, Phi);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, p, s, 1.0, bp->B0, p, Phi, s, 0.0, D0,
                p);
    memcpy(dvec, bp->beta, (size_t)p * sizeof(double));
    cblas_dgemv(CblasColMajor, CblasNoTrans, p, s, -1.0, bp->B0, p, pt->q.c, 1, 1.0, dvec, 1);
    st = lth_ivp_point(iv, bp->t1, &pt, err);
  }
  if (st == LTH_OK) {
    /* DN = B1 (Nhat + Bhat(t1)) Y_{M-1};  d -= B1 [(Nhat + Bhat(t1)) y_{M-1} + q(t1)] */
    lift(pt, d->Y + (size_t)(M - 1) * m * p, p, Phi);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, p, p, s, 1.0, bp->B1, p, Phi, s, 0.0, DN,
                p);
    lift(pt, d->y + (size_t)(M - 1) * m, 1, zq);
    cblas_daxpy(s, 1.0, pt->q.c, 1, zq, 1);
    cblas_dgemv(CblasColMajor, CblasNoTrans, p, s, -1.0, bp->B1, p, zq, 1, 1.0, dvec, 1);
    /* continuity: -Q_j' Y_{j-1} c_{j-1} + c_j = Q_j' y_{j-1} */
    for (int j = 1; j < M; j++) {
      const double *Qj = d->Q + (size_t)j * m * p;
      cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p, p, m, -1.0, Qj, m,
                  d->Y + (size_t)(j - 1) * m * p, m, 0.0, C + (size_t)(j - 1) * pp, p);
      for (int i = 0; i < p; i++) E[(size_t)(j - 1) * pp + i + (size_t)i * p] = 1.0;
      cblas_dgemv(CblasColMajor, CblasTrans, m, p, 1.0, Qj, m, d->y + (size_t)(j - 1) * m, 1, 0.0,
                  e + (size_t)(j - 1) * p, 1);
    }
    lth_twopoint tp = {.n = p,
                       .nl = 0,
                       .nb = p,
                       .N = (size_t)(M - 1),
                       .D0 = D0,
                       .DN = DN,
                       .d = dvec,
                       .C = C,
                       .E = E,
                       .e = e};
    st = lth_twopoint_solve_green(&tp, c, cond, green, err);
  }
  free(buf);
  return st;
}

/* ||Phi(t) S^{-1}||_inf at an output time: the local fundamental solution
 * (Vout's first p columns) times the responses c_k of the banded system to
 * unit boundary values (green: column i holds c_0 .. c_{M-1}). */
static double green_at(const lth_point *pt, const ms_data *d, const double *V, int k,
                       const double *green, double *tmp, double *X) {
  int m = d->m, p = d->p;
  for (int i = 0; i < p; i++) {
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, p, 1.0, V, m,
                green + (size_t)i * d->M * p + (size_t)k * p, 1, 0.0, tmp + (size_t)i * m, 1);
  }
  lift(pt, tmp, p, X);
  return lth_bvp_green_norm(X, d->s, p, (size_t)d->s);
}

/* z at the output times from the local solutions, and cond_bvp. */
static lth_status outputs(lth_ivp *iv, const lth_bvp_problem *bp, const ms_data *d, const double *c,
                          const double *green, const double *all, size_t nall, const size_t *idx,
                          lth_bvp_result *res, lth_error *err) {
  int s = d->s, m = d->m, p = d->p;
  size_t w = (size_t)m * (p + 1);
  double *zall =
      malloc(sizeof(double) * ((size_t)s * nall + (size_t)m + 1 + (size_t)(m + s) * p + 1));
  if (!zall) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  double *v = zall + (size_t)s * nall, *tmp = v + m + 1, *X = tmp + (size_t)m * p;
  double gmax = 0.0;
  lth_status st = LTH_OK;
  for (size_t j = 0; j < nall && st == LTH_OK; j++) {
    const double *V = d->Vout + j * w;
    memcpy(v, V + (size_t)m * p, (size_t)m * sizeof(double));
    cblas_dgemv(CblasColMajor, CblasNoTrans, m, p, 1.0, V, m, c + (size_t)d->sub[j] * p, 1, 1.0, v,
                1);
    const lth_point *pt;
    st = lth_ivp_point(iv, all[j], &pt, err);
    if (st != LTH_OK) break;
    if (p > 0) {
      double g = green_at(pt, d, V, d->sub[j], green, tmp, X);
      gmax = g > gmax || isnan(g) ? g : gmax;
    }
    double *z = zall + j * (size_t)s;
    lift(pt, v, 1, z);
    cblas_daxpy(s, 1.0, pt->q.c, 1, z, 1);
    double dr = 0.0;
    for (int i = 0; i < m; i++) {
      double x = cblas_ddot(m, pt->P.c + i, pt->P.ld, v, 1);
      dr += x * x;
    }
    res->drift = fmax(res->drift, sqrt(dr));
  }
  if (st == LTH_OK) {
    for (size_t k = 0; k < bp->n; k++) {
      memcpy(res->z + k * (size_t)s, zall + idx[k] * (size_t)s, (size_t)s * sizeof(double));
    }
    res->bc_residual = lth_bvp_bc_residual(bp, zall, zall + (nall - 1) * (size_t)s);
    res->cond_bvp = gmax * lth_bvp_bc_norm(bp);
  }
  free(zall);
  return st;
}

static lth_status ms_alloc(ms_data *d, size_t nall, lth_error *err) {
  size_t mp = (size_t)d->m * d->p, M = (size_t)d->M;
  d->Q = malloc((M * mp + 1) * sizeof(double));
  d->Y = malloc((M * mp + 1) * sizeof(double));
  d->y = malloc((M * (size_t)d->m + 1) * sizeof(double));
  d->Vout = malloc((nall * ((size_t)d->m * (d->p + 1)) + 1) * sizeof(double));
  d->sub = malloc((nall + 1) * sizeof(int));
  if (!d->Q || !d->Y || !d->y || !d->Vout || !d->sub) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory for %d shooting intervals", d->M);
  }
  return LTH_OK;
}

/* The ends of the data's pieces become nodes: a kink or jump of the data is
 * the end of one subinterval and the start of the next (its own POINT piece,
 * a few ulps wide, in between), never inside an integration. */
static lth_status nodes_at_pieces(const lth_bvp_problem *bp, ms_data *d, lth_error *err) {
  if (!bp->pieces || bp->pieces->n <= 1) return LTH_OK;
  size_t n = 0;
  double *tau = lth_pieces_merge(bp->pieces, d->tau, (size_t)d->M + 1, &n);
  if (!tau) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  free(d->tau);
  d->tau = tau;
  d->M = (int)n - 1;
  return LTH_OK;
}

lth_status lth_bvp_multiple(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_bvp_result *res,
                            lth_error *err) {
  LTH_ERROR_RECORD(err);
  ms_data d = {
      .s = bp->s, .m = lth_system_state_dim(bp->sys), .p = bp->p, .M = 0, .pieces = bp->pieces};
  double *all = NULL, *c = NULL, *green = NULL;
  size_t nall = 0, *idx = malloc((bp->n + 1) * sizeof(size_t));
  lth_ivp *iv = NULL;
  int M = o->multiple.intervals > 0
              ? (o->multiple.intervals < MAX_INTERVALS ? o->multiple.intervals : MAX_INTERVALS)
              : MAX_NODES;
  d.tau = malloc(((size_t)M + 2) * sizeof(double));
  lth_status st = (!idx || !d.tau) ? lth_error_set(err, LTH_ENOMEM, "out of memory")
                                   : lth_bvp_cond_times(bp, &all, &nall, idx, err);
  if (st == LTH_OK && o->multiple.intervals > 0) {
    for (int k = 0; k <= M; k++) d.tau[k] = bp->t0 + (bp->t1 - bp->t0) * k / M;
    d.tau[M] = bp->t1;
    d.M = M;
  } else if (st == LTH_OK) {
    st = place_nodes(bp, o, d.tau, &d.M, err);
  }
  if (st == LTH_OK) st = nodes_at_pieces(bp, &d, err);
  if (st == LTH_OK) st = ms_alloc(&d, nall, err);
  if (st == LTH_OK) {
    iv = lth_ivp_alloc(bp->sys, d.p + 1, 1, &o->ivp, bp->t0, bp->t1, err);
    st = iv ? sweep(iv, &d, all, nall, err) : (lth_error_status(err));
  }
  if (st == LTH_OK) {
    c = malloc(((size_t)d.M * d.p + 1) * sizeof(double));
    green = malloc(((size_t)d.M * d.p * d.p + 1) * sizeof(double));
    st = c && green ? assemble_solve(iv, bp, &d, c, green, &res->cond_shooting, err)
                    : lth_error_set(err, LTH_ENOMEM, "out of memory");
    if (st == LTH_ESING || (st == LTH_OK && !(res->cond_shooting <= lth_bvp_cond_max(o)))) {
      st = lth_bvp_not_unique(res->cond_shooting, "multiple-shooting matrix", err);
    }
  }
  if (st == LTH_OK) st = outputs(iv, bp, &d, c, green, all, nall, idx, res, err);
  if (st == LTH_OK && !(res->cond_bvp <= lth_bvp_cond_max(o))) {
    st = lth_bvp_ill_posed(res->cond_bvp, lth_bvp_cond_max(o), "multiple shooting", "", err);
  }
  res->intervals = d.M;
  lth_ivp_free(iv);
  free(all);
  free(idx);
  free(c);
  free(green);
  free(d.tau);
  free(d.Q);
  free(d.Y);
  free(d.y);
  free(d.Vout);
  free(d.sub);
  return st;
}
