/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Linking lth from a control-design code: the minimal realization of a plant
 * with inputs read from a data file (docs/control.md section 9).
 *
 *   x' = A(t) x + B_0(t) u + g(t),  y = C(t) x + sum_j D_j(t) u^(j) + y_f(t)
 *
 * at a few times by lth_ss_at, then as a coefficient table evaluated at a
 * time between them (lth_ss_table_build, lth_ss_table_eval); both on the same
 * basis Q(t), so they agree to the table's tolerance.
 *
 * Build against an installed lth:
 *   cc -std=c11 ss_realization.c $(pkg-config --cflags --libs lth) -lm
 * Run:  ./ss_realization data/circuit_io.lth
 */
#include <lth/problem.h>
#include <lth/ss.h>
#include <math.h>
#include <stdio.h>

static void print_matrix(const char *name, const double *a, int rows, int cols) {
  printf("  %s =", name);
  for (int i = 0; i < rows; i++) {
    printf(i ? "; " : " [");
    for (int j = 0; j < cols; j++) {
      printf("%s%.6g", j ? " " : "", a[i + j * rows]); /* column-major */
    }
  }
  printf("]\n");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s FILE.lth (a plant with inputs)\n", argv[0]);
    return 1;
  }
  lth_error err;
  lth_error_clear(&err);
  lth_problem *pb = NULL;
  if (lth_problem_read(argv[1], &pb, &err) != LTH_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 2;
  }
  const lth_system *sys = lth_problem_system(pb);
  lth_ss *ss = lth_ss_alloc(sys, NULL, &err); /* defaults: rtol 1e-12, change of state */
  lth_ss_point *pt = ss ? lth_ss_point_alloc(ss, &err) : NULL;
  int rc = pt ? 0 : 3;
  double t0, t1;
  lth_system_interval(sys, &t0, &t1);
  for (int k = 0; k <= 2 && rc == 0; k++) {
    double t = t0 + (t1 - t0) * k / 2.0;
    if (lth_ss_at(ss, t, pt, &err) != LTH_OK) {
      rc = 3;
      break;
    }
    printf("t = %g: p = %d, %d inputs, %d outputs, D_j up to j = %d\n", t, pt->p, pt->nu, pt->ny,
           pt->nd - 1);
    print_matrix("A", pt->A, pt->p, pt->p);
    print_matrix("B0", pt->B, pt->p, pt->nu);
    if (pt->ny > 0) {
      print_matrix("C", pt->C, pt->ny, pt->p);
      for (int j = 0; j < pt->nd; j++) {
        char name[16];
        snprintf(name, sizeof name, "D%d", j);
        print_matrix(name, pt->D + (size_t)j * pt->ny * pt->nu, pt->ny, pt->nu);
      }
    }
  }
  /* the same realization as a table: any t on [t0, t1] for one Clenshaw sum per entry */
  lth_ss_table *tab = rc == 0 ? lth_ss_table_build(ss, t0, t1, 1e-10, &err) : NULL;
  rc = rc == 0 && !tab ? 3 : rc;
  if (rc == 0) {
    double t = t0 + 0.3 * (t1 - t0), worst = 0.0;
    lth_ss_point *direct = lth_ss_point_alloc(ss, &err);
    if (!direct || lth_ss_table_eval(tab, t, pt, &err) != LTH_OK ||
        lth_ss_at(ss, t, direct, &err) != LTH_OK) {
      rc = 3;
    }
    for (int i = 0; rc == 0 && i < pt->p * pt->p; i++) {
      worst = fmax(worst, fabs(pt->A[i] - direct->A[i]) / fmax(1.0, fabs(direct->A[i])));
    }
    size_t panels = 0, evals = 0;
    lth_ss_table_counts(tab, &panels, &evals);
    if (rc == 0) {
      printf("table: %zu panels from %zu evaluations; A at t = %g within %.1e of lth_ss_at\n",
             panels, evals, t, worst);
      rc = worst <= 1e-8 ? 0 : 4;
    }
    lth_ss_point_free(direct);
  }
  if (rc == 3) {
    fprintf(stderr, "%s\n", err.message);
  }
  lth_ss_table_free(tab);
  lth_ss_point_free(pt);
  lth_ss_free(ss);
  lth_problem_free(pb);
  return rc;
}
