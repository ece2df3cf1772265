/* foxopt info: what a foxopt HDF5 file holds, for people. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backtest/metrics.h"
#include "cli/cli.h"
#include "data/dataset.h"
#include "env/experience_h5.h"
#include "study/rankfile.h"
#include "study/study_h5.h"
#include "train/trial_state.h"
#include "util/h5io.h"

static const struct cli_opt opts_[] = {{NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_info = {
    .name = "info",
    .summary = "what a foxopt HDF5 file holds",
    .synopsis = "FILE.h5",
    .about = "Describes a foxopt file: a dataset (bars, date range, splits, features, warm-up,\n"
             "source), a trial (status, agent, per-epoch curve, final metrics), a backtest output,\n"
             "a study (study.h5: objective, trials by status, the best), a rank file, a host's\n"
             "stored copy of a study's dataset (dataset-NNNN.h5, read through), a checkpoint\n"
             "(OUTDIR/state/trial-ID-eE.h5: agent, transitions, curve so far) or report --test's\n"
             "record of its looks (OUTDIR/test.h5: when, and the last look's trials).",
    .opts = opts_,
    .exits = "0 ok, 1 failure, 2 bad usage, 3 not a readable foxopt file",
    .run = cmd_info,
};

static void print_split_(const char *name, const struct dataset *ds, int s) {
  int64_t b = ds->split[s][0], en = ds->split[s][1];
  char t0[32] = "-", t1[32] = "-";
  if (en > b) {
    cli_format_time(ds->bars.ts[b], t0, sizeof t0);
    cli_format_time(ds->bars.ts[en - 1], t1, sizeof t1);
  }
  printf("  %-6s [%8lld, %8lld)  %8lld bars  %s .. %s\n", name, (long long)b, (long long)en,
         (long long)(en - b), t0, t1);
}

/* A study.h5: what it searches and how far it got. */
static int info_study_(const char *path, struct fox_err *e) {
  struct study s;
  FOX_TRY(study_load_file(&s, path, e));
  const struct study_config *sc = &s.cfg.study;
  int count[4] = {0};
  for (int i = 0; i < s.n; i++)
    count[s.trials[i].status]++;
  printf("%s: foxopt study '%s'\n", path, sc->name);
  printf("  objective      %s (%s)\n", s.metric_names[s.objective],
         sc->direction == FOX_MAXIMIZE ? "maximize" : "minimize");
  printf("  search         %d parameters, sampler %s, scheduler %s, seed %llu\n", s.space.n,
         config_sampler_names[sc->sampler], config_scheduler_names[sc->scheduler], (unsigned long long)sc->seed);
  if (sc->scheduler == FOX_SCHED_PBT) {
    printf("  budget         population %d in %d generations of %d epochs (train.epochs %d), "
           "quantile %g, resample_probability %g, copy_buffers %s\n", sc->population,
           s.generations, sc->interval, s.plan_epochs, sc->quantile, sc->resample_probability,
           sc->copy_buffers ? "true" : "false");
  } else {
    printf("  budget         rungs at");
    for (int r = 0; r < s.plan.n; r++)
      printf(" %d", s.plan.epochs[r]);
    printf(" epochs, rounds of %d\n", sc->round_size);
  }
  if (s.repeats * s.folds > 1) {
    printf("  repeats        %d seeds per trial x %d eval folds, aggregate %s\n", s.repeats,
           s.folds, config_aggregate_names[sc->aggregate]);
  }
  for (const char *p = s.config_sets; *p;) { /* one override per line */
    const char *nl = strchr(p, '\n');
    int len = nl ? (int)(nl - p) : (int)strlen(p);
    printf("  --set          %.*s\n", len, p);
    p += len + (nl != NULL);
  }
  printf("  trials         %d of %d proposed in %d rounds: %d complete, %d pruned, %d failed, "
         "%d running\n", s.n, s.total, s.rounds, count[FOX_ST_COMPLETE], count[FOX_ST_PRUNED],
         count[FOX_ST_FAILED], count[FOX_ST_RUNNING]);
  int b = study_best(&s);
  if (b >= 0)
    printf("  best           trial %d: %s = %.6g (%s, %d epochs)\n", b,
           s.metric_names[s.objective], s.trials[b].metrics[s.objective],
           study_status_names[s.trials[b].status], s.trials[b].epochs);
  study_free(&s);
  return 0;
}

