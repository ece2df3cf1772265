/* The one JSON writer (src/util/json.c) and report --json's parameters: odd text (quotes,
 * backslashes, UTF-8, a byte that is not UTF-8) read back as written, non-finite numbers as
 * null or as Python's literals (which no string can forge), numbers as JSON numbers of the
 * right kind, and every failed jansson call reported. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "fox_check.h"
#include "report/report.h"
#include "util/json.h"

/* A text that a hand-written writer gets wrong: quotes, backslashes, a JSON escape's own text,
 * braces and separators, UTF-8 of two, three and four bytes, no control character. */
#define ODD_ "q\"uote \\back\\slash \\u0041 {[,:]} it's f\xc3\xbc" "chse \xe2\x82\xac \xf0\x9f\xa6\x8a"

/* j's text (flags as report --json), read back with jansson. */
static json_t *round_trip_(const json_t *j, char **text) {
  struct fox_err e = {0};
  *text = fox_json_dumps(j, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17), "test", &e);
  CHECK(*text != NULL, "dumps: %s", e.msg);
  json_error_t err;
  json_t *back = *text ? json_loads(*text, 0, &err) : NULL;
  CHECK(back != NULL, "reading back %s: %s", *text ? *text : "(none)", *text ? err.text : "");
  return back;
}

static void strings_(void) {
  json_t *o = json_object();
  struct fox_err e = {0};
  fox_json_set(o, ODD_, fox_json_str(ODD_), &e);
  fox_json_set(o, "bad", fox_json_str("a\xff" "b\xc3"), &e); /* not UTF-8: U+FFFD each */
  CHECK(e.code == 0, "set: %s", e.msg);
  char *text;
  json_t *back = round_trip_(o, &text);
  const char *v = json_string_value(json_object_get(back, ODD_));
  CHECK(v && strcmp(v, ODD_) == 0, "odd text read back as '%s' from %s", v ? v : "(none)", text);
  v = json_string_value(json_object_get(back, "bad"));
  CHECK(v && strcmp(v, "a\xef\xbf\xbd" "b\xef\xbf\xbd") == 0, "invalid UTF-8: '%s'",
        v ? v : "(none)");
  free(text);
  json_decref(back);
  json_decref(o);
}

static void numbers_(void) {
  static const double in[] = {NAN, INFINITY, -INFINITY, 3.0, -0.0, 0.1, 1e300, 9007199254740992.0,
                              -7.0, 1e-05};
  json_t *a = json_array();
  struct fox_err e = {0};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
    fox_json_push(a, fox_json_num(in[i]), &e);
  CHECK(e.code == 0, "push: %s", e.msg);
  char *text;
  json_t *back = round_trip_(a, &text);
  for (size_t i = 0; back && i < sizeof in / sizeof in[0]; i++) {
    json_t *v = json_array_get(back, i);
    if (!isfinite(in[i]))
      CHECK(json_is_null(v), "%g: null expected in %s", in[i], text);
    else if (in[i] == floor(in[i]) && fabs(in[i]) < 9007199254740992.0)
      CHECK(json_is_integer(v) && json_integer_value(v) == (json_int_t)in[i],
            "%g: an integer expected in %s", in[i], text);
    else
      CHECK(json_is_real(v) && json_real_value(v) == in[i], "%.17g: the same double expected in "
            "%s", in[i], text);
  }
  free(text);
  json_decref(back);
  json_decref(a);
}

/* Python's literals, only where fox_json_pynum put them: a string holding their marker's text
 * stays a string. */
static void python_(void) {
  json_t *o = json_object();
  struct fox_err e = {0};
  fox_json_set(o, "a", fox_json_pynum(NAN), &e);
  fox_json_set(o, "b", fox_json_pynum(INFINITY), &e);
  fox_json_set(o, "c", fox_json_pynum(-INFINITY), &e);
  fox_json_set(o, "d", fox_json_pynum(2.0), &e);
  fox_json_set(o, "s", fox_json_str("\\u0000NaN \"\\u0000Infinity\""), &e);
  fox_json_set(o, "\"\\u0000NaN", json_integer(1), &e);
  char *text = fox_json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER, "test", &e);
  const char *want = "{\"a\":NaN,\"b\":Infinity,\"c\":-Infinity,\"d\":2.0,"
                     "\"s\":\"\\\\u0000NaN \\\"\\\\u0000Infinity\\\"\",\"\\\"\\\\u0000NaN\":1}";
  CHECK(text && strcmp(text, want) == 0, "Python's literals: %s, expected %s",
        text ? text : e.msg, want);
  free(text);
  json_decref(o);
}

