/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: the coefficient table (include/lth/table.h) -- panels, the
 * coefficient pool, the builder's scratch, and the Chebyshev kernels shared by
 * lib/table/coef_table.c (building) and lib/table/coef_table_cheb.c (transforms,
 * analysis, evaluation). */
#ifndef LTH_COEF_TABLE_IMPL_H
#define LTH_COEF_TABLE_IMPL_H

#include <pthread.h>

#include "core/threads.h"
#include "lth/enclose.h"
#include "lth/table.h"

/* Nodes: Chebyshev-Lobatto points of a panel, n + 1 of them, n = nmin << level
 * for 4 levels (the points of one level are the even points of the next), all
 * positions of the finest grid (n = TAB_NMAX).  With jets of order o at the
 * nodes (values and o derivatives, lth_table_opts.jet_order) the interpolant
 * of a level has degree D = (n + 1)(o + 1) - 1; nmin = 8 for o = 0 (degrees 8,
 * 16, 32, 64), 4 otherwise (o = 1: 9, 17, 33, 65; o = 2: 14, 26, 50, 98). */
#define TAB_LEVELS 4
#define TAB_NMAX   64
#define TAB_MAXJET 2
#define TAB_DMAX   98

/* Fields in the order of the entries: the right-hand side needs a prefix. */
enum { TAB_AHAT, TAB_G, TAB_P, TAB_BHAT, TAB_Q, TAB_GMAP, TAB_NFIELDS };

typedef struct tab_field {
  int off, rows, cols; /* entries off .. off + rows*cols - 1, column-major */
} tab_field;

typedef struct tab_panel {
  double a, b;
  int direct;  /* 1: not tabulated, evaluations decompose */
  int deg;     /* degree kept for every entry */
  int deg_rhs; /* degree needed by the Ahat, g, P entries (<= deg) */
  int pi_sign;
  double cond_pi, cond_chain, err_est;
  double fscale[3]; /* max(1, max |F|) of Ahat, g, P on the panel: err_est * fscale[f] bounds
                       the absolute error of F (lth_table_rhs_error) */
  int mu_known; /* mu: the log-norm of Ahat - mu_gamma P on the panel (lib/table/coef_table_bias.c)
                 */
  double mu, mu_gamma;
  int outs;    /* 1: Bhat, q, G tabulated too (else evaluated directly) */
  int ld;      /* entries per coefficient: E with the output maps, E_rhs without */
  int chunk;   /* where the coefficients are: chunks[chunk] */
  size_t off;  /* coefficient k of entry e at chunks[chunk].c[off + k*ld + e] */
  size_t doff; /* derivative (deriv): coefficient k at .d[doff + k*E_rhs + e] */
} tab_panel;

/* Coefficients are stored in chunks that never move (lib/table/coef_store.c):
 * c[0 .. cn-1] of ccap, derivative series d[0 .. dn-1] of dcap. */
typedef struct tab_chunk {
  double *c, *d;
  size_t cn, ccap, dn, dcap;
} tab_chunk;

/* One node of the degree-64 grid of the panel being built (its error
 * record, 0.8 kB, is apart: tab_current.node_err). */
typedef struct tab_node {
  int done;
  lth_status st;
  int pi_sign;
  double cond_pi, cond_chain;
} tab_node;

/* Where the table lives and what one entry of it holds. */
typedef struct tab_layout {
  double t_lo, t_hi;
  double span;        /* the whole table's length (a stretch's table: its parent's) */
  int m, s, E, E_rhs; /* state dimension, system size, entries with and without the outputs */
  int jet, nmin;      /* jet order o at the nodes, nodes of the first level */
  tab_field fld[TAB_NFIELDS];
  int nfields;
  const double *T[TAB_LEVELS]; /* data -> coefficients, (D+1) x (D+1) per level (shared) */
} tab_layout;

/* Where the building stands, and the settings that steer it. */
typedef struct tab_builder {
  double covered;        /* panels cover [t_lo, covered] */
  double w_next;         /* width to try next (0: none yet) */
  double w_ref;          /* last accepted tabulated width (0: none yet) */
  double noise_floor;    /* coefficient noise met on earlier panels (relative), decaying */
  double noise_seen;     /* the largest noise plateau confirmed so far */
  int left_known;        /* node 0 (= covered) already decomposed */
  int left_sign;         /* sign of det Pi at the left end of the last direct panel */
  int given_up;          /* panels given up since the last tabulated one (give_up_panel) */
  lth_enclose *enc;      /* the data's enclosures: a panel's width is capped where they show
                            more than its nodes can see (NULL or unknown: no cap) */
  double enc_lo, enc_hi; /* a stretch on which they found the data resolved */
  double enc_cut;        /* the width they cut the last panel to (0: not cut) */
  /* Output maps per panel: tabulating Bhat, q, G costs about as much per
   * panel as a dozen direct decompositions (idx3 over [0, 10]: 1.9 -> 2.6 ms
   * for 5 panels), so a panel carries them only when about TAB_OUT_PER_PANEL
   * output evaluations are expected on it (out_density: per unit t, from the
   * caller; INFINITY by default); the others are decomposed directly. */
  double out_density;
  int splitting; /* building one stretch of a split build (lib/table/coef_table_split.c) */
  int no_split;  /* a stretch's own table: never split again */
  size_t budget; /* decompositions at which this build stops (0: none; lth_table_build_budget) */
} tab_builder;

