/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cost statements (docs/equations.md section 12, lth_problem_cost):
 *   - W, l, c and F, f, cF against hand values for costs with cross terms,
 *     tracking terms, t-dependent weights (their t-derivative too: the
 *     coefficients are functions, not frozen values), params, several
 *     statements that add up, the final cost's coefficients at t1, and a
 *     velocity unknown x' where x'' appears; positions in w = (z, u, y)
 *     through the canonical order (lth_problem_iperm);
 *   - a property test: w'W w + 2 w'l + c at random w and t against the
 *     written expression evaluated by the expression parser with the
 *     variables' values substituted (an independent path: no expansion),
 *     to 1e-13 relative to the terms' size;
 *   - the refusals, each naming file:line:column. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lth/expr.h"
#include "lth/problem.h"
#include "testutil.h"

/* The cart pair of docs/equations.md section 11 with free inputs. */
static const char *PLANT = "problem equations\n"
                           "variables x1 x2 v1 v2 lam\n"
                           "inputs u1 u2\n"
                           "interval 0 3\n"
                           "param m = 2, k = 3\n"
                           "c(t) = 1 + 0.5*sin(t)\n"
                           "r(t) = sin(2*t)\n"
                           "outputs y1 = x1 - 0.5*x2, tension = c(t)*lam + 2*u1\n"
                           "x1' = v1\n"
                           "x2' = v2\n"
                           "m*v1' = -k*x1 + cos(t)*lam + c(t)*u1\n"
                           "m*v2' = -k*x2 + sin(t)*lam\n"
                           "0 = cos(t)*x1 + sin(t)*x2 - 1 + u2\n";
#define S  5 /* unknowns */
#define NU 2
#define NY 2
#define N  (S + NU + NY)

static lth_problem *parse_text(const char *text, lth_error *err, lth_status *st) {
  lth_problem *pb = NULL;
  *st = lth_problem_parse(text, strlen(text), "cost.lth", NULL, &pb, err);
  return pb;
}

/* The plant with the lines `more` appended. */
static lth_problem *plant(const char *more) {
  static char text[8192];
  snprintf(text, sizeof text, "%s%s", PLANT, more);
  lth_error err;
  lth_status st;
  lth_problem *pb = parse_text(text, &err, &st);
  ck_assert_msg(st == LTH_OK, "%s:%d:%d: %s\n%s", err.file, err.line, err.column, err.message,
                more);
  return pb;
}

/* The plant with `more` must be refused at line:col with msg in the message. */
static void refused(const char *more, int line, int col, const char *msg) {
  char text[8192];
  snprintf(text, sizeof text, "%s%s", PLANT, more);
  lth_error err;
  lth_status st;
  lth_problem *pb = parse_text(text, &err, &st);
  ck_assert_msg(st == LTH_EPARSE && !pb, "accepted (status %d): %s", st, more);
  ck_assert_msg(strstr(err.message, msg), "message '%s' lacks '%s' (%s)", err.message, msg, more);
  ck_assert_msg(err.line == line && err.column == col, "%s at %d:%d, expected %d:%d (%s)",
                err.message, err.line, err.column, line, col, more);
  ck_assert_str_eq(err.file, "cost.lth");
}

/* Position in w of the user's unknown called name. */
static int zpos(const lth_problem *pb, const char *name) {
  int k = lth_problem_find_var(pb, name);
  ck_assert_int_ge(k, 0);
  return lth_problem_iperm(pb)[k];
}
#define UPOS(j) (S + (j))
#define YPOS(j) (S + NU + (j))

/* Value (m = 0) or first derivative (m = 1) of a source's entry (i, j) at t. */
static double at(const lth_source *src, double t, int m, int i, int j) {
  if (!src) {
    return 0.0;
  }
  lth_jet J;
  TU_ASSERT_OK(lth_jet_init(&J, lth_source_rows(src), lth_source_cols(src), 1, NULL));
  double *w = malloc((lth_source_work_size(src, 1) + 1) * sizeof *w);
  TU_ASSERT_OK(lth_source_fill(src, t, 1, &J, w, NULL));
  double v = LTH_JET_AT(&J, m, i, j);
  free(w);
  lth_jet_release(&J);
  return v; /* coefficient 1 is the derivative itself */
}

