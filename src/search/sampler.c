/* The sampler table, and the two samplers that need no model: random and grid. */
#include "search/sampler.h"

#include <math.h>

static int random_propose_(const struct tpe_config *tc, const struct space *sp,
                           const struct seen_trial *hist, int n, uint64_t seed, double *x,
                           struct fox_err *e) {
  struct rng r;
  rng_seed(&r, seed);
  for (int i = 0; i < sp->n; i++)
    x[i] = space_sample_uniform(sp, i, &r);
  space_mask(sp, x);
  return 0;
}

/* Trial k takes grid point k: the study stops at the grid's size. */
static int grid_propose_(const struct tpe_config *tc, const struct space *sp,
                         const struct seen_trial *hist, int n, uint64_t seed, double *x,
                         struct fox_err *e) {
  long long size;
  FOX_TRY(space_grid_size(sp, &size, e));
  space_grid_point(sp, (long long)n % size, x);
  return 0;
}

const struct sampler_ops sampler_random_ops = {"random", random_propose_};
const struct sampler_ops sampler_grid_ops = {"grid", grid_propose_};

const struct sampler_ops *sampler_get(int which) {
  switch (which) {
  case FOX_SAMPLER_RANDOM: return &sampler_random_ops;
  case FOX_SAMPLER_GRID: return &sampler_grid_ops;
  case FOX_SAMPLER_NSGA2: return &sampler_nsga2_ops;
  default: return &sampler_tpe_ops;
  }
}
