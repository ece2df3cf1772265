/* CUDA vs CPU twin for the market kernels on the same inputs: the fused experience step (states,
 * next states, rewards, dones, labels, portfolios over hundreds of steps and episode restarts)
 * and the backtest kernel (per-bar series and per-fold metrics). Skips (77) without a device. */
#include <stdlib.h>
#include <string.h>

#include "backtest/backtest.h"
#include "data/synth.h"
#include "env/venv.h"
#include "fox_check.h"
#include "train/trial.h"

#define NENV 777
#define STEPS 400

static int close_(double g, double c, double atol, double rtol) {
  return fabs(g - c) <= atol + rtol * fabs(c);
}

static void compare_envs_(const struct backend *cuda, struct dataset *ds,
                          struct device_dataset *dc, struct device_dataset *dg,
                          struct market_params *p) {
  struct fox_err e = {0};
  struct venv vc, vg;
  CHECK(venv_create(&vc, backend_cpu(), dc, p, NENV, 300, ds->split[0][0], ds->split[0][1], 5,
                    &e) == 0, "%s", e.msg);
  CHECK(venv_create(&vg, cuda, dg, p, NENV, 300, ds->split[0][0], ds->split[0][1], 5, &e) == 0,
        "%s", e.msg);
  CHECK(venv_reset(&vc, &e) == 0 && venv_reset(&vg, &e) == 0, "%s", e.msg);
  size_t ns = (size_t)NENV * (FOX_NFEAT + FOX_NPORTFOLIO);
  float *s[2], *nx[2], *r[2];
  uint8_t d[2][NENV], actions[NENV];
  int8_t l[2][NENV];
  struct env_state env[2][NENV];
  for (int b = 0; b < 2; b++) {
    s[b] = malloc(ns * sizeof(float));
    nx[b] = malloc(ns * sizeof(float));
    r[b] = malloc(NENV * sizeof(float));
  }
  size_t bad_state = 0, bad_reward = 0, bad_flag = 0, bad_env = 0, dones = 0, labels = 0;
  srand(7);
  for (int step = 0; step < STEPS; step++) {
    for (int i = 0; i < NENV; i++)
      actions[i] = (uint8_t)(rand() % 10 == 0 ? 1 + rand() % 2 : 0);
    CHECK(venv_step(&vc, actions, VENV_STATES | VENV_NEXT, &e) == 0, "%s", e.msg);
    CHECK(venv_step(&vg, actions, VENV_STATES | VENV_NEXT, &e) == 0, "%s", e.msg);
    CHECK(venv_read(&vc, s[0], nx[0], r[0], d[0], l[0], &e) == 0, "%s", e.msg);
    CHECK(venv_read(&vg, s[1], nx[1], r[1], d[1], l[1], &e) == 0, "%s", e.msg);
    CHECK(venv_read_env(&vc, env[0], NULL, &e) == 0 && venv_read_env(&vg, env[1], NULL, &e) == 0,
          "%s", e.msg);
    for (size_t i = 0; i < ns; i++)
      bad_state += !close_(s[1][i], s[0][i], 1e-5, 1e-5) || !close_(nx[1][i], nx[0][i], 1e-5, 1e-5);
    for (int i = 0; i < NENV; i++) {
      bad_reward += !close_(r[1][i], r[0][i], 1e-7, 1e-5);
      bad_flag += d[1][i] != d[0][i] || l[1][i] != l[0][i];
      bad_env += !close_(env[1][i].cash, env[0][i].cash, 1e-9, 1e-12) ||
                 !close_(env[1][i].units, env[0][i].units, 1e-12, 1e-12) ||
                 !close_(env[1][i].equity, env[0][i].equity, 1e-9, 1e-12);
      dones += d[0][i] != 0;
      labels += l[0][i] != 0;
    }
  }
  CHECK(bad_state == 0, "%zu state values differ", bad_state);
  CHECK(bad_reward == 0, "%zu rewards differ", bad_reward);
  CHECK(bad_flag == 0, "%zu done/label flags differ", bad_flag);
  CHECK(bad_env == 0, "%zu portfolios differ", bad_env);
  CHECK(dones > 0 && labels > 0, "the run exercised restarts (%zu) and barriers (%zu)", dones,
        labels);
  for (int b = 0; b < 2; b++)
    free(s[b]), free(nx[b]), free(r[b]);
  venv_free(&vc);
  venv_free(&vg);
}

