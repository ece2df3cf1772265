/* The study's round logic: rounds of proposals from the completed history (the round's earlier
 * proposals count as running, so the sampler spreads them), rung segments as work items, and
 * the synchronous decisions at each rung. */
#include "study/study.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "study/aggregate.h"
#include "study/objective.h"
#include "search/pareto.h"
#include "util/rng.h"

const char *const study_status_names[4] = {"complete", "pruned", "failed", "running"};

/* Keys a study cannot search: they fix what the trials are compared on. */
static const char *const fixed_keys_[] = {"data.path", "train.backend", "eval.split",
                                          "eval.folds", "output.tensorboard", NULL};

/* Repeat r's training seed: one stream per repeat, shared by every configuration, so that
 * configurations are compared on the same K seeds (paired). With one repeat each trial keeps
 * its own seed, as before repeats existed. */
static void repeat_seeds_(struct study *s) {
  uint64_t base = rng_hash2(s->cfg.study.seed, 0x7265706561747321ULL); /* "repeats!" */
  for (int r = 0; r < FOX_REPEATS_MAX; r++)
    s->rep_seed[r] = rng_hash2(base, (uint64_t)r);
}

static int objective_(struct study *s, const char *name, struct fox_err *e) {
  const struct study_config *sc = &s->cfg.study;
  const struct test_function *tf = objective_function(sc->function);
  s->repeats = sc->repeats;
  s->folds = tf ? 1 : s->cfg.eval_folds;
  repeat_seeds_(s);
  if ((long)sc->round_size * sc->repeats > 100000)
    return fox_errf(e, FOX_EUSAGE, "%s: study.round_size %d x study.repeats %d: at most 100000 "
                                   "segments a step", name, sc->round_size, sc->repeats);
  s->n_obj = sc->n_obj;
  for (int k = 0; k < s->n_obj; k++)
    s->obj_dir[k] = k ? sc->more_dir[k - 1] : sc->direction;
  char expect[200];
  const char *split = dataset_split_name(s->cfg.eval_split);
  if (tf) {
    const char *const *outs;
    s->n_metrics = objective_outputs(tf, &outs);
    for (int m = 0; m < s->n_metrics; m++)
      snprintf(s->metric_names[m], FOX_NAME_LEN, "%s", outs[m]);
    snprintf(expect, sizeof expect, "%s reports %s%s%s%s%s%s%s", tf->name, outs[0],
             s->n_metrics > 1 ? ", " : "", s->n_metrics > 1 ? outs[1] : "",
             s->n_metrics > 2 ? ", " : "", s->n_metrics > 2 ? outs[2] : "",
             s->n_metrics > 3 ? ", " : "", s->n_metrics > 3 ? outs[3] : "");
  } else {
    s->n_metrics = FOX_NMETRICS;
    for (int m = 0; m < FOX_NMETRICS; m++)
      snprintf(s->metric_names[m], FOX_NAME_LEN, "%s.%s", split, metrics_names[m]);
    snprintf(expect, sizeof expect, "expected %s.<metric> (eval.split is %s; metrics: "
                                    "total_return, sharpe, sortino, max_drawdown, "
                                    "annual_return, calmar, trades, win_rate, profit_factor, "
                                    "exposure, final_equity, bars)", split, split);
  }
  for (int k = 0; k < s->n_obj; k++) {
    const char *want = k ? sc->more_metric[k - 1] : sc->metric;
    s->obj_metric[k] = -1;
    for (int m = 0; m < s->n_metrics; m++)
      if (strcmp(want, s->metric_names[m]) == 0)
        s->obj_metric[k] = m;
    /* A single-output function's value is the objective whatever the metric says (the
     * default val.sharpe), as before objectives were named. */
    if (tf && s->n_metrics == 1 && s->n_obj == 1)
      s->obj_metric[k] = 0;
    if (s->obj_metric[k] < 0) {
      if (s->n_obj == 1)
        return fox_errf(e, FOX_EUSAGE, "%s: study.objective.metric = '%s': %s", name, want,
                        expect);
      return fox_errf(e, FOX_EUSAGE, "%s: study.objective[%d].metric = '%s': %s", name, k,
                      want, expect);
    }
  }
  /* The YAML refuses one metric twice; --set study.objective.metric can still make it so. */
  for (int k = 1; k < s->n_obj; k++)
    for (int j = 0; j < k; j++)
      if (s->obj_metric[k] == s->obj_metric[j])
        return fox_errf(e, FOX_EUSAGE, "%s: study.objective: %s is objective %d and %d: each "
                                       "metric may be an objective once", name,
                        s->metric_names[s->obj_metric[k]], j, k);
  s->objective = s->obj_metric[0];
  s->n_con = sc->n_constraints;
  for (int c = 0; c < s->n_con; c++) {
    s->con_metric[c] = -1;
    for (int m = 0; m < s->n_metrics; m++)
      if (strcmp(sc->constraints[c].metric, s->metric_names[m]) == 0)
        s->con_metric[c] = m;
    if (s->con_metric[c] < 0)
      return fox_errf(e, FOX_EUSAGE, "%s: study.constraints[%d]: metric '%s': %s", name, c,
                      sc->constraints[c].metric, expect);
  }
  /* Optuna prunes no multi-objective study, and a rung decision needs one order. */
  if (s->n_obj > 1 && sc->scheduler != FOX_SCHED_NONE && sc->scheduler != FOX_SCHED_PBT)
    return fox_errf(e, FOX_EUSAGE, "%s: study.scheduler.name = %s with %d objectives: "
                                   "successive halving and hyperband rank one objective; use "
                                   "scheduler none for a multi-objective study", name,
                    sc->scheduler == FOX_SCHED_SH ? "successive_halving" : "hyperband",
                    s->n_obj);
  return 0;
}

