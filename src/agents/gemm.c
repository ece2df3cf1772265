/* Row-major GEMMs as column-major ones: a row-major [r, c] array is the column-major [c, r]
 * matrix, so each product below is written for libxsmm (column-major, no transposed A in its
 * JIT) on the transposed problem. */
#include "agents/gemm.h"

#include <pthread.h>
#include <stdio.h>

#if defined(FOX_HAVE_LIBXSMM) && !defined(FOX_NN_DOUBLE)
#include <libxsmm.h>
#define USE_XSMM_ 1
#else
#define USE_XSMM_ 0
#endif

#if USE_XSMM_
/* libxsmm's kernels win up to 256-wide layers (tests/bench/bench_gemm) and lose to OpenBLAS's
 * packed ones beyond (53 against 120 GFLOP/s at 1024 x 1024): wider layers go to OpenBLAS. */
#define XSMM_MAX_WIDTH_ 256
#define SMALL_(in, o) ((in) <= XSMM_MAX_WIDTH_ && (o) <= XSMM_MAX_WIDTH_)

static pthread_once_t once_ = PTHREAD_ONCE_INIT;
static char name_[80];
static void init_(void) {
  libxsmm_init();
  snprintf(name_, sizeof name_, "libxsmm %s (%s)", LIBXSMM_VERSION, libxsmm_get_target_arch());
}

/* libxsmm keeps its own registry of generated kernels: dispatch is a hash look-up. NULL when it
 * has none for the shape (the caller then takes OpenBLAS). */
static libxsmm_smmfunction kernel_(int m, int n, int k, int lda, int ldb, int ldc, float beta,
                                   int flags) {
  pthread_once(&once_, init_);
  const float alpha = 1.0f;
  libxsmm_blasint m_ = m, n_ = n, k_ = k, a_ = lda, b_ = ldb, c_ = ldc;
  return libxsmm_smmdispatch(m_, n_, k_, &a_, &b_, &c_, &alpha, &beta, &flags, NULL);
}
#endif

void NN_(gemm_xwt)(int B, int in, int o, const fox_real *X, const fox_real *Wt, fox_real *Y) {
#if USE_XSMM_
  /* Y' [o, B] = Wt' [o, in] X' [in, B] */
  libxsmm_smmfunction f =
      SMALL_(in, o) ? kernel_(o, B, in, o, in, o, 0.0f, LIBXSMM_GEMM_FLAG_NONE) : NULL;
  if (f) {
    f(Wt, X, Y);
    return;
  }
#endif
  fox_gemm_(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, o, in, 1, X, in, Wt, o, 0, Y, o);
}

void NN_(gemm_dw)(int B, int in, int o, const fox_real *dY, const fox_real *X, fox_real *gW) {
#if USE_XSMM_
  /* gW' [in, o] += X' [in, B] (dY' [o, B])^T */
  libxsmm_smmfunction f =
      SMALL_(in, o) ? kernel_(in, o, B, in, o, in, 1.0f, LIBXSMM_GEMM_FLAG_TRANS_B) : NULL;
  if (f) {
    f(X, dY, gW);
    return;
  }
#endif
  fox_gemm_(CblasRowMajor, CblasTrans, CblasNoTrans, o, in, B, 1, dY, o, X, in, 1, gW, in);
}

void NN_(gemm_dx)(int B, int in, int o, const fox_real *dY, const fox_real *W, fox_real *dX) {
#if USE_XSMM_
  /* dX' [in, B] = W' [in, o] dY' [o, B] */
  libxsmm_smmfunction f =
      SMALL_(in, o) ? kernel_(in, B, o, in, o, in, 0.0f, LIBXSMM_GEMM_FLAG_NONE) : NULL;
  if (f) {
    f(W, dY, dX);
    return;
  }
#endif
  fox_gemm_(CblasRowMajor, CblasNoTrans, CblasNoTrans, B, in, o, 1, dY, o, W, in, 0, dX, in);
}

const char *NN_(gemm_library)(void) {
#if USE_XSMM_
  pthread_once(&once_, init_);
  return name_;
#else
  return "openblas";
#endif
}
