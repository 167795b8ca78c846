/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Calibration of the refusals over a random family (tests/refusal_family.h):
 * well-posed Hessenberg DAEs of index 2..8, with and without time-varying
 * mass matrices, in the block form and as equations, and near-singular
 * members (a chain block through or near zero) whose answers really are
 * wrong.  Every member has a manufactured exact solution z*.  Two tools run
 * on each: the grid decomposition (21 points; z* = G v* + q at each) and the
 * IVP from z*(0) (outputs at 0.5, 1, 1.5, 2).  Two rates:
 *
 *   wrong     exit 0 with an error above the accuracy stated: TOL plus the
 *             amplification the library reports (lth_point.amplification, at
 *             the grid points and the IVP's output times) times eps and the
 *             output gain -- must be 0;
 *   needless  a refusal of a problem that a forced run (cond_max = 1e300)
 *             solves to TOL, at the tool's times and at the time t the
 *             refusal names (what a refusal protects is the answer there: an
 *             IVP that steps past a nearly singular Pi to accurate outputs
 *             elsewhere has not shown that the problem is solvable at t) --
 *             the target is below 1 %.
 *
 * Errors are relative to max(1, |z*|), TOL = 1e-6.  The test runs DRAWS
 * members; `test_refusal_family --draws N [--seed S] [--verbose]` prints the
 * rates over a larger family (docs/conditioning.md section 1.2); --from K
 * runs only the members from K on (the same draws); --calibrate compares
 * the measured amplification with the true error instead; [--seed S] --dump K
 * writes member K's data file, for running the tools on it. */
#define _POSIX_C_SOURCE 200809L
#include <cblas.h>
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lth/decomp.h"
#include "lth/grid.h"
#include "lth/ivp.h"
#include "lth/problem.h"
#include "lth/conditioning.h"
#include "refusal_family.h"

#define TOL    1e-6
#define DRAWS  54
#define SEED   20260301ULL
#define FORCED 1e300

typedef struct outcome {
  lth_status st;
  double err;     /* max relative error (ok runs) */
  double amp;     /* amplification reported */
  double gain;    /* size of the terms z is made of, relative to max(1, |z*|) */
  double t_named; /* the time a refusal names (NAN: none) */
  char msg[600];
} outcome;

typedef struct tally {
  long runs, ok, wrong, refused, forced_ok, needless, other;
} tally;

static tally T[2][2]; /* [tool: grid, ivp][member: well-posed, near-singular] */
static int verbose;

static double wp_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double zerr(const rf_member *F, const lth_problem *pb, const double *zc, double t,
                   double *zscale) {
  double zu[RF_MAXS], zs[RF_MAXS], e = 0.0, sc = 1.0;
  lth_problem_to_user(pb, zc, zu);
  rf_zstar(F, t, zs);
  for (int k = 0; k < F->s; k++) {
    double d = fabs(zu[k] - zs[k]);
    e = d > e || isnan(d) ? d : e;
    sc = fmax(sc, fabs(zs[k]));
  }
  if (zscale) *zscale = sc;
  return e / sc;
}

static void failed(outcome *o, lth_status st, const lth_error *err) {
  o->st = st;
  o->err = NAN;
  o->t_named = err->has_t ? err->t : NAN;
  snprintf(o->msg, sizeof o->msg, "%s", err->message);
}

/* times[0..n-1] (increasing) and t_extra, if it is a time of (t0, t1] not
 * among them, in order; the new count. */
static int with_time(double *times, int n, double t_extra) {
  if (!(t_extra > RF_T0 && t_extra <= RF_T1)) return n;
  int k = 0;
  while (k < n && times[k] < t_extra) k++;
  if (k < n && times[k] == t_extra) return n;
  memmove(times + k + 1, times + k, (size_t)(n - k) * sizeof *times);
  times[k] = t_extra;
  return n + 1;
}

/* Decomposition on 21 points (and t_extra, the time a refusal named, for a
 * forced run): z* = G(t) z*(1:m) + q(t) (Corollary 3). */
static void grid_run(const rf_member *F, const lth_problem *pb, double cond_max, double t_extra,
                     outcome *o) {
  double times[22];
  int N = 21;
  for (int k = 0; k < N; k++) times[k] = RF_T0 + (RF_T1 - RF_T0) * k / (N - 1);
  N = with_time(times, N, t_extra);
  lth_grid_opts go;
  lth_grid_opts_init(&go);
  go.threads = 1;
  go.cond_max = cond_max;
  lth_grid_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  memset(o, 0, sizeof *o);
  lth_status st = lth_grid_store(lth_problem_system(pb), times, (size_t)N, &go, &res, &err);
  if (st != LTH_OK) {
    failed(o, st, &err);
    return;
  }
  for (int k = 0; k < N; k++) {
    const lth_point *pt = res->points[k];
    double zu[RF_MAXS], zs[RF_MAXS], z[RF_MAXS], terms = 0.0, sc;
    rf_zstar(F, times[k], zu);
    lth_problem_to_canonical(pb, zu, zs);
    for (int i = 0; i < F->s; i++) {
      double ti = fabs(LTH_JET_AT(&pt->q, 0, i, 0));
      z[i] = LTH_JET_AT(&pt->q, 0, i, 0);
      for (int j = 0; j < F->m; j++) {
        z[i] += LTH_JET_AT(&pt->G, 0, i, j) * zs[j];
        ti += fabs(LTH_JET_AT(&pt->G, 0, i, j) * zs[j]);
      }
      terms = fmax(terms, ti);
    }
    double e = zerr(F, pb, z, times[k], &sc);
    o->err = e > o->err || isnan(e) ? e : o->err;
    o->amp = fmax(o->amp, pt->amplification);
    o->gain = fmax(o->gain, terms / sc);
  }
  lth_grid_result_free(res);
}

/* The grid's largest amplification of the member being judged (0: refused). */
static double grid_amp;

/* The IVP from z*(0) (outputs also at t_extra, for a forced run).
 * Well-posed members with the default coefficients (a table while it pays);
 * with direct decompositions near-singular members, members whose grid
 * measured an amplification (or refused), and every forced run: a table near
 * a nearly singular Pi subdivides its panels down to widths of 1e-7 (1e5
 * decompositions and more, minutes per member), and so does one whose
 * coefficients carry eps times an amplification of 1e10 (member 475 of the
 * seed, index 8: more than 4 minutes), which is the table's cost, not a
 * refusal. */
static void ivp_run(const rf_member *F, const lth_problem *pb, double cond_max, double t_extra,
                    outcome *o) {
  const lth_system *sys = lth_problem_system(pb);
  double times[5] = {0.5, 1.0, 1.5, 2.0}, zu[RF_MAXS], z0[RF_MAXS];
  int N = with_time(times, 4, t_extra);
  rf_zstar(F, RF_T0, zu);
  lth_problem_to_canonical(pb, zu, z0);
  lth_ivp_opts opts;
  lth_ivp_opts_init(&opts);
  opts.cond_max = cond_max;
  opts.max_steps = 1000; /* a member of the family needs 100 or fewer per output interval */
  if (cond_max >= FORCED || F->near || !(grid_amp <= LTH_AMPLIFICATION_MEASURE)) {
    opts.coefficients = LTH_COEF_DIRECT;
  }
  lth_ivp_result *res = NULL;
  lth_error err;
  lth_error_clear(&err);
  memset(o, 0, sizeof *o);
  lth_status st = lth_ivp_solve(sys, RF_T0, z0, times, (size_t)N, &opts, &res, &err);
  if (st != LTH_OK) {
    failed(o, st, &err);
    return;
  }
  for (int k = 0; k < N; k++) {
    double e = zerr(F, pb, res->z + (size_t)k * F->s, times[k], NULL);
    o->err = e > o->err || isnan(e) ? e : o->err;
  }
  o->gain = res->output_gain;
  lth_ivp_result_free(res);
  /* the amplification of the coefficients at the output times, where
   * z = (Nhat + Bhat) v + q is formed */
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, &err);
  lth_point *pt = ws ? lth_point_alloc(sys, 0, &err) : NULL;
  if (ws) lth_decomp_ws_set_cond_max(ws, FORCED);
  for (int k = 0; pt && k < N; k++) {
    if (lth_decomp_at(ws, times[k], pt, &err) == LTH_OK) o->amp = fmax(o->amp, pt->amplification);
  }
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
}

