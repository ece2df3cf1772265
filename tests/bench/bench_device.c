/* The device-resident training loop's budget, on whatever CUDA backend this build has (a GPU,
 * or the host emulation of a cuda-emu build, where it runs in CI time):
 *   - kernel launches (FOX_LAUNCH kernels and cuBLAS GEMMs) per vector step, per DQN update
 *     and per PPO update and minibatch, at the defaults;
 *   - host synchronisations and device-to-host bytes per 1,000 env steps inside an epoch
 *     (the goal: 0; the epoch's one read of the loss accumulator comes after);
 *   - the device memory of the headline (five DQN trials at the defaults at once over one
 *     430,013-bar dataset, 300,000 train bars) as the backend's peak, against the seed's
 *     1.2 GB budget and the 0.5 GB goal; and the same five trials' bytes as the previous,
 *     host-staged design would have held them (a reference computed from the same config).
 * Fixed-width table; JSON to argv[1].   bench_device [OUT.json] [BARS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/counters.h"
#include "bench_cuda.h"
#include "data/synth.h"
#include "train/trial.h"

#define TRIALS 5

static int fail_(const struct fox_err *e) {
  fprintf(stderr, "bench_device: %s\n", e->msg);
  return 1;
}

/* One DQN vector step as trial.c runs it. */
static int dqn_vstep_(struct trial *t, struct fox_err *e) {
  struct venv *v = &t->venv;
  FOX_TRY(dqn_act(&t->ag.dqn, v->states, v->shape.num_envs, v->actions, e));
  FOX_TRY(venv_step(v, NULL, VENV_STATES | VENV_NEXT, e));
  return dqn_observe(&t->ag.dqn, v->shape.num_envs, v->bars, v->states_prev, v->next_states,
                     v->actions, v->rewards, v->dones, e);
}

