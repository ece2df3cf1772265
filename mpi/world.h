/* The process's place in the job (DESIGN.md s9): MPI start-up (a singleton without a launcher
 * too), the local rank from MPI_Comm_split_type(SHARED), and the device it takes: local rank
 * modulo the visible CUDA devices, or the CPU where there is none. */
#ifndef FOX_WORLD_H
#define FOX_WORLD_H

#include <mpi.h>

#include "util/error.h"

struct world {
  int rank, size;
  int local_rank, local_size;
  int host_root; /* the world rank of local rank 0 on this host */
  int devices; /* CUDA devices visible to this rank (0: none usable) */
  int device;  /* the one it takes, -1 on the CPU */
  char host[256];
  MPI_Comm comm; /* a duplicate of MPI_COMM_WORLD: foxopt's own traffic */
};

/* MPI_Init_thread with MPI_THREAD_SERIALIZED (trial threads call MPI one at a time, under the
 * coordinator's lock). */
int world_init(struct world *w, int *argc, char ***argv, struct fox_err *e);
void world_finalize(struct world *w);
/* Waits for a non-blocking collective without spinning: a rank that waits for others (at the
 * start or end of a step) must leave the cores to the ranks still working when several share a
 * node. Polls every 0.2 ms. */
int world_wait(MPI_Request *rq, struct fox_err *e);
/* Ends every rank at once (a rank that cannot go on must not leave the others waiting). */
void world_abort(struct world *w, int code);

#define mpiCheck(expr, e)                                                                  \
  do {                                                                                     \
    int mpi_rc_ = (expr);                                                                  \
    if (mpi_rc_ != MPI_SUCCESS) {                                                          \
      char mpi_msg_[MPI_MAX_ERROR_STRING];                                                 \
      int mpi_len_ = 0;                                                                    \
      MPI_Error_string(mpi_rc_, mpi_msg_, &mpi_len_);                                      \
      return fox_errf((e), FOX_EFAIL, "%s: %s%s", #expr, mpi_msg_,                          \
                      fox_src_at(__FILE__, __LINE__));                                     \
    }                                                                                      \
  } while (0)

#endif
