/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-lqr on a DAE plant with a cost (plant.h; docs/control.md section 10).
 *
 * lth_plqr_solve gives the feedback on the plant's unknowns in the system's
 * canonical order, u = -Kz z - kz; here it becomes the user's: the column of
 * Kz at canonical position j is the column of the unknown perm[j], the
 * index-1 unknowns (eliminated from z) get zero columns, and k = -kz, so
 * that u = -K(t) z + k(t) with z in the order of `variables`.  The closed
 * loop's index-1 unknowns are y1 = Y z + Y_u u + y0 (lth_model_values_maps),
 * with the closed loop's u, not the file's signals (which LQR does not use).
 * The library wants nondecreasing times: they are solved sorted and
 * reported in the user's order. */
#include "plant.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_check.h"
#include "app_json.h"
#include "app_table.h"
#include "app_text.h"
#include "lth/model.h"

/* The closed loop's cost and the value function's must agree to this, relative to
 * max(1, |J|): both come from integrations at rtol 1e-11 (the library's default). */
#define COST_AGREEMENT 1e-6

int lqr_plant_prepare(const app_run *run) {
  const lth_problem *pb = run->pb;
  const double *z0 = NULL;
  if (lth_problem_ninputs(pb) == 0) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: the cost has no input to minimise over: declare the plant's inputs "
                     "(`inputs u1`, docs/equations.md section 11)",
                     run->path);
  }
  if (!lth_problem_z0(pb, &z0)) {
    return app_failf(APP_EXIT_INPUT,
                     "%s: lth-lqr needs the file's z0: the closed loop starts from its state part",
                     run->path);
  }
  return 0;
}

typedef struct tq {
  double t;
  size_t q;
} tq;

/* The library names an input by its number ("the input 2 reaches ..."):
 * here it has its name. */
static void name_input(lth_error *err, const lth_problem *pb) {
  static const char key[] = "the input ";
  char *at = strstr(err->message, key);
  char *end = NULL;
  long k = at ? strtol(at + sizeof key - 1, &end, 10) : 0;
  const char *name = k >= 1 ? lth_problem_input_name(pb, (int)k - 1) : NULL;
  if (!name || !end || *end != ' ') {
    return;
  }
  char msg[sizeof err->message];
  snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - err->message) + (int)(sizeof key - 1),
           err->message, name, end);
  snprintf(err->message, sizeof err->message, "%s", msg);
}

static int tq_cmp(const void *a, const void *b) {
  const tq *x = a, *y = b;
  return x->t < y->t ? -1 : x->t > y->t ? 1 : x->q < y->q ? -1 : x->q > y->q;
}

/* Row q (the user's order) from the library's row j. */
static lth_status fill_row(lqr_plant *L, const app_run *run, size_t q, size_t j, double *Y,
                           lth_error *err) {
  const lth_plqr_result *r = L->res;
  const int *perm = lth_problem_perm(run->pb);
  int s = L->s, nu = L->nu, nv = L->nvars, n1 = nv - s;
  double *z = L->z + q * nv, *K = L->K + q * nu * nv;
  const double *zc = r->z + j * s, *u = r->u + j * nu, *Kz = r->Kz + j * nu * s;
  memcpy(L->u + q * nu, u, (size_t)nu * sizeof *u);
  memcpy(L->y + q * L->ny, r->y + j * L->ny, (size_t)L->ny * sizeof *r->y);
  for (int a = 0; a < nu; a++) {
    L->k[q * nu + a] = -r->kz[j * nu + a];
  }
  for (int c = 0; c < s; c++) {
    z[perm[c]] = zc[c];
    for (int a = 0; a < nu; a++) {
      K[a + (size_t)perm[c] * nu] = Kz[a + (size_t)c * nu];
    }
  }
  if (n1 == 0) {
    return LTH_OK;
  }
  /* the index-1 unknowns of the closed loop: Y z + Y_u u + y0 */
  double *Yu = Y + (size_t)n1 * s, *y0 = Yu + (size_t)n1 * nu;
  lth_status st = lth_model_values_maps(run->vals, r->times[j], Y, n1, Yu, n1, y0, err);
  for (int i = 0; st == LTH_OK && i < n1; i++) {
    double v = y0[i];
    for (int c = 0; c < s; c++) {
      v += Y[i + (size_t)c * n1] * zc[c];
    }
    for (int a = 0; a < nu; a++) {
      v += Yu[i + (size_t)a * n1] * u[a];
    }
    z[perm[s + i]] = v;
  }
  return st;
}

