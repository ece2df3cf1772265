/* The DQN replay buffer: a ring of (s, a, r, s', terminal) transitions, sampled uniformly. */
#ifndef FOX_REPLAY_H
#define FOX_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "env_step.h"
#include "util/error.h"
#include "util/rng.h"

struct replay {
  size_t cap, size, pos;
  float *s, *s2; /* [cap, FOX_STATE_DIM] */
  uint8_t *a, *term;
  float *r;
};

int replay_create(struct replay *b, size_t cap, struct fox_err *e);
/* n transitions from a vector step; terminal[i] = 1 only for a real terminal (a truncation
 * bootstraps). */
void replay_push(struct replay *b, size_t n, const float *s, const uint8_t *a, const float *r,
                 const float *s2, const uint8_t *terminal);
void replay_free(struct replay *b);

#endif