int main(int argc, char **argv) {
  const char *json = argc > 1 ? argv[1] : "bench_device.json";
  long bars = argc > 2 ? atol(argv[2]) : 430013; /* train = floor(0.7 (bars - 1441)) */
  const struct backend *cuda;
  char name[256];
  struct dataset ds;
  struct device_dataset dev;
  int open = bench_cuda_open("bench_device", bars, &cuda, name, sizeof name, &ds, &dev);
  if (open != 0)
    return open;
  struct fox_err e = {0};
  /* The dataset as it stays (the upload's slab of raw features freed), then the peak from
   * there on; the upload's own peak counts too. */
  uint64_t upload_peak = counters_peak_bytes();
  counters_peak_reset();
  uint64_t data_bytes = counters_peak_bytes();
  long long train_bars = (long long)(ds.split[FOX_SPLIT_TRAIN][1] - ds.split[FOX_SPLIT_TRAIN][0]);
  struct config cfg;
  config_defaults(&cfg);
  cfg.epochs = 1;
  struct trial t[TRIALS];
  for (int i = 0; i < TRIALS; i++) {
    cfg.seed = (uint64_t)i + 1;
    if (trial_open(&t[i], &cfg, &ds, cuda, &dev, &e) != 0)
      return fail_(&e);
  }
  int n = cfg.num_envs;
  /* Trial 0: vector steps before learning starts (acting only), then after (updates). */
  counters_take();
  long k = 0;
  for (; (k + 1) * n < cfg.dqn.learning_starts; k++)
    if (dqn_vstep_(&t[0], &e) != 0)
      return fail_(&e);
  struct backend_counts act = counters_take();
  double act_per = (double)act.launches / (double)k;
  long u0 = t[0].ag.dqn.updates, steps = 64;
  counters_take();
  for (long j = 0; j < steps; j++)
    if (dqn_vstep_(&t[0], &e) != 0)
      return fail_(&e);
  struct backend_counts upd = counters_take();
  long updates = t[0].ag.dqn.updates - u0;
  double per_update = ((double)upd.launches - act_per * (double)steps) / (double)updates;
  double env_steps = (double)(k + steps) * n;
  double syncs_k = 1000.0 * (double)(act.syncs + upd.syncs) / env_steps;
  double d2h_k = 1000.0 * (double)(act.d2h_bytes + upd.d2h_bytes) / env_steps;
  /* The other trials take their first updates too (the MLPs' batch buffers), then one PPO
   * trial beside them measures an update. */
  for (int i = 1; i < TRIALS; i++)
    for (long j = 0; j <= k + 1; j++)
      if (dqn_vstep_(&t[i], &e) != 0)
        return fail_(&e);
  uint64_t peak = counters_peak_bytes();
  if (upload_peak > peak)
    peak = upload_peak;
  struct agent_stats st;
  for (int i = 0; i < TRIALS; i++)
    if (agent_take(&t[i].ag, &st, &e) != 0)
      return fail_(&e);
  /* The previous design held replay states on the host (two 54-float states a transition)
   * and staged every batch: its device side was the networks only, its host side this. */
  double old_replay = (double)TRIALS * cfg.dqn.buffer_size * (2.0 * 54 * 4 + 6);
  double new_replay = (double)TRIALS * cfg.dqn.buffer_size * (4 + 6 * 4 + 4 + 2);
  for (int i = 0; i < TRIALS; i++)
    trial_close(&t[i]);

  struct config pc;
  config_defaults(&pc);
  pc.algo = FOX_ALGO_PPO;
  pc.epochs = 1;
  struct trial p;
  if (trial_open(&p, &pc, &ds, cuda, &dev, &e) != 0)
    return fail_(&e);
  struct venv *v = &p.venv;
  for (int j = 0; j < pc.ppo.n_steps - 1; j++)
    if (ppo_act(&p.ag.ppo, v->states, v->actions, &e) != 0 ||
        venv_step(v, NULL, VENV_STATES | VENV_NEXT, &e) != 0 ||
        ppo_observe(&p.ag.ppo, v->next_states, v->rewards, v->dones, v->states, &e) != 0)
      return fail_(&e);
  counters_take();
  if (ppo_update(&p.ag.ppo, v->states, &e) != 0)
    return fail_(&e);
  struct backend_counts pu = counters_take();
  int mbs = pc.ppo.epochs * pc.ppo.minibatches, layers = pc.ppo.n_hidden + 1;
  /* Outside the minibatches: V(s_T) (a GEMM and a bias kernel per layer), GAE, and one
   * permutation per epoch. */
  double fixed = 2.0 * layers + 1 + pc.ppo.epochs;
  double per_mb = ((double)pu.launches - fixed) / mbs;
  trial_close(&p);
  cuda->dataset_release(&dev);
  dataset_free(&ds);

  printf("device: %s; %ld bars (train %lld), defaults (DQN hidden %dx%d, batch %d, buffer %d; "
         "PPO %d envs x %d steps, %d x %d minibatches)\n", name, bars, train_bars,
         cfg.dqn.hidden[0], cfg.dqn.hidden[1],
         cfg.dqn.batch_size, cfg.dqn.buffer_size, pc.num_envs, pc.ppo.n_steps, pc.ppo.epochs,
         pc.ppo.minibatches);
  printf("%-40s %14s\n", "measure", "value");
  printf("%-40s %14.1f\n", "launches per DQN vector step (acting)", act_per);
  printf("%-40s %14.1f\n", "launches per DQN update", per_update);
  printf("%-40s %14llu\n", "launches per PPO update", (unsigned long long)pu.launches);
  printf("%-40s %14.1f\n", "launches per PPO minibatch", per_mb);
  printf("%-40s %14.3f\n", "syncs per 1000 env steps (in an epoch)", syncs_k);
  printf("%-40s %14.3f\n", "d2h bytes per 1000 env steps", d2h_k);
  printf("%-40s %14.1f\n", "dataset on the device (MB)", data_bytes / 1e6);
  printf("%-40s %14.1f\n", "peak, 5 DQN trials + dataset (MB)", peak / 1e6);
  printf("%-40s %14.3f\n", "peak / 0.5 GB goal", peak / 5e8);
  printf("%-40s %14.3f\n", "peak / seed's 1.2 GB budget", peak / 1.2e9);
  printf("%-40s %14.1f\n", "5 replay rings, full states (MB)", old_replay / 1e6);
  printf("%-40s %14.1f\n", "5 replay rings, compact (MB)", new_replay / 1e6);
  printf("%-40s %14.3f\n", "compact / full", new_replay / old_replay);
  FILE *f = fopen(json, "w");
  if (!f) {
    perror(json);
    return 1;
  }
  fprintf(f, "{\"device\": \"%s\", \"bars\": %ld, \"launches_per_vector_step\": %.2f, "
             "\"launches_per_dqn_update\": %.2f, \"launches_per_ppo_update\": %llu, "
             "\"launches_per_ppo_minibatch\": %.2f, \"syncs_per_1000_steps\": %.3f, "
             "\"d2h_bytes_per_1000_steps\": %.3f, \"dataset_bytes\": %llu, \"peak_bytes\": %llu, "
             "\"replay_full_bytes\": %.0f, \"replay_compact_bytes\": %.0f}\n",
          name, bars, act_per, per_update, (unsigned long long)pu.launches, per_mb, syncs_k,
          d2h_k, (unsigned long long)data_bytes, (unsigned long long)peak, old_replay,
          new_replay);
  fclose(f);
  return 0;
}
