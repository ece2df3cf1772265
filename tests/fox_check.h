/* A tiny check library for the C tests: every check counts, the summary line is
 * "N passed, N failed", and the exit status is non-zero on any failure. */
#ifndef FOX_CHECK_H
#define FOX_CHECK_H

#include <math.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int fox_checks_passed, fox_checks_failed;

#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (cond) {                                                                           \
      fox_checks_passed++;                                                                \
    } else {                                                                              \
      fox_checks_failed++;                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);            \
      fprintf(stderr, __VA_ARGS__);                                                       \
      fputc('\n', stderr);                                                                \
    }                                                                                     \
  } while (0)

/* |got - want| <= atol + rtol * |want|; NaN matches only NaN. */
#define CHECK_NEAR(got, want, atol, rtol)                                                 \
  do {                                                                                    \
    double g_ = (got), w_ = (want);                                                       \
    int ok_ = (isnan(g_) && isnan(w_)) ||                                                 \
              (!isnan(g_) && !isnan(w_) && fabs(g_ - w_) <= (atol) + (rtol)*fabs(w_));    \
    CHECK(ok_, "%s = %.12g, expected %.12g", #got, g_, w_);                              \
  } while (0)

/* Prints the summary and returns the exit status for main(). */
int fox_check_done(const char *name);

#ifdef __cplusplus
}
#endif

#endif
