/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the table's interpolation errors cost a solution of the reduced ODE
 * v' = (Ahat - gamma P) v + g (lib/table/table_budget.h, for the IVP's
 * automatic choice between the table and direct decompositions).
 *
 * A panel's interpolants are smooth: their error, unlike the rounding of
 * direct decompositions (independent at every evaluation, averaging out
 * over the steps), is a bias the integration accumulates.  On a panel the
 * errors dA, dP, dg of Ahat, P, g (err_est times the field's scale: the
 * estimate is relative to max(1, |F|)) perturb the right-hand side by at
 * most e = dA + gamma dP + dg relative to max(1, |v|).  The error they
 * cause obeys s' <= mu s + e (Dahlquist), mu the logarithmic norm of
 * M = Ahat - gamma P, the largest eigenvalue of (M + M^T) / 2: where mu < 0
 * the flow contracts and forgets the bias within 1 / |mu| (data/stiff.lth:
 * mu = -3960, e = 9.4e-11 over [0, 10]: 9.4e-10 accumulated, 2.4e-14
 * forgotten), elsewhere it is taken to
 * accumulate over the width (the growth of the flow left out, as in the
 * integrator's own error).  mu is taken at the panel's ends and middle, the
 * largest of the three: between them it is sampled, not bounded; a system
 * with m > TAB_BIAS_MMAX states, or a panel where the table cannot be
 * evaluated, counts as not contracting. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "coef_table_impl.h"
#include "table_budget.h"

#define TAB_BIAS_MMAX 64

/* The largest log-norm of Ahat - gamma P at the panel's ends and middle. */
static double panel_lognorm(const lth_table *tab, const tab_panel *p, double gamma, lth_point *pt,
                            double *S, double *ev) {
  int m = tab->lay.m;
  double mu = -INFINITY;
  for (int k = 0; k <= 2; k++) {
    double t = k == 2 ? p->b : p->a + 0.5 * k * (p->b - p->a);
    size_t hint = (size_t)(p - tab->store.panels);
    if (lth_table_eval_rhs(tab, t, -gamma, pt, &hint, NULL) != LTH_OK) {
      return INFINITY;
    }
    const double *M = pt->Ahat.c;
    for (int j = 0; j < m; j++) {
      for (int i = 0; i < m; i++) {
        S[i + (size_t)j * m] = 0.5 * (M[i + (size_t)j * m] + M[j + (size_t)i * m]);
      }
    }
    if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'N', 'U', m, S, m, ev) != 0) {
      return INFINITY;
    }
    mu = fmax(mu, ev[m - 1]);
  }
  return mu;
}

/* mu of every tabulated panel for gamma (kept on the panel); 0 when they
 * cannot be had (every mu then +INFINITY). */
static int lognorms(lth_table *tab, double gamma) {
  int m = tab->lay.m;
  if (m > TAB_BIAS_MMAX || m < 1) {
    return 0;
  }
  lth_point *pt = lth_point_alloc(tab->sys, 0, NULL);
  double *S = malloc(sizeof(double) * (size_t)m * (size_t)(m + 1));
  int ok = pt && S;
  for (size_t k = 0; ok && k < tab->store.np; k++) {
    tab_panel *p = &tab->store.panels[k];
    if (!p->direct && !(p->mu_known && p->mu_gamma == gamma)) {
      p->mu = panel_lognorm(tab, p, gamma, pt, S, S + (size_t)m * m);
      p->mu_gamma = gamma;
      p->mu_known = 1;
    }
  }
  lth_point_free(pt);
  free(S);
  return ok;
}

/* The bound over the panels in time order (contracting: with their mu;
 * else every panel accumulating), its largest value; *t_pass as below. */
static double accumulate(const lth_table *tab, double gamma, int contracting, double limit,
                         double *t_pass) {
  double s = 0.0, peak = 0.0;
  *t_pass = INFINITY;
  for (size_t k = 0; k < tab->store.np; k++) {
    const tab_panel *p = &tab->store.panels[k];
    if (p->direct) {
      continue;
    }
    double w = p->b - p->a, e = p->err_est * (p->fscale[0] + gamma * p->fscale[2] + p->fscale[1]);
    double mu = contracting && p->mu_known && p->mu_gamma == gamma ? p->mu : INFINITY;
    if (mu < 0) {
      double d = exp(mu * w);
      s = s * d + e * (1.0 - d) / -mu;
    } else {
      s += e * w;
    }
    peak = fmax(peak, s);
    if (s > limit && !isfinite(*t_pass)) {
      *t_pass = p->a;
    }
  }
  return peak;
}

double lth_table_rhs_error(lth_table *tab, double gamma, double limit, double *t_pass) {
  double plain = accumulate(tab, gamma, 0, limit, t_pass);
  if (plain <= limit || !lognorms(tab, gamma)) {
    return plain;
  }
  return accumulate(tab, gamma, 1, limit, t_pass);
}
