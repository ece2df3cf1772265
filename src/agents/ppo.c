/* PPO on any backend: networks, rollout and minibatches in the backend's memory, every step a
 * backend operation (agent_ops.h). Actor and critic are updated together: one loss, one
 * global gradient norm over both, two Adam states (eps 1e-5 as in CleanRL). */
#include "agents/ppo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppo_step.h"

#define NA_ 3

static size_t mbs_(const struct ppo *p) {
  size_t n = (size_t)p->cfg.n_steps * (size_t)p->n_envs, m = n / (size_t)p->cfg.minibatches;
  return m < 1 ? 1 : m;
}

int ppo_minibatch_rows(const struct ppo *p) { return (int)mbs_(p); }

static int alloc_(struct ppo *p, struct fox_err *e) {
  const struct backend *be = p->be;
  size_t n = (size_t)p->cfg.n_steps * p->n_envs, m = mbs_(p), N = (size_t)p->n_envs;
  size_t f = sizeof(float), S = (size_t)p->dim;
  struct {
    void **p;
    size_t bytes;
  } bufs[] = {
      {(void **)&p->ro.obs, n * S * f},       {(void **)&p->ro.logp, n * f},
      {(void **)&p->ro.values, n * f},        {(void **)&p->ro.rewards, n * f},
      {(void **)&p->ro.adv, n * f},           {(void **)&p->ro.ret, n * f},
      {(void **)&p->ro.actions, n},           {(void **)&p->ro.dones, n},
      {(void **)&p->mb.obs, m * S * f},       {(void **)&p->mb.logits, m * NA_ * f},
      {(void **)&p->mb.values, m * f},        {(void **)&p->mb.dlogits, m * NA_ * f},
      {(void **)&p->mb.dvalues, m * f},       {(void **)&p->mb.adv, m * f},
      {(void **)&p->mb.oldlogp, m * f},       {(void **)&p->mb.oldv, m * f},
      {(void **)&p->mb.ret, m * f},           {(void **)&p->mb.act, m},
      {(void **)&p->logits, N * NA_ * f},     {(void **)&p->v_next, N * f},
      {(void **)&p->coef, f},                 {(void **)&p->perm, n * sizeof(uint32_t)},
      {(void **)&p->terms, m * 5 * sizeof(double)}, {(void **)&p->stats, 2 * sizeof(double)},
      {(void **)&p->lanes, FOX_SQ_LANES * sizeof(double)},
      /* the loss accumulator and, just past it, the clock: one read at an epoch's end */
      {(void **)&p->acc, FOX_ACC_N * sizeof(double) + sizeof(struct ppo_clock)},
  };
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    if (!(*bufs[i].p = be->mem_alloc(bufs[i].bytes, e)))
      return e->code ? e->code : FOX_EFAIL;
  p->clk = (struct ppo_clock *)(p->acc + FOX_ACC_N); /* zeroed, as the mirror */
  return 0;
}

int ppo_create(struct ppo *p, const struct ppo_config *c, int n_envs, int nfeat,
               long num_updates, const struct backend *be, uint64_t seed, struct fox_err *e) {
  memset(p, 0, sizeof *p);
  p->cfg = *c;
  p->be = be;
  p->n_envs = n_envs;
  p->dim = p->ro.dim = p->mb.dim = nfeat + FOX_NPORTFOLIO;
  p->num_updates = num_updates;
  rng_seed(&p->rng, seed);
  p->seed = rng_hash2(seed, 0x5050u); /* a stream apart from the initialisation's */
  int rc = net_create(&p->actor, be->nets, p->dim, c->hidden, c->n_hidden, NA_,
                      c->activation, 1e-5, e);
  if (rc == 0)
    rc = net_create(&p->critic, be->nets, p->dim, c->hidden, c->n_hidden, 1,
                    c->activation, 1e-5, e);
  /* Acting and bootstrapping take n_envs rows, an update's minibatches mbs. */
  int most = n_envs > (int)mbs_(p) ? n_envs : (int)mbs_(p);
  if (rc == 0)
    rc = net_reserve(&p->actor, most, e);
  if (rc == 0)
    rc = net_reserve(&p->critic, most, e);
  if (rc == 0)
    rc = alloc_(p, e);
  /* ppo.init orthogonal is CleanRL's layer_init: sqrt(2) body, policy head 0.01, value head
   * 1.0; default is torch's nn.Linear initialisation. */
  if (rc == 0)
    rc = net_init(&p->actor, &p->rng, c->init, 0.01, e);
  if (rc == 0)
    rc = net_init(&p->critic, &p->rng, c->init, 1.0, e);
  if (rc != 0)
    ppo_free(p);
  return rc;
}

void ppo_free(struct ppo *p) {
  net_free(&p->actor);
  net_free(&p->critic);
  if (p->be) {
    void *bufs[] = {p->ro.obs,    p->ro.logp,     p->ro.values,   p->ro.rewards, p->ro.adv,
                    p->ro.ret,    p->ro.actions,  p->ro.dones,    p->mb.obs,     p->mb.logits,
                    p->mb.values, p->mb.dlogits,  p->mb.dvalues,  p->mb.adv,     p->mb.oldlogp,
                    p->mb.oldv,   p->mb.ret,      p->mb.act,      p->logits,     p->v_next,
                    p->coef,      p->perm,        p->terms,       p->stats,      p->lanes,
                    p->acc};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
      if (bufs[i])
        p->be->mem_free(bufs[i]);
  }
  memset(p, 0, sizeof *p);
}

