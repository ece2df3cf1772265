#!/usr/bin/env bash
# The selection statistics (src/report/selection.c, through tests/unit/selection_cli) against the
# independent reference tests/ref/selection_ref.py, written from the papers with numpy and
# scipy: every column's Sharpe, skewness, kurtosis, PSR and MinTRL, the best column's DSR, and
# the whole CSCV (PBO, regression, and each combination's n*, logit, IS and OOS Sharpe), to
# 1e-9 relative, on noise, one real edge, heavy tails and skew, a mean 1e4 times the std,
# exact ties, T not divisible by S, and the hand-worked 4-block matrix of test_selection.
# Then Phi^-1 and Phi against scipy.stats.norm, and the driver's refusals.
. "$(dirname "$0")/lib.sh"
need_python
"$FOX_PYTHON" -c 'import scipy' 2>/dev/null || { echo "skipped: no scipy in $FOX_PYTHON"; exit 77; }
: "${SELECTION_CLI:?SELECTION_CLI must point at the selection_cli test driver}"
REF="$FOX_SRC/tests/ref/selection_ref.py"

compare() { # compare CSV BLOCKS [check flags...]
  local csv=$1 s=$2; shift 2
  run_rc 0 "$SELECTION_CLI" "$csv" --blocks "$s" "$@"
  [ "$RC" -eq 0 ] || return
  echo "$OUT_TXT" >"$WORK/got.json"
  run_rc 0 "$FOX_PYTHON" "$REF" check --csv "$csv" --got "$WORK/got.json" --blocks "$s" "$@"
  echo "$OUT_TXT" | tail -21
}
gen() { # gen KIND T N SEED -> $WORK/KIND_SEED.csv
  "$FOX_PYTHON" "$REF" gen "$1" --t "$2" --n "$3" --seed "$4" -o "$WORK/$1_$4.csv"
}

run_rc 0 "$FOX_PYTHON" "$REF" selftest
echo "$OUT_TXT"

gen noise 1000 40 1 && compare "$WORK/noise_1.csv" 16
gen noise 600 6 2 && compare "$WORK/noise_2.csv" 2 --sr-star 0.01 --alpha 0.1
gen edge 800 25 3 && compare "$WORK/edge_3.csv" 10
gen heavy 1200 30 4 && compare "$WORK/heavy_4.csv" 12
gen offset 500 20 5 && compare "$WORK/offset_5.csv" 8 --sr-star 5000
gen ties 480 12 6 && compare "$WORK/ties_6.csv" 8
# T mod S oldest rows dropped: 1003 = 8 * 125 + 3, and 997 = 14 * 71 + 3.
gen noise 1003 20 7 && compare "$WORK/noise_7.csv" 8
gen heavy 997 15 8 && compare "$WORK/heavy_8.csv" 14

# The hand-worked matrix of test_selection.c (4 blocks of 2 rows, block means A 1 1 -1 -1,
# B 0 0 1 1, C 0), behind a junk oldest row that 9 mod 4 = 1 drops.
printf '%s\n' 1e6,1e6,1e6 0,-1,0 2,1,0 0,-1,0 2,1,0 -2,0,0 0,2,0 -2,0,0 0,2,0 >"$WORK/hand.csv"
compare "$WORK/hand.csv" 4
contains "$(cat "$WORK/got.json")" '"logits": [-1.0986122886681098, 1.0986122886681098'

"$FOX_PYTHON" "$REF" ppf-grid >"$WORK/p.txt"
"$SELECTION_CLI" --ppf <"$WORK/p.txt" >"$WORK/ppf.json"
run_rc 0 "$FOX_PYTHON" "$REF" ppf-check --grid "$WORK/p.txt" --got "$WORK/ppf.json"
echo "$OUT_TXT"

# Refusals, with the library's exit codes: bad data 3, bad usage 2.
printf '%s\n' 0.1,0.2 0.3,nan 0.1,0.1 0.2,0.3 >"$WORK/nan.csv"
run_rc 3 "$SELECTION_CLI" "$WORK/nan.csv" --blocks 2
contains "$ERR_TXT" "row 1, column 1"
run_rc 2 "$SELECTION_CLI" "$WORK/noise_2.csv" --blocks 5
contains "$ERR_TXT" "even number of blocks"
run_rc 3 "$SELECTION_CLI" "$WORK/hand.csv" --blocks 6
contains "$ERR_TXT" "per block"
printf '%s\n' 0.1,0.2 0.3 >"$WORK/ragged.csv"
run_rc 3 "$SELECTION_CLI" "$WORK/ragged.csv" --blocks 2
done_
