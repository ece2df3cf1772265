/* The training loop of a trial, one piece of code for every backend: vectorised environments
 * and the agent's buffers, networks and updates all in the backend's memory, so a vector step
 * makes no host round trip (the losses are read once per epoch); a greedy backtest after
 * every epoch. */
#include "train/trial.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "env/venv.h"
#include "train/pop.h"

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t trial_steps_per_epoch(const struct config *cfg, const struct dataset *ds) {
  return cfg->steps_per_epoch > 0 ? cfg->steps_per_epoch
                                   : ds->split[FOX_SPLIT_TRAIN][1] - ds->split[FOX_SPLIT_TRAIN][0];
}

/* Vector steps of one epoch: the loop below runs exactly these. */
static int64_t vec_steps_(const struct config *cfg, const struct dataset *ds) {
  int64_t per_epoch = trial_steps_per_epoch(cfg, ds);
  return (per_epoch + cfg->num_envs - 1) / cfg->num_envs;
}

long trial_ppo_updates(const struct config *cfg, const struct dataset *ds) {
  return (long)(vec_steps_(cfg, ds) * cfg->epochs / cfg->ppo.n_steps);
}

int trial_check(const struct config *cfg, const struct dataset *ds, const char *path,
                struct fox_err *e) {
  int64_t eb = ds->split[cfg->eval_split][1] - ds->split[cfg->eval_split][0];
  if (eb < 2 * cfg->eval_folds)
    return fox_errf(e, FOX_EDATA, "%s: the %s split (eval.split) has %lld bars, evaluation in "
                                  "%d fold%s (eval.folds) needs >= %d", path,
                    dataset_split_name(cfg->eval_split), (long long)eb, cfg->eval_folds,
                    cfg->eval_folds > 1 ? "s" : "", 2 * cfg->eval_folds);
  int64_t tb = ds->split[FOX_SPLIT_TRAIN][1] - ds->split[FOX_SPLIT_TRAIN][0];
  if (tb < 2)
    return fox_errf(e, FOX_EDATA, "%s: the train split has %lld bars, training needs >= 2",
                    path, (long long)tb);
  int64_t transitions = vec_steps_(cfg, ds) * cfg->num_envs * cfg->epochs;
  if (cfg->algo == FOX_ALGO_PPO && trial_ppo_updates(cfg, ds) < 1)
    return fox_errf(e, FOX_EUSAGE,
                    "ppo.n_steps %d x env.num_envs %d is more than the run's %lld transitions "
                    "(train.epochs x train.steps_per_epoch): no rollout would finish",
                    cfg->ppo.n_steps, cfg->num_envs, (long long)transitions);
  double sd;
  struct fox_err se = {0};
  if (!(cfg->market.reward_scale > 0) && dataset_return_std(ds, FOX_SPLIT_TRAIN, &sd, &se) != 0)
    return fox_errf(e, FOX_EDATA, "%s: reward.scale auto (1 / std of the train split's one-bar "
                                  "log returns) is undefined: the close never moves there; set "
                                  "reward.scale to a number", path);
  if (cfg->algo == FOX_ALGO_DQN && cfg->dqn.learning_starts >= transitions)
    return fox_errf(e, FOX_EUSAGE,
                    "dqn.learning_starts %d is not below the run's %lld transitions "
                    "(train.epochs x train.steps_per_epoch): no update would run",
                    cfg->dqn.learning_starts, (long long)transitions);
  return 0;
}

int trial_resolve_reward(struct config *cfg, const struct dataset *ds, struct fox_err *e) {
  if (cfg->market.reward_scale > 0)
    return 0;
  double sd;
  FOX_TRY(dataset_return_std(ds, FOX_SPLIT_TRAIN, &sd, e));
  cfg->market.reward_scale = 1.0 / sd;
  return 0;
}

uint64_t trial_seed(const struct config *cfg, int stream) {
  return rng_hash2(cfg->seed, (uint64_t)stream);
}

void trial_result_free(struct trial_result *r) {
  free(r->curve);
  memset(r, 0, sizeof *r);
}

void trial_fail(struct trial *t, const char *fmt, int epoch, long transitions) {
  t->r.status = FOX_TRIAL_FAILED;
  snprintf(t->r.reason, sizeof t->r.reason, fmt, epoch, transitions);
}

