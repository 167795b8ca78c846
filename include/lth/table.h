/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Coefficient tables: decompose once, evaluate many times.
 *
 * A table holds the decomposition's outputs Ahat, g, P (and, optionally, the
 * output maps Bhat, q, G) on [t_lo, t_hi] as piecewise Chebyshev interpolants:
 * the interval is cut into panels, and on each panel every entry is the
 * polynomial through its values at Chebyshev-Lobatto points (degree 8, 16, 32
 * or 64; the points of one degree are among those of the next, so raising the
 * degree reuses every decomposition).  Panels are chosen adaptively, left to
 * right: a panel is accepted when the trailing Chebyshev coefficients of every
 * entry are below tol / 8 relative to max(1, max |F|) of its field F on the
 * panel; the next panel's width is predicted from the degree this one needed.
 * An evaluation costs one Clenshaw sum per entry (no decomposition).
 *
 * Exactness: the interpolants reproduce the decomposition to the estimated
 * error (lth_table_info.err_est, relative as above); Ahat and Bhat are
 * tabulated as the decomposition computes them, one convention throughout, so
 * Ahat (I - P) and Bhat (I - P) are interpolated consistently.
 *
 * Refusals (never interpolated across):
 *  - det Pi changes sign between two nodes (lth_point.pi_sign): Pi is singular
 *    in between; the zero is located by bisection and reported as LTH_ESING
 *    (or LTH_ECOND from the decomposition near it), naming t and cond_chain;
 *  - a node's chain condition above cond_max: LTH_ECOND from the decomposition;
 *  - no convergence down to the minimum panel width while the chain condition
 *    grows (Pi nearly singular, det Pi touching zero): LTH_ECOND naming t,
 *    the interpolation error estimate and cond_chain.
 * Data that are merely not smooth (a kink, noise above rounding) do not make
 * a table fail: the panel around them is marked direct (evaluations there need
 * a decomposition workspace, see lth_table_eval) and counted in the info.
 * Where four panels in a row are given up that way (noise everywhere above
 * what the tolerance allows, e.g. a large decomposition's own rounding against
 * a tolerance near eps), the rest of the span is one direct panel: the table
 * never chases a tolerance its data cannot reach.
 *
 * Building is lazy and left to right (lth_table_build covers [t_lo, t]), and
 * parallel over the nodes of each panel and over stretches of panels (lth's
 * own threads, docs/library.md "Threads"; one decomposition workspace per
 * thread).  A fully built table is read-only: lth_table_eval may then be called from several
 * threads at once (each with its own lth_point and workspace) -- e.g. by a collocation BVP solver,
 * which builds the table over [t0, t1] once and evaluates at its collocation points.
 */
#ifndef LTH_TABLE_H
#define LTH_TABLE_H

#include <stddef.h>

#include "lth/decomp.h"
#include "lth/status.h"
#include "lth/system.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lth_table_opts {
  double tol;         /* interpolation error per panel, relative to max(1, max |F|) per
                         field (default LTH_DEFAULT_TABLE_TOL = 1e-12; at least 1e-15) */
  int deriv;          /* 1: also d/dt of Ahat, g and P (order-1 evaluations) */
  int outputs;        /* 1 (default): also Bhat, q, G; 0: only Ahat, g, P */
  int threads;        /* threads (0: lth's default, LTH_NUM_THREADS, else the CPUs; 1: serial) */
  double cond_max;    /* chain condition above this is an error (0: LTH_DEFAULT_COND_MAX) */
  double min_width;   /* smallest panel before giving up (0: 1e-10 of the span) */
  int target_degree;  /* degree the width control aims at (0: LTH_DEFAULT_TABLE_DEGREE) */
  int jet_order;      /* derivatives per node: 0 values only (Chebyshev), 1 values and first
                         derivatives (Chebyshev-Hermite), 2; -1: LTH_DEFAULT_TABLE_JET (1) */
  size_t max_bytes;   /* memory for everything the table allocates: its work arrays, a
                         decomposition workspace per thread and the coefficients (0:
                         LTH_DEFAULT_TABLE_MAX_BYTES, 1 GiB).  Checked before allocating:
                         lth_table_alloc fails with LTH_ENOMEM when the work arrays alone
                         do not fit (they grow like s^2: see lth_table_info.work_bytes), a
                         build when the coefficients would not */
  double chain_scale; /* scale of cond_interval (lth_decomp_ws_alloc_scaled; 0: computed once
                         by lth_table_alloc, a scan of the system's interval) */
} lth_table_opts;

void lth_table_opts_init(lth_table_opts *opts);

typedef struct lth_table lth_table;

/* A table for sys over [t_lo, t_hi] (t_lo < t_hi); nothing is built yet. */
lth_table *lth_table_alloc(const lth_system *sys, double t_lo, double t_hi,
                           const lth_table_opts *opts, lth_error *err);
