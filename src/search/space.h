/* The search space of a study: the `parameters:` section (W&B-sweep style), each a config key
 * with a distribution, and which of them are active in a given trial (keys under dqn. / ppo.
 * only when train.algo selects that agent). A point of the space is a double per parameter:
 * the value itself for numeric ones, the index of the choice for categorical ones, NaN where
 * the parameter is inactive. */
#ifndef FOX_SPACE_H
#define FOX_SPACE_H

#include <stddef.h>

#include "config/config.h"
#include "util/error.h"
#include "util/rng.h"

enum {
  FOX_DIST_UNIFORM = 0,
  FOX_DIST_LOG_UNIFORM, /* on an integer key: integers, uniform in log space */
  FOX_DIST_INT_UNIFORM,
  FOX_DIST_Q_UNIFORM, /* min + k q for k = 0 .. floor((max - min) / q), uniformly */
  FOX_DIST_CATEGORICAL,
  FOX_DIST_FIXED,
};

#define FOX_SPACE_MAX 64
#define FOX_CHOICES_MAX 64
#define FOX_CHOICE_LEN 96

struct space_param {
  char key[FOX_NAME_LEN];
  int dist;
  int integer;         /* values are integers (int_uniform, or log_uniform/q_uniform on an int key) */
  double lo, hi, q;    /* numeric distributions */
  int n_choices;       /* categorical; fixed has one */
  char choice[FOX_CHOICES_MAX][FOX_CHOICE_LEN]; /* as --set would take it: "1e-4", "[64, 64]" */
  double choice_num[FOX_CHOICES_MAX]; /* the choice as a number (NaN when it is not one) */
  int agent;           /* -1: always active; FOX_ALGO_DQN / FOX_ALGO_PPO: only for that agent */
  int line;            /* in the config file */
};

struct space {
  int n;
  struct space_param p[FOX_SPACE_MAX];
  int algo;      /* index of the train.algo parameter, -1 when the config fixes the agent */
  int base_algo; /* the config's train.algo */
  int function;  /* a test-function study: keys are the function's variables */
};

/* Reads the `parameters:` section of the YAML file at `path` over the base config `base`.
 * Every bad entry is FOX_EUSAGE naming FILE:LINE and the key: an unknown key, min >= max, a
 * log bound <= 0, empty values, a distribution that does not fit the key, a value the key
 * rejects, a conditional key that can never be active. */
int space_load(struct space *sp, const char *path, const struct config *base, struct fox_err *e);
/* The same from YAML text (the config stored in study.h5); `name` is used in messages. */
int space_load_text(struct space *sp, const char *text, const char *name,
                    const struct config *base, struct fox_err *e);

/* The agent a point selects (the algo parameter, or the config's). */
int space_agent(const struct space *sp, const double *x);
int space_active(const struct space *sp, int i, const double *x);
/* Sets inactive parameters to NaN. */
void space_mask(const struct space *sp, double *x);
/* One value of parameter i drawn uniformly in its transformed space (log for log_uniform,
 * uniform over the choices or the grid points). */
double space_sample_uniform(const struct space *sp, int i, struct rng *r);
/* A numeric parameter as Optuna's Float/IntDistribution sees it: [low, high] in the
 * parameter's own units, step (0: continuous; 1 for integers; q for q_uniform) and whether it
 * is searched in log space. */
void space_numeric(const struct space_param *p, double *low, double *high, double *step,
                   int *log_scale);
/* The nearest value of the parameter's domain (clipped, on the step grid). */
double space_snap(const struct space_param *p, double v);
/* Applies a point to a config through config_set (each active key as --set would). */
int space_apply(const struct space *sp, const double *x, struct config *cfg, struct fox_err *e);
struct yaml_document_s;
struct yaml_node_s;
/* A YAML value as --set text (scalars as they are, lists as "[a, b]"): -1 when it is neither
 * or does not fit n bytes. */
int space_render(struct yaml_document_s *doc, struct yaml_node_s *v, char *out, size_t n);
/* The point coordinate of `text` for parameter p (a choice's index, or the number, which must
 * lie in [min, max] and on the integers or the q grid): -1 when the distribution has no such
 * value. */
int space_value(const struct space_param *p, const char *text, double *x);
/* The value as text for tables and --set: "" when inactive. */
void space_format(const struct space_param *p, double v, char *buf, size_t n);
/* The value as a number for plots and test functions: a choice's number, or its index. */
double space_number(const struct space_param *p, double v);
/* Grid points: the product of every parameter's values (categorical choices, q_uniform and
 * int_uniform points); FOX_EUSAGE naming the parameter when one is continuous. */
int space_grid_size(const struct space *sp, long long *size, struct fox_err *e);
/* Grid point k (0 <= k < size) in a fixed order: the last parameter varies fastest. */
void space_grid_point(const struct space *sp, long long k, double *x);

#endif
