/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inputs and outputs (docs/equations.md section 11, lth/system.h):
 *   - a file with `inputs` and signals u(t) = ... against the same file with
 *     the signals written into the equations as a known forcing: the same
 *     assembled A and f jets to order 6 (the decomposition, the IVP and the
 *     BVP read nothing else).  The forcing f + B u rounds the product B u
 *     and the sum once each, the hand-written file rounds its sum inside the
 *     expression, and the mass matrix divides f and B u apart instead of
 *     their sum: a few roundings of terms no larger than the jets, so
 *     1e-14 relative to their size (a wrong sign or a dropped term is O(1));
 *     an input in a constraint row (prescribed motion) is differentiated r
 *     times by the decomposition, so its jets must be the exact ones;
 *   - outputs against y computed by hand from the coefficients, with a named
 *     function in a coefficient and an index-1 unknown in an output (its
 *     value from lth_model_values_at): 1e-14 relative;
 *   - the block form (B(i), C, D) against the equation form;
 *   - the system's own API: B, the signals, the forcing's jets against the
 *     Cauchy product written out, C, D, y0, a free input refused. */
#include <float.h>
#include <string.h>

#include "lth/model.h"
#include "lth/problem.h"
#include "sysdiff.h"
#include "testutil.h"

#define ORDER 6

static lth_problem *parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_status st = lth_problem_parse(text, strlen(text), "io.lth", NULL, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s:%d:%d: %s\n%s", err.file, err.line, err.column, err.message,
                text);
  return pb;
}

/* Largest relative difference of the assembled jets of A and f. */
static double system_diff(const lth_problem *pa, const lth_problem *pbb) {
  double t0, t1;
  lth_problem_interval(pa, &t0, &t1);
  return sysdiff_jets(lth_problem_system(pa), lth_problem_system(pbb), t0, t1, ORDER);
}

static const char *HEAD = "problem equations\n"
                          "variables x1 x2 v1 v2 lam\n"
                          "interval 0 3\n"
                          "param m = 2, k = 3\n"
                          "c(t) = 1 + 0.5*sin(t)\n"
                          "x1' = v1\n"
                          "x2' = v2\n";

