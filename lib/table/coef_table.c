/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Building the coefficient table (include/lth/table.h): panels left to right,
 * each tried at degree 8, 16, 32, 64 on nested Chebyshev-Lobatto points (the
 * decompositions of one degree are reused by the next), the nodes of a degree
 * decomposed in parallel (a thread pool, one workspace per thread).  A panel that
 * does not converge at degree 64, or whose coefficients predict a degree far
 * beyond 64, is retried narrower; the width of the next panel is predicted
 * from the degree the last one needed.  The node at a panel's right end is the
 * next panel's left node, so the sign of det Pi is followed across the whole
 * table. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "coef_table_impl.h"
#include "table_budget.h"

#define TAB_SERIAL_SECONDS 2e-3
/* below this fraction of the span a panel is left to direct decomposition */
#define TAB_DIRECT_WIDTH 1e-6
/* cond_chain growing by this factor inside a panel that will not converge:
 * Pi is becoming singular, not the data rough. */
#define TAB_COND_GROWTH 1e3

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- nodes ---- */

/* Node J of the degree-64 grid on [a, b]: the double t nearest to it, and
 * *dt = (exact node) - t.  Far from 0 the rounding of t (|t| eps) is larger
 * than what the table must resolve (at t ~ 1000 a data function of unit slope
 * is off by 1e-13 at the rounded node), so with jets the data are moved back
 * to the exact node: f(t + dt) = f(t) + f'(t) dt.  The product and the sum are
 * split exactly (fma, two-sum), leaving only the rounding of the sine. */
static double node_time(double a, double b, int J, double *dt) {
  double th = 3.14159265358979323846 * J / (2.0 * TAB_NMAX), w = b - a; /* w exact (Sterbenz) */
  *dt = 0.0;
  if (J == 0 || J == TAB_NMAX) {
    return J == 0 ? a : b;
  }
  double base = J <= TAB_NMAX / 2 ? a : b, sgn = J <= TAB_NMAX / 2 ? 1.0 : -1.0;
  double sn = J <= TAB_NMAX / 2 ? sin(th) : cos(th);
  double f = sgn * sn * sn;
  double p = w * f, ep = fma(w, f, -p); /* w f = p + ep exactly */
  double t = base + p, bb = t - base;   /* two-sum: base + p = t + et */
  double et = (base - (t - bb)) + (p - bb);
  *dt = et + ep;
  return t;
}

/* Taylor coefficients 0..o of every tabulated field into the node's columns. */
static void gather(const lth_table *tab, const lth_point *pt, double *v) {
  const lth_jet *list[TAB_NFIELDS] = {&pt->Ahat, &pt->g, &pt->P, &pt->Bhat, &pt->q, &pt->G};
  for (int d = 0; d <= tab->lay.jet; d++) {
    double *vd = v + (size_t)d * tab->lay.E;
    for (int f = 0; f < tab->lay.nfields; f++) {
      const tab_field *F = &tab->lay.fld[f];
      for (int j = 0; j < F->cols; j++) {
        memcpy(vd + F->off + (size_t)j * F->rows,
               LTH_JET_COEF(list[f], d) + (size_t)j * list[f]->ld,
               (size_t)F->rows * sizeof(double));
      }
    }
  }
}

static void compute_node(lth_table *tab, int tid, double a, double b, int J) {
  tab_node *nd = &tab->cur.node[J];
  lth_point *pt = tab->thr.pt[tid];
  lth_error *nerr = &tab->cur.node_err[J];
  lth_error_clear(nerr);
  double dt, t = node_time(a, b, J, &dt);
  nd->st = lth_decomp_at(tab->thr.ws[tid], t, pt, nerr);
  if (nd->st == LTH_OK) {
    double *v = tab->cur.V + (size_t)J * (tab->lay.jet + 1) * tab->lay.E;
    gather(tab, pt, v);
    if (tab->lay.jet >= 1 && dt != 0.0) {
      for (int e = 0; e < tab->lay.E; e++) v[e] += v[tab->lay.E + e] * dt;
    }
    nd->pi_sign = pt->pi_sign;
    nd->cond_pi = pt->cond_pi;
    nd->cond_chain = pt->cond_chain;
  }
  nd->done = 1;
}

