/* struct dataset: the imported bars, their features (the 51 built-in ones, then the user's
 * columns of the CSV) and f32 prices, the splits and the train-split normalisation statistics;
 * what dataset.h5 holds (DESIGN.md s4); and which features a run's states show. */
#ifndef FOX_DATASET_H
#define FOX_DATASET_H

#include <stddef.h>
#include <stdint.h>

#include "data/bars.h"
#include "data/csv.h"
#include "data/features.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { FOX_SPLIT_TRAIN = 0, FOX_SPLIT_VAL = 1, FOX_SPLIT_TEST = 2 };

struct dataset {
  struct bars bars;
  size_t n;
  int ncol;                         /* feature columns: FOX_NFEAT built-in, then the user's */
  char (*names)[FOX_FEAT_NAME];     /* [ncol] */
  float *features;                  /* [n, ncol] raw; built-in ones NaN before warmup */
  float *prices;                    /* [n, 4] open, high, low, close */
  float *norm_mean, *norm_std;      /* [ncol] */
  int nsel;                         /* the state's features (data.features): */
  int *sel;                         /* [nsel] their columns, in state order */
  int64_t bar_seconds;
  double bars_per_year;
  int64_t split[3][2]; /* [begin, end) bar indices of train, val, test */
  int64_t warmup;
  char source[512];
  char version[32];
  struct csv_report report; /* how the bars were imported */
};

/* Takes ownership of `bars` (left empty) and of its user columns (bars->nuser, bars->user),
 * which follow the built-in features. bars_per_year <= 0 derives it from bar_seconds. The
 * selection is the built-in features. */
int dataset_build(struct dataset *ds, struct bars *bars, const double frac[3],
                  double bars_per_year, int64_t bar_seconds, const char *source,
                  struct fox_err *e);
/* Selects the state's features by name, in that order (count 0: the 51 built-in ones).
 * FOX_EDATA naming `where` (data.features, a trial file) and every name the dataset lacks;
 * FOX_EUSAGE for a name given twice. */
int dataset_select(struct dataset *ds, const char *const *names, int count, const char *where,
                   struct fox_err *e);
/* Gives ds ncol columns: names (the first FOX_NFEAT the built-in ones, the rest empty) and
 * normalisation statistics (zero). */
int dataset_alloc_columns(struct dataset *ds, int ncol, struct fox_err *e);
/* The selection's statistics in state order: mean[nsel] then std[nsel] into out[2 nsel]. */
void dataset_selected_norm(const struct dataset *ds, float *out);
/* The column named `name`, or -1. */
int dataset_column(const struct dataset *ds, const char *name);
/* Parses "a,b,c" (non-negative, a > 0, summing to 1). */
int dataset_parse_split(const char *s, double frac[3], struct fox_err *e);
void dataset_free(struct dataset *ds);
int dataset_split_index(const char *name);
/* "train", "val" or "test". */
const char *dataset_split_name(int split);
/* The population standard deviation of the one-bar log returns log(close_t / close_{t-1}) for
 * t in (begin, end) of a split: reward.scale auto is its inverse. FOX_EDATA (naming the file)
 * when the split has under 3 bars or its close never moves. */
int dataset_return_std(const struct dataset *ds, int split, double *sd, struct fox_err *e);

/* dataset_h5.c: the file format. write goes through a temporary name and rename. */
int dataset_write_h5(const struct dataset *ds, const char *path, struct fox_err *e);
int dataset_read_h5(struct dataset *ds, const char *path, struct fox_err *e);
/* dataset_read_h5 with the same checks, keeping of /bars the close alone (bars.ts, open, high,
 * low and volume NULL): a study's ranks, whose peak would otherwise hold the f64 bars beside
 * the features. */
int dataset_read_h5_lean(struct dataset *ds, const char *path, struct fox_err *e);
/* The columns alone: names and normalisation statistics (n the bar count; no bars, features or
 * prices), the selection the built-in features. */
int dataset_read_columns(struct dataset *ds, const char *path, struct fox_err *e);

/* dataset_copy.c: the stored copy of a study's dataset, one per host (docs/files.md). */
/* zlib's crc32 of `bytes` bytes continued from `crc` (0 to start): any length. */
uint32_t dataset_crc32(uint32_t crc, const void *p, size_t bytes);
/* "dataset-NNNN.h5", NNNN the world rank of the host's lowest rank. */
void dataset_copy_name(int host_root, char *out, size_t n);
/* The crc32 sums of ds's features and prices, as a copy records them. */
void dataset_sums(const struct dataset *ds, uint32_t crc[2]);
/* The crc32 of what else a trial reads of its dataset: the splits, bar_seconds, bars_per_year
 * and the features' normalisation. */
uint32_t dataset_meta_sum(const struct dataset *ds);
/* Writes ds's features and prices, compressed, with their crc32 sums (dataset_sums) as
 * attributes (temporary name, then rename); keeps a file that records the same bars and sums. */
int dataset_copy_write(const char *path, const struct dataset *ds, const uint32_t crc[2],
                       const char *host, const char *source, struct fox_err *e);
/* The bars and sums a copy records (attributes only). */
int dataset_copy_sums(const char *path, size_t *bars, uint32_t crc[2], struct fox_err *e);
/* dataset_copy_sums, and the stored arrays read through: FOX_EDATA naming the file when their
 * crc32 is not the one recorded. */
int dataset_copy_verify(const char *path, size_t *bars, uint32_t crc[2], size_t *width,
                        struct fox_err *e);

#ifdef __cplusplus
}
#endif

#endif
