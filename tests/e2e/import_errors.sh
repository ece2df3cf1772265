#!/usr/bin/env bash
# Every class of bad input to `foxopt import`: exit 3, a message naming the file and line, and
# an existing output file left byte for byte as it was.
. "$(dirname "$0")/lib.sh"

H='timestamp,open,high,low,close,volume'
G='60,1,1,1,1,1'
OUTH5="$WORK/out.h5"
echo "precious old output" >"$OUTH5"
SUM=$(sha256sum "$OUTH5")

# bad_case NAME LINE_TEXT EXPECTED_SUBSTRING: writes $WORK/NAME.csv from stdin, imports it.
bad_case() {
  local name=$1 where=$2 what=$3 f="$WORK/$1.csv"
  cat >"$f"
  run_rc 3 "$FOXOPT" import "$f" -o "$OUTH5"
  contains "$ERR_TXT" "$f$where"
  contains "$ERR_TXT" "$what"
  check "$name leaves the old output untouched" test "$(sha256sum "$OUTH5")" = "$SUM"
  check "$name leaves no temporary file" test -z "$(ls "$WORK" | grep tmp)"
}

printf '' | bad_case empty "" "empty file"
printf '%s\n' "$H" | bad_case header_only "" "header only"
printf 'time,price\n1,2\n' | bad_case wrong_columns ":1" "wrong columns"
printf '%s\n%s\n120,1,1,1,1\n' "$H" "$G" | bad_case short_row ":3" "wrong columns"
printf '%s\n%s\n120,1,x1,1,1,1\n' "$H" "$G" | bad_case non_numeric ":3" "field 'high': expected a number"
printf '%s\n%s\n120,1,1,1,NaN,1\n' "$H" "$G" | bad_case nan ":3" "NaN"
printf '%s\n%s\n120,1,1,0,1,1\n' "$H" "$G" | bad_case nonpositive ":3" "positive price"
printf '%s\n%s\n120,1,1,2,1,1\n' "$H" "$G" | bad_case high_below_low ":3" "high < low"
printf '%s\n%s\n120,1,2,1,2.5,1\n' "$H" "$G" | bad_case close_outside ":3" "outside [low, high]"
printf '%s\n%s\n%s\n' "$H" "$G" "$G" | bad_case duplicate ":3" "duplicate timestamp"
printf '%s\n%s\n30,1,1,1,1,1\n' "$H" "$G" | bad_case decreasing ":3" "decreases"

# A truncated gzip: the first half of a real compressed file.
"$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 >/dev/null
gzip -c "$WORK/s.csv" >"$WORK/full.csv.gz"
head -c $(($(stat -c %s "$WORK/full.csv.gz") / 2)) "$WORK/full.csv.gz" >"$WORK/trunc.csv.gz"
run_rc 3 "$FOXOPT" import "$WORK/trunc.csv.gz" -o "$OUTH5"
contains "$ERR_TXT" "trunc.csv.gz"
contains "$ERR_TXT" "truncated gzip"
check "truncated gzip leaves the old output" test "$(sha256sum "$OUTH5")" = "$SUM"

run_rc 3 "$FOXOPT" import "$WORK/no-such-file.csv" -o "$OUTH5"
contains "$ERR_TXT" "no-such-file.csv: cannot open"
# Too few bars for the warm-up is bad data too.
"$FOXOPT" synth -o "$WORK/short.csv" --bars 1000 >/dev/null
run_rc 3 "$FOXOPT" import "$WORK/short.csv" -o "$OUTH5"
contains "$ERR_TXT" "too few bars"
check "short input leaves the old output" test "$(sha256sum "$OUTH5")" = "$SUM"

# --skip-bad-rows turns row errors into a count.
{ echo "$H"; sed -n '2,2000p' "$WORK/s.csv"; echo "9999999999,1,1,2,1,1"; echo "x,1,1,1,1,1"; } >"$WORK/skip.csv"
run_rc 0 "$FOXOPT" import "$WORK/skip.csv" -o "$WORK/skip.h5" --skip-bad-rows --split 0.5,0.25,0.25
contains "$OUT_TXT" "2 skipped"

# Fractions that sum to 1 only within the tolerance still give splits inside the bars.
run_rc 0 "$FOXOPT" import "$WORK/s.csv" -o "$WORK/tol.h5" --split 0.7000009,0.3,0
run_rc 0 "$FOXOPT" info "$WORK/tol.h5"
run_rc 2 "$FOXOPT" synth -o "$WORK/x.csv" --bars 10 --start 0
contains "$ERR_TXT" "--start 0: expected a time in [1,"
# the last start whose bars import reads as seconds, and one past it (import would take the
# times for milliseconds and misread the file)
run_rc 0 "$FOXOPT" synth -o "$WORK/late.csv" --bars 2000 --start 99999880000
run_rc 0 "$FOXOPT" import "$WORK/late.csv" -o "$WORK/late.h5"
run_rc 2 "$FOXOPT" synth -o "$WORK/late.csv" --bars 2000 --start 99999880001
contains "$ERR_TXT" "reads a time above 1e11 as milliseconds"

# Usage errors are exit 2.
run_rc 2 "$FOXOPT" import "$WORK/s.csv"
run_rc 2 "$FOXOPT" import "$WORK/s.csv" -o "$OUTH5" --split 0.5,0.5,0.5
contains "$ERR_TXT" "sum to 1"
run_rc 2 "$FOXOPT" import "$WORK/s.csv" -o "$OUTH5" --bogus
run_rc 2 "$FOXOPT" synth -o "$WORK/x.csv" --bars 0
run_rc 2 "$FOXOPT" nosuchcommand
run_rc 3 "$FOXOPT" info "$WORK/s.csv"
contains "$ERR_TXT" "not an HDF5 file"
for c in synth import info; do
  run_rc 0 "$FOXOPT" "$c" --help
  contains "$OUT_TXT" "exit codes"
done
check "old output still untouched at the end" test "$(sha256sum "$OUTH5")" = "$SUM"
done_
