/* foxopt backtest: one action sequence through the market over a split (optionally in
 * walk-forward folds), every metric of DESIGN.md s6, and the experience file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backtest/backtest.h"
#include "cli/cli.h"
#include "study/rankfile.h"
#include "train/trial_h5.h"
#include "util/fsutil.h"
#include "train/trial.h"

static const struct cli_opt opts_[] = {
    {"--actions", "ACTIONS.csv", "the actions to run: one 0 hold / 1 buy / 2 sell per bar of the "
                                 "split, optional header `action`"},
    {"--buy-and-hold", NULL, "the benchmark: buy at each fold's first open, hold to its last "
                             "close (barrier.enforce off: a barrier never closes it); the "
                             "market's spread and fee as any trade's"},
    {"--policy", "T.h5", "the greedy policy of a trained trial (foxopt train), with the trial's "
                         "market settings; reproduces its recorded metrics"},
    {"--study", "OUTDIR", "with --trial ID: the policy of trial ID of the study in OUTDIR "
                          "(foxopt run), from the trial file; reproduces the metrics in "
                          "OUTDIR/trials.csv"},
    {"--trial", "ID", "the trial of --study"},
    {"--repeat", "R", "with study.repeats > 1, the seed R of the --study trial (default 0)"},
    {"--split", "S", "the split to run: val, test or train (default val; with --policy the "
                     "trial's eval.split)"},
    {"--folds", "K", "K consecutive folds, each from initial capital: per-fold and mean metrics "
                     "(default 1; with --policy or --study the trial's eval.folds, a policy "
                     "acting from flat in each fold)"},
    {"--set", "K=V", "market.initial_capital (10000), market.spread (0.0005), market.fee "
                     "(0.0004), market.cash_reserve (0.05), barrier.pt (2), barrier.sl (2), "
                     "barrier.horizon (60), barrier.enforce (true), barrier.bonus (0), "
                     "output.experience (summary)"},
    {"--output", "EXP.h5", "/backtest/{equity,position,folds} and /experience/{actions,rewards,"
                           "barrier_labels[,states]}"},
    {"--backend", "B", "where to run: auto, cpu or cuda (default auto: CUDA when a device "
                       "answers; with --policy the backend the trial was trained on)"},
    {"--json", NULL, "one JSON object (fold means under the metric names, and \"folds\")"},
    {NULL, NULL, NULL}};

/* The keys --set takes here: the market and the output, never an agent's. */
static const char *const keys_[] = {"market.", "barrier.", "output.", NULL};

const struct cli_cmd cli_cmd_backtest = {
    .name = "backtest",
    .summary = "metrics of an action sequence over a split (walk-forward folds)",
    .synopsis = "DATA.h5 (--actions ACTIONS.csv | --buy-and-hold | --policy TRIAL.h5 |\n"
                "         --study OUTDIR --trial ID [--repeat R])\n"
                "[--split val|test|train] [--folds K]\n"
                "[--set market.KEY=V]... [--set barrier.KEY=V]...\n"
                "[--set output.experience=none|summary|full] [--output EXP.h5]\n"
                "[--backend auto|cpu|cuda] [--json]",
    .about =
        "Runs the actions (one 0 hold / 1 buy / 2 sell per bar of the split, optional header\n"
        "`action`; action i is decided after bar i's close and executes at the next open) through\n"
        "the market of docs/market.md and prints total_return, sharpe, sortino, max_drawdown,\n"
        "annual_return, calmar, trades, win_rate, profit_factor, exposure, final_equity, bars.\n"
        "--buy-and-hold runs the benchmark a policy has to beat: a BUY after each fold's first\n"
        "bar, held to the fold's last close, at the market's spread and fee, with the barriers\n"
        "off (barrier.enforce=false: a time-out would otherwise sell after barrier.horizon bars).",
    .opts = opts_,
    .exits = "0 ok, 1 failure, 2 bad usage, 3 bad input (file and line named)",
    .set_keys = keys_,
    .run = cmd_backtest,
};


