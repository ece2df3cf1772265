/* The agents' operations on the device (src/backend/agent_ops.h): one thread per environment,
 * sample or ring entry around the step headers' item functions, which the CPU backend loops
 * over (src/backend/cpu_agents.c). The sums that must match the CPU's order (losses,
 * advantage statistics) run on one thread: they are over a minibatch, once per minibatch. Every launch goes to the calling thread's
 * default stream; nothing here waits for the device. */
#include <stdlib.h>
#include <string.h>

#include "backend/agent_ops.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "dqn_step.h"
#include "fox_launch.h"
#include "policy_step.h"
#include "ppo_step.h"

static unsigned blocks_(size_t n) { return (unsigned)((n + FOX_CUDA_BLOCK - 1) / FOX_CUDA_BLOCK); }

#define ITEM_(n)                                                                               \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                                               \
  if (i >= (n))                                                                                \
  return

__global__ void dqn_explore_kernel(const float *q, int n, const struct dqn_clock *clk,
                                   struct dqn_eps eps, uint64_t seed, uint8_t *actions) {
  ITEM_(n);
  int64_t t = clk->transitions;
  actions[i] = (uint8_t)dqn_explore_at(q + (size_t)i * FOX_NACTIONS, eps, t, seed, (uint64_t)i);
}

__global__ void dqn_dueling_kernel(const float *raw, int n, float *q) {
  ITEM_(n);
  dqn_dueling_row(raw + (size_t)i * (FOX_NACTIONS + 1), q + (size_t)i * FOX_NACTIONS);
}

__global__ void dqn_dueling_back_kernel(const float *dq, int n, float *draw) {
  ITEM_(n);
  dqn_dueling_back_row(dq + (size_t)i * FOX_NACTIONS, draw + (size_t)i * (FOX_NACTIONS + 1));
}

__global__ void replay_insert_kernel(struct replay_dev rb, const struct dqn_clock *clk, int skip,
                                     int n, const int32_t *bars, const float *s,
                                     const float *s2, const uint8_t *a, const float *r,
                                     const uint8_t *dones) {
  ITEM_(n);
  size_t pos = (size_t)clk->pos + (size_t)skip, dim = (size_t)rb.nfeat + FOX_NPORTFOLIO;
  dqn_replay_put(&rb, (pos + (size_t)i) % rb.cap, bars[i], s + (size_t)i * dim,
                 s2 + (size_t)i * dim, a[i], r[i], dones[i]);
}

__global__ void dqn_tick_kernel(struct dqn_clock *clk, int n, int64_t cap) {
  ITEM_(1);
  dqn_tick(clk, n, cap);
}

__global__ void replay_sample_kernel(struct replay_dev rb, const struct dqn_clock *clk,
                                     const float *data_states, uint64_t seed, int b, float *bs,
                                     uint8_t *ba, float *br, uint8_t *bterm) {
  ITEM_(b);
  dqn_replay_get(&rb, (size_t)clk->size, data_states, seed, (uint64_t)clk->updates, b, i, bs,
                 ba, br, bterm);
}

__global__ void dqn_loss_kernel(const float *q_target, const float *q_next_online,
                                const float *q, const uint8_t *a, const float *r,
                                const uint8_t *term, double gamma, int b, float *dq,
                                double *terms) {
  ITEM_(b);
  size_t k = (size_t)i * FOX_NACTIONS;
  terms[i] = dqn_loss_item(q_target + k, q_next_online ? q_next_online + k : NULL, q + k, a[i],
                           r[i], term[i], gamma, b, dq + k);
}

/* The update's loss, then the clock counts the update (one thread: it runs after every
 * thread of the batch has read the clock). */
__global__ void dqn_loss_sum_kernel(const double *terms, int b, struct dqn_clock *clk,
                                    double *acc) {
  ITEM_(1);
  dqn_loss_sum(terms, b, (long)clk->transitions, acc);
  clk->updates++;
}

__global__ void ppo_sample_kernel(const float *logits, int n, const struct ppo_clock *clk,
                                  int n_steps, int t, uint64_t seed, uint8_t *actions,
                                  float *logp) {
  ITEM_(n);
  uint64_t step = (uint64_t)clk->updates * (uint64_t)n_steps + (uint64_t)t;
  actions[i] = (uint8_t)ppo_sample(logits + 3 * (size_t)i, seed, step, (uint64_t)i, &logp[i]);
}

__global__ void ppo_bootstrap_kernel(int n, const float *r, const uint8_t *d,
                                     const float *v_next, double gamma, float *r_out,
                                     uint8_t *d_out) {
  ITEM_(n);
  r_out[i] = ppo_bootstrap_reward(r[i], d[i], v_next[i], gamma);
  d_out[i] = d[i];
}

