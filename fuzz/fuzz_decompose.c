/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libFuzzer harness for the decomposition (scripts/fuzz.sh builds and runs it
 * next to fuzz_problem.c).  The input bytes choose a DAE -- index, block
 * sizes, interval, which blocks are present and every entry as an expression
 * from a small grammar (chain blocks that vanish somewhere, exponentials,
 * huge and tiny constants, domain errors) -- written as a data file, so that
 * nearly every input parses and reaches the decomposition (the data-file
 * reader itself is fuzz_problem.c's job).  The problem is decomposed at
 * several times of its interval with --check's identities (lth_verify_at) and
 * its Pi scanned.  The library may refuse anything, but it must never
 *   - succeed with a non-finite number in the result or in the check, or
 *   - fail with a numerical error that names no t.
 * Either traps (abort), and libFuzzer keeps the input.  With LTH_FUZZ_STATS
 * set it prints at exit how many inputs reached the decomposition. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/problem.h"
#include "lth/verify.h"
#include "lth/conditioning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Keep one run fast: small systems only. */
#define MAX_SIZE  24
#define MAX_INDEX 6

static int jet_finite(const lth_jet *J) {
  for (int k = 0; k <= J->order; k++)
    for (int j = 0; j < J->cols; j++)
      for (int i = 0; i < J->rows; i++)
        if (!isfinite(LTH_JET_AT(J, k, i, j))) return 0;
  return 1;
}

static int point_finite(const lth_point *pt) {
  const lth_jet *list[] = {&pt->P, &pt->Ahat, &pt->g, &pt->Bhat, &pt->q, &pt->G, &pt->Pi};
  for (size_t k = 0; k < sizeof list / sizeof list[0]; k++)
    if (!jet_finite(list[k])) return 0;
  for (int i = 0; i < pt->r - 1; i++)
    if (!jet_finite(&pt->Q[i])) return 0;
  return isfinite(pt->cond_pi) && isfinite(pt->cond_chain) && isfinite(pt->cond_interval) &&
         isfinite(pt->pi_inv_norm) && isfinite(pt->chain_norm) &&
         (pt->pi_sign == 1 || pt->pi_sign == -1);
}

static int report_finite(const lth_verify_report *rep) {
  double v[] = {rep->theorem3_linear, rep->theorem3_affine, rep->idempotent, rep->commute,
                rep->structure,       rep->sv_gap,          rep->worst};
  for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
    if (!isfinite(v[k])) return 0;
  return 1;
}

/* A numerical failure (exit status 3) must say where. */
static void judge_error(lth_status st, const lth_error *err) {
  if (st != LTH_OK && lth_status_exit_code(st) == 3 && st != LTH_ENOMEM && !err->has_t) abort();
}

static void decompose(const lth_problem *pb) {
  const lth_system *sys = lth_problem_system(pb);
  if (lth_system_size(sys) > MAX_SIZE || lth_system_index(sys) > MAX_INDEX) return;
  double t0, t1;
  lth_problem_interval(pb, &t0, &t1);
  lth_error err;
  lth_decomp_ws *ws = lth_decomp_ws_alloc(sys, 1, &err);
  lth_point *pt = ws ? lth_point_alloc(sys, 1, &err) : NULL;
  lth_verify_ws *vw = pt ? lth_verify_ws_alloc(sys, &err) : NULL;
  if (vw) {
    /* both ends, the middle, and two points that are no round fractions */
    const double frac[] = {0.0, 1.0, 0.5, 0.3183098861837907, 0.7071067811865476};
    for (size_t k = 0; k < sizeof frac / sizeof frac[0]; k++) {
      double t = t0 + (t1 - t0) * frac[k];
      lth_error_clear(&err);
      lth_status st = lth_decomp_at(ws, t, pt, &err);
      judge_error(st, &err);
      if (st != LTH_OK) continue;
      if (!point_finite(pt)) abort();
      lth_verify_report rep;
      lth_error_clear(&err);
      st = lth_verify_at(vw, ws, pt, &rep, &err);
      judge_error(st, &err);
      if (st == LTH_OK && !report_finite(&rep)) abort();
    }
    /* the scan the integrators run first (few points: speed) */
    lth_pi_scan sc;
    lth_error_clear(&err);
    lth_status st = lth_pi_scan_check(sys, t0, t1, 33, 0.0, &sc, &err);
    judge_error(st, &err);
    if (st == LTH_OK && !(isfinite(sc.worst) && isfinite(sc.scale))) abort();
  }
  lth_verify_ws_free(vw);
  lth_point_free(pt);
  lth_decomp_ws_free(ws);
}

/* ---- a data file from the input bytes ---- */

typedef struct {
  const uint8_t *d;
  size_t n, k;
  char *out;
  size_t len, cap;
} gen;

static unsigned take(gen *g) { return g->k < g->n ? g->d[g->k++] : 0; }

static void put(gen *g, const char *s) {
  size_t l = strlen(s);
  if (g->len + l + 1 < g->cap) {
    memcpy(g->out + g->len, s, l + 1);
    g->len += l;
  }
}

static const char *const atoms[] = {"0",          "1",
                                    "-1",         "2.5",
                                    "0.5",        "1e-8",
                                    "1e8",        "t",
                                    "pi",         "-t",
                                    "(t - 0.5)",  "(t - 0.503)",
                                    "sin(t)",     "cos(pi*t)",
                                    "exp(t)",     "exp(-30*t)",
                                    "t^2",        "sqrt(t + 2)",
                                    "log(t + 3)", "1/(t + 2)",
                                    "tanh(t)",    "(t - 0.3183098861837907)",
                                    "cosh(t)",    "atan(t)",
                                    "1e-300",     "1e300",
                                    "(2 - t)",    "t^3 - t"};
#define NATOMS (sizeof atoms / sizeof atoms[0])

static void expr(gen *g, int depth) {
  unsigned c = take(g);
  if (depth >= 2 || c < 150) {
    put(g, atoms[c % NATOMS]);
    return;
  }
  static const char *const ops[] = {" + ", " - ", " * ", " / "};
  put(g, "(");
  expr(g, depth + 1);
  put(g, ops[c % 4]);
  expr(g, depth + 1);
  put(g, ")");
}

static void matrix(gen *g, int rows, int cols) {
  put(g, "[");
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      expr(g, 0);
      if (j + 1 < cols) put(g, ", ");
    }
    if (i + 1 < rows) put(g, "; ");
  }
  put(g, "]\n");
}

