/* The CSV reader on small in-memory files: both formats, headers, open repair, gaps, and every
 * class of bad row with its line number. */
#include <string.h>

#include "data/csv.h"
#include "fox_check.h"

static int parse_(const char *text, const struct csv_options *opt, struct bars *b,
                  struct csv_report *r, struct fox_err *e) {
  *b = (struct bars){0};
  fox_err_clear(e);
  return csv_parse("in.csv", text, strlen(text), opt, b, r, e);
}

/* A bad file must fail with FOX_EDATA and a message naming the file, the line and `what`. */
static void bad_(const char *text, const char *line, const char *what) {
  struct csv_options opt = {0};
  struct bars b;
  struct csv_report r;
  struct fox_err e;
  int rc = parse_(text, &opt, &b, &r, &e);
  CHECK(rc == FOX_EDATA, "expected FOX_EDATA for %s, got %d", what, rc);
  CHECK(strstr(e.msg, line) != NULL, "message '%s' should name '%s'", e.msg, line);
  CHECK(strstr(e.msg, what) != NULL, "message '%s' should say '%s'", e.msg, what);
  bars_free(&b);
}

int main(void) {
  struct csv_options opt = {0};
  struct bars b;
  struct csv_report r;
  struct fox_err e;

  int rc = parse_("timestamp,open,high,low,close,volume\n"
                  "60,10,11,9,10.5,100\r\n"
                  "120,10.5,10.6,10.4,10.4,0\n\n",
                  &opt, &b, &r, &e);
  CHECK(rc == 0, "plain file parses: %s", e.msg);
  CHECK(b.n == 2 && r.header == 1 && r.format == CSV_OHLCV, "2 bars with header, got %zu", b.n);
  CHECK(b.ts[1] == 120 && b.close[0] == 10.5 && b.volume[1] == 0, "values kept");
  CHECK(r.bar_seconds == 60, "bar 60 s, got %lld", (long long)r.bar_seconds);
  bars_free(&b);

  /* Binance klines: open time in ms (or us), no header; columns after volume ignored. */
  rc = parse_("1500000000000,1,2,0.5,1.5,10,1500000059999,15,3,5,7,0\n"
              "1500000060000,1.5,2,1,2,11,1500000119999,15,3,5,7,0\n",
              &opt, &b, &r, &e);
  CHECK(rc == 0 && b.n == 2 && r.format == CSV_BINANCE && !r.header, "binance parses: %s", e.msg);
  CHECK(b.ts[0] == 1500000000 && b.ts[1] == 1500000060, "ms -> s, got %lld", (long long)b.ts[0]);
  bars_free(&b);
  /* Binance's header as its documentation writes it ("Close time" seventh) is Binance's */
  rc = parse_("Open time,Open,High,Low,Close,Volume,Close time,Quote asset volume,Number of "
              "trades,Taker buy base asset volume,Taker buy quote asset volume,Ignore\n"
              "1500000000000,1,2,0.5,1.5,10,1500000059999,15,3,5,7,0\n",
              &opt, &b, &r, &e);
  CHECK(rc == 0 && b.n == 1 && r.format == CSV_BINANCE && r.header, "binance's words: %s", e.msg);
  bars_free(&b);
  rc = parse_("1735689600000000,1,2,0.5,1.5,10,1735689659999999,15,3,5,7,0\n", &opt, &b, &r, &e);
  CHECK(rc == 0 && b.ts[0] == 1735689600, "us -> s, got %lld", rc ? 0LL : (long long)b.ts[0]);
  bars_free(&b);

  /* BitMEX: open outside [low, high] widens the range and is counted, not rejected. */
  rc = parse_("60,12,11,9,10,1\n120,8,11,9,10,1\n180,10,11,9,10,1\n", &opt, &b, &r, &e);
  CHECK(rc == 0 && r.repaired_opens == 2, "2 repaired opens, got %zu", r.repaired_opens);
  CHECK(b.high[0] == 12 && b.low[1] == 8 && b.high[2] == 11, "range widened to the open");
  bars_free(&b);

  /* Gaps: one bar missing after 120, three after 240; filled with flat bars at the close. */
  const char *gappy = "60,1,1,1,1,1\n120,1,2,1,2,1\n240,2,2,2,2,1\n300,2,3,2,3,1\n540,3,3,3,3,1\n";
  rc = parse_(gappy, &opt, &b, &r, &e);
  CHECK(rc == 0 && r.gaps == 2 && r.longest_gap == 3 && r.missing == 4 && b.n == 5,
        "gaps 2/longest 3/missing 4, got %zu/%zu/%zu", r.gaps, r.longest_gap, r.missing);
  bars_free(&b);
  struct csv_options fill = {.fill_gaps = 1};
  rc = parse_(gappy, &fill, &b, &r, &e);
  CHECK(rc == 0 && b.n == 9 && r.filled == 4, "filled to 9 bars, got %zu", b.n);
  CHECK(b.ts[2] == 180 && b.open[2] == 2 && b.high[2] == 2 && b.volume[2] == 0,
        "filled bar is flat at the previous close");
  for (size_t i = 1; i < b.n; i++)
    CHECK(b.ts[i] - b.ts[i - 1] == 60, "contiguous after fill at %zu", i);
  bars_free(&b);

  /* --skip-bad-rows counts and drops bad rows, keeps good ones. */
  struct csv_options skip = {.skip_bad_rows = 1};
  rc = parse_("60,1,1,1,1,1\n120,x,1,1,1,1\n120,1,1,1,1,1\n100,1,1,1,1,1\n180,1,1,2,1,1\n"
              "240,1,1,1,1,1\n",
              &skip, &b, &r, &e);
  CHECK(rc == 0 && b.n == 3 && r.skipped == 3, "3 kept, 3 skipped, got %zu/%zu", b.n, r.skipped);
  bars_free(&b);

  /* One history of Binance files across the 2025 switch from ms to us open times. */
  rc = parse_("1735689540000,1,2,0.5,1.5,10,1735689599999,15,3,5,7,0\n"
              "1735689600000000,1.5,2,1,2,11,1735689659999999,15,3,5,7,0\n",
              &opt, &b, &r, &e);
  CHECK(rc == 0 && b.n == 2 && b.ts[0] == 1735689540 && b.ts[1] == 1735689600,
        "ms then us rows: %s", e.msg);
  bars_free(&b);

  /* --skip-bad-rows and one far-future row: the stray row goes, the rest of the file stays. */
  rc = parse_("60,1,1,1,1,1\n120,1,1,1,1,1\n4102444800,2,1,1,1,1\n180,1,1,1,1,1\n240,1,1,1,1,1\n",
              &skip, &b, &r, &e);
  CHECK(rc == 0 && b.n == 4 && r.skipped == 1 && b.ts[2] == 180 && b.ts[3] == 240,
        "stray future row dropped: %zu bars, %zu skipped, %s", b.n, r.skipped, e.msg);
  CHECK(r.repaired_opens == 0, "its repaired open is not counted (%zu)", r.repaired_opens);
  bars_free(&b);

  bad_("", "in.csv", "empty file");
  bad_("60,1,1,1,1,1\n120,1,2e15,1,1,1\n", "in.csv:2", "field 'high': 2e+15 is beyond");
  bad_("60,1,1,1,1,1\n120,1,1,1,1,1e31\n", "in.csv:2", "field 'volume'");
  bad_("timestamp,open,high,low,close,volume\n", "in.csv", "header only");
  bad_("a,b,c\n1,2,3\n", "in.csv:1", "wrong columns");
  bad_("timestamp,close,open,high,low,volume\n60,1,1,1,1,1\n", "in.csv:1",
       "wrong columns: expected header timestamp,open,high,low,close,volume (column 2 is "
       "'close', expected open)");
  bad_("tim,open,high,low,close,volume\n60,1,1,1,1,1\n", "in.csv:1", "(column 1 is 'tim'");
  /* with user columns too (12 of them were taken for Binance's, the header's order ignored) */
  bad_("timestamp,open,high,close,low,volume,a\n60,1,2,1,1,1,1\n", "in.csv:1",
       "(column 4 is 'close', expected low)");
  bad_("timestamp,open,high,close,low,volume,a,b,c,d,e,f\n60,1,2,1,1,1,1,1,1,1,1,1\n",
       "in.csv:1", "(column 4 is 'close', expected low)");
  bad_("60,1,1,1,1,1\n120,1,1,1,1\n", "in.csv:2", "wrong columns");
  bad_("60,1,1,1,1,1\n120,1,abc,1,1,1\n", "in.csv:2", "field 'high': expected a number");
  bad_("60,1,1,1,1,1\n120,1,1,1,nan,1\n", "in.csv:2", "NaN");
  bad_("60,1,1,1,1,1\n120,1,1,1,1,inf\n", "in.csv:2", "NaN or infinite");
  bad_("60,1,1,1,1,1\n120,0,1,1,1,1\n", "in.csv:2", "positive price");
  bad_("60,1,1,1,1,1\n120,1,1,-1,1,1\n", "in.csv:2", "positive price");
  bad_("60,1,1,1,1,1\n120,1,1,1,1,-5\n", "in.csv:2", "field 'volume'");
  bad_("60,1,1,1,1,1\n120,1,1,2,1,1\n", "in.csv:2", "high < low");
  bad_("60,1,1,1,1,1\n120,1,2,1,3,1\n", "in.csv:2", "outside [low, high]");
  bad_("60,1,1,1,1,1\n120,1,1,1,1,1\n120,1,1,1,1,1\n", "in.csv:3", "duplicate timestamp");
  bad_("60,1,1,1,1,1\n120,1,1,1,1,1\n90,1,1,1,1,1\n", "in.csv:3", "decreases");
  bad_("60,1,1,1,1,1\n1.5e,1,1,1,1,1\n", "in.csv:2", "field 'timestamp'");
  bad_("60,1,1,1,1,1\n120,1,1\0,1,1,1\n", "in.csv:2", "wrong columns");
  return fox_check_done("test_csv");
}