/* Successive halving's and Hyperband's keys in a pbt study, or pbt's in one of theirs, would be
 * ignored: refused instead, when the file or a --set gives them (whatever the value: one equal
 * to the default is as ignored as any other). Scheduler none takes any (a config switched to
 * none by --set keeps its other keys). Checked when a study starts, not when one is read back:
 * a stored study stays readable. */
static int scheduler_keys_(const struct config *c, const char *name, struct fox_err *e) {
  static const char *const sh[] = {"min_epochs", "max_epochs", "eta", "brackets", NULL};
  static const char *const pbt_keys[] = {"population", "interval", "quantile",
                                         "resample_probability", "factors", "copy_buffers", NULL};
  const struct study_config *sc = &c->study;
  int pbt = sc->scheduler == FOX_SCHED_PBT;
  if (sc->scheduler == FOX_SCHED_NONE)
    return 0;
  for (const char *const *k = pbt ? sh : pbt_keys; *k; k++) {
    char key[64];
    snprintf(key, sizeof key, "study.scheduler.%s", *k);
    if (config_given(c, key))
      return fox_errf(e, FOX_EUSAGE, "%s (or a --set): study.scheduler.%s does not apply to "
                                     "scheduler %s (%s): remove it", name, *k,
                      config_scheduler_names[sc->scheduler],
                      pbt ? "pbt's budget is train.epochs in generations of "
                            "study.scheduler.interval"
                          : "population, interval, quantile, resample_probability, factors "
                            "and copy_buffers are pbt's");
  }
  return 0;
}

/* Keys whose value shapes the state a member hands to another (network shapes, the agent,
 * buffer and rollout sizes, the environments, the reward scale): fixed under pbt. */
static const char *const pbt_fixed_keys_[] = {
    "train.algo",       "train.steps_per_epoch", "env.num_envs",   "env.episode_bars",
    "dqn.hidden",       "dqn.activation",        "dqn.dueling",    "dqn.buffer_size",
    "dqn.init",         "ppo.hidden",            "ppo.activation", "ppo.n_steps",
    "ppo.init",         "ppo.value_loss",        "reward.scale",   "reward.normalize", NULL};

/* The checks and the plan of a pbt study, beside the other checks of the config (its
 * generations belong to the study's shape, as the rung plan does; pbt.c runs them): one
 * objective, no searched key of pbt_fixed_keys_ (unless `value:`), at least two generations.
 * Sets s->generations, s->total, s->gen. */
