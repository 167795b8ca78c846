/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Internals of models (include/lth/model.h): model.c (storage, accessors,
 * the summary), model_detect.c (structure), model_classify.c (equations
 * without algebraic unknowns), model_index1.c (the index-1 part: which
 * unknowns, the pattern after their elimination, the check of K),
 * model_subst.c (the blocks with the index-1 unknowns substituted, and
 * their values for the outputs), model_system.c (the canonical system,
 * mass matrices, the Pi check). */
#ifndef LTH_MODEL_IMPL_H
#define LTH_MODEL_IMPL_H

#include "lth/model.h"

enum { MCOEF_CONST = 0, MCOEF_EXPR = 1, MCOEF_SOURCE = 2 };

typedef struct lth_mcoef {
  int kind;
  double v;      /* MCOEF_CONST */
  lth_expr *e;   /* MCOEF_EXPR (owned) */
  lth_source *s; /* MCOEF_SOURCE, 1 x 1 (owned) */
} lth_mcoef;

typedef struct lth_mentry {
  int eq, var, part; /* var = -1 for f */
  lth_mcoef c;
  int nz; /* structurally nonzero (set by lth_model_analyze) */
} lth_mentry;

typedef struct lth_mgroup {
  lth_model_mass pub;
  int *vars, *eqs; /* storage behind pub.vars, pub.eqs */
} lth_mgroup;

struct lth_model {
  char file[256];
  int nv, ne, capv, cape;
  char **names;
  int *slots; /* hash table of the names: index + 1, 0 = empty */
  int nslots;
  int *vline, *vcol, *eline, *ecol;
  lth_mentry *ent;
  size_t nent, capent;
  /* inputs and outputs: names (owned), positions, and the outputs'
   * coefficients (eq = output, part C, D or Y0) */
  char **inames, **onames;
  int nin, nout, capin, capout;
  int *iline, *icol, *oline, *ocol;
  lth_mentry *oent;
  size_t noent, capoent;
  /* the analysis */
  int *estart, *eidx; /* entries by equation: eidx[estart[q] .. estart[q+1]-1] */
  int analyzed;
  double t0, t1;
  int r, p, *n;      /* n[0..r-1] = n_1..n_r */
  int s;             /* the system's size: nv - ny */
  int *perm, *iperm; /* position <-> unknown: z at 0..s-1, the index-1 unknowns at s..nv-1 */
  int *eqperm, *ieqperm;
  int *block; /* per unknown: 1..r, 0 for an index-1 unknown */
  /* the index-1 part (model_index1.c): y = positions s..nv-1, fixed by the
   * constraints at rows s..nv-1 through K (the A block of those rows and
   * columns), in components (connected groups) kstart[c]..kstart[c+1]-1 */
  int ny, nk;
  int *ypos;           /* per unknown: its index among y (0..ny-1), or -1 */
  int *qpos;           /* per equation: the y it fixes (0..ny-1), or -1 */
  int *kstart;         /* nk + 1 offsets into y */
  int *rstart, *reach; /* per y: the differential unknowns it depends on */
  int *pstart, *pvar;  /* per equation: its A pattern after the substitution */
  lth_source *K;       /* ny x ny, NULL if ny = 0 */
  double kscale;       /* max ||K(t)||_1 over the check times */
  char *klabel;        /* "of {e3, e4} in the equations on lines 18, 19" */
  lth_mgroup *groups; /* mass blocks in canonical order */
  int ngroups;
  lth_source **M; /* per block row i = 1..r-1 (index i-1): NULL if identity */
  double *mscale; /* per block row: max ||M_i(t)||_1 */
  char **mlabel;  /* per block row: "of block {v1, v2}" */
};

/* Taylor coefficients 0..order of a coefficient at t (work: lth_mcoef_work_size). */
size_t lth_mcoef_work_size(const lth_mcoef *c, int order);
lth_status lth_mcoef_taylor(const lth_mcoef *c, double t, int order, double *coef, double *work,
                            lth_error *err);

