/* cuBLAS on OpenBLAS for the CUDA emulation: handles with a stream and a pointer mode, and the
 * GEMM and level-1 calls foxopt makes, column-major as cuBLAS defines them, every argument
 * checked (cuBLAS's own rules, then the runtime's allocation table) before OpenBLAS runs. */
#define _POSIX_C_SOURCE 200809L
#define CUDA_EMU_IMPL

#include <cblas.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cublas_v2.h"
#include "cuda_emu.h"

struct cublasContext {
  cudaStream_t stream;
  cublasPointerMode_t mode;
};

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;
static uintptr_t *handles_; /* cuda_emu_hide(handle) */
static size_t n_handles_, cap_handles_;

static int live_(cublasHandle_t h) {
  int yes = 0;
  pthread_mutex_lock(&lock_);
  for (size_t i = 0; i < n_handles_ && !yes; i++)
    yes = handles_[i] == cuda_emu_hide(h);
  pthread_mutex_unlock(&lock_);
  return yes;
}

/* cuBLAS answers NOT_INITIALIZED for a NULL handle; a handle that is not live is a bug. */
static cublasStatus_t enter_(const char *api, cublasHandle_t h) {
  cuda_emu_enter(api);
  if (!h)
    return CUBLAS_STATUS_NOT_INITIALIZED;
  if (!live_(h))
    cuda_emu_fail(NULL, "%p is not a live cuBLAS handle (destroyed, or never created)",
                  (void *)h);
  return CUBLAS_STATUS_SUCCESS;
}

/* An argument cuBLAS itself refuses: its status, and the reason in the log. */
static cublasStatus_t invalid_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static cublasStatus_t invalid_(const char *fmt, ...) {
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  cuda_emu_note("%s (CUBLAS_STATUS_INVALID_VALUE)", why);
  return CUBLAS_STATUS_INVALID_VALUE;
}

/* A scalar argument (alpha, beta) read where the pointer mode says it lives. */
static float scalar_(cublasHandle_t h, const char *what, const float *p) {
  char name[64];
  snprintf(name, sizeof name, "%s (pointer mode %s)", what,
           h->mode == CUBLAS_POINTER_MODE_HOST ? "host" : "device");
  if (!p)
    cuda_emu_fail(NULL, "%s is NULL", name);
  if (h->mode == CUBLAS_POINTER_MODE_HOST)
    cuda_emu_require_host(name, p);
  else
    cuda_emu_require_device(name, p, sizeof *p);
  return *p;
}

/* Bytes a vector of n > 0 elements spans at stride inc (negative: walked from the end). */
static size_t vector_bytes_(int n, int inc) {
  size_t step = (size_t)(inc < 0 ? -(long)inc : inc);
  return ((size_t)(n - 1) * step + 1) * sizeof(float);
}

/* Bytes a column-major rows x cols matrix (both > 0) spans with leading dimension ld. */
static size_t matrix_bytes_(int rows, int cols, int ld) {
  return ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * sizeof(float);
}

static int max1_(int x) { return x > 1 ? x : 1; }

