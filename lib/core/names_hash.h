/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Two helpers the data-file reader and the model layer share: the hash of a
 * name for their open-addressing tables (FNV-1a), and growing an array by
 * doubling. */
#ifndef LTH_NAMES_HASH_H
#define LTH_NAMES_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

static inline size_t lth_name_hash(const char *s, size_t n) {
  size_t h = 1469598103934665603ULL & SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    h = (h ^ (unsigned char)s[i]) * (1099511628211ULL & SIZE_MAX);
  }
  return h;
}

/* Make *p hold at least `need` elements of `size` bytes (capacity *cap,
 * doubled from 16); 0 when out of memory (*p and *cap unchanged). */
static inline int lth_grow(void **p, int *cap, int need, size_t size) {
  if (need <= *cap) {
    return 1;
  }
  int nc = *cap ? 2 * *cap : 16;
  while (nc < need) {
    nc *= 2;
  }
  void *np = realloc(*p, (size_t)nc * size);
  if (!np) {
    return 0;
  }
  *p = np;
  *cap = nc;
  return 1;
}

#endif
