/* Hostile config text (issue 12): nesting, aliases, key counts and sizes past the bounds of
 * config.h, each refused at once with FILE:LINE and what was expected, and the largest text
 * within each bound still read; NUL bytes, a second document and encoding errors, which were
 * silently misread or placed at 1:1. Every input is generated here. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "config/config.h"
#include "fox_check.h"

static char path_[64];

/* A growing string for the generated inputs. */
struct text_ {
  char *s;
  size_t n, cap;
};

static void reserve_(struct text_ *t, size_t more) {
  if (t->n + more + 1 <= t->cap)
    return;
  t->cap = 2 * (t->n + more + 1);
  t->s = realloc(t->s, t->cap);
  if (!t->s) {
    fprintf(stderr, "test_config_yaml: out of memory\n");
    exit(1);
  }
}

static void add_(struct text_ *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  reserve_(t, (size_t)need);
  va_start(ap, fmt);
  vsnprintf(t->s + t->n, (size_t)need + 1, fmt, ap);
  va_end(ap);
  t->n += (size_t)need;
}

/* Bytes that may hold a NUL. */
static void put_(struct text_ *t, const char *bytes, size_t len) {
  reserve_(t, len);
  memcpy(t->s + t->n, bytes, len);
  t->n += len;
  t->s[t->n] = '\0';
}

static void repeat_(struct text_ *t, const char *unit, int n) {
  for (int i = 0; i < n; i++)
    add_(t, "%s", unit);
}

static void write_(const char *bytes, size_t len) {
  FILE *f = fopen(path_, "wb");
  if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
    fprintf(stderr, "test_config_yaml: cannot write %s\n", path_);
    exit(1);
  }
}

/* Loads `len` bytes as a config file (study and parameters skipped, as `foxopt run` does). */
static int load_(struct config *c, const char *bytes, size_t len, struct fox_err *e) {
  write_(bytes, len);
  config_defaults(c);
  fox_err_clear(e);
  return config_load(c, path_, (const char *const[]){"study", "parameters", NULL}, e);
}

/* The text must be refused as a file and as text (trial.h5's path), with exit-2 status and a
 * message naming NAME:LINE and saying `what`. */
static void refused_(const char *case_, const struct text_ *t, const char *line,
                     const char *what) {
  struct config c;
  struct fox_err e;
  char where[96];
  int rc = load_(&c, t->s, t->n, &e);
  snprintf(where, sizeof where, "%s:%s", path_, line);
  CHECK(rc == FOX_EUSAGE && strstr(e.msg, where) && strstr(e.msg, what),
        "%s: rc %d, message '%s' should name '%s' and say '%s'", case_, rc, e.msg, where, what);
  if (strlen(t->s) != t->n)
    return;
  config_defaults(&c);
  fox_err_clear(&e);
  rc = config_load_text(&c, t->s, "text", NULL, &e);
  snprintf(where, sizeof where, "text:%s", line);
  CHECK(rc == FOX_EUSAGE && strstr(e.msg, where) && strstr(e.msg, what),
        "%s as text: rc %d, message '%s' should name '%s' and say '%s'", case_, rc, e.msg, where,
        what);
}

static void read_(const char *case_, const struct text_ *t) {
  struct config c;
  struct fox_err e;
  CHECK(load_(&c, t->s, t->n, &e) == 0, "%s: %s", case_, e.msg);
}

static void depth_(void) {
  struct text_ t = {0};
  /* The issue's 4,000 levels: each of these overflowed the loader's stack or took minutes. */
  add_(&t, "train: ");
  repeat_(&t, "[", 4000);
  repeat_(&t, "]", 4000);
  refused_("4000 nested lists", &t, "1:", "nested more than 64 levels deep");
  t.n = 0;
  add_(&t, "train: ");
  repeat_(&t, "{a: ", 4000);
  add_(&t, "1");
  repeat_(&t, "}", 4000);
  refused_("4000 nested mappings", &t, "1:", "nested more than 64 levels deep");
  t.n = 0;
  for (int i = 0; i < 100; i++)
    add_(&t, "%*sk%d:\n", 2 * i, "", i);
  refused_("100 nested blocks", &t, "65:", "nested more than 64 levels deep");
  /* The root mapping is level 1: 63 lists under it are the deepest a config may be. */
  t.n = 0;
  add_(&t, "parameters: ");
  repeat_(&t, "[", FOX_CONFIG_MAX_DEPTH - 1);
  repeat_(&t, "]", FOX_CONFIG_MAX_DEPTH - 1);
  read_("64 levels", &t);
  t.n = 0;
  add_(&t, "parameters: ");
  repeat_(&t, "[", FOX_CONFIG_MAX_DEPTH);
  repeat_(&t, "]", FOX_CONFIG_MAX_DEPTH);
  refused_("65 levels", &t, "1:", "nested more than 64 levels deep");
  free(t.s);
}

