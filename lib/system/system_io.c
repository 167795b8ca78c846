/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inputs and outputs of a system (include/lth/system.h):
 *     E z' = A(t) z + B(t) u(t) + f(t),   y = C(t) z + D(t) u(t) + y0(t).
 * B, the signals u_k, C, D and y0 are kept as given, so that B and D stay
 * available to whoever needs them apart from f; what the decomposition
 * reads is the forcing F_i = f_i + B_i u of each block row, a source whose
 * Taylor coefficients are the truncated Cauchy product of the jets of B_i
 * and u (exact to rounding when B and u are), so that Clark's reduction,
 * which differentiates F up to r times, sees the exact jets of u.  A free
 * input (no signal) makes every evaluation of F fail (LTH_EINVAL naming the
 * input): the library never takes a free input for zero. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "lth/jet.h"
#include "source/source_rebind.h"
#include "system_impl.h"
#include "system_parts.h"

/* ---- the forcing f + B u as a source ---- */

typedef struct forcing {
  const lth_source *f, *B; /* f may be NULL */
  const lth_source **u;    /* nu signals (NULL: free) */
  int n, nu;
  lth_source **own; /* nu + 2 replacements owned (a rebound copy), or NULL */
} forcing;

static void forcing_destroy(void *state) {
  forcing *F = state;
  if (F) {
    for (int k = 0; F->own && k < F->nu + 2; k++) {
      lth_source_free(F->own[k]);
    }
    free(F->own);
    free(F->u);
    free(F);
  }
}

static size_t forcing_work(const void *state, int order) {
  const forcing *F = state;
  size_t mx = lth_source_work_size(F->B, order);
  if (F->f) {
    size_t w = lth_source_work_size(F->f, order);
    mx = w > mx ? w : mx;
  }
  for (int k = 0; k < F->nu; k++) {
    size_t w = F->u[k] ? lth_source_work_size(F->u[k], order) : 0;
    mx = w > mx ? w : mx;
  }
  return (size_t)(order + 1) * (size_t)F->nu * (size_t)(F->n + 1) + mx + 1;
}

static void narrow(const lth_source *src, double *lo, double *hi) {
  if (src) {
    double a, b;
    lth_source_domain(src, &a, &b);
    *lo = a > *lo ? a : *lo;
    *hi = b < *hi ? b : *hi;
  }
}

static void forcing_domain(const void *state, double *lo, double *hi) {
  const forcing *F = state;
  narrow(F->f, lo, hi);
  narrow(F->B, lo, hi);
  for (int k = 0; k < F->nu; k++) {
    narrow(F->u[k], lo, hi);
  }
}

/* The jets of the signals into U (nu x 1). */
static lth_status signals_fill(const lth_source *const *u, int nu, double t, int order, lth_jet *U,
                               double *work, lth_error *err) {
  for (int k = 0; k < nu; k++) {
    if (!u[k]) {
      return lth_error_set_t(err, LTH_EINVAL, t,
                             "input %d has no signal (a free input): give it before evaluating "
                             "the system (lth_system_set_input)",
                             k + 1);
    }
    lth_jet uk = lth_jet_view(U, k, 0, 1, 1);
    lth_status st = lth_source_fill(u[k], t, order, &uk, work, err);
    if (st != LTH_OK) {
      lth_error_prefix(err, "input %d: ", k + 1);
      return st;
    }
  }
  U->order = order;
  return LTH_OK;
}

