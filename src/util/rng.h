/* Deterministic random streams: xoshiro256** seeded by splitmix64, the same on every platform,
 * so a seed reproduces a synthetic file or a trial byte for byte. */
#ifndef FOX_RNG_H
#define FOX_RNG_H

#include <stdint.h>

struct rng {
  uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double rng_uniform(struct rng *r);
/* Standard normal (Marsaglia polar; no cached spare, so the stream depends only on call order). */
double rng_normal(struct rng *r);
/* Student-t with nu degrees of freedom, scaled to unit variance (nu > 2). */
double rng_student_t(struct rng *r, double nu);
/* A 64-bit mix of two values, for deriving independent seeds (e.g. study seed, trial id). */
uint64_t rng_hash2(uint64_t a, uint64_t b);

#endif
