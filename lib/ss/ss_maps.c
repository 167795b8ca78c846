/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The realization's maps at a point: the change of state that removes input
 * derivatives from the state equation, and the projection on the basis
 * (include/lth/ss.h, docs/theory.md section 8). */
#include <math.h>
#include <string.h>

#include "core/errors.h"
#include "core/small_blas.h"
#include "lth/source.h"
#include "ss_impl.h"

/* Coefficient c of the jet of the state equation's map j (m x nu), in ss->jets. */
static double *bjet(lth_ss *ss, int j, int c) {
  return ss->jets + (size_t)ss->m * ss->nu * ((size_t)c + (size_t)(ss->order + 1) * j);
}

/* ss->jets = the jets of Bv_0..Bv_jmax (lth_input_maps.Bv_jet). */
static void copy_jets(lth_ss *ss) {
  const lth_input_maps *mp = ss->maps;
  size_t mn = (size_t)ss->m * ss->nu;
  for (int j = 0; j <= ss->jmax; j++) {
    for (int c = 0; c <= ss->order; c++) {
      const double *src = mp->Bv_jet + mn * ((size_t)j + (size_t)mp->nj * c);
      memcpy(bjet(ss, j, c), src, mn * sizeof(double));
    }
  }
}

/* The change of state, for k = J..1: K_k = Bv_k,
 * Bv_{k-1} <- Bv_{k-1} + Ahat K_k - K_k' (v = v~ + K_k u^(k-1) turns
 * K_k u^(k) into (Ahat K_k - K_k') u^(k-1)), on Taylor coefficients: the
 * product is a Cauchy sum and (K')_c = (c + 1) K_{c+1}.  Map k - 1 loses one
 * valid coefficient per step, and needs only coefficients up to k - 1. */
static void shift_out(lth_ss *ss, lth_ss_point *pt) {
  int m = ss->m, nu = ss->nu;
  const lth_jet *Ah = &ss->pt->Ahat;
  size_t mn = (size_t)m * nu;
  for (int k = ss->jmax; k >= 1; k--) {
    memcpy(pt->K + mn * (size_t)(k - 1), bjet(ss, k, 0), mn * sizeof(double));
    for (int c = 0; c <= k - 1; c++) {
      double *dst = bjet(ss, k - 1, c);
      const double *next = bjet(ss, k, c + 1);
      for (size_t i = 0; i < mn; i++) {
        dst[i] -= (c + 1) * next[i];
      }
      for (int a = 0; a <= c; a++) {
        const double *Aa = Ah->c + (size_t)a * Ah->stride;
        lth_small_gemm(CblasNoTrans, CblasNoTrans, m, nu, m, 1.0, Aa, Ah->ld, bjet(ss, k, c - a),
                       m, 1.0, dst, m);
      }
    }
  }
}

/* The values of C, D and y0 at t into ss->cdy (zero where not given). */
static lth_status output_values(lth_ss *ss, double t, lth_error *err) {
  const lth_system *sys = ss->sys;
  const lth_source *src[] = {lth_system_C(sys), lth_system_D(sys), lth_system_output_offset(sys)};
  int cols[] = {ss->s, ss->nu, 1};
  const char *name[] = {"C", "D", "y0"};
  double *v = ss->cdy;
  int ny = ss->ny;
  for (int k = 0; k < 3; k++) {
    lth_jet J = lth_jet_wrap(v, ny, cols[k], ny, (size_t)ny * (size_t)cols[k], 0);
    lth_jet_set_zero(&J, 0);
    lth_status st = src[k] ? lth_source_fill(src[k], t, 0, &J, ss->src_work, err) : LTH_OK;
    if (st != LTH_OK) {
      lth_error_prefix(err, "%s: ", name[k]);
      return st;
    }
    v += (size_t)ny * (size_t)cols[k];
  }
  return LTH_OK;
}

/* The state equation: A = Q^T Ahat Q, B_j = Q^T (map j), g = Q^T g_f. */
static void state_equation(lth_ss *ss, lth_ss_point *pt) {
  int m = ss->m, p = ss->p, nu = ss->nu;
  const lth_point *dp = ss->pt;
  if (p == 0) {
    return;
  }
  double *W = ss->w1;
  lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, m, 1.0, dp->Ahat.c, dp->Ahat.ld, pt->Q, m, 0.0,
                 W, m);
  lth_small_gemm(CblasTrans, CblasNoTrans, p, p, m, 1.0, pt->Q, m, W, m, 0.0, pt->A, p);
  for (int j = 0; j < pt->nb; j++) {
    lth_small_gemm(CblasTrans, CblasNoTrans, p, nu, m, 1.0, pt->Q, m, bjet(ss, j, 0), m, 0.0,
                   pt->B + (size_t)p * nu * j, p);
  }
  lth_small_gemm(CblasTrans, CblasNoTrans, p, 1, m, 1.0, pt->Q, m, dp->g.c, m, 0.0, pt->g, p);
}