__global__ void ppo_gae_kernel(int T, int N, struct rollout_dev ro, const float *last_values,
                               double gamma, double lambda) {
  ITEM_(N);
  ppo_gae_env(T, N, i, ro.rewards, ro.values, ro.dones, last_values[i], gamma, lambda, ro.adv,
              ro.ret);
}

__global__ void ppo_permute_kernel(uint32_t n, uint64_t seed, const struct ppo_clock *clk,
                                   int epochs, int ep, uint32_t *perm) {
  ITEM_((int)n);
  uint64_t round = (uint64_t)clk->updates * (uint64_t)epochs + (uint64_t)ep;
  perm[i] = ppo_perm_at((uint32_t)i, n, seed, round);
}

__global__ void ppo_gather_kernel(struct rollout_dev ro, const uint32_t *idx, int m,
                                  struct minibatch_dev mb) {
  ITEM_(m);
  ppo_gather_row(&ro, idx, i, &mb);
}

__global__ void ppo_adv_stats_kernel(const float *adv, int m, double *stats) {
  ITEM_(1);
  ppo_adv_stats(adv, m, stats);
}

__global__ void ppo_loss_kernel(struct minibatch_dev mb, int m, const double *stats,
                                double clip, double ent_coef, double vf_coef, int vloss,
                                double *terms) {
  ITEM_(m);
  ppo_loss_item(&mb, m, i, stats, clip, ent_coef, vf_coef, vloss, terms);
}

__global__ void ppo_loss_sum_kernel(const double *terms, int m, double ent_coef, double vf_coef,
                                    const struct ppo_clock *clk, long rollout, double *acc) {
  ITEM_(1);
  ppo_loss_sum(terms, m, ent_coef, vf_coef, (long)(clk->updates + 1) * rollout, acc);
}

__global__ void ppo_tick_kernel(struct ppo_clock *clk) {
  ITEM_(1);
  clk->updates++;
}

/* The greedy policy of job blockIdx.x over its bars [b, e): one block a job; thread 0 keeps
 * the portfolio and builds each bar's state, the block's threads share each layer's units
 * (policy_unit), thread 0 picks the action and steps the portfolio. x [state] and two layer
 * buffers [widest] a job are device scratch (global memory is visible to the whole block
 * after __syncthreads); its actions go to actions + at[job]. */
__global__ void greedy_eval_kernel(const float *__restrict__ prices,
                                   const float *__restrict__ sigma,
                                   const float *__restrict__ norm, const struct eval_job *jobs,
                                   const size_t *at, int widest, float *scratch,
                                   uint8_t *actions) {
  int tid = threadIdx.x, nt = blockDim.x;
  const struct eval_job *job = &jobs[blockIdx.x];
  const struct market_params *p = &job->p;
  const struct policy_dev *pol = &job->pol;
  int32_t b = job->b, e = job->e;
  uint8_t *act = actions + at[blockIdx.x];
  struct env_state s; /* thread 0's is the portfolio */
  env_portfolio_reset(p, &s);
  float *x = scratch + 2 * (size_t)widest * blockIdx.x, *y = x + widest;
  for (int32_t k = b; k < e; k++) {
    if (tid == 0)
      env_observe(p, &s, k, norm + (size_t)k * (size_t)p->nfeat, prices[4 * (size_t)k + 3], x);
    __syncthreads();
    float *in = x, *out = y;
    for (int l = 0; l < pol->n_layers; l++) {
      for (int o = tid; o < pol->dims[l + 1]; o += nt)
        out[o] = policy_unit(pol, l, o, in);
      __syncthreads();
      float *t = in;
      in = out, out = t;
    }
    if (tid == 0) {
      int a = policy_action(pol, in);
      act[k - b] = (uint8_t)a;
      if (k + 1 < e)
        env_bar(p, &s, a, k + 1, prices + 4 * (size_t)(k + 1), sigma[k], k + 1 == e - 1);
    }
    __syncthreads(); /* the head's outputs are read before the next bar overwrites them */
  }
}

/* No items, nothing to do (a grid of 0 blocks is a launch error on a device, and the CPU
 * loops simply run 0 times). */
#define LAUNCH_(kernel, n, ...)                                                                \
  do {                                                                                         \
    if ((n) <= 0)                                                                              \
      return 0;                                                                                \
    FOX_LAUNCH(kernel, blocks_((size_t)(n)), FOX_CUDA_BLOCK, 0, 0, __VA_ARGS__);               \
    cudaCheckLaunch(e);                                                                        \
    return 0;                                                                                  \
  } while (0)

/* The serial reductions: one block of one thread. */
#define LAUNCH1_(kernel, ...)                                                                  \
  do {                                                                                         \
    FOX_LAUNCH(kernel, 1, 1, 0, 0, __VA_ARGS__);                                               \
    cudaCheckLaunch(e);                                                                        \
    return 0;                                                                                  \
  } while (0)

