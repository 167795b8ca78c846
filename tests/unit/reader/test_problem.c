/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files (lib/reader/problem.c): docs/format.md's examples and every statement,
 * checked through the system they build (lth_system_eval) and the
 * accessors. */
#define _POSIX_C_SOURCE 200809L

#include <string.h>
#include <unistd.h>

#include "lth/problem.h"
#include "lth/samples.h"
#include "testutil.h"

/* docs/format.md section 1.1 (one `grid` line: the two are alternatives). */
static const char *contract_dae =
    "lth 1                      # optional; if present, the first statement\n"
    "problem dae                # optional; the default kind\n"
    "blocks 2 2 1               # required: n_1 ... n_r (r >= 2 numbers, each >= 1)\n"
    "interval 0 5               # required: t0 t1 with t0 < t1\n"
    "grid 501                   # optional: N >= 2 uniform points from t0 to t1 (default 101)\n"
    "param g = 9.81             # named constant; its expression may use earlier params, not t\n"
    "A(1,3) = [1; 2]            # block A_ij, size n_i x n_j\n"
    "A(2,1) = eye               # identity (needs n_i = n_j)\n"
    "A(3,2) = [1, 2]\n"
    "f(1)   = [0; -g]           # block f_i, size n_i x 1\n"
    "f(3)   = -4                # a 1x1 block may omit the brackets\n";

/* docs/format.md section 1.2 */
static const char *contract_lqr =
    "problem lqr\n"
    "sizes 2 1                  # nx nu (nx > nu >= 1)\n"
    "interval 0 1\n"
    "A = [0, 1; -1, 0]          # nx x nx, may depend on t\n"
    "B = [0; 1]                 # nx x nu, may depend on t\n"
    "H = [1, 0; 0, 1]           # nx x nx, symmetric positive semidefinite, may depend on t\n"
    "C = [0, 0; 0, 0]           # nx x nx terminal weight, constant, symmetric psd\n"
    "x0 = [1; 0]\n";

static lth_problem *parse_ok(const char *text, const char *basedir) {
  lth_problem *pb = NULL;
  lth_error err;
  char msg[1024];
  int st = lth_problem_parse(text, strlen(text), "test.lth", basedir, &pb, &err);
  ck_assert_msg(st == LTH_OK, "parse failed: %s", lth_error_format(&err, msg, sizeof msg));
  ck_assert_ptr_nonnull(pb);
  return pb;
}

/* Jets of the whole system at t, orders 0..order (caller frees). */
typedef struct sys_eval {
  lth_jet *A, *f;
} sys_eval;

static sys_eval eval_at(const lth_problem *pb, double t, int order) {
  const lth_system *sys = lth_problem_system(pb);
  int s = lth_system_size(sys);
  sys_eval ev = {lth_jet_alloc(s, s, order, NULL), lth_jet_alloc(s, 1, order, NULL)};
  size_t wn = lth_system_work_size(sys, order);
  double *work = malloc((wn ? wn : 1) * sizeof *work);
  lth_error err;
  int st = lth_system_eval(sys, t, order, ev.A, ev.f, work, &err);
  ck_assert_msg(st == LTH_OK, "eval: %s", err.message);
  free(work);
  return ev;
}

static void eval_free(sys_eval *ev) {
  lth_jet_free(ev->A);
  lth_jet_free(ev->f);
}

