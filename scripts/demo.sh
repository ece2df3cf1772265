#!/usr/bin/env bash
# Sets everything up and runs the demo: synthetic bars -> dataset.h5 -> what it holds -> one
# PPO trial (configs/trial.yaml, one epoch) -> its greedy policy backtested on the val split.
# Output goes to ${FOX_DEMO_DIR:-build/demo}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
out=${FOX_DEMO_DIR:-build/demo}
mkdir -p "$out"
fox=build/default/foxopt
$fox synth -o "$out/bars.csv" --bars 100000 --seed 1
$fox import "$out/bars.csv" -o "$out/dataset.h5"
$fox info "$out/dataset.h5"
$fox train configs/trial.yaml -o "$out/trial" --set data.path="$out/dataset.h5" \
  --set train.epochs=1
$fox backtest "$out/dataset.h5" --policy "$out/trial/trial.h5"
