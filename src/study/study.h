/* A study's state and its round logic (DESIGN.md s8): trials proposed in rounds from the
 * completed history, run in rung segments, promoted or pruned by the scheduler, recorded. This
 * file knows nothing of how work is executed (threads, MPI ranks): it hands out work items
 * and takes their results, so every executor gives the same table. */
#ifndef FOX_STUDY_H
#define FOX_STUDY_H

#include <stdint.h>

#include "backtest/metrics.h"
#include "search/sampler.h"
#include "study/scheduler.h"
#include "search/enqueue.h"
#include "search/space.h"

enum { FOX_ST_COMPLETE = 0, FOX_ST_PRUNED = 1, FOX_ST_FAILED = 2, FOX_ST_RUNNING = 3 };
extern const char *const study_status_names[4];

#define FOX_REASON_LEN 256
#define FOX_STUDY_METRICS FOX_NMETRICS

/* One seed of a configuration (study.repeats): where its segments stand. */
struct study_rep {
  int rung;   /* the last rung it reached (-1: none yet) */
  int epochs; /* epochs trained */
  int rank;   /* the rank that ran its last segment (-1: none yet) */
  double seconds;
  double start, end; /* UTC seconds: its first segment's start, its last one's end (NaN: none) */
  int held;   /* this run's rank `rank` holds its latest state in memory (pbt; never saved) */
};

/* One row of the study table: a configuration, trained with study.repeats seeds and evaluated
 * in eval.folds folds; its metrics are the aggregate of those repeats x folds cells. */
struct study_trial {
  int id, round, bracket, status;
  int rung;      /* the last rung reached (index into the plan; -1: none yet) */
  int next_rung; /* the rung it runs to next (a promotion moves it on) */
  int epochs;    /* epochs every repeat has trained */
  uint64_t seed;  /* the sampler's stream, and the training seed when study.repeats is 1 */
  int rank;       /* the rank that ran its last recorded segment */
  double seconds; /* wall time of its segments, all repeats */
  double start, end; /* UTC seconds: its repeats' first start and last end (NaN: not run) */
  double x[FOX_SPACE_MAX];
  double metrics[FOX_STUDY_METRICS]; /* the aggregate of the cells (NaN before the first) */
  double spread[FOX_STUDY_METRICS];  /* their standard deviation (NaN with one cell) */
  char reason[FOX_REASON_LEN];
  /* pbt: the row is generation `generation` of member `member`, continued from the state of
   * row `parent` (-1: from scratch), a top member's when `exploited`. -1, -1, -1, 0 for the
   * other schedulers. */
  int member, generation, parent, exploited;
  struct study_rep *rep; /* [repeats] */
  double *cells;         /* [repeats][folds][n_metrics]: each repeat's latest evaluation */
};

/* A segment of one trial to run: self-contained, so that any rank can take it. */
struct work_item {
  int trial, repeat;
  uint64_t seed;
  int from_epochs, to_epochs; /* from_epochs > 0: continue from a checkpoint */
  int from_trial;             /* whose checkpoint: the trial's own, or (pbt) its parent's */
  int buffers_trial;          /* >= 0: then the experience of this one's (pbt, copy_buffers
                                 false: an exploiting member keeps its own) */
  int src_rank;               /* the rank holding from_trial's state in memory (-1: the file) */
  int buffers_rank;           /* the same for buffers_trial's */
  int owner;                  /* the rank that runs it (-1: whichever takes it) */
  int keep_state;             /* a later rung may follow: save a checkpoint */
  int hold_state;             /* keep that checkpoint in memory too (pbt: another rank may
                                 continue from it) */
  int member, generation;     /* pbt's member and generation (-1 otherwise): live metrics */
  double x[FOX_SPACE_MAX];
};

