/* libFuzzer harness for the config loader: any bytes, read as a config file (config_load), as
 * stored text (config_load_text, the path of trial.h5 and study.h5) and line by line as --set
 * overrides (config_set), either give a config that config_dump writes and config_load_text
 * reads back to the same struct, or fail with FOX_EUSAGE and a message naming the input; the
 * file and the text agree. Anything else (a crash, a sanitizer report, a hang past libFuzzer's
 * -timeout, a broken invariant) is a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"

#define require_(cond)                                                                    \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      fprintf(stderr, "invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #cond);     \
      abort();                                                                            \
    }                                                                                     \
  } while (0)

static char path_[64];
static int fd_ = -1;
/* `foxopt run` leaves the search space to its own loader; the study section is read here. */
static const char *const extra_[] = {"parameters", NULL};

/* The input file is unlinked at once and reached through /proc/self/fd: libFuzzer ends with
 * _Exit, which would leave a named file behind after every run. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  char name[] = "/tmp/foxfuzz_config_XXXXXX";
  fd_ = mkstemp(name);
  require_(fd_ >= 0 && unlink(name) == 0);
  snprintf(path_, sizeof path_, "/proc/self/fd/%d", fd_);
  return 0;
}

/* A failure is a config refusal (or memory running out) whose message starts with `name`. */
static void refusal_(int rc, const struct fox_err *e, const char *name) {
  require_(rc == FOX_EUSAGE || rc == FOX_EFAIL);
  require_(e->code == rc && strncmp(e->msg, name, strlen(name)) == 0);
}

/* What config_dump writes reads back to the same config, field for field. */
static void round_trip_(const struct config *c) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  require_(f != NULL);
  config_dump(c, f);
  require_(fclose(f) == 0);
  struct config d;
  struct fox_err e = {0};
  config_defaults(&d);
  int rc = config_load_text(&d, text, "dump", NULL, &e);
  if (rc != 0)
    fprintf(stderr, "the dump does not load: %s\n%s", e.msg, text);
  require_(rc == 0);
  /* The values: a dump gives every key, so its given[] flags are all set (config.h). */
  if (memcmp(c, &d, offsetof(struct config, given)) != 0) {
    fprintf(stderr, "the dump reads back as another config; the dump:\n%s\nread back:\n", text);
    config_dump(&d, stderr);
  }
  require_(memcmp(c, &d, offsetof(struct config, given)) == 0);
  free(text);
}

static void file_and_text_(const uint8_t *data, size_t size) {
  require_(ftruncate(fd_, 0) == 0 && pwrite(fd_, data, size, 0) == (ssize_t)size);
  struct config a, b;
  struct fox_err ea = {0}, eb = {0};
  config_defaults(&a);
  int rc = config_load(&a, path_, extra_, &ea);
  if (rc != 0)
    refusal_(rc, &ea, path_);
  else
    round_trip_(&a);
  if (memchr(data, '\0', size)) {
    require_(rc == FOX_EUSAGE); /* stored text ends at its NUL: only the file can show one */
    return;
  }
  if (rc == FOX_EUSAGE && strstr(ea.msg, "the config is empty"))
    return; /* a user's file must say something; stored text (study.h5's) is never empty */
  char *text = malloc(size + 1);
  require_(text != NULL);
  memcpy(text, data, size);
  text[size] = '\0';
  config_defaults(&b);
  int rc_text = config_load_text(&b, text, "fuzz", extra_, &eb);
  free(text);
  require_(rc_text == rc);
  if (rc_text != 0)
    refusal_(rc_text, &eb, "fuzz");
  else
    require_(memcmp(&a, &b, sizeof a) == 0);
}

/* Each line an override, as `--set LINE` or a line of study.h5's config_sets. */
static void set_lines_(const uint8_t *data, size_t size) {
  struct config c;
  config_defaults(&c);
  char line[512];
  for (size_t at = 0; at < size;) {
    const uint8_t *nl = memchr(data + at, '\n', size - at);
    size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
    if (len < sizeof line) {
      memcpy(line, data + at, len);
      line[len] = '\0';
      struct fox_err e = {0};
      int rc = config_set(&c, line, NULL, &e);
      if (rc != 0)
        refusal_(rc, &e, "--set");
    }
    at += len + 1;
  }
  round_trip_(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  file_and_text_(data, size);
  set_lines_(data, size);
  return 0;
}
