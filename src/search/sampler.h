/* Samplers: random, TPE, grid and NSGA-II behind one table. A proposal depends only on the history it
 * is given and on its seed, so the same study proposes the same trials however many ranks or
 * threads run them. */
#ifndef FOX_SAMPLER_H
#define FOX_SAMPLER_H

#include <stdint.h>

#include "search/space.h"

/* A trial as the samplers see it. `loss` is the objective oriented so that lower is better
 * (the negated metric when maximising); `step` is how far a pruned trial got (epochs). A
 * RUNNING trial is one proposed earlier in the same round (no result yet). */
enum { FOX_SEEN_COMPLETE = 0, FOX_SEEN_PRUNED = 1, FOX_SEEN_FAILED = 2, FOX_SEEN_RUNNING = 3 };

struct seen_trial {
  const double *x; /* [space->n], NaN where inactive */
  int state;
  double loss;
  int step;
  /* For NSGA-II (zero in a single-objective history built by hand: loss is the one value):
   * the round the trial was proposed in, every objective as a loss, and its total constraint
   * violation (0: feasible). */
  int round;
  int n_obj;
  double values[FOX_OBJ_MAX];
  double violation;
};

struct sampler_ops {
  const char *name;
  /* x[space->n] for the next trial after the `n` trials of `hist` (in trial-id order), from
   * the random stream `seed`. */
  int (*propose)(const struct tpe_config *tc, const struct space *sp,
                 const struct seen_trial *hist, int n, uint64_t seed, double *x,
                 struct fox_err *e);
};

extern const struct sampler_ops sampler_random_ops, sampler_tpe_ops, sampler_grid_ops,
    sampler_nsga2_ops;
/* The table entry for FOX_SAMPLER_*. */
const struct sampler_ops *sampler_get(int which);

#endif