/* Claim a published node (board locked): 1 and its index and panel, or 0. */
static int claim(tab_threads *th, int *J, double *a, double *b) {
  if (th->job_next >= th->job_cnt) {
    return 0;
  }
  *J = th->todo[th->job_next++];
  *a = th->job_a;
  *b = th->job_b;
  return 1;
}

/* A pool task: nodes of the published level while there are any. */
static void node_task(void *vp) {
  tab_task *tk = vp;
  lth_table *tab = tk->tab;
  tab_threads *th = &tab->thr;
  int J;
  double a, b;
  pthread_mutex_lock(&th->mu);
  while (claim(th, &J, &a, &b)) {
    pthread_mutex_unlock(&th->mu);
    compute_node(tab, tk->tid, a, b, J);
    pthread_mutex_lock(&th->mu);
    th->job_done++;
    if (th->main_waits) pthread_cond_signal(&th->done_cv);
  }
  pthread_mutex_unlock(&th->mu);
}

/* The pool, made at the first parallel step (nthreads - 1 threads, started as
 * tasks come); 0 if the build must stay serial. */
int tab_pool_ready(lth_table *tab) {
  tab_threads *th = &tab->thr;
  if (!th->pool && th->nthreads > 1 && !lth_threads_nested()) {
    th->pool = lth_pool_alloc(th->nthreads - 1);
  }
  return th->pool != NULL;
}

/* Decompose the nodes of degree n not done yet: publish them, hand shares to
 * the pool, take a share, wait only for nodes a task is still computing. */
static void compute_level(lth_table *tab, double a, double b, int n) {
  tab_threads *th = &tab->thr;
  int s = TAB_NMAX / n, cnt = 0;
  pthread_mutex_lock(&th->mu);
  for (int j = 0; j <= n; j++) {
    if (!tab->cur.node[j * s].done) th->todo[cnt++] = j * s;
  }
  th->job_cnt = cnt;
  th->job_next = 0;
  th->job_done = 0;
  th->job_a = a;
  th->job_b = b;
  pthread_mutex_unlock(&th->mu);
  /* (while stretches run, each thread builds its own and the pool is theirs) */
  int tasks = th->board && !tab->bld.splitting ? th->nthreads - 1 : 0;
  tasks = tasks < cnt - 1 ? tasks : cnt - 1;
  for (int k = 1; k <= tasks; k++) {
    if (lth_pool_submit(th->pool, node_task, &th->tasks[k]) != 0) break;
  }
  pthread_mutex_lock(&th->mu);
  for (;;) {
    int J;
    double ja, jb;
    if (claim(th, &J, &ja, &jb)) {
      pthread_mutex_unlock(&th->mu);
      compute_node(tab, 0, ja, jb, J);
      pthread_mutex_lock(&th->mu);
      th->job_done++;
    } else if (th->job_done >= cnt) {
      break;
    } else {
      /* a task is finishing a node: sleep until it has (spinning here
       * would burn the CPU time the task's node saved) */
      th->main_waits = 1;
      pthread_cond_wait(&th->done_cv, &th->mu);
      th->main_waits = 0;
    }
  }
  th->job_cnt = 0;
  pthread_mutex_unlock(&th->mu);
  if (tasks > 0) {
    lth_pool_wait(th->pool); /* tasks not started yet find the board empty */
  }
  tab->stats.decomps += (size_t)cnt;
}

/* Pi is singular between ta and tb (det Pi has signs sa, -sa there): bisect
 * with decompositions until one refuses (it names t and the condition) or the
 * interval is at rounding level. */
