/* One trial (DESIGN.md s7, s8): an agent trained on the train split for train.epochs epochs of
 * steps_per_epoch environment steps, backtested greedily on eval.split after every epoch. */
#ifndef FOX_TRIAL_H
#define FOX_TRIAL_H

#include <stdio.h>

#include "train/agent.h"

enum { FOX_TRIAL_COMPLETE = 0, FOX_TRIAL_FAILED = 1 };

struct epoch_row {
  int epoch;
  double seconds, env_steps_per_s, loss; /* loss: mean over the epoch's updates (NAN if none) */
  struct metrics eval;
};

struct trial_result {
  int status;
  char reason[512];
  int epochs_done;
  struct epoch_row *curve; /* [train.epochs] */
  struct metrics final;    /* the last evaluation */
  long transitions;
};

/* Trains `agent` (made by the caller with agent_create) on `ds`; progress lines go to `log`
 * when it is not NULL. A divergence (NaN or Inf in a loss or a weight) ends the trial with
 * status FOX_TRIAL_FAILED and the reason, and returns 0: it is a result, not an error. */
int trial_run(const struct config *cfg, const struct dataset *ds, const struct backend *be,
              const struct device_dataset *dev, struct agent *agent, FILE *log,
              struct trial_result *out, struct fox_err *e);
void trial_result_free(struct trial_result *r);
/* Environment steps in one epoch (steps_per_epoch, or the train split's bars for auto). */
int64_t trial_steps_per_epoch(const struct config *cfg, const struct dataset *ds);
/* PPO's rollouts over the whole run. */
long trial_ppo_updates(const struct config *cfg, const struct dataset *ds);
/* Before any work: splits big enough, and a run that can learn at all (a PPO rollout that
 * finishes, DQN updates after learning_starts). `path` names the dataset in messages. */
int trial_check(const struct config *cfg, const struct dataset *ds, const char *path,
                struct fox_err *e);
/* The trial's derived seeds: streams for the environments and the agent. */
uint64_t trial_seed(const struct config *cfg, int stream);

#endif
