/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small helpers shared by the test programs: a deterministic random source,
 * relative-error comparisons and the standard main() that runs one suite. */
#ifndef LTH_TESTUTIL_H
#define LTH_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lth/jet.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* xorshift64*: deterministic across platforms. */
static uint64_t tu_state = 0x9e3779b97f4a7c15ULL;
static inline void tu_seed(uint64_t s) { tu_state = s ? s : 0x9e3779b97f4a7c15ULL; }
static inline double tu_uniform(double lo, double hi) {
  tu_state ^= tu_state >> 12;
  tu_state ^= tu_state << 25;
  tu_state ^= tu_state >> 27;
  uint64_t x = tu_state * 2685821657736338717ULL;
  return lo + (hi - lo) * ((double)(x >> 11) / 9007199254740992.0);
}

/* Fill a jet with random coefficients in [-1, 1] (orders 0..order). */
static inline void tu_random_jet(lth_jet *J, int order) {
  J->order = order;
  for (int m = 0; m <= order; m++)
    for (int j = 0; j < J->cols; j++)
      for (int i = 0; i < J->rows; i++) LTH_JET_AT(J, m, i, j) = tu_uniform(-1.0, 1.0);
}

/* max_{m,i,j} |A - B| over the common orders, divided by max(1, max |B|). */
static inline double tu_jet_relerr(const lth_jet *A, const lth_jet *B) {
  int K = A->order < B->order ? A->order : B->order;
  double scale = lth_jet_maxabs(B, K);
  if (scale < 1.0) scale = 1.0;
  double mx = 0.0;
  for (int m = 0; m <= K; m++)
    for (int j = 0; j < A->cols; j++)
      for (int i = 0; i < A->rows; i++) {
        double d = fabs(LTH_JET_AT(A, m, i, j) - LTH_JET_AT(B, m, i, j));
        if (!(d <= mx)) mx = d; /* also catches NaN */
      }
  return mx / scale;
}

#define TU_ASSERT_OK(expr)                                                        \
  do {                                                                            \
    lth_error tu_err_;                                                            \
    lth_error_clear(&tu_err_);                                                    \
    (void)tu_err_;                                                                \
    int tu_st_ = (expr);                                                          \
    ck_assert_msg(tu_st_ == 0, "%s failed: status %d (%s)", #expr, tu_st_,       \
                  lth_strerror(tu_st_));                                          \
  } while (0)

#define TU_MAIN(suite_fn)                                   \
  int main(void) {                                          \
    SRunner *sr = srunner_create(suite_fn());               \
    srunner_run_all(sr, CK_NORMAL);                         \
    int failed = srunner_ntests_failed(sr);                 \
    srunner_free(sr);                                       \
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;       \
  }

#endif
