/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The operator path's collocation (bvp_op.c): the reduced ODE's coefficients
 * at one point in sparse form (bvp_op_point.c). */
#ifndef LTH_BVP_OP_IMPL_H
#define LTH_BVP_OP_IMPL_H

#include "colloc/colloc.h"
#include "lth/bvp.h"
#include "lth/jet.h"
#include "lth/opdecomp.h"
#include "lth/status.h"

/* The sparse pieces at one t: Ahat (CSC, the fixed pattern), g. */
typedef struct opbvp {
  lth_opsys *sys;
  int s, m, p, r, nr, ns; /* ns: stages */
  lth_colloc_tableau tab;
  lth_opdecomp_ws *ws;
  lth_oppoint *pt;
  int nspc, *spc;             /* the columns of v the thin factors reach */
  int *spos;                  /* spos[c]: c's place in spc, or -1 */
  char *rmask;                /* the rows (of z) they reach */
  int *ap, *ai, annz;         /* Ahat's pattern, m x m */
  double *av;                 /* its values at the last point */
  int *mark;                  /* m: scratch for the pattern */
  lth_jet *X, *T, *Y, *Z;     /* probes: m x nspc unit vectors, (I - P) X, m x nspc, s x nspc */
  lth_jet *Sx;                /* (r-1) n_r x nspc */
  lth_jet *gv, *zv, *qv, *yv; /* m, s, s, m x 1 */
  double last_t;
  int last_sign;
  /* the data's pieces (colloc/pieces.h; NULL: no enclosures): every piece
   * end is a mesh point, and an interval inside a POINT piece carries v
   * across without collocating (bvp_op.c, data_pieces) */
  const struct lth_pieces *pc;
  /* lth_bvp_solve_op_slack: ne slack unknowns s (after the mesh values and
   * stages) entering the boundary rows as - E s, and their last values */
  int ne;
  const lth_bvp_csc *E;
  double *slack;
} opbvp;

/* Set B up for sys (stages Gauss stages; Ahat's pattern from the columns the
 * thin factors reach, decomposing at t0). */
lth_status lth_bvpop_init(opbvp *B, lth_opsys *sys, double t0, int stages, double cond_max,
                          lth_error *err);
void lth_bvpop_free(opbvp *B);
/* Decompose at t; det Pi must keep its sign along the points in time order. */
lth_status lth_bvpop_decompose(opbvp *B, double t, lth_error *err);
/* Ahat's values at the decomposed point into B->av, g into B->gv. */
lth_status lth_bvpop_ahat_values(opbvp *B, lth_error *err);

/* ---- the mesh (bvp_op_mesh.c) ---- */

/* The mesh points t[0..N]. */
typedef struct omesh {
  size_t N;
  double *t;
} omesh;

/* Uniform N intervals on [t0, t1] with the output times added (a time within
 * a few ulps of a point is that point: the output is then z there, exactly)
 * and, when pc has several pieces, every piece's ends (lth_pieces_merge), the
 * output times kept.  0, or -1 when out of memory. */
int lth_bvpop_mesh_make(omesh *M, size_t N, double t0, double t1, const double *times, size_t n,
                        const struct lth_pieces *pc);
/* H: every interval of M halved.  0, or -1 when out of memory. */
int lth_bvpop_mesh_halve(const omesh *M, omesh *H);
/* The mesh point nearest t. */
size_t lth_bvpop_mesh_index(const omesh *M, double t);

#endif
