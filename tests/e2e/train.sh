#!/usr/bin/env bash
# foxopt train end to end on synthetic bars: DQN (plain, Double, dueling) and PPO trials run,
# write trial.h5, print progress and --json metrics; the same seed gives identical weights and
# metrics; backtest --policy reproduces the recorded metrics exactly; bad configs are exit 2
# with FILE:LINE and the key. With `bitmex`: one default-sized epoch of each on the BitMEX year.
. "$(dirname "$0")/lib.sh"

if [ "${1:-}" = bitmex ]; then
  BM="$FOX_SHARED_DATA/bitmex_xbtusd_1m_2018.csv.gz"
  [ -r "$BM" ] || { echo "skipped: $BM not present"; exit 77; }
  "$FOXOPT" import "$BM" -o "$WORK/bm.h5" >/dev/null
  printf 'data: {path: %s}\ntrain: {epochs: 1}\n' "$WORK/bm.h5" >"$WORK/bm.yaml"
  for algo in dqn ppo; do
    run_rc 0 "$FOXOPT" train "$WORK/bm.yaml" -o "$WORK/$algo" --set train.algo=$algo --json
    contains "$OUT_TXT" '"status": "complete"'
    contains "$OUT_TXT" '"val.bars": 78623'
    contains "$ERR_TXT" "epoch   1/1"
  done
  done_
  exit
fi

"$FOXOPT" synth -o "$WORK/s.csv" --bars 12000 --seed 21 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/t.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: dqn, epochs: 2, steps_per_epoch: 4000, seed: 7}
dqn: {hidden: [32, 32], learning_starts: 500, buffer_size: 5000, batch_size: 32, target_update: 100}
ppo: {hidden: [32, 32], n_steps: 64}
YAML

# reproduces TRIAL.h5 TRAIN_JSON: backtest --policy prints the recorded metrics digit for digit.
reproduces() {
  local train_json=$2 bt m a b
  run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --policy "$1" --json
  bt=$(echo "$OUT_TXT" | sed 's/, "folds".*//')
  for m in total_return sharpe sortino max_drawdown annual_return trades win_rate exposure \
           final_equity; do
    a=$(echo "$train_json" | sed -n "s/.*\"val\.$m\": \([^,}]*\).*/\1/p")
    b=$(echo "$bt" | sed -n "s/.*\"$m\": \([^,}]*\).*/\1/p")
    check "backtest --policy reproduces val.$m ('$a' vs '$b')" test -n "$a" -a "$a" = "$b"
  done
}

for variant in "" "--set dqn.double=false" "--set dqn.dueling=true" "--set train.algo=ppo" \
               "--set dqn.activation=tanh --set dqn.init=orthogonal" \
               "--set train.algo=ppo --set ppo.activation=relu --set ppo.init=default"; do
  run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/a" $variant --json
  contains "$OUT_TXT" '"status": "complete", "epochs": 2'
  contains "$OUT_TXT" '"val.sharpe": '
  contains "$OUT_TXT" '"val.total_return": '
  contains "$ERR_TXT" "epoch   2/2"
  contains "$ERR_TXT" "env-steps/s"
  contains "$OUT_TXT" '"device": {"train": {"launches": '
  contains "$OUT_TXT" '"env_steps": 8000, "peak_bytes": '
  reproduces "$WORK/a/trial.h5" "$OUT_TXT"
  # the same seed again: identical weights and metrics
  run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/b" $variant --json
  if command -v h5diff >/dev/null; then
    check "same seed, same weights ($variant)" h5diff -q "$WORK/a/trial.h5" "$WORK/b/trial.h5" /weights
    check "same seed, same metrics ($variant)" h5diff -q "$WORK/a/trial.h5" "$WORK/b/trial.h5" /metrics
  fi
done

# The device counters: the CPU backend has no device, so nothing is launched or copied; a CUDA
# one (a GPU, or the emulation of a cuda-emu build) launches kernels, and its training loop lives
# on the device: nothing goes up, and per epoch one read of the loss accumulator and the DQN's
# clock behind it (3 doubles and 4 counters: 56 bytes, one wait) comes down (2 epochs here);
# the evaluation copies both ways.
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/cpu" --set train.backend=cpu --json
contains "$OUT_TXT" '"device": {"train": {"launches": 0, "graph_launches": 0, "copies": 0, "host_calls": 0, "kernels": 0, "syncs": 0, "h2d_bytes": 0, "d2h_bytes": 0}, "eval": {"launches": 0, "graph_launches": 0, "copies": 0, "host_calls": 0, "kernels": 0, "syncs": 0, "h2d_bytes": 0, "d2h_bytes": 0}, "env_steps": 8000, "peak_bytes": 0, "population": 1, "graphs_captured": 0, "graphs_replayed": 0}}'
if "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/cuda" --set train.backend=cuda --json \
    >"$WORK/cuda.json" 2>/dev/null; then
  echo "device counters on CUDA: $(sed 's/.*"device"/"device"/' "$WORK/cuda.json")"
  check "CUDA training launches kernels" grep -Eq '"train": \{"launches": [1-9]' "$WORK/cuda.json"
  check "CUDA training: no host-to-device copy, one 56-byte read and one wait per epoch" \
    grep -Fq '"syncs": 2, "h2d_bytes": 0, "d2h_bytes": 112}' "$WORK/cuda.json"
  check "CUDA training: the kernels ran as graphs (far fewer host calls than kernels)" \
    grep -Eq '"train": \{"launches": [0-9]+, "graph_launches": [1-9]' "$WORK/cuda.json"
  for k in launches h2d_bytes d2h_bytes; do
    check "CUDA evaluation counts $k" grep -Eq "\"eval\": \{[^}]*\"$k\": [1-9]" "$WORK/cuda.json"
  done
  check "CUDA peak memory counted" grep -Eq '"peak_bytes": [1-9]' "$WORK/cuda.json"
