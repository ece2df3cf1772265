/* A trial trained on its own (src/train/solo.c): a population of one. */
#ifndef FOX_SOLO_H
#define FOX_SOLO_H

#include <signal.h>
#include <stdio.h>

#include "train/trial.h"

/* Trains up to epoch `to_epoch` (<= train.epochs), with an evaluation after each epoch; a
 * line per epoch to `log` when it is not NULL. A divergence (NaN or Inf in a loss or a
 * weight) sets status FOX_TRIAL_FAILED and its reason and returns 0: a result, not an error.
 * When *stop becomes non-zero the segment is abandoned between two steps: FOX_ESTOP, and the
 * trial must not be continued (reload its last checkpoint instead). */
int trial_advance(struct trial *t, int to_epoch, FILE *log, const volatile sig_atomic_t *stop,
                  struct fox_err *e);
/* open + advance to train.epochs; the result moves to `out` (free with trial_result_free) and
 * the trained agent stays in t until trial_close. */
int trial_run(struct trial *t, const struct config *cfg, const struct dataset *ds,
              const struct backend *be, const struct device_dataset *dev, FILE *log,
              struct fox_err *e);

#endif