START_TEST(test_contract_dae_example) {
  lth_problem *pb = parse_ok(contract_dae, NULL);
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_problem_get_kind(pb), LTH_PROBLEM_DAE);
  ck_assert_int_eq(lth_system_index(sys), 3);
  ck_assert_int_eq(lth_system_size(sys), 5);
  ck_assert_int_eq(lth_system_manifold_dim(sys), 2);
  ck_assert_int_eq(lth_problem_sampling_order(pb), 0); /* default: automatic */
  ck_assert_ptr_null(lth_problem_lqr(pb));
  double t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  ck_assert(t0 == 0.0 && t1 == 5.0);
  const double *grid;
  ck_assert_uint_eq(lth_problem_grid(pb, &grid), 501);
  ck_assert(grid[0] == 0.0 && grid[500] == 5.0 && fabs(grid[1] - 0.01) < 1e-15);
  const double *z0, *B0, *B1, *beta;
  ck_assert_int_eq(lth_problem_z0(pb, &z0), 0);
  ck_assert_int_eq(lth_problem_bc(pb, &B0, &B1, &beta), 0);
  ck_assert_uint_eq(lth_problem_sampled_count(pb), 0);

  sys_eval ev = eval_at(pb, 1.37, 2);
  double Aref[5][5] = {
      {0, 0, 0, 0, 1}, {0, 0, 0, 0, 2}, {1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 2, 0}};
  double fref[5] = {0, -9.81, 0, 0, -4};
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 5; j++) {
      ck_assert(LTH_JET_AT(ev.A, 0, i, j) == Aref[i][j]);
      ck_assert(LTH_JET_AT(ev.A, 1, i, j) == 0.0 && LTH_JET_AT(ev.A, 2, i, j) == 0.0);
    }
    ck_assert(LTH_JET_AT(ev.f, 0, i, 0) == fref[i]);
  }
  eval_free(&ev);
  lth_problem_free(pb);
}
END_TEST

START_TEST(test_contract_lqr_example) {
  lth_problem *pb = parse_ok(contract_lqr, NULL);
  ck_assert_int_eq(lth_problem_get_kind(pb), LTH_PROBLEM_LQR);
  const lth_lqr_spec *q = lth_problem_lqr(pb);
  ck_assert_ptr_nonnull(q);
  ck_assert_int_eq(q->nx, 2);
  ck_assert_int_eq(q->nu, 1);
  ck_assert(q->t0 == 0.0 && q->t1 == 1.0);
  ck_assert(q->x0[0] == 1.0 && q->x0[1] == 0.0);
  for (int k = 0; k < 4; k++) {
    ck_assert(q->C[k] == 0.0);
  }
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_system_index(sys), 3);
  ck_assert_int_eq(lth_system_block_size(sys, 1), 2);
  ck_assert_int_eq(lth_system_block_size(sys, 2), 2);
  ck_assert_int_eq(lth_system_block_size(sys, 3), 1);
  ck_assert_int_eq(lth_problem_sampling_order(pb), 0); /* automatic */
  /* A(2,2) = -A', A(1,1) = A, A(2,1) = -H, A(1,3) = B, A(3,2) = B' */
  sys_eval ev = eval_at(pb, 0.4, 1);
  double A[2][2] = {{0, 1}, {-1, 0}};
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 2; j++) {
      ck_assert(LTH_JET_AT(ev.A, 0, i, j) == A[i][j]);
      ck_assert(LTH_JET_AT(ev.A, 0, 2 + i, 2 + j) == -A[j][i]);
      ck_assert(LTH_JET_AT(ev.A, 0, 2 + i, j) == (i == j ? -1.0 : 0.0));
    }
  }
  ck_assert(LTH_JET_AT(ev.A, 0, 1, 4) == 1.0 && LTH_JET_AT(ev.A, 0, 4, 3) == 1.0);
  eval_free(&ev);
  lth_problem_free(pb);
}
END_TEST

/* Time-dependent LQR data: A(2,2) = -A(t)' at every order. */
START_TEST(test_lqr_time_dependent) {
  const char *text = "problem lqr\n"
                     "sizes 3 1\n"
                     "interval 0 2\n"
                     "A = [0, 1, t; -1, 0, 0; sin(t), 0, 2.385]\n"
                     "B = [0; 1; t^2]\n"
                     "H = [2, cos(t), 0; cos(t), 1, 0; 0, 0, 1]\n"
                     "C = eye\n"
                     "x0 = [1, 0, 0]\n";
  lth_problem *pb = parse_ok(text, NULL);
  const lth_lqr_spec *q = lth_problem_lqr(pb);
  ck_assert(q->C[0] == 1.0 && q->C[4] == 1.0 && q->C[1] == 0.0);
  sys_eval ev = eval_at(pb, 0.7, 3);
  for (int m = 0; m <= 3; m++) {
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        ck_assert(LTH_JET_AT(ev.A, m, 3 + i, 3 + j) == -LTH_JET_AT(ev.A, m, j, i));
      }
    }
  }
  /* A(1,3) = 0.7^2, first derivative 2 * 0.7 */
  ck_assert(fabs(LTH_JET_AT(ev.A, 0, 2, 6) - 0.49) < 1e-15);
  ck_assert(fabs(LTH_JET_AT(ev.A, 1, 2, 6) - 1.4) < 1e-15);
  eval_free(&ev);
  lth_problem_free(pb);
}
END_TEST

