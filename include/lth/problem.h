/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files (.lth): docs/format.md section 1 and docs/equations.md.  A
 * parsed file is an lth_problem: a DAE system in Clark's canonical form (from
 * blocks, `problem dae`; from equations in the user's unknowns, `problem
 * equations`, through the model layer lth/model.h; for `problem lqr` files,
 * the LQR optimality DAE of Clark section 4.2 built from A, B, H), its
 * interval and grid, and the optional statements the other tools use (z0,
 * bc, sampling order).  Every error names file:line:column and what was
 * expected.
 */
#ifndef LTH_PROBLEM_H
#define LTH_PROBLEM_H

#include <stddef.h>

#include "lth/bvp.h"
#include "lth/lqr.h"
#include "lth/model.h"
#include "lth/plqr.h"
#include "lth/source.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lth_problem_kind { LTH_PROBLEM_DAE = 0, LTH_PROBLEM_LQR = 1 } lth_problem_kind;
/* How a DAE file is written: blocks in Clark's canonical form (`problem dae`)
 * or equations in the user's unknowns (`problem equations`, docs/equations.md). */
typedef enum lth_problem_form { LTH_FORM_BLOCKS = 0, LTH_FORM_EQUATIONS = 1 } lth_problem_form;

typedef struct lth_problem lth_problem;

/* Options of reading a file. */
typedef struct lth_problem_opts {
  /* "NAME=VALUE" overrides of `param` values (for sweeps, `--param`): VALUE
   * is a constant expression that may use params defined before NAME; a
   * NAME the file does not define is LTH_EINVAL (a usage error) */
  const char *const *params;
  size_t nparams;
} lth_problem_opts;
void lth_problem_opts_init(lth_problem_opts *opts);

/* Read and parse a data file; CSV paths in samples("...") are relative to
 * the file's directory. */
lth_status lth_problem_read(const char *path, lth_problem **out, lth_error *err);
/* Parse text[0..len-1]; `name` is used in messages, `basedir` resolves CSV
 * paths (NULL: the current directory). */
lth_status lth_problem_parse(const char *text, size_t len, const char *name, const char *basedir,
                             lth_problem **out, lth_error *err);
/* The same with options (opts may be NULL).  lth_problem_read_opts reads
 * standard input when path is "-": messages then name "<stdin>", and CSV
 * paths are relative to the current directory. */
lth_status lth_problem_parse_opts(const char *text, size_t len, const char *name,
                                  const char *basedir, const lth_problem_opts *opts,
                                  lth_problem **out, lth_error *err);
lth_status lth_problem_read_opts(const char *path, const lth_problem_opts *opts, lth_problem **out,
                                 lth_error *err);
void lth_problem_free(lth_problem *pb);

lth_problem_kind lth_problem_get_kind(const lth_problem *pb);
/* The DAE system (owned by the problem). */
const lth_system *lth_problem_system(const lth_problem *pb);
void lth_problem_interval(const lth_problem *pb, double *t0, double *t1);
/* Grid points (strictly increasing, from `grid`, default LTH_DEFAULT_GRID_POINTS = 101 uniform
 * points). */
size_t lth_problem_grid(const lth_problem *pb, const double **times);
/* Degree of the local fits for sampled blocks (`sampling order K`), or 0
 * (LTH_SAMPLES_AUTO) when it is chosen automatically (the default). */
int lth_problem_sampling_order(const lth_problem *pb);

/* z0 statement: returns 1 and sets *z0 (s entries, canonical order) if
 * present, else 0. */
int lth_problem_z0(const lth_problem *pb, const double **z0);
/* bc statements: returns the number of rows (0 if absent); B0 and B1 are
 * rows x s column-major (ld = rows, columns in the canonical order), beta
 * has rows entries.  B0 and B1 given as mm("file.mtx") are read sparse and
 * made dense on the first call (NULL if that runs out of memory: p x s
 * doubles each); safe to call from several threads. */
int lth_problem_bc(const lth_problem *pb, const double **B0, const double **B1,
                   const double **beta);
/* The same boundary conditions as compressed sparse columns for
 * lth_bvp_solve_op (include/lth/bvp.h; canonical column order, beta as
 * above), valid while pb lives: mm() files as read, other bc made sparse on
 * the first call.  Returns the number of rows (0 if absent: *bc has rows 0),
 * or -1 when out of memory. */
int lth_problem_bc_csc(const lth_problem *pb, lth_bvp_sparse_bc *bc);

/* Sampled blocks, for error reporting: count, and the k-th one's label
 * ("A(2,1)", "f(1)", "B", ...) and source. */
size_t lth_problem_sampled_count(const lth_problem *pb);
const lth_source *lth_problem_sampled(const lth_problem *pb, size_t k, const char **label);

/* LQR data of a `problem lqr` file (NULL for DAE files); valid while pb lives. */
const lth_lqr_spec *lth_problem_lqr(const lth_problem *pb);
/* lth_lqr_solve's requirements on that data (lth/lqr.h: C and H(t)
 * symmetric positive semidefinite), checked as lth_lqr_solve checks them: on
 * a scan of [t0, t1] and at times[0..n-1].  A refusal (LTH_EDATA) names t
 * and the H or C statement's file:line:column, which lth_lqr_solve cannot
 * (lth-lqr calls this when lth_lqr_solve returns LTH_EDATA).  Reading the
 * file does not check it: the optimality DAE can be decomposed without.
 * LTH_EINVAL for other files. */
lth_status lth_problem_lqr_check(const lth_problem *pb, const double *times, size_t n,
                                 lth_error *err);
/* The same position without checking again: err is a refusal of H or C by
 * lth_lqr_solve or lth_lqr_solve_op on this file's data (LTH_EDATA, its
 * message beginning with the weight's name, "H " or "C ", as theirs do);
 * the H or C statement's file:line:column is set in it, the message, status
 * and t are kept.  LTH_OK when set; LTH_EINVAL (err untouched) for another
 * error or another file. */
lth_status lth_problem_lqr_locate(const lth_problem *pb, lth_error *err);

/* ---- inputs and outputs (docs/equations.md section 11) ----
 * E z' = A z + B(t) u + f, y = C(t) z + D(t) u + y0 (lth/system.h): the
 * file's `inputs` and `outputs`, in the order written.  An input whose
 * signal the file does not give (`u1(t) = ...`) is free: the system then
 * refuses to evaluate its forcing until lth_problem_set_input gives one. */
int lth_problem_ninputs(const lth_problem *pb);
int lth_problem_noutputs(const lth_problem *pb);
/* Names (owned by the problem); NULL outside 0..n-1. */
const char *lth_problem_input_name(const lth_problem *pb, int k);
const char *lth_problem_output_name(const lth_problem *pb, int k);
/* The signal of input k (1 x 1, owned by the problem, also on failure;
 * NULL: free), replacing the file's.  Before any workspace is allocated on
 * the problem's system. */
lth_status lth_problem_set_input(lth_problem *pb, int k, lth_source *signal, lth_error *err);
/* The first free input (0-based), -1 if every input has a signal. */
int lth_problem_free_input(const lth_problem *pb);

/* ---- the cost of an LQR design (docs/equations.md section 12) ----
 * `cost integral EXPR` and `cost final EXPR` of a `problem equations` file:
 * J = (the final costs at t1) + int_{t0}^{t1} (the integrands) dt, exactly
 * as written (no hidden 1/2; several statements of a kind add up), each a
 * quadratic polynomial in w = (z, u, y): z the system's unknowns in the
 * canonical order (s entries; lth_problem_perm maps them to the user's),
 * u the inputs, y the outputs, in the order declared.  The integrand is
 * w'W(t)w + 2 w'l(t) + c(t) (W symmetric, W_ab = W_ba = half the
 * coefficient of w_a w_b for a != b), the final cost w'F w + 2 w'f + cF
 * with its coefficients evaluated at t1; without a `cost integral`, W, l and
 * c are NULL (zero), without a `cost final`, F and f are NULL and cF = 0.
 * Ready for lth_plqr_solve (lth/plqr.h); owned by the problem.  NULL when
 * the file has no cost statement. */
const lth_plqr_cost *lth_problem_cost(const lth_problem *pb);

/* ---- the user's unknowns (for the tools' output, docs/equations.md) ----
 * The system's unknowns z = (z_1, ..., z_{r-1}, u) are in the canonical
 * order; a `problem equations` file names its unknowns in its own order
 * (`variables`, with the velocity x' right after x where x'' appears).  For
 * block and LQR files both orders agree and the names are z_1[1], ...,
 * u[1] (LQR: x[1], ..., lambda[1], ..., u[1], ...).  z0 and bc (lth_problem_z0,
 * lth_problem_bc) are always in the canonical order. */
lth_problem_form lth_problem_get_form(const lth_problem *pb);
/* The model of a `problem equations` file (lth/model.h: the structure found,
 * the mass matrices), NULL for other files. */
const lth_model *lth_problem_model(const lth_problem *pb);
/* s, and the name of the user's unknown k (0-based). */
int lth_problem_nvars(const lth_problem *pb);
const char *lth_problem_var_name(const lth_problem *pb, int k);
/* The user's unknown called name (e.g. "x1" or "x1'"), -1 if none; the
 * spellings of lth_name_find are accepted. */
int lth_problem_find_var(const lth_problem *pb, const char *name);
/* The index of name among names[0..n-1], -1 if none.  A name that is none
 * of them may spell a derivative without the apostrophe (for the shell):
 * "d.x" and "x_dot" are x', "d.d.x", "x_dot_dot" and "d.x_dot" are x''.
 * The names themselves come first, so an unknown called x_dot is x_dot; a
 * spelling that could mean two of the names (x_dot_dot when both x'' and
 * x_dot' exist) matches none. */
int lth_name_find(const char *const *names, int n, const char *name);
/* perm[k] = the user's unknown at canonical position k; iperm its inverse. */
const int *lth_problem_perm(const lth_problem *pb);
const int *lth_problem_iperm(const lth_problem *pb);
/* Vectors of s entries between the orders (may not overlap). */
void lth_problem_to_canonical(const lth_problem *pb, const double *user, double *canonical);
void lth_problem_to_user(const lth_problem *pb, const double *canonical, double *user);
/* The structure in the user's terms, a few lines: the index, each block
 * with its unknowns, the mass matrices found, p (snprintf semantics). */
size_t lth_problem_describe(const lth_problem *pb, char *buf, size_t size);
/* Which p unknowns (user indices, increasing, into vars[0..p-1]) can be
 * given freely at t: differential unknowns whose rows of G(t) =
 * [Nhat + Bhat](I - P) are independent (pivoted QR), so that the other
 * values follow from them (Clark's Corollary 3).  Decomposes at t. */
lth_status lth_problem_free_initial(const lth_problem *pb, double t, int *vars, lth_error *err);

#ifdef __cplusplus
}
#endif
#endif
