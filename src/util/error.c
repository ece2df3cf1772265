/* The error buffer: one message per failed call chain, written where the failure is understood. */
#include "util/error.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int fox_errf(struct fox_err *e, int code, const char *fmt, ...) {
  if (e == NULL || e->code != 0)
    return e ? e->code : code;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
  e->code = code;
  return code;
}

int fox_err_wrap(struct fox_err *e, const char *fmt, ...) {
  char prefix[FOX_ERR_LEN], old[FOX_ERR_LEN], both[2 * FOX_ERR_LEN + 4];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, e->msg, sizeof old);
  snprintf(both, sizeof both, "%s: %s", prefix, old);
  memcpy(e->msg, both, sizeof e->msg - 1);
  e->msg[sizeof e->msg - 1] = '\0';
  return e->code ? e->code : FOX_EFAIL;
}

void fox_err_clear(struct fox_err *e) {
  e->code = 0;
  e->msg[0] = '\0';
}

int fox_exit_code(int status) {
  switch (status) {
  case FOX_OK: return 0;
  case FOX_EUSAGE: return 2;
  case FOX_EDATA: return 3;
  case FOX_ESTOP: return 75;
  default: return 1;
  }
}

const char *fox_src_at(const char *file, int line) {
  static _Thread_local char buf[320];
  const char *debug = getenv("FOXOPT_DEBUG");
  if (!debug || !*debug || strcmp(debug, "0") == 0)
    return "";
  snprintf(buf, sizeof buf, " (at %s:%d)", file, line);
  return buf;
}
