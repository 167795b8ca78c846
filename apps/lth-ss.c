/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-ss: the minimal state-space realization of a DAE plant with inputs
 * and outputs, on the file's grid or at given times (include/lth/ss.h;
 * docs/format.md section 2.7; docs/user-guide.md section 9).
 *
 * The library carries the basis Q(t) from where it starts to each time, so
 * the times are evaluated outward from the start (one pass of the basis ODE
 * each way) and reported in the user's order.  The writers are in apps/ss/; the
 * driver (app_driver.h) does options, loading, times, the output file.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "app_check.h"
#include "app_driver.h"
#include "lth/defaults.h"
#include "lth/problem.h"
#include "lth/ss.h"
#include "ss.h"

#define SS_STR(x)  #x
#define SS_XSTR(x) SS_STR(x)

static const char help_text[] =
    "Usage: lth-ss FILE [OPTIONS]\n"
    "The minimal state-space realization of a DAE plant with inputs and outputs.\n"
    "FILE holds a Hessenberg DAE with inputs u and outputs y (statements\n"
    "`inputs` and `outputs`, docs/equations.md section 11):\n"
    "    E z' = A(t) z + B(t) u + f(t),   y = C(t) z + D(t) u + y0(t).\n"
    "At every grid point, or at the --at times, lth-ss writes the model\n"
    "    x' = A x + B0 u + g,\n"
    "    y = C x + D0 u + D1 u' + ... + Dk u^(k) + y_f,\n"
    "    z = Z x + Dz0 u + Dz1 u' + ... + Dzk u^(k) + z_f,\n"
    "with x in R^p, p the dimension of the DAE's state space (the manifold of\n"
    "its solutions has p free values): the smallest model that has every\n"
    "input-output behaviour of the plant, the one a control design works on.\n"
    "A, B, C, D depend on t when the plant does; g, y_f, z_f are what the\n"
    "forcing f (without u) contributes.  The signals of the inputs are not\n"
    "used: inputs without `u1(t) = ...` are fine.\n"
    "\n"
    "What j counts.  Dj multiplies u^(j), the j-th time derivative of u.  An\n"
    "input that enters a constraint (a prescribed motion) or a differential\n"
    "block above the last makes the plant respond to u', u'', ...: in an\n"
    "index-3 mechanical plant a prescribed position u makes the constraint\n"
    "force depend on u''.  lth moves every input derivative out of the state\n"
    "equation by the change of state v = Q x + K1 u + K2 u' + ... (it exists\n"
    "for smooth data; v is Clark's state part of z), so the state equation\n"
    "has only B0; the derivatives stay in y and z (derivative feedthrough,\n"
    "which no change of state removes).  --raw keeps x = Q^T v and the state\n"
    "equation's B0 u + B1 u' + ... instead.\n"
    "\n"
    "The state x.  v = Q(t) x with Q (m x p) an orthonormal basis of the state\n"
    "space range(I - P(t)) that does not rotate within it (Q^T Q' = 0), so\n"
    "A = Q^T Ahat Q has no Q' term.  Q starts at t0 (the file's interval start,\n"
    "or --basis-start) from a canonical basis and follows the basis ODE\n"
    "Q' = (I - Q Q^T) Ahat Q to every time, checked against P there: x means\n"
    "the same at every time, whichever times are asked.\n"
    "\n"
    "Checks.  At every reported time a singular or ill-conditioned Pi is\n"
    "refused naming t (no smooth basis exists where the index changes), and\n"
    "the basis must lie in the state space: ||P Q|| (JSON range_err) within\n"
    "1e-8.  Between the times the basis ODE sees Pi at its steps only: it may\n"
    "step over an isolated point where Pi is singular, which is harmless when\n"
    "range(I - P) stays smooth there (the next time's check fails otherwise),\n"
    "but the maps grow without bound near it; lth-decompose --grid N shows\n"
    "cond_pi between the times, and --basis-start starts beyond such a point.\n"
    "\n"
    "The DAE's unknowns.  z = Z x + sum_j Dz_j u^(j) + z_f gives them back (in\n"
    "the canonical order of z, named by `components`).  Z has full column\n"
    "rank p, so a consistent initial value z0 (lth-ic) gives the initial\n"
    "state x0 = Z^+ (z0 - sum_j Dz_j u^(j)(t0) - z_f), in Octave\n"
    "x0 = Z(:,:,1) \\ (z0 - Dz0(:,:,1)*u0 - ... - z_f(:,1)).\n"
    "\n"
    "Options:\n"
    "  --raw               no change of state: x = Q^T v, and the state equation\n"
    "                      keeps B_j u^(j) for every j up to the structural\n"
    "                      bound (JSON `B` then has one map per j)\n"
    "  --rtol R            relative local error tolerance of the basis ODE\n"
    "                      (default " SS_XSTR(
        LTH_DEFAULT_SS_RTOL) ")\n"
                             "  --atol A            absolute local error tolerance of the basis "
                             "ODE\n"
                             "                      (default " SS_XSTR(
                                 LTH_DEFAULT_SS_ATOL) ")\n"
                                                      "  --basis-start T     start the basis at T "
                                                      "in [t0, t1] instead of t0 (the\n"
                                                      "                      realization is then "
                                                      "valid on the stretch around T\n"
                                                      "                      that no singular Pi "
                                                      "cuts off)\n"
                                                      "  --sample-tol X      warn when the "
                                                      "estimated error of a sampled block's\n"
                                                      "                      derivative exceeds X "
                                                      "relative to the data (default\n"
                                                      "                      1e-6; as "
                                                      "lth-decompose)\n"
                                                      "(--cond-max below bounds the chain "
                                                      "condition of the decompositions.)\n";