/* Every failure is reported in the caller's buffer, the first one kept; a failed build prints
 * nothing. */
static void failures_(void) {
  struct fox_err e = {0};
  json_t *o = json_object();
  CHECK(fox_json_set(o, "k", NULL, &e) == FOX_EFAIL && e.code == FOX_EFAIL &&
            strstr(e.msg, "'k'"), "a NULL value: %d %s", e.code, e.msg);
  CHECK(fox_json_set(NULL, "k2", json_integer(1), &e) == FOX_EFAIL && strstr(e.msg, "'k'"),
        "the first failure is kept: %s", e.msg);
  struct fox_err e2 = {0};
  CHECK(fox_json_push(NULL, json_integer(1), &e2) == FOX_EFAIL && e2.code == FOX_EFAIL,
        "a NULL list: %d", e2.code);
  CHECK(fox_json_dumps(NULL, 0, "the thing", &e2) == NULL && e2.code == FOX_EFAIL,
        "dumps of NULL: %d", e2.code);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  CHECK(m != NULL, "open_memstream");
  if (m) {
    CHECK(fox_json_print(m, o, 0, "test", &e) == FOX_EFAIL, "print after a failed build");
    fclose(m);
    CHECK(len == 0, "a failed build printed '%s'", buf);
  }
  free(buf);
}

/* report --json's parameters: an integer as an integer, a float as a float, a numeric choice
 * as its number (an integral one as an integer), a list or a word as its text, an inactive
 * parameter absent, an odd key as written. */
static void params_(void) {
  static struct study s; /* only its space is read */
  struct config base;
  config_defaults(&base);
  base.algo = FOX_ALGO_DQN;
  struct fox_err e = {0};
  int rc = space_load_text(&s.space, "parameters:\n"
                                     "  barrier.horizon: {distribution: int_uniform, min: 10, max: 19}\n"
                                     "  barrier.pt: {distribution: log_uniform, min: 0.1, max: 10}\n"
                                     "  barrier.sl: {values: [.5, 1e3]}\n"
                                     "  barrier.enforce: {values: [true, false]}\n"
                                     "  dqn.hidden: {values: [[64, 64], [128]]}\n"
                                     "  barrier.bonus: {distribution: uniform, min: 0, max: 4}\n",
                           "test.yaml", &base, &e);
  CHECK(rc == 0, "space: %s", e.msg);
  if (rc != 0)
    return;
  snprintf(s.space.p[5].key, sizeof s.space.p[5].key, "%s", ODD_);
  double x[2][6] = {{12, 0.3, 1, 0, 0, 2.0}, {19, 5, 0, 1, 1, NAN}};
  for (int r = 0; r < 2; r++) {
    json_t *p = report_json_params(&s, x[r], &e);
    CHECK(e.code == 0, "params: %s", e.msg);
    char *text;
    json_t *back = round_trip_(p, &text);
    json_t *h = json_object_get(back, "barrier.horizon"), *pt = json_object_get(back, "barrier.pt"),
           *sl = json_object_get(back, "barrier.sl"), *en = json_object_get(back, "barrier.enforce"),
           *hid = json_object_get(back, "dqn.hidden"), *odd = json_object_get(back, ODD_);
    CHECK(json_is_integer(h) && json_integer_value(h) == (json_int_t)x[r][0], "horizon in %s",
          text);
    CHECK(json_is_real(pt) && json_real_value(pt) == x[r][1], "pt in %s", text);
    if (r == 0)
      CHECK(json_is_integer(sl) && json_integer_value(sl) == 1000, "1e3 as 1000 in %s", text);
    else
      CHECK(json_is_real(sl) && json_real_value(sl) == 0.5, ".5 as 0.5 in %s", text);
    CHECK(json_is_string(en) && strcmp(json_string_value(en), r ? "false" : "true") == 0,
          "a word as its text in %s", text);
    CHECK(json_is_string(hid) && strcmp(json_string_value(hid), r ? "[128]" : "[64, 64]") == 0,
          "a list as its text in %s", text);
    if (r == 0)
      CHECK(json_is_real(odd) && json_real_value(odd) == 2.0, "a float param as a float, its "
            "odd key as written, in %s", text);
    else
      CHECK(odd == NULL, "an inactive parameter is absent: %s", text);
    free(text);
    json_decref(back);
    json_decref(p);
  }
}

int main(void) {
  strings_();
  numbers_();
  python_();
  failures_();
  params_();
  return fox_check_done("test_json");
}
