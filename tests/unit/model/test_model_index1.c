/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Index-1 parts of the equation form (include/lth/model.h, docs/equations.md
 * section 9): algebraic unknowns fixed by algebraic equations through an
 * invertible block K are eliminated exactly and Clark's reduction runs on
 * the Hessenberg rest.
 *   - the circuit of data/circuit_mna.lth (index 2 with four index-1
 *     unknowns) against an independent integration of the ODE reduced by
 *     hand, with the index-1 unknowns declared first, last and in the middle;
 *   - a mass chain with algebraically defined spring forces (index 3), the
 *     same way;
 *   - equivalence: random Hessenberg systems of index 2..6 with random
 *     index-1 parts added give the systems and trajectories of the systems
 *     without them;
 *   - refusals: K singular at some t, a loop singular everywhere, unknowns
 *     the constraints cannot fix. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_odeiv2.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/ivp.h"
#include "lth/model.h"
#include "lth/problem.h"
#include "testsys.h"
#include "testutil.h"

/* ---- reading variants of a data file ---- */

static char *slurp(const char *name) {
  const char *dir = getenv("LTH_DATA_DIR");
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir ? dir : "data", name);
  FILE *fp = fopen(path, "rb");
  ck_assert_msg(fp != NULL, "cannot open %s", path);
  char *buf = malloc(1 << 16);
  size_t n = fread(buf, 1, (1 << 16) - 1, fp);
  buf[n] = '\0';
  fclose(fp);
  return buf;
}

/* text with the line starting with `key` replaced by `line` (a new string). */
static char *replace_line(const char *text, const char *key, const char *line) {
  const char *at = strstr(text, key);
  while (at && at != text && at[-1] != '\n') {
    at = strstr(at + 1, key);
  }
  ck_assert_ptr_nonnull(at);
  const char *end = strchr(at, '\n');
  size_t n = strlen(text) + strlen(line) + 2;
  char *out = malloc(n);
  snprintf(out, n, "%.*s%s%s", (int)(at - text), text, line, end ? end : "");
  return out;
}

static lth_problem *parse(const char *text) {
  lth_problem *pb = NULL;
  lth_error err;
  lth_status st = lth_problem_parse(text, strlen(text), "variant.lth", NULL, &pb, &err);
  ck_assert_msg(st == LTH_OK, "parse: %s (line %d)", err.message, err.line);
  return pb;
}

/* Solve from the file's z0 at tight tolerances; user values (nv per time)
 * at times[0..n-1] in the user's order, and the global error estimate. */
static double *solve_user(const lth_problem *pb, const double *times, size_t n, double *errest) {
  const lth_model *m = lth_problem_model(pb);
  const lth_system *sys = lth_problem_system(pb);
  const double *z0;
  ck_assert(lth_problem_z0(pb, &z0));
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  lth_ivp_result *res = NULL;
  lth_error err;
  double t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  lth_status st = lth_ivp_solve(sys, t0, z0, times, n, &o, &res, &err);
  ck_assert_msg(st == LTH_OK, "solve: %s", err.message);
  ck_assert(res->z0_residual < 1e-12);
  int nv = lth_model_nvars(m), s = lth_system_size(sys);
  double *u = malloc((size_t)nv * n * sizeof *u);
  lth_model_values *w = lth_model_values_alloc(m, NULL);
  for (size_t k = 0; k < n; k++) {
    TU_ASSERT_OK(lth_model_values_at(w, times[k], res->z + k * (size_t)s, NULL, u + k * (size_t)nv,
                                     NULL, NULL));
  }
  *errest = res->z_error ? res->error_estimate : NAN;
  lth_model_values_free(w);
  lth_ivp_result_free(res);
  return u;
}

/* ---- the circuit of data/circuit_mna.lth reduced by hand ---- */

enum { C_E1, C_IV, C_E2, C_E3, C_E4, C_E5, C_IL1, C_IL2, C_IL3, C_N };
static const char *const circuit_names[C_N] = {"e1", "iV",  "e2",  "e3", "e4",
                                               "e5", "iL1", "iL2", "iL3"};
#define R2 2.0
#define R3 0.5
#define L1 0.5
#define L2 1.0
#define L3 2.0

