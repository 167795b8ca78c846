/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: rebuilding a source with some of the sources it reads replaced
 * (lib/source/source.c).  The sampled-data error estimates (lib/decomp/samples_wrap.c) move
 * sampled data wherever a system reads them: a block that is the data, a
 * scaled view of it (the LQR optimality DAE), M^{-1} times it (a mass
 * matrix), or one coefficient of an equation-form block.  Composite kinds
 * register how they rebuild themselves; every other source is a leaf.
 */
#ifndef LTH_SOURCE_REBIND_H
#define LTH_SOURCE_REBIND_H

#include "lth/source.h"

/* The replacement of a leaf: *use = the source to read instead (the caller of
 * lth_source_rebind keeps it alive as long as the result), or NULL to keep
 * the leaf. */
typedef lth_status (*lth_leaf_map)(void *ctx, const lth_source *leaf, const lth_source **use,
                                   lth_error *err);

/* How a composite kind rebuilds itself from its state: *out = a new source
 * of the same kind reading the replacements (owning what it makes), or NULL
 * when nothing below it changed. */
typedef lth_status (*lth_source_rebind_fn)(const void *state, lth_leaf_map map, void *ctx,
                                           lth_source **out, lth_error *err);

/* Register fn for a composite source (right after lth_source_new). */
void lth_source_set_rebind(lth_source *src, lth_source_rebind_fn fn);

/* src with its leaves replaced by map: *use = what to read instead of src
 * (src itself when nothing changed, a replacement leaf, or *own); *own = a
 * new source the caller owns, or NULL.  On failure both are NULL. */
lth_status lth_source_rebind(const lth_source *src, lth_leaf_map map, void *ctx,
                             const lth_source **use, lth_source **own, lth_error *err);

#endif
