/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Chebyshev collocation behind the integrator seam (lib/ivp/integrator_impl.h)
 * for the linear reduced ODE y' = M(t) y + b(t) (Clark (3.9) with its drift
 * damping): on a step [a, a + h] the unknowns are the derivatives F_j =
 * y'(t_j) at the Chebyshev points x_j = -cos(pi j / N), j = 0 .. N, and
 * y(t_j) = y(a) + (h/2) sum_k S_jk F_k with the spectral integration matrix S
 * (the integral from -1 to x_j of the interpolant through the F_k): the
 * polynomial that takes y(a) at a and satisfies the ODE at every point.  One
 * dense linear system (LAPACK's dgesv) of N dim unknowns (F_0 = M(a) y(a) +
 * b(a) is known), no stage iteration and no stability limit on h (the
 * damping rate gamma sets no step size).  Solving for the derivatives, not
 * the values, keeps the system's condition near 1 + h ||M|| where the values'
 * (the differentiation matrix's) grows like N^2 / h, and y(a) is added
 * exactly: over Clark's long horizons the rounding of each step's solve is
 * what accumulates.  The step is accepted when the last three Chebyshev
 * coefficients of every component are below atol + rtol max |y_i| on the
 * step: a decision from the polynomial's own coefficients, an estimate as
 * every integrator's local error is (docs/user-guide.md, "Which method").
 * A step may reach past t1 up to the horizon the caller sets (set_horizon),
 * and the polynomial then serves the output times inside it (barycentric
 * interpolation).  Needs lth_ode.lin (M and b at t); small systems only
 * (dim <= CHEB_MAX_DIM). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cheb_rule.h"
#include "integrator_impl.h"

#define CHEB_MAX_DIM 32
/* The degrees a step may take.  16 points of a smooth solution over a
 * stretch on which the data are resolved at degree 16 (lib/ivp/ivp.c) often
 * leave a tail far below the tolerance: where the accepted step's own
 * Chebyshev coefficients say a lower degree would have met it, the next step
 * takes that degree (each of its N points costs a decomposition, its linear
 * system (N dim)^3 / 3 flops).  The highest is 16 for dim <= 4, 12 up to
 * dim 8, 8 above: the system's flops grow with dim^3, the steps only as
 * tol^(-1/N). */
#define CHEB_LEVELS  LTH_CHEB_NDEGREES
#define cheb_degrees lth_cheb_degrees
static int cheb_levels(size_t dim) { return dim <= 4 ? 3 : dim <= 8 ? 2 : 1; }
#define CHEB_NMAX LTH_CHEB_NMAX
/* A lower degree is taken when its tail, read from the accepted step, is at
 * most this fraction of the tolerance (room for the step to grow). */
#define CHEB_DOWN 0.1
/* A step's length follows its tail: tail ~ h^N for a function analytic
 * around the step, so h (tol/tail)^(1/N) times this safety factor, within
 * [CHEB_SHRINK_MIN, CHEB_GROW_MAX] of h. */
#define CHEB_SAFETY     0.8
#define CHEB_SHRINK_MIN 0.2
#define CHEB_GROW_MAX   4.0

enum { CHEB_OK = 0, CHEB_STOP = 1, CHEB_HMIN = 2, CHEB_NSTEPS = 3 };

struct lth_integrator {
  lth_ode ode;
  lth_integrator_setup s;
  size_t dim;
  double h;    /* length of the next step (0: the whole horizon) */
  double hmin; /* smallest step */
  int top;     /* the highest level this dim may take (cheb_levels - 1) */
  int lev;     /* the next step's level */
  /* the last accepted step's polynomial: values Y[(N+1) dim] at the nodes
   * of [pa, pb], at level lev_have */
  int have, lev_have;
  double pa, pb, t_out;
  double t_far;      /* the next advance's horizon (set_horizon; 0: t1) */
  double *Y, *y_out; /* y_out: the state handed out at t_out (continuity check) */
  double *Ytry;      /* the step being tried */
  double tn[CHEB_NMAX + 1], tn_try[CHEB_NMAX + 1]; /* their nodes in t */
  double est_at[CHEB_LEVELS]; /* the tried step's tail at each level, in tolerances */
  /* M and b at the last two step ends asked for (the next step, or the
   * retry of a rejected one, starts at one of them) */
  double end_t[2], *end_M[2], *end_b[2];
  int end_ok[2], end_next;
  /* work (for CHEB_NMAX) */
  double *M, *b, *A, *r, *F;
  lapack_int *ipiv;
};

static void cheb_free(lth_integrator *it) {
  if (!it) return;
  free(it->Y), free(it->y_out), free(it->Ytry), free(it->M), free(it->b), free(it->A);
  free(it->r), free(it->F), free(it->ipiv);
  for (int e = 0; e < 2; e++) free(it->end_M[e]), free(it->end_b[e]);
  free(it);
}

static lth_integrator *cheb_alloc(const lth_ode *ode, lth_error *err) {
  if (!ode->lin || ode->dim == 0 || ode->dim > CHEB_MAX_DIM) {
    lth_error_set(err, LTH_EINVAL,
                  "Chebyshev collocation needs the linear form of the ODE and at most %d "
                  "unknowns (here %zu)",
                  CHEB_MAX_DIM, ode->dim);
    return NULL;
  }
  lth_integrator *it = calloc(1, sizeof *it);
  size_t d = ode->dim, n1 = CHEB_NMAX + 1, nu = (size_t)CHEB_NMAX * d;
  int ok = it != NULL;
  if (ok) {
    it->ode = *ode;
    it->dim = d;
    it->top = cheb_levels(d) - 1;
    it->Y = malloc(n1 * d * sizeof(double));
    it->Ytry = malloc(n1 * d * sizeof(double));
    it->y_out = malloc(d * sizeof(double));
    it->M = malloc(n1 * d * d * sizeof(double));
    it->b = malloc(n1 * d * sizeof(double));
    it->A = malloc(nu * nu * sizeof(double));
    it->r = malloc(nu * sizeof(double));
    it->F = malloc(n1 * d * sizeof(double));
    it->ipiv = malloc(nu * sizeof(lapack_int));
    ok = it->Y && it->Ytry && it->y_out && it->M && it->b && it->A && it->r && it->F && it->ipiv;
    for (int e = 0; ok && e < 2; e++) {
      it->end_M[e] = malloc(d * d * sizeof(double));
      it->end_b[e] = malloc(d * sizeof(double));
      ok = it->end_M[e] && it->end_b[e];
    }
    (void)lth_cheb_rule_at(0); /* (made once per process: the same for every step) */
  }
  if (!ok) {
    cheb_free(it);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an integrator");
    return NULL;
  }
  return it;
}

/* The first step's level, before any tail is known: the lowest degree N
 * with 10^(-N/3) <= rtol, the decay of a function analytic in the Bernstein
 * ellipse of parameter 2.15 about the step (smooth over the horizon); a miss
 * retries at the highest, as every lower degree's miss does.  The highest
 * first paid 17 decompositions where 13 resolve a smooth solution at a loose
 * tolerance; a lower one first, 9 or 13 more at a tight one
 * (docs/performance.md). */
static int first_level(int top, double rtol) {
  for (int l = 0; l < top; l++) {
    if (pow(10.0, -cheb_degrees[l] / 3.0) <= rtol) return l;
  }
  return top;
}

static lth_status cheb_start(lth_integrator *it, const lth_integrator_setup *s, lth_error *err) {
  (void)err;
  it->s = *s;
  (void)s->h0; /* the first step tries the whole horizon (cheb_advance) */
  it->h = 0.0;
  it->hmin = s->hmin;
  it->have = 0;
  it->lev = first_level(it->top, s->rtol);
  it->end_ok[0] = it->end_ok[1] = 0;
  return LTH_OK;
}

/* The interpolant of the stored step at t (in [pa, pb]) into y. */
static void interp(lth_integrator *it, double t, double *y) {
  double x = -1.0 + 2.0 * (t - it->pa) / (it->pb - it->pa);
  lth_cheb_interp(lth_cheb_rule_at(it->lev_have), x, it->Y, it->dim, it->dim, y);
}

/* The tried step's tails (it->Ytry, level lev) at its own degree and every
 * lower one, relative to atol + rtol max |y_i|, into it->est_at; returns its
 * own.  A lower degree's tail is read from this polynomial's coefficients:
 * what a degree-n interpolant of it would leave out. */
static double tails(lth_integrator *it, int lev) {
  const lth_cheb_rule *R = lth_cheb_rule_at(lev);
  int N = R->N;
  size_t d = it->dim;
  for (int l = 0; l <= lev; l++) it->est_at[l] = 0.0;
  for (size_t i = 0; i < d; i++) {
    double a[CHEB_NMAX + 1], ymax = 0.0;
    for (int j = 0; j <= N; j++) ymax = fmax(ymax, fabs(it->Ytry[(size_t)j * d + i]));
    lth_cheb_coefs(R, it->Ytry + i, d, a);
    double tol = it->s.atol + it->s.rtol * ymax;
    for (int l = 0; l <= lev; l++) {
      it->est_at[l] = fmax(it->est_at[l], lth_cheb_tail(a, cheb_degrees[l]) / tol);
    }
  }
  for (int l = 0; l <= lev; l++) {
    if (!isfinite(it->est_at[l])) it->est_at[l] = INFINITY; /* (data not finite at a node) */
  }
  return it->est_at[lev];
}

/* M and b at t into Mt, bt: from the two step ends kept, or the callback
 * (kept then as the newer end).  Non-zero: the callback stopped. */
static int lin_at(lth_integrator *it, double t, double *Mt, double *bt) {
  size_t d = it->dim;
  for (int e = 0; e < 2; e++) {
    if (it->end_ok[e] && it->end_t[e] == t) {
      memcpy(Mt, it->end_M[e], d * d * sizeof(double));
      memcpy(bt, it->end_b[e], d * sizeof(double));
      return 0;
    }
  }
  if (it->ode.lin(t, Mt, bt, it->ode.ctx) != 0) return 1;
  int e = it->end_next;
  it->end_next = 1 - e;
  it->end_t[e] = t;
  memcpy(it->end_M[e], Mt, d * d * sizeof(double));
  memcpy(it->end_b[e], bt, d * sizeof(double));
  it->end_ok[e] = 1;
  return 0;
}

/* One collocation on [a, a + h] from y0 at level lev into it->Ytry; *est its
 * tail (tails), INFINITY where the system is singular or the data not
 * finite.  Returns CHEB_OK or CHEB_STOP (a callback stopped).  M(t_j), b(t_j)
 * at it->M, it->b + j (d^2, d); the ends through lin_at (the next step
 * starts where this one ends). */
static int collocate(lth_integrator *it, int lev, double a, double h, const double *y0,
                     double *est) {
  const lth_cheb_rule *R = lth_cheb_rule_at(lev);
  int N = R->N;
  size_t d = it->dim, d2 = d * d, nu = (size_t)N * d, n1 = (size_t)N + 1;
  for (int j = 0; j <= N; j++) {
    double tj = j == 0 ? a : j == N ? a + h : a + 0.5 * h * (R->x[j] + 1.0);
    double *Mj = it->M + (size_t)j * d2, *bj = it->b + (size_t)j * d;
    it->tn_try[j] = tj;
    int stop = (j == 0 || j == N) ? lin_at(it, tj, Mj, bj) : it->ode.lin(tj, Mj, bj, it->ode.ctx);
    if (stop) return CHEB_STOP;
  }
  /* F_0 = M_0 y0 + b_0 */
  for (size_t i = 0; i < d; i++) {
    double f = it->b[i];
    for (size_t c = 0; c < d; c++) f += it->M[i + c * d] * y0[c];
    it->F[i] = f;
  }
  /* rows (j, i), j = 1 .. N: F_j - (h/2) M_j sum_{k>=1} S_jk F_k
   *                          = M_j (y0 + (h/2) S_j0 F_0) + b_j */
  double hh = 0.5 * h;
  memset(it->A, 0, nu * nu * sizeof(double));
  for (int j = 1; j <= N; j++) {
    const double *Mj = it->M + (size_t)j * d2, *bj = it->b + (size_t)j * d;
    double sj0 = hh * R->S[j];
    for (size_t i = 0; i < d; i++) {
      size_t row = (size_t)(j - 1) * d + i;
      double rhs = bj[i];
      for (size_t c = 0; c < d; c++) rhs += Mj[i + c * d] * (y0[c] + sj0 * it->F[c]);
      it->r[row] = rhs;
      it->A[row + row * nu] = 1.0;
      for (int k = 1; k <= N; k++) {
        double sjk = hh * R->S[j + k * n1];
        double *col = it->A + row + (size_t)(k - 1) * d * nu;
        for (size_t c = 0; c < d; c++) col[c * nu] -= sjk * Mj[i + c * d];
      }
    }
  }
  /* (_work: M and b are finite, each point's decomposition checked them) */
  if (LAPACKE_dgesv_work(LAPACK_COL_MAJOR, (lapack_int)nu, 1, it->A, (lapack_int)nu, it->ipiv,
                         it->r, (lapack_int)nu) != 0) {
    *est = INFINITY; /* (singular at this h: rejected, a shorter step tried) */
    return CHEB_OK;
  }
  memcpy(it->F + d, it->r, nu * sizeof(double));
  /* y_j = y0 + (h/2) sum_k S_jk F_k: y0 added exactly */
  memcpy(it->Ytry, y0, d * sizeof(double));
  for (int j = 1; j <= N; j++) {
    double *yj = it->Ytry + (size_t)j * d;
    for (size_t i = 0; i < d; i++) {
      double inc = 0.0;
      for (int k = 0; k <= N; k++) inc += R->S[j + k * n1] * it->F[(size_t)k * d + i];
      yj[i] = y0[i] + hh * inc;
    }
  }
  *est = tails(it, lev);
  return CHEB_OK;
}

/* The step after an accepted one at level lev, of length h and tail est: the
 * lowest level whose tail the step already meets with room (CHEB_DOWN), and
 * the length that level's tail allows (a step the horizon cut short keeps
 * the longer length it was given, `given`). */
static void plan_next(lth_integrator *it, int lev, double h, double given) {
  int next = lev;
  for (int l = 0; l < lev; l++) {
    if (it->est_at[l] <= CHEB_DOWN) {
      next = l;
      break;
    }
  }
  double est = it->est_at[next];
  double grow = est > 0 ? fmin(CHEB_GROW_MAX, CHEB_SAFETY * pow(est, -1.0 / cheb_degrees[next]))
                        : CHEB_GROW_MAX;
  it->lev = next;
  it->h = fmax(h, given) * fmax(1.0, grow);
}

static int cheb_advance(lth_integrator *it, double *t, double t1, double *y, size_t *steps) {
  size_t d = it->dim, n = 0;
  int rc = CHEB_OK;
  *steps = 0;
  if (it->have && (*t != it->t_out || memcmp(y, it->y_out, d * sizeof(double)) != 0)) {
    it->have = 0; /* the state was changed by the caller */
  }
  while (*t < t1 && rc == CHEB_OK) {
    if (it->have && *t >= it->pa && *t < it->pb) {
      /* inside the last step: its polynomial */
      double to = fmin(t1, it->pb);
      if (to == it->pb) {
        memcpy(y, it->Y + (size_t)cheb_degrees[it->lev_have] * d, d * sizeof(double));
      } else {
        interp(it, to, y);
      }
      *t = to;
      continue;
    }
    if (n >= it->s.max_steps) {
      rc = CHEB_NSTEPS;
      break;
    }
    double end = it->t_far > t1 ? it->t_far : t1;
    double a = *t, h = it->h > 0 ? fmin(it->h, end - a) : end - a;
    if (it->s.hmax > 0) h = fmin(h, it->s.hmax);
    double est = INFINITY;
    int lev = it->lev;
    for (;;) {
      int c = collocate(it, lev, a, h, y, &est);
      if (c != CHEB_OK) {
        rc = c;
        break;
      }
      if (est <= 1.0) {
        break;
      }
      if (lev < it->top) {
        lev = it->top; /* a lower degree missed: the highest, on the same step */
        continue;
      }
      h *= isfinite(est) ? fmax(CHEB_SHRINK_MIN, CHEB_SAFETY * pow(est, -1.0 / cheb_degrees[lev]))
                         : CHEB_SHRINK_MIN;
      /* (the rounding floor of t too: a step collapsing to nothing) */
      if ((h < it->hmin || h < 64 * DBL_EPSILON * fmax(1.0, fabs(a))) && h < end - a) {
        rc = CHEB_HMIN;
        break;
      }
    }
    if (rc != CHEB_OK) {
      break;
    }
    n++;
    double *keep = it->Y;
    it->Y = it->Ytry;
    it->Ytry = keep;
    memcpy(it->tn, it->tn_try, sizeof it->tn);
    it->have = 1;
    it->lev_have = lev;
    it->pa = a;
    it->pb = a + h;
    plan_next(it, lev, h, h < end - a || it->h <= 0 ? h : it->h);
  }
  *steps = n;
  it->t_far = 0.0;
  if (rc == CHEB_OK) {
    it->t_out = *t;
    memcpy(it->y_out, y, d * sizeof(double));
  } else {
    it->have = 0;
  }
  return rc;
}

/* (the kept step ends too: a reset follows new coefficients, a table rebuilt) */
static void cheb_reset(lth_integrator *it) { it->have = it->end_ok[0] = it->end_ok[1] = 0; }

static void cheb_restart(lth_integrator *it, double h) {
  it->have = it->end_ok[0] = it->end_ok[1] = 0;
  it->h = h;
  it->lev = it->top;
}

static double cheb_step(const lth_integrator *it) { return it->h; }

static void cheb_set_hmin(lth_integrator *it, double hmin) { it->hmin = hmin; }

static int cheb_has_method(lth_ivp_method method) { return method == LTH_IVP_CHEB; }

static void cheb_set_horizon(lth_integrator *it, double t_far) { it->t_far = t_far; }

static int cheb_last_step(const lth_integrator *it, int *N, const double **tn, const double **Y) {
  if (!it->have) return 0;
  *N = cheb_degrees[it->lev_have];
  *tn = it->tn;
  *Y = it->Y;
  return 1;
}

static const char *cheb_strerror(int code) {
  switch (code) {
  case CHEB_STOP:
    return "stopped by the right-hand side";
  case CHEB_HMIN:
    return "step size below the minimum";
  case CHEB_NSTEPS:
    return "too many steps";
  default:
    return "failure";
  }
}

const lth_integrator_type lth_integrator_cheb = {
    .name = "Chebyshev",
    .has_method = cheb_has_method,
    .alloc = cheb_alloc,
    .free = cheb_free,
    .start = cheb_start,
    .advance = cheb_advance,
    .reset = cheb_reset,
    .restart = cheb_restart,
    .step = cheb_step,
    .set_hmin = cheb_set_hmin,
    .strerror = cheb_strerror,
    .set_horizon = cheb_set_horizon,
    .last_step = cheb_last_step,
};
