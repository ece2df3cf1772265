/* Whole trials on the CUDA backend against the CPU backend: the same config, seed and dataset
 * must give the same training (the loss of every epoch), the same networks and the same
 * evaluation. Every step of the loop is a backend operation whose arithmetic is one FOX_HD
 * function on both sides; the GEMMs are the only code that differs (OpenBLAS or libxsmm here,
 * cuBLAS there), so on the emulated device (cuBLAS mapped to OpenBLAS) the runs agree to the
 * GEMMs' rounding, and the test bounds that. Cases: DQN (Double, the default), DQN dueling
 * with a soft target, plain DQN, PPO. Skips (77) without a device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/synth.h"
#include "fox_check.h"
#include "train/solo.h"
#include "train/trial.h"

static double max_diff_(const struct net *a, const struct net *b, double *scale) {
  struct fox_err e = {0};
  size_t n = a->n_params;
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  CHECK(net_get_params(a, x, &e) == 0 && net_get_params(b, y, &e) == 0, "%s", e.msg);
  double d = 0, s = 0;
  for (size_t i = 0; i < n; i++) {
    d = fmax(d, fabs((double)x[i] - y[i]));
    s = fmax(s, fabs((double)x[i]));
  }
  free(x), free(y);
  *scale = s;
  return d;
}

static void small_(struct config *c, int algo) {
  config_defaults(c);
  c->algo = algo;
  c->seed = 11;
  c->num_envs = 16;
  c->episode_bars = 200;
  c->epochs = 2;
  c->steps_per_epoch = 1600;
  c->dqn.hidden[0] = c->dqn.hidden[1] = 32;
  c->dqn.learning_starts = 256, c->dqn.batch_size = 32, c->dqn.buffer_size = 1000;
  c->dqn.train_freq = 4, c->dqn.target_update = 25;
  c->ppo.hidden[0] = c->ppo.hidden[1] = 32;
  c->ppo.n_steps = 25, c->ppo.minibatches = 4;
}

/* Several evaluations at once (a population's: agent_backtest_many, one launch on CUDA, a
 * block a fold) under other markets, splits and folds: each the CPU's evaluation alone, bit
 * for bit, and the costs change what the policy does (so a job run under another's market
 * would show). tg holds tc's policy. */
static void many_(const char *name, struct trial *tc, struct trial *tg, const struct dataset *ds,
                  const struct device_dataset *dc, const struct device_dataset *dg,
                  const struct backend *cuda) {
  struct fox_err e = {0};
  struct config cfg[3] = {tc->cfg, tc->cfg, tc->cfg};
  cfg[1].market.fee = 0.004, cfg[1].market.cash_reserve = 0.5;
  cfg[1].market.pt = cfg[1].market.sl = 0.3, cfg[1].market.horizon = 5; /* exits it forces */
  cfg[2].eval_split = FOX_SPLIT_TEST, cfg[2].eval_folds = 2;
  struct backtest_run one[3], all[3];
  struct agent_eval ev[3];
  for (int k = 0; k < 3; k++) {
    CHECK(agent_backtest(&tc->ag, backend_cpu(), ds, dc, &cfg[k], cfg[k].eval_split,
                         cfg[k].eval_folds, &one[k], &e) == 0,
          "%s: %s", name, e.msg);
    ev[k] = (struct agent_eval){&tg->ag, &cfg[k], cfg[k].eval_split, cfg[k].eval_folds, &all[k]};
  }
  CHECK(agent_backtest_many(ev, 3, cuda, ds, dg, &e) == 0, "%s: %s", name, e.msg);
  for (int k = 0; k < 3; k++) {
    size_t nb = (size_t)(one[k].end - one[k].begin);
    CHECK(all[k].end - all[k].begin == (int64_t)nb && all[k].nfolds == one[k].nfolds &&
              memcmp(one[k].actions, all[k].actions, nb) == 0 &&
              memcmp(one[k].equity, all[k].equity, nb * sizeof *one[k].equity) == 0 &&
              memcmp(&one[k].mean, &all[k].mean, sizeof one[k].mean) == 0,
          "%s: evaluation %d of 3 at once is not the CPU's alone", name, k);
  }
  size_t nb = (size_t)(one[0].end - one[0].begin);
  CHECK(memcmp(one[0].actions, one[1].actions, nb) != 0,
        "%s: the policy acts the same under other costs: a weak comparison", name);
  for (int k = 0; k < 3; k++) {
    backtest_free(&one[k]);
    backtest_free(&all[k]);
  }
}