/* Params, pi, expressions in t, and their Taylor coefficients. */
START_TEST(test_expressions_and_params) {
  const char *text = "blocks 2 1\n"
                     "interval 0 3\n"
                     "param w = 2.3\n"
                     "param ph = pi/8 + w - 2.3   # uses an earlier param and pi\n"
                     "A(1,1) = [sin(w*t + ph), t^2; exp(-t), 1.5]\n"
                     "A(1,2) = [1; 0]\n"
                     "A(2,1) = [0, 1]\n"
                     "f(1) = [w; -t^2]\n";
  lth_problem *pb = parse_ok(text, NULL);
  double t = 0.7, ph = M_PI / 8, w = 2.3;
  sys_eval ev = eval_at(pb, t, 3);
  double s = sin(w * t + ph), c = cos(w * t + ph);
  double ref[4] = {s, w * c, -w * w * s / 2, -w * w * w * c / 6};
  for (int m = 0; m <= 3; m++) {
    ck_assert_msg(fabs(LTH_JET_AT(ev.A, m, 0, 0) - ref[m]) < 1e-13, "order %d", m);
    double e = exp(-t) * (m % 2 ? -1.0 : 1.0) / tgamma(m + 1);
    ck_assert(fabs(LTH_JET_AT(ev.A, m, 1, 0) - e) < 1e-14);
  }
  ck_assert(fabs(LTH_JET_AT(ev.A, 0, 0, 1) - t * t) < 1e-15);
  ck_assert(fabs(LTH_JET_AT(ev.A, 1, 0, 1) - 2 * t) < 1e-15);
  ck_assert(fabs(LTH_JET_AT(ev.A, 2, 0, 1) - 1.0) < 1e-15);
  ck_assert(LTH_JET_AT(ev.A, 0, 1, 1) == 1.5 && LTH_JET_AT(ev.A, 1, 1, 1) == 0.0);
  ck_assert(LTH_JET_AT(ev.f, 0, 0, 0) == 2.3);
  ck_assert(fabs(LTH_JET_AT(ev.f, 0, 1, 0) + t * t) < 1e-15);
  eval_free(&ev);
  lth_problem_free(pb);
}
END_TEST

/* Multi-line literals, comments inside them, CR-LF, a BOM, row continuation
 * after ',', blank lines, tabs, z0 and bc (row-major text, column-major out). */
