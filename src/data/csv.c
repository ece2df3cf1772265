/* CSV reader for 1-minute bars. The whole (decompressed) file is read into memory and parsed in
 * one pass; each row is validated with its physical line number so that errors point at it. */
#include "data/csv.h"
#include "data/features.h"
#include "util/fsutil.h"
#include "util/number.h"

#include <ctype.h>
#include <strings.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define CSV_MAX_FIELDS (6 + FOX_MAX_USER)
/* Beyond these, sums of squares over a day of bars overflow a double in the features. */
#define CSV_MAX_PRICE 1e15
#define CSV_MAX_VOLUME 1e30

static const char *const ohlcv_names_[6] = {"timestamp", "open", "high", "low", "close", "volume"};

const char *csv_format_name(enum csv_format f) {
  return f == CSV_BINANCE ? "binance-kline" : f == CSV_OHLCV ? "timestamp-ohlcv" : "unknown";
}

struct field_ {
  const char *p;
  size_t n;
};

/* Splits [p, end) on commas, trimming blanks and quotes; returns the field count (may exceed max). */
static int split_(const char *p, const char *end, struct field_ *f, int max) {
  int k = 0;
  for (;;) {
    const char *q = p;
    while (q < end && *q != ',')
      q++;
    const char *a = p, *b = q;
    while (a < b && (*a == ' ' || *a == '\t' || *a == '"'))
      a++;
    while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '"'))
      b--;
    if (k < max)
      f[k] = (struct field_){a, (size_t)(b - a)};
    k++;
    if (q >= end)
      return k;
    p = q + 1;
  }
}

static void show_(const struct field_ *f, char *out, size_t n) {
  size_t len = f->n < n - 4 ? f->n : n - 4;
  size_t j = 0;
  for (size_t i = 0; i < len; i++)
    out[j++] = isprint((unsigned char)f->p[i]) ? f->p[i] : '?';
  if (len < f->n) {
    out[j++] = '.';
    out[j++] = '.';
    out[j++] = '.';
  }
  out[j] = '\0';
}

/* strtod on a bounded field; NaN and infinities are rejected here so that rows carry only data. */
static int parse_double_(const struct field_ *f, double *out, int *is_nan) {
  char tmp[64];
  *is_nan = 0;
  if (f->n == 0 || f->n >= sizeof tmp)
    return -1;
  memcpy(tmp, f->p, f->n);
  tmp[f->n] = '\0';
  char *endp;
  errno = 0;
  double v = strtod(tmp, &endp);
  /* Decimal only (util/number.h): no hexadecimal, no blanks; "nan" and "inf" still reach the
   * check below, which names them. */
  if (endp != tmp + f->n || (isfinite(v) && !number_is_decimal(tmp)))
    return -1;
  if (!isfinite(v)) {
    *is_nan = 1;
    return -1;
  }
  *out = v;
  return 0;
}

static int parse_int64_(const struct field_ *f, int64_t *out) {
  char tmp[32];
  if (f->n == 0 || f->n >= sizeof tmp)
    return -1;
  memcpy(tmp, f->p, f->n);
  tmp[f->n] = '\0';
  char *endp;
  errno = 0;
  long long v = strtoll(tmp, &endp, 10);
  if (errno != 0 || endp != tmp + f->n)
    return -1;
  *out = (int64_t)v;
  return 0;
}

static int is_number_(const struct field_ *f) {
  double v;
  int nan;
  return parse_double_(f, &v, &nan) == 0 || nan;
}

static int field_is_(const struct field_ *f, const char *name) {
  return strlen(name) == f->n && strncasecmp(f->p, name, f->n) == 0;
}

/* field_is_, a space standing for an underscore: "Close time" as Binance's documentation and
 * exports write it, close_time as its files do. */
static int field_is_words_(const struct field_ *f, const char *name) {
  if (strlen(name) != f->n)
    return 0;
  for (size_t i = 0; i < f->n; i++)
    if (tolower((unsigned char)f->p[i]) != name[i] && !(f->p[i] == ' ' && name[i] == '_'))
      return 0;
  return 1;
}

/* The first of the six columns a header names wrongly (0-based), or -1 when all are right. */
static int ohlcv_header_(const struct field_ *f) {
  static const char *const time_alias[] = {"timestamp", "time", "ts", "date", "open_time", "unix"};
  int ok = 0;
  for (size_t i = 0; i < sizeof time_alias / sizeof *time_alias; i++)
    ok |= field_is_(&f[0], time_alias[i]);
  if (!ok)
    return 0;
  for (int i = 1; i < 6; i++)
    if (!field_is_(&f[i], ohlcv_names_[i]) && !(i == 5 && field_is_(&f[i], "vol")))
      return i;
  return -1;
}

