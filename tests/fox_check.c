/* Counters and summary for fox_check.h. */
#include "fox_check.h"

int fox_checks_passed, fox_checks_failed;

int fox_check_done(const char *name) {
  printf("%s: %d passed, %d failed\n", name, fox_checks_passed, fox_checks_failed);
  return fox_checks_failed ? 1 : 0;
}