static int pbt_plan_(struct study *s, const char *name, struct fox_err *e) {
  const struct study_config *sc = &s->cfg.study;
  if (s->n_obj > 1)
    return fox_errf(e, FOX_EUSAGE, "%s: study.scheduler.name = pbt with %d objectives: PBT "
                                   "ranks members by one objective", name, s->n_obj);
  for (int i = 0; i < s->space.n; i++) {
    const struct space_param *p = &s->space.p[i];
    for (const char *const *k = pbt_fixed_keys_; *k; k++)
      if (strcmp(p->key, *k) == 0 && p->dist != FOX_DIST_FIXED)
        return fox_errf(e, FOX_EUSAGE, "%s:%d: parameters.%s: cannot be searched under "
                                       "study.scheduler.name = pbt: it shapes the state members "
                                       "copy from each other (networks, buffers, "
                                       "environments); fix it with `value:`", name, p->line,
                        p->key);
  }
  int epochs = s->plan_epochs;
  s->generations = (epochs + sc->interval - 1) / sc->interval;
  if (s->generations < 2)
    return fox_errf(e, FOX_EUSAGE, "%s: study.scheduler.interval %d with train.epochs %d makes "
                                   "one generation: nothing to exploit (lower the interval, or "
                                   "use scheduler none)", name, sc->interval, epochs);
  if ((long)sc->population * s->generations > 10000000L)
    return fox_errf(e, FOX_EUSAGE, "%s: study.scheduler.population %d x %d generations: at "
                                   "most 1e7 rows", name, sc->population, s->generations);
  if ((long)sc->population * sc->repeats > 100000)
    return fox_errf(e, FOX_EUSAGE, "%s: study.scheduler.population %d x study.repeats %d: at "
                                   "most 100000 segments a generation", name, sc->population,
                    sc->repeats);
  s->total = sc->population * s->generations;
  s->gen = calloc((size_t)s->generations, sizeof *s->gen);
  if (!s->gen)
    return fox_errf(e, FOX_EFAIL, "study: out of memory");
  return 0;
}


static int create_(struct study *s, const char *text, const char *name, struct fox_err *e) {
  struct config *c = &s->cfg;
  FOX_TRY(objective_(s, name, e));
  FOX_TRY(space_load_text(&s->space, text, name, c, e));
  FOX_TRY(enqueue_load_text(&s->enqueue, &s->space, text, name, e));
  if (s->enqueue.n > 0 && c->study.sampler == FOX_SAMPLER_GRID)
    return fox_errf(e, FOX_EUSAGE, "%s: enqueue: the grid sampler runs every point of the grid "
                                   "once, in its order: there is nothing to put first", name);
  for (int i = 0; i < s->space.n; i++)
    for (const char *const *k = fixed_keys_; *k; k++)
      if (strcmp(s->space.p[i].key, *k) == 0)
        return fox_errf(e, FOX_EUSAGE, "%s:%d: parameters.%s: cannot be searched: every trial "
                                       "of a study uses the same one", name, s->space.p[i].line,
                        *k);
  for (int i = 0; i < s->space.n; i++)
    if (strcmp(s->space.p[i].key, "train.epochs") == 0 && c->study.scheduler != FOX_SCHED_NONE)
      return fox_errf(e, FOX_EUSAGE, "%s:%d: parameters.train.epochs: the scheduler sets the "
                                     "budget (study.scheduler.max_epochs)", name,
                      s->space.p[i].line);
  if (scheduler_plan(&c->study, c->epochs, &s->plan, e) != 0)
    return fox_err_wrap(e, "%s", name); /* the plan's keys are several: the file is named */
  s->plan_epochs = s->plan.epochs[s->plan.n - 1];
  s->sampler = sampler_get(c->study.sampler);
  s->total = c->study.trials;
  if (c->study.sampler == FOX_SAMPLER_GRID) {
    /* before pbt's set-up too: its generation 0 is drawn from the grid */
    long long size;
    if (space_grid_size(&s->space, &size, e) != 0)
      return fox_err_wrap(e, "%s: study.sampler.name = grid", name);
    if (size < s->total && c->study.scheduler != FOX_SCHED_PBT)
      s->total = (int)size;
  }
  if (c->study.scheduler == FOX_SCHED_PBT)
    return pbt_plan_(s, name, e);
  return 0;
}

