/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hessenberg system description and structure checks (Clark (2.1)-(2.3)). */
#include "lth/system.h"
#include "pi_text.h"
#include "system_impl.h"
#include "system_parts.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lth_system *lth_system_alloc(int r, const int *n, lth_error *err) {
  if (r < 2) {
    lth_error_set(err, LTH_EINVAL, "index r = %d: a Hessenberg system needs r >= 2 blocks", r);
    return NULL;
  }
  for (int i = 0; i < r; i++) {
    if (n[i] < 1) {
      lth_error_set(err, LTH_EDIM, "block size n_%d = %d must be >= 1", i + 1, n[i]);
      return NULL;
    }
  }
  for (int i = 0; i < r - 1; i++) {
    if (n[r - 1] > n[i]) {
      lth_error_set(err, LTH_EDIM,
                    "n_r = %d exceeds n_%d = %d: Pi = A_{r,r-1}...A_1r cannot be invertible",
                    n[r - 1], i + 1, n[i]);
      return NULL;
    }
  }
  lth_system *sys = calloc(1, sizeof *sys);
  if (sys && !(sys->ledger = lth_work_ledger_new())) {
    free(sys);
    sys = NULL;
  }
  if (sys) {
    sys->r = r;
    sys->n = malloc((size_t)r * sizeof *sys->n);
    sys->off = malloc((size_t)r * sizeof *sys->off);
    sys->A = calloc((size_t)r * (size_t)r, sizeof *sys->A);
    sys->f = calloc((size_t)r, sizeof *sys->f);
  }
  if (!sys || !sys->n || !sys->off || !sys->A || !sys->f) {
    lth_system_free(sys);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating a system");
    return NULL;
  }
  for (int i = 0; i < r; i++) {
    sys->n[i] = n[i];
    sys->off[i] = sys->s;
    sys->s += n[i];
  }
  sys->m = sys->s - n[r - 1];
  for (int i = 0; i < r - 1; i++) {
    sys->p += n[i] - n[r - 1];
  }
  return sys;
}

void lth_system_free(lth_system *sys) {
  if (!sys) {
    return;
  }
  if (sys->A) {
    for (int k = 0; k < sys->r * sys->r; k++) {
      lth_source_free(sys->A[k]);
    }
  }
  if (sys->f) {
    for (int k = 0; k < sys->r; k++) {
      lth_source_free(sys->f[k]);
    }
  }
  lth_system_io_free(sys);
  free(sys->A);
  free(sys->f);
  free(sys->n);
  free(sys->off);
  lth_work_ledger_drop(sys->ledger);
  free(sys);
}

/* Clark (2.2): row 1 is full; rows 2..r-1 hold columns i-1..r-1; row r holds r-1 only. */
int lth_system_in_pattern(int r, int i, int j) {
  if (i < 1 || i > r || j < 1 || j > r) {
    return 0;
  }
  if (i == 1) {
    return 1;
  }
  if (i == r) {
    return j == r - 1;
  }
  return j >= i - 1 && j <= r - 1;
}

lth_status lth_system_set_A(lth_system *sys, int i, int j, lth_source *src, lth_error *err) {
  lth_status st = LTH_OK;
  if (!src) {
    return lth_error_set(err, LTH_EINVAL, "A(%d,%d): no source", i, j);
  }
  if (!lth_system_in_pattern(sys->r, i, j)) {
    st = lth_error_set(err, LTH_ESTRUCT,
                       "A(%d,%d) is outside the Hessenberg pattern of index %d (Clark (2.2): "
                       "row %d may hold %s)",
                       i, j, sys->r, i,
                       i == sys->r               ? "only A(r,r-1)"
                       : (i >= 1 && i <= sys->r) ? "columns i-1 .. r-1"
                                                 : "nothing: no such block row");
  } else if (lth_source_rows(src) != sys->n[i - 1] || lth_source_cols(src) != sys->n[j - 1]) {
    st = lth_error_set(err, LTH_EDIM, "A(%d,%d) is %d x %d, expected n_%d x n_%d = %d x %d", i, j,
                       lth_source_rows(src), lth_source_cols(src), i, j, sys->n[i - 1],
                       sys->n[j - 1]);
  } else if (sys->A[(i - 1) * sys->r + (j - 1)]) {
    st = lth_error_set(err, LTH_EINVAL, "A(%d,%d) is given twice", i, j);
  }
  if (st != LTH_OK) {
    lth_source_free(src);
    return st;
  }
  sys->A[(i - 1) * sys->r + (j - 1)] = src;
  return LTH_OK;
}

