/* Parameter importance for foxopt report: PED-ANOVA (Watanabe, Bansal & Hutter 2023), how far
 * each parameter's distribution among the best trials departs from its distribution among all
 * of them, computed as Optuna 5.1's default PedAnovaImportanceEvaluator does. */
#ifndef FOX_IMPORTANCE_H
#define FOX_IMPORTANCE_H

#include <stdio.h>

#include "search/space.h"
#include "util/json.h"
#include "util/error.h"

struct study;

/* gamma' of the paper (Optuna's target_quantile): the top set is the best tenth. */
#define FOX_IMP_QUANTILE 0.1
/* Fewer complete trials than this: not computed (a top set of one or two trials). */
#define FOX_IMP_MIN_TRIALS 20
/* A top set smaller than this gets a caveat (Optuna's note asks for at least 5). */
#define FOX_IMP_MIN_TOP 5

enum {
  FOX_IMP_DONE = 0, /* imp[] sums to 1 */
  FOX_IMP_FEW,      /* fewer than FOX_IMP_MIN_TRIALS trials: imp[] NaN */
  FOX_IMP_FLAT,     /* every raw importance 0 (the top set is every trial: ties): imp[] NaN */
  FOX_IMP_PBT,      /* a pbt study (report_importance only): a row's result is its schedule's */
  FOX_IMP_ZERO,     /* the top set is not every trial, yet every raw importance is 0 (each
                       parameter has one value, or is rare, or never in the top set): imp[] 0 */
};

/* Why a parameter's raw importance is 0 whatever the data (0: it is not). */
enum { FOX_IMP_WHY_NONE = 0, FOX_IMP_WHY_SINGLE, FOX_IMP_WHY_RARE, FOX_IMP_WHY_NOT_TOP };

struct importance {
  int status;                  /* FOX_IMP_* */
  int n;                       /* trials used: those with a finite objective */
  int n_top;                   /* the best FOX_IMP_QUANTILE of them, ties at the cut included */
  double raw[FOX_SPACE_MAX];   /* PED-ANOVA's unnormalised importance (>= 0) */
  double imp[FOX_SPACE_MAX];   /* raw / sum(raw); NaN unless status is FOX_IMP_DONE */
  int rank[FOX_SPACE_MAX];     /* 1 for the largest; equal values share the better rank */
  int n_active[FOX_SPACE_MAX]; /* trials in which the parameter was active */
  int why[FOX_SPACE_MAX];      /* FOX_IMP_WHY_*: one value in its domain, active in fewer
                                  than 2 trials, never active in the top set */
};

/* PED-ANOVA over n trials: x[n][sp->n] their points (space.h's coordinates, NaN inactive),
 * value[n] their objective (non-finite ones are left out), direction FOX_MINIMIZE or
 * FOX_MAXIMIZE. Every parameter of sp gets an importance; an inactive one contributes in the
 * trials where it is active only (conditional PED-ANOVA's regimes). FOX_EFAIL when memory
 * runs out; a study too small or flat is status, not an error. */
int importance_ped_anova(const struct space *sp, const double *x, int n, const double *value,
                         int direction, struct importance *out, struct fox_err *e);

/* The same for objective j (0 .. s->n_obj - 1) of a study, over its complete trials;
 * constraints are not looked at (as Optuna's evaluator). */
int report_importance(const struct study *s, int j, struct importance *out, struct fox_err *e);

/* Whether `im` has a figure for each parameter (DONE, or ZERO: all 0 with their notes). */
int report_importance_table(const struct importance *im);
/* What the figures of `im` rest on (status DONE: how many trials, and a caveat for a small top
 * set) or why there are none, in a sentence; snprintf's result. */
int report_importance_status(const struct importance *im, char *buf, size_t n);
/* Parameter i's note ("" when none): why its importance is 0 whatever the data, or in how
 * many trials it was active. */
int report_importance_note(const struct importance *im, int i, char *buf, size_t n);
/* j["importance"]: for each objective {metric, status (done, few, flat, pbt), says (the
 * sentence report_importance_status gives), n, n_top, params: [{name, importance, rank, note}]
 * (empty unless done)}; errors as fox_json_set. */
int report_importance_json(json_t *j, const struct study *s, struct fox_err *e);
/* The "parameter importance" section of the text report: a fixed-width table (parameter,
 * importance, rank, note) per objective, or a line saying why there is none. */
int report_print_importance(FILE *f, const struct study *s, struct fox_err *e);

#endif
