/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Outputs from the collocation step's own points (lib/ivp/ivp_impl.h,
 * lth_ivp_nodes).
 *
 * An output z = (Nhat + Bhat(t)) v(t) + q(t) (Clark, Theorem 1) needs Bhat
 * and q at t: a whole decomposition per output time.  A collocation step
 * (lib/ivp/integrator_cheb.c) has decomposed at its N + 1 Chebyshev points
 * already, and holds v there.  So z is known at those points, and where the
 * polynomial through them resolves z as the step's polynomial resolves v --
 * the same test, its last three Chebyshev coefficients below atol + rtol
 * max |z_i| for every component -- z at an output time inside the step is
 * that polynomial's value; the drift P v and the output gain's Bhat are
 * interpolated too.  The test also asks z's tail to be no larger than what
 * v's tail carries into z (the output gain times it), so that where the
 * step resolves v far below the tolerance (its length set by the data's
 * stretch, not by the tolerance) the outputs keep that accuracy, which the
 * decomposition at the output time would have given.  Bhat v + q is judged
 * at the N + 1 points only, as v is: a feature of Bhat or q narrower than
 * the step, which the points miss, is missed as a feature of v would be
 * (docs/user-guide.md, "Which method").  Where the test fails, a point is
 * missing (forgotten, or served by a table instead of a decomposition) or
 * the solve reprojects, the output decomposes at its time as before. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cheb_rule.h"
#include "ivp_impl.h"

/* Points kept: two tries of a step at the highest degree, so that the
 * start of a step (evaluated with the step before) is still there after a
 * rejected try. */
#define NODES_KEEP (2 * (LTH_CHEB_NMAX + 1) + 2)
/* Above this many numbers per point (P, Bhat, q) nothing is kept: the
 * collocation integrator takes small systems only. */
#define NODES_MAX_SIZE 4096
/* A tail at this many ulps of z passes whatever v's (v polynomial itself). */
#define NODES_ROUNDING 64

struct lth_ivp_nodes {
  int s, m;
  size_t per; /* doubles per point: P (m m), Bhat (s m), q (s) */
  double t[NODES_KEEP];
  double *data; /* NODES_KEEP * per */
  int next, count;
  /* the step last served: its ends, degree and values (its identity), its
   * verdict, and at its nodes rows of z (s), P v (m) and Bhat (s m), ld
   * values each; at: one row interpolated */
  int have, ok, N;
  double a, b;
  size_t ld;
  double *Yv, *W, *at;
};

lth_ivp_nodes *lth_ivp_nodes_alloc(int s, int m) {
  size_t per = (size_t)m * m + (size_t)s * m + (size_t)s, n1 = LTH_CHEB_NMAX + 1;
  if (s < 1 || m < 1 || per > NODES_MAX_SIZE) {
    return NULL;
  }
  lth_ivp_nodes *nd = calloc(1, sizeof *nd);
  if (!nd) {
    return NULL;
  }
  nd->s = s;
  nd->m = m;
  nd->per = per;
  nd->data = malloc(NODES_KEEP * per * sizeof(double));
  nd->Yv = malloc(n1 * (size_t)m * sizeof(double));
  nd->ld = (size_t)s + (size_t)m + (size_t)s * m;
  nd->W = malloc(n1 * nd->ld * sizeof(double));
  nd->at = malloc(nd->ld * sizeof(double));
  if (!nd->data || !nd->Yv || !nd->W || !nd->at) {
    lth_ivp_nodes_free(nd);
    return NULL;
  }
  return nd;
}

void lth_ivp_nodes_free(lth_ivp_nodes *nd) {
  if (!nd) return;
  free(nd->data), free(nd->Yv), free(nd->W), free(nd->at);
  free(nd);
}

double lth_ivp_output_gain(const double *B, int ldb, int s, int m) {
  double g = 0.0;
  for (int i = 0; i < s; i++) {
    double row = 0.0;
    for (int j = 0; j < m; j++) row += fabs(B[i + (size_t)j * ldb] + (i == j ? 1.0 : 0.0));
    g = fmax(g, row);
  }
  return g;
}

void lth_ivp_nodes_keep(lth_ivp_nodes *nd, const lth_point *pt) {
  int s = nd->s, m = nd->m;
  for (int k = 0; k < nd->count; k++) {
    if (nd->t[k] == pt->t) return; /* (decompositions at t are the same) */
  }
  int k = nd->next;
  nd->next = (k + 1) % NODES_KEEP;
  nd->count += nd->count < NODES_KEEP;
  double *P = nd->data + (size_t)k * nd->per, *B = P + (size_t)m * m, *q = B + (size_t)s * m;
  for (int j = 0; j < m; j++) {
    memcpy(P + (size_t)j * m, pt->P.c + (size_t)j * pt->P.ld, (size_t)m * sizeof(double));
    memcpy(B + (size_t)j * s, pt->Bhat.c + (size_t)j * pt->Bhat.ld, (size_t)s * sizeof(double));
  }
  memcpy(q, pt->q.c, (size_t)s * sizeof(double));
  nd->t[k] = pt->t;
}

