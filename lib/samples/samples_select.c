/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The automatic choice of degree and window for sampled data
 * (lib/samples/samples_impl.h; docs/sampled-data.md explains the method).
 *
 * For every cell [t_a, t_b] (lib/samples/samples_impl.h; centre tc, width u) the
 * candidates are least-squares fits of degree K on windows of N samples
 * around it.  For every derivative order m, a candidate's estimated error is
 *     E_m(K, N) = T_m(K, N) + sigma * amp_m(K, N),
 *   T_m   = max over the cell (its ends and middle) and the entries of
 *           |d^m/dt^m (fit(K, N) - fit(K + 2, N))|: the leading term of the
 *           truncation error (Richardson's idea: the difference of two
 *           approximations of consecutive orders estimates the error of the
 *           lower one), plus the noise both fits carry.  K + 2, not K + 1:
 *           on a window symmetric about the cell the fits of degrees 2j and
 *           2j + 1 share their even part and would hide each other's error;
 *   amp_m = the noise amplification of derivative m (lib/samples/samples_fit.c), so
 *           that sigma * amp_m is the standard deviation the noise level
 *           sigma (the block's largest) gives it.
 * Truncation falls with K and with smaller windows; the noise term grows with
 * K and falls with larger windows; the smallest E balances the two, as
 * Ridders' choice of step does for a finite difference.
 *
 * Windows: from the cell's own samples (at least 4), growing by 4 samples up
 * to 18, then by half up to 160 samples, every one tried (the gains of larger
 * windows under noise are irregular: stopping early loses them).  The
 * windows are nested, so each one's QR is the last one's updated with its new
 * rows (see grow_to below).  One QR gives every degree below N: R^{-1}
 * (dtrtri) applied to the leading part of Q^T b gives the coefficients of
 * degree K as those of degree K - 1 plus one column, so the derivatives at
 * the probes and the amplifications of all degrees come from running sums.
 *
 * One window per cell: the smallest window whose best fits are within a
 * factor 2 (the estimates are not sharper than that) of the best score
 * max_m E_m(N) / min_N' E_m(N'), and for every order the best degree on it;
 * so one QR serves every order when the fits are made (lib/samples/samples_est.c).
 * The choice is a function of the data and the orders 0..M it is made for;
 * lib/samples/samples_est.c makes it for fixed M per source (the decomposition's
 * orders, then the kept ones above them), so every thread and every call
 * makes the same.
 */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "samples_impl.h"

#define SEL_COLS  (SAMPLES_AUTO_MAX_DEGREE + 2)
#define SEL_NP    3 /* probes: the cell's ends and middle */
#define SEL_NWIN  40
#define SEL_STEP  4   /* windows grow by 4 samples up to SEL_COLS, then by half */
#define SEL_SLACK 2.0 /* windows within this factor of the best score count as best */
#define SEL_M     (SAMPLES_AUTO_MAX_ORDER + 1)

/* Next window size after N (see the file comment). */
static size_t next_window(size_t N) { return N < SEL_COLS ? N + SEL_STEP : N + N / 2; }

static size_t grow_size(const samples_state *s);

size_t samples_select_size(const samples_state *s) {
  size_t c = SEL_COLS, m = SEL_M, np = SEL_NP;
  return grow_size(s) + c * c + 2 * m * c * np + c * m * np * s->nrhs + m * np * s->nrhs + c * m +
         m + 2 * SEL_NWIN * m;
}

typedef struct sel {
  const samples_state *s;
  int M, C;       /* orders 0..M; columns of the current window */
  double *rinv;   /* C x C, ld SEL_COLS: R^{-1} in units of u (row j times (u/hs)^j) */
  double *phi;    /* phi[(m*SEL_COLS + j)*NP + p] = j!/(j-m)! x_p^(j-m) */
  double *psi;    /* psi[(l*SEL_M + m)*NP + p] = d^m/dx^m of column l of R^{-1} at x_p */
  double *dv;     /* dv[((K*SEL_M + m)*NP + p)*nrhs + e]: derivative m of fit K at x_p */
  double *amp;    /* amp[K*SEL_M + m] */
  double *E, *Kb; /* per window w and order m: best estimate and its degree */
} sel;

