/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Models: a linear time-varying DAE written as equations in the user's
 * unknowns x_1..x_n (any order) and equations (any order),
 *     sum_k E_ek(t) x_k' = sum_k A_ek(t) x_k + f_e(t),   e = 1..n,
 * from which lth finds the Hessenberg structure (docs/equations.md):
 *   - the differential unknowns (x_k' appears) and the algebraic ones (u);
 *   - the index-1 part: the algebraic unknowns y that appear in
 *     constraints (equations without derivatives), each fixed by a
 *     constraint of its own, 0 = K(t) y + L(t) x + f(t) with K square and
 *     invertible on the interval (checked as the mass matrices are); y is
 *     eliminated exactly, y = -K^{-1}(L x + f), and what follows concerns
 *     the rest (a DAE that is only index 1 is refused: no Hessenberg part);
 *   - the constraints left (equations without derivatives), which then
 *     involve differential unknowns only;
 *   - the mass blocks: the connected groups of derivatives coupled by E
 *     (each group's E block is its mass matrix, possibly time-varying and
 *     not diagonal);
 *   - the chain: the groups in the constraints form z_{r-1}, the groups in
 *     their equations z_{r-2}, ... (breadth-first), until the equations
 *     that involve u; r - 1 is that distance, and every group not on the
 *     chain joins z_1;
 * and builds the canonical system E z' = A z + f of lth/system.h with
 * z = (z_1, ..., z_{r-1}, u) a permutation of the unknowns other than y,
 * each mass matrix eliminated exactly as a jet solve (lth_source_solve) and
 * y substituted as jets (its derivatives enter Clark's reduction).
 *
 * Structural zeros: a coefficient is structurally zero iff it is the
 * constant 0, or its value and first three Taylor coefficients are exactly 0
 * at seven irregular points inside [t0, t1] (so sin(t) on [0, pi] is not a
 * structural zero although it vanishes at t = 0; t*0 is one).  Sampled
 * coefficients are never structural zeros.  A coefficient that is nonzero
 * at some t counts everywhere; where the structure then degenerates (Pi or
 * a mass matrix singular at some t), the decomposition refuses naming t.
 *
 * Errors of structure are LTH_EMODEL and name the user's unknowns and the
 * equations' lines (lth_model_add_equation's positions), e.g. "the algebraic
 * unknown lambda appears in the constraint on line 9".
 */
#ifndef LTH_MODEL_H
#define LTH_MODEL_H

#include <stddef.h>

#include "lth/expr.h"
#include "lth/source.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_model lth_model;

lth_model *lth_model_alloc(lth_error *err);
void lth_model_free(lth_model *m);

/* The file the model comes from (optional; copied; NULL: none): errors of
 * structure then carry it in err->file with the line:col of the equation or
 * unknown concerned, as the data-file reader's do. */
void lth_model_set_file(lth_model *m, const char *file);

/* A new unknown (name unique, non-empty; copied) declared at line:col (0:
 * unknown).  Returns its index (0, 1, ... in the order of the calls), or -1. */
int lth_model_add_variable(lth_model *m, const char *name, int line, int col, lth_error *err);
/* A new equation written at line:col (0: unknown, messages then say
 * "equation k").  Returns its index, or -1. */
int lth_model_add_equation(lth_model *m, int line, int col, lth_error *err);

/* Inputs and outputs (docs/equations.md section 11): the equations may
 * involve inputs u_k (linearly, not differentiated), and outputs are
 *     y_o = sum_k C_ok(t) x_k + sum_k D_ok(t) u_k + y0_o(t)
 * over every unknown x_k (index-1 ones too) and the inputs.  Names are
 * unique among unknowns, inputs and outputs (copied).  Each returns its
 * index (0, 1, ... in the order of the calls), or -1. */
int lth_model_add_input(lth_model *m, const char *name, int line, int col, lth_error *err);
int lth_model_add_output(lth_model *m, const char *name, int line, int col, lth_error *err);
int lth_model_ninputs(const lth_model *m);
int lth_model_noutputs(const lth_model *m);
const char *lth_model_input_name(const lth_model *m, int k);  /* NULL outside 0..n-1 */
const char *lth_model_output_name(const lth_model *m, int k); /* NULL outside 0..n-1 */

/* Coefficients: E_ek (of x_k'), A_ek (of x_k), f_e (var ignored), B_ek (of
 * input k in equation e), and of output eq = o: C_ok (of unknown k), D_ok
 * (of input k), y0_o (var ignored).  Each may be set once; coefficients
 * not set are zero.  _expr and _source take ownership (also on failure); a
 * source must be 1 x 1. */
typedef enum lth_model_part {
  LTH_MODEL_E = 0,
  LTH_MODEL_A = 1,
  LTH_MODEL_F = 2,
  LTH_MODEL_B = 3,
  LTH_MODEL_C = 4,
  LTH_MODEL_D = 5,
  LTH_MODEL_Y0 = 6
} lth_model_part;
lth_status lth_model_set_const(lth_model *m, lth_model_part part, int eq, int var, double value,
                               lth_error *err);
lth_status lth_model_set_expr(lth_model *m, lth_model_part part, int eq, int var, lth_expr *e,
                              lth_error *err);
lth_status lth_model_set_source(lth_model *m, lth_model_part part, int eq, int var,
                                lth_source *coef, lth_error *err);

/* Find the structure on [t0, t1] and check every mass matrix and the index-1
 * block K at times[0..n-1] (NULL: 257 uniform points) relative to their size
 * there (lth_source_solve_scan).
 * The model is then fixed (no more variables, equations or coefficients). */
lth_status lth_model_analyze(lth_model *m, double t0, double t1, const double *times, size_t n,
                             lth_error *err);

/* The canonical system of size s = lth_model_size (valid while the model
 * lives: it refers to the model's coefficients, mass matrices and K).  Needs
 * lth_model_analyze.  With inputs, its B_i are the rows' input coefficients
 * (through the mass matrices, exact jets) and its inputs are free (the
 * caller gives the signals: lth_system_set_input); with outputs, its C, D
 * and y0 are the outputs' with the index-1 unknowns substituted,
 * C_z - C_y K^{-1} L and y0 - C_y K^{-1} f_K (exact jets).  An input in a
 * constraint that fixes an index-1 unknown is refused by lth_model_analyze
 * (not supported yet). */
lth_status lth_model_system(const lth_model *m, lth_system **out, lth_error *err);

/* ---- the user's names and order ---- */
/* Unknowns and equations added so far (indices 0..n-1 in the order of the
 * lth_model_add_* calls). */
int lth_model_nvars(const lth_model *m);
int lth_model_nequations(const lth_model *m);
/* Name of unknown var as given (owned by the model); NULL outside 0..nvars-1. */
const char *lth_model_var_name(const lth_model *m, int var);
/* Index of the unknown called name (len bytes), -1 if none. */
int lth_model_find_variable(const lth_model *m, const char *name, size_t len);
/* Line given to lth_model_add_equation for equation eq (0 if none was
 * given or eq is outside 0..nequations-1). */
int lth_model_equation_line(const lth_model *m, int eq);

/* ---- the structure found by lth_model_analyze ---- */
int lth_model_index(const lth_model *m);             /* r, the Hessenberg index */
int lth_model_block_size(const lth_model *m, int i); /* n_i, i = 1..r */
int lth_model_manifold_dim(const lth_model *m);      /* p */
/* s = n_1 + ... + n_r, the system's size: the unknowns but the index-1 ones. */
int lth_model_size(const lth_model *m);
/* perm[k] = the unknown at position k (0-based) of z for k < s, and of the
 * index-1 unknowns y for k = s..nvars-1 (so (z, y) holds every unknown);
 * iperm[var] = its position; eq_perm[k] = the equation that is row k of
 * the system (k < s) or the constraint that fixes y_{k-s} (k >= s). */
const int *lth_model_perm(const lth_model *m);
const int *lth_model_iperm(const lth_model *m);
const int *lth_model_eq_perm(const lth_model *m);
/* Block of an unknown: 1..r-1 for z_1..z_{r-1} (differential), r for u, 0
 * for an index-1 unknown. */
int lth_model_var_block(const lth_model *m, int var);

/* ---- the index-1 unknowns (docs/equations.md section 10) ----
 * y = perm[s .. nvars-1], fixed by the constraints eq_perm[s .. nvars-1]
 * (row j fixes y_j): 0 = K(t) y + L(t) z + f_K(t), K invertible on the
 * interval.  They are grouped by the connected groups of K (loops), each in
 * the user's order. */
int lth_model_index1_count(const lth_model *m); /* n_y = nvars - s */

/* Their values for a solution: a handle (its own workspace: one per thread)
 * that evaluates y(t) = -K(t)^{-1} (L(t) z + B_K(t) u(t) + f_K(t)), B_K u
 * the inputs in the constraints that fix y (docs/equations.md section 11). */
typedef struct lth_model_values lth_model_values;
lth_model_values *lth_model_values_alloc(const lth_model *m, lth_error *err);
/* The signals u(t) are those of sys (the model's system, lth_system_input;
 * kept, not owned).  Without it, or for a free input, an index-1 unknown
 * that depends on an input is LTH_EINVAL naming both. */
lth_status lth_model_values_set_inputs(lth_model_values *w, const lth_system *sys, lth_error *err);
void lth_model_values_free(lth_model_values *w);
/* Every unknown at t in the user's order: user[perm[k]] = z[k] (s entries,
 * the canonical order) and the index-1 unknowns computed.  ez (NULL: none)
 * is an error (estimate) of z; euser (NULL: not wanted) then gets ez and,
 * for y, which is linear in z, -K^{-1} L ez (0 without ez).  K singular or
 * ill-conditioned at t is LTH_ESING / LTH_ECOND naming t and K's unknowns
 * and equations. */
lth_status lth_model_values_at(lth_model_values *w, double t, const double *z, const double *ez,
                               double *user, double *euser, lth_error *err);
/* The map itself at t: y = Y z + y0 with Y (n_y x s, column-major, leading
 * dimension ldy >= n_y; NULL: not wanted) and y0 (n_y entries; NULL: not
 * wanted), in the order of perm[s ..]. */
lth_status lth_model_values_map(lth_model_values *w, double t, double *Y, int ldy, double *y0,
                                lth_error *err);
/* The map applied to z (s entries) at t: y = Y z + y0 (n_y entries) and,
 * unless size is NULL, size[j] = |y0_j| + sum_k |Y_jk z_k| (what y_j is
 * made of, to judge its rounding).  Where K is diagonal and large, Y is kept
 * on the pattern of L alone: O(nnz(L)), nothing n_y x s. */
lth_status lth_model_values_apply(lth_model_values *w, double t, const double *z, double *y,
                                  double *size, lth_error *err);
/* The same with the inputs apart: y = Y z + Y_u u + y0, Y_u = -K^{-1} B_K
 * (n_y x nin, leading dimension ldyu; NULL: not wanted; zero where no input
 * stands in K's constraints) and y0 = -K^{-1} f_K: no signal is read (free
 * inputs are fine), for a realization (include/lth/ss.h). */
lth_status lth_model_values_maps(lth_model_values *w, double t, double *Y, int ldy, double *Yu,
                                 int ldyu, double *y0, lth_error *err);

/* Mass blocks (groups of unknowns whose derivatives the equations couple),
 * in the canonical order. */
typedef enum lth_mass_kind {
  LTH_MASS_IDENTITY = 0, /* x' = ...: no mass matrix */
  LTH_MASS_CONSTANT = 1, /* constant (e.g. m x' = ...) */
  LTH_MASS_VARYING = 2   /* depends on t */
} lth_mass_kind;
typedef struct lth_model_mass {
  int block;       /* i: part of z_i */
  int nvars;       /* size of the group */
  const int *vars; /* its unknowns (user indices, in the user's order) */
  const int *eqs;  /* its equations (user indices) */
  lth_mass_kind kind;
  int diagonal; /* 1 if the mass matrix is diagonal (nvars = 1) */
  double size;  /* max ||M(t)||_1 over the check times */
} lth_model_mass;
int lth_model_mass_count(const lth_model *m);
const lth_model_mass *lth_model_mass_block(const lth_model *m, int k);

/* A readable summary of the structure (lines like "z_1 = (v1, v2)  mass
 * matrix: time-varying 2 x 2"); returns the length it needs (snprintf). */
size_t lth_model_describe(const lth_model *m, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
