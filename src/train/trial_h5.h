/* trial.h5 (DESIGN.md s4): the trial's config (as YAML), status and reason, the policy
 * weights, the per-epoch curve and the final metrics. */
#ifndef FOX_TRIAL_H5_H
#define FOX_TRIAL_H5_H

#include "train/trial.h"

#include <hdf5.h>

int trial_write_h5(const char *path, const struct config *cfg, struct agent *agent,
                   const struct trial_result *r, struct fox_err *e);
/* The same content into an open group (a rank file's /trials/ID). */
int trial_write_group(hid_t g, const struct config *cfg, struct agent *agent,
                      const struct trial_result *r, struct fox_err *e);
/* Reads a trial group (trial.h5's root or a rank file's /trials/ID); `path` names it in
 * messages. Refuses a failed trial like trial_read_h5. */
int trial_read_group(hid_t g, const char *path, const struct backend *be, struct config *cfg,
                     struct agent *agent, struct fox_err *e);
/* The backend the trial's networks ran on ("cpu" or "cuda"; FOX_EDATA for anything else). */
int trial_backend_h5(const char *path, char *name, size_t n, struct fox_err *e);
/* The same from a trial file already open (a study's OUTDIR/trials/ID.h5); `path` names it. */
int trial_backend_group(hid_t g, const char *path, char *name, size_t n, struct fox_err *e);
/* Refuses a failed trial (exit 3, with its reason). Loads the config and the trained networks into an agent made here on `be` (a policy: no replay ring) (free it with
 * agent_free). */
int trial_read_h5(const char *path, const struct backend *be, struct config *cfg,
                  struct agent *agent, struct fox_err *e);

#endif
