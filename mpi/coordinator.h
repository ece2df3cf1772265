/* The rounds over ranks (DESIGN.md s9): rank 0 decides each step's work and broadcasts it;
 * every rank pulls items one at a time from a counter at rank 0 (MPI one-sided fetch-and-add),
 * so a fast rank takes more than a slow one; each rank runs up to trials_per_device at once;
 * at the end the result rows are summed onto every rank (NCCL on devices, MPI on the CPU), and
 * the ranks agree on stopping. */
#ifndef FOX_COORDINATOR_H
#define FOX_COORDINATOR_H

#include <pthread.h>

#include "mpi/collectives.h"
#include "study/runner.h"

struct coordinator {
  struct world *w;
  struct collectives coll;
  MPI_Win win;
  long *slots; /* at rank 0: [0] the next item of the step, [1] a stop request (the signal) */
  long n_items;
  int published; /* this rank's stop request is in slot 1 */
  int mpi_err;   /* an MPI call of a trial thread failed */
  char *bcast;   /* a step's count and items, as broadcast */
  size_t bcast_len;
  /* Run once per step on the calling thread while the trials run (rank 0 writes the previous
   * step's checkpoint there, off the step's critical path). */
  void (*idle)(void *ctx);
  void *idle_ctx;
  int idle_done;
  pthread_mutex_t lock; /* MPI calls one at a time (MPI_THREAD_SERIALIZED) */
  /* A placed step (pbt: items continue from states that ranks hold): this rank's items, taken
   * in order from a local counter instead of rank 0's. */
  int *mine, n_mine, next_mine;
  /* The last step's state transfers (the same on every rank): how many, their bytes, and the
   * slowest rank's time moving them. */
  int xfer_count, xfer_planned;
  double xfer_bytes, xfer_seconds;
};

/* max_items: the most items a step can have (study.round_size). */
int coord_open(struct coordinator *c, struct world *w, int use_nccl, int max_items,
               struct fox_err *e);
void coord_close(struct coordinator *c);
/* One step, called by every rank: rank 0's *n items go to all (placed first when some continue
 * from a state a rank holds: each item then runs on its owner, which receives the states it
 * lacks from their holders over MPI before the segments start); the ranks run them; res[0 .. n-1]
 * then holds every result on every rank. *n <= 0 ends the study (0: done; < 0: rank 0 failed
 * with status -*n). *stop becomes the signal any rank received (0: none). Every rank returns
 * the same status: a failure anywhere fails the step everywhere, the failing rank with its
 * message. */
int coord_step(struct coordinator *c, struct runner *r, struct work_item *items, int *n,
               struct work_result *res, int *stop, struct fox_err *e);
/* The same status on every rank: the first failure (by rank) wins; *who gets its rank. */
int coord_agree(struct coordinator *c, int rc, int *who, struct fox_err *e);

#endif
