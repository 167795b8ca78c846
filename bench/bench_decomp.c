/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Decomposition benchmark: seconds per grid point, GFLOP/s against a plain
 * single-threaded dgemm of comparable size measured in the same run, 1 vs 2
 * threads on a 1000-point grid, and the peak memory of streamed grids of two
 * lengths.  Usage and columns: bench/README.md, or `bench_decomp --help`.
 */
#define _GNU_SOURCE /* RTLD_NEXT (blascount.h), clock_gettime */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "app_blas.h"
#include "benchutil.h"
#include "blascount.h"
#include "blocksys.h"
#include "flopmodel.h"
#include "lth/decomp.h"
#include "lth/grid.h"

#define MAX_CASES 32

/* Set when a check fails (FLOP model != count, 1 vs 2 threads not bitwise
 * equal): the exit status is then 2, so a CI smoke run catches it. */
static int checks_failed;

/* The cases: tiny, high index, mid-size, large. */
static const char *const default_cases[] = {
    "2-1", "3-2-1", "4-3-2", "6-6-6-6-6-3", "20-20-20-20-10", "50-50-25", "200-200-100"};

typedef struct options {
  size_t points;   /* grid length of the timed runs */
  int repeat;      /* samples per timing; the best is kept */
  double min_time; /* a sample repeats its run until this many seconds */
  int order;       /* output order of the decomposition */
  int csv, flops_only, memory;
  const char *only; /* --only: run one kind of timing (for profilers) */
  const char *mem_case;
  size_t mem_points[2];
  int ncases;
  const char *cases[MAX_CASES];
} options;

typedef struct bcase {
  char name[64];
  int r, n[BS_MAXR];
} bcase;

/* What one case measures (times are seconds per grid point). */
typedef struct result {
  bcase c;
  int s, K, nmax;
  double flops, flops_model, flops_l1; /* per point */
  int n_ref;                           /* size of the reference dgemm */
  double t_eval, t_at, t_grid1, t_grid2;
  double gf, gf_dgemm, dgemm2; /* GFLOP/s; 2-thread dgemm throughput ratio */
  int same;                    /* 1- and 2-thread checksums bitwise equal */
  double busy;                 /* % of the CPUs other processes used meanwhile */
} result;

/* A case ready to run: system, one workspace and result for the serial loops,
 * input jets for timing the callbacks alone, and the grid. */
typedef struct bench {
  bs_sys *S;
  lth_system *sys;
  lth_decomp_ws *ws;
  lth_point *pt;
  lth_jet A, f;
  double *work;
  double *times;
  size_t npts;
  int K, order;
} bench;

static void die_lth(const char *what, const lth_error *err) {
  fprintf(stderr, "bench_decomp: %s: %s (%s)\n", what, err->message, lth_strerror(err->status));
  exit(1);
}

/* ---- cases ---- */

/* "200-200-100", "200,200,100" or "(200,200,100)" -> sizes; name is canonical. */
static int parse_case(const char *text, bcase *c) {
  const char *p = text;
  memset(c, 0, sizeof *c);
  while (*p) {
    if (*p == '(' || *p == ')' || *p == ',' || *p == '-' || *p == ' ') {
      p++;
      continue;
    }
    char *end;
    long v = strtol(p, &end, 10);
    if (end == p || v < 1 || v > 100000 || c->r >= BS_MAXR) {
      return -1;
    }
    c->n[c->r++] = (int)v;
    p = end;
  }
  if (c->r < 2) {
    return -1;
  }
  size_t len = 0;
  for (int i = 0; i < c->r && len < sizeof c->name; i++) {
    len += (size_t)snprintf(c->name + len, sizeof c->name - len, i ? "-%d" : "%d", c->n[i]);
  }
  return 0;
}

static void bench_free(bench *b) {
  lth_point_free(b->pt);
  lth_decomp_ws_free(b->ws);
  lth_system_free(b->sys);
  bs_free(b->S);
  lth_jet_release(&b->A);
  lth_jet_release(&b->f);
  free(b->work);
  free(b->times);
  memset(b, 0, sizeof *b);
}