/* max over probes and entries of |dv_a - dv_b| for order m. */
static double probe_diff(const sel *c, const double *a, const double *b, int m) {
  size_t nr = c->s->nrhs, off = (size_t)m * SEL_NP * nr;
  double mx = 0.0;
  for (size_t k = 0; k < SEL_NP * nr; k++) {
    double d = fabs(a[off + k] - b[off + k]);
    mx = d > mx || d != d ? d : mx;
  }
  return mx;
}

static void offer(sel *c, int w, int m, int K, double E) {
  double *e = c->E + (size_t)w * SEL_M + (size_t)m;
  if (E < *e) {
    *e = E;
    c->Kb[(size_t)w * SEL_M + (size_t)m] = K;
  }
}

/* A window's factorisation: R (C x C upper triangular) and the leading C
 * rows y of Q^T b, in the variable x = (t - tc) / hs. */
typedef struct winfac {
  const double *R, *y;
  size_t ldR, ldy;
  int C;
  double hs, tc;
  size_t k0, N;
} winfac;

/* R^{-1}, the running sums of the derivatives at the probes and the
 * amplifications of every degree on window q. */
static lth_status window_sums(sel *c, const winfac *q, double u, lth_error *err) {
  int C = q->C;
  size_t nr = c->s->nrhs, L = SEL_COLS, N = q->N;
  for (int j = 0; j < C; j++) {
    for (int i = 0; i < C; i++) {
      c->rinv[i + (size_t)j * L] = i <= j ? q->R[i + (size_t)j * q->ldR] : 0.0;
    }
  }
  lapack_int info = LAPACKE_dtrtri_work(LAPACK_COL_MAJOR, 'U', 'N', C, c->rinv, (lapack_int)L);
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, q->tc,
                           "sampled data: the fit on samples %zu..%zu is singular (dtrtri info "
                           "%d)",
                           q->k0 + 1, q->k0 + N, (int)info);
  }
  double r = u / q->hs, sc = 1.0;
  for (int j = 0; j < C; j++, sc *= r) {
    for (int l = j; l < C; l++) {
      c->rinv[j + (size_t)l * L] *= sc;
    }
  }
  for (int l = 0; l < C; l++) {
    for (int m = 0; m <= c->M; m++) {
      for (int p = 0; p < SEL_NP; p++) {
        double acc = 0.0;
        for (int j = m; j <= l; j++) {
          acc += c->rinv[j + (size_t)l * L] * c->phi[((size_t)m * L + (size_t)j) * SEL_NP + p];
        }
        c->psi[((size_t)l * SEL_M + (size_t)m) * SEL_NP + (size_t)p] = acc;
      }
    }
  }
  size_t blk = (size_t)SEL_M * SEL_NP * nr;
  for (int K = 0; K < C; K++) {
    double *dv = c->dv + (size_t)K * blk;
    for (int m = 0; m <= c->M; m++) {
      for (int p = 0; p < SEL_NP; p++) {
        double ps = c->psi[((size_t)K * SEL_M + (size_t)m) * SEL_NP + (size_t)p];
        for (size_t e = 0; e < nr; e++) {
          size_t k = ((size_t)m * SEL_NP + (size_t)p) * nr + e;
          /* Running sum over degrees: block K adds to block K - 1 (indexed from
           * c->dv so that no pointer is formed before the array). */
          double prev = K > 0 ? c->dv[(size_t)(K - 1) * blk + k] : 0.0;
          dv[k] = prev + q->y[(size_t)K + e * q->ldy] * ps;
        }
      }
    }
  }
  for (int m = 0; m <= c->M; m++) {
    double acc = 0.0, fact = 1.0;
    for (int k = 2; k <= m; k++) {
      fact *= k;
    }
    for (int K = 0; K < C; K++) {
      double x = K >= m ? c->rinv[m + (size_t)K * L] : 0.0;
      acc += x * x;
      c->amp[(size_t)K * SEL_M + (size_t)m] = fact * sqrt(acc);
    }
  }
  return LTH_OK;
}