static const double *kept_at(const lth_ivp_nodes *nd, double t) {
  for (int k = 0; k < nd->count; k++) {
    if (nd->t[k] == t) return nd->data + (size_t)k * nd->per;
  }
  return NULL;
}

/* z = (Nhat + Bhat) v + q, P v and Bhat at every node of the step from the
 * kept points; 0 where one is missing. */
static int fill_nodes(lth_ivp_nodes *nd, const double *tn, const double *Y) {
  int s = nd->s, m = nd->m;
  for (int j = 0; j <= nd->N; j++) {
    const double *P = kept_at(nd, tn[j]);
    if (!P) return 0;
    const double *B = P + (size_t)m * m, *q = B + (size_t)s * m, *v = Y + (size_t)j * m;
    double *z = nd->W + (size_t)j * nd->ld, *pv = z + s;
    for (int i = 0; i < s; i++) z[i] = q[i] + (i < m ? v[i] : 0.0);
    memset(pv, 0, (size_t)m * sizeof(double));
    for (int c = 0; c < m; c++) {
      for (int i = 0; i < s; i++) z[i] += B[i + (size_t)c * s] * v[c];
      for (int i = 0; i < m; i++) pv[i] += P[i + (size_t)c * m] * v[c];
    }
    memcpy(pv + m, B, (size_t)s * m * sizeof(double));
  }
  return 1;
}

/* The largest ||Nhat + Bhat||_inf at the step's nodes. */
static double nodes_gain(const lth_ivp_nodes *nd) {
  double g = 0.0;
  for (int j = 0; j <= nd->N; j++) {
    g = fmax(g,
             lth_ivp_output_gain(nd->W + (size_t)j * nd->ld + nd->s + nd->m, nd->s, nd->s, nd->m));
  }
  return g;
}

/* The largest tail of v's components at the step's degree (absolute). */
static double v_tail(const lth_ivp_nodes *nd, const lth_cheb_rule *R) {
  double tv = 0.0, a[LTH_CHEB_NMAX + 1];
  for (int k = 0; k < nd->m; k++) {
    lth_cheb_coefs(R, nd->Yv + k, (size_t)nd->m, a);
    tv = fmax(tv, lth_cheb_tail(a, R->N));
  }
  return tv;
}

/* Every component of z resolved by the step's degree as v is: its tail
 * below the tolerance (the step's own test) and below what v's tail already
 * gives z through the output map (||Nhat + Bhat|| times v's), so that the
 * polynomial adds no error of another order than the decomposition at the
 * output time would carry from v (the rounding level aside). */
static int resolved(const lth_ivp_nodes *nd, const lth_cheb_rule *R, double rtol, double atol) {
  double carried = nodes_gain(nd) * v_tail(nd, R);
  for (int i = 0; i < nd->s; i++) {
    double a[LTH_CHEB_NMAX + 1], zmax = 0.0;
    for (int j = 0; j <= R->N; j++) zmax = fmax(zmax, fabs(nd->W[(size_t)j * nd->ld + i]));
    lth_cheb_coefs(R, nd->W + i, nd->ld, a);
    double limit = fmin(atol + rtol * zmax, fmax(carried, NODES_ROUNDING * DBL_EPSILON * zmax));
    if (!(lth_cheb_tail(a, R->N) <= limit)) return 0;
  }
  return 1;
}

static const lth_cheb_rule *rule_of(int N) {
  for (int l = 0; l < LTH_CHEB_NDEGREES; l++) {
    if (lth_cheb_degrees[l] == N) return lth_cheb_rule_at(l);
  }
  return NULL;
}

int lth_ivp_nodes_output(lth_ivp_nodes *nd, int N, const double *tn, const double *Y, double t,
                         double rtol, double atol, double *z, double *drift, double *gain) {
  const lth_cheb_rule *R = rule_of(N);
  if (!R || !(t >= tn[0] && t <= tn[N])) {
    return 0;
  }
  size_t nv = ((size_t)N + 1) * (size_t)nd->m;
  if (!nd->have || nd->N != N || nd->a != tn[0] || nd->b != tn[N] ||
      memcmp(nd->Yv, Y, nv * sizeof(double)) != 0) {
    nd->have = 1;
    nd->N = N;
    nd->a = tn[0];
    nd->b = tn[N];
    memcpy(nd->Yv, Y, nv * sizeof(double));
    nd->ok = fill_nodes(nd, tn, Y) && resolved(nd, R, rtol, atol);
  }
  if (!nd->ok) {
    return 0;
  }
  double x = -1.0 + 2.0 * (t - tn[0]) / (tn[N] - tn[0]), d2 = 0.0;
  lth_cheb_interp(R, x, nd->W, nd->ld, nd->ld, nd->at);
  memcpy(z, nd->at, (size_t)nd->s * sizeof(double));
  for (int i = 0; i < nd->m; i++) d2 += nd->at[nd->s + i] * nd->at[nd->s + i];
  *drift = sqrt(d2);
  *gain = lth_ivp_output_gain(nd->at + nd->s + nd->m, nd->s, nd->s, nd->m);
  return 1;
}
