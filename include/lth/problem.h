/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files (.lth): docs/format.md section 1.  A parsed file is an
 * lth_problem: a DAE system (for `problem lqr` files, the LQR optimality DAE
 * of Clark section 4.2 built from A, B, H), its interval and grid, and the
 * optional statements the other tools use (z0, bc, sampling order).
 * Every error names file:line:column and what was expected.
 */
#ifndef LTH_PROBLEM_H
#define LTH_PROBLEM_H

#include <stddef.h>

#include "lth/lqr.h"
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
/* Grid points (strictly increasing, from `grid`, default 101 uniform points). */
size_t lth_problem_grid(const lth_problem *pb, const double **times);
/* Degree of the local fits for sampled blocks (`sampling order K`). */
int lth_problem_sampling_order(const lth_problem *pb);

/* z0 statement: returns 1 and sets *z0 (s entries) if present, else 0. */
int lth_problem_z0(const lth_problem *pb, const double **z0);
/* bc statements: returns the number of rows (0 if absent); B0 and B1 are
 * rows x s column-major (ld = rows), beta has rows entries. */
int lth_problem_bc(const lth_problem *pb, const double **B0, const double **B1,
                   const double **beta);

/* Sampled blocks, for error reporting: count, and the k-th one's label
 * ("A(2,1)", "f(1)", "B", ...) and source. */
size_t lth_problem_sampled_count(const lth_problem *pb);
const lth_source *lth_problem_sampled(const lth_problem *pb, size_t k, const char **label);

/* LQR data of a `problem lqr` file (NULL for DAE files); valid while pb lives. */
const lth_lqr_spec *lth_problem_lqr(const lth_problem *pb);

#ifdef __cplusplus
}
#endif
#endif