/* The panel being built. */
typedef struct tab_current {
  int outs_now, rows_now; /* its outs, and E or E_rhs */
  double *V;              /* E x (o+1)(TAB_NMAX + 1): Taylor coefficient d (in t) of node J at
                             column J (o+1) + d */
  double *F;              /* E x (D+1): the data of one level, scaled to x = the panel in [-1, 1] */
  double *C;              /* E x (D+1): coefficients of the current level */
  double *mag, *mag_rhs;  /* D+1: max over entries of |c_k| / scale */
  double scale[TAB_NFIELDS];
  tab_node node[TAB_NMAX + 1];
  lth_error *node_err; /* [TAB_NMAX + 1]: node J's error, set by compute_node and read only
                          where node[J].st is not LTH_OK; never zeroed as a whole (in the
                          table struct, zeroing 65 of them cost 6 % of a small solve) */
} tab_current;

/* Accepted panels and their coefficients. */
typedef struct tab_storage {
  tab_panel *panels;
  size_t np, pcap;
  tab_chunk *chunks; /* a merged stretch's chunks join the list as they are */
  size_t nchunks, chunk_cap;
  size_t stored;     /* doubles in use over all chunks (the memory budget counts these) */
  size_t work;       /* bytes of the work arrays and the threads' workspaces (counted too) */
  size_t work1;      /* the same for one thread (a stretch's table) */
  size_t chunk_hint; /* capacity of the first chunk (0: small; a stretch: its estimate) */
} tab_storage;

/* Threads: a decomposition workspace per thread, the pool (lib/core/threads.h)
 * and the job board of a level's nodes.  The calling thread runs the panel
 * logic, publishes each level's nodes and takes its share; pool tasks
 * (submitted once the build has cost TAB_SERIAL_SECONDS) claim the rest one by
 * one.  Nobody waits for a task that has not started (lth_pool_wait runs it,
 * on an empty board), so a descheduled thread on a busy machine costs nothing. */
typedef struct tab_task {
  lth_table *tab;
  int tid; /* the workspace it uses (1 .. nthreads - 1) */
} tab_task;

typedef struct tab_threads {
  int nthreads;       /* threads the table may use, the calling one included */
  lth_decomp_ws **ws; /* [nthreads]: thread k's workspace and point */
  lth_point **pt;
  lth_pool *pool;         /* nthreads - 1 threads, made at the first parallel step (NULL: serial) */
  tab_task *tasks;        /* [nthreads]: what a pool task of the board gets */
  int board;              /* the job board is in use (the build has cost TAB_SERIAL_SECONDS) */
  pthread_mutex_t mu;     /* the board: */
  pthread_cond_t done_cv; /* the calling thread: a node taken by a task is done */
  int *todo;              /* node indices of one level */
  int job_cnt, job_next, job_done, main_waits;
  double job_a, job_b;
} tab_threads;

/* What lth_table_info reports. */
typedef struct tab_stats {
  size_t nodes, decomps, direct_panels;
  size_t stretches;    /* stretches built concurrently and merged (lib/table/coef_table_split.c) */
  size_t enc_capped;   /* panels whose width the enclosures cut */
  size_t const_panels; /* panels of constant data: their nodes copied from the left one */
  size_t stalled;      /* builds that left the rest of their span direct: panel after panel
                          given up (give_up_panel) */
  int max_degree;
  double err_est, cond_chain, seconds;
} tab_stats;

struct lth_table {
  const lth_system *sys;
  lth_table_opts o; /* options: the caller's, with the defaults filled in */
  tab_layout lay;
  tab_builder bld;
  tab_current cur;
  tab_storage store;
  tab_threads thr;
  tab_stats stats;
};

/* Node i of src to node j of dst, with its error record where it has one. */
static inline void tab_node_copy(lth_table *dst, int j, const lth_table *src, int i) {
  dst->cur.node[j] = src->cur.node[i];
  if (src->cur.node[i].st != LTH_OK) dst->cur.node_err[j] = src->cur.node_err[i];
}

/* (lth_table_set_output_density) */
#define TAB_OUT_PER_PANEL 16.0

