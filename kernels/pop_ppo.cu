/* A population's PPO on the device (src/backend/pop_ops.h): every member's vector step of
 * acting (the actor and the critic on the states, a sampled action, the rollout's row) and of
 * observing (the critic on the next states, the bootstrapped rewards) in hidden layers + 1
 * launches each, and every member's update in hidden layers + 1 launches (V of the last
 * states and GAE) and 2 x hidden layers + 4 a minibatch (forwards of both networks, the
 * first gathering its rows from the rollout at the permutation's entries; the advantages'
 * statistics; the heads, the loss and the last hidden layer's deltas; backward; the lanes of
 * the clip over both networks, whose last thread sums the loss and prepares Adam; Adam),
 * however many members. Each output is one thread's sum of its terms in order, a register
 * tile of outputs a thread (pop_kernels.h): a member's floats are those of its step alone.
 * The per-element arithmetic is ppo_step.h's, act_step.h's and opt_step.h's. */
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
 * the environments, the rollout's length, the update's epochs and minibatch. */
struct pppo_shape {
  int n, L, act, N, n_steps;
  int dims[FOX_MLP_CUDA_MAX + 1];
  size_t off[FOX_MLP_CUDA_MAX]; /* the same for both networks: their heads are last */
  size_t np[2];                 /* parameters of the actor, the critic */
  int m, epochs;                /* minibatch rows; epochs of an update */
};

struct pppo_member {
  float *w[2]; /* actor, critic */
  float *g[2], *am[2], *av[2];
  struct opt_state *st[2];
  float *act[2][FOX_MLP_CUDA_MAX + 1], *delta[2][2];
  const float *states[2]; /* pop_table.states0's twins */
  const float *next_states, *rewards;
  const uint8_t *dones;
  uint8_t *actions;
  struct rollout_dev ro;
  struct minibatch_dev mb;
  struct ppo_clock *clk;
  double *terms, *stats, *lanes, *acc;
  float *coef;
  uint64_t seed;
  double gamma, lambda, clip, ent_coef, vf_coef, max_norm;
  int vloss; /* ppo.value_loss, FOX_VLOSS_* */
  struct opt_lr lr;
  unsigned *done; /* [1]: the clip's lanes finished this minibatch (reset by the last) */
};

struct pppo_table {
  struct pop_table hdr; /* dev: struct pppo_member [n]; done [n] */
  struct pppo_shape sh;
};

#define TAB_(t) ((const struct pppo_member *)(t)->hdr.dev)

/* Hidden layer l < L - 1, a tile of environments' rows x units a thread (pop_span_at), of the
 * actor and the critic (nets 2, each in tiles of its own) or the critic alone (nets 1), from
 * the states acted on (src 0: buffer flip) or the next states (src 1), row-major as the
 * environments give them, or the layer below (feature-major). */
