/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Finite differences for DAE BVPs with consistency conditions (Clark section
 * 4.1): implicit Euler on the full DAE,
 *     E (z_j - z_{j-1}) / h_j - A(t_j) z_j = f(t_j),   j = 1..N,
 * N s equations, completed by the p boundary rows B0 z_0 + B1 z_N = beta and
 * the s - p consistency conditions M0 z_0 = b0 (V spans N(G(t0)^T)) into the
 * (N+1) s square system of Clark's A_h, solved banded (lib/bvp/twopoint.c).
 * Implicit Euler is stable for Hessenberg DAEs and first order; the observed
 * order is measured by solving on N/2, N and 2N intervals. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvp_impl.h"
#include "lth/defaults.h"
#include "lth/ic.h"
#include "twopoint.h"
#include "core/errors.h"
#include "system/system_parts.h"

/* The data must be smooth at the scale of the coarsest grid (fd_resolved). */
#define FD_RESOLVE_DEGREE 3
#define FD_RESOLVE_TOL    1e-3

/* Progress over all the solves of a run (opts->progress): grid points assembled. */
typedef struct {
  const lth_bvp_opts *o;
  size_t done, total;
} fd_progress;

static void fd_advance(fd_progress *pg, size_t n) {
  pg->done += n;
  if (pg->o->progress) pg->o->progress(pg->o->progress_ctx, pg->done, pg->total);
}

/* The grid points of [t0, t1] with N intervals, plus the extra times. */
static lth_status make_grid(const lth_bvp_problem *bp, size_t N, const double *extra, size_t nextra,
                            double **grid, size_t *ng, lth_error *err) {
  double *g = malloc((N + 1 + nextra) * sizeof(double));
  if (!g) return lth_error_set(err, LTH_ENOMEM, "out of memory");
  size_t k = 0, e = 0;
  for (size_t i = 0; i <= N; i++) {
    double t = i == N ? bp->t1 : bp->t0 + (bp->t1 - bp->t0) * (double)i / (double)N;
    while (e < nextra && extra[e] < t) {
      if (k == 0 || extra[e] > g[k - 1]) g[k++] = extra[e];
      e++;
    }
    if (k == 0 || t > g[k - 1]) g[k++] = t;
  }
  *grid = g;
  *ng = k;
  return LTH_OK;
}

/* cond_bvp of the discrete problem: max over the nodes of ||Z_i||_inf, Z_i
 * (s x p) the responses at node i to unit boundary values (the discrete
 * Phi(t_i) S^{-1}), times ||B0|| + ||B1||. */
static double fd_cond_bvp(const lth_bvp_problem *bp, const double *green, size_t ng) {
  int s = bp->s, p = bp->p;
  double mx = 0.0;
  for (size_t i = 0; i < ng; i++) {
    double g = lth_bvp_green_norm(green + i * (size_t)s, s, p, ng * (size_t)s);
    mx = g > mx || isnan(g) ? g : mx;
  }
  return mx * lth_bvp_bc_norm(bp);
}

/* Solve the implicit Euler system on `grid` into z (s x ng); cond_bvp (may be
 * NULL) from the same factorization. */