/* Every unknown from the state (e2, iL1, iL2) at t. */
static void circuit_all(double t, const double *x, double *all) {
  double e2 = x[0], i1 = x[1], i2 = x[2];
  all[C_E1] = sin(t);
  all[C_IV] = (all[C_E1] - e2) / (2.0 + sin(t));
  all[C_E2] = e2;
  all[C_E3] = e2 - R2 * (i1 + i2); /* nodes 3 and 4 */
  all[C_E4] = all[C_E3] - R3 * i2;
  all[C_E5] = (all[C_E4] / L2 - 0.4 * sin(2.0 * t)) / (1.0 / L2 + 1.0 / L3); /* node 5, d/dt */
  all[C_IL1] = i1;
  all[C_IL2] = i2;
  all[C_IL3] = i2 + 0.2 * cos(2.0 * t);
}

static int circuit_rhs(double t, const double *x, double *dx, void *ctx) {
  (void)ctx;
  double a[C_N];
  circuit_all(t, x, a);
  double C = 1.0 + 0.5 * cos(t);
  dx[0] = ((a[C_E1] - x[0]) / (2.0 + sin(t)) - (x[0] - a[C_E3]) / R2 + 0.5 * sin(t) * x[0]) / C;
  dx[1] = a[C_E3] / L1;
  dx[2] = (a[C_E4] - a[C_E5]) / L2;
  return GSL_SUCCESS;
}

/* The reference at the times (C_N per time, the order of circuit_names). */
static void circuit_reference(const double *times, size_t n, double *ref) {
  gsl_odeiv2_system ode = {circuit_rhs, NULL, 3, NULL};
  gsl_odeiv2_driver *d =
      gsl_odeiv2_driver_alloc_y_new(&ode, gsl_odeiv2_step_rk8pd, 1e-3, 1e-14, 1e-14);
  double x[3] = {0.3, 0.1, -0.2}, t = 0.0;
  for (size_t k = 0; k < n; k++) {
    if (times[k] > t) {
      ck_assert_int_eq(gsl_odeiv2_driver_apply(d, &t, times[k], x), GSL_SUCCESS);
    }
    circuit_all(times[k], x, ref + k * C_N);
  }
  gsl_odeiv2_driver_free(d);
}

/* Orders of `variables`: as shipped (mixed), index-1 unknowns first, last. */
static const int circuit_orders[3][C_N] = {
    {C_E1, C_IV, C_E2, C_E3, C_E4, C_E5, C_IL1, C_IL2, C_IL3},
    {C_E3, C_IV, C_E4, C_E1, C_E2, C_E5, C_IL1, C_IL2, C_IL3},
    {C_E2, C_IL3, C_E5, C_IL1, C_IL2, C_E4, C_E1, C_IV, C_E3},
};

START_TEST(test_circuit) {
  static const double z0all[C_N] = {0, -0.15, 0.3, 0.5, 0.6, 0.4, 0.1, -0.2, 0};
  const int *ord = circuit_orders[_i];
  char vars[256] = "variables", z0[256] = "z0 = [";
  for (int k = 0; k < C_N; k++) {
    snprintf(vars + strlen(vars), sizeof vars - strlen(vars), " %s", circuit_names[ord[k]]);
    snprintf(z0 + strlen(z0), sizeof z0 - strlen(z0), " %.17g", z0all[ord[k]]);
  }
  strcat(z0, "]");
  char *text = slurp("circuit_mna.lth"), *t1 = replace_line(text, "variables", vars),
       *t2 = replace_line(t1, "z0", z0);
  lth_problem *pb = parse(t2);
  const lth_model *m = lth_problem_model(pb);
  ck_assert_int_eq(lth_model_index(m), 2);
  ck_assert_int_eq(lth_model_index1_count(m), 4);
  ck_assert_int_eq(lth_model_size(m), 5);
  ck_assert_int_eq(lth_model_manifold_dim(m), 3);
  for (int k = 0; k < C_N; k++) { /* the roles, whatever the order */
    int c = ord[k], want = c == C_E5                                            ? 2
                           : (c == C_E1 || c == C_IV || c == C_E3 || c == C_E4) ? 0
                                                                                : 1;
    ck_assert_int_eq(lth_model_var_block(m, k), want);
  }
  enum { NT = 11 };
  double times[NT], ref[NT * C_N], est;
  for (int k = 0; k < NT; k++) {
    times[k] = k;
  }
  double *u = solve_user(pb, times, NT, &est);
  circuit_reference(times, NT, ref);
  /* both integrations' errors are below 1e-11 (lth's estimate, rk8pd at 1e-14);
   * the unknowns are of size 1 */
  ck_assert_msg(est < 1e-10, "estimated global error %g", est);
  double worst = 0.0;
  for (int k = 0; k < NT; k++) {
    for (int j = 0; j < C_N; j++) {
      worst = fmax(worst, fabs(u[k * C_N + j] - ref[k * C_N + ord[j]]));
    }
  }
  ck_assert_msg(worst < 1e-9, "order %d: largest difference from the reference %g", _i, worst);
  free(u);
  lth_problem_free(pb);
  free(text);
  free(t1);
  free(t2);
}
END_TEST

