/* foxopt's JSON output through jansson: UTF-8 made valid, non-finite doubles as null or as
 * Python's literals, and every jansson call checked into the caller's error buffer. */
#include "util/json.h"

#include <math.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>

int fox_utf8_next(const unsigned char *p, unsigned *cp) {
  unsigned c = p[0], min;
  int n;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, *cp = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, *cp = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, *cp = c & 0x07, min = 0x10000;
  else
    n = 0, min = 0;
  for (int i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80) {
      n = 0;
      break;
    }
    *cp = (*cp << 6) | (p[i] & 0x3F);
  }
  if (n == 0 || *cp < min || *cp > 0x10FFFF || (*cp >= 0xD800 && *cp <= 0xDFFF)) {
    *cp = 0xFFFD;
    return 1;
  }
  return n;
}

/* s with every invalid byte as U+FFFD (EF BF BD): a copy, or s itself when it is valid. */
static char *utf8_valid_(const char *s, int *copied) {
  const unsigned char *p = (const unsigned char *)s;
  size_t bad = 0, len = 0;
  unsigned cp;
  while (p[len]) {
    int n = fox_utf8_next(p + len, &cp);
    bad += n == 1 && p[len] >= 0x80;
    len += (size_t)n;
  }
  *copied = bad > 0;
  if (!bad)
    return (char *)s;
  char *out = malloc(len + 2 * bad + 1), *q = out;
  if (!out)
    return NULL;
  for (size_t i = 0; i < len;) {
    int n = fox_utf8_next(p + i, &cp);
    if (n == 1 && p[i] >= 0x80) {
      memcpy(q, "\xEF\xBF\xBD", 3);
      q += 3;
    } else {
      memcpy(q, p + i, (size_t)n);
      q += n;
    }
    i += (size_t)n;
  }
  *q = '\0';
  return out;
}

json_t *fox_json_str(const char *s) {
  int copied;
  char *v = utf8_valid_(s, &copied);
  json_t *j = v ? json_string(v) : NULL;
  if (copied)
    free(v);
  return j;
}

json_t *fox_json_num(double v) {
  if (!isfinite(v))
    return json_null();
  if (v == floor(v) && fabs(v) < 9007199254740992.0)
    return json_integer((json_int_t)v);
  return json_real(v);
}

/* A literal is held as a string that no C string can give, U+0000 and its text, and put in
 * place by fox_json_dumps: jansson itself writes no NaN or infinity. In dumped text `"\u0000`
 * opens such a string only: a quote inside a string is escaped, and text from a C string holds
 * no U+0000. */
#define PY_MARK_ "\"\\u0000"

json_t *fox_json_pynum(double v) {
  if (isfinite(v))
    return json_real(v);
  const char *lit = isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity";
  char buf[16];
  size_t n = strlen(lit);
  buf[0] = '\0';
  memcpy(buf + 1, lit, n);
  return json_stringn(buf, n + 1);
}

int fox_json_set(json_t *o, const char *key, json_t *v, struct fox_err *e) {
  int copied = 0;
  char *k = v && o ? utf8_valid_(key, &copied) : NULL;
  if (!k) { /* json_object_set_new releases v in its failures; so do we */
    json_decref(v);
    return fox_errf(e, FOX_EFAIL, "out of memory for JSON ('%s')", key);
  }
  int rc = json_object_set_new(o, k, v);
  if (copied)
    free(k);
  return rc == 0 ? 0 : fox_errf(e, FOX_EFAIL, "out of memory for JSON ('%s')", key);
}

int fox_json_push(json_t *a, json_t *v, struct fox_err *e) {
  if (json_array_append_new(a, v) != 0) /* a NULL a or v: -1, v released */
    return fox_errf(e, FOX_EFAIL, "out of memory for a JSON list");
  return 0;
}

char *fox_json_dumps(const json_t *j, size_t flags, const char *what, struct fox_err *e) {
  char *text = j ? json_dumps(j, flags) : NULL;
  if (!text) {
    fox_errf(e, FOX_EFAIL, "%s: jansson could not write the JSON (out of memory)", what);
    return NULL;
  }
  /* "\u0000NaN" -> NaN: the text only shrinks */
  char *r = text, *w = text, *m;
  while ((m = strstr(r, PY_MARK_))) {
    memmove(w, r, (size_t)(m - r));
    w += m - r;
    r = m + strlen(PY_MARK_);
    char *end = strchr(r, '"');
    if (!end) /* cannot happen: jansson closes every string */
      end = r + strlen(r);
    memmove(w, r, (size_t)(end - r));
    w += end - r;
    r = *end ? end + 1 : end;
  }
  memmove(w, r, strlen(r) + 1);
  return text;
}

int fox_json_print(FILE *f, json_t *j, size_t flags, const char *what, struct fox_err *e) {
  if (e->code) {
    json_decref(j);
    return e->code;
  }
  char *text = fox_json_dumps(j, flags, what, e);
  json_decref(j);
  if (!text)
    return e->code;
  int bad = fputs(text, f) == EOF || fputc('\n', f) == EOF, err = errno;
  free(text);
  return bad ? fox_errf(e, FOX_EFAIL, "%s: cannot write the JSON: %s", what, strerror(err)) : 0;
}