static const char help_tail[] =
    "Output.  --format mat writes a MATLAB/Octave v5 .mat file (needs -o\n"
    "FILE.mat or a redirection; available when lth was built with libmatio).\n"
    "Its variables, for N times (nu inputs, ny outputs, s unknowns in z,\n"
    "m = s - n_r of them in v): times (N x 1), p, A (p x p x N), B0, B1, ...\n"
    "(p x nu x N each: Bj(:,:,k) multiplies u^(j) at times(k)), C (ny x p x N),\n"
    "D0, D1, ... (ny x nu x N), g (p x N), y_f (ny x N), Z (s x p x N), Dz0,\n"
    "Dz1, ... (s x nu x N), z_f (s x N), Q (m x p x N), K1, K2, ... (m x nu x N),\n"
    "inputs, outputs, components (cell arrays of names), nb, nd,\n"
    "derivative_feedthrough, raw, orth_err, range_err, amplification (N x 1).\n"
    "JSON keys: times, p, inputs, outputs, A (per time: p x p), B and D (per\n"
    "time: a list over j of the maps), C, and the extensions g, y_f, Z, Dz,\n"
    "z_f, Q, state_change (per time: K1, K2, ...), components, nb, nd,\n"
    "derivative_feedthrough, derivative_feedthrough_z,\n"
    "derivative_feedthrough_bound, raw, basis_start, rtol, atol, orth_err,\n"
    "range_err, amplification, steps, decomps (docs/format.md section 2.7).\n"
    "The text report shows the first and the last time of a grid (every\n"
    "--at time), each as the rows of x', y and z over the columns x, u, u', ...\n"
    "\n"
    "Example (the cart pair of docs/equations.md section 11; docs/user-guide.md\n"
    "section 9 explains its output):\n"
    "  lth-ss data/carts_io.lth --at 1\n"
    "  lth-ss data/carts_io.lth --at 0,1.5,3 --format json -o carts.json\n"
    "  lth-ss data/carts_io.lth --grid 301 --format mat -o carts.mat\n"
    "  octave: S = load('carts.mat'); S.A(:,:,1), S.D2(:,:,end)\n"
    "\n"
    "Exit status: 0 success, 1 usage error (bad option, time outside the\n"
    "interval, --format mat without libmatio or to a terminal), 2 input error\n"
    "(unreadable or malformed file, a plant without inputs), 3 numerical\n"
    "failure (Pi singular or ill-conditioned at t, where no smooth basis\n"
    "exists; the basis leaving the state space; a result that is not finite;\n"
    "the message names t).\n";

