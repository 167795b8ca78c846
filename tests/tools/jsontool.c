/* SPDX-License-Identifier: GPL-3.0-or-later */
/* jsontool: a strict JSON reader for the shell tests (no python in the test
 * suite).  Usage:
 *   jsontool validate FILE              exit 0 iff FILE is one valid RFC 8259
 *                                       document with finite numbers and no
 *                                       duplicate keys
 *   jsontool get FILE PATH              print the value at PATH (numbers %.17g)
 *   jsontool len FILE PATH              number of elements of an array/object
 *   jsontool keys FILE PATH             the keys of an object, one per line
 *   jsontool shape FILE PATH            "R C" of a matrix (array of equal-length
 *                                       arrays of numbers), "N" of a vector
 *   jsontool near FILE PATH VALUE TOL   exit 0 iff |value at PATH - VALUE| <= TOL
 *   jsontool range FILE KEY             "MIN MAX COUNT" of the numbers under
 *                                       every member named KEY (booleans count
 *                                       as 0/1)
 *   jsontool below FILE KEY LIMIT       exit 0 iff there are numbers under
 *                                       members KEY and all are <= LIMIT
 *   jsontool diff EXPECTED ACTUAL [--rtol R] [--atol A] [--ignore KEY]... [--floor KEY A]...
 *       same structure and keys, equal strings/booleans, and numbers with
 *       |a - e| <= rtol * max(|a|, |e|, S) + atol, where S is the largest
 *       magnitude in the expected value of the innermost enclosing object
 *       member (a normwise comparison of each matrix/vector); defaults
 *       rtol 1e-9, atol 1e-13; members named KEY are skipped; numbers under
 *       members named KEY of --floor get the absolute tolerance A (quantities
 *       at rounding level, whose digits are noise).
 * PATH: members and indices, e.g. points[0].q[4] or summary.n_points ("" or
 * "." is the whole document).  Exit status 0 success, 1 failed condition,
 * 2 usage or unreadable/invalid input.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
  jtype type;
  double num;
  int b;
  char *str; /* J_STR */
  size_t n;  /* J_ARR / J_OBJ: elements */
  struct jval *items;
  char **keys; /* J_OBJ */
} jval;

typedef struct parser {
  const char *s, *end, *p;
  const char *file;
  char msg[256];
  int depth;
} parser;

#define MAX_DEPTH 256

static int fail(parser *P, const char *what) {
  if (!P->msg[0]) {
    int line = 1, col = 1;
    for (const char *c = P->s; c < P->p && c < P->end; c++) {
      if (*c == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    snprintf(P->msg, sizeof P->msg, "%s:%d:%d: %s", P->file, line, col, what);
  }
  return -1;
}

static void skip_ws(parser *P) {
  while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\n' || *P->p == '\r')) {
    P->p++;
  }
}

static void jfree(jval *v) {
  if (v->type == J_STR) {
    free(v->str);
  }
  if (v->type == J_ARR || v->type == J_OBJ) {
    for (size_t k = 0; k < v->n; k++) {
      jfree(&v->items[k]);
      if (v->keys) {
        free(v->keys[k]);
      }
    }
    free(v->items);
    free(v->keys);
  }
  memset(v, 0, sizeof *v);
}

static int parse_value(parser *P, jval *v);

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Append code point cp as UTF-8. */
static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | (cp >> 6));
    o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | (cp >> 12));
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | (cp >> 18));
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

static int parse_hex4(parser *P, unsigned *cp) {
  if (P->end - P->p < 4) return fail(P, "truncated \\u escape");
  unsigned v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexval((unsigned char)P->p[k]);
    if (h < 0) return fail(P, "bad hex digit in \\u escape");
    v = v * 16 + (unsigned)h;
  }
  P->p += 4;
  *cp = v;
  return 0;
}

