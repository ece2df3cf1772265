/* A trial's checkpoint: everything its loop depends on (the networks with Adam's moments, the
 * replay buffer or the partial rollout, the random streams and counters, the environments, the
 * curve so far), so that a trial stopped after a rung continues bit for bit, on this process or
 * another one of the same build. */
#ifndef FOX_TRIAL_STATE_H
#define FOX_TRIAL_STATE_H

#include <hdf5.h>
#include <stdio.h>

#include "train/trial.h"

/* Into / from an HDF5 group; the reader needs a trial opened with the same config and checks
 * that the shapes agree (FOX_EDATA naming `file` otherwise). */
int trial_state_write(struct trial *t, hid_t g, struct fox_err *e);
int trial_state_read(struct trial *t, hid_t g, const char *file, struct fox_err *e);
/* A whole checkpoint file, written to a temporary name and renamed. */
int trial_state_save(struct trial *t, const char *path, struct fox_err *e);
int trial_state_load(struct trial *t, const char *path, struct fox_err *e);
/* `foxopt info` of a checkpoint (kind = checkpoint, OUTDIR/state/trial-ID-eE.h5): its version,
 * agent, transitions, status, reward scale and curve, read without a dataset or config. */
int trial_state_describe(hid_t f, const char *path, FILE *out, struct fox_err *e);
/* The checkpoint as the bytes of an HDF5 file in memory (the caller frees *buf), for another
 * rank or for fs_write_bytes; and a trial from such bytes (`name` for messages). held: NULL,
 * or the trial the image was made of, open on t's backend and untouched since: the agent's
 * arrays (networks with Adam's state, the replay ring or the rollout) are then copied from its
 * memory within the backend rather than uploaded from the image (a PBT exploit on a device: a
 * device-to-device copy), with the same bytes; the rest still comes from the image. */
int trial_state_image(struct trial *t, void **buf, size_t *len, struct fox_err *e);
int trial_state_load_image(struct trial *t, const void *buf, size_t len, const char *name,
                           const struct trial *held, struct fox_err *e);
/* Only the experience of a checkpoint over a loaded trial: the environments and the replay
 * buffer (DQN) or the partial rollout (PPO); the networks, optimiser, random streams and
 * counters stay. A PBT member that copies another's agent but keeps its own experience
 * (study.scheduler.copy_buffers: false). */
int trial_state_load_buffers(struct trial *t, const void *buf, size_t len, const char *name,
                             const struct trial *held, struct fox_err *e);

#endif