/* ---- a mass chain with algebraic spring forces ----
 * m1 x1'' = F1, m2 x2'' = F2 - F1, m3 x3'' = -F2 + lambda, 0 = x3 - sin(t),
 * F1 = k1(t) (x2 - x1), F2 = k2(t) (x3 - x2) written as equations of their own. */
static const char chain_text[] = "problem equations\n"
                                 "VARS\n"
                                 "interval 0 6\n"
                                 "param m1 = 1, m2 = 2, m3 = 1.5\n"
                                 "m1*x1'' = F1\n"
                                 "m2*x2'' = F2 - F1\n"
                                 "m3*x3'' = -F2 + lambda\n"
                                 "0 = F1 - (2 + 0.5*sin(t))*(x2 - x1)\n"
                                 "0 = F2 - (3 + cos(2*t))*(x3 - x2)\n"
                                 "0 = x3 - sin(t)\n";

static int chain_rhs(double t, const double *x, double *dx, void *ctx) {
  (void)ctx;
  double F1 = (2 + 0.5 * sin(t)) * (x[2] - x[0]), F2 = (3 + cos(2 * t)) * (sin(t) - x[2]);
  dx[0] = x[1];
  dx[1] = F1 / 1.0;
  dx[2] = x[3];
  dx[3] = (F2 - F1) / 2.0;
  return GSL_SUCCESS;
}

START_TEST(test_chain_forces) {
  static const char *const orders[3] = {
      "variables F1 F2 x1 x2 x3 lambda",
      "variables x1 x2 F2 x3 lambda F1",
      "variables x1 x2 x3 lambda F1 F2",
  };
  char *text = replace_line(chain_text, "VARS", orders[_i]);
  lth_problem *pb = parse(text);
  const lth_model *m = lth_problem_model(pb);
  ck_assert_int_eq(lth_model_index(m), 3);
  ck_assert_int_eq(lth_model_index1_count(m), 2);
  ck_assert_int_eq(lth_model_manifold_dim(m), 4);
  /* consistent initial value from the reduced state (x1, x1', x2, x2') = (0.2, 0, -0.1, 0.3) */
  double x[4] = {0.2, 0.0, -0.1, 0.3};
  int nv = lth_model_nvars(m), s = lth_model_size(m);
  double *user = malloc((size_t)nv * sizeof *user), *zc = malloc((size_t)s * sizeof *zc);
  const char *nm[] = {"x1", "x1'", "x2", "x2'", "x3", "x3'", "lambda", "F1", "F2"};
  double val[9];
  double F1 = 2.0 * (x[2] - x[0]), F2 = 4.0 * (0.0 - x[2]);
  /* lambda = m3 x3'' + F2 = -m3 sin(0) + F2 */
  double v9[9] = {x[0], x[1], x[2], x[3], 0.0, 1.0, F2, F1, F2};
  memcpy(val, v9, sizeof val);
  for (int k = 0; k < 9; k++) {
    int idx = lth_problem_find_var(pb, nm[k]);
    ck_assert_int_ge(idx, 0);
    user[idx] = val[k];
  }
  lth_problem_to_canonical(pb, user, zc);
  lth_ivp_opts o;
  lth_ivp_opts_init(&o);
  o.rtol = 1e-12;
  o.atol = 1e-14;
  enum { NT = 7 };
  double times[NT];
  for (int k = 0; k < NT; k++) {
    times[k] = k;
  }
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_status st = lth_ivp_solve(lth_problem_system(pb), 0.0, zc, times, NT, &o, &res, &err);
  ck_assert_msg(st == LTH_OK, "%s", err.message);
  ck_assert(res->z0_residual < 1e-12);
  gsl_odeiv2_system ode = {chain_rhs, NULL, 4, NULL};
  gsl_odeiv2_driver *d =
      gsl_odeiv2_driver_alloc_y_new(&ode, gsl_odeiv2_step_rk8pd, 1e-3, 1e-14, 1e-14);
  lth_model_values *w = lth_model_values_alloc(m, NULL);
  double t = 0.0, worst = 0.0;
  for (int k = 0; k < NT; k++) {
    if (times[k] > t) {
      ck_assert_int_eq(gsl_odeiv2_driver_apply(d, &t, times[k], x), GSL_SUCCESS);
    }
    TU_ASSERT_OK(lth_model_values_at(w, times[k], res->z + (size_t)k * s, NULL, user, NULL, NULL));
    double tk = times[k], f1 = (2 + 0.5 * sin(tk)) * (x[2] - x[0]),
           f2 = (3 + cos(2 * tk)) * (sin(tk) - x[2]);
    double want[9] = {x[0], x[1], x[2], x[3], sin(tk), cos(tk), -1.5 * sin(tk) + f2, f1, f2};
    for (int j = 0; j < 9; j++) {
      worst = fmax(worst, fabs(user[lth_problem_find_var(pb, nm[j])] - want[j]));
    }
  }
  /* errors of both integrations ~1e-12; lambda, F1, F2 of size ~10 */
  ck_assert_msg(worst < 1e-8, "order %d: largest difference %g", _i, worst);
  gsl_odeiv2_driver_free(d);
  lth_model_values_free(w);
  lth_ivp_result_free(res);
  free(user);
  free(zc);
  lth_problem_free(pb);
  free(text);
}
END_TEST

