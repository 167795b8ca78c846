/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: the user's unknowns -- names, the permutation to and from the
 * canonical order of the system (and z0, bc of the equation form given in
 * the user's order), the structure in the user's terms, and which unknowns
 * are free initial values (include/lth/problem.h). */
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/decomp.h"
#include "problem_impl.h"

/* A vector of the unknowns (z0) to the canonical order. */
lth_status lth_pp_user_z0(lth_pp *P, const lth_pval *z, const lth_model *m) {
  int s = lth_model_nvars(m);
  if ((z->rows != 1 && z->cols != 1) || z->rows * z->cols != s) {
    return lth_pp_at_error(P, P->at_z0, LTH_EDIM,
                           "z0 needs %d entries (a row or a column), one per unknown in the "
                           "order of `variables` (with x' after x where x'' appears), found a "
                           "%d x %d matrix",
                           s, z->rows, z->cols);
  }
  const int *perm = lth_model_perm(m);
  if (!(P->pb->z0 = malloc((size_t)s * sizeof *P->pb->z0))) {
    return lth_pp_at_error(P, P->at_z0, LTH_ENOMEM, "out of memory");
  }
  for (int k = 0; k < s; k++) {
    P->pb->z0[k] = z->val[perm[k]];
  }
  return LTH_OK;
}

/* B0 y(t0) + B1 y(t1) with the index-1 unknowns y = Y(t) z + y0(t)
 * (lth_model_values_map): their columns join z's, y0 moves to beta; B0 and
 * B1 shrink from p x nvars to p x s in place (ld p). */
lth_status lth_pp_fold_index1(lth_pp *P, const lth_model *m, int p, int s) {
  int ny = lth_model_index1_count(m);
  double t[2] = {P->pb->t0, P->pb->t1}, *B[2] = {P->pb->B0, P->pb->B1};
  double *Y = malloc(((size_t)ny * s + 1) * sizeof *Y), *y0 = malloc(((size_t)ny + 1) * sizeof *y0);
  lth_model_values *w = Y && y0 ? lth_model_values_alloc(m, P->err) : NULL;
  lth_status st = w ? LTH_OK : lth_pp_at_error(P, P->at_bc[0], LTH_ENOMEM, "out of memory");
  if (st == LTH_OK && P->pb->sys && lth_system_ninputs(P->pb->sys) > 0) {
    st = lth_model_values_set_inputs(w, P->pb->sys, P->err); /* inputs in K's constraints */
  }
  for (int e = 0; e < 2 && st == LTH_OK; e++) {
    if ((st = lth_model_values_map(w, t[e], Y, ny, y0, P->err)) != LTH_OK) {
      st = lth_pp_relocate(P, P->at_bc[e], st);
      break;
    }
    for (int i = 0; i < p; i++) {
      for (int j = 0; j < ny; j++) {
        double b = B[e][i + (size_t)(s + j) * p];
        for (int k = 0; b != 0.0 && k < s && st == LTH_OK; k++) {
          double y = Y[j + (size_t)k * ny];
          if (y == 0.0) {
            continue; /* (no page of B touched for nothing) */
          }
          B[e][i + (size_t)k * p] += b * y;
          if (P->pb->bc_listed && lth_problem_bc_wrote(P->pb, e, i + (size_t)k * p) != 0) {
            st = lth_pp_at_error(P, P->at_bc[e], LTH_ENOMEM, "out of memory");
          }
        }
        P->pb->beta[i] -= b * y0[j];
      }
    }
  }
  lth_model_values_free(w);
  free(Y);
  free(y0);
  return st;
}

/* bc B0, B1 (p x s, columns in the unknowns' order) and beta. */
lth_status lth_pp_user_bc(lth_pp *P, const lth_pval bc[3], const lth_model *m) {
  static const char *const names[] = {"bc B0", "bc B1", "bc beta"};
  int given = 0, s = lth_model_nvars(m), p = lth_model_manifold_dim(m);
  const int *perm = lth_model_perm(m);
  for (int k = 0; k < 3; k++) {
    given += P->at_bc[k].line != 0;
  }
  if (given == 0) {
    return LTH_OK;
  }
  if (given < 3) {
    lth_spos first = P->at_bc[0].line ? P->at_bc[0] : P->at_bc[1].line ? P->at_bc[1] : P->at_bc[2];
    return lth_pp_at_error(P, first, LTH_EPARSE,
                           "incomplete boundary conditions: missing%s%s%s (B0 z(t0) + B1 z(t1) "
                           "= beta needs all three)",
                           P->at_bc[0].line ? "" : " `bc B0`", P->at_bc[1].line ? "" : " `bc B1`",
                           P->at_bc[2].line ? "" : " `bc beta`");
  }
  if (p == 0) {
    return lth_pp_at_error(P, P->at_bc[0], LTH_EDIM,
                           "boundary conditions need p > 0 free initial values, but p = 0 here: "
                           "the solution is fixed by the DAE itself");
  }
  int sz = lth_model_size(m); /* the system's size: the index-1 columns are folded in */
  double **dst[3] = {&P->pb->B0, &P->pb->B1, &P->pb->beta};
  for (int w = 0; w < 3; w++) {
    const lth_pval *b = &bc[w];
    int ok = w < 2 ? b->rows == p && b->cols == s
                   : (b->rows == 1 || b->cols == 1) && b->rows * b->cols == p;
    if (!ok) {
      return lth_pp_at_error(P, P->at_bc[w], LTH_EDIM,
                             w < 2 ? "%s must be %d x %d (p x s, columns in the order of the "
                                     "unknowns), found a %d x %d matrix"
                                   : "%s needs %d entries, found a %d x %d matrix",
                             names[w], p, s, b->rows, b->cols);
    }
    int cols = w < 2 ? s : 1;
    if (!(*dst[w] = malloc((size_t)p * cols * sizeof **dst[w]))) {
      return lth_pp_at_error(P, P->at_bc[w], LTH_ENOMEM, "out of memory");
    }
    for (int i = 0; i < p; i++) {
      for (int k = 0; k < cols; k++) { /* column k of the system is unknown perm[k] */
        (*dst[w])[i + (size_t)k * p] = w < 2 ? b->val[(size_t)i * s + perm[k]] : b->val[i];
      }
    }
  }
  P->pb->nbc = p;
  return sz < s ? lth_pp_fold_index1(P, m, p, sz) : LTH_OK;
}

void lth_pp_names_free(lth_problem *pb) {
  for (int k = 0; pb->names && k < pb->nnames; k++) {
    free(pb->names[k]);
  }
  free(pb->names);
  free(pb->perm);
  free(pb->iperm);
  pb->names = NULL;
  pb->perm = pb->iperm = NULL;
}

/* The canonical name of component k: z_i[j] / u[j], or x, lambda, u for LQR. */
static void block_name(const lth_problem *pb, int k, char *buf, size_t size) {
  const lth_system *sys = pb->sys;
  int r = lth_system_index(sys), i = r;
  while (i > 1 && k < lth_system_block_offset(sys, i)) {
    i--;
  }
  int j = k - lth_system_block_offset(sys, i) + 1;
  if (pb->kind == LTH_PROBLEM_LQR) {
    snprintf(buf, size, "%s[%d]", i == 1 ? "x" : i == 2 ? "lambda" : "u", j);
  } else if (i == r) {
    snprintf(buf, size, "u[%d]", j);
  } else {
    snprintf(buf, size, "z_%d[%d]", i, j);
  }
}

lth_status lth_pp_make_names(lth_pp *P) {
  lth_problem *pb = P->pb;
  /* the equation form names every unknown: z's, then the index-1 ones */
  int s = pb->model ? lth_model_nvars(pb->model) : lth_system_size(pb->sys);
  const int *mperm = pb->model ? lth_model_perm(pb->model) : NULL;
  pb->names = calloc((size_t)s, sizeof *pb->names);
  pb->nnames = pb->names ? s : 0;
  pb->perm = malloc((size_t)s * sizeof *pb->perm);
  pb->iperm = malloc((size_t)s * sizeof *pb->iperm);
  if (!pb->names || !pb->perm || !pb->iperm) {
    return lth_pp_at_error(P, P->at_problem, LTH_ENOMEM, "out of memory");
  }
  for (int k = 0; k < s; k++) {
    char buf[64];
    const char *name = buf;
    if (pb->model) {
      name = lth_model_var_name(pb->model, k);
    } else {
      block_name(pb, k, buf, sizeof buf);
    }
    pb->names[k] = malloc(strlen(name) + 1);
    if (!pb->names[k]) {
      return lth_pp_at_error(P, P->at_problem, LTH_ENOMEM, "out of memory");
    }
    strcpy(pb->names[k], name);
    pb->perm[k] = mperm ? mperm[k] : k;
  }
  for (int k = 0; k < s; k++) {
    pb->iperm[pb->perm[k]] = k;
  }
  return LTH_OK;
}

lth_problem_form lth_problem_get_form(const lth_problem *pb) {
  return pb->model ? LTH_FORM_EQUATIONS : LTH_FORM_BLOCKS;
}
const lth_model *lth_problem_model(const lth_problem *pb) { return pb->model; }
int lth_problem_nvars(const lth_problem *pb) { return pb->nnames; }
const char *lth_problem_var_name(const lth_problem *pb, int k) {
  return k >= 0 && k < pb->nnames ? pb->names[k] : NULL;
}
const int *lth_problem_perm(const lth_problem *pb) { return pb->perm; }
const int *lth_problem_iperm(const lth_problem *pb) { return pb->iperm; }

int lth_problem_find_var(const lth_problem *pb, const char *name) {
  return lth_name_find((const char *const *)pb->names, pb->nnames, name);
}

static int exact(const char *const *names, int n, const char *name) {
  for (int k = 0; k < n; k++) {
    if (strcmp(names[k], name) == 0) {
      return k;
    }
  }
  return -1;
}

int lth_name_find(const char *const *names, int n, const char *name) {
  int found = name && names ? exact(names, n, name) : -1;
  if (found >= 0 || !name || !names) {
    return found;
  }
  size_t len = strlen(name), pre = 0, suf = 0; /* "d." prefixes, "_dot" suffixes */
  while (len - 2 * pre > 2 && strncmp(name + 2 * pre, "d.", 2) == 0) {
    pre++;
  }
  const char *base = name + 2 * pre;
  size_t blen = len - 2 * pre;
  while (blen - 4 * suf > 4 && strncmp(base + blen - 4 * (suf + 1), "_dot", 4) == 0) {
    suf++;
  }
  char *buf = malloc(len + 1);
  if (!buf) {
    return -1;
  }
  /* strip j of the suffixes: the base with pre + j quotes */
  for (size_t j = pre ? 0 : 1; j <= suf; j++) {
    size_t bl = blen - 4 * j, q = pre + j;
    memcpy(buf, base, bl);
    memset(buf + bl, '\'', q);
    buf[bl + q] = '\0';
    int k = exact(names, n, buf);
    if (k >= 0 && found >= 0 && k != found) {
      found = -1; /* two readings: neither */
      break;
    }
    found = k >= 0 ? k : found;
  }
  free(buf);
  return found;
}

void lth_problem_to_canonical(const lth_problem *pb, const double *user, double *canonical) {
  int s = lth_system_size(pb->sys);
  for (int k = 0; k < s; k++) {
    canonical[k] = user[pb->perm[k]];
  }
}

void lth_problem_to_user(const lth_problem *pb, const double *canonical, double *user) {
  int s = lth_system_size(pb->sys);
  for (int k = 0; k < s; k++) {
    user[pb->perm[k]] = canonical[k];
  }
}

size_t lth_problem_describe(const lth_problem *pb, char *buf, size_t size) {
  if (pb->model) {
    return lth_model_describe(pb->model, buf, size);
  }
  const lth_system *sys = pb->sys;
  int r = lth_system_index(sys);
  size_t len = (size_t)snprintf(buf, size, "index r = %d, p = %d free initial values\n", r,
                                lth_system_manifold_dim(sys));
  for (int i = 1; i <= r; i++) {
    char first[64], last[64], label[16];
    int off = lth_system_block_offset(sys, i), n = lth_system_block_size(sys, i);
    block_name(pb, off, first, sizeof first);
    block_name(pb, off + n - 1, last, sizeof last);
    snprintf(label, sizeof label, i < r ? "z_%d" : "u  ", i);
    len += (size_t)snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
                            "%s = (%s%s%s) (%s)\n", label, first, n > 1 ? " .. " : "",
                            n > 1 ? last : "", i < r ? "differential" : "algebraic");
  }
  for (int i = 1; pb->mass && i < r; i++) {
    if (pb->mass[i - 1]) {
      len += (size_t)snprintf(len < size ? buf + len : NULL, len < size ? size - len : 0,
                              "mass matrix M(%d) of z_%d\n", i, i);
    }
  }
  return len;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Rank of the k x m rows R (ld k) relative to tol (singular values). */
static int rank_of(double *R, int k, int m, double tol, double *sv, double *work, int lwork) {
  if (LAPACKE_dgesvd_work(LAPACK_COL_MAJOR, 'N', 'N', k, m, R, k, sv, NULL, 1, NULL, 1, work,
                          lwork) != 0) {
    return -1;
  }
  int rank = 0;
  for (int i = 0; i < (k < m ? k : m); i++) {
    rank += sv[i] > tol;
  }
  return rank;
}

lth_status lth_problem_free_initial(const lth_problem *pb, double t, int *vars, lth_error *err) {
  const lth_system *sys = pb->sys;
  int m = lth_system_state_dim(sys), p = lth_system_manifold_dim(sys), r = lth_system_index(sys);
  if (p == 0) {
    return LTH_OK;
  }
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, err);
  lth_point *pt = ws ? lth_point_alloc(sys, 0, err) : NULL;
  int lwork = 10 * (m + p) + 64, k = 0;
  double *R = malloc((size_t)(p + 1) * m * sizeof *R), *C = malloc((size_t)(p + 1) * m * sizeof *C);
  double *sv = malloc((size_t)(m + 1) * sizeof *sv), *work = malloc((size_t)lwork * sizeof *work);
  lth_status st = ws && pt ? LTH_OK : LTH_ENOMEM;
  if (st == LTH_OK && (!R || !C || !sv || !work)) {
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK) {
    st = lth_decomp_at(ws, t, pt, err);
  }
  /* Greedy over the rows of G, positions first: blocks z_{r-1} down to z_1,
   * each in the user's order; a row joins if it raises the rank. */
  double gmax = st == LTH_OK ? lth_jet_maxabs(&pt->G, 0) : 0.0, tol = 1e-10 * gmax;
  for (int i = r - 1; st == LTH_OK && i >= 1 && k < p; i--) {
    int off = lth_system_block_offset(sys, i), n = lth_system_block_size(sys, i);
    for (int u = 0; u < pb->nnames && k < p; u++) { /* user order (index-1 unknowns: c >= s) */
      int c = pb->iperm[u];
      if (c < off || c >= off + n) {
        continue;
      }
      for (int j = 0; j < m; j++) { /* rows so far plus row c, as a (k+1) x m matrix */
        for (int q = 0; q < k; q++) {
          C[q + (size_t)j * (k + 1)] = R[q + (size_t)j * p];
        }
        C[k + (size_t)j * (k + 1)] = LTH_JET_AT(&pt->G, 0, c, j);
      }
      if (rank_of(C, k + 1, m, tol, sv, work, lwork) == k + 1) {
        for (int j = 0; j < m; j++) {
          R[k + (size_t)j * p] = LTH_JET_AT(&pt->G, 0, c, j);
        }
        vars[k++] = u;
      }
    }
  }
  if (st == LTH_OK && k < p) {
    st = lth_error_set_t(err, LTH_ESING, t, "rank G = %d < p = %d: no free initial values found", k,
                         p);
  }
  if (st == LTH_OK) {
    qsort(vars, (size_t)p, sizeof *vars, cmp_int);
  }
  free(R);
  free(C);
  free(sv);
  free(work);
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  return st;
}
