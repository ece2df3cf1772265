/* The `parameters:` section: parsing with libyaml (every rejection names FILE:LINE and the key),
 * conditional activity, uniform draws, grid points, and applying a point to a config. */
#include "search/space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "config/config_yaml.h"
#include "study/objective.h"
#include "util/number.h"

static const char *scalar_(yaml_node_t *n) { return (const char *)n->data.scalar.value; }

/* A YAML value as --set text: scalars as they are, lists as "[a, b]". */
int space_render(struct yaml_document_s *doc, struct yaml_node_s *v, char *out, size_t n) {
  if (v->type == YAML_SCALAR_NODE)
    return snprintf(out, n, "%s", scalar_(v)) < (int)n ? 0 : -1;
  if (v->type != YAML_SEQUENCE_NODE)
    return -1;
  size_t len = 0;
  out[len++] = '[';
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top;
       it++) {
    yaml_node_t *in = yaml_document_get_node(doc, *it);
    if (in->type != YAML_SCALAR_NODE)
      return -1;
    int w = snprintf(out + len, n - len, "%s%s", it == v->data.sequence.items.start ? "" : ", ",
                     scalar_(in));
    if (w < 0 || (size_t)w >= n - len - 1)
      return -1;
    len += (size_t)w;
  }
  out[len++] = ']';
  out[len] = '\0';
  return 0;
}

static int number_(const char *s, double *x) { return number_parse(s, x) == 0 ? 0 : -1; }

/* Each value must be one the key accepts; `where` is "FILE:LINE: ". */
static int check_value_(const struct config *base, const char *key, const char *text,
                        const char *where, struct fox_err *e) {
  struct config scratch = *base;
  char kv[FOX_NAME_LEN + FOX_CHOICE_LEN + 2];
  snprintf(kv, sizeof kv, "%s=%s", key, text);
  struct fox_err inner = {0};
  if (config_set(&scratch, kv, NULL, &inner) != 0)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: %s", where, key,
                    inner.msg + (strncmp(inner.msg, "--set ", 6) == 0 ? 6 : 0));
  return 0;
}

static const char *const dist_names_[] = {"uniform", "log_uniform", "int_uniform", "q_uniform",
                                          "categorical", "constant"};

/* One `key: {distribution: ..., min: ..., ...}` entry. */
/* Keys a trial cannot take from the search: why, or NULL when it can. */
static const char *study_owned_(const char *key) {
  static const char *const owned[][2] = {
      {"study.", "the study's own settings"},
      {"train.seed", "each trial's seed is a hash of study.seed and its id"},
      {"train.epochs", "the epochs are the scheduler's budget: study.scheduler.max_epochs "
                       "for successive_halving and hyperband, train.epochs itself for none and "
                       "pbt"},
      {"train.backend", "every trial of a process runs on its device"},
      {"train.graphs", "graphs change how steps reach the device, not their numbers"},
      {"data.path", "every rank uploads one dataset for all its trials"},
      {"data.features", "every rank normalises one selection of the dataset's columns for all "
                        "its trials"},
      {"eval.split", "the objective is measured on one split for every trial"},
      {"eval.folds", "every configuration's cells are the same repeats x folds"},
  };
  for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++) {
    size_t n = strlen(owned[i][0]);
    if (owned[i][0][n - 1] == '.' ? strncmp(key, owned[i][0], n) == 0 : !strcmp(key, owned[i][0]))
      return owned[i][1];
  }
  return NULL;
}