START_TEST(test_inputs_as_forcing) {
  char a[4096], b[4096];
  snprintf(a, sizeof a,
           "%sinputs u1, u2\n"
           "m*v1' = -k*x1 + cos(t)*lam + c(t)*u1 - 0.25*u2\n"
           "m*v2' = -k*x2 + sin(t)*lam\n"
           "0 = cos(t)*x1 + sin(t)*x2 - 1 + u2\n"
           "u1(t) = sin(3*t)\n"
           "u2(t) = 0.1*t^2 + exp(-t)\n",
           HEAD);
  snprintf(b, sizeof b,
           "%sm*v1' = -k*x1 + cos(t)*lam + c(t)*sin(3*t) - 0.25*(0.1*t^2 + exp(-t))\n"
           "m*v2' = -k*x2 + sin(t)*lam\n"
           "0 = cos(t)*x1 + sin(t)*x2 - 1 + (0.1*t^2 + exp(-t))\n",
           HEAD);
  lth_problem *pa = parse(a), *pbb = parse(b);
  ck_assert_int_eq(lth_problem_ninputs(pa), 2);
  ck_assert_str_eq(lth_problem_input_name(pa, 1), "u2");
  ck_assert_ptr_null(lth_problem_input_name(pa, 2));
  ck_assert_int_eq(lth_problem_free_input(pa), -1);
  ck_assert_int_eq(lth_problem_nvars(pa), 5); /* inputs are not unknowns */
  double d = system_diff(pa, pbb);
  ck_assert_msg(d <= 1e-14, "systems differ by %g", d);
  /* the model keeps the inputs apart */
  const lth_model *m = lth_problem_model(pa);
  ck_assert_int_eq(lth_model_ninputs(m), 2);
  ck_assert_str_eq(lth_model_input_name(m, 0), "u1");
  ck_assert_int_eq(lth_model_noutputs(m), 0);
  ck_assert_ptr_null(lth_model_output_name(m, 0));
  /* B: u1 in block row 1 (v1), u2 in block row 1 (v1) and the constraint (row 3) */
  const lth_system *sys = lth_problem_system(pa);
  ck_assert_int_eq(lth_system_ninputs(sys), 2);
  ck_assert_ptr_nonnull(lth_system_B(sys, 1));
  ck_assert_ptr_null(lth_system_B(sys, 2));
  ck_assert_ptr_nonnull(lth_system_B(sys, 3));
  ck_assert_ptr_nonnull(lth_system_input(sys, 0));
  ck_assert_ptr_nonnull(lth_system_forcing(sys, 1));
  /* a free input: the file without u2's signal is refused at evaluation */
  lth_problem_free(pa);
  char c[4096];
  snprintf(c, sizeof c, "%s", a);
  *strstr(c, "u2(t)") = '\0';
  pa = parse(c);
  ck_assert_int_eq(lth_problem_free_input(pa), 1);
  int s = lth_system_size(lth_problem_system(pa));
  lth_jet A, f;
  TU_ASSERT_OK(lth_jet_init(&A, s, s, 2, NULL));
  TU_ASSERT_OK(lth_jet_init(&f, s, 1, 2, NULL));
  double *w = malloc((lth_system_work_size(lth_problem_system(pa), 2) + 1) * sizeof *w);
  lth_error err;
  ck_assert_int_eq(lth_system_eval(lth_problem_system(pa), 0.5, 2, &A, &f, w, &err), LTH_EINVAL);
  ck_assert_msg(strstr(err.message, "input 2 has no signal"), "%s", err.message);
  free(w);
  /* given through the API, the same system as the hand-written one */
  lth_expr *e = NULL;
  TU_ASSERT_OK(lth_expr_parse("0.1*t^2 + exp(-t)", 17, NULL, NULL, &e, NULL));
  lth_expr *ents[1] = {e};
  lth_source *sig = lth_source_expr(1, 1, ents, NULL);
  ck_assert_int_eq(lth_problem_set_input(pa, 5, NULL, &err), LTH_EINVAL);
  TU_ASSERT_OK(lth_problem_set_input(pa, 1, sig, NULL));
  ck_assert_int_eq(lth_problem_free_input(pa), -1);
  d = system_diff(pa, pbb);
  ck_assert_msg(d <= 1e-14, "systems differ by %g", d);
  lth_jet_release(&A);
  lth_jet_release(&f);
  lth_problem_free(pa);
  lth_problem_free(pbb);
}
END_TEST

/* y = C z + D u + y0 at t against the coefficients written out. */
START_TEST(test_outputs_by_hand) {
  char a[4096];
  snprintf(a, sizeof a,
           "%sinputs u1\n"
           "outputs y1 = x1 - 0.5*x2, y2 = c(t)*lam + 2*u1 + 1\n"
           "m*v1' = -k*x1 + cos(t)*lam + u1\n"
           "m*v2' = -k*x2 + sin(t)*lam\n"
           "0 = cos(t)*x1 + sin(t)*x2 - 1\n"
           "u1(t) = sin(3*t)\n",
           HEAD);
  lth_problem *pb = parse(a);
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_problem_noutputs(pb), 2);
  ck_assert_str_eq(lth_problem_output_name(pb, 0), "y1");
  ck_assert_ptr_null(lth_problem_output_name(pb, 2));
  ck_assert_int_eq(lth_system_noutputs(sys), 2);
  ck_assert_ptr_nonnull(lth_system_C(sys));
  ck_assert_ptr_nonnull(lth_system_D(sys));
  ck_assert_ptr_nonnull(lth_system_output_offset(sys));
  double user[5] = {0.7, -1.3, 0.2, 2.5, -0.9}, z[5], y[2];
  lth_problem_to_canonical(pb, user, z);
  for (int p = 0; p < 5; p++) {
    double t = 0.3 + 0.6 * p;
    TU_ASSERT_OK(lth_system_outputs(sys, t, z, y, NULL));
    double y1 = user[0] - 0.5 * user[1];
    double y2 = (1 + 0.5 * sin(t)) * user[4] + 2 * sin(3 * t) + 1;
    ck_assert_msg(fabs(y[0] - y1) <= 1e-14 * (fabs(user[0]) + fabs(user[1])), "y1 %g", y[0] - y1);
    ck_assert_msg(fabs(y[1] - y2) <= 1e-14 * (fabs(user[4]) * 1.5 + 3), "y2 %g", y[1] - y2);
  }
  lth_problem_free(pb);
}
END_TEST