/* Every entry of W, l, c at t against the expected ones (the rest 0). */
typedef struct entry {
  int i, j;
  double v;
} entry;

static void check_W(const lth_plqr_cost *c, double t, const entry *e, int ne) {
  ck_assert_int_eq(lth_source_rows(c->W), N);
  ck_assert_int_eq(lth_source_cols(c->W), N);
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      double want = 0.0;
      for (int k = 0; k < ne; k++) {
        if ((e[k].i == i && e[k].j == j) || (e[k].i == j && e[k].j == i)) {
          want = e[k].v;
        }
      }
      double got = at(c->W, t, 0, i, j);
      ck_assert_msg(fabs(got - want) <= 1e-15 * (1 + fabs(want)),
                    "W(%d,%d) at %g = %.17g, want %.17g", i, j, t, got, want);
    }
  }
}

static void check_vec(const lth_source *l, double t, const entry *e, int ne) {
  for (int i = 0; i < N; i++) {
    double want = 0.0;
    for (int k = 0; k < ne; k++) {
      want = e[k].i == i ? e[k].v : want;
    }
    double got = at(l, t, 0, i, 0);
    ck_assert_msg(fabs(got - want) <= 1e-15 * (1 + fabs(want)), "l(%d) at %g = %.17g, want %.17g",
                  i, t, got, want);
  }
}