static int load_param_(struct space *sp, yaml_document_t *doc, yaml_node_t *k, yaml_node_t *v,
                       const char *path, const struct config *base, struct fox_err *e) {
  char where[1200];
  snprintf(where, sizeof where, "%s:%zu: ", path, k->start_mark.line + 1);
  if (k->type != YAML_SCALAR_NODE)
    return fox_errf(e, FOX_EUSAGE, "%sexpected a parameter name", where);
  const char *key = scalar_(k);
  if (sp->n == FOX_SPACE_MAX)
    return fox_errf(e, FOX_EUSAGE, "%sat most %d parameters", where, FOX_SPACE_MAX);
  for (int i = 0; i < sp->n; i++)
    if (strcmp(sp->p[i].key, key) == 0)
      return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: given twice (line %d)", where, key,
                      sp->p[i].line);
  struct space_param *p = &sp->p[sp->n];
  memset(p, 0, sizeof *p);
  if (strlen(key) >= sizeof p->key)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: name too long", where, key);
  snprintf(p->key, sizeof p->key, "%s", key);
  p->line = (int)k->start_mark.line + 1;
  p->agent = -1;

  int kind;
  const struct test_function *tf = objective_function(sp->function);
  if (tf) {
    int known = 0;
    for (int j = 0; j < tf->dims; j++)
      known |= strcmp(tf->vars[j], key) == 0;
    if (!known)
      return fox_errf(e, FOX_EUSAGE, "%sunknown parameter '%s': the %s function's variables are "
                                     "x0 .. x%d", where, key, tf->name, tf->dims - 1);
    kind = FOX_KEY_NUMBER;
  } else {
    kind = config_key_kind(key);
    if (kind < 0) {
      char near[400];
      config_key_nearest(key, near, sizeof near);
      return fox_errf(e, FOX_EUSAGE, "%sunknown parameter '%s': not a config key%s%s (every "
                                     "key: man foxopt, or docs/config-keys.md)", where, key,
                      near[0] ? ": " : "", near);
    }
    const char *why = study_owned_(key);
    if (why)
      return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: cannot be searched (%s)", where, key,
                      why);
    if (strncmp(key, "dqn.", 4) == 0)
      p->agent = FOX_ALGO_DQN;
    else if (strncmp(key, "ppo.", 4) == 0)
      p->agent = FOX_ALGO_PPO;
  }
  if (v->type != YAML_MAPPING_NODE)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: expected a mapping such as {distribution: "
                                   "uniform, min: 0, max: 1} or {values: [...]}", where, key);

  yaml_node_t *dist = NULL, *min = NULL, *max = NULL, *q = NULL, *values = NULL, *value = NULL;
  for (yaml_node_pair_t *pp = v->data.mapping.pairs.start; pp < v->data.mapping.pairs.top; pp++) {
    yaml_node_t *fk = yaml_document_get_node(doc, pp->key);
    yaml_node_t *fv = yaml_document_get_node(doc, pp->value);
    const char *f = fk->type == YAML_SCALAR_NODE ? scalar_(fk) : "?";
    yaml_node_t **slot = !strcmp(f, "distribution") ? &dist
                         : !strcmp(f, "min")        ? &min
                         : !strcmp(f, "max")        ? &max
                         : !strcmp(f, "q")          ? &q
                         : !strcmp(f, "values")     ? &values
                         : !strcmp(f, "value")      ? &value
                                                    : NULL;
    if (!slot)
      return fox_errf(e, FOX_EUSAGE, "%s:%zu: parameters.%s: unknown field '%s' (expected "
                                     "distribution, min, max, q, values or value)",
                      path, fk->start_mark.line + 1, key, f);
    if (*slot)
      return fox_errf(e, FOX_EUSAGE, "%s:%zu: parameters.%s: field '%s' given twice", path,
                      fk->start_mark.line + 1, key, f);
    *slot = fv;
  }
  /* The distribution: given, or implied by the fields as W&B does. */
  int d = -1;
  if (dist) {
    const char *dn = dist->type == YAML_SCALAR_NODE ? scalar_(dist) : "";
    for (int j = 0; j < 6; j++)
      if (strcmp(dn, dist_names_[j]) == 0)
        d = j;
    if (strcmp(dn, "fixed") == 0) /* the and W&B's word for a constant */
      d = FOX_DIST_FIXED;
    if (d < 0)
      return fox_errf(e, FOX_EUSAGE, "%s:%zu: parameters.%s: distribution '%s': expected "
                                     "uniform, log_uniform, int_uniform, q_uniform, categorical "
                                     "or constant (fixed)", path, dist->start_mark.line + 1, key, dn);
  } else if (values) {
    d = FOX_DIST_CATEGORICAL;
  } else if (value) {
    d = FOX_DIST_FIXED;
  } else if (min && max && min->type == YAML_SCALAR_NODE && max->type == YAML_SCALAR_NODE) {
    double a, b;
    int ints = number_(scalar_(min), &a) == 0 && number_(scalar_(max), &b) == 0 &&
               a == floor(a) && b == floor(b) && !strpbrk(scalar_(min), ".eE") &&
               !strpbrk(scalar_(max), ".eE");
    d = ints ? FOX_DIST_INT_UNIFORM : FOX_DIST_UNIFORM;
  } else {
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: expected a distribution with min and max, "
                                   "values: [...] or value: x", where, key);
  }
  p->dist = d;

  if (d == FOX_DIST_CATEGORICAL || d == FOX_DIST_FIXED) {
    yaml_node_t *src = d == FOX_DIST_CATEGORICAL ? values : value;
    if (!src)
      return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: %s needs %s", where, key, dist_names_[d],
                      d == FOX_DIST_CATEGORICAL ? "values: [...]" : "value: x");
    yaml_node_t *items[FOX_CHOICES_MAX];
    int n = 0;
    if (d == FOX_DIST_FIXED) {
      items[n++] = src;
    } else {
      if (src->type != YAML_SEQUENCE_NODE)
        return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: values: expected a list", where, key);
      for (yaml_node_item_t *it = src->data.sequence.items.start; it < src->data.sequence.items.top;
           it++) {
        if (n == FOX_CHOICES_MAX)
          return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: at most %d values", where, key,
                          FOX_CHOICES_MAX);
        items[n++] = yaml_document_get_node(doc, *it);
      }
      if (n == 0)
        return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: values is empty", where, key);
    }
    for (int j = 0; j < n; j++) {
      snprintf(where, sizeof where, "%s:%zu: ", path, items[j]->start_mark.line + 1);
      if (space_render(doc, items[j], p->choice[j], sizeof p->choice[j]) != 0)
        return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: value %d: expected a scalar or a list "
                                       "of scalars (at most %d characters)", where, key, j + 1,
                        FOX_CHOICE_LEN - 1);
      for (int i = 0; i < j; i++)
        if (strcmp(p->choice[i], p->choice[j]) == 0)
          return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: value '%s' is listed twice", where,
                          key, p->choice[j]);
      if (number_(p->choice[j], &p->choice_num[j]) != 0)
        p->choice_num[j] = NAN;
      if (tf && isnan(p->choice_num[j]))
        return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: value '%s': the %s function takes "
                                       "numbers", where, key, p->choice[j], tf->name);
      if (!tf)
        FOX_TRY(check_value_(base, key, p->choice[j], where, e));
    }
    p->n_choices = n;
    return 0;
  }

  /* Numeric distributions. */
  if (kind != FOX_KEY_NUMBER && kind != FOX_KEY_INTEGER)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: %s needs a numeric key; give values: [...] "
                                   "instead", where, key, dist_names_[d]);
  if (!min || !max || min->type != YAML_SCALAR_NODE || max->type != YAML_SCALAR_NODE)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: %s needs min and max", where, key,
                    dist_names_[d]);
  if (number_(scalar_(min), &p->lo) != 0 || number_(scalar_(max), &p->hi) != 0)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: min and max must be numbers, got '%s' and "
                                   "'%s'", where, key, scalar_(min), scalar_(max));
  if (p->lo >= p->hi)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: min %s must be below max %s", where, key,
                    scalar_(min), scalar_(max));
  if (d == FOX_DIST_LOG_UNIFORM && p->lo <= 0)
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: log_uniform needs min > 0, got %s", where,
                    key, scalar_(min));
  p->integer = d == FOX_DIST_INT_UNIFORM || kind == FOX_KEY_INTEGER;
  if (d == FOX_DIST_Q_UNIFORM) {
    if (!q || q->type != YAML_SCALAR_NODE || number_(scalar_(q), &p->q) != 0 || p->q <= 0)
      return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: q_uniform needs q > 0", where, key);
    if (p->q > p->hi - p->lo)
      return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: q %s is wider than [min, max]", where, key,
                      scalar_(q));
  } else if (q) {
    return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: q is for q_uniform only", where, key);
  }
  if (p->integer) {
    if (p->lo != floor(p->lo) || p->hi != floor(p->hi) ||
        (d == FOX_DIST_Q_UNIFORM && p->q != floor(p->q)))
      return fox_errf(e, FOX_EUSAGE, "%sparameters.%s: an integer key needs integer min, max%s",
                      where, key, d == FOX_DIST_Q_UNIFORM ? " and q" : "");
    if (d == FOX_DIST_UNIFORM)
      p->dist = d = FOX_DIST_INT_UNIFORM; /* a uniform integer is int_uniform */
  }
  if (!tf) {
    FOX_TRY(check_value_(base, key, scalar_(min), where, e));
    FOX_TRY(check_value_(base, key, scalar_(max), where, e));
  }
  return 0;
}

