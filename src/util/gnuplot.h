/* gnuplot as foxopt's plotter: found on PATH, run on a script file with its messages kept in
 * a log, its exit status checked; text quoted for its scripts. */
#ifndef FOX_GNUPLOT_H
#define FOX_GNUPLOT_H

#include <stdio.h>

#include "util/error.h"

/* 1 when an executable `gnuplot` is on PATH. */
int gnuplot_find(void);
/* Runs `gnuplot SCRIPT` with its output in LOG; FOX_EFAIL naming `what` with its exit status
 * and its last message when it fails. */
int gnuplot_run(const char *script, const char *log, const char *what, struct fox_err *e);
/* `s` as a single-quoted gnuplot string (where '' stands for a quote). */
void gnuplot_quote(FILE *f, const char *s);

#endif
