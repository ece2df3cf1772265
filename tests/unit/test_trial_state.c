/* Trial checkpoints: a trial trained 1 epoch, saved, loaded into a fresh process-like trial and
 * trained on must equal the same trial trained without a stop, bit for bit (weights, Adam,
 * curve), for DQN (plain and dueling, replay wrapped) and PPO (the epoch ending mid-rollout).
 * A checkpoint of another shape, activation or reward scale is refused. A PBT exploit through
 * an in-memory image continues as from the file, and copy_buffers false swaps in another
 * trial's experience only. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/synth.h"
#include "fox_check.h"
#include "train/solo.h"
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
  struct config vloss = *cfg; /* PPO: a critic trained with another value loss */
  vloss.ppo.value_loss =
      vloss.ppo.value_loss == FOX_VLOSS_MAX ? FOX_VLOSS_UNCLIPPED : FOX_VLOSS_MAX;
  const struct {
    const struct config *c;
    const char *says;
  } refused[3] = {{&act, "activation"}, {&scaled, "reward.scale"}, {&vloss, "ppo.value_loss"}};
  for (int k = 0; k < (cfg->algo == FOX_ALGO_PPO ? 3 : 2); k++) {
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

/* The replay ring's bars and rewards (DQN), or the rollout's step (PPO): whose experience it is. */
static double *experience_(struct trial *t, size_t *n) {
  struct fox_err e = {0};
  if (t->ag.algo != FOX_ALGO_DQN) {
    double *x = malloc(sizeof *x);
    x[0] = t->ag.ppo.t;
    *n = 1;
    return x;
  }
  const struct replay *b = &t->ag.dqn.rb;
  size_t k = b->size ? b->size : 1;
  int32_t *bar = malloc(k * sizeof *bar);
  float *pf = malloc(k * 6 * sizeof *pf), *r = malloc(k * sizeof *r);
  uint8_t *a = malloc(k), *term = malloc(k);
  CHECK(replay_download(b, bar, pf, r, a, term, &e) == 0, "%s", e.msg);
  double *x = malloc((2 * b->size + 1) * sizeof *x);
  for (size_t i = 0; i < b->size; i++)
    x[i] = bar[i], x[b->size + i] = r[i];
  x[2 * b->size] = (double)b->pos;
  *n = 2 * b->size + 1;
  free(bar), free(pf), free(r), free(a), free(term);
  return x;
}

/* A PBT exploit: trial B (another learning rate) continues from A's state held in memory (an
 * HDF5 image, as one rank hands it to another) exactly as from A's checkpoint file; with
 * copy_buffers false it takes A's agent and C's experience. */
static void exploit_(const char *what, struct config *cfg) {
  struct fox_err e = {0};
  struct config ca = *cfg, cb = *cfg, cc = *cfg;
  cc.seed = 99;
  if (cb.algo == FOX_ALGO_DQN)
    cb.dqn.lr *= 1.2;
  else
    cb.ppo.lr *= 0.8;
  struct trial a, c, b1, b2, d;
  CHECK(trial_open(&a, &ca, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_advance(&a, 1, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_open(&c, &cc, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_advance(&c, 1, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  void *ia = NULL, *ic = NULL;
  size_t la = 0, lc = 0;
  CHECK(trial_state_image(&a, &ia, &la, &e) == 0 && la > 0, "%s: %s", what, e.msg);
  CHECK(trial_state_image(&c, &ic, &lc, &e) == 0 && lc > 0, "%s: %s", what, e.msg);
  CHECK(trial_state_save(&a, path_, &e) == 0, "%s: %s", what, e.msg);
  /* from the image and from the file: the same continuation, bit for bit */
  CHECK(trial_open(&b1, &cb, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load_image(&b1, ia, la, "image", NULL, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_open(&b2, &cb, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load(&b2, path_, &e) == 0, "%s: %s", what, e.msg);
  size_t n1, n2, na;
  float *wa = weights_(&a, &na), *w1 = weights_(&b1, &n1);
  CHECK(n1 == na && memcmp(wa, w1, na * sizeof *wa) == 0, "%s: the image carries A's networks "
                                                          "and Adam", what);
  free(w1);
  CHECK(trial_advance(&b1, 3, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_advance(&b2, 3, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  w1 = weights_(&b1, &n1);
  float *w2 = weights_(&b2, &n2);
  CHECK(n1 == n2 && memcmp(w1, w2, n1 * sizeof *w1) == 0, "%s: image = file", what);
  CHECK(memcmp(w1, wa, na * sizeof *wa) != 0, "%s: and it trained on", what);
  CHECK(b1.r.curve[0].loss == a.r.curve[0].loss && b1.r.epochs_done == 3,
        "%s: the curve so far is A's", what);
  free(w1), free(w2);
  /* A's agent, C's experience */
  CHECK(trial_open(&d, &cb, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load_image(&d, ia, la, "image", NULL, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load_buffers(&d, ic, lc, "image c", NULL, &e) == 0, "%s: %s", what, e.msg);
  float *wd = weights_(&d, &n1);
  CHECK(n1 == na && memcmp(wd, wa, na * sizeof *wa) == 0, "%s: the agent stays A's", what);
  size_t xd, xc, xa;
  double *ed = experience_(&d, &xd), *ec = experience_(&c, &xc), *ea = experience_(&a, &xa);
  CHECK(xd == xc && memcmp(ed, ec, xd * sizeof *ed) == 0, "%s: the experience is C's", what);
  if (cfg->algo == FOX_ALGO_DQN)
    CHECK(xa != xc || memcmp(ea, ec, xa * sizeof *ea) != 0, "%s: A's and C's differ", what);
  CHECK(trial_advance(&d, 3, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  /* The same exploit with A and C still open: their arrays copied within the backend, the
   * same member after it trained on (and a held trial of the other agent refused). */
  struct trial h;
  CHECK(trial_open(&h, &cb, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load_image(&h, ia, la, "image", &a, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load_buffers(&h, ic, lc, "image c", &c, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_advance(&h, 3, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  free(wd);
  wd = weights_(&d, &n1);
  float *wh = weights_(&h, &n2);
  CHECK(n1 == n2 && memcmp(wd, wh, n1 * sizeof *wd) == 0, "%s: held = image", what);
  CHECK(h.r.transitions == d.r.transitions && h.r.curve[2].loss == d.r.curve[2].loss,
        "%s: held = image (curve)", what);
  free(wh);
  trial_close(&h);
  struct config co = *cfg;
  co.algo = cfg->algo == FOX_ALGO_DQN ? FOX_ALGO_PPO : FOX_ALGO_DQN;
  struct trial o;
  CHECK(trial_open(&o, &co, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_open(&h, &cb, &ds_, backend_cpu(), &dev_, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_state_load_image(&h, ia, la, "image", &o, &e) == FOX_EDATA &&
            strstr(e.msg, "another agent"), "%s: held of another agent: %s", what, e.msg);
  fox_err_clear(&e);
  trial_close(&h), trial_close(&o);
  free(wd), free(ed), free(ec), free(ea), free(wa);
  free(ia), free(ic);
  trial_close(&a), trial_close(&c), trial_close(&b1), trial_close(&b2), trial_close(&d);
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
  exploit_("dqn exploit", &cfg);
  cfg.dqn.dueling = 1, cfg.dqn.tau = 0.5, cfg.market.reward_normalize = 1;
  same_run_("dqn dueling, soft target, normalised rewards", &cfg);

  config_defaults(&cfg);
  cfg.algo = FOX_ALGO_PPO;
  cfg.num_envs = 8, cfg.episode_bars = 300, cfg.epochs = 3, cfg.steps_per_epoch = 1000;
  cfg.ppo.n_steps = 48; /* 125 vector steps an epoch: the rollout straddles the epochs */
  cfg.ppo.hidden[0] = cfg.ppo.hidden[1] = 16;
  same_run_("ppo", &cfg);
  exploit_("ppo exploit", &cfg);

  remove(path_);
  backend_cpu()->dataset_release(&dev_);
  dataset_free(&ds_);
  return fox_check_done("test_trial_state");
}