/* ---- equivalence over random systems ---- */

static lth_expr *entry_expr(const ts_entry *e, double scale) {
  char buf[256];
  snprintf(buf, sizeof buf, "%.17g + %.17g*sin(%.17g*t + %.17g)", scale * e->c0, scale * e->c1,
           e->w, e->phi);
  lth_expr *x = NULL;
  TU_ASSERT_OK(lth_expr_parse(buf, strlen(buf), NULL, NULL, &x, NULL));
  return x;
}

static ts_entry rnd_entry(double c0lo, double c0hi, double amp) {
  /* one draw per statement: the order of an initializer list's evaluation is
   * unspecified, and every compiler must draw the same system */
  ts_entry e = {.nz = 1};
  e.c0 = tu_uniform(c0lo, c0hi);
  e.c1 = amp * tu_uniform(-1, 1);
  e.w = tu_uniform(0.3, 2.0);
  e.phi = tu_uniform(0, 6);
  return e;
}

/* The model of S, with ny index-1 unknowns added when ny > 0:
 *   0 = K y - L x - g        (K: ny x ny, diagonally dominant; L on z_{r-1})
 * and P (K y - L x - g) added to a few random differential equations, so
 * that the solution for z is S's.  Unknowns in the order `order` (a
 * permutation of 0..s+ny-1, y = s..). */
typedef struct rnd1 {
  ts_entry K[3][3], L[3][8], g[3], P[16][3];
  int Lcol[3][8], nL[3], prow[16], np;
} rnd1;

static lth_model *random_model(const ts_sys *S, int ny, const rnd1 *R, const int *order) {
  lth_model *m = lth_model_alloc(NULL);
  int s = S->s, nv = s + ny, *var = malloc((size_t)nv * sizeof *var);
  for (int k = 0; k < nv; k++) {
    char name[16];
    snprintf(name, sizeof name, order[k] < s ? "z%d" : "y%d",
             order[k] < s ? order[k] : order[k] - s);
    var[order[k]] = lth_model_add_variable(m, name, 0, 0, NULL);
  }
  for (int i = 0; i < s; i++) { /* row i of S */
    int q = lth_model_add_equation(m, 0, 0, NULL);
    if (i < S->m) {
      TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, q, var[i], 1.0, NULL));
    }
    for (int j = 0; j < s; j++) {
      const ts_entry *e = &S->A[i + j * s];
      if (e->c0 != 0.0 || e->c1 != 0.0) {
        lth_expr *x = entry_expr(e, 1.0);
        TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_A, q, var[j], x, NULL));
      }
    }
    TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_F, q, -1, entry_expr(&S->fr[i], 1.0), NULL));
  }
  for (int j = 0; j < ny; j++) { /* 0 = K y - L x - g */
    int q = lth_model_add_equation(m, 0, 0, NULL);
    for (int k = 0; k < ny; k++) {
      TU_ASSERT_OK(
          lth_model_set_expr(m, LTH_MODEL_A, q, var[s + k], entry_expr(&R->K[j][k], 1.0), NULL));
    }
    for (int c = 0; c < R->nL[j]; c++) {
      TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_A, q, var[R->Lcol[j][c]],
                                      entry_expr(&R->L[j][c], -1.0), NULL));
    }
    TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_F, q, -1, entry_expr(&R->g[j], -1.0), NULL));
  }
  free(var);
  return m;
}