static int load_doc_(struct space *sp, yaml_document_t *doc, const char *path,
                     const struct config *base, struct fox_err *e) {
  yaml_node_t *root = yaml_document_get_root_node(doc);
  if (!root || root->type != YAML_MAPPING_NODE)
    return 0;
  for (yaml_node_pair_t *sp_ = root->data.mapping.pairs.start;
       sp_ < root->data.mapping.pairs.top; sp_++) {
    yaml_node_t *k = yaml_document_get_node(doc, sp_->key);
    yaml_node_t *v = yaml_document_get_node(doc, sp_->value);
    if (k->type != YAML_SCALAR_NODE || strcmp(scalar_(k), "parameters") != 0)
      continue;
    if (v->type == YAML_SCALAR_NODE && scalar_(v)[0] == '\0')
      continue; /* `parameters:` with nothing under it */
    if (v->type != YAML_MAPPING_NODE)
      return fox_errf(e, FOX_EUSAGE, "%s:%zu: parameters: expected a mapping of keys to "
                                     "distributions", path, k->start_mark.line + 1);
    for (yaml_node_pair_t *pp = v->data.mapping.pairs.start; pp < v->data.mapping.pairs.top;
         pp++) {
      FOX_TRY(load_param_(sp, doc, yaml_document_get_node(doc, pp->key),
                          yaml_document_get_node(doc, pp->value), path, base, e));
      sp->n++;
    }
  }
  return 0;
}