/* ---- lib/table/coef_table.c: one panel (from covered, up to t_hi) ---- */
lth_status tab_build_panel(lth_table *tab, lth_error *err);
/* Make the table's pool if it has none: 1 if there is one (the table may use
 * more than one thread, it is not running on an lth thread nor inside a
 * caller's parallel region, and memory sufficed), 0 to stay serial. */
int tab_pool_ready(lth_table *tab);

/* ---- lib/table/coef_table_split.c ---- */
/* Stretches of at least this many panels (of the last accepted width) are
 * built concurrently; at most TAB_SPLIT_MAX of them per build. */
#define TAB_SPLIT_PANELS 12
/* ... and only once this many panels have been built: the width and the noise
 * level the stretches are seeded with must have been learnt first (seeded from
 * the first panel alone, the stretches of a noise-limited table each relearnt
 * the noise and took 3x the decompositions). */
#define TAB_SPLIT_HISTORY 8
/* ... and not for tolerances near rounding: there panels are accepted by the
 * noise level learnt on earlier panels, which a stretch cut before that noise
 * appeared cannot know (the rotating rod at 1e-14: each late stretch narrowed
 * its panels instead, 17000 decompositions against 4100 serially). */
#define TAB_SPLIT_MIN_TOL 1e-13
#define TAB_SPLIT_MAX     16
/* How many stretches [covered, goal] is split into (1: build it whole).
 * Depends on the table's state only, never on the thread count, so one and
 * several threads build the same table. */
int tab_split_count(const lth_table *tab, double goal);
/* Build [covered, goal] as k stretches, concurrently with up to nthreads threads. */
lth_status tab_build_split(lth_table *tab, double goal, int k, lth_error *err);
/* 1 once a budgeted build (lth_table_build_budget) has spent its budget. */
int tab_over_budget(const lth_table *tab);

/* ---- lib/table/coef_store.c ---- */
/* Room for a panel's nc coefficients and nd derivative coefficients (within
 * the memory budget): sets p->chunk, off, doff and the places to write. */
lth_status tab_store_claim(lth_table *tab, size_t nc, size_t nd, tab_panel *p, double **c,
                           double **d, lth_error *err);
/* Take over sub's chunks (no copy); *first: the index sub's chunk 0 gets. */
lth_status tab_store_adopt(lth_table *tab, lth_table *sub, int *first, lth_error *err);
void tab_store_free(lth_table *tab);

/* ---- lib/table/coef_table_cheb.c ---- */

static inline const double *tab_panel_coef(const lth_table *tab, const tab_panel *p) {
  return tab->store.chunks[p->chunk].c + p->off;
}
static inline const double *tab_panel_dcoef(const lth_table *tab, const tab_panel *p) {
  return tab->store.chunks[p->chunk].d + p->doff;
}

static inline int tab_degree(const lth_table *tab, int n) {
  return (n + 1) * (tab->lay.jet + 1) - 1;
}
static inline int tab_dmax(const lth_table *tab) {
  return tab_degree(tab, tab->lay.nmin << (TAB_LEVELS - 1));
}

/* Data -> Chebyshev coefficients for n + 1 nodes with jets of order o
 * (n = 4 .. TAB_NMAX a power of 2, o = 0..2): computed once per process and
 * shared by every table (read-only); NULL when out of memory. */
const double *tab_transform_get(int n, int o);
/* tab->cur.C (E x (D+1)) from the data at the level-n nodes of [a, a + w]. */
void tab_transform(lth_table *tab, int n, double w);
/* Per-field scales max(1, max |value|) over the level-n nodes and the
 * magnitudes mag[k] (all entries) and mag_rhs[k] (Ahat, g, P), k = 0..D. */
void tab_magnitudes(lth_table *tab, int n);

/* What the coefficients of one level say. */
typedef struct tab_verdict {
  int converged;      /* trailing coefficients below tol / 8 */
  int noise;          /* a flat tail at most max(1e-12, 100 tol): noise if narrowing the
                         panel does not lower it (decided by the builder) */
  double tail;        /* max trailing magnitude */
  double need;        /* predicted degree for tol / 8 at this width (INFINITY: no decay) */
  int deg, deg_rhs;   /* degrees to keep (chop) */
  int reach;          /* degree up to which the magnitudes stand out (width control) */
  double noise_level; /* the plateau of a noise candidate */
  double err_est;     /* estimated error of the kept interpolant */
} tab_verdict;

tab_verdict tab_judge(const lth_table *tab, int D);

/* Append the panel [a, b] with the current coefficients (verdict v). */
lth_status tab_store(lth_table *tab, double a, double b, const tab_verdict *v, lth_error *err);
/* Append a direct panel. */
lth_status tab_store_direct(lth_table *tab, double a, double b, lth_error *err);

#endif