/* ------------------------------------------------------------------------ */
/* Options and setup                                                        */

static int validate(app_ctx *C, const app_run *run) {
  (void)C;
  const app_common *o = run->opt;
  if (o->format != APP_FMT_MAT) {
    return 0;
  }
  if (!ss_have_mat()) {
    return app_usage_error("--format mat: this lth-ss was built without libmatio (Debian "
                           "package libmatio-dev; rebuild lth after installing it); "
                           "--format json has the same numbers");
  }
  int to_stdout = !o->out_path || strcmp(o->out_path, "-") == 0;
  if (to_stdout && isatty(STDOUT_FILENO)) {
    return app_usage_error("--format mat writes a binary file: give -o FILE.mat (or redirect "
                           "standard output)");
  }
  return 0;
}

static int prepare(app_ctx *C, app_run *run) {
  if (lth_system_ninputs(run->sys) <= 0) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: the plant has no inputs: a realization maps inputs to outputs; "
                     "declare them with `inputs u1 u2` (equation form) or `inputs` and B(i) "
                     "(block form), docs/equations.md section 11",
                     run->path);
  }
  if (isfinite(C->basis_start) && !(C->basis_start >= run->t0 && C->basis_start <= run->t1)) {
    char b[32], b0[32], b1[32];
    return app_usage_error("--basis-start %s is outside the interval [%s, %s]",
                           app_fmt_exact(b, sizeof b, C->basis_start),
                           app_fmt_exact(b0, sizeof b0, run->t0),
                           app_fmt_exact(b1, sizeof b1, run->t1));
  }
  lth_error err;
  lth_error_clear(&err);
  lth_ss_opts o;
  lth_ss_opts_init(&o);
  o.rtol = C->rtol;
  o.atol = C->atol;
  o.cond_max = run->opt->cond_max;
  o.raw = C->raw;
  o.t0 = isfinite(C->basis_start) ? C->basis_start : run->t0;
  C->t_start = o.t0;
  C->ss = lth_ss_alloc(run->sys, &o, &err);
  if (!C->ss) {
    return app_fail(&err);
  }
  C->shape = lth_ss_shape(C->ss);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* The realization at every time                                            */

typedef struct ss_slot {
  double t;
  size_t k;
} ss_slot;

/* Increasing t, then the user's order (a stable order for equal times). */
static int slot_cmp(const void *a, const void *b) {
  const ss_slot *x = a, *y = b;
  if (x->t != y->t) {
    return x->t < y->t ? -1 : 1;
  }
  return x->k < y->k ? -1 : x->k > y->k;
}

static lth_status alloc_points(app_ctx *C, size_t n, lth_error *err) {
  C->pt = calloc(n + 1, sizeof *C->pt);
  if (!C->pt) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  C->n = n;
  for (size_t k = 0; k < n; k++) {
    if (!(C->pt[k] = lth_ss_point_alloc(C->ss, err))) {
      return err->status;
    }
  }
  return LTH_OK;
}

/* The basis ODE goes outward from its start: the times on one side of it,
 * then (back past the start: the library carries the basis from the last
 * time) those on the other, the shorter side first. */