/* z = Z x + sum_j Dz_j u^(j) + z_f with v = Q x + sum_k K_k u^(k-1) and
 * z = G v + sum_j Dz_j u^(j) + q_f (Corollary 3): Z = G Q,
 * Dz_j <- Dz_j + G K_{j+1}. */
static void unknowns(lth_ss *ss, lth_ss_point *pt) {
  int m = ss->m, s = ss->s, p = ss->p, nu = ss->nu;
  const lth_point *dp = ss->pt;
  const lth_jet *G = &dp->G;
  if (p > 0) {
    lth_small_gemm(CblasNoTrans, CblasNoTrans, s, p, m, 1.0, G->c, G->ld, pt->Q, m, 0.0, pt->Z, s);
  }
  size_t sn = (size_t)s * nu;
  for (int j = 0; j < pt->nd; j++) {
    memcpy(pt->Dz + sn * j, ss->maps->Dz + sn * j, sn * sizeof(double));
    if (j + 1 <= pt->nk) {
      lth_small_gemm(CblasNoTrans, CblasNoTrans, s, nu, m, 1.0, G->c, G->ld,
                     pt->K + (size_t)m * nu * j, m, 1.0, pt->Dz + sn * j, s);
    }
  }
  for (int i = 0; i < s; i++) {
    pt->zf[i] = LTH_JET_AT(&dp->q, 0, i, 0);
  }
}

/* y = C z + D u + y0: C_r = C Z, D_j = C Dz_j (+ D for j = 0), y_f = C z_f + y0. */
static void outputs(lth_ss *ss, lth_ss_point *pt) {
  int ny = ss->ny, s = ss->s, p = ss->p, nu = ss->nu;
  const double *C = ss->cdy, *D = C + (size_t)ny * s, *y0 = D + (size_t)ny * nu;
  if (p > 0) {
    lth_small_gemm(CblasNoTrans, CblasNoTrans, ny, p, s, 1.0, C, ny, pt->Z, s, 0.0, pt->C, ny);
  }
  for (int j = 0; j < pt->nd; j++) {
    double *Dj = pt->D + (size_t)ny * nu * j;
    if (j == 0) {
      memcpy(Dj, D, (size_t)ny * nu * sizeof(double));
    }
    lth_small_gemm(CblasNoTrans, CblasNoTrans, ny, nu, s, 1.0, C, ny, pt->Dz + (size_t)s * nu * j,
                   s, j == 0 ? 1.0 : 0.0, Dj, ny);
  }
  memcpy(pt->yf, y0, (size_t)ny * sizeof(double));
  lth_small_gemm(CblasNoTrans, CblasNoTrans, ny, 1, s, 1.0, C, ny, pt->zf, s, 1.0, pt->yf, ny);
}

static int all_finite(const double *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (!isfinite(a[i])) {
      return 0;
    }
  }
  return 1;
}

lth_status lth_ss_maps(lth_ss *ss, lth_ss_point *pt, lth_error *err) {
  double t = ss->pt->t;
  copy_jets(ss);
  if (pt->nk > 0) {
    shift_out(ss, pt);
  }
  state_equation(ss, pt);
  unknowns(ss, pt);
  if (ss->ny > 0) {
    lth_status st = output_values(ss, t, err);
    if (st != LTH_OK) {
      return st;
    }
    outputs(ss, pt);
  }
  size_t p = (size_t)ss->p, nu = (size_t)ss->nu, s = (size_t)ss->s, ny = (size_t)ss->ny;
  size_t m = (size_t)ss->m;
  if (!all_finite(pt->A, p * p) || !all_finite(pt->B, p * nu * pt->nb) ||
      !all_finite(pt->g, p) || !all_finite(pt->Z, s * p) || !all_finite(pt->zf, s) ||
      !all_finite(pt->Dz, s * nu * pt->nd) || !all_finite(pt->K, m * nu * pt->nk) ||
      (ny > 0 && (!all_finite(pt->C, ny * p) || !all_finite(pt->yf, ny) ||
                  !all_finite(pt->D, ny * nu * pt->nd)))) {
    return lth_error_set_t(err, LTH_ENOTFINITE, t, "the realization is not finite");
  }
  return LTH_OK;
}
