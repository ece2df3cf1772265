/* DQN's per-sample arithmetic (DESIGN.md s7), called by the CPU backend's loops
 * (src/backend/cpu_agents.c) and the device's one-thread-per-sample kernels
 * (kernels/agent_kernels.cu) alike: epsilon-greedy from a Q row with counter-based draws, the
 * compact replay ring's insert and gather, the (Double) DQN target, and Huber's value and
 * gradient. */
#ifndef FOX_DQN_STEP_H
#define FOX_DQN_STEP_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/agent_ops.h"
#include "env_step.h"
#include "fox_hd.h"
#include "rng_step.h"

#define FOX_NACTIONS 3

/* The DQN's counters where the backend keeps them (device memory on CUDA): each step's
 * operations read them and the step's own ticks advance them, so that a captured chunk of
 * vector steps replays unchanged. The host keeps mirrors (struct dqn) for its own decisions
 * (how many updates a step makes) and checkpoints; agent_take holds the two to each other. */
struct dqn_clock {
  int64_t transitions; /* stored in the ring so far */
  int64_t updates;     /* gradient updates done */
  int64_t pos, size;   /* the ring's next write and fill */
};

/* Epsilon's linear schedule: start to end over `span` transitions, then flat; 1 (every
 * action uniform) while fewer than `warmup` transitions are stored (dqn.uniform_warmup: SB3's
 * random actions before learning_starts; 0 without). `vector_coin`: one draw a vector step
 * decides for every environment whether it explores (dqn.eps_per_env false: SB3's and
 * CleanRL's way, all 64 explore or all exploit together); 0: each environment draws its own. */
struct dqn_eps {
  double start, end, span;
  int64_t warmup;
  int vector_coin;
};

FOX_HD static inline double dqn_epsilon_at(struct dqn_eps s, int64_t t) {
  if (t < s.warmup)
    return 1.0;
  double frac = s.span > 0 ? (double)t / s.span : 1.0;
  if (frac > 1)
    frac = 1;
  return s.start + frac * (s.end - s.start);
}

/* A vector step's n transitions stored in a ring of cap. */
FOX_HD static inline void dqn_tick(struct dqn_clock *c, int n, int64_t cap) {
  c->transitions += n;
  c->pos = (c->pos + n) % cap;
  c->size = c->size + n < cap ? c->size + n : cap;
}

/* argmax over 3 values; ties take the lowest action. */
FOX_HD static inline int dqn_argmax3(const float *q) {
  int best = 0;
  for (int a = 1; a < FOX_NACTIONS; a++)
    if (q[a] > q[best])
      best = a;
  return best;
}

/* Environment `env`'s action at `t` transitions (before this vector step) under schedule s:
 * with probability epsilon a uniformly random one, else argmax Q. The coin is the
 * environment's own or, with s.vector_coin, environment 0's for all; the random action is
 * always the environment's own. Both draws are made whatever epsilon is. */
FOX_HD static inline int dqn_explore_at(const float *q, struct dqn_eps s, int64_t t,
                                        uint64_t seed, uint64_t env) {
  double u = fox_u01(seed, FOX_RS_EXPLORE, (uint64_t)t, s.vector_coin ? 0 : env);
  double v = fox_u01(seed, FOX_RS_RANDOM_ACTION, (uint64_t)t, env);
  return u < dqn_epsilon_at(s, t) ? (int)(v * FOX_NACTIONS) : dqn_argmax3(q);
}

/* Dueling: Q = V + A - mean(A) of one raw row [4], and its backward. */
FOX_HD static inline void dqn_dueling_row(const float *x, float *q) {
  float mean = (x[1] + x[2] + x[3]) / 3.0f;
  for (int a = 0; a < FOX_NACTIONS; a++)
    q[a] = x[0] + x[1 + a] - mean;
}