static lth_status evaluate(app_ctx *C, app_run *run, lth_error *err) {
  size_t n = run->tm.n, split = 0;
  ss_slot *slot = malloc((n + 1) * sizeof *slot);
  if (!slot) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  for (size_t k = 0; k < n; k++) {
    slot[k] = (ss_slot){run->tm.t[k], k};
  }
  qsort(slot, n, sizeof *slot, slot_cmp);
  while (split < n && slot[split].t < C->t_start) {
    split++;
  }
  double above = split < n ? slot[n - 1].t - C->t_start : 0.0;
  double below = split > 0 ? C->t_start - slot[0].t : 0.0;
  int up_first = above <= below;
  lth_status st = LTH_OK;
  for (size_t i = 0; i < n && st == LTH_OK; i++) {
    size_t at; /* up: split, ..., n - 1; down: split - 1, ..., 0 */
    if (up_first) {
      at = i < n - split ? split + i : n - 1 - i;
    } else {
      at = i < split ? split - 1 - i : i;
    }
    st = lth_ss_at(C->ss, slot[at].t, C->pt[slot[at].k], err);
    app_progress_update(&run->progress, i + 1, n);
  }
  free(slot);
  if (st == LTH_ETOL && strstr(err->message, "basis")) {
    /* the library names its tolerance; the user sets it with these flags */
    size_t len = strlen(err->message);
    snprintf(err->message + len, sizeof err->message - len, "; tighten --rtol and --atol");
  }
  return st;
}

int ss_map_negligible(const lth_ss_point *pt, char what, int j) {
  int rows = what == 'y' ? pt->ny : what == 'z' ? pt->s : pt->p;
  const double *maps = what == 'y' ? pt->D : what == 'z' ? pt->Dz : pt->B;
  int count = what == 'b' ? pt->nb : pt->nd;
  size_t per = (size_t)rows * (size_t)pt->nu;
  if (!maps || per == 0) {
    return 1;
  }
  double scale = 1.0, big = 0.0;
  for (size_t i = 0; i < per * (size_t)count; i++) {
    scale = fmax(scale, fabs(maps[i]));
  }
  const double *Mj = ss_map(maps, rows, pt->nu, j);
  for (size_t i = 0; i < per; i++) {
    big = fmax(big, fabs(Mj[i]));
  }
  return big <= SS_ZERO_REL * fmax(1.0, pt->amplification) * scale;
}

/* The highest derivative order of u that y (z) shows at some time, and the
 * basis checks' largest values. */
static void summarise(app_ctx *C) {
  C->feed_y = C->feed_z = 0;
  C->orth_max = C->range_max = C->amp_max = 0.0;
  for (size_t k = 0; k < C->n; k++) {
    const lth_ss_point *pt = C->pt[k];
    for (int j = pt->nd - 1; j > C->feed_y; j--) {
      if (!ss_map_negligible(pt, 'y', j)) {
        C->feed_y = j;
      }
    }
    for (int j = pt->nd - 1; j > C->feed_z; j--) {
      if (!ss_map_negligible(pt, 'z', j)) {
        C->feed_z = j;
      }
    }
    C->orth_max = fmax(C->orth_max, pt->orth_err);
    C->range_max = fmax(C->range_max, pt->range_err);
    C->amp_max = fmax(C->amp_max, pt->amplification);
  }
}

static lth_status compute(app_ctx *C, app_run *run, lth_error *err) {
  lth_status st = alloc_points(C, run->tm.n, err);
  double start = app_seconds();
  if (st == LTH_OK) {
    st = evaluate(C, run, err);
  }
  C->elapsed = app_seconds() - start;
  lth_ss_counts(C->ss, &C->steps, &C->decomps);
  if (st != LTH_OK) {
    return st;
  }
  summarise(C);
  /* the decompositions differentiate the data r - 1 times, the change of
   * state nk more */
  return app_sampling_over(&C->smp, run->pb, run->r - 1 + C->shape->nk, run->tm.t, run->tm.n, err);
}