lth_status lqr_plant_compute(lqr_plant *L, const app_run *run, double rtol, lth_error *err) {
  const lth_problem *pb = run->pb;
  size_t n = run->tm.n;
  const double *z0 = NULL;
  lth_problem_z0(pb, &z0);
  L->nvars = lth_problem_nvars(pb);
  L->s = run->s;
  L->nu = lth_problem_ninputs(pb);
  L->ny = lth_problem_noutputs(pb);
  L->n = n;
  int nv = L->nvars, nu = L->nu, n1 = nv - L->s;
  tq *order = malloc((n + 1) * sizeof *order);
  double *ts = malloc((n + 1) * sizeof *ts);
  double *Y = malloc(((size_t)n1 * (L->s + nu + 1) + 1) * sizeof *Y);
  L->z = calloc(n * nv + 1, sizeof *L->z);
  L->u = calloc(n * nu + 1, sizeof *L->u);
  L->y = calloc(n * L->ny + 1, sizeof *L->y);
  L->K = calloc(n * nu * nv + 1, sizeof *L->K);
  L->k = calloc(n * nu + 1, sizeof *L->k);
  lth_status st = order && ts && Y && L->z && L->u && L->y && L->K && L->k
                      ? LTH_OK
                      : lth_error_set(err, LTH_ENOMEM, "out of memory");
  for (size_t q = 0; st == LTH_OK && q < n; q++) {
    order[q] = (tq){run->tm.t[q], q};
  }
  if (st == LTH_OK) {
    qsort(order, n, sizeof *order, tq_cmp);
    for (size_t j = 0; j < n; j++) {
      ts[j] = order[j].t;
    }
    lth_plqr_opts o;
    lth_plqr_opts_init(&o);
    o.ss.cond_max = run->opt->cond_max;
    o.rtol = rtol > 0 ? rtol : o.rtol;
    st = lth_plqr_solve(run->sys, lth_problem_cost(pb), run->t0, run->t1, z0, ts, n, &o, &L->res,
                        err);
    if (st == LTH_EINVAL && err) {
      /* the times and options are checked: what is left is the problem as
       * posed (an input the plant differentiates, a final cost on u), an
       * input error (exit 2), not a usage error */
      st = err->status = LTH_EDATA;
    }
    if (st != LTH_OK && err) {
      name_input(err, pb);
    }
  }
  for (size_t j = 0; st == LTH_OK && j < n; j++) {
    st = fill_row(L, run, order[j].q, j, Y, err);
  }
  free(order);
  free(ts);
  free(Y);
  if (st != LTH_OK) {
    return st;
  }
  L->p = L->res->p;
  L->cost = L->res->cost;
  L->cost_closed = L->res->cost_closed;
  L->singular = L->res->singular;
  double d = fabs(L->cost - L->cost_closed), scale = fmax(1.0, fabs(L->cost));
  if (!(d <= COST_AGREEMENT * scale) && L->singular) {
    return lth_error_set(err, LTH_ECOND,
                         "the cost by quadrature along the optimum %.10g differs from the "
                         "optimal cost %.10g (from the multiplier at t0) by %.3g: the "
                         "singular problem's solution is not accurate",
                         L->cost_closed, L->cost, d);
  }
  if (!(d <= COST_AGREEMENT * scale)) {
    return lth_error_set(err, LTH_ECOND,
                         "the closed loop's cost %.10g differs from the optimal cost %.10g "
                         "(the value function at t0) by %.3g: the Riccati solution or the "
                         "closed loop is not accurate; try a smaller --rtol",
                         L->cost_closed, L->cost, d);
  }
  return LTH_OK;
}

lth_status lqr_plant_check(const lqr_plant *L, const app_run *run, lth_error *err) {
  const double *t = run->tm.t;
  size_t n = L->n, nu = (size_t)L->nu;
  lth_status st = LTH_OK;
  st = app_check_rows(st, err, "the closed loop's unknowns z", t, L->z, n, (size_t)L->nvars, NULL);
  st = app_check_rows(st, err, "the control u", t, L->u, n, nu, NULL);
  st = app_check_rows(st, err, "the outputs y", t, L->y, n, (size_t)L->ny, NULL);
  st = app_check_rows(st, err, "the gain K", t, L->K, n, nu * (size_t)L->nvars, NULL);
  st = app_check_rows(st, err, "the feedforward k", t, L->k, n, nu, NULL);
  st = app_check_value(st, err, "the optimal cost", run->t0, L->cost);
  return app_check_value(st, err, "the closed loop's cost", NAN, L->cost_closed);
}

/* ------------------------------------------------------------------------ */
/* Writers                                                                  */

static const char *var_name(const app_run *run, int k) { return lth_problem_var_name(run->pb, k); }

