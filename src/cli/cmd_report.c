/* foxopt report: what a study found (DESIGN.md s3) - the best trials as a table, the whole
 * table as CSV, and plots of the history, the best equity curve and each parameter. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "report/report.h"
#include "report/report_plot.h"
#include "study/study_h5.h"
#include "util/gnuplot.h"

static const char usage_[] =
    "usage: foxopt report OUTDIR [--top K] [--csv FILE] [--no-plots]\n"
    "\n"
    "Reads OUTDIR/study.h5 (written by foxopt run, also while it runs) and prints the best K\n"
    "trials as a fixed-width table: complete trials ranked by the objective in its direction,\n"
    "then pruned ones (most epochs first), running ones, failed ones; with the objective, the\n"
    "key metrics of an agent study and every parameter (empty where inactive).\n"
    "With gnuplot on PATH it also draws, into OUTDIR:\n"
    "  history.png      the objective of each trial by id, by status, and the best so far\n"
    "  best_equity.png  the evaluation equity curve of the best trial (from its rank file)\n"
    "  params.png       the objective against each parameter, one panel each\n"
    "\n"
    "  --top K          rows in the table (default 10)\n"
    "  --csv FILE       every trial, best first, in the columns of trials.csv, to FILE\n"
    "  --no-plots       no plots\n"
    "\n"
    "exit codes: 0 ok (also without gnuplot: a note says so), 1 failure, 2 bad usage,\n"
    "            3 OUTDIR holds no readable study.h5\n";

struct report_args_ {
  const char *outdir, *csv;
  int top, plots;
};

static int parse_(int argc, char **argv, struct report_args_ *a, struct fox_err *e) {
  *a = (struct report_args_){NULL, NULL, 10, 1};
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v;
    if (strcmp(s, "--no-plots") == 0) {
      a->plots = 0;
    } else if (strcmp(s, "--top") == 0) {
      long long k;
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      FOX_TRY(cli_parse_i64("--top", v, 1, 1000000000, &k, e));
      a->top = (int)k;
    } else if (strcmp(s, "--csv") == 0) {
      if (!(a->csv = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (s[0] == '-' && s[1] != '\0') {
      return fox_errf(e, FOX_EUSAGE, "report: unknown option '%s' (see --help)", s);
    } else if (!a->outdir) {
      a->outdir = s;
    } else {
      return fox_errf(e, FOX_EUSAGE, "report: one OUTDIR only ('%s' and '%s')", a->outdir, s);
    }
  }
  if (!a->outdir)
    return fox_errf(e, FOX_EUSAGE, "report: OUTDIR is required\n%s", usage_);
  return 0;
}

int cmd_report(int argc, char **argv, struct fox_err *e) {
  for (int i = 1; i < argc; i++)
    if (cli_is_help(argv[i])) {
      fputs(usage_, stdout);
      return 0;
    }
  struct report_args_ a;
  FOX_TRY(parse_(argc, argv, &a, e));
  struct stat st;
  if (stat(a.outdir, &st) != 0)
    return fox_errf(e, FOX_EDATA, "%s/study.h5: cannot open: %s: %s (expected the -o OUTDIR "
                                  "of foxopt run)", a.outdir, a.outdir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return fox_errf(e, FOX_EDATA, "%s: not a directory (expected the -o OUTDIR of foxopt run, "
                                  "holding study.h5)", a.outdir);
  struct study s;
  FOX_TRY(study_load(&s, a.outdir, e));
  int *order = malloc((size_t)(s.n ? s.n : 1) * sizeof *order);
  int rc = order ? 0 : fox_errf(e, FOX_EFAIL, "report: out of memory");
  if (rc == 0) {
    report_rank(&s, order);
    report_print_table(stdout, &s, order, a.top);
  }
  if (rc == 0 && a.csv) {
    rc = study_save_csv(&s, order, s.n, a.csv, e);
    if (rc == 0)
      printf("wrote %s (%d trials, best first)\n", a.csv, s.n);
  }
  if (rc == 0 && a.plots) {
    fflush(stdout);
    if (gnuplot_find())
      rc = report_plots(&s, order, a.outdir, stdout, stderr, e);
    else
      fprintf(stderr, "note: no plots: gnuplot is not on PATH (Debian: apt-get install "
                      "gnuplot-nox; or pass --no-plots)\n");
  }
  free(order);
  study_free(&s);
  return rc;
}