static int explore_(const float *q, int n, const struct dqn_clock *clk,
                    const struct dqn_eps *eps, uint64_t seed, uint8_t *actions,
                    struct fox_err *e) {
  LAUNCH_(dqn_explore_kernel, n, q, n, clk, *eps, seed, actions);
}

static int dueling_(const float *raw, int n, float *q, struct fox_err *e) {
  LAUNCH_(dqn_dueling_kernel, n, raw, n, q);
}

static int dueling_backward_(const float *dq, int n, float *draw, struct fox_err *e) {
  LAUNCH_(dqn_dueling_back_kernel, n, dq, n, draw);
}

static int replay_insert_(const struct replay_dev *rb, const struct dqn_clock *clk, int skip,
                          int n, const int32_t *bars, const float *s, const float *s2,
                          const uint8_t *a, const float *r, const uint8_t *dones,
                          struct fox_err *e) {
  LAUNCH_(replay_insert_kernel, n, *rb, clk, skip, n, bars, s, s2, a, r, dones);
}

static int dqn_tick_(struct dqn_clock *clk, int n, int64_t cap, struct fox_err *e) {
  LAUNCH1_(dqn_tick_kernel, clk, n, cap);
}

static int replay_sample_(const struct replay_dev *rb, const struct dqn_clock *clk,
                          const float *data_states, uint64_t seed, int b, float *bs, uint8_t *ba,
                          float *br, uint8_t *bterm, struct fox_err *e) {
  LAUNCH_(replay_sample_kernel, b, *rb, clk, data_states, seed, b, bs, ba, br, bterm);
}

static int dqn_loss_(const float *q_target, const float *q_next_online, const float *q,
                     const uint8_t *a, const float *r, const uint8_t *term, double gamma, int b,
                     float *dq, double *terms, struct fox_err *e) {
  LAUNCH_(dqn_loss_kernel, b, q_target, q_next_online, q, a, r, term, gamma, b, dq, terms);
}

static int dqn_loss_sum_(const double *terms, int b, struct dqn_clock *clk, double *acc,
                         struct fox_err *e) {
  LAUNCH1_(dqn_loss_sum_kernel, terms, b, clk, acc);
}

static int ppo_sample_(const float *logits, int n, const struct ppo_clock *clk, int n_steps,
                       int t, uint64_t seed, uint8_t *actions, float *logp, struct fox_err *e) {
  LAUNCH_(ppo_sample_kernel, n, logits, n, clk, n_steps, t, seed, actions, logp);
}

static int ppo_bootstrap_(int n, const float *r, const uint8_t *d, const float *v_next,
                          double gamma, float *r_out, uint8_t *d_out, struct fox_err *e) {
  LAUNCH_(ppo_bootstrap_kernel, n, n, r, d, v_next, gamma, r_out, d_out);
}

static int ppo_gae_(int T, int N, const struct rollout_dev *ro, const float *last_values,
                    double gamma, double lambda, struct fox_err *e) {
  LAUNCH_(ppo_gae_kernel, N, T, N, *ro, last_values, gamma, lambda);
}

static int ppo_permute_(uint32_t n, uint64_t seed, const struct ppo_clock *clk, int epochs,
                        int ep, uint32_t *perm, struct fox_err *e) {
  LAUNCH_(ppo_permute_kernel, n, n, seed, clk, epochs, ep, perm);
}

static int ppo_gather_(const struct rollout_dev *ro, const uint32_t *idx, int m,
                       const struct minibatch_dev *mb, double *stats, struct fox_err *e) {
  if (m <= 0)
    return fox_errf(e, FOX_EUSAGE, "ppo_gather: an empty minibatch has no statistics");
  FOX_LAUNCH(ppo_gather_kernel, blocks_((size_t)m), FOX_CUDA_BLOCK, 0, 0, *ro, idx, m, *mb);
  cudaCheckLaunch(e);
  LAUNCH1_(ppo_adv_stats_kernel, mb->adv, m, stats);
}

static int ppo_loss_(const struct minibatch_dev *mb, int m, const double *stats, double clip,
                     double ent_coef, double vf_coef, int vloss, double *terms,
                     struct fox_err *e) {
  LAUNCH_(ppo_loss_kernel, m, *mb, m, stats, clip, ent_coef, vf_coef, vloss, terms);
}

static int ppo_loss_sum_(const double *terms, int m, double ent_coef, double vf_coef,
                         const struct ppo_clock *clk, long rollout, double *acc,
                         struct fox_err *e) {
  LAUNCH1_(ppo_loss_sum_kernel, terms, m, ent_coef, vf_coef, clk, rollout, acc);
}