/* The same as random_model with P (K y - L x - g) added to rows prow: the
 * coefficients are then sums, written as one expression each. */
static lth_model *random_model_mixed(const ts_sys *S, int ny, const rnd1 *R, const int *order) {
  lth_model *m = lth_model_alloc(NULL);
  int s = S->s, nv = s + ny, *var = malloc((size_t)nv * sizeof *var);
  for (int k = 0; k < nv; k++) {
    char name[16];
    snprintf(name, sizeof name, order[k] < s ? "z%d" : "y%d",
             order[k] < s ? order[k] : order[k] - s);
    var[order[k]] = lth_model_add_variable(m, name, 0, 0, NULL);
  }
  char buf[8192];
#define TERM(E, SC)                                                                                \
  snprintf(buf + strlen(buf), sizeof buf - strlen(buf), " + (%.17g + %.17g*sin(%.17g*t + %.17g))", \
           (SC) * (E)->c0, (SC) * (E)->c1, (E)->w, (E)->phi)
#define PTERM(PE, E, SC)                                                                           \
  snprintf(buf + strlen(buf), sizeof buf - strlen(buf),                                            \
           " + (%.17g + %.17g*sin(%.17g*t + %.17g))*(%.17g + %.17g*sin(%.17g*t + %.17g))",         \
           (PE)->c0, (PE)->c1, (PE)->w, (PE)->phi, (SC) * (E)->c0, (SC) * (E)->c1, (E)->w,         \
           (E)->phi)
  for (int i = 0; i < s; i++) {
    int q = lth_model_add_equation(m, 0, 0, NULL), a = -1;
    for (int k = 0; k < R->np; k++) {
      a = R->prow[k] == i ? k : a;
    }
    if (i < S->m) {
      TU_ASSERT_OK(lth_model_set_const(m, LTH_MODEL_E, q, var[i], 1.0, NULL));
    }
    for (int j = 0; j < nv; j++) {
      buf[0] = '0';
      buf[1] = '\0';
      int any = 0;
      if (j < s && (S->A[i + j * s].c0 != 0.0 || S->A[i + j * s].c1 != 0.0)) {
        TERM(&S->A[i + j * s], 1.0);
        any = 1;
      }
      for (int b = 0; a >= 0 && b < ny; b++) { /* P_b (K y - L x) */
        if (j >= s) {
          PTERM(&R->P[a][b], &R->K[b][j - s], 1.0);
          any = 1;
        }
        for (int c = 0; j < s && c < R->nL[b]; c++) {
          if (R->Lcol[b][c] == j) {
            PTERM(&R->P[a][b], &R->L[b][c], -1.0);
            any = 1;
          }
        }
      }
      if (any) {
        lth_expr *x = NULL;
        TU_ASSERT_OK(lth_expr_parse(buf, strlen(buf), NULL, NULL, &x, NULL));
        TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_A, q, var[j], x, NULL));
      }
    }
    buf[0] = '0';
    buf[1] = '\0';
    TERM(&S->fr[i], 1.0);
    for (int b = 0; a >= 0 && b < ny; b++) {
      PTERM(&R->P[a][b], &R->g[b], -1.0);
    }
    lth_expr *x = NULL;
    TU_ASSERT_OK(lth_expr_parse(buf, strlen(buf), NULL, NULL, &x, NULL));
    TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_F, q, -1, x, NULL));
  }
