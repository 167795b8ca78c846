/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A source kind defined by the caller (lth_source_new with an lth_source_type),
 * scaled views (lth_source_scaled) and the enclosures of one source
 * (lth_source_enclose), used as a C caller would: a user kind must give the
 * same decomposition as the same data written as expressions, a view must be
 * alpha times its base, and an enclosure must contain every coefficient. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/decomp.h"
#include "lth/expr.h"
#include "lth/source.h"
#include "lth/system.h"
#include "testutil.h"

/* ---- a kind of source of our own: entries c0 + c1 sin(w t + phi) ---- */

typedef struct harm {
  double c0, c1, w, phi;
} harm;

typedef struct harm_state {
  int rows, cols;
  double lo, hi; /* where the data are defined */
  harm e[16];    /* column-major */
} harm_state;

static int destroyed;

/* M_m = M^{(m)}(t)/m!: the m-th derivative of sin(w t + phi) is
 * w^m sin(w t + phi + m pi/2). */
static lth_status harm_fill(const void *state, double t, int order, lth_jet *out, double *work,
                            lth_error *err) {
  (void)work;
  (void)err;
  const harm_state *hs = state;
  for (int j = 0; j < hs->cols; j++)
    for (int i = 0; i < hs->rows; i++) {
      const harm *h = &hs->e[i + j * hs->rows];
      double scale = 1.0;
      for (int m = 0; m <= order; m++) {
        LTH_JET_AT(out, m, i, j) =
            (m == 0 ? h->c0 : 0.0) + h->c1 * scale * sin(h->w * t + h->phi + m * M_PI / 2);
        scale *= h->w / (m + 1);
      }
    }
  out->order = order;
  return LTH_OK;
}

static void harm_domain(const void *state, double *lo, double *hi) {
  *lo = ((const harm_state *)state)->lo;
  *hi = ((const harm_state *)state)->hi;
}

static void harm_destroy(void *state) {
  destroyed++;
  free(state);
}

static const lth_source_type harm_type = {.name = "harmonic",
                                          .fill = harm_fill,
                                          .domain = harm_domain,
                                          .destroy = harm_destroy,
                                          .exact = 1};

static harm_state *harm_random(int rows, int cols, double chain) {
  harm_state *hs = calloc(1, sizeof *hs);
  hs->rows = rows;
  hs->cols = cols;
  hs->lo = -1.0;
  hs->hi = 5.0;
  for (int k = 0; k < rows * cols; k++) {
    harm *h = &hs->e[k];
    h->c0 = chain > 0 ? chain : tu_uniform(-1, 1);
    h->c1 = tu_uniform(chain > 0 ? -0.3 : -1.0, chain > 0 ? 0.3 : 1.0);
    h->w = tu_uniform(0.5, 2.5);
    h->phi = tu_uniform(-1, 1);
  }
  return hs;
}

/* The same data as an expression source. */
static lth_source *harm_as_expr(const harm_state *hs) {
  int n = hs->rows * hs->cols;
  lth_expr **entries = calloc((size_t)n, sizeof *entries);
  for (int k = 0; k < n; k++) {
    char text[256];
    const harm *h = &hs->e[k];
    snprintf(text, sizeof text, "%.17g + %.17g*sin(%.17g*t + %.17g)", h->c0, h->c1, h->w, h->phi);
    lth_error err;
    lth_error_clear(&err);
    ck_assert_msg(lth_expr_parse(text, strlen(text), NULL, NULL, &entries[k], &err) == LTH_OK,
                  "parse %s: %s", text, err.message);
  }
  lth_source *src = lth_source_expr(hs->rows, hs->cols, entries, NULL);
  free(entries);
  ck_assert_ptr_nonnull(src);
  return src;
}

static lth_source *harm_source(harm_state *hs) {
  lth_error err;
  lth_error_clear(&err);
  lth_source *src = lth_source_new(&harm_type, hs, hs->rows, hs->cols, &err);
  ck_assert_msg(src != NULL, "lth_source_new: %s", err.message);
  return src;
}