/* What holds across parameters: train.algo a choice of agents, conditional keys reachable,
 * a test function's variables all given. */
static int check_space_(struct space *sp, const char *path, struct fox_err *e) {
  const struct test_function *tf = objective_function(sp->function);
  if (tf) {
    for (int j = 0; j < tf->dims; j++) {
      int found = 0;
      for (int i = 0; i < sp->n; i++)
        found |= strcmp(sp->p[i].key, tf->vars[j]) == 0;
      if (!found)
        return fox_errf(e, FOX_EUSAGE, "%s: parameters: the %s function needs '%s' (x0 .. x%d)",
                        path, tf->name, tf->vars[j], tf->dims - 1);
    }
    return 0;
  }
  int agents[2] = {sp->base_algo == FOX_ALGO_DQN, sp->base_algo == FOX_ALGO_PPO};
  for (int i = 0; i < sp->n; i++)
    if (strcmp(sp->p[i].key, "train.algo") == 0) {
      sp->algo = i;
      agents[0] = agents[1] = 0;
      for (int j = 0; j < sp->p[i].n_choices; j++)
        agents[strcmp(sp->p[i].choice[j], "ppo") == 0] = 1;
    }
  for (int i = 0; i < sp->n; i++)
    if (sp->p[i].agent >= 0 && !agents[sp->p[i].agent])
      return fox_errf(e, FOX_EUSAGE, "%s:%d: parameters.%s is never active: train.algo is "
                                     "never %s", path, sp->p[i].line, sp->p[i].key,
                      sp->p[i].agent == FOX_ALGO_DQN ? "dqn" : "ppo");
  return 0;
}

int space_load_text(struct space *sp, const char *text, const char *name,
                    const struct config *base, struct fox_err *e) {
  memset(sp, 0, sizeof *sp);
  sp->algo = -1;
  sp->base_algo = base->algo;
  sp->function = base->study.function;
  /* The same bounded reader as the rest of the config (size, depth, aliases, one document):
   * the parameters section is hostile text too when space_load is reached directly. */
  yaml_document_t doc;
  int rc = config_yaml_load(&doc, text, strlen(text), name, e);
  if (rc == 0) {
    rc = load_doc_(sp, &doc, name, base, e);
    yaml_document_delete(&doc);
  }
  if (rc == 0)
    rc = check_space_(sp, name, e);
  return rc;
}

int space_load(struct space *sp, const char *path, const struct config *base, struct fox_err *e) {
  char *text;
  FOX_TRY(config_read_file(path, &text, e));
  int rc = space_load_text(sp, text, path, base, e);
  free(text);
  return rc;
}

int space_agent(const struct space *sp, const double *x) {
  if (sp->algo < 0 || isnan(x[sp->algo]))
    return sp->base_algo;
  return strcmp(sp->p[sp->algo].choice[(int)x[sp->algo]], "ppo") == 0 ? FOX_ALGO_PPO
                                                                        : FOX_ALGO_DQN;
}

