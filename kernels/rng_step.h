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

#endif