/* A rank-NNNN.h5: where it ran, what it uploaded, which trials it holds. */
static int info_rank_(hid_t f, const char *path, struct fox_err *e) {
  char host[256], device[256], backend[32];
  int rank;
  FOX_TRY(h5io_attr_read(f, "rank", H5T_NATIVE_INT, &rank, 1, path, e));
  FOX_TRY(h5io_attr_read_str(f, "host", host, sizeof host, path, e));
  FOX_TRY(h5io_attr_read_str(f, "device", device, sizeof device, path, e));
  FOX_TRY(h5io_attr_read_str(f, "backend", backend, sizeof backend, path, e));
  printf("%s: foxopt rank file, rank %d on %s (%s, %s backend)\n", path, rank, host, device,
         backend);
  int has = h5io_find(f, "/dataset", path, e);
  if (has < 0)
    return has;
  return has ? rankfile_info_dataset(f, path, e) : 0;
}

/* OUTDIR/trials/ID.h5 of a test-function trial or of one whose parameters could not run (an
 * agent trial's file is a trial.h5). */
static int info_study_trial_(hid_t f, const char *path, struct fox_err *e) {
  int epochs, rank;
  FOX_TRY(h5io_attr_read(f, "epochs", H5T_NATIVE_INT, &epochs, 1, path, e));
  FOX_TRY(h5io_attr_read(f, "rank", H5T_NATIVE_INT, &rank, 1, path, e));
  printf("%s: foxopt study trial, %d epochs, last run on rank %d\n", path, epochs, rank);
  if (H5Aexists(f, "value") > 0) {
    double v;
    FOX_TRY(h5io_attr_read(f, "value", H5T_NATIVE_DOUBLE, &v, 1, path, e));
    printf("  value          %.17g\n", v);
  } else {
    char reason[512];
    FOX_TRY(h5io_attr_read_str(f, "reason", reason, sizeof reason, path, e));
    printf("  status         failed: %s\n", reason);
  }
  return 0;
}

/* A study's trial file (OUTDIR/trials/ID.h5) also holds its last evaluation: the equity and
 * the experience, read back and checked like a backtest output's. */
static int info_evaluation_(hid_t f, const char *path, struct fox_err *e) {
  int has = h5io_find(f, "/backtest/equity", path, e);
  if (has <= 0)
    return has;
  size_t n, d1;
  FOX_TRY(h5io_dims(f, "/backtest/equity", &n, &d1, path, e));
  if (d1 != 0) {
    char shape[64];
    h5io_shape(n, d1, shape, sizeof shape);
    return fox_errf(e, FOX_EDATA, "%s: /backtest/equity %s, expected [bars]", path, shape);
  }
  int level;
  FOX_TRY(experience_check(f, "/experience", n, &level, path, e));
  printf("  evaluation     %zu bars, experience %s\n", n,
         level == FOX_EXP_NONE ? "none" : level == FOX_EXP_FULL ? "full (with states)" : "summary");
  return 0;
}

/* The state's features a trial file records (none: one from before user features, the 51). */
static int info_features_(hid_t f, const char *path, struct fox_err *e) {
  int has = h5io_find(f, "/feature_names", path, e);
  if (has < 0)
    return has;
  size_t k = FOX_NFEAT, d1;
  if (has)
    FOX_TRY(h5io_dims(f, "/feature_names", &k, &d1, path, e));
  if (!has || k > FOX_FEATURES_MAX) {
    printf("  features       %zu%s\n", k, has ? "" : " (the built-in ones)");
    return 0;
  }
  char(*names)[64] = calloc(k ? k : 1, sizeof *names);
  mallocCheck(names, e);
  int rc = h5io_read_strs(f, "/feature_names", names[0], k, 64, path, e);
  if (rc == 0) {
    printf("  features       %zu:", k);
    for (size_t i = 0; i < k; i++)
      printf(" %s", names[i]);
    printf("\n");
  }
  free(names);
  return rc;
}

