/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Chebyshev kernels of the coefficient table (include/lth/table.h): values at
 * Chebyshev-Lobatto points -> coefficients, the error estimate that accepts or
 * rejects a panel, storage of accepted panels, and evaluation (Clenshaw).
 *
 * On a panel [a, b] the nodes of degree n are t_j = a + (b - a)(1 - cos(pi j/n))/2,
 * j = 0..n, i.e. x_j = -cos(pi j/n) in x = (2t - a - b)/(b - a).  The
 * interpolant is p(x) = sum_k c_k T_k(x) with (discrete cosine transform I)
 *     c_k = (2/n) sum''_j f_j T_k(x_j),  T_k(x_j) = (-1)^k cos(pi k j/n),
 * the sum'' halving the terms j = 0, n, and c_0, c_n halved.  For data
 * analytic in a neighbourhood of the panel, |c_k| decays geometrically (faster
 * for entire functions), and the trailing coefficients measure the error:
 * |f - p| <= 2 sum_{k>n} |a_k| for the exact coefficients a_k.
 */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "coef_table_impl.h"

#define TAB_PI 3.14159265358979323846
/* A flat tail at the highest degree may be noise of the decomposition
 * (rounding, amplified by the conditioning and by large |t| in the data's
 * arguments), which the direct path carries as well, or a kink in the data
 * (coefficients decaying like k^-2).  The builder tells them apart by halving
 * the panel: noise stays, a kink's coefficients halve.  Noise is accepted up to
 * max(TAB_NOISE_REL, 100 tol), and the tolerance of the following panels is
 * raised to its level. */
#define TAB_NOISE_REL 1e-12

/* DCT-I: values at n + 1 Lobatto points -> coefficients. */
static double *dct_alloc(int n) {
  double *T = malloc(sizeof(double) * (size_t)(n + 1) * (size_t)(n + 1));
  if (!T) {
    return NULL;
  }
  for (int j = 0; j <= n; j++) {
    double wj = (j == 0 || j == n) ? 0.5 : 1.0;
    for (int k = 0; k <= n; k++) {
      double wk = (k == 0 || k == n) ? 0.5 : 1.0;
      int kj = (k * j) % (2 * n); /* cos(pi k j / n) with an exact argument */
      double v = cos(TAB_PI * (double)kj / (double)n);
      T[k + (size_t)j * (n + 1)] = (2.0 / n) * wj * wk * ((k & 1) ? -v : v);
    }
  }
  return T;
}

/* T_k^(d)(x), d = 0..o, k = 0..D (row d of out, leading dimension D+1), from
 * the differentiated recurrence T_k^(d) = 2x T_{k-1}^(d) + 2d T_{k-1}^(d-1) - T_{k-2}^(d). */
static void cheb_derivs(double x, int D, int o, double *out) {
  for (int d = 0; d <= o; d++) {
    double *u = out + (size_t)d * (D + 1), *up = d ? out + (size_t)(d - 1) * (D + 1) : NULL;
    for (int k = 0; k <= D; k++) {
      if (k == 0) {
        u[0] = d == 0 ? 1.0 : 0.0;
      } else if (k == 1) {
        u[1] = d == 0 ? x : (d == 1 ? 1.0 : 0.0);
      } else {
        u[k] = 2 * x * u[k - 1] + (d ? 2.0 * d * up[k - 1] : 0.0) - u[k - 2];
      }
    }
  }
}

/* Confluent (Hermite) interpolation at the Lobatto points with jets of order
 * o >= 1: the matrix M (row j(o+1)+d: T_k^(d)(x_j) / d!) is inverted once,
 * rows equilibrated first (values and derivatives differ by up to D^2 in
 * size; equilibrated, its condition number is 31 .. 250 for o = 1 and D <= 65). */
