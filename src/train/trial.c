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
  t->owner[0] = t->owner[1] = -1;
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

/* The weights' check after an epoch: 1 when t goes on to its evaluation, 0 when it is over
 * (failed before, or diverged now). */
static int evaluable_(struct trial *t, int *go, struct fox_err *e) {
  *go = 0;
  if (t->r.status != FOX_TRIAL_COMPLETE)
    return 0;
  int finite;
  FOX_TRY(agent_finite(&t->ag, &finite, e));
  if (!finite) {
    trial_fail(t, "diverged: a weight is not finite after epoch %d (%ld transitions)",
               t->r.epochs_done + 1, t->r.transitions);
    return 0;
  }
  *go = 1;
  return 0;
}

/* The epoch's row from its evaluation (run, which t keeps). */
static void record_(struct trial *t, double seconds, struct backtest_run *run, FILE *log) {
  const struct config *cfg = &t->cfg;
  struct trial_result *out = &t->r;
  int ep = out->epochs_done;
  struct epoch_row *row = &out->curve[ep];
  row->epoch = ep + 1;
  row->seconds = seconds;
  row->env_steps_per_s = (double)(t->vec_steps * cfg->num_envs) / seconds;
  row->loss = t->loss;
  row->members = out->pop_members;
  row->eval = run->mean;
  out->final = run->mean;
  out->epochs_done = ep + 1;
  backtest_free(&t->last);
  t->last = *run;
  memset(run, 0, sizeof *run);
  if (log)
    fprintf(log, "epoch %3d/%d  %10.0f env-steps/s  loss %-11.5g  %s.sharpe %-9.4g  "
                 "%s.total_return %.5g\n",
            ep + 1, cfg->epochs, row->env_steps_per_s, row->loss,
            dataset_split_name(cfg->eval_split), row->eval.sharpe,
            dataset_split_name(cfg->eval_split), row->eval.total_return);
}

static int ends_(struct trial *const *ts, int n, double train_seconds, FILE *log,
                 struct trial **who, struct agent_eval *ev, struct backtest_run *run,
                 struct fox_err *e);

int trial_epochs_end(struct trial *const *ts, int n, double train_seconds, FILE *log,
                     struct fox_err *e) {
  if (n < 1)
    return 0;
  struct trial **who = calloc((size_t)n, sizeof *who);
  struct agent_eval *ev = calloc((size_t)n, sizeof *ev);
  struct backtest_run *run = calloc((size_t)n, sizeof *run);
  int rc = who && ev && run ? ends_(ts, n, train_seconds, log, who, ev, run, e)
                            : fox_errf(e, FOX_EFAIL, "trial: out of memory for %d epoch ends", n);
  free(who), free(ev), free(run);
  return rc;
}

static int ends_(struct trial *const *ts, int n, double train_seconds, FILE *log,
                 struct trial **who, struct agent_eval *ev, struct backtest_run *run,
                 struct fox_err *e) {
  int m = 0;
  double t0 = now_();
  for (int k = 0; k < n; k++) {
    int go;
    FOX_TRY(evaluable_(ts[k], &go, e));
    if (!go)
      continue;
    struct trial *t = ts[k];
    memset(&run[m], 0, sizeof run[m]);
    ev[m] = (struct agent_eval){&t->ag, &t->cfg, t->cfg.eval_split, t->cfg.eval_folds, &run[m]};
    who[m++] = t;
  }
  if (!m)
    return 0;
  /* Every member's evaluation at once (one launch on CUDA), its counts shared equally. */
  int rc = agent_backtest_many(ev, m, who[0]->be, who[0]->ds, who[0]->dev, e);
  struct backend_counts c = counters_take();
  for (int k = 0; k < m; k++) {
    struct backend_counts s = counters_share(&c, k, m);
    counters_add(&who[k]->r.eval_counts, &s);
  }
  double seconds = train_seconds + (now_() - t0);
  for (int k = 0; k < m; k++) {
    if (rc == 0)
      record_(who[k], seconds, &run[k], log);
    backtest_free(&run[k]);
  }
  return rc;
}

int trial_epoch_end(struct trial *t, double train_seconds, FILE *log, struct fox_err *e) {
  return trial_epochs_end(&t, 1, train_seconds, log, e);
}

int trial_select_features(struct config *cfg, struct dataset *ds, const char *where,
                          struct fox_err *e) {
  char (*names)[64] = malloc(FOX_FEATURES_MAX * sizeof *names);
  const char **ptr = malloc(FOX_FEATURES_MAX * sizeof *ptr);
  int rc = names && ptr ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", where);
  int n = rc == 0 ? config_feature_names(cfg, names, FOX_FEATURES_MAX) : 0;
  for (int i = 0; i < n; i++)
    ptr[i] = names[i];
  if (rc == 0)
    rc = dataset_select(ds, ptr, n, where, e);
  if (rc == 0)
    cfg->market.nfeat = ds->nsel;
  free(names);
  free(ptr);
  return rc;
}