static lth_status locate_sign_change(lth_table *tab, double ta, double tb, int sa, lth_error *err) {
  lth_point *pt = tab->thr.pt[0];
  double cond = NAN;
  for (int it = 0; it < 200; it++) {
    double tm = 0.5 * (ta + tb);
    if (tm <= ta || tm >= tb) {
      break;
    }
    lth_status st = lth_decomp_at(tab->thr.ws[0], tm, pt, err);
    tab->stats.decomps++;
    if (st != LTH_OK) {
      return st;
    }
    cond = pt->cond_chain;
    if (pt->pi_sign == sa)
      ta = tm;
    else
      tb = tm;
  }
  lth_status st = lth_error_set_t(err, LTH_ESING, 0.5 * (ta + tb),
                                  "det Pi changes sign between t = %.17g and t = %.17g "
                                  "(chain condition %.3e there): Pi is singular in between, "
                                  "the coefficients cannot be tabulated across",
                                  ta, tb, cond);
  if (err && isfinite(cond)) {
    err->has_cond = 1;
    err->cond = cond;
  }
  return st;
}

/* The nodes of degree n in time order: the first failure, or a change of the
 * sign of det Pi between neighbours (also across the panel's left end). */
static lth_status scan_level(lth_table *tab, double a, double b, int n, lth_error *err) {
  int s = TAB_NMAX / n;
  for (int j = 0; j <= n; j++) {
    const tab_node *nd = &tab->cur.node[j * s];
    if (nd->st != LTH_OK) {
      if (err) *err = tab->cur.node_err[j * s];
      return nd->st;
    }
    if (j > 0 && nd->pi_sign != tab->cur.node[(j - 1) * s].pi_sign) {
      double d0, d1;
      return locate_sign_change(tab, node_time(a, b, (j - 1) * s, &d0), node_time(a, b, j * s, &d1),
                                tab->cur.node[(j - 1) * s].pi_sign, err);
    }
  }
  return LTH_OK;
}

/* ---- panels ---- */

static void panel_conditions(lth_table *tab, int n, tab_panel *p) {
  int s = TAB_NMAX / n;
  p->pi_sign = tab->cur.node[0].pi_sign;
  for (int j = 0; j <= n; j++) {
    p->cond_pi = fmax(p->cond_pi, tab->cur.node[j * s].cond_pi);
    p->cond_chain = fmax(p->cond_chain, tab->cur.node[j * s].cond_chain);
  }
  tab->stats.cond_chain = fmax(tab->stats.cond_chain, p->cond_chain);
}