static double *hermite_alloc(int n, int o) {
  int D = (n + 1) * (o + 1) - 1, N = D + 1;
  double *M = malloc(sizeof(double) * (size_t)N * N), *X = malloc(sizeof(double) * (size_t)N * N);
  double *r = malloc(sizeof(double) * (size_t)N),
         *row = malloc(sizeof(double) * (size_t)(o + 1) * N);
  lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)N);
  lapack_int info = -1;
  if (M && X && r && row && ipiv) {
    /* unnormalised derivatives first: T_k^(d); divide by d! after */
    for (int j = 0; j <= n; j++) {
      cheb_derivs(-cos(TAB_PI * j / n), D, o, row);
      double fact = 1.0;
      for (int d = 0; d <= o; d++) {
        if (d) fact *= d;
        for (int k = 0; k < N; k++)
          M[(j * (o + 1) + d) + (size_t)k * N] = row[(size_t)d * N + k] / fact;
      }
    }
    for (int i = 0; i < N; i++) {
      double mx = 0.0;
      for (int k = 0; k < N; k++) mx = fmax(mx, fabs(M[i + (size_t)k * N]));
      r[i] = mx > 0 ? 1.0 / mx : 1.0;
      for (int k = 0; k < N; k++) M[i + (size_t)k * N] *= r[i];
      for (int k = 0; k < N; k++) X[i + (size_t)k * N] = i == k ? r[i] : 0.0; /* X = diag(r) */
    }
    info = LAPACKE_dgesv(LAPACK_COL_MAJOR, N, N, M, N, ipiv, X, N); /* X = M_eq^-1 diag(r) */
  }
  free(M);
  free(r);
  free(row);
  free(ipiv);
  if (info != 0) {
    free(X);
    return NULL;
  }
  return X;
}

/* The transforms depend on (n, o) only, and the Hermite ones cost an LU of
 * order up to 195: computed at first use (a collocation or IVP run of a small
 * system spent 5 % of its time recomputing them for every table), kept for the
 * life of the process. */
static pthread_mutex_t transform_mu = PTHREAD_MUTEX_INITIALIZER;
static double *transform_cache[3][5]; /* [o][log2(n) - 2] */

const double *tab_transform_get(int n, int o) {
  int k = 0;
  while ((4 << k) < n && k < 4) k++;
  if (o < 0 || o > 2 || (4 << k) != n) return NULL;
  pthread_mutex_lock(&transform_mu);
  if (!transform_cache[o][k]) {
    transform_cache[o][k] = o == 0 ? dct_alloc(n) : hermite_alloc(n, o);
  }
  const double *T = transform_cache[o][k];
  pthread_mutex_unlock(&transform_mu);
  return T;
}

static int level_of(const lth_table *tab, int n) {
  int lev = 0;
  while ((tab->lay.nmin << lev) < n) lev++;
  return lev;
}

void tab_transform(lth_table *tab, int n, double w) {
  int s = TAB_NMAX / n, E = tab->lay.E, R = tab->cur.rows_now, o = tab->lay.jet,
      D = tab_degree(tab, n);
  /* F: column j(o+1)+d = Taylor coefficient d at node j times (w/2)^d, the
   * coefficient of (x - x_j)^d in the panel variable x */
  for (int j = 0; j <= n; j++) {
    double sc = 1.0;
    for (int d = 0; d <= o; d++) {
      const double *src = tab->cur.V + ((size_t)j * s * (o + 1) + d) * E;
      double *dst = tab->cur.F + ((size_t)j * (o + 1) + d) * E;
      for (int e = 0; e < R; e++) dst[e] = sc * src[e];
      sc *= 0.5 * w;
    }
  }
  /* C (R x (D+1), leading dimension E) = F (R x (D+1)) * T^T: the first R
   * entries, without the output maps when the panel leaves them out */
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, R, D + 1, D + 1, 1.0, tab->cur.F, E,
              tab->lay.T[level_of(tab, n)], D + 1, 0.0, tab->cur.C, E);
}

/* max(a, b) ignoring a NaN b, as fmax does, without libm's call (fmax is
 * not inlined without -ffinite-math-only: 3 % of a small IVP run went to it
 * in these loops). */
static inline double bigger(double a, double b) { return b > a ? b : a; }

