/* Checkpoint and resume on every backend this build has (the CPU, and CUDA where a device or
 * the emulation answers): a trial saved and reloaded into a fresh trial at every epoch boundary
 * ends with the weights, Adam's moments, every epoch's loss and evaluation of an uninterrupted
 * one, bit for bit. DQN with update credit carried across epochs, dueling with a soft target
 * and normalised rewards, the replay ring exactly full at position 0; PPO with a rollout that
 * straddles epochs and one that ends at each epoch's end (t = 0 saved). And a checkpoint whose
 * replay bars or environment cursors lie outside the dataset is refused (exit 3's code), not
 * read past the end. Labelled gpu; without a device it checks the CPU backend alone. */
#include <hdf5.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/synth.h"
#include "fox_check.h"
#include "train/solo.h"
#include "train/trial_state.h"

static struct dataset ds_;
static char path_[96];

static float *weights_(struct trial *t, size_t *n) {
  struct net *nets[2];
  if (t->ag.algo == FOX_ALGO_DQN)
    nets[0] = &t->ag.dqn.online, nets[1] = &t->ag.dqn.target;
  else
    nets[0] = &t->ag.ppo.actor, nets[1] = &t->ag.ppo.critic;
  size_t total = 3 * (nets[0]->n_params + nets[1]->n_params);
  float *w = calloc(total, sizeof *w), *p = w;
  struct fox_err e = {0};
  for (int i = 0; i < 2; i++) {
    size_t np = nets[i]->n_params;
    long step;
    CHECK(net_get_params(nets[i], p, &e) == 0, "%s", e.msg);
    CHECK(net_get_adam(nets[i], p + np, p + 2 * np, &step, &e) == 0, "%s", e.msg);
    p += 3 * np;
  }
  *n = total;
  return w;
}