START_TEST(test_no_cost) {
  lth_problem *pb = plant("");
  ck_assert_ptr_null(lth_problem_cost(pb));
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_issue_spellings) {
  lth_problem *pb = plant("cost integral y1^2 + 0.01*u1^2\n"
                          "cost final 10*y1^2\n");
  const lth_plqr_cost *c = lth_problem_cost(pb);
  ck_assert_ptr_nonnull(c);
  entry W[] = {{YPOS(0), YPOS(0), 1.0}, {UPOS(0), UPOS(0), 0.01}};
  check_W(c, 0.7, W, 2);
  check_vec(c->l, 0.7, NULL, 0);
  ck_assert_double_eq(at(c->c, 0.7, 0, 0, 0), 0.0);
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < N; j++) {
      double want = i == YPOS(0) && j == YPOS(0) ? 10.0 : 0.0;
      ck_assert_double_eq(c->F[i + j * N], want);
    }
    ck_assert_double_eq(c->f[i], 0.0);
  }
  ck_assert_double_eq(c->cF, 0.0);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_cross_terms) {
  lth_problem *pb = plant("cost integral 2*x1*v2 + 3*u1*tension - x1 + 4 + (x2 + 2*u2)^2/4\n");
  const lth_plqr_cost *c = lth_problem_cost(pb);
  int x1 = zpos(pb, "x1"), v2 = zpos(pb, "v2"), x2 = zpos(pb, "x2");
  /* (x2 + 2 u2)^2/4 = x2^2/4 + x2 u2 + u2^2 */
  entry W[] = {{x1, v2, 1.0},
               {UPOS(0), YPOS(1), 1.5},
               {x2, x2, 0.25},
               {x2, UPOS(1), 0.5},
               {UPOS(1), UPOS(1), 1.0}};
  check_W(c, 2.1, W, 5);
  entry l[] = {{x1, 0, -0.5}};
  check_vec(c->l, 2.1, l, 1);
  ck_assert_double_eq_tol(at(c->c, 2.1, 0, 0, 0), 4.0, 1e-15);
  ck_assert_ptr_null(c->F);
  ck_assert_ptr_null(c->f);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_tracking) {
  lth_problem *pb = plant("cost integral (y1 - r(t))^2 + 0.5*(x2 - 0.25*t)^2\n");
  const lth_plqr_cost *c = lth_problem_cost(pb);
  int x2 = zpos(pb, "x2");
  for (double t = 0.0; t <= 3.0; t += 0.75) {
    double r = sin(2 * t), q = 0.25 * t;
    entry W[] = {{YPOS(0), YPOS(0), 1.0}, {x2, x2, 0.5}};
    check_W(c, t, W, 2);
    entry l[] = {{YPOS(0), 0, -r}, {x2, 0, -0.5 * q}};
    check_vec(c->l, t, l, 2);
    double want = r * r + 0.5 * q * q;
    ck_assert_msg(fabs(at(c->c, t, 0, 0, 0) - want) <= 1e-15, "c(%g)", t);
    /* d/dt of l_y1 = -2 cos(2t): a function of t, not a frozen value */
    ck_assert_msg(fabs(at(c->l, t, 1, YPOS(0), 0) + 2 * cos(2 * t)) <= 1e-14, "l' at %g", t);
  }
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_weights_of_t_and_params) {
  lth_problem *pb = plant("param q = 2.5\n"
                          "w(t) = 1 + t^2\n"
                          "cost integral q*w(t)*x2^2 + exp(-t)*u2^2 - k*t*lam*u1\n");
  const lth_plqr_cost *c = lth_problem_cost(pb);
  int x2 = zpos(pb, "x2"), lam = zpos(pb, "lam");
  for (double t = 0.0; t <= 3.0; t += 0.6) {
    entry W[] = {
        {x2, x2, 2.5 * (1 + t * t)}, {UPOS(1), UPOS(1), exp(-t)}, {lam, UPOS(0), -1.5 * t}};
    check_W(c, t, W, 3);
    ck_assert_msg(fabs(at(c->W, t, 1, x2, x2) - 5.0 * t) <= 1e-14, "W' at %g", t);
    ck_assert_msg(fabs(at(c->W, t, 1, UPOS(0), lam) + 1.5) <= 1e-15, "W' at %g", t);
  }
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_statements_add_up) {
  lth_problem *pb = plant("cost integral x1^2\n"
                          "cost final x1^2 + 2\n"
                          "cost integral x1^2 + x1*x2 + 0.1*u1^2 - 0.1*u1^2\n"
                          "cost final -x1^2 + 3*x1\n");
  const lth_plqr_cost *c = lth_problem_cost(pb);
  int x1 = zpos(pb, "x1"), x2 = zpos(pb, "x2");
  entry W[] = {{x1, x1, 2.0}, {x1, x2, 0.5}};
  check_W(c, 1.0, W, 2);
  for (int i = 0; i < N * N; i++) {
    ck_assert_double_eq(c->F[i], 0.0); /* x1^2 - x1^2: an exact 0 */
  }
  ck_assert_double_eq(c->f[x1], 1.5);
  ck_assert_double_eq(c->cF, 2.0);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_final_at_t1) {
  lth_problem *pb = plant("kf(t) = t\n"
                          "cost final 10*y1^2 + (x1 - kf(t))^2 + 2*t*x2*v1 + sin(t)\n");
  const lth_plqr_cost *c = lth_problem_cost(pb);
  ck_assert_ptr_null(c->W);
  ck_assert_ptr_null(c->l);
  ck_assert_ptr_null(c->c);
  int x1 = zpos(pb, "x1"), x2 = zpos(pb, "x2"), v1 = zpos(pb, "v1");
  const double t1 = 3.0;
  ck_assert_double_eq(c->F[YPOS(0) + YPOS(0) * N], 10.0);
  ck_assert_double_eq(c->F[x1 + x1 * N], 1.0);
  ck_assert_double_eq(c->F[x2 + v1 * N], t1);
  ck_assert_double_eq(c->F[v1 + x2 * N], t1);
  ck_assert_double_eq(c->f[x1], -t1);
  ck_assert_double_eq_tol(c->cF, t1 * t1 + sin(t1), 1e-15);
  lth_problem_free(pb);
}
END_TEST

/* A velocity x' is an unknown where x'' appears: it may be weighed. */
START_TEST(test_velocity) {
  const char *text = "problem equations\n"
                     "variables x w lam\n"
                     "inputs u\n"
                     "interval 0 1\n"
                     "cost integral 2*x'^2 + x*x' + u^2\n"
                     "x'' = -x + lam + u\n"
                     "w'' = -w - lam\n"
                     "0 = x - w\n";
  lth_error err;
  lth_status st;
  lth_problem *pb = parse_text(text, &err, &st);
  ck_assert_msg(st == LTH_OK, "%d:%d: %s", err.line, err.column, err.message);
  const lth_plqr_cost *c = lth_problem_cost(pb);
  int x = lth_problem_iperm(pb)[lth_problem_find_var(pb, "x")];
  int v = lth_problem_iperm(pb)[lth_problem_find_var(pb, "x'")];
  ck_assert_int_ne(x, v);
  ck_assert_double_eq(at(c->W, 0.5, 0, v, v), 2.0);
  ck_assert_double_eq(at(c->W, 0.5, 0, x, v), 0.5);
  ck_assert_double_eq(at(c->W, 0.5, 0, v, x), 0.5);
  ck_assert_double_eq(at(c->W, 0.5, 0, 5, 5), 1.0); /* u after s = 5 unknowns */
  lth_problem_free(pb);
}
END_TEST

