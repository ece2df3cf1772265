/* Schedulers (DESIGN.md s8): none, synchronous successive halving, and Hyperband as a cycle of
 * successive-halving brackets. Budgets are epochs; a rung ends when every trial of the round
 * has reported its objective at that budget, and the best 1/eta go on from their saved state. */
#ifndef FOX_SCHEDULER_H
#define FOX_SCHEDULER_H

#include "config/config.h"
#include "util/error.h"

#define FOX_MAX_RUNGS 32

/* The budgets: epochs[0] < epochs[1] < ... < epochs[n-1] (the full budget). */
struct rung_plan {
  int n;
  int epochs[FOX_MAX_RUNGS];
  int brackets; /* Hyperband's brackets in use (1 for the others) */
};

/* none: one rung of train.epochs. successive_halving / hyperband: min_epochs * eta^k for
 * k = 0 .. K-1, then max_epochs (train.epochs when 0), with K = floor(log_eta(max / min)).
 * FOX_EUSAGE naming the keys when min_epochs > max_epochs. */
int scheduler_plan(const struct study_config *sc, int train_epochs, struct rung_plan *out,
                   struct fox_err *e);
/* Round r runs bracket r mod brackets; bracket b starts at rung b (0 for the others). */
int scheduler_bracket(const struct study_config *sc, const struct rung_plan *p, int round);
/* Trials in a round of bracket b: round_size for b = 0, and Hyperband's
 * ceil(round_size (K+1) / ((K-b+1) eta^b)) for later brackets (Li et al. 2018, with
 * round_size as the most aggressive bracket's n). */
int scheduler_round_trials(const struct study_config *sc, const struct rung_plan *p, int bracket);
/* order[r] = the index of the r-th best of n losses: finite ascending (infinite after), NaN
 * (failed) last, ties by ids[i] (by index when ids is NULL). O(n log n). */
void scheduler_order(const double *loss, const int *ids, int n, int *order);
/* The decision at a rung: n trials with losses (lower is better; NaN = failed, never kept)
 * and ids (ties go to the lower id); keep[i] = 1 for the max(1, floor(n / eta)) best. */
void scheduler_promote(const double *loss, const int *ids, int n, int eta, int *keep);

#endif
