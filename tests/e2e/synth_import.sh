#!/usr/bin/env bash
# synth -> import -> info on the command line: reproducible files, a readable HDF5 with every
# dataset and attribute of DESIGN.md s4, the splits of --split, gaps reported and filled.
. "$(dirname "$0")/lib.sh"

run_rc 0 "$FOXOPT" synth -o "$WORK/a.csv" --bars 6000 --seed 42 --start 1514764800
run_rc 0 "$FOXOPT" synth -o "$WORK/b.csv" --bars 6000 --seed 42 --start 1514764800
run_rc 0 "$FOXOPT" synth -o "$WORK/c.csv" --bars 6000 --seed 43 --start 1514764800
check "same seed, byte-identical" cmp -s "$WORK/a.csv" "$WORK/b.csv"
check "other seed, other bytes" not cmp -s "$WORK/a.csv" "$WORK/c.csv"
check "first bar at --start" test "$(sed -n 2p "$WORK/a.csv" | cut -d, -f1)" = 1514764800

# --kind walk is the default and the walk of before --kind existed, byte for byte: this digest is
# of `foxopt synth -o w.csv --bars 2000 --seed 7` written by main at 72d2d1d (before --kind).
run_rc 0 "$FOXOPT" synth -o "$WORK/w.csv" --bars 2000 --seed 7
contains "$ERR_TXT$OUT_TXT" "wrote 2000 synthetic bars (walk, seed 7)"
check "walk unchanged since 72d2d1d" \
  test "$(sha256sum <"$WORK/w.csv" | cut -d' ' -f1)" = d91390bb32db7adcf305452cdec7594511c7a7762fb2e6fdb3e28530d05ee526
run_rc 0 "$FOXOPT" synth -o "$WORK/w2.csv" --bars 2000 --seed 7 --kind walk
check "--kind walk is the default" cmp -s "$WORK/w.csv" "$WORK/w2.csv"

# --kind regimes: valid bars (a trade-less minute repeats the previous close with volume 0; any
# other has volume > 0 and high/low around open and close), reproducible, not the walk.
run_rc 0 "$FOXOPT" synth -o "$WORK/r.csv" --bars 6000 --seed 42 --kind regimes
contains "$ERR_TXT$OUT_TXT" "(regimes, seed 42)"
run_rc 0 "$FOXOPT" synth -o "$WORK/r2.csv" --bars 6000 --seed 42 --kind=regimes
check "regimes: same seed, byte-identical" cmp -s "$WORK/r.csv" "$WORK/r2.csv"
check "regimes differs from the walk of the same seed" not cmp -s "$WORK/r.csv" "$WORK/a.csv"
check "regimes: 6000 valid OHLCV bars" awk -F, 'NR == 1 { next }
  { n++; o = $2 + 0; h = $3 + 0; l = $4 + 0; c = $5 + 0; v = $6 + 0
    if (h < (o > c ? o : c) || l > (o < c ? o : c) || l <= 0 || v < 0) exit 1
    if (v == 0 && !(o == h && h == l && l == c && (n == 1 || o == prev))) exit 1
    if (n > 1 && o != prev) exit 1
    prev = c }
  END { exit n != 6000 }' "$WORK/r.csv"
run_rc 0 "$FOXOPT" import "$WORK/r.csv" -o "$WORK/r.h5"
contains "$OUT_TXT" "repaired opens  0"
run_rc 2 "$FOXOPT" synth -o "$WORK/bad.csv" --bars 10 --kind trend
contains "$ERR_TXT" "foxopt synth: error: --kind 'trend': expected walk or regimes"
check "an unknown kind writes nothing" not test -e "$WORK/bad.csv"

run_rc 0 "$FOXOPT" import "$WORK/a.csv" -o "$WORK/a.h5" --split 0.6,0.2,0.2
contains "$OUT_TXT" "6000 rows read"
# U = 6000 - 1441 = 4559: train floor(0.6 U) = 2735, val floor(0.2 U) = 911, test the rest.
contains "$OUT_TXT" "[1441, 4176)"
contains "$OUT_TXT" "[4176, 5087)"
contains "$OUT_TXT" "[5087, 6000)"
run_rc 0 "$FOXOPT" info "$WORK/a.h5"
contains "$OUT_TXT" "bars           6000"
contains "$OUT_TXT" "2018-01-01 00:00"
contains "$OUT_TXT" "warm-up        1441"

if command -v h5dump >/dev/null; then
  run_rc 0 h5dump -H "$WORK/a.h5"
  for d in '"/bars/timestamp"' '"timestamp"' '"open"' '"high"' '"low"' '"close"' '"volume"' \
           '"features"' '"prices"' '"mean"' '"std"' '"names"' '"bar_seconds"' '"bars_per_year"' \
           '"split_train"' '"split_val"' '"split_test"' '"source"' '"foxopt_version"' '"warmup"'; do
    case "$d" in '"/bars/timestamp"') continue ;; esac
    contains "$OUT_TXT" "$d"
  done
  contains "$OUT_TXT" "DATASPACE  SIMPLE { ( 6000, 51 ) / ( 6000, 51 ) }"
fi

# gzip input is detected by content, and gives the same dataset.
gzip -c "$WORK/a.csv" >"$WORK/a.csv.gz"
run_rc 0 "$FOXOPT" import "$WORK/a.csv.gz" -o "$WORK/agz.h5" --split 0.6,0.2,0.2
if command -v h5diff >/dev/null; then
  check "gzip and plain give the same /features" h5diff -q "$WORK/a.h5" "$WORK/agz.h5" /features
fi

# Gaps: delete 3 + 1 rows, import reports them; --fill-gaps restores the bar count.
sed '3001,3003d;4000d' "$WORK/a.csv" >"$WORK/gap.csv"
run_rc 0 "$FOXOPT" import "$WORK/gap.csv" -o "$WORK/gap.h5"
contains "$OUT_TXT" "gaps            2 (longest 3 bars, 4 bars missing"
contains "$OUT_TXT" "5996 (5996 rows read"
run_rc 0 "$FOXOPT" import "$WORK/gap.csv" -o "$WORK/fill.h5" --fill-gaps
contains "$OUT_TXT" "6000 (5996 rows read, 0 skipped, 4 filled)"
run_rc 0 "$FOXOPT" import "$WORK/a.csv" -o "$WORK/bpy.h5" --bars-per-year 98280
run_rc 0 "$FOXOPT" info "$WORK/bpy.h5"
contains "$OUT_TXT" "98280 bars/year"
done_
