#!/usr/bin/env bash
# HDF5 files written or damaged by other tools (issue 12, classes 5 and 6): for every reader
# (dataset, trial, study, rank file, backtest experience) h5_cases.py makes copies of files
# foxopt wrote here, changed with h5py (truncated, superblock or object header damaged,
# datasets deleted, reshaped, retyped or replaced by groups, NaN/inf/negative values, string
# attributes rewritten in every form h5py writes), and each command must exit as listed with
# the file, dataset and index in its message; foreign string forms must read back whole.
. "$(dirname "$0")/lib.sh"
need_python

"$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 --seed 3 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
# the val split of 3000 bars: U = 1559, val = floor(0.15 U) = 233 bars
{ echo action; for i in $(seq 233); do echo $((i % 3)); done; } >"$WORK/a.csv"
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/a.csv" --output "$WORK/bt.h5" \
  --set output.experience=full
cat >"$WORK/t.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 4, episode_bars: 128}
train: {algo: dqn, epochs: 1, steps_per_epoch: 256, seed: 7, backend: cpu}
dqn: {hidden: [8], learning_starts: 64, buffer_size: 512, batch_size: 16, target_update: 50}
ppo: {hidden: [8], n_steps: 32}
YAML
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/tr"
# Random search over both agents: DQN rows have ppo.lr inactive (NaN) and dqn.lr active.
cat "$WORK/t.yaml" - >"$WORK/st.yaml" <<YAML
study: {name: h5, seed: 3, trials: 4, round_size: 4, sampler: random,
        objective: {metric: val.sharpe, direction: maximize}}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st"
check "the study has a DQN and a PPO trial" grep -q ',dqn,.*,ppo,\|,ppo,.*,dqn,' \
  <(tr '\n' ' ' <"$WORK/st/trials.csv")

"$FOX_PYTHON" "$(dirname "$0")/h5_cases.py" "$WORK" >"$WORK/cases.tsv" || bad "h5_cases.py failed"
n=0
while IFS=$'\t' read -r -a c; do
  name=${c[0]} want=${c[1]} text=${c[2]}
  run_rc "$want" "$FOXOPT" "${c[@]:3}"
  if [ "$want" -eq 0 ]; then
    contains "$OUT_TXT" "$text"
  else
    contains "$ERR_TXT" "$text"
    # damage is never reported as absence, nor does HDF5's stack reach the user
    case "$name" in
      *_header) check "$name: not 'missing'" not grep -q missing "$WORK/err.txt" ;;
    esac
    check "$name: one error" test "$(grep -c 'error:' "$WORK/err.txt")" -eq 1
    check "$name: no HDF5 stack" not grep -q HDF5-DIAG "$WORK/err.txt"
    # the user's words (issue 25): no source path, no HDF5 internals, no temporary name, and
    # one prefix
    check "$name: no HDF5 internals: $(cat "$WORK/err.txt")" \
      not grep -Eq 'src/|\.c:[0-9]|H5[A-Z]|sblock|eof = |no HDF5 message|\.tmp\.' "$WORK/err.txt"
    check "$name: one prefix" grep -Eq '^foxopt [a-z]+: error: [^:]' "$WORK/err.txt"
    check "$name: no second prefix" not grep -Eq 'error: (foxopt|info|report|backtest|run|train|export)( [a-z]+)?: ' "$WORK/err.txt"
  fi
  n=$((n + 1))
done <"$WORK/cases.tsv"
echo "$n cases"
check "the matrix has its cases" test "$n" -ge 90

# The issue's examples through the commands that met them. NaN std trained on zeros:
cp "$WORK/cases/dataset_std_nan.h5" "$WORK/nan.h5"
run_rc 3 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/nan" --set "data.path=$WORK/nan.h5"
contains "$ERR_TXT" "nan.h5: /norm/std[5] = nan"
check "no trial.h5 from a bad dataset" test ! -e "$WORK/nan/trial.h5"
# A 'cuda' trial written as NULLPAD read as 'cud' (exit 2, 'expected auto, cpu or cuda').
"$FOX_PYTHON" - "$WORK/tr/trial.h5" "$WORK/cuda.h5" <<'PY'
import shutil, sys
import h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    del f.attrs["backend"]
    f.attrs["backend"] = np.bytes_("cuda")  # fixed length 4, NULLPAD
PY
"$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/cuda.h5" >/dev/null 2>"$WORK/err.txt"
rc=$?
check "a NULLPAD 'cuda' runs on CUDA or names it (rc $rc)" test "$rc" -eq 0 -o "$rc" -eq 2
check "a NULLPAD 'cuda' is not read as 'cud'" not grep -q "'cud'" "$WORK/err.txt"
[ "$rc" -eq 2 ] && contains "$(cat "$WORK/err.txt")" "backend cuda: "
done_
