/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The equation form (`problem equations`, lib/reader/problem_eqn.c and the model
 * layer): every example of docs/equations.md and data/ against its exact
 * solution in the user's unknowns -- the structure found, the decomposition
 * (an exact solution is consistent: z = G z_d + q at every t) and the IVP from
 * the file's z0 -- and the API the tools use (names, orders, --param,
 * standard input, z0/bc in the user's order, free initial values). */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <unistd.h>

#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/problem.h"
#include "testutil.h"

typedef void (*exact_fn)(double t, double *z); /* in the user's order */

static void pendulum_eq(double t, double *z) { /* x1 x2 v1 v2 lambda */
  z[0] = cos(t) - 9.81 * sin(2 * t);
  z[1] = sin(t) + 9.81 * (1 + cos(2 * t));
  z[2] = -sin(t) - 19.62 * cos(2 * t);
  z[3] = cos(t) - 19.62 * sin(2 * t);
  z[4] = 1 + 98.1 * sin(t);
}

static void slope_eq(double t, double *z) { /* x x' y y' lambda */
  double g = 9.81;
  z[0] = 2 - 0.6 * t + g * t * t / 5;
  z[1] = -0.6 + 2 * g * t / 5;
  z[2] = 1 + 0.3 * t - g * t * t / 10;
  z[3] = 0.3 - g * t / 5;
  z[4] = 2 * g / 5;
}

static void pendulum_nat(double t, double *z) { /* dx dx' dy dy' dlambda */
  double w = sqrt(9.81);
  z[0] = 0.05 * cos(w * t) + 0.1 / w * sin(w * t);
  z[1] = -0.05 * w * sin(w * t) + 0.1 * cos(w * t);
  z[2] = z[3] = z[4] = 0.0;
}

static void mass_varying(double t, double *z) { /* x1 x2 v1 v2 lambda */
  z[0] = sin(t);
  z[1] = cos(t);
  z[2] = cos(t);
  z[3] = -sin(t);
  z[4] = cos(2 * t);
}

static void two_carts(double t, double *z) { /* x1 x1' x2 x2' u */
  z[0] = 0.5 * sin(t);
  z[1] = 0.5 * cos(t);
  z[2] = sin(t);
  z[3] = cos(t);
  z[4] = -2.5 * sin(t);
}

static void rlc(double t, double *z) { /* v iL iV */
  double R = 10, L = 0.5, C = 1e-3;
  z[0] = sin(t);
  z[1] = (1 - cos(t)) / L;
  z[2] = C * cos(t) + z[1] + sin(t) / R;
}

typedef struct example {
  const char *file;
  exact_fn exact;
  int r, p;
  const char *canonical; /* names in the canonical order */
  const char *mass;      /* a line of the description, or NULL */
} example;

static const example EXAMPLES[] = {
    {"pendulum_equations.lth", pendulum_eq, 3, 2, "v1 v2 x1 x2 lambda", NULL},
    {"slope_equations.lth", slope_eq, 3, 2, "x' y' x y lambda", NULL},
    {"pendulum_natural.lth", pendulum_nat, 3, 2, "dx dx' dy' dy dlambda", NULL},
    {"mass_varying.lth", mass_varying, 3, 2, "v1 v2 x1 x2 lambda",
     "mass matrix of {v1, v2} in z_1: time-varying 2 x 2, not diagonal"},
    {"two_carts.lth", two_carts, 5, 0, "x1' x1 x2' x2 u", NULL},
    {"rlc.lth", rlc, 2, 1, "v iL iV", "mass matrices of {v, iL} in z_1: constant 1 x 1 each"},
};

