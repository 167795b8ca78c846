/* SPDX-License-Identifier: GPL-3.0-or-later */
/* JSON reader (app_jsonread.h): recursive descent over the whole text. */
#include "app_jsonread.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jparser {
  const char *s, *p, *end;
  const char *name;
  int depth;
  lth_error *err;
} jparser;

static lth_status jfail(jparser *P, lth_status st, const char *what) {
  int line = 1, col = 1;
  for (const char *c = P->s; c < P->p && c < P->end; c++) {
    if (*c == '\n') {
      line++;
      col = 1;
    } else if (((unsigned char)*c & 0xC0) != 0x80) {
      col++;
    }
  }
  lth_error_set(P->err, st, "%s", what);
  lth_error_set_pos(P->err, P->name, line, col);
  return st;
}

static void skip_ws(jparser *P) {
  while (P->p < P->end && (*P->p == ' ' || *P->p == '\t' || *P->p == '\n' || *P->p == '\r')) {
    P->p++;
  }
}

static void free_contents(app_jval *v) {
  if (!v) {
    return;
  }
  free(v->str);
  free(v->nums);
  for (size_t k = 0; v->items && k < v->n; k++) {
    free_contents(&v->items[k]);
  }
  for (size_t k = 0; v->keys && k < v->n; k++) {
    free(v->keys[k]);
  }
  free(v->items);
  free(v->keys);
  memset(v, 0, sizeof *v);
}

void app_jr_free(app_jval *v) {
  free_contents(v);
  free(v);
}

/* ---- scalars ---- */

static int digit(char c) { return c >= '0' && c <= '9'; }

static lth_status parse_number(jparser *P, app_jval *v) {
  const char *a = P->p, *c = P->p;
  if (c < P->end && *c == '-') {
    c++;
  }
  if (c >= P->end || !digit(*c)) {
    return jfail(P, LTH_EPARSE, "expected a value");
  }
  if (*c == '0') {
    c++;
  } else {
    while (c < P->end && digit(*c)) c++;
  }
  if (c < P->end && *c == '.') {
    c++;
    if (c >= P->end || !digit(*c)) {
      P->p = c;
      return jfail(P, LTH_EPARSE, "expected a digit after '.'");
    }
    while (c < P->end && digit(*c)) c++;
  }
  if (c < P->end && (*c == 'e' || *c == 'E')) {
    c++;
    if (c < P->end && (*c == '+' || *c == '-')) c++;
    if (c >= P->end || !digit(*c)) {
      P->p = c;
      return jfail(P, LTH_EPARSE, "expected a digit in the exponent");
    }
    while (c < P->end && digit(*c)) c++;
  }
  size_t len = (size_t)(c - a);
  char small[64], *buf = len < sizeof small ? small : malloc(len + 1);
  if (!buf) {
    return jfail(P, LTH_ENOMEM, "out of memory");
  }
  memcpy(buf, a, len);
  buf[len] = '\0';
  errno = 0;
  double x = strtod(buf, NULL);
  if (buf != small) {
    free(buf);
  }
  if (!isfinite(x)) {
    return jfail(P, LTH_EPARSE, "number out of range");
  }
  v->type = APP_JNUM;
  v->num = x;
  P->p = c;
  return LTH_OK;
}

static int hex4(const char *c, unsigned *out) {
  unsigned u = 0;
  for (int k = 0; k < 4; k++) {
    char h = c[k];
    u <<= 4;
    if (h >= '0' && h <= '9')
      u |= (unsigned)(h - '0');
    else if (h >= 'a' && h <= 'f')
      u |= (unsigned)(h - 'a' + 10);
    else if (h >= 'A' && h <= 'F')
      u |= (unsigned)(h - 'A' + 10);
    else
      return -1;
  }
  *out = u;
  return 0;
}

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

/* \uXXXX (and a following low surrogate) at P->p (after the backslash-u). */
static lth_status parse_unicode(jparser *P, unsigned *cp) {
  if (P->end - P->p < 4 || hex4(P->p, cp) != 0) {
    return jfail(P, LTH_EPARSE, "expected four hex digits after \\u");
  }
  P->p += 4;
  if (*cp >= 0xD800 && *cp < 0xDC00) {
    unsigned lo;
    if (P->end - P->p < 6 || P->p[0] != '\\' || P->p[1] != 'u' || hex4(P->p + 2, &lo) != 0 ||
        lo < 0xDC00 || lo > 0xDFFF) {
      return jfail(P, LTH_EPARSE, "a high surrogate must be followed by a low surrogate");
    }
    P->p += 6;
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
  } else if (*cp >= 0xDC00 && *cp < 0xE000) {
    return jfail(P, LTH_EPARSE, "a lone low surrogate");
  }
  if (*cp == 0) {
    return jfail(P, LTH_EPARSE, "strings cannot hold a NUL character");
  }
  return LTH_OK;
}