/* The accuracy a run states: TOL plus eps times its amplification (x100,
 * the spread of the estimate), through the gain, and never more than the
 * two digits the limit keeps. */
static double stated(const outcome *o) {
  return TOL + fmin(100.0 * DBL_EPSILON * o->amp, 5e-2) * fmax(1.0, o->gain);
}

static void describe(const char *what, int k, const rf_member *F, const outcome *o) {
  fprintf(stderr,
          "  %s: member %d (index %d, s = %d, %s%s, near = %d, t* = %.4g, d = %.2g): ", what, k,
          F->r, F->s, F->mass ? "mass, " : "", F->eqform ? "equations" : "blocks", F->near, F->ts,
          F->d);
  if (o->st == LTH_OK) {
    fprintf(stderr, "error %.3g (stated %.3g, amplification %.3g, gain %.3g)\n", o->err, stated(o),
            o->amp, o->gain);
  } else {
    fprintf(stderr, "status %d: %.240s\n", o->st, o->msg);
  }
}

typedef void (*tool_fn)(const rf_member *, const lth_problem *, double, double, outcome *);

static void judge(int tool, tool_fn run, int k, const rf_member *F, const lth_problem *pb) {
  tally *t = &T[tool][F->near != 0];
  const char *name = tool ? "ivp" : "grid";
  outcome def, forced;
  run(F, pb, 0.0, NAN, &def);
  if (tool == 0) grid_amp = def.st == LTH_OK ? def.amp : INFINITY;
  t->runs++;
  if (def.st == LTH_OK) {
    t->ok++;
    if (!(def.err <= stated(&def))) {
      t->wrong++;
      describe(name, k, F, &def);
    }
    if (def.err <= TOL) t->forced_ok++; /* forcing changes no number of an accepted run */
    if (verbose) describe(name, k, F, &def);
    return;
  }
  if (lth_status_exit_code(def.st) != 3) {
    t->other++;
    describe(name, k, F, &def);
    return;
  }
  t->refused++;
  run(F, pb, FORCED, def.t_named, &forced);
  if (forced.st == LTH_OK && forced.err <= TOL) {
    t->forced_ok++;
    t->needless++;
    fprintf(stderr, "  needless refusal, ");
    describe(name, k, F, &def);
    if (verbose) describe("  forced", k, F, &forced);
  } else if (verbose) {
    describe(name, k, F, &def);
    describe("  forced", k, F, &forced);
  }
}

