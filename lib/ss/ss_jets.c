/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Taylor jets of the realization at a time (include/lth/ss.h,
 * docs/theory.md section 8), for problems posed on the realization that need
 * its derivatives: the singular LQR's optimality DAE (lib/lqr/plqr_singular.c).
 *
 * The basis solves Q' = (I - Q Q^T) Ahat Q, so with F = Ahat Q and
 * A = Q^T F (the realization's state matrix, Q^T Q' = 0) its Taylor
 * coefficients follow from Q(t) and the exact jets of Ahat:
 *   Q_{c+1} = (F_c - sum_a Q_a A_{c-a}) / (c + 1),
 * F_c = sum_a Ahat_a Q_{c-a}, A_c = sum_a Q_a^T F_{c-a}: no differences of
 * samples.  The rest are products of jets: B = Q^T Bv_0, g = Q^T g_f,
 * Z = G Q, C_r = C Z, D_r = D + C Dz_0, y_f = C z_f + y0. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/small_blas.h"
#include "lth/source.h"
#include "ss_impl.h"

struct lth_ss_jets_priv {
  lth_ss *ss;
  lth_ss_point *spt;
  lth_decomp_ws *ws;
  lth_point *dp;
  lth_input_maps *maps;
  lth_jet F, cj, dj, y0j; /* F = Ahat Q; the sources C, D, y0 */
  double *src_work;
};

/* Coefficient c of sum_a op(X_a) op(Y_{c-a}) added to out (beta = 0: set). */
static void cauchy(enum CBLAS_TRANSPOSE tx, enum CBLAS_TRANSPOSE ty, int M, int N, int Kd,
                   const lth_jet *X, const lth_jet *Y, int c, double beta, double *out, int ld) {
  if (beta == 0.0) {
    for (int j = 0; j < N; j++) {
      memset(out + (size_t)j * ld, 0, (size_t)M * sizeof(double));
    }
  }
  if (M == 0 || N == 0 || Kd == 0) {
    return;
  }
  for (int a = 0; a <= c; a++) {
    lth_small_gemm(tx, ty, M, N, Kd, 1.0, LTH_JET_COEF(X, a), X->ld, LTH_JET_COEF(Y, c - a), Y->ld,
                   1.0, out, ld);
  }
}

static size_t source_work(const lth_system *sys, int order) {
  const lth_source *src[] = {lth_system_C(sys), lth_system_D(sys), lth_system_output_offset(sys)};
  size_t w = 1;
  for (int k = 0; k < 3; k++) {
    size_t need = src[k] ? lth_source_work_size(src[k], order) : 0;
    w = need > w ? need : w;
  }
  return w;
}

void lth_ss_jets_free(lth_ss_jets *J) {
  if (!J) {
    return;
  }
  lth_jet *own[] = {&J->A, &J->B, &J->g, &J->C, &J->D, &J->yf, &J->Z, &J->Dz, &J->zf, &J->Q};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++) {
    lth_jet_release(own[k]);
  }
  struct lth_ss_jets_priv *v = J->priv;
  if (v) {
    lth_jet_release(&v->F);
    lth_jet_release(&v->cj);
    lth_jet_release(&v->dj);
    lth_jet_release(&v->y0j);
    free(v->src_work);
    lth_input_maps_free(v->maps);
    lth_point_free(v->dp);
    lth_decomp_ws_free(v->ws);
    lth_ss_point_free(v->spt);
    free(v);
  }
  free(J);
}

static lth_status alloc_jets(lth_ss_jets *J, lth_error *err) {
  int p = J->p, s = J->s, nu = J->nu, ny = J->ny, m = J->m, K = J->order;
  struct lth_ss_jets_priv *v = J->priv;
  struct {
    lth_jet *jet;
    int rows, cols;
  } list[] = {{&J->A, p, p},   {&J->B, p, nu},  {&J->g, p, 1},    {&J->C, ny, p},  {&J->D, ny, nu},
              {&J->yf, ny, 1}, {&J->Z, s, p},   {&J->Dz, s, nu},  {&J->zf, s, 1},  {&J->Q, m, p},
              {&v->F, m, p},   {&v->cj, ny, s}, {&v->dj, ny, nu}, {&v->y0j, ny, 1}};
  for (size_t k = 0; k < sizeof list / sizeof list[0]; k++) {
    lth_status st = lth_jet_init(list[k].jet, list[k].rows, list[k].cols, K, err);
    if (st != LTH_OK) {
      return st;
    }
  }
  v->src_work = calloc(source_work(v->ss->sys, K), sizeof(double));
  return v->src_work ? LTH_OK : lth_error_set(err, LTH_ENOMEM, "out of memory");
}

