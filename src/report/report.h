/* foxopt report's reading of a study (DESIGN.md s3): the trials ranked best first, the Pareto
 * front of a multi-objective study, the counts by status, the units metrics are shown in, and
 * the table of the best K (fixed-width here, views/html.h's page draws the same columns). */
#ifndef FOX_REPORT_H
#define FOX_REPORT_H

#include <stdio.h>

#include "study/study.h"
#include "util/json.h"

/* Trial indices best first: complete trials by the objective in its direction, then pruned
 * ones (most epochs first, then by the objective), then running ones likewise, failed last.
 * A pbt study's complete segments go latest generation first, like pruned ones by epochs.
 * Within a group a missing objective ranks last and ties go to the lower id, so the first is
 * study_best() whenever a trial completed. `order` has room for s->n. */
void report_rank(const struct study *s, int *order);
/* Trials by status (FOX_ST_*). */
void report_count(const struct study *s, int counts[4]);
/* How metric j is shown: the factor its value is multiplied by and the unit it is then in
 * ("%" for returns, drawdowns and shares; "" when it has none). */
double report_metric_scale(const struct study *s, int j, const char **unit);
/* v by fmt into buf, "-" when undefined and "inf"/"-inf" when infinite (the text report's and
 * the page's figures); buf. */
const char *report_num(double v, const char *fmt, char *buf, size_t n);
/* "val.total_return[%]": a metric's column header or axis label. */
void report_metric_label(const struct study *s, int j, char *buf, size_t n);

/* {"key": value, ...}: the active parameters of point x, numbers as JSON numbers (an integer
 * as one), lists and words as the text --set takes; for report --json. NULL, or a partial
 * object, with e set when memory runs out. */
json_t *report_json_params(const struct study *s, const double *x, struct fox_err *e);

/* The table's columns: id, status, epochs, the objective, its std over repeats x folds (when
 * there are several), the other objectives, feasible and the constraints' metrics (with
 * several objectives or constraints), the key metrics of an agent study, every parameter. */
enum {
  FOX_COL_ID, FOX_COL_STATUS, FOX_COL_EPOCHS, FOX_COL_METRIC, FOX_COL_SPREAD, FOX_COL_FEASIBLE,
  FOX_COL_PARAM
};
#define FOX_REPORT_COLS (5 + 4 + FOX_OBJ_MAX + 1 + FOX_CONSTRAINTS_MAX + FOX_SPACE_MAX)
struct report_col {
  int kind, idx; /* idx: the metric or the parameter */
  int left;      /* text that lines up to the left (status, categories that are not numbers) */
  char head[FOX_NAME_LEN + 8];
};
/* Fills cols (room for FOX_REPORT_COLS) and returns their count. */
int report_columns(const struct study *s, struct report_col *cols);
/* The text of trial t's cell in column c: "-" for a missing metric, "" for an inactive
 * parameter; metrics in report_metric_scale's units. */
void report_cell(const struct study *s, const struct study_trial *t, const struct report_col *c,
                 char *buf, size_t n);
/* The facts above the table, one line each behind `lead`: the study, its objective and counts,
 * how trials are ranked, reward.scale, the aggregate over repeats x folds, what is shown. */
void report_print_header(FILE *f, const struct study *s, int shown, const char *lead);
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
