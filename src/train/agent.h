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
  const struct backend *be;
  struct dqn dqn;
  struct ppo ppo;
};

/* What the updates since the last agent_take did: their number, mean loss (NAN if none), and
 * where a loss first went non-finite (transitions then; 0: never). */
struct agent_stats {
  long updates, bad_transitions;
  double loss;
};

/* Builds the networks and buffers of cfg->algo in the backend `be`, initialised from the seed;
 * `dev` is the dataset there (DQN's replay rebuilds states from it; NULL: a policy that
 * only acts, as loaded from trial.h5, with no replay ring); total is the run's transitions
 * (DQN's epsilon schedule, PPO's plan of rollouts). */
int agent_create(struct agent *a, const struct config *cfg, const struct backend *be,
                 const struct device_dataset *dev, long total, uint64_t seed,
                 struct fox_err *e);
/* Reads the loss accumulator and the agent's clock (one copy to the host, the only one of a
 * training epoch), holds the clock to the host's mirrors (an error when they differ), and
 * starts the accumulator again. */
int agent_take(struct agent *a, struct agent_stats *st, struct fox_err *e);
void agent_free(struct agent *a);
/* The host's mirrors of where training stands onto the device's clock: after a checkpoint
 * (or only its experience) was read into the agent. */
int agent_clock_put(struct agent *a, struct fox_err *e);
/* The network that decides: the Q-network (DQN) or the actor (PPO). */
struct net *agent_policy_net(struct agent *a);
/* The greedy policy over a split in `nfolds` walk-forward folds, each bar by bar from the
 * portfolio it builds from flat, then the very backtest that `foxopt backtest --actions
 * --folds` runs on those actions: so each fold is what the policy does started flat there. */
int agent_backtest(struct agent *a, const struct backend *be, const struct dataset *ds,
                   const struct device_dataset *dev, const struct config *cfg, int split,
                   int nfolds, struct backtest_run *out, struct fox_err *e);
/* One agent's evaluation among several: its config (market, the backtest's settings), split,
 * folds and where its result goes. */
struct agent_eval {
  struct agent *a;
  const struct config *cfg;
  int split, nfolds;
  struct backtest_run *out;
};
/* agent_backtest of n agents, every fold of every one in one greedy_eval (CUDA: one launch, a
 * block a fold, one copy back), then each one's backtest. */
int agent_backtest_many(const struct agent_eval *ev, int n, const struct backend *be,
                        const struct dataset *ds, const struct device_dataset *dev,
                        struct fox_err *e);
/* *finite = 1 when every weight is finite. */
int agent_finite(const struct agent *a, int *finite, struct fox_err *e);

#endif