lth_ss_jets *lth_ss_jets_alloc(lth_ss *ss, int order, lth_error *err) {
  LTH_ERROR_RECORD(err);
  if (order < 0) {
    lth_error_set(err, LTH_EINVAL, "realization jets of negative order %d", order);
    return NULL;
  }
  lth_ss_jets *J = calloc(1, sizeof *J);
  struct lth_ss_jets_priv *v = J ? calloc(1, sizeof *v) : NULL;
  if (!v) {
    free(J);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating realization jets");
    return NULL;
  }
  J->priv = v;
  v->ss = ss;
  J->t = NAN;
  J->order = order;
  J->p = ss->p;
  J->m = ss->m;
  J->s = ss->s;
  J->nu = ss->nu;
  J->ny = ss->ny;
  v->spt = lth_ss_point_alloc(ss, err);
  v->ws =
      v->spt ? lth_decomp_ws_alloc_scaled(ss->sys, order, lth_decomp_ws_scale(ss->ws), err) : NULL;
  v->dp = v->ws ? lth_point_alloc(ss->sys, order, err) : NULL;
  v->maps = v->dp ? lth_input_maps_alloc_order(ss->sys, order, err) : NULL;
  lth_status st = v->maps ? alloc_jets(J, err) : lth_error_status(err);
  if (st != LTH_OK) {
    lth_ss_jets_free(J);
    return NULL;
  }
  lth_decomp_ws_set_cond_max(v->ws, ss->opts.cond_max);
  return J;
}

/* Refuse maps of input derivatives: the jets are those of x' = A x + B u + g. */
static lth_status underived(const lth_ss_jets *J, double t, lth_error *err) {
  const lth_input_maps *mp = J->priv->maps;
  size_t nv = (size_t)mp->m * mp->nu, nz = (size_t)mp->s * mp->nu;
  for (int j = 1; j < mp->nj; j++) {
    for (int c = 0; c <= mp->order; c++) {
      const double *bv = mp->Bv_jet + nv * ((size_t)j + (size_t)mp->nj * c);
      const double *dz = mp->Dz_jet + nz * ((size_t)j + (size_t)mp->nj * c);
      for (size_t i = 0; i < nv + nz; i++) {
        double x = i < nv ? bv[i] : dz[i - nv];
        if (x != 0.0) {
          int k = (int)((i < nv ? i / (size_t)mp->m : (i - nv) / (size_t)mp->s)) + 1;
          return lth_error_set_t(err, LTH_EDATA, t,
                                 "input %d reaches the plant through its derivative u%d^(%d): "
                                 "the realization's jets need inputs the plant does not "
                                 "differentiate",
                                 k, k, j);
        }
      }
    }
  }
  return LTH_OK;
}

/* The basis' jet (Q, and A = Q^T Ahat Q on the way). */
static void basis_jet(lth_ss_jets *J) {
  struct lth_ss_jets_priv *v = J->priv;
  int m = J->m, p = J->p, K = J->order;
  const lth_jet *Ah = &v->dp->Ahat;
  memcpy(LTH_JET_COEF(&J->Q, 0), v->spt->Q, (size_t)m * p * sizeof(double));
  for (int c = 0; c <= K; c++) {
    cauchy(CblasNoTrans, CblasNoTrans, m, p, m, Ah, &J->Q, c, 0.0, LTH_JET_COEF(&v->F, c), m);
    cauchy(CblasTrans, CblasNoTrans, p, p, m, &J->Q, &v->F, c, 0.0, LTH_JET_COEF(&J->A, c), p);
    if (c == K) {
      break;
    }
    double *next = LTH_JET_COEF(&J->Q, c + 1);
    memcpy(next, LTH_JET_COEF(&v->F, c), (size_t)m * p * sizeof(double));
    for (int a = 0; a <= c; a++) {
      lth_small_gemm(CblasNoTrans, CblasNoTrans, m, p, p, -1.0, LTH_JET_COEF(&J->Q, a), m,
                     LTH_JET_COEF(&J->A, c - a), p, 1.0, next, m);
    }
    for (size_t i = 0; i < (size_t)m * p; i++) {
      next[i] /= c + 1;
    }
  }
}

/* C, D, y0 of the plant's outputs to order K (zero where not given). */
static lth_status output_sources(lth_ss_jets *J, double t, lth_error *err) {
  struct lth_ss_jets_priv *v = J->priv;
  const lth_system *sys = v->ss->sys;
  const lth_source *src[] = {lth_system_C(sys), lth_system_D(sys), lth_system_output_offset(sys)};
  lth_jet *dst[] = {&v->cj, &v->dj, &v->y0j};
  const char *name[] = {"C", "D", "y0"};
  for (int k = 0; k < 3; k++) {
    lth_jet_set_zero(dst[k], J->order);
    lth_status st =
        src[k] ? lth_source_fill(src[k], t, J->order, dst[k], v->src_work, err) : LTH_OK;
    if (st != LTH_OK) {
      lth_error_prefix(err, "%s: ", name[k]);
      return st;
    }
    dst[k]->order = J->order;
  }
  return LTH_OK;
}

