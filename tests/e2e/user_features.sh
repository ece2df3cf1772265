#!/usr/bin/env bash
# Your own features (issue 26): `foxopt import` keeps a CSV's columns after the OHLCV ones as
# user features, refuses bad ones with FILE:LINE:COLUMN; data.features selects 10 built-in and 3
# user features by name; the trial trains on the CPU and (built with CUDA) on the device to the
# same weights and backtest; the trial file records its features; backtest --policy refuses a
# dataset without them, naming them; a trial of the 51 built-in features still loads; export
# carries the names and their statistics.
. "$(dirname "$0")/lib.sh"

"$FOXOPT" synth -o "$WORK/s.csv" --bars 6000 --seed 3 >/dev/null
# Three user columns: a slow sine, the bar's return in percent, a small integer cycle.
awk -F, 'BEGIN { OFS = "," }
  NR == 1 { print $0, "sig_a", "sig.b", "sig-c"; next }
  { print $0, sin(NR / 50.0), ($5 - $2) / $2 * 100, (NR % 7) - 3 }' "$WORK/s.csv" >"$WORK/u.csv"
run_rc 0 "$FOXOPT" import "$WORK/u.csv" -o "$WORK/u.h5"
contains "$OUT_TXT" "user features   3: sig_a sig.b sig-c"
run_rc 0 "$FOXOPT" info "$WORK/u.h5"
contains "$OUT_TXT" "features       54 raw f32"
contains "$OUT_TXT" "user features  3: sig_a sig.b sig-c"
run_rc 0 "$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5"

# The stored columns are the CSV's values in f32, after the 51 built-in ones.
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import numpy, h5py' 2>/dev/null; then
  if "$FOX_PYTHON" - "$WORK/u.h5" "$WORK/u.csv" "$WORK/s.h5" >"$WORK/py.txt" 2>&1 <<'PY'
import sys, h5py, numpy as np
u, csv, s = sys.argv[1:]
f, g = h5py.File(u, "r"), h5py.File(s, "r")
names = [x.decode() for x in f["feature_names"][:]]
assert names[51:] == ["sig_a", "sig.b", "sig-c"], names
assert names[:51] == [x.decode() for x in g["features"].attrs["names"]], "built-in names"
raw = np.loadtxt(csv, delimiter=",", skiprows=1)
x = f["features"][:]
assert x.shape == (6000, 54), x.shape
assert np.array_equal(x[:, 51:], raw[:, 6:9].astype(np.float32)), "user columns"
assert np.array_equal(np.nan_to_num(x[:, :51], nan=7), np.nan_to_num(g["features"][:], nan=7))
tr = slice(*f.attrs["split_train"])
mean = x[tr, 51:].astype(np.float64).mean(0)
assert np.allclose(f["norm/mean"][51:], mean, rtol=1e-5, atol=1e-7), (f["norm/mean"][51:], mean)
print("ok")
PY
  then ok; else bad "the stored user columns: $(cat "$WORK/py.txt")"; fi
fi

# Bad user columns: FILE:LINE:COLUMN, exit 3, nothing written.
head -3 "$WORK/u.csv" >"$WORK/bad.csv"
bad_row() { # bad_row NAME SED_EXPR EXPECTED
  sed "$2" "$WORK/bad.csv" >"$WORK/$1.csv"
  run_rc 3 "$FOXOPT" import "$WORK/$1.csv" -o "$WORK/$1.h5"
  contains "$ERR_TXT" "$3"
  check "$1: nothing written" test ! -e "$WORK/$1.h5"
}
bad_row nan '3s/,[^,]*$/,nan/' "$WORK/nan.csv:3:9: user column 'sig-c': NaN or infinite value, got 'nan'"
bad_row inf '2s/,[^,]*,\([^,]*\)$/,inf,\1/' "$WORK/inf.csv:2:8: user column 'sig.b': NaN or infinite value"
bad_row word '3s/,[^,]*,\([^,]*\),\([^,]*\)$/,abc,\1,\2/' \
  "$WORK/word.csv:3:7: user column 'sig_a': expected a finite number (f32 range), got 'abc'"
