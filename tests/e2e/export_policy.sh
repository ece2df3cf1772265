#!/usr/bin/env bash
# foxopt export --onnx / --safetensors (issue 26): DQN (plain and dueling, ReLU) and PPO (tanh)
# policies from trial.h5 and from a study's trial, judged by export_policy.py against onnx's
# checker, onnxruntime, the safetensors package and a NumPy forward pass; and the refusals.
. "$(dirname "$0")/lib.sh"
need_python
if ! "$FOX_PYTHON" -c 'import onnx, onnxruntime, safetensors' 2>/dev/null; then
  echo "skipped: no onnx, onnxruntime and safetensors in .venv (scripts/setup.sh --python)"
  exit 77
fi
if "$FOXOPT" export x --onnx /dev/null 2>&1 | grep -q "built without protobuf-c"; then
  echo "skipped: this foxopt was built without protobuf-c (export --onnx)"
  exit 77
fi

"$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 --seed 5 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
common="data: {path: $WORK/s.h5}
env: {num_envs: 4, episode_bars: 128}"
cat >"$WORK/dqn.yaml" <<YAML
$common
train: {algo: dqn, epochs: 1, steps_per_epoch: 2048, seed: 7, backend: cpu}
dqn: {hidden: [32, 16], learning_starts: 64, buffer_size: 512, batch_size: 16, target_update: 50}
YAML
sed 's/target_update: 50}/target_update: 50, dueling: true}/' "$WORK/dqn.yaml" >"$WORK/duel.yaml"
cat >"$WORK/ppo.yaml" <<YAML
$common
train: {algo: ppo, epochs: 1, steps_per_epoch: 2048, seed: 7, backend: cpu}
ppo: {hidden: [32, 32], n_steps: 32}
YAML
for k in dqn duel ppo; do
  run_rc 0 "$FOXOPT" train "$WORK/$k.yaml" -o "$WORK/$k"
  run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/$k/trial.h5" --split train \
    --set output.experience=full --output "$WORK/$k-bt.h5"
  run_rc 0 "$FOXOPT" export "$WORK/$k/trial.h5" --onnx "$WORK/$k.onnx" \
    --safetensors "$WORK/$k.safetensors"
  contains "$OUT_TXT" "wrote $WORK/$k.onnx: the greedy"
  contains "$OUT_TXT" "wrote $WORK/$k.onnx.json"
  if "$FOX_PYTHON" "$(dirname "$0")/export_policy.py" "$WORK/$k/trial.h5" "$WORK/$k-bt.h5" \
      "$WORK/s.h5" "$WORK/$k.onnx" "$WORK/$k.safetensors" >"$WORK/$k.txt" 2>&1; then ok; else
    bad "$k: $(grep -v '^ok' "$WORK/$k.txt" | head -5)"
  fi
  PASSED=$((PASSED + $(grep -c '^ok' "$WORK/$k.txt")))
done

# From a study: trial 1's policy, the one `backtest --study --trial 1` runs
cat "$WORK/dqn.yaml" - >"$WORK/st.yaml" <<YAML
study: {name: ex, seed: 3, trials: 2, round_size: 2, sampler: random,
        objective: {metric: val.sharpe, direction: maximize}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st"
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/st" --trial 1 --split train \
  --set output.experience=full --output "$WORK/st-bt.h5"
run_rc 0 "$FOXOPT" export "$WORK/st" --trial 1 --onnx "$WORK/st.onnx" --safetensors "$WORK/st.st"
if "$FOX_PYTHON" "$(dirname "$0")/export_policy.py" "$WORK/st/trials/1.h5" "$WORK/st-bt.h5" \
    "$WORK/s.h5" "$WORK/st.onnx" "$WORK/st.st" >"$WORK/st.txt" 2>&1; then ok; else
  bad "study trial 1: $(grep -v '^ok' "$WORK/st.txt" | head -5)"
fi
# --data: another copy of the dataset
cp "$WORK/s.h5" "$WORK/copy.h5"
run_rc 0 "$FOXOPT" export "$WORK/dqn/trial.h5" --onnx "$WORK/c.onnx" --data "$WORK/copy.h5"
check "--data: the sidecar names the copy" grep -q "\"dataset\": \"$WORK/copy.h5\"" "$WORK/c.onnx.json"

# Refusals
run_rc 2 "$FOXOPT" export "$WORK/st" --onnx "$WORK/x.onnx"
contains "$ERR_TXT" "is a study: --trial ID says which trial's policy"
run_rc 2 "$FOXOPT" export "$WORK/dqn/trial.h5" --trial 0 --onnx "$WORK/x.onnx"
contains "$ERR_TXT" "--trial goes with a study's OUTDIR"
run_rc 2 "$FOXOPT" export "$WORK/st" --optuna "$WORK/j.log" --onnx "$WORK/x.onnx"
contains "$ERR_TXT" "one kind at a time"
run_rc 2 "$FOXOPT" export "$WORK/dqn/trial.h5"
contains "$ERR_TXT" "what to write"
run_rc 2 "$FOXOPT" export "$WORK/st" --trial 1 --onnx "$WORK/st/trials/1.h5"
contains "$ERR_TXT" "would replace a file of the study"
run_rc 2 "$FOXOPT" export "$WORK/dqn/trial.h5" --onnx "$WORK/dqn/trial.h5"
contains "$ERR_TXT" "an input of this command"
run_rc 3 "$FOXOPT" export "$WORK/st" --trial 9 --onnx "$WORK/x.onnx"
contains "$ERR_TXT" "no trial 9"
run_rc 3 "$FOXOPT" export "$WORK/dqn/trial.h5" --onnx "$WORK/x.onnx" --data "$WORK/s.csv"
contains "$ERR_TXT" "$WORK/s.csv: not an HDF5 file"
mv "$WORK/s.h5" "$WORK/moved.h5"
run_rc 3 "$FOXOPT" export "$WORK/dqn/trial.h5" --onnx "$WORK/x.onnx"
contains "$ERR_TXT" "--data DATA.h5 names another copy"
check "no model left by a refused export" not test -e "$WORK/x.onnx"
done_
