/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sampled-data test cases of tests/data/sampling (written by
 * tests/gen/gen_sampling.py): loading a case, with `sampling order K` or the
 * automatic default, and its canonical outputs P, Ahat (I - P), g,
 * Bhat (I - P), q, G at a time, compared with the exact-jet decomposition of
 * the same system written with expressions (the reference). */
#ifndef LTH_SAMPLING_CASES_H
#define LTH_SAMPLING_CASES_H

#include <stdlib.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/decomp_error.h"
#include "lth/problem.h"
#include "testutil.h"

#define SC_NTIMES 21 /* interior times -0.897, -0.807, ..., 0.903 */

static inline double sc_time(int j) { return -0.9 + 0.09 * j + 0.00317; }

static inline const char *sc_dir(void) {
  const char *d = getenv("LTH_TEST_DIR");
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/data/sampling", d ? d : "tests");
  return buf;
}

/* Case `name` (e.g. "i3_c_n8", or "i3" for the exact reference); K > 0 inserts
 * `sampling order K` after `lth 1`. */
static inline lth_problem *sc_load(const char *name, int K) {
  char path[600];
  snprintf(path, sizeof path, "%s/%s.lth", sc_dir(), name);
  FILE *fp = fopen(path, "rb");
  ck_assert_msg(fp != NULL, "cannot open %s", path);
  char *buf = malloc(1 << 16), *text = malloc((1 << 16) + 64);
  size_t n = fread(buf, 1, (1 << 16) - 1, fp);
  fclose(fp);
  buf[n] = '\0';
  const char *p = strstr(buf, "lth 1\n");
  size_t cut = p ? (size_t)(p - buf) + 6 : 0, off = cut;
  memcpy(text, buf, cut);
  if (K > 0) {
    off += (size_t)sprintf(text + off, "sampling order %d\n", K);
  }
  memcpy(text + off, buf + cut, n - cut);
  off += n - cut;
  lth_problem *pb = NULL;
  lth_error err;
  int st = lth_problem_parse(text, off, path, sc_dir(), &pb, &err);
  ck_assert_msg(st == LTH_OK, "%s:%d: %s", err.file, err.line, err.message);
  free(buf);
  free(text);
  return pb;
}

/* The canonical outputs of pt into v (offsets off[0..6], as lth/decomp_error.h). */
static inline void sc_canonical(const lth_point *pt, double *v, size_t *off) {
  int m = pt->m, s = pt->s;
  size_t k = 0;
  off[0] = k;
  for (int j = 0; j < m; j++)
    for (int i = 0; i < m; i++) v[k++] = LTH_JET_AT(&pt->P, 0, i, j);
  for (int pass = 0; pass < 2; pass++) { /* Ahat (I - P), then Bhat (I - P) */
    const lth_jet *X = pass ? &pt->Bhat : &pt->Ahat;
    int rows = pass ? s : m;
    if (pass) {
      off[2] = k;
      for (int i = 0; i < m; i++) v[k++] = LTH_JET_AT(&pt->g, 0, i, 0);
    }
    off[pass ? 3 : 1] = k;
    for (int j = 0; j < m; j++)
      for (int i = 0; i < rows; i++) {
        double acc = 0.0;
        for (int l = 0; l < m; l++)
          acc += LTH_JET_AT(X, 0, i, l) * ((l == j) - LTH_JET_AT(&pt->P, 0, l, j));
        v[k++] = acc;
      }
  }
  off[4] = k;
  for (int i = 0; i < s; i++) v[k++] = LTH_JET_AT(&pt->q, 0, i, 0);
  off[5] = k;
  for (int j = 0; j < m; j++)
    for (int i = 0; i < s; i++) v[k++] = LTH_JET_AT(&pt->G, 0, i, j);
  off[6] = k;
}

/* Errors of b against the reference a: err[o] = max |b - a| over output o's
 * entries; scale[o] = max(1, max |a|).  Returns the worst err[o] / scale[o]. */
static inline double sc_errors(const lth_point *a, const lth_point *b, double *err,
                               double *scale) {
  static double va[8192], vb[8192];
  size_t oa[7], ob[7];
  sc_canonical(a, va, oa);
  sc_canonical(b, vb, ob);
  double worst = 0.0;
  for (int o = 0; o < LTH_NOUT; o++) {
    err[o] = 0.0;
    scale[o] = 1.0;
    for (size_t k = oa[o]; k < oa[o + 1]; k++) {
      double d = fabs(va[k] - vb[k]);
      err[o] = d > err[o] || d != d ? d : err[o];
      scale[o] = fmax(scale[o], fabs(va[k]));
    }
    worst = fmax(worst, err[o] / scale[o]);
  }
  return worst;
}

/* Worst relative output error over the interior times of a sampled system
 * against the reference system. */
static inline double sc_worst(const lth_system *ref, const lth_system *sys) {
  lth_error err;
  lth_decomp_ws *wa = lth_decomp_ws_alloc(ref, 0, &err), *wb = lth_decomp_ws_alloc(sys, 0, &err);
  lth_point *a = lth_point_alloc(ref, 0, &err), *b = lth_point_alloc(sys, 0, &err);
  ck_assert(wa && wb && a && b);
  double worst = 0.0, e[LTH_NOUT], sc[LTH_NOUT];
  for (int j = 0; j < SC_NTIMES; j++) {
    double t = sc_time(j);
    ck_assert_msg(lth_decomp_at(wa, t, a, &err) == LTH_OK, "t = %g: %s", t, err.message);
    ck_assert_msg(lth_decomp_at(wb, t, b, &err) == LTH_OK, "t = %g: %s", t, err.message);
    worst = fmax(worst, sc_errors(a, b, e, sc));
  }
  lth_point_free(a);
  lth_point_free(b);
  lth_decomp_ws_free(wa);
  lth_decomp_ws_free(wb);
  return worst;
}

#endif
