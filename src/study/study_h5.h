/* study.h5 and trials.csv (DESIGN.md s4): the whole study table, every parameter and metric,
 * the config it ran with; written atomically, read back for --resume and reports. */
#ifndef FOX_STUDY_H5_H
#define FOX_STUDY_H5_H

#include <stdio.h>

#include "study/study.h"

/* OUTDIR/study.h5 then OUTDIR/trials.csv, each to a temporary name and renamed. */
int study_save(const struct study *s, const char *outdir, struct fox_err *e);
/* The study recorded in OUTDIR/study.h5, config and table (FOX_EDATA when it is not one). */
int study_load(struct study *s, const char *outdir, struct fox_err *e);
int study_load_file(struct study *s, const char *path, struct fox_err *e);
/* trials.csv's text: one row per trial, parameters empty where inactive; the rows are
 * trials[order[0..n)], or every trial by id when order is NULL. */
int study_write_csv(const struct study *s, const int *order, int n, FILE *f);
/* The same text to `path` through a temporary name and a rename. */
int study_save_csv(const struct study *s, const int *order, int n, const char *path,
                   struct fox_err *e);

#endif
