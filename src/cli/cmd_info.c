/* foxopt info: what a foxopt HDF5 file holds, for people. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "data/dataset.h"

static const char usage_[] =
    "usage: foxopt info FILE.h5\n"
    "\n"
    "Describes a foxopt file: bars, date range, splits, features, warm-up, source.\n"
    "\n"
    "exit codes: 0 ok, 1 failure, 2 bad usage, 3 not a readable foxopt file\n";

static void print_split_(const char *name, const struct dataset *ds, int s) {
  int64_t b = ds->split[s][0], en = ds->split[s][1];
  char t0[32] = "-", t1[32] = "-";
  if (en > b) {
    cli_format_time(ds->bars.ts[b], t0, sizeof t0);
    cli_format_time(ds->bars.ts[en - 1], t1, sizeof t1);
  }
  printf("  %-6s [%8lld, %8lld)  %8lld bars  %s .. %s\n", name, (long long)b, (long long)en,
         (long long)(en - b), t0, t1);
}

int cmd_info(int argc, char **argv, struct fox_err *e) {
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (cli_is_help(argv[i])) {
      fputs(usage_, stdout);
      return 0;
    } else if (argv[i][0] == '-') {
      return fox_errf(e, FOX_EUSAGE, "info: unknown option '%s'", argv[i]);
    } else if (!path) {
      path = argv[i];
    } else {
      return fox_errf(e, FOX_EUSAGE, "info: one file only");
    }
  }
  if (!path)
    return fox_errf(e, FOX_EUSAGE, "info: FILE.h5 is required\n%s", usage_);
  struct dataset ds;
  FOX_TRY(dataset_read_h5(&ds, path, e));
  char t0[32] = "-", t1[32] = "-";
  if (ds.n > 0) {
    cli_format_time(ds.bars.ts[0], t0, sizeof t0);
    cli_format_time(ds.bars.ts[ds.n - 1], t1, sizeof t1);
  }
  const struct csv_report *r = &ds.report;
  printf("%s: foxopt dataset (foxopt %s)\n", path, ds.version);
  printf("  source         %s\n", ds.source);
  printf("  bars           %zu  (%s .. %s UTC)\n", ds.n, t0, t1);
  printf("  bar interval   %lld s, %.0f bars/year\n", (long long)ds.bar_seconds, ds.bars_per_year);
  printf("  features       %d raw f32 in /features, normalised with /norm (train split)\n",
         FOX_NFEAT);
  printf("  warm-up        %lld bars (features NaN before)\n", (long long)ds.warmup);
  printf("  import         %zu rows, %zu skipped, %zu gaps (longest %zu), %zu filled, "
         "%zu repaired opens\n",
         r->rows, r->skipped, r->gaps, r->longest_gap, r->filled, r->repaired_opens);
  printf("  splits\n");
  print_split_("train", &ds, 0);
  print_split_("val", &ds, 1);
  print_split_("test", &ds, 2);
  dataset_free(&ds);
  return 0;
}
