#!/usr/bin/env bash
# Bad input to `foxopt backtest`: wrong action counts and values (exit 3 with the line), bad
# settings and options (exit 2 naming the key), and an existing output file left untouched.
. "$(dirname "$0")/lib.sh"

"$FOXOPT" synth -o "$WORK/s.csv" --bars 5000 --seed 2 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
# val split of 5000 bars: U = 3559, val = floor(0.15 U) = 533 bars.
n=533
{ echo action; for _ in $(seq $n); do echo 0; done; } >"$WORK/hold.csv"
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --json
contains "$OUT_TXT" '"total_return": 0,'
contains "$OUT_TXT" '"trades": 0,'
contains "$OUT_TXT" '"bars": 533,'
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv"
contains "$OUT_TXT" "final_equity    quote ccy"

OUT="$WORK/exp.h5"
echo "precious" >"$OUT"
SUM=$(sha256sum "$OUT")
head -n 100 "$WORK/hold.csv" >"$WORK/short.csv"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/short.csv" --output "$OUT"
contains "$ERR_TXT" "short.csv:100: 99 actions, expected one per bar of the split (533)"
{ cat "$WORK/hold.csv"; echo 0; } >"$WORK/long.csv"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/long.csv" --output "$OUT"
contains "$ERR_TXT" "long.csv:535: too many actions"
sed '8s/.*/3/' "$WORK/hold.csv" >"$WORK/three.csv"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/three.csv" --output "$OUT"
contains "$ERR_TXT" "three.csv:8: expected an action 0 (hold), 1 (buy) or 2 (sell), got '3'"
sed '9s/.*/buy/' "$WORK/hold.csv" >"$WORK/word.csv"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/word.csv"
contains "$ERR_TXT" "word.csv:9:"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/nope.csv"
contains "$ERR_TXT" "nope.csv: cannot open"
run_rc 3 "$FOXOPT" backtest "$WORK/s.csv" --actions "$WORK/hold.csv"
contains "$ERR_TXT" "not an HDF5 file"
check "bad input leaves the old output untouched" test "$(sha256sum "$OUT")" = "$SUM"

run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --set market.feee=0.1
contains "$ERR_TXT" "unknown key 'market.feee'"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --set market.fee=-1
contains "$ERR_TXT" "market.fee = '-1': out of range"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --set barrier.horizon=2.5
contains "$ERR_TXT" "barrier.horizon = '2.5': expected an integer"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --set barrier.enforce=maybe
contains "$ERR_TXT" "true or false"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --set reward.scale=2
contains "$ERR_TXT" "unknown key 'reward.scale'"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --split holdout
contains "$ERR_TXT" "expected train, val or test"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --folds 300
contains "$ERR_TXT" "each fold needs >= 2"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --backend tpu
contains "$ERR_TXT" "expected auto, cpu or cuda"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5"
check "usage errors leave the old output untouched" test "$(sha256sum "$OUT")" = "$SUM"

# A dataset whose splits were edited by hand is refused (exit 3), not trusted.
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import h5py' 2>/dev/null; then
  cp "$WORK/s.h5" "$WORK/edited.h5"
  "$FOX_PYTHON" -c "import h5py,numpy; f=h5py.File('$WORK/edited.h5','r+'); f.attrs['split_val']=numpy.array([0,533],dtype='i8')"
  run_rc 3 "$FOXOPT" backtest "$WORK/edited.h5" --actions "$WORK/hold.csv"
  contains "$ERR_TXT" "edited.h5: splits"
  contains "$ERR_TXT" "must be consecutive"
fi

# output.experience levels: none writes no /experience, full adds states.
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --output "$WORK/none.h5" \
  --set output.experience=none
if command -v h5ls >/dev/null; then
  run_rc 0 h5ls -r "$WORK/none.h5"
  check "experience none: no /experience group" not grep -q experience "$WORK/out.txt"
  contains "$OUT_TXT" "/backtest/equity"
  run_rc 0 "$FOXOPT" info "$WORK/none.h5"
  contains "$OUT_TXT" "split          val, 533 bars, 1 fold"
  contains "$OUT_TXT" "experience     none"
  run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/hold.csv" --output "$WORK/sum.h5"
  run_rc 0 h5ls -r "$WORK/sum.h5"
  contains "$OUT_TXT" "/experience/barrier_labels"
  check "experience summary: no states" not grep -q states "$WORK/out.txt"
  run_rc 0 h5dump -p -d /experience/rewards "$WORK/sum.h5"
  contains "$OUT_TXT" "DEFLATE"
  contains "$OUT_TXT" "CHUNKED"
fi
done_