/* A trial.h5: status, config summary, the curve and the final metrics. */
static int info_trial_(hid_t f, const char *path, struct fox_err *e) {
  char status[32], reason[512], version[32];
  FOX_TRY(h5io_attr_read_str(f, "status", status, sizeof status, path, e));
  FOX_TRY(h5io_attr_read_str(f, "reason", reason, sizeof reason, path, e));
  FOX_TRY(h5io_attr_read_str(f, "foxopt_version", version, sizeof version, path, e));
  int64_t transitions = 0;
  FOX_TRY(h5io_attr_read(f, "transitions", H5T_NATIVE_INT64, &transitions, 1, path, e));
  printf("%s: foxopt trial (foxopt %s)\n", path, version);
  printf("  status         %s%s%s\n", status, reason[0] ? ": " : "", reason);
  printf("  transitions    %lld\n", (long long)transitions);
  FOX_TRY(info_features_(f, path, e));
  const char *nets[3] = {"/weights/q", "/weights/actor", "/weights/critic"};
  for (int i = 0; i < 3; i++) {
    int has = h5io_find(f, nets[i], path, e);
    if (has < 0)
      return has;
    if (!has)
      continue;
    size_t np, d1;
    FOX_TRY(h5io_dims(f, nets[i], &np, &d1, path, e));
    printf("  network        %-15s %zu parameters\n", nets[i] + 9, np);
  }
  size_t ne, d1;
  FOX_TRY(h5io_dims(f, "/curve/epoch", &ne, &d1, path, e));
  if (ne > 0) {
    double *ev = malloc(ne * FOX_NMETRICS * sizeof *ev), *loss = malloc(ne * sizeof *loss);
    double *sps = malloc(ne * sizeof *sps);
    int rc = ev && loss && sps ? 0 : fox_errf(e, FOX_EFAIL, "out of memory");
    if (rc == 0)
      rc = h5io_read(f, "/curve/eval", H5T_NATIVE_DOUBLE, ev, ne, FOX_NMETRICS, path, e);
    if (rc == 0)
      rc = h5io_read(f, "/curve/loss", H5T_NATIVE_DOUBLE, loss, ne, 0, path, e);
    if (rc == 0)
      rc = h5io_read(f, "/curve/env_steps_per_s", H5T_NATIVE_DOUBLE, sps, ne, 0, path, e);
    if (rc == 0) {
      printf("  %-6s %14s %12s %12s %14s\n", "epoch", "env-steps/s", "loss", "sharpe",
             "total_return");
      for (size_t i = 0; i < ne; i++)
        printf("  %-6zu %14.0f %12.5g %12.4g %14.5g\n", i + 1, sps[i], loss[i],
               ev[i * FOX_NMETRICS + 1], ev[i * FOX_NMETRICS + 0]);
    }
    free(ev), free(loss), free(sps);
    FOX_TRY(rc);
  }
  return info_evaluation_(f, path, e);
}

/* A backtest --output file: its split, folds and experience datasets. */
/* test.h5, report --test's record of its looks at the test split: how many, when, and the last
 * look's trials with their deflated Sharpe ratio (over every trial any look saw). */
static int info_test_(hid_t f, const char *path, struct fox_err *e) {
  int looks;
  char first[64], last[64];
  size_t seen, d1, k, k1;
  FOX_TRY(h5io_attr_read(f, "looks", H5T_NATIVE_INT, &looks, 1, path, e));
  FOX_TRY(h5io_attr_read_str(f, "first_look", first, sizeof first, path, e));
  FOX_TRY(h5io_attr_read_str(f, "last_look", last, sizeof last, path, e));
  FOX_TRY(h5io_dims(f, "seen_trials", &seen, &d1, path, e));
  FOX_TRY(h5io_dims(f, "last_trials", &k, &k1, path, e));
  int *ids = malloc((k ? k : 1) * sizeof *ids);
  double *dsr = malloc((k ? k : 1) * sizeof *dsr);
  int rc = ids && dsr ? 0 : fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  if (rc == 0)
    rc = h5io_read(f, "last_trials", H5T_NATIVE_INT, ids, k, 0, path, e);
  if (rc == 0)
    rc = h5io_read(f, "last_dsr", H5T_NATIVE_DOUBLE, dsr, k, 0, path, e);
  if (rc == 0) {
    printf("%s: foxopt test-split record (foxopt report --test)\n", path);
    printf("  looks          %d (first %s, last %s)\n", looks, first, last);
    printf("  trials seen    %zu (the deflated Sharpe ratio counts every one)\n", seen);
    printf("  last look      %zu trial%s:", k, k == 1 ? "" : "s");
    for (size_t i = 0; i < k; i++)
      printf(" %d (DSR %.3g)", ids[i], dsr[i]);
    printf("\n");
  }
  free(ids), free(dsr);
  return rc;
}

static int info_backtest_(hid_t f, const char *path, struct fox_err *e) {
  char split[16];
  size_t n, d1, k, two;
  int has = h5io_find(f, "/backtest", path, e);
  if (has <= 0)
    return has < 0 ? has : fox_errf(e, FOX_EDATA, "%s: missing group /backtest", path);
  hid_t g = H5Gopen2(f, "backtest", H5P_DEFAULT);
  if (g < 0) {
    char what[4200];
    snprintf(what, sizeof what, "%s: /backtest", path);
    return h5io_fail(e, FOX_EDATA, __FILE__, __LINE__, what);
  }
  int rc = h5io_attr_read_str(g, "split", split, sizeof split, path, e);
  H5Gclose(g);
  FOX_TRY(rc);
  FOX_TRY(h5io_dims(f, "/backtest/equity", &n, &d1, path, e));
  FOX_TRY(h5io_dims(f, "/backtest/folds", &k, &two, path, e));
  if (d1 != 0 || two != 2) {
    char eq[64], folds[64];
    h5io_shape(n, d1, eq, sizeof eq);
    h5io_shape(k, two, folds, sizeof folds);
    return fox_errf(e, FOX_EDATA, "%s: /backtest/equity %s and /backtest/folds %s, expected "
                    "[bars] and [folds, 2]", path, eq, folds);
  }
  int level;
  FOX_TRY(experience_check(f, "/experience", n, &level, path, e));
  printf("%s: foxopt backtest output\n  split          %s, %zu bars, %zu fold%s\n", path, split,
         n, k, k == 1 ? "" : "s");
  printf("  experience     %s\n", level == FOX_EXP_NONE      ? "none"
                                  : level == FOX_EXP_FULL ? "full (with states)"
                                                          : "summary");
  return 0;
}

