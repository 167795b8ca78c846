/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the singular and partially singular LQR on a DAE plant
 * (include/lth/plqr.h, docs/control.md section 13).
 *
 * With a constant orthogonal U = [U1 U2] splitting the inputs so that
 * U'RU = diag(R1, 0), R1 > 0, and S U2 = 0 (as a positive semidefinite
 * cost makes it), u = U1 u1 + U2 u2 and u1 = -R1^-1 (S1'x + B1'lambda + r1)
 * are eliminated (Clark's section 4.2: the partially singular problem
 * reduced to a totally singular one in u2).  With the state c of the
 * cost's affine part, the optimality DAE in (x, c; lambda; u2) is
 * Hessenberg of index 3 (Clark (4.9)):
 *   x'      = At x - B1 R1^-1 B1' lambda + B2 u2 + gt,
 *   c'      = qt'x + gt'lambda + r2'u2 + ct,
 *   lambda' = -Qt x - At' lambda - qt,
 *   0       = B2'lambda + r2,
 * At = A - B1 R1^-1 S1', Qt = Q - S1 R1^-1 S1', gt = g - B1 R1^-1 r1,
 * qt = q - S1 R1^-1 r1, ct = c0 - r1'R1^-1 r1, Pi = -B2'Qt B2,
 * with x(t0) = x0 + B2(t0) eta (an impulse of u2 at t0 onto the singular
 * arc where x0 is off it; it costs 2 r2'eta), c(t0) = 0, lambda(t1) =
 * P1 x(t1) + p1 (the final cost
 * x'P1 x + 2 p1'x + c1).  lambda is half the multiplier (J has no 1/2), and
 * J* = x0'lambda(t0) + p1'x(t1) + c1 + c(t1): d/dt(x'lambda) = -L + q'x +
 * r'u + g'lambda + c0 on the optimum. */
#ifndef LTH_PLQR_SING_H
#define LTH_PLQR_SING_H

#include "plqr_impl.h"

/* The split of the inputs at t: nu2 = dim ker R(t), the eigenvalues of R
 * below LTH_PLQR_RANK_TOL times the scale ||W|| max(1, ||N||)^2 counting as
 * zero; U (nu x nu) = [U1 U2] (the eigenvectors).  Reads L's weights at t. */
#define LTH_PLQR_RANK_TOL 1e-10
/* That scale, ||W|| max(1, ||N||)^2 (max norms), from L's weights at the last t. */
double plqr_r_scale(const plqr *L);
lth_status plqr_split_inputs(plqr *L, double t, int *nu2, double *U, lth_error *err);

/* The weighted block U1'R U1 (U1: U's first nu - nu2 columns) positive
 * definite on [t0, t1]: a scan with its minima refined (plqr_rcheck.c);
 * LTH_EDATA naming t where R changes rank. */
lth_status plqr_check_rank(plqr *L, int nu2, const double *U, lth_error *err);

/* The singular path: the optimality DAE above by collocation, from z0,
 * reporting at times into res (no gains: res->have_gain = 0). */
lth_status plqr_singular_solve(plqr *L, int nu2, const double *U, const double *z0,
                               const double *times, size_t n, lth_plqr_result *res, lth_error *err);

/* ---- the optimality DAE's data (plqr_sing_data.c) ---- */
typedef struct plqr_sing plqr_sing;
/* Blocks of the optimality DAE as sources: A11, A12, A13, A21, A22, A32,
 * f1, f2, f3 (the order of plqr_sing_system). */
plqr_sing *plqr_sing_alloc(plqr *L, int nu2, const double *U, lth_error *err);
void plqr_sing_free(plqr_sing *S);
/* The system of the optimality DAE (blocks p + 1, p, nu2) on [t0, t1]; it
 * reads S, which must outlive it. */
lth_status plqr_sing_system(plqr_sing *S, lth_system **out, lth_error *err);
/* The values at t (order 0) of what the results need: w = M x + N u + m's
 * maps (n x p, n x nu, n), the weights W, l, c, and u1's feedback
 * u1 = -(T1 x + T2 lambda + t3) (nu1 x p, nu1 x p, nu1). */
typedef struct plqr_sing_values {
  const double *M, *N, *mv, *W, *l, *T1, *T2, *t3;
  double c;
  int ldT; /* nu1 */
} plqr_sing_values;
lth_status plqr_sing_values_at(plqr_sing *S, double t, plqr_sing_values *v, lth_error *err);
/* The first failure inside a source callback (for the caller's error record). */
const lth_error *plqr_sing_error(const plqr_sing *S);

#endif