/* One path for a new study and a stored one: the config text, then its --set overrides, one
 * per line. study.h5 keeps the two apart (attributes config and config_sets), so that a resume
 * replays exactly the overrides and a comment in the YAML stays a comment. */
int study_create_text(struct study *s, const char *text, const char *sets, const char *name,
                      struct fox_err *e) {
  memset(s, 0, sizeof *s);
  config_defaults(&s->cfg);
  s->config_text = strdup(text);
  s->config_sets = strdup(sets ? sets : "");
  int rc = s->config_text && s->config_sets
               ? config_load_text(&s->cfg, text, name,
                                  (const char *const[]){"parameters", "enqueue", NULL},
                                  e)
               : fox_errf(e, FOX_EFAIL, "study: out of memory");
  for (const char *p = s->config_sets; rc == 0 && *p;) {
    size_t len = strcspn(p, "\n");
    char *kv = strndup(p, len);
    rc = kv ? config_set(&s->cfg, kv, NULL, e) : fox_errf(e, FOX_EFAIL, "study: out of memory");
    free(kv);
    p += len + (p[len] == '\n');
  }
  if (rc == 0) {
    config_default_directions(&s->cfg);
    rc = create_(s, text, name, e);
  }
  if (rc != 0)
    study_free(s);
  return rc;
}

int study_create(struct study *s, const char *path, const char *const *sets, int nset,
                 struct fox_err *e) {
  memset(s, 0, sizeof *s);
  char *text;
  FOX_TRY(config_read_file(path, &text, e));
  size_t len = 1;
  for (int i = 0; i < nset; i++)
    len += strlen(sets[i]) + 1;
  char *lines = calloc(len, 1), *p = lines;
  int rc = lines ? 0 : fox_errf(e, FOX_EFAIL, "study: out of memory");
  for (int i = 0; rc == 0 && i < nset; i++)
    p += sprintf(p, "%s\n", sets[i]);
  if (rc == 0)
    rc = study_create_text(s, text, lines, path, e);
  if (rc == 0 && (rc = scheduler_keys_(&s->cfg, path, e)) != 0)
    study_free(s);
  free(lines);
  free(text);
  return rc;
}

void study_free(struct study *s) {
  enqueue_free(&s->enqueue);
  free(s->config_text);
  free(s->config_sets);
  for (int i = 0; s->trials && i < s->n; i++) {
    free(s->trials[i].rep);
    free(s->trials[i].cells);
  }
  free(s->trials);
  free(s->gen);
  free(s->hist);
  memset(s, 0, sizeof *s);
}

void study_losses(const struct study *s, const struct study_trial *t, double *v) {
  int dead = t->status == FOX_ST_FAILED || t->epochs == 0;
  for (int k = 0; k < s->n_obj; k++) {
    double x = dead ? NAN : t->metrics[s->obj_metric[k]];
    v[k] = s->obj_dir[k] == FOX_MAXIMIZE ? -x : x;
  }
}

double study_violation(const struct study *s, const struct study_trial *t) {
  if (t->status == FOX_ST_FAILED || t->epochs == 0)
    return NAN;
  double sum = 0;
  for (int c = 0; c < s->n_con; c++) {
    const struct study_constraint *k = &s->cfg.study.constraints[c];
    double v = t->metrics[s->con_metric[c]];
    if (isnan(v)) {
      sum = INFINITY;
      continue;
    }
    int ok = k->op == FOX_OP_GE   ? v >= k->bound
             : k->op == FOX_OP_LE ? v <= k->bound
             : k->op == FOX_OP_GT ? v > k->bound
                                  : v < k->bound;
    if (!ok)
      sum += fmax(fabs(k->bound - v), DBL_MIN);
  }
  return sum;
}

