/* foxopt train: one trial with fixed parameters (DESIGN.md s3, s7, s8). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/json.h"
#include "train/solo.h"
#include "train/trial_h5.h"
#include "util/fsutil.h"
#include "train/trial.h"

static const struct cli_opt opts_[] = {
    {"-o", "OUTDIR", "where trial.h5 goes (default .)"},
    {"--set", "K=V", "override any config key (e.g. --set dqn.lr=1e-4 --set dqn.hidden=[64,64])"},
    {"--json", NULL, "print the final metrics as one JSON object (val.sharpe, ...) with a "
                     "\"device\" object: for the training and the evaluations, the host's API "
                     "calls (kernels launched one by one, graphs launched, copies), the kernels "
                     "the device ran, host syncs and bytes copied; env_steps, peak_bytes (zeros "
                     "on the CPU); the epoch lines go to stderr"},
    {NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_train = {
    .name = "train",
    .summary = "train one DQN/PPO trial with fixed parameters -> trial.h5",
    .synopsis = "CONFIG.yaml [-o OUTDIR] [--set key=value]... [--json]",
    .about =
        "Trains a DQN or PPO agent (train.algo) on the train split of data.path for train.epochs\n"
        "epochs of train.steps_per_epoch environment steps (auto: the train split's bars),\n"
        "backtests the greedy policy on eval.split after each epoch, prints a line per epoch, and\n"
        "writes OUTDIR/trial.h5 (config, weights, curve, final metrics, status). reward.scale auto\n"
        "(the default) is resolved to 1 / std of the train split's one-bar log returns and\n"
        "recorded as that number. Every config key is in foxopt(1) and docs/config-keys.md.",
    .opts = opts_,
    .exits = "0 ok, 1 failure (a diverged trial too: status failed in trial.h5),\n"
             "            2 bad usage or config (FILE:LINE and key named), 3 bad data",
    .run = cmd_train,
};

int cmd_train(int argc, char **argv, struct fox_err *e) {
  const char *path = NULL, *outdir = ".";
  int json = 0, nset = 0;
  const char *sets[256];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--set") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      if (a[1] == 'o')
        outdir = v;
      else if (nset < 256)
        sets[nset++] = v;
      else
        return fox_errf(e, FOX_EUSAGE, "too many --set");
    } else if (!path) {
      path = a;
    } else {
      return fox_errf(e, FOX_EUSAGE, "one config file only");
    }
  }
  if (!path)
    return fox_errf(e, FOX_EUSAGE, "CONFIG.yaml is required (foxopt help train)");
  struct config cfg;
  config_defaults(&cfg);
  fs_guard_inputs();
  FOX_TRY(config_load(&cfg, path, (const char *const[]){"study", "parameters", "enqueue", NULL},
                      e));
  for (int i = 0; i < nset; i++)
    FOX_TRY(config_set(&cfg, sets[i], NULL, e));
  static const char *const backends[3] = {"auto", "cpu", "cuda"};
  const struct backend *be;
  FOX_TRY(backend_select(backends[cfg.backend], &be, e));

  struct dataset ds;
  FOX_TRY(dataset_read_h5(&ds, cfg.data_path, e));
  char where[1100];
  snprintf(where, sizeof where, "data.features in %s", cfg.data_path);
  int rc = trial_select_features(&cfg, &ds, where, e);
  if (rc == 0)
    rc = trial_check(&cfg, &ds, cfg.data_path, e);
  if (rc != 0) {
    dataset_free(&ds);
    return rc;
  }
  struct device_dataset dev;
  rc = be->dataset_upload(&ds, &dev, e);
  if (rc != 0) {
    dataset_free(&ds);
    return rc;
  }
  struct trial t;
  memset(&t, 0, sizeof t);
  char out[4200];
  snprintf(out, sizeof out, "%s/trial.h5", outdir);
  rc = fs_out_guard(out, e); /* before training: the config or dataset may be that file */
  if (rc == 0)
    rc = fs_mkdirs(outdir, e);
  if (rc == 0)
    rc = trial_run(&t, &cfg, &ds, be, &dev, json ? stderr : stdout, e);
  const struct trial_result *res = &t.r;
  if (rc == 0)
    rc = trial_write_h5(out, &t.cfg, &t.ag, res, e); /* reward.scale as resolved */
  if (rc == 0 && res->status == FOX_TRIAL_FAILED)
    rc = fox_errf(e, FOX_EFAIL, "trial failed: %s (status recorded in %s)", res->reason, out);
  if (rc == 0) {
    if (json) {
      json_t *o = json_object(), *dev_o = json_object();
      fox_json_set(o, "status", json_string("complete"), e);
      fox_json_set(o, "epochs", json_integer(res->epochs_done), e);
      for (int m = 0; m < FOX_NMETRICS; m++) {
        char key[64];
        snprintf(key, sizeof key, "%s.%s", dataset_split_name(cfg.eval_split), metrics_names[m]);
        fox_json_set(o, key, fox_json_num(metrics_get(&res->final, m)), e);
      }
      /* What the device did (zeros on the CPU backend): the host round trips of the loop. */
      const struct backend_counts *c[2] = {&res->train_counts, &res->eval_counts};
      for (int k = 0; k < 2; k++) {
        json_t *d = json_object();
        fox_json_set(d, "launches", json_integer((json_int_t)c[k]->launches), e);
        fox_json_set(d, "graph_launches", json_integer((json_int_t)c[k]->graph_launches), e);
        fox_json_set(d, "copies", json_integer((json_int_t)c[k]->copies), e);
        fox_json_set(d, "host_calls", json_integer((json_int_t)counters_calls(c[k])), e);
        fox_json_set(d, "kernels", json_integer((json_int_t)c[k]->nodes), e);
        fox_json_set(d, "syncs", json_integer((json_int_t)c[k]->syncs), e);
        fox_json_set(d, "h2d_bytes", json_integer((json_int_t)c[k]->h2d_bytes), e);
        fox_json_set(d, "d2h_bytes", json_integer((json_int_t)c[k]->d2h_bytes), e);
        fox_json_set(dev_o, k ? "eval" : "train", d, e);
      }
      fox_json_set(dev_o, "env_steps", json_integer(res->transitions), e);
      fox_json_set(dev_o, "peak_bytes", json_integer((json_int_t)counters_peak_bytes()), e);
      fox_json_set(dev_o, "population", json_integer(res->pop_members), e);
      fox_json_set(dev_o, "graphs_captured", json_integer(res->graphs_captured), e);
      fox_json_set(dev_o, "graphs_replayed", json_integer(res->graphs_replayed), e);
      fox_json_set(o, "device", dev_o, e);
      rc = fox_json_print(stdout, o, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17),
                          "train --json", e);
    } else {
      printf("wrote %s\n", out);
    }
  }
  trial_close(&t);
  be->dataset_release(&dev);
  dataset_free(&ds);
  return rc;
}