static double clamp(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* Accept [a, b] at degree n: store, carry the right node over as the next left node. */
static lth_status accept(lth_table *tab, double a, double b, int n, const tab_verdict *v,
                         lth_error *err) {
  lth_status st = tab_store(tab, a, b, v, err);
  if (st != LTH_OK) {
    return st;
  }
  panel_conditions(tab, n, &tab->store.panels[tab->store.np - 1]);
  tab->stats.nodes += (size_t)n;
  double w = b - a, target = tab->o.target_degree;
  tab->bld.w_ref = w;
  tab->bld.given_up = 0;
  /* the next width from the degree this panel needed (the coefficients of
   * data analytic near the panel decay at a rate that scales with the width);
   * a noise-limited panel says nothing about the width, and its noise does
   * not shrink with it: try a wider one (keeping the width crawled at 1e-10
   * of the span towards a pole of Pi^-1 just outside the interval, where
   * rounding in the large coefficients made every panel noise-limited) */
  tab->bld.w_next = w * (v->noise ? 2.0 : clamp(target / fmax(v->reach, 1.0), 0.5, 2.0));
  tab->bld.w_next = fmax(tab->bld.w_next, tab->o.min_width);
  /* noise sets the floor below which the next panels' coefficients count as
   * zero; it decays panel by panel, back to the requested tolerance */
  tab->bld.noise_floor = v->noise ? v->noise_level : 0.9 * tab->bld.noise_floor;
  if (v->noise) {
    tab->bld.noise_seen = fmax(tab->bld.noise_seen, v->noise_level);
  }
  size_t blk = (size_t)(tab->lay.jet + 1) * tab->lay.E;
  memcpy(tab->cur.V, tab->cur.V + (size_t)TAB_NMAX * blk, blk * sizeof(double));
  tab_node_copy(tab, 0, tab, TAB_NMAX);
  tab->bld.covered = b;
  return LTH_OK;
}

/* [a, t_hi] is left to direct decomposition (see build_panel). */
static lth_status direct_rest(lth_table *tab, double a, lth_error *err) {
  lth_error_clear(err);
  lth_status st = tab_store_direct(tab, a, tab->lay.t_hi, err);
  if (st == LTH_OK) {
    tab->bld.covered = tab->lay.t_hi;
  }
  return st;
}

/* Panels given up one after another, none tabulated between them, after
 * which the rest of the span is left to direct decomposition.  A kink or a
 * jump costs one given-up panel, the data beside it converge.  Noise above
 * what tab_judge accepts (max(1e-12, 100 tol)) -- the decomposition's own
 * rounding against a tolerance near eps (a large system: the index-3 chain
 * at s = 2003 against 1e-11), or noisy data -- is everywhere: no panel,
 * however narrow, gets below it, and the builder narrowed every panel down to
 * TAB_DIRECT_WIDTH of the span, gave it up and began again beside it (data
 * with noise 1e-6 at tol 1e-12 did not end in 5 minutes,
 * test_noise_above_tolerance_left_direct).  Data that narrowing can resolve
 * (an under-resolved wiggle) never get that far. */
#define TAB_GIVE_UP_RUN 4

/* The data are not smooth enough on [a, b] (a kink, noise above rounding):
 * leave it to direct decomposition. */
static lth_status give_up_panel(lth_table *tab, double a, double b, lth_error *err) {
  if (++tab->bld.given_up >= TAB_GIVE_UP_RUN) {
    tab->stats.stalled++;
    return direct_rest(tab, a, err);
  }
  lth_status st = tab_store_direct(tab, a, b, err);
  if (st != LTH_OK) {
    return st;
  }
  tab->bld.w_next = tab->bld.w_ref > 0 ? tab->bld.w_ref : 2 * (b - a);
  tab->bld.covered = b;
  tab->bld.left_sign = tab->cur.node[0].pi_sign;
  tab->bld.left_known = 0;
  return LTH_OK;
}

static lth_status refuse(lth_table *tab, double a, double b, int n, const tab_verdict *v,
                         lth_error *err) {
  tab_panel tmp;
  memset(&tmp, 0, sizeof tmp);
  panel_conditions(tab, n, &tmp);
  lth_status st =
      lth_error_set_t(err, LTH_ECOND, a,
                      "the coefficients do not converge on [%.17g, %.17g] (width "
                      "%.3e, interpolation error estimate %.3e) while Pi's chain "
                      "condition grows from %.3e to %.3e: Pi is nearly singular "
                      "near t = %.17g",
                      a, b, b - a, v->tail, tab->cur.node[0].cond_chain, tmp.cond_chain, a);
  if (err) {
    err->has_cond = 1;
    err->cond = tmp.cond_chain;
  }
  return st;
}

/* Tail beside a noise candidate, relative to its plateau, above which the
 * plateau counts as noise (plateau_beside). */
#define TAB_BESIDE_RATIO 0.02

/* Data constant on [a, b] (lth_enclose_constant: every entry's derivative
 * enclosed by exactly {0}) decompose to the same numbers at every node: the
 * nodes of degree n are the left node's, each moved to its exact time as
 * compute_node does (v += v' dt, v' the left node's own), so the panel is
 * bitwise the one its decompositions would give.  1 when done. */
static int constant_nodes(lth_table *tab, double a, double b, int n) {
  const tab_node *left = &tab->cur.node[0];
  if (!left->done || left->st != LTH_OK || !tab->bld.enc ||
      !lth_enclose_constant(tab->bld.enc, a, b)) {
    return 0;
  }
  size_t E = (size_t)tab->lay.E, blk = (size_t)(tab->lay.jet + 1) * E;
  int s = TAB_NMAX / n;
  for (int j = 1; j <= n; j++) {
    double dt, *v = tab->cur.V + (size_t)(j * s) * blk;
    node_time(a, b, j * s, &dt);
    memcpy(v, tab->cur.V, blk * sizeof(double));
    if (tab->lay.jet >= 1 && dt != 0.0) {
      for (size_t e = 0; e < E; e++) v[e] += v[E + e] * dt;
    }
    tab->cur.node[j * s] = *left;
  }
  tab->stats.const_panels++;
  return 1;
}

/* One attempt at [a, a + w]: degrees 8 .. 64 until converged.  *done = 1 when
 * the panel converged (and, with store, was accepted); otherwise *v and *n
 * describe the last degree tried. */
static lth_status attempt(lth_table *tab, double a, double b, int *done, tab_verdict *v, int *n,
                          int store, lth_error *err) {
  *done = 0;
  for (int j = 1; j <= TAB_NMAX; j++) tab->cur.node[j].done = 0;
  tab->cur.outs_now = tab->o.outputs && tab->bld.out_density * (b - a) >= TAB_OUT_PER_PANEL;
  tab->cur.rows_now = tab->cur.outs_now ? tab->lay.E : tab->lay.E_rhs;
  int dmax = tab_dmax(tab);
  for (int lev = 0; lev < TAB_LEVELS; lev++) {
    *n = tab->lay.nmin << lev;
    if (lev > 0 || !constant_nodes(tab, a, b, *n)) {
      compute_level(tab, a, b, *n);
    }
    lth_status st = scan_level(tab, a, b, *n, err);
    if (st != LTH_OK) {
      return st;
    }
    tab_transform(tab, *n, b - a);
    tab_magnitudes(tab, *n);
    *v = tab_judge(tab, tab_degree(tab, *n));
    if (v->converged) {
      *done = 1;
      return store ? accept(tab, a, b, *n, v, err) : LTH_OK;
    }
    /* hopeless at this width: narrow it now (judged once the degree is near
     * the target, or when the coefficients do not decay at all) */
    int D = tab_degree(tab, *n);
    if ((D >= tab->o.target_degree && v->need > 1.25 * dmax) || (D >= 16 && !isfinite(v->need))) {
      break;
    }
  }
  return LTH_OK;
}

/* The left node of the next panel, with the sign check across a direct panel. */
static lth_status left_node(lth_table *tab, lth_error *err) {
  double a = tab->bld.covered;
  compute_node(tab, 0, a, a, 0);
  tab->stats.decomps++;
  tab_node *nd = &tab->cur.node[0];
  if (nd->st != LTH_OK) {
    if (err) *err = tab->cur.node_err[0];
    return nd->st;
  }
  if (tab->store.np > 0 && nd->pi_sign != tab->bld.left_sign) {
    const tab_panel *p = &tab->store.panels[tab->store.np - 1];
    return locate_sign_change(tab, p->a, a, tab->bld.left_sign, err);
  }
  tab->bld.left_known = 1;
  return LTH_OK;
}

/* Noise is everywhere, a kink is local.  A kink that stays in the left half
 * when a noise candidate [a, b] is halved keeps a plateau much like noise
 * (test_kink_left_to_direct_panels: tails 7.1e-11 -> 6.2e-11), so before
 * narrowing alone confirms noise the next stretch of the same width is
 * tried: noise leaves a tail of its own there (measured 0.1 .. 0.6 of the
 * candidate's, converged or not: noise near the tolerance comes and goes),
 * smooth data next to a kink converge to rounding (1e-16 against 1e-11).
 * 1: a comparable tail beside [a, b] (or no room to look).  Leaves every node
 * to be computed again. */
static int plateau_beside(lth_table *tab, double a, double b, double tail) {
  double c = fmin(b + (b - a), tab->lay.t_hi);
  if (!(c - b >= 0.5 * (b - a))) {
    return 1;
  }
  for (int j = 0; j <= TAB_NMAX; j++) tab->cur.node[j].done = 0;
  int done = 0, n = tab->lay.nmin;
  tab_verdict v;
  lth_error e;
  lth_error_clear(&e);
  lth_status st = attempt(tab, b, c, &done, &v, &n, 0, &e);
  for (int j = 0; j <= TAB_NMAX; j++) tab->cur.node[j].done = 0;
  return st == LTH_OK && v.tail >= TAB_BESIDE_RATIO * tail;
}

/* The data's enclosures cap the panel: a width on which the data are not
 * resolved by the highest degree to tol could hide a pulse, a kink or a jump
 * between all the nodes of every level (a pulse of width 0.005 was missed by
 * the 66 nodes of [0, 1]: y = 2e-46 for 0.0088).  A stretch of up to
 * TAB_ENC_AHEAD panels is verified at once and remembered ([enc_lo,
 * enc_hi]); where the data are not resolved the width shrinks until they are,
 * down to the width below which panels are left direct anyway.  Data without
 * an enclosure (callbacks, samples) are judged by the nodes alone, as
 * before. */
#define TAB_ENC_AHEAD 8.0
#define TAB_ENC_GROW  1.25
static lth_status enclosure_cap(lth_table *tab, double a, double *w, lth_error *err) {
  double floor = fmax(tab->o.min_width, TAB_DIRECT_WIDTH * tab->lay.span);
  /* (a + *w may round past t_hi on the last panel; enc_hi = t_hi covers it
   * only while t_hi is the end it was verified to: a stretch's build lowers
   * t_hi for a while, and a later, higher end is not verified) */
  int to_end = tab->bld.enc_hi >= tab->lay.t_hi && a + *w >= tab->lay.t_hi;
  if ((a >= tab->bld.enc_lo && (a + *w <= tab->bld.enc_hi || to_end)) || *w <= floor ||
      !lth_enclose_known(tab->bld.enc)) {
    return LTH_OK;
  }
  /* one check ahead; if that fails, the panel's own width, shrunk as needed.
   * Right after a panel the enclosures cut, the data are about as hard, so
   * the check ahead is skipped and the search starts at TAB_ENC_GROW times
   * that width (a search that starts far above the width it finds pays for
   * failed checks at high degrees, panel after panel) */
  double ahead = fmin(TAB_ENC_AHEAD * *w, tab->lay.t_hi - a), w2, start = fmin(*w, ahead);
  int res = 0, D = tab_dmax(tab);
  lth_status st = LTH_OK;
  if (tab->bld.enc_cut > 0) {
    start = fmin(start, TAB_ENC_GROW * tab->bld.enc_cut);
  } else {
    st = lth_enclose_width(tab->bld.enc, a, ahead, ahead, D, tab->o.tol, &w2, &res, err);
  }
  if (st == LTH_OK && res != 1) {
    st = lth_enclose_width(tab->bld.enc, a, start, fmin(floor, start), D, tab->o.tol, &w2, &res,
                           err);
  }
  if (st != LTH_OK) {
    return st;
  }
  tab->bld.enc_lo = a;
  tab->bld.enc_hi = res == 1 ? fmin(a + w2, tab->lay.t_hi) : a;
  tab->bld.enc_cut = w2 < *w ? w2 : 0.0;
  tab->stats.enc_capped += w2 < *w;
  *w = fmin(*w, w2);
  return LTH_OK;
}

lth_status tab_build_panel(lth_table *tab, lth_error *err) {
  double a = tab->bld.covered, rest = tab->lay.t_hi - a;
  double w = tab->bld.w_next > 0 ? fmin(tab->bld.w_next, rest) : rest;
  lth_status st = tab->bld.left_known ? LTH_OK : left_node(tab, err);
  if (st == LTH_ECOND && tab->store.np > 0 && tab->store.panels[tab->store.np - 1].direct) {
    /* past a stretch left to direct decomposition the next node is refused */
    return direct_rest(tab, a, err);
  }
  double probe = 0.0; /* flat tail seen at twice this width (candidate noise) */
  while (st == LTH_OK) {
    if (rest - w < 0.25 * w) {
      w = rest; /* no sliver at the end */
    }
    if ((st = enclosure_cap(tab, a, &w, err)) != LTH_OK) {
      break;
    }
    double b = w >= rest ? tab->lay.t_hi : a + w;
    int done = 0, n = tab->lay.nmin;
    tab_verdict v;
    st = attempt(tab, a, b, &done, &v, &n, 1, err);
    if (st != LTH_OK || done) {
      return st;
    }
    /* noise: at a level already confirmed as noise on an earlier panel, or
     * narrowing did not lower the plateau and it is beside the panel too */
    if (v.noise && v.noise_level <= 2 * tab->bld.noise_seen) {
      return accept(tab, a, b, n, &v, err);
    }
    if (v.noise && probe > 0 && v.tail >= 0.75 * probe && plateau_beside(tab, a, b, v.tail)) {
      st = attempt(tab, a, b, &done, &v, &n, 1, err); /* (the nodes again) */
      return st != LTH_OK || done ? st : accept(tab, a, b, n, &v, err);
    }
    tab_panel tmp;
    memset(&tmp, 0, sizeof tmp);
    panel_conditions(tab, n, &tmp);
    int growth = tmp.cond_chain > TAB_COND_GROWTH * tab->cur.node[0].cond_chain;
    if (w <= tab->o.min_width) {
      return growth ? refuse(tab, a, b, n, &v, err) : give_up_panel(tab, a, b, err);
    }
    /* panels this narrow cost more than the decompositions they save: where
     * the coefficients vary this fast (a pole of Pi^-1 just outside the
     * interval, a nearly singular Pi) the stretch is left to direct
     * decomposition, whose every point the integrator's guard judges
     * (lib/ivp/ivp_guard.c).  Before, the builder crawled on at 1e-10 of the span. */
    if (w <= TAB_DIRECT_WIDTH * tab->lay.span) {
      return give_up_panel(tab, a, b, err);
    }
    if (!growth && tab->bld.w_ref > 0 && w <= tab->bld.w_ref / 64) {
      return give_up_panel(tab, a, b, err);
    }
    double f = isfinite(v.need) ? clamp(tab->o.target_degree / v.need, 0.125, 0.5) : 0.125;
    probe = v.noise ? v.tail : 0.0;
    w = fmax(w * (v.noise ? 0.5 : f), tab->o.min_width);
  }
  return st;
}

/* Panels until goal is covered.  The job board is used once the building has
 * cost TAB_SERIAL_SECONDS (t0: when this call began): small tables, short runs
 * and sweeps over many small files never start a thread; on an lth thread or
 * inside a caller's parallel region the build stays serial. */
int tab_over_budget(const lth_table *tab) {
  return tab->bld.budget > 0 && tab->stats.decomps >= tab->bld.budget && tab->store.np > 0;
}

static lth_status build_to(lth_table *tab, double goal, double t0, lth_error *err) {
  lth_status st = LTH_OK;
  while (st == LTH_OK && (tab->bld.covered < goal || tab->store.np == 0)) {
    if (tab_over_budget(tab)) {
      return LTH_ERANGE; /* lth_table_build_budget */
    }
    if (!tab->thr.board && tab->thr.nthreads > 1 &&
        tab->stats.seconds + (now() - t0) >= TAB_SERIAL_SECONDS) {
      tab->thr.board = tab_pool_ready(tab);
    }
    int k = tab_split_count(tab, goal);
    st = k > 1 ? tab_build_split(tab, goal, k, err) : tab_build_panel(tab, err);
  }
  return st;
}

lth_status lth_table_build_budget(lth_table *tab, double t, size_t max_decomps, lth_error *err) {
  double goal = fmin(t, tab->lay.t_hi);
  if (tab->bld.covered >= goal && tab->store.np > 0) {
    return LTH_OK;
  }
  double t0 = now();
  tab->bld.budget = max_decomps;
  lth_status st = build_to(tab, goal, t0, err);
  tab->bld.budget = 0;
  tab->stats.seconds += now() - t0;
  return st;
}

lth_status lth_table_build(lth_table *tab, double t, lth_error *err) {
  return lth_table_build_budget(tab, t, 0, err);
}
