/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Data files: the block form (`problem dae`, docs/format.md section 1.1):
 * blocks, A(i,j), f(i), z0, bc, and the checks once the file has been read.
 * lib/reader/problem_impl.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lth/samples.h"
#include "problem_impl.h"

lth_status lth_pp_st_blocks(lth_pp *P, size_t kw) {
  int n[LTH_P_MAX_BLOCKS];
  size_t at[LTH_P_MAX_BLOCKS], pos;
  int r = 0;
  lth_status st = lth_pp_once(P, &P->at_blocks, kw, "blocks");
  while (st == LTH_OK && lth_pcur_peek(&P->c) >= 0) {
    long v;
    if (r == LTH_P_MAX_BLOCKS) {
      return LTH_PERR(P, P->c.pos, LTH_EDIM, "more than %d blocks: index r is at most %d",
                      LTH_P_MAX_BLOCKS, LTH_P_MAX_BLOCKS);
    }
    st = lth_pcur_int(&P->c, 1, LTH_P_MAX_BLOCK_SIZE, "a block size", &v, &pos);
    n[r] = (int)v;
    at[r++] = pos;
  }
  if (st != LTH_OK) {
    return st;
  }
  if (r < 2) {
    return LTH_PERR(
        P, r ? at[0] : P->c.pos, LTH_ESTRUCT,
        "`blocks` needs at least two sizes n_1 ... n_r: a Hessenberg DAE has index r >= "
        "2, found %d",
        r);
  }
  for (int i = 0; i < r - 1; i++) {
    if (n[r - 1] > n[i]) {
      return LTH_PERR(P, at[r - 1], LTH_EDIM,
                      "n_r = %d exceeds n_%d = %d: the last block (u) may not be larger than any "
                      "other, else Pi = A(r,r-1)...A(1,r) cannot be invertible",
                      n[r - 1], i + 1, n[i]);
    }
  }
  P->pb->sys = lth_system_alloc(r, n, P->err);
  P->at_block = calloc((size_t)r * (size_t)(r + 1), sizeof *P->at_block);
  P->blk = calloc((size_t)r * (size_t)(r + 1), sizeof *P->blk);
  P->at_mass = calloc((size_t)r, sizeof *P->at_mass);
  P->pb->mass = calloc((size_t)r, sizeof *P->pb->mass);
  P->pb->nmass = r - 1;
  if (!P->pb->sys || !P->at_block || !P->blk || !P->at_mass || !P->pb->mass) {
    return P->pb->sys
               ? LTH_PERR(P, kw, LTH_ENOMEM, "out of memory")
               : lth_pp_relocate(P, lth_pp_here(P, kw), P->err ? P->err->status : LTH_ENOMEM);
  }
  P->r = r;
  return LTH_OK;
}

/* "(i)" or "(i,j)" after a block name; what = "A" or "f". */
static lth_status block_index(lth_pp *P, const char *what, int two, long *i, long *j) {
  size_t at;
  char shown[64];
  if (lth_pcur_peek(&P->c) != '(') {
    lth_pcur_show(&P->c, P->c.pos, shown, sizeof shown);
    return LTH_PERR(P, P->c.pos, LTH_EPARSE,
                    "expected '(' after %s: a block is written %s, found %s", what,
                    two ? "A(i,j) = ..." : "f(i) = ...", shown);
  }
  P->c.pos++;
  lth_status st = lth_pcur_int(&P->c, 0, 1000000, "a block index", i, &at);
  if (st == LTH_OK && two) {
    st = lth_pcur_expect(&P->c, ',', "',' between the block indices");
    if (st == LTH_OK) {
      st = lth_pcur_int(&P->c, 0, 1000000, "a block index", j, &at);
    }
  }
  if (st == LTH_OK) {
    st = lth_pcur_expect(&P->c, ')', "')' after the block index");
  }
  return st != LTH_OK ? st : lth_pcur_expect(&P->c, '=', "'=' after the block");
}

/* Is block A(i,j) (j = 0: f(i)) allowed?  lth_system_set_A/_f check the
 * pattern first (Clark (2.2)), so a 0 x 0 probe is refused with LTH_ESTRUCT
 * outside the pattern and with LTH_EDIM inside it; the system keeps the one
 * definition of the pattern and its message. */