/* Every number about to be written, with its time. */
static lth_status check(const app_ctx *C, const app_run *run, lth_error *err) {
  (void)run;
  lth_status st = LTH_OK;
  const lth_ss_point *sh = C->shape;
  size_t p = (size_t)sh->p, m = (size_t)sh->m, s = (size_t)sh->s, nu = (size_t)sh->nu,
         ny = (size_t)sh->ny;
  for (size_t k = 0; k < C->n && st == LTH_OK; k++) {
    const lth_ss_point *pt = C->pt[k];
    double t = pt->t;
    st = app_check_vector(st, err, "the realization's A", t, pt->A, p * p, NULL);
    st = app_check_vector(st, err, "the realization's B", t, pt->B, p * nu * sh->nb, NULL);
    st = app_check_vector(st, err, "the realization's g", t, pt->g, p, NULL);
    st = app_check_vector(st, err, "the realization's C", t, pt->C, ny * p, NULL);
    st = app_check_vector(st, err, "the realization's D", t, pt->D, ny * nu * sh->nd, NULL);
    st = app_check_vector(st, err, "the realization's y_f", t, pt->yf, ny, NULL);
    st = app_check_vector(st, err, "the basis Q", t, pt->Q, m * p, NULL);
    st = app_check_vector(st, err, "the change of state K", t, pt->K, m * nu * sh->nk, NULL);
    st = app_check_vector(st, err, "the unknowns' map Z", t, pt->Z, s * p, NULL);
    st = app_check_vector(st, err, "the unknowns' map Dz", t, pt->Dz, s * nu * sh->nd, NULL);
    st = app_check_vector(st, err, "the unknowns' z_f", t, pt->zf, s, NULL);
    st = app_check_value(st, err, "the basis check ||Q^T Q - I||", t, pt->orth_err);
    st = app_check_value(st, err, "the basis check ||P Q||", t, pt->range_err);
    st = app_check_value(st, err, "the error amplification", t, pt->amplification);
  }
  return st;
}

/* Sampled-data warnings (also with --quiet: the results may be wrong). */
static lth_status after(app_ctx *C, const app_run *run, lth_error *err) {
  (void)run;
  (void)err;
  app_sampling_warn(&C->smp, C->sample_tol);
  return LTH_OK;
}

static void cleanup(app_ctx *C) {
  for (size_t k = 0; C->pt && k < C->n; k++) {
    lth_ss_point_free(C->pt[k]);
  }
  free(C->pt);
  C->pt = NULL;
  lth_ss_free(C->ss);
  C->ss = NULL;
  app_sampling_free(&C->smp);
}

/* The tool's options (with their defaults) and its description for the driver. */
static app_ctx ctx = {.rtol = LTH_DEFAULT_SS_RTOL,
                      .atol = LTH_DEFAULT_SS_ATOL,
                      .sample_tol = 1e-6,
                      .basis_start = NAN};
static app_option opts[] = {
    APP_FLAG("raw", &ctx.raw),
    APP_DOUBLE("rtol", &ctx.rtol, 1e-15, 1e-2),
    APP_DOUBLE("atol", &ctx.atol, 1e-300, 1),
    APP_DOUBLE("basis-start", &ctx.basis_start, -1e300, 1e300),
    APP_DOUBLE("sample-tol", &ctx.sample_tol, 0, 1e300),
};
static const app_tool tool = {
    .name = "lth-ss",
    .free_inputs_zero = 1, /* the realization does not read the signals */
    .help = help_text,
    .help_tail = help_tail,
    .times = APP_TIMES_MANY,
    .json_wrap = 3,
    .progress_label = "realizing",
    .progress_unit = "times",
    .opts = opts,
    .nopts = APP_COUNT(opts),
    .validate = validate,
    .prepare = prepare,
    .compute = compute,
    .check = check,
    .after = after,
    .write = {[APP_FMT_TEXT] = ss_write_text,
              [APP_FMT_JSON] = ss_write_json,
              [APP_FMT_MAT] = ss_write_mat},
    .cleanup = cleanup,
};

int main(int argc, char **argv) { return app_main(&tool, &ctx, argc, argv); }