/* An output of index-1 unknowns equals their values (lth_model_values_at). */
START_TEST(test_output_index1) {
  char path[1024], *text = NULL;
  snprintf(path, sizeof path, "%s/circuit_mna.lth", getenv("LTH_DATA_DIR"));
  FILE *fp = fopen(path, "rb");
  ck_assert_ptr_nonnull(fp);
  text = calloc(1 << 16, 1);
  size_t len = fread(text, 1, (1 << 16) - 200, fp);
  fclose(fp);
  snprintf(text + len, 200, "\noutputs y = e3 - 2*iV + cos(t)*e2, w = e4\n");
  lth_problem *pb = parse(text);
  const lth_model *m = lth_problem_model(pb);
  int nv = lth_model_nvars(m), s = lth_model_size(m);
  ck_assert_int_gt(nv, s);
  lth_model_values *vals = lth_model_values_alloc(m, NULL);
  double z[64], user[64], y[2];
  for (int k = 0; k < s; k++) {
    z[k] = 0.3 * k - 1.1;
  }
  for (int p = 0; p < 4; p++) {
    double t = 0.7 + 2.1 * p;
    TU_ASSERT_OK(lth_model_values_at(vals, t, z, NULL, user, NULL, NULL));
    TU_ASSERT_OK(lth_system_outputs(lth_problem_system(pb), t, z, y, NULL));
    int e3 = lth_problem_find_var(pb, "e3"), iV = lth_problem_find_var(pb, "iV"),
        e2 = lth_problem_find_var(pb, "e2"), e4 = lth_problem_find_var(pb, "e4");
    double want = user[e3] - 2 * user[iV] + cos(t) * user[e2];
    double size = fabs(user[e3]) + 2 * fabs(user[iV]) + fabs(user[e2]) + 1;
    ck_assert_msg(fabs(y[0] - want) <= 1e-14 * size, "y %g vs %g", y[0], want);
    ck_assert_msg(fabs(y[1] - user[e4]) <= 1e-14 * (fabs(user[e4]) + 1), "w %g", y[1] - user[e4]);
  }
  lth_model_values_free(vals);
  lth_problem_free(pb);
  free(text);
}
END_TEST

/* The system's API on a small index-2 system: x' = a x + lambda + b(t)'
 * (u1, u2), 0 = x + u2. */
/* The block form (docs/format.md section 1.4): the same plant as
 * test_inputs_as_forcing with B(1), B(3), C and D, against the equation
 * form (its canonical z is (v1, v2, x1, x2, lam)); with M(1) = m*eye the
 * B(1) written unscaled: the same jets to 1e-14 (the roundings of
 * test_inputs_as_forcing; a B(1) that skipped M(1)^{-1} is off by a factor
 * m = 2).  The outputs by hand from C and D, named y[1], y[2] by default. */
static const char *BLOCK_IO = "problem dae\n"
                              "blocks 2 2 1\n"
                              "interval 0 3\n"
                              "param m = 2, k = 3\n"
                              "c(t) = 1 + 0.5*sin(t)\n"
                              "inputs u1 u2\n"
                              "A(2,1) = eye\n"
                              "A(3,2) = [cos(t), sin(t)]\n"
                              "f(3) = -1\n"
                              "B(3) = [0, 1]\n"
                              "u1(t) = sin(3*t)\n"
                              "u2(t) = 0.1*t^2 + exp(-t)\n"
                              "C = [0, 0, 1, -0.5, 0; 0, 0, 0, 0, c(t)]\n"
                              "D = [0, 0; 2, 0]\n";