static int parse_string(parser *P, char **out) {
  P->p++; /* opening quote */
  size_t cap = 16, len = 0;
  char *buf = malloc(cap);
  if (!buf) return fail(P, "out of memory");
  for (;;) {
    if (P->p >= P->end) {
      free(buf);
      return fail(P, "unterminated string");
    }
    unsigned char c = (unsigned char)*P->p;
    if (len + 8 >= cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        return fail(P, "out of memory");
      }
      buf = nb;
    }
    if (c == '"') {
      P->p++;
      break;
    }
    if (c < 0x20) {
      free(buf);
      return fail(P, "control character in string");
    }
    if (c != '\\') {
      buf[len++] = (char)c;
      P->p++;
      continue;
    }
    P->p++;
    if (P->p >= P->end) {
      free(buf);
      return fail(P, "unterminated escape");
    }
    char e = *P->p++;
    unsigned cp;
    switch (e) {
    case '"':
      buf[len++] = '"';
      break;
    case '\\':
      buf[len++] = '\\';
      break;
    case '/':
      buf[len++] = '/';
      break;
    case 'b':
      buf[len++] = '\b';
      break;
    case 'f':
      buf[len++] = '\f';
      break;
    case 'n':
      buf[len++] = '\n';
      break;
    case 'r':
      buf[len++] = '\r';
      break;
    case 't':
      buf[len++] = '\t';
      break;
    case 'u':
      if (parse_hex4(P, &cp) != 0) {
        free(buf);
        return -1;
      }
      if (cp >= 0xD800 && cp <= 0xDBFF) {
        unsigned lo;
        if (P->end - P->p < 2 || P->p[0] != '\\' || P->p[1] != 'u') {
          free(buf);
          return fail(P, "lone surrogate");
        }
        P->p += 2;
        if (parse_hex4(P, &lo) != 0) {
          free(buf);
          return -1;
        }
        if (lo < 0xDC00 || lo > 0xDFFF) {
          free(buf);
          return fail(P, "bad surrogate pair");
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
      } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        free(buf);
        return fail(P, "lone surrogate");
      }
      len += put_utf8(buf + len, cp);
      break;
    default:
      free(buf);
      return fail(P, "bad escape in string");
    }
  }
  buf[len] = '\0';
  *out = buf;
  return 0;
}

