/* The backtest of an action sequence over a split, optionally in K walk-forward folds, on any
 * backend: per-fold metrics, their mean, and the per-bar series for the experience file. */
#ifndef FOX_BACKTEST_H
#define FOX_BACKTEST_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"
#include "backtest/metrics.h"
#include "config/config.h"
#include "data/dataset.h"

#ifdef __cplusplus
extern "C" {
#endif

struct backtest_run {
  int split;
  int64_t begin, end; /* the split's bars */
  int nfolds;
  int32_t *folds; /* [nfolds][2] */
  struct metrics *fold_metrics;
  struct metrics mean;
  /* Per bar of [begin, end): */
  uint8_t *actions;
  double *equity;
  uint8_t *position;
  int8_t *labels;
  float *rewards;
  float *states; /* [n, state_dim], only with output.experience = full */
  int state_dim;  /* the dataset's selected features + 3 portfolio features */
};

/* Fold j of k over the n bars from `begin`: [*b, *e) = begin + [j n / k, (j + 1) n / k). */
void backtest_fold_bounds(int64_t begin, size_t n, int k, int j, int64_t *b, int64_t *e);
/* Reads ACTIONS.csv: one 0/1/2 per line, optional header `action`; exactly n lines. */
int backtest_read_actions(const char *path, size_t n, uint8_t *out, struct fox_err *e);
int backtest_run(const struct backend *be, const struct dataset *ds,
                 const struct device_dataset *dev, const struct config *cfg, int split,
                 int nfolds, const uint8_t *actions, struct backtest_run *out, struct fox_err *e);
void backtest_free(struct backtest_run *r);
/* One JSON object and a newline: "split", the fold means under the metric names, and
 * "folds": [...]; FOX_EFAIL in e when memory runs out or f cannot be written. */
int backtest_print_json(FILE *f, const struct backtest_run *r, struct fox_err *e);
void backtest_print_table(FILE *f, const struct backtest_run *r);
/* EXP.h5: /backtest/{equity, position, folds} and /experience/{actions, rewards,
 * barrier_labels[, states]} as output.experience says; temporary name, then rename. */
int backtest_write_h5(const struct backtest_run *r, const struct config *cfg, const char *path,
                      struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