static int ppo_tick_(struct ppo_clock *clk, struct fox_err *e) { LAUNCH1_(ppo_tick_kernel, clk); }

/* The emulation runs a synchronising block's threads as host threads meeting at a barrier
 * four times a bar: a few of them exercise the sharing of units without a context switch per
 * unit. */
#ifdef FOX_CUDA_EMU
#define EVAL_THREADS_ 4
#else
#define EVAL_THREADS_ 256
#endif

/* The device side of a batch: the jobs (their policies' weights are where the agents keep
 * them), each one's place in the actions, the scratch. */
struct eval_dev_ {
  struct eval_job *jobs;
  size_t *at;
  float *scratch;
  uint8_t *actions;
};

static int greedy_eval_run_(const struct device_dataset *d, const struct eval_job *jobs, int n,
                            const size_t *at, struct eval_dev_ *g, struct fox_err *e) {
  int widest = 1; /* the state (a policy's inputs) and every layer's outputs */
  for (int j = 0; j < n; j++)
    for (int l = 0; l <= jobs[j].pol.n_layers; l++)
      widest = jobs[j].pol.dims[l] > widest ? jobs[j].pol.dims[l] : widest;
  size_t total = at[n];
  cudaCheck(cudaMalloc((void **)&g->jobs, (size_t)n * sizeof *jobs), e);
  cudaCheck(cudaMalloc((void **)&g->at, (size_t)n * sizeof *at), e);
  cudaCheck(cudaMalloc((void **)&g->scratch, 2 * (size_t)widest * (size_t)n * sizeof(float)),
            e);
  cudaCheck(cudaMalloc((void **)&g->actions, total ? total : 1), e);
  cudaCheck(cudaMemcpy(g->jobs, jobs, (size_t)n * sizeof *jobs, cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(g->at, at, (size_t)n * sizeof *at, cudaMemcpyHostToDevice), e);
  /* A warp per 32 units of the widest layer, at most 256 threads: a bar's work is a few
   * thousand multiply-adds, and every layer ends at a barrier. */
  int threads = (widest + 31) / 32 * 32;
  threads = threads > EVAL_THREADS_ ? EVAL_THREADS_ : threads;
  for (int j = 0; j < n; j++) /* the policies' weights, through the jobs' table */
    FOX_LAUNCH_TOUCH(jobs[j].pol.w, 0, "a policy's weights (an evaluation job's)");
  FOX_LAUNCH_SYNC(greedy_eval_kernel, n, threads, 0, 0, d->prices, d->sigma, d->states, g->jobs,
                  g->at, widest, g->scratch, g->actions);
  cudaCheckLaunch(e);
  uint8_t *host = (uint8_t *)malloc(total ? total : 1);
  if (!host)
    return fox_errf(e, FOX_EFAIL, "evaluation: out of memory for %zu actions", total);
  cudaError_t rc = cudaMemcpy(host, g->actions, total, cudaMemcpyDeviceToHost);
  for (int j = 0; rc == cudaSuccess && j < n; j++)
    memcpy(jobs[j].actions, host + at[j], at[j + 1] - at[j]);
  free(host);
  cudaCheck(rc, e);
  return 0;
}

/* Every job in one launch, a block each, and one copy of all their actions. */
static int greedy_eval_(const struct device_dataset *d, const struct eval_job *jobs, int n,
                        struct fox_err *e) {
  if (n <= 0)
    return 0;
  size_t *at = (size_t *)malloc(((size_t)n + 1) * sizeof *at);
  if (!at)
    return fox_errf(e, FOX_EFAIL, "evaluation: out of memory");
  at[0] = 0;
  for (int j = 0; j < n; j++) {
    if (jobs[j].e <= jobs[j].b) {
      free(at);
      return fox_errf(e, FOX_EUSAGE, "evaluation: job %d has bars [%d, %d)", j, jobs[j].b,
                      jobs[j].e);
    }
    at[j + 1] = at[j] + (size_t)(jobs[j].e - jobs[j].b);
  }
  struct eval_dev_ g = {};
  int rc = greedy_eval_run_(d, jobs, n, at, &g, e);
  cudaFree(g.jobs);
  cudaFree(g.at);
  cudaFree(g.scratch);
  cudaFree(g.actions);
  free(at);
  return rc;
}

extern "C" const struct agent_ops agent_cuda_ops = {
    explore_,     dueling_,      dueling_backward_, replay_insert_, dqn_tick_,
    replay_sample_, dqn_loss_,   dqn_loss_sum_,     ppo_sample_,    ppo_bootstrap_,
    ppo_gae_,     ppo_permute_,  ppo_gather_,       ppo_loss_,      ppo_loss_sum_,
    ppo_tick_,    greedy_eval_,
};
