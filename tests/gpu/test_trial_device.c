/* The training loop on the device, held to its budget: (1) the host round trips of training
 * (synchronisations and device-to-host bytes) do not grow with train.steps_per_epoch, only
 * with epochs, and nothing goes up; (2) chunks of steps captured as graphs and replayed
 * (train.graphs) give the trial of kernels launched one by one bit for bit, the device running
 * the same kernels for far fewer host calls; (3) two trials in two threads on one device give
 * exactly what each gives alone (every launch and copy in the thread's own stream). Skips (77)
 * without a device. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "data/synth.h"
#include "backend/agent_ops.h"
#include "dqn_step.h"
#include "fox_check.h"
#include "train/solo.h"
#include "train/trial.h"

static struct dataset ds_;
static struct device_dataset dev_;
static const struct backend *cuda_;

static void small_(struct config *c, int algo, int64_t steps) {
  config_defaults(c);
  c->algo = algo;
  c->seed = 5;
  c->num_envs = 16;
  c->episode_bars = 200;
  c->epochs = 2;
  c->steps_per_epoch = steps;
  c->dqn.hidden[0] = c->dqn.hidden[1] = 32;
  c->dqn.learning_starts = 256, c->dqn.batch_size = 32, c->dqn.buffer_size = 1000;
  c->dqn.train_freq = 4, c->dqn.target_update = 25;
  c->ppo.hidden[0] = c->ppo.hidden[1] = 32;
  c->ppo.n_steps = 25, c->ppo.minibatches = 4;
}

/* The syncs and bytes of a trial's training with steps_per_epoch `steps`. */
static struct backend_counts train_counts_(int algo, int64_t steps) {
  struct fox_err e = {0};
  struct config cfg;
  small_(&cfg, algo, steps);
  struct trial t;
  CHECK(trial_run(&t, &cfg, &ds_, cuda_, &dev_, NULL, &e) == 0, "%s", e.msg);
  CHECK(t.r.status == FOX_TRIAL_COMPLETE, "%s", t.r.reason);
  struct backend_counts c = t.r.train_counts;
  trial_close(&t);
  return c;
}

static void counts_flat_(int algo, const char *name) {
  struct backend_counts a = train_counts_(algo, 800), b = train_counts_(algo, 2400);
  printf("%s: steps_per_epoch 800: %llu host calls, %llu kernels, %llu syncs, %llu B down, "
         "%llu B up; 2400: %llu calls, %llu kernels, %llu syncs, %llu B down, %llu B up\n", name,
         (unsigned long long)counters_calls(&a), (unsigned long long)a.nodes,
         (unsigned long long)a.syncs, (unsigned long long)a.d2h_bytes,
         (unsigned long long)a.h2d_bytes, (unsigned long long)counters_calls(&b),
         (unsigned long long)b.nodes, (unsigned long long)b.syncs,
         (unsigned long long)b.d2h_bytes, (unsigned long long)b.h2d_bytes);
  CHECK(b.nodes > 2 * a.nodes, "%s: kernels %llu then %llu: the loop did not run on the device",
        name, (unsigned long long)a.nodes, (unsigned long long)b.nodes);
  CHECK(a.syncs == 2 && b.syncs == 2, "%s: %llu and %llu syncs in 2 epochs (want 1 per epoch)",
        name, (unsigned long long)a.syncs, (unsigned long long)b.syncs);
  /* The epoch's one read: the loss accumulator and the agent's clock behind it. */
  size_t clock = algo == FOX_ALGO_DQN ? sizeof(struct dqn_clock) : sizeof(struct ppo_clock);
  CHECK(a.d2h_bytes == b.d2h_bytes && a.d2h_bytes == 2 * (FOX_ACC_N * sizeof(double) + clock),
        "%s: %llu and %llu bytes to the host", name, (unsigned long long)a.d2h_bytes,
        (unsigned long long)b.d2h_bytes);
  /* Up: nothing per step; a population's table of its members (backend/pop_ops.h), once
   * when it forms (a few hundred bytes a member). */
  CHECK(a.h2d_bytes == b.h2d_bytes && a.h2d_bytes > 0 && a.h2d_bytes <= 1024u,
        "%s: %llu and %llu bytes to the device", name, (unsigned long long)a.h2d_bytes,
        (unsigned long long)b.h2d_bytes);
}

/* A trial with graphs and without: the same losses, weights and evaluations bit for bit, the
 * device running the same kernels, far fewer host calls. */
