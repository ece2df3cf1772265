/* The per-bar returns of a study's configurations on its evaluation split, from their trial
 * files: what the deflated Sharpe ratio and the probability of backtest overfitting are
 * computed from. A configuration's series is the mean, bar by bar, of its repeats' returns
 * (the K seeds as one equally weighted book); a return never crosses a fold's bound (each fold
 * starts flat from initial capital), so T = the sum over folds of (fold bars - 1). */
#ifndef FOX_RETURNS_H
#define FOX_RETURNS_H

#include "study/study.h"

struct return_matrix {
  long t;         /* bars with a return (rows) */
  /* Every configuration whose repeats all reached an evaluation, as study.h5 records them (the
   * N of the deflated Sharpe), by status: */
  int n_counted, counted[4];
  /* Those of them whose trial files hold those evaluations' returns: */
  int n;          /* (the others, n_counted - n: files lost, or a repeat failed after an
                     evaluation and its file keeps no backtest) */
  int *trial;     /* [n] their trial ids, ascending */
  int *status;    /* [n] their FOX_ST_* */
  double *sr;     /* [n] the per-bar Sharpe of each one's series (selection_moments) */
  /* The series of the complete ones only (CSCV's matrix, the selected one's moments): a
   * study's pruned configurations, most of them under a scheduler, cost no memory. */
  int nc;
  int *ctrial;    /* [nc] */
  double *r;      /* [t][nc] row-major */
};

/* Every trial of `s` whose repeats all reached an evaluation (complete, pruned, running, or
 * failed after one) is counted; those whose trial files hold the returns are read, in id
 * order. FOX_EDATA naming the file when one is damaged or its bars differ from the others'. */
int returns_load(const struct study *s, const char *outdir, struct return_matrix *m,
                 struct fox_err *e);
void returns_free(struct return_matrix *m);
/* One trial file's evaluation: the equity at each bar of the evaluation split, cut into folds
 * [nf][2] of absolute bars [begin, end) (one fold over all of it in a file from before folds),
 * each started from the initial capital. */
struct equity_series {
  long n;
  double *eq;     /* [n], every value > 0 */
  int nf;
  int32_t *folds; /* [nf][2], consecutive, >= 2 bars each, covering the n bars */
  int epochs;     /* the epochs trained when it was written, -1 when the file does not say */
};
/* Reads `path`: q->n = 0 when the file is missing or holds no evaluation; FOX_EDATA naming the
 * file when it is damaged. Free with returns_free_equity. */
int returns_read_equity(const char *path, struct equity_series *q, struct fox_err *e);
void returns_free_equity(struct equity_series *q);
/* Returns of one equity series cut into folds: out has room for n - 1 values; returns the
 * count written. folds [nf][2] are absolute bars, `begin` the series' first bar. */
long returns_from_equity(const double *eq, long n, const int32_t *folds, int nf, long begin,
                         double *out);

#endif
