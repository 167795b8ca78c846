/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A source kind of the library's own, for the data-file reader: c(t) + a S(t)
 * (lib/source/source_affine.c). */
#ifndef LTH_SOURCE_AFFINE_H
#define LTH_SOURCE_AFFINE_H

#include "lth/expr.h"
#include "lth/source.h"

/* c(t) + a S(t) as a 1 x 1 source: e (owned, may be NULL for the constant c0)
 * and S (1 x 1, shared). */
lth_source *lth_source_affine(lth_expr *e, double c0, double a, const lth_source *S,
                              lth_error *err);

#endif