static lth_status block_allowed(lth_pp *P, long i, long j) {
  double dummy = 0.0;
  lth_error probe_err;
  lth_error_clear(&probe_err);
  lth_source *probe = lth_source_const(0, 0, &dummy, 1, &probe_err);
  lth_status st = LTH_ENOMEM;
  if (probe) {
    st = j ? lth_system_set_A(P->pb->sys, (int)i, (int)j, probe, &probe_err)
           : lth_system_set_f(P->pb->sys, (int)i, probe, &probe_err);
  }
  if (st != LTH_ESTRUCT && st != LTH_ENOMEM) {
    return LTH_OK;
  }
  if (P->err) {
    *P->err = probe_err;
  }
  return st;
}

/* A(i,j) = ... or f(i) = ... (j = 0) */
static lth_status dae_block(lth_pp *P, size_t kw, long i, long j) {
  char label[48];
  if (j) {
    snprintf(label, sizeof label, "A(%ld,%ld)", i, j);
  } else {
    snprintf(label, sizeof label, "f(%ld)", i);
  }
  lth_system *sys = P->pb->sys;
  if (!sys) {
    return LTH_PERR(P, kw, LTH_EPARSE, "%s before `blocks`: the block sizes must be given first",
                    label);
  }
  lth_status st = block_allowed(P, i, j);
  if (st != LTH_OK) {
    return lth_pp_relocate(P, lth_pp_here(P, kw), st);
  }
  int r = P->r;
  lth_spos *seen = &P->at_block[j ? (i - 1) * r + (j - 1) : r * r + (i - 1)];
  if (seen->line) {
    return LTH_PERR(P, kw, LTH_EPARSE, "%s is given twice (first on line %d)", label, seen->line);
  }
  *seen = lth_pp_here(P, kw);
  int rows = lth_system_block_size(sys, (int)i), cols = j ? lth_system_block_size(sys, (int)j) : 1;
  lth_source *src;
  size_t pb_, pn;
  if ((st = lth_pp_parse_block(P, kw, label, rows, cols, &src, &pb_, &pn)) != LTH_OK) {
    return st;
  }
  int sampled = lth_source_is_samples(src);
  P->blk[j ? (i - 1) * r + (j - 1) : r * r + (i - 1)] = src; /* set at the end (M(i)) */
  return sampled ? lth_pp_add_sampled(P, label, src, lth_pp_here(P, pb_), P->c.tx->buf + pb_, pn)
                 : LTH_OK;
}

/* M(i) = ...: the mass matrix of block row i < r, n_i x n_i, may depend on t. */
lth_status lth_pp_st_M(lth_pp *P, size_t kw) {
  long i, j = 0;
  lth_status st = block_index(P, "M", 0, &i, &j);
  if (st != LTH_OK) {
    return st;
  }
  char label[48];
  snprintf(label, sizeof label, "M(%ld)", i);
  if (!P->pb->sys) {
    return LTH_PERR(P, kw, LTH_EPARSE, "%s before `blocks`: the block sizes must be given first",
                    label);
  }
  if (i < 1 || i >= P->r) {
    return LTH_PERR(P, kw, LTH_ESTRUCT,
                    "%s: mass matrices belong to the differential block rows 1..%d (row %d is "
                    "algebraic: 0 = A(%d,%d) z_%d + f(%d))",
                    label, P->r - 1, P->r, P->r, P->r - 1, P->r - 1, P->r);
  }
  if (P->at_mass[i - 1].line) {
    return LTH_PERR(P, kw, LTH_EPARSE, "%s is given twice (first on line %d)", label,
                    P->at_mass[i - 1].line);
  }
  P->at_mass[i - 1] = lth_pp_here(P, kw);
  int n = lth_system_block_size(P->pb->sys, (int)i);
  size_t pb_, pn;
  lth_source *src;
  if ((st = lth_pp_parse_block(P, kw, label, n, n, &src, &pb_, &pn)) != LTH_OK) {
    return st;
  }
  P->pb->mass[i - 1] = src;
  return lth_source_is_samples(src)
             ? lth_pp_add_sampled(P, label, src, lth_pp_here(P, pb_), P->c.tx->buf + pb_, pn)
             : LTH_OK;
}

lth_status lth_pp_st_f(lth_pp *P, size_t kw) {
  long i, j = 0;
  lth_status st = block_index(P, "f", 0, &i, &j);
  return st != LTH_OK ? st : dae_block(P, kw, i, 0);
}

/* LQR matrices A, B, H (sources) and C (constant). */

