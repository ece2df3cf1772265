/* CPU market benchmark: the fused experience step (env-steps/s on one core, without state
 * output, with it, and with next states too) and the backtest (bars/s), against a reference run
 * in the same process: a loop that touches the same per-step bytes (OHLC, sigma, the env's
 * state, the outputs) and does no arithmetic, i.e. the memory floor of the step.
 * Fixed-width table; JSON to argv[2]. Run with OMP_NUM_THREADS=1 for per-core figures.
 *   bench_env [DATA.h5] [OUT.json] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backtest/backtest.h"
#include "data/synth.h"
#include "env/venv.h"
#include "train/trial.h"

#define NENV 4096
#define STEPS 1500

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The memory floor: per env-step, read its bar's prices and sigma and its state, write the
 * three outputs and the state back. */
static double reference_(const struct venv *v, uint8_t *actions) {
  const float *px = v->data->prices, *sigma = v->data->sigma;
  double t0 = now_();
  for (int s = 0; s < STEPS; s++)
    for (int i = 0; i < NENV; i++) {
      struct env_cursor *c = &v->cur[i];
      int32_t k = c->t + 1 < c->end ? c->t + 1 : c->t;
      float acc = px[4 * k] + px[4 * k + 1] + px[4 * k + 2] + px[4 * k + 3] + sigma[c->t];
      v->env[i].equity += acc * actions[i];
      v->rewards[i] = acc;
      v->dones[i] = (uint8_t)(k == c->t);
      v->labels[i] = 0;
      c->t = k == c->t ? v->shape.split_b : k;
    }
  return now_() - t0;
}

int main(int argc, char **argv) {
  const char *json = argc > 2 ? argv[2] : "bench_env.json";
  struct fox_err e = {0};
  struct dataset ds;
  int rc = argc > 1 ? dataset_read_h5(&ds, argv[1], &e) : synth_dataset(&ds, 525600, 1, &e);
  if (rc != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  const struct backend *be = backend_cpu();
  struct device_dataset dev;
  struct config cfg;
  config_defaults(&cfg);
  if (trial_resolve_reward(&cfg, &ds, &e) != 0 || be->dataset_upload(&ds, &dev, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  uint8_t *actions = malloc(NENV);
  srand(1);
  for (int i = 0; i < NENV; i++)
    actions[i] = (uint8_t)(rand() % 3);
  struct venv v;
  if (venv_create(&v, be, &dev, &cfg.market, NENV, 2048, ds.split[0][0], ds.split[0][1], 1, &e) ||
      venv_reset(&v, &e)) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double t_ref = reference_(&v, actions);
  static const int modes[3] = {0, VENV_STATES, VENV_STATES | VENV_NEXT};
  static const char *const names[3] = {"fused step, no state output", "fused step + states",
                                       "fused step + states + next"};
  double t_mode[3];
  for (int m = 0; m < 3; m++) {
    venv_reset(&v, &e);
    double t0 = now_();
    for (int s = 0; s < STEPS; s++) {
      /* Rotate the actions so that positions open and close. */
      actions[s % NENV] = (uint8_t)((actions[s % NENV] + 1) % 3);
      if (venv_step(&v, actions, modes[m], &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
      }
    }
    t_mode[m] = now_() - t0;
  }
  double steps = (double)NENV * STEPS;

  /* Backtest: the whole train split as one sequence, and as 16 folds. */
  size_t n = (size_t)(ds.split[0][1] - ds.split[0][0]);
  uint8_t *bt_actions = malloc(n);
  for (size_t i = 0; i < n; i++)
    bt_actions[i] = (uint8_t)(rand() % 100 == 0 ? 1 + rand() % 2 : 0);
  double t_bt[2];
  int folds[2] = {1, 16};
  for (int j = 0; j < 2; j++) {
    struct backtest_run r;
    double t0 = now_();
    if (backtest_run(be, &ds, &dev, &cfg, FOX_SPLIT_TRAIN, folds[j], bt_actions, &r, &e) != 0) {
      fprintf(stderr, "%s\n", e.msg);
      return 1;
    }
    t_bt[j] = now_() - t0;
    backtest_free(&r);
  }

  printf("# market benchmark (CPU backend, %d envs x %d steps on %s)\n", NENV, STEPS, ds.source);
  printf("# %-34s %12s %16s %12s\n", "what", "seconds", "per second", "x reference");
  printf("  %-34s %12.4f %12.3g st/s %12.2f\n", "memory floor (reference)", t_ref, steps / t_ref,
         1.0);
  for (int m = 0; m < 3; m++)
    printf("  %-34s %12.4f %12.3g st/s %12.2f\n", names[m], t_mode[m], steps / t_mode[m],
           t_mode[m] / t_ref);
  printf("  %-34s %12.4f %12.3g bar/s %11s\n", "backtest, 1 sequence", t_bt[0], n / t_bt[0], "-");
  printf("  %-34s %12.4f %12.3g bar/s %11s\n", "backtest, 16 folds", t_bt[1], n / t_bt[1], "-");
  FILE *f = fopen(json, "w");
  if (f) {
    fprintf(f, "{\"envs\": %d, \"steps\": %d, \"reference_steps_per_s\": %.6g, "
               "\"step_no_state_per_s\": %.6g, \"step_state_per_s\": %.6g, "
               "\"step_state_next_per_s\": %.6g, \"backtest_bars_per_s\": %.6g, "
               "\"backtest_16_folds_bars_per_s\": %.6g}\n",
            NENV, STEPS, steps / t_ref, steps / t_mode[0], steps / t_mode[1], steps / t_mode[2],
            n / t_bt[0], n / t_bt[1]);
    fclose(f);
  }
  venv_free(&v);
  be->dataset_release(&dev);
  free(actions);
  free(bt_actions);
  dataset_free(&ds);
  return 0;
}
