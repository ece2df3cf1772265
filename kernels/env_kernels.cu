/* The market on the device, one thread per (trial, environment) or per backtest fold; each
 * kernel is an indexing wrapper around env_drive.h, exactly what the CPU loop calls.
 *   env_reset_kernel         start every environment's first episode
 *   fused_experience_kernel  state + portfolio + barrier + reward for all environments
 *   backtest_kernel          one action sequence per fold: equity, positions, labels, rewards
 *                            and the metrics accumulated in registers
 *   portfolio_sim_kernel     the same sequences: portfolio features per bar, final portfolio */
#include <stdlib.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "fox_launch.h"

__global__ void env_reset_kernel(struct market_params p, struct venv_shape shape,
                                 const float *__restrict__ prices,
                                 const float *__restrict__ norm, struct env_state *env,
                                 struct env_cursor *cur, struct reward_stats *rs,
                                 float *states) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= shape.num_envs)
    return;
  struct env_cursor c = {0, 0, 0, 0};
  struct env_state s;
  env_episode_start(&p, &shape, i, &s, &c);
  env_observe(&p, &s, c.t, norm + (size_t)c.t * (size_t)p.nfeat, prices[4 * (size_t)c.t + 3],
              states + (size_t)i * (size_t)FOX_STATE_DIM(&p));
  env[i] = s;
  cur[i] = c;
  rs[i].count = rs[i].mean = rs[i].m2 = 0.0;
}

__global__ void fused_experience_kernel(struct market_params p, struct venv_shape shape,
                                        const float *__restrict__ prices,
                                        const float *__restrict__ sigma,
                                        const float *__restrict__ norm, struct venv_bufs b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= shape.num_envs)
    return;
  venv_step_env_regs(&p, &shape, prices, sigma, norm, &b, i);
}

__global__ void backtest_kernel(struct market_params p, const float *__restrict__ prices,
                                const float *__restrict__ sigma, const int32_t *folds,
                                int nfolds, const uint8_t *__restrict__ actions, double *equity,
                                uint8_t *position, int8_t *labels, float *rewards,
                                struct metrics_acc *acc) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nfolds)
    return;
  int32_t b0 = folds[0], b = folds[2 * j], e = folds[2 * j + 1];
  size_t off = (size_t)(b - b0);
  struct seq_out o = {equity ? equity + off : NULL, position ? position + off : NULL,
                      labels ? labels + off : NULL, rewards ? rewards + off : NULL, NULL};
  struct metrics_acc a;
  env_run_sequence(&p, prices, sigma, b, e, actions + off, o, &a, NULL);
  acc[j] = a;
}

__global__ void portfolio_sim_kernel(struct market_params p, const float *__restrict__ prices,
                                     const float *__restrict__ sigma, const int32_t *folds,
                                     int nfolds, const uint8_t *__restrict__ actions, float *pf,
                                     struct env_state *final_state) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= nfolds)
    return;
  int32_t b0 = folds[0], b = folds[2 * j], e = folds[2 * j + 1];
  size_t off = (size_t)(b - b0);
  struct seq_out o = {NULL, NULL, NULL, NULL, pf + 3 * off};
  struct env_state s;
  env_run_sequence(&p, prices, sigma, b, e, actions + off, o, NULL, &s);
  final_state[j] = s;
}

static int blocks_(int n) { return (n + FOX_CUDA_BLOCK - 1) / FOX_CUDA_BLOCK; }

/* No launcher waits for the device: its kernels go to the calling thread's default stream
 * (--default-stream per-thread), so the copies that read their results, on that stream too,
 * come after them, and trials that share a device do not wait for each other's work. */

int cuda_env_reset(struct venv *v, struct fox_err *e) {
  const struct device_dataset *d = v->data;
  FOX_LAUNCH(env_reset_kernel, blocks_(v->shape.num_envs), FOX_CUDA_BLOCK, 0, 0, v->p, v->shape,
             d->prices, d->states, v->env, v->cur, v->rstats, v->states);
  cudaCheckLaunch(e);
  return 0;
}

int cuda_env_step(struct venv *v, int outputs, struct fox_err *e) {
  const struct device_dataset *d = v->data;
  FOX_LAUNCH(fused_experience_kernel, blocks_(v->shape.num_envs), FOX_CUDA_BLOCK, 0, 0, v->p,
             v->shape, d->prices, d->sigma, d->states, venv_buffers(v, outputs));
  cudaCheckLaunch(e);
  return 0;
}

/* Device buffers of one backtest call, freed together. */
struct bt_dev_ {
  int32_t *folds;
  uint8_t *actions, *position;
  double *equity;
  int8_t *labels;
  float *rewards, *pf;
  struct metrics_acc *acc;
  struct env_state *final_state;
};