FOX_HD static inline void dqn_dueling_back_row(const float *g, float *d) {
  float sum = g[0] + g[1] + g[2];
  d[0] = sum;
  for (int a = 0; a < FOX_NACTIONS; a++)
    d[1 + a] = g[a] - sum / 3.0f;
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

/* Ring entry k from environment i's transition: s shown at bar, s2 at bar + 1; only the
 * portfolio features are kept (the rest is the dataset's row). */
FOX_HD static inline void dqn_replay_put(const struct replay_dev *rb, size_t k, int32_t bar,
                                         const float *s, const float *s2, uint8_t a, float r,
                                         uint8_t done) {
  rb->bar[k] = bar;
  for (int j = 0; j < 3; j++) {
    rb->pf[6 * k + (size_t)j] = s[rb->nfeat + j];
    rb->pf[6 * k + 3 + (size_t)j] = s2[rb->nfeat + j];
  }
  rb->a[k] = a;
  rb->r[k] = r;
  rb->term[k] = done == FOX_DONE_TERMINAL; /* a truncation bootstraps */
}

/* Row i of a batch of b from ring entry k: s into bs[i], s' into bs[b + i], both rebuilt from
 * the dataset's normalised rows and the stored portfolio features. */
FOX_HD static inline void dqn_replay_get_at(const struct replay_dev *rb, size_t k,
                                            const float *data_states, int b, int i, float *bs,
                                            uint8_t *ba, float *br, uint8_t *bterm) {
  size_t bar = (size_t)rb->bar[k];
  int nf = rb->nfeat, dim = nf + FOX_NPORTFOLIO;
  float *s = bs + (size_t)i * dim, *s2 = bs + (size_t)(b + i) * dim;
  const float *x = data_states + bar * nf, *x2 = x + nf;
  for (int f = 0; f < nf; f++) {
    s[f] = x[f];
    s2[f] = x2[f];
  }
  for (int j = 0; j < 3; j++) {
    s[nf + j] = rb->pf[6 * k + (size_t)j];
    s2[nf + j] = rb->pf[6 * k + 3 + (size_t)j];
  }
  ba[i] = rb->a[k];
  br[i] = rb->r[k];
  bterm[i] = rb->term[k];
}

/* Row i of a batch of b for gradient update `update`: the ring's entry the update draws for
 * it (dqn_replay_index), as dqn_replay_get_at. */
FOX_HD static inline void dqn_replay_get(const struct replay_dev *rb, size_t size,
                                         const float *data_states, uint64_t seed,
                                         uint64_t update, int b, int i, float *bs, uint8_t *ba,
                                         float *br, uint8_t *bterm) {
  size_t k = (size_t)dqn_replay_index(seed, update, (uint64_t)i, size);
  dqn_replay_get_at(rb, k, data_states, b, i, bs, ba, br, bterm);
}

/* Sample i of an update: the target, Huber on the taken action's Q (q_next_online NULL: plain
 * DQN), dLoss/dQ of its row with the mean's 1/b; returns the loss term. */
FOX_HD static inline double dqn_loss_item(const float *q_target, const float *q_next_online,
                                          const float *q, int a, float r, int terminal,
                                          double gamma, int b, float *dq) {
  float y = dqn_target(q_target, q_next_online, r, terminal, gamma);
  double g, l = dqn_huber((double)q[a] - y, &g);
  for (int j = 0; j < FOX_NACTIONS; j++)
    dq[j] = 0.0f;
  dq[a] = (float)(g / (double)b);
  return l;
}

/* An update's loss from its b terms, summed in order, into the accumulator (agent_ops.h). */
FOX_HD static inline void dqn_loss_sum(const double *terms, int b, long transitions,
                                       double *acc) {
  double s = 0;
  for (int i = 0; i < b; i++)
    s += terms[i];
  double loss = s / (double)b;
  acc[FOX_ACC_LOSS] += loss;
  acc[FOX_ACC_UPDATES] += 1.0;
  if (!isfinite(loss) && acc[FOX_ACC_BAD] == 0.0)
    acc[FOX_ACC_BAD] = 1.0 + (double)transitions;
}

#endif