/* Build the system of case c and a grid of npts points on [0, 10]. */
static void bench_init(bench *b, const bcase *c, size_t npts, int order) {
  lth_error err;
  lth_error_clear(&err);
  memset(b, 0, sizeof *b);
  b->S = bs_new(c->r, c->n);
  if (!b->S || !(b->sys = bs_system(b->S, &err))) {
    die_lth(c->name, &err);
  }
  b->order = order;
  b->K = order + c->r - 1;
  b->ws = lth_decomp_ws_alloc(b->sys, order, &err);
  b->pt = b->ws ? lth_point_alloc(b->sys, order, &err) : NULL;
  int s = lth_system_size(b->sys);
  if (!b->pt || lth_jet_init(&b->A, s, s, b->K, &err) != LTH_OK ||
      lth_jet_init(&b->f, s, 1, b->K, &err) != LTH_OK) {
    die_lth(c->name, &err);
  }
  b->work = malloc((lth_system_work_size(b->sys, b->K) + 1) * sizeof *b->work);
  b->times = malloc((npts ? npts : 1) * sizeof *b->times);
  if (!b->work || !b->times) {
    fprintf(stderr, "bench_decomp: out of memory\n");
    exit(1);
  }
  b->npts = npts;
  for (size_t k = 0; k < npts; k++) {
    b->times[k] = npts > 1 ? 10.0 * (double)k / (double)(npts - 1) : 0.0;
  }
}

/* ---- the timed runs; each returns a checksum of what it touched ---- */

static double run_eval(bench *b, int unused) {
  (void)unused;
  lth_error err;
  double sum = 0.0;
  for (size_t k = 0; k < b->npts; k++) {
    if (lth_system_eval(b->sys, b->times[k], b->K, &b->A, &b->f, b->work, &err) != LTH_OK) {
      die_lth("lth_system_eval", &err);
    }
    sum += LTH_JET_AT(&b->A, 0, 0, 0);
  }
  return sum;
}

static double run_at(bench *b, int unused) {
  (void)unused;
  lth_error err;
  double sum = 0.0;
  for (size_t k = 0; k < b->npts; k++) {
    if (lth_decomp_at(b->ws, b->times[k], b->pt, &err) != LTH_OK) {
      die_lth("lth_decomp_at", &err);
    }
    sum += LTH_JET_AT(&b->pt->Ahat, 0, 0, 0);
  }
  return sum;
}

/* The streaming consumer: touch one entry, keep nothing. */
static int consume(void *ctx, size_t k, const lth_point *pt, const lth_verify_report *rep) {
  (void)k;
  (void)rep;
  *(double *)ctx += LTH_JET_AT(&pt->Ahat, 0, 0, 0);
  return 0;
}

static double run_grid(bench *b, int threads) {
  lth_grid_opts o;
  lth_grid_opts_init(&o);
  o.threads = threads;
  o.out_order = b->order;
  lth_error err;
  double sum = 0.0;
  if (lth_grid_decompose(b->sys, b->times, b->npts, &o, consume, &sum, &err) != LTH_OK) {
    die_lth("lth_grid_decompose", &err);
  }
  return sum;
}

typedef double (*run_fn)(bench *b, int arg);

/* Seconds one call of fn takes, from one sample: the call is repeated until
 * o->min_time has passed so that short runs are not timer noise. */
static double time_sample(run_fn fn, bench *b, int arg, const options *o, double *check) {
  int calls = 0;
  double t0 = bench_now(), el;
  do {
    *check = fn(b, arg);
    calls++;
  } while ((el = bench_now() - t0) < o->min_time);
  return el / calls;
}

/* Best over o->repeat samples. */
static double time_best(run_fn fn, bench *b, int arg, const options *o, double *check) {
  double best = INFINITY;
  for (int rep = 0; rep < o->repeat; rep++) {
    best = fmin(best, time_sample(fn, b, arg, o, check));
  }
  return best;
}