bad_row big '2s/,[^,]*$/,1e39/' "$WORK/big.csv:2:9: user column 'sig-c': expected a finite number (f32 range), got '1e39'"
bad_row short '3s/,[^,]*$//' "$WORK/short.csv:3: wrong columns: expected 9 fields (timestamp-ohlcv and the header's user columns), got 8"
bad_row dup '1s/sig-c/sig_a/' "$WORK/dup.csv:1:9: user column 'sig_a' appears twice (column 7)"
bad_row builtin '1s/sig_a/rsi_14/' "$WORK/builtin.csv:1:7: user column 'rsi_14' has a built-in feature's name"
bad_row space '1s/sig_a/my sig/' "$WORK/space.csv:1:7: user column name 'my sig': expected 1 to 63 of"
bad_row empty '1s/sig_a//' "$WORK/empty.csv:1:7: user column name '': expected 1 to 63 of"
# Without a header the extra columns have no names: refused, as before.
sed 1d "$WORK/bad.csv" >"$WORK/nohead.csv"
run_rc 3 "$FOXOPT" import "$WORK/nohead.csv" -o "$WORK/nohead.h5"
contains "$ERR_TXT" "a header of those 6 then user columns"

# Binance's own header (12 columns, close_time seventh) is Binance's: no user columns. A UTF-8
# byte order mark before the header is skipped. Past 256 user columns: the limit, named.
printf 'open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore\n' >"$WORK/bn.csv"
awk -F, 'NR > 1 { printf "%d000,%s,%s,%s,%s,%s,%d999,1,2,3,4,\n", $1, $2, $3, $4, $5, $6, $1 + 59 }' \
  "$WORK/s.csv" >>"$WORK/bn.csv"
run_rc 0 "$FOXOPT" import "$WORK/bn.csv" -o "$WORK/bn.h5"
contains "$OUT_TXT" "imported $WORK/bn.csv (binance-kline, header)"
check "Binance's columns are no user features" not grep -q "user features" "$WORK/out.txt"
{ printf '\xEF\xBB\xBF'; cat "$WORK/u.csv"; } >"$WORK/bom.csv"
run_rc 0 "$FOXOPT" import "$WORK/bom.csv" -o "$WORK/bom.h5"
contains "$OUT_TXT" "user features   3: sig_a sig.b sig-c"
awk -F, 'BEGIN { OFS = "," } NR <= 3 { s = $0; for (i = 1; i <= 257; i++) s = s "," (NR == 1 ? "c" i : i); print s }' \
  "$WORK/s.csv" >"$WORK/wide.csv"
run_rc 3 "$FOXOPT" import "$WORK/wide.csv" -o "$WORK/wide.h5"
contains "$ERR_TXT" "$WORK/wide.csv:1: 257 user columns, at most 256 are read"

# 10 built-in + 3 user features.
SEL="[ret_1, ret_5, ret_15, vol_60, ewm_vol, rsi_14, macd, bb_pctb, volume_z, tod_sin, sig_a, sig.b, sig-c]"
for algo in dqn ppo; do
  cat >"$WORK/$algo.yaml" <<YAML
