/* SPDX-License-Identifier: GPL-3.0-or-later */
/* lth-decompose: the fields a point writes, --fields, statistics (dec.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"

static const char *const field_names[DEC_NFIELDS] = {
    "cond_pi", "P",      "Ahat",      "g",      "Bhat",      "q",      "G",     "cond_chain",
    "check",   "norm_P", "norm_Ahat", "norm_g", "norm_Bhat", "norm_q", "norm_G"};

const char *dec_field_name(dec_field f) { return field_names[f]; }

static int field_of(const char *name, size_t len) {
  for (int f = 0; f < DEC_NFIELDS; f++) {
    if (strlen(field_names[f]) == len && strncmp(field_names[f], name, len) == 0) {
      return f;
    }
  }
  return -1;
}

unsigned dec_fields_parse(const char *list, int *rc) {
  unsigned bits = 0;
  *rc = 0;
  for (const char *c = list;; c++) {
    size_t len = strcspn(c, ",");
    int f = field_of(c, len);
    if (len == 5 && strncmp(c, "norms", 5) == 0) {
      bits |= DEC_NORM_FIELDS;
    } else if (f < 0) {
      *rc = app_usage_error("--fields: unknown field '%.*s' (the fields are cond_pi, P, Ahat, g, "
                            "Bhat, q, G, cond_chain, check, norm_P, norm_Ahat, norm_g, "
                            "norm_Bhat, norm_q, norm_G, and norms for all six norms; t is "
                            "always written)",
                            (int)len, c);
      return 0;
    } else {
      bits |= 1u << f;
    }
    c += len;
    if (!*c) {
      return bits;
    }
  }
}

void dec_peak_add(dec_peak *pk, double x, double t) {
  if (!pk->set || x < pk->min) {
    pk->min = x;
  }
  if (!pk->set || x > pk->max) {
    pk->max = x;
    pk->t_max = t;
  }
  pk->set = 1;
}

typedef struct check_field {
  const char *name;
  size_t offset;
} check_field;

static const check_field check_fields[DEC_NCHECK] = {
    {"theorem3_linear", offsetof(lth_verify_report, theorem3_linear)},
    {"theorem3_affine", offsetof(lth_verify_report, theorem3_affine)},
    {"idempotent", offsetof(lth_verify_report, idempotent)},
    {"commute", offsetof(lth_verify_report, commute)},
    {"structure", offsetof(lth_verify_report, structure)},
    {"worst", offsetof(lth_verify_report, worst)},
};

const char *dec_check_name(size_t k) { return check_fields[k].name; }

double dec_check_value(const lth_verify_report *rep, size_t k) {
  return *(const double *)((const char *)rep + check_fields[k].offset);
}

void dec_point_results(const lth_point *pt, dec_result out[DEC_NRESULTS]) {
  out[0] = (dec_result){DEC_P, &pt->P, 0};
  out[1] = (dec_result){DEC_AHAT, &pt->Ahat, 0};
  out[2] = (dec_result){DEC_G_VEC, &pt->g, 1};
  out[3] = (dec_result){DEC_BHAT, &pt->Bhat, 0};
  out[4] = (dec_result){DEC_Q, &pt->q, 1};
  out[5] = (dec_result){DEC_G, &pt->G, 0};
}

dec_field dec_norm_field(dec_field result) {
  return (dec_field)(DEC_NORM_P + ((int)result - (int)DEC_P));
}

double dec_norm1(const lth_jet *J) {
  return lth_jet_norm1(J, 0);
}

/* d! times Taylor coefficient d. */
const double *dec_derivative(app_ctx *D, const lth_jet *J, int d) {
  double fact = 1.0;
  for (int k = 2; k <= d; k++) {
    fact *= k;
  }
  for (int j = 0; j < J->cols; j++) {
    for (int i = 0; i < J->rows; i++) {
      D->scratch[i + (size_t)j * (size_t)J->rows] = fact * LTH_JET_AT(J, d, i, j);
    }
  }
  return D->scratch;
}