double study_constraint_value(const struct study *s, const struct study_trial *t, int c) {
  const struct study_constraint *k = &s->cfg.study.constraints[c];
  double v = t->metrics[s->con_metric[c]];
  if (isnan(v) || t->status == FOX_ST_FAILED || t->epochs == 0)
    return NAN;
  int ok = k->op == FOX_OP_GE   ? v >= k->bound
           : k->op == FOX_OP_LE ? v <= k->bound
           : k->op == FOX_OP_GT ? v > k->bound
                                : v < k->bound;
  if (!ok)
    return fmax(fabs(k->bound - v), DBL_MIN); /* as study_violation counts it */
  return -fabs(k->bound - v); /* met: the slack, <= 0 */
}

int study_feasible(const struct study *s, const struct study_trial *t) {
  if (t->status != FOX_ST_COMPLETE)
    return -1;
  double v[FOX_OBJ_MAX];
  study_losses(s, t, v);
  for (int k = 0; k < s->n_obj; k++)
    if (isnan(v[k]))
      return 0;
  return study_violation(s, t) == 0;
}

int study_pareto_ranks(const struct study *s, int *rank, struct fox_err *e) {
  int m = s->n_obj, k = 0;
  double *val = malloc((size_t)(s->n ? s->n : 1) * (size_t)(m + 1) * sizeof *val);
  int *idx = malloc((size_t)(s->n ? s->n : 1) * 2 * sizeof *idx);
  if (!val || !idx) {
    free(val), free(idx);
    mallocCheck(NULL, e);
  }
  double *viol = val + (size_t)s->n * m;
  int *sub = idx + s->n;
  for (int i = 0; i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    rank[i] = -1;
    if (t->status != FOX_ST_COMPLETE)
      continue;
    double *v = val + (size_t)k * m;
    study_losses(s, t, v);
    int ok = 1;
    for (int j = 0; j < m; j++)
      ok &= !isnan(v[j]);
    if (!ok)
      continue;
    viol[k] = study_violation(s, t);
    idx[k++] = i;
  }
  /* viol[] was filled beside val's first k rows; move it to follow them */
  memmove(val + (size_t)k * m, viol, (size_t)k * sizeof *viol);
  int rc = pareto_rank(val, val + (size_t)k * m, k, m, sub);
  for (int j = 0; rc == 0 && j < k; j++)
    rank[idx[j]] = sub[j];
  free(val), free(idx);
  if (rc != 0)
    return fox_errf(e, FOX_EFAIL, "out of memory%s", fox_src_at(__FILE__, __LINE__));
  return 0;
}

double study_loss(const struct study *s, const struct study_trial *t) {
  if (t->status == FOX_ST_FAILED || t->epochs == 0)
    return NAN;
  double v = t->metrics[s->objective];
  if (isnan(v))
    return NAN;
  return s->cfg.study.direction == FOX_MAXIMIZE ? -v : v;
}

int study_last_generation(const struct study *s) {
  int gen = -1;
  for (int i = 0; i < s->n; i++)
    if (s->trials[i].status == FOX_ST_COMPLETE && s->trials[i].generation > gen)
      gen = s->trials[i].generation;
  return gen;
}

/* The lowest loss on the objective among feasible trials (of the last pbt generation), on the
 * Pareto front when there are several objectives (rank 0 of study_pareto_ranks: pareto.c's
 * sort, O(n log n) with two objectives, where a scan of every trial per candidate made the
 * progress line's once-a-second call O(n^2)); ties to the lower id. */
int study_best(const struct study *s) {
  int best = -1, gen = study_last_generation(s);
  int *rank = NULL;
  struct fox_err e = {0};
  if (s->n_obj > 1 &&
      (!(rank = malloc((size_t)(s->n ? s->n : 1) * sizeof *rank)) ||
       study_pareto_ranks(s, rank, &e) != 0)) {
    free(rank);
    abort(); /* a few words per trial */
  }
  double best_l = INFINITY;
  for (int i = 0; i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    if (t->status != FOX_ST_COMPLETE || t->generation != gen)
      continue;
    double l = study_loss(s, t);
    if (isnan(l) || (best >= 0 && !(l < best_l)) || (rank && rank[i] != 0) ||
        study_feasible(s, t) != 1)
      continue;
    best = i;
    best_l = l;
  }
  free(rank);
  return best;
}