static lth_status forcing_fill(const void *state, double t, int order, lth_jet *out, double *work,
                               lth_error *err) {
  const forcing *F = state;
  size_t sb = (size_t)F->n * (size_t)F->nu, su = (size_t)F->nu;
  double *b = work, *u = b + sb * (size_t)(order + 1), *w = u + su * (size_t)(order + 1);
  lth_jet Bj = lth_jet_wrap(b, F->n, F->nu, F->n, sb, order);
  lth_jet Uj = lth_jet_wrap(u, F->nu, 1, F->nu, su, order);
  lth_status st = LTH_OK;
  if (F->f) {
    st = lth_source_fill(F->f, t, order, out, w, err);
  } else {
    lth_jet_set_zero(out, order);
    out->order = order;
  }
  st = st == LTH_OK ? signals_fill(F->u, F->nu, t, order, &Uj, w, err) : st;
  if (st == LTH_OK && (st = lth_source_fill(F->B, t, order, &Bj, w, err)) != LTH_OK) {
    lth_error_prefix(err, "B: ");
  }
  return st == LTH_OK ? lth_jet_gemm(LTH_NOTRANS, LTH_NOTRANS, 1.0, &Bj, &Uj, 1.0, out, err) : st;
}

/* The sources it reads, when they fit the interface's four (else none: the
 * enclosures then say that nothing is known between points). */
static int forcing_parts(const void *state, const lth_source **parts) {
  const forcing *F = state;
  int n = 0;
  for (int k = 0; k < F->nu; k++) {
    n += F->u[k] != NULL;
  }
  if (n + 1 + (F->f != NULL) > 4) {
    return 0;
  }
  n = 0;
  parts[n++] = F->B;
  if (F->f) {
    parts[n++] = F->f;
  }
  for (int k = 0; k < F->nu; k++) {
    if (F->u[k]) {
      parts[n++] = F->u[k];
    }
  }
  return n;
}

static const lth_source_type forcing_types[2] = {
    {.name = "forcing f + B u",
     .fill = forcing_fill,
     .work_size = forcing_work,
     .domain = forcing_domain,
     .destroy = forcing_destroy,
     .exact = 0,
     .parts = forcing_parts},
    {.name = "forcing f + B u",
     .fill = forcing_fill,
     .work_size = forcing_work,
     .domain = forcing_domain,
     .destroy = forcing_destroy,
     .exact = 1,
     .parts = forcing_parts},
};

static lth_status forcing_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                 lth_error *err);

/* A forcing reading f, B, u[0..nu-1] (copied pointers), owning own (nu + 2
 * entries or NULL), also on failure. */
static lth_source *forcing_new(const lth_source *f, const lth_source *B, const lth_source *const *u,
                               int nu, lth_source **own, lth_error *err) {
  forcing *F = calloc(1, sizeof *F);
  const lth_source **uc = F ? malloc((size_t)nu * sizeof *uc) : NULL;
  if (!F || !uc) {
    free(F);
    for (int k = 0; own && k < nu + 2; k++) {
      lth_source_free(own[k]);
    }
    free(own);
    lth_error_set(err, LTH_ENOMEM, "out of memory");
    return NULL;
  }
  int exact = lth_source_is_exact(B) && (!f || lth_source_is_exact(f));
  for (int k = 0; k < nu; k++) {
    uc[k] = u[k];
    exact = exact && (!u[k] || lth_source_is_exact(u[k]));
  }
  *F = (forcing){.f = f, .B = B, .u = uc, .n = lth_source_rows(B), .nu = nu, .own = own};
  lth_source *src = lth_source_new(&forcing_types[exact], F, F->n, 1, err);
  lth_source_set_rebind(src, forcing_rebind);
  return src;
}

/* The same forcing reading the replacements of its leaves (the sampled-data
 * error estimates move sampled signals, B or f). */