#undef TERM
#undef PTERM
  for (int j = 0; j < ny; j++) { /* 0 = K y - L x - g */
    int q = lth_model_add_equation(m, 0, 0, NULL);
    for (int k = 0; k < ny; k++) {
      TU_ASSERT_OK(
          lth_model_set_expr(m, LTH_MODEL_A, q, var[s + k], entry_expr(&R->K[j][k], 1.0), NULL));
    }
    for (int c = 0; c < R->nL[j]; c++) {
      TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_A, q, var[R->Lcol[j][c]],
                                      entry_expr(&R->L[j][c], -1.0), NULL));
    }
    TU_ASSERT_OK(lth_model_set_expr(m, LTH_MODEL_F, q, -1, entry_expr(&R->g[j], -1.0), NULL));
  }
  free(var);
  return m;
}

/* The system's A and f at t, rows and columns by the unknowns of the
 * reference model m0 (found by name), s x s. */
static void user_dense(const lth_model *m, const lth_model *m0, const lth_system *sys, double t,
                       double *A, double *f) {
  int s = lth_system_size(sys), perm[64];
  for (int k = 0; k < s; k++) {
    const char *name = lth_model_var_name(m, lth_model_perm(m)[k]);
    perm[k] = lth_model_find_variable(m0, name, strlen(name));
    ck_assert(perm[k] >= 0 && perm[k] < s);
  }
  lth_jet *J = lth_jet_alloc(s, s, 0, NULL), *F = lth_jet_alloc(s, 1, 0, NULL);
  double *w = malloc((lth_system_work_size(sys, 0) + 1) * sizeof *w);
  TU_ASSERT_OK(lth_system_eval(sys, t, 0, J, F, w, NULL));
  for (int i = 0; i < s; i++) {
    f[perm[i]] = LTH_JET_AT(F, 0, i, 0);
    for (int j = 0; j < s; j++) {
      A[perm[i] + (size_t)perm[j] * s] = LTH_JET_AT(J, 0, i, j);
    }
  }
  free(w);
  lth_jet_free(J);
  lth_jet_free(F);
}

