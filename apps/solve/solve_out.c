/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-solve's output: the solution, its error estimate, the initial value and
 * the statistics as text, CSV or JSON (docs/format.md; solve.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_json.h"
#include "app_table.h"
#include "solve.h"

/* Auto went over to direct decompositions before the last output time (the
 * table stopped paying, did not fit its memory budget, or its errors could
 * cost the solution more than rtol: lth_table_rhs_error). */
static int table_stopped(const lth_ivp_result *res) {
  return isfinite(res->table_end) && res->n > 0 && res->table_end < res->times[res->n - 1];
}

/* A number that has no meaning on the operator path (NaN there) is null. */
static void put_number_or_null(app_json *j, const char *key, double x) {
  if (isnan(x)) {
    app_json_key(j, key);
    app_json_null(j);
  } else {
    app_json_put_number(j, key, x);
  }
}

/* The method that integrated: the operator path's own, or the dense solve's
 * (its default, auto, resolved by lth_ivp_solve). */
static const char *method_used(const app_ctx *C) {
  return lth_ivp_method_name(C->path.op ? (lth_ivp_method)C->method : C->res->method);
}

static void json_stats(app_json *j, const app_ctx *C) {
  const lth_ivp_result *res = C->res;
  app_json_key(j, "stats");
  app_json_begin_object(j);
  app_json_put_int(j, "steps", (long long)res->steps);
  app_json_put_int(j, "rhs_evals", (long long)res->rhs_evals);
  app_json_put_int(j, "decomps", (long long)res->decomps);
  app_json_put_number(j, "seconds", res->seconds_total);
  app_json_put_number(j, "seconds_decomp", res->seconds_decomp);
  put_number_or_null(j, "gamma", res->gamma);
  app_json_put_string(j, "coefficients", lth_ivp_coefficients_name(res->coef_mode));
  app_json_put_string(j, "propagator", res->propagated ? "exponential" : "integrator");
  if (C->path.op) {
    app_json_put_int(j, "jv_evals", (long long)C->opstats.jv_evals);
    app_json_put_int(j, "lin_iters", (long long)C->opstats.lin_iters);
    app_json_put_int(j, "projections", (long long)C->opstats.projections);
    app_json_put_number(j, "pi_proven", C->opstats.pi_proven);
    app_json_put_int(j, "pi_proofs", (long long)C->opstats.pi_proofs);
    put_number_or_null(j, "pi_inv_bound", C->opstats.pi_proven > 0 ? C->opstats.pi_inv_bound : NAN);
  }
  if (res->coef_mode == LTH_COEF_TABLE) {
    app_json_put_int(j, "table_panels", (long long)res->table_panels);
    if (table_stopped(res)) {
      app_json_put_number(j, "table_end", res->table_end);
    }
  }
  if (res->coef_mode == LTH_COEF_HERMITE) {
    app_json_put_int(j, "coef_order", res->coef_order);
    app_json_put_int(j, "nodes", (long long)res->table_panels + 1);
    app_json_put_number(j, "coef_error", res->coef_error);
  }
  if (res->z_error) {
    /* the reference solve of the global error estimate (part of seconds) */
    app_json_put_int(j, "error_steps", (long long)res->error_steps);
    app_json_put_int(j, "error_rhs_evals", (long long)res->error_rhs_evals);
    app_json_put_int(j, "error_decomps", (long long)res->error_decomps);
    app_json_put_number(j, "error_seconds", res->error_seconds);
  }
  app_json_end_object(j);
}

static void json_initial(app_json *j, const app_ctx *C, const app_run *run) {
  const lth_ivp_result *res = C->res;
  app_json_put_bool(j, "projected", res->projected);
  /* with the index-1 unknowns that z0_used fixes, as every z of the output */
  double *zx = NULL;
  lth_error err;
  lth_error_clear(&err);
  if (run->vals && app_outputs(run, &run->t0, res->z0_used, NULL, 1, &zx, NULL, &err) != LTH_OK) {
    free(zx);
    zx = NULL;
  }
  if (zx) {
    app_json_put_vector(j, "z0_used", zx, (size_t)run->nout);
  } else {
    app_json_put_vector(j, "z0_used", res->z0_used, (size_t)run->s);
  }
  free(zx);
  app_json_put_number(j, "z0_residual", res->z0_residual);
  if (res->projected) {
    app_json_put_vector(j, "z0_given", C->z0, (size_t)run->nout);
    app_json_put_number(j, "z0_change", res->z0_change);
    if (res->z0_worst >= 0) {
      app_json_put_int(j, "z0_worst", res->z0_worst + 1);
      app_json_put_string(j, "z0_worst_name", run->names.full[res->z0_worst]);
    }
  }
}

/* The global error estimate (lth_ivp_result.error_*), when asked for. */
static void json_error(app_json *j, const app_ctx *C, const app_run *run) {
  const lth_ivp_result *res = C->res;
  if (C->error_off) {
    return;
  }
  if (!res->z_error) {
    app_json_key(j, "error_estimate");
    app_json_null(j);
    char msg[LTH_ERROR_MSG_MAX + 256];
    app_json_put_string(j, "error_failed",
                        app_tool_message(res->error_failed.message, msg, sizeof msg));
    return;
  }
  app_json_put_number(j, "error_estimate", res->error_estimate);
  app_json_put_number(j, "error_tol", res->error_tol);
  if (res->error_worst >= 0) {
    app_json_put_string(j, "error_worst", run->names.name[res->error_worst]);
    app_json_put_number(j, "t_error_worst", res->times[res->error_worst_k]);
  }
  app_json_rows(j, "z_error", C->z_error, run->tm.n, (size_t)run->nout);
  app_json_put_string(j, "error_method", lth_ivp_method_name(res->error_method));
  app_json_put_number(j, "error_rtol", res->error_rtol);
  app_json_put_number(j, "error_atol", res->error_atol);
}

void solve_write_json(const app_ctx *C, app_run *run) {
  const lth_ivp_result *res = C->res;
  app_json *j = &run->json;
  app_json_begin_object(j);
  app_json_put_vector(j, "times", run->tm.t, run->tm.n);
  app_json_rows(j, "z", C->z, run->tm.n, (size_t)run->nout);
  app_json_outputs(j, run, run->tm.n);
  app_json_put_number(j, "drift", res->drift);
  app_json_put_number(j, "drift_rel", res->drift_rel);
  put_number_or_null(j, "output_gain", res->output_gain);
  json_error(j, C, run);
  json_initial(j, C, run);
  app_json_put_number(j, "t0", run->t0);
  app_json_names(j, "components", &run->names);
  app_json_put_string(j, "method", method_used(C));
  app_json_put_number(j, "rtol", C->rtol);
  app_json_put_number(j, "atol", C->atol);
  app_json_put_bool(j, "reprojected", C->reproject);
  app_json_put_string(j, "path", app_path_name(&C->path));
  json_stats(j, C);
  if (C->smp.n > 0) {
    app_json_key(j, "sampling");
    app_sampling_json(&C->smp, j);
  }
  if (isfinite(C->sampling_error)) {
    app_json_put_number(j, "sampling_error", C->sampling_error);
  }
  app_json_end_object(j);
}

void solve_write_csv(const app_ctx *C, app_run *run) {
  app_csv_z_run(run, run->tm.t, C->z, run->tm.n);
}

static void text_header(FILE *fp, const app_ctx *C, const app_run *run) {
  const lth_ivp_result *res = C->res;
  char b[32], b2[32];
  fprintf(fp, "file           %s\n", run->path);
  fprintf(fp, "index          r = %d, s = %d components, manifold p = %d\n", run->r, run->s,
          run->p);
  app_index1_line(fp, run);
  fprintf(fp, "initial value  %s at t0 = %s, %s = %.3g\n", C->z0_source,
          app_fmt_exact(b, sizeof b, run->t0),
          C->path.op ? "||z0 - (G z0 + q)||" : "||M0 z0 - b0||", res->z0_residual);
  if (res->projected) {
    int w = res->z0_worst >= 0 ? res->z0_worst : 0;
    fprintf(fp,
            "projected      --project replaced z0 (Corollary 3): ||change|| = %.6g, most in "
            "%s: %s -> %s\n",
            res->z0_change, run->names.full[w], app_fmt_exact(b, sizeof b, C->z0[res->z0_worst]),
            app_fmt_exact(b2, sizeof b2, res->z0_used[res->z0_worst]));
  }
  if (C->path.op) { /* the dense path is the default's report: no line */
    fprintf(fp, "path           operator (%s)\n", C->path.why);
    fprintf(fp,
            "integrator     %s (SUNDIALS CVODE%s), rtol %.3g, atol %.3g, projected onto\n"
            "               range(I - P) %s\n",
            lth_ivp_method_name((lth_ivp_method)C->method),
            C->method == LTH_IVP_MSADAMS ? " Adams" : " BDF, GMRES", C->rtol, C->atol,
            C->method == LTH_IVP_MSADAMS ? "at the output times" : "every step");
    return;
  }
  if (res->propagated) {
    fprintf(fp, "propagator     the matrix exponential of the reduced ODE (constant data)\n");
    return;
  }
  fprintf(fp, "integrator     %s, rtol %.3g, atol %.3g, drift damping gamma = %.3g%s\n",
          method_used(C), C->rtol, C->atol, res->gamma,
          C->reproject ? ", reprojected at output times" : "");
}

static void text_error(FILE *fp, const app_ctx *C, const app_run *run) {
  const lth_ivp_result *res = C->res;
  char b[32];
  if (C->error_off) {
    return;
  }
  if (!res->z_error) {
    char msg[LTH_ERROR_MSG_MAX + 256];
    fprintf(fp, "global error   not estimated: %s\n",
            app_tool_message(res->error_failed.message, msg, sizeof msg));
    return;
  }
  fprintf(fp, "global error   ~%.2g estimated, %.2g x the tolerance", res->error_estimate,
          res->error_tol);
  if (res->error_worst >= 0) {
    fprintf(fp, ", largest in %s at t = %s", run->names.name[res->error_worst],
            app_fmt_exact(b, sizeof b, res->times[res->error_worst_k]));
  }
  fprintf(fp, "\n               (a second solve: %s, rtol %.3g, atol %.3g, %zu steps, %.3g s)\n",
          lth_ivp_method_name(res->error_method), res->error_rtol, res->error_atol,
          res->error_steps, res->error_seconds);
}

void solve_write_text(const app_ctx *C, app_run *run) {
  const lth_ivp_result *res = C->res;
  FILE *fp = run->fp;
  text_header(fp, C, run);
  app_text_table_run(fp, run, run->tm.t, C->z, run->tm.n);
  fprintf(fp,
          "\ndrift          max ||P v|| = %.3g (relative %.3g): how far the state part\n"
          "               left the state space range(I - P); 0 in exact arithmetic\n",
          res->drift, res->drift_rel);
  if (res->propagated) {
    fprintf(fp,
            "statistics     %zu %s of the exact propagator, 1 decomposition, %.3g s\n"
            "coefficients   constant (proven by the data's enclosures): one decomposition,\n"
            "               v carried by the matrix exponential of the reduced ODE, exact\n"
            "               to rounding (--method integrates instead)\n",
            res->steps, app_plural((double)res->steps, "substep", "substeps"), res->seconds_total);
    text_error(fp, C, run);
    return;
  }
  fprintf(fp, "statistics     %zu %s, %zu %s, %zu %s, %.3g s (%.3g s decomposing)\n", res->steps,
          app_plural((double)res->steps, "step", "steps"), res->rhs_evals,
          app_plural((double)res->rhs_evals, "right-hand side", "right-hand sides"), res->decomps,
          app_plural((double)res->decomps, "decomposition", "decompositions"), res->seconds_total,
          res->seconds_decomp);
  if (res->coef_mode == LTH_COEF_TABLE) {
    fprintf(fp, "coefficients   table of %zu %s (%zu of them decomposed directly)\n",
            res->table_panels, app_plural((double)res->table_panels, "panel", "panels"),
            res->table_direct_panels);
    if (table_stopped(res)) {
      fprintf(fp,
              "               direct decompositions from t = %.6g on (the table stopped paying,\n"
              "               did not fit its memory budget, or its errors could cost more than\n"
              "               --rtol)\n",
              res->table_end);
    }
  } else if (res->coef_mode == LTH_COEF_HERMITE) {
    fprintf(fp,
            "coefficients   Hermite interpolation of jets of order %d at %zu nodes placed for "
            "the\n               sampled data (interpolation error %.1e, checked between "
            "nodes)\n",
            res->coef_order, res->table_panels + 1, res->coef_error);
  } else if (C->path.op) {
    fprintf(fp,
            "coefficients   a decomposition per right-hand side (operator form: %zu Krylov\n"
            "               iterations, %zu products Ahat x, %zu projections)\n",
            C->opstats.lin_iters, C->opstats.jv_evals, C->opstats.projections);
    /* the operator path's proof that Pi is nonsingular between the output
     * times (include/lth/opivp.h) */
    const solve_op_stats *o = &C->opstats;
    app_text_pi_proof(fp, "the decomposed times", o->pi_proof_off, o->pi_proven, o->pi_proofs,
                      o->pi_inv_bound, run->t0, C->res->n ? C->res->times[C->res->n - 1] : run->t0);
  } else {
    fprintf(fp, "coefficients   a decomposition per right-hand side\n");
  }
  text_error(fp, C, run);
  if (C->smp.n > 0) {
    app_sampling_text(&C->smp, fp);
  }
  if (isfinite(C->sampling_error)) {
    fprintf(fp,
            "sampling error ~%.2e in z (the samples' fits, propagated; no --rtol makes it "
            "smaller)\n",
            C->sampling_error);
  }
}
