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
enum { FOX_MAXIMIZE = 0, FOX_MINIMIZE = 1 };
enum { FOX_SAMPLER_TPE = 0, FOX_SAMPLER_RANDOM = 1, FOX_SAMPLER_GRID = 2, FOX_SAMPLER_NSGA2 = 3 };
enum { FOX_SCHED_NONE = 0, FOX_SCHED_SH = 1, FOX_SCHED_HYPERBAND = 2, FOX_SCHED_PBT = 3 };
#define FOX_FACTORS_MAX 8 /* study.scheduler.factors (pbt) */
/* study.objective.aggregate: how a configuration's repeats x folds become one value. */
enum { FOX_AGG_MEAN = 0, FOX_AGG_MEDIAN = 1, FOX_AGG_IQM = 2, FOX_AGG_LCB = 3 };
#define FOX_REPEATS_MAX 64 /* study.repeats */
#define FOX_FOLDS_MAX 16   /* eval.folds */
#define FOX_MAX_LAYERS 8
#define FOX_OBJ_MAX 4          /* objectives of a multi-objective study (study.objective: [...]) */
#define FOX_CONSTRAINTS_MAX 16 /* study.constraints */
#define FOX_NAME_LEN 64
/* What a config's YAML may be (docs/training.md, the config). A config is a few KB with a few hundred
 * values, and a study's largest space (64 parameters of 64 choices) under 5,000: the bounds sit
 * far above that and far below what costs a second or a GB. study.h5's reader takes a config
 * back into 1 MiB with its NUL, hence the byte bound. */
#define FOX_CONFIG_MAX_BYTES ((1 << 20) - 1)
#define FOX_CONFIG_MAX_DEPTH 64      /* nested lists and mappings */
#define FOX_CONFIG_MAX_VALUES 10000 /* keys, items, scalars; an alias counts what it repeats */

struct dqn_config {
  int hidden[FOX_MAX_LAYERS], n_hidden;
  double lr, gamma;
  int batch_size, buffer_size, learning_starts, train_freq, target_update;
  double eps_start, eps_end, eps_fraction;
  int double_q, dueling;
  int eps_per_env;    /* each environment draws its own exploration coin (else one a step) */
  int uniform_warmup; /* uniform actions before learning_starts, as SB3 */
  double max_grad_norm;
  double tau; /* 1: hard target copies; below 1: Polyak averaging at each target update */
  int activation, init; /* FOX_ACT_*, FOX_INIT_* (kernels/act_step.h) */
};

struct ppo_config {
  int hidden[FOX_MAX_LAYERS], n_hidden;
  double lr;
  int n_steps;
  double gamma, gae_lambda, clip;
  int epochs, minibatches;
  double ent_coef, vf_coef, max_grad_norm;
  int anneal_lr;
  int activation, init;
  int value_loss; /* FOX_VLOSS_* (kernels/ppo_step.h) */
};

/* The samplers' settings (study.sampler.*): TPE's (src/search/tpe.c documents each choice) and
 * NSGA-II's (src/search/nsga2.c). */
struct tpe_config {
  int n_startup_trials, n_ei_candidates;
  int multivariate, constant_liar;
  double prior_weight, gamma; /* the good group: ceil(gamma n) trials, at most 25 (no cap
                               * with several objectives, as Optuna's) */
  int population_size;        /* nsga2: trials per generation */
  double crossover_prob, swapping_prob;
  double mutation_prob;       /* 0: auto, 1 / the number of parameters */
};

/* study.constraints: "METRIC OP BOUND", e.g. "val.max_drawdown >= -0.2". */
enum { FOX_OP_GE = 0, FOX_OP_LE = 1, FOX_OP_GT = 2, FOX_OP_LT = 3 };
struct study_constraint {
  char metric[FOX_NAME_LEN];
  int op; /* FOX_OP_* */
  double bound;
};

/* A study (`foxopt run`, DESIGN.md s8): the `study:` section. The search space itself is the
 * `parameters:` section (src/search/space.h). */
struct study_config {
  char name[FOX_NAME_LEN];
  uint64_t seed;
  int trials, round_size, trials_per_device;
  double timeout;            /* seconds a run starts work for (0: no limit) */
  char metric[FOX_NAME_LEN]; /* objective.metric, e.g. val.sharpe */
  int direction;             /* objective.direction: FOX_MAXIMIZE | FOX_MINIMIZE */
  /* study.objective as a list of {metric, direction}: n_obj of them, the first being
   * metric/direction above, the others more_metric[k - 1]/more_dir[k - 1] (zero past n_obj). */
  int n_obj;
  char more_metric[FOX_OBJ_MAX - 1][FOX_NAME_LEN];
  int more_dir[FOX_OBJ_MAX - 1];
  int n_constraints;
  struct study_constraint constraints[FOX_CONSTRAINTS_MAX];
  int aggregate;             /* objective.aggregate: FOX_AGG_* */
  int repeats;               /* seeds per configuration (paired: the same K for every one) */
  int function;              /* objective.function: 0 = train agents, else a test function */
  double seconds;            /* objective.seconds: how long a test-function trial takes */
  int sampler;               /* sampler.name */
  struct tpe_config tpe;
  int scheduler; /* scheduler.name */
  int min_epochs, max_epochs, eta, brackets;
  /* pbt: `population` members in generations of `interval` epochs; the bottom `quantile`
   * copies a top member's state (with its replay buffer or rollout when copy_buffers), then
   * explores: each parameter resampled with resample_probability, else multiplied by one of
   * factors[n_factors] (or moved to a neighbouring choice). */
  int population, interval;
  double quantile, resample_probability;
  double factors[FOX_FACTORS_MAX];
  int n_factors;
  int copy_buffers;
};