START_TEST(test_equivalence_random) {
  int draws = 0;
  double worst_sys = 0.0, worst_traj = 0.0;
  for (int r = 2; r <= 6; r++) {
    for (int rep = 0; rep < 4; rep++, draws++) {
      uint64_t seed = 1000u * (uint64_t)r + (uint64_t)rep;
      int n[TS_MAXR], nr = 1 + rep % 2;
      tu_seed(seed);
      for (int i = 0; i < r; i++) {
        n[i] = i == r - 1 ? nr : nr + (int)tu_uniform(0, 2.99);
      }
      ts_sys *S = ts_new(r, n, seed, 0.3, 0);
      int s = S->s, ny = 1 + rep % 3, zr1 = S->off[r - 2], nz = n[r - 2];
      rnd1 R;
      memset(&R, 0, sizeof R);
      tu_seed(seed + 77);
      for (int j = 0; j < ny; j++) { /* K diagonally dominant: invertible on every t */
        for (int k = 0; k < ny; k++) {
          R.K[j][k] = j == k ? rnd_entry(2.0, 3.0, 0.5) : rnd_entry(-0.3, 0.3, 0.2);
        }
        R.g[j] = rnd_entry(-1, 1, 0.5);
        R.nL[j] = 1 + (int)tu_uniform(0, nz - 0.01);
        for (int c = 0; c < R.nL[j]; c++) { /* L on z_{r-1}: allowed in every differential row */
          R.Lcol[j][c] = zr1 + (c + j) % nz;
          R.L[j][c] = rnd_entry(-1, 1, 0.5);
        }
      }
      R.np = 1 + (int)tu_uniform(0, fmin(S->m, 4) - 0.01);
      for (int a = 0; a < R.np; a++) {
        R.prow[a] = (a * 7 + (int)seed) % S->m;
        for (int b = 0; b < ny; b++) {
          R.P[a][b] = rnd_entry(-1, 1, 0.5);
        }
      }
      int nv = s + ny, *order = malloc((size_t)nv * sizeof *order);
      for (int k = 0; k < nv; k++) {
        order[k] = k;
      }
      for (int k = nv - 1; k > 0; k--) { /* the unknowns in a random order */
        int j = (int)tu_uniform(0, k + 0.999), t = order[k];
        order[k] = order[j];
        order[j] = t;
      }
      int *order0 = malloc((size_t)s * sizeof *order0);
      for (int k = 0, c = 0; k < nv; k++) {
        if (order[k] < s) {
          order0[c++] = order[k];
        }
      }
      lth_model *m0 = random_model(S, 0, &R, order0);
      lth_model *m1 = random_model_mixed(S, ny, &R, order);
      lth_error err;
      lth_status st0 = lth_model_analyze(m0, 0.0, 2.0, NULL, 0, &err);
      ck_assert_msg(st0 == LTH_OK, "r = %d: %s", r, err.message);
      lth_status st1 = lth_model_analyze(m1, 0.0, 2.0, NULL, 0, &err);
      ck_assert_msg(st1 == LTH_OK, "r = %d rep %d: %s", r, rep, err.message);
      ck_assert_int_eq(lth_model_index(m1), r);
      ck_assert_int_eq(lth_model_index1_count(m1), ny);
      ck_assert_int_eq(lth_model_size(m1), s);
      lth_system *sys0 = NULL, *sys1 = NULL;
      TU_ASSERT_OK(lth_model_system(m0, &sys0, NULL));
      TU_ASSERT_OK(lth_model_system(m1, &sys1, NULL));
      /* the systems in the user's z: equal up to rounding of P (K K^{-1} L - L) */
      double *A0 = malloc((size_t)s * s * sizeof *A0), *A1 = malloc((size_t)s * s * sizeof *A1);
      double f0[64], f1[64];
      for (int k = 0; k < 3; k++) {
        double t = 0.3 + 0.6 * k, amax = 1.0;
        user_dense(m0, m0, sys0, t, A0, f0);
        user_dense(m1, m0, sys1, t, A1, f1);
        for (int i = 0; i < s * s; i++) {
          amax = fmax(amax, fabs(A0[i]));
        }
        for (int i = 0; i < s * s; i++) {
          worst_sys = fmax(worst_sys, fabs(A0[i] - A1[i]) / amax);
        }
        for (int i = 0; i < s; i++) {
          worst_sys = fmax(worst_sys, fabs(f0[i] - f1[i]) / amax);
        }
      }
      /* trajectories from the same consistent value */
      lth_decomp_ws *ws = lth_decomp_ws_alloc(sys0, 0, NULL);
      lth_point *pt = lth_point_alloc(sys0, 0, NULL);
      TU_ASSERT_OK(lth_decomp_at(ws, 0.0, pt, NULL));
      double zc0[64], zc1[64], v0[64];
      for (int k = 0; k < S->m; k++) {
        v0[k] = 0.1 * (k + 1);
      }
      /* z0 = (Nhat + Bhat)(I - P) v0 + q: Clark's Corollary 3, on sys0 */
      for (int i = 0; i < s; i++) {
        double a = LTH_JET_AT(&pt->q, 0, i, 0);
        for (int k = 0; k < S->m; k++) {
          a += LTH_JET_AT(&pt->G, 0, i, k) * v0[k];
        }
        zc0[i] = a;
      }
      const int *p0 = lth_model_perm(m0), *ip1 = lth_model_iperm(m1);
      /* user indices of m0 and m1 differ (m1 interleaves y): map by name */
      for (int i = 0; i < s; i++) {
        const char *name = lth_model_var_name(m0, p0[i]);
        int v1 = lth_model_find_variable(m1, name, strlen(name));
        zc1[ip1[v1]] = zc0[i];
      }
      double times[3] = {0.0, 1.0, 2.0};
      lth_ivp_opts o;
      lth_ivp_opts_init(&o);
      o.rtol = 1e-12;
      o.atol = 1e-14;
      o.error_estimate = 0;
      lth_ivp_result *res0 = NULL, *res1 = NULL;
      st0 = lth_ivp_solve(sys0, 0.0, zc0, times, 3, &o, &res0, &err);
      ck_assert_msg(st0 == LTH_OK, "%s", err.message);
      st1 = lth_ivp_solve(sys1, 0.0, zc1, times, 3, &o, &res1, &err);
      ck_assert_msg(st1 == LTH_OK, "%s", err.message);
      double zmax = 1.0, diff = 0.0;
      for (int k = 0; k < 3; k++) {
        for (int i = 0; i < s; i++) {
          const char *name = lth_model_var_name(m0, p0[i]);
          int v1 = lth_model_find_variable(m1, name, strlen(name));
          double a = res0->z[k * s + i], b = res1->z[k * s + ip1[v1]];
          zmax = fmax(zmax, fabs(a));
          diff = fmax(diff, fabs(a - b));
        }
      }
      worst_traj = fmax(worst_traj, diff / zmax);
      lth_ivp_result_free(res0);
      lth_ivp_result_free(res1);
      lth_point_free(pt);
      lth_decomp_ws_free(ws);
      free(A0);
      free(A1);
      lth_system_free(sys0);
      lth_system_free(sys1);
      lth_model_free(m0);
      lth_model_free(m1);
      free(order);
      free(order0);
      ts_free(S);
    }
  }
  printf("index-1 equivalence: %d draws, systems differ by %.3g, trajectories by %.3g (relative)\n",
         draws, worst_sys, worst_traj);
  /* the coefficients P K K^{-1} L - P L cancel to rounding: |P| |K| |K^-1| |L| ~ 10
   * times eps per entry (cond K <= 3 by diagonal dominance) */
  ck_assert_msg(worst_sys < 1e-13, "systems differ by %g", worst_sys);
  ck_assert_msg(worst_traj < 1e-12, "trajectories differ by %g", worst_traj);
}
END_TEST