/* The kind's hooks and state are what the caller gave; the source owns the
 * state (destroyed once, by lth_source_free, or by a failing lth_source_new). */
START_TEST(test_user_kind_bookkeeping) {
  tu_seed(11);
  harm_state *hs = harm_random(2, 3, 0.0);
  destroyed = 0;
  lth_source *src = harm_source(hs);
  ck_assert_ptr_eq(lth_source_get_type(src), &harm_type);
  ck_assert_ptr_eq(lth_source_state(src), hs);
  ck_assert_int_eq(lth_source_rows(src), 2);
  ck_assert_int_eq(lth_source_cols(src), 3);
  ck_assert_int_eq(lth_source_is_exact(src), 1);
  ck_assert_int_eq(lth_source_can_enclose(src), 0);
  double lo, hi;
  lth_source_domain(src, &lo, &hi);
  ck_assert(lo == -1.0 && hi == 5.0);
  /* outside its domain the source refuses, naming t */
  lth_jet J;
  TU_ASSERT_OK(lth_jet_init(&J, 2, 3, 2, NULL));
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_eq(lth_source_fill(src, 5.5, 2, &J, NULL, &err), LTH_ERANGE);
  ck_assert(err.has_t && err.t == 5.5);
  /* no enclosure of its own: lth_source_enclose says so */
  lth_interval iv[2 * 3 * 2];
  ck_assert_int_eq(lth_source_enclose(src, 0.0, 1.0, 1, iv, NULL, &err), LTH_EINVAL);
  lth_jet_release(&J);
  ck_assert_int_eq(destroyed, 0);
  lth_source_free(src);
  ck_assert_int_eq(destroyed, 1);
  /* a bad size is refused, and the state is still released */
  ck_assert_ptr_null(lth_source_new(&harm_type, harm_random(1, 1, 0.0), -1, 1, &err));
  ck_assert_int_eq(err.status, LTH_EINVAL);
  ck_assert_int_eq(destroyed, 2);
}
END_TEST

/* Index-2 system (n = (2, 1)) from one block constructor. */
static lth_system *system_of(lth_source *(*make)(harm_state *), harm_state **blocks) {
  const int n[2] = {2, 1};
  lth_system *sys = lth_system_alloc(2, n, NULL);
  ck_assert_ptr_nonnull(sys);
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 1, make(blocks[0]), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 1, 2, make(blocks[1]), NULL));
  TU_ASSERT_OK(lth_system_set_A(sys, 2, 1, make(blocks[2]), NULL));
  TU_ASSERT_OK(lth_system_set_f(sys, 1, make(blocks[3]), NULL));
  TU_ASSERT_OK(lth_system_set_f(sys, 2, make(blocks[4]), NULL));
  TU_ASSERT_OK(lth_system_validate(sys, NULL));
  return sys;
}

static harm_state *copy_state(const harm_state *hs) {
  harm_state *c = malloc(sizeof *c);
  memcpy(c, hs, sizeof *c);
  return c;
}
static harm_state *kept[5];
static lth_source *as_user_kind(harm_state *hs) { return harm_source(copy_state(hs)); }
static lth_source *as_expression(harm_state *hs) { return harm_as_expr(hs); }

/* The decomposition of a system whose blocks are a user kind equals the one
 * of the same data as expressions: every output at every order, to rounding
 * amplified by the condition of Pi. */