/* A string at P->p (the opening quote) into a new NUL-terminated buffer. */
static lth_status parse_string(jparser *P, char **out, size_t *outlen) {
  P->p++;
  const char *c = P->p;
  while (c < P->end && *c != '"') {
    c += *c == '\\' && c + 1 < P->end ? 2 : 1;
  }
  if (c >= P->end) {
    return jfail(P, LTH_EPARSE, "unterminated string");
  }
  char *buf = malloc((size_t)(c - P->p) + 1), *o = buf;
  if (!buf) {
    return jfail(P, LTH_ENOMEM, "out of memory");
  }
  while (*P->p != '"') {
    unsigned char ch = (unsigned char)*P->p;
    if (ch < 0x20) {
      free(buf);
      return jfail(P, LTH_EPARSE, "control character in a string");
    }
    if (ch != '\\') {
      *o++ = (char)ch;
      P->p++;
      continue;
    }
    char e = P->p[1];
    P->p += 2;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = e ? strchr(from, e) : NULL;
    if (k) {
      *o++ = to[k - from];
    } else if (e == 'u') {
      unsigned cp;
      lth_status st = parse_unicode(P, &cp);
      if (st != LTH_OK) {
        free(buf);
        return st;
      }
      o += put_utf8(o, cp); /* never longer than the escape it replaces */
    } else {
      P->p--;
      free(buf);
      return jfail(P, LTH_EPARSE, "unknown escape in a string");
    }
  }
  P->p++;
  *o = '\0';
  *out = buf;
  *outlen = (size_t)(o - buf);
  return LTH_OK;
}

/* ---- containers ---- */

static lth_status parse_value(jparser *P, app_jval *v);

static int grow(void **a, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) {
    return 0;
  }
  size_t nc = *cap ? 2 * *cap : 8;
  void *b = realloc(*a, nc * size);
  if (!b) {
    return -1;
  }
  *a = b;
  *cap = nc;
  return 0;
}

/* Numbers collected so far become ordinary items (a non-number arrived). */
static int numbers_to_items(app_jval *v, size_t *cap) {
  size_t c = *cap > v->n ? *cap : v->n + 1;
  app_jval *it = calloc(c, sizeof *it);
  if (!it) {
    return -1;
  }
  for (size_t k = 0; k < v->n; k++) {
    it[k].type = APP_JNUM;
    it[k].num = v->nums[k];
  }
  free(v->nums);
  v->nums = NULL;
  v->items = it;
  *cap = c;
  return 0;
}

static lth_status parse_array(jparser *P, app_jval *v) {
  size_t cap = 0;
  int numeric = 1;
  v->type = APP_JARR;
  P->p++;
  skip_ws(P);
  if (P->p < P->end && *P->p == ']') {
    P->p++;
    return LTH_OK;
  }
  for (;;) {
    app_jval item;
    memset(&item, 0, sizeof item);
    lth_status st = parse_value(P, &item);
    if (st != LTH_OK) {
      free_contents(&item); /* what it holds so far */
      return st;
    }
    if (numeric && item.type != APP_JNUM && numbers_to_items(v, &cap) != 0) {
      return jfail(P, LTH_ENOMEM, "out of memory");
    }
    numeric = numeric && item.type == APP_JNUM;
    if (numeric ? grow((void **)&v->nums, &cap, v->n + 1, sizeof *v->nums)
                : grow((void **)&v->items, &cap, v->n + 1, sizeof *v->items)) {
      free_contents(&item);
      return jfail(P, LTH_ENOMEM, "out of memory");
    }
    if (numeric) {
      v->nums[v->n++] = item.num;
    } else {
      v->items[v->n++] = item;
    }
    skip_ws(P);
    if (P->p < P->end && *P->p == ',') {
      P->p++;
    } else if (P->p < P->end && *P->p == ']') {
      P->p++;
      return LTH_OK;
    } else {
      return jfail(P, LTH_EPARSE, "expected ',' or ']' in an array");
    }
  }
}

static lth_status parse_object(jparser *P, app_jval *v) {
  size_t cap = 0, kcap = 0;
  v->type = APP_JOBJ;
  P->p++;
  skip_ws(P);
  if (P->p < P->end && *P->p == '}') {
    P->p++;
    return LTH_OK;
  }
  for (;;) {
    skip_ws(P);
    if (P->p >= P->end || *P->p != '"') {
      return jfail(P, LTH_EPARSE, "expected a string key in an object");
    }
    if (grow((void **)&v->items, &cap, v->n + 1, sizeof *v->items) ||
        grow((void **)&v->keys, &kcap, v->n + 1, sizeof *v->keys)) {
      return jfail(P, LTH_ENOMEM, "out of memory");
    }
    size_t klen;
    memset(&v->items[v->n], 0, sizeof *v->items);
    v->keys[v->n] = NULL;
    lth_status st = parse_string(P, &v->keys[v->n], &klen);
    v->n++; /* owned from here: freed with v on any error below */
    if (st != LTH_OK) {
      return st;
    }
    skip_ws(P);
    if (P->p >= P->end || *P->p != ':') {
      return jfail(P, LTH_EPARSE, "expected ':' after a key");
    }
    P->p++;
    if ((st = parse_value(P, &v->items[v->n - 1])) != LTH_OK) {
      return st;
    }
    skip_ws(P);
    if (P->p < P->end && *P->p == ',') {
      P->p++;
    } else if (P->p < P->end && *P->p == '}') {
      P->p++;
      return LTH_OK;
    } else {
      return jfail(P, LTH_EPARSE, "expected ',' or '}' in an object");
    }
  }
}

