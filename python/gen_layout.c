/* SPDX-License-Identifier: GPL-3.0-or-later */
/* gen_layout: writes python/lth/_layout.py, the binary interface the Python
 * package (ctypes) uses, from the public headers as the compiler sees them.
 *
 * Why: a ctypes Structure mirrored by hand breaks silently when a field is
 * added to a struct.  Here every offset and size comes from offsetof/sizeof,
 * so an added field moves the offsets Python uses automatically; a field
 * that is renamed or removed stops this program compiling; a field whose type
 * changes gets a new type code (from _Generic) that the Python side checks.
 * Every function Python calls is listed with its exact C type: a changed
 * signature fails the _Static_assert below, naming the function, instead of
 * passing wrong arguments at run time.
 *
 * Built and run by python/CMakeLists.txt whenever a header changes; the
 * Python test test_layout.py recompiles it and compares, so a stale
 * _layout.py cannot go unnoticed.  Usage: gen_layout [OUTPUT] (default stdout)
 */
#include <stddef.h>
#include <stdio.h>

#include "lth/defaults.h"
#include "lth/bvp.h"
#include "lth/decomp.h"
#include "lth/sampling_error.h"
#include "lth/expr.h"
#include "lth/grid.h"
#include "lth/ic.h"
#include "lth/ivp.h"
#include "lth/opdecomp.h"
#include "lth/opic.h"
#include "lth/opivp.h"
#include "lth/opsolve.h"
#include "lth/path.h"
#include "lth/jet.h"
#include "lth/lqr.h"
#include "lth/problem.h"
#include "lth/samples.h"
#include "lth/source.h"
#include "lth/ss.h"
#include "lth/kalman.h"
#include "lth/plqr.h"
#include "lth/status.h"
#include "lth/system.h"
#include "lth/verify.h"

/* Type code of a struct member (arrays decay: char[N] is "char[]" with its size). */
#define TYPE_CODE(x)                                                                               \
  _Generic((x), int: "int", unsigned int: "uint", long: "long", unsigned long: "ulong", \
           double: "double", double *: "ptr", const double *: "ptr", int *: "ptr",     \
           const int *: "ptr",                                                             \
           char *: "char[]", lth_jet: "lth_jet", lth_ivp_opts: "lth_ivp_opts",          \
           lth_bvp_colloc_opts: "lth_bvp_colloc_opts",                                   \
           lth_bvp_multiple_opts: "lth_bvp_multiple_opts",                               \
           lth_bvp_fd_opts: "lth_bvp_fd_opts", lth_error: "lth_error",                   \
           lth_bvp_csc: "lth_bvp_csc",                                                     \
           lth_jet *: "ptr", const lth_source *: "ptr", void *: "ptr",                 \
           lth_point **: "ptr", lth_verify_report *: "ptr", const char *const *: "ptr",     \
           lth_opsys *: "ptr", const char *: "ptr",                                          \
           default: "other")

static int first_struct = 1;

static void begin_struct(const char *name, size_t size) {
  printf("%s    \"%s\": (%zu, [\n", first_struct ? "" : "    ]),\n", name, size);
  first_struct = 0;
}

static void field(const char *name, size_t offset, size_t size, const char *code) {
  printf("        (\"%s\", %zu, %zu, \"%s\"),\n", name, offset, size, code);
}

