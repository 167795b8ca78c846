/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The input maps at a point (include/lth/decomp.h, docs/theory.md section 7).
 *
 * Algorithm 1 is affine in the forcing: the linear parts [Ahat | Bhat] and
 * the projectors depend on A alone, and the affine column (g, q) is a linear
 * function of the jet of F (Clark (3.4), (3.6)-(3.8): sums, products with
 * jets of A, and derivatives).  With F = B u + f, the coefficient of
 * u_k^(j)(t) in g and q is therefore the affine column computed for the
 * forcing jet of B(t + h) e_k h^j / j! (u = e_k h^j / j! has u^(l)(t) = 1 for
 * l = j, else 0), with f left out.  Its Taylor coefficients are
 * F_l = B_{l-j} e_k / j! for l >= j, zero below: an exact jet of B, no
 * finite differences, so the maps are exact up to rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "decomp_impl.h"
#include "lth/decomp.h"
#include "system/system_parts.h"

lth_input_maps *lth_input_maps_alloc(const lth_system *sys, lth_error *err) {
  return lth_input_maps_alloc_order(sys, 0, err);
}

lth_input_maps *lth_input_maps_alloc_order(const lth_system *sys, int order, lth_error *err) {
  if (order < 0) {
    lth_error_set(err, LTH_EINVAL, "input maps of negative order %d", order);
    return NULL;
  }
  int nu = lth_system_ninputs(sys);
  if (nu <= 0) {
    lth_error_set(err, LTH_EINVAL, "input maps of a system without inputs");
    return NULL;
  }
  lth_input_maps *mp = calloc(1, sizeof *mp);
  if (!mp) {
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating input maps");
    return NULL;
  }
  mp->t = NAN;
  mp->r = lth_system_index(sys);
  mp->s = lth_system_size(sys);
  mp->m = lth_system_state_dim(sys);
  mp->nu = nu;
  mp->ny = lth_system_noutputs(sys);
  mp->nj = mp->r;
  mp->jmax = 0;
  for (int i = 1; i <= mp->r; i++) {
    int j = i < mp->r ? i - 1 : mp->r - 1; /* the derivatives F_i reaches (header) */
    if (lth_system_B(sys, i) && j > mp->jmax) {
      mp->jmax = j;
    }
  }
  mp->ld_Bv = mp->m;
  mp->ld_Dz = mp->s;
  mp->ld_Dy = mp->ny > 0 ? mp->ny : 1;
  size_t per = (size_t)nu * (size_t)mp->nj;
  mp->Bv = calloc((size_t)mp->m * per + 1, sizeof(double));
  mp->Dz = calloc((size_t)mp->s * per + 1, sizeof(double));
  mp->Dy = mp->ny > 0 ? calloc((size_t)mp->ny * per, sizeof(double)) : NULL;
  mp->order = order;
  mp->Bv_jet = calloc((size_t)mp->m * per * (size_t)(order + 1) + 1, sizeof(double));
  mp->Dz_jet = calloc((size_t)mp->s * per * (size_t)(order + 1) + 1, sizeof(double));
  if (!mp->Bv || !mp->Dz || (mp->ny > 0 && !mp->Dy) || !mp->Bv_jet || !mp->Dz_jet) {
    lth_input_maps_free(mp);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating input maps");
    return NULL;
  }
  return mp;
}

void lth_input_maps_free(lth_input_maps *maps) {
  if (maps) {
    free(maps->Bv);
    free(maps->Dz);
    free(maps->Dy);
    free(maps->Bv_jet);
    free(maps->Dz_jet);
    free(maps);
  }
}

void lth_decomp_ws_set_unforced(lth_decomp_ws *ws, int on) { ws->unforced = on != 0; }

