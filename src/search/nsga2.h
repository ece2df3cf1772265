/* NSGA-II's parts, exposed for the tests: the generation of each trial, the parent population
 * of a generation, and the operators. */
#ifndef FOX_NSGA2_H
#define FOX_NSGA2_H

#include "search/sampler.h"

/* The generation of trials 0 .. n (n: the one being proposed) as Optuna's BaseGASampler gives
 * them: the highest generation among the trials complete when trial i was proposed (those of
 * earlier rounds), plus one when population_size of them are complete. gen has room for n + 1. */
void nsga2_generations(const struct seen_trial *hist, int n, int population_size, int *gen);
/* The elite of `pool` (k trial indices, in the order Optuna concatenates them): whole fronts by
 * constrained non-domination rank while they fit, the last by crowding distance. Writes at
 * most population_size indices to out (in the elite's order); returns their count, -1 when
 * memory runs out. */
int nsga2_elite(const struct seen_trial *hist, const int *pool, int k, int population_size,
                int *out);
/* Binary tournament (Optuna's _select_parent): two draws with replacement from pop[0 .. k),
 * the first if it constrained-dominates the second, else the second. */
int nsga2_tournament(const struct seen_trial *hist, const int *pop, int k, struct rng *r);
/* A trial's objective values (n_obj of them, or its loss alone) into v; returns their count. */
int nsga2_values(const struct seen_trial *t, double *v);

#endif
