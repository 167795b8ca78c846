/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-decompose's own modules: the tool's context (its options and the
 * running statistics of a streamed grid), the --fields selection, and the
 * writers of the three formats (dec_json.c, dec_csv.c, dec_text.c).
 * apps/lth-decompose.c is the tool; every file here is part of it only. */
#ifndef LTH_DEC_H
#define LTH_DEC_H

#include <stddef.h>
#include <stdio.h>

#include "app_driver.h"
#include "app_outerr.h"
#include "app_path.h"
#include "lth/decomp.h"
#include "lth/verify.h"

/* What a point can write, in the order of the JSON contract and its
 * extensions (docs/format.md section 2); t is always written. */
typedef enum dec_field {
  DEC_COND_PI,
  DEC_P,
  DEC_AHAT,
  DEC_G_VEC, /* "g" */
  DEC_BHAT,
  DEC_Q,
  DEC_G, /* "G" */
  DEC_COND_CHAIN,
  DEC_CHECK,
  /* only on request (--fields): the 1-norms of the six results */
  DEC_NORM_P,
  DEC_NORM_AHAT,
  DEC_NORM_G_VEC, /* "norm_g" */
  DEC_NORM_BHAT,
  DEC_NORM_Q,
  DEC_NORM_G, /* "norm_G" */
  DEC_NFIELDS
} dec_field;

/* Without --fields: everything up to check (the output of the contract and
 * its extensions, unchanged). */
#define DEC_DEFAULT_FIELDS ((1u << (DEC_CHECK + 1)) - 1u)
#define DEC_NORM_FIELDS    (((1u << DEC_NFIELDS) - 1u) & ~DEC_DEFAULT_FIELDS)

/* The field's name as --fields and the JSON key spell it. */
const char *dec_field_name(dec_field f);
/* "P,q,cond_pi" -> bit set (1u << field); "norms" stands for the six
 * norm_ fields.  0 and a usage error reported (exit status in *rc) when an
 * item is unknown. */
unsigned dec_fields_parse(const char *list, int *rc);

/* Largest value seen and where. */
typedef struct dec_peak {
  double min, max, t_max;
  int set;
} dec_peak;
void dec_peak_add(dec_peak *pk, double x, double t);

/* The relative residuals of lth_verify_report, by name ("worst" last). */
#define DEC_NCHECK 6
const char *dec_check_name(size_t k);
double dec_check_value(const lth_verify_report *rep, size_t k);

typedef struct dec_check_stats {
  dec_peak field[DEC_NCHECK];
  dec_peak sv_gap;
  size_t rank_G_bad, rank_P_bad;
  double t_rank_G_bad, t_rank_P_bad;
  int rank_G_first; /* rank G at the first bad point */
} dec_check_stats;

/* One of the six results of a point: P, Ahat, g, Bhat, q, G. */
typedef struct dec_result {
  dec_field field;
  const lth_jet *J;
  int vector;
} dec_result;
#define DEC_NRESULTS 6
void dec_point_results(const lth_point *pt, dec_result out[DEC_NRESULTS]);
/* The field of the result's 1-norm (DEC_NORM_P for DEC_P, ...). */
dec_field dec_norm_field(dec_field result);
/* 1-norm of a result's value: the largest column sum of |entries| (for a
 * vector the sum of |entries|), as cond_pi's norms. */
double dec_norm1(const lth_jet *J);

/* The tool's options and what a run accumulates while it streams. */
struct app_ctx {
  /* options */
  int check;
  double check_tol;
  long order;
  double sample_tol;
  const char *fields_opt;
  int path_opt;  /* --path: APP_PATH_AUTO, _DENSE, _OPERATOR */
  app_path path; /* the path taken */
  /* the run */
  app_run *run;
  unsigned fields;  /* selected dec_field bits */
  int decomp_order; /* order of the decomposition's result jets */
  int print_order;  /* derivatives printed (--order) */
  FILE *text_pts;   /* text: the matrices, printed after the summary */
  double *scratch;  /* s * (m + 1): a derivative of a result */
  dec_peak cond_pi, cond_chain;
  dec_check_stats chk;
  app_sampling smp;
  app_outerr oe; /* error bars of the outputs (sampled data) */
  size_t done;
  double elapsed;
  lth_error err; /* why the consumer stopped */
};

static inline int dec_wants(const app_ctx *D, dec_field f) { return (D->fields >> f) & 1u; }

/* Derivative d of a result into D->scratch (column-major, ld = rows). */
const double *dec_derivative(app_ctx *D, const lth_jet *J, int d);

/* JSON: the document's head, one point, the tail (summary). */
void dec_json_begin(app_ctx *D, app_run *run);
void dec_json_point(app_ctx *D, app_run *run, const lth_point *pt, const lth_verify_report *rep);
void dec_json_end(const app_ctx *D, app_run *run);
/* CSV: the header (from the first point's sizes), one row per point. */
void dec_csv_header(app_ctx *D, app_run *run, const lth_point *pt);
void dec_csv_point(app_ctx *D, app_run *run, const lth_point *pt, const lth_verify_report *rep);
/* Text: a point's matrices into D->text_pts; the report at the end. */
void dec_text_point(app_ctx *D, const app_run *run, const lth_point *pt,
                    const lth_verify_report *rep);
void dec_text_report(const app_ctx *D, app_run *run);

#endif
