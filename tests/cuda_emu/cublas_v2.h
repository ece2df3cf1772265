/* foxopt's host emulation of cuBLAS (FOXOPT_CUDA_EMU builds): the calls foxopt makes, with
 * cuBLAS's column-major semantics and argument rules, computed by OpenBLAS. Every matrix and
 * vector must lie inside device memory, and scalars where the handle's pointer mode says
 * (host by default), or the call aborts with a message. */
#ifndef FOX_CUDA_EMU_CUBLAS_H
#define FOX_CUDA_EMU_CUBLAS_H

#include "cuda_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
  CUBLAS_STATUS_ARCH_MISMATCH = 8,
  CUBLAS_STATUS_MAPPING_ERROR = 11,
  CUBLAS_STATUS_EXECUTION_FAILED = 13,
  CUBLAS_STATUS_INTERNAL_ERROR = 14,
  CUBLAS_STATUS_NOT_SUPPORTED = 15
} cublasStatus_t;

typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasCreate(cublasHandle_t *handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
cublasStatus_t cublasSetStream(cublasHandle_t handle, cudaStream_t stream);
cublasStatus_t cublasGetStream(cublasHandle_t handle, cudaStream_t *stream);
cublasStatus_t cublasSetPointerMode(cublasHandle_t handle, cublasPointerMode_t mode);
cublasStatus_t cublasGetPointerMode(cublasHandle_t handle, cublasPointerMode_t *mode);
const char *cublasGetStatusString(cublasStatus_t status);
const char *cublasGetStatusName(cublasStatus_t status);

/* C = alpha op(A) op(B) + beta C, column-major; C is not read when beta is 0. */
cublasStatus_t cublasSgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const float *alpha,
                           const float *A, int lda, const float *B, int ldb, const float *beta,
                           float *C, int ldc);
cublasStatus_t cublasSnrm2(cublasHandle_t handle, int n, const float *x, int incx,
                           float *result);
cublasStatus_t cublasSscal(cublasHandle_t handle, int n, const float *alpha, float *x, int incx);
cublasStatus_t cublasSaxpy(cublasHandle_t handle, int n, const float *alpha, const float *x,
                           int incx, float *y, int incy);

#ifdef __cplusplus
}
#endif

#ifndef CUDA_EMU_IMPL
#define cublasCreate(...) CUDA_EMU_SITE(cublasCreate(__VA_ARGS__))
#define cublasDestroy(...) CUDA_EMU_SITE(cublasDestroy(__VA_ARGS__))
#define cublasSetStream(...) CUDA_EMU_SITE(cublasSetStream(__VA_ARGS__))
#define cublasSetPointerMode(...) CUDA_EMU_SITE(cublasSetPointerMode(__VA_ARGS__))
#define cublasSgemm(...) CUDA_EMU_SITE(cublasSgemm(__VA_ARGS__))
#define cublasSnrm2(...) CUDA_EMU_SITE(cublasSnrm2(__VA_ARGS__))
#define cublasSscal(...) CUDA_EMU_SITE(cublasSscal(__VA_ARGS__))
#define cublasSaxpy(...) CUDA_EMU_SITE(cublasSaxpy(__VA_ARGS__))
#endif

#endif
