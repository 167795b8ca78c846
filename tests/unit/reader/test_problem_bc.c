/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Boundary conditions as equations (lib/reader/problem_bc.c,
 * docs/equations.md section 9): `bc x2(0) = 1`, `bc x3'(t1) = -0.3`, ...
 * give exactly the B0, B1, beta of the matrix form written by hand (the
 * same doubles, in the canonical order), for second-order unknowns and their
 * velocities too, on the three-mass example, on random conditions over every
 * unknown and on a 50-mass chain; and every refusal names its line and
 * column. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>

#include "lth/bvp.h"
#include "lth/problem.h"
#include "testutil.h"

/* The three masses of tests/data/three_masses.lth without their bc lines:
 * unknowns x1 x1' x2 x2' x3 x3' u (user order), index 3, p = 4. */
static const char MASSES[] = "problem equations\n"
                             "variables x1 x2 x3 u\n"
                             "interval 0 2\n"
                             "grid 21\n"
                             "param m1 = 1, m2 = 2, m3 = 3, k = 4\n"
                             "m1*x1'' = -k*(x1 - x2) + u\n"
                             "m2*x2'' = -k*(x2 - x1) - k*(x2 - x3)\n"
                             "m3*x3'' = -k*(x3 - x2)\n"
                             "0 = x1 - exp(t)\n";
static const char *const MASS_NAMES[7] = {"x1", "x1'", "x2", "x2'", "x3", "x3'", "u"};