lth_status lth_pp_st_A(lth_pp *P, size_t kw) {
  int dae = P->pb->kind == LTH_PROBLEM_DAE;
  if (lth_pcur_peek(&P->c) == '(') {
    long i, j;
    if (!dae) {
      return LTH_PERR(P, kw, LTH_EPARSE,
                      "A(i,j) is a DAE block and not allowed in a `problem lqr` file (write `A = "
                      "[...]` for the LQR dynamics)");
    }
    lth_status st = block_index(P, "A", 1, &i, &j);
    return st != LTH_OK ? st : dae_block(P, kw, i, j);
  }
  if (dae) {
    return LTH_PERR(P, kw, LTH_EPARSE,
                    "expected '(' after A: a DAE block is written A(i,j) = ... (`A = ...` is for "
                    "`problem lqr` files)");
  }
  return lth_pp_lqr_A(P, kw);
}

lth_status lth_pp_st_z0(lth_pp *P, size_t kw) {
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after z0");
  if (st == LTH_OK) {
    st = lth_pp_once(P, &P->at_z0, kw, "z0");
  }
  if (st == LTH_OK && P->eqn) {
    return lth_pp_eqn_z0(P, kw);
  }
  if (st == LTH_OK && !P->pb->sys) {
    st = LTH_PERR(P, kw, LTH_EPARSE, "z0 before `blocks`: the block sizes must be given first");
  }
  if (st != LTH_OK) {
    return st;
  }
  return lth_pp_parse_const(P, "z0", -lth_system_size(P->pb->sys), 1, 0, &P->pb->z0);
}

lth_status lth_pp_st_bc(lth_pp *P, size_t kw) {
  static const char *const parts[] = {"B0", "B1", "beta"};
  static const char *const stmts[] = {"bc B0", "bc B1", "bc beta"};
  char shown[64];
  size_t start = P->c.pos, b, n = lth_pcur_name(&P->c, &b);
  int which = -1;
  for (int k = 0; k < 3 && n; k++) {
    which = lth_pcur_name_is(&P->c, b, n, parts[k]) ? k : which;
  }
  if (P->eqn && (which < 0 || lth_pcur_peek(&P->c) != '=')) {
    P->c.pos = start; /* an equation: bc x(0) = 1 (problem_bc.c) */
    return lth_pp_bc_equation(P, kw);
  }
  if (which < 0) {
    lth_pcur_show(&P->c, b, shown, sizeof shown);
    return LTH_PERR(P, b, LTH_EPARSE,
                    "expected B0, B1 or beta after `bc`, found %s (boundary conditions as "
                    "equations, bc x(0) = 1, need a `problem equations` file)",
                    shown);
  }
  lth_status st = lth_pcur_expect(&P->c, '=', "'=' after the bc name");
  if (st == LTH_OK && lth_pp_bc_first_line(P)) {
    st = LTH_PERR(P, kw, LTH_EPARSE,
                  "boundary conditions are written as equations (bc x(0) = 1) or as matrices "
                  "(bc B0, B1, beta), not both: the first equation is on line %d",
                  lth_pp_bc_first_line(P));
  }
  if (st == LTH_OK) {
    st = lth_pp_once(P, &P->at_bc[which], kw, stmts[which]);
  }
  if (st == LTH_OK && P->eqn) {
    return lth_pp_eqn_bc(P, kw, which);
  }
  if (st == LTH_OK && !P->pb->sys) {
    st = LTH_PERR(P, kw, LTH_EPARSE, "%s before `blocks`: the block sizes must be given first",
                  stmts[which]);
  }
  if (st != LTH_OK) {
    return st;
  }
  int p = lth_system_manifold_dim(P->pb->sys), s = lth_system_size(P->pb->sys);
  if (p == 0) {
    return LTH_PERR(P, kw, LTH_EDIM,
                    "boundary conditions need p = sum_{i<r}(n_i - n_r) > 0, but p = 0 here: the "
                    "solution is fixed by the DAE itself");
  }
  double **dst = which == 0 ? &P->pb->B0 : which == 1 ? &P->pb->B1 : &P->pb->beta;
  char label[64];
  snprintf(label, sizeof label, which < 2 ? "%s (p x s)" : "%s (p entries)", stmts[which]);
  /* B0, B1 from mm() files stay sparse (problem_bcsparse.c): p x s dense is
   * 1.6 GB at s = 10^4 */
  return which < 2 ? lth_pp_parse_const_sparse(P, label, p, s, dst, &P->pb->bcsp[which])
                   : lth_pp_parse_const(P, label, -p, 1, LTH_PP_CONST_MM, dst);
}

