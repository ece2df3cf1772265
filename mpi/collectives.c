/* Sums over ranks: NCCL when the trials run on devices, MPI otherwise. */
#include "mpi/collectives.h"

int coll_init(struct collectives *c, struct world *w, int use_nccl, struct fox_err *e) {
  c->w = w;
  c->nccl = NULL;
  if (use_nccl)
    return nccl_open(w, &c->nccl, e);
  return 0;
}

void coll_free(struct collectives *c) {
  if (c->nccl)
    nccl_close(c->nccl);
  c->nccl = NULL;
}

int coll_sum(struct collectives *c, double *buf, size_t n, struct fox_err *e) {
  if (c->nccl)
    return nccl_sum(c->nccl, buf, n, e);
  if (n > 0x7fffffff)
    return fox_errf(e, FOX_EFAIL, "coll_sum: %zu values in one reduction", n);
  MPI_Request rq;
  mpiCheck(MPI_Iallreduce(MPI_IN_PLACE, buf, (int)n, MPI_DOUBLE, MPI_SUM, c->w->comm, &rq), e);
  return world_wait(&rq, e);
}

const char *coll_name(const struct collectives *c) { return c->nccl ? "nccl" : "mpi"; }