/* An LTH_EMODEL error, positioned at line:col of the model's file (line 0:
 * no position). */
lth_status lth_model_error(const lth_model *m, lth_error *err, int line, int col, const char *fmt,
                           ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
/* The unknowns of a list as "{a, b, c}" (shortened past ~200 bytes). */
void lth_model_names(const lth_model *m, const int *vars, int n, char *buf, size_t size);
/* "on line 9" / "(equation 3)" for an equation. */
void lth_model_where(const lth_model *m, int eq, char *buf, size_t size);

#define LTH_MODEL_MAX_INDEX 64 /* as the block form's `blocks` */

/* model_detect.c: structural zeros, roles, mass blocks, the chain, the
 * canonical order (fills r, n, p, perm, iperm, eqperm, block, groups). */
lth_status lth_model_detect(lth_model *m, lth_error *err);
/* model_classify.c: the refusal of equations in which every unknown's
 * derivative appears (after lth_model_detect's usage pass, ne == nv): an
 * ODE, or a DAE not in Hessenberg form (index 1, or index >= 2), naming
 * the equations that combine to one without derivatives. */
lth_status lth_model_no_algebraic(const lth_model *m, lth_error *err);
/* model_index1.c: the index-1 unknowns (the algebraic unknowns that appear
 * in a constraint) matched to constraints; fills ny, ypos, qpos and a
 * provisional order of y.  usedE per unknown, hasE per equation. */
lth_status lth_model_index1_find(lth_model *m, const int *usedE, const int *hasE, lth_error *err);
/* The A pattern of every equation after the substitution (pstart, pvar),
 * the components of K (kstart) and the reach of each y; needs perm/iperm
 * of y (positions s..). */
lth_status lth_model_index1_pattern(lth_model *m, lth_error *err);
/* K (m->K, kscale, klabel) checked at the times, component by component. */
lth_status lth_model_index1_check(lth_model *m, const double *times, size_t n, lth_error *err);
/* "the equations on lines 8, 9" for equations eqs[0..n-1]. */
void lth_model_eq_list(const lth_model *m, const int *eqs, int n, char *buf, size_t size);
/* model_system.c: the block of `part` with the canonical rows r0..r0+nr-1
 * and columns c0..c0+nc-1 (part F: one column) as the model's
 * coefficients read them (no substitution); NULL in *out if all zero. */
lth_status lth_model_block_source(const lth_model *m, int part, int r0, int nr, int c0, int nc,
                                  lth_source **out, lth_error *err);
/* model_system.c: the block of the outputs' coefficients of `part` (C:
 * columns c0..c0+nc-1 of the positions of (z, y); D: the inputs; Y0: one
 * column); NULL in *out if all zero. */
lth_status lth_model_output_block(const lth_model *m, int part, int c0, int nc, lth_source **out,
                                  lth_error *err);
/* model_subst.c: the outputs' C, D, y0 of the canonical system (each NULL
 * if zero), the index-1 unknowns substituted. */
lth_status lth_model_output_sources(const lth_model *m, lth_source **C, lth_source **D,
                                    lth_source **y0, lth_error *err);
/* model_subst.c: the same block with y = -K^{-1}(L z + f) substituted:
 * B - A_y K^{-1} L (part A) or f - A_y K^{-1} f_K (part F), exact jets. */
lth_status lth_model_subst_block(const lth_model *m, int part, int r0, int nr, int c0, int nc,
                                 lth_source **out, lth_error *err);
/* An error of K from a solve (LTH_ESING, LTH_ECOND) worded for K. */
void lth_model_k_message(lth_error *err);
/* model_system.c: mass matrices (M, mscale, mlabel, group sizes) checked at
 * the times, and the check that Pi is not singular on the whole interval. */
lth_status lth_model_masses(lth_model *m, const double *times, size_t n, lth_error *err);
lth_status lth_model_check_pi(const lth_model *m, lth_error *err);

#endif