/* Index 2..5, blocks of size 1..3 (n_r the smallest), every block of Clark's
 * pattern present or not (the chain always), f present or not. */
static void generate(gen *g) {
  static const char *const intervals[] = {"0 1", "-1 2", "0 10", "0.5 0.6", "0 0.001", "1 3"};
  char line[64];
  int r = 2 + (int)(take(g) % 4), n[6];
  n[r - 1] = 1 + (int)(take(g) % 2);
  for (int i = 0; i < r - 1; i++) n[i] = n[r - 1] + (int)(take(g) % 2);
  put(g, "blocks");
  for (int i = 0; i < r; i++) {
    snprintf(line, sizeof line, " %d", n[i]);
    put(g, line);
  }
  snprintf(line, sizeof line, "\ninterval %s\n", intervals[take(g) % 6]);
  put(g, line);
  for (int i = 1; i <= r; i++) {
    for (int j = 1; j <= r; j++) {
      int allowed = i == 1 || (i == r ? j == r - 1 : (j >= i - 1 && j <= r - 1));
      int chain = (i == 1 && j == r) || j == i - 1;
      if (!allowed || (!chain && take(g) % 2)) continue;
      snprintf(line, sizeof line, "A(%d,%d) = ", i, j);
      put(g, line);
      matrix(g, n[i - 1], n[j - 1]);
    }
    if (take(g) % 2) {
      snprintf(line, sizeof line, "f(%d) = ", i);
      put(g, line);
      matrix(g, n[i - 1], 1);
    }
  }
}

/* How many inputs reached the decomposition (printed at exit when the
 * environment has LTH_FUZZ_STATS): the seeds should keep this high. */
static unsigned long n_inputs, n_decomposed;

static void print_stats(void) {
  fprintf(stderr, "fuzz_decompose: %lu of %lu inputs reached the decomposition\n", n_decomposed,
          n_inputs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *basedir = getenv("LTH_FUZZ_BASEDIR");
  if (n_inputs++ == 0 && getenv("LTH_FUZZ_STATS")) atexit(print_stats);
  char text[16384];
  gen g = {data, size, 0, text, 0, sizeof text};
  text[0] = '\0';
  generate(&g);
  if (getenv("LTH_FUZZ_PRINT")) fputs(text, stderr); /* reproducing a finding */
  lth_problem *pb = NULL;
  lth_error err;
  if (lth_problem_parse(text, g.len, "fuzz.lth", basedir ? basedir : "/nonexistent-lth-fuzz", &pb,
                        &err) == LTH_OK) {
    n_decomposed++;
    decompose(pb);
  }
  lth_problem_free(pb);
  return 0;
}