/* RFC 8259 number grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int parse_number(parser *P, jval *v) {
  const char *q = P->p;
  if (q < P->end && *q == '-') q++;
  if (q >= P->end || !isdigit((unsigned char)*q))
    return fail(P, "invalid number (NaN and Infinity are not JSON)");
  if (*q == '0')
    q++;
  else
    while (q < P->end && isdigit((unsigned char)*q)) q++;
  if (q < P->end && *q == '.') {
    q++;
    if (q >= P->end || !isdigit((unsigned char)*q)) return fail(P, "digits expected after '.'");
    while (q < P->end && isdigit((unsigned char)*q)) q++;
  }
  if (q < P->end && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < P->end && (*q == '+' || *q == '-')) q++;
    if (q >= P->end || !isdigit((unsigned char)*q)) return fail(P, "digits expected in exponent");
    while (q < P->end && isdigit((unsigned char)*q)) q++;
  }
  char tmp[512];
  size_t n = (size_t)(q - P->p);
  if (n >= sizeof tmp) return fail(P, "number too long");
  memcpy(tmp, P->p, n);
  tmp[n] = '\0';
  double x = strtod(tmp, NULL);
  if (!isfinite(x)) return fail(P, "number out of the range of a double");
  v->type = J_NUM;
  v->num = x;
  P->p = q;
  return 0;
}

static int literal(parser *P, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(P->end - P->p) < n || strncmp(P->p, word, n) != 0)
    return fail(P, "unexpected token");
  P->p += n;
  return 0;
}

static int push(jval *v, size_t *cap, jval *item, char *key) {
  if (v->n == *cap) {
    size_t nc = *cap ? 2 * *cap : 4;
    jval *ni = realloc(v->items, nc * sizeof *ni);
    if (!ni) return -1;
    v->items = ni;
    if (v->type == J_OBJ) {
      char **nk = realloc(v->keys, nc * sizeof *nk);
      if (!nk) return -1;
      v->keys = nk;
    }
    *cap = nc;
  }
  v->items[v->n] = *item;
  if (v->type == J_OBJ) v->keys[v->n] = key;
  v->n++;
  return 0;
}

static int parse_array(parser *P, jval *v) {
  size_t cap = 0;
  v->type = J_ARR;
  P->p++;
  skip_ws(P);
  if (P->p < P->end && *P->p == ']') {
    P->p++;
    return 0;
  }
  for (;;) {
    jval item;
    memset(&item, 0, sizeof item);
    if (parse_value(P, &item) != 0) {
      jfree(&item);
      return -1;
    }
    if (push(v, &cap, &item, NULL) != 0) {
      jfree(&item);
      return fail(P, "out of memory");
    }
    skip_ws(P);
    if (P->p < P->end && *P->p == ',') {
      P->p++;
      continue;
    }
    if (P->p < P->end && *P->p == ']') {
      P->p++;
      return 0;
    }
    return fail(P, "expected ',' or ']'");
  }
}

static int parse_object(parser *P, jval *v) {
  size_t cap = 0;
  v->type = J_OBJ;
  P->p++;
  skip_ws(P);
  if (P->p < P->end && *P->p == '}') {
    P->p++;
    return 0;
  }
  for (;;) {
    skip_ws(P);
    if (P->p >= P->end || *P->p != '"') return fail(P, "expected a string key");
    char *key;
    if (parse_string(P, &key) != 0) return -1;
    for (size_t k = 0; k < v->n; k++) {
      if (strcmp(v->keys[k], key) == 0) {
        free(key);
        return fail(P, "duplicate key");
      }
    }
    skip_ws(P);
    if (P->p >= P->end || *P->p != ':') {
      free(key);
      return fail(P, "expected ':'");
    }
    P->p++;
    jval item;
    memset(&item, 0, sizeof item);
    if (parse_value(P, &item) != 0) {
      free(key);
      jfree(&item);
      return -1;
    }
    if (push(v, &cap, &item, key) != 0) {
      free(key);
      jfree(&item);
      return fail(P, "out of memory");
    }
    skip_ws(P);
    if (P->p < P->end && *P->p == ',') {
      P->p++;
      continue;
    }
    if (P->p < P->end && *P->p == '}') {
      P->p++;
      return 0;
    }
    return fail(P, "expected ',' or '}'");
  }
}

static int parse_value(parser *P, jval *v) {
  skip_ws(P);
  if (P->p >= P->end) return fail(P, "unexpected end of input");
  if (++P->depth > MAX_DEPTH) return fail(P, "nested too deeply");
  int rc;
  switch (*P->p) {
  case '{':
    rc = parse_object(P, v);
    break;
  case '[':
    rc = parse_array(P, v);
    break;
  case '"':
    v->type = J_STR;
    rc = parse_string(P, &v->str);
    if (rc != 0) v->type = J_NULL;
    break;
  case 't':
    rc = literal(P, "true");
    v->type = J_BOOL;
    v->b = 1;
    break;
  case 'f':
    rc = literal(P, "false");
    v->type = J_BOOL;
    v->b = 0;
    break;
  case 'n':
    rc = literal(P, "null");
    v->type = J_NULL;
    break;
  default:
    rc = parse_number(P, v);
  }
  P->depth--;
  return rc;
}

static char *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
      }
      buf = nb;
    }
  }
  fclose(fp);
  *len = n;
  return buf;
}

/* Parse a whole file; prints the reason and returns -1 on failure. */
static int load(const char *path, jval *doc) {
  size_t len;
  char *text = slurp(path, &len);
  memset(doc, 0, sizeof *doc);
  if (!text) {
    fprintf(stderr, "jsontool: cannot read %s: %s\n", path, strerror(errno));
    return -1;
  }
  parser P = {.s = text, .end = text + len, .p = text, .file = path, .msg = "", .depth = 0};
  int rc = parse_value(&P, doc);
  if (rc == 0) {
    skip_ws(&P);
    if (P.p != P.end) rc = fail(&P, "trailing characters after the document");
  }
  if (rc != 0) {
    fprintf(stderr, "jsontool: invalid JSON: %s\n", P.msg);
    jfree(doc);
  }
  free(text);
  return rc;
}

/* ---- paths ---- */

