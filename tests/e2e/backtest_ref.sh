#!/usr/bin/env bash
# `foxopt backtest` against the independent market and metrics reference
# (tests/ref/market_ref.py, written from DESIGN.md s5/s6 and cross-checked with empyrical):
# random action sequences on real BitMEX bars (when ../shared/data is there) and on synthetic
# bars, one fold and walk-forward folds, default and changed market/barrier settings.
. "$(dirname "$0")/lib.sh"
need_python
REF="$FOX_SRC/tests/ref/market_ref.py"
backend=${FOX_BACKTEST_BACKEND:-cpu}

split_bars() { # split_bars DATA.h5 SPLIT
  "$FOX_PYTHON" -c "import h5py,sys; b,e=h5py.File(sys.argv[1])['/'].attrs['split_'+sys.argv[2]]; print(e-b)" "$1" "$2"
}

scenario() { # scenario DATA.h5 SPLIT SEED FOLDS [--set k=v]...
  local data=$1 split=$2 seed=$3 folds=$4; shift 4
  local n; n=$(split_bars "$data" "$split")
  "$FOX_PYTHON" "$REF" gen-actions --n "$n" --seed "$seed" -o "$WORK/a.csv" --p-buy 0.01 --p-sell 0.01
  run_rc 0 "$FOXOPT" backtest "$data" --actions "$WORK/a.csv" --split "$split" --folds "$folds" \
    --backend "$backend" --json --output "$WORK/exp.h5" --set output.experience=full "$@"
  echo "$OUT_TXT" >"$WORK/got.json"
  run_rc 0 "$FOX_PYTHON" "$REF" check --h5 "$data" --actions "$WORK/a.csv" --split "$split" \
    --folds "$folds" --got-json "$WORK/got.json" --got-exp "$WORK/exp.h5" "$@"
  [ "$RC" -eq 0 ] || echo "$OUT_TXT" | grep -v " ok$" | tail -20 >&2
}

"$FOXOPT" synth -o "$WORK/s.csv" --bars 40000 --seed 9 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
scenario "$WORK/s.h5" val 1 1
# --buy-and-hold: a BUY after each fold's first bar and nothing else (read back from the
# experience file), the barriers off whatever --set says, and the reference's market and metrics
# on those actions agree.
for folds in 1 3; do
  run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --buy-and-hold --split test --folds "$folds" \
    --backend "$backend" --json --output "$WORK/bh.h5" --set output.experience=full \
    --set barrier.enforce=true
  echo "$OUT_TXT" >"$WORK/bh.json"
  "$FOX_PYTHON" - "$WORK/bh.h5" "$WORK/bh.json" "$WORK/bh.csv" "$folds" <<'PY' && ok || bad "buy-and-hold's actions ($folds folds)"
import json, sys
import h5py, numpy as np
a = h5py.File(sys.argv[1], "r")["experience/actions"][:].astype(int).ravel()
j = json.load(open(sys.argv[2]))
starts = [f["begin"] for f in j["folds"]]
assert len(starts) == int(sys.argv[4]), starts
first = starts[0]
want = np.zeros_like(a)
want[[b - first for b in starts]] = 1
assert (a == want).all(), (np.nonzero(a)[0][:10], starts)
assert all(f["trades"] == 1 and f["exposure"] > 0.99 for f in j["folds"]), j["folds"]
open(sys.argv[3], "w").write("action\n" + "\n".join(map(str, a)) + "\n")
PY
  run_rc 0 "$FOX_PYTHON" "$REF" check --h5 "$WORK/s.h5" --actions "$WORK/bh.csv" --split test \
    --folds "$folds" --got-json "$WORK/bh.json" --got-exp "$WORK/bh.h5" --set barrier.enforce=false
done
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --buy-and-hold --actions "$WORK/bh.csv"
contains "$ERR_TXT" "one of --actions FILE, --buy-and-hold, --policy TRIAL.h5"
scenario "$WORK/s.h5" test 2 5 --set market.spread=0 --set market.fee=0 --set barrier.horizon=15
scenario "$WORK/s.h5" train 3 7 --set barrier.enforce=false --set barrier.bonus=0.01 \
  --set market.fee=0.001 --set market.cash_reserve=0
scenario "$WORK/s.h5" val 4 3 --set barrier.pt=0.5 --set barrier.sl=0.5 --set barrier.bonus=0.05

BM="$FOX_SHARED_DATA/bitmex_xbtusd_1m_2018.csv.gz"
if [ -r "$BM" ]; then
  "$FOXOPT" import "$BM" -o "$WORK/bm.h5" >/dev/null
  scenario "$WORK/bm.h5" val 11 1
  scenario "$WORK/bm.h5" test 12 4 --set market.initial_capital=250000 --set barrier.horizon=240
else
  echo "note: $BM not present, BitMEX scenarios skipped"
fi
done_
