/* Reads a trained policy for export: through the same trial readers as backtest --policy and
 * --study (so what is exported is what those run), onto the CPU backend, then the weights to
 * the host, and the normalisation from the dataset. */
#include "export/policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend/backend.h"
#include "study/rankfile.h"
#include "train/agent.h"
#include "train/trial.h"
#include "train/trial_h5.h"
#include "util/h5io.h"

static const char *const portfolio_[FOX_EXPORT_PORTFOLIO] = {
    "in_position", "log_return_since_entry", "bars_held_over_horizon"};

const char *policy_export_input(const struct policy_export *p, int i) {
  return i < p->nfeat ? p->names[i] : portfolio_[i - p->nfeat];
}

static int net_take_(struct export_net *x, const struct net *n, struct fox_err *e) {
  x->n_layers = n->n_layers;
  x->activation = n->activation;
  memcpy(x->dims, n->dims, (size_t)(n->n_layers + 1) * sizeof *x->dims);
  x->n_params = n->n_params;
  x->w = malloc(n->n_params * sizeof *x->w);
  mallocCheck(x->w, e);
  return net_get_params(n, x->w, e);
}

/* The trial's features' names and statistics, from the dataset's columns (not its bars). */
static int norm_read_(struct policy_export *p, struct fox_err *e) {
  struct dataset ds;
  FOX_TRY(dataset_read_columns(&ds, p->data_path, e));
  int rc = trial_select_features(&p->cfg, &ds, p->source, e);
  int nf = rc == 0 ? ds.nsel : 0;
  p->names = rc == 0 ? calloc((size_t)nf, sizeof *p->names) : NULL;
  p->norm_mean = rc == 0 ? calloc((size_t)nf, sizeof(float)) : NULL;
  p->norm_std = rc == 0 ? calloc((size_t)nf, sizeof(float)) : NULL;
  if (rc == 0 && (!p->names || !p->norm_mean || !p->norm_std))
    rc = fox_errf(e, FOX_EFAIL, "%s: out of memory", p->data_path);
  for (int j = 0; rc == 0 && j < nf; j++) {
    memcpy(p->names[j], ds.names[ds.sel[j]], FOX_FEAT_NAME);
    p->norm_mean[j] = ds.norm_mean[ds.sel[j]];
    p->norm_std[j] = ds.norm_std[ds.sel[j]];
  }
  if (rc == 0)
    p->nfeat = nf;
  dataset_free(&ds);
  return rc;
}

int policy_export_load(struct policy_export *p, const char *src, long trial, int repeat,
                       const char *data, struct fox_err *e) {
  memset(p, 0, sizeof *p);
  const struct backend *be;
  FOX_TRY(backend_select("cpu", &be, e));
  struct stat st;
  int dir = stat(src, &st) == 0 && S_ISDIR(st.st_mode);
  if (dir && trial < 0)
    return fox_errf(e, FOX_EUSAGE, "%s is a study: --trial ID says which trial's policy", src);
  if (!dir && trial >= 0)
    return fox_errf(e, FOX_EUSAGE, "--trial goes with a study's OUTDIR, not a trial file (%s)",
                    src);
  struct agent ag;
  memset(&ag, 0, sizeof ag);
  char backend[16];
  if (dir) {
    rankfile_trial_path(src, (int)trial, repeat, p->source, sizeof p->source);
    FOX_TRY(rankfile_read_policy(src, trial, repeat, be, &p->cfg, &ag, backend, sizeof backend,
                                 e));
  } else {
    snprintf(p->source, sizeof p->source, "%s", src);
    FOX_TRY(trial_read_h5(src, be, &p->cfg, &ag, e));
  }
  p->algo = ag.algo;
  p->dueling = ag.algo == FOX_ALGO_DQN && p->cfg.dqn.dueling;
  int rc = net_take_(&p->policy, agent_policy_net(&ag), e);
  if (rc == 0 && ag.algo == FOX_ALGO_PPO)
    rc = net_take_(&p->critic, &ag.ppo.critic, e);
  agent_free(&ag);
  snprintf(p->data_path, sizeof p->data_path, "%s", data ? data : p->cfg.data_path);
  if (rc == 0 && (rc = norm_read_(p, e)) != 0 && !data)
    fox_err_wrap(e, "the normalisation of the trial's data.path (--data DATA.h5 names another "
                    "copy of the dataset)");
  if (rc != 0)
    policy_export_free(p);
  return rc;
}

void policy_export_free(struct policy_export *p) {
  free(p->policy.w);
  free(p->critic.w);
  free(p->names);
  free(p->norm_mean);
  free(p->norm_std);
  p->policy.w = p->critic.w = NULL;
  p->names = NULL;
  p->norm_mean = p->norm_std = NULL;
  p->nfeat = 0;
}