lth_status lth_system_set_f(lth_system *sys, int i, lth_source *src, lth_error *err) {
  lth_status st = LTH_OK;
  if (!src) {
    return lth_error_set(err, LTH_EINVAL, "f(%d): no source", i);
  }
  if (i < 1 || i > sys->r) {
    st = lth_error_set(err, LTH_ESTRUCT, "f(%d): block rows are 1..%d", i, sys->r);
  } else if (lth_source_rows(src) != sys->n[i - 1] || lth_source_cols(src) != 1) {
    st = lth_error_set(err, LTH_EDIM, "f(%d) is %d x %d, expected n_%d x 1 = %d x 1", i,
                       lth_source_rows(src), lth_source_cols(src), i, sys->n[i - 1]);
  } else if (sys->f[i - 1]) {
    st = lth_error_set(err, LTH_EINVAL, "f(%d) is given twice", i);
  }
  if (st != LTH_OK) {
    lth_source_free(src);
    return st;
  }
  sys->f[i - 1] = src;
  return lth_system_forcing_rebuild(sys, i, err);
}

const char *lth_pi_text(int r, int norms, char *buf, size_t size) {
  const char *open = norms ? "||" : "", *close = norms ? "||" : "";
  size_t len = 0;
  if (size == 0) {
    return buf;
  }
  buf[0] = '\0';
  for (int i = r; i >= 2 && len < size; i--) { /* A(r,r-1), ..., A(2,1) */
    if (r >= 5 && i < r && i > 2) {
      if (i == r - 1) {
        len += (size_t)snprintf(buf + len, size - len, " ...");
      }
      continue;
    }
    len += (size_t)snprintf(buf + len, size - len, "%s%sA(%d,%d)%s", i < r ? " " : "", open, i,
                            i - 1, close);
  }
  if (len < size) {
    snprintf(buf + len, size - len, " %sA(1,%d)%s", open, r, close);
  }
  return buf;
}

lth_status lth_system_validate(const lth_system *sys, lth_error *err) {
  int r = sys->r;
  if (!sys->A[0 * r + (r - 1)]) {
    char pi[LTH_PI_TEXT_MAX];
    return lth_error_set(err, LTH_ESTRUCT, "A(1,%d) is missing: Pi = %s would be zero", r,
                         lth_pi_text(r, 0, pi, sizeof pi));
  }
  for (int i = 2; i <= r; i++) {
    if (!sys->A[(i - 1) * r + (i - 2)]) {
      return lth_error_set(err, LTH_ESTRUCT,
                           "A(%d,%d) is missing: the subdiagonal chain of Pi (Clark (2.3)) "
                           "needs every A(i,i-1)",
                           i, i - 1);
    }
  }
  return LTH_OK;
}

lth_status lth_system_set_interval(lth_system *sys, double t0, double t1, lth_error *err) {
  if (!(t0 < t1) || !isfinite(t0) || !isfinite(t1)) {
    return lth_error_set(err, LTH_EINVAL, "interval [%g, %g]: need finite t0 < t1", t0, t1);
  }
  sys->has_interval = 1;
  sys->t0 = t0;
  sys->t1 = t1;
  return LTH_OK;
}

int lth_system_interval(const lth_system *sys, double *t0, double *t1) {
  if (sys->has_interval) {
    *t0 = sys->t0;
    *t1 = sys->t1;
  }
  return sys->has_interval;
}

int lth_system_index(const lth_system *sys) { return sys->r; }
int lth_system_block_size(const lth_system *sys, int i) { return sys->n[i - 1]; }
int lth_system_block_offset(const lth_system *sys, int i) { return sys->off[i - 1]; }
int lth_system_size(const lth_system *sys) { return sys->s; }
int lth_system_state_dim(const lth_system *sys) { return sys->m; }
int lth_system_manifold_dim(const lth_system *sys) { return sys->p; }

const lth_source *lth_system_A(const lth_system *sys, int i, int j) {
  if (i < 1 || i > sys->r || j < 1 || j > sys->r) {
    return NULL;
  }
  return sys->A[(i - 1) * sys->r + (j - 1)];
}

const lth_source *lth_system_f(const lth_system *sys, int i) {
  return (i < 1 || i > sys->r) ? NULL : sys->f[i - 1];
}

int lth_system_is_exact(const lth_system *sys) {
  for (int k = 0; k < sys->r * sys->r; k++) {
    if (sys->A[k] && !lth_source_is_exact(sys->A[k])) {
      return 0;
    }
  }
  for (int k = 0; k < sys->r; k++) {
    const lth_source *F = lth_system_forcing_of(sys, k + 1);
    if (F && !lth_source_is_exact(F)) {
      return 0;
    }
  }
  return 1;
}