static lth_status forcing_rebind(const void *state, lth_leaf_map map, void *ctx, lth_source **out,
                                 lth_error *err) {
  const forcing *F = state;
  int nu = F->nu, changed = 0;
  const lth_source **use = malloc(((size_t)nu + 2) * sizeof *use);
  lth_source **own = calloc((size_t)nu + 2, sizeof *own);
  if (!use || !own) {
    free(use);
    free(own);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  use[0] = F->f;
  use[1] = F->B;
  for (int k = 0; k < nu; k++) {
    use[k + 2] = F->u[k];
  }
  lth_status st = LTH_OK;
  for (int k = 0; k < nu + 2 && st == LTH_OK; k++) {
    if (use[k]) {
      const lth_source *was = use[k];
      st = lth_source_rebind(was, map, ctx, &use[k], &own[k], err);
      changed = changed || (st == LTH_OK && use[k] != was);
    }
  }
  if (st != LTH_OK || !changed) {
    for (int k = 0; k < nu + 2; k++) {
      lth_source_free(own[k]);
    }
    free(own);
    free(use);
    return st;
  }
  *out = forcing_new(use[0], use[1], use + 2, nu, own, err);
  free(use);
  return *out ? LTH_OK : LTH_ENOMEM;
}

lth_status lth_system_forcing_rebuild(lth_system *sys, int i, lth_error *err) {
  if (!sys->F) {
    return LTH_OK;
  }
  lth_source_free(sys->F[i - 1]);
  sys->F[i - 1] = NULL;
  if (!sys->B[i - 1]) {
    return LTH_OK;
  }
  sys->F[i - 1] = forcing_new(sys->f[i - 1], sys->B[i - 1], (const lth_source *const *)sys->u,
                              sys->nu, NULL, err);
  return sys->F[i - 1] ? LTH_OK : lth_error_status(err);
}

void lth_system_io_free(lth_system *sys) {
  for (int k = 0; sys->F && k < sys->r; k++) {
    lth_source_free(sys->F[k]);
    lth_source_free(sys->B[k]);
  }
  for (int k = 0; sys->u && k < sys->nu; k++) {
    lth_source_free(sys->u[k]);
  }
  free(sys->F);
  free(sys->B);
  free(sys->u);
  lth_source_free(sys->C);
  lth_source_free(sys->D);
  lth_source_free(sys->y0);
}

/* ---- inputs ---- */

lth_status lth_system_set_inputs(lth_system *sys, int nu, lth_error *err) {
  if (sys->F) {
    return lth_error_set(err, LTH_EINVAL, "the inputs are declared twice");
  }
  if (nu < 1) {
    return lth_error_set(err, LTH_EDIM, "%d inputs: need at least 1", nu);
  }
  sys->B = calloc((size_t)sys->r, sizeof *sys->B);
  sys->F = calloc((size_t)sys->r, sizeof *sys->F);
  sys->u = calloc((size_t)nu, sizeof *sys->u);
  if (!sys->B || !sys->F || !sys->u) {
    free(sys->B);
    free(sys->F);
    free(sys->u);
    sys->B = sys->F = sys->u = NULL;
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  sys->nu = nu;
  return LTH_OK;
}

int lth_system_ninputs(const lth_system *sys) { return sys->nu; }

lth_status lth_system_set_B(lth_system *sys, int i, lth_source *src, lth_error *err) {
  lth_status st = LTH_OK;
  if (!src) {
    return lth_error_set(err, LTH_EINVAL, "B(%d): no source", i);
  }
  if (!sys->F) {
    st = lth_error_set(err, LTH_EINVAL, "B(%d): the system has no inputs (lth_system_set_inputs)",
                       i);
  } else if (i < 1 || i > sys->r) {
    st = lth_error_set(err, LTH_ESTRUCT, "B(%d): block rows are 1..%d", i, sys->r);
  } else if (lth_source_rows(src) != sys->n[i - 1] || lth_source_cols(src) != sys->nu) {
    st = lth_error_set(err, LTH_EDIM, "B(%d) is %d x %d, expected n_%d x (inputs) = %d x %d", i,
                       lth_source_rows(src), lth_source_cols(src), i, sys->n[i - 1], sys->nu);
  } else if (sys->B[i - 1]) {
    st = lth_error_set(err, LTH_EINVAL, "B(%d) is given twice", i);
  }
  if (st != LTH_OK) {
    lth_source_free(src);
    return st;
  }
  sys->B[i - 1] = src;
  return lth_system_forcing_rebuild(sys, i, err);
}

const lth_source *lth_system_B(const lth_system *sys, int i) {
  return !sys->B || i < 1 || i > sys->r ? NULL : sys->B[i - 1];
}

lth_status lth_system_set_input(lth_system *sys, int k, lth_source *signal, lth_error *err) {
  lth_status st = LTH_OK;
  if (k < 0 || k >= sys->nu) {
    st = lth_error_set(err, LTH_EINVAL, "input %d: the system has %d input%s", k + 1, sys->nu,
                       sys->nu == 1 ? "" : "s");
  } else if (signal && (lth_source_rows(signal) != 1 || lth_source_cols(signal) != 1)) {
    st = lth_error_set(err, LTH_EDIM, "the signal of input %d is %d x %d, expected 1 x 1", k + 1,
                       lth_source_rows(signal), lth_source_cols(signal));
  }
  if (st != LTH_OK) {
    lth_source_free(signal);
    return st;
  }
  lth_source *old = sys->u[k];
  sys->u[k] = signal;
  for (int i = 1; i <= sys->r && st == LTH_OK; i++) {
    st = lth_system_forcing_rebuild(sys, i, err);
  }
  size_t have = 0, need = 0;
  int o = st == LTH_OK ? lth_system_work_check(sys, &have, &need) : -1;
  if (o >= 0) { /* workspaces sized before would overflow: keep the old signal */
    sys->u[k] = old;
    for (int i = 1; i <= sys->r; i++) {
      lth_system_forcing_rebuild(sys, i, NULL);
    }
    lth_source_free(signal);
    return lth_error_set(err, LTH_EINVAL,
                         "the signal of input %d needs more scratch (%zu doubles at order %d) "
                         "than the workspaces already allocated on this system have (%zu): give "
                         "the signals before allocating workspaces",
                         k + 1, need, o, have);
  }
  lth_source_free(old); /* after the forcings that read it are gone */
  return st;
}

const lth_source *lth_system_input(const lth_system *sys, int k) {
  return k < 0 || k >= sys->nu ? NULL : sys->u[k];
}

int lth_system_free_input(const lth_system *sys) {
  for (int k = 0; k < sys->nu; k++) {
    if (!sys->u[k]) {
      return k;
    }
  }
  return -1;
}

const lth_source *lth_system_forcing(const lth_system *sys, int i) {
  return i < 1 || i > sys->r ? NULL : lth_system_forcing_of(sys, i);
}

/* ---- outputs ---- */

static lth_status check_out(const lth_source *src, const char *what, int rows, int cols,
                            lth_error *err) {
  if (src && (lth_source_rows(src) != rows || lth_source_cols(src) != cols)) {
    return lth_error_set(err, LTH_EDIM, "%s is %d x %d, expected %d x %d", what,
                         lth_source_rows(src), lth_source_cols(src), rows, cols);
  }
  return LTH_OK;
}

lth_status lth_system_set_outputs(lth_system *sys, int ny, lth_source *C, lth_source *D,
                                  lth_source *y0, lth_error *err) {
  lth_status st = LTH_OK;
  if (sys->ny > 0) {
    st = lth_error_set(err, LTH_EINVAL, "the outputs are given twice");
  } else if (ny < 1) {
    st = lth_error_set(err, LTH_EDIM, "%d outputs: need at least 1", ny);
  } else if (D && sys->nu == 0) {
    st = lth_error_set(err, LTH_EINVAL, "D: the system has no inputs (lth_system_set_inputs)");
  }
  st = st == LTH_OK ? check_out(C, "C", ny, sys->s, err) : st;
  st = st == LTH_OK ? check_out(D, "D", ny, sys->nu, err) : st;
  st = st == LTH_OK ? check_out(y0, "y0", ny, 1, err) : st;
  if (st != LTH_OK) {
    lth_source_free(C);
    lth_source_free(D);
    lth_source_free(y0);
    return st;
  }
  sys->ny = ny;
  sys->C = C;
  sys->D = D;
  sys->y0 = y0;
  return LTH_OK;
}

int lth_system_noutputs(const lth_system *sys) { return sys->ny; }
const lth_source *lth_system_C(const lth_system *sys) { return sys->C; }
const lth_source *lth_system_D(const lth_system *sys) { return sys->D; }
const lth_source *lth_system_output_offset(const lth_system *sys) { return sys->y0; }

/* Value (order 0) of src (rows x cols) into v (ld = rows); zeros if NULL. */
static lth_status value(const lth_source *src, int rows, int cols, double t, double *v,
                        double *work, const char *what, lth_error *err) {
  lth_jet J = lth_jet_wrap(v, rows, cols, rows, (size_t)rows * (size_t)cols, 0);
  if (!src) {
    lth_jet_set_zero(&J, 0);
    return LTH_OK;
  }
  lth_status st = lth_source_fill(src, t, 0, &J, work, err);
  if (st != LTH_OK) {
    lth_error_prefix(err, "%s: ", what);
  }
  return st;
}

lth_status lth_system_outputs(const lth_system *sys, double t, const double *z, double *y,
                              lth_error *err) {
  LTH_ERROR_RECORD(err);
  int ny = sys->ny, s = sys->s, nu = sys->nu;
  if (ny == 0) {
    return LTH_OK;
  }
  size_t wn = 1;
  const lth_source *all[3] = {sys->C, sys->D, sys->y0};
  for (int k = 0; k < 3; k++) {
    size_t w = all[k] ? lth_source_work_size(all[k], 0) : 0;
    wn = w > wn ? w : wn;
  }
  for (int k = 0; sys->D && k < nu; k++) {
    size_t w = sys->u[k] ? lth_source_work_size(sys->u[k], 0) : 0;
    wn = w > wn ? w : wn;
  }
  size_t nC = (size_t)ny * (size_t)s, nD = (size_t)ny * (size_t)nu;
  double *buf = malloc((nC + nD + (size_t)nu + (size_t)ny + wn) * sizeof *buf);
  if (!buf) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  double *C = buf, *D = C + nC, *u = D + nD, *y0 = u + nu, *work = y0 + ny;
  lth_status st = value(sys->C, ny, s, t, C, work, "C", err);
  st = st == LTH_OK ? value(sys->y0, ny, 1, t, y0, work, "y0", err) : st;
  if (st == LTH_OK && sys->D) {
    st = value(sys->D, ny, nu, t, D, work, "D", err);
    lth_jet U = lth_jet_wrap(u, nu, 1, nu, (size_t)nu, 0);
    st = st == LTH_OK ? signals_fill((const lth_source *const *)sys->u, nu, t, 0, &U, work, err)
                      : st;
  }
  for (int i = 0; st == LTH_OK && i < ny; i++) {
    double sum = y0[i];
    for (int k = 0; k < s; k++) {
      sum += C[i + (size_t)k * ny] * z[k];
    }
    for (int k = 0; sys->D && k < nu; k++) {
      sum += D[i + (size_t)k * ny] * u[k];
    }
    y[i] = sum;
  }
  free(buf);
  return st;
}

lth_status lth_system_eval_B(const lth_system *sys, double t, int order, lth_jet *B, double *work,
                             lth_error *err) {
  if (sys->nu == 0 || B->rows != sys->s || B->cols != sys->nu || B->maxorder < order) {
    return lth_error_set(err, LTH_EDIM, "evaluation of B into a jet of the wrong size");
  }
  lth_jet_set_zero(B, order);
  for (int i = 1; i <= sys->r; i++) {
    if (!sys->B[i - 1]) {
      continue;
    }
    lth_jet blk = lth_jet_view(B, sys->off[i - 1], 0, sys->n[i - 1], sys->nu);
    lth_status st = lth_source_fill(sys->B[i - 1], t, order, &blk, work, err);
    if (st != LTH_OK) {
      lth_error_prefix(err, "B(%d): ", i);
      return st;
    }
  }
  B->order = order;
  return LTH_OK;
}
