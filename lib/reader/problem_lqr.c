/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: singular LQR problems (`problem lqr`, docs/format.md
 * section 1.2): sizes, A, B, H, C, x0, and the optimality DAE they build.
 * lib/reader/problem_impl.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lqr/lqr_check.h"
#include "lth/samples.h"
#include "problem_impl.h"

#define SYM_TOL 1e-12
/* C up to this nx is held densely (a literal, eye or mm()); beyond, eye and
 * mm() stay sparse (spec.C_src) for the operator path. */
#define LQR_DENSE_C_MAX 1000

lth_status lth_pp_st_sizes(lth_pp *P, size_t kw) {
  long nx, nu;
  size_t a, b;
  lth_status st = lth_pp_once(P, &P->at_sizes, kw, "sizes");
  if (st == LTH_OK) {
    st = lth_pcur_int(&P->c, 1, LTH_P_MAX_BLOCK_SIZE, "the state size nx", &nx, &a);
  }
  if (st == LTH_OK) {
    st = lth_pcur_int(&P->c, 1, LTH_P_MAX_BLOCK_SIZE, "the control size nu", &nu, &b);
  }
  if (st == LTH_OK && nu >= nx) {
    st = LTH_PERR(P, b, LTH_EDIM,
                  "nu = %ld must be less than nx = %ld (`sizes nx nu`, nx > nu >= 1)", nu, nx);
  }
  if (st != LTH_OK || (st = lth_pcur_end(&P->c, "`sizes nx nu`")) != LTH_OK) {
    return st;
  }
  P->nx = (int)nx;
  P->nu = (int)nu;
  return LTH_OK;
}

/* A constant expression field of a statement ("t0" ...). */

/* C by mm() must be constant: its enclosure of the first Taylor
 * coefficient over [t0, t1] is exactly zero (a proof, not a sample). */
static lth_status lqr_C_constant(lth_pp *P, const lth_source *src) {
  lth_spos at = P->at_lqr[LTH_P_LQR_C];
  int nnz = 0;
  const int *cp, *ri;
  if (!lth_source_can_enclose_csc(src) ||
      lth_source_csc_pattern(src, &nnz, &cp, &ri, NULL) != LTH_OK) {
    return lth_pp_at_error(P, at, LTH_EPARSE, "C = mm(...) must be a constant sparse matrix");
  }
  size_t w = lth_source_enclose_work_size(src, 1);
  lth_interval *iv = malloc(sizeof *iv * (2 * (size_t)nnz + w + 1));
  if (!iv) return lth_pp_at_error(P, at, LTH_ENOMEM, "out of memory");
  double t0 = P->pb->t0, t1 = P->pb->t1 > t0 ? P->pb->t1 : t0;
  lth_status st = lth_source_enclose_csc(src, t0, t1, 1, iv, nnz ? (size_t)nnz : 1,
                                         iv + 2 * (size_t)nnz, P->err);
  int constant = st == LTH_OK;
  for (int q = 0; constant && q < nnz; q++) {
    constant = iv[nnz + q].lo == 0.0 && iv[nnz + q].hi == 0.0;
  }
  free(iv);
  return constant ? LTH_OK
                  : lth_pp_at_error(P, at, LTH_EPARSE,
                                    "C (the terminal weight) must be constant, but a coefficient "
                                    "uses t");
}

/* LQR matrices A, B, H (sources) and C (constant). */
static lth_status lqr_matrix(lth_pp *P, size_t kw, int which) {
  static const char *const names[] = {"A", "B", "H", "C"};
  const char *name = names[which];
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after the matrix name");
  if (st == LTH_OK) {
    st = lth_pp_once(P, &P->at_lqr[which], kw, name);
  }
  if (st == LTH_OK && !P->nx) {
    st =
        LTH_PERR(P, kw, LTH_EPARSE, "%s before `sizes`: the sizes nx nu must be given first", name);
  }
  if (st != LTH_OK) {
    return st;
  }
  int rows = P->nx, cols = which == LTH_P_LQR_B ? P->nu : P->nx;
  if (which == LTH_P_LQR_C && (P->nx <= LQR_DENSE_C_MAX || !lth_pp_rhs_sparse_text(P))) {
    if ((st = lth_pp_charge_entries(P, kw, rows, cols)) != LTH_OK) {
      return st;
    }
    return lth_pp_parse_const(P, "C (the terminal weight)", rows, cols,
                              LTH_PP_CONST_EYE | LTH_PP_CONST_MM, &P->pb->C);
  }
  /* A, B, H, and C given by mm(): sources (sparse ones charged by their
   * entries, not rows x cols) */
  size_t pb_, pn;
  lth_source *src;
  st = lth_pp_parse_block(P, kw, name, rows, cols, &src, &pb_, &pn);
  if (st != LTH_OK) {
    return st;
  }
  P->pb->lqr_src[which] = src;
  return lth_source_is_samples(src)
             ? lth_pp_add_sampled(P, name, src, lth_pp_here(P, pb_), P->c.tx->buf + pb_, pn)
             : LTH_OK;
}