static int first; /* --from: members before it are drawn but not run */

/* --dump K: member K's data file, with z0 = z*(t0), on standard output (for
 * the tools). */
static int dump(int member, unsigned long long seed) {
  tu_seed(seed);
  static rf_member F;
  for (int k = 0; k <= member; k++) {
    rf_draw(&F, k);
    char *text = rf_text(&F);
    if (k == member) {
      double z[RF_MAXS];
      rf_zstar(&F, RF_T0, z); /* consistent: the exact solution */
      fputs(text, stdout);
      printf("z0 = [");
      for (int i = 0; i < F.s; i++) printf("%s%.17g", i ? " " : "", z[i]);
      printf("]\n");
    }
    free(text);
  }
  return 0;
}

static int run_family(int draws, unsigned long long seed) {
  memset(T, 0, sizeof T);
  tu_seed(seed);
  static rf_member F;
  int bad = 0;
  for (int k = 0; k < draws; k++) {
    rf_draw(&F, k);
    char *text = rf_text(&F);
    if (k < first) {
      free(text);
      continue;
    }
    lth_problem *pb = NULL;
    lth_error err;
    lth_error_clear(&err);
    if (lth_problem_parse(text, strlen(text), "family.lth", NULL, &pb, &err) != LTH_OK) {
      fprintf(stderr, "member %d does not parse: %s\n", k, err.message);
      bad++;
    } else {
      double c0 = wp_cpu();
      judge(0, grid_run, k, &F, pb);
      double c1 = wp_cpu();
      judge(1, ivp_run, k, &F, pb);
      double c2 = wp_cpu();
      if (verbose || c2 - c0 > 2.0) {
        fprintf(stderr, "  member %d: grid %.2f s, ivp %.2f s of CPU\n", k, c1 - c0, c2 - c1);
      }
    }
    lth_problem_free(pb);
    free(text);
  }
  return bad;
}

