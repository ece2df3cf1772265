#!/usr/bin/env bash
# Sets everything up and runs the demo: synthetic bars -> dataset.h5 -> what it holds -> the demo
# study (configs/demo.yaml: 12 DQN/PPO trials, TPE + successive halving, a minute or so on two
# cores) -> its report (table and PNG plots) -> the best trial's policy backtested on the test
# split. Output goes to ${FOX_DEMO_DIR:-build/demo}.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
out=${FOX_DEMO_DIR:-build/demo}
mkdir -p "$out"
fox=build/default/foxopt
$fox synth -o "$out/bars.csv" --bars 100000 --seed 1
$fox import "$out/bars.csv" -o "$out/dataset.h5"
$fox info "$out/dataset.h5"
rm -rf "$out/study"
$fox run configs/demo.yaml -o "$out/study" --set data.path="$out/dataset.h5"
$fox report "$out/study" --top 5
best=$($fox info "$out/study/study.h5" | sed -n 's/.*best *trial \([0-9]*\):.*/\1/p')
echo "== the best trial ($best) on the held-out test split"
$fox backtest "$out/dataset.h5" --study "$out/study" --trial "$best" --split test