START_TEST(test_user_kind_decomposes_like_expressions) {
  tu_seed(2385);
  kept[0] = harm_random(2, 2, 0.0);
  kept[1] = harm_random(2, 1, 1.1); /* chain blocks near constants: Pi = A21 A12 ~ 2.4 */
  kept[2] = harm_random(1, 2, 1.1);
  kept[3] = harm_random(2, 1, 0.0);
  kept[4] = harm_random(1, 1, 0.0);
  lth_system *user = system_of(as_user_kind, kept);
  lth_system *expr = system_of(as_expression, kept);
  enum { ORDER = 3 };
  lth_decomp_ws *wu = lth_decomp_ws_alloc(user, ORDER, NULL),
                *we = lth_decomp_ws_alloc(expr, ORDER, NULL);
  lth_point *pu = lth_point_alloc(user, ORDER, NULL), *pe = lth_point_alloc(expr, ORDER, NULL);
  ck_assert(wu && we && pu && pe);
  const double ts[] = {-0.7, 0.3, 1.7, 2.9, 4.6};
  for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
    TU_ASSERT_OK(lth_decomp_at(wu, ts[k], pu, NULL));
    TU_ASSERT_OK(lth_decomp_at(we, ts[k], pe, NULL));
    /* inputs agree to a few ulps (sin's rounding); outputs to that times the
     * condition of Pi per order of differentiation (r - 1 + ORDER = 4) */
    double tol = 1e3 * DBL_EPSILON * pow(fmax(pu->cond_interval, 1.0), 4);
    const lth_jet *a[] = {&pu->Pi, &pu->P, &pu->Ahat, &pu->g, &pu->Bhat, &pu->q, &pu->G, &pu->Q[0]};
    const lth_jet *b[] = {&pe->Pi, &pe->P, &pe->Ahat, &pe->g, &pe->Bhat, &pe->q, &pe->G, &pe->Q[0]};
    const char *names[] = {"Pi", "P", "Ahat", "g", "Bhat", "q", "G", "Q_1"};
    for (int o = 0; o < 8; o++) {
      ck_assert_int_eq(a[o]->order, ORDER);
      double d = tu_jet_relerr(a[o], b[o]);
      ck_assert_msg(d <= tol, "t = %g: %s differs by %g (tolerance %g)", ts[k], names[o], d, tol);
    }
  }
  /* outside the user kind's domain its system refuses, naming t */
  lth_error err;
  lth_error_clear(&err);
  ck_assert_int_ne(lth_decomp_at(wu, 5.5, pu, &err), LTH_OK);
  ck_assert(err.has_t && err.t == 5.5);
  TU_ASSERT_OK(lth_decomp_at(we, 5.5, pe, NULL));
  lth_point_free(pu);
  lth_point_free(pe);
  lth_decomp_ws_free(wu);
  lth_decomp_ws_free(we);
  lth_system_free(user);
  lth_system_free(expr);
  for (int i = 0; i < 5; i++) free(kept[i]);
}
END_TEST

/* alpha * base and alpha * base^T: one multiplication per coefficient, so
 * equal to the base's coefficients times alpha to rounding. */
START_TEST(test_scaled_view) {
  tu_seed(77);
  harm_state *hs = harm_random(2, 3, 0.0);
  lth_source *base = harm_source(hs);
  const double alpha = -2.385;
  enum { ORDER = 4 };
  lth_jet B, S, T;
  TU_ASSERT_OK(lth_jet_init(&B, 2, 3, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&S, 2, 3, ORDER, NULL));
  TU_ASSERT_OK(lth_jet_init(&T, 3, 2, ORDER, NULL));
  for (int transpose = 0; transpose <= 1; transpose++) {
    lth_source *v = lth_source_scaled(base, alpha, transpose, NULL);
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(lth_source_rows(v), transpose ? 3 : 2);
    ck_assert_int_eq(lth_source_cols(v), transpose ? 2 : 3);
    double lo, hi;
    lth_source_domain(v, &lo, &hi);
    ck_assert(lo == -1.0 && hi == 5.0); /* the base's */
    lth_jet *out = transpose ? &T : &S;
    double *work = malloc((lth_source_work_size(v, ORDER) + 1) * sizeof *work);
    for (double t = -0.9; t < 5.0; t += 1.37) {
      TU_ASSERT_OK(lth_source_fill(base, t, ORDER, &B, NULL, NULL));
      TU_ASSERT_OK(lth_source_fill(v, t, ORDER, out, work, NULL));
      ck_assert_int_eq(out->order, ORDER);
      for (int m = 0; m <= ORDER; m++)
        for (int j = 0; j < 3; j++)
          for (int i = 0; i < 2; i++) {
            double want = alpha * LTH_JET_AT(&B, m, i, j);
            double got = transpose ? LTH_JET_AT(out, m, j, i) : LTH_JET_AT(out, m, i, j);
            ck_assert_msg(fabs(got - want) <= 2 * DBL_EPSILON * fabs(want),
                          "transpose %d, t %g, order %d, (%d,%d): %.17g vs %.17g", transpose, t, m,
                          i, j, got, want);
          }
    }
    free(work);
    lth_source_free(v);
  }
  lth_jet_release(&B);
  lth_jet_release(&S);
  lth_jet_release(&T);
  lth_source_free(base);
}
END_TEST

