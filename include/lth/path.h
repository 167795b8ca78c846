/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The choice between the dense path (s x s matrices: lth_decomp_at,
 * lth_ic, lth_ivp_solve) and the operator path (include/lth/opdecomp.h,
 * include/lth/opic.h, include/lth/opsolve.h: nothing s x s is formed), made
 * the same way by every front end (the tools' --path, the Python package's
 * path=).
 *
 * LTH_PATH_AUTO takes the operator path from s = LTH_DEFAULT_OPERATOR_MIN_SIZE
 * on when A stores at most LTH_DEFAULT_OPERATOR_MAX_DENSITY s^2 entries
 * (include/lth/defaults.h), unless the request needs what only the dense path
 * does: sampled data (their derivatives are fitted and checked on the dense
 * path only), what the caller names in dense_only (an option of the dense
 * path), or, for a request that integrates, a library built without SUNDIALS
 * CVODE.  Auto then stays on the dense path and says why (obstacle: the
 * caller's warning); LTH_PATH_OPERATOR refuses instead (LTH_EINVAL, obstacle
 * set): never a different answer than asked for.
 */
#ifndef LTH_PATH_H
#define LTH_PATH_H

#include <stddef.h>

#include "lth/opdecomp.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lth_path_mode {
  LTH_PATH_AUTO = 0,
  LTH_PATH_DENSE = 1,
  LTH_PATH_OPERATOR = 2
} lth_path_mode;

/* lth_path_choose's flags: the request integrates (the operator path's
 * integrator is CVODE, lth_opivp_available); the request reads A's blocks
 * as sparse matrices (lth_oppoint_block: lth-bvp's collocation), which a
 * block row kept as a mass matrix's solve M^-1 A(i,j) does not give
 * (lth_opsys_mass_rows): such a system stays on the dense path under auto,
 * and LTH_PATH_OPERATOR refuses it naming the mass matrix. */
#define LTH_PATH_INTEGRATES 1u
#define LTH_PATH_SPARSE_A   2u

#define LTH_PATH_WHY_MAX 200

typedef struct lth_path_choice {
  int op;                     /* 1: the operator path */
  lth_opsys *sys;             /* op = 1: the system's operator form (lth_opsys_from_system; the
                                 system must outlive it), freed by lth_path_choice_free */
  size_t nnz;                 /* stored entries of A (0: not counted, the size decided) */
  double density;             /* nnz / s^2 */
  const char *obstacle;       /* what keeps this request off the operator path at size (NULL:
                                 nothing): dense_only, or a static string of the library */
  char why[LTH_PATH_WHY_MAX]; /* why this path ("s = 3003 >= 500, A stores ...").  With
                                 LTH_PATH_OPERATOR: "A stores ..." (the caller names its
                                 option); LTH_PATH_DENSE: "" */
} lth_path_choice;

/* Choose the path of a request on sys as mode says.  flags: 0 or
 * LTH_PATH_INTEGRATES; dense_only: NULL, or what the request asks that only
 * the dense path does, in the caller's words ("--nearest (...)").  out is
 * always set (lth_path_choice_free it, also after a failure).  Refusals:
 * LTH_EINVAL for LTH_PATH_OPERATOR with an obstacle ("the operator path does
 * not take <obstacle>"; out->obstacle names it), a bad mode; the refusals of
 * lth_opsys_from_system, prefixed "building the operator form: ". */
lth_status lth_path_choose(const lth_system *sys, lth_path_mode mode, unsigned flags,
                           const char *dense_only, lth_path_choice *out, lth_error *err);
void lth_path_choice_free(lth_path_choice *c);
/* "dense" or "operator" (the tools' JSON key "path", the Python results' path). */
const char *lth_path_name(const lth_path_choice *c);

#ifdef __cplusplus
}
#endif
#endif
