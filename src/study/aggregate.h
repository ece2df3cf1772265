/* How a configuration's repeats x folds become one number (study.objective.aggregate): the
 * mean, the median, the interquartile mean, or a lower confidence bound. */
#ifndef FOX_AGGREGATE_H
#define FOX_AGGREGATE_H

/* The aggregate of the non-NaN values among v[0 .. n) (+-inf count: a profit factor can be
 * one); NaN when there is none.
 *   mean    their mean;
 *   median  the middle value, or the mean of the two middle ones;
 *   iqm     the interquartile mean as rliable and scipy.stats.trim_mean(v, 0.25): floor(n / 4)
 *           values cut from each end of the sorted values, the mean of the rest;
 *   lcb     the pessimistic bound mean -+ std / sqrt(n) (std with ddof = 1; the mean alone
 *           when n = 1): minus when `maximize`, plus when the objective is minimised, so that
 *           a configuration whose seeds disagree ranks below a steady one of the same mean.
 * `v` is reordered (sorted) by median and iqm. */
double aggregate(double *v, int n, int how, int maximize);
/* The sample standard deviation (ddof = 1) of the non-NaN values; NaN with fewer than 2. */
double aggregate_std(const double *v, int n);

#endif
