/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Chebyshev collocation behind the integrator seam (lib/ivp/integrator_impl.h)
 * for the linear reduced ODE y' = M(t) y + b(t) (Clark (3.9) with its drift
 * damping): on a step [a, a + h] the solution is the polynomial of degree N
 * that takes y(a) at a and satisfies the ODE at the other N Chebyshev points
 * x_j = -cos(pi j / N) -- one dense linear system of N dim unknowns (LAPACK's
 * dgesv), no stage iteration and no stability limit on h (the damping rate
 * gamma sets no step size).  The step is accepted when the last three
 * Chebyshev coefficients of every component are below atol + rtol max |y_i|
 * on the step: a decision from the polynomial's own coefficients, an estimate
 * as every integrator's local error is (docs/user-guide.md, "Which method").
 * A step may reach past t1 up to the horizon the caller sets (set_horizon),
 * and the polynomial then serves the output times inside it (barycentric
 * interpolation).  Needs lth_ode.lin (M and b at t); small systems only
 * (dim <= CHEB_MAX_DIM). */
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "integrator_impl.h"

#define CHEB_PI 3.14159265358979323846

#define CHEB_MAX_DIM 32
/* The degree of every step.  16 points of a smooth solution over a stretch
 * on which the data are resolved at degree 16 (lib/ivp/ivp.c) usually
 * leave a tail far below the tolerance; a higher degree costs its linear
 * system (16 dim unknowns) more than a shorter step costs. */
#define CHEB_N 16
/* ... for dim <= 4; 12 up to dim 8, 8 above: the system's (N dim)^3 / 3
 * flops grow with dim^3, the steps only as tol^(-1/N) */
static int cheb_degree(size_t dim) { return dim <= 4 ? CHEB_N : dim <= 8 ? 12 : 8; }
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
  /* the last accepted step's polynomial: values Y[(N+1) dim] at the nodes of [pa, pb] */
  int N; /* the degree of every step (cheb_degree), its nodes x, weights w and D below */
  int have;
  double pa, pb, t_out;
  double t_far;      /* the next advance's horizon (set_horizon; 0: t1) */
  double *Y, *y_out; /* y_out: the state handed out at t_out (continuity check) */
  /* work (for CHEB_N) */
  double *M, *b, *A, *r, *D, *x, *w;
  lapack_int *ipiv;
};

static void cheb_free(lth_integrator *it) {
  if (!it) return;
  free(it->Y), free(it->y_out), free(it->M), free(it->b), free(it->A), free(it->r);
  free(it->D), free(it->x), free(it->w), free(it->ipiv);
  free(it);
}

static void nodes(lth_integrator *it, int N);

static lth_integrator *cheb_alloc(const lth_ode *ode, lth_error *err) {
  if (!ode->lin || ode->dim == 0 || ode->dim > CHEB_MAX_DIM) {
    lth_error_set(err, LTH_EINVAL,
                  "Chebyshev collocation needs the linear form of the ODE and at most %d "
                  "unknowns (here %zu)",
                  CHEB_MAX_DIM, ode->dim);
    return NULL;
  }
  lth_integrator *it = calloc(1, sizeof *it);
  size_t d = ode->dim, n1 = CHEB_N + 1, nu = (size_t)CHEB_N * d;
  if (it) {
    it->ode = *ode;
    it->dim = d;
    it->Y = malloc(n1 * d * sizeof(double));
    it->y_out = malloc(d * sizeof(double));
    it->M = malloc(n1 * d * d * sizeof(double));
    it->b = malloc(n1 * d * sizeof(double));
    it->A = malloc(nu * nu * sizeof(double));
    it->r = malloc(nu * sizeof(double));
    it->D = malloc(n1 * n1 * sizeof(double));
    it->x = malloc(n1 * sizeof(double));
    it->w = malloc(n1 * sizeof(double));
    it->ipiv = malloc(nu * sizeof(lapack_int));
  }
  if (!it || !it->Y || !it->y_out || !it->M || !it->b || !it->A || !it->r || !it->D || !it->x ||
      !it->w || !it->ipiv) {
    cheb_free(it);
    lth_error_set(err, LTH_ENOMEM, "out of memory allocating an integrator");
    return NULL;
  }
  it->N = cheb_degree(d);
  nodes(it, it->N); /* (the same for every step: h only scales D) */
  return it;
}

static lth_status cheb_start(lth_integrator *it, const lth_integrator_setup *s, lth_error *err) {
  (void)err;
  it->s = *s;
  (void)s->h0; /* the first step tries the whole horizon (cheb_advance) */
  it->h = 0.0;
  it->hmin = s->hmin;
  it->have = 0;
  return LTH_OK;
}

/* Nodes x_j = -cos(pi j / N) (x_0 = -1: the step's start), barycentric
 * weights, and the differentiation matrix D (d/dx of the interpolant at the
 * nodes, (N+1) x (N+1) column-major). */
static void nodes(lth_integrator *it, int N) {
  int n1 = N + 1;
  for (int j = 0; j <= N; j++) {
    it->x[j] = -cos(CHEB_PI * j / N);
    it->w[j] = (j % 2 ? -1.0 : 1.0) * (j == 0 || j == N ? 0.5 : 1.0);
  }
  for (int i = 0; i <= N; i++) {
    double diag = 0.0;
    for (int j = 0; j <= N; j++) {
      if (i != j) {
        double v = it->w[j] / it->w[i] / (it->x[i] - it->x[j]);
        it->D[i + (size_t)j * n1] = v;
        diag -= v;
      }
    }
    it->D[i + (size_t)i * n1] = diag; /* rows sum to 0: constants differentiate to 0 */
  }
}