/* The input maps of order 0 as jets (views into maps). */
static lth_jet bv0(const lth_ss_jets *J) {
  const lth_input_maps *mp = J->priv->maps;
  return lth_jet_wrap(mp->Bv_jet, mp->m, mp->nu, mp->m, (size_t)mp->m * mp->nu * mp->nj, J->order);
}
static lth_jet dz0(const lth_ss_jets *J) {
  const lth_input_maps *mp = J->priv->maps;
  return lth_jet_wrap(mp->Dz_jet, mp->s, mp->nu, mp->s, (size_t)mp->s * mp->nu * mp->nj, J->order);
}

static void products(lth_ss_jets *J) {
  struct lth_ss_jets_priv *v = J->priv;
  const lth_point *dp = v->dp;
  int m = J->m, p = J->p, s = J->s, nu = J->nu, ny = J->ny;
  lth_jet Bv = bv0(J), Dz = dz0(J);
  for (int c = 0; c <= J->order; c++) {
    cauchy(CblasTrans, CblasNoTrans, p, nu, m, &J->Q, &Bv, c, 0.0, LTH_JET_COEF(&J->B, c), p);
    cauchy(CblasTrans, CblasNoTrans, p, 1, m, &J->Q, &dp->g, c, 0.0, LTH_JET_COEF(&J->g, c), p);
    cauchy(CblasNoTrans, CblasNoTrans, s, p, m, &dp->G, &J->Q, c, 0.0, LTH_JET_COEF(&J->Z, c), s);
    memcpy(LTH_JET_COEF(&J->Dz, c), LTH_JET_COEF(&Dz, c), (size_t)s * nu * sizeof(double));
    for (int i = 0; i < s; i++) {
      LTH_JET_AT(&J->zf, c, i, 0) = LTH_JET_AT(&dp->q, c, i, 0);
    }
  }
  for (int c = 0; c <= J->order && ny > 0; c++) {
    cauchy(CblasNoTrans, CblasNoTrans, ny, p, s, &v->cj, &J->Z, c, 0.0, LTH_JET_COEF(&J->C, c), ny);
    memcpy(LTH_JET_COEF(&J->D, c), LTH_JET_COEF(&v->dj, c), (size_t)ny * nu * sizeof(double));
    cauchy(CblasNoTrans, CblasNoTrans, ny, nu, s, &v->cj, &J->Dz, c, 1.0, LTH_JET_COEF(&J->D, c),
           ny);
    memcpy(LTH_JET_COEF(&J->yf, c), LTH_JET_COEF(&v->y0j, c), (size_t)ny * sizeof(double));
    cauchy(CblasNoTrans, CblasNoTrans, ny, 1, s, &v->cj, &J->zf, c, 1.0, LTH_JET_COEF(&J->yf, c),
           ny);
  }
  lth_jet *all[] = {&J->A, &J->B, &J->g, &J->C, &J->D, &J->yf, &J->Z, &J->Dz, &J->zf, &J->Q};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    all[k]->order = J->order;
  }
}

static int jets_finite(const lth_ss_jets *J) {
  const lth_jet *all[] = {&J->A, &J->B, &J->g, &J->C, &J->D, &J->yf, &J->Z, &J->Dz, &J->zf};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
    if (!isfinite(lth_jet_maxabs(all[k], J->order))) {
      return 0;
    }
  }
  return 1;
}

lth_status lth_ss_jets_at(lth_ss_jets *J, double t, lth_error *err) {
  LTH_ERROR_RECORD(err);
  struct lth_ss_jets_priv *v = J->priv;
  lth_status st = lth_ss_at(v->ss, t, v->spt, err);
  if (st == LTH_OK) {
    st = lth_decomp_input_maps(v->ws, t, v->dp, v->maps, err);
  }
  if (st == LTH_OK) {
    st = underived(J, t, err);
  }
  if (st == LTH_OK && J->ny > 0) {
    st = output_sources(J, t, err);
  }
  if (st != LTH_OK) {
    return st;
  }
  basis_jet(J);
  products(J);
  if (!jets_finite(J)) {
    return lth_error_set_t(err, LTH_ENOTFINITE, t, "the realization's jets are not finite");
  }
  J->t = t;
  return LTH_OK;
}