/* The header's user columns (fields 7 on): each a name of 1 to 63 characters of [A-Za-z0-9_.-],
 * neither a built-in feature's name nor another column's (data.features selects by name). */
static int user_names_(const char *name, size_t line, const struct field_ *f, int nf,
                       struct bars *out, struct fox_err *e) {
  int nuser = nf - 6;
  if (nuser > FOX_MAX_USER)
    return fox_errf(e, FOX_EDATA, "%s:%zu: %d user columns, at most %d are read", name, line,
                    nuser, FOX_MAX_USER);
  char (*names)[FOX_FEAT_NAME] = calloc((size_t)nuser, sizeof *names);
  mallocCheck(names, e);
  int rc = 0;
  for (int j = 0; rc == 0 && j < nuser; j++) {
    const struct field_ *g = &f[6 + j];
    char got[80];
    show_(g, got, sizeof got);
    int ok = g->n > 0 && g->n < FOX_FEAT_NAME;
    for (size_t i = 0; ok && i < g->n; i++)
      ok = isalnum((unsigned char)g->p[i]) || strchr("_.-", g->p[i]) != NULL;
    if (!ok) {
      rc = fox_errf(e, FOX_EDATA, "%s:%zu:%d: user column name '%s': expected 1 to %d of "
                                  "A-Z a-z 0-9 _ . -", name, line, 7 + j, got, FOX_FEAT_NAME - 1);
      break;
    }
    memcpy(names[j], g->p, g->n);
    for (int k = 0; rc == 0 && k < FOX_NFEAT; k++)
      if (strcmp(names[j], feature_names[k]) == 0)
        rc = fox_errf(e, FOX_EDATA, "%s:%zu:%d: user column '%s' has a built-in feature's name: "
                                    "rename it", name, line, 7 + j, got);
    for (int k = 0; rc == 0 && k < j; k++)
      if (strcmp(names[j], names[k]) == 0)
        rc = fox_errf(e, FOX_EDATA, "%s:%zu:%d: user column '%s' appears twice (column %d)",
                      name, line, 7 + j, got, 7 + k);
  }
  if (rc == 0)
    rc = bars_set_user(out, nuser, (const char(*)[FOX_FEAT_NAME])names, e);
  free(names);
  return rc;
}

/* A 6-column header must name the columns in order (aliases for the time column). */
static int check_header_(const char *name, size_t line, const struct field_ *f, int nf,
                         enum csv_format fmt, struct fox_err *e) {
  if (fmt == CSV_BINANCE)
    return 0;
  int bad = ohlcv_header_(f);
  if (bad >= 0) { /* the column that is wrong, not merely the first */
    char got[80];
    show_(&f[bad], got, sizeof got);
    return fox_errf(e, FOX_EDATA,
                    "%s:%zu: wrong columns: expected header timestamp,open,high,low,close,volume "
                    "(column %d is '%s', expected %s)",
                    name, line, bad + 1, got,
                    bad ? ohlcv_names_[bad] : "timestamp, time, ts, date, open_time or unix");
  }
  (void)nf;
  return 0;
}

static int64_t ts_divisor_(int64_t ts) {
  if (ts > 100000000000000LL) /* microseconds (Binance spot since 2025) */
    return 1000000;
  if (ts > 100000000000LL) /* milliseconds */
    return 1000;
  return 1;
}

