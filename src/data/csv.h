/* CSV bars in: Binance klines (12 columns, ms or us open times) or timestamp,open,high,low,
 * close,volume (seconds), gzip or plain, header or not; validated row by row with line numbers. */
#ifndef FOX_CSV_H
#define FOX_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "data/bars.h"
#include "util/error.h"

#ifdef __cplusplus
extern "C" {
#endif

enum csv_format { CSV_OHLCV = 1, CSV_BINANCE = 2 };

struct csv_options {
  int skip_bad_rows; /* skip and count invalid rows instead of failing on the first */
  int fill_gaps;     /* insert flat bars (O=H=L=C=previous close, V=0) for missing bars */
  size_t max_bars;   /* refuse to fill beyond this many bars in all (0: CSV_MAX_BARS) */
};

#define CSV_MAX_BARS ((size_t)200000000) /* 380 years of minutes; beyond is a bad timestamp */

struct csv_report {
  enum csv_format format;
  int header;             /* 1 when the first line was a header */
  size_t lines;           /* physical lines read */
  size_t rows;            /* bars accepted from the file */
  size_t skipped;         /* invalid rows skipped (--skip-bad-rows) */
  size_t repaired_opens;  /* bars whose high/low was widened to include the open */
  int64_t bar_seconds;    /* the most common timestamp step */
  size_t gaps;            /* places where one or more bars are missing */
  size_t longest_gap;     /* most consecutive missing bars */
  size_t missing;         /* missing bars in all */
  size_t filled;          /* bars inserted by fill_gaps */
  size_t misaligned;      /* steps that are not a whole number of bars */
};

/* Reads a whole file (gzip detected by zlib; a truncated stream is an error). */
int csv_read_file(const char *path, const struct csv_options *opt, struct bars *out,
                  struct csv_report *rep, struct fox_err *e);
/* Parses an in-memory CSV; `name` is used in messages. The fuzz harness calls this. */
int csv_parse(const char *name, const char *buf, size_t len, const struct csv_options *opt,
              struct bars *out, struct csv_report *rep, struct fox_err *e);
const char *csv_format_name(enum csv_format f);

#ifdef __cplusplus
}
#endif

#endif
