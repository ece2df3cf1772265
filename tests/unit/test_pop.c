/* Populations (src/train/pop.c): populations of 1, 2, 5 and 8 DQN and PPO members, each with
 * its own numbers (seed, learning rate, discount, exploration, target updates, clipping,
 * coefficients, costs, barriers, reward normalisation, episode length, epochs), each member's
 * weights, losses and evaluations bit for bit those of the same trial trained alone; members
 * leave when their epochs are done (a member of 3 epochs among members of 2) and one joins at
 * an epoch boundary after an epoch trained elsewhere; a trial of another shape or out of phase
 * is refused with the reason. `test_pop` runs on the CPU backend, `test_pop cuda` on the CUDA
 * one (gpu label; the emulation's asynchronous engine with the sanitizer in its async
 * variants; 77 without a device). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/synth.h"
#include "act_step.h"
#include "fox_check.h"
#include "backend/pop_ops.h"
#include "train/pop.h"
#include "train/solo.h"
#include "train/trial.h"

#define VARIANTS 8

static struct dataset ds_;
static struct device_dataset dev_;
static const struct backend *be_;

static void base_(struct config *c, int algo) {
  config_defaults(c);
  c->algo = algo;
  c->seed = 5;
  c->num_envs = 8;
  c->episode_bars = 150;
  c->epochs = 2;
  c->steps_per_epoch = 480;
  /* Widths and a batch off the register tiles' multiple of 4 (kernels/pop_kernels.h), so that
   * a member alone and among others runs edge tiles too. */
  c->dqn.hidden[0] = 16, c->dqn.hidden[1] = 10;
  c->dqn.learning_starts = 160, c->dqn.batch_size = 14, c->dqn.buffer_size = 600;
  c->dqn.train_freq = 4, c->dqn.target_update = 20;
  c->ppo.hidden[0] = 16, c->ppo.hidden[1] = 10;
  c->ppo.n_steps = 15, c->ppo.minibatches = 4;
}

/* Variant v of the base: the members' own numbers, never the shape. */
static void variant_(struct config *c, int algo, int v) {
  base_(c, algo);
  c->seed = 5 + (uint64_t)v * 7;
  switch (v) {
  case 1:
    c->dqn.lr = c->ppo.lr = 1e-3;
    break;
  case 2:
    c->dqn.gamma = c->ppo.gamma = 0.9;
    c->market.fee = 0.001;
    break;
  case 3:
    c->dqn.eps_start = 0.5, c->dqn.eps_fraction = 0.2;
    c->ppo.clip = 0.1, c->ppo.ent_coef = 0.0, c->ppo.value_loss = FOX_VLOSS_CLIPPED;
    c->eval_folds = 3;
    break;
  case 4:
    c->dqn.tau = 0.5, c->dqn.target_update = 10;
    c->eval_split = FOX_SPLIT_TEST;
    c->ppo.vf_coef = 1.0, c->ppo.gae_lambda = 0.9, c->ppo.value_loss = FOX_VLOSS_MAX;
    break;
  case 5:
    c->dqn.max_grad_norm = c->ppo.max_grad_norm = 1.0;
    c->market.reward_normalize = 1;
    c->episode_bars = 100;
    break;
  case 6:
    c->epochs = 3; /* leaves a population of 2-epoch members a epoch later */
    c->dqn.init = c->ppo.init = FOX_INIT_ORTHOGONAL;
    break;
  case 7:
    c->market.spread = 0.001, c->market.pt = 1.0, c->market.sl = 1.0;
    c->ppo.anneal_lr = 0;
    break;
  }
}

/* What a trained trial is: its policy's weights, losses and evaluations. */
struct outcome_ {
  float *w;
  size_t n;
  int epochs;
  double loss[4];
  struct metrics eval[4];
};