/* ws->f = the forcing jet of input k's unit jet of order j (header above). */
static void unit_forcing(lth_decomp_ws *ws, int k, int j) {
  int K = ws->K;
  double fact = 1.0;
  for (int l = 2; l <= j; l++) {
    fact *= l;
  }
  lth_jet_set_zero(&ws->f, K);
  for (int l = j; l <= K; l++) {
    for (int i = 0; i < ws->s; i++) {
      LTH_JET_AT(&ws->f, l, i, 0) = LTH_JET_AT(&ws->Bu, l - j, i, k) / fact;
    }
  }
  ws->f.order = K;
}

/* The values of C (ny x s) and D (ny x nu) at t into ws->cd. */
static lth_status output_values(lth_decomp_ws *ws, double t, int ny, int nu, lth_error *err) {
  const lth_source *src[] = {lth_system_C(ws->sys), lth_system_D(ws->sys)};
  int cols[] = {ws->s, nu};
  const char *name[] = {"C", "D"};
  double *v = ws->cd;
  for (int k = 0; k < 2; k++) {
    lth_jet J = lth_jet_wrap(v, ny, cols[k], ny, (size_t)ny * (size_t)cols[k], 0);
    lth_jet_set_zero(&J, 0);
    lth_status st = src[k] ? lth_source_fill(src[k], t, 0, &J, ws->src_work, err) : LTH_OK;
    if (st != LTH_OK) {
      lth_error_prefix(err, "%s: ", name[k]);
      return st;
    }
    v += (size_t)ny * (size_t)cols[k];
  }
  return LTH_OK;
}

/* Bv_j e_k = g's value, Dz_j e_k = q's value for the forcing in ws->f. */
static lth_status one_column(lth_decomp_ws *ws, lth_input_maps *mp, int k, int j, double t,
                             lth_error *err) {
  unit_forcing(ws, k, j);
  lth_status st = lth_decomp_run_affine(ws, err);
  if (st != LTH_OK) {
    return st;
  }
  int m = ws->m, s = ws->s;
  double *bv = mp->Bv + (size_t)m * ((size_t)j * mp->nu + k);
  double *dz = mp->Dz + (size_t)s * ((size_t)j * mp->nu + k);
  for (int i = 0; i < m; i++) {
    bv[i] = LTH_JET_AT(&ws->Y, 0, i, m);
  }
  for (int c = 0; c <= mp->order; c++) {
    double *bj =
        mp->Bv_jet + (size_t)m * ((size_t)k + (size_t)mp->nu * ((size_t)j + (size_t)mp->nj * c));
    for (int i = 0; i < m; i++) {
      bj[i] = LTH_JET_AT(&ws->Y, c, i, m);
    }
  }
  for (int i = 0; i < s; i++) {
    dz[i] = LTH_JET_AT(&ws->X, 0, i, m);
  }
  for (int c = 0; c <= mp->order; c++) {
    double *dj =
        mp->Dz_jet + (size_t)s * ((size_t)k + (size_t)mp->nu * ((size_t)j + (size_t)mp->nj * c));
    for (int i = 0; i < s; i++) {
      dj[i] = LTH_JET_AT(&ws->X, c, i, m);
    }
  }
  for (int i = 0; i < m; i++) {
    if (!isfinite(bv[i])) {
      return lth_error_set_t(err, LTH_ENOTFINITE, t, "input map of u%d^(%d) is not finite", k + 1,
                             j);
    }
  }
  for (int i = 0; i < s; i++) {
    if (!isfinite(dz[i])) {
      return lth_error_set_t(err, LTH_ENOTFINITE, t, "input map of u%d^(%d) is not finite", k + 1,
                             j);
    }
  }
  return LTH_OK;
}

/* The jets of the Bv_j from the affine columns' jets.  The column of unit
 * order j is the g of u = e_k h^j / j!, i.e. sum_{l <= j} Bv_l(t + h)
 * h^(j-l) / (j-l)!: coefficient c of Bv_j is coefficient c of that column
 * minus sum_{l < j} coefficient c - (j - l) of Bv_l / (j - l)!, resolved for
 * j = 0, 1, ... in turn (exact, no differences of samples). */