int cmd_info(int argc, char **argv, struct fox_err *e) {
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (!path) {
      path = argv[i];
    } else {
      return fox_errf(e, FOX_EUSAGE, "one file only");
    }
  }
  if (!path)
    return fox_errf(e, FOX_EUSAGE, "FILE.h5 is required (foxopt help info)");
  /* What kind of file: trials and backtest outputs say so; datasets may predate `kind`. */
  hid_t f;
  FOX_TRY(h5io_open_read(path, "a foxopt dataset, trial, backtest, study, rank or checkpoint file",
                         &f, e));
  /* Every checksum first: what info describes is then what foxopt wrote, byte for byte. */
  int ok = h5io_verify(path, 0, e);
  if (ok != 0) {
    H5Fclose(f);
    return ok;
  }
  /* A `kind` that is there but unreadable is a damaged file, which the dataset reader would
   * misreport as a dataset missing /bars. */
  char kind[32] = "dataset";
  int rc = H5Aexists(f, "kind") != 0 ? h5io_attr_read_str(f, "kind", kind, sizeof kind, path, e)
                                     : 0;
  if (rc == 0 && strcmp(kind, "trial") == 0)
    rc = info_trial_(f, path, e);
  else if (rc == 0 && strcmp(kind, "backtest") == 0)
    rc = info_backtest_(f, path, e);
  else if (rc == 0 && strcmp(kind, "rank") == 0)
    rc = info_rank_(f, path, e);
  else if (rc == 0 && strcmp(kind, "study trial") == 0)
    rc = info_study_trial_(f, path, e);
  else if (rc == 0 && strcmp(kind, "checkpoint") == 0)
    rc = trial_state_describe(f, path, stdout, e);
  else if (rc == 0 && strcmp(kind, "dataset copy") == 0)
    rc = rankfile_info_copy(path, e);
  else if (rc == 0 && strcmp(kind, "test looks") == 0)
    rc = info_test_(f, path, e);
  else if (rc == 0 && strcmp(kind, "study") != 0 && strcmp(kind, "dataset") != 0)
    rc = fox_errf(e, FOX_EDATA, "%s: attribute 'kind' is '%s', expected dataset, trial, "
                                "backtest, study, study trial, rank, dataset copy, checkpoint "
                                "or test looks",
                  path, kind);
  H5Fclose(f);
  if (rc == 0 && strcmp(kind, "study") == 0)
    return info_study_(path, e);
  if (rc != 0 || strcmp(kind, "dataset") != 0)
    return rc;
  struct dataset ds;
  FOX_TRY(dataset_read_h5(&ds, path, e));
  char t0[32] = "-", t1[32] = "-";
  if (ds.n > 0) {
    cli_format_time(ds.bars.ts[0], t0, sizeof t0);
    cli_format_time(ds.bars.ts[ds.n - 1], t1, sizeof t1);
  }
  const struct csv_report *r = &ds.report;
  printf("%s: foxopt dataset (foxopt %s)\n", path, ds.version);
  printf("  source         %s\n", ds.source);
  printf("  bars           %zu  (%s .. %s UTC)\n", ds.n, t0, t1);
  printf("  bar interval   %lld s, %.0f bars/year\n", (long long)ds.bar_seconds, ds.bars_per_year);
  printf("  features       %d raw f32 in /features, normalised with /norm (train split)\n",
         ds.ncol);
  if (ds.ncol > FOX_NFEAT) {
    printf("  user features  %d:", ds.ncol - FOX_NFEAT);
    for (int c = FOX_NFEAT; c < ds.ncol; c++)
      printf(" %s", ds.names[c]);
    printf("\n");
  }
  printf("  warm-up        %lld bars (features NaN before)\n", (long long)ds.warmup);
  printf("  import         %zu rows, %zu skipped, %zu gaps (longest %zu), %zu filled, "
         "%zu repaired opens\n",
         r->rows, r->skipped, r->gaps, r->longest_gap, r->filled, r->repaired_opens);
  printf("  splits\n");
  print_split_("train", &ds, 0);
  print_split_("val", &ds, 1);
  print_split_("test", &ds, 2);
  dataset_free(&ds);
  return 0;
}
