/* The agent states a rank holds in memory between pbt generations: each segment's final state
 * as the bytes of an HDF5 checkpoint image, so that the next generation continues from it on
 * this rank, or another rank receives it over MPI, without reading OUTDIR/state back. */
#ifndef FOX_STATE_CACHE_H
#define FOX_STATE_CACHE_H

#include <pthread.h>
#include <stddef.h>

#include "study/study.h"

struct state_entry {
  int trial, repeat, epochs;
  void *buf;
  size_t len;
  /* NULL, or the trial whose state the bytes are, still open on this rank's backend (the
   * runner's struct trial): its arrays are copied within the device instead of uploaded */
  void *held;
  int uses; /* the loads of it this step still expects on this rank (state_cache_keep) */
};

struct state_cache {
  struct state_entry *e;
  int n, cap;
  pthread_mutex_t lock; /* trial threads put while others get */
  void (*release)(void *held); /* closes a held trial when its entry goes or no longer needs it */
  int max_held, n_held;         /* trials held at most (device memory), and now */
};

/* max_held: how many trials the cache may hold open at once (the rest are bytes only). */
int state_cache_init(struct state_cache *c, void (*release)(void *held), int max_held);
void state_cache_free(struct state_cache *c);
/* Takes buf (malloc'd) over; replaces an entry of the same key. */
int state_cache_put(struct state_cache *c, int trial, int repeat, int epochs, void *buf,
                    size_t len, struct fox_err *e);
/* The entry of that key also holds the trial `held` (taken over): 1, or 0 when there is no
 * such entry, it holds one already or max_held are held (then the caller keeps it). */
int state_cache_hold(struct state_cache *c, int trial, int repeat, int epochs, void *held);
/* A load of that entry is done (its held trial read): after the last one the step expects
 * on this rank, the held trial is released (in the calling thread, whose stream did the
 * copies) and the bytes stay. */
void state_cache_used(struct state_cache *c, int trial, int repeat, int epochs);
/* 1 and the entry in *out (its bytes and held trial stay valid until state_cache_keep, between
 * steps), or 0 when this rank holds no such state. */
int state_cache_get(struct state_cache *c, int trial, int repeat, int epochs,
                    struct state_entry *out);
/* Drops every entry that no item of the step continues from (from_trial or buffers_trial at
 * from_epochs): what the study will not ask for again; counts each kept entry's loads on
 * `rank` (the items it owns, or any unplaced one), and releases a held trial none of them
 * reads. */
void state_cache_keep(struct state_cache *c, const struct work_item *items, int n, int rank);

#endif
