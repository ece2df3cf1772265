/* ncclAllReduce of the metrics table between the ranks' devices (CUDA builds). The table is
 * small: staged through one device buffer, reduced on the rank's own stream, copied back. */
#include <nccl.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "mpi/collectives.h"

#define ncclCheck(expr, e)                                                                    \
  do {                                                                                        \
    ncclResult_t nc_ = (expr);                                                                \
    if (nc_ != ncclSuccess)                                                                   \
      return fox_errf((e), FOX_EFAIL, "%s: %s%s", #expr, ncclGetErrorString(nc_),            \
                      fox_src_at(__FILE__, __LINE__));                                        \
  } while (0)

struct nccl_ctx_ {
  ncclComm_t comm;
  cudaStream_t stream;
  double *dbuf;
  size_t cap;
  int device;
};

int nccl_open(struct world *w, void **out, struct fox_err *e) {
  if (w->device < 0)
    return fox_errf(e, FOX_EFAIL, "rank %d: NCCL needs a CUDA device, this rank has none",
                    w->rank);
  ncclUniqueId id;
  if (w->rank == 0)
    ncclCheck(ncclGetUniqueId(&id), e);
  mpiCheck(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, w->comm), e);
  struct nccl_ctx_ *c = calloc(1, sizeof *c);
  mallocCheck(c, e);
  c->device = w->device;
  cudaError_t cu = cudaSetDevice(w->device);
  ncclResult_t nc = cu == cudaSuccess ? ncclCommInitRank(&c->comm, w->size, id, w->rank)
                                      : ncclSuccess;
  if (cu == cudaSuccess && nc == ncclSuccess)
    cu = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
  if (cu != cudaSuccess || nc != ncclSuccess) {
    free(c);
    return fox_errf(e, FOX_EFAIL, "rank %d: NCCL communicator on device %d: %s", w->rank,
                    w->device, cu != cudaSuccess ? cudaGetErrorString(cu)
                                                 : ncclGetErrorString(nc));
  }
  *out = c;
  return 0;
}

int nccl_sum(void *ctx, double *buf, size_t n, struct fox_err *e) {
  struct nccl_ctx_ *c = ctx;
  cudaCheck(cudaSetDevice(c->device), e);
  if (n > c->cap) {
    cudaFree(c->dbuf);
    c->dbuf = NULL;
    cudaCheck(cudaMalloc((void **)&c->dbuf, n * sizeof *buf), e);
    c->cap = n;
  }
  cudaCheck(cudaMemcpyAsync(c->dbuf, buf, n * sizeof *buf, cudaMemcpyHostToDevice, c->stream),
              e);
  ncclCheck(ncclAllReduce(c->dbuf, c->dbuf, n, ncclDouble, ncclSum, c->comm, c->stream), e);
  cudaCheck(cudaMemcpyAsync(buf, c->dbuf, n * sizeof *buf, cudaMemcpyDeviceToHost, c->stream),
              e);
  cudaCheck(cudaStreamSynchronize(c->stream), e);
  return 0;
}

void nccl_close(void *ctx) {
  struct nccl_ctx_ *c = ctx;
  cudaSetDevice(c->device);
  ncclCommDestroy(c->comm);
  cudaStreamDestroy(c->stream);
  cudaFree(c->dbuf);
  free(c);
}