/* ---- the dgemm reference ---- */

typedef struct gemm_buf {
  int n;
  double *a, *b, *c;
} gemm_buf;

static void gemm_buf_init(gemm_buf *g, int n) {
  size_t nn = (size_t)n * (size_t)n;
  g->n = n;
  g->a = malloc(nn * sizeof *g->a);
  g->b = malloc(nn * sizeof *g->b);
  g->c = calloc(nn, sizeof *g->c);
  if (!g->a || !g->b || !g->c) {
    fprintf(stderr, "bench_decomp: out of memory\n");
    exit(1);
  }
  for (size_t k = 0; k < nn; k++) {
    g->a[k] = 1.0 / (double)(k % 97 + 1);
    g->b[k] = (double)(k % 13) - 6.0;
  }
}

static void gemm_buf_free(gemm_buf *g) {
  free(g->a);
  free(g->b);
  free(g->c);
}

/* beta = 1, as the library's accumulating products. */
static void gemm_once(gemm_buf *g) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, g->n, g->n, g->n, 1.0, g->a, g->n, g->b,
              g->n, 1.0, g->c, g->n);
}

/* Best-of-repeat seconds per n x n x n dgemm, single-threaded OpenBLAS. */
static double time_dgemm(int n, const options *o) {
  gemm_buf g;
  gemm_buf_init(&g, n);
  double best = INFINITY;
  for (int rep = 0; rep < o->repeat; rep++) {
    long calls = 0;
    double t0 = bench_now(), el;
    do {
      gemm_once(&g);
      calls++;
    } while ((el = bench_now() - t0) < o->min_time);
    best = fmin(best, el / (double)calls);
  }
  gemm_buf_free(&g);
  return best;
}

/* Throughput of two threads each running its own dgemms, relative to one:
 * the ceiling the 2-thread grid can reach on this machine (shared caches,
 * memory bandwidth, vCPUs that may be hyperthreads).  0 without OpenMP. */
static double dgemm_two_threads(int n, double t1, const options *o) {
#ifdef _OPENMP
  long calls = (long)ceil(o->min_time / t1);
  double best = INFINITY;
  for (int rep = 0; rep < o->repeat; rep++) {
    double t0 = bench_now();
#pragma omp parallel num_threads(2)
    {
      gemm_buf g;
      gemm_buf_init(&g, n);
#pragma omp barrier
      for (long k = 0; k < calls; k++) {
        gemm_once(&g);
      }
      gemm_buf_free(&g);
    }
    best = fmin(best, bench_now() - t0);
  }
  return 2.0 * (double)calls * t1 / best;
#else
  (void)n;
  (void)t1;
  (void)o;
  return 0.0;
#endif
}

/* ---- FLOP count ---- */

/* Count one decomposition through the BLAS/LAPACKE wrappers and compare with
 * the analytical model; the reference dgemm size is the flop-weighted
 * geometric mean of (M N K)^(1/3) over the dgemm calls actually made. */
static void count_flops(bench *b, const bcase *c, result *res) {
  lth_error err;
  bc_reset();
  bc_on = 1;
  lth_status st = lth_decomp_at(b->ws, b->times[0], b->pt, &err);
  bc_on = 0;
  if (st != LTH_OK) {
    die_lth("lth_decomp_at", &err);
  }
  fm_model md;
  fm_decomp(&md, c->r, c->n, b->order);
  res->flops = md.total; /* the model's: small products are summed without BLAS */
  res->flops_l1 = bc.l1;
  res->flops_model = md.total;
  res->n_ref = bc.gemm > 0 ? (int)lround(exp(bc.gemm_logn / bc.gemm)) : 1;
  if (res->n_ref < 1) {
    res->n_ref = 1;
  }
  if (fabs(md.blas - bc.l3) > 1e-9 * fmax(bc.l3, 1.0)) {
    checks_failed = 1;
    fprintf(stderr, "bench_decomp: %s: FLOP model's BLAS part %.6g differs from the counted %.6g\n",
            c->name, md.blas, bc.l3);
  }
}