enum { FOX_WORK_DONE = 0, FOX_WORK_STOPPED = 1 };
struct work_result {
  int trial, repeat;
  int done;   /* FOX_WORK_DONE, or FOX_WORK_STOPPED: abandoned, not recorded */
  int status; /* FOX_ST_RUNNING (segment done), FOX_ST_FAILED */
  int epochs, rank;
  double seconds;
  double start;         /* UTC seconds when it began (its end: start + seconds) */
  double state_seconds; /* of those, restoring and saving the agent's state */
  int copied;           /* states it continued from that were copied within this rank's
                         * device (held there since their segment), not uploaded */
  double metrics[FOX_FOLDS_MAX][FOX_STUDY_METRICS]; /* per fold (the first `folds` rows) */
  char reason[FOX_REASON_LEN];
};

/* What a pbt generation cost (rank 0's clock, and the slowest rank's transfers). */
struct pbt_gen {
  double wall;     /* the generation's steps, from the work handed out to the results in */
  double plan;     /* ranking, exploit and explore (rank 0) */
  double transfer; /* moving states between ranks before the segments ran (slowest rank) */
  double bytes;    /* state bytes moved between ranks */
  double state;    /* restoring and saving states inside the segments (summed) */
  double segments; /* the segments' own time (summed) */
  int transfers;   /* states moved between ranks */
  int copied;      /* states continued from within a device, where their segment ran */
};

struct study {
  struct config cfg; /* the base config with the study section */
  char *config_text; /* the config file as given */
  char *config_sets; /* its --set overrides, one per line, in order ("" when none) */
  struct space space;
  struct enqueue enqueue; /* the first trials' points, given (enqueue:) */
  const struct sampler_ops *sampler;
  struct rung_plan plan;
  int plan_epochs; /* train.epochs of every trial (the scheduler's full budget) */
  int total;       /* trials the study runs (study.trials, or the grid's size) */
  int n_metrics;   /* 12 eval metrics, or 1 ("value") for a test function */
  char metric_names[FOX_STUDY_METRICS][FOX_NAME_LEN];
  int objective; /* index into metrics: the first objective (the only one of a
                    single-objective study) */
  /* Every objective: the metric index and FOX_MAXIMIZE / FOX_MINIMIZE of each (n_obj = 1 for
   * a single-objective study: obj_metric[0] = objective, obj_dir[0] = study.direction). */
  int n_obj;
  int obj_metric[FOX_OBJ_MAX], obj_dir[FOX_OBJ_MAX];
  /* study.constraints: cfg.study.constraints[c] on metric con_metric[c]. */
  int n_con;
  int con_metric[FOX_CONSTRAINTS_MAX];
  int repeats;   /* study.repeats */
  int folds;     /* eval.folds (1 for a test function) */
  uint64_t rep_seed[FOX_REPEATS_MAX]; /* repeat r's training seed, the same for every trial */
  struct study_trial *trials;
  int n, cap;
  int rounds; /* rounds started */
  int steps;  /* steps run, over every run of the study */
  double wall_seconds; /* rank 0's time in the study loop, over every run */
  double bars_per_year; /* the dataset's (annualises per-bar figures), 0 when unknown */
  double reward_scale; /* what the base config's reward.scale stands for on its dataset (auto
                          resolved), 0 when unknown (test-function studies) */
  /* The dataset's bars and crc32 sums (features, prices) as the study began with it, and the
   * sum of its splits, bar_seconds, bars_per_year and feature scaling when known (a study that
   * recorded only the first, or none, cannot learn it later): a resume refuses another dataset
   * at data.path (runner_check_data). data_bars 0: not known (a test function, an older study). */
  int64_t data_bars;
  uint32_t data_crc[2], data_meta;
  int data_meta_known;
  int generations;      /* pbt: ceil(train.epochs / interval) (0 for the other schedulers) */
  struct pbt_gen *gen;  /* pbt: [generations] */
  /* The samplers' view of rows [0, hist_n), made for the rows at hist_base (study.c). */
  struct seen_trial *hist;
  int hist_n, hist_cap;
  const struct study_trial *hist_base;
};

/* A new study from a config file and --set overrides: the space, the sampler, the plan.
 * FOX_EUSAGE with FILE:LINE for every bad setting. */
int study_create(struct study *s, const char *path, const char *const *sets, int nset,
                 struct fox_err *e);