int trial_open(struct trial *t, const struct config *cfg, const struct dataset *ds,
               const struct backend *be, const struct device_dataset *dev, struct fox_err *e) {
  memset(t, 0, sizeof *t);
  t->loss = NAN;
  t->cfg = *cfg;
  FOX_TRY(trial_resolve_reward(&t->cfg, ds, e));
  cfg = &t->cfg;
  t->ds = ds;
  t->be = be;
  t->dev = dev;
  int n = cfg->num_envs;
  t->vec_steps = (long)vec_steps_(cfg, ds);
  t->total = t->vec_steps * n * cfg->epochs;
  t->r.curve = calloc((size_t)cfg->epochs, sizeof *t->r.curve);
  if (!t->r.curve) {
    trial_close(t);
    return fox_errf(e, FOX_EFAIL, "trial: out of memory for %d environments", n);
  }
  int rc = agent_create(&t->ag, cfg, be, dev, t->total, trial_seed(cfg, 2), e);
  if (rc != 0) {
    trial_close(t);
    return rc;
  }
  rc = venv_create(&t->venv, be, dev, &cfg->market, n, cfg->episode_bars,
                   ds->split[FOX_SPLIT_TRAIN][0], ds->split[FOX_SPLIT_TRAIN][1],
                   trial_seed(cfg, 1), e);
  if (rc == 0)
    rc = venv_reset(&t->venv, e);
  if (rc != 0)
    trial_close(t);
  return rc;
}

void trial_close(struct trial *t) {
  if (t->ag.dqn.online.ops || t->ag.ppo.actor.ops)
    agent_free(&t->ag);
  venv_free(&t->venv);
  trial_result_free(&t->r);
  backtest_free(&t->last);
  memset(t, 0, sizeof *t);
}

int trial_epoch_end(struct trial *t, double train_seconds, FILE *log, struct fox_err *e) {
  const struct config *cfg = &t->cfg;
  struct trial_result *out = &t->r;
  if (out->status != FOX_TRIAL_COMPLETE)
    return 0;
  int ep = out->epochs_done, finite;
  double t0 = now_();
  FOX_TRY(agent_finite(&t->ag, &finite, e));
  if (!finite) {
    trial_fail(t, "diverged: a weight is not finite after epoch %d (%ld transitions)", ep + 1,
               out->transitions);
    return 0;
  }
  struct backtest_run run;
  int rc = agent_backtest(&t->ag, t->be, t->ds, t->dev, cfg, cfg->eval_split, cfg->eval_folds,
                          &run, e);
  struct backend_counts c = counters_take();
  counters_add(&out->eval_counts, &c);
  FOX_TRY(rc);
  struct epoch_row *row = &out->curve[ep];
  row->epoch = ep + 1;
  row->seconds = train_seconds + (now_() - t0);
  row->env_steps_per_s = (double)(t->vec_steps * cfg->num_envs) / train_seconds;
  row->loss = t->loss;
  row->members = out->pop_members;
  row->eval = run.mean;
  out->final = run.mean;
  out->epochs_done = ep + 1;
  backtest_free(&t->last);
  t->last = run;
  if (log)
    fprintf(log, "epoch %3d/%d  %10.0f env-steps/s  loss %-11.5g  %s.sharpe %-9.4g  "
                 "%s.total_return %.5g\n",
            ep + 1, cfg->epochs, row->env_steps_per_s, row->loss,
            dataset_split_name(cfg->eval_split), row->eval.sharpe,
            dataset_split_name(cfg->eval_split), row->eval.total_return);
  return 0;
}

/* A trial alone is a population of one: the one training path. */
int trial_advance(struct trial *t, int to_epoch, FILE *log, const volatile sig_atomic_t *stop,
                  struct fox_err *e) {
  if (to_epoch > t->cfg.epochs)
    to_epoch = t->cfg.epochs;
  if (t->r.epochs_done >= to_epoch || t->r.status != FOX_TRIAL_COMPLETE)
    return 0;
  struct pop p;
  pop_init(&p, t->be, 1);
  int rc = pop_add(&p, t, e);
  while (rc == 0 && t->r.epochs_done < to_epoch && t->r.status == FOX_TRIAL_COMPLETE) {
    double seconds;
    rc = pop_train_epoch(&p, stop, &seconds, e);
    if (rc == 0)
      rc = trial_epoch_end(t, seconds, log, e);
  }
  pop_free(&p);
  return rc;
}

int trial_run(struct trial *t, const struct config *cfg, const struct dataset *ds,
              const struct backend *be, const struct device_dataset *dev, FILE *log,
              struct fox_err *e) {
  FOX_TRY(trial_open(t, cfg, ds, be, dev, e));
  return trial_advance(t, cfg->epochs, log, NULL, e);
}
