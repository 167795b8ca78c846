/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Smallest use of lth from another CMake project: decompose the sliding mass
 * on a slope (index 3) and print the algebraic variable u = lambda = 2g/5. */
#include <lth/decomp.h>
#include <math.h>
#include <stdio.h>

int main(void) {
  int n[3] = {2, 2, 1};
  double a13[] = {1, 2}, a32[] = {1, 2}, f1[] = {0, -9.81}, f3[] = {-4};
  lth_error err;
  lth_error_clear(&err);
  lth_system *sys = lth_system_alloc(3, n, &err);
  lth_system_set_A(sys, 1, 3, lth_source_const(2, 1, a13, 2, &err), &err);
  lth_system_set_A(sys, 2, 1, lth_source_identity(2, 2, &err), &err);
  lth_system_set_A(sys, 3, 2, lth_source_const(1, 2, a32, 1, &err), &err);
  lth_system_set_f(sys, 1, lth_source_const(2, 1, f1, 2, &err), &err);
  lth_system_set_f(sys, 3, lth_source_const(1, 1, f3, 1, &err), &err);
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, &err);
  lth_point *pt = ws ? lth_point_alloc(sys, 0, &err) : NULL;
  if (!pt || lth_decomp_at(ws, 0.0, pt, &err) != LTH_OK) {
    fprintf(stderr, "consumer: %s\n", err.message[0] ? err.message : lth_strerror(err.status));
    return 1;
  }
  double u = LTH_JET_AT(&pt->q, 0, 4, 0);
  printf("sliding mass: lambda = %.15g (2g/5 = %.15g)\n", u, 2 * 9.81 / 5);
  int ok = fabs(u - 2 * 9.81 / 5) < 1e-12;
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
  lth_system_free(sys);
  return ok ? 0 : 1;
}