static void take_(struct trial *t, struct outcome_ *o) {
  struct fox_err e = {0};
  struct net *p = agent_policy_net(&t->ag);
  o->n = p->n_params;
  o->w = malloc(o->n * sizeof *o->w);
  CHECK(o->w && net_get_params(p, o->w, &e) == 0, "%s", e.msg);
  o->epochs = t->r.epochs_done;
  for (int ep = 0; ep < o->epochs && ep < 4; ep++) {
    o->loss[ep] = t->r.curve[ep].loss;
    o->eval[ep] = t->r.curve[ep].eval;
  }
}

static int same_(const struct outcome_ *a, const struct outcome_ *b) {
  if (a->n != b->n || a->epochs != b->epochs || memcmp(a->w, b->w, a->n * sizeof *a->w))
    return 0;
  for (int ep = 0; ep < a->epochs; ep++)
    if (memcmp(&a->loss[ep], &b->loss[ep], sizeof(double)) ||
        memcmp(&a->eval[ep], &b->eval[ep], sizeof(struct metrics)))
      return 0;
  return 1;
}

static void alone_(int algo, struct outcome_ *out) {
  for (int v = 0; v < VARIANTS; v++) {
    struct fox_err e = {0};
    struct config c;
    variant_(&c, algo, v);
    struct trial t;
    CHECK(trial_run(&t, &c, &ds_, be_, &dev_, NULL, &e) == 0, "variant %d: %s", v, e.msg);
    CHECK(t.r.status == FOX_TRIAL_COMPLETE, "variant %d: %s", v, t.r.reason);
    take_(&t, &out[v]);
    trial_close(&t);
  }
}

static int in_(const struct pop *p, const struct trial *t) {
  for (int k = 0; k < p->cap; k++)
    if (p->m[k] == t)
      return 1;
  return 0;
}

/* Trains the population's members to their epochs, each leaving when done. */
static void train_(struct pop *p, struct trial *t, int m) {
  struct fox_err e = {0};
  while (p->live) {
    double s;
    CHECK(pop_train_epoch(p, NULL, &s, &e) == 0, "%s", e.msg);
    struct trial *in[FOX_POP_MAX];
    int n = 0;
    for (int i = 0; i < m; i++)
      if (in_(p, &t[i]))
        in[n++] = &t[i];
    /* Their evaluations at once (one launch on CUDA), of other folds and costs. */
    CHECK(trial_epochs_end(in, n, s, NULL, &e) == 0, "%s", e.msg);
    for (int i = 0; i < m; i++) {
      if (!in_(p, &t[i]))
        continue;
      CHECK(t[i].r.status == FOX_TRIAL_COMPLETE, "member %d: %s", i, t[i].r.reason);
      CHECK(t[i].r.pop_members >= 1 && t[i].r.pop_members <= m, "member %d: %d members", i,
            t[i].r.pop_members);
      if (t[i].r.epochs_done >= t[i].cfg.epochs || t[i].r.status != FOX_TRIAL_COMPLETE)
        pop_remove(p, &t[i]);
    }
  }
}

/* m members (variants 0 .. m-1) together, each against itself alone. */
static void together_(int algo, int m, const struct outcome_ *alone) {
  struct fox_err e = {0};
  struct trial t[VARIANTS];
  struct pop p;
  pop_init(&p, be_, m);
  for (int v = 0; v < m; v++) {
    struct config c;
    variant_(&c, algo, v);
    CHECK(trial_open(&t[v], &c, &ds_, be_, &dev_, &e) == 0, "%s", e.msg);
    CHECK(pop_add(&p, &t[v], &e) == 0, "%s", e.msg);
  }
  train_(&p, t, m);
  int ok = 0;
  for (int v = 0; v < m; v++) {
    struct outcome_ o;
    take_(&t[v], &o);
    int same = same_(&o, &alone[v]);
    ok += same;
    CHECK(same, "%s population of %d: member %d (variant %d) is not the trial alone (losses "
                "%.17g / %.17g)", algo == FOX_ALGO_DQN ? "dqn" : "ppo", m, v, v, o.loss[0],
          alone[v].loss[0]);
    free(o.w);
    trial_close(&t[v]);
  }
  printf("%s: a population of %d: %d of %d members as alone (%ld graphs captured)\n",
         algo == FOX_ALGO_DQN ? "dqn" : "ppo", m, ok, m, p.chunks.captured);
  pop_free(&p);
}