/* --calibrate: the measured amplification (forced at every point) against
 * the true error of the reconstruction z* = G v* + q, relative to the size of
 * the terms (|G| |z*| + |q|: the error of G and q themselves, without the
 * cancellation of a smooth z* out of large terms), at 41 points of every
 * member and near t*.  Prints how often eps * amplification fell short of
 * the true error, by decades. */
static int calibrate(int draws, unsigned long long seed) {
  tu_seed(seed);
  static rf_member F;
  long hist[12] = {0}, n = 0;
  double short_apriori[RF_MAXR + 1] = {0}; /* by index: max true error / (eps cond^(r-1)) */
  for (int k = 0; k < draws; k++) {
    rf_draw(&F, k);
    char *text = rf_text(&F);
    lth_problem *pb = NULL;
    lth_error err;
    lth_error_clear(&err);
    int ok = k >= first && lth_problem_parse(text, strlen(text), "f.lth", NULL, &pb, &err) == 0;
    free(text);
    if (!ok) {
      lth_problem_free(pb);
      continue;
    }
    const lth_system *sys = lth_problem_system(pb);
    lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 0, &err);
    lth_point *pt = ws ? lth_point_alloc(sys, 0, &err) : NULL;
    if (!pt) return 1;
    lth_decomp_ws_set_cond_max(ws, FORCED);
    lth_decomp_ws_set_measure(ws, 1);
    for (int q = 0; q < 41 + 8; q++) {
      double t = q < 41 ? RF_T0 + (RF_T1 - RF_T0) * q / 40 : F.ts + (q - 44) * 1e-3;
      if ((q >= 41 && !F.near) || t < RF_T0 || t > RF_T1) continue;
      if (lth_decomp_at(ws, t, pt, &err) != LTH_OK || !pt->amplification_measured) continue;
      double zu[RF_MAXS], zs[RF_MAXS], e = 0.0, terms = 0.0;
      rf_zstar(&F, t, zu);
      lth_problem_to_canonical(pb, zu, zs);
      for (int i = 0; i < F.s; i++) {
        double z = LTH_JET_AT(&pt->q, 0, i, 0), ti = fabs(z);
        for (int j = 0; j < F.m; j++) {
          z += LTH_JET_AT(&pt->G, 0, i, j) * zs[j];
          ti += fabs(LTH_JET_AT(&pt->G, 0, i, j) * zs[j]);
        }
        e = fmax(e, fabs(z - zs[i]));
        terms = fmax(terms, ti);
      }
      double rel = e / terms, est = DBL_EPSILON * pt->amplification;
      if (!(rel > 1e-12) || !(est < 1.0)) continue; /* rounding level, or refused anyway */
      double ap = DBL_EPSILON * lth_cond_amplification(pt->cond_interval, F.r);
      short_apriori[F.r] = fmax(short_apriori[F.r], rel / ap);
      int b = (int)floor(log10(rel / est)) + 6;
      hist[b < 0 ? 0 : (b > 11 ? 11 : b)]++;
      n++;
    }
    lth_point_free(pt);
    lth_decomp_ws_free(ws);
    lth_problem_free(pb);
  }
  printf("calibration: %ld points with a true error above 1e-12 (relative to the terms)\n", n);
  printf("  true error / (eps x measured amplification):\n");
  for (int b = 0; b < 12; b++) {
    if (hist[b]) printf("    1e%+d .. 1e%+d: %ld\n", b - 6, b - 5, hist[b]);
  }
  printf("  largest true error / (eps x a priori amplification cond_interval^(r-1)), by index:\n");
  for (int r = 2; r <= RF_MAXR; r++) {
    if (short_apriori[r] > 0) printf("    index %d: %.3g\n", r, short_apriori[r]);
  }
  return 0;
}

