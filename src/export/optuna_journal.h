/* A study as Optuna's JournalStorage log (optuna.storages.journal, Optuna 5): one JSON object
 * per line, the operations JournalStorage replays, so that optuna.load_study and
 * optuna-dashboard see every trial with its parameters, states, values and curve. */
#ifndef FOX_OPTUNA_JOURNAL_H
#define FOX_OPTUNA_JOURNAL_H

#include "study/study.h"

/* What a written journal holds, for the command's summary line. */
struct optuna_journal_stats {
  int trials;
  int by_state[4];      /* FOX_ST_* as written (a complete trial without a value is failed) */
  int curves;           /* trials whose intermediate values come from per-epoch curves */
  int missing_files;    /* trial files absent: those trials have only their last value */
  int nan_objective;    /* complete trials written as failed: an objective was NaN */
};

/* Writes the study in `outdir` (already loaded into `s`) to `path` as an Optuna journal,
 * through a temporary name and a rename. The trial files under outdir/trials give the
 * per-epoch intermediate values; the modification time of outdir/study.h5 anchors the
 * trials' datetimes. FOX_EDATA naming a damaged trial file, FOX_EFAIL naming `path` when it
 * cannot be written. */
int optuna_journal_write(const struct study *s, const char *outdir, const char *path,
                         struct optuna_journal_stats *st, struct fox_err *e);

#endif