void tab_magnitudes(lth_table *tab, int n) {
  int s = TAB_NMAX / n, E = tab->lay.E, o = tab->lay.jet, D = tab_degree(tab, n);
  int nf = tab->cur.outs_now ? tab->lay.nfields : TAB_P + 1;
  for (int f = 0; f < nf; f++) {
    const tab_field *F = &tab->lay.fld[f];
    double mx = 1.0;
    for (int j = 0; j <= n; j++) {
      const double *v = tab->cur.V + (size_t)j * s * (o + 1) * E + F->off;
      for (int e = 0; e < F->rows * F->cols; e++) mx = bigger(mx, fabs(v[e]));
    }
    tab->cur.scale[f] = mx;
  }
  for (int k = 0; k <= D; k++) {
    const double *c = tab->cur.C + (size_t)k * E;
    double all = 0.0, rhs = 0.0;
    for (int f = 0; f < nf; f++) {
      const tab_field *F = &tab->lay.fld[f];
      double mx = 0.0;
      for (int e = 0; e < F->rows * F->cols; e++) mx = bigger(mx, fabs(c[F->off + e]));
      mx /= tab->cur.scale[f];
      all = fmax(all, mx);
      if (f <= TAB_P) rhs = fmax(rhs, mx);
    }
    tab->cur.mag[k] = all;
    tab->cur.mag_rhs[k] = rhs;
  }
}

static double maxrange(const double *x, int lo, int hi) {
  double m = 0.0;
  for (int k = lo; k <= hi; k++) m = fmax(m, x[k]);
  return m;
}

/* Last d with mag[d] > level (0 if none), and the sum of the magnitudes after it. */
static int chop_above(const double *mag, int n, double level, double *dropped) {
  double sum = 0.0;
  int d = n;
  while (d > 0 && mag[d] <= level) {
    sum += mag[d];
    d--;
  }
  *dropped = sum;
  return d;
}

tab_verdict tab_judge(const lth_table *tab, int n) {
  /* n is the degree D of the level here.  Magnitudes below thr count as zero:
   * tol / 8, or twice the noise met on earlier panels. */
  tab_verdict v;
  memset(&v, 0, sizeof v);
  double thr = fmax(tab->o.tol / 8, 2 * tab->bld.noise_floor);
  int nt = n / 8 > 3 ? n / 8 : 3;
  v.tail = maxrange(tab->cur.mag, n - nt + 1, n);
  v.converged = v.tail <= thr;
  /* Decay rate from the head (k = 1 .. n/8) to the tail: the degree at which
   * the coefficients would reach thr at this width. */
  int k1 = n / 8 > 1 ? n / 8 : 1, k2 = n - nt + 1;
  double head = maxrange(tab->cur.mag, 1, k1);
  if (v.converged || head <= thr) {
    v.need = n;
  } else if (v.tail >= head || v.tail <= 0) {
    v.need = INFINITY;
  } else {
    double slope = log(v.tail / head) / (double)(k2 - k1);
    v.need = k1 + log(thr / head) / slope;
  }
  /* Candidate noise: a flat tail (no decay over the last half), small. */
  double q4 = 0.0;
  if (!v.converged && n == tab_dmax(tab)) {
    double q3 = maxrange(tab->cur.mag, n / 2 + 1, 3 * n / 4);
    q4 = maxrange(tab->cur.mag, 3 * n / 4 + 1, n);
    v.noise = q4 >= 0.25 * q3 && v.tail <= fmax(TAB_NOISE_REL, 100 * tab->o.tol);
    v.noise_level = q4;
  }
  /* Keep the coefficients up to the last one above the threshold (for noise:
   * twice the plateau): the dropped ones decay (their sum is a few times the
   * threshold) or are noise (which kept would only spoil the derivative of
   * the interpolant, n^2 / width times its size, and with it how well the
   * flow keeps v in range(I - P)).  The estimate adds what was dropped to
   * twice the trailing magnitude. */
  double level = v.noise ? 2 * q4 : thr, dropped, dropped_rhs;
  v.deg = chop_above(tab->cur.mag, n, level, &dropped);
  v.deg_rhs = chop_above(tab->cur.mag_rhs, v.deg, level, &dropped_rhs);
  v.err_est = v.noise ? 4 * q4 : dropped + 2 * v.tail;
  v.reach = v.deg;
  return v;
}

static lth_status new_panel(lth_table *tab, double a, double b, tab_panel **out, lth_error *err) {
  if (tab->store.np == tab->store.pcap) {
    size_t nc = tab->store.pcap ? 2 * tab->store.pcap : 64;
    tab_panel *np = realloc(tab->store.panels, nc * sizeof *np);
    if (!np) {
      return lth_error_set(err, LTH_ENOMEM, "out of memory growing the coefficient table");
    }
    tab->store.panels = np;
    tab->store.pcap = nc;
  }
  tab_panel *p = &tab->store.panels[tab->store.np];
  memset(p, 0, sizeof *p);
  p->a = a;
  p->b = b;
  *out = p;
  return LTH_OK;
}