static void same_run_(const char *what, const struct backend *be,
                      const struct device_dataset *dev, struct config *cfg) {
  struct fox_err e = {0};
  struct trial a, b;
  CHECK(trial_open(&a, cfg, &ds_, be, dev, &e) == 0, "%s: %s", what, e.msg);
  CHECK(trial_advance(&a, cfg->epochs, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
  /* Chain: one epoch per segment, a fresh trial each time. */
  CHECK(trial_open(&b, cfg, &ds_, be, dev, &e) == 0, "%s: %s", what, e.msg);
  for (int ep = 1; ep <= cfg->epochs; ep++) {
    CHECK(trial_advance(&b, ep, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
    if (ep == cfg->epochs)
      break;
    CHECK(trial_state_save(&b, path_, &e) == 0, "%s: %s", what, e.msg);
    trial_close(&b);
    CHECK(trial_open(&b, cfg, &ds_, be, dev, &e) == 0, "%s: %s", what, e.msg);
    CHECK(trial_state_load(&b, path_, &e) == 0, "%s: %s", what, e.msg);
  }
  /* Chain again, each segment continuing from the last one's image with its arrays copied
   * within the backend from the last trial, still open (a PBT member on one device). */
  struct trial c, next;
  CHECK(trial_open(&c, cfg, &ds_, be, dev, &e) == 0, "%s: %s", what, e.msg);
  for (int ep = 1; ep <= cfg->epochs; ep++) {
    CHECK(trial_advance(&c, ep, NULL, NULL, &e) == 0, "%s: %s", what, e.msg);
    if (ep == cfg->epochs)
      break;
    void *img = NULL;
    size_t len = 0;
    CHECK(trial_state_image(&c, &img, &len, &e) == 0, "%s: %s", what, e.msg);
    CHECK(trial_open(&next, cfg, &ds_, be, dev, &e) == 0, "%s: %s", what, e.msg);
    CHECK(trial_state_load_image(&next, img, len, "image", &c, &e) == 0, "%s: %s", what, e.msg);
    free(img);
    trial_close(&c);
    c = next;
  }
  size_t na, nb, nc;
  float *wa = weights_(&a, &na), *wb = weights_(&b, &nb), *wc = weights_(&c, &nc);
  CHECK(na == nb && memcmp(wa, wb, na * sizeof *wa) == 0, "%s: weights differ", what);
  CHECK(na == nc && memcmp(wa, wc, na * sizeof *wa) == 0, "%s: weights differ after copies "
                                                          "within the backend", what);
  CHECK(a.r.transitions == c.r.transitions, "%s: transitions (copied)", what);
  for (int ep = 0; ep < cfg->epochs; ep++)
    CHECK(memcmp(&a.r.curve[ep].loss, &c.r.curve[ep].loss, sizeof(double)) == 0,
          "%s: epoch %d loss (copied)", what, ep + 1);
  free(wc);
  trial_close(&c);
  CHECK(a.r.transitions == b.r.transitions, "%s: transitions", what);
  CHECK(a.r.status == b.r.status, "%s: status %d %d", what, a.r.status, b.r.status);
  for (int ep = 0; ep < cfg->epochs; ep++) {
    double la = a.r.curve[ep].loss, lb = b.r.curve[ep].loss;
    CHECK(memcmp(&la, &lb, sizeof la) == 0, "%s: epoch %d loss %.17g vs %.17g", what, ep + 1,
          la, lb);
    CHECK(a.r.curve[ep].eval.sharpe == b.r.curve[ep].eval.sharpe ||
              (isnan(a.r.curve[ep].eval.sharpe) && isnan(b.r.curve[ep].eval.sharpe)),
          "%s: epoch %d sharpe", what, ep + 1);
  }
  printf("%s: losses", what);
  for (int ep = 0; ep < cfg->epochs; ep++)
    printf(" %.9g/%.9g", a.r.curve[ep].loss, b.r.curve[ep].loss);
  printf("\n");
  free(wa), free(wb);
  trial_close(&a);
  trial_close(&b);
}

/* Overwrites a dataset of the saved checkpoint with a value, then expects the load to fail. */
static void refused_(const struct backend *be, const struct device_dataset *dev,
                     struct config *cfg, const char *name, int32_t value, size_t stride) {
  struct fox_err e = {0};
  struct trial t;
  CHECK(trial_open(&t, cfg, &ds_, be, dev, &e) == 0, "%s", e.msg);
  CHECK(trial_advance(&t, 1, NULL, NULL, &e) == 0, "%s", e.msg);
  CHECK(trial_state_save(&t, path_, &e) == 0, "%s", e.msg);
  trial_close(&t);
  hid_t f = H5Fopen(path_, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t sp = H5Dget_space(d);
  hssize_t n = H5Sget_simple_extent_npoints(sp);
  size_t bytes = (size_t)n * (stride ? 1 : sizeof(int32_t));
  unsigned char *buf = malloc(bytes);
  CHECK(H5Dread(d, stride ? H5T_NATIVE_UINT8 : H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                buf) >= 0, "read %s", name);
  /* The first entry: a replay bar, or the first environment's cursor bar (its first field). */
  memcpy(buf, &value, sizeof value);
  CHECK(H5Dwrite(d, stride ? H5T_NATIVE_UINT8 : H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                 buf) >= 0, "write %s", name);
  free(buf);
  H5Sclose(sp), H5Dclose(d), H5Fclose(f);
  CHECK(trial_open(&t, cfg, &ds_, be, dev, &e) == 0, "%s", e.msg);
  int rc = trial_state_load(&t, path_, &e);
  CHECK(rc == FOX_EDATA && (strstr(e.msg, "this dataset") || strstr(e.msg, "train split")),
        "%s = %d: load gave %d (%s)", name, (int)value, rc, rc ? e.msg : "accepted");
  trial_close(&t);
}

int main(void) {
  snprintf(path_, sizeof path_, "/tmp/test_trial_resume_%ld.h5", (long)getpid());
  struct fox_err e = {0};
  CHECK(synth_dataset(&ds_, 8000, 3, &e) == 0, "%s", e.msg);
  const struct backend *bes[2] = {backend_cpu(), backend_cuda()};
  for (int k = 0; k < 2; k++) {
    const struct backend *be = bes[k];
    if (!be || (k == 1 && backend_cuda_devices(NULL, 0) == 0))
      continue;
    struct device_dataset dev;
    CHECK(be->dataset_upload(&ds_, &dev, &e) == 0, "%s", e.msg);
    char name[64];
    struct config cfg;
    config_defaults(&cfg);
    cfg.num_envs = 8, cfg.episode_bars = 300, cfg.epochs = 4, cfg.steps_per_epoch = 1000;
    cfg.dqn.learning_starts = 200, cfg.dqn.batch_size = 32, cfg.dqn.buffer_size = 700;
    cfg.dqn.hidden[0] = cfg.dqn.hidden[1] = 16, cfg.dqn.target_update = 7;
    cfg.dqn.train_freq = 3; /* credit carried across epochs */
    snprintf(name, sizeof name, "%s dqn", be->name);
    same_run_(name, be, &dev, &cfg);
    cfg.dqn.dueling = 1, cfg.dqn.tau = 0.5, cfg.market.reward_normalize = 1;
    snprintf(name, sizeof name, "%s dqn dueling", be->name);
    same_run_(name, be, &dev, &cfg);
    config_defaults(&cfg);
    cfg.algo = FOX_ALGO_PPO;
    cfg.num_envs = 8, cfg.episode_bars = 300, cfg.epochs = 4, cfg.steps_per_epoch = 1000;
    cfg.ppo.n_steps = 48;
    cfg.ppo.hidden[0] = cfg.ppo.hidden[1] = 16;
    snprintf(name, sizeof name, "%s ppo", be->name);
    same_run_(name, be, &dev, &cfg);
    cfg.ppo.n_steps = 25; /* the rollout ends exactly at each epoch's end: t = 0 saved */
    snprintf(name, sizeof name, "%s ppo t=0", be->name);
    same_run_(name, be, &dev, &cfg);
    config_defaults(&cfg);
    cfg.num_envs = 8, cfg.episode_bars = 300, cfg.epochs = 4, cfg.steps_per_epoch = 1000;
    cfg.dqn.learning_starts = 200, cfg.dqn.batch_size = 32, cfg.dqn.buffer_size = 1000;
    cfg.dqn.hidden[0] = cfg.dqn.hidden[1] = 16;
    snprintf(name, sizeof name, "%s dqn ring full, pos 0", be->name);
    same_run_(name, be, &dev, &cfg);
    refused_(be, &dev, &cfg, "/dqn/replay/bar", 1000000, 0);
    refused_(be, &dev, &cfg, "/dqn/replay/bar", -1, 0);
    refused_(be, &dev, &cfg, "/venv/cursor", (int32_t)ds_.n, 1);
    be->dataset_release(&dev);
  }
  remove(path_);
  dataset_free(&ds_);
  return fox_check_done("test_trial_resume");
}
