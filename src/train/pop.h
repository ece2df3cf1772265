/* A population: trials of one shape trained together, one vector step of every member at a
 * time, so that a device runs each operation once for all of them. Trials of one shape (the
 * algorithm, the networks, num_envs, the batch, the ring, the rollout: pop_shape_equal) differ
 * only in numbers, which each member keeps where its backend keeps its arrays. Members join and
 * leave between epochs; each trains exactly as it would alone (members never touch each other's
 * memory, and every member's step is the step it would take alone). */
#ifndef FOX_POP_H
#define FOX_POP_H

#include <signal.h>

#include "backend/counters.h"
#include "train/chunk.h"
#include "util/error.h"

#define FOX_POP_MAX 64 /* members of one population */

struct trial;
struct config;

struct pop {
  const struct backend *be;
  int cap;                       /* slots */
  int live;                      /* members in them */
  struct trial *m[FOX_POP_MAX];  /* NULL: a free slot */
  struct chunk_cache chunks;     /* the shapes of the population's chunks, and their graphs */
  long epochs;                   /* epochs trained together */
  struct backend_counts counts;  /* the device work of those epochs */
  long seen_captured, seen_replayed; /* the chunks' graphs already told to the members */
};

/* Trials of configs a and b can be members of one population: everything but the members'
 * own numbers (seeds, learning rates, discounts, exploration, clipping and coefficients, the
 * market's costs, barriers and rewards, episode lengths, epochs, evaluation and outputs) is
 * equal. */
int pop_shape_equal(const struct config *a, const struct config *b);
/* Two opened trials of one shape take the same host-side decisions from here on (the DQN's
 * updates per step, the PPO rollout's position): why not in `why` when not. */
int pop_phase_equal(const struct trial *a, const struct trial *b, char *why, size_t n);

void pop_init(struct pop *p, const struct backend *be, int cap);
/* t (opened, its state loaded; the caller's still) joins in a free slot: FOX_EUSAGE when the
 * population is full, of another shape or out of phase with it. */
int pop_add(struct pop *p, struct trial *t, struct fox_err *e);
/* t leaves the population (its result and state stay t's). */
void pop_remove(struct pop *p, const struct trial *t);
/* One epoch of every member's training (train.steps_per_epoch), then each one's losses and
 * clock read back: a member whose loss went non-finite has failed (its result says so) and
 * should leave. Each member's train_counts get an equal share of the epoch's device work.
 * When *stop becomes non-zero the epoch is abandoned between two chunks: FOX_ESTOP. */
int pop_train_epoch(struct pop *p, const volatile sig_atomic_t *stop, double *seconds,
                    struct fox_err *e);
/* The population's graphs go; the members stay their owners'. */
void pop_free(struct pop *p);

#endif
