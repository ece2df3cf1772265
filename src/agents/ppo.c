/* PPO on the CPU networks. Actor and critic are updated together: one loss, one global gradient
 * norm over both, two Adam states (eps 1e-5 as in CleanRL). */
#include "agents/ppo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ppo_step.h"

#define NA_ 3

void ppo_gae(int T, int N, const float *rewards, const float *values, const uint8_t *dones,
             const float *last_values, double gamma, double lambda, float *adv, float *ret) {
  for (int i = 0; i < N; i++)
    ppo_gae_env(T, N, i, rewards, values, dones, last_values[i], gamma, lambda, adv, ret);
}

int ppo_create(struct ppo *p, const struct ppo_config *c, int n_envs, long num_updates,
               const struct net_ops *ops, uint64_t seed, struct fox_err *e) {
  memset(p, 0, sizeof *p);
  p->cfg = *c;
  p->n_envs = n_envs;
  p->num_updates = num_updates;
  rng_seed(&p->rng, seed);
  p->seed = rng_hash2(seed, 0x5050u); /* a stream apart from the initialisation's */
  int rc = net_create(&p->actor, ops, FOX_STATE_DIM, c->hidden, c->n_hidden, NA_, c->activation,
                      1e-5, e);
  if (rc == 0)
    rc = net_create(&p->critic, ops, FOX_STATE_DIM, c->hidden, c->n_hidden, 1, c->activation,
                    1e-5, e);
  size_t n = (size_t)c->n_steps * n_envs, m = (n + c->minibatches - 1) / c->minibatches;
  p->obs = malloc(n * FOX_STATE_DIM * sizeof(float));
  p->logp = malloc(n * sizeof(float));
  p->values = malloc(n * sizeof(float));
  p->rewards = malloc(n * sizeof(float));
  p->adv = malloc(n * sizeof(float));
  p->ret = malloc(n * sizeof(float));
  p->actions = malloc(n);
  p->dones = malloc(n);
  p->mb_obs = malloc(m * FOX_STATE_DIM * sizeof(float));
  p->mb_logits = malloc(m * NA_ * sizeof(float));
  p->mb_dlogits = malloc(m * NA_ * sizeof(float));
  p->mb_values = malloc(m * sizeof(float));
  p->mb_dvalues = malloc(m * sizeof(float));
  p->mb_adv = malloc(m * sizeof(float));
  p->mb_oldlogp = malloc(m * sizeof(float));
  p->mb_oldv = malloc(m * sizeof(float));
  p->mb_ret = malloc(m * sizeof(float));
  p->mb_act = malloc(m);
  p->perm = malloc(n * sizeof(size_t));
  if (rc == 0 && (!p->obs || !p->logp || !p->values || !p->rewards || !p->adv || !p->ret ||
                  !p->actions || !p->dones || !p->mb_obs || !p->mb_logits || !p->mb_dlogits ||
                  !p->mb_values || !p->mb_dvalues || !p->mb_adv || !p->mb_oldlogp ||
                  !p->mb_oldv || !p->mb_ret || !p->mb_act || !p->perm))
    rc = fox_errf(e, FOX_EFAIL, "ppo: out of memory for a rollout of %zu", n);
  if (rc != 0) {
    ppo_free(p);
    return rc;
  }
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
  void *bufs[] = {p->obs,       p->logp,      p->values,     p->rewards,    p->adv,
                  p->ret,       p->actions,   p->dones,      p->mb_obs,     p->mb_logits,
                  p->mb_dlogits, p->mb_values, p->mb_dvalues, p->mb_adv,    p->mb_oldlogp,
                  p->mb_oldv,   p->mb_ret,    p->mb_act,     p->perm};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
    free(bufs[i]);
  memset(p, 0, sizeof *p);
}

int ppo_value(struct ppo *p, const float *states, int n, float *values, struct fox_err *e) {
  return net_forward(&p->critic, states, n, values, e);
}

int ppo_act(struct ppo *p, const float *states, int n, uint8_t *actions, float *logp,
            float *values, struct fox_err *e) {
  float *logits = malloc((size_t)n * NA_ * sizeof *logits);
  if (!logits)
    return fox_errf(e, FOX_EFAIL, "ppo: out of memory");
  int rc = net_forward(&p->actor, states, n, logits, e);
  /* The run's vector step: rollouts done times their length, plus this rollout's steps. */
  uint64_t step = (uint64_t)p->updates * (uint64_t)p->cfg.n_steps + (uint64_t)p->t;
  for (int i = 0; rc == 0 && i < n; i++) {
    float lp;
    actions[i] = (uint8_t)ppo_sample(logits + (size_t)i * NA_, p->seed, step, (uint64_t)i, &lp);
    if (logp)
      logp[i] = lp;
  }
  free(logits);
  if (rc == 0 && values)
    rc = ppo_value(p, states, n, values, e);
  return rc;
}