static void print_rates(int draws) {
  tally all = {0};
  printf("refusal family: %d members (index 2..8), grid and IVP, tolerance %g\n", draws, TOL);
  for (int tool = 0; tool < 2; tool++) {
    for (int near = 0; near < 2; near++) {
      tally *t = &T[tool][near];
      printf("  %-4s %-13s runs %4ld  exit 0 %4ld  wrong %ld  refused %4ld  solved when forced "
             "%4ld  needless refusals %ld\n",
             tool ? "ivp" : "grid", near ? "near-singular" : "well-posed", t->runs, t->ok, t->wrong,
             t->refused, t->forced_ok, t->needless);
      all.runs += t->runs;
      all.ok += t->ok;
      all.wrong += t->wrong;
      all.forced_ok += t->forced_ok;
      all.needless += t->needless;
      all.other += t->other;
    }
  }
  printf("wrong answers with exit 0: %ld of %ld (%.2f %%)\n", all.wrong, all.ok,
         all.ok ? 100.0 * all.wrong / all.ok : 0.0);
  printf("refusals of problems a forced run solves to %g: %ld of %ld (%.2f %%)\n", TOL,
         all.needless, all.forced_ok, all.forced_ok ? 100.0 * all.needless / all.forced_ok : 0.0);
  fflush(stdout);
}

START_TEST(family_rates) {
  ck_assert_int_eq(run_family(DRAWS, SEED), 0);
  print_rates(DRAWS);
  long wrong = 0, needless = 0, forced_ok = 0, other = 0, refused = 0;
  for (int tool = 0; tool < 2; tool++) {
    for (int near = 0; near < 2; near++) {
      wrong += T[tool][near].wrong;
      needless += T[tool][near].needless;
      forced_ok += T[tool][near].forced_ok;
      other += T[tool][near].other;
      refused += T[tool][near].refused;
    }
  }
  ck_assert_msg(wrong == 0, "%ld wrong answers with exit 0", wrong);
  ck_assert_msg(other == 0, "%ld runs failed with an unexpected status", other);
  ck_assert_msg(needless * 100 < forced_ok, "%ld needless refusals of %ld", needless, forced_ok);
  /* the family exercises both outcomes */
  ck_assert_int_gt(refused, 10);
  ck_assert_int_gt(forced_ok, 50);
}
END_TEST

int main(int argc, char **argv) {
  /* the host's choice, as the tools make it (apps/common/app_blas.h): the
   * family's products are 24 x 24 at most, and waking BLAS threads for them
   * costs more than the products (2.5 times the CPU time here) */
  openblas_set_num_threads(1);
  int draws = 0, calib = 0;
  unsigned long long seed = SEED;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--draws") && i + 1 < argc) {
      draws = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
      seed = strtoull(argv[++i], NULL, 10);
    } else if (!strcmp(argv[i], "--from") && i + 1 < argc) {
      first = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--dump") && i + 1 < argc) {
      return dump(atoi(argv[i + 1]), seed);
    } else if (!strcmp(argv[i], "--calibrate")) {
      calib = 1;
    } else if (!strcmp(argv[i], "--verbose")) {
      verbose = 1;
    } else {
      fprintf(stderr,
              "usage: %s [--draws N [--seed S] [--from K] [--verbose] [--calibrate]] "
              "[--dump K]\n",
              argv[0]);
      return 2;
    }
  }
  if (draws > 0 && calib) {
    return calibrate(draws, seed) ? EXIT_FAILURE : EXIT_SUCCESS;
  }
  if (draws > 0) { /* the rates over a larger family, no assertions */
    int bad = run_family(draws, seed);
    print_rates(draws);
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
  }
  Suite *s = suite_create("refusal_family");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, family_rates);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