static void json_names(app_json *j, const char *key, const app_run *run, int n,
                       const char *(*name)(const lth_problem *, int)) {
  app_json_key(j, key);
  app_json_begin_array(j);
  for (int k = 0; k < n; k++) {
    app_json_string(j, name(run->pb, k));
  }
  app_json_end_array(j);
}

void lqr_plant_json(const lqr_plant *L, app_run *run) {
  app_json *j = &run->json;
  int nu = L->nu, nv = L->nvars;
  app_json_begin_object(j);
  app_json_put_vector(j, "times", run->tm.t, run->tm.n);
  json_names(j, "variables", run, nv, lth_problem_var_name);
  json_names(j, "inputs", run, nu, lth_problem_input_name);
  json_names(j, "outputs", run, L->ny, lth_problem_output_name);
  app_json_rows(j, "z", L->z, L->n, (size_t)nv);
  app_json_rows(j, "u", L->u, L->n, (size_t)nu);
  app_json_rows(j, "y", L->y, L->n, (size_t)L->ny);
  if (!L->singular) {
    app_json_key(j, "K");
    app_json_begin_array(j);
    for (size_t q = 0; q < L->n; q++) {
      app_json_matrix(j, L->K + q * nu * nv, nu, nv, nu);
    }
    app_json_end_array(j);
    app_json_rows(j, "k", L->k, L->n, (size_t)nu);
  }
  app_json_put_number(j, "cost", L->cost);
  app_json_put_number(j, "cost_closed", L->cost_closed);
  app_json_put_string(j, "feedback",
                      L->singular ? "none: a singular problem, u open loop" : "u = -K z + k");
  app_json_put_int(j, "singular", L->singular);
  if (L->singular) {
    app_json_put_vector(j, "impulse", L->res->impulse, (size_t)nu);
    app_json_put_vector(j, "impulse_t1", L->res->impulse_t1, (size_t)nu);
  }
  app_json_put_int(j, "s", L->s);
  app_json_put_int(j, "p", L->p);
  app_json_put_int(j, "riccati_panels", (long long)L->res->riccati_panels);
  app_json_end_object(j);
}

/* Every name quoted, as the other tools' tables; the writer counts the
 * first data row as its header and checks the rows against it. */
void lqr_plant_csv(const lqr_plant *L, app_run *run, int gain) {
  gain = gain && !L->singular;
  app_csv *c = &run->csv;
  const lth_problem *pb = run->pb;
  int nu = L->nu, nv = L->nvars;
  fputc('t', c->fp);
  for (int k = 0; k < nv; k++) {
    fprintf(c->fp, ",\"%s\"", var_name(run, k));
  }
  for (int a = 0; a < nu; a++) {
    fprintf(c->fp, ",\"%s\"", lth_problem_input_name(pb, a));
  }
  for (int o = 0; o < L->ny; o++) {
    fprintf(c->fp, ",\"%s\"", lth_problem_output_name(pb, o));
  }
  for (int a = 0; gain && a < nu; a++) {
    for (int k = 0; k < nv; k++) {
      fprintf(c->fp, ",\"K[%s,%s]\"", lth_problem_input_name(pb, a), var_name(run, k));
    }
  }
  for (int a = 0; gain && a < nu; a++) {
    fprintf(c->fp, ",\"k[%s]\"", lth_problem_input_name(pb, a));
  }
  fputc('\n', c->fp);
  for (size_t q = 0; q < L->n; q++) {
    app_csv_number(c, run->tm.t[q]);
    app_csv_matrix(c, L->z + q * nv, 1, nv, 1);
    app_csv_matrix(c, L->u + q * nu, 1, nu, 1);
    app_csv_matrix(c, L->y + q * L->ny, 1, L->ny, 1);
    if (gain) {
      app_csv_matrix(c, L->K + q * nu * nv, nu, nv, nu);
      app_csv_matrix(c, L->k + q * nu, 1, nu, 1);
    }
    app_csv_end_row(c);
  }
}

static void cell(FILE *fp, const char *fmt, const char *a, const char *b) {
  char buf[96];
  snprintf(buf, sizeof buf, fmt, a, b);
  fprintf(fp, " %16s", buf);
}