/* Variant 4 trains its first epoch in a population of its own, then joins variants 0 .. 3 at
 * their first epoch boundary. */
static void join_(int algo, const struct outcome_ *alone) {
  struct fox_err e = {0};
  struct trial t[5];
  struct pop p, q;
  pop_init(&p, be_, 5);
  pop_init(&q, be_, 1);
  for (int v = 0; v < 5; v++) {
    struct config c;
    variant_(&c, algo, v);
    CHECK(trial_open(&t[v], &c, &ds_, be_, &dev_, &e) == 0, "%s", e.msg);
    CHECK(pop_add(v < 4 ? &p : &q, &t[v], &e) == 0, "%s", e.msg);
  }
  double s;
  CHECK(pop_train_epoch(&q, NULL, &s, &e) == 0, "%s", e.msg);
  CHECK(trial_epoch_end(&t[4], s, NULL, &e) == 0, "%s", e.msg);
  pop_remove(&q, &t[4]);
  CHECK(pop_train_epoch(&p, NULL, &s, &e) == 0, "%s", e.msg);
  for (int v = 0; v < 4; v++)
    CHECK(trial_epoch_end(&t[v], s, NULL, &e) == 0, "%s", e.msg);
  CHECK(pop_add(&p, &t[4], &e) == 0, "joining at the boundary: %s", e.msg);
  train_(&p, t, 5);
  for (int v = 0; v < 5; v++) {
    struct outcome_ o;
    take_(&t[v], &o);
    CHECK(same_(&o, &alone[v]), "%s: member %d after a join is not the trial alone",
          algo == FOX_ALGO_DQN ? "dqn" : "ppo", v);
    free(o.w);
    trial_close(&t[v]);
  }
  pop_free(&p);
  pop_free(&q);
}

/* Another shape, or the same shape out of phase: refused, saying why. */
static void refused_(void) {
  struct fox_err e = {0};
  struct config a, b;
  variant_(&a, FOX_ALGO_DQN, 0);
  variant_(&b, FOX_ALGO_DQN, 1);
  CHECK(pop_shape_equal(&a, &b), "variants 0 and 1 are one shape");
  b.dqn.hidden[1] = 24;
  CHECK(!pop_shape_equal(&a, &b), "hidden [16, 24] is another shape than [16, 10]");
  variant_(&b, FOX_ALGO_PPO, 1);
  CHECK(!pop_shape_equal(&a, &b), "PPO is another shape than DQN");
  variant_(&b, FOX_ALGO_DQN, 1);
  b.dqn.batch_size = 32;
  CHECK(!pop_shape_equal(&a, &b), "another batch is another shape");
  struct trial x, y, z;
  variant_(&b, FOX_ALGO_DQN, 1);
  CHECK(trial_open(&x, &a, &ds_, be_, &dev_, &e) == 0 && trial_open(&y, &b, &ds_, be_, &dev_,
                                                                     &e) == 0, "%s", e.msg);
  b.dqn.hidden[1] = 24;
  CHECK(trial_open(&z, &b, &ds_, be_, &dev_, &e) == 0, "%s", e.msg);
  struct pop p;
  pop_init(&p, be_, 3);
  CHECK(pop_add(&p, &x, &e) == 0, "%s", e.msg);
  CHECK(pop_add(&p, &z, &e) == FOX_EUSAGE && strstr(e.msg, "another shape"),
        "a member of another shape: %s", e.msg);
  /* y one epoch ahead: before learning starts its transitions decide, and they differ */
  CHECK(trial_advance(&y, 1, NULL, NULL, &e) == 0, "%s", e.msg);
  fox_err_clear(&e);
  CHECK(pop_add(&p, &y, &e) == FOX_EUSAGE && strstr(e.msg, "out of phase"),
        "a member out of phase: %s", e.msg);
  pop_free(&p);
  trial_close(&x), trial_close(&y), trial_close(&z);
  /* PPO: a rollout's position */
  variant_(&a, FOX_ALGO_PPO, 0);
  variant_(&b, FOX_ALGO_PPO, 1);
  CHECK(trial_open(&x, &a, &ds_, be_, &dev_, &e) == 0 && trial_open(&y, &b, &ds_, be_, &dev_,
                                                                     &e) == 0, "%s", e.msg);
  y.ag.ppo.t = 3;
  char why[160];
  CHECK(!pop_phase_equal(&x, &y, why, sizeof why) && strstr(why, "rollouts stand at steps 0 and 3"),
        "ppo out of phase: %s", why);
  trial_close(&x), trial_close(&y);
}

