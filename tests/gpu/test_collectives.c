/* The end-of-step sum through NCCL (mpi/collectives_nccl.c) against the values every rank
 * knows: each rank's rows summed onto all of them, for a table that grows the staging buffer
 * and one that reuses it. Run under mpiexec with one device per rank (the CUDA emulation lets
 * ranks share its one). Skips (77) without a device. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "fox_check.h"
#include "mpi/collectives.h"

/* Row i of rank r's table: the same formula on every rank, so that each knows the sum. */
static double cell_(int rank, size_t i) { return (double)(rank + 1) * 0.5 + (double)(i % 97); }

static void sum_(struct collectives *c, const struct world *w, size_t n) {
  struct fox_err e = {0};
  double *buf = malloc(n * sizeof *buf);
  for (size_t i = 0; i < n; i++)
    buf[i] = cell_(w->rank, i);
  CHECK(coll_sum(c, buf, n, &e) == 0, "rank %d: %s", w->rank, e.msg);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) {
    double want = 0.0;
    for (int r = 0; r < w->size; r++)
      want += cell_(r, i);
    bad += buf[i] != want;
  }
  CHECK(bad == 0, "rank %d: %zu of %zu sums differ", w->rank, bad, n);
  free(buf);
}

int main(int argc, char **argv) {
  struct fox_err e = {0};
  struct world w;
  if (world_init(&w, &argc, &argv, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  if (w.devices == 0) {
    if (w.rank == 0)
      printf("skipped: no CUDA device\n");
    world_finalize(&w);
    return 77;
  }
  CHECK(backend_cuda()->bind(w.device, &e) == 0, "%s", e.msg);
  struct collectives c;
  CHECK(coll_init(&c, &w, 1, &e) == 0, "rank %d: %s", w.rank, e.msg);
  if (c.nccl) {
    CHECK(strcmp(coll_name(&c), "nccl") == 0, "the sums go through %s", coll_name(&c));
    sum_(&c, &w, 12);
    sum_(&c, &w, 100000);
    sum_(&c, &w, 300);
    coll_free(&c);
  }
  int failed = fox_checks_failed, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  int rc = w.rank == 0 ? fox_check_done("test_collectives") : (fox_checks_failed ? 1 : 0);
  world_finalize(&w);
  return any ? 1 : rc;
}