/* Validates one data row; returns 0, or FOX_EDATA with the message in e. */
static int parse_row_(const char *name, size_t line, const struct field_ *f, int nf,
                      enum csv_format fmt, int have_prev, int64_t prev_ts,
                      const struct bars *out, int64_t *ts, double px[5], double *user,
                      struct fox_err *e) {
  int want = fmt == CSV_BINANCE ? 12 : 6 + out->nuser;
  if (nf != want)
    return fox_errf(e, FOX_EDATA, "%s:%zu: wrong columns: expected %d fields (%s%s), got %d",
                    name, line, want, csv_format_name(fmt),
                    out->nuser ? " and the header's user columns" : "", nf);
  char got[80];
  /* A user column becomes an f32 feature: a number within the f32 range, never NaN or inf. */
  for (int j = 0; j < out->nuser; j++) {
    int nan;
    if (parse_double_(&f[6 + j], &user[j], &nan) != 0 || !(fabs(user[j]) <= FLT_MAX)) {
      show_(&f[6 + j], got, sizeof got);
      return fox_errf(e, FOX_EDATA, "%s:%zu:%d: user column '%s': %s, got '%s'", name, line,
                      7 + j, out->user_names[j],
                      nan ? "NaN or infinite value" : "expected a finite number (f32 range)",
                      got);
    }
  }
  int64_t raw;
  if (parse_int64_(&f[0], &raw) != 0) {
    double d;
    int nan;
    /* Some exports write integral times as floats ("1514764800.0"). */
    if (parse_double_(&f[0], &d, &nan) != 0 || d != floor(d) || fabs(d) > 9e18) {
      show_(&f[0], got, sizeof got);
      return fox_errf(e, FOX_EDATA, "%s:%zu: field 'timestamp': expected an integer, got '%s'",
                      name, line, got);
    }
    raw = (int64_t)d;
  }
  if (raw <= 0)
    return fox_errf(e, FOX_EDATA, "%s:%zu: field 'timestamp': expected a positive time, got %lld",
                    name, line, (long long)raw);
  /* Per row: Binance moved its spot files from ms to us in 2025, so one concatenated history
   * can hold both. */
  int64_t div = fmt == CSV_BINANCE && ts_divisor_(raw) == 1 ? 1000 : ts_divisor_(raw);
  *ts = raw / div;
  if (*ts > 253402300799LL) /* 9999-12-31 23:59:59: keeps every later time sum in range */
    return fox_errf(e, FOX_EDATA, "%s:%zu: field 'timestamp': %lld is after the year 9999", name,
                    line, (long long)raw);
  for (int i = 0; i < 5; i++) {
    int nan;
    if (parse_double_(&f[i + 1], &px[i], &nan) != 0) {
      show_(&f[i + 1], got, sizeof got);
      return fox_errf(e, FOX_EDATA, "%s:%zu: field '%s': %s, got '%s'", name, line,
                      ohlcv_names_[i + 1], nan ? "NaN or infinite value" : "expected a number",
                      got);
    }
  }
  for (int i = 0; i < 4; i++)
    if (!(px[i] > 0))
      return fox_errf(e, FOX_EDATA, "%s:%zu: field '%s': expected a positive price, got %.10g",
                      name, line, ohlcv_names_[i + 1], px[i]);
  for (int i = 0; i < 4; i++)
    if (px[i] > CSV_MAX_PRICE)
      return fox_errf(e, FOX_EDATA, "%s:%zu: field '%s': %.10g is beyond %g", name, line,
                      ohlcv_names_[i + 1], px[i], CSV_MAX_PRICE);
  if (px[4] < 0 || px[4] > CSV_MAX_VOLUME)
    return fox_errf(e, FOX_EDATA, "%s:%zu: field 'volume': expected a number in [0, %g], got %.10g",
                    name, line, CSV_MAX_VOLUME, px[4]);
  if (px[1] < px[2])
    return fox_errf(e, FOX_EDATA, "%s:%zu: high < low (%.10g < %.10g)", name, line, px[1], px[2]);
  if (px[3] < px[2] || px[3] > px[1])
    return fox_errf(e, FOX_EDATA, "%s:%zu: close %.10g outside [low, high] = [%.10g, %.10g]",
                    name, line, px[3], px[2], px[1]);
  if (have_prev && *ts == prev_ts)
    return fox_errf(e, FOX_EDATA, "%s:%zu: duplicate timestamp %lld", name, line, (long long)*ts);
  if (have_prev && *ts < prev_ts)
    return fox_errf(e, FOX_EDATA, "%s:%zu: timestamp %lld decreases (previous row %lld)", name,
                    line, (long long)*ts, (long long)prev_ts);
  return 0;
}

static int cmp_i64_(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The bar interval is the most common step: robust to gaps and to a few irregular rows. */
static int64_t mode_step_(const char *name, const struct bars *b, struct fox_err *e) {
  if (b->n < 2)
    return 60;
  size_t m = b->n - 1;
  int64_t *d = malloc(m * sizeof *d);
  if (!d) {
    fox_errf(e, FOX_EFAIL, "%s: out of memory for %zu bars", name, b->n);
    return -1;
  }
  for (size_t i = 0; i < m; i++)
    d[i] = b->ts[i + 1] - b->ts[i];
  qsort(d, m, sizeof *d, cmp_i64_);
  int64_t best = d[0];
  size_t best_run = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i;
    while (j < m && d[j] == d[i])
      j++;
    if (j - i > best_run) {
      best_run = j - i;
      best = d[i];
    }
    i = j;
  }
  free(d);
  return best;
}