int space_active(const struct space *sp, int i, const double *x) {
  return sp->p[i].agent < 0 || sp->p[i].agent == space_agent(sp, x);
}

void space_mask(const struct space *sp, double *x) {
  for (int i = 0; i < sp->n; i++)
    if (!space_active(sp, i, x))
      x[i] = NAN;
}

/* Points of a q_uniform parameter: min + k q, k = 0 .. count-1 (a hair of slack for 0.1 steps). */
/* Point k of a q grid, rounded to 12 significant digits so that 0.1 + 1 * 0.05 is 0.15 and
 * not 0.15000000000000002 in tables and configs. */
static double q_point_(const struct space_param *p, double k) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.12g", p->lo + k * p->q);
  return strtod(buf, NULL);
}

/* The slack forgives (max - min) / q landing a hair below an integer; a top point that the
 * slack pushed above max is taken back. */
static long long q_count_(const struct space_param *p) {
  long long n = (long long)floor((p->hi - p->lo) / p->q + 1e-9) + 1;
  while (n > 1 && q_point_(p, (double)(n - 1)) > p->hi)
    n--;
  return n;
}

void space_numeric(const struct space_param *p, double *low, double *high, double *step,
                   int *log_scale) {
  *log_scale = p->dist == FOX_DIST_LOG_UNIFORM;
  *step = p->dist == FOX_DIST_Q_UNIFORM ? p->q : p->integer ? 1.0 : 0.0;
  *low = p->lo;
  *high = p->dist == FOX_DIST_Q_UNIFORM ? q_point_(p, (double)(q_count_(p) - 1)) : p->hi;
}

double space_snap(const struct space_param *p, double v) {
  double low, high, step;
  int lg;
  space_numeric(p, &low, &high, &step, &lg);
  if (step > 0)
    v = p->dist == FOX_DIST_Q_UNIFORM ? q_point_(p, round((v - low) / step))
                                      : low + round((v - low) / step) * step;
  return v < low ? low : v > high ? high : v;
}

double space_sample_uniform(const struct space *sp, int i, struct rng *r) {
  const struct space_param *p = &sp->p[i];
  double u = rng_uniform(r);
  switch (p->dist) {
  case FOX_DIST_CATEGORICAL: return floor(u * p->n_choices);
  case FOX_DIST_FIXED: return 0;
  case FOX_DIST_INT_UNIFORM: return p->lo + floor(u * (p->hi - p->lo + 1));
  case FOX_DIST_Q_UNIFORM: return q_point_(p, floor(u * (double)q_count_(p)));
  case FOX_DIST_LOG_UNIFORM:
    if (p->integer) /* each integer with the mass of its log-space interval, as Optuna */
      return space_snap(p, exp(log(p->lo - 0.5) + u * (log(p->hi + 0.5) - log(p->lo - 0.5))));
    return space_snap(p, exp(log(p->lo) + u * (log(p->hi) - log(p->lo))));
  default: return p->lo + u * (p->hi - p->lo);
  }
}

void space_format(const struct space_param *p, double v, char *buf, size_t n) {
  if (isnan(v)) {
    buf[0] = '\0';
  } else if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
    snprintf(buf, n, "%s", p->choice[(int)v]);
  } else if (p->integer) {
    snprintf(buf, n, "%.0f", v);
  } else {
    /* The shortest text (6 to 17 digits) that reads back to the same double. Past a precision
     * that reads back every longer one does too (the nearer decimal stays inside v's rounding
     * interval) unless v is a power of two, whose interval is narrower below: a binary search
     * then, 4 conversions where the plain scan took up to 12, which the table writes did for
     * every number (issue 28); the plain scan for powers of two. */
    int e2;
    if (fabs(frexp(v, &e2)) == 0.5) {
      for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
          break;
      }
      return;
    }
    int lo = 6, hi = 17; /* 17 digits always read back */
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2;
      snprintf(buf, n, "%.*g", mid, v);
      if (strtod(buf, NULL) == v)
        hi = mid;
      else
        lo = mid + 1;
    }
    snprintf(buf, n, "%.*g", lo, v);
  }
}

double space_number(const struct space_param *p, double v) {
  if (isnan(v) || (p->dist != FOX_DIST_CATEGORICAL && p->dist != FOX_DIST_FIXED))
    return v;
  double num = p->choice_num[(int)v];
  return isnan(num) ? v : num;
}

