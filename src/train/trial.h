/* One trial (DESIGN.md s7, s8): an agent trained on the train split for train.epochs epochs of
 * steps_per_epoch environment steps, backtested greedily on eval.split after every epoch. */
#ifndef FOX_TRIAL_H
#define FOX_TRIAL_H

#include <signal.h>
#include <stdio.h>

#include "backend/counters.h"
#include "env/venv.h"
#include "train/agent.h"

enum { FOX_TRIAL_COMPLETE = 0, FOX_TRIAL_FAILED = 1 };

struct epoch_row {
  int epoch;
  double seconds, env_steps_per_s, loss; /* loss: mean over the epoch's updates (NAN if none) */
  int members; /* the population the epoch trained in (train/pop.h), itself too */
  struct metrics eval;
};

struct trial_result {
  int status;
  char reason[512];
  int epochs_done;
  struct epoch_row *curve; /* [train.epochs] */
  struct metrics final;    /* the last evaluation */
  long transitions;
  /* The device work of the training loops and of the evaluations (backend/counters.h; zeros
   * on the CPU backend). */
  struct backend_counts train_counts, eval_counts;
  int pop_members; /* the population it trained in at its last epoch (train/pop.h), itself too */
  long graphs_captured, graphs_replayed; /* by its populations (their chunks: train/chunk.h) */
};

/* A trial in progress: its environments, its agent and where its loop stands. It runs in
 * segments (a scheduler's rungs), and between segments it can be checkpointed
 * (train/trial_state.h) and continued on any process, bit for bit. */
struct trial {
  struct config cfg;
  const struct dataset *ds;
  const struct backend *be;
  const struct device_dataset *dev;
  struct agent ag;
  struct venv venv;
  long vec_steps;        /* vector steps per epoch */
  long total;            /* transitions of the whole run (train.epochs): epsilon's schedule */
  struct trial_result r; /* curve [cfg.epochs] */
  struct backtest_run last; /* the latest evaluation, with its per-bar series */
  double loss;              /* the mean loss of its latest epoch of training (NAN: none) */
  /* The study's (trial, repeat) whose state this is, recorded in its checkpoints (attribute
   * 'owner') so that a checkpoint copied under another trial's name is told apart; owner[0] < 0
   * (a lone train, or a checkpoint written before owners were): none. */
  int owner[2];
};

/* The agent and the environments of a new trial, from cfg's seed (train.seed). */
int trial_open(struct trial *t, const struct config *cfg, const struct dataset *ds,
               const struct backend *be, const struct device_dataset *dev, struct fox_err *e);
void trial_close(struct trial *t);
/* After an epoch of training (pop_train_epoch, `train_seconds` of it): the weights' check, the
 * evaluation on eval.split, the curve's row and a line to `log` (not NULL). A trial that has
 * failed is left as it is. */
int trial_epoch_end(struct trial *t, double train_seconds, FILE *log, struct fox_err *e);
/* trial_epoch_end of n trials trained together (a population's members), their evaluations
 * at once (agent_backtest_many: one launch on CUDA), its counts shared equally. */
int trial_epochs_end(struct trial *const *ts, int n, double train_seconds, FILE *log,
                     struct fox_err *e);
/* The trial has failed: status FOX_TRIAL_FAILED, the reason from fmt (an epoch, then a count
 * of transitions). */
void trial_fail(struct trial *t, const char *fmt, int epoch, long transitions);
void trial_result_free(struct trial_result *r);
/* Environment steps in one epoch (steps_per_epoch, or the train split's bars for auto). */
int64_t trial_steps_per_epoch(const struct config *cfg, const struct dataset *ds);
/* PPO's rollouts over the whole run. */
long trial_ppo_updates(const struct config *cfg, const struct dataset *ds);
/* Before any work: splits big enough, a run that can learn at all (a PPO rollout that
 * finishes, DQN updates after learning_starts), a reward.scale auto that resolves. `path`
 * names the dataset in messages. */
int trial_check(const struct config *cfg, const struct dataset *ds, const char *path,
                struct fox_err *e);
/* reward.scale auto (stored as 0) becomes the number it stands for on this dataset: 1 / the
 * std of the train split's one-bar log returns (dataset_return_std), so that a bar's reward is
 * of order one. A number set by the user stays. trial_open does this; the result is what
 * trial.h5 and the study record. */
int trial_resolve_reward(struct config *cfg, const struct dataset *ds, struct fox_err *e);
/* Selects cfg's data.features in ds (the 51 built-in ones when not given) and sets
 * cfg->market.nfeat: FOX_EDATA naming `where` and every name the dataset lacks. */
int trial_select_features(struct config *cfg, struct dataset *ds, const char *where,
                          struct fox_err *e);
/* The trial's derived seeds: streams for the environments and the agent. */
uint64_t trial_seed(const struct config *cfg, int stream);

#endif