static int gaps_(const char *name, struct bars *b, const struct csv_options *opt, struct csv_report *rep,
                 struct fox_err *e) {
  int64_t step = mode_step_(name, b, e);
  if (step < 0)
    return FOX_EFAIL;
  rep->bar_seconds = step;
  size_t extra = 0;
  for (size_t i = 1; i < b->n; i++) {
    int64_t d = b->ts[i] - b->ts[i - 1];
    if (d % step != 0)
      rep->misaligned++;
    if (d > step) {
      size_t miss = (size_t)(d / step) - (d % step == 0);
      rep->gaps++;
      rep->missing += miss;
      if (miss > rep->longest_gap)
        rep->longest_gap = miss;
      extra += miss;
    }
  }
  if (!opt->fill_gaps || extra == 0)
    return 0;
  size_t limit = opt->max_bars ? opt->max_bars : CSV_MAX_BARS;
  if (extra > limit || b->n + extra > limit)
    return fox_errf(e, FOX_EDATA,
                    "%s: --fill-gaps would insert %zu bars (%zu gaps, longest %zu bars), more than "
                    "the limit of %zu bars in all: check the timestamps",
                    name, extra, rep->gaps, rep->longest_gap, limit);
  struct bars out = {0};
  /* A filled bar keeps the user columns' last values, as its prices keep the last close. */
  size_t nu = (size_t)b->nuser;
  int rc = bars_set_user(&out, b->nuser, (const char(*)[FOX_FEAT_NAME])b->user_names, e);
  if (rc == 0)
    rc = bars_reserve(&out, b->n + extra, e);
  for (size_t i = 0; rc == 0 && i < b->n; i++) {
    if (i > 0) {
      double c = b->close[i - 1];
      for (int64_t t = b->ts[i - 1] + step; rc == 0 && t < b->ts[i]; t += step) {
        rc = bars_push(&out, t, c, c, c, c, 0.0, e);
        if (rc == 0 && nu)
          memcpy(out.user + (out.n - 1) * nu, b->user + (i - 1) * nu, nu * sizeof *out.user);
        rep->filled++;
      }
    }
    if (rc == 0)
      rc = bars_push(&out, b->ts[i], b->open[i], b->high[i], b->low[i], b->close[i],
                     b->volume[i], e);
    if (rc == 0 && nu)
      memcpy(out.user + (out.n - 1) * nu, b->user + i * nu, nu * sizeof *out.user);
  }
  if (rc != 0) {
    bars_free(&out);
    return rc;
  }
  bars_free(b);
  *b = out;
  return 0;
}

