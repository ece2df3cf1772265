/* The agents' backend operations: everything a DQN or PPO training step does besides the
 * networks' GEMMs, on arrays in the backend's memory, so that the training loop (src/train,
 * src/agents) is one piece of code for every backend and a step never visits the host. Each
 * operation's arithmetic is a FOX_HD function of kernels/dqn_step.h, ppo_step.h or
 * rng_step.h: the CPU backend loops over it (src/backend/cpu_agents.c), the CUDA backend
 * launches one thread per item (kernels/agent_kernels.cu). Reductions that must agree with
 * the CPU bit for bit (loss sums, advantage statistics) run on one thread in the CPU's order:
 * they are over a minibatch, not over the dataset. */
#ifndef FOX_AGENT_OPS_H
#define FOX_AGENT_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

struct eval_job; /* kernels/policy_step.h */

/* The DQN replay ring, compact: a transition's s is the dataset's normalised features of bar
 * `bar` plus 3 portfolio features, its s' those of bar + 1 (the next state is always the next
 * bar's, before any reset), so the ring keeps the bar and the 6 portfolio floats instead of
 * 108 floats of states: 34 bytes a transition instead of 438. */
struct replay_dev {
  size_t cap;
  int32_t *bar; /* [cap] */
  float *pf;    /* [cap, 6]: s's portfolio features, then s''s */
  float *r;     /* [cap] */
  uint8_t *a, *term;
  int nfeat; /* the market features of a state (the rest of the dataset's normalised row) */
};

/* A PPO rollout [n_steps * n_envs (* dim)], index t * n_envs + i. */
struct rollout_dev {
  float *obs, *logp, *values, *rewards, *adv, *ret;
  uint8_t *actions, *dones;
  int dim; /* floats of a state */
};

/* A PPO minibatch [m (* dim | * 3)]. */
struct minibatch_dev {
  float *obs, *logits, *values, *dlogits, *dvalues, *adv, *oldlogp, *oldv, *ret;
  uint8_t *act;
  int dim;
};

/* The training accumulator (backend doubles), zeroed each epoch and read once at its end. */
enum {
  FOX_ACC_LOSS,     /* sum of the updates' losses */
  FOX_ACC_UPDATES,  /* their number */
  FOX_ACC_BAD,      /* 1 + transitions when the first non-finite loss came; 0: none */
  FOX_ACC_N
};

struct dqn_clock; /* kernels/dqn_step.h */
struct dqn_eps;
struct ppo_clock; /* kernels/ppo_step.h */

/* Every operation that depends on where training stands reads it from a clock in the
 * backend's memory (dqn_clock, ppo_clock) rather than from an argument, and the ticks advance
 * the clocks there: a chunk of steps is then the same calls every time, which a device can
 * capture once as a graph and replay. */