static lth_problem *parse_ok(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  char msg[1024];
  int st = lth_problem_parse(text, strlen(text), "bc.lth", NULL, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s\n%s", lth_error_format(&err, msg, sizeof msg), text);
  return pb;
}

static char *join(const char *a, const char *b) {
  char *s = malloc(strlen(a) + strlen(b) + 1);
  ck_assert_ptr_nonnull(s);
  strcpy(s, a);
  strcat(s, b);
  return s;
}

/* The conditions of a and b are the same doubles. */
static void assert_same_bc(const lth_problem *a, const lth_problem *b) {
  const double *A0, *A1, *Ab, *C0, *C1, *Cb;
  int p = lth_problem_bc(a, &A0, &A1, &Ab), s = lth_problem_nvars(a);
  ck_assert_int_gt(p, 0);
  ck_assert_int_eq(lth_problem_bc(b, &C0, &C1, &Cb), p);
  ck_assert_int_eq(lth_problem_nvars(b), s);
  for (int k = 0; k < p * s; k++) {
    ck_assert_msg(A0[k] == C0[k] && A1[k] == C1[k], "entry %d: B0 %.17g / %.17g, B1 %.17g / %.17g",
                  k, A0[k], C0[k], A1[k], C1[k]);
  }
  for (int i = 0; i < p; i++) {
    ck_assert_msg(Ab[i] == Cb[i], "beta[%d]: %.17g / %.17g", i, Ab[i], Cb[i]);
  }
}

/* Every spelling of the conditions of tests/data/three_masses.lth (x2 and
 * x3 at t = 0, the velocities x2', x3' at t = 2), row by row as its
 * matrices (lhs - rhs = 0 with the same coefficients), gives them. */
START_TEST(test_three_masses_spellings) {
  static const char *const SPELLINGS[] = {
      "bc x2(0) = 1\nbc x3(0) = 0.25\nbc x2'(2) = 0.5\nbc x3'(2) = -0.3\n",
      "bc x2(t0) = 1\nbc x3(t0) = 0.25\nbc x2'(t1) = 0.5\nbc x3'(t1) = -0.3\n",
      ("bc x2(0) - 1 = 0*x3(t1)\nbc x3( 0 ) - 0.25 = 0\n"
       "bc 0.5 + x2'(t1) = 1\nbc x3'(t1) + 0.3 = 0\n"),
      "bc [x2(0); x3(0); x2'(2); x3'(2)] = [1; 0.25; 0.5; -0.3]\n",
      "param T = 2\nbc [x2(0) x3(3*0)] = [1 0.25];\nbc x2'(T) = 0.5\nbc x3'(T/2 + 1) = -0.3\n",
      "bc 0.5*x2(0) + 0.5*x2(t0) = 1\nbc x3(0) = 0.25\nbc x2'(2) = 0.5\nbc x3'(2) = -0.3\n",
  };
  const char *dir = getenv("LTH_TEST_DIR");
  char path[1024], msg[1024];
  snprintf(path, sizeof path, "%s/data/three_masses.lth", dir ? dir : "tests");
  lth_problem *ref = NULL;
  lth_error err;
  ck_assert_msg(lth_problem_read(path, &ref, &err) == LTH_OK, "%s",
                lth_error_format(&err, msg, sizeof msg));
  for (size_t k = 0; k < sizeof SPELLINGS / sizeof SPELLINGS[0]; k++) {
    char *text = join(MASSES, SPELLINGS[k]);
    lth_problem *pb = parse_ok(text);
    assert_same_bc(pb, ref);
    lth_problem_free(pb);
    free(text);
  }
  lth_problem_free(ref);
}
END_TEST

/* Random conditions over all seven unknowns (velocities and the algebraic u
 * too) at both ends, with random spellings of the ends and random sides: the
 * same doubles as the matrix form with the columns in the unknowns' order,
 * and the canonical columns are the user's permuted (lth_problem_perm). */
START_TEST(test_random_conditions) {
  tu_seed(0xbc00 + (uint64_t)_i);
  const int p = 4, s = 7;
  double B[2][4][7], beta[4];
  size_t cap = 1 << 16;
  char *eq = malloc(cap), *mat = malloc(cap);
  ck_assert_ptr_nonnull(eq);
  ck_assert_ptr_nonnull(mat);
  size_t ne = 0, nm = 0;
  for (int i = 0; i < p; i++) {
    ne += (size_t)snprintf(eq + ne, cap - ne, "bc ");
    int first = 1;
    for (int end = 0; end < 2; end++) {
      for (int k = 0; k < s; k++) {
        /* about half the entries are zero; the others random, any sign */
        B[end][i][k] = tu_uniform(0, 1) < 0.5 ? 0.0 : tu_uniform(-3, 3);
        if (k == 2 * i) {
          B[end][i][k] += 1.0; /* rows independent */
        }
        if (B[end][i][k] == 0.0) {
          continue;
        }
        const char *when = end == 0 ? (tu_uniform(0, 1) < 0.5 ? "0" : "t0")
                                    : (tu_uniform(0, 1) < 0.5 ? "2" : "t1");
        ne += (size_t)snprintf(eq + ne, cap - ne, "%s%.17g*%s(%s)", first ? "" : " + ",
                               B[end][i][k], MASS_NAMES[k], when);
        first = 0;
      }
    }
    beta[i] = tu_uniform(-2, 2);
    ne += (size_t)snprintf(eq + ne, cap - ne, " = %.17g\n", beta[i]);
  }
  for (int w = 0; w < 3; w++) {
    nm += (size_t)snprintf(mat + nm, cap - nm, "bc %s = [", w == 0 ? "B0" : w == 1 ? "B1" : "beta");
    for (int i = 0; i < p; i++) {
      for (int k = 0; k < (w < 2 ? s : 1); k++) {
        nm += (size_t)snprintf(mat + nm, cap - nm, "%.17g%s", w < 2 ? B[w][i][k] : beta[i],
                               w < 2 && k + 1 < s ? " " : "");
      }
      nm += (size_t)snprintf(mat + nm, cap - nm, "%s", i + 1 < p ? "; " : "]\n");
    }
  }
  char *te = join(MASSES, eq), *tm = join(MASSES, mat);
  lth_problem *pe = parse_ok(te), *pm = parse_ok(tm);
  assert_same_bc(pe, pm);
  const double *B0, *B1, *bt;
  lth_problem_bc(pe, &B0, &B1, &bt);
  const int *perm = lth_problem_perm(pe);
  for (int i = 0; i < p; i++) {
    for (int k = 0; k < s; k++) { /* column k of the system is unknown perm[k] */
      ck_assert(B0[i + k * p] == B[0][i][perm[k]]);
      ck_assert(B1[i + k * p] == B[1][i][perm[k]]);
    }
    ck_assert(bt[i] == beta[i]);
  }
  lth_problem_free(pe);
  lth_problem_free(pm);
  free(te);
  free(tm);
  free(eq);
  free(mat);
}
END_TEST

/* A chain of n masses, the first following sin(t) (servo force u), with
 * time-varying springs: s = 2n + 1, index 3, p = 2n - 2.  Conditions: the
 * positions x2..xn at t0 and the velocities at t1, as equations (two
 * vector statements) or as matrices. */
static char *chain(int n, int as_equations) {
  size_t cap = 4096 + (size_t)n * (size_t)(as_equations ? 256 : 16 * (2 * n + 1) + 256);
  char *t = malloc(cap);
  ck_assert_ptr_nonnull(t);
  size_t len = (size_t)snprintf(t, cap, "problem equations\nvariables");
  for (int i = 1; i <= n; i++) {
    len += (size_t)snprintf(t + len, cap - len, " x%d", i);
  }
  len += (size_t)snprintf(t + len, cap - len, " u\ninterval 0 3\n");
  for (int i = 1; i <= n; i++) { /* spring i joins masses i and i+1 */
    char left[96] = "", right[96] = "";
    if (i > 1) {
      snprintf(left, sizeof left, " - (2 + 0.5*sin(t + %d))*(x%d - x%d)", i - 1, i, i - 1);
    }
    if (i < n) {
      snprintf(right, sizeof right, " - (2 + 0.5*sin(t + %d))*(x%d - x%d)", i, i, i + 1);
    }
    len += (size_t)snprintf(t + len, cap - len, "%g*x%d'' = %s%s%s\n", 1 + 0.1 * i, i, left, right,
                            i == 1 ? " + u" : "");
  }
  len += (size_t)snprintf(t + len, cap - len, "0 = x1 - sin(t)\n");
  int s = 2 * n + 1, p = 2 * n - 2;
  if (as_equations) {
    for (int end = 0; end < 2; end++) {
      len += (size_t)snprintf(t + len, cap - len, "bc [");
      for (int i = 2; i <= n; i++) {
        len += (size_t)snprintf(t + len, cap - len, "x%d%s(t%d)%s", i, end ? "'" : "", end,
                                i < n ? "; " : "] = ");
      }
      len += (size_t)snprintf(t + len, cap - len, end ? "zeros(%d, 1)\n" : "ones(%d, 1)\n", n - 1);
    }
    return t;
  }
  /* unknown columns: x1 x1' x2 x2' ... xn xn' u; row j < n-1: x(j+2) at t0 */
  for (int w = 0; w < 3; w++) {
    len += (size_t)snprintf(t + len, cap - len, "bc %s = [",
                            w == 0   ? "B0"
                            : w == 1 ? "B1"
                                     : "beta");
    for (int j = 0; j < p; j++) {
      int end = j >= n - 1, col = 2 * (j % (n - 1) + 1) + end;
      for (int k = 0; k < (w < 2 ? s : 1); k++) {
        int one = w < 2 ? (end == w && k == col) : !end;
        len += (size_t)snprintf(t + len, cap - len, "%d%s", one, w < 2 && k + 1 < s ? " " : "");
      }
      len += (size_t)snprintf(t + len, cap - len, "%s", j + 1 < p ? "\n" : "]\n");
    }
  }
  return t;
}

START_TEST(test_chain_50) {
  const int n = 50;
  char *te = chain(n, 1), *tm = chain(n, 0);
  lth_problem *pe = parse_ok(te), *pm = parse_ok(tm);
  ck_assert_int_eq(lth_system_manifold_dim(lth_problem_system(pe)), 2 * n - 2);
  assert_same_bc(pe, pm);
  lth_problem_free(pe);
  lth_problem_free(pm);
  free(te);
  free(tm);
}
END_TEST

/* A small chain solved from both forms: the same solution (the data are the
 * same doubles, so the solves agree to rounding), and it meets the
 * conditions as written. */
START_TEST(test_chain_solve) {
  const int n = 4;
  char *te = chain(n, 1), *tm = chain(n, 0);
  lth_problem *pe = parse_ok(te), *pm = parse_ok(tm);
  lth_problem *pbs[2] = {pe, pm};
  lth_bvp_result *res[2] = {NULL, NULL};
  double times[3] = {0, 1.5, 3};
  for (int k = 0; k < 2; k++) {
    const double *B0, *B1, *beta;
    int p = lth_problem_bc(pbs[k], &B0, &B1, &beta);
    lth_bvp_opts o;
    lth_bvp_opts_init(&o);
    o.method = LTH_BVP_COLLOCATION;
    lth_error err;
    char msg[512];
    ck_assert_msg(lth_bvp_solve(lth_problem_system(pbs[k]), 0, 3, p, B0, B1, beta, times, 3, &o,
                                &res[k], &err) == LTH_OK,
                  "%s", lth_error_format(&err, msg, sizeof msg));
  }
  int s = res[0]->s;
  double scale = 1.0, diff = 0.0;
  for (int k = 0; k < 3 * s; k++) {
    scale = fmax(scale, fabs(res[1]->z[k]));
    diff = fmax(diff, fabs(res[0]->z[k] - res[1]->z[k]));
  }
  ck_assert_msg(diff <= 1e-13 * scale, "solutions differ by %.3g", diff);
  /* x2..xn = 1 at t0 and their velocities 0 at t1, in the user's terms */
  double user[2][9];
  lth_problem_to_user(pe, res[0]->z, user[0]);
  lth_problem_to_user(pe, res[0]->z + 2 * s, user[1]);
  for (int i = 2; i <= n; i++) {
    ck_assert(fabs(user[0][2 * (i - 1)] - 1.0) < 1e-10);
    ck_assert(fabs(user[1][2 * (i - 1) + 1]) < 1e-10);
  }
  lth_bvp_result_free(res[0]);
  lth_bvp_result_free(res[1]);
  lth_problem_free(pe);
  lth_problem_free(pm);
  free(te);
  free(tm);
}
END_TEST

typedef struct refusal {
  const char *bc; /* appended to MASSES (its line 10 onwards) */
  int line, col;
  const char *message;
} refusal;

static const refusal REFUSALS[] = {
    {"bc x2(0) = 1\nbc x3(0.5) = 0.25\nbc x2'(2) = 0.5\nbc x3'(2) = -0.3\n", 11, 7,
     "the time 0.5 is neither end of the interval [0, 2]"},
    {"bc y(0) = 1\n", 10, 4, "unknown name 'y': neither a declared variable nor a param"},
    {"bc x2(0) + 2*y = 1\n", 10, 14, "unknown name 'y'"},
    {"bc x2(0)*x3(t1) = 1\n", 10, 9, "not linear in the unknowns: '*' multiplies x2(0) by x3(t1)"},
    {"bc sin(x2(0)) = 1\n", 10, 4, "not linear in the unknowns: x2(0) is inside sin(...)"},
    {"bc t*x2(0) = 1\n", 10, 4, "constant coefficients (numbers and params), but this one uses t"},
    {"bc x2(t) = 1\n", 10, 7, "the time in x2(...) must be t0, t1 or a constant"},
    {"bc x2 = 1\n", 10, 4, "write x2(t0) or x2(t1)"},
    {"bc x2(0) = 1\nbc B0 = [0 0 1 0 0 0 0]\n", 11, 1,
     "not both: the first equation is on line 10"},
    {"bc B0 = [0 0 1 0 0 0 0]\nbc x2(0) = 1\n", 11, 1, "not both: `bc B0` is on line 10"},
    {"bc x2(0) = 1\nbc x3(0) = 0.25\n", 11, 1,
     "2 boundary conditions, but this DAE needs exactly p = 4"},
    {"bc [x2(0); x3(0); x2(2); x3(2)] = ones(4, 1)\nbc u(0) = 1\n", 11, 1,
     "5 boundary conditions, but this DAE needs exactly p = 4"},
    {"bc [x2(0); x3(0); x2''(2); x3(2)] = ones(4, 1)\n", 10, 1,
     "x2''(t1): x2'' is not an unknown; the unknowns of x2 are x2 up to x2'"},
    {"bc [x2(0); x3(0); u'(2); x3(2)] = ones(4, 1)\n", 10, 1, "u' is not an unknown"},
    {"bc [x2(0); x3(0); x2(0) - x2(t0); x3(2)] = ones(4, 1)\n", 10, 1,
     "the terms of this boundary condition cancel"},
    {"bc 1 = 2\n", 10, 1, "this boundary condition involves no unknown"},
    {"bc x2(0) + x2(1) + x2(2) + x3(3) + x3(4) = 1\n", 10, 36,
     "more than 4 different times in one boundary condition"},
    {"param t1 = 2\nbc x2(t1) = 1\n", 11, 7, "t1 is a param and"},
    {"bc x2(0) = 1 = 2\n", 10, 14, "expected the end of the statement"},
    {"bc x2(0)\n", 10, 9, "expected '=': a boundary condition is an equation"},
};

START_TEST(test_refusals) {
  const refusal *r = &REFUSALS[_i];
  char *text = join(MASSES, r->bc);
  lth_problem *pb = NULL;
  lth_error err;
  char msg[1024];
  int st = lth_problem_parse(text, strlen(text), "bc.lth", NULL, &pb, &err);
  lth_error_format(&err, msg, sizeof msg);
  ck_assert_msg(st == LTH_EPARSE || st == LTH_EDIM, "%s: status %d, %s", r->bc, st, msg);
  ck_assert_ptr_null(pb);
  ck_assert_msg(strstr(err.message, r->message), "%s: %s", r->bc, msg);
  ck_assert_msg(err.line == r->line && err.column == r->col, "%s: at %d:%d, expected %d:%d (%s)",
                r->bc, err.line, err.column, r->line, r->col, msg);
  free(text);
}
END_TEST

/* The block form has no names: an equation bc is refused with a hint. */
START_TEST(test_block_form) {
  static const char text[] = "blocks 1 1\ninterval 0 1\nA(1,2) = 1\nA(2,1) = 1\nbc x(0) = 1\n";
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_int_eq(lth_problem_parse(text, strlen(text), "b.lth", NULL, &pb, &err), LTH_EPARSE);
  ck_assert_ptr_nonnull(strstr(err.message, "need a `problem equations` file"));
  ck_assert_int_eq(err.line, 5);
}
END_TEST

static Suite *bc_suite(void) {
  Suite *s = suite_create("problem_bc");
  TCase *tc = tcase_create("bc");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_three_masses_spellings);
  tcase_add_loop_test(tc, test_random_conditions, 0, 40);
  tcase_add_test(tc, test_chain_50);
  tcase_add_test(tc, test_chain_solve);
  tcase_add_loop_test(tc, test_refusals, 0, (int)(sizeof REFUSALS / sizeof REFUSALS[0]));
  tcase_add_test(tc, test_block_form);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(bc_suite)