static const jval *lookup(const jval *v, const char *path) {
  const char *p = path;
  if (*p == '.') p++;
  while (v && *p) {
    if (*p == '[') {
      char *end;
      unsigned long k = strtoul(p + 1, &end, 10);
      if (*end != ']' || v->type != J_ARR || k >= v->n) return NULL;
      v = &v->items[k];
      p = end + 1;
    } else {
      size_t n = strcspn(p, ".[");
      const jval *next = NULL;
      for (size_t k = 0; v->type == J_OBJ && k < v->n; k++) {
        if (strlen(v->keys[k]) == n && strncmp(v->keys[k], p, n) == 0) next = &v->items[k];
      }
      v = next;
      p += n;
    }
    if (*p == '.') p++;
  }
  return v;
}

static const jval *must_lookup(const jval *doc, const char *path) {
  const jval *v = lookup(doc, path);
  if (!v) fprintf(stderr, "jsontool: no value at path '%s'\n", path);
  return v;
}

static void print_value(const jval *v) {
  switch (v->type) {
  case J_NULL:
    puts("null");
    break;
  case J_BOOL:
    puts(v->b ? "true" : "false");
    break;
  case J_NUM:
    printf("%.17g\n", v->num);
    break;
  case J_STR:
    puts(v->str);
    break;
  case J_ARR:
    printf("array of %zu\n", v->n);
    break;
  case J_OBJ:
    printf("object of %zu\n", v->n);
    break;
  }
}

/* ---- numbers under members named KEY ---- */

typedef struct stats {
  double min, max;
  size_t count;
} stats;

static void gather(const jval *v, const char *key, int inside, stats *st) {
  if ((v->type == J_NUM || v->type == J_BOOL) && inside) {
    double x = v->type == J_NUM ? v->num : v->b;
    if (st->count == 0 || x > st->max) st->max = x;
    if (st->count == 0 || x < st->min) st->min = x;
    st->count++;
  }
  if (v->type == J_ARR || v->type == J_OBJ) {
    for (size_t k = 0; k < v->n; k++) {
      int in = inside || (v->type == J_OBJ && strcmp(v->keys[k], key) == 0);
      gather(&v->items[k], key, in, st);
    }
  }
}

/* ---- diff ---- */

typedef struct diff_opts {
  double rtol, atol;
  const char **ignore;
  size_t nignore;
  const char **floor_key; /* numbers under these members: absolute tolerance floor_atol */
  double *floor_atol;
  size_t nfloor;
  size_t ndiff;
} diff_opts;

static double maxabs(const jval *v) {
  if (v->type == J_NUM) return fabs(v->num);
  double m = 0.0;
  if (v->type == J_ARR || v->type == J_OBJ) {
    for (size_t k = 0; k < v->n; k++) {
      double x = maxabs(&v->items[k]);
      m = x > m ? x : m;
    }
  }
  return m;
}

static int ignored(const diff_opts *o, const char *key) {
  for (size_t k = 0; k < o->nignore; k++) {
    if (strcmp(o->ignore[k], key) == 0) return 1;
  }
  return 0;
}

static const char *type_name(jtype t) {
  static const char *names[] = {"null", "boolean", "number", "string", "array", "object"};
  return names[t];
}

static void report(diff_opts *o, const char *path, const char *fmt, const char *a, const char *b) {
  if (o->ndiff++ < 20) {
    fprintf(stderr, "%s: ", path[0] ? path : "(document)");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
  }
}

