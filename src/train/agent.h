/* An agent of either kind behind one face: greedy actions for evaluation, weights to save and
 * load. Training itself is in trial.c, which knows each algorithm's loop. */
#ifndef FOX_AGENT_H
#define FOX_AGENT_H

#include "agents/dqn.h"
#include "agents/ppo.h"
#include "backtest/backtest.h"
#include "config/config.h"

struct agent {
  int algo;
  struct dqn dqn;
  struct ppo ppo;
};

/* Builds the networks of cfg->algo where `ops` puts them (a backend's `nets`), initialised from
 * the seed; num_updates is PPO's plan. */
int agent_create(struct agent *a, const struct config *cfg, const struct net_ops *ops,
                 long num_updates, uint64_t seed, struct fox_err *e);
void agent_free(struct agent *a);
/* The network that decides: the Q-network (DQN) or the actor (PPO). */
struct net *agent_policy_net(struct agent *a);
/* Greedy actions: argmax Q or argmax logits; ties take the lowest action. */
int agent_greedy(struct agent *a, const float *states, int n, uint8_t *actions,
                 struct fox_err *e);
/* The greedy policy over a split, bar by bar from the portfolio it builds, then the very
 * backtest that `foxopt backtest --actions` runs on those actions. */
int agent_backtest(struct agent *a, const struct backend *be, const struct dataset *ds,
                   const struct device_dataset *dev, const struct config *cfg, int split,
                   struct backtest_run *out, struct fox_err *e);
/* *finite = 1 when every weight is finite. */
int agent_finite(const struct agent *a, int *finite, struct fox_err *e);

#endif
