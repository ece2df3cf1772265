/* The agents' operations on the CPU backend: loops over the step headers' item functions, the
 * twins of kernels/agent_kernels.cu (same functions, same order). */
#include <stdlib.h>
#include <string.h>

#include "agents/nn_real.h"
#include "backend/agent_ops.h"
#include "dqn_step.h"
#include "policy_step.h"
#include "ppo_step.h"

static int explore_(const float *q, int n, const struct dqn_clock *clk,
                    const struct dqn_eps *eps, uint64_t seed, uint8_t *actions,
                    struct fox_err *e) {
  for (int i = 0; i < n; i++)
    actions[i] = (uint8_t)dqn_explore_at(q + (size_t)i * FOX_NACTIONS, *eps, clk->transitions,
                                         seed, (uint64_t)i);
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

static int replay_insert_(const struct replay_dev *rb, const struct dqn_clock *clk, int skip,
                          int n, const int32_t *bars, const float *s, const float *s2,
                          const uint8_t *a, const float *r, const uint8_t *dones,
                          struct fox_err *e) {
  size_t pos = (size_t)clk->pos + (size_t)skip, dim = (size_t)rb->nfeat + FOX_NPORTFOLIO;
  for (int i = 0; i < n; i++)
    dqn_replay_put(rb, (pos + (size_t)i) % rb->cap, bars[i], s + (size_t)i * dim,
                   s2 + (size_t)i * dim, a[i], r[i], dones[i]);
  return 0;
}

static int dqn_tick_(struct dqn_clock *clk, int n, int64_t cap, struct fox_err *e) {
  dqn_tick(clk, n, cap);
  return 0;
}

/* The batch in blocks: each block's ring entries drawn first and their dataset rows (s and s',
 * adjacent) prefetched, then copied. The rows are random bars of a dataset larger than the
 * caches, so copying entry by entry waited on one row's misses at a time (a tenth of a DQN
 * run's time); the same entries and the same copies (dqn_replay_get's). */
static int replay_sample_(const struct replay_dev *rb, const struct dqn_clock *clk,
                          const float *data_states, uint64_t seed, int b, float *bs, uint8_t *ba,
                          float *br, uint8_t *bterm, struct fox_err *e) {
  enum { BLOCK = 32 };
  size_t k[BLOCK], row = 2 * (size_t)rb->nfeat * sizeof(float);
  for (int i0 = 0; i0 < b; i0 += BLOCK) {
    int n = b - i0 < BLOCK ? b - i0 : BLOCK;
    for (int j = 0; j < n; j++) {
      k[j] = (size_t)dqn_replay_index(seed, (uint64_t)clk->updates, (uint64_t)(i0 + j),
                                      (uint64_t)clk->size);
      const char *x = (const char *)(data_states + (size_t)rb->bar[k[j]] * (size_t)rb->nfeat);
      for (size_t at = 0; at < row; at += 64)
        __builtin_prefetch(x + at);
      __builtin_prefetch(x + row - 1);
    }
    for (int j = 0; j < n; j++)
      dqn_replay_get_at(rb, k[j], data_states, b, i0 + j, bs, ba, br, bterm);
  }
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

static int dqn_loss_sum_(const double *terms, int b, struct dqn_clock *clk, double *acc,
                         struct fox_err *e) {
  dqn_loss_sum(terms, b, (long)clk->transitions, acc);
  clk->updates++;
  return 0;
}

static int ppo_sample_(const float *logits, int n, const struct ppo_clock *clk, int n_steps,
                       int t, uint64_t seed, uint8_t *actions, float *logp, struct fox_err *e) {
  uint64_t step = (uint64_t)clk->updates * (uint64_t)n_steps + (uint64_t)t;
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

/* v [i] = one Feistel pass of v [i]: a fixed number of rounds, so the lanes vectorise. */
FOX_CLONES static void perm_pass_(uint32_t *restrict v, uint32_t m, struct ppo_perm q) {
  for (uint32_t i = 0; i < m; i++)
    v[i] = ppo_perm_pass(v[i], q);
}

/* ppo_perm_at for every entry, walked breadth first: one pass over all entries, then passes
 * over those still outside [0, n) (about half, then a quarter...), each a loop that
 * vectorises, where entry by entry the walk's data-dependent length kept every entry scalar:
 * the same permutation in a third of the time (4% of a PPO run before). */
static int ppo_permute_(uint32_t n, uint64_t seed, const struct ppo_clock *clk, int epochs,
                        int ep, uint32_t *perm, struct fox_err *e) {
  uint64_t round = (uint64_t)clk->updates * (uint64_t)epochs + (uint64_t)ep;
  struct ppo_perm q = ppo_perm_setup(n, seed, round);
  uint32_t *at = malloc((size_t)n * 2 * sizeof *at), *walk = at + n, m = 0;
  if (!at)
    return fox_errf(e, FOX_EFAIL, "ppo: out of memory for a permutation of %u", n);
  for (uint32_t i = 0; i < n; i++)
    perm[i] = i;
  perm_pass_(perm, n, q);
  for (uint32_t i = 0; i < n; i++)
    if (perm[i] >= n)
      at[m] = i, walk[m++] = perm[i];
  while (m > 0) {
    perm_pass_(walk, m, q);
    uint32_t k = 0;
    for (uint32_t j = 0; j < m; j++)
      if (walk[j] < n)
        perm[at[j]] = walk[j];
      else
        at[k] = at[j], walk[k++] = walk[j];
    m = k;
  }
  free(at);
  return 0;
}

static int ppo_gather_(const struct rollout_dev *ro, const uint32_t *idx, int m,
                       const struct minibatch_dev *mb, double *stats, struct fox_err *e) {
  if (m <= 0)
    return fox_errf(e, FOX_EUSAGE, "ppo_gather: an empty minibatch has no statistics");
  /* Rows D ahead prefetched: the permutation sends each row to a random place of a rollout
   * larger than L2, so a row's observation and its five numbers are that many misses. */
  enum { D = 16 };
  size_t row = (size_t)ro->dim * sizeof(float);
  for (int j = 0; j < m; j++) {
    if (j + D < m) {
      size_t k = idx[j + D];
      const char *o = (const char *)(ro->obs + k * (size_t)ro->dim);
      for (size_t at = 0; at < row; at += 64)
        __builtin_prefetch(o + at);
      __builtin_prefetch(o + row - 1);
      __builtin_prefetch(&ro->actions[k]);
      __builtin_prefetch(&ro->logp[k]);
      __builtin_prefetch(&ro->values[k]);
      __builtin_prefetch(&ro->ret[k]);
      __builtin_prefetch(&ro->adv[k]);
    }
    ppo_gather_row(ro, idx, j, mb);
  }
  ppo_adv_stats(mb->adv, m, stats);
  return 0;
}

static int ppo_loss_(const struct minibatch_dev *mb, int m, const double *stats, double clip,
                     double ent_coef, double vf_coef, int vloss, double *terms,
                     struct fox_err *e) {
  for (int i = 0; i < m; i++)
    ppo_loss_item(mb, m, i, stats, clip, ent_coef, vf_coef, vloss, terms);
  return 0;
}

static int ppo_loss_sum_(const double *terms, int m, double ent_coef, double vf_coef,
                         const struct ppo_clock *clk, long rollout, double *acc,
                         struct fox_err *e) {
  ppo_loss_sum(terms, m, ent_coef, vf_coef, (long)(clk->updates + 1) * rollout, acc);
  return 0;
}

static int ppo_tick_(struct ppo_clock *clk, struct fox_err *e) {
  clk->updates++;
  return 0;
}

/* A layer of policy_unit for all its units at once: the weights transposed (wt [in, out]) so
 * that the loop runs across units, each unit's sum still in input order with no FMA
 * (-ffp-contract=off): policy_unit's floats, vectorised. */
FOX_CLONES static void layer_(const float *restrict wt, const float *restrict bias, int in,
                              int out, int act, int hidden, const float *restrict x,
                              float *restrict y) {
  for (int o = 0; o < out; o++)
    y[o] = 0.0f;
  for (int i = 0; i < in; i++) {
    const float xi = x[i], *restrict w = wt + (size_t)i * (size_t)out;
    for (int o = 0; o < out; o++)
      y[o] += w[o] * xi;
  }
  for (int o = 0; o < out; o++)
    y[o] = hidden ? fox_act(act, y[o] + bias[o]) : y[o] + bias[o];
}

static int greedy_one_(const struct device_dataset *d, const struct market_params *p,
                       const struct policy_dev *pol, int32_t b, int32_t en, uint8_t *actions,
                       struct fox_err *e) {
  int widest = FOX_STATE_DIM(p);
  size_t nw = 0;
  for (int l = 0; l < pol->n_layers; l++) {
    widest = pol->dims[l + 1] > widest ? pol->dims[l + 1] : widest;
    nw += (size_t)pol->dims[l] * (size_t)pol->dims[l + 1];
  }
  float *wt = malloc(nw * sizeof *wt), *buf = malloc(2 * (size_t)widest * sizeof *buf);
  if (!wt || !buf) {
    free(wt), free(buf);
    return fox_errf(e, FOX_EFAIL, "evaluation: out of memory for the policy's weights");
  }
  const float *lw[FOX_POLICY_MAX_LAYERS];
  float *t = wt;
  for (int l = 0; l < pol->n_layers; l++) {
    int in = pol->dims[l], out = pol->dims[l + 1];
    const float *w = pol->w + pol->offset[l];
    for (int o = 0; o < out; o++)
      for (int i = 0; i < in; i++)
        t[(size_t)i * out + o] = w[(size_t)o * in + i];
    lw[l] = t;
    t += (size_t)in * out;
  }
  struct env_state s;
  env_portfolio_reset(p, &s);
  float *x = buf, *y = buf + widest;
  for (int32_t k = b; k < en; k++) {
    env_observe(p, &s, k, d->states + (size_t)k * (size_t)p->nfeat, d->prices[4 * (size_t)k + 3],
                x);
    float *in = x, *out = y;
    for (int l = 0; l < pol->n_layers; l++) {
      const float *bias = pol->w + pol->offset[l] + (size_t)pol->dims[l] * pol->dims[l + 1];
      layer_(lw[l], bias, pol->dims[l], pol->dims[l + 1], pol->act, l < pol->n_layers - 1, in,
             out);
      float *tmp = in;
      in = out, out = tmp;
    }
    int a = policy_action(pol, in);
    actions[k - b] = (uint8_t)a;
    if (k + 1 < en)
      env_bar(p, &s, a, k + 1, d->prices + 4 * (size_t)(k + 1), d->sigma[k], k + 1 == en - 1);
  }
  free(wt), free(buf);
  return 0;
}

/* The jobs side by side on the cores (a job is a serial walk over its bars). */
static int greedy_eval_(const struct device_dataset *d, const struct eval_job *jobs, int n,
                        struct fox_err *e) {
  int rc = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : rc)
  for (int j = 0; j < n; j++) {
    struct fox_err mine = {0};
    if (greedy_one_(d, &jobs[j].p, &jobs[j].pol, jobs[j].b, jobs[j].e, jobs[j].actions, &mine))
      rc |= 1;
  }
  return rc ? fox_errf(e, FOX_EFAIL, "evaluation: out of memory for the policy's weights") : 0;
}

const struct agent_ops agent_cpu_ops = {
    explore_,     dueling_,      dueling_backward_, replay_insert_, dqn_tick_,
    replay_sample_, dqn_loss_,   dqn_loss_sum_,     ppo_sample_,    ppo_bootstrap_,
    ppo_gae_,     ppo_permute_,  ppo_gather_,       ppo_loss_,      ppo_loss_sum_,
    ppo_tick_,    greedy_eval_,
};
