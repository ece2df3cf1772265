/* Status codes, the caller's error buffer, and the check macros every library call goes through.
 * A status is 0 or the negated exit code of DESIGN.md s3, so main() can return -status. */
#ifndef FOX_ERROR_H
#define FOX_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  FOX_OK = 0,
  FOX_EFAIL = -1,  /* any other failure (exit 1) */
  FOX_EUSAGE = -2, /* bad usage or config (exit 2) */
  FOX_EDATA = -3,  /* bad input data or file (exit 3) */
  FOX_ESTOP = -75, /* stopped by a signal after a clean checkpoint (exit 75) */
};

#define FOX_ERR_LEN 1024
struct fox_err {
  int code;
  int quiet; /* reported elsewhere (another MPI rank): main prints nothing */
  char msg[FOX_ERR_LEN];
};

/* Records the first error only: later failures while unwinding must not hide the cause. */
int fox_errf(struct fox_err *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefixes an existing message with context ("reading x.csv: ..."). */
int fox_err_wrap(struct fox_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fox_err_clear(struct fox_err *e);
/* The exit code main() returns for a status. */
int fox_exit_code(int status);
/* " (at FILE:LINE)" for a developer when FOXOPT_DEBUG is set (not "0"), "" otherwise: a user's
 * message never names this source tree. The text lives in a per-thread buffer. */
const char *fox_src_at(const char *file, int line);

/* Fails the enclosing function with FOX_EFAIL when malloc-like call returns NULL. */
#define mallocCheck(ptr, e)                                                             \
  do {                                                                                  \
    if ((ptr) == NULL)                                                                  \
      return fox_errf((e), FOX_EFAIL, "out of memory%s", fox_src_at(__FILE__, __LINE__)); \
  } while (0)

/* Propagates a non-zero status. */
#define FOX_TRY(expr)        \
  do {                       \
    int fox_rc_ = (expr);    \
    if (fox_rc_ != 0)        \
      return fox_rc_;        \
  } while (0)

#ifdef __cplusplus
}
#endif

#endif
