/* The floor of a synchronous schedule on these ranks, for bench_coord.sh: every rank sleeps
 * through one trial per step the way a test-function trial does (naps of at most 50 ms), then
 * the ranks meet in one all-reduce of a step's result rows. No proposals, no files, no queue:
 * what is left is the launcher's and the machine's (oversubscription) share. Prints
 * "wall_seconds busy_seconds" on rank 0.
 *   mpiexec -n R bench_coord_ref STEPS SECONDS */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int steps = argc > 1 ? atoi(argv[1]) : 4;
  double secs = argc > 2 ? atof(argv[2]) : 1.0, busy = 0;
  double *rows = calloc((size_t)size * 17, sizeof *rows);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = now_();
  for (int s = 0; s < steps; s++) {
    double a = now_();
    while (now_() - a < secs) {
      double left = secs - (now_() - a), nap = left < 0.05 ? left : 0.05;
      struct timespec ts = {(time_t)nap, (long)((nap - floor(nap)) * 1e9)};
      nanosleep(&ts, NULL);
    }
    busy += now_() - a;
    rows[rank * 17] = busy;
    MPI_Allreduce(MPI_IN_PLACE, rows, size * 17, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  double wall = now_() - t0, total = 0;
  MPI_Reduce(&busy, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%.6f %.6f\n", wall, total);
  free(rows);
  MPI_Finalize();
  return 0;
}
