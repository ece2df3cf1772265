/* The end-of-step reductions (DESIGN.md s9): every rank's rows of the metrics table (zero where
 * it ran nothing) summed onto every rank, by ncclAllReduce between the ranks' devices on the
 * CUDA backend, by MPI_Allreduce on the CPU. */
#ifndef FOX_COLLECTIVES_H
#define FOX_COLLECTIVES_H

#include <stddef.h>

#include "mpi/world.h"

struct collectives {
  struct world *w;
  void *nccl; /* struct nccl_ctx_ (collectives_nccl.c) when NCCL carries the sums */
};

/* use_nccl: the trials run on CUDA devices, one per rank. A communicator from a unique id made
 * on rank 0 and broadcast over MPI. */
int coll_init(struct collectives *c, struct world *w, int use_nccl, struct fox_err *e);
void coll_free(struct collectives *c);
/* buf[n] summed over the ranks, in place. */
int coll_sum(struct collectives *c, double *buf, size_t n, struct fox_err *e);
const char *coll_name(const struct collectives *c);

/* The NCCL half (CUDA builds; a stub that says so elsewhere). */
int nccl_open(struct world *w, void **ctx, struct fox_err *e);
int nccl_sum(void *ctx, double *buf, size_t n, struct fox_err *e);
void nccl_close(void *ctx);

#endif
