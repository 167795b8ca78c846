/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A view of a source with some of its rows zero (lib/source/source_rows.c):
 * the BVP's impulse check (lib/bvp/bvp_impulses.c) looks for jumps only in
 * the rows of a block that the hidden constraints reach. */
#ifndef LTH_SOURCE_ROWS_H
#define LTH_SOURCE_ROWS_H

#include "lth/source.h"

/* Dense enclosures (entry (i, j) of order m at coef[m*rows*cols + i +
 * j*rows], as lth_source_enclose's) of a source that carries them, or of a
 * scaled view (lth_source_scaled) of a dense source that does: the view
 * has none of its own (lth_enclose examines its base through its parts),
 * this gives the base's, transposed and scaled, in the view's numbering.
 * lth_source_enclose_dense_work intervals of work. */
int lth_source_can_enclose_dense(const lth_source *src);
size_t lth_source_enclose_dense_work(const lth_source *src, int order);
lth_status lth_source_enclose_dense(const lth_source *src, double a, double b, int order,
                                    lth_interval *coef, lth_interval *work, lth_error *err);

/* base with row i zero where keep[i] == 0 (keep: rows(base) entries,
 * copied), the same size, pattern and domain: its values, and its
 * enclosures (dense and on the pattern), are base's on the kept rows and
 * exactly 0 ({0}) on the others.  base must carry an enclosure
 * (lth_source_can_enclose_dense or lth_source_can_enclose_csc; LTH_EINVAL
 * otherwise) and outlive the view, which carries one of its own. */
lth_source *lth_source_rows_kept(const lth_source *base, const unsigned char *keep, lth_error *err);

#endif