/* The candidates of window w: every degree K <= N - 3 against K + 2. */
static void candidates(sel *c, int w) {
  size_t blk = (size_t)SEL_M * SEL_NP * c->s->nrhs;
  double sig = c->s->sigma_max;
  for (int m = 0; m <= c->M; m++) {
    for (int K = m; K + 2 < c->C && K <= SAMPLES_AUTO_MAX_DEGREE; K++) {
      double T = probe_diff(c, c->dv + (size_t)K * blk, c->dv + (size_t)(K + 2) * blk, m);
      offer(c, w, m, K, T + sig * c->amp[(size_t)K * SEL_M + (size_t)m]);
    }
  }
}

/* The common window and each order's degree on it (see the file comment). */
static void pick(const sel *c, const size_t *Nw, int nw, unsigned *choice) {
  double best[SEL_M];
  for (int m = 0; m <= c->M; m++) {
    best[m] = INFINITY;
    for (int w = 0; w < nw; w++) {
      best[m] = fmin(best[m], c->E[(size_t)w * SEL_M + (size_t)m]);
    }
  }
  int wbest = -1;
  double score[SEL_NWIN], smin = INFINITY;
  for (int w = 0; w < nw; w++) {
    double worst = 0.0;
    for (int m = 0; m <= c->M; m++) {
      double e = c->E[(size_t)w * SEL_M + (size_t)m];
      worst = fmax(worst, best[m] > 0.0 ? e / best[m] : (e > 0.0 ? INFINITY : 1.0));
    }
    score[w] = worst;
    smin = fmin(smin, worst);
  }
  /* the smallest window within a factor SEL_SLACK of the best score: the
   * estimates are not sharper than that, and smaller windows cost less */
  for (int w = nw - 1; w >= 0; w--) {
    wbest = score[w] <= SEL_SLACK * smin ? w : wbest;
  }
  for (int m = 0; m <= c->M; m++) {
    choice[m] = wbest < 0
                    ? 0
                    : (unsigned)c->Kb[(size_t)wbest * SEL_M + (size_t)m] | (unsigned)Nw[wbest] << 8;
  }
}

/* The windows of a cell are nested: each one is factored from the last by
 * adding its new samples as rows, in one fixed variable x = (t - tc) / hs
 * (hs the half-width of the largest window), so that every window's QR
 * costs only its new rows.  Column scaling does not matter: Householder QR
 * is backward stable column by column.  For blocks of few entries the values
 * ride along as extra columns, [V | b]: the QR of [R, y; new rows] by dgeqr2
 * gives the new R and y = Q^T b at once; for larger blocks dtpqrt and dtpmqrt
 * update R and y separately. */
#define GROW_AUG_MAX 16 /* entries up to which the values ride along */

typedef struct grow {
  const samples_state *s;
  size_t cell, k0, N; /* the samples factored so far: k0 .. k0 + N - 1 */
  int C;              /* columns of V */
  int aug;            /* 1: values as extra columns */
  int Ca;             /* C + nrhs (aug) or C: order of the triangle kept */
  double tc, hs;
  double *R; /* Ca x Ca upper triangle, ld Ca: R, and y = R(0:C, C:Ca) when aug */
  double *y; /* C x nrhs (not aug), ld C */
  double *S; /* the stack to factor: (Ca + maxwin) x Ca (aug); maxwin x C (B) */
  double *bv, *T, *lw, *tau;
} grow;

static size_t grow_size(const samples_state *s) {
  size_t c = SEL_COLS, w = (size_t)s->maxwin, nr = s->nrhs, ca = c + nr;
  size_t aug = ca * ca + (ca + w) * ca + 2 * ca;
  size_t sep = c * c + c * nr + w * c + w * nr + c * c + c * (c > nr ? c : nr) + c;
  return nr <= GROW_AUG_MAX ? aug : sep;
}