/* Derivative series: d_{k-1} = d_{k+1} + 2k c_k (k = deg..1), d_0 halved, times 2/(b-a). */
static void derivative(const double *c, int deg, int E, int cnt, double w, double *d) {
  memset(d, 0, sizeof(double) * (size_t)(deg > 0 ? deg : 1) * cnt);
  for (int e = 0; e < cnt; e++) {
    double d1 = 0.0, d2 = 0.0; /* d_{k}, d_{k+1} */
    for (int k = deg; k >= 1; k--) {
      double dk1 = d2 + 2.0 * k * c[(size_t)k * E + e];
      d[(size_t)(k - 1) * cnt + e] = dk1;
      d2 = d1;
      d1 = dk1;
    }
    if (deg > 0) d[e] *= 0.5;
    for (int k = 0; k < deg; k++) d[(size_t)k * cnt + e] *= 2.0 / w;
  }
}

lth_status tab_store(lth_table *tab, double a, double b, const tab_verdict *v, lth_error *err) {
  tab_panel *p = NULL;
  int E = tab->lay.E, Er = tab->lay.E_rhs, R = tab->cur.rows_now;
  size_t nc = (size_t)(v->deg + 1) * R;
  size_t nd = tab->o.deriv ? (size_t)(v->deg_rhs > 0 ? v->deg_rhs : 1) * Er : 0;
  double *c = NULL, *d = NULL;
  lth_status st = new_panel(tab, a, b, &p, err);
  if (st == LTH_OK) st = tab_store_claim(tab, nc, nd, p, &c, &d, err);
  if (st != LTH_OK) {
    return st;
  }
  p->deg = v->deg;
  p->deg_rhs = v->deg_rhs;
  p->err_est = v->err_est;
  for (int f = 0; f < 3; f++) p->fscale[f] = tab->cur.scale[TAB_AHAT + f];
  p->outs = tab->cur.outs_now;
  p->ld = R;
  if (R == E) {
    memcpy(c, tab->cur.C, nc * sizeof(double));
  } else {
    for (int k = 0; k <= v->deg; k++) {
      memcpy(c + (size_t)k * R, tab->cur.C + (size_t)k * E, (size_t)R * sizeof(double));
    }
  }
  if (nd) {
    derivative(tab->cur.C, v->deg_rhs, E, Er, b - a, d);
  }
  tab->store.np++;
  tab->stats.max_degree = v->deg > tab->stats.max_degree ? v->deg : tab->stats.max_degree;
  tab->stats.err_est = fmax(tab->stats.err_est, v->err_est);
  return LTH_OK;
}

lth_status tab_store_direct(lth_table *tab, double a, double b, lth_error *err) {
  tab_panel *p = NULL;
  lth_status st = new_panel(tab, a, b, &p, err);
  if (st == LTH_OK) {
    p->direct = 1;
    tab->store.np++;
    tab->stats.direct_panels++;
  }
  return st;
}

/* ---- evaluation ---- */

typedef double tab_v4 __attribute__((vector_size(32))); /* GCC/Clang vector extension */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__gnu_linux__)
#define TAB_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define TAB_CLONES
#endif

/* One Clenshaw step b_k = (c_k - b_{k+2}) + 2x b_{k+1} of one 4-vector
 * (u = c_k): c_k - b_{k+2} is ready a step ahead, so the chain from b_{k+1}
 * to b_k is a multiply and an add. */
#define TAB_STEP(u, p1, p2)                                                                        \
  do {                                                                                             \
    tab_v4 t_ = ((u) - (p2)) + x2 * (p1);                                                          \
    (p2) = (p1);                                                                                   \
    (p1) = t_;                                                                                     \
  } while (0)
/* u = the 4 entries at src (+ s2 times those at src2 when add2) */
#define TAB_LOAD(u, src, src2)                                                                     \
  do {                                                                                             \
    memcpy(&(u), (src), sizeof(tab_v4));                                                           \
    if (add2) {                                                                                    \
      tab_v4 d_;                                                                                   \
      memcpy(&d_, (src2), sizeof(tab_v4));                                                         \
      (u) = (u) + s2v * d_;                                                                        \
    }                                                                                              \
  } while (0)