START_TEST(test_block_form) {
  char a[4096], b[4096], c[4096];
  snprintf(a, sizeof a,
           "%sinputs u1, u2\n"
           "m*v1' = -k*x1 + cos(t)*lam + c(t)*u1 - 0.25*u2\n"
           "m*v2' = -k*x2 + sin(t)*lam\n"
           "0 = cos(t)*x1 + sin(t)*x2 - 1 + u2\n"
           "u1(t) = sin(3*t)\n"
           "u2(t) = 0.1*t^2 + exp(-t)\n",
           HEAD);
  snprintf(b, sizeof b,
           "%sA(1,2) = -k/m*eye\n"
           "A(1,3) = [cos(t); sin(t)]/m\n"
           "B(1) = [c(t)/m, -0.25/m; 0, 0]\n",
           BLOCK_IO);
  snprintf(c, sizeof c,
           "%sM(1) = m*eye\n"
           "A(1,2) = -k*eye\n"
           "A(1,3) = [cos(t); sin(t)]\n"
           "B(1) = [c(t), -0.25; 0, 0]\n",
           BLOCK_IO);
  lth_problem *pe = parse(a), *pb = parse(b), *pm = parse(c);
  double d = system_diff(pe, pb), dm = system_diff(pe, pm);
  ck_assert_msg(d <= 1e-14, "block form differs by %g", d);
  ck_assert_msg(dm <= 1e-14, "block form with M(1) differs by %g", dm);
  ck_assert_int_eq(lth_problem_ninputs(pb), 2);
  ck_assert_str_eq(lth_problem_input_name(pb, 1), "u2");
  ck_assert_int_eq(lth_problem_noutputs(pb), 2);
  ck_assert_str_eq(lth_problem_output_name(pb, 1), "y[2]");
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_ptr_nonnull(lth_system_B(sys, 1));
  ck_assert_ptr_null(lth_system_B(sys, 2));
  ck_assert_ptr_nonnull(lth_system_B(sys, 3));
  ck_assert_ptr_null(lth_system_output_offset(sys));
  double z[5] = {0.7, -1.3, 0.2, 2.5, -0.9}, y[2];
  for (int p = 0; p < 5; p++) {
    double t = 0.3 + 0.6 * p;
    TU_ASSERT_OK(lth_system_outputs(sys, t, z, y, NULL));
    double y1 = z[2] - 0.5 * z[3], y2 = (1 + 0.5 * sin(t)) * z[4] + 2 * sin(3 * t);
    ck_assert_msg(fabs(y[0] - y1) <= 1e-14 * 2, "y1 %g", y[0] - y1);
    ck_assert_msg(fabs(y[1] - y2) <= 1e-14 * 4, "y2 %g", y[1] - y2);
  }
  lth_problem_free(pe);
  lth_problem_free(pb);
  lth_problem_free(pm);
}
END_TEST

