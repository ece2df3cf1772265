/* Agent dispatch and the greedy policy backtest. */
#include "train/agent.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "norm_step.h"

int agent_create(struct agent *a, const struct config *cfg, const struct backend *be,
                 const struct device_dataset *dev, long num_updates, uint64_t seed,
                 struct fox_err *e) {
  memset(a, 0, sizeof *a);
  a->algo = cfg->algo;
  a->be = be;
  int rc = a->algo == FOX_ALGO_DQN
               ? dqn_create(&a->dqn, &cfg->dqn, be, cfg->num_envs, dev ? dev->states : NULL,
                            seed, e)
               : ppo_create(&a->ppo, &cfg->ppo, cfg->num_envs, num_updates, be, seed, e);
  if (rc != 0) {
    memset(a, 0, sizeof *a);
    return rc;
  }
  a->x = be->mem_alloc(FOX_STATE_DIM * sizeof(float), e);
  a->y = a->x ? be->mem_alloc(FOX_NACTIONS * sizeof(float), e) : NULL;
  if (!a->y) {
    agent_free(a);
    return e->code ? e->code : FOX_EFAIL;
  }
  return 0;
}

void agent_free(struct agent *a) {
  if (a->algo == FOX_ALGO_DQN)
    dqn_free(&a->dqn);
  else
    ppo_free(&a->ppo);
  if (a->be && a->x)
    a->be->mem_free(a->x);
  if (a->be && a->y)
    a->be->mem_free(a->y);
  memset(a, 0, sizeof *a);
}

int agent_take(struct agent *a, struct agent_stats *st, struct fox_err *e) {
  double *dev = a->algo == FOX_ALGO_DQN ? a->dqn.acc : a->ppo.acc, acc[FOX_ACC_N];
  FOX_TRY(a->be->mem_d2h(acc, dev, sizeof acc, e));
  FOX_TRY(a->be->mem_zero(dev, sizeof acc, e));
  st->updates = (long)acc[FOX_ACC_UPDATES];
  st->loss = st->updates ? acc[FOX_ACC_LOSS] / acc[FOX_ACC_UPDATES] : NAN;
  st->bad_transitions = acc[FOX_ACC_BAD] > 0 ? (long)acc[FOX_ACC_BAD] - 1 : 0;
  return 0;
}

struct net *agent_policy_net(struct agent *a) {
  return a->algo == FOX_ALGO_DQN ? &a->dqn.online : &a->ppo.actor;
}

int agent_greedy(struct agent *a, const float *states, int n, uint8_t *actions,
                 struct fox_err *e) {
  const struct backend *be = a->be;
  for (int i = 0; i < n; i++) {
    float q[FOX_NACTIONS];
    FOX_TRY(be->mem_h2d(a->x, states + (size_t)i * FOX_STATE_DIM, FOX_STATE_DIM * sizeof(float),
                        e));
    FOX_TRY(a->algo == FOX_ALGO_DQN ? dqn_q(&a->dqn, a->x, 1, a->y, e)
                                    : net_forward(&a->ppo.actor, a->x, 1, a->y, e));
    FOX_TRY(be->mem_d2h(q, a->y, sizeof q, e));
    actions[i] = (uint8_t)dqn_argmax3(q);
  }
  return 0;
}

int agent_backtest(struct agent *a, const struct backend *be, const struct dataset *ds,
                   const struct device_dataset *dev, const struct config *cfg, int split,
                   struct backtest_run *out, struct fox_err *e) {
  int64_t b = ds->split[split][0], en = ds->split[split][1];
  size_t n = (size_t)(en - b);
  if (n < 2)
    return fox_errf(e, FOX_EDATA, "%s: the evaluation split has %zu bars", ds->source, n);
  uint8_t *actions = malloc(n);
  if (!actions)
    return fox_errf(e, FOX_EFAIL, "agent: out of memory for %zu actions", n);
  struct env_state s;
  env_portfolio_reset(&cfg->market, &s);
  float norm[FOX_NFEAT], state[FOX_STATE_DIM];
  int rc = 0;
  for (int64_t k = b; rc == 0 && k < en; k++) {
    const float *raw = ds->features + (size_t)k * FOX_NFEAT;
    for (int f = 0; f < FOX_NFEAT; f++)
      norm[f] = norm_feature(raw[f], ds->norm_mean[f], ds->norm_std[f]);
    const float *px = ds->prices + 4 * (size_t)k;
    env_observe(&cfg->market, &s, (int32_t)k, norm, px[3], state);
    rc = agent_greedy(a, state, 1, &actions[k - b], e);
    if (rc == 0 && k + 1 < en)
      env_bar(&cfg->market, &s, actions[k - b], (int32_t)(k + 1), ds->prices + 4 * (size_t)(k + 1),
              ds->features[(size_t)k * FOX_NFEAT + FOX_EWM_VOL_COL], k + 1 == en - 1);
  }
  if (rc == 0)
    rc = backtest_run(be, ds, dev, cfg, split, 1, actions, out, e);
  free(actions);
  return rc;
}

static int finite_(const struct net *n, int *finite, struct fox_err *e) {
  float *w = malloc(n->n_params * sizeof *w);
  if (!w)
    return fox_errf(e, FOX_EFAIL, "agent: out of memory");
  int rc = net_get_params(n, w, e);
  for (size_t i = 0; rc == 0 && i < n->n_params; i++)
    if (!isfinite(w[i]))
      *finite = 0;
  free(w);
  return rc;
}

int agent_finite(const struct agent *a, int *finite, struct fox_err *e) {
  *finite = 1;
  if (a->algo == FOX_ALGO_DQN)
    return finite_(&a->dqn.online, finite, e);
  FOX_TRY(finite_(&a->ppo.actor, finite, e));
  return finite_(&a->ppo.critic, finite, e);
}
