/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Save/switch/restore OpenBLAS's thread count (lib/blas_threads.h). */
#include "blas_threads.h"

#include <cblas.h>

int lth_blas_threads_push(int serial) {
  if (!serial) {
    return 0;
  }
  int saved = openblas_get_num_threads();
  if (saved > 1) {
    openblas_set_num_threads(1);
  }
  return saved;
}

void lth_blas_threads_pop(int saved) {
  if (saved > 1) {
    openblas_set_num_threads(saved);
  }
}
