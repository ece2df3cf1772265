/* The worker side of a study: runs work items (trial segments) in this process, up to
 * study.trials_per_device at once on threads, with the dataset loaded and uploaded once. An
 * agent segment continues from its checkpoint, trains, evaluates, saves its next checkpoint and
 * replaces its group in this rank's file; a test-function segment evaluates the function. */
#ifndef FOX_RUNNER_H
#define FOX_RUNNER_H

#include <pthread.h>
#include <signal.h>

#include "backend/backend.h"
#include "live/live.h"
#include "study/state_cache.h"
#include "study/study.h"

struct runner {
  const struct study *s;
  char outdir[4096];
  int rank;
  const volatile sig_atomic_t *stop;
  const struct backend *be;
  struct dataset ds;
  struct device_dataset dev;
  int have_data;
  int threads;
  char device[256];
  double reward_scale; /* the base config's reward.scale on this dataset (auto resolved) */
  pthread_mutex_t lock; /* this rank's file */
  struct state_cache cache; /* the states this rank holds for pbt's next generation */
  struct live live;         /* every epoch into metrics.jsonl (and TensorBoard's events) */
};

/* Rank 0, before any rank opens its runner (so that a refusal leaves every file as it was):
 * the dataset at data.path against the one the study began with, study.h5's data_bars and
 * data_crc32 (its features' and prices' sums) and data_meta_crc32 (its splits and scaling;
 * without it, bars_per_year), or for a study that recorded none, against its copy
 * OUTDIR/dataset-0000.h5 (exit 3 naming data.path); then records them in s. Nothing for a
 * test-function study. */
int runner_check_data(struct study *s, const char *outdir, int fresh, struct fox_err *e);
/* Loads and uploads the dataset (agent studies) to `device` (a CUDA ordinal for this rank;
 * -1: the default), creates OUTDIR/state and this rank's file; the host's lowest rank
 * (`host_root`, the world rank of local rank 0) first stores the host's copy of the dataset
 * (OUTDIR/dataset-NNNN.h5). The host arrays go to the device (dataset_take): r->ds keeps the
 * bars and the metadata only. `backend` overrides train.backend when not NULL. */
int runner_open(struct runner *r, const struct study *s, const char *outdir, int rank,
                int local_rank, int local_size, int host_root, int device, const char *backend,
                const volatile sig_atomic_t *stop, struct fox_err *e);
void runner_close(struct runner *r);
/* Where the threads take their next item: an index below n, or -1 when there is none left
 * (this process's own counter, or a counter shared by all ranks). */
struct runner_queue {
  long (*next)(void *ctx);
  /* When set, the calling thread does not run trials: it calls watch every 20 ms while the
   * trial threads work (an MPI rank's main thread keeps the job's traffic moving). */
  void (*watch)(void *ctx);
  void *ctx;
};
/* Runs the items the queue hands out, each into res[i]: up to trials_per_device at once, on a
 * thread each (the CPU) or as populations of one shape on one thread (a device: train/pop.h;
 * each segment joins between epochs and leaves when its rung is done).
 * res[i] of an item never taken stays FOX_WORK_STOPPED. A trial that fails is a result; an
 * error (I/O, memory) stops the run. `q` NULL: every item, from a local counter. */
int runner_run(struct runner *r, const struct work_item *items, int n, struct work_result *res,
               const struct runner_queue *q, struct fox_err *e);
/* Removes checkpoints the study no longer needs: of finished trials, and those older than a
 * running trial's recorded epochs (newer ones may belong to a segment in flight). */
void runner_prune_states(const char *outdir, const struct study *s);

#endif
