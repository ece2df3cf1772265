/* Live metrics of a running study: every trial's epoch as one JSON line appended to
 * OUTDIR/metrics.jsonl, and with output.tensorboard its scalars as TensorBoard events under
 * OUTDIR/tb/ (trial-ID[-rR], or member-M[-rR] for a pbt member across its generations). Lines
 * and events are appended whole by whichever rank trains the epoch; a resume first drops what
 * the study did not record, so that the epochs it trains again appear once. */
#ifndef FOX_LIVE_H
#define FOX_LIVE_H

#include <pthread.h>

#include "util/error.h"

#define FOX_LIVE_METRICS 12

struct live {
  char outdir[4096];
  int tensorboard, rank;
  pthread_mutex_t lock;
};

/* One epoch of one trial: member and generation are pbt's (-1 otherwise); names[m] the
 * evaluation's metric names as the study calls them (val.sharpe, ...). */
struct live_row {
  int trial, repeat, repeats, member, generation, epoch;
  double seconds, env_steps_per_s, loss;
  double metrics[FOX_LIVE_METRICS];
  const char *const *names;
};

void live_open(struct live *l, const char *outdir, int tensorboard, int rank);
/* 0 when this build can write what output.tensorboard asks, else a FOX_EUSAGE error: checked
 * before a study trains. */
int live_check(int tensorboard, struct fox_err *e);
/* Thread-safe; FOX_EFAIL naming the file when it cannot be appended. */
int live_epoch(struct live *l, const struct live_row *r, struct fox_err *e);
void live_close(struct live *l);

/* Before a resume's first epoch (rank 0, no rank training): keeps the lines and events of the
 * epochs the study recorded. recorded(ctx, id, repeat, member) is the last epoch recorded for
 * (trial id, repeat), or with member 1 for pbt member `id` (its generations together); a run
 * directory is foxopt's when its name is exactly as the study (of `repeats`) writes it. */
int live_prune(const char *outdir, int repeats,
               int (*recorded)(const void *ctx, int id, int repeat, int member),
               const void *ctx, struct fox_err *e);
/* A new study: the metrics and events a run that recorded no step left are removed. */
int live_remove(const char *outdir, struct fox_err *e);

#endif