#define STRUCT(T) begin_struct(#T, sizeof(T))
#define F(T, f)   field(#f, offsetof(T, f), sizeof(((T *)0)->f), TYPE_CODE(((T *)0)->f))
/* An array of doubles (an array decays to a pointer in _Generic: checked here). */
#define FA(T, f)                                                                                   \
  do {                                                                                             \
    _Static_assert(_Generic(&((T *)0)->f[0], double * : 1, default : 0) &&                         \
                       sizeof(((T *)0)->f) % sizeof(double) == 0,                                  \
                   #T "." #f " is no longer an array of doubles: update python/lth");              \
    field(#f, offsetof(T, f), sizeof(((T *)0)->f), "double[]");                                    \
  } while (0)

static void structs(void) {
  printf("STRUCTS = {\n");
  STRUCT(lth_error);
  F(lth_error, status);
  F(lth_error, message);
  F(lth_error, has_t);
  F(lth_error, t);
  F(lth_error, has_cond);
  F(lth_error, cond);
  F(lth_error, file);
  F(lth_error, line);
  F(lth_error, column);

  STRUCT(lth_jet);
  F(lth_jet, rows);
  F(lth_jet, cols);
  F(lth_jet, order);
  F(lth_jet, maxorder);
  F(lth_jet, ld);
  F(lth_jet, stride);
  F(lth_jet, c);
  F(lth_jet, owner);

  STRUCT(lth_point);
  F(lth_point, t);
  F(lth_point, order);
  F(lth_point, cond_pi);
  F(lth_point, cond_chain);
  F(lth_point, pi_sign);
  F(lth_point, r);
  F(lth_point, s);
  F(lth_point, m);
  F(lth_point, p);
  F(lth_point, Pi);
  F(lth_point, P);
  F(lth_point, Ahat);
  F(lth_point, g);
  F(lth_point, Bhat);
  F(lth_point, q);
  F(lth_point, G);

  STRUCT(lth_verify_report);
  F(lth_verify_report, t);
  F(lth_verify_report, theorem3_linear);
  F(lth_verify_report, theorem3_affine);
  F(lth_verify_report, idempotent);
  F(lth_verify_report, commute);
  F(lth_verify_report, rank_P_ok);
  F(lth_verify_report, structure);
  F(lth_verify_report, rank_G);
  F(lth_verify_report, sv_gap);
  F(lth_verify_report, worst);

  STRUCT(lth_problem_opts);
  F(lth_problem_opts, params);
  F(lth_problem_opts, nparams);

  STRUCT(lth_grid_opts);
  F(lth_grid_opts, threads);
  F(lth_grid_opts, out_order);
  F(lth_grid_opts, cond_max);
  F(lth_grid_opts, batch);
  F(lth_grid_opts, verify);

  STRUCT(lth_ivp_opts);
  F(lth_ivp_opts, method);
  F(lth_ivp_opts, rtol);
  F(lth_ivp_opts, atol);
  F(lth_ivp_opts, h0);
  F(lth_ivp_opts, max_steps);
  F(lth_ivp_opts, cond_max);
  F(lth_ivp_opts, reproject);
  F(lth_ivp_opts, project);
  F(lth_ivp_opts, stabilize);
  F(lth_ivp_opts, hermite);
  F(lth_ivp_opts, hermite_grid);
  F(lth_ivp_opts, hermite_n);
  F(lth_ivp_opts, error_estimate);
  F(lth_ivp_opts, propagate);

  STRUCT(lth_ivp_result);
  F(lth_ivp_result, n);
  F(lth_ivp_result, s);
  F(lth_ivp_result, m);
  F(lth_ivp_result, times);
  F(lth_ivp_result, z);
  F(lth_ivp_result, v);
  F(lth_ivp_result, drift);
  F(lth_ivp_result, drift_rel);
  F(lth_ivp_result, z0_used);
  F(lth_ivp_result, projected);
  F(lth_ivp_result, z0_change);
  F(lth_ivp_result, z0_worst);
  F(lth_ivp_result, z0_residual);
  F(lth_ivp_result, gamma);
  F(lth_ivp_result, method);
  F(lth_ivp_result, steps);
  F(lth_ivp_result, rhs_evals);
  F(lth_ivp_result, propagated);
  F(lth_ivp_result, decomps);
  F(lth_ivp_result, seconds_total);
  F(lth_ivp_result, seconds_decomp);
  F(lth_ivp_result, output_gain);
  F(lth_ivp_result, error_estimate);
  F(lth_ivp_result, error_tol);
  F(lth_ivp_result, error_worst);
  F(lth_ivp_result, error_worst_k);
  F(lth_ivp_result, z_error);
  F(lth_ivp_result, error_method);
  F(lth_ivp_result, error_rtol);
  F(lth_ivp_result, error_atol);
  F(lth_ivp_result, error_steps);
  F(lth_ivp_result, error_rhs_evals);
  F(lth_ivp_result, error_decomps);
  F(lth_ivp_result, error_seconds);
  F(lth_ivp_result, error_failed);

  /* the operator path (path.h, opivp.h, opsolve.h, opdecomp.h) */
  STRUCT(lth_path_choice);
  F(lth_path_choice, op);
  F(lth_path_choice, sys);
  F(lth_path_choice, nnz);
  F(lth_path_choice, density);
  F(lth_path_choice, obstacle);
  F(lth_path_choice, why);

  STRUCT(lth_opivp_opts);
  F(lth_opivp_opts, method);
  F(lth_opivp_opts, rtol);
  F(lth_opivp_opts, atol);
  F(lth_opivp_opts, cond_max);
  F(lth_opivp_opts, project);

  STRUCT(lth_opsolve_stats);
  F(lth_opsolve_stats, jv_evals);
  F(lth_opsolve_stats, lin_iters);
  F(lth_opsolve_stats, projections);
  F(lth_opsolve_stats, pi_proven);
  F(lth_opsolve_stats, pi_inv_bound);
  F(lth_opsolve_stats, pi_proofs);
  F(lth_opsolve_stats, pi_proof_off);

  STRUCT(lth_opinfo);
  F(lth_opinfo, t);
  F(lth_opinfo, cond_pi);
  F(lth_opinfo, cond_chain);
  F(lth_opinfo, pi_sign);
  F(lth_opinfo, amplification);

  STRUCT(lth_bvp_colloc_opts);
  F(lth_bvp_colloc_opts, tol);
  F(lth_bvp_colloc_opts, stages);
  F(lth_bvp_colloc_opts, max_intervals);

  STRUCT(lth_bvp_multiple_opts);
  F(lth_bvp_multiple_opts, intervals);
  F(lth_bvp_multiple_opts, growth);

  STRUCT(lth_bvp_fd_opts);
  F(lth_bvp_fd_opts, points);
  F(lth_bvp_fd_opts, order_check);

  STRUCT(lth_bvp_opts);
  F(lth_bvp_opts, method);
  F(lth_bvp_opts, cond_max);
  F(lth_bvp_opts, ivp);
  F(lth_bvp_opts, colloc);
  F(lth_bvp_opts, multiple);
  F(lth_bvp_opts, fd);

  STRUCT(lth_bvp_result);
  F(lth_bvp_result, n);
  F(lth_bvp_result, s);
  F(lth_bvp_result, p);
  F(lth_bvp_result, times);
  F(lth_bvp_result, z);
  F(lth_bvp_result, method);
  F(lth_bvp_result, cond_shooting);
  F(lth_bvp_result, bc_residual);
  F(lth_bvp_result, intervals);
  F(lth_bvp_result, fd_points);
  F(lth_bvp_result, fd_order);
  F(lth_bvp_result, fd_error);
  F(lth_bvp_result, fd_error_layer);
  F(lth_bvp_result, drift);
  F(lth_bvp_result, cond_bvp);
  F(lth_bvp_result, error_estimate);
  F(lth_bvp_result, pi_proven);
  F(lth_bvp_result, pi_inv_bound);
  F(lth_bvp_result, pi_proofs);
  F(lth_bvp_result, pi_proof_off);

  STRUCT(lth_bvp_csc);
  F(lth_bvp_csc, colptr);
  F(lth_bvp_csc, rowind);
  F(lth_bvp_csc, val);

  STRUCT(lth_bvp_sparse_bc);
  F(lth_bvp_sparse_bc, rows);
  F(lth_bvp_sparse_bc, B0);
  F(lth_bvp_sparse_bc, B1);
  F(lth_bvp_sparse_bc, beta);

  STRUCT(lth_decomp_errest);
  F(lth_decomp_errest, t);
  FA(lth_decomp_errest, abs);
  FA(lth_decomp_errest, rel);
  F(lth_decomp_errest, overall);
  F(lth_decomp_errest, nsampled);

  STRUCT(lth_lqr_spec);
  F(lth_lqr_spec, nx);
  F(lth_lqr_spec, nu);
  F(lth_lqr_spec, t0);
  F(lth_lqr_spec, t1);
  F(lth_lqr_spec, A);
  F(lth_lqr_spec, B);
  F(lth_lqr_spec, H);
  F(lth_lqr_spec, C);
  F(lth_lqr_spec, x0);
  F(lth_lqr_spec, C_src);

  STRUCT(lth_lqr_opts);
  F(lth_lqr_opts, ivp);
  F(lth_lqr_opts, cond_max);
  F(lth_lqr_opts, tol);

  STRUCT(lth_lqr_result);
  F(lth_lqr_result, n);
  F(lth_lqr_result, nx);
  F(lth_lqr_result, nu);
  F(lth_lqr_result, p);
  F(lth_lqr_result, times);
  F(lth_lqr_result, exists);
  F(lth_lqr_result, unique);
  F(lth_lqr_result, residual);
  F(lth_lqr_result, cond_W);
  F(lth_lqr_result, have_trajectory);
  F(lth_lqr_result, x);
  F(lth_lqr_result, lambda);
  F(lth_lqr_result, u);
  F(lth_lqr_result, cost);
  F(lth_lqr_result, x0_consistent);
  F(lth_lqr_result, jump);
  F(lth_lqr_result, jump_in_range_B);
  F(lth_lqr_result, terminal_impulse);
  F(lth_lqr_result, terminal_jump);
  F(lth_lqr_result, gain);
  F(lth_lqr_result, theorem4);
  F(lth_lqr_result, drift);
  F(lth_lqr_result, error_estimate);
  F(lth_lqr_result, intervals);
  F(lth_lqr_result, pi_proven);
  F(lth_lqr_result, pi_inv_bound);
  F(lth_lqr_result, pi_proofs);
  F(lth_lqr_result, pi_proof_off);

  STRUCT(lth_plqr_result);
  F(lth_plqr_result, n);
  F(lth_plqr_result, p);
  F(lth_plqr_result, s);
  F(lth_plqr_result, nu);
  F(lth_plqr_result, ny);
  F(lth_plqr_result, times);
  F(lth_plqr_result, K);
  F(lth_plqr_result, k);
  F(lth_plqr_result, Kz);
  F(lth_plqr_result, kz);
  F(lth_plqr_result, P);
  F(lth_plqr_result, pv);
  F(lth_plqr_result, cv);
  F(lth_plqr_result, x);
  F(lth_plqr_result, z);
  F(lth_plqr_result, u);
  F(lth_plqr_result, y);
  F(lth_plqr_result, cost);
  F(lth_plqr_result, cost_closed);
  F(lth_plqr_result, singular);
  F(lth_plqr_result, have_gain);
  F(lth_plqr_result, impulse);
  F(lth_plqr_result, impulse_t1);
  F(lth_plqr_result, riccati_panels);

  STRUCT(lth_kalman_spec);
  F(lth_kalman_spec, nw);
  F(lth_kalman_spec, noise);
  F(lth_kalman_spec, W);
  F(lth_kalman_spec, V);
  F(lth_kalman_spec, Sigma0_z);

  STRUCT(lth_kalman_result);
  F(lth_kalman_result, n);
  F(lth_kalman_result, p);
  F(lth_kalman_result, s);
  F(lth_kalman_result, ny);
  F(lth_kalman_result, times);
  F(lth_kalman_result, Sigma);
  F(lth_kalman_result, L);
  F(lth_kalman_result, Sigma_z);

  STRUCT(lth_ss_opts);
  F(lth_ss_opts, rtol);
  F(lth_ss_opts, atol);
  F(lth_ss_opts, range_tol);
  F(lth_ss_opts, cond_max);
  F(lth_ss_opts, raw);
  F(lth_ss_opts, t0);

  STRUCT(lth_ss_point);
  F(lth_ss_point, t);
  F(lth_ss_point, p);
  F(lth_ss_point, m);
  F(lth_ss_point, s);
  F(lth_ss_point, nu);
  F(lth_ss_point, ny);
  F(lth_ss_point, nb);
  F(lth_ss_point, nd);
  F(lth_ss_point, nk);
  F(lth_ss_point, A);
  F(lth_ss_point, B);
  F(lth_ss_point, C);
  F(lth_ss_point, D);
  F(lth_ss_point, g);
  F(lth_ss_point, yf);
  F(lth_ss_point, Q);
  F(lth_ss_point, K);
  F(lth_ss_point, Z);
  F(lth_ss_point, Dz);
  F(lth_ss_point, zf);
  F(lth_ss_point, orth_err);
  F(lth_ss_point, range_err);
  F(lth_ss_point, amplification);
  printf("    ]),\n}\n\n");
}

/* ---- functions: exact C type checked at compile time, ctypes codes emitted ---- */

static int first_fn = 1;

static void fn(const char *name, const char *ret, const char *args) {
  printf("%s    \"%s\": (\"%s\", \"%s\"),\n", first_fn ? "FUNCTIONS = {\n" : "", name, ret, args);
  first_fn = 0;
}

/* FN(name, C pointer type, ctypes return code, ctypes argument codes) */
#define FN(name, ctype, ret, args)                                                                 \
  do {                                                                                             \
    _Static_assert(_Generic(&name, ctype : 1, default : 0),                                        \
                   "the signature of " #name " changed: update python/gen_layout.c and "           \
                   "the Python code that calls it");                                               \
    fn(#name, ret, args);                                                                          \
  } while (0)

typedef const char *cstr;

static void functions(void) {
  /* status.h */
  FN(lth_strerror, cstr(*)(int), "char*", "int");
  FN(lth_status_exit_code, int (*)(int), "int", "int");
  FN(lth_error_clear, void (*)(lth_error *), "void", "ptr");
  FN(lth_error_format, char *(*)(const lth_error *, char *, size_t), "ptr", "ptr,ptr,size_t");
  /* problem.h */
  FN(lth_problem_read, lth_status(*)(const char *, lth_problem **, lth_error *), "int",
     "char*,ptr,ptr");
  FN(lth_problem_parse,
     lth_status(*)(const char *, size_t, const char *, const char *, lth_problem **, lth_error *),
     "int", "ptr,size_t,char*,char*,ptr,ptr");
  FN(lth_problem_read_opts,
     lth_status(*)(const char *, const lth_problem_opts *, lth_problem **, lth_error *), "int",
     "char*,ptr,ptr,ptr");
  FN(lth_problem_parse_opts,
     lth_status(*)(const char *, size_t, const char *, const char *, const lth_problem_opts *,
                   lth_problem **, lth_error *),
     "int", "ptr,size_t,char*,char*,ptr,ptr,ptr");
  FN(lth_problem_free, void (*)(lth_problem *), "void", "ptr");
  FN(lth_problem_get_kind, lth_problem_kind(*)(const lth_problem *), "int", "ptr");
  FN(lth_problem_system, const lth_system *(*)(const lth_problem *), "ptr", "ptr");
  FN(lth_problem_interval, void (*)(const lth_problem *, double *, double *), "void",
     "ptr,ptr,ptr");
  FN(lth_problem_grid, size_t(*)(const lth_problem *, const double **), "size_t", "ptr,ptr");
  FN(lth_problem_sampling_order, int (*)(const lth_problem *), "int", "ptr");
  FN(lth_problem_z0, int (*)(const lth_problem *, const double **), "int", "ptr,ptr");
  FN(lth_problem_bc,
     int (*)(const lth_problem *, const double **, const double **, const double **), "int",
     "ptr,ptr,ptr,ptr");
  FN(lth_problem_bc_csc, int (*)(const lth_problem *, lth_bvp_sparse_bc *), "int", "ptr,ptr");
  FN(lth_problem_sampled_count, size_t(*)(const lth_problem *), "size_t", "ptr");
  FN(lth_problem_sampled, const lth_source *(*)(const lth_problem *, size_t, const char **), "ptr",
     "ptr,size_t,ptr");
  FN(lth_problem_lqr, const lth_lqr_spec *(*)(const lth_problem *), "ptr", "ptr");
  FN(lth_problem_get_form, lth_problem_form(*)(const lth_problem *), "int", "ptr");
  FN(lth_problem_var_name, cstr(*)(const lth_problem *, int), "char*", "ptr,int");
  FN(lth_problem_perm, const int *(*)(const lth_problem *), "ptr", "ptr");
  FN(lth_problem_nvars, int (*)(const lth_problem *), "int", "ptr");
  FN(lth_name_find, int (*)(const char *const *, int, const char *), "int", "ptr,int,char*");
  FN(lth_problem_model, const lth_model *(*)(const lth_problem *), "ptr", "ptr");
  /* problem.h: inputs and outputs (docs/equations.md section 11) */
  FN(lth_problem_ninputs, int (*)(const lth_problem *), "int", "ptr");
  FN(lth_problem_noutputs, int (*)(const lth_problem *), "int", "ptr");
  FN(lth_problem_input_name, cstr(*)(const lth_problem *, int), "char*", "ptr,int");
  FN(lth_problem_output_name, cstr(*)(const lth_problem *, int), "char*", "ptr,int");
  FN(lth_problem_set_input, lth_status(*)(lth_problem *, int, lth_source *, lth_error *), "int",
     "ptr,int,ptr,ptr");
  FN(lth_problem_free_input, int (*)(const lth_problem *), "int", "ptr");
  /* model.h: the index-1 unknowns of an equation-form file (docs/equations.md section 10) */
  FN(lth_model_index1_count, int (*)(const lth_model *), "int", "ptr");
  FN(lth_model_values_alloc, lth_model_values * (*)(const lth_model *, lth_error *), "ptr",
     "ptr,ptr");
  FN(lth_model_values_free, void (*)(lth_model_values *), "void", "ptr");
  FN(lth_model_values_at,
     lth_status(*)(lth_model_values *, double, const double *, const double *, double *, double *,
                   lth_error *),
     "int", "ptr,double,ptr,ptr,ptr,ptr,ptr");
  FN(lth_model_values_set_inputs,
     lth_status(*)(lth_model_values *, const lth_system *, lth_error *), "int", "ptr,ptr,ptr");
  FN(lth_model_values_maps,
     lth_status(*)(lth_model_values *, double, double *, int, double *, int, double *, lth_error *),
     "int", "ptr,double,ptr,int,ptr,int,ptr,ptr");
  FN(lth_model_values_map,
     lth_status(*)(lth_model_values *, double, double *, int, double *, lth_error *), "int",
     "ptr,double,ptr,int,ptr,ptr");
  /* system.h */
  FN(lth_system_alloc, lth_system * (*)(int, const int *, lth_error *), "ptr", "int,ptr,ptr");
  FN(lth_system_free, void (*)(lth_system *), "void", "ptr");
  FN(lth_system_set_A, lth_status(*)(lth_system *, int, int, lth_source *, lth_error *), "int",
     "ptr,int,int,ptr,ptr");
  FN(lth_system_set_f, lth_status(*)(lth_system *, int, lth_source *, lth_error *), "int",
     "ptr,int,ptr,ptr");
  FN(lth_system_validate, lth_status(*)(const lth_system *, lth_error *), "int", "ptr,ptr");
  FN(lth_system_index, int (*)(const lth_system *), "int", "ptr");
  FN(lth_system_block_size, int (*)(const lth_system *, int), "int", "ptr,int");
  FN(lth_system_size, int (*)(const lth_system *), "int", "ptr");
  FN(lth_system_state_dim, int (*)(const lth_system *), "int", "ptr");
  FN(lth_system_manifold_dim, int (*)(const lth_system *), "int", "ptr");
  FN(lth_system_component_name, void (*)(const lth_system *, int, char *, size_t), "void",
     "ptr,int,ptr,size_t");
  FN(lth_system_ninputs, int (*)(const lth_system *), "int", "ptr");
  FN(lth_system_input, const lth_source *(*)(const lth_system *, int), "ptr", "ptr,int");
  FN(lth_system_noutputs, int (*)(const lth_system *), "int", "ptr");
  FN(lth_system_outputs,
     lth_status(*)(const lth_system *, double, const double *, double *, lth_error *), "int",
     "ptr,double,ptr,ptr,ptr");
  /* source.h, expr.h, samples.h */
  FN(lth_source_const, lth_source * (*)(int, int, const double *, int, lth_error *), "ptr",
     "int,int,ptr,int,ptr");
  FN(lth_source_identity, lth_source * (*)(int, int, lth_error *), "ptr", "int,int,ptr");
  FN(lth_source_callback, lth_source * (*)(int, int, lth_source_callback_fn, void *, lth_error *),
     "ptr", "int,int,ptr,ptr,ptr");
  FN(lth_source_expr, lth_source * (*)(int, int, lth_expr **, lth_error *), "ptr",
     "int,int,ptr,ptr");
  FN(lth_source_free, void (*)(lth_source *), "void", "ptr");
  FN(lth_source_rows, int (*)(const lth_source *), "int", "ptr");
  FN(lth_source_cols, int (*)(const lth_source *), "int", "ptr");
  FN(lth_source_work_size, size_t(*)(const lth_source *, int), "size_t", "ptr,int");
  FN(lth_source_fill,
     lth_status(*)(const lth_source *, double, int, lth_jet *, double *, lth_error *), "int",
     "ptr,double,int,ptr,ptr,ptr");
  FN(lth_expr_parse,
     lth_status(*)(const char *, size_t, lth_expr_lookup_fn, void *, lth_expr **, lth_error *),
     "int", "ptr,size_t,ptr,ptr,ptr,ptr");
  FN(lth_expr_free, void (*)(lth_expr *), "void", "ptr");
  FN(lth_source_samples,
     lth_source * (*)(int, int, size_t, const double *, const double *, int, lth_error *), "ptr",
     "int,int,size_t,ptr,ptr,int,ptr");
  FN(lth_samples_read_csv, lth_source * (*)(const char *, int, int, int, lth_error *), "ptr",
     "char*,int,int,int,ptr");
  FN(lth_samples_degree, int (*)(const lth_source *), "int", "ptr");
  FN(lth_samples_max_order, int (*)(const lth_source *), "int", "ptr");
  FN(lth_samples_error_estimate,
     lth_status(*)(const lth_source *, double, int, double *, lth_error *), "int",
     "ptr,double,int,ptr,ptr");
  FN(lth_source_is_samples, int (*)(const lth_source *), "int", "ptr");
  /* sampling_error.h */
  FN(lth_decomp_error_alloc, lth_decomp_error * (*)(const lth_system *, lth_error *), "ptr",
     "ptr,ptr");
  FN(lth_decomp_error_free, void (*)(lth_decomp_error *), "void", "ptr");
  FN(lth_decomp_error_set_cond_max, void (*)(lth_decomp_error *, double), "void", "ptr,double");
  FN(lth_decomp_output_name, cstr(*)(int), "char*", "int");
  FN(lth_decomp_error_at,
     lth_status(*)(lth_decomp_error *, double, lth_decomp_errest *, lth_error *), "int",
     "ptr,double,ptr,ptr");
  FN(lth_system_sampled_blocks, int (*)(const lth_system *), "int", "ptr");
  FN(lth_system_sampling_variant, lth_system * (*)(const lth_system *, int, lth_error *), "ptr",
     "ptr,int,ptr");
  FN(lth_source_sampling_variant, lth_source * (*)(const lth_source *, lth_error *), "ptr",
     "ptr,ptr");
  FN(lth_jet_init, lth_status(*)(lth_jet *, int, int, int, lth_error *), "int",
     "ptr,int,int,int,ptr");
  FN(lth_jet_release, void (*)(lth_jet *), "void", "ptr");
  /* grid.h */
  FN(lth_grid_opts_init, void (*)(lth_grid_opts *), "void", "ptr");
  FN(lth_grid_decompose,
     lth_status(*)(const lth_system *, const double *, size_t, const lth_grid_opts *,
                   lth_grid_consumer, void *, lth_error *),
     "int", "ptr,ptr,size_t,ptr,ptr,ptr,ptr");
  /* ic.h */
  FN(lth_ic_alloc, lth_ic * (*)(const lth_system *, lth_error *), "ptr", "ptr,ptr");
  FN(lth_ic_free, void (*)(lth_ic *), "void", "ptr");
  FN(lth_ic_set_cond_max, void (*)(lth_ic *, double), "void", "ptr,double");
  FN(lth_ic_setup, lth_status(*)(lth_ic *, double, lth_error *), "int", "ptr,double,ptr");
  FN(lth_ic_project, lth_status(*)(const lth_ic *, const double *, double *, lth_error *), "int",
     "ptr,ptr,ptr,ptr");
  FN(lth_ic_nearest, lth_status(*)(const lth_ic *, const double *, double *, lth_error *), "int",
     "ptr,ptr,ptr,ptr");
  FN(lth_ic_fix,
     lth_status(*)(const lth_ic *, const double *, int, const int *, const double *, double *,
                   lth_error *),
     "int", "ptr,ptr,int,ptr,ptr,ptr,ptr");
  FN(lth_ic_conditions, int (*)(const lth_ic *, const double **, const double **), "int",
     "ptr,ptr,ptr");
  FN(lth_ic_residual, double (*)(const lth_ic *, const double *), "double", "ptr,ptr");
  FN(lth_ic_tolerance, double (*)(const lth_ic *, const double *), "double", "ptr,ptr");
  FN(lth_ic_point, const lth_point *(*)(const lth_ic *), "ptr", "ptr");
  /* ivp.h */
  FN(lth_ivp_opts_init, void (*)(lth_ivp_opts *), "void", "ptr");
  FN(lth_ivp_method_from_name, int (*)(const char *), "int", "char*");
  FN(lth_ivp_method_name, cstr(*)(lth_ivp_method), "char*", "int");
  FN(lth_ivp_solve,
     lth_status(*)(const lth_system *, double, const double *, const double *, size_t,
                   const lth_ivp_opts *, lth_ivp_result **, lth_error *),
     "int", "ptr,double,ptr,ptr,size_t,ptr,ptr,ptr");
  FN(lth_ivp_result_free, void (*)(lth_ivp_result *), "void", "ptr");
  /* path.h, opsolve.h, opic.h, opdecomp.h: the operator path */
  FN(lth_path_choose,
     lth_status(*)(const lth_system *, lth_path_mode, unsigned, const char *, lth_path_choice *,
                   lth_error *),
     "int", "ptr,int,uint,char*,ptr,ptr");
  FN(lth_path_choice_free, void (*)(lth_path_choice *), "void", "ptr");
  FN(lth_path_name, cstr(*)(const lth_path_choice *), "char*", "ptr");
  FN(lth_opivp_opts_init, void (*)(lth_opivp_opts *), "void", "ptr");
  FN(lth_opsolve,
     lth_status(*)(const lth_opsys *, double, const double *, const double *, size_t,
                   const lth_opivp_opts *, int, lth_ivp_result **, lth_opsolve_stats *,
                   lth_error *),
     "int", "ptr,double,ptr,ptr,size_t,ptr,int,ptr,ptr,ptr");
  FN(lth_opic_alloc, lth_opic * (*)(const lth_opsys *, lth_error *), "ptr", "ptr,ptr");
  FN(lth_opic_free, void (*)(lth_opic *), "void", "ptr");
  FN(lth_opic_set_cond_max, void (*)(lth_opic *, double), "void", "ptr,double");
  FN(lth_opic_setup, lth_status(*)(lth_opic *, double, lth_error *), "int", "ptr,double,ptr");
  FN(lth_opic_info, const lth_opinfo *(*)(const lth_opic *), "ptr", "ptr");
  FN(lth_opic_project, lth_status(*)(const lth_opic *, const double *, double *, lth_error *),
     "int", "ptr,ptr,ptr,ptr");
  FN(lth_opic_residual, lth_status(*)(const lth_opic *, const double *, double *, lth_error *),
     "int", "ptr,ptr,ptr,ptr");
  FN(lth_opic_tolerance, double (*)(const lth_opic *, const double *), "double", "ptr,ptr");
  FN(lth_opdecomp_ws_alloc, lth_opdecomp_ws * (*)(const lth_opsys *, int, lth_error *), "ptr",
     "ptr,int,ptr");
  FN(lth_opdecomp_ws_free, void (*)(lth_opdecomp_ws *), "void", "ptr");
  FN(lth_opdecomp_ws_set_cond_max, void (*)(lth_opdecomp_ws *, double), "void", "ptr,double");
  FN(lth_oppoint_alloc, lth_oppoint * (*)(const lth_opsys *, int, int, lth_error *), "ptr",
     "ptr,int,int,ptr");
  FN(lth_oppoint_free, void (*)(lth_oppoint *), "void", "ptr");
  FN(lth_oppoint_info, const lth_opinfo *(*)(const lth_oppoint *), "ptr", "ptr");
  FN(lth_opdecomp_at, lth_status(*)(lth_opdecomp_ws *, double, lth_oppoint *, lth_error *), "int",
     "ptr,double,ptr,ptr");
  FN(lth_oppoint_g, lth_status(*)(const lth_oppoint *, lth_jet *, lth_error *), "int",
     "ptr,ptr,ptr");
  FN(lth_oppoint_q, lth_status(*)(const lth_oppoint *, lth_jet *, lth_error *), "int",
     "ptr,ptr,ptr");
  /* bvp.h */
  FN(lth_bvp_opts_init, void (*)(lth_bvp_opts *), "void", "ptr");
  FN(lth_bvp_method_from_name, int (*)(const char *), "int", "char*");
  FN(lth_bvp_method_name, cstr(*)(lth_bvp_method), "char*", "int");
  FN(lth_bvp_collocation_stages, int (*)(double), "int", "double");
  FN(lth_bvp_solve,
     lth_status(*)(const lth_system *, double, double, int, const double *, const double *,
                   const double *, const double *, size_t, const lth_bvp_opts *, lth_bvp_result **,
                   lth_error *),
     "int", "ptr,double,double,int,ptr,ptr,ptr,ptr,size_t,ptr,ptr,ptr");
  FN(lth_bvp_check_data, lth_status(*)(const lth_system *, double, double, lth_error *), "int",
     "ptr,double,double,ptr");
  FN(lth_bvp_solve_op,
     lth_status(*)(lth_opsys *, double, double, const lth_bvp_sparse_bc *, const double *, size_t,
                   const lth_bvp_opts *, lth_bvp_result **, lth_error *),
     "int", "ptr,double,double,ptr,ptr,size_t,ptr,ptr,ptr");
  FN(lth_bvp_result_free, void (*)(lth_bvp_result *), "void", "ptr");
  /* lqr.h */
  FN(lth_lqr_build_system, lth_status(*)(const lth_lqr_spec *, lth_system **, lth_error *), "int",
     "ptr,ptr,ptr");
  FN(lth_lqr_opts_init, void (*)(lth_lqr_opts *), "void", "ptr");
  FN(lth_lqr_solve,
     lth_status(*)(const lth_lqr_spec *, const double *, size_t, const lth_lqr_opts *,
                   lth_lqr_result **, lth_error *),
     "int", "ptr,ptr,size_t,ptr,ptr,ptr");
  FN(lth_lqr_solve_op,
     lth_status(*)(const lth_lqr_spec *, const double *, size_t, const lth_lqr_opts *,
                   lth_lqr_result **, lth_error *),
     "int", "ptr,ptr,size_t,ptr,ptr,ptr");
  FN(lth_lqr_result_free, void (*)(lth_lqr_result *), "void", "ptr");
  /* ss.h */
  FN(lth_ss_opts_init, void (*)(lth_ss_opts *), "void", "ptr");
  FN(lth_ss_alloc, lth_ss * (*)(const lth_system *, const lth_ss_opts *, lth_error *), "ptr",
     "ptr,ptr,ptr");
  FN(lth_ss_free, void (*)(lth_ss *), "void", "ptr");
  FN(lth_kalman_solve,
     lth_status(*)(const lth_system *, const lth_kalman_spec *, double, double, const double *,
                   size_t, const lth_kalman_opts *, lth_kalman_result **, lth_error *),
     "int", "ptr,ptr,double,double,ptr,size_t,ptr,ptr,ptr");
  FN(lth_kalman_result_free, void (*)(lth_kalman_result *), "void", "ptr");
  FN(lth_plqr_solve,
     lth_status(*)(const lth_system *, const lth_plqr_cost *, double, double, const double *,
                   const double *, size_t, const lth_plqr_opts *, lth_plqr_result **, lth_error *),
     "int", "ptr,ptr,double,double,ptr,ptr,size_t,ptr,ptr,ptr");
  FN(lth_plqr_result_free, void (*)(lth_plqr_result *), "void", "ptr");
  FN(lth_problem_cost, const lth_plqr_cost *(*)(const lth_problem *), "ptr", "ptr");
  FN(lth_ss_point_alloc, lth_ss_point * (*)(const lth_ss *, lth_error *), "ptr", "ptr,ptr");
  FN(lth_ss_point_free, void (*)(lth_ss_point *), "void", "ptr");
  FN(lth_ss_shape, const lth_ss_point *(*)(const lth_ss *), "ptr", "ptr");
  FN(lth_ss_at, lth_status(*)(lth_ss *, double, lth_ss_point *, lth_error *), "int",
     "ptr,double,ptr,ptr");
  FN(lth_ss_counts, void (*)(const lth_ss *, long *, long *), "void", "ptr,ptr,ptr");
  printf("}\n\n");
}

/* Callback types Python implements: checked like the functions. */
static void callbacks(void) {
  _Static_assert(_Generic((lth_expr_lookup_fn)0,
                          int (*)(void *, const char *, size_t, double *) : 1, default : 0),
                 "lth_expr_lookup_fn changed: update python/lth/_lib.py");
  _Static_assert(_Generic((lth_grid_consumer)0,
                          int (*)(void *, size_t, const lth_point *, const lth_verify_report *) : 1,
                          default : 0),
                 "lth_grid_consumer changed: update python/lth/_lib.py");
}

static void status_list(void) {
  printf("# (name, value, exit status of the tools, text): LTH_STATUS_LIST of lth/status.h\n");
  printf("STATUS = [\n");
#define LTH_X_PY(name, value, kind, text)                                                          \
  printf("    (\"%s\", %d, %d, \"%s\"),\n", #name, value, kind, text);
  LTH_STATUS_LIST(LTH_X_PY)
#undef LTH_X_PY
  printf("]\n\n");
}

int main(int argc, char **argv) {
  if (argc > 2 || (argc == 2 && !freopen(argv[1], "w", stdout))) {
    fprintf(stderr, "usage: gen_layout [OUTPUT]\n");
    return 2;
  }
  callbacks();
  printf("# SPDX-License-Identifier: GPL-3.0-or-later\n");
  printf("# Generated by python/gen_layout.c from include/lth/*.h: do not edit.\n");
  printf("# STRUCTS: name -> (sizeof, [(member, offsetof, sizeof, type code), ...]) for the\n");
  printf("# members Python uses; FUNCTIONS: name -> (ctypes return code, argument codes).\n");
  printf("POINTER_SIZE = %zu\n", sizeof(void *));
  printf("SIZE_T_SIZE = %zu\n", sizeof(size_t));
  printf("DEFAULT_COND_MAX = float(\"%.17g\")\n", (double)LTH_DEFAULT_COND_MAX);
  printf("DEFAULT_RTOL = float(\"%.17g\")\n", (double)LTH_DEFAULT_RTOL);
  printf("DEFAULT_ATOL = float(\"%.17g\")\n", (double)LTH_DEFAULT_ATOL);
  printf("DEFAULT_COLLOC_TOL = float(\"%.17g\")\n", (double)LTH_DEFAULT_COLLOC_TOL);
  printf("DEFAULT_SS_RTOL = float(\"%.17g\")\n", (double)LTH_DEFAULT_SS_RTOL);
  printf("DEFAULT_SS_ATOL = float(\"%.17g\")\n", (double)LTH_DEFAULT_SS_ATOL);
  printf("DEFAULT_OPERATOR_MIN_SIZE = %d\n", (int)LTH_DEFAULT_OPERATOR_MIN_SIZE);
  printf("DEFAULT_OPERATOR_MAX_DENSITY = float(\"%.17g\")\n",
         (double)LTH_DEFAULT_OPERATOR_MAX_DENSITY);
  printf("DEFAULT_SS_RANGE_TOL = float(\"%.17g\")\n", (double)LTH_DEFAULT_SS_RANGE_TOL);
  printf("OUT_Q = %d\nOUT_GMAT = %d\nNOUT = %d\n\n", LTH_OUT_Q, LTH_OUT_GMAT, LTH_NOUT);
  status_list();
  structs();
  functions();
  return ferror(stdout) ? 1 : 0;
}
