/* OUTDIR/rank-NNNN.h5 (DESIGN.md s4, s9): per rank, /dataset (the exact f32 arrays the rank
 * uploaded, with its host and device) and /trials/ID for every trial whose last segment it
 * ran: parameters, config, weights, curve, metrics, the evaluation's equity and experience.
 * The file is opened for each write and closed at once, so a killed rank leaves a readable
 * file behind in all but the shortest window; --resume scrubs what the study did not record. */
#ifndef FOX_RANKFILE_H
#define FOX_RANKFILE_H

#include "backend/backend.h"
#include "study/study.h"
#include "train/trial.h"

void rankfile_path(const char *outdir, int rank, char *out, size_t n);
/* Creates the file (temporary name, then rename); when a rank file is already there (a resume)
 * it is kept, with host, device and backend updated to this run's.
 * `dev` is NULL for test-function studies (no dataset). */
int rankfile_create(const char *outdir, int rank, const struct backend *be,
                    const struct device_dataset *dev, const char *data_path, const char *host,
                    const char *device, struct fox_err *e);
/* Replaces /trials/ID with a finished segment (trained to `epochs`) of an agent trial. With t
 * NULL: a test-function trial (`value` its objective), or, with `failed` set, a trial whose
 * parameters could not run (the reason as attribute `reason`). */
int rankfile_put_trial(const char *outdir, int rank, const struct study *s, int id,
                       const double *x, int epochs, struct trial *t, double value,
                       const char *failed, struct fox_err *e);
/* Opens the trained policy of trial `id` of the study in OUTDIR (from the rank file that ran it)
 * on `be` (NULL: only *backend is filled, the backend its networks ran on). FOX_EDATA naming
 * the file when the trial has no policy (unknown id, failed, a test-function study). */
int rankfile_read_policy(const char *outdir, long id, const struct backend *be,
                         struct config *cfg, struct agent *agent, char *backend, size_t nb,
                         struct fox_err *e);
/* Removes /trials/ID from rank `rank`'s file: the trial's next segment ran on another rank,
 * which holds it now (rank 0 does this between steps, when no rank writes). */
int rankfile_drop(const char *outdir, int rank, int id, struct fox_err *e);
/* Drops /trials/ID groups that the study does not record as run by that rank to the same
 * epochs (the segment in flight when a run was stopped or killed). */
int rankfile_scrub(const char *outdir, const struct study *s, struct fox_err *e);
/* After the scrub of a resume: warns on `warn` about every trial the study records on a rank
 * whose file lacks its group (a rank file deleted or replaced); returns how many. */
int rankfile_check(const char *outdir, const struct study *s, FILE *warn);
/* A new study in an OUTDIR without study.h5: removes the rank files a run that never recorded
 * a step left there, so that no rank appends to another study's file. */
int rankfile_remove_all(const char *outdir, struct fox_err *e);

#endif
