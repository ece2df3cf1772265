#!/usr/bin/env bash
# Sets everything up and runs the demo: synthetic bars with a learnable edge (--kind regimes) ->
# dataset.h5 -> what it holds -> the demo study (configs/demo.yaml: 60 DQN/PPO trials, TPE +
# successive halving, about half a minute on two cores) -> its report (table, how much is luck,
# the one-page report.html and each figure as SVG and PNG) -> the best trial's policy and
# buy-and-hold (backtest --buy-and-hold) on the untouched test split.
# Output goes to ${FOX_DEMO_DIR:-build/demo}. On `--kind walk` (no edge) the same study should
# not beat buy-and-hold, and the report's DSR should say that its best is luck.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
out=${FOX_DEMO_DIR:-build/demo}
mkdir -p "$out"
fox=build/default/foxopt
$fox synth -o "$out/bars.csv" --bars 100000 --seed 1 --kind regimes
$fox import "$out/bars.csv" -o "$out/dataset.h5"
$fox info "$out/dataset.h5"
rm -rf "$out/study"
$fox run configs/demo.yaml -o "$out/study" --set data.path="$out/dataset.h5"
$fox report "$out/study" --top 5 --html
best=$($fox info "$out/study/study.h5" | sed -n 's/.*best *trial \([0-9]*\):.*/\1/p')
echo "== the best trial ($best) on the held-out test split"
$fox backtest "$out/dataset.h5" --study "$out/study" --trial "$best" --split test
# Buy-and-hold on the same bars and market: bought at the first open, held to the last close.
echo "== buy-and-hold on the test split"
$fox backtest "$out/dataset.h5" --buy-and-hold --split test
echo "== the report to open first: $out/study/report.html (one self-contained page; each figure"
echo "   also as $out/study/NAME.svg and NAME.png)"