/* The same from stored text (study.h5's config and config_sets attributes), for resume;
 * sets may be NULL. */
int study_create_text(struct study *s, const char *text, const char *sets, const char *name,
                      struct fox_err *e);
void study_free(struct study *s);

/* A row's start and end from its repeats'. */
void study_trial_times(const struct study *s, struct study_trial *t);
/* Records the results of a step (stopped ones are left as they were). */
void study_record(struct study *s, const struct work_result *res, int n);
/* The last epoch the study recorded for (trial id, repeat), or with `member` for pbt member id
 * over its generations: what a resume keeps of the live metrics. A failure counts too: a
 * trial that diverged after evaluating some epochs keeps their lines (it trains no more). */
int study_recorded_epochs(const struct study *s, int id, int repeat, int member);
/* Proposes the next round from the sampler (pbt: generation 0). */
int study_propose_round(struct study *s, struct fox_err *e);
/* Appends a new running row of round `round` (its id, seed, repeats and cells; x NaN) and
 * points *t at it. */
int study_add_trial(struct study *s, int round, struct study_trial **t, struct fox_err *e);
/* The most work items a step can have: round_size x repeats. */
int study_max_items(const struct study *s);
/* Cell (repeat r, fold f) of trial t: n_metrics values. */
double *study_cell(const struct study *s, const struct study_trial *t, int r, int f);
/* Metric m's value over the n values v of its cells (v is reordered): the study's aggregate, an
 * lcb only for an objective (in its direction), the mean for the other metrics. */
double study_aggregate_metric(const struct study *s, int m, double *v, int n);
/* Recomputes t's metrics and spread from its cells (the objective's aggregate). */
void study_aggregate(const struct study *s, struct study_trial *t);
/* Gives t its repeats and cells (NaN, nothing run) for s's repeats and folds. */
int study_trial_alloc(const struct study *s, struct study_trial *t, struct fox_err *e);
/* The objective as a loss (lower is better; NaN when there is none). */
double study_loss(const struct study *s, const struct study_trial *t);
/* Every objective as a loss (lower is better) into v[n_obj]; NaN where there is none. */
void study_losses(const struct study *s, const struct study_trial *t, double *v);
/* t's total constraint violation: the sum over unmet constraints of |bound - value| (at least
 * DBL_MIN, so that a strict bound met with equality counts); 0 when every constraint holds or
 * there are none; +inf for a constraint metric without a value; NaN when t has no metrics. */
double study_violation(const struct study *s, const struct study_trial *t);
/* 1: a complete trial that meets every constraint; 0: a complete one that does not (or whose
 * objectives are not all numbers); -1: not complete. */
int study_feasible(const struct study *s, const struct study_trial *t);
/* Constraint c of trial t in Optuna's convention (constraints_func, the trial's "constraints"
 * system attribute): <= 0 when met (minus the slack), > 0 by how much it is broken (at least
 * DBL_MIN for a strict bound met exactly); NaN when the trial has no value for it. */
double study_constraint_value(const struct study *s, const struct study_trial *t, int c);
/* rank[i] for every trial: the constrained non-domination rank among the complete trials with
 * every objective a number (pareto_rank: feasible fronts first, infeasible ones by violation
 * after them), -1 for the others. FOX_EFAIL when memory runs out. */
int study_pareto_ranks(const struct study *s, int *rank, struct fox_err *e);
/* The best complete feasible trial: by the objective (ties: the lower id); with several
 * objectives, the one best on the first objective among the Pareto front (rank 0); under pbt,
 * among the rows of study_last_generation. -1 when none. */
int study_best(const struct study *s);
/* pbt: the latest generation with a complete row, the population's result (earlier segments
 * are where its members came from); -1 for the other schedulers or before any. */
int study_last_generation(const struct study *s);
int study_finished(const struct study *s);
/* The trial's config: the base, its parameters, its seed, the plan's epochs. */
int study_trial_config(const struct study *s, const double *x, uint64_t seed, struct config *c,
                       struct fox_err *e);

#endif
