/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Decimal numbers in data files read by the library (CSV samples, Matrix
 * Market files), converted without the C locale's decimal point
 * (lib/core/numparse.h). */
#include "numparse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEEP_DIGITS 780

static int is_digit(int c) { return c >= '0' && c <= '9'; }

static int is_word(const char *s, size_t n, const char *w) {
  return n == strlen(w) && strncmp(s, w, n) == 0;
}

/* Decimal exponent after 'e' at s[*i..n-1] (saturating); 0 if malformed. */
static int parse_exponent(const char *s, size_t n, size_t *i, long long *ex) {
  int neg = *i < n && s[*i] == '-';
  *i += *i < n && (s[*i] == '-' || s[*i] == '+');
  if (!(*i < n && is_digit(s[*i]))) {
    return 0;
  }
  long long e = 0;
  for (; *i < n && is_digit(s[*i]); (*i)++) {
    e = e < 1000000000LL ? 10 * e + (s[*i] - '0') : e;
  }
  *ex = neg ? -e : e;
  return 1;
}

int lth_parse_number(const char *s, size_t n, double *out) {
  char buf[KEEP_DIGITS + 40];
  size_t i = 0, nd = 0, seen = 0;
  long long point = 0, ex = 0; /* value = 0.DIGITS x 10^(point + ex) */
  int neg = 0, dot = 0, sticky = 0;
  if (i < n && (s[i] == '+' || s[i] == '-')) {
    neg = s[i++] == '-';
  }
  const char *w = s + i;
  size_t rest = n - i;
  if (is_word(w, rest, "inf") || is_word(w, rest, "Inf") || is_word(w, rest, "nan") ||
      is_word(w, rest, "NaN") || is_word(w, rest, "Infinity")) {
    return 2;
  }
  for (; i < n && (is_digit(s[i]) || (s[i] == '.' && !dot)); i++) {
    if (s[i] == '.') {
      dot = 1;
      continue;
    }
    seen++;
    if (nd == 0 && s[i] == '0') {
      point -= dot; /* a leading zero: only its place counts */
      continue;
    }
    point += !dot;
    if (nd < KEEP_DIGITS) {
      buf[nd++] = s[i];
    } else {
      sticky |= s[i] != '0';
    }
  }
  if (seen == 0 ||
      (i < n && (s[i] == 'e' || s[i] == 'E') && (++i, !parse_exponent(s, n, &i, &ex))) || i != n) {
    return 0;
  }
  if (nd == 0) {
    *out = neg ? -0.0 : 0.0;
    return 1;
  }
  long long p = point + ex;
  if (p > 400) {
    return 2;
  }
  if (p < -400) {
    *out = neg ? -0.0 : 0.0;
    return 1;
  }
  if (sticky) {
    buf[nd++] = '1';
  }
  snprintf(buf + nd, sizeof buf - nd, "e%lld", p - (long long)nd);
  double v = strtod(buf, NULL);
  *out = neg ? -v : v;
  return isfinite(v) ? 1 : 2;
}