/* Check each M(i) on the check times, then give the system its blocks,
 * those of row i as M(i)^{-1} A(i,j), M(i)^{-1} f(i) (exact jet solves);
 * B(i) becomes M(i)^{-1} B(i) in its slot (problem_ioblock.c). */
static lth_status set_blocks(lth_pp *P) {
  lth_problem *pb = P->pb;
  int r = P->r;
  double *times = NULL;
  size_t nt = 0;
  lth_status st = LTH_OK;
  for (int i = 1; i < r && st == LTH_OK; i++) {
    if (!pb->mass[i - 1]) {
      continue;
    }
    char label[48];
    snprintf(label, sizeof label, "M(%d)", i);
    double mscale = 0.0;
    if (!times) {
      st = lth_pp_check_times(P, &times, &nt);
    }
    if (st == LTH_OK) {
      st = lth_source_solve_scan(pb->mass[i - 1], times, nt, 0.0, label, &mscale, P->err);
      st = st == LTH_OK ? st : lth_pp_mass_error(P, P->at_mass[i - 1], st);
    }
    for (int j = 0; j <= r && st == LTH_OK; j++) {
      lth_source **b = &P->blk[j < r ? (i - 1) * r + j : r * r + (i - 1)];
      if (*b) {
        *b = lth_source_solve(pb->mass[i - 1], *b, mscale, 0.0, label, P->err);
        st = *b ? LTH_OK : lth_pp_relocate(P, P->at_mass[i - 1], LTH_ENOMEM);
      }
    }
    lth_source **b = lth_pp_iob_B_slot(P, i); /* B(i) too: M(i)^{-1} B(i) */
    if (b && st == LTH_OK) {
      *b = lth_source_solve(pb->mass[i - 1], *b, mscale, 0.0, label, P->err);
      st = *b ? LTH_OK : lth_pp_relocate(P, P->at_mass[i - 1], LTH_ENOMEM);
    }
  }
  free(times);
  for (int k = 0; k < r * (r + 1); k++) {
    lth_source *src = P->blk[k];
    P->blk[k] = NULL;
    if (!src || st != LTH_OK) {
      lth_source_free(src);
      continue;
    }
    int i = k < r * r ? k / r + 1 : k - r * r + 1, j = k < r * r ? k % r + 1 : 0;
    st = j ? lth_system_set_A(pb->sys, i, j, src, P->err)
           : lth_system_set_f(pb->sys, i, src, P->err);
    st = st == LTH_OK ? st : lth_pp_relocate(P, P->at_block[k], st);
  }
  return st;
}

lth_status lth_pp_finish_dae(lth_pp *P) {
  lth_problem *pb = P->pb;
  if (!pb->sys) {
    return lth_pp_at_error(
        P, P->at_blocks, LTH_EPARSE,
        "missing `blocks n_1 ... n_r` statement: a DAE file must give its block sizes");
  }
  int any_mass = 0;
  for (int i = 0; i < P->r - 1; i++) {
    any_mass = any_mass || pb->mass[i];
  }
  /* mass matrices are checked on the grid: the common checks come first */
  lth_status st = any_mass ? lth_pp_check_common(P) : LTH_OK;
  if (st == LTH_OK) {
    st = set_blocks(P);
  }
  if (st == LTH_OK && (st = lth_system_validate(pb->sys, P->err)) != LTH_OK) {
    return lth_pp_relocate(P, P->at_blocks, st);
  }
  if (st == LTH_OK) {
    st = lth_pp_iob_finish(P); /* inputs and outputs, docs/format.md section 1.4 */
  }
  if (st != LTH_OK) {
    return st;
  }
  int given = !!P->at_bc[0].line + !!P->at_bc[1].line + !!P->at_bc[2].line;
  if (given > 0 && given < 3) {
    lth_spos first = P->at_bc[0].line ? P->at_bc[0] : P->at_bc[1].line ? P->at_bc[1] : P->at_bc[2];
    return lth_pp_at_error(
        P, first, LTH_EPARSE,
        "incomplete boundary conditions: missing%s%s%s (B0 z(t0) + B1 z(t1) = beta "
        "needs all three)",
        P->at_bc[0].line ? "" : " `bc B0`", P->at_bc[1].line ? "" : " `bc B1`",
        P->at_bc[2].line ? "" : " `bc beta`");
  }
  pb->nbc = given ? lth_system_manifold_dim(pb->sys) : 0;
  return any_mass ? LTH_OK : lth_pp_check_common(P);
}
/* Symmetry of an nx x nx column-major matrix: max |M - M'| <= tol * max |M|. */
