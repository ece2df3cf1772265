/* foxopt synth: realistic synthetic 1-minute bars for users with no data (and for tests), with no
 * edge (walk) or with trends an agent can learn (regimes). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "data/synth.h"
#include "util/fsutil.h"

static const struct cli_opt opts_[] = {
    {"-o", "OUT.csv", "the output file (written to a temporary name, then renamed)"},
    {"--bars", "N", "the number of bars (>= 1)"},
    {"--kind", "K", "walk (default): a random walk with no edge; regimes: up, flat and down trends "
                    "of hours that a long-only agent can learn to trade"},
    {"--seed", "S", "the random seed (default 1)"},
    {"--start", "UNIX", "the open time of the first bar (default 1704067200 = 2024-01-01 00:00 "
                        "UTC)"},
    {NULL, NULL, NULL}};

const struct cli_cmd cli_cmd_synth = {
    .name = "synth",
    .summary = "realistic synthetic 1-minute bars (CSV)",
    .synopsis = "-o OUT.csv --bars N [--kind walk|regimes] [--seed S] [--start UNIX]",
    .about =
        "Writes N synthetic 1-minute bars as timestamp,open,high,low,close,volume (seconds, UTC).\n"
        "Model: GARCH(1,1) volatility with Student-t(4) shocks, Markov regimes in drift and\n"
        "volatility, intraday volume seasonality, trade-less minutes, OHLC from a Brownian bridge.\n"
        "--kind walk: regimes of about three days whose drift does not pay for trading, so an\n"
        "agent that beats buy-and-hold on it was lucky. --kind regimes: flat, up and down trends\n"
        "of about four hours (drift 0.02 % a minute), a synthetic edge a long-only agent can\n"
        "learn. The same kind and seed give a byte-identical file.",
    .opts = opts_,
    .exits = "0 ok, 1 failure, 2 bad usage",
    .run = cmd_synth,
};

int cmd_synth(int argc, char **argv, struct fox_err *e) {
  struct synth_params p;
  synth_defaults(&p);
  const char *out = NULL;
  int have_bars = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    long long x;
    if (strcmp(a, "-o") == 0) {
      if (!(out = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
    } else if (strcmp(a, "--kind") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      FOX_TRY(synth_kind_parse(v, &p.kind, e));
    } else if (strcmp(a, "--bars") == 0 || strcmp(a, "--seed") == 0 || strcmp(a, "--start") == 0) {
      if (!(v = cli_value(argc, argv, &i, e)))
        return FOX_EUSAGE;
      long long lo = strcmp(a, "--bars") == 0 ? 1 : 0, hi = strcmp(a, "--bars") == 0 ? 100000000LL
                                                                                 : (1LL << 62);
      FOX_TRY(cli_parse_i64(a, v, lo, hi, &x, e));
      if (a[2] == 'b') {
        p.bars = x;
        have_bars = 1;
      } else if (a[2] == 's' && a[3] == 'e') {
        p.seed = (unsigned long long)x;
      } else {
        p.start = x;
      }
    } else {
      return fox_errf(e, FOX_EUSAGE, "unexpected argument '%s' (foxopt help synth)", a);
    }
  }
  if (!out || !have_bars)
    return fox_errf(e, FOX_EUSAGE, "-o OUT.csv and --bars N are required (foxopt help synth)");
  /* The seconds foxopt import reads as seconds: it takes a time above 1e11 (the year 5138) for
   * milliseconds, as in exchanges' files, and would misread the file (a 'duplicate timestamp'). */
  long long last = 100000000000LL - 60LL * (long long)p.bars;
  if (p.start < 1 || p.start > last)
    return fox_errf(e, FOX_EUSAGE, "--start %lld: expected a time in [1, %lld] for %lld bars "
                                   "(foxopt import reads a time above 1e11 as milliseconds)",
                    (long long)p.start, last, (long long)p.bars);
  struct fs_out o;
  FILE *f = fs_out_fopen(&o, out, FS_OUT_TEXT, e);
  if (!f)
    return fs_out_end(&o, e->code, e);
  FOX_TRY(fs_out_fclose(&o, f, synth_write(&p, f, out, e), e));
  fprintf(fs_note_stream(out), "wrote %lld synthetic bars (%s, seed %llu) to %s\n",
          (long long)p.bars, synth_kind_name(p.kind),
          (unsigned long long)p.seed, out);
  return 0;
}
