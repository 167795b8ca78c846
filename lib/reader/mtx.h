/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: Matrix Market files (lib/reader/mtx.c), the matrices of
 * mm("file.mtx") in data files (docs/format.md, "Sparse blocks").
 *
 * Read: `%%MatrixMarket matrix FORMAT FIELD SYMMETRY` with FORMAT coordinate
 * or array, FIELD real, integer or pattern (pattern: coordinate only, every
 * entry 1), SYMMETRY general, symmetric or skew-symmetric (square; the
 * entries on and below the diagonal, strictly below for skew-symmetric, and
 * the rest mirrored: a(j,i) = a(i,j), resp. -a(i,j)).  The keywords are case
 * insensitive.  Lines starting with '%' are comments; blank lines are
 * skipped.  A coordinate entry given twice is summed (as MATLAB's sparse()
 * and SciPy's mmread do); an explicit zero of the coordinate format stays in
 * the pattern, the zeros an array lists do not.  Refused,
 * naming the file, line and column: complex and hermitian matrices, vectors,
 * a missing or malformed header or size line, an index outside the size, an
 * entry above the diagonal of a symmetric file (or on it, skew-symmetric), a
 * value that is not a finite number (or not an integer, for FIELD integer),
 * more or fewer entries than the size line declares, and anything after the
 * fields of an entry.  Numbers are read as lib/core/numparse.h reads them.
 */
#ifndef LTH_MTX_H
#define LTH_MTX_H

#include <stddef.h>

#include "lth/status.h"
#include "source/csc.h"

/* Largest Matrix Market file read (bytes). */
#define LTH_MTX_MAX_BYTES ((size_t)1 << 30)

/* The matrix in text[0..len-1]; errors name `name` (the file), line and
 * column, status LTH_EPARSE (malformed) or LTH_EDATA (well formed but
 * refused: complex, hermitian, out of range, not finite, ...). */
lth_csc *lth_mtx_parse(const char *text, size_t len, const char *name, lth_error *err);

/* Read the file at path (LTH_EIO if it cannot be read, or is not a regular
 * file) and parse it. */
lth_csc *lth_mtx_read(const char *path, lth_error *err);

#endif