static void diff(const jval *e, const jval *a, double scale, char *path, size_t plen,
                 diff_opts *o) {
  char b1[64], b2[64];
  if (e->type != a->type) {
    report(o, path, "expected %s, found %s", type_name(e->type), type_name(a->type));
    return;
  }
  switch (e->type) {
  case J_NULL:
    return;
  case J_BOOL:
    if (e->b != a->b)
      report(o, path, "expected %s, found %s", e->b ? "true" : "false", a->b ? "true" : "false");
    return;
  case J_STR:
    if (strcmp(e->str, a->str) != 0)
      report(o, path, "expected \"%s\", found \"%s\"", e->str, a->str);
    return;
  case J_NUM: {
    double m = fmax(fmax(fabs(e->num), fabs(a->num)), scale);
    if (!(fabs(e->num - a->num) <= o->rtol * m + o->atol)) {
      snprintf(b1, sizeof b1, "%.17g", e->num);
      snprintf(b2, sizeof b2, "%.17g", a->num);
      report(o, path, "expected %s, found %s", b1, b2);
    }
    return;
  }
  case J_ARR:
    if (e->n != a->n) {
      snprintf(b1, sizeof b1, "%zu", e->n);
      snprintf(b2, sizeof b2, "%zu", a->n);
      report(o, path, "expected %s elements, found %s", b1, b2);
      return;
    }
    for (size_t k = 0; k < e->n; k++) {
      int n = snprintf(path + plen, 4096 - plen, "[%zu]", k);
      diff(&e->items[k], &a->items[k], scale, path, plen + (size_t)n, o);
      path[plen] = '\0';
    }
    return;
  case J_OBJ:
    for (size_t k = 0; k < e->n; k++) {
      if (ignored(o, e->keys[k])) continue;
      const jval *av = NULL;
      for (size_t i = 0; i < a->n; i++) {
        if (strcmp(a->keys[i], e->keys[k]) == 0) av = &a->items[i];
      }
      int n = snprintf(path + plen, 4096 - plen, "%s%s", plen ? "." : "", e->keys[k]);
      if (!av) {
        report(o, path, "%smissing%s", "", "");
      } else {
        double atol = o->atol;
        for (size_t f = 0; f < o->nfloor; f++) {
          if (strcmp(o->floor_key[f], e->keys[k]) == 0 && o->floor_atol[f] > o->atol)
            o->atol = o->floor_atol[f];
        }
        diff(&e->items[k], av, maxabs(&e->items[k]), path, plen + (size_t)n, o);
        o->atol = atol;
      }
      path[plen] = '\0';
    }
    for (size_t i = 0; i < a->n; i++) {
      int found = ignored(o, a->keys[i]);
      for (size_t k = 0; k < e->n && !found; k++) found = strcmp(a->keys[i], e->keys[k]) == 0;
      if (!found) {
        snprintf(path + plen, 4096 - plen, "%s%s", plen ? "." : "", a->keys[i]);
        report(o, path, "%sunexpected member%s", "", "");
        path[plen] = '\0';
      }
    }
    return;
  }
}

static int cmd_diff(int argc, char **argv) {
  diff_opts o = {.rtol = 1e-9, .atol = 1e-13, .nignore = 0, .nfloor = 0, .ndiff = 0};
  o.ignore = calloc((size_t)argc, sizeof *o.ignore);
  o.floor_key = calloc((size_t)argc, sizeof *o.floor_key);
  o.floor_atol = calloc((size_t)argc, sizeof *o.floor_atol);
  int ok = argc >= 4 && o.ignore && o.floor_key && o.floor_atol;
  for (int k = 4; ok && k < argc; k++) {
    if (k + 1 < argc && strcmp(argv[k], "--rtol") == 0)
      o.rtol = atof(argv[++k]);
    else if (k + 1 < argc && strcmp(argv[k], "--atol") == 0)
      o.atol = atof(argv[++k]);
    else if (k + 1 < argc && strcmp(argv[k], "--ignore") == 0)
      o.ignore[o.nignore++] = argv[++k];
    else if (k + 2 < argc && strcmp(argv[k], "--floor") == 0) {
      o.floor_key[o.nfloor] = argv[++k];
      o.floor_atol[o.nfloor++] = atof(argv[++k]);
    } else {
      fprintf(stderr, "jsontool diff: unknown argument %s\n", argv[k]);
      ok = 0;
    }
  }
  jval e, a;
  if (!ok || load(argv[2], &e) != 0) {
    free(o.ignore);
    free(o.floor_key);
    free(o.floor_atol);
    return 2;
  }
  if (load(argv[3], &a) != 0) {
    jfree(&e);
    free(o.ignore);
    free(o.floor_key);
    free(o.floor_atol);
    return 2;
  }
  char path[4096] = "";
  diff(&e, &a, maxabs(&e), path, 0, &o);
  if (o.ndiff > 0) {
    fprintf(stderr, "jsontool: %zu difference(s) between %s (expected) and %s (rtol %g, atol %g)\n",
            o.ndiff, argv[2], argv[3], o.rtol, o.atol);
  }
  jfree(&e);
  jfree(&a);
  free(o.ignore);
  free(o.floor_key);
  free(o.floor_atol);
  return o.ndiff ? 1 : 0;
}

