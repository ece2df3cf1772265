/* Shared option parsing for the subcommands: strict numbers, named flags in every message. */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

const char *cli_value(int argc, char **argv, int *i, struct fox_err *e) {
  if (*i + 1 >= argc) {
    fox_errf(e, FOX_EUSAGE, "%s needs a value", argv[*i]);
    return NULL;
  }
  *i += 1;
  return argv[*i];
}

int cli_parse_i64(const char *flag, const char *s, long long lo, long long hi, long long *out,
                  struct fox_err *e) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end != '\0')
    return fox_errf(e, FOX_EUSAGE, "%s '%s': expected an integer", flag, s);
  if (v < lo || v > hi)
    return fox_errf(e, FOX_EUSAGE, "%s %lld: expected a value in [%lld, %lld]", flag, v, lo, hi);
  *out = v;
  return 0;
}

int cli_parse_f64(const char *flag, const char *s, double lo, double hi, double *out,
                  struct fox_err *e) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end != '\0' || v != v)
    return fox_errf(e, FOX_EUSAGE, "%s '%s': expected a number", flag, s);
  if (v < lo || v > hi)
    return fox_errf(e, FOX_EUSAGE, "%s %g: expected a value in [%g, %g]", flag, v, lo, hi);
  *out = v;
  return 0;
}

int cli_is_help(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

void cli_format_time(long long ts, char *out, unsigned n) {
  time_t t = (time_t)ts;
  struct tm tm;
  if (gmtime_r(&t, &tm) == NULL || strftime(out, n, "%Y-%m-%d %H:%M", &tm) == 0)
    snprintf(out, n, "%lld", ts);
}