data: {path: $WORK/u.h5, features: $SEL}
env: {num_envs: 8, episode_bars: 256}
train: {algo: $algo, epochs: 2, steps_per_epoch: 1024, seed: 5, backend: cpu}
dqn: {hidden: [16, 16], batch_size: 32, buffer_size: 2048, learning_starts: 64}
ppo: {hidden: [16, 16], n_steps: 32}
output: {experience: full}
YAML
  run_rc 0 "$FOXOPT" train "$WORK/$algo.yaml" -o "$WORK/$algo-cpu"
  run_rc 0 "$FOXOPT" backtest "$WORK/u.h5" --policy "$WORK/$algo-cpu/trial.h5" --json
  echo "$OUT_TXT" >"$WORK/$algo-cpu.json"
  # Its experience: states of 13 + 3 floats, read back by info against the file's features.
  run_rc 0 "$FOXOPT" backtest "$WORK/u.h5" --policy "$WORK/$algo-cpu/trial.h5" \
    --set output.experience=full --output "$WORK/$algo-bt.h5"
  run_rc 0 "$FOXOPT" info "$WORK/$algo-bt.h5"
  contains "$OUT_TXT" "full (with states)"
  if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import h5py' 2>/dev/null; then
    w=$("$FOX_PYTHON" -c 'import sys, h5py; print(h5py.File(sys.argv[1])["experience/states"].shape[1])' "$WORK/$algo-bt.h5")
    check "$algo: the backtest's states are 16 wide (got $w)" test "$w" = 16
  fi
  run_rc 0 "$FOXOPT" info "$WORK/$algo-cpu/trial.h5"
  contains "$OUT_TXT" "features       13: ret_1 ret_5 ret_15 vol_60 ewm_vol rsi_14 macd bb_pctb volume_z tod_sin sig_a sig.b sig-c"
  # A dataset without the user columns: refused, the missing ones named.
  run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/$algo-cpu/trial.h5"
  contains "$ERR_TXT" "$WORK/$algo-cpu/trial.h5: its features in $WORK/s.h5: the dataset lacks 3 features: sig_a, sig.b, sig-c"
  # Built with CUDA: the device trains the same trial.
  "$FOXOPT" train "$WORK/$algo.yaml" -o "$WORK/$algo-dev" --set train.backend=cuda \
    >"$WORK/dev.out" 2>"$WORK/dev.err"
  DEV_RC=$?
  if grep -q "no CUDA device is usable here\|built without CUDA" "$WORK/dev.err"; then
    echo "note: no CUDA backend in this build: the CPU side only"
  else
    check "$algo on the device: exit $DEV_RC: $(tail -2 "$WORK/dev.err")" test "$DEV_RC" -eq 0
    run_rc 0 "$FOXOPT" backtest "$WORK/u.h5" --policy "$WORK/$algo-dev/trial.h5" --json
    check "$algo: the device's backtest is the CPU's" test "$OUT_TXT" = "$(cat "$WORK/$algo-cpu.json")"
    if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import numpy, h5py' 2>/dev/null; then
      if "$FOX_PYTHON" - "$WORK/$algo-cpu/trial.h5" "$WORK/$algo-dev/trial.h5" >"$WORK/w.txt" 2>&1 <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r") for p in sys.argv[1:])
def leaves(g, pre=""):
    out = {}
    for k in g:
        out.update(leaves(g[k], pre + k + "/") if isinstance(g[k], h5py.Group) else {pre + k: g[k][()]})
    return out
wa, wb = leaves(a["weights"]), leaves(b["weights"])
assert wa.keys() == wb.keys()
worst = max(float(np.abs(wa[k] - wb[k]).max()) for k in wa)
assert worst < 1e-5, worst
print("weights within", worst)
PY
      then ok; else bad "$algo: CPU and device weights: $(cat "$WORK/w.txt")"; fi
    fi
  fi
done

# The trial file records its features, in order.
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import numpy, h5py' 2>/dev/null; then
  got=$("$FOX_PYTHON" -c 'import sys, h5py; print(",".join(x.decode() for x in h5py.File(sys.argv[1])["feature_names"][:]))' "$WORK/dqn-cpu/trial.h5")
  check "the trial's feature_names: $got" test "$got" = "ret_1,ret_5,ret_15,vol_60,ewm_vol,rsi_14,macd,bb_pctb,volume_z,tod_sin,sig_a,sig.b,sig-c"
fi

# A trial of the 51 built-in features loads and runs on the dataset with user columns too.
sed 's/, features: \[[^]]*\]//; s/algo: ppo/algo: dqn/' "$WORK/dqn.yaml" >"$WORK/b51.yaml"
run_rc 0 "$FOXOPT" train "$WORK/b51.yaml" -o "$WORK/b51"
run_rc 0 "$FOXOPT" backtest "$WORK/u.h5" --policy "$WORK/b51/trial.h5" --json
a=$OUT_TXT
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/b51/trial.h5" --json
check "a 51-feature policy backtests the same on both datasets" test "$a" = "$OUT_TXT"

# A trial file from before user features (no /feature_names, no data.features): the 51.
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import numpy, h5py' 2>/dev/null; then
  cp "$WORK/b51/trial.h5" "$WORK/old.h5"
  "$FOX_PYTHON" -c 'import sys, h5py; del h5py.File(sys.argv[1], "a")["feature_names"]' "$WORK/old.h5"
  run_rc 0 "$FOXOPT" backtest "$WORK/u.h5" --policy "$WORK/old.h5" --json
  check "an old 51-feature trial backtests as before" test "$a" = "$OUT_TXT"
