#!/usr/bin/env bash
# Live metrics (issue 26): OUTDIR/metrics.jsonl, one line per trial-epoch, and with
# output.tensorboard TensorBoard events under OUTDIR/tb/, checked against the trial files,
# after a stop and a resume (no line twice, none lost: the uninterrupted run's lines), on
# 2 ranks, under pbt (member runs), and read back by TensorBoard's own reader.
. "$(dirname "$0")/lib.sh"
need_python
if ! "$FOX_PYTHON" -c 'import tensorboard' 2>/dev/null; then
  # CI's setup installs it: a skip there would hide the check
  [ -n "${CI:-}" ] && { echo "FAIL: no tensorboard in .venv under CI (scripts/setup.sh --python)"; exit 1; }
  echo "skipped: no tensorboard in .venv (scripts/setup.sh --python)"
  exit 77
fi
CHECK="$FOX_PYTHON $(dirname "$0")/live_metrics.py"
judge() { # judge WHAT ARGS...: live_metrics.py's checks, counted
  if $CHECK "${@:2}" >"$WORK/judge.txt" 2>&1; then ok; else
    bad "$1: $(grep -v '^ok' "$WORK/judge.txt" | head -6)"; fi
  PASSED=$((PASSED + $(grep -c '^ok' "$WORK/judge.txt")))
}

"$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 --seed 3 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/st.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 4, episode_bars: 128}
train: {algo: dqn, epochs: 3, steps_per_epoch: 20000, seed: 7, backend: cpu}
dqn: {hidden: [8], learning_starts: 64, buffer_size: 512, batch_size: 16, target_update: 50}
output: {tensorboard: true}
study: {name: live, seed: 3, trials: 6, round_size: 3, sampler: random,
        objective: {metric: val.sharpe, direction: maximize},
        scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/ref"
judge "uninterrupted" "$WORK/ref" --tb

# stopped mid-trial, then resumed: every epoch once, as the uninterrupted run has them
stop_when "$WORK/st/state/trial-0-e1.h5" "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st"
check "the stopped run exits 75 ($RC)" [ "$RC" -eq 75 ]
lines=$(wc -l <"$WORK/st/metrics.jsonl")
printf '{"trial": 0, "repe' >>"$WORK/st/metrics.jsonl" # a line cut by a kill
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st" --resume
judge "stopped after $lines lines, resumed" "$WORK/st" "$WORK/ref" --tb
same_table "resumed" "$WORK/ref/trials.csv" "$WORK/st/trials.csv"

# a link in tb/ where a trial's events go: --resume takes the link away, never prunes or
# appends through it
cp -r "$WORK/ref" "$WORK/lk" && mkdir "$WORK/mine"
cp "$WORK/ref/tb/trial-0"/events.out.tfevents.* "$WORK/mine/events.out.tfevents.1.mine"
size=$(stat -c %s "$WORK/mine/events.out.tfevents.1.mine")
rm -r "$WORK/lk/tb/trial-0" && ln -s "$WORK/mine" "$WORK/lk/tb/trial-0"
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/lk" --resume
contains "$ERR_TXT" "$WORK/lk/tb/trial-0: not a directory of foxopt's"
check "a link in tb/: what it names untouched" \
  test "$(stat -c %s "$WORK/mine/events.out.tfevents.1.mine")" = "$size" -a \
  "$(ls "$WORK/mine" | wc -l)" = 1
check "a link in tb/: gone" not test -L "$WORK/lk/tb/trial-0"

# a rewrite a kill left in tb/ (TensorBoard would read it as a second file) goes with --resume;
# a user's file whose name only starts like a trial's stays
cp -r "$WORK/ref" "$WORK/kt"
cp "$WORK/kt/tb/trial-0"/events.out.tfevents.* "$WORK/kt/tb/trial-0/events.out.tfevents.9.vm.1.foxopt.tmp.77"
echo mine >"$WORK/kt/tb/trial-0-r0.notes"
# runs named as foxopt would not in this study (no repeats, ids without a leading 0): not its
cp -r "$WORK/kt/tb/trial-0" "$WORK/kt/tb/trial-1-r0" && cp -r "$WORK/kt/tb/trial-0" "$WORK/kt/tb/trial-01"
sum=$(cat "$WORK/kt/tb/trial-0"/events.* | cksum)
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/kt" --resume
check "a killed rewrite's events removed" not test -e "$WORK/kt/tb/trial-0/events.out.tfevents.9.vm.1.foxopt.tmp.77"
check "tb/trial-0-r0.notes kept" test -f "$WORK/kt/tb/trial-0-r0.notes"
for r in trial-1-r0 trial-01; do
  check "tb/$r: not foxopt's, its events untouched" test "$(cat "$WORK/kt/tb/$r"/events.* | cksum)" = "$sum"
done
rm -r "$WORK/kt/tb/trial-0-r0.notes" "$WORK/kt/tb/trial-1-r0" "$WORK/kt/tb/trial-01" # the checker reads every entry of tb/ as a run
judge "past a killed rewrite" "$WORK/kt" "$WORK/ref" --tb

# 2 ranks append to one file
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run_rc 0 mpirun -np 2 --oversubscribe "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/two"
judge "2 ranks" "$WORK/two" "$WORK/ref" --tb
check "2 ranks: both ranks wrote lines" [ "$(grep -c '"rank":1' "$WORK/two/metrics.jsonl")" -gt 0 ]
# a trial promoted to the other rank (timing decides whether one is) appends to its run's file
for r in "$WORK/two/tb"/*; do
  check "2 ranks: $(basename "$r") in one file" [ "$(ls "$r" | wc -l)" -eq 1 ]
done

# pbt: a run per member across its generations
sed -e 's/scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}/scheduler: {name: pbt, population: 4, interval: 1}/' \
    -e 's/trials: 6, round_size: 3/trials: 12, round_size: 4/' -e 's/steps_per_epoch: 20000/steps_per_epoch: 2048/' \
    "$WORK/st.yaml" >"$WORK/pbt.yaml"
run_rc 0 "$FOXOPT" run "$WORK/pbt.yaml" -o "$WORK/pbt"
judge "pbt" "$WORK/pbt" --tb
check "pbt: one TensorBoard run per member" [ "$(ls "$WORK/pbt/tb")" = "$(printf 'member-%d\n' 0 1 2 3)" ]
check "pbt: lines name member and generation" grep -q '"member":3,"generation":2' "$WORK/pbt/metrics.jsonl"

# a new study in a directory a dead run left metrics in: they go
mkdir -p "$WORK/dead/tb/trial-9" && echo '{"trial": 9}' >"$WORK/dead/metrics.jsonl"
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/dead" --set output.tensorboard=false
check "a dead run's trial-9 events removed" not test -e "$WORK/dead/tb"
check "no line of the dead run" not grep -q '"trial": 9' "$WORK/dead/metrics.jsonl"
judge "without tensorboard" "$WORK/dead" "$WORK/ref"
# a study-wide setting, not a parameter
{ cat "$WORK/st.yaml"; echo "  output.tensorboard: {values: [true, false]}"; } >"$WORK/srch.yaml"
run_rc 2 "$FOXOPT" run "$WORK/srch.yaml" -o "$WORK/srch"
contains "$ERR_TXT" "parameters.output.tensorboard: cannot be searched"
done_