void ppo_record(struct ppo *p, const float *states, const uint8_t *actions, const float *logp,
                const float *values, const float *rewards, const uint8_t *dones) {
  size_t n = (size_t)p->n_envs, k = (size_t)p->t * n;
  memcpy(p->obs + k * FOX_STATE_DIM, states, n * FOX_STATE_DIM * sizeof(float));
  memcpy(p->actions + k, actions, n);
  memcpy(p->logp + k, logp, n * sizeof(float));
  memcpy(p->values + k, values, n * sizeof(float));
  memcpy(p->rewards + k, rewards, n * sizeof(float));
  memcpy(p->dones + k, dones, n);
  p->t++;
}

int ppo_rollout_full(const struct ppo *p) { return p->t >= p->cfg.n_steps; }

/* Fisher-Yates with counter-based draws: the permutation is a function of (seed, round). */
static void shuffle_(size_t *perm, size_t n, uint64_t seed, uint64_t round) {
  for (size_t i = n - 1; i > 0; i--) {
    size_t j = (size_t)(fox_u01(seed, FOX_RS_PERMUTE, round, i) * (double)(i + 1));
    size_t t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
}

int ppo_update(struct ppo *p, const float *last_states, struct ppo_stats *st, struct fox_err *e) {
  int T = p->cfg.n_steps, N = p->n_envs;
  size_t n = (size_t)T * N;
  float *last_v = malloc((size_t)N * sizeof *last_v);
  if (!last_v)
    return fox_errf(e, FOX_EFAIL, "ppo: out of memory");
  int rc = ppo_value(p, last_states, N, last_v, e);
  if (rc == 0)
    ppo_gae(T, N, p->rewards, p->values, p->dones, last_v, p->cfg.gamma, p->cfg.gae_lambda,
            p->adv, p->ret);
  free(last_v);
  FOX_TRY(rc);
  double lr = p->cfg.lr;
  if (p->cfg.anneal_lr && p->num_updates > 0) {
    double frac = 1.0 - (double)p->updates / (double)p->num_updates;
    lr *= frac > 0 ? frac : 0; /* never an ascent, whatever the plan */
  }
  size_t mbs = n / (size_t)p->cfg.minibatches;
  if (mbs < 1)
    mbs = 1;
  for (size_t i = 0; i < n; i++)
    p->perm[i] = i;
  struct ppo_stats sum = {0};
  int count = 0;
  for (int ep = 0; ep < p->cfg.epochs; ep++) {
    shuffle_(p->perm, n, p->seed, (uint64_t)p->updates * (uint64_t)p->cfg.epochs + (uint64_t)ep);
    for (size_t start = 0; start + mbs <= n; start += mbs) {
      size_t m = mbs;
      double mean = 0, var = 0;
      for (size_t j = 0; j < m; j++) {
        size_t k = p->perm[start + j];
        memcpy(p->mb_obs + j * FOX_STATE_DIM, p->obs + k * FOX_STATE_DIM,
               FOX_STATE_DIM * sizeof(float));
        p->mb_act[j] = p->actions[k];
        p->mb_oldlogp[j] = p->logp[k];
        p->mb_oldv[j] = p->values[k];
        p->mb_ret[j] = p->ret[k];
        p->mb_adv[j] = p->adv[k];
        mean += p->adv[k];
      }
      mean /= (double)m;
      for (size_t j = 0; j < m; j++)
        var += (p->mb_adv[j] - mean) * (p->mb_adv[j] - mean);
      double sd = m > 1 ? sqrt(var / (double)(m - 1)) : 0.0; /* torch's std: ddof 1 */
      for (size_t j = 0; j < m; j++)
        p->mb_adv[j] = (float)((p->mb_adv[j] - mean) / (sd + 1e-8));
      FOX_TRY(net_forward(&p->actor, p->mb_obs, (int)m, p->mb_logits, e));
      FOX_TRY(net_forward(&p->critic, p->mb_obs, (int)m, p->mb_values, e));
      struct ppo_stats s;
      ppo_loss(p->mb_logits, p->mb_values, p->mb_act, p->mb_oldlogp, p->mb_oldv, p->mb_adv,
               p->mb_ret, m, p->cfg.clip, p->cfg.ent_coef, p->cfg.vf_coef, p->mb_dlogits,
               p->mb_dvalues, &s);
      FOX_TRY(net_zero_grad(&p->actor, e));
      FOX_TRY(net_zero_grad(&p->critic, e));
      FOX_TRY(net_backward(&p->actor, p->mb_dlogits, (int)m, e));
      FOX_TRY(net_backward(&p->critic, p->mb_dvalues, (int)m, e));
      /* One global norm over both networks, as clip_grad_norm_(agent.parameters()). */
      struct net *nets[2] = {&p->actor, &p->critic};
      FOX_TRY(net_clip_step(nets, 2, p->cfg.max_grad_norm, lr, e));
      sum.loss += s.loss, sum.pg_loss += s.pg_loss, sum.v_loss += s.v_loss;
      sum.entropy += s.entropy, sum.approx_kl += s.approx_kl, sum.clipfrac += s.clipfrac;
      count++;
    }
  }
  if (count) {
    st->loss = sum.loss / count, st->pg_loss = sum.pg_loss / count;
    st->v_loss = sum.v_loss / count, st->entropy = sum.entropy / count;
    st->approx_kl = sum.approx_kl / count, st->clipfrac = sum.clipfrac / count;
  }
  p->t = 0;
  p->updates++;
  return 0;
}