START_TEST(test_layout_z0_bc) {
  const char *text = "\xef\xbb\xbf# comment with UTF-8: \xc3\xa9\xe2\x82\xac\r\n"
                     "blocks 2 2 1\r\n"
                     "\r\n"
                     "interval\t0   5\r\n"
                     "A(1,1) = [\n"
                     "   1, 2      # first row\n"
                     "\n"
                     "   3,\n"
                     "   4         # continued after ','\n"
                     "]\n"
                     "A(1,3) = [1; 2]\n"
                     "A(2,1) = eye\n"
                     "A(3,2) = [1, 2]\n"
                     "z0 = [1; 1.5; 0.5; 1.75; -2]\n"
                     "bc B0 = [1, 2, 3, 4, 5\n"
                     "         6, 7, 8, 9, 10]\n"
                     "bc B1 = [0, 0, 0, 0, 0; 0, 0, 0, 0, 1.25]\n"
                     "bc beta = [3, 4]\n"
                     "grid [0, 0.5, 1, 2, 5]\n"
                     "sampling order 4\n";
  lth_problem *pb = parse_ok(text, NULL);
  sys_eval ev = eval_at(pb, 2.0, 0);
  ck_assert(LTH_JET_AT(ev.A, 0, 0, 0) == 1.0 && LTH_JET_AT(ev.A, 0, 0, 1) == 2.0);
  ck_assert(LTH_JET_AT(ev.A, 0, 1, 0) == 3.0 && LTH_JET_AT(ev.A, 0, 1, 1) == 4.0);
  eval_free(&ev);
  const double *z0, *B0, *B1, *beta, *grid;
  ck_assert_int_eq(lth_problem_z0(pb, &z0), 1);
  ck_assert(z0[0] == 1.0 && z0[3] == 1.75 && z0[4] == -2.0);
  ck_assert_int_eq(lth_problem_bc(pb, &B0, &B1, &beta), 2);
  /* column-major, ld = p = 2: entry (i, j) at i + 2 j */
  ck_assert(B0[0 + 2 * 1] == 2.0 && B0[1 + 2 * 0] == 6.0 && B0[1 + 2 * 4] == 10.0);
  ck_assert(B1[1 + 2 * 4] == 1.25 && B1[0 + 2 * 4] == 0.0);
  ck_assert(beta[0] == 3.0 && beta[1] == 4.0);
  ck_assert_uint_eq(lth_problem_grid(pb, &grid), 5);
  ck_assert(grid[3] == 2.0);
  ck_assert_int_eq(lth_problem_sampling_order(pb), 4);
  lth_problem_free(pb);
}
END_TEST

/* A(i,j) blocks in every allowed position of an index-4 system; f(i) 1 x 1. */
START_TEST(test_index4_pattern) {
  const char *text = "blocks 3 2 2 1\n"
                     "interval -1 1\n"
                     "A(1,1) = [1, 0, 0; 0, 1, 0; 0, 0, t]\n"
                     "A(1,2) = [1, 0; 0, 1; 0, 0]\n"
                     "A(1,3) = [0, 0; 0, 0; 1, 1]\n"
                     "A(1,4) = [1; 0; 0]\n"
                     "A(2,1) = [1, 0, 0; 0, 1, 0]\n"
                     "A(2,2) = eye\n"
                     "A(2,3) = [0, 1; 1, 0]\n"
                     "A(3,2) = eye\n"
                     "A(3,3) = [cos(t), 0; 0, 2]\n"
                     "A(4,3) = [1, 0]\n"
                     "f(4) = sin(t)\n";
  lth_problem *pb = parse_ok(text, NULL);
  const lth_system *sys = lth_problem_system(pb);
  ck_assert_int_eq(lth_system_index(sys), 4);
  ck_assert_int_eq(lth_system_manifold_dim(sys), 2 + 1 + 1);
  ck_assert_int_eq(lth_problem_sampling_order(pb), 0); /* automatic */
  sys_eval ev = eval_at(pb, 0.3, 1);
  ck_assert(fabs(LTH_JET_AT(ev.f, 0, 7, 0) - sin(0.3)) < 1e-15);
  ck_assert(fabs(LTH_JET_AT(ev.f, 1, 7, 0) - cos(0.3)) < 1e-15);
  ck_assert(fabs(LTH_JET_AT(ev.A, 0, 5, 5) - cos(0.3)) < 1e-15);
  eval_free(&ev);
  lth_problem_free(pb);
}
END_TEST

static void write_file(const char *path, const char *text) {
  FILE *fp = fopen(path, "w");
  ck_assert_ptr_nonnull(fp);
  fputs(text, fp);
  fclose(fp);
}

