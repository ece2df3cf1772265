/* Trial checkpoints: a trial trained 1 epoch, saved, loaded into a fresh process-like trial and
 * trained on must equal the same trial trained without a stop, bit for bit (weights, Adam,
 * curve), for DQN (plain and dueling, replay wrapped) and PPO (the epoch ending mid-rollout).
 * A checkpoint of another shape, activation or reward scale is refused. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/synth.h"
#include "fox_check.h"
#include "train/trial_state.h"

static struct dataset ds_;
static struct device_dataset dev_;
static char path_[96];

/* Every parameter and Adam moment of the agent's networks, for comparison. */
static float *weights_(struct trial *t, size_t *n) {
  struct net *nets[3];
  int k = 0;
  if (t->ag.algo == FOX_ALGO_DQN) {
    nets[k++] = &t->ag.dqn.online;
    nets[k++] = &t->ag.dqn.target;
  } else {
    nets[k++] = &t->ag.ppo.actor;
    nets[k++] = &t->ag.ppo.critic;
  }
  size_t total = 0;
  for (int i = 0; i < k; i++)
    total += 3 * nets[i]->n_params;
  float *w = calloc(total, sizeof *w), *p = w;
  struct fox_err e = {0};
  for (int i = 0; i < k; i++) {
    size_t np = nets[i]->n_params;
    long step;
    CHECK(net_get_params(nets[i], p, &e) == 0, "%s", e.msg);
    CHECK(net_get_adam(nets[i], p + np, p + 2 * np, &step, &e) == 0, "%s", e.msg);
    p += 3 * np;
  }
  *n = total;
  return w;
}

static void same_run_(const char *what, struct config *cfg) {
  struct fox_err e = {0};
  struct trial a, b;
  /* Straight through. */
  CHECK(trial_open(&a, cfg, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_advance(&a, cfg->epochs, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  /* Stopped after epoch 1, saved, continued in a new trial. */
  CHECK(trial_open(&b, cfg, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_advance(&b, 1, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_save(&b, path_, &e) == 0, "%s: %s", what, e.msg);
  trial_close(&b);
  CHECK(trial_open(&b, cfg, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load(&b, path_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(b.r.epochs_done == 1, "%s: resumes after epoch 1, got %d", what, b.r.epochs_done);
  CHECK(trial_advance(&b, cfg->epochs, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);

  size_t na, nb;
  float *wa = weights_(&a, &na), *wb = weights_(&b, &nb);
  CHECK(na == nb && memcmp(wa, wb, na * sizeof *wa) == 0, "%s: weights and Adam identical",
        what);
  CHECK(a.r.status == FOX_TRIAL_COMPLETE && b.r.status == FOX_TRIAL_COMPLETE &&
            a.r.epochs_done == cfg->epochs && b.r.epochs_done == cfg->epochs,
        "%s: both complete", what);
  CHECK(a.r.transitions == b.r.transitions, "%s: transitions %ld vs %ld", what,
        a.r.transitions, b.r.transitions);
  for (int ep = 0; ep < cfg->epochs; ep++)
    for (int m = 0; m < FOX_NMETRICS; m++)
      CHECK(metrics_get(&a.r.curve[ep].eval, m) == metrics_get(&b.r.curve[ep].eval, m),
            "%s: epoch %d %s", what, ep + 1, metrics_names[m]);
  CHECK(a.r.curve[1].loss == b.r.curve[1].loss, "%s: loss %.17g vs %.17g", what,
        a.r.curve[1].loss, b.r.curve[1].loss);
  free(wa);
  free(wb);

  /* A checkpoint does not load into a trial of another shape. */
  struct config other = *cfg;
  if (other.algo == FOX_ALGO_DQN)
    other.dqn.hidden[0] += 1;
  else
    other.num_envs += 1;
  trial_close(&b);
  CHECK(trial_open(&b, &other, &ds_, backend_cpu(), &dev_, &e) == 0, "%s", e.msg);
  struct trial c;
  CHECK(trial_open(&c, cfg, &ds_, backend_cpu(), &dev_, &e) == 0, "%s", e.msg);
  CHECK(trial_advance(&c, 1, NULL, NULL, &e) == 0, "%s", e.msg);
  CHECK(trial_state_save(&c, path_, &e) == 0, "%s", e.msg);
  fox_err_clear(&e);
  CHECK(trial_state_load(&b, path_, &e) == FOX_EDATA && strstr(e.msg, path_),
        "%s: a checkpoint of another shape is refused naming the file: %s", what, e.msg);
  /* Nor into a trial whose networks have another activation, or whose rewards another scale
   * (a study resumed by a foxopt whose defaults changed under it). */
  struct config act = *cfg, scaled = *cfg;
  if (act.algo == FOX_ALGO_DQN)
    act.dqn.activation = !act.dqn.activation;
  else
    act.ppo.activation = !act.ppo.activation;
  scaled.market.reward_scale = 3.0;
  const struct {
    const struct config *c;
    const char *says;
  } refused[2] = {{&act, "activation"}, {&scaled, "reward.scale"}};
  for (int k = 0; k < 2; k++) {
    struct trial d;
    CHECK(trial_open(&d, refused[k].c, &ds_, backend_cpu(), &dev_, &e) == 0, "%s", e.msg);
    fox_err_clear(&e);
    CHECK(trial_state_load(&d, path_, &e) == FOX_EDATA && strstr(e.msg, refused[k].says),
          "%s: a checkpoint of another %s is refused: %s", what, refused[k].says, e.msg);
    trial_close(&d);
  }
  trial_close(&c);
  trial_close(&a);
  trial_close(&b);
}

int main(void) {
  snprintf(path_, sizeof path_, "/tmp/fox_ckpt_%ld.h5", (long)getpid());
  struct fox_err e = {0};
  CHECK(synth_dataset(&ds_, 8000, 3, &e) == 0, "%s", e.msg);
  CHECK(backend_cpu()->dataset_upload(&ds_, &dev_, &e) == 0, "%s", e.msg);

  struct config cfg;
  config_defaults(&cfg);
  cfg.num_envs = 8, cfg.episode_bars = 300, cfg.epochs = 3, cfg.steps_per_epoch = 1000;
  cfg.dqn.learning_starts = 200, cfg.dqn.batch_size = 32, cfg.dqn.buffer_size = 700;
  cfg.dqn.hidden[0] = cfg.dqn.hidden[1] = 16, cfg.dqn.target_update = 7;
  same_run_("dqn", &cfg);
  cfg.dqn.dueling = 1, cfg.dqn.tau = 0.5, cfg.market.reward_normalize = 1;
  same_run_("dqn dueling, soft target, normalised rewards", &cfg);

  config_defaults(&cfg);
  cfg.algo = FOX_ALGO_PPO;
  cfg.num_envs = 8, cfg.episode_bars = 300, cfg.epochs = 3, cfg.steps_per_epoch = 1000;
  cfg.ppo.n_steps = 48; /* 125 vector steps an epoch: the rollout straddles the epochs */
  cfg.ppo.hidden[0] = cfg.ppo.hidden[1] = 16;
  same_run_("ppo", &cfg);

  remove(path_);
  backend_cpu()->dataset_release(&dev_);
  dataset_free(&ds_);
  return fox_check_done("test_trial_state");
}