/* On a backend with population operations (pop_ops.h: the CUDA one), a trial trained through
 * the population's kernels (DQN: acting, storing and updates; PPO: acting, observing and
 * updates; both: the environments' steps) against the same trial made member by member with
 * the agent's own operations (the backend without its `pops`): the same weights and losses to float rounding, over 50 DQN updates of
 * each head (plain, Double, dueling; ReLU and tanh; 1 and 3 hidden layers; widths and batches
 * off the register tiles' multiple of 4, so that edge tiles clamp) and 2 PPO rollouts with
 * their updates (minibatches that leave a row out, and smaller than the environments),
 * with the members' own numbers. Rounding differs (the population's dot
 * products are its own, the member's cuBLAS's), so within 2e-5 relative; a wrong term is far
 * outside (a dropped feature or a changed discount fails every variant). */
static void fused_run_(const struct backend *be, const struct config *c, struct outcome_ *o) {
  struct fox_err e = {0};
  struct trial t;
  CHECK(trial_run(&t, c, &ds_, be, &dev_, NULL, &e) == 0, "%s", e.msg);
  CHECK(t.r.status == FOX_TRIAL_COMPLETE, "%s", t.r.reason);
  take_(&t, o);
  trial_close(&t);
}

/* The largest difference of two weight vectors relative to the largest weight. */
static double gap_(const struct outcome_ *a, const struct outcome_ *b) {
  if (a->n != b->n)
    return INFINITY;
  double scale = 0, gap = 0;
  for (size_t i = 0; i < a->n; i++) {
    scale = fmax(scale, fabs((double)a->w[i]));
    gap = fmax(gap, fabs((double)a->w[i] - (double)b->w[i]));
  }
  return gap / (scale > 0 ? scale : 1);
}