/* The expression at w (by name) and t, by the expression parser. */
typedef struct subst {
  const char *const *names;
  const double *vals;
  int n;
} subst;

static int lookup(void *ctx, const char *name, size_t len, double *value) {
  const subst *s = ctx;
  for (int k = 0; k < s->n; k++) {
    if (strlen(s->names[k]) == len && memcmp(s->names[k], name, len) == 0) {
      *value = s->vals[k];
      return 1;
    }
  }
  return 0;
}

START_TEST(test_random_quadratic_forms) {
  /* the expressions with the named function and params written out for the
   * direct evaluation (c(t) = 1 + 0.5 sin t, k = 3) */
  static const char *const costs[][2] = {
      {"3*(x1 - 2*u1 + t)^2 - x1*y1/4 + sin(t)*u2^2 - (lam + tension)*(v2 - 0.5) + 7",
       "3*(x1 - 2*u1 + t)^2 - x1*y1/4 + sin(t)*u2^2 - (lam + tension)*(v2 - 0.5) + 7"},
      {"c(t)*(y1 - r(t))^2 + k*x2*(v1 + 2*u2) - (u1)^2*exp(-t)/3 - 2^2*x1",
       "(1 + 0.5*sin(t))*(y1 - sin(2*t))^2 + 3*x2*(v1 + 2*u2) - (u1)^2*exp(-t)/3 - 2^2*x1"},
      {"-(x1 - x2 + 3*v1 - lam + u1 - u2 + y1 - tension)^2 + (x1 + 1)^1 + u2^0",
       "-(x1 - x2 + 3*v1 - lam + u1 - u2 + y1 - tension)^2 + (x1 + 1)^1 + u2^0"},
  };
  static const char *const names[] = {"x1", "x2", "v1", "v2", "lam", "u1", "u2", "y1", "tension"};
  tu_seed(20260);
  for (size_t e = 0; e < sizeof costs / sizeof costs[0]; e++) {
    char line[512];
    snprintf(line, sizeof line, "cost integral %s\n", costs[e][0]);
    lth_problem *pb = plant(line);
    const lth_plqr_cost *c = lth_problem_cost(pb);
    int pos[N];
    for (int k = 0; k < N; k++) {
      pos[k] = k < S ? zpos(pb, names[k]) : k; /* inputs and outputs: in order after z */
    }
    lth_expr *ex = NULL;
    for (int trial = 0; trial < 20; trial++) {
      double vals[N], w[N], t = tu_uniform(0.0, 3.0);
      for (int k = 0; k < N; k++) {
        vals[k] = tu_uniform(-2.0, 2.0);
        w[pos[k]] = vals[k];
      }
      subst sb = {names, vals, N};
      lth_expr_free(ex);
      ex = NULL;
      TU_ASSERT_OK(lth_expr_parse(costs[e][1], strlen(costs[e][1]), lookup, &sb, &ex, NULL));
      double direct;
      TU_ASSERT_OK(lth_expr_eval(ex, t, &direct, NULL));
      double form = at(c->c, t, 0, 0, 0), size = fabs(form);
      for (int i = 0; i < N; i++) {
        double li = 2 * w[i] * at(c->l, t, 0, i, 0);
        form += li;
        size += fabs(li);
        for (int j = 0; j < N; j++) {
          double q = w[i] * at(c->W, t, 0, i, j) * w[j];
          form += q;
          size += fabs(q);
          ck_assert_double_eq(at(c->W, t, 0, i, j), at(c->W, t, 0, j, i)); /* symmetric */
        }
      }
      ck_assert_msg(fabs(form - direct) <= 1e-13 * size, "cost %zu at t = %g: %.17g vs %.17g", e, t,
                    form, direct);
    }
    lth_expr_free(ex);
    lth_problem_free(pb);
  }
}
END_TEST