static int cmd_shape(const jval *v) {
  if (v->type != J_ARR) {
    fprintf(stderr, "jsontool: not an array\n");
    return 1;
  }
  if (v->n > 0 && v->items[0].type == J_ARR) {
    size_t cols = v->items[0].n;
    for (size_t i = 0; i < v->n; i++) {
      const jval *row = &v->items[i];
      if (row->type != J_ARR || row->n != cols) {
        fprintf(stderr, "jsontool: ragged matrix\n");
        return 1;
      }
      for (size_t j = 0; j < cols; j++) {
        if (row->items[j].type != J_NUM) {
          fprintf(stderr, "jsontool: non-number in matrix\n");
          return 1;
        }
      }
    }
    printf("%zu %zu\n", v->n, cols);
    return 0;
  }
  for (size_t i = 0; i < v->n; i++) {
    if (v->items[i].type != J_NUM) {
      fprintf(stderr, "jsontool: non-number in vector\n");
      return 1;
    }
  }
  printf("%zu\n", v->n);
  return 0;
}

static int usage(void) {
  fputs("usage: jsontool validate|get|len|keys|shape|near|range|below|diff FILE ...\n", stderr);
  return 2;
}

/* Commands that read one document and look at one path. */
static int cmd_path(const char *cmd, const jval *doc, int argc, char **argv) {
  if (strcmp(cmd, "range") == 0 || strcmp(cmd, "below") == 0) {
    stats st = {0.0, 0.0, 0};
    gather(doc, argv[3], 0, &st);
    if (st.count == 0) {
      fprintf(stderr, "jsontool: no numbers under members '%s'\n", argv[3]);
      return 1;
    }
    if (cmd[0] == 'r') {
      printf("%.17g %.17g %zu\n", st.min, st.max, st.count);
      return 0;
    }
    if (argc != 5) return usage();
    if (!(st.max <= atof(argv[4]))) {
      fprintf(stderr, "jsontool: largest '%s' is %.17g, above %s\n", argv[3], st.max, argv[4]);
      return 1;
    }
    return 0;
  }
  const jval *v = must_lookup(doc, argv[3]);
  if (!v) return 1;
  if (strcmp(cmd, "get") == 0) {
    print_value(v);
    return 0;
  }
  if (strcmp(cmd, "len") == 0) {
    if (v->type != J_ARR && v->type != J_OBJ) {
      fprintf(stderr, "jsontool: not an array or object\n");
      return 1;
    }
    printf("%zu\n", v->n);
    return 0;
  }
  if (strcmp(cmd, "keys") == 0) {
    if (v->type != J_OBJ) {
      fprintf(stderr, "jsontool: not an object\n");
      return 1;
    }
    for (size_t k = 0; k < v->n; k++) puts(v->keys[k]);
    return 0;
  }
  if (strcmp(cmd, "shape") == 0) return cmd_shape(v);
  if (strcmp(cmd, "near") == 0 && argc == 6) {
    double want = atof(argv[4]), tol = atof(argv[5]);
    if (v->type != J_NUM) {
      fprintf(stderr, "jsontool: %s is not a number\n", argv[3]);
      return 1;
    }
    if (!(fabs(v->num - want) <= tol)) {
      fprintf(stderr, "jsontool: %s = %.17g, expected %.17g within %g\n", argv[3], v->num, want,
              tol);
      return 1;
    }
    return 0;
  }
  return usage();
}

int main(int argc, char **argv) {
  if (argc < 3) return usage();
  const char *cmd = argv[1];
  if (strcmp(cmd, "diff") == 0) return cmd_diff(argc, argv);
  jval doc;
  if (load(argv[2], &doc) != 0) return 2;
  int rc;
  if (strcmp(cmd, "validate") == 0)
    rc = 0;
  else if (argc >= 4)
    rc = cmd_path(cmd, &doc, argc, argv);
  else
    rc = usage();
  jfree(&doc);
  return rc;
}
