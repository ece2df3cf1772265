/* A study's output files (DESIGN.md s4, s9): OUTDIR/rank-NNNN.h5 per rank, /dataset (the crc32
 * sums of the f32 arrays its device holds, read back from it, and the name of its host's stored
 * copy OUTDIR/dataset-NNNN.h5), with its host and device, written once per run; and
 * OUTDIR/trials/ID.h5 per trial, its latest segment: parameters, config, weights, curve,
 * metrics, the evaluation's equity and experience, and the rank that ran it. Each is written
 * whole under a temporary name and renamed, never changed in place, so a full disk, a kill or
 * a crash mid-write leaves the previous file as it was; --resume removes the trial files of
 * segments the study did not record. */
#ifndef FOX_RANKFILE_H
#define FOX_RANKFILE_H

#include <hdf5.h>

#include "backend/backend.h"
#include "study/study.h"
#include "train/trial.h"

void rankfile_path(const char *outdir, int rank, char *out, size_t n);
/* OUTDIR/trials/ID.h5 for repeat 0 (and every trial of a study with one repeat),
 * OUTDIR/trials/ID-rR.h5 for repeat R > 0. */
void rankfile_trial_path(const char *outdir, int id, int repeat, char *out, size_t n);
/* Writes the rank file (temporary name, then rename), on a resume too: this run's host, the
 * rank's local rank among the job's ranks on that host (and their number: the device is
 * local_rank % devices), device, backend and the dataset's sums (dev from dataset_take) with
 * `copy`, the file name of its host's stored copy. `dev` is NULL for test-function studies (no
 * dataset). */
int rankfile_create(const char *outdir, int rank, int local_rank, int local_size,
                    const struct backend *be, const struct device_dataset *dev,
                    const char *data_path, const char *copy, const char *host,
                    const char *device, struct fox_err *e);
/* FOX_EDATA naming the rank file when the sums its device gave are not those its host's
 * stored copy records (attributes only: every rank after the copies are written). */
int rankfile_verify(const char *outdir, int rank, struct fox_err *e);
/* foxopt info of a rank file's /dataset: reads its host's stored copy through (its sums must be
 * its own), compares the rank's sums with it (FOX_EDATA naming the file that differs) and prints
 * one line. */
int rankfile_info_dataset(hid_t f, const char *path, struct fox_err *e);
/* foxopt info of a host's stored copy (OUTDIR/dataset-NNNN.h5): read through, then one line. */
int rankfile_info_copy(const char *path, struct fox_err *e);
/* Replaces the trial file of (id, repeat) with a finished segment (trained to `epochs`) of an
 * agent trial: its policy, curve, and its evaluation's per-bar equity with the folds'
 * bounds and metrics (/backtest/{equity, position, folds, fold_metrics}). With t NULL: a
 * test-function trial (`value` its objective), or, with `failed` set, a trial whose
 * parameters could not run (the reason as attribute `reason`). */
int rankfile_put_trial(const char *outdir, int rank, const struct study *s, int id, int repeat,
                       const double *x, int epochs, struct trial *t, double value,
                       const char *failed, struct fox_err *e);
/* Opens the trained policy of repeat `repeat` of trial `id` of the study in OUTDIR (from its
 * trial file)
 * on `be` (NULL: only *backend is filled, the backend its networks ran on). FOX_EDATA naming
 * the file when the trial has no policy (unknown id, failed, a test-function study). */
int rankfile_read_policy(const char *outdir, long id, int repeat, const struct backend *be,
                         struct config *cfg, struct agent *agent, char *backend, size_t nb,
                         struct fox_err *e);
/* Removes the trial files that do not hold the segment the study records (the segment in
 * flight when a run was stopped or killed, or an unreadable file), putting back the trial's
 * kept file of the recorded epochs where there is one (a run killed between a segment's file
 * and study.h5), then every kept file. */
int rankfile_scrub(const char *outdir, const struct study *s, struct fox_err *e);
/* Removes the trials' kept files (trials/NAME.eE) of fewer epochs than study.h5 records for
 * them (after rank 0 wrote it), or every one (s NULL: at a study's clean end, or after a
 * scrub). */
void rankfile_drop_versions(const char *outdir, const struct study *s);
/* Calls f(path, id, repeat, epochs) for each file of dir named as the sscanf format `one`
 * (id, epochs, then %n; repeat 0) or `rep` (id, repeat, epochs, then %n) says: the trial
 * files' kept versions, OUTDIR/state's checkpoints. */
void rankfile_each_epoch_file(const char *dir, const char *one, const char *rep,
                              void (*f)(const char *path, int id, int repeat, int epochs,
                                        void *ctx),
                              void *ctx);
/* After the scrub of a resume: warns on `warn` about every trial the study records whose trial
 * file is gone (deleted, or unreadable or damaged and scrubbed); returns how many. */
int rankfile_check(const char *outdir, const struct study *s, FILE *warn);
/* Removes the NAME.tmp.PID files (fs_temp_name) that runs which died or failed mid-write left
 * in OUTDIR, OUTDIR/trials and OUTDIR/state: under the OUTDIR's lock nobody else writes them. */
int rankfile_remove_temps(const char *outdir, struct fox_err *e);
/* FOX_EDATA when a rank file holds /trials groups (a study written by a foxopt before trial
 * files): resuming it here would rewrite the rank file without them. */
int rankfile_check_layout(const char *outdir, struct fox_err *e);
/* A new study in an OUTDIR without study.h5: removes the rank and trial files a run that never
 * recorded a step left there, so that none is taken for this study's, and a test.h5 (the test
 * looks of a study that is gone name its trial ids). */
int rankfile_remove_all(const char *outdir, struct fox_err *e);

#endif
