/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Linked last into the command-line tools (cmake/static_tools.cmake): with
 * OpenBLAS linked statically, the library's load-time constructor may run
 * before OpenBLAS's; this one, later in the link, runs after it and stops the
 * idle thread pool (lth_blas_lazy_pool in lib/core/blas_threads.c). */
void lth_blas_lazy_pool(void);

__attribute__((constructor)) static void tool_lazy_pool(void) { lth_blas_lazy_pool(); }