static lth_status literal(jparser *P, const char *word, app_jval *v, app_jtype type, double num) {
  size_t n = strlen(word);
  if ((size_t)(P->end - P->p) < n || memcmp(P->p, word, n) != 0) {
    return jfail(P, LTH_EPARSE, "expected a value");
  }
  P->p += n;
  v->type = type;
  v->num = num;
  return LTH_OK;
}

static lth_status parse_value(jparser *P, app_jval *v) {
  skip_ws(P);
  if (P->p >= P->end) {
    return jfail(P, LTH_EPARSE, "unexpected end of the document");
  }
  if (P->depth >= APP_JR_MAXDEPTH) {
    return jfail(P, LTH_EPARSE, "nested too deeply");
  }
  lth_status st;
  P->depth++;
  switch (*P->p) {
  case '{':
    st = parse_object(P, v);
    break;
  case '[':
    st = parse_array(P, v);
    break;
  case '"':
    v->type = APP_JSTR;
    st = parse_string(P, &v->str, &v->n);
    break;
  case 't':
    st = literal(P, "true", v, APP_JBOOL, 1.0);
    break;
  case 'f':
    st = literal(P, "false", v, APP_JBOOL, 0.0);
    break;
  case 'n':
    st = literal(P, "null", v, APP_JNULL, 0.0);
    break;
  default:
    st = parse_number(P, v);
  }
  P->depth--;
  return st;
}

lth_status app_jr_parse(const char *text, size_t len, const char *name, app_jval **out,
                        lth_error *err) {
  *out = NULL;
  app_jval *v = calloc(1, sizeof *v);
  if (!v) {
    return lth_error_set(err, LTH_ENOMEM, "out of memory");
  }
  jparser P = {.s = text,
               .p = text,
               .end = text + len,
               .name = name ? name : "<json>",
               .depth = 0,
               .err = err};
  lth_status st = parse_value(&P, v);
  if (st == LTH_OK) {
    skip_ws(&P);
    if (P.p != P.end) {
      st = jfail(&P, LTH_EPARSE, "text after the end of the JSON document");
    }
  }
  if (st != LTH_OK) {
    app_jr_free(v);
    return st;
  }
  *out = v;
  return LTH_OK;
}

lth_status app_jr_read_file(const char *path, app_jval **out, lth_error *err) {
  int is_stdin = strcmp(path, "-") == 0;
  FILE *fp = is_stdin ? stdin : fopen(path, "rb");
  *out = NULL;
  if (!fp) {
    lth_error_set(err, LTH_EIO, "cannot open: %s", strerror(errno));
    lth_error_set_pos(err, path, 0, 0);
    return LTH_EIO;
  }
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap);
  while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0) {
    n += got;
    if (n == cap) {
      char *b = realloc(buf, 2 * cap);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
  }
  int bad = ferror(fp);
  if (!is_stdin) {
    fclose(fp);
  }
  if (!buf || bad) {
    free(buf);
    lth_error_set(err, buf ? LTH_EIO : LTH_ENOMEM, buf ? "read error" : "out of memory");
    lth_error_set_pos(err, is_stdin ? "<stdin>" : path, 0, 0);
    return err ? err->status : LTH_EIO;
  }
  lth_status st = app_jr_parse(buf, n, is_stdin ? "<stdin>" : path, out, err);
  free(buf);
  return st;
}

/* ---- access ---- */

const app_jval *app_jr_get(const app_jval *v, const char *key) {
  for (size_t k = 0; v && v->type == APP_JOBJ && k < v->n; k++) {
    if (strcmp(v->keys[k], key) == 0) {
      return &v->items[k];
    }
  }
  return NULL;
}

size_t app_jr_len(const app_jval *v) { return v && v->type == APP_JARR ? v->n : 0; }

int app_jr_num_at(const app_jval *v, size_t i, double *x) {
  if (!v || v->type != APP_JARR || i >= v->n) {
    return -1;
  }
  if (v->nums) {
    *x = v->nums[i];
    return 0;
  }
  return app_jr_number(&v->items[i], x);
}

const app_jval *app_jr_at(const app_jval *v, size_t i) {
  return v && v->type == APP_JARR && v->items && i < v->n ? &v->items[i] : NULL;
}

int app_jr_number(const app_jval *v, double *x) {
  if (!v || (v->type != APP_JNUM && v->type != APP_JBOOL)) {
    return -1;
  }
  *x = v->num;
  return 0;
}