int study_max_items(const struct study *s) {
  int k = s->cfg.study.scheduler == FOX_SCHED_PBT ? s->cfg.study.population
                                                  : s->cfg.study.round_size;
  return k * s->repeats;
}

double *study_cell(const struct study *s, const struct study_trial *t, int r, int f) {
  return t->cells + ((size_t)r * (size_t)s->folds + (size_t)f) * (size_t)s->n_metrics;
}

int study_trial_alloc(const struct study *s, struct study_trial *t, struct fox_err *e) {
  size_t nc = (size_t)s->repeats * (size_t)s->folds * (size_t)s->n_metrics;
  t->rep = malloc((size_t)s->repeats * sizeof *t->rep);
  t->cells = malloc(nc * sizeof *t->cells);
  if (!t->rep || !t->cells) {
    free(t->rep), free(t->cells);
    t->rep = NULL, t->cells = NULL;
    return fox_errf(e, FOX_EFAIL, "study: out of memory");
  }
  for (int r = 0; r < s->repeats; r++)
    t->rep[r] = (struct study_rep){-1, 0, -1, 0, NAN, NAN, 0};
  t->start = t->end = NAN;
  for (size_t i = 0; i < nc; i++)
    t->cells[i] = NAN;
  return 0;
}

void study_aggregate(const struct study *s, struct study_trial *t) {
  int n = s->repeats * s->folds;
  double v[FOX_REPEATS_MAX * FOX_FOLDS_MAX];
  for (int m = 0; m < FOX_STUDY_METRICS; m++) {
    t->metrics[m] = t->spread[m] = NAN;
    if (m >= s->n_metrics || t->status == FOX_ST_FAILED)
      continue;
    for (int r = 0; r < s->repeats; r++)
      for (int f = 0; f < s->folds; f++)
        v[r * s->folds + f] = study_cell(s, t, r, f)[m];
    t->spread[m] = aggregate_std(v, n);
    t->metrics[m] = study_aggregate_metric(s, m, v, n);
  }
}

double study_aggregate_metric(const struct study *s, int m, double *v, int n) {
  /* lcb is a bound on an objective, pessimistic in its direction; the other columns show the
   * mean beside their spread */
  int agg = s->cfg.study.aggregate, obj = -1;
  for (int k = 0; k < s->n_obj; k++)
    obj = s->obj_metric[k] == m ? k : obj;
  int how = agg == FOX_AGG_LCB && obj < 0 ? FOX_AGG_MEAN : agg;
  return aggregate(v, n, how, obj < 0 || s->obj_dir[obj] == FOX_MAXIMIZE);
}

static int alive_(const struct study_trial *t) { return t->status == FOX_ST_RUNNING; }

int study_finished(const struct study *s) {
  if (s->n < s->total)
    return 0;
  for (int i = 0; i < s->n; i++)
    if (alive_(&s->trials[i]))
      return 0;
  return 1;
}

int study_trial_config(const struct study *s, const double *x, uint64_t seed, struct config *c,
                       struct fox_err *e) {
  *c = s->cfg;
  FOX_TRY(space_apply(&s->space, x, c, e));
  c->seed = seed;
  c->epochs = s->plan_epochs;
  return 0;
}

/* The history as the sampler sees it; the trials of the open round are still running. Kept in
 * s->hist from one proposal to the next: the rows of rounds before the last one no longer
 * change (a round is proposed when the one before it is done, and a step records and decides
 * the open round's rows only), so only the rows from the last round on are made again, not the
 * whole history at every proposal (O(n^2) over a study of rounds of 1, issue 28): the rows from
 * `from` on and those it has not made yet. A move of the rows (s->trials reallocated) remakes
 * them all. */
