/* foxopt's host emulation of NCCL (FOXOPT_CUDA_EMU builds): a communicator is an MPI
 * communicator split from MPI_COMM_WORLD by the unique id, and a collective is the MPI one on
 * the device buffers (host memory underneath), after checking that they are device memory.
 * Every rank of MPI_COMM_WORLD must take part in ncclCommInitRank, as foxopt's ranks do. */
#ifndef FOX_CUDA_EMU_NCCL_H
#define FOX_CUDA_EMU_NCCL_H

#include <stddef.h>

#include "cuda_runtime.h"

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 0
#define NCCL_VERSION_CODE (NCCL_MAJOR * 10000 + NCCL_MINOR * 100 + NCCL_PATCH)
#define NCCL_UNIQUE_ID_BYTES 128

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7
} ncclResult_t;

typedef enum {
  ncclInt8 = 0, ncclChar = 0,
  ncclUint8 = 1,
  ncclInt32 = 2, ncclInt = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6, ncclHalf = 6,
  ncclFloat32 = 7, ncclFloat = 7,
  ncclFloat64 = 8, ncclDouble = 8,
  ncclBfloat16 = 9
} ncclDataType_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;

typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef struct ncclComm *ncclComm_t;

ncclResult_t ncclGetVersion(int *version);
ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);
const char *ncclGetErrorString(ncclResult_t result);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#ifndef CUDA_EMU_IMPL
#define ncclCommInitRank(...) CUDA_EMU_SITE(ncclCommInitRank(__VA_ARGS__))
#define ncclCommDestroy(...) CUDA_EMU_SITE(ncclCommDestroy(__VA_ARGS__))
#define ncclAllReduce(...) CUDA_EMU_SITE(ncclAllReduce(__VA_ARGS__))
#endif

#endif
