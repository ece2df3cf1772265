/* PPO (DESIGN.md s7, CleanRL's ppo.py): separate actor and critic MLPs, rollouts of n_steps per
 * environment, GAE(lambda), the clipped surrogate and value losses, an entropy bonus, epochs x
 * minibatches with per-minibatch advantage normalisation, learning-rate annealing. */
#ifndef FOX_PPO_H
#define FOX_PPO_H

#include <stddef.h>
#include <stdint.h>

#include "agents/net.h"
#include "agents/ppo_loss.h"
#include "config/config.h"

struct ppo {
  struct ppo_config cfg;
  int n_envs;
  long num_updates, updates; /* rollouts planned for the run, and done */
  struct net actor, critic;
  struct rng rng; /* the initial weights' draws */
  uint64_t seed;  /* the counter-based draws of sampling and permutations (rng_step.h) */
  int t; /* rollout steps filled */
  float *obs, *logp, *values, *rewards, *adv, *ret; /* [n_steps * n_envs (* 54)] */
  uint8_t *actions, *dones;
  /* minibatch scratch */
  float *mb_obs, *mb_logits, *mb_values, *mb_dlogits, *mb_dvalues, *mb_adv;
  float *mb_oldlogp, *mb_oldv, *mb_ret;
  uint8_t *mb_act;
  size_t *perm;
};

int ppo_create(struct ppo *p, const struct ppo_config *c, int n_envs, long num_updates,
               const struct net_ops *ops, uint64_t seed, struct fox_err *e);
void ppo_free(struct ppo *p);
/* Samples actions for n states; logp and values may be NULL. */
int ppo_act(struct ppo *p, const float *states, int n, uint8_t *actions, float *logp,
            float *values, struct fox_err *e);
/* Critic values of n states. */
int ppo_value(struct ppo *p, const float *states, int n, float *values, struct fox_err *e);
/* Appends one vector step (rewards already include gamma V(s') for truncations). */
void ppo_record(struct ppo *p, const float *states, const uint8_t *actions, const float *logp,
                const float *values, const float *rewards, const uint8_t *dones);
int ppo_rollout_full(const struct ppo *p);
/* GAE over the rollout and the update; `last_states` are the states after the last step. */
int ppo_update(struct ppo *p, const float *last_states, struct ppo_stats *st, struct fox_err *e);

/* GAE: T steps of N envs, done[t] = the episode ended at step t; last_values V(s_T). */
void ppo_gae(int T, int N, const float *rewards, const float *values, const uint8_t *dones,
             const float *last_values, double gamma, double lambda, float *adv, float *ret);

#endif
