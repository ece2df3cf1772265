/* The population tables' device arrays (pop_kernels.h) and the CUDA backend's population
 * operations (src/backend/pop_ops.h), which kernels/pop_dqn.cu and pop_ppo.cu implement. */
#include <stdlib.h>
#include <string.h>

#include "backend/counters.h"
#include "backend/pop_ops.h"
#include "cuda_check.h"
#include "pop_kernels.h"

int pop_table_put(struct pop_table *t, void *host, size_t entry, int n, int per, size_t done_at,
                  struct fox_err *e) {
  size_t counters = (size_t)n * (size_t)per * sizeof *t->done;
  cudaCheck(cudaMalloc(&t->dev, (size_t)n * entry), e);
  counters_alloc_ptr(t->dev, (size_t)n * entry);
  cudaCheck(cudaMalloc((void **)&t->done, counters), e);
  counters_alloc_ptr(t->done, counters);
  cudaCheck(cudaMemset(t->done, 0, counters), e);
  for (int k = 0; k < n; k++) {
    unsigned *d = t->done + (size_t)k * (size_t)per;
    memcpy((char *)host + (size_t)k * entry + done_at, &d, sizeof d);
  }
  cudaCheck(cudaMemcpy(t->dev, host, (size_t)n * entry, cudaMemcpyHostToDevice), e);
  return pop_table_touch_add(t, t->done, 1, "the population's counters", e);
}

int pop_table_touch_add(struct pop_table *t, const void *p, int write, const char *what,
                        struct fox_err *e) {
  if (!p)
    return 0;
  if (t->ntouch == t->cap_touch) {
    int cap = t->cap_touch ? 2 * t->cap_touch : 64;
    struct pop_touch *grown = (struct pop_touch *)realloc(t->touch, (size_t)cap * sizeof *grown);
    if (!grown)
      return fox_errf(e, FOX_EFAIL, "population: out of memory");
    t->touch = grown, t->cap_touch = cap;
  }
  t->touch[t->ntouch++] = (struct pop_touch){p, write, what};
  return 0;
}

int pop_table_flip(const struct pop_table *t, const float *states, struct fox_err *e) {
  if (states == t->states0[0] || states == t->states0[1])
    return states == t->states0[1];
  fox_errf(e, FOX_EFAIL, "population: the first member's states are not its table's");
  return -1;
}

void pop_table_close(void *table) {
  struct pop_table *t = (struct pop_table *)table;
  if (!t)
    return;
  if (t->dev || t->envs) /* queued steps (a graph's) may still read it */
    cudaStreamSynchronize(cudaStreamPerThread);
  if (t->dev) {
    counters_release_ptr(t->dev);
    cudaFree(t->dev);
  }
  if (t->done) {
    counters_release_ptr(t->done);
    cudaFree(t->done);
  }
  if (t->envs) {
    counters_release_ptr(t->envs);
    cudaFree(t->envs);
  }
  free(t->touch);
  free(t);
}

extern "C" const struct pop_ops pop_cuda_ops = {
    pop_dqn_open,    pop_dqn_act,    pop_dqn_store, pop_dqn_update,  pop_ppo_open,
    pop_ppo_act,     pop_ppo_observe, pop_ppo_update, pop_env_step, pop_table_close,
};