/* The interpolant of the stored step at t (in [pa, pb]) into y. */
static void interp(lth_integrator *it, double t, double *y) {
  size_t d = it->dim;
  int N = it->N;
  double x = -1.0 + 2.0 * (t - it->pa) / (it->pb - it->pa);
  for (int j = 0; j <= N; j++) {
    if (x == it->x[j]) {
      memcpy(y, it->Y + (size_t)j * d, d * sizeof(double));
      return;
    }
  }
  double den = 0.0;
  memset(y, 0, d * sizeof(double));
  for (int j = 0; j <= N; j++) {
    double c = it->w[j] / (x - it->x[j]);
    den += c;
    for (size_t i = 0; i < d; i++) y[i] += c * it->Y[(size_t)j * d + i];
  }
  for (size_t i = 0; i < d; i++) y[i] /= den;
}

/* One collocation on [a, a + h] from y0 at degree it->N into it->Y; *est the
 * largest tail (max of |c_N| / 2, |c_{N-1}|, |c_{N-2}|) relative to atol +
 * rtol max |y_i|, INFINITY where the system is singular or the data not
 * finite.  Returns CHEB_OK or CHEB_STOP (a callback stopped). */
static int collocate(lth_integrator *it, double a, double h, const double *y0, double *est) {
  int N = it->N;
  size_t d = it->dim, nu = (size_t)N * d;
  int n1 = N + 1;
  for (int j = 1; j <= N; j++) {
    double tj = a + 0.5 * h * (it->x[j] + 1.0);
    if (j == N) tj = a + h;
    if (it->ode.lin(tj, it->M + (size_t)(j - 1) * d * d, it->b + (size_t)(j - 1) * d,
                    it->ode.ctx) != 0) {
      return CHEB_STOP;
    }
  }
  double s = 2.0 / h;
  memset(it->A, 0, nu * nu * sizeof(double));
  for (int j = 1; j <= N; j++) {
    const double *Mj = it->M + (size_t)(j - 1) * d * d;
    for (size_t i = 0; i < d; i++) {
      size_t row = (size_t)(j - 1) * d + i;
      for (int k = 1; k <= N; k++) {
        it->A[row + ((size_t)(k - 1) * d + i) * nu] += s * it->D[j + (size_t)k * n1];
      }
      for (size_t c = 0; c < d; c++) {
        it->A[row + ((size_t)(j - 1) * d + c) * nu] -= Mj[i + c * d];
      }
      it->r[row] = it->b[(size_t)(j - 1) * d + i] - s * it->D[j] * y0[i];
    }
  }
  if (LAPACKE_dgesv(LAPACK_COL_MAJOR, (lapack_int)nu, 1, it->A, (lapack_int)nu, it->ipiv, it->r,
                    (lapack_int)nu) != 0) {
    *est = INFINITY; /* (singular at this h: rejected, a shorter step tried) */
    return CHEB_OK;
  }
  memcpy(it->Y, y0, d * sizeof(double));
  memcpy(it->Y + d, it->r, nu * sizeof(double));
  /* the three highest Chebyshev coefficients of each component (T_n(x_j) =
   * cos(n pi (N - j) / N) at the ascending nodes; c_N is halved): three, so
   * that a solution even or odd about the step's midpoint, whose every
   * other coefficient vanishes, still shows its tail */
  *est = 0.0;
  for (size_t i = 0; i < d; i++) {
    double c[3] = {0.0, 0.0, 0.0}, ymax = 0.0;
    for (int j = 0; j <= N; j++) {
      double yj = it->Y[(size_t)j * d + i], half = (j == 0 || j == N) ? 0.5 : 1.0;
      for (int q = 0; q < 3; q++) {
        c[q] += half * yj * cos((double)(N - q) * CHEB_PI * (N - j) / N);
      }
      ymax = fmax(ymax, fabs(yj));
    }
    double tail = fmax(0.5 * fabs(c[0]), fmax(fabs(c[1]), fabs(c[2]))) * 2.0 / N;
    *est = fmax(*est, tail / (it->s.atol + it->s.rtol * ymax));
  }
  if (!isfinite(*est)) {
    *est = INFINITY; /* (data not finite at a node, a pole: rejected) */
  }
  return CHEB_OK;
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
        memcpy(y, it->Y + (size_t)it->N * d, d * sizeof(double));
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
    for (;;) {
      int c = collocate(it, a, h, y, &est);
      if (c != CHEB_OK) {
        rc = c;
        break;
      }
      if (est <= 1.0) {
        break;
      }
      h *= isfinite(est) ? fmax(CHEB_SHRINK_MIN, CHEB_SAFETY * pow(est, -1.0 / it->N))
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
    it->have = 1;
    it->pa = a;
    it->pb = a + h;
    /* next: from this tail; a step the horizon cut short keeps the longer
     * length it was given */
    double grow =
        est > 0 ? fmin(CHEB_GROW_MAX, CHEB_SAFETY * pow(est, -1.0 / it->N)) : CHEB_GROW_MAX;
    double base = h < end - a || it->h <= 0 ? h : fmax(h, it->h);
    it->h = base * fmax(1.0, grow);
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

static void cheb_reset(lth_integrator *it) { it->have = 0; }

static void cheb_restart(lth_integrator *it, double h) {
  it->have = 0;
  it->h = h;
}

static double cheb_step(const lth_integrator *it) { return it->h; }

static void cheb_set_hmin(lth_integrator *it, double hmin) { it->hmin = hmin; }

static int cheb_has_method(lth_ivp_method method) { return method == LTH_IVP_CHEB; }

static void cheb_set_horizon(lth_integrator *it, double t_far) { it->t_far = t_far; }

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
};
