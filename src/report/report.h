/* foxopt report's reading of a study (DESIGN.md s3): the trials ranked best first, the counts
 * by status, the units metrics are shown in, and the fixed-width table of the best K. */
#ifndef FOX_REPORT_H
#define FOX_REPORT_H

#include <stdio.h>

#include "study/study.h"

/* Trial indices best first: complete trials by the objective in its direction, then pruned
 * ones (most epochs first, then by the objective), then running ones likewise, failed last.
 * Within a group a missing objective ranks last and ties go to the lower id, so the first is
 * study_best() whenever a trial completed. `order` has room for s->n. */
void report_rank(const struct study *s, int *order);
/* Trials by status (FOX_ST_*). */
void report_count(const struct study *s, int counts[4]);
/* How metric j is shown: the factor its value is multiplied by and the unit it is then in
 * ("%" for returns, drawdowns and shares; "" when it has none). */
double report_metric_scale(const struct study *s, int j, const char **unit);
/* "val.total_return[%]": a metric's column header or axis label. */
void report_metric_label(const struct study *s, int j, char *buf, size_t n);
/* The header lines and the best k trials of `order` (k > s->n: all) as a fixed-width table;
 * with several objectives, the Pareto front under it. */
void report_print_table(FILE *f, const struct study *s, const int *order, int k);
/* The Pareto front: every complete, feasible trial that no other such trial dominates (rank
 * 0 of study_pareto_ranks), in trial order into ids; returns their count, -1 when memory runs
 * out. */
int report_front(const struct study *s, int *ids);
/* The front as a fixed-width table, best first on the first objective. */
void report_print_front(FILE *f, const struct study *s);

#endif