/* --flops: the model's product list next to the instrumented count. */
static void print_flops(const bcase *c, int order) {
  bench b;
  result res;
  memset(&res, 0, sizeof res);
  bench_init(&b, c, 1, order);
  count_flops(&b, c, &res);
  fm_model md;
  fm_decomp(&md, c->r, c->n, order);
  printf("case %s, output order %d, input order K = %d\n", c->name, order, b.K);
  printf("  %-34s %6s %6s %6s %5s %14s\n", "product", "M", "N", "Kd", "order", "flops");
  for (int k = 0; k < md.np; k++) {
    const fm_product *p = &md.p[k];
    printf("  %-34s %6d %6d %6d %5d %14.0f\n", p->what, p->M, p->N, p->Kd, p->order, p->flops);
  }
  printf("  model total %.0f, through BLAS %.0f; counted dgemm+dgemv+dgetrs+dgetrf %.0f (%s)\n",
         md.total, md.blas, bc.l3,
         fabs(md.blas - bc.l3) <= 1e-9 * fmax(bc.l3, 1.0) ? "equal" : "DIFFERENT");
  printf("  dgemm alone %.0f, plus its C += alpha AB updates (2 M N per call) %.0f\n", bc.gemm,
         bc.gemm_mn);
  printf("  level 1 %.0f (%.2f%% of all); calls: dgemm %ld, dgetrs %ld, dgetrf %ld, dgecon %ld, "
         "level 1 %ld; reference dgemm n = %d\n\n",
         bc.l1, 100.0 * bc.l1 / (bc.l3 + bc.l1), bc.gemm_calls, bc.getrs_calls, bc.getrf_calls,
         bc.gecon_calls, bc.l1_calls, res.n_ref);
  bench_free(&b);
}

/* ---- CPU time of other processes (the machine may be shared) ---- */

typedef struct cpu_mark {
  double wall, busy, self; /* seconds: wall clock, all CPUs busy, this process */
} cpu_mark;

static cpu_mark cpu_now(void) {
  cpu_mark m = {bench_now(), -1.0, 0.0};
  unsigned long long v[8] = {0};
  FILE *fp = fopen("/proc/stat", "r");
  if (fp && fscanf(fp, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]) == 8) {
    /* user + nice + system + irq + softirq; idle, iowait and steal are not work */
    m.busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6]) / (double)sysconf(_SC_CLK_TCK);
  }
  if (fp) {
    fclose(fp);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  m.self = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
  return m;
}

/* Share (%) of all CPUs that other processes used since `a`; -1 if unknown. */
static double others_busy(cpu_mark a) {
  cpu_mark b = cpu_now();
  double cpus = (double)sysconf(_SC_NPROCESSORS_ONLN), dt = b.wall - a.wall;
  if (a.busy < 0 || b.busy < 0 || dt <= 0) {
    return -1.0;
  }
  double other = (b.busy - a.busy) - (b.self - a.self);
  return fmax(0.0, 100.0 * other / (dt * cpus));
}

/* ---- one case ---- */

/* --only WHAT: one kind of run per case, nothing else (profiling). */
static int run_only(const bcase *c, const options *o) {
  static const struct {
    const char *name;
    run_fn fn;
    int arg;
  } kinds[] = {
      {"eval", run_eval, 0}, {"at", run_at, 0}, {"grid1", run_grid, 1}, {"grid2", run_grid, 2}};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    if (!strcmp(o->only, kinds[k].name)) {
      bench b;
      double chk = 0.0;
      bench_init(&b, c, o->points, o->order);
      double t = time_best(kinds[k].fn, &b, kinds[k].arg, o, &chk) / (double)b.npts;
      printf("%-15s %-5s %.3e s/pt (checksum %.17g)\n", c->name, o->only, t, chk);
      bench_free(&b);
      return 0;
    }
  }
  fprintf(stderr, "bench_decomp: --only wants eval, at, grid1 or grid2, not '%s'\n", o->only);
  return -1;
}

