/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the operator form of index 2 with a sparse factorization of Pi
 * (SuiteSparse KLU), for n_r too large for the thin dense factors L_1, S_1,
 * C_i, D_i of lib/decomp/op_decomp.c (a discretised Stokes problem: n_r ~
 * s/3).  Nothing of size s x n_r or n_r x n_r is dense: the point keeps the
 * value jets of the sparse blocks, the jets of the derivatives of A_12 and
 * A_21, the value jets of Pi = A_21 A_12 on its sparse pattern and KLU's LU
 * of Pi(t); op_sparsepi.c gives the formulas.
 *
 * Selected per system (lth_opsys_set_pi_factor, include/lth/opdecomp.h):
 * automatically for index 2 when n_r >= LTH_DEFAULT_OP_SPARSE_PI_NR and the
 * library has KLU.  The dispatch: lth_oppoint_alloc / _free and
 * lth_opdecomp_at (op_decomp.c), the chunk functions of the applies
 * (op_apply.c). */
#ifndef LTH_OP_SPARSEPI_H
#define LTH_OP_SPARSEPI_H

#include "op_impl.h"

typedef struct op_sparsepi op_sparsepi;

/* 1 if the points of sys factor Pi sparsely. */
int op_sparsepi_on(const lth_opsys *sys);

/* The sparse-Pi part of pt, whose A, f, g, q jets exist: Pi's pattern and
 * KLU's analysis of it, the derivative jets, scratch for pt->max_cols
 * columns.  NULL with err set on failure. */
op_sparsepi *op_sparsepi_alloc(const lth_oppoint *pt, lth_error *err);
void op_sparsepi_free(op_sparsepi *sp);
/* Memory of what op_sparsepi_alloc allocated (KLU's factors added at each t). */
size_t op_sparsepi_bytes(const op_sparsepi *sp);

/* The rest of lth_opdecomp_at after op_eval returned st: the
 * decomposition at t into pt (with pt->sp), its refusals naming t. */
lth_status op_sparsepi_at(lth_oppoint *pt, double t, lth_status st, double cond_max, double scale,
                          lth_error *err);

/* The chunk functions of op_apply.c (x: m x k, k <= max_cols; y zeroed to
 * x's order): P x, (I - P) x, Ahat x (m rows), Bhat x, G x (s rows). */
lth_status op_sparsepi_P(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);
lth_status op_sparsepi_IP(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);
lth_status op_sparsepi_Ahat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);
lth_status op_sparsepi_Bhat(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);
lth_status op_sparsepi_G(const lth_oppoint *pt, const lth_jet *x, lth_jet *y, lth_error *err);

#endif