static void grow_init(grow *g, const samples_state *s, size_t cell, double tc, size_t Nlast,
                      double *mem) {
  size_t c = SEL_COLS, w = (size_t)s->maxwin, nr = s->nrhs, k0 = samples_window(s, cell, Nlast);
  g->s = s;
  g->cell = cell;
  g->N = 0;
  g->k0 = 0;
  g->C = Nlast < c ? (int)Nlast : (int)c;
  g->aug = nr <= GROW_AUG_MAX;
  g->Ca = g->aug ? g->C + (int)nr : g->C;
  g->tc = tc;
  g->hs = 0.0;
  for (size_t k = k0; k < k0 + Nlast; k++) {
    g->hs = fmax(g->hs, fabs(s->t[k] - tc));
  }
  size_t ca = (size_t)g->Ca;
  g->R = mem;
  if (g->aug) {
    g->S = g->R + ca * ca;
    g->tau = g->S + (ca + w) * ca;
    g->lw = g->tau + ca;
    g->y = g->R + (size_t)g->C * ca;
  } else {
    g->y = g->R + c * c;
    g->S = g->y + c * nr;
    g->bv = g->S + w * c;
    g->T = g->bv + w * nr;
    g->lw = g->T + c * c;
  }
  memset(g->R, 0, ca * ca * sizeof *g->R);
  if (!g->aug) {
    memset(g->y, 0, (size_t)g->C * nr * sizeof *g->y);
  }
}

/* Samples k0 .. k1-1 as rows r, r+1, ... of the stack (leading dimension ld):
 * x^j in columns 0..C-1, then (aug) the values; otherwise the values into bv. */
static size_t grow_rows(grow *g, size_t k0, size_t k1, size_t r, size_t ld) {
  size_t nr = g->s->nrhs;
  for (size_t k = k0; k < k1; k++, r++) {
    double x = (g->s->t[k] - g->tc) / g->hs, p = 1.0;
    for (int j = 0; j < g->C; j++, p *= x) {
      g->S[r + (size_t)j * ld] = p;
    }
    double *dst = g->aug ? g->S + r + (size_t)g->C * ld : g->bv + r; /* both with ld */
    for (size_t e = 0; e < nr; e++) {
      dst[e * ld] = g->s->v[k * nr + e];
    }
  }
  return r;
}

/* Factor the stack [R; new rows] (aug). */
static lapack_int grow_aug(grow *g, size_t M) {
  size_t ca = (size_t)g->Ca, ld = ca + M;
  for (size_t j = 0; j < ca; j++) { /* R on top (its lower part is zero) */
    memcpy(g->S + j * ld, g->R + j * ca, ca * sizeof *g->S);
  }
  lapack_int info = LAPACKE_dgeqr2_work(LAPACK_COL_MAJOR, (lapack_int)ld, (lapack_int)ca, g->S,
                                        (lapack_int)ld, g->tau, g->lw);
  for (size_t j = 0; j < ca; j++) {
    for (size_t i = 0; i < ca; i++) {
      g->R[i + j * ca] = i <= j ? g->S[i + j * ld] : 0.0;
    }
  }
  return info;
}

/* Extend the factorisation to the window of N samples. */
static lth_status grow_to(grow *g, size_t N, lth_error *err) {
  size_t k0 = samples_window(g->s, g->cell, N), k1 = k0 + N, p0 = g->k0, p1 = g->k0 + g->N;
  size_t ca = (size_t)g->Ca;
  if (g->N > 0 && (k0 > p0 || k1 < p1)) { /* not nested (never expected): start again */
    memset(g->R, 0, ca * ca * sizeof *g->R);
    if (!g->aug) {
      memset(g->y, 0, (size_t)g->C * g->s->nrhs * sizeof *g->y);
    }
    g->N = 0;
  }
  if (g->N == 0) {
    p0 = p1 = k0;
  }
  size_t M = (p0 - k0) + (k1 - p1), off = g->aug ? ca : 0, ld = off + M;
  if (M == 0) {
    return LTH_OK; /* the same window */
  }
  grow_rows(g, p1, k1, grow_rows(g, k0, p0, off, ld), ld);
  lapack_int info;
  if (g->aug) {
    info = grow_aug(g, M);
  } else {
    lapack_int C = g->C, m = (lapack_int)M, nr = (lapack_int)g->s->nrhs;
    info = LAPACKE_dtpqrt_work(LAPACK_COL_MAJOR, m, C, 0, C, g->R, C, g->S, m, g->T, C, g->lw);
    if (info == 0) {
      info = LAPACKE_dtpmqrt_work(LAPACK_COL_MAJOR, 'L', 'T', m, nr, C, 0, C, g->S, m, g->T, C,
                                  g->y, C, g->bv, m, g->lw);
    }
  }
  g->k0 = k0;
  g->N = N;
  if (info != 0) {
    return lth_error_set_t(err, LTH_ELAPACK, g->tc,
                           "sampled data: QR of the fit on samples %zu..%zu failed (LAPACK info "
                           "%d)",
                           k0 + 1, k1, (int)info);
  }
  return LTH_OK;
}

