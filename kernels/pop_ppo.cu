/* A population's PPO acting on the device (src/backend/pop_ops.h): every member's vector step
 * of acting (the actor and the critic on the states, a sampled action, the rollout's row) and
 * of observing (the critic on the next states, the bootstrapped rewards) in hidden layers + 1
 * launches each, however many members; the update stays each member's own (a rollout's worth
 * of steps apart, it is a small part of the launches). One thread an output element, its terms
 * summed in order (pop_kernels.h): a member's floats are those of its step alone. The
 * per-element arithmetic is ppo_step.h's and act_step.h's. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "act_step.h"
#include "agents/ppo.h"
#include "backend/pop_ops.h"
#include "cuda_check.h"
#include "dqn_step.h"
#include "env/venv.h"
#include "fox_launch.h"
#include "mlp_cuda.h"
#include "pop_kernels.h"
#include "ppo_step.h"

/* What every member shares: the actor's layers (the critic's are the same but its head of 1),
 * the environments, the rollout's length. */
struct pppo_shape {
  int n, L, act, N, n_steps;
  int dims[FOX_MLP_CUDA_MAX + 1];
  size_t off[FOX_MLP_CUDA_MAX]; /* the same for both networks: their heads are last */
};

struct pppo_member {
  const float *w[2]; /* actor, critic */
  float *act[2][FOX_MLP_CUDA_MAX + 1];
  const float *states[2]; /* pop_table.states0's twins */
  const float *next_states, *rewards;
  const uint8_t *dones;
  uint8_t *actions;
  struct rollout_dev ro;
  const struct ppo_clock *clk;
  uint64_t seed;
  double gamma;
  unsigned *done; /* unused: no counters */
};

struct pppo_table {
  struct pop_table hdr; /* dev: struct pppo_member [n] */
  struct pppo_shape sh;
};

#define TAB_(t) ((const struct pppo_member *)(t)->hdr.dev)

/* Hidden layer l < L - 1: unit j of environment i's row, of the actor and the critic (nets 2)
 * or the critic alone (nets 1), from the states acted on (src 0: buffer flip) or the next
 * states (src 1) or the layer below. */
__global__ void pppo_forward_kernel(const struct pppo_member *tab, struct pppo_shape sh, int l,
                                    int nets, int src, int flip) {
  int in = sh.dims[l], o = sh.dims[l + 1];
  size_t per = (size_t)nets * sh.N * o;
  POP_THREAD_((size_t)sh.n * per);
  const struct pppo_member *p = &tab[idx / per];
  size_t r = idx % per;
  int net = nets == 2 ? (int)(r / ((size_t)sh.N * o)) : 1;
  int j = (int)(r % ((size_t)sh.N * o) / sh.N), i = (int)(r % sh.N);
  const float *W = p->w[net] + sh.off[l], *wj = W + (size_t)j * in;
  /* The states row-major (as the environments give them), the activations feature-major. */
  const float *x = src ? p->next_states : p->states[flip];
  float s = l > 0 ? pop_dot(wj, p->act[net][l] + i, (size_t)sh.N, in)
                  : pop_dot(wj, x + (size_t)i * in, 1, in);
  p->act[net][l + 1][(size_t)j * sh.N + i] = fox_act(sh.act, s + W[(size_t)o * in + j]);
}

/* Acting, environment i of every member at rollout step t: the actor's logits, an action
 * drawn at the run's vector step (ppo_sample, as ppo_sample_kernel), the critic's value, the
 * states into the rollout's row, the action to the environments. */
__global__ void pppo_act_head_kernel(const struct pppo_member *tab, struct pppo_shape sh,
                                     int flip, int t) {
  POP_THREAD_((size_t)sh.n * sh.N);
  const struct pppo_member *p = &tab[idx / sh.N];
  int i = (int)(idx % sh.N), L = sh.L, in = sh.dims[L - 1];
  size_t k = (size_t)t * sh.N + (size_t)i;
  float logits[3], v;
  pop_head(p->w[0] + sh.off[L - 1], p->act[0][L - 1] + i, (size_t)sh.N, in, 3, logits);
  pop_head(p->w[1] + sh.off[L - 1], p->act[1][L - 1] + i, (size_t)sh.N, in, 1, &v);
  uint64_t step = (uint64_t)p->clk->updates * (uint64_t)sh.n_steps + (uint64_t)t;
  uint8_t a = (uint8_t)ppo_sample(logits, p->seed, step, (uint64_t)i, &p->ro.logp[k]);
  p->ro.actions[k] = a;
  p->actions[i] = a;
  p->ro.values[k] = v;
  const float *s = p->states[flip] + (size_t)i * FOX_STATE_DIM;
  for (int f = 0; f < FOX_STATE_DIM; f++)
    p->ro.obs[k * FOX_STATE_DIM + (size_t)f] = s[f];
}

/* Observing, environment i of every member at rollout step t: V of the next state, the reward
 * with a truncation's future bootstrapped (ppo_bootstrap_reward) and the done flag into the
 * rollout. */
__global__ void pppo_observe_head_kernel(const struct pppo_member *tab, struct pppo_shape sh,
                                         int t) {
  POP_THREAD_((size_t)sh.n * sh.N);
  const struct pppo_member *p = &tab[idx / sh.N];
  int i = (int)(idx % sh.N), L = sh.L, in = sh.dims[L - 1];
  size_t k = (size_t)t * sh.N + (size_t)i;
  float v;
  pop_head(p->w[1] + sh.off[L - 1], p->act[1][L - 1] + i, (size_t)sh.N, in, 1, &v);
  p->ro.rewards[k] = ppo_bootstrap_reward(p->rewards[i], p->dones[i], v, p->gamma);
  p->ro.dones[k] = p->dones[i];
}

