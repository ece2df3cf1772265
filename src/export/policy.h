/* A trained policy as an export sees it: the network that decides (the Q-network, or PPO's
 * actor with its critic beside it), its shape and activation, and what a user must rebuild to
 * feed it: the feature order, the dataset's normalisation and the portfolio inputs. One reader
 * for every format (ONNX, safetensors, the JSON sidecar). */
#ifndef FOX_EXPORT_POLICY_H
#define FOX_EXPORT_POLICY_H

#include <stddef.h>

#include "config/config.h"
#include "data/features.h"
#include "util/error.h"

#define FOX_EXPORT_MAX_DIMS (FOX_MAX_LAYERS + 2)

/* One network: for layer l, W_l [dims[l+1], dims[l]] (row-major, PyTorch's nn.Linear layout)
 * then b_l [dims[l+1]], in w. */
struct export_net {
  int n_layers, activation; /* FOX_ACT_* of the hidden layers; the last layer is linear */
  int dims[FOX_EXPORT_MAX_DIMS];
  float *w;
  size_t n_params;
};

struct policy_export {
  char source[4300];    /* the trial file it came from */
  char data_path[4300]; /* the dataset whose normalisation it carries */
  struct config cfg;    /* the trial's config as it trained */
  int algo, dueling;    /* FOX_ALGO_*; dueling: the Q-net's 4 outputs are V, then A */
  struct export_net policy, critic; /* critic: PPO's value network (n_layers 0 for DQN) */
  int nfeat;                       /* the state's features (the trial's data.features) */
  char (*names)[FOX_FEAT_NAME];    /* [nfeat] their names, in state order */
  float *norm_mean, *norm_std;     /* [nfeat] their statistics in the dataset */
};

/* From TRIAL.h5 (foxopt train) or a study's OUTDIR with its trial id and repeat; `data`
 * overrides the trial's data.path for the normalisation (NULL: the trial's). FOX_EDATA naming
 * the file for an unreadable trial or dataset, FOX_EUSAGE for a trial without a policy. */
int policy_export_load(struct policy_export *p, const char *src, long trial, int repeat,
                       const char *data, struct fox_err *e);
void policy_export_free(struct policy_export *p);
/* The state's inputs in order: the trial's feature names, then in_position,
 * log_return_since_entry, bars_held_over_horizon. */
const char *policy_export_input(const struct policy_export *p, int i);
#define FOX_EXPORT_PORTFOLIO 3

#endif