fi

# Networks record their activation; a trial.h5 from before it was a setting (no attribute, no
# key in its config) is a ReLU network and still reproduces its metrics.
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/old" --set train.algo=ppo \
  --set ppo.activation=relu --json
old_json=$OUT_TXT
contains "$(h5dump -a /weights/actor/activation "$WORK/old/trial.h5")" '"relu"'
contains "$(h5dump -a /weights/actor/activation "$WORK/a/trial.h5")" '"relu"'
if [ -n "${FOX_PYTHON:-}" ] && "$FOX_PYTHON" -c 'import h5py' 2>/dev/null; then
  "$FOX_PYTHON" - "$WORK/old/trial.h5" <<'PY'
import h5py, re, sys
with h5py.File(sys.argv[1], "r+") as f:
    for n in ("actor", "critic"):
        del f["weights"][n].attrs["activation"]
    text = f.attrs["config"]
    text = text.decode() if isinstance(text, bytes) else text
    text = re.sub(r"\n  (activation|init): [a-z]+", "", text)
    f.attrs["config"] = text.encode()
PY
  check "the old file has no activation key" not grep -q activation \
    <(h5dump -a /config "$WORK/old/trial.h5")
  reproduces "$WORK/old/trial.h5" "$old_json"
fi

run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/c"
run_rc 0 "$FOXOPT" info "$WORK/c/trial.h5"
contains "$OUT_TXT" "status         complete"
contains "$OUT_TXT" "network        q"
contains "$OUT_TXT" "total_return"
# a different seed trains a different network
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/d" --set train.seed=8
if command -v h5diff >/dev/null; then
  check "another seed, other weights" not h5diff -q "$WORK/c/trial.h5" "$WORK/d/trial.h5" /weights
  run_rc 0 h5ls -r "$WORK/c/trial.h5"
  for d in /weights/q /curve/eval /curve/loss /metrics; do contains "$OUT_TXT" "$d"; done
fi

# The documented example config loads and trains.
run_rc 0 "$FOXOPT" train "$FOX_SRC/configs/trial.yaml" -o "$WORK/example" \
  --set data.path="$WORK/s.h5" --set train.epochs=1 --set train.steps_per_epoch=12000
contains "$OUT_TXT" "wrote $WORK/example/trial.h5"

# A train split whose close never moves leaves reward.scale auto undefined: exit 3 naming the
# dataset, before anything is written; a number for reward.scale trains.
awk 'BEGIN { print "timestamp,open,high,low,close,volume"
  for (t = 0; t < 4000; t++) printf "%d,100,100,100,100,1\n", 1514764800 + 60 * t }' >"$WORK/flat.csv"
"$FOXOPT" import "$WORK/flat.csv" -o "$WORK/flat.h5" >/dev/null
printf 'data: {path: %s}\ntrain: {epochs: 1, steps_per_epoch: 12000}\n' "$WORK/flat.h5" >"$WORK/flat.yaml"
run_rc 3 "$FOXOPT" train "$WORK/flat.yaml" -o "$WORK/flatout"
contains "$ERR_TXT" "$WORK/flat.h5: reward.scale auto"
check "nothing written for a flat split" test ! -e "$WORK/flatout"
run_rc 0 "$FOXOPT" train "$WORK/flat.yaml" -o "$WORK/flatout" --set reward.scale=1

# Bad configs: exit 2, FILE:LINE and the key.
printf 'train:\n  algo: dqn\ndqn:\n  lr: -1\n' >"$WORK/bad1.yaml"
run_rc 2 "$FOXOPT" train "$WORK/bad1.yaml"
contains "$ERR_TXT" "bad1.yaml:4: dqn.lr = '-1': out of range"
printf 'ppo:\n  gamma: 2\n' >"$WORK/bad2.yaml"
run_rc 2 "$FOXOPT" train "$WORK/bad2.yaml"
contains "$ERR_TXT" "bad2.yaml:2: ppo.gamma"
printf 'train:\n  epochz: 3\n' >"$WORK/bad3.yaml"
run_rc 2 "$FOXOPT" train "$WORK/bad3.yaml"
contains "$ERR_TXT" "bad3.yaml:2: unknown key 'train.epochz'"
run_rc 2 "$FOXOPT" train "$WORK/t.yaml" --set env.num_envs=0
contains "$ERR_TXT" "env.num_envs = '0': out of range"
run_rc 2 "$FOXOPT" train "$WORK/missing.yaml"
contains "$ERR_TXT" "missing.yaml: cannot open config"
run_rc 2 "$FOXOPT" train "$WORK/t.yaml" --set train.algo=ppo --set ppo.n_steps=100000
contains "$ERR_TXT" "no rollout would finish"
run_rc 2 "$FOXOPT" train "$WORK/t.yaml" --set dqn.learning_starts=1000000
contains "$ERR_TXT" "no update would run"
run_rc 3 "$FOXOPT" train "$WORK/t.yaml" --set data.path="$WORK/nope.h5"
contains "$ERR_TXT" "nope.h5: cannot open a dataset"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/s.h5"
contains "$ERR_TXT" "not a trial file"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/c/trial.h5" --actions "$WORK/x.csv"
run_rc 0 "$FOXOPT" train --help
contains "$OUT_TXT" "exit codes"
done_