int ppo_act(struct ppo *p, const float *states, uint8_t *actions, struct fox_err *e) {
  const struct backend *be = p->be;
  size_t N = (size_t)p->n_envs, k = (size_t)p->t * N;
  FOX_TRY(net_forward(&p->actor, states, (int)N, p->logits, e));
  /* The run's vector step (the clock's rollouts times their length, plus this step of the
   * rollout) is the device's to know. */
  FOX_TRY(be->agents->ppo_sample(p->logits, (int)N, p->clk, p->cfg.n_steps, p->t, p->seed,
                                 p->ro.actions + k, p->ro.logp + k, e));
  FOX_TRY(net_forward(&p->critic, states, (int)N, p->ro.values + k, e));
  FOX_TRY(be->mem_copy(p->ro.obs + k * (size_t)p->dim, states, N * (size_t)p->dim * sizeof(float),
                       e));
  return be->mem_copy(actions, p->ro.actions + k, N, e);
}

int ppo_observe(struct ppo *p, const float *next_states, const float *rewards,
                const uint8_t *dones, const float *states, struct fox_err *e) {
  size_t N = (size_t)p->n_envs, k = (size_t)p->t * N;
  /* SB3's treatment of time limits: a truncation's cut-off future is bootstrapped into its
   * reward. V(s') of every environment: whether one was truncated is the device's to know. */
  FOX_TRY(net_forward(&p->critic, next_states, (int)N, p->v_next, e));
  FOX_TRY(p->be->agents->ppo_bootstrap((int)N, rewards, dones, p->v_next, p->cfg.gamma,
                                       p->ro.rewards + k, p->ro.dones + k, e));
  if (p->t + 1 >= p->cfg.n_steps)
    return ppo_update(p, states, e); /* the rollout is full */
  ppo_plan(p);
  return 0;
}

void ppo_plan(struct ppo *p) {
  if (++p->t >= p->cfg.n_steps) {
    p->t = 0;
    p->updates++;
  }
}

int ppo_clock_put(struct ppo *p, struct fox_err *e) {
  struct ppo_clock c = {p->updates};
  return p->be->mem_h2d(p->clk, &c, sizeof c, e);
}


/* Every number that depends on where training stands (the permutations' rounds, the learning
 * rate's annealing, the transitions a loss is marked with) comes from the clock, which counts
 * the rollout at the end; the host's mirror moves with it. */
int ppo_update(struct ppo *p, const float *last_states, struct fox_err *e) {
  const struct agent_ops *ops = p->be->agents;
  int T = p->cfg.n_steps, N = p->n_envs;
  size_t n = (size_t)T * N, mbs = mbs_(p);
  FOX_TRY(net_forward(&p->critic, last_states, N, p->v_next, e));
  FOX_TRY(ops->ppo_gae(T, N, &p->ro, p->v_next, p->cfg.gamma, p->cfg.gae_lambda, e));
  struct opt_lr lr = {p->cfg.lr, p->cfg.anneal_lr, p->num_updates};
  struct net *nets[2] = {&p->actor, &p->critic};
  for (int ep = 0; ep < p->cfg.epochs; ep++) {
    FOX_TRY(ops->ppo_permute((uint32_t)n, p->seed, p->clk, p->cfg.epochs, ep, p->perm, e));
    for (size_t start = 0; start + mbs <= n; start += mbs) {
      int m = (int)mbs;
      FOX_TRY(ops->ppo_gather(&p->ro, p->perm + start, m, &p->mb, p->stats, e));
      FOX_TRY(net_forward(&p->actor, p->mb.obs, m, p->mb.logits, e));
      FOX_TRY(net_forward(&p->critic, p->mb.obs, m, p->mb.values, e));
      FOX_TRY(ops->ppo_loss(&p->mb, m, p->stats, p->cfg.clip, p->cfg.ent_coef, p->cfg.vf_coef,
                            p->cfg.value_loss, p->terms, e));
      FOX_TRY(ops->ppo_loss_sum(p->terms, m, p->cfg.ent_coef, p->cfg.vf_coef, p->clk, (long)n,
                                p->acc, e));
      FOX_TRY(net_zero_grad(&p->actor, e));
      FOX_TRY(net_zero_grad(&p->critic, e));
      FOX_TRY(net_backward(&p->actor, p->mb.dlogits, m, e));
      FOX_TRY(net_backward(&p->critic, p->mb.dvalues, m, e));
      /* One global norm over both networks, as clip_grad_norm_(agent.parameters()). */
      FOX_TRY(net_clip_step(nets, 2, p->lanes, p->coef, p->cfg.max_grad_norm, lr,
                            &p->clk->updates, e));
    }
  }
  FOX_TRY(ops->ppo_tick(p->clk, e));
  p->t = 0;
  p->updates++;
  return 0;
}
