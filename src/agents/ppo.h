/* PPO (DESIGN.md s7, CleanRL's ppo.py): separate actor and critic MLPs, rollouts of n_steps per
 * environment, GAE(lambda), the clipped surrogate and value losses, an entropy bonus, epochs x
 * minibatches with per-minibatch advantage normalisation, learning-rate annealing. */
#ifndef FOX_PPO_H
#define FOX_PPO_H

#include <stddef.h>
#include <stdint.h>

#include "agents/net.h"
#include "backend/agent_ops.h"
#include "backend/backend.h"
#include "config/config.h"
#include "ppo_step.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ppo {
  struct ppo_config cfg;
  const struct backend *be;
  int n_envs;
  int dim; /* floats of a state: nfeat market features, then the portfolio's */
  long num_updates, updates; /* rollouts planned for the run, and done */
  struct net actor, critic;
  struct rng rng; /* the initial weights' draws */
  uint64_t seed;  /* the counter-based draws of sampling and permutations (rng_step.h) */
  int t;          /* rollout steps filled */
  /* The device's own count of rollouts learned from (backend memory, just past acc), which the
   * operations read and advance; `updates` is the host's mirror. */
  struct ppo_clock *clk;
  /* Backend memory: the rollout [n_steps * n_envs], a minibatch, acting's logits [n_envs, 3]
   * and values of the next states [n_envs], the permutation, the clipping's lanes and
   * coefficient, the loss terms [mbs, 5], the advantages' statistics [2], and acc: the
   * minibatches' losses since the last agent_take (agent_ops.h FOX_ACC_*). */
  struct rollout_dev ro;
  struct minibatch_dev mb;
  float *logits, *v_next, *coef;
  uint32_t *perm;
  double *terms, *stats, *lanes, *acc;
};

int ppo_create(struct ppo *p, const struct ppo_config *c, int n_envs, int nfeat,
               long num_updates,
               const struct backend *be, uint64_t seed, struct fox_err *e);
void ppo_free(struct ppo *p);
/* Samples actions for the n_envs states (backend arrays) and records the step's states,
 * actions, log-probabilities and values in the rollout. */
int ppo_act(struct ppo *p, const float *states, uint8_t *actions, struct fox_err *e);
/* The step's outcome (backend arrays): next states before any reset (a truncation's reward
 * bootstraps from their value), rewards, FOX_DONE_* flags, and the states after it; runs the
 * update when the rollout is full. */
int ppo_observe(struct ppo *p, const float *next_states, const float *rewards,
                const uint8_t *dones, const float *states, struct fox_err *e);
/* GAE over the rollout and the update; `last_states` are the states after the last step. */
int ppo_update(struct ppo *p, const float *last_states, struct fox_err *e);
/* The host's side of a vector step: the rollout's position, and the update count when it
 * fills (what ppo_observe and ppo_update do to the mirrors), for a step whose device work a
 * replayed graph did. */
void ppo_plan(struct ppo *p);
/* The rows of an update's minibatch: the rollout split in cfg.minibatches (a remainder is
 * left out). */
int ppo_minibatch_rows(const struct ppo *p);
/* The host's mirror onto the device's clock (a checkpoint restored). */
int ppo_clock_put(struct ppo *p, struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