static void graphs_same_(const char *name, struct config *cfg) {
  struct fox_err e = {0};
  struct trial t[2];
  float *w[2];
  size_t np = 0;
  for (int g = 0; g < 2; g++) {
    cfg->graphs = g;
    CHECK(trial_run(&t[g], cfg, &ds_, cuda_, &dev_, NULL, &e) == 0, "%s: %s", name, e.msg);
    struct net *p = agent_policy_net(&t[g].ag);
    np = p->n_params;
    w[g] = malloc(np * sizeof *w[g]);
    CHECK(net_get_params(p, w[g], &e) == 0, "%s", e.msg);
  }
  const struct backend_counts *off = &t[0].r.train_counts, *on = &t[1].r.train_counts;
  int same = t[0].r.status == FOX_TRIAL_COMPLETE && t[1].r.status == FOX_TRIAL_COMPLETE &&
             !memcmp(w[0], w[1], np * sizeof *w[0]);
  for (int ep = 0; ep < cfg->epochs; ep++)
    same &= !memcmp(&t[0].r.curve[ep].loss, &t[1].r.curve[ep].loss, sizeof(double)) &&
            !memcmp(&t[0].r.curve[ep].eval, &t[1].r.curve[ep].eval, sizeof(struct metrics));
  CHECK(same, "%s: graphs change the trial (losses %.17g / %.17g)", name, t[0].r.curve[0].loss,
        t[1].r.curve[0].loss);
  CHECK(on->nodes == off->nodes && on->graph_launches > 0 && off->graph_launches == 0 &&
            t[1].r.graphs_replayed > 0,
        "%s: kernels %llu with graphs, %llu without; %llu graph launches, %ld replays", name,
        (unsigned long long)on->nodes, (unsigned long long)off->nodes,
        (unsigned long long)on->graph_launches, t[1].r.graphs_replayed);
  CHECK(2 * counters_calls(on) < counters_calls(off), "%s: %llu host calls with graphs, %llu "
        "without", name, (unsigned long long)counters_calls(on),
        (unsigned long long)counters_calls(off));
  printf("%s: %llu kernels; host calls %llu one by one, %llu with graphs (%llu launches of %ld "
         "graphs)\n", name, (unsigned long long)on->nodes, (unsigned long long)counters_calls(off),
         (unsigned long long)counters_calls(on), (unsigned long long)on->graph_launches,
         t[1].r.graphs_captured);
  for (int g = 0; g < 2; g++)
    trial_close(&t[g]), free(w[g]);
}

/* Epochs enough for most chunks to be replays: a chunk's shape runs as it is the first time,
 * is captured (its launches still host calls) the second. */
static void graphs_(void) {
  struct config c;
  small_(&c, FOX_ALGO_DQN, 3200);
  c.epochs = 4;
  graphs_same_("dqn (Double)", &c);
  small_(&c, FOX_ALGO_DQN, 3200);
  c.epochs = 4;
  c.dqn.dueling = 1, c.dqn.tau = 0.3, c.dqn.train_freq = 5, c.dqn.double_q = 0;
  graphs_same_("dqn (dueling, soft target, train_freq 5)", &c);
  small_(&c, FOX_ALGO_PPO, 3200);
  c.epochs = 3;
  graphs_same_("ppo (annealed)", &c);
}

struct job_ {
  struct config cfg;
  double loss[2];
  float *w;
  size_t n;
  int rc;
};

static void *run_(void *arg) {
  struct job_ *j = arg;
  struct fox_err e = {0};
  struct trial t;
  j->rc = cuda_->bind(0, &e);
  if (j->rc == 0)
    j->rc = trial_run(&t, &j->cfg, &ds_, cuda_, &dev_, NULL, &e);
  if (j->rc != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return NULL;
  }
  struct net *p = agent_policy_net(&t.ag);
  j->n = p->n_params;
  j->w = malloc(j->n * sizeof *j->w);
  j->rc = net_get_params(p, j->w, &e);
  j->loss[0] = t.r.curve[0].loss, j->loss[1] = t.r.curve[1].loss;
  trial_close(&t);
  return NULL;
}

static void two_threads_(void) {
  struct job_ alone[2] = {0}, together[2] = {0};
  small_(&alone[0].cfg, FOX_ALGO_DQN, 1600);
  small_(&alone[1].cfg, FOX_ALGO_PPO, 1600);
  alone[1].cfg.seed = 8;
  together[0].cfg = alone[0].cfg, together[1].cfg = alone[1].cfg;
  for (int i = 0; i < 2; i++)
    run_(&alone[i]);
  pthread_t th[2];
  for (int i = 0; i < 2; i++)
    CHECK(pthread_create(&th[i], NULL, run_, &together[i]) == 0, "pthread_create");
  for (int i = 0; i < 2; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < 2; i++) {
    CHECK(alone[i].rc == 0 && together[i].rc == 0, "trial %d failed", i);
    CHECK(alone[i].loss[0] == together[i].loss[0] && alone[i].loss[1] == together[i].loss[1],
          "trial %d: losses %.17g %.17g alone, %.17g %.17g beside another", i, alone[i].loss[0],
          alone[i].loss[1], together[i].loss[0], together[i].loss[1]);
    CHECK(alone[i].n == together[i].n &&
              memcmp(alone[i].w, together[i].w, alone[i].n * sizeof(float)) == 0,
          "trial %d: weights differ when another trial shares the device", i);
    free(alone[i].w), free(together[i].w);
  }
}

int main(void) {
  cuda_ = backend_cuda();
  if (!cuda_ || backend_cuda_devices(NULL, 0) == 0) {
    printf("skipped: %s\n", cuda_ ? "no CUDA device" : "built without CUDA");
    return 77;
  }
  struct fox_err e = {0};
  CHECK(synth_dataset(&ds_, 6000, 4, &e) == 0, "%s", e.msg);
  CHECK(cuda_->dataset_upload(&ds_, &dev_, &e) == 0, "%s", e.msg);
  counts_flat_(FOX_ALGO_DQN, "dqn");
  counts_flat_(FOX_ALGO_PPO, "ppo");
  graphs_();
  two_threads_();
  cuda_->dataset_release(&dev_);
  dataset_free(&ds_);
  return fox_check_done("test_trial_device");
}