enum { FOX_CONFIG_KEYS_MAX = 128 };
/* data.features: at most this many names, comma-joined in this many bytes. */
enum { FOX_FEATURES_MAX = 51 + 256, FOX_FEATURES_TEXT = FOX_FEATURES_MAX * 64 };

struct config {
  char data_path[1024];        /* data.path */
  char features[FOX_FEATURES_TEXT]; /* data.features, comma-joined; "" the 51 built-in ones */
  int n_features;
  struct market_params market; /* market.*, barrier.*, reward.* */
  int num_envs, episode_bars;  /* env.* */
  int algo, epochs;            /* train.* */
  int64_t steps_per_epoch;     /* 0: auto (the train split's bars) */
  uint64_t seed;
  int backend;
  int graphs; /* train.graphs: capture repeated chunks of steps as device graphs (CUDA) */
  struct dqn_config dqn;
  struct ppo_config ppo;
  int eval_split; /* eval.split: FOX_SPLIT_* */
  int eval_folds; /* eval.folds: consecutive walk-forward folds of the split, each from flat */
  int experience; /* output.experience */
  int tensorboard; /* output.tensorboard: a study's epochs as TensorBoard events too */
  struct study_config study;
  /* given[i]: key i of the config table was set by the file or a --set (not only defaulted),
   * for the checks that refuse a key by its presence (a scheduler's keys under another). Last,
   * and not part of the values: two configs are the same values when their bytes up to
   * offsetof(struct config, given) are. */
  unsigned char given[FOX_CONFIG_KEYS_MAX];
  /* dir_given[k]: objective k's direction was written (a test function's default is
   * minimize, an agent metric's maximize: config_default_directions) */
  unsigned char dir_given[FOX_OBJ_MAX];
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
/* The names of objective.function's choices ("none", "branin", ...), NULL-terminated. */
extern const char *const config_function_names[];
/* The names of study.sampler.name, study.scheduler.name and study.objective.aggregate by their
 * FOX_SAMPLER_*, FOX_SCHED_* and FOX_AGG_* values (NULL-terminated): one list for the parser
 * and every writer. */
extern const char *const config_sampler_names[];
extern const char *const config_scheduler_names[];
extern const char *const config_aggregate_names[];
/* The metrics a test function reports ("value" for a single-objective one; "f0", "f1" and the
 * constraint values "c0", "c1" for the multi-objective ones), NULL-terminated. */
extern const char *const config_function_metrics[];
/* "METRIC OP BOUND" -> c; -1 when the text is not of that form. */
int config_parse_constraint(const char *text, struct study_constraint *c);
/* The constraint as that text again (its bound in the fewest digits that read back the same). */
void config_format_constraint(const struct study_constraint *c, char *buf, size_t n);

/* What a key holds, for the search space's checks; -1 when the key is unknown. */
enum { FOX_KEY_NUMBER = 0, FOX_KEY_INTEGER = 1, FOX_KEY_BOOL = 2, FOX_KEY_CHOICE = 3,
       FOX_KEY_TEXT = 4, FOX_KEY_LIST = 5 };
int config_key_kind(const char *key);

/* The key table, for the man page, docs/config-keys.md and the shell completion: key i's name,
 * the value it expects, what it does, its choices (NULL-terminated, or NULL), its FOX_KEY_*
 * kind and its default as YAML. */
struct config_key_doc {
  const char *key, *what, *doc;
  const char *const *choices;
  int kind;
  char def[160];
};
int config_key_count(void);
/* 1 when `key` was set by the config file or a --set rather than left at its default. */
int config_given(const struct config *c, const char *key);
/* Once the file and every --set are in: an objective whose direction was not written is
 * minimised when study.objective.function is a test function (they are minimisation
 * problems), maximised otherwise (the agent metrics' default). */
void config_default_directions(struct config *c);
/* "did you mean 'dqn.lr'?" for a misspelt key, or an empty string when no key is near. */
void config_key_nearest(const char *key, char *buf, size_t n);
/* -1 for i out of range (or a default that does not fit). */
int config_key_describe(int i, struct config_key_doc *out);

/* data.features as names into out[max][64] (0: the 51 built-in features). */
int config_feature_names(const struct config *c, char (*out)[64], int max);

#ifdef __cplusplus
}
#endif

#endif
