/* TensorBoard event files, written while a study runs: TFRecord frames (a length, its masked
 * CRC-32C, the bytes, theirs) of Event protobufs holding scalar Summaries, through protobuf-c
 * from src/live/tfevents.proto. TensorBoard reads a run directory's files as they grow. */
#ifndef FOX_LIVE_TFEVENTS_H
#define FOX_LIVE_TFEVENTS_H

#include <stdint.h>

#include "util/error.h"

/* 0 where this build writes events, else FOX_EUSAGE saying how to get them: a study asking for
 * them is refused before it trains, not at its first epoch's end. */
int tfevents_ready(struct fox_err *e);
/* Appends one Event of n scalars at `step` to the last of foxopt's event files in `dir` by name,
 * whichever process began it (TensorBoard reads them in name order), in one write; the first
 * append begins one, events.out.tfevents.TIME.HOST.PID.foxopt, with TensorBoard's file_version
 * record first. */
int tfevents_append(const char *dir, int64_t step, double wall_time, const char *const *tags,
                    const double *values, int n, struct fox_err *e);
/* Rewrites foxopt's event files in `dir` without the events of a step above `keep` (a resumed
 * study trains those epochs again), gathered into the first by name in step order when there
 * are several (a study begun before one file per run), and removes a rewrite a kill left; a
 * file whose frames do not check is cut at the first bad one. Other writers' files stay. */
int tfevents_prune(const char *dir, int64_t keep, struct fox_err *e);
/* CRC-32C (Castagnoli), as TFRecord frames carry it before masking; exposed for the test. */
uint32_t tfevents_crc32c(const void *data, size_t n);

#endif