__global__ void pppo_forward_kernel(const struct pppo_member *tab, struct pppo_shape sh, int l,
                                    int nets, int src, int flip) {
  int in = sh.dims[l], o = sh.dims[l + 1];
  size_t one = pop_span_threads(sh.N, o), per = (size_t)nets * one;
  POP_THREAD_((size_t)sh.n * per);
  const struct pppo_member *p = &tab[idx / per];
  size_t r = idx % per;
  int net = nets == 2 ? (int)(r / one) : 1;
  struct pop_span f = pop_span_at(r % one, sh.N, o);
  const float *W = p->w[net] + sh.off[l], *x[POP_TILE];
  const float *st = src ? p->next_states : p->states[flip];
  for (int q = 0; q < POP_TILE; q++)
    x[q] = l > 0 ? p->act[net][l] + f.r[q] : st + (size_t)f.r[q] * in;
  float s[POP_TILE][POP_TILE] = {{0.0f}};
  pop_fwd_sum(&f, W, in, x, l > 0 ? (size_t)sh.N : 1, s);
  pop_fwd_put(&f, W, in, sh.act, s, p->act[net][l + 1], (size_t)sh.N);
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
  size_t dim = (size_t)sh.dims[0]; /* the state */
  const float *s = p->states[flip] + (size_t)i * dim;
  for (size_t f = 0; f < dim; f++)
    p->ro.obs[k * dim + f] = s[f];
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

/* The update's first launch after V of the last states (pppo_forward_kernel on the critic):
 * environment i of every member, its value from the critic's head, then GAE over its T steps
 * (ppo_gae_env, as ppo_gae_kernel). */
__global__ void pppo_gae_kernel(const struct pppo_member *tab, struct pppo_shape sh) {
  POP_THREAD_((size_t)sh.n * sh.N);
  const struct pppo_member *p = &tab[idx / sh.N];
  int i = (int)(idx % sh.N), L = sh.L, in = sh.dims[L - 1];
  float v;
  pop_head(p->w[1] + sh.off[L - 1], p->act[1][L - 1] + i, (size_t)sh.N, in, 1, &v);
  ppo_gae_env(sh.n_steps, sh.N, i, p->ro.rewards, p->ro.values, p->ro.dones, v, p->gamma,
              p->lambda, p->ro.adv, p->ro.ret);
}

/* A minibatch's hidden layer l of both networks, a tile of rows x units a thread (each
 * network in tiles of its own), activations feature-major with stride m. Layer 0 reads
 * rollout row k, the permutation's entry `start + r` of epoch `ep` (ppo_perm_at, as
 * ppo_permute_kernel: each entry is independent), and the actor's threads of unit 0 gather
 * their rows into the minibatch (ppo_gather_at), which the statistics, the loss and layer 0's
 * gradients read. */
__global__ void pppo_mb_forward_kernel(const struct pppo_member *tab, struct pppo_shape sh,
                                       int l, int start, int ep) {
  int in = sh.dims[l], o = sh.dims[l + 1], m = sh.m;
  size_t one = pop_span_threads(m, o), per = 2 * one;
  POP_THREAD_((size_t)sh.n * per);
  const struct pppo_member *p = &tab[idx / per];
  size_t r = idx % per;
  int net = (int)(r / one);
  struct pop_span f = pop_span_at(r % one, m, o);
  const float *W = p->w[net] + sh.off[l], *x[POP_TILE];
  if (l == 0) {
    uint32_t n = (uint32_t)sh.n_steps * (uint32_t)sh.N;
    uint64_t round = (uint64_t)p->clk->updates * (uint64_t)sh.epochs + (uint64_t)ep;
    for (int q = 0; q < POP_TILE; q++) {
      size_t k = ppo_perm_at((uint32_t)(start + f.r[q]), n, p->seed, round);
      x[q] = p->ro.obs + k * (size_t)in;
      if (net == 0 && f.j0 == 0 && pop_span_own(&f, q, 0)) /* once a row */
        ppo_gather_at(&p->ro, k, f.r[q], &p->mb);
    }
  } else {
    for (int q = 0; q < POP_TILE; q++)
      x[q] = p->act[net][l] + f.r[q];
  }
  float s[POP_TILE][POP_TILE] = {{0.0f}};
  pop_fwd_sum(&f, W, in, x, l == 0 ? 1 : (size_t)m, s);
  pop_fwd_put(&f, W, in, sh.act, s, p->act[net][l + 1], (size_t)m);
}

/* The minibatch's advantages' mean and std, one thread a member (ppo_adv_stats, in order). */
__global__ void pppo_stats_kernel(const struct pppo_member *tab, struct pppo_shape sh) {
  POP_THREAD_((size_t)sh.n);
  const struct pppo_member *p = &tab[idx];
  ppo_adv_stats(p->mb.adv, sh.m, p->stats);
}

/* Row i of every member's minibatch: the actor's logits and the critic's value from their
 * heads, the loss's terms and gradients (ppo_loss_row) into the minibatch, and each network's
 * last hidden layer's delta. */
__global__ void pppo_head_loss_kernel(const struct pppo_member *tab, struct pppo_shape sh) {
  POP_THREAD_((size_t)sh.n * sh.m);
  const struct pppo_member *p = &tab[idx / sh.m];
  int i = (int)(idx % sh.m), L = sh.L, in = sh.dims[L - 1];
  size_t m = (size_t)sh.m;
  float z[3], v, dz[3], dv;
  pop_head(p->w[0] + sh.off[L - 1], p->act[0][L - 1] + i, m, in, 3, z);
  pop_head(p->w[1] + sh.off[L - 1], p->act[1][L - 1] + i, m, in, 1, &v);
  ppo_loss_row(&p->mb, sh.m, i, z, v, p->stats, p->clip, p->ent_coef, p->vf_coef, p->vloss, dz,
               &dv, p->terms + 5 * (size_t)i);
  for (int a = 0; a < 3; a++)
    p->mb.dlogits[3 * (size_t)i + a] = dz[a];
  p->mb.dvalues[i] = dv;
  for (int net = 0; net < 2; net++) {
    const float *W = p->w[net] + sh.off[L - 1], *h = p->act[net][L - 1] + i;
    float *dl = p->delta[net][(L - 2) % 2] + (size_t)i * in;
    for (int f = 0; f < in; f++)
      dl[f] = pop_delta(W, net ? &dv : dz, in, net ? 1 : 3, f, h[(size_t)f * m], sh.act);
  }
}

/* One network's share of a backward launch at hidden layer l: the head's gradients (l = L -
 * 2), the layer's, the deltas below (l >= 1), each in its tiles. */
FOX_HD static inline size_t pppo_back_per_(const struct pppo_shape *sh, int l, int out) {
  int L = sh->L, in = sh->dims[l], o = sh->dims[l + 1], hin = sh->dims[L - 1];
  return (l == L - 2 ? pop_grad_threads(hin, out) : 0) + pop_grad_threads(in, o) +
         (l >= 1 ? pop_delta_threads(sh->m, in) : 0);
}
/* A backward launch's threads a member: the actor's share (3 logits), then the critic's. */
FOX_HD static inline size_t pppo_back_threads_(const struct pppo_shape *sh, int l) {
  return pppo_back_per_(sh, l, 3) + pppo_back_per_(sh, l, 1);
}

/* Hidden layer l of both networks of every member: the gradients from its delta and input
 * (layer 0's: the minibatch's rows), the deltas of layer l - 1; with l = L - 2, the heads'
 * gradients too (from the loss's dlogits and dvalues). */
__global__ void pppo_backward_kernel(const struct pppo_member *tab, struct pppo_shape sh,
                                     int l) {
  int L = sh.L, in = sh.dims[l], o = sh.dims[l + 1], m = sh.m, hin = sh.dims[L - 1];
  size_t per0 = pppo_back_per_(&sh, l, 3), per = pppo_back_threads_(&sh, l);
  POP_THREAD_((size_t)sh.n * per);
  const struct pppo_member *p = &tab[idx / per];
  size_t e = idx % per;
  int net = e >= per0, out = net ? 1 : 3;
  e -= net ? per0 : 0;
  size_t head = l == L - 2 ? pop_grad_threads(hin, out) : 0, grads = pop_grad_threads(in, o);
  float *g = p->g[net];
  if (e < head) {
    pop_grad_tile(net ? p->mb.dvalues : p->mb.dlogits, p->act[net][L - 1], 1, (size_t)m, m,
                  hin, out, e, g + sh.off[L - 1]);
    return;
  }
  e -= head;
  const float *d = p->delta[net][l % 2];
  if (e < grads) {
    if (l == 0)
      pop_grad_tile(d, p->mb.obs, (size_t)in, 1, m, in, o, e, g);
    else
      pop_grad_tile(d, p->act[net][l], 1, (size_t)m, m, in, o, e, g + sh.off[l]);
    return;
  }
  pop_delta_tile(p->w[net] + sh.off[l], d, m, in, o, p->act[net][l], 1, (size_t)m, sh.act,
                 e - grads, p->delta[net][(l - 1) % 2]);
}

/* Lane k of every member's squared gradient norm over both networks (the actor's lane, then
 * the critic's added: mlp_cuda_clip_step's order); the member's last lane to finish sums the
 * minibatch's loss into the accumulator (ppo_loss_sum), prepares the clip coefficient and
 * both networks' Adam constants at the annealed rate (opt_prepare) and, after the update's
 * last minibatch (`last`), counts the rollout on the clock. */
__global__ void pppo_clip_kernel(const struct pppo_member *tab, struct pppo_shape sh,
                                 int last) {
  POP_THREAD_((size_t)sh.n * FOX_SQ_LANES);
  const struct pppo_member *p = &tab[idx / FOX_SQ_LANES];
  int k = (int)(idx % FOX_SQ_LANES);
  double s = opt_sq_lane(p->g[0], sh.np[0], k);
  p->lanes[k] = s + opt_sq_lane(p->g[1], sh.np[1], k);
  __threadfence();
  if (atomicAdd(p->done, 1u) != FOX_SQ_LANES - 1)
    return;
  __threadfence();
  double lanes[FOX_SQ_LANES];
  const volatile double *v = p->lanes;
  for (int j = 0; j < FOX_SQ_LANES; j++)
    lanes[j] = v[j];
  *p->done = 0;
  long rollout = (long)sh.n_steps * sh.N;
  ppo_loss_sum(p->terms, sh.m, p->ent_coef, p->vf_coef, (long)(p->clk->updates + 1) * rollout,
               p->acc);
  struct opt_state *st[2] = {p->st[0], p->st[1]};
  *p->coef = opt_prepare(lanes, p->max_norm, p->lr, &p->clk->updates, st, 2);
  if (last)
    p->clk->updates++;
}

/* Adam on both networks' parameters of every member (the actor's, then the critic's). */
__global__ void pppo_adam_kernel(const struct pppo_member *tab, struct pppo_shape sh) {
  size_t per = sh.np[0] + sh.np[1];
  POP_THREAD_((size_t)sh.n * per);
  const struct pppo_member *p = &tab[idx / per];
  size_t i = idx % per;
  int net = i >= sh.np[0];
  i -= net ? sh.np[0] : 0;
  opt_adam_elem(&p->w[net][i], &p->am[net][i], &p->av[net][i], p->g[net][i], *p->coef,
                p->st[net]->a);
}

int pop_ppo_act(void *table, const float *states, int t, struct fox_err *e) {
  struct pppo_table *tb = (struct pppo_table *)table;
  const struct pppo_shape *sh = &tb->sh;
  int flip = pop_table_flip(&tb->hdr, states, e);
  if (flip < 0)
    return e->code;
  for (int l = 0; l < sh->L - 1; l++) {
    POP_LAUNCH_(&tb->hdr, pppo_forward_kernel,
                (size_t)sh->n * 2 * pop_span_threads(sh->N, sh->dims[l + 1]), TAB_(tb), *sh, l, 2,
                0, flip);
    cudaCheckLaunch(e);
  }
  POP_LAUNCH_(&tb->hdr, pppo_act_head_kernel, (size_t)sh->n * sh->N, TAB_(tb), *sh, flip, t);
  cudaCheckLaunch(e);
  return 0;
}

int pop_ppo_observe(void *table, int t, struct fox_err *e) {
  struct pppo_table *tb = (struct pppo_table *)table;
  const struct pppo_shape *sh = &tb->sh;
  for (int l = 0; l < sh->L - 1; l++) {
    POP_LAUNCH_(&tb->hdr, pppo_forward_kernel,
                (size_t)sh->n * pop_span_threads(sh->N, sh->dims[l + 1]), TAB_(tb), *sh, l, 1, 1,
                0);
    cudaCheckLaunch(e);
  }
  POP_LAUNCH_(&tb->hdr, pppo_observe_head_kernel, (size_t)sh->n * sh->N, TAB_(tb), *sh, t);
  cudaCheckLaunch(e);
  return 0;
}

int pop_ppo_update(void *table, const float *states, struct fox_err *e) {
  struct pppo_table *tb = (struct pppo_table *)table;
  const struct pppo_shape *sh = &tb->sh;
  size_t n = (size_t)sh->n, m = (size_t)sh->m;
  int flip = pop_table_flip(&tb->hdr, states, e);
  if (flip < 0)
    return e->code;
  for (int l = 0; l < sh->L - 1; l++) {
    POP_LAUNCH_(&tb->hdr, pppo_forward_kernel, n * pop_span_threads(sh->N, sh->dims[l + 1]),
                TAB_(tb), *sh, l, 1, 0, flip);
    cudaCheckLaunch(e);
  }
  POP_LAUNCH_(&tb->hdr, pppo_gae_kernel, n * sh->N, TAB_(tb), *sh);
  cudaCheckLaunch(e);
  long rows = (long)sh->n_steps * sh->N;
  int mbs = (int)(rows / sh->m);
  for (int ep = 0; ep < sh->epochs; ep++)
    for (int b = 0; b < mbs; b++) {
      for (int l = 0; l < sh->L - 1; l++) {
        POP_LAUNCH_(&tb->hdr, pppo_mb_forward_kernel,
                    n * 2 * pop_span_threads(sh->m, sh->dims[l + 1]), TAB_(tb), *sh, l, b * sh->m,
                    ep);
        cudaCheckLaunch(e);
      }
      POP_LAUNCH_(&tb->hdr, pppo_stats_kernel, n, TAB_(tb), *sh);
      cudaCheckLaunch(e);
      POP_LAUNCH_(&tb->hdr, pppo_head_loss_kernel, n * m, TAB_(tb), *sh);
      cudaCheckLaunch(e);
      for (int l = sh->L - 2; l >= 0; l--) {
        POP_LAUNCH_(&tb->hdr, pppo_backward_kernel, n * pppo_back_threads_(sh, l), TAB_(tb),
                    *sh, l);
        cudaCheckLaunch(e);
      }
      POP_LAUNCH_(&tb->hdr, pppo_clip_kernel, n * FOX_SQ_LANES, TAB_(tb), *sh,
                  ep == sh->epochs - 1 && b == mbs - 1);
      cudaCheckLaunch(e);
      POP_LAUNCH_(&tb->hdr, pppo_adam_kernel, n * (sh->np[0] + sh->np[1]), TAB_(tb), *sh);
      cudaCheckLaunch(e);
    }
  return 0;
}

/* The arrays a member's entry points to, declared by every launch (pop_table_touch): all the
 * member's own, written (its environments' buffers are pop_env_put's). The population's update
 * leaves the minibatch's logits and values, the permutation and v_next unwritten (it keeps
 * them in registers or computes them in place): only the agent's own update reads them. */
static int touch_(struct pop_table *t, const struct pppo_member *p, struct fox_err *e) {
  const struct rollout_dev *r = &p->ro;
  const struct minibatch_dev *b = &p->mb;
  const void *w[] = {r->obs,     r->logp,    r->values, r->rewards, r->adv,   r->ret,
                     r->actions, r->dones,   b->obs,    b->dlogits, b->dvalues, b->adv,
                     b->oldlogp, b->oldv,    b->ret,    b->act,     p->clk,   p->terms,
                     p->stats,   p->lanes,   p->acc,    p->coef};
  for (size_t i = 0; i < sizeof w / sizeof *w; i++)
    FOX_TRY(pop_table_touch_add(t, w[i], 1,
                                i < 8    ? "a PPO member's rollout"
                                : i < 16 ? "a PPO member's minibatch"
                                         : "a PPO member's clock, loss or clip",
                                e));
  for (int j = 0; j < 2; j++) {
    const void *net[] = {p->w[j], p->g[j], p->am[j], p->av[j], p->st[j], p->delta[j][0],
                         p->delta[j][1]};
    for (size_t i = 0; i < sizeof net / sizeof *net; i++)
      FOX_TRY(pop_table_touch_add(t, net[i], 1, "a PPO member's network", e));
    for (int l = 0; l <= FOX_MLP_CUDA_MAX; l++)
      FOX_TRY(pop_table_touch_add(t, p->act[j][l], 1, "a PPO member's activations", e));
  }
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
  sh->np[0] = a0->n_params;
  sh->np[1] = cuda_net_mlp(&members[0]->critic)->n_params;
  sh->epochs = members[0]->cfg.epochs;
  sh->m = ppo_minibatch_rows(members[0]);
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
               m[0]->dims[sh->L] == 3 && m[1]->dims[sh->L] == 1 &&
               q->cfg.epochs == sh->epochs && ppo_minibatch_rows(q) == sh->m;
    for (int l = 0; same && l < sh->L; l++)
      same = m[0]->dims[l] == sh->dims[l] && m[1]->dims[l] == sh->dims[l];
    if (!same) {
      free(host);
      return fox_errf(e, FOX_EUSAGE, "population: member %d's networks differ from member 0's",
                      k);
    }
    struct pppo_member *p = &host[k];
    for (int j = 0; j < 2; j++) {
      p->w[j] = m[j]->w, p->g[j] = m[j]->g, p->am[j] = m[j]->adam_m, p->av[j] = m[j]->adam_v;
      p->st[j] = m[j]->st;
      for (int l = 0; l <= FOX_MLP_CUDA_MAX; l++)
        p->act[j][l] = m[j]->act[l];
      p->delta[j][0] = m[j]->delta[0], p->delta[j][1] = m[j]->delta[1];
    }
    p->states[0] = v->states, p->states[1] = v->states_prev;
    p->next_states = v->next_states, p->rewards = v->rewards, p->dones = v->dones;
    p->actions = v->actions;
    p->ro = q->ro;
    p->clk = q->clk;
    p->seed = q->seed;
    p->gamma = q->cfg.gamma, p->lambda = q->cfg.gae_lambda, p->clip = q->cfg.clip;
    p->ent_coef = q->cfg.ent_coef, p->vf_coef = q->cfg.vf_coef, p->vloss = q->cfg.value_loss;
    p->max_norm = q->cfg.max_grad_norm;
    p->lr = (struct opt_lr){q->cfg.lr, q->cfg.anneal_lr, q->num_updates};
    p->mb = q->mb;
    p->terms = q->terms, p->stats = q->stats, p->lanes = q->lanes, p->acc = q->acc;
    p->coef = q->coef;
  }
  int rc = pop_table_put(&t->hdr, host, sizeof *host, n, 1,
                         offsetof(struct pppo_member, done), e);
  for (int k = 0; rc == 0 && k < n; k++)
    rc = touch_(&t->hdr, &host[k], e);
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
