/* Builds without CUDA have no NCCL: the MPI reductions carry every sum. */
#include "mpi/collectives.h"

int nccl_open(struct world *w, void **ctx, struct fox_err *e) {
  return fox_errf(e, FOX_EFAIL, "NCCL: foxopt was built without CUDA");
}

int nccl_sum(void *ctx, double *buf, size_t n, struct fox_err *e) {
  return fox_errf(e, FOX_EFAIL, "NCCL: foxopt was built without CUDA");
}

void nccl_close(void *ctx) {}