START_TEST(test_refusals) {
  /* the plant's last line is 13 */
  refused("cost integral y1^3\n", 14, 17, "not quadratic");
  refused("cost integral y1*y1*u1\n", 14, 20, "degree 2 in y1 by one of degree 1 in u1");
  refused("cost integral (x1 + t)^2*(1 + u1)\n", 14, 25, "not quadratic");
  refused("cost integral 2 + sin(x1)\n", 14, 19, "sin(...) of a value with x1");
  refused("cost integral y1^2/(1 + u1)\n", 14, 19, "divides by a value with u1");
  refused("cost integral y1^t\n", 14, 17, "power that depends on t");
  refused("cost integral y1^0.5\n", 14, 17, "power 0.5");
  refused("cost integral 2^y1\n", 14, 16, "exponent holds y1");
  refused("cost integral y1^2 + foo^2\n", 14, 22, "unknown name 'foo'");
  refused("cost final 10*y1^2 + u1^2\n", 14, 22, "final cost weighs the input u1");
  refused("cost integral x1'^2\n", 14, 15, "x1', which is not an unknown");
  refused("cost integral y1'^2\n", 14, 17, "derivative of an output y1");
  refused("cost integral u1'^2\n", 14, 17, "derivative of an input u1");
  refused("cost integral (y1 + u1)'\n", 14, 24, "a quote in a cost");
  refused("cost integral y1(t)^2\n", 14, 15, "is an output, not a function");
  refused("cost integral 0.5*samples(\"u.csv\")*y1^2\n", 14, 19, "samples(...) in a cost");
  refused("cost integrand y1^2\n", 14, 6, "expected `integral` or `final`");
  refused("cost integral\n", 14, 14, "expression");
  refused("cost integral y1^2 )\n", 14, 20, "unexpected ')'");
  refused("cost integral y1^2 u1\n", 14, 20, "unexpected token");
  refused("cost integral c*y1^2\n", 14, 15, "named function");
}
END_TEST

/* An index-1 unknown is eliminated from z: weighed through an output. */
START_TEST(test_index1) {
  const char *index1 = "variables e\n0 = e - x1 - 2*x2\n";
  char more[512];
  snprintf(more, sizeof more, "%scost integral e^2 + u1^2\n", index1);
  refused(more, 16, 15, "index-1 unknown");
  snprintf(more, sizeof more, "%soutputs ye = e\ncost integral ye^2 + u1^2\n", index1);
  lth_problem *pb = plant(more);
  const lth_plqr_cost *c = lth_problem_cost(pb);
  ck_assert_int_eq(lth_source_rows(c->W), S + NU + NY + 1);
  int ye = S + NU + NY; /* the third output */
  ck_assert_double_eq(at(c->W, 1.0, 0, ye, ye), 1.0);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_other_forms) {
  const char *block = "problem dae\nblocks 1 1\ninterval 0 1\nA(1,2) = 1\nA(2,1) = 1\n"
                      "cost integral 1\n";
  lth_error err;
  lth_status st;
  lth_problem *pb = parse_text(block, &err, &st);
  ck_assert_int_eq(st, LTH_EPARSE);
  ck_assert_ptr_null(pb);
  ck_assert_msg(strstr(err.message, "belong to `problem equations` files"), "%s", err.message);
  ck_assert_int_eq(err.line, 6);
  /* an unknown called cost starts equations; `cost integral` still is the statement */
  const char *named = "problem equations\nvariables cost lam\ninputs u\ninterval 0 1\n"
                      "cost' = lam + u\n0 = cost\ncost integral cost^2 + u^2\n";
  pb = parse_text(named, &err, &st);
  ck_assert_msg(st == LTH_OK, "%d:%d: %s", err.line, err.column, err.message);
  ck_assert_ptr_nonnull(lth_problem_cost(pb));
  lth_problem_free(pb);
}
END_TEST

static Suite *cost_suite(void) {
  Suite *s = suite_create("problem_cost");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_no_cost);
  tcase_add_test(tc, test_issue_spellings);
  tcase_add_test(tc, test_cross_terms);
  tcase_add_test(tc, test_tracking);
  tcase_add_test(tc, test_weights_of_t_and_params);
  tcase_add_test(tc, test_statements_add_up);
  tcase_add_test(tc, test_final_at_t1);
  tcase_add_test(tc, test_velocity);
  tcase_add_test(tc, test_random_quadratic_forms);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_index1);
  tcase_add_test(tc, test_other_forms);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(cost_suite)