void lth_table_free(lth_table *tab);

/* Build panels until [t_lo, min(t, t_hi)] is covered (t >= t_hi: the whole
 * table).  Errors name t (see the refusals above); the panels built before a
 * failure stay usable. */
lth_status lth_table_build(lth_table *tab, double t, lth_error *err);
/* Upper end of the covered part (t_lo before any panel). */
double lth_table_covered(const lth_table *tab);

/* Ahat, g, P at t (coefficients 0..order, order <= opts.deriv) and, with
 * outputs = 1 (needs opts.outputs), Bhat, q, G (order 0), into pt (allocated
 * for the table's system with order >= order).  pt->cond_pi, cond_chain and
 * pi_sign are the panel's largest condition estimates and its sign of det Pi.
 * t must lie in the covered part.  On a direct panel, and with outputs = 1
 * on a panel built without the output maps (internal callers may leave them
 * out where few output times fall), the decomposition is computed with ws (a
 * workspace of output order >= order; NULL there is LTH_ERANGE).  Thread-safe when every caller has
 * its own pt and ws. */
lth_status lth_table_eval(const lth_table *tab, double t, int order, int outputs, lth_point *pt,
                          lth_decomp_ws *ws, lth_error *err);

/* lth_table_eval with a panel hint: *hint (the caller's; 0 to begin with) is
 * the panel of its last evaluation, tried first and updated -- an integrator
 * asks for nearby times one after another, and the panel is then found
 * without a search. */
lth_status lth_table_eval_hint(const lth_table *tab, double t, int order, int outputs,
                               lth_point *pt, lth_decomp_ws *ws, size_t *hint, lth_error *err);

/* The right-hand side of v' = (Ahat + w P) v + g at t in one pass (order 0):
 * pt->Ahat receives the interpolant of Ahat + w P (the two series combined
 * coefficient by coefficient, then summed: one Clenshaw sum per entry, not
 * two), pt->g g; pt->P is not evaluated (its order is set to -1).  pt->t and
 * the condition estimates as lth_table_eval.  LTH_ERANGE where t is not on a
 * tabulated panel (outside the covered part, or on a direct panel: the
 * caller decomposes there) or where pt's jets are not contiguous (ld = rows,
 * as lth_point_alloc makes them).  hint as lth_table_eval_hint (may be NULL). */
lth_status lth_table_eval_rhs(const lth_table *tab, double t, double w, lth_point *pt, size_t *hint,
                              lth_error *err);

/* The end b of the panel holding t where that panel is tabulated and the
 * right-hand side's fields (Ahat, g, P) are polynomials of degree at most
 * `degree` on it: every lth_table_eval_rhs on [t, b] sums one series of
 * that degree or less.  t itself where the panel is a direct one, has a
 * higher degree, or t is not covered (or is the covered part's end).  An
 * integrator that needs the data resolved at `degree` over a stretch
 * (lib/ivp) has that on [t, b] exactly, for the polynomials it integrates;
 * how far they are from the data is the table's tolerance, which its panel
 * checks bound (docs/enclosures.md).  One panel only: the next may be
 * narrow, holding a pulse that a step reaching across would skip. */
double lth_table_panel_end(const lth_table *tab, double t, int degree);

/* How many lth_table_eval calls with outputs = 1 per unit t the caller
 * expects (0: none, INFINITY: everywhere, the default; negative counts as 0):
 * a panel built after the call tabulates Bhat, q and G only where about
 * sixteen such evaluations fall on it, and leaves them to direct
 * decomposition elsewhere (lth_table_eval then needs a workspace there).
 * No effect on a table allocated with opts.outputs = 0. */
void lth_table_set_output_density(lth_table *tab, double per_unit_t);

typedef struct lth_table_info {
  double t_lo, t_hi, covered;
  size_t panels;        /* accepted panels (direct ones included) */
  size_t direct_panels; /* panels left to direct decomposition (data not smooth) */
  size_t nodes;         /* decompositions kept in accepted panels */
  size_t decomps;       /* all decompositions, rejected panel attempts and bisections too */
  size_t bytes;         /* memory of the coefficients */
  size_t work_bytes;    /* memory of the work arrays and of the workspaces of the threads
                           it may use (counted in max_bytes with bytes) */
  int max_degree;       /* highest degree kept on a panel */
  double err_est;       /* largest estimated interpolation error (relative) */
  double cond_chain;    /* largest chain condition at a node */
  double seconds;       /* wall time spent building */
  int threads;          /* threads used */
} lth_table_info;

void lth_table_info_get(const lth_table *tab, lth_table_info *info);

#ifdef __cplusplus
}
#endif
#endif