/* Sixteen entries (lanes = 16: four independent recurrences) or eight (two)
 * of the series at c (+ s2 c2 when add2), rows ld apart, into out[0 .. lanes-1]. */
static inline void clenshaw_block(const double *c, const double *c2, int add2, double s2, size_t ld,
                                  int deg, double x, int lanes, double *out) {
  tab_v4 x2 = {2 * x, 2 * x, 2 * x, 2 * x}, x1 = {x, x, x, x}, s2v = {s2, s2, s2, s2};
  tab_v4 a1 = {0}, a2 = {0}, b1 = {0}, b2 = {0}, e1 = {0}, e2 = {0}, f1 = {0}, f2 = {0};
  tab_v4 u0, u1, u2 = {0}, u3 = {0};
  for (int k = deg; k > 0; k--) {
    const double *r = c + (size_t)k * ld, *r2 = c2 + (size_t)k * ld;
    TAB_LOAD(u0, r, r2);
    TAB_LOAD(u1, r + 4, r2 + 4);
    TAB_STEP(u0, a1, a2);
    TAB_STEP(u1, b1, b2);
    if (lanes == 16) {
      TAB_LOAD(u2, r + 8, r2 + 8);
      TAB_LOAD(u3, r + 12, r2 + 12);
      TAB_STEP(u2, e1, e2);
      TAB_STEP(u3, f1, f2);
    }
  }
  TAB_LOAD(u0, c, c2);
  TAB_LOAD(u1, c + 4, c2 + 4);
  u0 = (u0 - a2) + x1 * a1;
  u1 = (u1 - b2) + x1 * b1;
  memcpy(out, &u0, sizeof u0);
  memcpy(out + 4, &u1, sizeof u1);
  if (lanes == 16) {
    TAB_LOAD(u2, c + 8, c2 + 8);
    TAB_LOAD(u3, c + 12, c2 + 12);
    u2 = (u2 - e2) + x1 * e1;
    u3 = (u3 - f2) + x1 * f1;
    memcpy(out + 8, &u2, sizeof u2);
    memcpy(out + 12, &u3, sizeof u3);
  }
}

/* out[0..cnt-1] = sum_{k<=deg} c[k*ld + e] T_k(x) (Clenshaw), sixteen entries
 * at a time in four independent 4-vector recurrences that stay in registers,
 * so that only the coefficients are loaded and the chains overlap (the
 * table's evaluation is most of an integrator's right-hand side; eight
 * entries in two chains, each step a multiply, a subtraction and an addition
 * in sequence, were latency-bound: 0.64 us per idx3 right-hand side).  Cloned
 * for AVX2 where the CPU has it.  Every entry sees the same operations in the
 * same order (no contraction): the clones agree bitwise, and so do entries
 * computed twice where the last block overlaps the one before.  room (>= cnt):
 * entries readable in each row from c and c2; a field of fewer than eight
 * entries is summed in eight lanes in place when the row has room, else
 * through a zero-padded copy.  With c2 != NULL the series summed is that of
 * c + s2 c2 (entry by entry, same layout): Ahat + w P in one pass. */
TAB_CLONES
static void clenshaw2(const double *c, const double *c2, double s2, size_t ld, int deg, int cnt,
                      int room, double x, double *out) {
  int add2 = c2 != NULL;
  const double *d = add2 ? c2 : c; /* (read, unused, when not add2) */
  if (cnt < 8 && room >= 8) {
    /* a small field inside a longer row: eight lanes, the entries after it
     * summed along and dropped */
    double res[8];
    clenshaw_block(c, d, add2, s2, ld, deg, x, 8, res);
    memcpy(out, res, sizeof(double) * (size_t)cnt);
    return;
  }
  if (cnt < 8) {
    /* a small field at the end of a row: through a zero-padded block of eight */
    double pc[(TAB_DMAX + 1) * 8], pd[(TAB_DMAX + 1) * 8], res[8];
    deg = deg < 0 ? 0 : (deg > TAB_DMAX ? TAB_DMAX : deg);
    memset(pc, 0, sizeof(double) * 8 * (size_t)(deg + 1));
    memset(pd, 0, sizeof(double) * 8 * (size_t)(deg + 1));
    for (int k = 0; k <= deg; k++) {
      memcpy(pc + (size_t)k * 8, c + (size_t)k * ld, sizeof(double) * (size_t)cnt);
      memcpy(pd + (size_t)k * 8, d + (size_t)k * ld, sizeof(double) * (size_t)cnt);
    }
    clenshaw_block(pc, pd, add2, s2, 8, deg, x, 8, res);
    memcpy(out, res, sizeof(double) * (size_t)cnt);
    return;
  }
  /* blocks of sixteen; the last block ends at cnt and may overlap the one
   * before it (recomputing entries bitwise the same: no padding copies) */
  for (int e0 = 0; e0 < cnt;) {
    int rest = cnt - e0, lanes = rest >= 16 || (rest > 8 && cnt >= 16) ? 16 : 8;
    int at = rest >= lanes ? e0 : cnt - lanes;
    clenshaw_block(c + at, d + at, add2, s2, ld, deg, x, lanes, out + at);
    e0 = at + lanes;
  }
}