lth_status lth_pp_lqr_A(lth_pp *P, size_t kw) { return lqr_matrix(P, kw, LTH_P_LQR_A); }
/* B and C are also statements of the block form: B(i), the outputs' C. */
lth_status lth_pp_st_B(lth_pp *P, size_t kw) {
  return P->pb->kind == LTH_PROBLEM_LQR ? lqr_matrix(P, kw, LTH_P_LQR_B) : lth_pp_iob_B(P, kw);
}
lth_status lth_pp_st_H(lth_pp *P, size_t kw) { return lqr_matrix(P, kw, LTH_P_LQR_H); }
lth_status lth_pp_st_C(lth_pp *P, size_t kw) {
  return P->pb->kind == LTH_PROBLEM_LQR ? lqr_matrix(P, kw, LTH_P_LQR_C) : lth_pp_iob_C(P, kw);
}

lth_status lth_pp_st_x0(lth_pp *P, size_t kw) {
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after x0");
  if (st == LTH_OK) {
    st = lth_pp_once(P, &P->at_x0, kw, "x0");
  }
  if (st == LTH_OK && !P->nx) {
    st = LTH_PERR(P, kw, LTH_EPARSE, "x0 before `sizes`: the sizes nx nu must be given first");
  }
  return st != LTH_OK ? st : lth_pp_parse_const(P, "x0", -P->nx, 1, 0, &P->pb->x0);
}

static int symmetric(const double *M, int n, double *asym) {
  double mx = 0.0, d = 0.0;
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < n; i++) {
      double a = M[i + (size_t)j * n], b = M[j + (size_t)i * n];
      mx = fabs(a) > mx ? fabs(a) : mx;
      d = fabs(a - b) > d ? fabs(a - b) : d;
    }
  }
  *asym = d;
  return d <= SYM_TOL * mx;
}

/* H must be symmetric: checked at t0 (for constant H that is everywhere). */
static lth_status check_H(lth_pp *P) {
  const lth_source *H = P->pb->lqr_src[LTH_P_LQR_H];
  int nx = P->nx;
  lth_jet J;
  lth_status st = lth_jet_init(&J, nx, nx, 0, P->err);
  double *work = NULL, asym = 0.0;
  if (st != LTH_OK) {
    return lth_pp_relocate(P, P->at_lqr[LTH_P_LQR_H], st);
  }
  size_t wn = lth_source_work_size(H, 0);
  work = malloc((wn ? wn : 1) * sizeof *work);
  if (!work) {
    st = lth_pp_at_error(P, P->at_lqr[LTH_P_LQR_H], LTH_ENOMEM, "out of memory");
  } else if ((st = lth_source_fill(H, P->pb->t0, 0, &J, work, P->err)) != LTH_OK) {
    lth_error_prefix(P->err, "H at t0 = %.17g: ", P->pb->t0);
    st = lth_pp_relocate(P, P->at_lqr[LTH_P_LQR_H], st);
  } else if (!symmetric(J.c, nx, &asym)) {
    st = lth_pp_at_error(P, P->at_lqr[LTH_P_LQR_H], LTH_EPARSE,
                         "H must be symmetric, but max |H - H'| = %.3g at t0 = %.17g", asym,
                         P->pb->t0);
  }
  free(work);
  lth_jet_release(&J);
  return st;
}