/* samples("...") relative to the data file; labels; values reproduced. */
START_TEST(test_samples_relative_path) {
  char dir[] = "/tmp/lth_test_problem_XXXXXX", path[256], csv[256], csv2[256];
  ck_assert_ptr_nonnull(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/model.lth", dir);
  snprintf(csv, sizeof csv, "%s/f1.csv", dir);
  snprintf(csv2, sizeof csv2, "%s/a21.csv", dir);
  /* f(1) = [1 + t^2; 2 t] sampled (degree 2 <= K: reproduced exactly) */
  FILE *fp = fopen(csv, "w");
  ck_assert_ptr_nonnull(fp);
  fprintf(fp, "# t, f1_1, f1_2\nt, f11, f21\n");
  for (int k = 0; k <= 30; k++) {
    double t = -0.1 + 0.1 * k + 0.013 * sin(k);
    fprintf(fp, "%.17g, %.17g, %.17g\n", t, 1 + t * t, 2 * t);
  }
  fclose(fp);
  fp = fopen(csv2, "w");
  ck_assert_ptr_nonnull(fp);
  for (int k = 0; k <= 40; k++) {
    double t = -0.5 + 0.1 * k;
    fprintf(fp, "%.17g,%.17g,%.17g,%.17g,%.17g\n", t, 1.0, 0.0, 0.0, 1.0 + 0.5 * t);
  }
  fclose(fp);
  write_file(path, "blocks 2 2 1\n"
                   "interval 0 2.5\n"
                   "sampling order 4\n"
                   "A(1,3) = [1; 2]\n"
                   "A(2,1) = samples(\"a21.csv\")   # # inside a comment\n"
                   "A(3,2) = [1, 2]\n"
                   "f(1) = samples(\"f1.csv\")\n");
  lth_problem *pb = NULL;
  lth_error err;
  int st = lth_problem_read(path, &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s:%d: %s", err.file, err.line, err.message);
  ck_assert_uint_eq(lth_problem_sampled_count(pb), 2);
  const char *label;
  const lth_source *src = lth_problem_sampled(pb, 0, &label);
  ck_assert_str_eq(label, "A(2,1)");
  ck_assert(lth_source_is_samples(src) && lth_samples_degree(src) == 4);
  src = lth_problem_sampled(pb, 1, &label);
  ck_assert_str_eq(label, "f(1)");
  ck_assert_ptr_null(lth_problem_sampled(pb, 2, &label));
  ck_assert_int_eq(lth_system_is_exact(lth_problem_system(pb)), 0);
  sys_eval ev = eval_at(pb, 1.234, 3);
  double t = 1.234;
  ck_assert(fabs(LTH_JET_AT(ev.f, 0, 0, 0) - (1 + t * t)) < 1e-12);
  ck_assert(fabs(LTH_JET_AT(ev.f, 1, 0, 0) - 2 * t) < 1e-10);
  ck_assert(fabs(LTH_JET_AT(ev.f, 2, 0, 0) - 1.0) < 1e-9);
  ck_assert(fabs(LTH_JET_AT(ev.f, 0, 1, 0) - 2 * t) < 1e-12);
  ck_assert(fabs(LTH_JET_AT(ev.A, 0, 3, 1) - (1.0 + 0.5 * t)) < 1e-12);
  ck_assert(fabs(LTH_JET_AT(ev.A, 1, 3, 1) - 0.5) < 1e-10);
  eval_free(&ev);
  lth_problem_free(pb);

  /* the same text parsed from memory with basedir */
  const char *text = "problem lqr\nsizes 2 1\ninterval 0 1\nA = [0, 1; 0, 0]\n"
                     "B = samples(\"b.csv\")\nH = eye\nx0 = [1, 0]\n";
  char bcsv[256];
  snprintf(bcsv, sizeof bcsv, "%s/b.csv", dir);
  write_file(bcsv, "t,b1,b2\n0,0,1\n0.2,0,1\n0.4,0,1\n0.6,0,1\n0.8,0,1\n1,0,1\n");
  pb = parse_ok(text, dir);
  ck_assert_uint_eq(lth_problem_sampled_count(pb), 1);
  lth_problem_sampled(pb, 0, &label);
  ck_assert_str_eq(label, "B");
  lth_problem_free(pb);
  unlink(bcsv);
  unlink(path);
  unlink(csv);
  unlink(csv2);
  rmdir(dir);
}
END_TEST

START_TEST(test_error_position_and_name) {
  lth_problem *pb = NULL;
  lth_error err;
  const char *text = "blocks 2 2 1\ninterval 0 1\nA(1,3) = [1;\n  2 * sinn(t)]\n";
  int st = lth_problem_parse(text, strlen(text), NULL, NULL, &pb, &err);
  ck_assert_int_eq(st, LTH_EPARSE);
  ck_assert_ptr_null(pb);
  ck_assert_str_eq(err.file, "<input>");
  ck_assert_int_eq(err.line, 4);
  ck_assert_int_eq(err.column, 7);
  ck_assert_ptr_nonnull(strstr(err.message, "unknown function 'sinn'"));
  /* lth_problem_read on a missing file */
  st = lth_problem_read("/nonexistent/dir/x.lth", &pb, &err);
  ck_assert_int_eq(st, LTH_EIO);
  ck_assert_int_eq(lth_status_exit_code(st), 2);
  ck_assert_str_eq(err.file, "/nonexistent/dir/x.lth");
}
END_TEST

/* data/sampled.lth: A(1,1) is sampled from known functions (data/gen_sampled.py);
 * its derivative estimates match them and the error estimate is realistic. */
static void check_sampled_example(const lth_problem *pb) {
  const char *label;
  const lth_source *src = lth_problem_sampled(pb, 0, &label);
  ck_assert_uint_eq(lth_problem_sampled_count(pb), 1);
  ck_assert_str_eq(label, "A(1,1)");
  double t = 1.3, est[4];
  lth_jet *J = lth_jet_alloc(2, 2, 3, NULL);
  double *work = malloc(lth_source_work_size(src, 3) * sizeof *work);
  TU_ASSERT_OK(lth_source_fill(src, t, 3, J, work, NULL));
  TU_ASSERT_OK(lth_samples_error_estimate(src, t, 3, est, NULL));
  double d1 = 0.5 * cos(t), d2 = -0.5 * sin(t), d3 = -0.5 * cos(t); /* a11 derivatives */
  double e1 = fabs(LTH_JET_AT(J, 1, 0, 0) - d1), e2 = fabs(2 * LTH_JET_AT(J, 2, 0, 0) - d2);
  double e3 = fabs(6 * LTH_JET_AT(J, 3, 0, 0) - d3);
  ck_assert(e1 < 1e-9 && e2 < 1e-7 && e3 < 1e-5);
  ck_assert(est[1] < 1e-9 && est[2] < 1e-7 && est[3] < 1e-5);
  ck_assert(fabs(2 * LTH_JET_AT(J, 2, 1, 0) - 0.5 * cos(t)) < 1e-7); /* a21'' */
  free(work);
  lth_jet_free(J);
}

/* Shipped examples under data/ parse (those present). */
START_TEST(test_shipped_examples) {
  const char *dir = getenv("LTH_DATA_DIR");
  const char *names[] = {"slope.lth", "sampled.lth"};
  for (size_t k = 0; dir && k < sizeof names / sizeof names[0]; k++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[k]);
    if (access(path, R_OK) != 0) {
      continue;
    }
    lth_problem *pb = NULL;
    lth_error err;
    int st = lth_problem_read(path, &pb, &err);
    ck_assert_msg(st == LTH_OK, "%s:%d:%d: %s", err.file, err.line, err.column, err.message);
    if (strcmp(names[k], "sampled.lth") == 0) {
      check_sampled_example(pb);
    }
    lth_problem_free(pb);
  }
}
END_TEST

static Suite *problem_suite(void) {
  Suite *s = suite_create("problem");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, test_contract_dae_example);
  tcase_add_test(tc, test_contract_lqr_example);
  tcase_add_test(tc, test_lqr_time_dependent);
  tcase_add_test(tc, test_expressions_and_params);
  tcase_add_test(tc, test_layout_z0_bc);
  tcase_add_test(tc, test_index4_pattern);
  tcase_add_test(tc, test_samples_relative_path);
  tcase_add_test(tc, test_error_position_and_name);
  tcase_add_test(tc, test_shipped_examples);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(problem_suite)
