/* foxopt export: a study in another tool's format; so far Optuna's JournalStorage log, which
 * optuna.load_study and optuna-dashboard read. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "report/optuna_journal.h"
#include "study/study_h5.h"
#include "util/fsutil.h"

static const struct cli_opt opts_[] = {
    {"--optuna", "FILE", "the journal to write"},
    {NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_export = {
    .name = "export",
    .summary = "a study as Optuna's journal (optuna.load_study, optuna-dashboard)",
    .synopsis = "OUTDIR --optuna FILE.log",
    .about =
        "Writes the study in OUTDIR (study.h5 and the trial files of foxopt run, finished or\n"
        "still running) as Optuna's JournalStorage log: one JSON object per line, the operations\n"
        "Optuna 5 replays. Then, in Python:\n"
        "  storage = optuna.storages.JournalStorage(\n"
        "      optuna.storages.journal.JournalFileBackend(\"FILE.log\"))\n"
        "  study = optuna.load_study(study_name=\"NAME\", storage=storage)   # study.name\n"
        "or `optuna-dashboard FILE.log`. One Optuna trial per foxopt trial (number = id), with:\n"
        "  params        the active parameters with their distributions (uniform: Float,\n"
        "                log_uniform: Float log (Int log on integer keys), int_uniform: Int,\n"
        "                q_uniform: Float step q (Int step q on integer keys), values: and\n"
        "                value: Categorical, lists as their text); inactive ones are absent\n"
        "  state, value  complete, pruned (its last intermediate value), failed, running\n"
        "  intermediate  the objective per epoch from the trial files' curves (test functions:\n"
        "                at each rung); with repeats x folds and an aggregate other than mean,\n"
        "                the study's aggregate at the last rung only\n"
        "  user attrs    foxopt.id, status, round, rung, epochs, seed, reason, every metric, and\n"
        "                with repeats or folds each metric's std and the objective's cells\n"
        "  times         study.h5's modification time as the end of every trial, its start that\n"
        "                minus the trial's seconds: durations are foxopt's, clock times are not\n"
        "FILE is replaced whole (a temporary name, then a rename): restart a dashboard that\n"
        "serves it.",
    .opts = opts_,
    .exits = "0 ok, 1 FILE cannot be written (e.g. its directory is missing), 2 bad usage,\n"
             "            3 OUTDIR holds no readable study.h5, or a trial file is damaged",
    .run = cmd_export,
};

int cmd_export(int argc, char **argv, struct fox_err *e) {
  const char *outdir = NULL, *optuna = NULL;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (strcmp(s, "--optuna") == 0) {
      if (!(optuna = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (!outdir) {
      outdir = s;
    } else {
      return fox_errf(e, FOX_EUSAGE, "one OUTDIR only ('%s' and '%s')", outdir, s);
    }
  }
  if (!outdir)
    return fox_errf(e, FOX_EUSAGE, "OUTDIR is required (foxopt help export)");
  if (!optuna)
    return fox_errf(e, FOX_EUSAGE, "--optuna FILE is required (the one format so far)");
  struct stat st;
  if (stat(outdir, &st) != 0)
    return fox_errf(e, FOX_EDATA, "%s/study.h5: cannot open: %s: %s (expected the -o OUTDIR "
                                  "of foxopt run)", outdir, outdir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return fox_errf(e, FOX_EDATA, "%s: not a directory (expected the -o OUTDIR of foxopt run, "
                                  "holding study.h5)", outdir);
  fs_guard_inputs();
  fs_guard_study(outdir);
  FOX_TRY(fs_out_guard(optuna, e));
  struct study s;
  FOX_TRY(study_load(&s, outdir, e));
  struct optuna_journal_stats js;
  int rc = optuna_journal_write(&s, outdir, optuna, &js, e);
  if (rc == 0) {
    printf("wrote %s: Optuna study '%s', %d trials (%d complete, %d pruned, %d failed, %d "
           "running), %d with per-epoch intermediate values\n", optuna, s.cfg.study.name,
           js.trials, js.by_state[FOX_ST_COMPLETE], js.by_state[FOX_ST_PRUNED],
           js.by_state[FOX_ST_FAILED], js.by_state[FOX_ST_RUNNING], js.curves);
    if (js.nan_objective)
      fprintf(stderr, "note: %d complete trial%s with a NaN objective written as failed (Optuna "
                      "has no complete trial without a value)\n", js.nan_objective,
              js.nan_objective > 1 ? "s" : "");
    if (js.missing_files)
      fprintf(stderr, "note: %d trial file%s missing under %s/trials: those trials have only "
                      "their last value as an intermediate value\n", js.missing_files,
              js.missing_files > 1 ? "s" : "", outdir);
  }
  study_free(&s);
  return rc;
}