/* The four kinds of run, round robin, best of each: a burst of other work on
 * the machine then spoils one sample of each kind, not all of one. */
static void time_runs(bench *b, const options *o, result *res) {
  double chk_at = 0.0, chk1 = 0.0, chk2 = 0.0, chk_eval = 0.0, np = (double)b->npts;
  res->t_eval = res->t_at = res->t_grid1 = res->t_grid2 = INFINITY;
  for (int rep = 0; rep < o->repeat; rep++) {
    res->t_eval = fmin(res->t_eval, time_sample(run_eval, b, 0, o, &chk_eval) / np);
    res->t_at = fmin(res->t_at, time_sample(run_at, b, 0, o, &chk_at) / np);
    res->t_grid1 = fmin(res->t_grid1, time_sample(run_grid, b, 1, o, &chk1) / np);
    res->t_grid2 = fmin(res->t_grid2, time_sample(run_grid, b, 2, o, &chk2) / np);
  }
  res->same = chk1 == chk2 && chk1 == chk_at;
  if (!res->same) {
    checks_failed = 1;
    fprintf(stderr,
            "bench_decomp: %s: checksums differ (at %.17g, 1 thread %.17g, 2 threads "
            "%.17g)\n",
            res->c.name, chk_at, chk1, chk2);
  }
}

/* The reference dgemm of size res->n_ref: GFLOP/s and 2-thread throughput. */
static void time_reference(const options *o, result *res) {
  double tg = time_dgemm(res->n_ref, o), nr = res->n_ref;
  res->gf_dgemm = 2.0 * nr * nr * nr / tg * 1e-9;
  res->dgemm2 = dgemm_two_threads(res->n_ref, tg, o);
}

static void run_case(const bcase *c, const options *o, result *res) {
  bench b;
  memset(res, 0, sizeof *res);
  res->c = *c;
  bench_init(&b, c, o->points, o->order);
  res->s = lth_system_size(b.sys);
  res->K = b.K;
  for (int i = 0; i < c->r; i++) {
    res->nmax = c->n[i] > res->nmax ? c->n[i] : res->nmax;
  }
  count_flops(&b, c, res);
  cpu_mark mark = cpu_now();
  time_runs(&b, o, res);
  res->gf = res->flops / res->t_grid1 * 1e-9;
  time_reference(o, res);
  res->busy = others_busy(mark);
  bench_free(&b);
}

/* ---- peak memory of streamed grids, each in a fresh process ---- */

/* Peak resident set of this address space (KiB) from /proc; -1 if absent. */
static long vm_hwm_kib(void) {
  FILE *fp = fopen("/proc/self/status", "r");
  char line[256];
  long v = -1;
  while (fp && fgets(line, sizeof line, fp)) {
    if (strncmp(line, "VmHWM:", 6) == 0) {
      v = strtol(line + 6, NULL, 10);
    }
  }
  if (fp) {
    fclose(fp);
  }
  return v;
}

/* Child side (--rss-child CASE N): one streamed grid, all threads, then the
 * peaks on stdout. */
static int rss_child(const char *name, const char *npts, int order) {
  bcase c;
  if (parse_case(name, &c) != 0) {
    return 2;
  }
  bench b;
  bench_init(&b, &c, (size_t)strtoull(npts, NULL, 10), order);
  double chk = run_grid(&b, 0);
  bench_free(&b);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%ld %ld %.17g\n", ru.ru_maxrss, vm_hwm_kib(), chk);
  return 0;
}

/* Run a child through exec of this program, so its peak starts from a fresh
 * address space; read back ru_maxrss and VmHWM (KiB). */
