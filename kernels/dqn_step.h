/* DQN's per-sample arithmetic (DESIGN.md s7), called by the CPU agent (src/agents/dqn.c) and
 * meant for the device's one-thread-per-sample kernels alike: epsilon-greedy from a Q row with
 * counter-based draws, the replay index, the (Double) DQN target, and Huber's value and
 * gradient. */
#ifndef FOX_DQN_STEP_H
#define FOX_DQN_STEP_H

#include <stdint.h>

#include "fox_hd.h"
#include "rng_step.h"

#define FOX_NACTIONS 3

/* argmax over 3 values; ties take the lowest action. */
FOX_HD static inline int dqn_argmax3(const float *q) {
  int best = 0;
  for (int a = 1; a < FOX_NACTIONS; a++)
    if (q[a] > q[best])
      best = a;
  return best;
}

/* Environment `env`'s action at `step` (transitions before this vector step): with
 * probability eps a uniformly random one, else argmax Q. Both draws are made whatever eps is. */
FOX_HD static inline int dqn_explore(const float *q, double eps, uint64_t seed, uint64_t step,
                                     uint64_t env) {
  double u = fox_u01(seed, FOX_RS_EXPLORE, step, env);
  double v = fox_u01(seed, FOX_RS_RANDOM_ACTION, step, env);
  return u < eps ? (int)(v * FOX_NACTIONS) : dqn_argmax3(q);
}

/* Sample i's index into a replay buffer holding `size` transitions, for gradient update
 * `update`. */
FOX_HD static inline uint64_t dqn_replay_index(uint64_t seed, uint64_t update, uint64_t i,
                                               uint64_t size) {
  return (uint64_t)(fox_u01(seed, FOX_RS_REPLAY, update, i) * (double)size);
}

/* y = r + gamma (1 - terminal) Q_target(s', a*), a* = argmax Q_online(s') (Double DQN,
 * q_online not NULL) or argmax Q_target(s'). */
FOX_HD static inline float dqn_target(const float *q_target, const float *q_online, float r,
                                      int terminal, double gamma) {
  int a = dqn_argmax3(q_online ? q_online : q_target);
  return (float)(r + (terminal ? 0.0 : gamma * q_target[a]));
}

/* Huber (smooth L1, delta 1) of d = pred - target: returns the loss term, *grad = d loss / d
 * pred before the mean's 1/n. */
FOX_HD static inline double dqn_huber(double d, double *grad) {
  double a = d < 0 ? -d : d;
  *grad = a < 1.0 ? d : (d > 0 ? 1.0 : -1.0);
  return a < 1.0 ? 0.5 * d * d : a - 0.5;
}

#endif