static void resolve_jets_of(double *jet, size_t m, const lth_input_maps *mp) {
  size_t nu = (size_t)mp->nu, nj = (size_t)mp->nj;
  for (int j = 1; j < mp->nj; j++) {
    for (int c = mp->order; c >= 0; c--) {
      double fact = 1.0;
      for (int d = 1; d <= j && d <= c; d++) { /* d = j - l */
        fact *= d;
        const double *lower = jet + m * nu * ((size_t)(j - d) + nj * (size_t)(c - d));
        double *mine = jet + m * nu * ((size_t)j + nj * (size_t)c);
        for (size_t i = 0; i < m * nu; i++) {
          mine[i] -= lower[i] / fact;
        }
      }
    }
  }
}

/* The same resolution for the Dz_j, whose columns are q's of the same forcing. */
static void resolve_jets(lth_input_maps *mp) {
  resolve_jets_of(mp->Bv_jet, (size_t)mp->m, mp);
  resolve_jets_of(mp->Dz_jet, (size_t)mp->s, mp);
}

/* Dy_j = C Dz_j, plus D for j = 0. */
static void output_maps(const lth_decomp_ws *ws, lth_input_maps *mp) {
  int ny = mp->ny, s = mp->s, nu = mp->nu;
  const double *C = ws->cd, *D = ws->cd + (size_t)ny * (size_t)s;
  for (int j = 0; j < mp->nj; j++) {
    for (int k = 0; k < nu; k++) {
      const double *dz = mp->Dz + (size_t)s * ((size_t)j * nu + k);
      double *dy = mp->Dy + (size_t)ny * ((size_t)j * nu + k);
      for (int i = 0; i < ny; i++) {
        double sum = j == 0 ? D[i + (size_t)k * ny] : 0.0;
        for (int l = 0; l < s; l++) {
          sum += C[i + (size_t)l * ny] * dz[l];
        }
        dy[i] = sum;
      }
    }
  }
}

lth_status lth_decomp_input_maps(lth_decomp_ws *ws, double t, lth_point *pt, lth_input_maps *maps,
                                 lth_error *err) {
  LTH_ERROR_RECORD(err);
  const lth_system *sys = ws->sys;
  int nu = lth_system_ninputs(sys);
  if (nu == 0) {
    return lth_error_set(err, LTH_EINVAL, "input maps of a system without inputs");
  }
  if (maps->nu != nu || maps->s != ws->s || maps->r != ws->r ||
      maps->ny != lth_system_noutputs(sys)) {
    return lth_error_set(err, LTH_EDIM, "input maps of another system");
  }
  if (maps->order > ws->out_order) {
    return lth_error_set(err, LTH_EORDER, "input maps of order %d from a workspace of order %d",
                         maps->order, ws->out_order);
  }
  int unforced = ws->unforced;
  ws->unforced = 1;
  lth_status st = lth_decomp_at(ws, t, pt, err);
  /* a measured amplification leaves the perturbed run's intermediates: redo the plain one */
  if (st == LTH_OK && pt->amplification_measured) {
    st = lth_decomp_run(ws, t, 0, err);
  }
  if (st == LTH_OK) {
    st = lth_system_eval_B(sys, t, ws->K, &ws->Bu, ws->src_work, err);
  }
  if (st == LTH_OK && maps->ny > 0) {
    st = output_values(ws, t, maps->ny, nu, err);
  }
  for (int j = 0; j < maps->nj && st == LTH_OK; j++) {
    for (int k = 0; k < nu && st == LTH_OK; k++) {
      st = one_column(ws, maps, k, j, t, err);
    }
  }
  if (st == LTH_OK && maps->ny > 0) {
    output_maps(ws, maps);
  }
  if (st == LTH_OK && maps->order > 0) {
    resolve_jets(maps);
  }
  if (st == LTH_OK) {
    maps->t = t;
    st = lth_decomp_eval(ws, t, err); /* lth_decomp_ws_f: f alone again */
  }
  ws->unforced = unforced;
  if (st != LTH_OK && !err->has_t) {
    err->has_t = 1;
    err->t = t;
  }
  return st;
}