static lth_problem *read_data(const char *name) {
  const char *dir = getenv("LTH_DATA_DIR");
  char path[1024], msg[1024];
  snprintf(path, sizeof path, "%s/%s", dir ? dir : "data", name);
  lth_problem *pb = NULL;
  lth_error err;
  int st = lth_problem_read(path, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s", lth_error_format(&err, msg, sizeof msg));
  return pb;
}

/* The canonical order's names, blank-separated. */
static void canonical_names(const lth_problem *pb, char *buf, size_t size) {
  const int *perm = lth_problem_perm(pb);
  size_t len = 0;
  buf[0] = '\0';
  for (int k = 0; k < lth_problem_nvars(pb); k++) {
    len += (size_t)snprintf(buf + len, size - len, "%s%s", k ? " " : "",
                            lth_problem_var_name(pb, perm[k]));
  }
}

START_TEST(test_examples_exact) {
  const example *ex = &EXAMPLES[_i];
  lth_problem *pb = read_data(ex->file);
  const lth_system *sys = lth_problem_system(pb);
  int s = lth_system_size(sys), m = lth_system_state_dim(sys);
  char names[512], desc[4096];
  ck_assert_int_eq(lth_problem_get_form(pb), LTH_FORM_EQUATIONS);
  ck_assert_int_eq(lth_system_index(sys), ex->r);
  ck_assert_int_eq(lth_system_manifold_dim(sys), ex->p);
  canonical_names(pb, names, sizeof names);
  ck_assert_str_eq(names, ex->canonical);
  lth_problem_describe(pb, desc, sizeof desc);
  ck_assert_msg(!ex->mass || strstr(desc, ex->mass), "%s: %s", ex->file, desc);
  double t0, t1, zu[8], zc[8], zu2[8];
  lth_problem_interval(pb, &t0, &t1);

  /* z0 of the file (user order in the file, canonical in the problem) */
  const double *z0;
  ck_assert_int_eq(lth_problem_z0(pb, &z0), 1);
  ex->exact(t0, zu);
  lth_problem_to_canonical(pb, zu, zc);
  for (int k = 0; k < s; k++) {
    ck_assert_msg(fabs(z0[k] - zc[k]) < 1e-15, "%s: z0[%d]", ex->file, k);
  }

  /* the exact solution is consistent at every t: z = G z_d + q */
  lth_point *pt = lth_point_alloc(sys, 0, NULL);
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, NULL);
  double worst = 0.0;
  for (int i = 0; i <= 10; i++) {
    double t = t0 + (t1 - t0) * i / 10.0;
    TU_ASSERT_OK(lth_decomp_at(ws, t, pt, NULL));
    ex->exact(t, zu);
    lth_problem_to_canonical(pb, zu, zc);
    lth_problem_to_user(pb, zc, zu2);
    for (int k = 0; k < s; k++) {
      ck_assert(zu2[k] == zu[k]);
      double v = LTH_JET_AT(&pt->q, 0, k, 0), scale = 1.0;
      for (int j = 0; j < m; j++) {
        v += LTH_JET_AT(&pt->G, 0, k, j) * zc[j];
        scale += fabs(LTH_JET_AT(&pt->G, 0, k, j) * zc[j]);
      }
      worst = fmax(worst, fabs(v - zc[k]) / (scale + fabs(zc[k])));
    }
  }
  ck_assert_msg(worst < 1e-13, "%s: exact solution off the manifold by %.3g", ex->file, worst);

  /* the IVP from the file's z0 follows the exact solution */
  double times[5];
  for (int i = 0; i < 5; i++) {
    times[i] = t0 + (t1 - t0) * i / 4.0;
  }
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  lth_ivp_result *res = NULL;
  lth_error err;
  int st = lth_ivp_solve(sys, t0, z0, times, 5, &o, &res, &err);
  ck_assert_msg(st == LTH_OK, "%s: %s", ex->file, err.message);
  double ivp_worst = 0.0;
  for (int i = 0; i < 5; i++) {
    ex->exact(times[i], zu);
    lth_problem_to_user(pb, res->z + (size_t)i * s, zu2);
    for (int k = 0; k < s; k++) {
      ivp_worst = fmax(ivp_worst, fabs(zu2[k] - zu[k]) / (1 + fabs(zu[k])));
    }
  }
  ck_assert_msg(ivp_worst < 1e-7, "%s: IVP off the exact solution by %.3g", ex->file, ivp_worst);
  lth_ivp_result_free(res);
  lth_decomp_ws_free(ws);
  lth_point_free(pt);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_names_and_free_values) {
  lth_problem *pb = read_data("slope_equations.lth");
  ck_assert_int_eq(lth_problem_nvars(pb), 5);
  ck_assert_str_eq(lth_problem_var_name(pb, 1), "x'");
  ck_assert_int_eq(lth_problem_find_var(pb, "y'"), 3);
  ck_assert_int_eq(lth_problem_find_var(pb, "z"), -1);
  const int *perm = lth_problem_perm(pb), *iperm = lth_problem_iperm(pb);
  for (int k = 0; k < 5; k++) {
    ck_assert_int_eq(iperm[perm[k]], k);
  }
  const lth_model *m = lth_problem_model(pb);
  ck_assert_ptr_nonnull(m);
  ck_assert_int_eq(lth_model_var_block(m, lth_problem_find_var(pb, "lambda")), 3);
  ck_assert_int_eq(lth_model_var_block(m, lth_problem_find_var(pb, "x")), 2);
  int vars[2];
  TU_ASSERT_OK(lth_problem_free_initial(pb, 0.0, vars, NULL));
  ck_assert_str_eq(lth_problem_var_name(pb, vars[0]), "x"); /* positions first */
  ck_assert_str_eq(lth_problem_var_name(pb, vars[1]), "x'");
  lth_problem_free(pb);
  /* docs/equations.md section 1.2, verbatim */
  pb = read_data("pendulum_equations.lth");
  char desc[1024];
  lth_problem_describe(pb, desc, sizeof desc);
  ck_assert_str_eq(desc, "index r = 3, p = 2 free initial values\n"
                         "z_1 = {v1, v2} (differential)\n"
                         "z_2 = {x1, x2} (differential)\n"
                         "u   = {lambda} (algebraic)\n"
                         "mass matrices of {v1, v2} in z_1: constant 1 x 1 each\n");
  TU_ASSERT_OK(lth_problem_free_initial(pb, 0.0, vars, NULL));
  ck_assert_str_eq(lth_problem_var_name(pb, vars[0]), "x2");
  ck_assert_str_eq(lth_problem_var_name(pb, vars[1]), "v2");
  lth_problem_free(pb);
  /* a block file: names z_i[k] and the identity order */
  pb = read_data("slope.lth");
  ck_assert_int_eq(lth_problem_get_form(pb), LTH_FORM_BLOCKS);
  ck_assert_ptr_null(lth_problem_model(pb));
  ck_assert_str_eq(lth_problem_var_name(pb, 2), "z_2[1]");
  ck_assert_str_eq(lth_problem_var_name(pb, 4), "u[1]");
  ck_assert_int_eq(lth_problem_perm(pb)[3], 3);
  lth_problem_free(pb);
}
END_TEST

