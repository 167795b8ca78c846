/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Sampled-data error report (app_sampling.h). */
#include "app_sampling.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "lth/samples.h"

void app_sampling_free(app_sampling *ss) {
  for (size_t k = 0; ss->b && k < ss->n; k++) {
    free(ss->b[k].err);
    free(ss->b[k].t_err);
    free(ss->b[k].deriv);
    free(ss->b[k].work);
    lth_jet_release(&ss->b[k].coef);
  }
  free(ss->b);
  free(ss->est);
  memset(ss, 0, sizeof *ss);
}

static lth_status block_init(app_sampled_block *b, int order, lth_error *err) {
  /* a fit of degree K has no derivatives above K; automatic fits (degree 0)
   * go up to lth_samples_max_order */
  int top = b->degree > 0 ? b->degree : lth_samples_max_order(b->src);
  b->order = order < top ? order : top;
  size_t n = (size_t)b->order + 1;
  b->err = calloc(n, sizeof *b->err);
  b->t_err = calloc(n, sizeof *b->t_err);
  b->deriv = calloc(n, sizeof *b->deriv);
  b->work = malloc((lth_source_work_size(b->src, b->order) + 1) * sizeof *b->work);
  if (!b->err || !b->t_err || !b->deriv || !b->work) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  return lth_jet_init(&b->coef, lth_source_rows(b->src), lth_source_cols(b->src), b->order, err);
}

lth_status app_sampling_init(app_sampling *ss, const lth_problem *pb, int order, lth_error *err) {
  memset(ss, 0, sizeof *ss);
  size_t n = lth_problem_sampled_count(pb);
  if (n == 0) {
    return LTH_OK;
  }
  ss->order = order;
  ss->b = calloc(n, sizeof *ss->b);
  ss->est = calloc((size_t)order + 1, sizeof *ss->est);
  if (!ss->b || !ss->est) {
    free(ss->b);
    free(ss->est);
    memset(ss, 0, sizeof *ss);
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  ss->n = n;
  for (size_t k = 0; k < n; k++) {
    app_sampled_block *b = &ss->b[k];
    b->src = lth_problem_sampled(pb, k, &b->label);
    b->degree = lth_samples_degree(b->src);
    lth_status st = block_init(b, order, err);
    if (st != LTH_OK) {
      return st; /* app_sampling_free releases what was made */
    }
  }
  return LTH_OK;
}

/* Largest |entry| of Taylor coefficient d, times d!: the size of derivative d. */
static double derivative_size(const lth_jet *J, int d) {
  double fact = 1.0, mx = 0.0;
  for (int k = 2; k <= d; k++) {
    fact *= k;
  }
  for (int j = 0; j < J->cols; j++) {
    for (int i = 0; i < J->rows; i++) {
      double v = fabs(LTH_JET_AT(J, d, i, j));
      mx = v > mx ? v : mx;
    }
  }
  return fact * mx;
}

lth_status app_sampling_update(app_sampling *ss, double t, lth_error *err) {
  for (size_t k = 0; k < ss->n; k++) {
    app_sampled_block *b = &ss->b[k];
    lth_status st = lth_samples_error_estimate(b->src, t, b->order, ss->est, err);
    if (st == LTH_OK) {
      st = lth_source_fill(b->src, t, b->order, &b->coef, b->work, err);
    }
    if (st != LTH_OK) {
      lth_error_prefix(err, "%s: ", b->label);
      return st;
    }
    for (int d = 0; d <= b->order; d++) {
      b->deriv[d] = fmax(b->deriv[d], derivative_size(&b->coef, d));
      if (!(ss->est[d] <= b->err[d])) {
        b->err[d] = ss->est[d];
        b->t_err[d] = t;
      }
    }
  }
  return LTH_OK;
}

lth_status app_sampling_over(app_sampling *ss, const lth_problem *pb, int order, const double *t,
                             size_t n, lth_error *err) {
  lth_status st = app_sampling_init(ss, pb, order, err);
  for (size_t k = 0; st == LTH_OK && ss->n > 0 && k < n; k++) {
    st = app_sampling_update(ss, t[k], err);
  }
  return st;
}

double app_sampling_relative(const app_sampled_block *b, int d) {
  double scale = fmax(b->deriv[d], b->deriv[0]);
  return b->err[d] == 0.0 ? 0.0 : b->err[d] / fmax(scale, DBL_MIN);
}

void app_sampling_text(const app_sampling *ss, FILE *fp) {
  char bt[32];
  for (size_t k = 0; k < ss->n; k++) {
    const app_sampled_block *b = &ss->b[k];
    char fits[48];
    if (b->degree > 0) {
      snprintf(fits, sizeof fits, "local fits of degree %d", b->degree);
    } else {
      snprintf(fits, sizeof fits, "automatic local fits");
    }
    fprintf(fp,
            "%-15s%s: %s; estimated error per derivative order\n"
            "                 (largest over the times; relative to the data):\n",
            k == 0 ? "sampling" : "", b->label, fits);
    for (int d = 0; d <= b->order; d++) {
      fprintf(fp, "                 order %d  %.2e  (relative %.2e)  at t = %s\n", d, b->err[d],
              app_sampling_relative(b, d), app_fmt_exact(bt, sizeof bt, b->t_err[d]));
    }
  }
}

void app_sampling_json(const app_sampling *ss, app_json *j) {
  app_json_begin_array(j);
  for (size_t k = 0; k < ss->n; k++) {
    const app_sampled_block *b = &ss->b[k];
    size_t n = (size_t)b->order + 1;
    app_json_begin_object(j);
    app_json_key(j, "block");
    app_json_string(j, b->label);
    app_json_key(j, "degree");
    app_json_int(j, b->degree);
    app_json_key(j, "error");
    app_json_vector(j, b->err, n, 1);
    app_json_key(j, "t_error");
    app_json_vector(j, b->t_err, n, 1);
    app_json_key(j, "relative");
    app_json_begin_array(j);
    for (int d = 0; d <= b->order; d++) {
      app_json_number(j, app_sampling_relative(b, d));
    }
    app_json_end_array(j);
    app_json_end_object(j);
  }
  app_json_end_array(j);
}

int app_sampling_warn(const app_sampling *ss, double tol) {
  int count = 0;
  char bt[32];
  for (size_t k = 0; k < ss->n; k++) {
    const app_sampled_block *b = &ss->b[k];
    for (int d = 0; d <= b->order; d++) {
      double rel = app_sampling_relative(b, d);
      if (rel > tol) {
        app_warn("sampled block %s: the estimated error of its derivative of order %d is %.2e, "
                 "%.2e relative to the data (largest at t = %s; tolerance %.1e); the computation "
                 "uses derivatives up to order %d: sample more finely or change `sampling order`",
                 b->label, d, b->err[d], rel, app_fmt_exact(bt, sizeof bt, b->t_err[d]), tol,
                 ss->order);
        count++;
      }
    }
  }
  return count;
}