int space_apply(const struct space *sp, const double *x, struct config *cfg, struct fox_err *e) {
  for (int i = 0; i < sp->n; i++) {
    if (isnan(x[i]))
      continue;
    char val[FOX_CHOICE_LEN], kv[FOX_NAME_LEN + FOX_CHOICE_LEN + 2];
    space_format(&sp->p[i], x[i], val, sizeof val);
    snprintf(kv, sizeof kv, "%s=%s", sp->p[i].key, val);
    FOX_TRY(config_set(cfg, kv, NULL, e));
  }
  return 0;
}

/* Grid points of one parameter (0 when it is continuous). */
static long long grid_count_(const struct space_param *p) {
  switch (p->dist) {
  case FOX_DIST_CATEGORICAL:
  case FOX_DIST_FIXED: return p->n_choices;
  case FOX_DIST_Q_UNIFORM: return q_count_(p);
  case FOX_DIST_INT_UNIFORM: return (long long)(p->hi - p->lo) + 1;
  default: return 0;
  }
}

static double grid_value_(const struct space_param *p, long long k) {
  switch (p->dist) {
  case FOX_DIST_Q_UNIFORM: return q_point_(p, (double)k);
  case FOX_DIST_INT_UNIFORM: return p->lo + (double)k;
  default: return (double)k;
  }
}

/* The grid of the parameters active under one agent choice (a = choice index of train.algo, or
 * -1 when the agent is fixed): the product of their counts. */
static long long grid_block_(const struct space *sp, int a, double *x, long long k) {
  double probe[FOX_SPACE_MAX];
  for (int i = 0; i < sp->n; i++)
    probe[i] = 0;
  if (sp->algo >= 0)
    probe[sp->algo] = a;
  long long size = 1;
  for (int i = sp->n - 1; i >= 0; i--) {
    if (i == sp->algo || !space_active(sp, i, probe)) {
      if (x)
        x[i] = i == sp->algo ? a : NAN;
      continue;
    }
    long long c = grid_count_(&sp->p[i]);
    if (x) {
      x[i] = grid_value_(&sp->p[i], k % c);
      k /= c;
    }
    size = size > (1LL << 50) / c ? (1LL << 50) : size * c;
  }
  return size;
}

int space_grid_size(const struct space *sp, long long *size, struct fox_err *e) {
  for (int i = 0; i < sp->n; i++)
    if (grid_count_(&sp->p[i]) == 0)
      return fox_errf(e, FOX_EUSAGE, "parameters.%s (line %d): the grid sampler needs values, "
                                     "q_uniform or int_uniform, not %s", sp->p[i].key,
                      sp->p[i].line, dist_names_[sp->p[i].dist]);
  long long total = 0;
  int na = sp->algo >= 0 ? sp->p[sp->algo].n_choices : 1;
  for (int a = 0; a < na; a++)
    total += grid_block_(sp, sp->algo >= 0 ? a : -1, NULL, 0);
  *size = total;
  return 0;
}

void space_grid_point(const struct space *sp, long long k, double *x) {
  int na = sp->algo >= 0 ? sp->p[sp->algo].n_choices : 1;
  for (int a = 0; a < na; a++) {
    long long block = grid_block_(sp, sp->algo >= 0 ? a : -1, NULL, 0);
    if (k < block || a == na - 1) {
      grid_block_(sp, sp->algo >= 0 ? a : -1, x, k);
      return;
    }
    k -= block;
  }
}

int space_value(const struct space_param *p, const char *text, double *x) {
  if (p->dist == FOX_DIST_CATEGORICAL || p->dist == FOX_DIST_FIXED) {
    double v;
    int num = number_(text, &v) == 0;
    for (int k = 0; k < p->n_choices; k++)
      if (strcmp(text, p->choice[k]) == 0 || (num && v == p->choice_num[k])) {
        *x = k;
        return 0;
      }
    return -1;
  }
  double v;
  if (number_(text, &v) != 0 || !(v >= p->lo && v <= p->hi))
    return -1;
  /* A value the sampler could draw: on the integers or the q grid. */
  double s = space_snap(p, v);
  if (fabs(s - v) > 1e-12 * (fabs(v) > 1 ? fabs(v) : 1))
    return -1;
  *x = s;
  return 0;
}
