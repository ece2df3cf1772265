/* Counter-based randomness for the device and the host alike: a value is a pure function of
 * its inputs (seed, environment, episode), so no generator state crosses threads or backends. */
#ifndef FOX_RNG_STEP_H
#define FOX_RNG_STEP_H

#include <stdint.h>

#include "fox_hd.h"

FOX_HD static inline uint64_t fox_splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

FOX_HD static inline uint64_t fox_mix3(uint64_t a, uint64_t b, uint64_t c) {
  return fox_splitmix(fox_splitmix(fox_splitmix(a) ^ b) ^ c);
}

/* The agents' draws, one stream each: a draw is a pure function of (seed, stream, step,
 * index), so the CPU loop and a kernel with one thread per index draw the same numbers, in any
 * order, and a checkpoint needs only the step counters. */
enum {
  FOX_RS_EXPLORE = 1, /* DQN: explore or not (step = transitions before the vector step) */
  FOX_RS_RANDOM_ACTION = 2, /* DQN: the random action */
  FOX_RS_REPLAY = 3,        /* DQN: replay indices (step = gradient updates before this one) */
  FOX_RS_POLICY = 4,        /* PPO: the sampled action (step = vector steps of the run) */
  FOX_RS_PERMUTE = 5        /* PPO: minibatch permutation (step = update x epochs + epoch) */
};

/* Uniform in [0, 1) with 53 bits. */
FOX_HD static inline double fox_u01(uint64_t seed, uint64_t stream, uint64_t step,
                                    uint64_t index) {
  uint64_t h = fox_splitmix(fox_mix3(seed, stream, step) ^ index);
  return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

#endif