fi

# Selection errors: an unknown name (exit 3, named), a name twice (exit 2).
run_rc 3 "$FOXOPT" train "$WORK/dqn.yaml" -o "$WORK/x1" --set "data.features=[ret_1, nope, sig_a, also_not]"
contains "$ERR_TXT" "data.features in $WORK/u.h5: the dataset lacks 2 features: nope, also_not"
run_rc 2 "$FOXOPT" train "$WORK/dqn.yaml" -o "$WORK/x2" --set "data.features=[ret_1, sig_a, ret_1]"
contains "$ERR_TXT" "data.features[2] = 'ret_1': given twice (item 0)"
run_rc 2 "$FOXOPT" train "$WORK/dqn.yaml" -o "$WORK/x3" --set "data.features=[ret 1]"
contains "$ERR_TXT" "expected a feature name"

# data.features: [] is the default; it cannot be searched.
run_rc 0 "$FOXOPT" train "$WORK/b51.yaml" -o "$WORK/b51e" --set "data.features=[]"
run_rc 0 "$FOXOPT" backtest "$WORK/u.h5" --policy "$WORK/b51e/trial.h5" --json
check "data.features=[] trains the 51" test "$a" = "$OUT_TXT"
cat >"$WORK/sf.yaml" <<YAML
data: {path: $WORK/u.h5}
train: {algo: dqn, epochs: 1, steps_per_epoch: 512, backend: cpu}
study: {name: sf, trials: 2, sampler: {name: grid}}
parameters:
  data.features: {values: [[rsi_14, sig_a], [ret_1, sig-c]]}
YAML
run_rc 2 "$FOXOPT" run "$WORK/sf.yaml" -o "$WORK/sf"
contains "$ERR_TXT" "data.features"
contains "$ERR_TXT" "every rank normalises one selection of the dataset's columns"

# A study over the 10 built-in + 3 user features: every trial records them; report reads them
# back; on the emulated device it makes the same table.
cat >"$WORK/st.yaml" <<YAML
data: {path: $WORK/u.h5, features: $SEL}
env: {num_envs: 4, episode_bars: 128}
train: {algo: ppo, epochs: 1, steps_per_epoch: 512, backend: cpu}
ppo: {hidden: [8], n_steps: 32}
study: {name: uf, seed: 2, trials: 3, round_size: 3}
parameters:
  ppo.lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0e-2}
YAML
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st"
# The same study on the device (built with CUDA): the same table.
"$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st-dev" --set train.backend=cuda >"$WORK/dev.out" \
  2>"$WORK/dev.err"
DEV_RC=$?
if ! grep -q "no CUDA device is usable here\|built without CUDA" "$WORK/dev.err"; then
  check "the study on the device: exit $DEV_RC: $(tail -2 "$WORK/dev.err")" test "$DEV_RC" -eq 0
  same_table "the study on the device" "$WORK/st/trials.csv" "$WORK/st-dev/trials.csv"
fi
run_rc 0 "$FOXOPT" report "$WORK/st" --no-plots --test
run_rc 0 "$FOXOPT" backtest "$WORK/u.h5" --study "$WORK/st" --trial 0
run_rc 0 "$FOXOPT" info "$WORK/st/dataset-0000.h5"
contains "$OUT_TXT" "6000 bars x 54 features (f32)"

# Export: the sidecar lists the trial's features and their statistics.
if "$FOXOPT" export "$WORK/dqn-cpu/trial.h5" --safetensors "$WORK/p.safetensors" >/dev/null 2>&1; then
  check "the sidecar names the user features" grep -q '"sig-c"' "$WORK/p.safetensors.json"
  check "the sidecar lists 13 features + 3 portfolio inputs" \
    test "$(grep -o '"kind": *"feature"' "$WORK/p.safetensors.json" | wc -l)" -eq 13
  run_rc 3 "$FOXOPT" export "$WORK/dqn-cpu/trial.h5" --data "$WORK/s.h5" --safetensors "$WORK/q.st"
  contains "$ERR_TXT" "the dataset lacks 3 features: sig_a, sig.b, sig-c"
fi
done_