static void clenshaw(const double *c, size_t ld, int deg, int cnt, int room, double x,
                     double *out) {
  clenshaw2(c, NULL, 0.0, ld, deg, cnt, room, x, out);
}

/* Field f of the panel into coefficient `coef` of jet J. */
static void eval_field(const lth_table *tab, const double *c, size_t ld, int deg, int f, double x,
                       lth_jet *J, int coef) {
  const tab_field *F = &tab->lay.fld[f];
  if (J->ld == F->rows) { /* contiguous (lth_point_alloc's jets): one sum for the field */
    clenshaw(c + F->off, ld, deg, F->rows * F->cols, (int)ld - F->off, x, LTH_JET_COEF(J, coef));
    return;
  }
  for (int j = 0; j < F->cols; j++) {
    clenshaw(c + F->off + (size_t)j * F->rows, ld, deg, F->rows, (int)ld - F->off - j * F->rows, x,
             LTH_JET_COEF(J, coef) + (size_t)j * J->ld);
  }
}

/* The panel holding t: the hint (the last panel used) first, as integrators
 * ask for nearby times; then bisection. */
static const tab_panel *find_panel(const lth_table *tab, double t, size_t *hint) {
  size_t lo = 0, hi = tab->store.np;
  if (hi == 0 || t < tab->store.panels[0].a || t > tab->store.panels[hi - 1].b) {
    return NULL;
  }
  if (hint) {
    size_t h = *hint < hi ? *hint : hi - 1;
    for (size_t k = h > 0 ? h - 1 : 0; k <= h + 1 && k < hi; k++) {
      if (tab->store.panels[k].a <= t && t <= tab->store.panels[k].b) {
        *hint = k;
        return &tab->store.panels[k];
      }
    }
  }
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (tab->store.panels[mid].a <= t)
      lo = mid;
    else
      hi = mid;
  }
  if (hint) *hint = lo;
  return &tab->store.panels[lo];
}

double lth_table_panel_end(const lth_table *tab, double t, int degree) {
  const tab_panel *p = find_panel(tab, t, NULL);
  return p && !p->direct && p->deg_rhs <= degree && p->b > t ? p->b : t;
}

static lth_jet *field_jet(lth_point *pt, int f) {
  lth_jet *list[TAB_NFIELDS] = {&pt->Ahat, &pt->g, &pt->P, &pt->Bhat, &pt->q, &pt->G};
  return list[f];
}

lth_status lth_table_eval(const lth_table *tab, double t, int order, int outputs, lth_point *pt,
                          lth_decomp_ws *ws, lth_error *err) {
  return lth_table_eval_hint(tab, t, order, outputs, pt, ws, NULL, err);
}