static lth_status fd_solve_grid(const lth_bvp_problem *bp, const lth_ic *ic, const double *grid,
                                size_t ng, double *z, double *cond, double *cond_bvp,
                                fd_progress *pg, lth_error *err) {
  int s = bp->s, m = lth_system_state_dim(bp->sys), p = bp->p;
  size_t N = ng - 1, ss = (size_t)s * s;
  size_t work = lth_system_work_needed(bp->sys, 0) + 1; /* freed in this call */
  double *C = calloc(N * ss + 1, sizeof(double)), *E = malloc((N * ss + 1) * sizeof(double));
  double *e = malloc((N * (size_t)s + 1) * sizeof(double)), *w = malloc(work * sizeof(double));
  lth_jet A, f;
  memset(&A, 0, sizeof A);
  memset(&f, 0, sizeof f);
  lth_status st = (!C || !E || !e || !w) ? lth_error_set(err, LTH_ENOMEM, "out of memory")
                                         : lth_jet_init(&A, s, s, 0, err);
  if (st == LTH_OK) st = lth_jet_init(&f, s, 1, 0, err);
  for (size_t j = 1; j <= N && st == LTH_OK; j++) {
    double h = grid[j] - grid[j - 1];
    st = lth_system_eval(bp->sys, grid[j], 0, &A, &f, w, err);
    if (st != LTH_OK) break;
    double *Cj = C + (j - 1) * ss, *Ej = E + (j - 1) * ss;
    for (int c = 0; c < s; c++) {
      for (int r = 0; r < s; r++) Ej[r + (size_t)c * s] = -LTH_JET_AT(&A, 0, r, c);
    }
    for (int i = 0; i < m; i++) { /* E = diag(I_m, 0) */
      Cj[i + (size_t)i * s] = -1.0 / h;
      Ej[i + (size_t)i * s] += 1.0 / h;
    }
    memcpy(e + (j - 1) * (size_t)s, f.c, (size_t)s * sizeof(double));
    if (j % 4096 == 0) fd_advance(pg, 4096);
  }
  if (st == LTH_OK) fd_advance(pg, N % 4096);
  if (st == LTH_OK) {
    const double *M0, *b0;
    int nl = lth_ic_conditions(ic, &M0, &b0);
    lth_twopoint tp = {.n = s,
                       .nl = nl,
                       .nb = p,
                       .N = N,
                       .L0 = M0,
                       .l0 = b0,
                       .D0 = bp->B0,
                       .DN = bp->B1,
                       .d = bp->beta,
                       .C = C,
                       .E = E,
                       .e = e};
    double *green = cond_bvp && p > 0 ? malloc(ng * (size_t)s * p * sizeof(double)) : NULL;
    if (cond_bvp && p > 0 && !green) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
    if (st == LTH_OK) st = lth_twopoint_solve_green(&tp, z, cond, green, err);
    if (st == LTH_ESING) st = lth_bvp_not_unique(*cond, "finite-difference matrix", err);
    if (st == LTH_OK && cond_bvp) *cond_bvp = p > 0 ? fd_cond_bvp(bp, green, ng) : 0.0;
    free(green);
  }
  lth_jet_release(&A);
  lth_jet_release(&f);
  free(C);
  free(E);
  free(e);
  free(w);
  return st;
}

/* Solve on a uniform grid of N intervals (no extra points). */
static lth_status fd_uniform(const lth_bvp_problem *bp, const lth_ic *ic, size_t N, double **z,
                             fd_progress *pg, lth_error *err) {
  double *grid = NULL, cond;
  size_t ng;
  lth_status st = make_grid(bp, N, NULL, 0, &grid, &ng, err);
  *z = st == LTH_OK ? malloc(ng * (size_t)bp->s * sizeof(double)) : NULL;
  if (st == LTH_OK && !*z) st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  if (st == LTH_OK) st = fd_solve_grid(bp, ic, grid, ng, *z, &cond, NULL, pg, err);
  free(grid);
  return st;
}

/* Where the constraints' data are not smooth (a kink in f(2) at index 2,
 * say; lib/colloc/pieces.h, POINT pieces of block rows >= 2): the algebraic
 * components jump there, inside one cell of every grid, and implicit Euler
 * carries an error of the size of the jump for up to r steps after it, a
 * layer like the one after t0 that does not shrink like h (a kink in f(2):
 * observed order 10.2 from the cells that hold it, the estimate half the
 * error).  Each such point gives a window [lo, hi] widened by a cell before
 * and r + 1 cells after. */
typedef struct fd_shadows {
  size_t n;
  double *lohi; /* n windows, in units of t, before widening */
  int r;
} fd_shadows;

static lth_status shadows_find(const lth_bvp_problem *bp, fd_shadows *sh, lth_error *err) {
  LTH_ERROR_RECORD(err);
  int r = lth_system_index(bp->sys), n = 0;
  const lth_source *src[64];
  for (int j = 2; j <= r; j++) {
    for (int k = 1; k <= r + 1 && n < 64; k++) {
      const lth_source *x = k <= r ? lth_system_A(bp->sys, j, k) : lth_system_forcing(bp->sys, j);
      if (x) src[n++] = x;
    }
  }
  memset(sh, 0, sizeof *sh);
  sh->r = r;
  if (n == 0) return LTH_OK;
  lth_enclose *enc = lth_enclose_alloc_sources(src, n, r, err);
  if (!enc) return lth_error_status(err);
  lth_pieces pc;
  memset(&pc, 0, sizeof pc);
  lth_status st = lth_enclose_known(enc)
                      ? lth_pieces_find(enc, bp->t0, bp->t1, r, DBL_MAX, 0.0, 100000, &pc, err)
                      : LTH_OK;
  sh->lohi = st == LTH_OK && pc.npoint > 0 ? malloc(2 * pc.npoint * sizeof(double)) : NULL;
  if (st == LTH_OK && pc.npoint > 0 && !sh->lohi)
    st = lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (size_t k = 0; sh->lohi && k < pc.n; k++) {
    if (pc.kind[k] != LTH_PIECE_POINT) continue;
    sh->lohi[2 * sh->n] = pc.t[k];
    sh->lohi[2 * sh->n++ + 1] = pc.t[k + 1];
  }
  lth_pieces_release(&pc);
  lth_enclose_free(enc);
  return st;
}

