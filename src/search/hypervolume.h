/* Exact hypervolume in any number of objectives and the greedy hypervolume subset selection
 * (HSSP) that Optuna 5.1's multi-objective TPE uses to cut its last good front
 * (optuna/_hypervolume: compute_hypervolume, _solve_hssp). Values are losses, m per point,
 * row-major. */
#ifndef FOX_HYPERVOLUME_H
#define FOX_HYPERVOLUME_H

/* The volume dominated by the n points and bounded by ref. m = 2: a sort and a sweep; m >= 3:
 * slicing along the last objective (exact; meant for the few dozen points a TPE split cuts).
 * A point not strictly better than ref in every objective adds nothing. NaN when out of memory. */
double hv_compute(const double *values, int n, int m, const double *ref);

/* Optuna's _get_reference_point: the worst value of each objective over the n points,
 * max(1.1 w, 0.9 w), and 1e-12 where that is 0. */
void hv_reference_point(const double *values, int n, int m, double *ref);

/* Optuna's _solve_hssp: k of the n points (0 < k <= n) chosen greedily by hypervolume
 * contribution w.r.t. ref, written to chosen[k] as indices into values (in no particular
 * order). Duplicated points count once until every distinct one is chosen; ties go to the
 * lexicographically smallest point, as numpy's unique then argmax. Returns 0, -1 when out of
 * memory. */
int hv_hssp(const double *values, int n, int m, int k, const double *ref, int *chosen);

#endif
