/* foxopt export: a study in another tool's format (Optuna's JournalStorage log, which
 * optuna.load_study and optuna-dashboard read), or a trained policy for the user's own stack
 * (ONNX, safetensors, each with a JSON sidecar). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "export/onnx.h"
#include "export/policy.h"
#include "export/safetensors.h"
#include "export/sidecar.h"
#include "export/optuna_journal.h"
#include "study/study_h5.h"
#include "util/fsutil.h"

static const struct cli_opt opts_[] = {
    {"--optuna", "FILE", "the study as Optuna's journal (OUTDIR only)"},
    {"--onnx", "FILE", "the trial's greedy policy as an ONNX model, and FILE.json beside it"},
    {"--safetensors", "FILE", "the trial's networks as safetensors, and FILE.json beside it"},
    {"--trial", "ID", "with OUTDIR: the study's trial whose policy is exported"},
    {"--repeat", "R", "with --trial and study.repeats > 1: that repeat's policy (default 0)"},
    {"--data", "DATA.h5", "the dataset whose normalisation the sidecar records (default: the "
                          "trial's data.path)"},
    {NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_export = {
    .name = "export",
    .summary = "a study as Optuna's journal, or a trained policy as ONNX or safetensors",
    .synopsis = "OUTDIR --optuna FILE.log\n"
                "TRIAL.h5|OUTDIR --trial ID [--repeat R] [--onnx FILE.onnx]\n"
                "    [--safetensors FILE.safetensors] [--data DATA.h5]",
    .about =
        "--onnx writes the greedy policy of a trial (TRIAL.h5 of foxopt train, or trial ID of\n"
        "the study in OUTDIR) as an ONNX model (opset 13): input `state` [batch, F+3], the state\n"
        "foxopt builds after a bar's close; outputs `q_values` (DQN) or `logits` (PPO) [batch, 3]\n"
        "and `action` int64 [batch] (0 hold, 1 buy, 2 sell). --safetensors writes the networks'\n"
        "weights as nn.Sequential names them (policy.0.weight [out, in], policy.0.bias, \n"
        "policy.2.weight, ...; PPO's value network as critic.*). Each gets FILE.json: the inputs\n"
        "in order with each feature's normalisation mean and std (from the dataset), the clamp,\n"
        "the portfolio inputs' formulas, the actions, the network's dims and activation.\n"
        "\n"
        "--optuna writes the study in OUTDIR (study.h5 and the trial files of foxopt run, finished or\n"
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
             "            3 OUTDIR holds no readable study.h5, or a trial file or the dataset is\n"
             "            damaged",
    .run = cmd_export,
};

/* FILE.json beside FILE */
static int sidecar_(const struct policy_export *p, const char *model, const char *format,
                    FILE *note, struct fox_err *e) {
  char path[4300];
  if (snprintf(path, sizeof path, "%s.json", model) >= (int)sizeof path)
    return fox_errf(e, FOX_EUSAGE, "%s: path too long", model);
  FOX_TRY(fs_out_guard(path, e));
  FOX_TRY(sidecar_write(p, model, format, path, e));
  fprintf(note, "wrote %s (the state's inputs, normalisation and actions)\n", path);
  return 0;
}

static int policy_(const char *src, long trial, int repeat, const char *data, const char *onnx,
                   const char *st, struct fox_err *e) {
  /* the model goes with FILE.json beside it: /dev/stdout.json would be a file in /dev */
  const char *model[2] = {onnx, st};
  for (int i = 0; i < 2; i++)
    if (model[i] && fs_out_is_stream(model[i]))
      return fox_errf(e, FOX_EUSAGE, "%s: not a regular file (a device, FIFO or descriptor): a "
                                     "model is written with its sidecar %s.json beside it; name "
                                     "a file", model[i], model[i]);
  fs_guard_inputs();
  struct stat sb;
  if (stat(src, &sb) == 0 && S_ISDIR(sb.st_mode))
    fs_guard_study(src);
  if (onnx)
    FOX_TRY(fs_out_guard(onnx, e));
  if (st)
    FOX_TRY(fs_out_guard(st, e));
  struct policy_export p;
  FOX_TRY(policy_export_load(&p, src, trial, repeat, data, e));
  int rc = 0;
  /* notes never land in a model written to this process's stdout */
  FILE *note = fs_note_stream(onnx) == stderr || fs_note_stream(st) == stderr ? stderr : stdout;
  if (onnx && (rc = fs_out_guard(onnx, e)) == 0 && (rc = onnx_write(&p, onnx, e)) == 0) {
    fprintf(note, "wrote %s: the greedy %s policy of %s, %d inputs -> %s\n", onnx,
           p.algo == FOX_ALGO_PPO ? "ppo" : "dqn", p.source, p.policy.dims[0],
           p.algo == FOX_ALGO_PPO ? "logits, action" : "q_values, action");
    rc = sidecar_(&p, onnx, "onnx", note, e);
  }
  if (rc == 0 && st && (rc = fs_out_guard(st, e)) == 0 &&
      (rc = safetensors_write(&p, st, e)) == 0) {
    fprintf(note, "wrote %s: the %s networks of %s\n", st,
            p.algo == FOX_ALGO_PPO ? "ppo" : "dqn", p.source);
    rc = sidecar_(&p, st, "safetensors", note, e);
  }
  policy_export_free(&p);
  return rc;
}

int cmd_export(int argc, char **argv, struct fox_err *e) {
  const char *outdir = NULL, *optuna = NULL, *onnx = NULL, *sft = NULL, *data = NULL, *v;
  long long trial = -1, repeat = 0;
  int have_repeat = 0;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (strcmp(s, "--optuna") == 0) {
      if (!(optuna = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (strcmp(s, "--onnx") == 0) {
      if (!(onnx = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (strcmp(s, "--safetensors") == 0) {
      if (!(sft = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (strcmp(s, "--data") == 0) {
      if (!(data = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (strcmp(s, "--trial") == 0 || strcmp(s, "--repeat") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      long long *dst = s[2] == 't' ? &trial : &repeat;
      have_repeat |= s[2] == 'r';
      FOX_TRY(cli_parse_i64(s, v, 0, 1000000000, dst, e));
    } else if (!outdir) {
      outdir = s;
    } else {
      return fox_errf(e, FOX_EUSAGE, "one OUTDIR or TRIAL.h5 only ('%s' and '%s')", outdir, s);
    }
  }
  if (!outdir)
    return fox_errf(e, FOX_EUSAGE, "OUTDIR or TRIAL.h5 is required (foxopt help export)");
  if (!optuna && !onnx && !sft)
    return fox_errf(e, FOX_EUSAGE, "what to write: --optuna FILE (a study), --onnx FILE or "
                                   "--safetensors FILE (a policy)");
  if (optuna && (onnx || sft))
    return fox_errf(e, FOX_EUSAGE, "--optuna exports a study, --onnx and --safetensors a "
                                   "policy: one kind at a time");
  if ((trial >= 0 || have_repeat || data) && optuna)
    return fox_errf(e, FOX_EUSAGE, "--trial, --repeat and --data go with --onnx or "
                                   "--safetensors");
  if (onnx || sft)
    return policy_(outdir, (long)trial, (int)repeat, data, onnx, sft, e);
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
    fprintf(fs_note_stream(optuna),
            "wrote %s: Optuna study '%s', %d trials (%d complete, %d pruned, %d failed, %d "
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