void lqr_plant_text(const lqr_plant *L, app_run *run, int gain) {
  gain = gain && !L->singular;
  FILE *fp = run->fp;
  const lth_problem *pb = run->pb;
  int nu = L->nu, nv = L->nvars;
  char b0[32], b1[32];
  fprintf(fp, "file           %s\n", run->path);
  fprintf(fp,
          "problem        LQR on a DAE plant: %d unknowns, state dimension p = %d, %d input%s, "
          "%d output%s, on [%s, %s]\n",
          nv, L->p, nu, nu == 1 ? "" : "s", L->ny, L->ny == 1 ? "" : "s",
          app_fmt_exact(b0, sizeof b0, run->t0), app_fmt_exact(b1, sizeof b1, run->t1));
  fprintf(fp, "               minimise J = (cost final at t1) + int (cost integral) dt, as "
              "written in the file\n");
  fprintf(fp, "inputs        ");
  for (int a = 0; a < nu; a++) {
    int given = !run->free_in || !run->free_in[a];
    const char *who = L->singular ? "the optimum" : "the feedback";
    fprintf(fp, " %s (%s%s)", lth_problem_input_name(pb, a),
            given ? "its signal in the file is not used: chosen by " : "chosen by ", who);
  }
  fprintf(fp, "\nz0             the file's: its state part counts (x0 = Q'(I - P) z0), the "
              "rest follows from the constraints and u(t0)\n");
  if (L->singular) {
    fprintf(fp,
            "singular       %d input%s without cost (R has a kernel of dimension %d): "
            "Clark's reduction to a totally singular problem\n",
            L->singular, L->singular == 1 ? "" : "s", L->singular);
    fprintf(fp, "cost           %.10g (optimal: from the multiplier at t0)\n", L->cost);
    fprintf(fp, "cost_closed    %.10g (J by quadrature along the optimum)\n", L->cost_closed);
    fprintf(fp, "feedback       none: the optimal control of a singular problem, open loop\n");
    const double *imp[2] = {L->res->impulse, L->res->impulse_t1};
    const char *what[2] = {"t0 (the integral of u over it: z jumps onto the singular arc; the "
                           "table shows z after it)",
                           "t1 (z jumps to lower the final cost; the table shows z before it)"};
    for (int e = 0; e < 2; e++) {
      int jumps = 0;
      for (int a = 0; a < nu; a++) {
        jumps |= imp[e][a] != 0.0;
      }
      if (jumps) {
        fprintf(fp, "impulse       ");
        for (int a = 0; a < nu; a++) {
          fprintf(fp, " %s %.10g", lth_problem_input_name(pb, a), imp[e][a]);
        }
        fprintf(fp, " at %s\n", what[e]);
      }
    }
    fprintf(fp, "\nthe optimum:\n%14s", "t");
  } else {
    fprintf(fp, "cost           %.10g (optimal: the value function at t0)\n", L->cost);
    fprintf(fp, "cost_closed    %.10g (the closed loop's J, integrated along it)\n",
            L->cost_closed);
    fprintf(fp, "feedback       u = -K(t) z + k(t) on the unknowns%s\n",
            gain ? "" : " (--gain shows K and k)");
    fprintf(fp, "\nthe closed loop:\n%14s", "t");
  }
  for (int k = 0; k < nv; k++) {
    fprintf(fp, " %16s", var_name(run, k));
  }
  for (int a = 0; a < nu; a++) {
    fprintf(fp, " %16s", lth_problem_input_name(pb, a));
  }
  for (int o = 0; o < L->ny; o++) {
    fprintf(fp, " %16s", lth_problem_output_name(pb, o));
  }
  for (int a = 0; gain && a < nu; a++) {
    for (int k = 0; k < nv; k++) {
      cell(fp, "K[%s,%s]", lth_problem_input_name(pb, a), var_name(run, k));
    }
  }
  for (int a = 0; gain && a < nu; a++) {
    cell(fp, "k[%s]%s", lth_problem_input_name(pb, a), "");
  }
  fputc('\n', fp);
  for (size_t q = 0; q < L->n; q++) {
    fprintf(fp, "%14.8g", run->tm.t[q]);
    app_text_numbers(fp, L->z + q * nv, (size_t)nv, 16, 10);
    app_text_numbers(fp, L->u + q * nu, (size_t)nu, 16, 10);
    app_text_numbers(fp, L->y + q * L->ny, (size_t)L->ny, 16, 10);
    for (int a = 0; gain && a < nu; a++) {
      for (int k = 0; k < nv; k++) {
        app_text_numbers(fp, L->K + q * nu * nv + a + (size_t)k * nu, 1, 16, 10);
      }
    }
    if (gain) {
      app_text_numbers(fp, L->k + q * nu, (size_t)nu, 16, 10);
    }
    fputc('\n', fp);
  }
}

void lqr_plant_free(lqr_plant *L) {
  lth_plqr_result_free(L->res);
  free(L->z);
  free(L->u);
  free(L->y);
  free(L->K);
  free(L->k);
  memset(L, 0, sizeof *L);
}
