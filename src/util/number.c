/* Decimal numbers only (util/number.h). */
#include "util/number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static int digits_(const char **p) {
  const char *q = *p;
  while (**p >= '0' && **p <= '9')
    (*p)++;
  return (int)(*p - q);
}

int number_is_decimal(const char *s) {
  const char *p = s;
  if (*p == '+' || *p == '-')
    p++;
  int n = digits_(&p);
  if (*p == '.') {
    p++;
    n += digits_(&p);
  }
  if (n == 0)
    return 0;
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (digits_(&p) == 0)
      return 0;
  }
  return *p == '\0';
}

int number_parse(const char *s, double *x) {
  if (!number_is_decimal(s))
    return -1;
  errno = 0;
  *x = strtod(s, NULL);
  /* ERANGE on underflow too: a subnormal or 0 is still the number written, to within a ulp. */
  return isfinite(*x) ? 0 : -2;
}
