/* foxopt import: CSV bars -> validated dataset.h5 with the 51 features (and the CSV's own columns), splits and norm stats. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "data/csv.h"
#include "data/dataset.h"
#include "util/fsutil.h"

static const struct cli_opt opts_[] = {
    {"-o", "OUT.h5", "the output (a temporary name, then renamed: an old file survives errors)"},
    {"--split", "a,b,c", "the train/val/test fractions of the bars after warm-up (default "
                         "0.7,0.15,0.15)"},
    {"--bars-per-year", "N", "the annualisation (default: from the bar interval, 525600 for 1 "
                             "minute)"},
    {"--fill-gaps", NULL, "insert flat bars (O=H=L=C=previous close, V=0) for missing bars"},
    {"--skip-bad-rows", NULL, "skip and count invalid rows instead of failing on the first"},
    {NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_import = {
    .name = "import",
    .summary = "CSV bars -> dataset.h5 with the 51 features and your own columns",
    .synopsis = "IN.csv[.gz] -o OUT.h5 [--split 0.7,0.15,0.15] [--bars-per-year N]\n"
                "[--fill-gaps] [--skip-bad-rows]",
    .about =
        "Reads 1-minute bars (Binance kline CSV: 12 columns, ms/us open times; or\n"
        "timestamp,open,high,low,close,volume in seconds), gzip or plain, header optional, and\n"
        "writes a dataset: /bars, the 51 features of docs/features.md (then a header's\n"
        "user columns, after the OHLCV ones), f32 /prices, the splits and the\n"
        "train-split normalisation statistics.",
    .opts = opts_,
    .exits = "0 ok, 1 failure, 2 bad usage, 3 bad input (message names file and line)",
    .run = cmd_import,
};

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void print_report_(const char *in, const char *out, const struct dataset *ds,
                          double seconds) {
  const struct csv_report *r = &ds->report;
  char t0[32], t1[32];
  cli_format_time(ds->bars.ts[0], t0, sizeof t0);
  cli_format_time(ds->bars.ts[ds->n - 1], t1, sizeof t1);
  printf("imported %s (%s%s)\n", in, csv_format_name(r->format), r->header ? ", header" : "");
  printf("  bars            %zu (%zu rows read, %zu skipped, %zu filled)\n", ds->n, r->rows,
         r->skipped, r->filled);
  printf("  range           %s .. %s UTC, bar %lld s, %.0f bars/year\n", t0, t1,
         (long long)ds->bar_seconds, ds->bars_per_year);
  printf("  gaps            %zu (longest %zu bars, %zu bars missing%s)\n", r->gaps, r->longest_gap,
         r->missing, r->misaligned ? ", some steps not a whole bar" : "");
  printf("  repaired opens  %zu (high/low widened to include the open)\n", r->repaired_opens);
  if (ds->ncol > FOX_NFEAT) { /* the CSV's columns after the OHLCV ones (data.features) */
    printf("  user features   %d:", ds->ncol - FOX_NFEAT);
    for (int c = FOX_NFEAT; c < ds->ncol; c++)
      printf(" %s", ds->names[c]);
    printf("\n");
  }
  static const char *const names[3] = {"train", "val", "test"};
  for (int s = 0; s < 3; s++)
    printf("  %-5s           [%lld, %lld)  %lld bars\n", names[s], (long long)ds->split[s][0],
           (long long)ds->split[s][1], (long long)(ds->split[s][1] - ds->split[s][0]));
  printf("  wrote %s in %.2f s\n", out, seconds);
}

int cmd_import(int argc, char **argv, struct fox_err *e) {
  const char *in = NULL, *out = NULL;
  double frac[3] = {0.7, 0.15, 0.15}, bpy = 0;
  struct csv_options opt = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "-o") == 0) {
      if (!(out = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (strcmp(a, "--split") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      FOX_TRY(dataset_parse_split(v, frac, e));
    } else if (strcmp(a, "--bars-per-year") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      FOX_TRY(cli_parse_f64(a, v, 1, 1e12, &bpy, e));
    } else if (strcmp(a, "--fill-gaps") == 0) {
      opt.fill_gaps = 1;
    } else if (strcmp(a, "--skip-bad-rows") == 0) {
      opt.skip_bad_rows = 1;
    } else if (!in) {
      in = a;
    } else {
      return fox_errf(e, FOX_EUSAGE, "one input file only (got '%s' and '%s')", in, a);
    }
  }
  if (!in || !out)
    return fox_errf(e, FOX_EUSAGE, "IN.csv and -o OUT.h5 are required (foxopt help import)");

  double t0 = now_();
  struct bars bars = {0};
  struct csv_report rep;
  fs_guard_inputs();
  int rc = csv_read_file(in, &opt, &bars, &rep, e);
  if (rc == 0)
    rc = fs_out_guard(out, e); /* the CSV under another name (a link) too */
  if (rc != 0) {
    bars_free(&bars);
    return rc;
  }
  struct dataset ds;
  rc = dataset_build(&ds, &bars, frac, bpy, rep.bar_seconds, in, e);
  ds.report = rep;
  if (rc == 0)
    rc = dataset_write_h5(&ds, out, e);
  if (rc == 0)
    print_report_(in, out, &ds, now_() - t0);
  dataset_free(&ds);
  bars_free(&bars);
  return rc;
}