static void narrow(const lth_source *src, double *lo, double *hi) {
  if (src) {
    double a, b;
    lth_source_domain(src, &a, &b);
    *lo = a > *lo ? a : *lo;
    *hi = b < *hi ? b : *hi;
  }
}

void lth_system_domain(const lth_system *sys, double *lo, double *hi) {
  *lo = -INFINITY;
  *hi = INFINITY;
  for (int k = 0; k < sys->r * sys->r; k++) {
    narrow(sys->A[k], lo, hi);
  }
  for (int k = 0; k < sys->r; k++) {
    narrow(lth_system_forcing_of(sys, k + 1), lo, hi);
  }
}

void lth_system_component_name(const lth_system *sys, int idx, char *buf, size_t size) {
  int i = sys->r;
  while (i > 1 && idx < sys->off[i - 1]) {
    i--;
  }
  int e = idx - sys->off[i - 1] + 1;
  if (idx < 0 || idx >= sys->s) {
    snprintf(buf, size, "z[%d] (out of range)", idx + 1);
  } else if (i == sys->r) {
    snprintf(buf, size, "z[%d] (u[%d])", idx + 1, e);
  } else {
    snprintf(buf, size, "z[%d] (z_%d[%d])", idx + 1, i, e);
  }
}

size_t lth_system_work_needed(const lth_system *sys, int order) {
  size_t mx = 0;
  for (int k = 0; k < sys->r * sys->r; k++) {
    size_t w = sys->A[k] ? lth_source_work_size(sys->A[k], order) : 0;
    mx = w > mx ? w : mx;
  }
  for (int k = 0; k < sys->r; k++) {
    const lth_source *F = lth_system_forcing_of(sys, k + 1);
    size_t w = F ? lth_source_work_size(F, order) : 0;
    mx = w > mx ? w : mx;
    /* f alone and B alone (lth_system_eval_unforced, lth_system_eval_B) */
    w = sys->f[k] ? lth_source_work_size(sys->f[k], order) : 0;
    mx = w > mx ? w : mx;
    w = sys->B && sys->B[k] ? lth_source_work_size(sys->B[k], order) : 0;
    mx = w > mx ? w : mx;
  }
  return mx;
}

/* A and the forcing (with_inputs: f + B u, else f alone) at t. */
static lth_status eval(const lth_system *sys, double t, int order, int with_inputs, lth_jet *A,
                       lth_jet *f, double *work, lth_error *err) {
  int r = sys->r;
  if (A->rows != sys->s || A->cols != sys->s || f->rows != sys->s || f->cols != 1 ||
      A->maxorder < order || f->maxorder < order) {
    return lth_error_set(err, LTH_EDIM, "system evaluation into jets of the wrong size");
  }
  lth_jet_set_zero(A, order);
  lth_jet_set_zero(f, order);
  for (int i = 1; i <= r; i++) {
    for (int j = 1; j <= r; j++) {
      const lth_source *src = sys->A[(i - 1) * r + (j - 1)];
      if (!src) {
        continue;
      }
      lth_jet blk = lth_jet_view(A, sys->off[i - 1], sys->off[j - 1], sys->n[i - 1], sys->n[j - 1]);
      lth_status st = lth_source_fill(src, t, order, &blk, work, err);
      if (st != LTH_OK) {
        lth_error_prefix(err, "A(%d,%d): ", i, j);
        return st;
      }
    }
    const lth_source *F = with_inputs ? lth_system_forcing_of(sys, i) : sys->f[i - 1];
    if (F) {
      lth_jet blk = lth_jet_view(f, sys->off[i - 1], 0, sys->n[i - 1], 1);
      lth_status st = lth_source_fill(F, t, order, &blk, work, err);
      if (st != LTH_OK) {
        if (with_inputs && sys->F && sys->F[i - 1]) {
          lth_error_prefix(err, "f(%d) + B(%d) u: ", i, i);
        } else {
          lth_error_prefix(err, "f(%d): ", i);
        }
        return st;
      }
    }
  }
  A->order = order;
  f->order = order;
  return LTH_OK;
}

lth_status lth_system_eval(const lth_system *sys, double t, int order, lth_jet *A, lth_jet *f,
                           double *work, lth_error *err) {
  return eval(sys, t, order, 1, A, f, work, err);
}

lth_status lth_system_eval_unforced(const lth_system *sys, double t, int order, lth_jet *A,
                                    lth_jet *f, double *work, lth_error *err) {
  return eval(sys, t, order, 0, A, f, work, err);
}
