/* GPU benchmark: the dataset upload (H2D copies + normalise kernel) against a bare cudaMemcpy
 * H2D of the same bytes, and the fused experience step and the backtest kernel in effective
 * bytes/s against a device-to-device copy, all in the same process. Fixed-width table; JSON
 * to argv[1].   bench_gpu [OUT.json] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <cuda_runtime.h>

#include "backend/backend.h"
#include "backtest/backtest.h"
#include "data/synth.h"
#include "env/venv.h"
extern "C" {
#include "train/trial.h"
}

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define CK(x)                                                                           \
  do {                                                                                  \
    cudaError_t r_ = (x);                                                               \
    if (r_ != cudaSuccess) {                                                            \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(r_)); \
      return 1;                                                                         \
    }                                                                                   \
  } while (0)

int main(int argc, char **argv) {
  const char *json = argc > 1 ? argv[1] : "bench_gpu.json";
  char name[256];
  if (backend_cuda_devices(name, sizeof name) == 0) {
    printf("skipped: no CUDA device\n");
    return 77;
  }
  struct fox_err e = {};
  struct dataset ds;
  if (synth_dataset(&ds, 525600, 1, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  size_t bytes = ds.n * (FOX_NFEAT + 4) * sizeof(float), fb = ds.n * FOX_NFEAT * sizeof(float);
  const struct backend *cuda = backend_cuda();
  struct device_dataset dev;
  if (cuda->dataset_upload(&ds, &dev, &e) != 0) { /* warm-up: context creation */
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  cuda->dataset_release(&dev);
  double best_up = 1e30, best_h2d = 1e30, best_d2d = 1e30;
  float *d_a, *d_b;
  CK(cudaMalloc((void **)&d_a, fb));
  CK(cudaMalloc((void **)&d_b, fb));
  for (int rep_i = 0; rep_i < 5; rep_i++) {
    double t0 = now_();
    if (cuda->dataset_upload(&ds, &dev, &e) != 0)
      return 1;
    double t1 = now_();
    cuda->dataset_release(&dev);
    CK(cudaMemcpy(d_a, ds.features, fb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d_b, ds.prices, ds.n * 4 * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    double t2 = now_();
    CK(cudaMemcpy(d_b, d_a, fb, cudaMemcpyDeviceToDevice));
    CK(cudaDeviceSynchronize());
    double t3 = now_();
    best_up = t1 - t0 < best_up ? t1 - t0 : best_up;
    best_h2d = t2 - t1 < best_h2d ? t2 - t1 : best_h2d;
    best_d2d = t3 - t2 < best_d2d ? t3 - t2 : best_d2d;
  }
  /* The fused step: bytes an env-step must move (its state, cursor and reward stats read and
   * written, its action, bar prices and sigma read, reward/done/label written; the 54-float
   * state and the normalised row it copies when states are written). */
  const int nenv = 65536, steps = 300;
  const double bytes_step = 2 * (sizeof(struct env_state) + sizeof(struct env_cursor) +
                                 sizeof(struct reward_stats)) + 1 + 16 + 4 + 6;
  const double bytes_state = (FOX_NFEAT + FOX_NPORTFOLIO) * 4 + FOX_NFEAT * 4;
  if (cuda->dataset_upload(&ds, &dev, &e) != 0)
    return 1;
  struct config cfg;
  config_defaults(&cfg);
  if (trial_resolve_reward(&cfg, &ds, &e) != 0)
    return 1;
  struct venv v;
  uint8_t *act = (uint8_t *)malloc(nenv);
  for (int i = 0; i < nenv; i++)
    act[i] = (uint8_t)(i % 17 == 0 ? 1 + i % 2 : 0);
  double t_step[2];
  for (int m = 0; m < 2; m++) {
    if (venv_create(&v, cuda, &dev, &cfg.market, nenv, 2048, ds.split[0][0], ds.split[0][1], 1,
                    &e) != 0 || venv_reset(&v, &e) != 0) {
      fprintf(stderr, "%s\n", e.msg);
      return 1;
    }
    double t0 = now_();
    for (int s_ = 0; s_ < steps; s_++)
      if (venv_step(&v, act, m ? VENV_STATES : 0, &e) != 0) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
      }
    t_step[m] = now_() - t0;
    venv_free(&v);
  }
  size_t nb = (size_t)(ds.split[0][1] - ds.split[0][0]);
  uint8_t *bt = (uint8_t *)malloc(nb);
  for (size_t i = 0; i < nb; i++)
    bt[i] = (uint8_t)(i % 97 == 0 ? 1 + i % 2 : 0);
  struct backtest_run run;
  double t0 = now_();
  if (backtest_run(cuda, &ds, &dev, &cfg, FOX_SPLIT_TRAIN, 1024, bt, &run, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double t_bt = now_() - t0;
  backtest_free(&run);
  cuda->dataset_release(&dev);
  double st = (double)nenv * steps;
  double d2d_bw = 2.0 * fb / best_d2d;

  printf("# dataset upload on %s: %zu bars, %.1f MB (features + prices)\n", name, ds.n, bytes / 1e6);
  printf("# %-32s %10s %10s %12s\n", "operation", "ms", "GB/s", "x reference");
  printf("  %-32s %10.3f %10.2f %12.2f\n", "cudaMemcpy H2D (reference)", best_h2d * 1e3,
         bytes / best_h2d / 1e9, 1.0);
  printf("  %-32s %10.3f %10.2f %12.2f\n", "backend upload + normalise", best_up * 1e3,
         bytes / best_up / 1e9, best_up / best_h2d);
  printf("  %-32s %10.3f %10.2f %12.2f\n", "features D2D copy", best_d2d * 1e3,
         2.0 * fb / best_d2d / 1e9, best_d2d / best_h2d);
  printf("  %-32s %10.3f %10.2f %12.2f   %.3g env-steps/s\n", "fused step, no states",
         t_step[0] * 1e3, st * bytes_step / t_step[0] / 1e9,
         st * bytes_step / t_step[0] / d2d_bw, st / t_step[0]);
  printf("  %-32s %10.3f %10.2f %12.2f   %.3g env-steps/s\n", "fused step + states",
         t_step[1] * 1e3, st * (bytes_step + bytes_state) / t_step[1] / 1e9,
         st * (bytes_step + bytes_state) / t_step[1] / d2d_bw, st / t_step[1]);
  printf("  %-32s %10.3f %10s %12s   %.3g bars/s (1024 folds)\n", "backtest kernel + copies",
         t_bt * 1e3, "-", "-", nb / t_bt);
  printf("# fused step rows: ms for %d steps of %d envs; x reference = share of D2D bandwidth\n",
         steps, nenv);
  FILE *j = fopen(json, "w");
  if (j) {
    fprintf(j, "{\"device\": \"%s\", \"bars\": %zu, \"bytes\": %zu, \"h2d_ms\": %.4f, "
               "\"upload_ms\": %.4f, \"d2d_ms\": %.4f, \"upload_over_h2d\": %.4f, "
               "\"step_no_state_per_s\": %.6g, \"step_state_per_s\": %.6g, "
               "\"step_no_state_share_of_d2d\": %.4f, \"backtest_bars_per_s\": %.6g}\n",
            name, ds.n, bytes, best_h2d * 1e3, best_up * 1e3, best_d2d * 1e3, best_up / best_h2d,
            st / t_step[0], st / t_step[1], st * bytes_step / t_step[0] / d2d_bw, nb / t_bt);
    fclose(j);
  }
  cudaFree(d_a);
  cudaFree(d_b);
  dataset_free(&ds);
  return 0;
}
