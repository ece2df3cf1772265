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