static void fused_(void) {
  if (!be_->pops)
    return;
  struct backend generic = *be_;
  generic.pops = NULL;
  static const char *const names[] = {"plain", "double, one coin, uniform warm-up", "dueling",
                                      "tanh, 1 layer", "3 layers, dueling double",
                                      "widths 7, 10, batch 13, double, 7 environments"};
  for (int s = 0; s < 6; s++)
    for (int v = 0; v < 6; v++) {
      struct config c;
      variant_(&c, FOX_ALGO_DQN, v);
      c.epochs = 1;
      c.steps_per_epoch = 360; /* 50 updates after learning_starts 160 */
      c.dqn.double_q = s == 1 || s == 4 || s == 5;
      c.dqn.dueling = s == 2 || s == 4;
      c.dqn.eps_per_env = s != 1;
      c.dqn.uniform_warmup = s == 1;
      if (s == 3) {
        c.dqn.activation = FOX_ACT_TANH;
        c.dqn.n_hidden = 1;
      }
      if (s == 4) {
        c.dqn.n_hidden = 3;
        c.dqn.hidden[2] = 8;
      }
      if (s == 5) { /* and 7 environments: the acting forward's edge rows */
        c.dqn.hidden[0] = 7, c.dqn.hidden[1] = 10;
        c.dqn.batch_size = 13;
        c.num_envs = 7;
      }
      struct outcome_ f, g;
      fused_run_(be_, &c, &f);
      fused_run_(&generic, &c, &g);
      double gap = gap_(&f, &g), lf = f.loss[0], lg = g.loss[0];
      double lgap = fabs(lf - lg) / fmax(fabs(lg), 1e-12);
      CHECK(gap <= 2e-5 && lgap <= 2e-5 && isfinite(lf),
            "fused DQN update (%s, variant %d): weights %.3g, loss %.3g apart (%.9g, %.9g)",
            names[s], v, gap, lgap, lf, lg);
      if (s == 0 && v == 0)
        printf("fused against member by member (plain, variant 0): weights %.3g, loss %.3g "
               "apart\n", gap, lgap);
      free(f.w), free(g.w);
    }
  /* PPO: acting, observing and the updates through the population's kernels. */
  static const char *const pnames[] = {"relu, 2 layers", "tanh, 1 layer", "3 layers",
                                       "7 minibatches (a row left out)",
                                       "60 minibatches (2 rows, fewer than the environments)",
                                       "widths 7, 10, 7 environments, 9 minibatches of 11 rows"};
  for (int s = 0; s < 6; s++)
    for (int v = 0; v < VARIANTS; v++) {
      struct config c;
      variant_(&c, FOX_ALGO_PPO, v);
      c.epochs = 1;
      c.steps_per_epoch = 240; /* 2 rollouts of 15 steps x 8 environments */
      if (s == 1) {
        c.ppo.activation = FOX_ACT_TANH;
        c.ppo.n_hidden = 1;
      }
      if (s == 2) {
        c.ppo.n_hidden = 3;
        c.ppo.hidden[2] = 8;
      }
      if (s == 3)
        c.ppo.minibatches = 7;
      if (s == 4)
        c.ppo.minibatches = 60;
      if (s == 5) { /* 7 environments: 105 rows a rollout, 9 minibatches of 11 */
        c.ppo.hidden[0] = 7, c.ppo.hidden[1] = 10;
        c.ppo.minibatches = 9;
        c.num_envs = 7;
        c.steps_per_epoch = 210;
      }
      struct outcome_ f, g;
      fused_run_(be_, &c, &f);
      fused_run_(&generic, &c, &g);
      double gap = gap_(&f, &g), lf = f.loss[0], lg = g.loss[0];
      double lgap = fabs(lf - lg) / fmax(fabs(lg), 1e-12);
      CHECK(gap <= 2e-5 && lgap <= 2e-5 && isfinite(lf),
            "fused PPO steps (%s, variant %d): weights %.3g, loss %.3g apart (%.9g, %.9g)",
            pnames[s], v, gap, lgap, lf, lg);
      if (s == 0 && v == 0)
        printf("fused PPO against member by member (variant 0): weights %.3g, loss %.3g "
               "apart\n", gap, lgap);
      free(f.w), free(g.w);
    }
}

int main(int argc, char **argv) {
  int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
  be_ = cuda ? backend_cuda() : backend_cpu();
  if (cuda && (!be_ || backend_cuda_devices(NULL, 0) == 0)) {
    printf("skipped: %s\n", be_ ? "no CUDA device" : "built without CUDA");
    return 77;
  }
  struct fox_err e = {0};
  CHECK(synth_dataset(&ds_, 5000, 4, &e) == 0, "%s", e.msg);
  CHECK(be_->dataset_upload(&ds_, &dev_, &e) == 0, "%s", e.msg);
  static const int sizes[] = {1, 2, 5, 8};
  for (int algo = 0; algo < 2; algo++) {
    struct outcome_ alone[VARIANTS];
    alone_(algo, alone);
    for (int k = 0; k < 4; k++)
      together_(algo, sizes[k], alone);
    join_(algo, alone);
    for (int v = 0; v < VARIANTS; v++)
      free(alone[v].w);
  }
  refused_();
  fused_();
  be_->dataset_release(&dev_);
  dataset_free(&ds_);
  return fox_check_done(cuda ? "test_pop cuda" : "test_pop");
}