static const char *SMALL = "problem equations\n"
                           "variables x v lambda\n"
                           "interval 0 1\n"
                           "param k = 2, c = k + 1\n"
                           "x' = v\n"
                           "v' = -k*x + lambda\n"
                           "0 = x - c*t\n";

/* v' coefficient of x (A(1,2) of z_1 = (v), z_2 = (x)) at t: -k. */
static double coef_k(const lth_problem *pb) {
  lth_jet *A = lth_jet_alloc(3, 3, 0, NULL), *f = lth_jet_alloc(3, 1, 0, NULL);
  double work[256];
  TU_ASSERT_OK(lth_system_eval(lth_problem_system(pb), 0.5, 0, A, f, work, NULL));
  double v = LTH_JET_AT(A, 0, 0, 1);
  lth_jet_free(A);
  lth_jet_free(f);
  return v;
}

START_TEST(test_param_overrides) {
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_int_eq(lth_problem_parse(SMALL, strlen(SMALL), "s.lth", NULL, &pb, &err), LTH_OK);
  ck_assert(coef_k(pb) == -2.0);
  lth_problem_free(pb);
  const char *over[] = {"k=2.385*2"};
  lth_problem_opts o;
  lth_problem_opts_init(&o);
  o.params = over;
  o.nparams = 1;
  ck_assert_int_eq(lth_problem_parse_opts(SMALL, strlen(SMALL), "s.lth", NULL, &o, &pb, &err),
                   LTH_OK);
  ck_assert(coef_k(pb) == -4.77);
  lth_problem_free(pb);
  const char *bad[] = {"q=1"};
  o.params = bad;
  ck_assert_int_eq(lth_problem_parse_opts(SMALL, strlen(SMALL), "s.lth", NULL, &o, &pb, &err),
                   LTH_EINVAL);
  ck_assert_int_eq(lth_status_exit_code(err.status), 1);
  ck_assert_ptr_nonnull(
      strstr(err.message, "opts.params q=1: s.lth defines no param 'q' (its params: k, c)"));
  const char *bad2[] = {"k=abc"};
  o.params = bad2;
  ck_assert_int_eq(lth_problem_parse_opts(SMALL, strlen(SMALL), "s.lth", NULL, &o, &pb, &err),
                   LTH_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "opts.params k=abc: unknown name 'abc'"));
  const char *bad3[] = {"k"};
  o.params = bad3;
  ck_assert_int_eq(lth_problem_parse_opts(SMALL, strlen(SMALL), "s.lth", NULL, &o, &pb, &err),
                   LTH_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.message, "expected NAME=VALUE"));
}
END_TEST

