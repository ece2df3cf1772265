/* Pareto dominance for multi-objective studies, with Deb's constrained domination as Optuna's
 * NSGA-II and its study.best_trials use it: a feasible point dominates an infeasible one, of
 * two infeasible ones the smaller total violation dominates, and feasible ones compare by
 * plain dominance. Values are losses (lower is better), m per point, row-major. */
#ifndef FOX_PARETO_H
#define FOX_PARETO_H

/* a dominates b: no worse in every objective and better in one. */
int pareto_dominates(const double *a, const double *b, int m);
/* The same with violations va, vb (0: feasible, > 0: infeasible). */
int pareto_constrained_dominates(const double *a, double va, const double *b, double vb, int m);
/* The constrained non-domination rank of each of n points (Optuna's
 * _fast_non_domination_rank with a penalty): the feasible points by plain non-dominated
 * sorting (rank 0 = their front), then the infeasible ones after the last feasible rank, one
 * rank per distinct violation, smallest first. `violation` may be NULL (all feasible). Every
 * value must be a number: a NaN makes dominance no order (callers leave such points out). */
int pareto_rank(const double *values, const double *violation, int n, int m, int *rank);
/* The crowding distance of the k points idx[0 .. k) (Optuna's _calc_crowding_distance: per
 * objective, the gap between the two neighbours over the finite range; 0 where every value is
 * the same; an end point's neighbour outside is -inf / inf) summed over the objectives. */
void pareto_crowding(const double *values, const int *idx, int k, int m, double *dist);
/* Sorts idx[0 .. k) by crowding distance, largest first, as Optuna's _crowding_distance_sort
 * does (a stable sort by each objective in turn, a stable sort by distance, then reversed). */
int pareto_crowding_sort(const double *values, int *idx, int k, int m);
/* The hypervolume of the n points dominated w.r.t. the reference point ref (m = 2: exact by a
 * sweep; points not strictly better than ref in every objective add nothing). */
double pareto_hypervolume2(const double *values, int n, const double *ref);

#endif