lth_status samples_select(const samples_state *s, size_t cell, int M, double *work,
                          unsigned *choice, lth_error *err) {
  size_t a, b, L = SEL_COLS, nr = s->nrhs;
  double tc, u;
  samples_cell(s, cell, &a, &b, &tc, &u);
  double xp[SEL_NP] = {-0.5, 0.0, 0.5};
  sel c = {.s = s, .M = M, .C = 0};
  c.rinv = work + grow_size(s);
  c.phi = c.rinv + L * L;
  c.psi = c.phi + (size_t)SEL_M * L * SEL_NP;
  c.dv = c.psi + (size_t)SEL_M * L * SEL_NP;
  c.amp = c.dv + L * SEL_M * SEL_NP * nr;
  c.E = c.amp + L * SEL_M;
  c.Kb = c.E + (size_t)SEL_NWIN * SEL_M;
  for (int p = 0; p < SEL_NP; p++) { /* phi: derivative m of x^j at the probes */
    for (int m = 0; m <= M; m++) {
      double f = 1.0; /* j! / (j - m)! x^(j - m), from j = m up */
      for (size_t j = 0; j < L; j++) {
        double *ph = &c.phi[((size_t)m * L + j) * SEL_NP + (size_t)p];
        if ((int)j < m) {
          *ph = 0.0;
          continue;
        }
        if ((int)j == m) {
          f = 1.0;
          for (int k = 2; k <= m; k++) {
            f *= k;
          }
        } else {
          f *= xp[p] * (double)j / (double)(j - (size_t)m);
        }
        *ph = f;
      }
    }
  }
  for (size_t k = 0; k < (size_t)SEL_NWIN * SEL_M; k++) {
    c.E[k] = INFINITY;
  }
  size_t nmax = s->n < (size_t)s->maxwin ? s->n : (size_t)s->maxwin, Nw[SEL_NWIN];
  size_t N0 = b - a + 1 > 4 ? b - a + 1 : 4;
  int nw = 0;
  for (size_t N = N0 < nmax ? N0 : nmax; N <= nmax && nw < SEL_NWIN; N = next_window(N)) {
    Nw[nw++] = N;
  }
  lth_status st = LTH_OK;
  grow g;
  grow_init(&g, s, cell, tc, Nw[nw - 1], work);
  for (int w = 0; w < nw && st == LTH_OK; w++) {
    st = grow_to(&g, Nw[w], err);
    winfac q = {.R = g.R,
                .y = g.y,
                .ldR = (size_t)g.Ca,
                .ldy = g.aug ? (size_t)g.Ca : (size_t)g.C,
                .C = Nw[w] < (size_t)g.C ? (int)Nw[w] : g.C,
                .hs = g.hs,
                .tc = tc,
                .k0 = g.k0,
                .N = Nw[w]};
    if (st == LTH_OK) {
      st = window_sums(&c, &q, u, err);
    }
    c.C = q.C;
    if (st == LTH_OK) {
      candidates(&c, w);
    }
  }
  if (st != LTH_OK) {
    return st;
  }
  pick(&c, Nw, nw, choice);
  return LTH_OK;
}