static void compare_backtest_(const struct backend *cuda, struct dataset *ds,
                              struct device_dataset *dc, struct device_dataset *dg) {
  struct fox_err e = {0};
  struct config cfg;
  config_defaults(&cfg);
  cfg.experience = FOX_EXP_FULL;
  size_t n = (size_t)(ds->split[0][1] - ds->split[0][0]);
  uint8_t *a = malloc(n);
  for (size_t i = 0; i < n; i++)
    a[i] = (uint8_t)(rand() % 50 == 0 ? 1 + rand() % 2 : 0);
  struct backtest_run rc, rg;
  CHECK(backtest_run(backend_cpu(), ds, dc, &cfg, FOX_SPLIT_TRAIN, 8, a, &rc, &e) == 0, "%s",
        e.msg);
  CHECK(backtest_run(cuda, ds, dg, &cfg, FOX_SPLIT_TRAIN, 8, a, &rg, &e) == 0, "%s", e.msg);
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    bad += !close_(rg.equity[i], rc.equity[i], 1e-9, 1e-12) || rg.labels[i] != rc.labels[i] ||
           rg.position[i] != rc.position[i] || !close_(rg.rewards[i], rc.rewards[i], 1e-7, 1e-5);
  for (size_t i = 0; i < n * (FOX_NFEAT + FOX_NPORTFOLIO); i++)
    bad += !close_(rg.states[i], rc.states[i], 1e-5, 1e-5);
  CHECK(bad == 0, "%zu backtest series values differ", bad);
  for (int j = 0; j < 8; j++)
    for (int m = 0; m < FOX_NMETRICS; m++) {
      double g = metrics_get(&rg.fold_metrics[j], m), c = metrics_get(&rc.fold_metrics[j], m);
      CHECK((isinf(g) && isinf(c)) || close_(g, c, 1e-12, 1e-9), "fold %d %s: cuda %.17g cpu %.17g",
            j, metrics_names[m], g, c);
    }
  CHECK(rc.mean.trades > 0, "trades happened (%g)", rc.mean.trades);
  /* The portfolio simulator on its own: per-bar features and each fold's final portfolio. */
  struct bt_request rq = {cfg.market, 8, rc.folds, a};
  float *pf[2] = {malloc(3 * n * sizeof(float)), malloc(3 * n * sizeof(float))};
  struct env_state fin[2][8];
  CHECK(backend_cpu()->portfolio_sim(dc, &rq, pf[0], fin[0], &e) == 0, "%s", e.msg);
  CHECK(cuda->portfolio_sim(dg, &rq, pf[1], fin[1], &e) == 0, "%s", e.msg);
  bad = 0;
  for (size_t i = 0; i < 3 * n; i++)
    bad += !close_(pf[1][i], pf[0][i], 1e-6, 1e-5);
  for (int j = 0; j < 8; j++)
    bad += !close_(fin[1][j].cash, fin[0][j].cash, 1e-9, 1e-12) ||
           !close_(fin[1][j].equity, fin[0][j].equity, 1e-9, 1e-12) ||
           fin[1][j].entry_bar != fin[0][j].entry_bar;
  CHECK(bad == 0, "%zu portfolio simulator values differ", bad);
  free(pf[0]), free(pf[1]);
  backtest_free(&rc);
  backtest_free(&rg);
  free(a);
}

int main(void) {
  const struct backend *cuda = backend_cuda();
  if (!cuda || backend_cuda_devices(NULL, 0) == 0) {
    printf("skipped: %s\n", cuda ? "no CUDA device" : "built without CUDA");
    return 77;
  }
  struct fox_err e = {0};
  struct dataset ds;
  CHECK(synth_dataset(&ds, 30000, 4, &e) == 0, "%s", e.msg);
  struct device_dataset dc, dg;
  CHECK(backend_cpu()->dataset_upload(&ds, &dc, &e) == 0, "%s", e.msg);
  CHECK(cuda->dataset_upload(&ds, &dg, &e) == 0, "%s", e.msg);
  struct config cfg;
  config_defaults(&cfg);
  CHECK(trial_resolve_reward(&cfg, &ds, &e) == 0, "%s", e.msg); /* reward.scale auto */
  compare_envs_(cuda, &ds, &dc, &dg, &cfg.market);
  cfg.market.reward_normalize = 1;
  cfg.market.bonus = 0.01;
  cfg.market.horizon = 20;
  compare_envs_(cuda, &ds, &dc, &dg, &cfg.market);
  compare_backtest_(cuda, &ds, &dc, &dg);
  cuda->dataset_release(&dg);
  backend_cpu()->dataset_release(&dc);
  dataset_free(&ds);
  return fox_check_done("test_env_kernels");
}
