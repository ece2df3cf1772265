/* foxopt report's plots (DESIGN.md s3): history.png, best_equity.png and params.png in OUTDIR,
 * drawn by gnuplot from data files in a temporary directory under OUTDIR that is removed after. */
#ifndef FOX_REPORT_PLOT_H
#define FOX_REPORT_PLOT_H

#include <stdio.h>

#include "report/selection.h"
#include "study/study.h"

/* Draws the plots of the study recorded in `outdir`, `order` being report_rank's (its first
 * trial is the one whose equity is drawn), with `pbo` (not NULL) pbo_logits.png, the
 * distribution of its CSCV logits, and for several objectives pareto.png, the front. A plot the study cannot have (an equity curve of a test
 * function, any plot before a trial has a value) is skipped with a line on `notes`; each PNG
 * written is named on `out`. Needs gnuplot on PATH (gnuplot_find). */
int report_plots(const struct study *s, const int *order, const char *outdir,
                 const struct pbo_result *pbo, FILE *out, FILE *notes, struct fox_err *e);
/* Removes a plots' directory (OUTDIR/report.tmp.PID.XXXXXX) a killed report left, with all
 * that is in it. */
void report_plots_remove_dir(const char *dir);

#endif