struct agent_ops {
  /* DQN: epsilon-greedy actions from Q [n, 3] (dqn_explore_at) at the clock's transitions,
   * epsilon from its schedule. */
  int (*dqn_explore)(const float *q, int n, const struct dqn_clock *clk,
                     const struct dqn_eps *eps, uint64_t seed, uint8_t *actions,
                     struct fox_err *e);
  /* Dueling head: Q [n, 3] from raw [n, 4], and its backward. */
  int (*dqn_dueling)(const float *raw, int n, float *q, struct fox_err *e);
  int (*dqn_dueling_backward)(const float *dq, int n, float *draw, struct fox_err *e);
  /* Transitions skip .. skip + n - 1 of a vector step into the ring at the clock's position
   * + skip, + 1, ... (mod cap): s [n, nfeat + 3] shown at bars[i], s2 [n, nfeat + 3] at bars[i] + 1, dones
   * FOX_DONE_* (only a terminal stops the bootstrap). */
  int (*replay_insert)(const struct replay_dev *rb, const struct dqn_clock *clk, int skip, int n,
                       const int32_t *bars, const float *s, const float *s2, const uint8_t *a,
                       const float *r, const uint8_t *dones, struct fox_err *e);
  /* The vector step's n transitions counted (dqn_tick: position and fill of a ring of cap). */
  int (*dqn_tick)(struct dqn_clock *clk, int n, int64_t cap, struct fox_err *e);
  /* Batch of b for the clock's next gradient update from the ring's fill: bs [2b, nfeat + 3]
   * (s then s', rebuilt from the dataset's normalised states [n, nfeat]), actions, rewards,
   * terminals. */
  int (*replay_sample)(const struct replay_dev *rb, const struct dqn_clock *clk,
                       const float *data_states, uint64_t seed, int b, float *bs, uint8_t *ba,
                       float *br, uint8_t *bterm, struct fox_err *e);
  /* Per sample: the (Double, when q_next_online is not NULL) target from q_target [b, 3],
   * Huber on the taken action's q [b, 3], dq [b, 3] (the mean's 1/b included), terms [b]. */
  int (*dqn_loss)(const float *q_target, const float *q_next_online, const float *q,
                  const uint8_t *a, const float *r, const uint8_t *term, double gamma, int b,
                  float *dq, double *terms, struct fox_err *e);
  /* The update's loss (the terms' mean, summed in order) into acc (FOX_ACC_*), marked with the
   * clock's transitions when not finite; then the clock counts the update. */
  int (*dqn_loss_sum)(const double *terms, int b, struct dqn_clock *clk, double *acc,
                      struct fox_err *e);
  /* PPO: actions sampled from softmax(logits [n, 3]) at step t of the clock's rollout (the
   * run's vector step updates * n_steps + t), their logp. */
  int (*ppo_sample)(const float *logits, int n, const struct ppo_clock *clk, int n_steps, int t,
                    uint64_t seed, uint8_t *actions, float *logp, struct fox_err *e);
  /* A vector step's rewards and dones into the rollout's slot: a truncation's reward gets
   * gamma V(s') (SB3's time-limit bootstrap). */
  int (*ppo_bootstrap)(int n, const float *r, const uint8_t *d, const float *v_next,
                       double gamma, float *r_out, uint8_t *d_out, struct fox_err *e);
  /* GAE(lambda), one thread per environment walking back over T steps (ppo_gae_env). */
  int (*ppo_gae)(int T, int N, const struct rollout_dev *ro, const float *last_values,
                 double gamma, double lambda, struct fox_err *e);
  /* perm [n] = a pseudo-random permutation of 0 .. n-1 for epoch ep of the clock's update
   * (round updates * epochs + ep; ppo_perm_at: one thread per entry). */
  int (*ppo_permute)(uint32_t n, uint64_t seed, const struct ppo_clock *clk, int epochs, int ep,
                     uint32_t *perm, struct fox_err *e);
  /* Minibatch rows idx[0 .. m-1] of the rollout; stats [2] = the advantages' mean and std
   * (torch's, ddof 1) in the CPU's order. */
  int (*ppo_gather)(const struct rollout_dev *ro, const uint32_t *idx, int m,
                    const struct minibatch_dev *mb, double *stats, struct fox_err *e);
  /* Per sample: normalised advantage, the clipped losses' terms [m, 5] (ppo_loss_sample) and
   * gradients dlogits, dvalues; then their sums in order into acc, marked with the rollouts'
   * transitions so far ((updates + 1) * rollout) when not finite. */
  int (*ppo_loss)(const struct minibatch_dev *mb, int m, const double *stats, double clip,
                  double ent_coef, double vf_coef, int vloss, double *terms,
                  struct fox_err *e);
  int (*ppo_loss_sum)(const double *terms, int m, double ent_coef, double vf_coef,
                      const struct ppo_clock *clk, long rollout, double *acc,
                      struct fox_err *e);
  /* The rollout learned from: the clock counts it. */
  int (*ppo_tick)(struct ppo_clock *clk, struct fox_err *e);
  /* Evaluation: each job's greedy policy over its bars (struct eval_job), all of them at once
   * (CUDA: one launch, a block a job, and one copy of every job's actions back). */
  int (*greedy_eval)(const struct device_dataset *d, const struct eval_job *jobs, int n,
                     struct fox_err *err);
};

extern const struct agent_ops agent_cpu_ops;
extern const struct agent_ops agent_cuda_ops; /* CUDA builds (kernels/agent_kernels.cu) */

#ifdef __cplusplus
}
#endif

#endif