/* t inside the window of a point, for cells of width h: the point's t, else NAN. */
static double shadowed(const fd_shadows *sh, double t, double h) {
  for (size_t k = 0; k < sh->n; k++) {
    double lo = sh->lohi[2 * k], hi = sh->lohi[2 * k + 1];
    if (t >= lo - h && t <= hi + (sh->r + 1) * h) return lo + 0.5 * (hi - lo);
  }
  return NAN;
}

/* max over the N/2-grid points i >= skip of |za - zb|, za on a grid `fa`
 * times finer than N/2 and zb `fb` times finer, outside the shadows. */
static double grid_diff(const double *za, size_t fa, const double *zb, size_t fb, size_t half,
                        size_t skip, int s, const lth_bvp_problem *bp, const fd_shadows *sh) {
  double d = 0.0, h2 = (bp->t1 - bp->t0) / (double)half;
  for (size_t i = skip; i <= half; i++) {
    if (sh->n > 0 && !isnan(shadowed(sh, bp->t0 + h2 * (double)i, h2))) continue;
    for (int k = 0; k < s; k++) {
      d = fmax(d, fabs(za[i * fa * (size_t)s + (size_t)k] - zb[i * fb * (size_t)s + (size_t)k]));
    }
  }
  return d;
}

/* Observed order from N/2, N, 2N intervals: log2(|z_{N/2} - z_N| / |z_N - z_2N|). */
static lth_status observe_order(const lth_bvp_problem *bp, const lth_ic *ic, size_t N,
                                const fd_shadows *sh, lth_bvp_result *res, fd_progress *pg,
                                lth_error *err) {
  double *z1 = NULL, *z2 = NULL, *z4 = NULL;
  lth_status st = fd_uniform(bp, ic, N / 2, &z1, pg, err);
  if (st == LTH_OK) st = fd_uniform(bp, ic, N, &z2, pg, err);
  if (st == LTH_OK) st = fd_uniform(bp, ic, 2 * N, &z4, pg, err);
  if (st == LTH_OK) {
    /* Implicit Euler on index r starts with an r-step layer whose errors do not
     * scale like h; it shrinks with h, so the order is measured beyond it. */
    size_t skip = (size_t)lth_system_index(bp->sys);
    skip = skip < N / 4 ? skip : 0;
    double e12 = grid_diff(z1, 1, z2, 2, N / 2, skip, bp->s, bp, sh);
    double e24 = grid_diff(z2, 2, z4, 4, N / 2, skip, bp->s, bp, sh);
    res->fd_order = e24 > 0 ? log2(e12 / e24) : NAN;
    /* the error of z_N is e24 2^q / (2^q - 1) for an observed order q; the
     * scheme's order is 1, so q is taken in [0.5, 1]: an order above 1 is
     * no asymptotic regime (cancellation, or a feature the N/2 grid sees
     * worse), and using it would shrink the factor towards 1 */
    double q = fmin(fmax(res->fd_order, 0.5), 1.0), f = pow(2, q) / (pow(2, q) - 1);
    res->fd_error = e24 * f;
    /* the start-up layer, reported on its own so it is not hidden: the N
     * solution's own first 2 skip steps against the 2N solution at the same
     * times (the N/2 grid would never sample the first step) */
    double elayer = 0.0;
    for (size_t i = 1; i <= 2 * skip && i <= N; i++) {
      for (int k = 0; k < bp->s; k++) {
        size_t a = i * (size_t)bp->s + (size_t)k, b = 2 * i * (size_t)bp->s + (size_t)k;
        elayer = fmax(elayer, fabs(z2[a] - z4[b]));
      }
    }
    res->fd_error_layer = elayer * f;
  }
  free(z1);
  free(z2);
  free(z4);
  return st;
}

/* Linear interpolation of the grid solution at t (first order, like the scheme). */
static void interpolate(const double *grid, size_t ng, const double *z, int s, double t,
                        double *out) {
  size_t j = 1;
  while (j + 1 < ng && grid[j] < t) j++;
  double h = grid[j] - grid[j - 1], a = h > 0 ? (t - grid[j - 1]) / h : 1.0;
  for (int i = 0; i < s; i++) {
    out[i] = (1 - a) * z[(j - 1) * (size_t)s + i] + a * z[j * (size_t)s + i];
  }
}

/* Finite differences see the data at the grid points only: a pulse narrower
 * than a cell falls between them, the solves on N/2, N and 2N intervals
 * agree, and the estimate says nothing (a pulse of width 1e-3 between the
 * points: error 100 % with a small estimate).  The data must be resolved on
 * every cell of the coarsest grid used by a cubic to FD_RESOLVE_TOL relative
 * (include/lth/enclose.h), or the method refuses naming where.  Kinks and
 * jumps (lib/colloc/pieces.h: POINT pieces) are left to the scheme, which
 * stays first order across them.  Data without enclosures: unchecked. */