START_TEST(test_system_api) {
  int n[2] = {1, 1};
  lth_error err;
  lth_system *sys = lth_system_alloc(2, n, NULL);
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 2, lth_source_const(1, 1, (double[]){1.0}, 1, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 2, 1, lth_source_const(1, 1, (double[]){1.0}, 1, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_f(sys, 1, lth_source_const(1, 1, (double[]){0.5}, 1, NULL), NULL));
  ck_assert_int_eq(
      lth_system_set_B(sys, 1, lth_source_const(1, 2, (double[]){1, 2}, 1, NULL), &err),
      LTH_EINVAL); /* no inputs declared */
  TU_ASSERT_OK(lth_system_set_inputs(sys, 2, NULL));
  ck_assert_int_eq(lth_system_ninputs(sys), 2);
  ck_assert_int_eq(lth_system_set_B(sys, 1, lth_source_const(1, 1, (double[]){1}, 1, NULL), &err),
                   LTH_EDIM);
  lth_expr *e[2] = {NULL, NULL};
  TU_ASSERT_OK(lth_expr_parse("1 + t", 5, NULL, NULL, &e[0], NULL));
  TU_ASSERT_OK(lth_expr_parse("-2", 2, NULL, NULL, &e[1], NULL));
  TU_ASSERT_OK(lth_system_set_B(sys, 1, lth_source_expr(1, 2, e, NULL), NULL));
  TU_ASSERT_OK(lth_system_set_B(sys, 2, lth_source_const(1, 2, (double[]){0, 1}, 1, NULL), NULL));
  ck_assert_int_eq(lth_system_free_input(sys), 0);
  lth_expr *s1 = NULL, *s2 = NULL;
  TU_ASSERT_OK(lth_expr_parse("sin(t)", 6, NULL, NULL, &s1, NULL));
  TU_ASSERT_OK(lth_expr_parse("t^3", 3, NULL, NULL, &s2, NULL));
  TU_ASSERT_OK(lth_system_set_input(sys, 0, lth_source_expr(1, 1, &s1, NULL), NULL));
  ck_assert_int_eq(lth_system_free_input(sys), 1);
  TU_ASSERT_OK(lth_system_set_input(sys, 1, lth_source_expr(1, 1, &s2, NULL), NULL));
  ck_assert_int_eq(lth_system_free_input(sys), -1);
  ck_assert_int_eq(lth_system_set_input(sys, 2, NULL, &err), LTH_EINVAL);
  /* F_1 = 0.5 + (1 + t) sin(t) - 2 t^3, F_2 = t^3: Taylor coefficients at t */
  double t = 0.8;
  lth_jet F;
  TU_ASSERT_OK(lth_jet_init(&F, 1, 1, 4, NULL));
  double *w = malloc((lth_source_work_size(lth_system_forcing(sys, 1), 4) + 1) * sizeof *w);
  TU_ASSERT_OK(lth_source_fill(lth_system_forcing(sys, 1), t, 4, &F, w, NULL));
  double sn[5] = {sin(t), cos(t), -sin(t) / 2, -cos(t) / 6, sin(t) / 24};
  double cube[5] = {t * t * t, 3 * t * t, 3 * t, 1, 0};
  for (int k = 0; k <= 4; k++) {
    double want =
        (k == 0 ? 0.5 : 0.0) + sn[k] + (k ? t * sn[k] + sn[k - 1] : t * sn[k]) - 2 * cube[k];
    ck_assert_msg(fabs(LTH_JET_AT(&F, k, 0, 0) - want) <= 1e-15 * 8, "F_1 coefficient %d: %g", k,
                  LTH_JET_AT(&F, k, 0, 0) - want);
  }
  free(w);
  lth_jet_release(&F);
  /* outputs */
  ck_assert_int_eq(lth_system_set_outputs(sys, 1,
                                          lth_source_const(1, 3, (double[]){1, 2, 3}, 1, NULL),
                                          NULL, NULL, &err),
                   LTH_EDIM);
  TU_ASSERT_OK(lth_system_set_outputs(sys, 1, lth_source_const(1, 2, (double[]){1, 2}, 1, NULL),
                                      lth_source_const(1, 2, (double[]){0, 3}, 1, NULL),
                                      lth_source_const(1, 1, (double[]){-1}, 1, NULL), NULL));
  double z[2] = {0.25, -0.5}, y;
  TU_ASSERT_OK(lth_system_outputs(sys, t, z, &y, NULL));
  ck_assert_msg(fabs(y - (0.25 - 1.0 + 3 * t * t * t - 1)) <= 1e-15, "y %g", y);
  ck_assert_int_eq(lth_system_noutputs(sys), 1);
  /* a free input again: D u refuses */
  TU_ASSERT_OK(lth_system_set_input(sys, 1, NULL, NULL));
  ck_assert_int_eq(lth_system_outputs(sys, t, z, &y, &err), LTH_EINVAL);
  lth_system_free(sys);
}
END_TEST

/* Names are unique among unknowns, inputs and outputs. */
START_TEST(test_model_names) {
  lth_model *m = lth_model_alloc(NULL);
  ck_assert_int_eq(lth_model_add_variable(m, "x", 1, 1, NULL), 0);
  ck_assert_int_eq(lth_model_add_input(m, "x", 2, 1, NULL), -1);
  ck_assert_int_eq(lth_model_add_input(m, "u", 2, 1, NULL), 0);
  ck_assert_int_eq(lth_model_add_output(m, "u", 3, 1, NULL), -1);
  ck_assert_int_eq(lth_model_add_output(m, "y", 3, 1, NULL), 0);
  ck_assert_int_eq(lth_model_add_variable(m, "y", 1, 1, NULL), -1);
  ck_assert_int_eq(lth_model_ninputs(m), 1);
  ck_assert_int_eq(lth_model_noutputs(m), 1);
  ck_assert_str_eq(lth_model_output_name(m, 0), "y");
  lth_model_free(m);
}
END_TEST

static Suite *io_suite(void) {
  Suite *s = suite_create("problem_io");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_inputs_as_forcing);
  tcase_add_test(tc, test_outputs_by_hand);
  tcase_add_test(tc, test_output_index1);
  tcase_add_test(tc, test_block_form);
  tcase_add_test(tc, test_system_api);
  tcase_add_test(tc, test_model_names);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(io_suite)