static void aliases_(void) {
  struct text_ t = {0};
  /* 10 levels of 10 aliases: 10^10 values when expanded (the loader took longer than a
   * minute); refused at the first alias past the bound, which repeats 1,111 values. */
  add_(&t, "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
  for (int i = 1; i < 10; i++) {
    add_(&t, "a%d: &a%d [*a%d", i, i, i - 1);
    for (int j = 1; j < 10; j++)
      add_(&t, ", *a%d", i - 1);
    add_(&t, "]\n");
  }
  refused_("10 levels of 10 aliases", &t, "4:", "alias *a2 repeats 1111 values, past the 10000");
  t.n = 0;
  add_(&t, "train: &a {epochs: 2, x: *a}\n");
  refused_("an alias inside its own node", &t, "1:", "alias *a inside the node it names");
  t.n = 0;
  add_(&t, "train: {epochs: *e}\n");
  refused_("an alias without its anchor", &t, "1:", "alias *e: no anchor &e before it");
  t.n = 0;
  add_(&t, "dqn: {hidden: &h [64, 32]}\nppo: {hidden: &h [8]}\n");
  refused_("an anchor given twice", &t, "2:", "anchor &h given twice");
  /* Aliases within the bound stand for their node, as YAML defines them. */
  t.n = 0;
  add_(&t, "dqn: {hidden: &h [64, 32], lr: &r 0.001}\nppo: {hidden: *h, lr: *r}\n");
  struct config c;
  struct fox_err e;
  CHECK(load_(&c, t.s, t.n, &e) == 0 && c.ppo.n_hidden == 2 && c.ppo.hidden[0] == 64 &&
            c.ppo.hidden[1] == 32 && c.ppo.lr == 0.001,
        "aliases to a list and a scalar: %s", e.msg);
  free(t.s);
}

static void values_(void) {
  struct text_ t = {0};
  /* The issue's 80,000 unknown keys (39 s before the error): refused at the 10,001st value,
   * market: and its mapping being values 2 and 3 under the root. */
  add_(&t, "market:\n");
  for (int i = 0; i < 80000; i++)
    add_(&t, "  k%d: 1\n", i);
  refused_("80,000 keys", &t, "5000:", "more than 10000 values");
  /* The root, parameters: and its list are 3 values: 9,997 items are the most. */
  t.n = 0;
  add_(&t, "parameters: [");
  for (int i = 0; i < FOX_CONFIG_MAX_VALUES - 3; i++)
    add_(&t, "%s1", i ? "," : "");
  add_(&t, "]\n");
  read_("10,000 values", &t);
  t.n -= 2; /* "]\n" */
  add_(&t, ",1]\n");
  refused_("10,001 values", &t, "1:", "more than 10000 values");
  free(t.s);
}

/* Repeated keys are found by sorting: a repeat after 4,900 keys, and of two repeats the one
 * earlier in the mapping, with the line of its first occurrence. */
static void repeats_(void) {
  struct text_ t = {0};
  add_(&t, "parameters:\n");
  for (int i = 0; i < 4900; i++)
    add_(&t, "  k%d: 1\n", i);
  add_(&t, "  k17: 2\n");
  refused_("a repeat after 4,900 keys", &t, "4902:", "key 'k17' given twice in one mapping "
                                                      "(first at line 19)");
  t.n = 0;
  add_(&t, "train: {seed: 1, epochs: 2, epochs: 3, seed: 2}\nmarket: {fee: 0}\n");
  add_(&t, "market: {fee: 0.1}\n");
  refused_("the earliest repeat", &t, "1:", "key 'epochs' given twice");
  free(t.s);
}

/* 40 MB of a list (2.9 GB of memory before "invalid YAML" at 1:1): the file is read only to
 * one byte past 1 MiB. The text is written in pieces so that the test's own memory stays small
 * and the peak below says what the loader took. */
static void size_(void) {
  FILE *f = fopen(path_, "wb");
  for (int i = 0; f && i < 10000000; i++)
    fputs("- 1\n", f);
  CHECK(f && fclose(f) == 0, "wrote the 40 MB list");
  struct config c;
  struct fox_err e = {0};
  config_defaults(&c);
  int rc = config_load(&c, path_, NULL, &e);
  char where[96];
  snprintf(where, sizeof where, "%s:262144: the config goes on past 1048575 bytes", path_);
  CHECK(rc == FOX_EUSAGE && strstr(e.msg, where), "a 40 MB list: %s", e.msg);
  struct rusage ru;
  CHECK(getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_maxrss < 64 * 1024,
        "a 40 MB list: peak memory %ld kB, expected under 64 MB", ru.ru_maxrss);
  CHECK(c.epochs == 3, "defaults untouched by the refused list");
  /* The largest text read: a config padded with a comment to the bound, then one byte more. */
  struct text_ t = {0};
  add_(&t, "train: {epochs: 2}\n#");
  while (t.n < FOX_CONFIG_MAX_BYTES - 1)
    add_(&t, "x");
  add_(&t, "\n");
  read_("1 MiB - 1 bytes", &t);
  add_(&t, "\n");
  refused_("1 MiB", &t, "3:", "goes on past 1048575 bytes (1 MiB)");
  free(t.s);
}

/* Text that was read as something else than written (issue 12, class 2). */
static void misread_(void) {
  /* A NUL ended the config: the second epochs and the bogus section were never seen. */
  static const char nul[] = "train:\n  epochs: 2\n\0  epochs: 3\nbogus: {x: 1}\n";
  struct text_ t = {0};
  put_(&t, nul, sizeof nul - 1);
  refused_("a NUL byte", &t, "3:1: a NUL byte", "the rest of it would be ignored");
  /* UTF-16 has a NUL in every ASCII character. */
  static const char utf16[] = "\xff\xfet\0r\0a\0i\0n\0:\0";
  t.n = 0;
  put_(&t, utf16, sizeof utf16 - 1);
  refused_("UTF-16", &t, "1:4: a NUL byte", "not UTF-16");
  t.n = 0;
  add_(&t, "data:\n  path: \"abc\\0def\"\n");
  refused_("a \\0 escape", &t, "2:", "a NUL character (\"\\0\") in 'abc...'");
  t.n = 0;
  add_(&t, "train:\n  epochs: 2\n---\nbogus: {x: 1}\n");
  refused_("a second document", &t, "3:", "a second YAML document: a config is one document");
  t.n = 0;
  add_(&t, "train:\n  epochs: 2\n...\n# only a comment after the end\n");
  read_("an explicit end", &t);
  t.n = 0;
  add_(&t, "train:\n  epochs: 2\n  seed: \xff\xfe\n");
  refused_("not UTF-8", &t, "3:9:", "invalid leading UTF-8 octet (byte 0xFF): a config is UTF-8");
  t.n = 0;
  add_(&t, "# caf\xc3\xa9 \xe2\x82\xac\ntrain: {seed: \xc3\xa9\xc3\xa9\x01}\n");
  refused_("a control character", &t, "2:17:", "control characters are not allowed (U+0001)");
  t.n = 0;
  add_(&t, "train:\n  epochs: 2\n  seed: \"\xc3\xa9\xe2\x82\"\n");
  refused_("a cut UTF-8 sequence", &t, "3:12:", "invalid trailing UTF-8 octet (byte 0x22)");
  free(t.s);
}

/* --set is held to a flow list that closes and to one line of UTF-8 text. */
static void set_(void) {
  static const char *const bad[] = {"dqn.hidden=[1,2", "dqn.hidden=1,2]", "dqn.hidden=[1,,2]",
                                    "dqn.hidden=[]", "dqn.hidden=1 2", "dqn.hidden=[1,2],",
                                    "dqn.hidden=[[1,2]]", "dqn.hidden=1,", "dqn.hidden=[",
                                    NULL};
  struct config c;
  struct fox_err e = {0};
  config_defaults(&c);
  for (int i = 0; bad[i]; i++) {
    fox_err_clear(&e);
    char want[96];
    snprintf(want, sizeof want, "--set dqn.hidden = '%s': expected a list of 1 to 8",
             bad[i] + 11);
    CHECK(config_set(&c, bad[i], NULL, &e) == FOX_EUSAGE && strstr(e.msg, want),
          "%s: %s", bad[i], e.msg);
  }
  CHECK(c.dqn.n_hidden == 2 && c.dqn.hidden[0] == 128, "refused lists change nothing");
  static const char *const good[] = {"dqn.hidden=[64, 32]", "dqn.hidden=64,32",
                                     "dqn.hidden=[ 64 , 32 ]", NULL};
  for (int i = 0; good[i]; i++) {
    config_defaults(&c);
    fox_err_clear(&e);
    CHECK(config_set(&c, good[i], NULL, &e) == 0 && c.dqn.n_hidden == 2 &&
              c.dqn.hidden[0] == 64 && c.dqn.hidden[1] == 32,
          "%s: %s", good[i], e.msg);
  }
  struct text_ t = {0};
  add_(&t, "dqn.hidden=[64");
  repeat_(&t, ",64", 100);
  add_(&t, "]");
  fox_err_clear(&e);
  CHECK(config_set(&c, t.s, NULL, &e) == FOX_EUSAGE && strstr(e.msg, "1 to 8 layer widths"),
        "a list longer than the buffer: %s", e.msg);
  free(t.s);
  /* A newline would make two --set lines of one in study.h5's config_sets. */
  fox_err_clear(&e);
  CHECK(config_set(&c, "data.path=a.h5\nstudy.trials=5", NULL, &e) == FOX_EUSAGE &&
            strstr(e.msg, "--set 'data.path=a.h5': byte 0x0A after it is a control character"),
        "a newline: %s", e.msg);
  fox_err_clear(&e);
  CHECK(config_set(&c, "study.name=caf\xc3", NULL, &e) == FOX_EUSAGE &&
            strstr(e.msg, "byte 0xC3 after it"),
        "a cut UTF-8 sequence: %s", e.msg);
  fox_err_clear(&e);
  CHECK(config_set(&c, "study.name=\xc0\xae", NULL, &e) == FOX_EUSAGE, "an overlong form");
  fox_err_clear(&e);
  CHECK(config_set(&c, "study.name=caf\xc3\xa9 \xe2\x82\xac", NULL, &e) == 0 &&
            strcmp(c.study.name, "caf\xc3\xa9 \xe2\x82\xac") == 0,
        "UTF-8 text: %s", e.msg);
}

/* A value written over a longer one leaves none of it behind: configs compare as bytes (the
 * dump's round trip here, the fuzzer's), and the config fuzzer found both tails. */
static void overwrite_(void) {
  struct config c, d;
  struct fox_err e = {0};
  config_defaults(&c);
  config_defaults(&d);
  CHECK(config_set(&c, "data.path=a-long-name.h5", NULL, &e) == 0 &&
            config_set(&c, "data.path=dataset.h5", NULL, &e) == 0 &&
            config_set(&c, "study.name=a-long-name", NULL, &e) == 0 &&
            config_set(&c, "study.name=", NULL, &e) == FOX_EUSAGE,
        "%s", e.msg);
  fox_err_clear(&e);
  CHECK(config_set(&c, "dqn.hidden=[32, 16, 8]", NULL, &e) == 0 &&
            config_set(&c, "dqn.hidden=[128,128]", NULL, &e) == 0 &&
            config_set(&d, "study.name=a-long-name", NULL, &e) == 0,
        "%s", e.msg);
  CHECK(memcmp(&c, &d, offsetof(struct config, given)) == 0, "values written over longer ones left a tail");
}

/* Every character a YAML escape may put in a value is dumped so that it reads back the same
 * (line and paragraph separators, quotes, backslashes, any printable UTF-8); the escapes that
 * make a control character (C0, DEL, C1) are refused (issue 28, defect 4: a name reaches the
 * terminal). */
static void dump_(void) {
  struct config c, d;
  struct fox_err e = {0};
  static const char *const controls[] = {"\\n", "\\r", "\\t", "\\x01", "\\x1b[31m", "\\x7f",
                                         "\\N", "\\x9f", "\\e", "\\0", NULL};
  for (const char *const *k = controls; *k; k++) {
    char yaml[128];
    snprintf(yaml, sizeof yaml, "study: {name: \"a%sb\"}\n", *k);
    config_defaults(&c);
    fox_err_clear(&e);
    CHECK(config_load_text(&c, yaml, "ctl", NULL, &e) == FOX_EUSAGE &&
              strstr(e.msg, "ctl:1: ") &&
              (strstr(e.msg, "control character") || strstr(e.msg, "NUL")),
          "escape %s refused: %s", *k, e.msg);
  }
  config_defaults(&c);
  fox_err_clear(&e);
  const char *yaml = "data: {path: \"a\\Lb\\P\\\"\\\\ \\u00e9 \\u2603\"}\n"
                     "study: {name: \"x y\"}\n";
  CHECK(config_load_text(&c, yaml, "escapes", NULL, &e) == 0, "%s", e.msg);
  CHECK(strcmp(c.data_path, "a\xe2\x80\xa8" "b\xe2\x80\xa9\"\\ \xc3\xa9 \xe2\x98\x83") == 0 &&
            strcmp(c.study.name, "x y") == 0,
        "escapes read: '%s'", c.data_path);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  CHECK(f != NULL, "open_memstream");
  if (!f)
    return;
  config_dump(&c, f);
  fclose(f);
  config_defaults(&d);
  CHECK(config_load_text(&d, text, "dump", NULL, &e) == 0, "%s", e.msg);
  CHECK(memcmp(&c, &d, offsetof(struct config, given)) == 0, "dump round trip: '%s' read back as '%s'", c.data_path,
        d.data_path);
  free(text);
}

int main(void) {
  snprintf(path_, sizeof path_, "/tmp/fox_test_config_yaml_%ld.yaml", (long)getpid());
  size_();
  depth_();
  aliases_();
  values_();
  repeats_();
  misread_();
  set_();
  overwrite_();
  dump_();
  remove(path_);
  return fox_check_done("test_config_yaml");
}