cublasStatus_t cublasCreate(cublasHandle_t *handle) {
  cuda_emu_enter("cublasCreate");
  if (!handle)
    return invalid_("handle is NULL");
  cublasHandle_t h = malloc(sizeof *h);
  if (!h)
    return CUBLAS_STATUS_ALLOC_FAILED;
  h->stream = NULL;
  h->mode = CUBLAS_POINTER_MODE_HOST;
  pthread_mutex_lock(&lock_);
  if (n_handles_ == cap_handles_) {
    size_t cap = cap_handles_ ? 2 * cap_handles_ : 16;
    uintptr_t *grown = realloc(handles_, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&lock_);
      free(h);
      return CUBLAS_STATUS_ALLOC_FAILED;
    }
    handles_ = grown;
    cap_handles_ = cap;
  }
  handles_[n_handles_++] = cuda_emu_hide(h);
  pthread_mutex_unlock(&lock_);
  *handle = h;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  cublasStatus_t st = enter_("cublasDestroy", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  pthread_mutex_lock(&lock_);
  for (size_t i = 0; i < n_handles_; i++)
    if (handles_[i] == cuda_emu_hide(handle)) {
      handles_[i] = handles_[--n_handles_];
      break;
    }
  pthread_mutex_unlock(&lock_);
  free(handle);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream) {
  cublasStatus_t st = enter_("cublasSetStream", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  cuda_emu_require_stream(stream);
  handle->stream = stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream) {
  cublasStatus_t st = enter_("cublasGetStream", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  if (!stream)
    return invalid_("stream is NULL");
  *stream = handle->stream;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode) {
  cublasStatus_t st = enter_("cublasSetPointerMode", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
    return invalid_("pointer mode %d", (int)mode);
  handle->mode = mode;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode) {
  cublasStatus_t st = enter_("cublasGetPointerMode", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  if (!mode)
    return invalid_("mode is NULL");
  *mode = handle->mode;
  return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status) {
  switch (status) {
#define N_(x)                                                                                   \
  case x:                                                                                       \
    return #x;
    N_(CUBLAS_STATUS_SUCCESS)
    N_(CUBLAS_STATUS_NOT_INITIALIZED)
    N_(CUBLAS_STATUS_ALLOC_FAILED)
    N_(CUBLAS_STATUS_INVALID_VALUE)
    N_(CUBLAS_STATUS_ARCH_MISMATCH)
    N_(CUBLAS_STATUS_MAPPING_ERROR)
    N_(CUBLAS_STATUS_EXECUTION_FAILED)
    N_(CUBLAS_STATUS_INTERNAL_ERROR)
    N_(CUBLAS_STATUS_NOT_SUPPORTED)
#undef N_
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

/* cuBLAS's own wording. */
const char *cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_SUCCESS:
    return "the operation completed successfully";
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "the library was not initialized";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "the resource allocation failed";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "an invalid numeric value was used as an argument";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "an absent device architectural feature is required";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "an access to GPU memory space failed";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "the GPU program failed to execute";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "an internal operation failed";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "the functionality requested is not supported";
  }
  return "unknown error";
}

static enum CBLAS_TRANSPOSE op_(cublasOperation_t t) {
  return t == CUBLAS_OP_N ? CblasNoTrans : CblasTrans; /* real data: C is T */
}

cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc) {
  cublasStatus_t st = enter_("cublasSgemm", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  if ((unsigned)transa > CUBLAS_OP_C || (unsigned)transb > CUBLAS_OP_C)
    return invalid_("transa %d, transb %d", (int)transa, (int)transb);
  if (m < 0 || n < 0 || k < 0)
    return invalid_("m %d, n %d, k %d", m, n, k);
  /* op(A) is m x k and op(B) k x n: the stored A and B are their transposes under OP_T. */
  int rows_a = transa == CUBLAS_OP_N ? m : k, cols_a = transa == CUBLAS_OP_N ? k : m;
  int rows_b = transb == CUBLAS_OP_N ? k : n, cols_b = transb == CUBLAS_OP_N ? n : k;
  if (lda < max1_(rows_a))
    return invalid_("lda %d < max(1, %d), the rows of the stored A", lda, rows_a);
  if (ldb < max1_(rows_b))
    return invalid_("ldb %d < max(1, %d), the rows of the stored B", ldb, rows_b);
  if (ldc < max1_(m))
    return invalid_("ldc %d < max(1, m = %d)", ldc, m);
  if (m == 0 || n == 0)
    return CUBLAS_STATUS_SUCCESS;
  float a = scalar_(handle, "alpha", alpha), b = scalar_(handle, "beta", beta);
  if (k > 0) {
    cuda_emu_require_device("A", A, matrix_bytes_(rows_a, cols_a, lda));
    cuda_emu_require_device("B", B, matrix_bytes_(rows_b, cols_b, ldb));
  }
  cuda_emu_require_device("C", C, matrix_bytes_(m, n, ldc));
  cblas_sgemm(CblasColMajor, op_(transa), op_(transb), m, n, k, a, A, lda, B, ldb, b, C, ldc);
  return CUBLAS_STATUS_SUCCESS;
}

/* As cuBLAS: 0 when n <= 0 or incx <= 0; result in host or device memory per pointer mode. */
cublasStatus_t cublasSnrm2(cublasHandle_t handle, int n, const float *x, int incx,
                           float *result) {
  cublasStatus_t st = enter_("cublasSnrm2", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  if (!result)
    return invalid_("result is NULL");
  if (handle->mode == CUBLAS_POINTER_MODE_HOST)
    cuda_emu_require_host("result (pointer mode host)", result);
  else
    cuda_emu_require_device("result (pointer mode device)", result, sizeof *result);
  float r = 0.0f;
  if (n > 0 && incx > 0) {
    cuda_emu_require_device("x", x, vector_bytes_(n, incx));
    r = cblas_snrm2(n, x, incx);
  }
  *result = r;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSscal(cublasHandle_t handle, int n, const float *alpha, float *x,
                           int incx) {
  cublasStatus_t st = enter_("cublasSscal", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  float a = scalar_(handle, "alpha", alpha);
  if (n <= 0 || incx <= 0)
    return CUBLAS_STATUS_SUCCESS;
  cuda_emu_require_device("x", x, vector_bytes_(n, incx));
  cblas_sscal(n, a, x, incx);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSaxpy(cublasHandle_t handle, int n, const float *alpha, const float *x,
                           int incx, float *y, int incy) {
  cublasStatus_t st = enter_("cublasSaxpy", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  float a = scalar_(handle, "alpha", alpha);
  if (n <= 0)
    return CUBLAS_STATUS_SUCCESS;
  cuda_emu_require_device("x", x, vector_bytes_(n, incx));
  cuda_emu_require_device("y", y, vector_bytes_(n, incy));
  cblas_saxpy(n, a, x, incx, y, incy);
  return CUBLAS_STATUS_SUCCESS;
}