lth_status lth_pp_finish_lqr(lth_pp *P) {
  lth_problem *pb = P->pb;
  static const char *const missing[] = {
      "missing `A = [...]` statement (the nx x nx dynamics; write zeros for A = 0)",
      "missing `B = [...]` statement (the nx x nu input matrix)",
      "missing `H = [...]` statement (the nx x nx state weight)"};
  double asym = 0.0;
  if (!P->nx) {
    return lth_pp_at_error(P, P->at_sizes, LTH_EPARSE, "missing `sizes nx nu` statement");
  }
  for (int k = 0; k < 3; k++) {
    if (!pb->lqr_src[k]) {
      return lth_pp_at_error(P, P->at_lqr[k], LTH_EPARSE, "%s", missing[k]);
    }
  }
  if (!pb->x0) {
    return lth_pp_at_error(P, P->at_x0, LTH_EPARSE,
                           "missing `x0 = [...]` statement (the initial state)");
  }
  lth_status st = lth_pp_check_common(P);
  if (st == LTH_OK && !lth_source_is_sparse(pb->lqr_src[LTH_P_LQR_H])) {
    st = check_H(P); /* a sparse H is checked on its pattern by the solvers */
  }
  if (st == LTH_OK && pb->lqr_src[LTH_P_LQR_C]) {
    st = lqr_C_constant(P, pb->lqr_src[LTH_P_LQR_C]);
  }
  if (st == LTH_OK && pb->C && !symmetric(pb->C, P->nx, &asym)) {
    st = lth_pp_at_error(P, P->at_lqr[LTH_P_LQR_C], LTH_EPARSE,
                         "C must be symmetric, but max |C - C'| = %.3g", asym);
  }
  /* C omitted is zero: formed densely only where the dense path can run
   * (lth_lqr_solve forms it from C_src, or zero, when C is NULL) */
  if (st != LTH_OK) {
    return st;
  }
  pb->lqr = (lth_lqr_spec){.nx = P->nx,
                           .nu = P->nu,
                           .t0 = pb->t0,
                           .t1 = pb->t1,
                           .A = pb->lqr_src[LTH_P_LQR_A],
                           .B = pb->lqr_src[LTH_P_LQR_B],
                           .H = pb->lqr_src[LTH_P_LQR_H],
                           .C = pb->C,
                           .x0 = pb->x0,
                           .C_src = pb->lqr_src[LTH_P_LQR_C]};
  pb->name = malloc(strlen(P->tx.name) + 1);
  if (!pb->name) {
    return lth_pp_at_error(P, P->at_sizes, LTH_ENOMEM, "out of memory");
  }
  strcpy(pb->name, P->tx.name);
  for (int k = 0; k < 4; k++) { /* for lth_problem_lqr_check's messages */
    pb->lqr_at[k] = P->at_lqr[k];
  }
  st = lth_lqr_build_system(&pb->lqr, &pb->sys, P->err);
  return st != LTH_OK ? lth_pp_relocate(P, P->at_sizes, st) : LTH_OK;
}

lth_status lth_problem_lqr_check(const lth_problem *pb, const double *times, size_t n,
                                 lth_error *err) {
  if (!pb || pb->kind != LTH_PROBLEM_LQR || !pb->name) {
    return lth_error_set(err, LTH_EINVAL, "lth_problem_lqr_check: not a `problem lqr` file");
  }
  int which = LTH_P_LQR_C;
  lth_status st = lth_lqr_check_C(&pb->lqr, err);
  if (st == LTH_OK) {
    which = LTH_P_LQR_H;
    st = lth_lqr_check_H(&pb->lqr, times, n, err);
  }
  if (st != LTH_OK && st != LTH_ENOMEM && err) {
    /* keeps the status (LTH_EDATA: an input error) and t */
    lth_error_set_pos(err, pb->name, pb->lqr_at[which].line, pb->lqr_at[which].col);
  }
  return st;
}

lth_status lth_problem_lqr_locate(const lth_problem *pb, lth_error *err) {
  if (!pb || pb->kind != LTH_PROBLEM_LQR || !pb->name || !err || err->status != LTH_EDATA ||
      (err->message[0] != 'H' && err->message[0] != 'C') || err->message[1] != ' ') {
    return LTH_EINVAL;
  }
  int which = err->message[0] == 'H' ? LTH_P_LQR_H : LTH_P_LQR_C;
  lth_error_set_pos(err, pb->name, pb->lqr_at[which].line, pb->lqr_at[which].col);
  return LTH_OK;
}