START_TEST(test_stdin) {
  char path[] = "/tmp/lth_test_stdin_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert(write(fd, SMALL, strlen(SMALL)) == (ssize_t)strlen(SMALL));
  close(fd);
  ck_assert_ptr_nonnull(freopen(path, "r", stdin));
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_int_eq(lth_problem_read_opts("-", NULL, &pb, &err), LTH_OK);
  ck_assert(coef_k(pb) == -2.0);
  lth_problem_free(pb);
  /* errors name <stdin> */
  FILE *fp = fopen(path, "w");
  fputs("problem equations\nvariables x\ninterval 0 1\nx' = y\n", fp);
  fclose(fp);
  ck_assert_ptr_nonnull(freopen(path, "r", stdin));
  ck_assert_int_ne(lth_problem_read_opts("-", NULL, &pb, &err), LTH_OK);
  ck_assert_str_eq(err.file, "<stdin>");
  ck_assert_int_eq(err.line, 4);
  unlink(path);
}
END_TEST

/* z0 and bc are given in the user's order and stored in the canonical one. */
START_TEST(test_z0_bc_user_order) {
  const char *text = "problem equations\n"
                     "variables x y lambda\n"
                     "interval 0 2\n"
                     "x'' = lambda\n"
                     "y'' = 2*lambda - 9.81\n"
                     "0 = x + 2*y - 4\n"
                     "z0 = [1 2 3 4 5]\n"
                     "bc B0 = [1 2 3 4 5; 6 7 8 9 10]\n"
                     "bc B1 = zeros(2, 5)\n"
                     "bc beta = [1 2]\n";
  lth_problem *pb = NULL;
  lth_error err;
  ck_assert_int_eq(lth_problem_parse(text, strlen(text), "b.lth", NULL, &pb, &err), LTH_OK);
  /* canonical (x', y', x, y, lambda) = user (2, 4, 1, 3, 5) */
  const double *z0, *B0, *B1, *beta;
  ck_assert_int_eq(lth_problem_z0(pb, &z0), 1);
  const double want[5] = {2, 4, 1, 3, 5};
  for (int k = 0; k < 5; k++) {
    ck_assert(z0[k] == want[k]);
  }
  ck_assert_int_eq(lth_problem_bc(pb, &B0, &B1, &beta), 2);
  for (int k = 0; k < 5; k++) { /* column k of B0 = user column perm[k] */
    ck_assert(B0[0 + 2 * k] == want[k] && B0[1 + 2 * k] == want[k] + 5);
  }
  ck_assert(beta[1] == 2.0);
  lth_problem_free(pb);
}
END_TEST

