/* MPI start-up and the rank -> device mapping. */
#include "mpi/world.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"

int world_init(struct world *w, int *argc, char ***argv, struct fox_err *e) {
  memset(w, 0, sizeof *w);
  /* A plain `foxopt run` is a singleton: Open MPI would start a daemon (orted) for it, which
   * costs time and is missing where only foxopt's libraries were copied. */
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK") && !getenv("PMI_RANK"))
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  int provided = 0;
  mpiCheck(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), e);
  if (provided < MPI_THREAD_SERIALIZED)
    return fox_errf(e, FOX_EFAIL, "MPI provides thread level %d, foxopt needs "
                                  "MPI_THREAD_SERIALIZED (%d)", provided, MPI_THREAD_SERIALIZED);
  /* Errors come back as codes, so that each is reported with its place. */
  mpiCheck(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), e);
  mpiCheck(MPI_Comm_dup(MPI_COMM_WORLD, &w->comm), e);
  mpiCheck(MPI_Comm_rank(w->comm, &w->rank), e);
  mpiCheck(MPI_Comm_size(w->comm, &w->size), e);
  MPI_Comm local;
  mpiCheck(MPI_Comm_split_type(w->comm, MPI_COMM_TYPE_SHARED, w->rank, MPI_INFO_NULL, &local), e);
  mpiCheck(MPI_Comm_rank(local, &w->local_rank), e);
  mpiCheck(MPI_Comm_size(local, &w->local_size), e);
  /* The host's lowest rank stores its copy of the dataset for all of them (rank files). */
  mpiCheck(MPI_Allreduce(&w->rank, &w->host_root, 1, MPI_INT, MPI_MIN, local), e);
  MPI_Comm_free(&local);
  gethostname(w->host, sizeof w->host - 1);
  w->devices = backend_cuda_devices(NULL, 0);
  w->device = w->devices > 0 ? w->local_rank % w->devices : -1;
  return 0;
}

void world_finalize(struct world *w) {
  int started = 0, done = 0;
  MPI_Initialized(&started);
  MPI_Finalized(&done);
  if (!started || done)
    return;
  if (w->comm != MPI_COMM_NULL && w->comm != 0)
    MPI_Comm_free(&w->comm);
  MPI_Finalize();
}

int world_wait(MPI_Request *rq, struct fox_err *e) {
  for (;;) {
    int done = 0;
    mpiCheck(MPI_Test(rq, &done, MPI_STATUS_IGNORE), e);
    if (done)
      return 0;
    struct timespec nap = {0, 200 * 1000};
    nanosleep(&nap, NULL);
  }
}

void world_abort(struct world *w, int code) { MPI_Abort(MPI_COMM_WORLD, code); }
