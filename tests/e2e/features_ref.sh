#!/usr/bin/env bash
# The 51 features of `foxopt import` against the independent reference (tests/ref/features_ref.py,
# written from the published definitions), and that reference against real TA-Lib, on:
# synthetic bars with gaps (filled), a cheap instrument with long flat stretches, a Binance
# kline file, and the shared BitMEX bars (sample always, the full year when asked: `full`).
. "$(dirname "$0")/lib.sh"
need_python
REF="$FOX_SRC/tests/ref/features_ref.py"
have_talib=0
"$FOX_PYTHON" -c 'import talib' 2>/dev/null && have_talib=1

compare() { # compare CSV [import flags...]
  local csv=$1; shift
  run_rc 0 "$FOXOPT" import "$csv" -o "$WORK/ds.h5" "$@"
  local fill=""
  case " $* " in *" --fill-gaps "*) fill=--fill-gaps ;; esac
  run_rc 0 "$FOX_PYTHON" "$REF" --csv "$csv" --h5 "$WORK/ds.h5" $fill
  [ "$RC" -eq 0 ] || echo "$OUT_TXT" | tail -20 >&2
  if [ $have_talib -eq 1 ]; then
    run_rc 0 "$FOX_PYTHON" "$REF" --talib "$csv" $fill
    [ "$RC" -eq 0 ] || echo "$OUT_TXT" | tail -20 >&2
  fi
}

if [ "${1:-}" = full ]; then
  BM="$FOX_SHARED_DATA/bitmex_xbtusd_1m_2018.csv.gz"
  [ -r "$BM" ] || { echo "skipped: $BM not present"; exit 77; }
  compare "$BM"
  done_
  exit
fi

"$FOXOPT" synth -o "$WORK/s.csv" --bars 12000 --seed 5 >/dev/null
sed '4001,4030d;9000,9001d' "$WORK/s.csv" >"$WORK/gaps.csv"
compare "$WORK/gaps.csv" --fill-gaps
compare "$WORK/gaps.csv"

# A cheap instrument (prices ~1e-3, volumes ~1e-2) with a 300-bar flat, trade-less stretch:
# the degenerate-window rules and the scale-free zero tests.
awk -F, 'NR == 1 { print; next }
         NR >= 5000 && NR < 5300 { printf "%s,%s,%s,%s,%s,0\n", $1, p, p, p, p; next }
         { s = 1.23e-7; o = (NR == 5300 ? p / s : $2)
           printf "%s,%.10g,%.10g,%.10g,%.10g,%.6g\n", $1, o*s, $3*s, $4*s, $5*s, $6*1e-3
           p = sprintf("%.10g", $5*s) }' "$WORK/s.csv" >"$WORK/cheap.csv"
compare "$WORK/cheap.csv"

# Binance klines: open time in ms, 12 columns, no header.
awk -F, 'NR > 1 { printf "%d000,%s,%s,%s,%s,%s,%d999,0,10,0,0,0\n", $1, $2, $3, $4, $5, $6, $1 + 59 }' \
  "$WORK/s.csv" >"$WORK/binance.csv"
compare "$WORK/binance.csv"

SAMPLE="$FOX_SHARED_DATA/bitmex_xbtusd_1m_2018_sample.csv"
if [ -r "$SAMPLE" ]; then
  compare "$SAMPLE" --split 0.5,0.25,0.25
else
  echo "note: $SAMPLE not present, BitMEX sample skipped"
fi
done_