static struct seen_trial *history_(struct study *s, int from, struct fox_err *e) {
  if (s->hist_cap < s->n || s->hist_base != s->trials) {
    int cap = s->cap > s->n ? s->cap : s->n;
    struct seen_trial *nh = realloc(s->hist, (size_t)(cap ? cap : 1) * sizeof *nh);
    if (!nh) {
      fox_errf(e, FOX_EFAIL, "study: out of memory");
      return NULL;
    }
    s->hist = nh;
    s->hist_cap = cap;
    if (s->hist_base != s->trials)
      s->hist_n = 0;
    s->hist_base = s->trials;
  }
  struct seen_trial *h = s->hist;
  for (int i = from < s->hist_n ? from : s->hist_n; i < s->n; i++) {
    const struct study_trial *t = &s->trials[i];
    double l = study_loss(s, t);
    static const int seen[4] = {FOX_SEEN_COMPLETE, FOX_SEEN_PRUNED, FOX_SEEN_FAILED,
                                FOX_SEEN_RUNNING};
    h[i] = (struct seen_trial){t->x, seen[t->status], isnan(l) ? INFINITY : l, t->epochs,
                               t->round, s->n_obj, {0}, 0};
    study_losses(s, t, h[i].values);
    double viol = study_violation(s, t);
    h[i].violation = isnan(viol) ? INFINITY : viol;
  }
  s->hist_n = s->n;
  return h;
}

/* Room for k more rows (the rows may move). */
static int reserve_(struct study *s, int k, struct fox_err *e) {
  if (s->n + k <= s->cap)
    return 0;
  int cap = s->cap ? s->cap : 64;
  while (cap < s->n + k)
    cap *= 2;
  struct study_trial *nt = realloc(s->trials, (size_t)cap * sizeof *nt);
  mallocCheck(nt, e);
  s->trials = nt;
  s->cap = cap;
  return 0;
}

int study_add_trial(struct study *s, int round, struct study_trial **out, struct fox_err *e) {
  FOX_TRY(reserve_(s, 1, e));
  struct study_trial *t = &s->trials[s->n];
  memset(t, 0, sizeof *t);
  FOX_TRY(study_trial_alloc(s, t, e));
  t->id = s->n;
  t->round = round;
  t->status = FOX_ST_RUNNING;
  t->rung = -1;
  t->rank = -1;
  t->member = t->generation = t->parent = -1;
  t->seed = rng_hash2(s->cfg.study.seed, (uint64_t)t->id);
  for (int m = 0; m < FOX_STUDY_METRICS; m++)
    t->metrics[m] = t->spread[m] = NAN;
  for (int i = 0; i < FOX_SPACE_MAX; i++)
    t->x[i] = NAN;
  s->n++;
  *out = t;
  return 0;
}

int study_propose_round(struct study *s, struct fox_err *e) {
  int pbt = s->cfg.study.scheduler == FOX_SCHED_PBT;
  int bracket = scheduler_bracket(&s->cfg.study, &s->plan, s->rounds);
  int k = pbt ? s->cfg.study.population : scheduler_round_trials(&s->cfg.study, &s->plan, bracket);
  if (k > s->total - s->n)
    k = s->total - s->n;
  /* the rows stay where they are while the history points into them */
  FOX_TRY(reserve_(s, k, e));
  /* Rows of the last round and this one may have moved on since the history was last made
   * (results, rungs); older ones cannot. Within the round nothing is recorded, so after the
   * first proposal only each new row is added: rebuilding the round's rows for each of its k
   * proposals was O(k^2) (5.9 s for a round of 32,000). */
  int from = s->n;
  while (from > 0 && s->trials[from - 1].round >= s->rounds - 1)
    from--;
  for (int j = 0; j < k; j++) {
    struct seen_trial *h = history_(s, from, e); /* the rows before this one */
    if (!h)
      return e->code;
    from = s->n;
    int before = s->n;
    struct study_trial *t;
    int rc = study_add_trial(s, s->rounds, &t, e);
    if (rc == 0) {
      t->bracket = bracket;
      t->next_rung = bracket;
      /* An enqueued set is the point (no proposal: a sampler's draws are the trial's own) */
      if (t->id < s->enqueue.n)
        memcpy(t->x, s->enqueue.x[t->id], sizeof s->enqueue.x[t->id]);
      else
        rc = s->sampler->propose(&s->cfg.study.tpe, &s->space, h, before,
                                 rng_hash2(t->seed, 0x73616d70ULL), t->x, e);
      if (rc != 0) {
        free(t->rep), free(t->cells);
        s->n--;
      }
    }
    FOX_TRY(rc);
    for (int i = s->space.n; i < FOX_SPACE_MAX; i++)
      t->x[i] = NAN;
  }
  s->rounds++;
  return 0;
}

