/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The choice between the dense path (s x s matrices: lth_decomp_at,
 * lth_ivp_solve, lth_ic) and the operator path (include/lth/opdecomp.h,
 * include/lth/opsolve.h: nothing s x s is formed) that lth-decompose, lth-ic
 * and lth-solve make the same way, with the option
 *   --path auto|dense|operator
 * The rule is the library's (lth_path_choose, include/lth/path.h, also the
 * Python package's path=).  What a run asks that only the dense path does
 * (sampled data, an option of the dense path) keeps auto on the dense path
 * with a note on stderr, and makes --path operator a usage error naming it:
 * never a different answer than asked for.
 */
#ifndef LTH_APP_PATH_H
#define LTH_APP_PATH_H

#include <stddef.h>
#include <stdio.h>

#include "lth/opdecomp.h"
#include "lth/path.h"

#include "app_driver.h"

#ifdef __cplusplus
extern "C" {
#endif

/* --path's values (APP_CHOICE index). */
enum { APP_PATH_AUTO = 0, APP_PATH_DENSE = 1, APP_PATH_OPERATOR = 2 };
#define APP_PATH_CHOICES "auto|dense|operator"

typedef struct app_path {
  int op;                          /* 1: the operator path */
  lth_opsys *sys;                  /* its system (op = 1), from lth_opsys_from_system(run->sys) */
  size_t nnz;                      /* stored entries of A (0: not counted, s below the threshold) */
  double density;                  /* nnz / s^2 */
  char why[LTH_PATH_WHY_MAX + 32]; /* why this path, for the text report ("s = 3003 >= 500, ...") */
} app_path;

/* Choose the path for run's system as opt (APP_PATH_*) says.  dense_only:
 * NULL, or what the run asks that only the dense path does ("--nearest");
 * flags: lth_path_choose's (LTH_PATH_INTEGRATES: the run integrates,
 * LTH_PATH_SPARSE_A: it reads A's blocks as sparse matrices).  0, or an exit
 * status after the message (a usage error for --path operator with
 * something only the dense path does, 3 when the operator form cannot be
 * built). */
int app_path_choose(app_path *p, const app_run *run, int opt, const char *dense_only,
                    unsigned flags);
void app_path_free(app_path *p);
/* "dense" or "operator" (the JSON key "path"). */
const char *app_path_name(const app_path *p);

/* The operator path's proof that Pi is nonsingular between its points, as
 * the text reports of lth-solve, lth-bvp and lth-lqr give it: off (why there
 * is no proof) or the share proven of [t0, t1], the pieces examined and the
 * bound of ||Pi^-1|| there.  points names where Pi is checked otherwise
 * ("the mesh points", "the decomposed times"). */
void app_text_pi_proof(FILE *fp, const char *points, const char *off, double proven,
                       size_t proofs, double inv_bound, double t0, double t1);

#ifdef __cplusplus
}
#endif
#endif
