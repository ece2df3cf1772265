/* A trial's objective by epoch (its learning curve), from the study and its trial files. */
#ifndef FOX_REPORT_CURVES_H
#define FOX_REPORT_CURVES_H

#include "study/study.h"
#include "util/error.h"

/* Whether the mean of the repeats' curves (each the mean over the folds) is the study's
 * aggregate at every epoch: with one cell, or when the aggregate is the mean. */
int report_curves_aggregate(const struct study *s);
/* The trial's intermediate values (the first objective, by epoch) into steps/vals (room for
 * plan_epochs + 1): a test function's value at every rung it reached (the same f(x) at each);
 * an agent trial's mean over its repeats' curves at each epoch before its last rung, where
 * that is the aggregate and every repeat's file is there; then the study's own value at the
 * last rung. A multi-objective study has none (Optuna reports one value per step). */
int report_intermediate(const struct study *s, const char *outdir, const struct study_trial *t,
                        int *steps, double *vals, int *n, int *from_curve, int *missing,
                        struct fox_err *e);

#endif