/* Buy-and-hold as actions: a BUY decided after each fold's first bar (it executes at the next
 * open), then nothing; the backtest closes the position at the fold's last close. Barriers
 * would end the hold after barrier.horizon bars, so they only label here. */
static int hold_actions_(const struct dataset *ds, int split, size_t n, int folds,
                         struct config *cfg, uint8_t *actions, struct fox_err *e) {
  if (folds < 1 || n / (size_t)folds < 2)
    return fox_errf(e, FOX_EUSAGE, "%d folds: the %s split has %zu bars, each fold needs >= 2",
                    folds, dataset_split_name(split), n);
  memset(actions, 0, n);
  for (int j = 0; j < folds; j++) {
    int64_t b, end;
    backtest_fold_bounds(ds->split[split][0], n, folds, j, &b, &end);
    actions[b - ds->split[split][0]] = 1;
  }
  cfg->market.enforce = 0;
  return 0;
}

int cmd_backtest(int argc, char **argv, struct fox_err *e) {
  const char *data = NULL, *actions_path = NULL, *out = NULL, *backend = NULL;
  const char *split_name = NULL, *policy = NULL, *study = NULL, *sets[256];
  long long trial_id = -1, repeat = 0;
  int json = 0, nset = 0, hold = 0;
  long long folds = 0; /* 0: not given */
  struct config cfg;
  config_defaults(&cfg);
  fs_guard_inputs();
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "--json") == 0) {
      json = 1;
    } else if (strcmp(a, "--buy-and-hold") == 0) {
      hold = 1;
    } else if (strcmp(a, "--actions") == 0 || strcmp(a, "--split") == 0 ||
               strcmp(a, "--folds") == 0 || strcmp(a, "--set") == 0 ||
               strcmp(a, "--output") == 0 || strcmp(a, "--backend") == 0 ||
               strcmp(a, "--policy") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      if (a[2] == 'a')
        actions_path = v;
      else if (a[2] == 'p')
        policy = v;
      else if (a[2] == 's' && a[3] == 'p')
        split_name = v;
      else if (a[2] == 'f')
        FOX_TRY(cli_parse_i64(a, v, 1, 100000, &folds, e));
      else if (a[2] == 's' && nset == 256)
        return fox_errf(e, FOX_EUSAGE, "too many --set");
      else if (a[2] == 's')
        sets[nset++] = v;
      else if (a[2] == 'o')
        out = v;
      else
        backend = v;
    } else if (strcmp(a, "--study") == 0 || strcmp(a, "--trial") == 0 ||
               strcmp(a, "--repeat") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      if (a[2] == 's')
        study = v;
      else if (a[2] == 'r')
        FOX_TRY(cli_parse_i64(a, v, 0, FOX_REPEATS_MAX - 1, &repeat, e));
      else
        FOX_TRY(cli_parse_i64(a, v, 0, 1LL << 31, &trial_id, e));
    } else if (!data) {
      data = a;
    } else {
      return fox_errf(e, FOX_EUSAGE, "one dataset only");
    }
  }
  if (!study != (trial_id < 0))
    return fox_errf(e, FOX_EUSAGE, "--study OUTDIR and --trial ID go together");
  if (!data || !!actions_path + hold + !!policy + !!study != 1)
    return fox_errf(e, FOX_EUSAGE,
                    "DATA.h5 and one of --actions FILE, --buy-and-hold, --policy TRIAL.h5 or "
                    "--study OUTDIR --trial ID are required (foxopt help backtest)");
  if (repeat && !study)
    return fox_errf(e, FOX_EUSAGE, "--repeat goes with --study OUTDIR --trial ID");
  /* A policy runs where it was trained unless told otherwise: the same arithmetic gives the
   * same greedy actions, hence the recorded metrics. */
  char trained_on[16] = "auto";
  if (study)
    fs_guard_study(study);
  if (policy && !backend) {
    FOX_TRY(trial_backend_h5(policy, trained_on, sizeof trained_on, e));
    backend = trained_on;
  } else if (study && !backend) {
    FOX_TRY(rankfile_read_policy(study, (long)trial_id, (int)repeat, NULL, NULL, NULL, trained_on,
                                 sizeof trained_on, e));
    backend = trained_on;
  }
  const struct backend *be = NULL;
  FOX_TRY(backend_select(backend ? backend : "auto", &be, e));
  struct agent ag;
  if (policy)
    FOX_TRY(trial_read_h5(policy, be, &cfg, &ag, e));
  else if (study)
    FOX_TRY(rankfile_read_policy(study, (long)trial_id, (int)repeat, be, &cfg, &ag, trained_on,
                                 sizeof trained_on, e));
  if ((policy || study) && !split_name)
    split_name = dataset_split_name(cfg.eval_split);
  if (!folds)
    folds = policy || study ? cfg.eval_folds : 1;
  policy = policy ? policy : study; /* from here on: a policy, wherever it came from */
  int rc = 0;
  for (int i = 0; rc == 0 && i < nset; i++)
    rc = config_set(&cfg, sets[i], keys_, e);
  int split = dataset_split_index(split_name ? split_name : "val");
  if (rc == 0 && split < 0)
    rc = fox_errf(e, FOX_EUSAGE, "--split '%s': expected train, val or test", split_name);
  if (rc != 0) {
    if (policy)
      agent_free(&ag);
    return rc;
  }
  if (!split_name)
    split_name = "val";

  struct dataset ds;
  if ((rc = dataset_read_h5(&ds, data, e)) != 0) {
    if (policy)
      agent_free(&ag);
    return rc;
  }
  size_t n = (size_t)(ds.split[split][1] - ds.split[split][0]);
  uint8_t *actions = malloc(n ? n : 1);
  struct device_dataset dev = {0};
  struct backtest_run run = {0};
  int uploaded = 0;
  rc = actions ? 0 : fox_errf(e, FOX_EFAIL, "out of memory");
  /* A policy's states are its trial's features: the dataset must have every one. */
  char where[8600];
  snprintf(where, sizeof where, "%s%s%s", policy ? policy : "", policy ? ": its features in " : "data.features in ", data);
  if (rc == 0)
    rc = trial_select_features(&cfg, &ds, where, e);
  if (rc == 0 && n < 2)
    rc = fox_errf(e, FOX_EDATA, "%s: the %s split has %zu bars, a backtest needs >= 2", data,
                  split_name, n);
  if (rc == 0 && actions_path)
    rc = backtest_read_actions(actions_path, n, actions, e);
  if (rc == 0 && hold)
    rc = hold_actions_(&ds, split, n, (int)folds, &cfg, actions, e);
  if (rc == 0 && out) /* every input is open by now: none of them may be the output */
    rc = fs_out_guard(out, e);
  if (rc == 0 && (rc = be->dataset_upload(&ds, &dev, e)) == 0)
    uploaded = 1;
  if (rc == 0 && policy)
    rc = agent_backtest(&ag, be, &ds, &dev, &cfg, split, (int)folds, &run, e);
  else if (rc == 0)
    rc = backtest_run(be, &ds, &dev, &cfg, split, (int)folds, actions, &run, e);
  if (rc == 0 && out)
    rc = backtest_write_h5(&run, &cfg, out, e);
  if (rc == 0) {
    if (json)
      rc = backtest_print_json(stdout, &run, e);
    else
      backtest_print_table(stdout, &run);
  }
  backtest_free(&run);
  if (uploaded)
    be->dataset_release(&dev);
  free(actions);
  dataset_free(&ds);
  if (policy)
    agent_free(&ag);
  return rc;
}
