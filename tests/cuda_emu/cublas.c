/* cuBLAS on OpenBLAS for the CUDA emulation: handles with a stream and a pointer mode, and the
 * GEMM and level-1 calls foxopt makes, column-major as cuBLAS defines them, every argument
 * checked (cuBLAS's own rules, then the runtime's allocation table) when called; OpenBLAS
 * then runs as an op on the handle's stream (the stream given to cublasSetStream, meant for
 * the calling thread: cudaStreamPerThread is the caller's own, NULL the legacy stream), so a
 * GEMM is ordered, captured and sanitised as a kernel is. */
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

/* A scalar argument (alpha, beta) checked where the pointer mode says it lives; a host one's
 * value (a device one is read when the call runs). */
static float scalar_(cublasHandle_t h, const char *what, const float *p) {
  char name[64];
  snprintf(name, sizeof name, "%s (pointer mode %s)", what,
           h->mode == CUBLAS_POINTER_MODE_HOST ? "host" : "device");
  if (!p)
    cuda_emu_fail(NULL, "%s is NULL", name);
  if (h->mode == CUBLAS_POINTER_MODE_HOST) {
    cuda_emu_require_host(name, p);
    return *p;
  }
  cuda_emu_require_device(name, p, sizeof *p);
  return 0.0f;
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

/* A cuBLAS call as an op on the handle's stream: its arguments as given, scalars read when it
 * runs where the pointer mode says they live (host ones were read at the call, as cuBLAS
 * does). */
struct blas_ {
  int routine; /* 0 sgemm, 1 snrm2, 2 sscal, 3 saxpy */
  cublasOperation_t ta, tb;
  int m, n, k, lda, ldb, ldc, incx, incy;
  float alpha, beta;
  const float *dalpha, *dbeta; /* device scalars (pointer mode device), else NULL */
  const float *A, *B, *x;
  float *C, *y, *result;
};

static void blas_run_(struct emu_op *op) {
  struct blas_ *c = op->ctx;
  float a = c->dalpha ? *c->dalpha : c->alpha, b = c->dbeta ? *c->dbeta : c->beta;
  switch (c->routine) {
  case 0:
    cblas_sgemm(CblasColMajor, op_(c->ta), op_(c->tb), c->m, c->n, c->k, a, c->A, c->lda, c->B,
                c->ldb, b, c->C, c->ldc);
    break;
  case 1:
    *c->result = c->n > 0 && c->incx > 0 ? cblas_snrm2(c->n, c->x, c->incx) : 0.0f;
    break;
  case 2:
    cblas_sscal(c->n, a, c->y, c->incy);
    break;
  default:
    cblas_saxpy(c->n, a, c->x, c->incx, c->y, c->incy);
    break;
  }
}

static void *blas_clone_(const void *ctx) {
  struct blas_ *c = malloc(sizeof *c);
  if (!c)
    cuda_emu_die("out of host memory for a graph node");
  *c = *(const struct blas_ *)ctx;
  return c;
}

static struct emu_op *blas_op_(const char *name, struct blas_ *c) {
  struct emu_op *op = cuda_emu_op_new(EMU_OP_BLAS, "%s", name);
  op->kernel = name;
  op->ctx = c;
  op->run = blas_run_;
  op->clone = blas_clone_;
  if (c->dalpha)
    cuda_emu_op_access(op, c->dalpha, sizeof(float), 0, "alpha");
  if (c->dbeta)
    cuda_emu_op_access(op, c->dbeta, sizeof(float), 0, "beta");
  return op;
}

static struct blas_ *blas_new_(int routine) {
  struct blas_ *c = calloc(1, sizeof *c);
  if (!c)
    cuda_emu_die("out of host memory for a cuBLAS call");
  c->routine = routine;
  return c;
}

/* A scalar argument: read now in host pointer mode, kept as a device address otherwise. */
static void scalar_arg_(cublasHandle_t h, const char *what, const float *p, float *v,
                        const float **dev) {
  *v = scalar_(h, what, p);
  *dev = h->mode == CUBLAS_POINTER_MODE_DEVICE ? p : NULL;
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
  struct blas_ *c = blas_new_(0);
  scalar_arg_(handle, "alpha", alpha, &c->alpha, &c->dalpha);
  scalar_arg_(handle, "beta", beta, &c->beta, &c->dbeta);
  size_t bytes_a = 0, bytes_b = 0, bytes_c = matrix_bytes_(m, n, ldc);
  if (k > 0) {
    bytes_a = matrix_bytes_(rows_a, cols_a, lda);
    bytes_b = matrix_bytes_(rows_b, cols_b, ldb);
    cuda_emu_require_device("A", A, bytes_a);
    cuda_emu_require_device("B", B, bytes_b);
  }
  cuda_emu_require_device("C", C, bytes_c);
  c->ta = transa, c->tb = transb, c->m = m, c->n = n, c->k = k;
  c->A = A, c->lda = lda, c->B = B, c->ldb = ldb, c->C = C, c->ldc = ldc;
  struct emu_op *op = blas_op_("cublasSgemm", c);
  if (k > 0) {
    cuda_emu_op_access(op, A, bytes_a, 0, "A");
    cuda_emu_op_access(op, B, bytes_b, 0, "B");
  }
  cuda_emu_op_access(op, C, bytes_c, 1, "C");
  /* What a device does: 2 m n k flops; A, B read once, C written (and read unless beta is 0). */
  int reads_c = c->dbeta || c->beta != 0.0f;
  op->flops = 2.0 * m * n * k;
  op->bytes = 4.0 * ((double)rows_a * cols_a * (k > 0) + (double)rows_b * cols_b * (k > 0) +
                     (double)m * n * (1 + reads_c));
  op->threads = (uint64_t)m * (uint64_t)n;
  cuda_emu_submit(handle->stream, 0, op, 0);
  return CUBLAS_STATUS_SUCCESS;
}

/* As cuBLAS: 0 when n <= 0 or incx <= 0; the result in host memory (the call then waits for
 * it) or device memory, per pointer mode. */
cublasStatus_t cublasSnrm2(cublasHandle_t handle, int n, const float *x, int incx,
                           float *result) {
  cublasStatus_t st = enter_("cublasSnrm2", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  if (!result)
    return invalid_("result is NULL");
  int host = handle->mode == CUBLAS_POINTER_MODE_HOST;
  if (host)
    cuda_emu_require_host("result (pointer mode host)", result);
  else
    cuda_emu_require_device("result (pointer mode device)", result, sizeof *result);
  struct blas_ *c = blas_new_(1);
  c->n = n, c->x = x, c->incx = incx, c->result = result;
  if (n > 0 && incx > 0)
    cuda_emu_require_device("x", x, vector_bytes_(n, incx));
  struct emu_op *op = blas_op_("cublasSnrm2", c);
  if (n > 0 && incx > 0)
    cuda_emu_op_access(op, x, vector_bytes_(n, incx), 0, "x");
  cuda_emu_op_access(op, result, sizeof *result, 1, "result");
  if (host)
    cuda_emu_capture_guard("cublasSnrm2 with its result in host memory");
  cuda_emu_submit(handle->stream, 0, op, host);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSscal(cublasHandle_t handle, int n, const float *alpha, float *x,
                           int incx) {
  cublasStatus_t st = enter_("cublasSscal", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  struct blas_ *c = blas_new_(2);
  scalar_arg_(handle, "alpha", alpha, &c->alpha, &c->dalpha);
  if (n <= 0 || incx <= 0) {
    free(c);
    return CUBLAS_STATUS_SUCCESS;
  }
  cuda_emu_require_device("x", x, vector_bytes_(n, incx));
  c->n = n, c->y = x, c->incy = incx;
  struct emu_op *op = blas_op_("cublasSscal", c);
  cuda_emu_op_access(op, x, vector_bytes_(n, incx), 1, "x");
  cuda_emu_submit(handle->stream, 0, op, 0);
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSaxpy(cublasHandle_t handle, int n, const float *alpha, const float *x,
                           int incx, float *y, int incy) {
  cublasStatus_t st = enter_("cublasSaxpy", handle);
  if (st != CUBLAS_STATUS_SUCCESS)
    return st;
  struct blas_ *c = blas_new_(3);
  scalar_arg_(handle, "alpha", alpha, &c->alpha, &c->dalpha);
  if (n <= 0) {
    free(c);
    return CUBLAS_STATUS_SUCCESS;
  }
  cuda_emu_require_device("x", x, vector_bytes_(n, incx));
  cuda_emu_require_device("y", y, vector_bytes_(n, incy));
  c->n = n, c->x = x, c->incx = incx, c->y = y, c->incy = incy;
  struct emu_op *op = blas_op_("cublasSaxpy", c);
  cuda_emu_op_access(op, x, vector_bytes_(n, incx), 0, "x");
  cuda_emu_op_access(op, y, vector_bytes_(n, incy), 1, "y");
  cuda_emu_submit(handle->stream, 0, op, 0);
  return CUBLAS_STATUS_SUCCESS;
}