static lth_status fd_resolved(const lth_bvp_problem *bp, double h, size_t N, lth_error *err) {
  LTH_ERROR_RECORD(err);
  lth_enclose *enc = lth_enclose_alloc(bp->sys, FD_RESOLVE_DEGREE, err);
  if (!enc) return lth_error_status(err);
  lth_pieces pc;
  memset(&pc, 0, sizeof pc);
  lth_status st = LTH_OK;
  if (lth_enclose_known(enc)) {
    st = lth_pieces_find(enc, bp->t0, bp->t1, FD_RESOLVE_DEGREE, FD_RESOLVE_TOL, h, 4 * N + 1000,
                         &pc, err);
  }
  if (st == LTH_OK && pc.nnarrow > 0) {
    size_t k = pc.first;
    double t = pc.t[k] + 0.5 * (pc.t[k + 1] - pc.t[k]);
    st =
        lth_error_set_t(err, LTH_ETOL, t,
                        "finite differences cannot resolve the data: %s varies on a scale "
                        "finer than the grid's cells (%.3g wide) at t, where the points would "
                        "not see it; use more opts.fd.points, or opts.method = LTH_BVP_COLLOCATION",
                        pc.what[0] ? pc.what : "the data", h);
  }
  lth_pieces_release(&pc);
  lth_enclose_free(enc);
  return st;
}

/* The grid stays uniform: inserting the output times would create abrupt step
 * changes, which spoil implicit Euler's algebraic components from index 3 on
 * (measured: error 5e-3 -> 0.16 on an index-3 test problem). */
lth_status lth_bvp_fd(const lth_bvp_problem *bp, const lth_bvp_opts *o, lth_bvp_result *res,
                      lth_error *err) {
  LTH_ERROR_RECORD(err);
  size_t N = (o->fd.points > 2 ? o->fd.points : LTH_DEFAULT_FD_POINTS) - 1;
  N += N % 2; /* even, so the N/2 grid nests */
  int s = bp->s;
  double *grid = NULL, *z = NULL;
  size_t ng = 0;
  fd_progress pg = {o, 0, o->fd.order_check ? N + N / 2 + N + 2 * N : N};
  lth_ic *ic = lth_ic_alloc(bp->sys, err);
  lth_status st = ic ? LTH_OK : (lth_error_status(err));
  if (st == LTH_OK && o->cond_max > 0) lth_ic_set_cond_max(ic, o->cond_max);
  if (st == LTH_OK) {
    st = fd_resolved(bp, (bp->t1 - bp->t0) / (double)(o->fd.order_check ? N / 2 : N), N, err);
  }
  fd_shadows sh = {0, NULL, 0};
  if (st == LTH_OK) st = shadows_find(bp, &sh, err);
  for (size_t k = 0; st == LTH_OK && sh.n > 0 && k < bp->n; k++) {
    double c = shadowed(&sh, bp->times[k], (bp->t1 - bp->t0) / (double)N);
    if (!isnan(c)) {
      st = lth_error_set_t(
          err, LTH_ETOL, bp->times[k],
          "finite differences cannot answer at this output time: it lies within "
          "%d grid steps of t = %.17g, where the constraints' data are not smooth "
          "and implicit Euler's algebraic components carry an error of the size "
          "of their jump; use opts.method = LTH_BVP_COLLOCATION, or output times away from it",
          sh.r + 1, c);
    }
  }
  if (st == LTH_OK) st = lth_ic_setup(ic, bp->t0, err); /* M0, b0 at t0 */
  if (st == LTH_OK) st = make_grid(bp, N, NULL, 0, &grid, &ng, err);
  if (st == LTH_OK) {
    z = malloc(ng * (size_t)s * sizeof(double));
    st = z ? fd_solve_grid(bp, ic, grid, ng, z, &res->cond_shooting, &res->cond_bvp, &pg, err)
           : lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  if (st == LTH_OK && !(res->cond_bvp <= lth_bvp_cond_max(o))) {
    st = lth_bvp_ill_posed(res->cond_bvp, lth_bvp_cond_max(o), "finite differences", "", err);
  }
  if (st == LTH_OK) {
    for (size_t k = 0; k < bp->n; k++) {
      interpolate(grid, ng, z, s, bp->times[k], res->z + k * (size_t)s);
    }
    res->bc_residual = lth_bvp_bc_residual(bp, z, z + (ng - 1) * (size_t)s);
    res->fd_points = ng;
    if (o->fd.order_check) st = observe_order(bp, ic, N, &sh, res, &pg, err);
  }
  free(sh.lohi);
  lth_ic_free(ic);
  free(grid);
  free(z);
  return st;
}
