/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Private: decimal numbers as data files write them (lib/core/numparse.c),
 * shared by the CSV reader of sampled data and the Matrix Market reader.
 *
 * Accepted: [+-]digits[.digits][(e|E)[+-]digits] (also "5." and ".5"),
 * converted exactly as strtod converts them (correctly rounded): the
 * significant digits (leading zeros dropped, wherever they are) and the
 * decimal exponent are handed to strtod as "DIGITS e EXP", without a
 * decimal point, so the locale does not matter.  A correctly rounded
 * conversion never needs more than 768 significant decimal digits plus the
 * knowledge whether any digit after them is nonzero, so beyond 780 digits
 * the rest is replaced by one sticky digit 1 when any of it is nonzero.
 * Values that overflow, inf and nan are "not a finite number"; values below
 * the smallest subnormal read as 0, as strtod reads them.
 */
#ifndef LTH_NUMPARSE_H
#define LTH_NUMPARSE_H

#include <stddef.h>

/* Parse a number occupying all of s[0..n-1].  Returns 0 not a number, 1 a
 * finite number (in *out), 2 a number that is not finite (inf, nan,
 * overflow). */
int lth_parse_number(const char *s, size_t n, double *out);

#endif
