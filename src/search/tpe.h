/* The parts of the TPE sampler (tpe.c) that tests check on their own: the split of a history
 * into the good trials and the rest, and the observations one group's estimator is built from. */
#ifndef FOX_TPE_H
#define FOX_TPE_H

#include "search/sampler.h"

enum { FOX_TPE_UNUSED = -1, FOX_TPE_ABOVE = 0, FOX_TPE_BELOW = 1 };

/* side[n]: which estimator each trial of `hist` feeds, as Optuna's _split_trials (tpe.c says
 * how failed and running trials are placed); *counted: the trials Optuna counts (n in
 * gamma(n)). */
int tpe_split(const struct tpe_config *tc, const struct seen_trial *hist, int n,
              signed char *side, int *counted, struct fox_err *e);

/* Copies into rows ([count][n_params]) the parameters `params` of the trials on side `want`
 * in which all of them are active (not NaN), in trial order; returns count. */
int tpe_gather(const struct seen_trial *hist, int n, const signed char *side, int want,
               const int *params, int n_params, double *rows);

#endif