static int spawn_rss(const char *name, size_t npts, int order, long *maxrss, long *hwm) {
  int fd[2];
  if (pipe(fd) != 0) {
    return -1;
  }
  pid_t pid = fork();
  if (pid == 0) {
    char nbuf[32], obuf[16];
    snprintf(nbuf, sizeof nbuf, "%zu", npts);
    snprintf(obuf, sizeof obuf, "%d", order);
    dup2(fd[1], STDOUT_FILENO);
    close(fd[0]);
    close(fd[1]);
    execl("/proc/self/exe", "bench_decomp", "--order", obuf, "--rss-child", name, nbuf,
          (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  char buf[256] = {0};
  FILE *fp = fdopen(fd[0], "r");
  int ok = fp && fgets(buf, sizeof buf, fp) && sscanf(buf, "%ld %ld", maxrss, hwm) == 2;
  if (fp) {
    fclose(fp);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return ok && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

typedef struct memres {
  char name[64];
  size_t points[2];
  long maxrss[2], hwm[2];
} memres;

static int measure_memory(const options *o, memres *mr) {
  bcase c;
  if (parse_case(o->mem_case, &c) != 0) {
    fprintf(stderr, "bench_decomp: bad memory case '%s'\n", o->mem_case);
    return -1;
  }
  snprintf(mr->name, sizeof mr->name, "%s", c.name);
  for (int k = 0; k < 2; k++) {
    mr->points[k] = o->mem_points[k];
    if (spawn_rss(c.name, o->mem_points[k], o->order, &mr->maxrss[k], &mr->hwm[k]) != 0) {
      fprintf(stderr, "bench_decomp: memory child for %zu points failed\n", o->mem_points[k]);
      return -1;
    }
  }
  return 0;
}

/* ---- output ---- */

/* 1-minute load average: other work on the machine spoils the thread figures. */
static double load_average(void) {
  double l = -1.0;
  FILE *fp = fopen("/proc/loadavg", "r");
  if (fp) {
    if (fscanf(fp, "%lf", &l) != 1) {
      l = -1.0;
    }
    fclose(fp);
  }
  return l;
}

static void print_header(const options *o) {
  char date[32];
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M", localtime(&t));
  long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
  printf("lth decomposition benchmark, %s; OpenBLAS %s core, %ld CPUs, load average %.2f at "
         "start; grid of %zu points on [0,10], output order %d, best of %d\n\n",
         date, openblas_get_corename(), ncpu, load_average(), o->points, o->order, o->repeat);
  printf("%-15s %2s %4s %2s %9s %5s %9s %9s %5s %7s %5s %7s %5s %9s %5s %5s %5s\n", "case", "r",
         "s", "K", "FLOP/pt", "eval%", "at s/pt", "1T s/pt", "ovh%", "GFLOP/s", "ref n", "dgemm",
         "ratio", "2T s/pt", "2T x", "hw x", "busy%");
}

static void print_row(const result *r) {
  printf("%-15s %2d %4d %2d %9.3g %5.1f %9.3e %9.3e %5.1f %7.2f %5d %7.2f %5.2f %9.3e %5.2f "
         "%5.2f %5.1f\n",
         r->c.name, r->c.r, r->s, r->K, r->flops, 100.0 * r->t_eval / r->t_at, r->t_at, r->t_grid1,
         100.0 * (r->t_grid1 - r->t_at) / r->t_at, r->gf, r->n_ref, r->gf_dgemm,
         r->gf / r->gf_dgemm, r->t_grid2, r->t_grid1 / r->t_grid2, r->dgemm2, r->busy);
}

static void print_csv_header(void) {
  printf("case,r,s,K,flops_per_point,flops_model,flops_level1,eval_s_per_point,at_s_per_point,"
         "grid1_s_per_point,grid2_s_per_point,gflops,ref_n,dgemm_gflops,ratio,speedup_2t,"
         "dgemm_speedup_2t,bitwise_equal,others_busy_percent\n");
}

static void print_csv_row(const result *r) {
  printf("%s,%d,%d,%d,%.0f,%.0f,%.0f,%.6e,%.6e,%.6e,%.6e,%.4f,%d,%.4f,%.4f,%.4f,%.4f,%d,%.1f\n",
         r->c.name, r->c.r, r->s, r->K, r->flops, r->flops_model, r->flops_l1, r->t_eval, r->t_at,
         r->t_grid1, r->t_grid2, r->gf, r->n_ref, r->gf_dgemm, r->gf / r->gf_dgemm,
         r->t_grid1 / r->t_grid2, r->dgemm2, r->same, r->busy);
}

static void print_memory(const memres *m, int csv) {
  if (csv) {
    printf("\nmemory_case,points,ru_maxrss_kib,vmhwm_kib\n");
    for (int k = 0; k < 2; k++) {
      printf("%s,%zu,%ld,%ld\n", m->name, m->points[k], m->maxrss[k], m->hwm[k]);
    }
    return;
  }
  printf("\npeak RSS of a streamed grid of %s (all threads, fresh process each): %zu points "
         "%.1f MiB, %zu points %.1f MiB, ratio %.3f\n",
         m->name, m->points[0], m->maxrss[0] / 1024.0, m->points[1], m->maxrss[1] / 1024.0,
         (double)m->maxrss[1] / (double)m->maxrss[0]);
}

/* The targets, judged on this run. */
static void print_targets(const result *res, int n, const memres *m) {
  double busy = 0.0;
  for (int k = 0; k < n; k++) {
    busy = fmax(busy, res[k].busy);
  }
  printf("\ntargets%s:\n", busy > 5.0 ? " (other processes used over 5% of the CPUs during "
                                        "some case, see busy%: its timings and above all its "
                                        "thread figures are pessimistic)"
                                      : "");
  for (int k = 0; k < n; k++) {
    const result *r = &res[k];
    double ratio = r->gf / r->gf_dgemm, sp = r->t_grid1 / r->t_grid2;
    if (r->nmax >= 100) {
      printf("  %-15s large blocks >= 50%% of dgemm: %.0f%%  %s\n", r->c.name, 100.0 * ratio,
             ratio >= 0.5 ? "met" : "NOT met");
    }
    printf("  %-15s 2 threads >= 1.8x: %.2fx (2 dgemms: %.2fx)  %s\n", r->c.name, sp, r->dgemm2,
           sp >= 1.8 ? "met" : "NOT met");
  }
  if (m) {
    double q = (double)m->maxrss[1] / (double)m->maxrss[0];
    printf("  memory independent of grid size: %zu vs %zu points %.3f  %s\n", m->points[0],
           m->points[1], q, q <= 1.05 ? "met" : "NOT met");
  }
}

/* ---- options ---- */

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: bench_decomp [--quick] [--csv] [--case NAME]... [--points N] [--repeat N]\n"
          "                    [--order N] [--min-time S] [--flops] [--no-memory]\n"
          "                    [--mem-case NAME] [--only eval|at|grid1|grid2]\n"
          "  --quick      100-point grids, one sample, memory at 100 vs 1000 points (CI smoke)\n"
          "  --csv        comma-separated output\n"
          "  --case NAME  block sizes like 200-200-100 (repeatable; default: the issue's set)\n"
          "  --points N   grid length of the timed runs (default 1000)\n"
          "  --repeat N   samples per timing, the best is kept (default 3)\n"
          "  --order N    output order of the decomposition (default 0, the grid default)\n"
          "  --min-time S a timing sample repeats its run until S seconds (default 0.2;\n"
          "               0: exactly one run, e.g. under callgrind)\n"
          "  --flops      print the FLOP model product by product and the counted total\n"
          "  --no-memory  skip the peak-memory runs\n"
          "  --only WHAT  time only eval|at|grid1|grid2 per case (for perf/callgrind)\n"
          "  --mem-case NAME  case of the memory runs (default 50-50-25)\n");
}

static int parse_options(int argc, char **argv, options *o) {
  *o = (options){.points = 1000,
                 .repeat = 3,
                 .min_time = 0.2,
                 .memory = 1,
                 .mem_case = "50-50-25",
                 .mem_points = {1000, 10000}};
  for (int k = 1; k < argc; k++) {
    /* --quick sets defaults first, so that options given with it win */
    if (!strcmp(argv[k], "--quick")) {
      *o = (options){.points = 100,
                     .repeat = 1,
                     .min_time = 0.02,
                     .memory = 1,
                     .mem_case = "50-50-25",
                     .mem_points = {100, 1000}};
    }
  }
  for (int k = 1; k < argc; k++) {
    const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
    if (!strcmp(a, "--quick")) {
      continue;
    } else if (!strcmp(a, "--csv")) {
      o->csv = 1;
    } else if (!strcmp(a, "--flops")) {
      o->flops_only = 1;
    } else if (!strcmp(a, "--no-memory")) {
      o->memory = 0;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      exit(0);
    } else if (v && !strcmp(a, "--case") && o->ncases < MAX_CASES) {
      o->cases[o->ncases++] = argv[++k];
    } else if (v && !strcmp(a, "--only")) {
      o->only = argv[++k];
    } else if (v && !strcmp(a, "--mem-case")) {
      o->mem_case = argv[++k];
    } else if (v && !strcmp(a, "--points") && atol(v) > 0) {
      o->points = (size_t)atol(argv[++k]);
    } else if (v && !strcmp(a, "--repeat") && atoi(v) > 0) {
      o->repeat = atoi(argv[++k]);
    } else if (v && !strcmp(a, "--min-time") && atof(v) >= 0) {
      o->min_time = atof(argv[++k]);
    } else if (v && !strcmp(a, "--order") && atoi(v) >= 0) {
      o->order = atoi(argv[++k]);
    } else {
      fprintf(stderr, "bench_decomp: bad option '%s'\n", a);
      usage(stderr);
      return -1;
    }
  }
  if (o->ncases == 0) {
    o->ncases = (int)(sizeof default_cases / sizeof default_cases[0]);
    for (int k = 0; k < o->ncases; k++) {
      o->cases[k] = default_cases[k];
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  bc_init();
  /* a front end: BLAS on one thread as the tools run it (app_blas.h); the
   * grid's parallelism is over points */
  app_blas_setup();
  if (argc == 6 && !strcmp(argv[3], "--rss-child")) {
    return rss_child(argv[4], argv[5], atoi(argv[2]));
  }
  options o;
  if (parse_options(argc, argv, &o) != 0) {
    return 1;
  }
  bcase cases[MAX_CASES];
  for (int k = 0; k < o.ncases; k++) {
    if (parse_case(o.cases[k], &cases[k]) != 0) {
      fprintf(stderr, "bench_decomp: bad case '%s' (want sizes like 200-200-100)\n", o.cases[k]);
      return 1;
    }
  }
  if (o.flops_only) {
    for (int k = 0; k < o.ncases; k++) {
      print_flops(&cases[k], o.order);
    }
    return 0;
  }
  for (int k = 0; o.only && k < o.ncases; k++) {
    if (run_only(&cases[k], &o) != 0) {
      return 1;
    }
  }
  if (o.only) {
    return 0;
  }
  /* Memory first, while this process is small. */
  memres mem;
  int have_mem = o.memory && measure_memory(&o, &mem) == 0;
  static result res[MAX_CASES];
  if (o.csv) {
    print_csv_header();
  } else {
    print_header(&o);
  }
  for (int k = 0; k < o.ncases; k++) {
    run_case(&cases[k], &o, &res[k]);
    if (o.csv) {
      print_csv_row(&res[k]);
    } else {
      print_row(&res[k]);
    }
    fflush(stdout);
  }
  if (have_mem) {
    print_memory(&mem, o.csv);
  }
  if (!o.csv) {
    print_targets(res, o.ncases, have_mem ? &mem : NULL);
  }
  if (checks_failed) {
    return 2;
  }
  return have_mem || !o.memory ? 0 : 1;
}