/* ---- refusals ---- */

static lth_status parse_err(const char *text, lth_error *err) {
  lth_problem *pb = NULL;
  lth_status st = lth_problem_parse(text, strlen(text), "bad.lth", NULL, &pb, err);
  lth_problem_free(pb);
  return st;
}

START_TEST(test_refusals) {
  lth_error err;
  /* K = (1 - t) is singular at t = 1: named with t, the unknown and the equation */
  const char *singular = "problem equations\n"
                         "variables x v lambda F\n"
                         "interval 0 2\n"
                         "x' = v\n"
                         "v' = F + lambda\n"
                         "0 = (1 - t)*F - x\n"
                         "0 = x - sin(t)\n";
  ck_assert_int_eq(parse_err(singular, &err), LTH_EMODEL);
  ck_assert_msg(strstr(err.message,
                       "the index-1 block K of {F} in the equation on line 6 is singular "
                       "at t = 1") != NULL,
                "%s", err.message);
  ck_assert_int_eq(err.line, 6);
  /* a loop that fixes nothing anywhere: 0 = a - b, 0 = 2a - 2b + x */
  const char *loop = "problem equations\n"
                     "variables x v lambda a b\n"
                     "interval 0 2\n"
                     "x' = v + a\n"
                     "v' = lambda + b\n"
                     "0 = a - b\n"
                     "0 = (2 + sin(t))*(a - b) + x\n"
                     "0 = x - sin(t)\n";
  ck_assert_int_eq(parse_err(loop, &err), LTH_EMODEL);
  ck_assert_msg(strstr(err.message, "the equations on lines 6, 7 do not fix the algebraic unknowns "
                                    "{a, b}: their block K") != NULL &&
                    strstr(err.message, "singular at every t checked") != NULL,
                "%s", err.message);
  /* two unknowns in one constraint: structurally not fixed */
  const char *shared = "problem equations\n"
                       "variables x v w lambda a b\n"
                       "interval 0 2\n"
                       "x' = v + a\n"
                       "v' = lambda + b\n"
                       "w' = a - b\n"
                       "0 = a + b - x\n"
                       "0 = x - sin(t)\n"
                       "0 = w - x\n";
  ck_assert_int_eq(parse_err(shared, &err), LTH_EMODEL);
  ck_assert_msg(strstr(err.message,
                       "the algebraic unknown {b} appears in equations without derivatives "
                       "(the equation on line 7) "
                       "that do not fix it") != NULL,
                "%s", err.message);
  ck_assert_msg(strstr(err.message, "neither a Hessenberg algebraic unknown") != NULL, "%s",
                err.message);
  /* K singular between the check times: the sign of det K changes */
  const char *between = "problem equations\n"
                        "variables x v lambda F\n"
                        "interval 0 1\n"
                        "grid 2\n"
                        "x' = v\n"
                        "v' = F + lambda\n"
                        "0 = (t - 0.30103)*F - x\n"
                        "0 = x - sin(t)\n";
  ck_assert_int_eq(parse_err(between, &err), LTH_EMODEL);
  ck_assert_msg(strstr(err.message, "the index-1 block K of {F}") != NULL &&
                    strstr(err.message, "singular between t = ") != NULL,
                "%s", err.message);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("model_index1");
  TCase *tc = tcase_create("index1");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, test_circuit, 0, 3);
  tcase_add_loop_test(tc, test_chain_forces, 0, 3);
  tcase_add_test(tc, test_equivalence_random);
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(suite)
