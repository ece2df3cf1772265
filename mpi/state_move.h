/* PBT's state moves between ranks (DESIGN.md s9): rank 0 places a generation's segments on the
 * ranks that hold the states they continue from, and each state a segment's owner lacks goes
 * from the rank that produced it straight to the owner over MPI before the segments start;
 * nothing is read back from OUTDIR/state while the run lives. */
#ifndef FOX_STATE_MOVE_H
#define FOX_STATE_MOVE_H

#include "mpi/world.h"
#include "study/state_cache.h"

/* 1 when some item continues from a state a rank holds in memory: the step is placed. */
int move_needed(const struct work_item *items, int n);
/* Rank 0: items[i].owner for each item, at most ceil(n / ranks) per rank: first where its
 * state is held (the parent's, else the kept buffers'), then the least loaded rank (the lowest
 * on ties), in item order. */
void move_place(struct work_item *items, int n, int ranks);
/* Every rank, after the placed items were broadcast: sends the states it holds that another
 * rank's items need, receives those its own items need into `cache`. *planned: the moves of
 * the step (the same on every rank); *count, *bytes: the states this rank received (a holder
 * that lacks one sends nothing, and the owner reads the checkpoint); *seconds: this rank's
 * time. */
int move_states(struct world *w, struct state_cache *cache, const struct work_item *items,
                int n, int *planned, int *count, double *bytes, double *seconds,
                struct fox_err *e);

#endif