static void bt_free_(struct bt_dev_ *g) {
  cudaFree(g->folds);
  cudaFree(g->actions);
  cudaFree(g->position);
  cudaFree(g->equity);
  cudaFree(g->labels);
  cudaFree(g->rewards);
  cudaFree(g->pf);
  cudaFree(g->acc);
  cudaFree(g->final_state);
}

/* Folds and actions to the device: what both sequence kernels read. */
static int bt_inputs_(const struct bt_request *rq, struct bt_dev_ *g, size_t n,
                      struct fox_err *e) {
  size_t k = (size_t)rq->nfolds;
  cudaCheck(cudaMalloc((void **)&g->folds, 2 * k * sizeof(int32_t)), e);
  cudaCheck(cudaMalloc((void **)&g->actions, n ? n : 1), e);
  cudaCheck(cudaMemcpy(g->folds, rq->folds, 2 * k * sizeof(int32_t), cudaMemcpyHostToDevice), e);
  cudaCheck(cudaMemcpy(g->actions, rq->actions, n, cudaMemcpyHostToDevice), e);
  return 0;
}

static int bt_run_(const struct device_dataset *d, const struct bt_request *rq,
                   struct bt_result *out, struct bt_dev_ *g, struct fox_err *e) {
  int k = rq->nfolds;
  size_t n = (size_t)(rq->folds[2 * k - 1] - rq->folds[0]);
  FOX_TRY(bt_inputs_(rq, g, n, e));
  cudaCheck(cudaMalloc((void **)&g->acc, (size_t)k * sizeof(struct metrics_acc)), e);
  if (out->equity)
    cudaCheck(cudaMalloc((void **)&g->equity, n * sizeof(double)), e);
  if (out->position)
    cudaCheck(cudaMalloc((void **)&g->position, n), e);
  if (out->labels)
    cudaCheck(cudaMalloc((void **)&g->labels, n), e);
  if (out->rewards)
    cudaCheck(cudaMalloc((void **)&g->rewards, n * sizeof(float)), e);
  FOX_LAUNCH(backtest_kernel, (k + 63) / 64, 64, 0, 0, rq->p, d->prices, d->sigma, g->folds, k,
             g->actions, g->equity, g->position, g->labels, g->rewards, g->acc);
  cudaCheckLaunch(e);
  if (out->acc)
    cudaCheck(cudaMemcpy(out->acc, g->acc, (size_t)k * sizeof(struct metrics_acc),
                         cudaMemcpyDeviceToHost), e);
  if (out->equity)
    cudaCheck(cudaMemcpy(out->equity, g->equity, n * sizeof(double), cudaMemcpyDeviceToHost), e);
  if (out->position)
    cudaCheck(cudaMemcpy(out->position, g->position, n, cudaMemcpyDeviceToHost), e);
  if (out->labels)
    cudaCheck(cudaMemcpy(out->labels, g->labels, n, cudaMemcpyDeviceToHost), e);
  if (out->rewards)
    cudaCheck(cudaMemcpy(out->rewards, g->rewards, n * sizeof(float), cudaMemcpyDeviceToHost), e);
  return 0;
}

int cuda_backtest(const struct device_dataset *d, const struct bt_request *rq,
                  struct bt_result *out, struct fox_err *e) {
  struct bt_dev_ g = {};
  int rc = bt_run_(d, rq, out, &g, e);
  bt_free_(&g);
  return rc;
}

static int sim_run_(const struct device_dataset *d, const struct bt_request *rq, float *pf,
                    struct env_state *final_state, struct bt_dev_ *g, struct fox_err *e) {
  int k = rq->nfolds;
  size_t n = (size_t)(rq->folds[2 * k - 1] - rq->folds[0]);
  FOX_TRY(bt_inputs_(rq, g, n, e));
  cudaCheck(cudaMalloc((void **)&g->pf, 3 * n * sizeof(float)), e);
  cudaCheck(cudaMalloc((void **)&g->final_state, (size_t)k * sizeof(struct env_state)), e);
  FOX_LAUNCH(portfolio_sim_kernel, (k + 63) / 64, 64, 0, 0, rq->p, d->prices, d->sigma, g->folds,
             k, g->actions, g->pf, g->final_state);
  cudaCheckLaunch(e);
  cudaCheck(cudaMemcpy(pf, g->pf, 3 * n * sizeof(float), cudaMemcpyDeviceToHost), e);
  if (final_state)
    cudaCheck(cudaMemcpy(final_state, g->final_state, (size_t)k * sizeof(struct env_state),
                         cudaMemcpyDeviceToHost), e);
  return 0;
}

int cuda_portfolio_sim(const struct device_dataset *d, const struct bt_request *rq, float *pf,
                       struct env_state *final_state, struct fox_err *e) {
  struct bt_dev_ g = {};
  int rc = sim_run_(d, rq, pf, final_state, &g, e);
  bt_free_(&g);
  return rc;
}
