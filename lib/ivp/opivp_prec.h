/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the preconditioner of lth_opivp_solve's Newton systems
 * (lib/ivp/opivp_prec.c). */
#ifndef LTH_OPIVP_PREC_H
#define LTH_OPIVP_PREC_H

#include "opivp_impl.h"

typedef struct opivp_prec opivp_prec;

/* 1 if c's options and the library call for the preconditioner: BDF, a
 * library with KLU, and opts.precondition ON, or AUTO on a stiff interval:
 * ||A_v(t0)||_1 |t_end - t0| >= LTH_DEFAULT_OPIVP_PREC_STIFF (A_v below;
 * decomposes at t0, cached).  A refusal there is left to the solve. */
int opivp_prec_wanted(opivp_ctx *c, double t0, double t_end);
/* The pattern of M = I - gamma A_v (A_v: the m x m leading part of A, blocks
 * i, j < r) and KLU's analysis of it, once.  NULL with c->fail set. */
opivp_prec *opivp_prec_alloc(opivp_ctx *c);
void opivp_prec_free(opivp_prec *p);
/* CVODE's set-up: A_v taken at t (the cached point) unless jok (then the
 * last one taken is kept), M = I - gamma A_v factored.  0 on success, > 0
 * recoverable (a singular M: CVODE retries with another step), < 0 a
 * decomposition's refusal (in c->fail).  *jcur: whether A_v was taken now. */
int opivp_prec_setup(opivp_prec *p, opivp_ctx *c, double t, int jok, double gamma, int *jcur);
/* z = T r = (I - P) M^{-1} (I - P) r + P r at t (r, z distinct m-vectors):
 * 0 on success, > 0 recoverable, < 0 a decomposition's refusal. */
int opivp_prec_solve(opivp_prec *p, opivp_ctx *c, double t, const double *r, double *z);
size_t opivp_prec_setups(const opivp_prec *p);

#endif