lth_status lth_table_eval_hint(const lth_table *tab, double t, int order, int outputs,
                               lth_point *pt, lth_decomp_ws *ws, size_t *hint, lth_error *err) {
  if (order < 0 || order > tab->o.deriv || order > pt->order || (outputs && !tab->o.outputs) ||
      pt->m != tab->lay.m || pt->s != tab->lay.s) {
    return lth_error_set(err, LTH_EINVAL,
                         "table evaluation of order %d%s not prepared by this table", order,
                         outputs ? " with output maps" : "");
  }
  const tab_panel *p = find_panel(tab, t, hint);
  if (!p) {
    return lth_error_set_t(err, LTH_ERANGE, t, "outside the built table [%.17g, %.17g]",
                           tab->lay.t_lo, tab->bld.covered);
  }
  if (p->direct) {
    if (!ws) {
      return lth_error_set_t(err, LTH_ERANGE, t,
                             "t is on a panel the table left to direct decomposition");
    }
    return lth_decomp_at(ws, t, pt, err);
  }
  if (outputs && !p->outs) {
    /* the output maps of this panel were left to direct decomposition */
    if (!ws) {
      return lth_error_set_t(err, LTH_ERANGE, t, "the table does not carry the output maps at t");
    }
    return lth_decomp_at(ws, t, pt, err);
  }
  double w = p->b - p->a, x = (2.0 * t - p->a - p->b) / w;
  x = fmax(-1.0, fmin(1.0, x));
  int deg = outputs ? p->deg : p->deg_rhs;
  const double *c = tab_panel_coef(tab, p);
  for (int f = 0; f <= TAB_P; f++) {
    lth_jet *J = field_jet(pt, f);
    eval_field(tab, c, (size_t)p->ld, deg, f, x, J, 0);
    if (order >= 1) {
      /* degree deg_rhs - 1; a constant panel stores one zero coefficient */
      int dd = p->deg_rhs > 0 ? p->deg_rhs - 1 : 0;
      eval_field(tab, tab_panel_dcoef(tab, p), (size_t)tab->lay.E_rhs, dd, f, x, J, 1);
    }
    J->order = order;
  }
  for (int f = TAB_BHAT; outputs && f < TAB_NFIELDS; f++) {
    lth_jet *J = field_jet(pt, f);
    eval_field(tab, c, (size_t)p->ld, deg, f, x, J, 0);
    J->order = 0;
  }
  pt->t = t;
  pt->cond_pi = p->cond_pi;
  pt->cond_chain = p->cond_chain;
  pt->pi_sign = p->pi_sign;
  return LTH_OK;
}

lth_status lth_table_eval_rhs(const lth_table *tab, double t, double w, lth_point *pt, size_t *hint,
                              lth_error *err) {
  const tab_panel *p = find_panel(tab, t, hint);
  if (!p || p->direct || pt->m != tab->lay.m || tab->lay.fld[TAB_AHAT].rows != pt->Ahat.ld ||
      tab->lay.fld[TAB_G].rows != pt->g.ld) {
    return lth_error_set_t(err, LTH_ERANGE, t,
                           "t is not on a tabulated panel (or the point's jets are not "
                           "contiguous)");
  }
  double width = p->b - p->a, x = fmax(-1.0, fmin(1.0, (2.0 * t - p->a - p->b) / width));
  const double *c = tab_panel_coef(tab, p);
  const tab_field *A = &tab->lay.fld[TAB_AHAT], *G = &tab->lay.fld[TAB_G],
                  *P = &tab->lay.fld[TAB_P];
  int ld = p->ld, room = ld - (A->off > P->off ? A->off : P->off);
  clenshaw2(c + A->off, c + P->off, w, (size_t)ld, p->deg_rhs, A->rows * A->cols, room, x,
            pt->Ahat.c);
  clenshaw(c + G->off, (size_t)ld, p->deg_rhs, G->rows, ld - G->off, x, pt->g.c);
  pt->Ahat.order = 0;
  pt->g.order = 0;
  pt->P.order = -1; /* not evaluated */
  pt->t = t;
  pt->cond_pi = p->cond_pi;
  pt->cond_chain = p->cond_chain;
  pt->pi_sign = p->pi_sign;
  return LTH_OK;
}

void lth_table_info_get(const lth_table *tab, lth_table_info *info) {
  memset(info, 0, sizeof *info);
  info->t_lo = tab->lay.t_lo;
  info->t_hi = tab->lay.t_hi;
  info->covered = tab->bld.covered;
  info->panels = tab->store.np;
  info->direct_panels = tab->stats.direct_panels;
  info->nodes = tab->stats.nodes;
  info->decomps = tab->stats.decomps;
  info->bytes = tab->store.stored * sizeof(double);
  info->work_bytes = tab->store.work;
  info->max_degree = tab->stats.max_degree;
  info->err_est = tab->stats.err_est;
  info->cond_chain = tab->stats.cond_chain;
  info->seconds = tab->stats.seconds;
  info->threads = tab->thr.nthreads;
}