static void compare_(const char *name, const struct config *cfg, const struct dataset *ds,
                     const struct device_dataset *dc, const struct device_dataset *dg,
                     const struct backend *cuda) {
  struct fox_err e = {0};
  struct trial tc, tg;
  CHECK(trial_run(&tc, cfg, ds, backend_cpu(), dc, NULL, &e) == 0, "%s: cpu: %s", name, e.msg);
  CHECK(trial_run(&tg, cfg, ds, cuda, dg, NULL, &e) == 0, "%s: cuda: %s", name, e.msg);
  CHECK(tc.r.status == FOX_TRIAL_COMPLETE && tg.r.status == FOX_TRIAL_COMPLETE,
        "%s: status %d / %d (%s%s)", name, tc.r.status, tg.r.status, tc.r.reason, tg.r.reason);
  for (int ep = 0; ep < cfg->epochs; ep++) {
    double lc = tc.r.curve[ep].loss, lg = tg.r.curve[ep].loss;
    CHECK(isfinite(lc) && fabs(lc - lg) <= 1e-4 * fabs(lc) + 1e-7,
          "%s: epoch %d loss cpu %.9g cuda %.9g", name, ep + 1, lc, lg);
  }
  struct net *pc = agent_policy_net(&tc.ag), *pg = agent_policy_net(&tg.ag);
  double scale, d = max_diff_(pc, pg, &scale);
  printf("%-14s loss %.9g / %.9g  max |w_cpu - w_cuda| %.3g (max |w| %.3g)  sharpe %.9g / "
         "%.9g\n", name, tc.r.curve[cfg->epochs - 1].loss, tg.r.curve[cfg->epochs - 1].loss,
         d, scale, tc.r.final.sharpe, tg.r.final.sharpe);
  CHECK(d <= 1e-4 * scale, "%s: policy weights differ by %g (scale %g)", name, d, scale);
  CHECK(tc.r.transitions == tg.r.transitions, "%s: transitions %ld / %ld", name,
        tc.r.transitions, tg.r.transitions);
  /* The evaluation itself is bit for bit: the CPU's trained policy loaded on the device acts
   * exactly as on the CPU (greedy_eval shares policy_unit), over the whole split. */
  float *w = malloc(pc->n_params * sizeof *w);
  CHECK(net_get_params(pc, w, &e) == 0 && net_set_params(pg, w, &e) == 0, "%s", e.msg);
  free(w);
  struct backtest_run bc, bg;
  CHECK(agent_backtest(&tc.ag, backend_cpu(), ds, dc, &tc.cfg, cfg->eval_split, 1, &bc, &e) == 0 &&
            agent_backtest(&tg.ag, cuda, ds, dg, &tg.cfg, cfg->eval_split, 1, &bg, &e) == 0,
        "%s: %s", name, e.msg);
  size_t nb = (size_t)(bc.end - bc.begin), first = nb;
  for (size_t i = 0; i < nb && first == nb; i++)
    if (bc.actions[i] != bg.actions[i] || bc.equity[i] != bg.equity[i])
      first = i;
  CHECK(first == nb, "%s: the same policy acts differently at bar %zu of %zu", name, first, nb);
  CHECK(memcmp(&bc.mean, &bg.mean, sizeof bc.mean) == 0, "%s: evaluation metrics differ", name);
  size_t trades = 0;
  for (size_t i = 1; i < nb; i++)
    trades += bc.actions[i] != bc.actions[i - 1];
  CHECK(trades > 0, "%s: the policy never changes its action: a weak comparison", name);
  backtest_free(&bc);
  backtest_free(&bg);
  /* Walk-forward folds (eval.folds): each fold's greedy kernel starts flat; the same actions
   * and metrics per fold on both backends, and fold 1 acts from flat where the whole-split
   * run may hold a position. */
  CHECK(agent_backtest(&tc.ag, backend_cpu(), ds, dc, &tc.cfg, cfg->eval_split, 3, &bc, &e) == 0 &&
            agent_backtest(&tg.ag, cuda, ds, dg, &tg.cfg, cfg->eval_split, 3, &bg, &e) == 0,
        "%s: %s", name, e.msg);
  CHECK(bc.nfolds == 3 && memcmp(bc.actions, bg.actions, nb) == 0 &&
            memcmp(bc.equity, bg.equity, nb * sizeof *bc.equity) == 0 &&
            memcmp(bc.fold_metrics, bg.fold_metrics, 3 * sizeof *bc.fold_metrics) == 0,
        "%s: 3 folds: the backends differ", name);
  CHECK(bc.equity[bc.folds[2] - bc.begin] == tc.cfg.market.initial_capital,
        "%s: fold 2 does not start from the initial capital", name);
  backtest_free(&bc);
  backtest_free(&bg);
  many_(name, &tc, &tg, ds, dc, dg, cuda);
  trial_close(&tc);
  trial_close(&tg);
}

int main(void) {
  const struct backend *cuda = backend_cuda();
  if (!cuda || backend_cuda_devices(NULL, 0) == 0) {
    printf("skipped: %s\n", cuda ? "no CUDA device" : "built without CUDA");
    return 77;
  }
  struct fox_err e = {0};
  struct dataset ds;
  struct device_dataset dc, dg;
  CHECK(synth_dataset(&ds, 6000, 3, &e) == 0, "%s", e.msg);
  CHECK(backend_cpu()->dataset_upload(&ds, &dc, &e) == 0, "%s", e.msg);
  CHECK(cuda->dataset_upload(&ds, &dg, &e) == 0, "%s", e.msg);
  struct config cfg;
  small_(&cfg, FOX_ALGO_DQN);
  compare_("dqn double", &cfg, &ds, &dc, &dg, cuda);
  small_(&cfg, FOX_ALGO_DQN);
  cfg.dqn.dueling = 1, cfg.dqn.tau = 0.5, cfg.dqn.target_update = 5;
  /* Epsilon-greedy from the start: after the uniform warm-up (the default, which "dqn double"
   * and "dqn plain" keep) this short run's dueling policy holds one action over the whole
   * split, which would leave the evaluations nothing to differ in. */
  cfg.dqn.uniform_warmup = 0;
  compare_("dqn dueling", &cfg, &ds, &dc, &dg, cuda);
  small_(&cfg, FOX_ALGO_DQN);
  cfg.dqn.double_q = 0;
  compare_("dqn plain", &cfg, &ds, &dc, &dg, cuda);
  small_(&cfg, FOX_ALGO_PPO);
  compare_("ppo", &cfg, &ds, &dc, &dg, cuda);
  backend_cpu()->dataset_release(&dc);
  cuda->dataset_release(&dg);
  dataset_free(&ds);
  return fox_check_done("test_agents_cuda");
}
