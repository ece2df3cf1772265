/* Import benchmark: the phases of `foxopt import` (read + parse, features, HDF5 write) on a
 * CSV, against a reference run in the same process: decompressing the same file with zlib and
 * nothing else. Prints a fixed-width table and writes JSON (argv[2], default bench_import.json).
 *   bench_import IN.csv[.gz] [OUT.json] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "data/csv.h"
#include "data/dataset.h"

static double now_(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double best_of_(int reps, double (*fn)(const char *, size_t *), const char *path,
                       size_t *bytes) {
  double best = 1e30;
  for (int i = 0; i < reps; i++) {
    double s = fn(path, bytes);
    best = s < best ? s : best;
  }
  return best;
}

static double zcat_(const char *path, size_t *bytes) {
  double t0 = now_();
  gzFile gz = gzopen(path, "rb");
  static char buf[1 << 20];
  int got;
  *bytes = 0;
  while (gz && (got = gzread(gz, buf, sizeof buf)) > 0)
    *bytes += (size_t)got;
  if (gz)
    gzclose(gz);
  return now_() - t0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_import IN.csv[.gz] [OUT.json]\n");
    return 2;
  }
  const char *in = argv[1], *json = argc > 2 ? argv[2] : "bench_import.json";
  struct fox_err e = {0};
  size_t bytes = 0;
  double t_ref = best_of_(3, zcat_, in, &bytes);

  double t0 = now_();
  struct bars bars = {0};
  struct csv_report rep;
  struct csv_options opt = {0};
  if (csv_read_file(in, &opt, &bars, &rep, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double t1 = now_();
  struct dataset ds;
  const double frac[3] = {0.7, 0.15, 0.15};
  if (dataset_build(&ds, &bars, frac, 0, rep.bar_seconds, in, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double t2 = now_();
  char out[256];
  snprintf(out, sizeof out, "/tmp/bench_import_%ld.h5", (long)getpid());
  if (dataset_write_h5(&ds, out, &e) != 0) {
    fprintf(stderr, "%s\n", e.msg);
    return 1;
  }
  double t3 = now_();
  remove(out);
  size_t n = ds.n;
  struct {
    const char *name;
    double s;
  } rows[] = {{"zlib read only (reference)", t_ref},
              {"read + parse + validate", t1 - t0},
              {"features + splits + norm", t2 - t1},
              {"hdf5 write", t3 - t2},
              {"import total", t3 - t0}};
  printf("# foxopt import benchmark: %s\n# %zu bars, %zu bytes of CSV text\n", in, n, bytes);
  printf("# %-28s %10s %14s %12s\n", "phase", "seconds", "bars/s", "x reference");
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
    printf("  %-28s %10.3f %14.0f %12.2f\n", rows[i].name, rows[i].s, n / rows[i].s,
           rows[i].s / t_ref);
  FILE *f = fopen(json, "w");
  if (!f) {
    perror(json);
    return 1;
  }
  fprintf(f, "{\"input\": \"%s\", \"bars\": %zu, \"csv_bytes\": %zu", in, n, bytes);
  static const char *const keys[] = {"reference_zlib_s", "parse_s", "features_s", "h5_write_s",
                                     "total_s"};
  for (size_t i = 0; i < 5; i++)
    fprintf(f, ", \"%s\": %.6f", keys[i], rows[i].s);
  fprintf(f, ", \"total_over_reference\": %.4f}\n", (t3 - t0) / t_ref);
  fclose(f);
  printf("# json: %s\n", json);
  dataset_free(&ds);
  return 0;
}