/* samples("...") in equations: a sampled source voltage and a sampled
 * coefficient, against the same file with the formulas. */
START_TEST(test_sampled_coefficients) {
  char dir[] = "/tmp/lth_test_eqsamples_XXXXXX", path[256], csv[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(csv, sizeof csv, "%s/vs.csv", dir);
  FILE *fp = fopen(csv, "w");
  fprintf(fp, "t,vs\n");
  for (int k = 0; k <= 700; k++) {
    double t = -0.2 + 0.01 * k;
    fprintf(fp, "%.17g,%.17g\n", t, sin(t));
  }
  fclose(fp);
  const char *base = "problem equations\n"
                     "variables v iL iV\n"
                     "interval 0 4\n"
                     "param R = 10, L = 0.5, C = 1e-3\n"
                     "C*v' = iV - iL - v/R\n";
  char sampled[1024], formula[1024];
  snprintf(sampled, sizeof sampled,
           "%ssampling order 5\nL*iL' = (1 + samples(\"vs.csv\")/2)*v\n"
           "0 = v - 2*(samples(\"vs.csv\") + t)/2 + t\n",
           base);
  snprintf(formula, sizeof formula, "%sL*iL' = (1 + 0.5*sin(t))*v\n0 = v - sin(t)\n", base);
  snprintf(path, sizeof path, "%s/s.lth", dir);
  fp = fopen(path, "w");
  fputs(sampled, fp);
  fclose(fp);
  lth_problem *ps = NULL, *pf = NULL;
  lth_error err;
  char msg[1024];
  int st = lth_problem_read(path, &ps, &err);
  ck_assert_msg(st == LTH_OK, "%s", lth_error_format(&err, msg, sizeof msg));
  TU_ASSERT_OK(lth_problem_parse(formula, strlen(formula), "f.lth", NULL, &pf, NULL));
  ck_assert_uint_eq(lth_problem_sampled_count(ps), 2);
  ck_assert_int_eq(lth_system_is_exact(lth_problem_system(ps)), 0);
  ck_assert_int_eq(lth_problem_sampling_order(ps), 5);
  lth_jet *A1 = lth_jet_alloc(3, 3, 2, NULL), *f1 = lth_jet_alloc(3, 1, 2, NULL);
  lth_jet *A2 = lth_jet_alloc(3, 3, 2, NULL), *f2 = lth_jet_alloc(3, 1, 2, NULL);
  /* the sampled system's own workspace size (its fits need far more than a formula's) */
  size_t nw = lth_system_work_size(lth_problem_system(ps), 2);
  size_t nw2 = lth_system_work_size(lth_problem_system(pf), 2);
  double *w = malloc(sizeof(double) * (nw > nw2 ? nw : nw2));
  ck_assert_ptr_nonnull(w);
  for (double t = 0.1; t < 4.0; t += 0.7) {
    TU_ASSERT_OK(lth_system_eval(lth_problem_system(ps), t, 2, A1, f1, w, NULL));
    TU_ASSERT_OK(lth_system_eval(lth_problem_system(pf), t, 2, A2, f2, w, NULL));
    ck_assert_msg(tu_jet_relerr(A1, A2) < 1e-9 && tu_jet_relerr(f1, f2) < 1e-8, "t = %g", t);
  }
  free(w);
  lth_jet_free(A1);
  lth_jet_free(f1);
  lth_jet_free(A2);
  lth_jet_free(f2);
  lth_problem_free(ps);
  lth_problem_free(pf);
  /* only constant multiples and sums with formulas */
  snprintf(sampled, sizeof sampled, "%sL*iL' = t*samples(\"vs.csv\")*v\n0 = v\n", base);
  st = lth_problem_parse(sampled, strlen(sampled), "x.lth", dir, &ps, &err);
  ck_assert_int_eq(st, LTH_EPARSE);
  ck_assert_ptr_nonnull(strstr(err.message, "samples(...) may only be added to a formula or "
                                            "multiplied (or divided) by a constant"));
  snprintf(sampled, sizeof sampled, "%sL*iL' = v\n0 = v - sin(samples(\"vs.csv\"))\n", base);
  st = lth_problem_parse(sampled, strlen(sampled), "x.lth", dir, &ps, &err);
  ck_assert_ptr_nonnull(strstr(err.message, "functions of sampled data are not supported"));
  unlink(csv);
  unlink(path);
  rmdir(dir);
}
END_TEST

/* Names of any length: two unknowns that share their first 100 (or 5000)
 * characters are two unknowns, the velocity x' of a long x keeps the whole
 * name (they used to be cut at 100 characters: "declared twice"). */
START_TEST(test_long_names) {
  static const size_t prefix[] = {100, 5000};
  for (size_t c = 0; c < sizeof prefix / sizeof prefix[0]; c++) {
    size_t n = prefix[c];
    char *P = malloc(n + 1), *text = malloc(8 * n + 512), *name = malloc(n + 8);
    ck_assert(P && text && name);
    memset(P, 'a', n);
    P[n] = '\0';
    snprintf(text, 8 * n + 512,
             "problem equations\nvariables %sx %sy lambda\ninterval 0 1\n"
             "%sx'' = lambda\n%sy' = %sx\n0 = %sx - sin(t)\n",
             P, P, P, P, P, P);
    lth_problem *pb = NULL;
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_problem_parse(text, strlen(text), "long.lth", NULL, &pb, &err) == LTH_OK,
                  "prefix %zu: %s", n, err.message);
    ck_assert_int_eq(lth_problem_nvars(pb), 4); /* x, x', y, lambda */
    snprintf(name, n + 8, "%sx", P);
    int x = lth_problem_find_var(pb, name);
    ck_assert_int_ge(x, 0);
    ck_assert_str_eq(lth_problem_var_name(pb, x), name);
    snprintf(name, n + 8, "%sx'", P);
    int xd = lth_problem_find_var(pb, name);
    ck_assert_int_ge(xd, 0);
    ck_assert_str_eq(lth_problem_var_name(pb, xd), name);
    snprintf(name, n + 8, "%sy", P);
    int y = lth_problem_find_var(pb, name);
    ck_assert_int_ge(y, 0);
    ck_assert_int_ne(y, x);
    ck_assert_int_ne(y, xd);
    const lth_system *sys = lth_problem_system(pb);
    ck_assert_int_eq(lth_system_index(sys), 3);
    ck_assert_int_eq(lth_system_manifold_dim(sys), 1);
    lth_problem_free(pb);
    free(P);
    free(text);
    free(name);
  }
}
END_TEST

static Suite *equations_suite(void) {
  Suite *s = suite_create("problem_equations");
  TCase *tc = tcase_create("equations");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, test_examples_exact, 0, (int)(sizeof EXAMPLES / sizeof EXAMPLES[0]));
  tcase_add_test(tc, test_names_and_free_values);
  tcase_add_test(tc, test_param_overrides);
  tcase_add_test(tc, test_stdin);
  tcase_add_test(tc, test_z0_bc_user_order);
  tcase_add_test(tc, test_sampled_coefficients);
  tcase_add_test(tc, test_long_names);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(equations_suite)
