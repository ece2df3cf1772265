/* The study's final, untouched test (`foxopt report OUTDIR --test`): the best configurations,
 * ranked on the evaluation split, evaluated once each on the test split (every repeat, the
 * study's folds), their test metrics beside the validation ones and the deflated Sharpe on
 * test. Every look is recorded in OUTDIR/test.h5, so that every later report says the test
 * split is no longer untouched and how many configurations have been looked at there. */
#ifndef FOX_TEST_SPLIT_H
#define FOX_TEST_SPLIT_H

#include <stdio.h>

#include "report/selection.h"
#include "study/study.h"

/* One configuration's test: the aggregate of its repeats x folds and the selection figures of
 * its per-bar returns (mean of the repeats). */
struct test_row {
  int trial;
  double metrics[FOX_STUDY_METRICS], spread[FOX_STUDY_METRICS];
  long t;
  struct sr_moments m;
  double psr, dsr;
};

/* What OUTDIR/test.h5 records: the looks, every configuration ever evaluated on the test split
 * with its per-bar Sharpe there (the population the test DSR deflates by), and the rows of the
 * last look as the report showed them. */
struct test_record {
  int looks;
  char first[32], last[32]; /* UTC, "YYYY-MM-DDTHH:MM:SSZ" */
  int n_seen;
  int *seen;     /* [n_seen] trial ids */
  double *sr;    /* [n_seen] per-bar Sharpe on test */
  int n_last;
  struct test_row *last_rows; /* [n_last]: trial, metrics, spread, psr, dsr (no moments) */
};

/* Reads OUTDIR/test.h5 (looks = 0 when there is none) of a study of n_trials trials. FOX_EDATA
 * naming the dataset and index when it is damaged (a trial id out of range, a Sharpe that is not
 * finite). */
int test_record_read(const char *outdir, int n_trials, struct test_record *r, struct fox_err *e);

void test_record_free(struct test_record *r);
/* Evaluates trials ids[0 .. k) on the test split into rows[0 .. k), on `backend` (NULL: where
 * each was trained), then records the look in OUTDIR/test.h5 (temporary name, rename): the
 * caller holds OUTDIR's lock. rec is updated to include this look (its last rows are rows). */
int test_split_run(const struct study *s, const char *outdir, const int *ids, int k,
                   const char *backend, struct test_row *rows, struct test_record *rec,
                   struct fox_err *e);

#endif
