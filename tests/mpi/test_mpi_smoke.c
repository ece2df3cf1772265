/* The MPI test path itself: launched through fox_add_test(RANKS n), every rank must see the
 * same world size and the sum of ranks must arrive everywhere. */
#include <mpi.h>
#include <stdlib.h>

#include "fox_check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(sum == size * (size - 1) / 2, "rank %d: sum of ranks %d, expected %d", rank, sum,
        size * (size - 1) / 2);
  int expect = argc > 1 ? atoi(argv[1]) : size;
  CHECK(size == expect, "world size %d, expected %d", size, expect);
  int failed = fox_checks_failed, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int rc = rank == 0 ? fox_check_done("test_mpi_smoke") : (fox_checks_failed ? 1 : 0);
  MPI_Finalize();
  return any ? 1 : rc;
}
