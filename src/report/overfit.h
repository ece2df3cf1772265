/* How much of a study's best result is luck (DESIGN.md s8, "selection you can trust"): the
 * probabilistic and deflated Sharpe ratios and the minimum track record length of the selected
 * configuration, and the probability of backtest overfitting with the performance degradation
 * over the complete configurations, all from the per-bar returns on the evaluation split
 * (report/returns.h). The arithmetic is report/selection.h's. */
#ifndef FOX_OVERFIT_H
#define FOX_OVERFIT_H

#include <stdio.h>

#include "report/returns.h"
#include "report/selection.h"
#include "util/json.h"

struct overfit {
  int best;       /* the selected configuration (study_best), -1 when none completed */
  long t;         /* its returns */
  struct sr_moments m;
  double bars_per_year;  /* 0 when unknown: no annualised figures */
  double psr;            /* PSR against 0 */
  double dsr, sr0;       /* DSR, and the expected maximum per-bar Sharpe it deflates by */
  double var_sr;         /* variance of the per-bar Sharpes of the n_counted configurations */
  double min_trl;        /* bars, at 95 %, against 0 */
  int n_counted, counted[4]; /* N: the configurations that reached an evaluation */
  int n_returns;             /* those whose Sharpe is in var_sr (their files hold returns) */
  /* PBO over the complete configurations: */
  int n_pbo;
  int have_pbo;          /* 0: why_no_pbo says why */
  char why_no_pbo[256];
  struct pbo_result pbo;
};

/* The figures of the study's selected configuration and of its complete ones; `blocks` is
 * CSCV's S. A study too small for a figure gets NaN there (and why_no_pbo), not an error;
 * errors are bad arguments (blocks) and damaged returns. */
int overfit_compute(const struct study *s, const struct return_matrix *m, int blocks,
                    struct overfit *o, struct fox_err *e);
void overfit_free(struct overfit *o);
/* Fewer complete configurations than this make a PBO worth a caveat beside it. */
#define FOX_PBO_FEW 10
/* What to say beside the PBO when it comes from too little ("" when it does not). */
const char *overfit_pbo_caveat(const struct overfit *o, char *buf, size_t n);
/* The lines under the report's table, each behind "# ". */
void overfit_print(FILE *f, const struct study *s, const struct overfit *o);
/* The members "dsr", "psr", "min_track_record", "pbo", "degradation_slope",
 * "n_trials_counted" and the details, into the JSON object j; null for an undefined figure.
 * FOX_EFAIL in e when memory runs out. */
int overfit_json(json_t *j, const struct overfit *o, struct fox_err *e);

#endif
