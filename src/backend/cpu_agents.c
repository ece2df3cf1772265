/* The agents' operations on the CPU backend: loops over the step headers' item functions, the
 * twins of kernels/agent_kernels.cu (same functions, same order). */
#include <string.h>

#include "backend/agent_ops.h"
#include "dqn_step.h"
#include "ppo_step.h"

static int explore_(const float *q, int n, double eps, uint64_t seed, uint64_t step,
                    uint8_t *actions, struct fox_err *e) {
  for (int i = 0; i < n; i++)
    actions[i] = (uint8_t)dqn_explore(q + (size_t)i * FOX_NACTIONS, eps, seed, step, (uint64_t)i);
  return 0;
}

static int dueling_(const float *raw, int n, float *q, struct fox_err *e) {
  for (int i = 0; i < n; i++)
    dqn_dueling_row(raw + (size_t)i * (FOX_NACTIONS + 1), q + (size_t)i * FOX_NACTIONS);
  return 0;
}

static int dueling_backward_(const float *dq, int n, float *draw, struct fox_err *e) {
  for (int i = 0; i < n; i++)
    dqn_dueling_back_row(dq + (size_t)i * FOX_NACTIONS, draw + (size_t)i * (FOX_NACTIONS + 1));
  return 0;
}

static int replay_insert_(const struct replay_dev *rb, size_t pos, int n, const int32_t *bars,
                          const float *s, const float *s2, const uint8_t *a, const float *r,
                          const uint8_t *dones, struct fox_err *e) {
  for (int i = 0; i < n; i++)
    dqn_replay_put(rb, (pos + (size_t)i) % rb->cap, bars[i], s + (size_t)i * FOX_STATE_DIM,
                   s2 + (size_t)i * FOX_STATE_DIM, a[i], r[i], dones[i]);
  return 0;
}

static int replay_sample_(const struct replay_dev *rb, size_t size, const float *data_states,
                          uint64_t seed, uint64_t update, int b, float *bs, uint8_t *ba,
                          float *br, uint8_t *bterm, struct fox_err *e) {
  for (int i = 0; i < b; i++)
    dqn_replay_get(rb, size, data_states, seed, update, b, i, bs, ba, br, bterm);
  return 0;
}

static int dqn_loss_(const float *q_target, const float *q_next_online, const float *q,
                     const uint8_t *a, const float *r, const uint8_t *term, double gamma, int b,
                     float *dq, double *terms, struct fox_err *e) {
  for (int i = 0; i < b; i++) {
    size_t k = (size_t)i * FOX_NACTIONS;
    terms[i] = dqn_loss_item(q_target + k, q_next_online ? q_next_online + k : NULL, q + k,
                             a[i], r[i], term[i], gamma, b, dq + k);
  }
  return 0;
}

static int dqn_loss_sum_(const double *terms, int b, long transitions, double *acc,
                         struct fox_err *e) {
  dqn_loss_sum(terms, b, transitions, acc);
  return 0;
}

static int ppo_sample_(const float *logits, int n, uint64_t seed, uint64_t step,
                       uint8_t *actions, float *logp, struct fox_err *e) {
  for (int i = 0; i < n; i++)
    actions[i] = (uint8_t)ppo_sample(logits + 3 * (size_t)i, seed, step, (uint64_t)i, &logp[i]);
  return 0;
}

static int ppo_bootstrap_(int n, const float *r, const uint8_t *d, const float *v_next,
                          double gamma, float *r_out, uint8_t *d_out, struct fox_err *e) {
  for (int i = 0; i < n; i++) {
    r_out[i] = ppo_bootstrap_reward(r[i], d[i], v_next[i], gamma);
    d_out[i] = d[i];
  }
  return 0;
}

static int ppo_gae_(int T, int N, const struct rollout_dev *ro, const float *last_values,
                    double gamma, double lambda, struct fox_err *e) {
  for (int i = 0; i < N; i++)
    ppo_gae_env(T, N, i, ro->rewards, ro->values, ro->dones, last_values[i], gamma, lambda,
                ro->adv, ro->ret);
  return 0;
}

static int ppo_permute_(uint32_t n, uint64_t seed, uint64_t round, uint32_t *perm,
                        struct fox_err *e) {
  ppo_permute(perm, n, seed, round);
  return 0;
}

static int ppo_gather_(const struct rollout_dev *ro, const uint32_t *idx, int m,
                       const struct minibatch_dev *mb, double *stats, struct fox_err *e) {
  for (int j = 0; j < m; j++)
    ppo_gather_row(ro, idx, j, mb);
  ppo_adv_stats(mb->adv, m, stats);
  return 0;
}

static int ppo_loss_(const struct minibatch_dev *mb, int m, const double *stats, double clip,
                     double ent_coef, double vf_coef, double *terms, struct fox_err *e) {
  for (int i = 0; i < m; i++)
    ppo_loss_item(mb, m, i, stats, clip, ent_coef, vf_coef, terms);
  return 0;
}

static int ppo_loss_sum_(const double *terms, int m, double ent_coef, double vf_coef,
                         long transitions, double *acc, struct fox_err *e) {
  ppo_loss_sum(terms, m, ent_coef, vf_coef, transitions, acc);
  return 0;
}

const struct agent_ops agent_cpu_ops = {
    explore_,       dueling_,     dueling_backward_, replay_insert_, replay_sample_,
    dqn_loss_,      dqn_loss_sum_, ppo_sample_,      ppo_bootstrap_, ppo_gae_,
    ppo_permute_,   ppo_gather_,  ppo_loss_,         ppo_loss_sum_,
};
