/* Chunks of a population's vector steps (train/pop.h: every member steps together). A chunk
 * runs its steps one by one, or, on a backend with graphs (CUDA, train.graphs), through a graph
 * captured the second time a chunk of the same shape comes round and replayed every time
 * after: one host call for thousands of kernels. A chunk's shape is what decides its
 * operations: the algorithm, its steps, the gradient updates each DQN step makes (train_freq's
 * credit), where in a PPO rollout it starts, and which of the two state buffers the
 * environments act on (they swap every step). Every other number an operation takes is a
 * constant of a member or comes from the agent's clock in the backend's memory, so a replay
 * issues exactly what running the steps would: the same numbers. */
#ifndef FOX_CHUNK_H
#define FOX_CHUNK_H

#include "util/error.h"

#define FOX_CHUNK_MAX 256  /* vector steps in a chunk */
#define FOX_CHUNK_SHAPES 8 /* shapes a population keeps (with their graphs), the least used go */

struct chunk_shape {
  int algo, parity, t0;
  long steps;
  int due[FOX_CHUNK_MAX];
};

struct chunk_graph {
  struct chunk_shape shape;
  void *graph; /* NULL: seen once, not captured yet */
  unsigned long used;
};

struct chunk_cache {
  struct chunk_graph g[FOX_CHUNK_SHAPES];
  int n;
  unsigned long tick;
  long captured, replayed; /* graphs made, and launched after their capture */
  /* The backend's table of the members (pop_ops.h), made at the first chunk after a change of
   * members: their steps (the environments'; DQN: acting, storing and updates; PPO: acting,
   * observing and updates) then run as one launch per operation for all. NULL: a backend without population operations
   * (each member's steps run on their own). */
  void *table;
};

struct pop;

/* Vector steps in the population's next chunk, at most `left` (the epoch's rest): about 1,024
 * environment steps of DQN (a whole number of train_freq's periods), the rest of a PPO
 * rollout. */
long chunk_steps(const struct pop *p, long left);
/* Runs the population's next `steps` vector steps, every member's. */
int chunk_run(struct pop *p, long steps, struct fox_err *e);
/* The population's graphs go (its members changed: a graph holds their steps). */
void chunk_cache_free(struct pop *p);

#endif