int csv_parse(const char *name, const char *buf, size_t len, const struct csv_options *opt,
              struct bars *out, struct csv_report *rep, struct fox_err *e) {
  *rep = (struct csv_report){0};
  struct field_ f[CSV_MAX_FIELDS];
  const char *p = buf, *end = buf + len;
  size_t line = 0;
  enum csv_format fmt = 0;
  int64_t prev_ts = 0;
  int have_prev = 0, last_repaired = 0;
  /* A UTF-8 byte order mark (spreadsheet exports) is no part of the first column's name. */
  if (end - p >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
    p += 3;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    const char *next = nl ? nl + 1 : end;
    line++;
    if (le > p && le[-1] == '\r')
      le--;
    int blank = 1;
    for (const char *q = p; q < le && blank; q++)
      blank = isspace((unsigned char)*q);
    if (blank) {
      p = next;
      continue;
    }
    if (memchr(p, '\0', (size_t)(le - p)))
      return fox_errf(e, FOX_EDATA, "%s:%zu: binary data (NUL byte) in a text CSV", name, line);
    int nf = split_(p, le, f, CSV_MAX_FIELDS);
    if (fmt == 0) {
      int header = !is_number_(&f[0]);
      /* A header naming the OHLCV columns first: any further columns are the user's, unless
       * it is Binance's own (12 columns, the seventh close_time), whose last six are ignored. */
      int binance = nf == 12 && (!header || field_is_words_(&f[6], "close_time"));
      if (nf == 6 || (header && nf > 6 && !binance && ohlcv_header_(f) < 0))
        fmt = CSV_OHLCV;
      else if (binance)
        fmt = CSV_BINANCE;
      else if (header && nf > 6) /* the OHLCV columns named wrongly before user columns */
        return check_header_(name, line, f, nf, CSV_OHLCV, e);
      else
        return fox_errf(e, FOX_EDATA,
                        "%s:%zu: wrong columns: expected 6 (timestamp,open,high,low,close,volume), "
                        "a header of those 6 then user columns, or 12 (Binance kline), got %d",
                        name, line, nf);
      rep->format = fmt;
      if (header) {
        FOX_TRY(check_header_(name, line, f, nf, fmt, e));
        if (fmt == CSV_OHLCV && nf > 6)
          FOX_TRY(user_names_(name, line, f, nf, out, e));
        rep->header = 1;
        p = next;
        continue;
      }
    }
    int64_t ts = 0;
    double px[5], user[FOX_MAX_USER];
    struct fox_err row = {0};
    if (parse_row_(name, line, f, nf, fmt, have_prev, prev_ts, out, &ts, px, user, &row) != 0) {
      if (!opt->skip_bad_rows)
        return fox_errf(e, row.code, "%s", row.msg);
      struct fox_err unordered = {0};
      size_t k = out->n;
      /* A good row out of order with the last kept one, but in order with the one before it:
       * the last kept row is the stray (a far-future time), not this and every later row. */
      if (k >= 2 &&
          parse_row_(name, line, f, nf, fmt, 0, 0, out, &ts, px, user, &unordered) == 0 &&
          ts > out->ts[k - 2]) {
        out->n--;
        rep->repaired_opens -= last_repaired;
        prev_ts = out->ts[k - 2];
      } else {
        rep->skipped++;
        p = next;
        continue;
      }
      rep->skipped++;
    }
    last_repaired = 0;
    if (px[0] > px[1] || px[0] < px[2]) {
      /* BitMEX defines the open as the previous close: widen the range rather than reject. */
      px[1] = px[0] > px[1] ? px[0] : px[1];
      px[2] = px[0] < px[2] ? px[0] : px[2];
      rep->repaired_opens++;
      last_repaired = 1;
    }
    FOX_TRY(bars_push(out, ts, px[0], px[1], px[2], px[3], px[4], e));
    if (out->nuser > 0)
      memcpy(out->user + (out->n - 1) * (size_t)out->nuser, user,
             (size_t)out->nuser * sizeof *user);
    prev_ts = ts;
    have_prev = 1;
    p = next;
  }
  rep->lines = line;
  rep->rows = out->n;
  if (out->n == 0)
    return fox_errf(e, FOX_EDATA, "%s: no bars (%s)", name,
                    line == 0 ? "empty file" : rep->skipped ? "every row was bad" : "header only");
  return gaps_(name, out, opt, rep, e);
}

int csv_read_file(const char *path, const struct csv_options *opt, struct bars *out,
                  struct csv_report *rep, struct fox_err *e) {
  FOX_TRY(fs_input_check(path, "a CSV of bars", FOX_EDATA, e));
  gzFile gz = gzopen(path, "rb");
  if (!gz)
    return fox_errf(e, FOX_EDATA, "%s: cannot open: %s", path,
                    errno ? strerror(errno) : "out of memory");
  gzbuffer(gz, 1 << 20);
  size_t cap = 1 << 24, len = 0;
  char *buf = malloc(cap);
  if (!buf) {
    gzclose(gz);
    return fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
  }
  for (;;) {
    if (cap - len < (1 << 20)) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        gzclose(gz);
        return fox_errf(e, FOX_EFAIL, "%s: out of memory", path);
      }
      buf = nb;
      cap *= 2;
    }
    /* zlib reads at most INT_MAX per call: chunks of 1 GiB let files beyond 2 GiB through. */
    size_t want = cap - len < ((size_t)1 << 30) ? cap - len : ((size_t)1 << 30);
    int got = gzread(gz, buf + len, (unsigned)want);
    if (got < 0)
      break;
    if (got == 0)
      break;
    len += (size_t)got;
  }
  int zerr = Z_OK;
  const char *zmsg = gzerror(gz, &zerr);
  if (zerr != Z_OK && zerr != Z_STREAM_END) {
    int rc = gzdirect(gz) ? fox_errf(e, FOX_EDATA, "%s: read error after %zu bytes: %s", path,
                                     len, zerr == Z_ERRNO ? strerror(errno) : zmsg)
                          : fox_errf(e, FOX_EDATA, "%s: corrupt or truncated gzip after %zu "
                                                   "bytes: %s", path, len, zmsg);
    free(buf);
    gzclose(gz);
    return rc;
  }
  gzclose(gz);
  int rc = csv_parse(path, buf, len, opt, out, rep, e);
  free(buf);
  return rc;
}