int pop_ppo_act(void *table, const float *states, int t, struct fox_err *e) {
  struct pppo_table *tb = (struct pppo_table *)table;
  const struct pppo_shape *sh = &tb->sh;
  int flip = pop_table_flip(&tb->hdr, states, e);
  if (flip < 0)
    return e->code;
  for (int l = 0; l < sh->L - 1; l++) {
    FOX_LAUNCH(pppo_forward_kernel, pop_grid((size_t)sh->n * 2 * sh->N * sh->dims[l + 1]),
               FOX_CUDA_BLOCK, 0, 0, TAB_(tb), *sh, l, 2, 0, flip);
    cudaCheckLaunch(e);
  }
  FOX_LAUNCH(pppo_act_head_kernel, pop_grid((size_t)sh->n * sh->N), FOX_CUDA_BLOCK, 0, 0,
             TAB_(tb), *sh, flip, t);
  cudaCheckLaunch(e);
  return 0;
}

int pop_ppo_observe(void *table, int t, struct fox_err *e) {
  struct pppo_table *tb = (struct pppo_table *)table;
  const struct pppo_shape *sh = &tb->sh;
  for (int l = 0; l < sh->L - 1; l++) {
    FOX_LAUNCH(pppo_forward_kernel, pop_grid((size_t)sh->n * sh->N * sh->dims[l + 1]),
               FOX_CUDA_BLOCK, 0, 0, TAB_(tb), *sh, l, 1, 1, 0);
    cudaCheckLaunch(e);
  }
  FOX_LAUNCH(pppo_observe_head_kernel, pop_grid((size_t)sh->n * sh->N), FOX_CUDA_BLOCK, 0, 0,
             TAB_(tb), *sh, t);
  cudaCheckLaunch(e);
  return 0;
}

static int open_(struct ppo *const *members, struct venv *const *envs, int n,
                 struct pppo_table *t, struct fox_err *e) {
  struct pppo_shape *sh = &t->sh;
  const struct mlp_cuda *a0 = cuda_net_mlp(&members[0]->actor);
  sh->n = n;
  sh->L = a0->n_layers;
  sh->act = a0->activation;
  sh->N = members[0]->n_envs;
  sh->n_steps = members[0]->cfg.n_steps;
  memcpy(sh->dims, a0->dims, sizeof sh->dims);
  memcpy(sh->off, a0->offset, sizeof sh->off);
  if (sh->L < 2)
    return fox_errf(e, FOX_EUSAGE, "population: a PPO agent without hidden layers");
  t->hdr.states0[0] = envs[0]->states, t->hdr.states0[1] = envs[0]->states_prev;
  struct pppo_member *host = (struct pppo_member *)calloc((size_t)n, sizeof *host);
  if (!host)
    return fox_errf(e, FOX_EFAIL, "population: out of memory");
  for (int k = 0; k < n; k++) {
    struct ppo *q = members[k];
    const struct venv *v = envs[k];
    struct mlp_cuda *m[2] = {cuda_net_mlp(&q->actor), cuda_net_mlp(&q->critic)};
    int same = m[0]->n_layers == sh->L && m[1]->n_layers == sh->L && q->n_envs == sh->N &&
               v->shape.num_envs == sh->N && q->cfg.n_steps == sh->n_steps &&
               m[0]->activation == sh->act && m[1]->activation == sh->act &&
               m[0]->dims[sh->L] == 3 && m[1]->dims[sh->L] == 1;
    for (int l = 0; same && l < sh->L; l++)
      same = m[0]->dims[l] == sh->dims[l] && m[1]->dims[l] == sh->dims[l];
    if (!same) {
      free(host);
      return fox_errf(e, FOX_EUSAGE, "population: member %d's networks differ from member 0's",
                      k);
    }
    struct pppo_member *p = &host[k];
    for (int j = 0; j < 2; j++) {
      p->w[j] = m[j]->w;
      for (int l = 0; l <= FOX_MLP_CUDA_MAX; l++)
        p->act[j][l] = m[j]->act[l];
    }
    p->states[0] = v->states, p->states[1] = v->states_prev;
    p->next_states = v->next_states, p->rewards = v->rewards, p->dones = v->dones;
    p->actions = v->actions;
    p->ro = q->ro;
    p->clk = q->clk;
    p->seed = q->seed;
    p->gamma = q->cfg.gamma;
  }
  int rc = pop_table_put(&t->hdr, host, sizeof *host, n, 1,
                         offsetof(struct pppo_member, done), e);
  if (rc == 0)
    rc = pop_env_put(&t->hdr, envs, n, e);
  free(host);
  return rc;
}

int pop_ppo_open(struct ppo *const *members, struct venv *const *envs, int n, void **table,
                 struct fox_err *e) {
  *table = NULL;
  if (n < 1)
    return fox_errf(e, FOX_EUSAGE, "population: no members");
  struct pppo_table *t = (struct pppo_table *)calloc(1, sizeof *t);
  if (!t)
    return fox_errf(e, FOX_EFAIL, "population: out of memory");
  int rc = open_(members, envs, n, t, e);
  if (rc != 0) {
    pop_table_close(t);
    return rc;
  }
  *table = t;
  return 0;
}
