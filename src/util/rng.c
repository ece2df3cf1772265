/* xoshiro256** (Blackman & Vigna) with splitmix64 seeding, plus the few distributions we need. */
#include "util/rng.h"

#include <math.h>

static uint64_t splitmix64_(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void rng_seed(struct rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64_(&x);
}

static inline uint64_t rotl_(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_next(struct rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl_(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl_(s[3], 45);
  return result;
}

double rng_uniform(struct rng *r) { return (double)(rng_next(r) >> 11) * 0x1.0p-53; }

double rng_normal(struct rng *r) {
  double u, v, s;
  do {
    u = 2.0 * rng_uniform(r) - 1.0;
    v = 2.0 * rng_uniform(r) - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  return u * sqrt(-2.0 * log(s) / s);
}

double rng_student_t(struct rng *r, double nu) {
  /* t = Z / sqrt(chi2_nu / nu); chi2 from a sum of squares keeps it exact for integer nu. */
  double z = rng_normal(r), chi2 = 0.0;
  int k = (int)nu;
  for (int i = 0; i < k; i++) {
    double g = rng_normal(r);
    chi2 += g * g;
  }
  double t = z / sqrt(chi2 / k);
  return t * sqrt((k - 2.0) / k);
}

uint64_t rng_hash2(uint64_t a, uint64_t b) {
  uint64_t x = a ^ (b * 0x9e3779b97f4a7c15ULL);
  splitmix64_(&x);
  return splitmix64_(&x);
}