/* The enclosure of an expression source over [a, b] contains its Taylor
 * coefficients at every t of [a, b], at every order, and is not vacuous. */
START_TEST(test_enclose_contains_coefficients) {
  tu_seed(5);
  harm_state *hs = harm_random(2, 2, 0.0);
  lth_source *src = harm_as_expr(hs);
  ck_assert_int_eq(lth_source_can_enclose(src), 1);
  enum { ORDER = 5, N = 2 * 2 };
  const double a = 0.4, b = 1.15;
  size_t nw = lth_source_enclose_work_size(src, ORDER);
  lth_interval coef[(ORDER + 1) * N];
  lth_interval *work = malloc((nw + 1) * sizeof *work);
  TU_ASSERT_OK(lth_source_enclose(src, a, b, ORDER, coef, work, NULL));
  lth_jet J;
  TU_ASSERT_OK(lth_jet_init(&J, 2, 2, ORDER, NULL));
  double *fw = malloc((lth_source_work_size(src, ORDER) + 1) * sizeof *fw);
  for (int k = 0; k <= 40; k++) {
    double t = a + (b - a) * k / 40.0;
    TU_ASSERT_OK(lth_source_fill(src, t, ORDER, &J, fw, NULL));
    for (int m = 0; m <= ORDER; m++)
      for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
          const lth_interval *iv = &coef[m * N + i + j * 2];
          double c = LTH_JET_AT(&J, m, i, j);
          ck_assert_msg(iv->lo <= c && c <= iv->hi,
                        "t %g order %d (%d,%d): %.17g not in [%.17g, %.17g]", t, m, i, j, c, iv->lo,
                        iv->hi);
        }
  }
  /* not vacuous: |c1 w^m / m!| bounds the variation of each coefficient, so
   * the width is at most twice that (plus rounding margins) */
  for (int m = 0; m <= ORDER; m++)
    for (int k = 0; k < N; k++) {
      const harm *h = &hs->e[k];
      double amp = fabs(h->c1) * pow(h->w, m) / tgamma(m + 1.0);
      double width = coef[m * N + k].hi - coef[m * N + k].lo;
      ck_assert_msg(width <= 2 * amp * (1 + 1e-6) + 1e-12,
                    "order %d entry %d: width %g, amplitude %g", m, k, width, amp);
    }
  lth_jet_release(&J);
  free(fw);
  free(work);
  lth_source_free(src);
  free(hs);
}
END_TEST

static Suite *source_kinds_suite(void) {
  Suite *s = suite_create("source_kinds");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_user_kind_bookkeeping);
  tcase_add_test(tc, test_user_kind_decomposes_like_expressions);
  tcase_add_test(tc, test_scaled_view);
  tcase_add_test(tc, test_enclose_contains_coefficients);
  suite_add_tcase(s, tc);
  return s;
}

TU_MAIN(source_kinds_suite)