/* A configuration moves to its next rung when every repeat has reached it; its metrics are
 * then the aggregate of the repeats' evaluations at that budget. */
static void settle_(struct study *s, struct study_trial *t) {
  int all = 1, epochs = t->rep[0].epochs;
  double seconds = 0;
  for (int r = 0; r < s->repeats; r++) {
    all = all && t->rep[r].rung >= t->next_rung;
    epochs = t->rep[r].epochs < epochs ? t->rep[r].epochs : epochs;
    seconds += t->rep[r].seconds;
  }
  t->epochs = epochs;
  t->seconds = seconds;
  study_trial_times(s, t);
  if (t->status == FOX_ST_FAILED) {
    study_aggregate(s, t); /* NaN */
  } else if (all) {
    t->rung = t->next_rung;
    study_aggregate(s, t);
  }
}

void study_trial_times(const struct study *s, struct study_trial *t) {
  t->start = t->end = NAN; /* fmin and fmax take a NaN for missing */
  for (int r = 0; r < s->repeats; r++) {
    t->start = fmin(t->start, t->rep[r].start);
    t->end = fmax(t->end, t->rep[r].end);
  }
}

void study_record(struct study *s, const struct work_result *res, int n) {
  for (int j = 0; j < n; j++) {
    const struct work_result *r = &res[j];
    if (r->done != FOX_WORK_DONE || r->trial < 0 || r->trial >= s->n || r->repeat < 0 ||
        r->repeat >= s->repeats)
      continue;
    struct study_trial *t = &s->trials[r->trial];
    struct study_rep *rp = &t->rep[r->repeat];
    rp->epochs = r->epochs;
    rp->seconds += r->seconds;
    if (isfinite(r->start)) { /* a later segment continues the repeat: its first start stays */
      rp->start = fmin(rp->start, r->start);
      rp->end = fmax(rp->end, r->start + r->seconds);
    }
    rp->rank = r->rank;
    t->rank = r->rank;
    for (int f = 0; f < s->folds; f++)
      memcpy(study_cell(s, t, r->repeat, f), r->metrics[f],
             (size_t)s->n_metrics * sizeof(double));
    if (r->status == FOX_ST_FAILED) {
      if (t->status != FOX_ST_FAILED) { /* the first failure names the trial's reason */
        t->status = FOX_ST_FAILED;
        if (s->repeats > 1)
          snprintf(t->reason, sizeof t->reason, "repeat %d: %.*s", r->repeat,
                   (int)sizeof t->reason - 16, r->reason);
        else
          snprintf(t->reason, sizeof t->reason, "%s", r->reason);
      }
    } else {
      rp->rung = t->next_rung;
      rp->held = 1; /* its rank keeps the state it saved (pbt asks it to) */
    }
    settle_(s, t);
  }
}

/* A repeat's epochs are the study's once a segment of it was recorded: a success moves its rung
 * on, a failure only marks the trial (its first segment leaves the rung at -1). */
static int rep_recorded_(const struct study_trial *t, const struct study_rep *rp) {
  return rp->rung >= 0 || t->status == FOX_ST_FAILED;
}

int study_recorded_epochs(const struct study *s, int id, int repeat, int member) {
  if (repeat < 0 || repeat >= s->repeats)
    return 0;
  if (!member) /* once per line of metrics.jsonl: direct */
    return id >= 0 && id < s->n && rep_recorded_(&s->trials[id], &s->trials[id].rep[repeat])
               ? s->trials[id].rep[repeat].epochs
               : 0;
  int last = 0;
  for (int i = 0; i < s->n; i++) {
    const struct study_rep *rp = &s->trials[i].rep[repeat];
    if (s->trials[i].member == id && rep_recorded_(&s->trials[i], rp) && rp->epochs > last)
      last = rp->epochs;
  }
  return last;
}
