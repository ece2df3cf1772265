/* The run configuration (DESIGN.md s8) as one struct with its defaults, and the key table that
 * both the YAML loader and `--set a.b=v` write through: every key has a type and a range, and
 * every rejection names the key (and the file and line) and what was expected. */
#ifndef FOX_CONFIG_H
#define FOX_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#include "env_step.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { FOX_EXP_NONE = 0, FOX_EXP_SUMMARY = 1, FOX_EXP_FULL = 2 };
enum { FOX_ALGO_DQN = 0, FOX_ALGO_PPO = 1 };
enum { FOX_BACKEND_AUTO = 0, FOX_BACKEND_CPU = 1, FOX_BACKEND_CUDA = 2 };
#define FOX_MAX_LAYERS 8

struct dqn_config {
  int hidden[FOX_MAX_LAYERS], n_hidden;
  double lr, gamma;
  int batch_size, buffer_size, learning_starts, train_freq, target_update;
  double eps_start, eps_end, eps_fraction;
  int double_q, dueling;
  double max_grad_norm;
  double tau; /* 1: hard target copies; below 1: Polyak averaging at each target update */
};

struct ppo_config {
  int hidden[FOX_MAX_LAYERS], n_hidden;
  double lr;
  int n_steps;
  double gamma, gae_lambda, clip;
  int epochs, minibatches;
  double ent_coef, vf_coef, max_grad_norm;
  int anneal_lr;
};

struct config {
  char data_path[1024];        /* data.path */
  struct market_params market; /* market.*, barrier.*, reward.* */
  int num_envs, episode_bars;  /* env.* */
  int algo, epochs;            /* train.* */
  int64_t steps_per_epoch;     /* 0: auto (the train split's bars) */
  uint64_t seed;
  int backend;
  struct dqn_config dqn;
  struct ppo_config ppo;
  int eval_split; /* eval.split: FOX_SPLIT_* */
  int experience; /* output.experience */
};

void config_defaults(struct config *c);
/* Applies "key=value"; `only` limits the accepted key prefixes (NULL-terminated list of e.g.
 * "market.", or NULL for all). FOX_EUSAGE on an unknown key, a bad value or one out of range. */
int config_set(struct config *c, const char *kv, const char *const *only, struct fox_err *e);
/* Loads a YAML file over the defaults: sections of keys (`dqn: {lr: 1e-4}`); lists for
 * `hidden`. Errors name FILE:LINE and the key. Sections in `extra` (e.g. "study") are skipped
 * here for their own loaders. */
int config_load(struct config *c, const char *path, const char *const *extra, struct fox_err *e);
/* The same from YAML text (e.g. the config stored in trial.h5); `name` is used in messages. */
int config_load_text(struct config *c, const char *text, const char *name,
                     const char *const *extra, struct fox_err *e);
/* A whole config file as a NUL-terminated string (caller frees). */
int config_read_file(const char *path, char **text, struct fox_err *e);
/* Every key with its value, as YAML that config_load reads back to the same struct. */
void config_dump(const struct config *c, FILE *f);

#ifdef __cplusplus
}
#endif

#endif
