#!/usr/bin/env bash
# The Optuna workflow (issue 27). More trials for a finished study: `run --resume --set
# study.trials=N` with a larger N continues it, with or without CONFIG.yaml: its rows so far stay
# as they were and the new ones follow, the same on 1 and 3 ranks; fewer trials, another key, or
# more trials for pbt are refused (exit 2) and change nothing. study.timeout: a run starts no
# work after T seconds, exits 75, and resumes to the uninterrupted table (1 and 3 ranks).
# enqueue: the given parameter sets are the first trials, exactly; bad sets name FILE:LINE.
. "$(dirname "$0")/lib.sh"
MPIEXEC=${FOX_MPIEXEC:-mpiexec}
export PMIX_MCA_psec=native

branin_sh_yaml ext 3 20 4 6 >"$WORK/f.yaml"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/ref"
check "the reference has 20 trials" test "$(tail -n +2 "$WORK/ref/trials.csv" | wc -l)" -eq 20

# 20, then 30 with the config, then 40 without it.
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/a"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/a" --resume --set study.trials=30
check "30 trials after the extension" test "$(tail -n +2 "$WORK/a/trials.csv" | wc -l)" -eq 30
table "$WORK/ref/trials.csv" >"$WORK/ref.t"
table "$WORK/a/trials.csv" | head -21 >"$WORK/a20.t"
check "the first 20 rows are the study's before" cmp -s "$WORK/ref.t" "$WORK/a20.t"
check "every new trial ran" not grep -q ",running," "$WORK/a/trials.csv"
run_rc 0 "$FOXOPT" info "$WORK/a/study.h5"
contains "$OUT_TXT" "study.trials=30"
cp "$WORK/a/trials.csv" "$WORK/a30.csv"
run_rc 0 "$FOXOPT" run -o "$WORK/a" --resume --set study.trials=40
check "40 trials after the second" test "$(tail -n +2 "$WORK/a/trials.csv" | wc -l)" -eq 40
table "$WORK/a30.csv" >"$WORK/a30.t"
table "$WORK/a/trials.csv" | head -31 >"$WORK/a40.t"
check "the first 30 rows stay" cmp -s "$WORK/a30.t" "$WORK/a40.t"
# times() CSV: each row's start,end (found by name); the old rows keep the times they ran at,
# and the 10 new ones ran after them (ISO 8601 UTC sorts as text).
times() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "start") s = i; if ($i == "end") e = i }; next }
           { print $s "," $e }' "$1"
}
check "the first 30 rows keep their start and end" \
  cmp -s <(times "$WORK/a30.csv") <(times "$WORK/a/trials.csv" | head -30)
last=$(times "$WORK/a30.csv" | cut -d, -f2 | sort | tail -1)
first=$(times "$WORK/a/trials.csv" | tail -10 | cut -d, -f1 | sort | head -1)
check "the new rows started after the old ones ended ($last < $first)" \
  test -n "$last" -a "$(printf '%s\n%s\n' "$last" "$first" | sort | head -1)" = "$last" -a "$last" != "$first"
# A plain resume of the extended study has nothing to do; the report reads it.
run_rc 0 "$FOXOPT" run -o "$WORK/a" --resume
run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots
contains "$OUT_TXT" "40"

# Refused, and nothing changes.
cp "$WORK/a/trials.csv" "$WORK/before.csv"
run_rc 2 "$FOXOPT" run -o "$WORK/a" --resume --set study.trials=35
contains "$ERR_TXT" "study.trials 35: the study in $WORK/a runs 40 trials (40 made); a resume may add trials, never take them away"
run_rc 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/a" --resume
contains "$ERR_TXT" "study.trials 20: the study in $WORK/a runs 40 trials"
run_rc 2 "$FOXOPT" run -o "$WORK/a" --resume --set train.epochs=3
contains "$ERR_TXT" "only study.trials=N (more trials) and study.timeout=T may be given"
run_rc 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/a" --resume --set study.trials=50 \
  --set study.seed=4
contains "$ERR_TXT" "--resume with another config or other --set overrides than the study's"
check "the refusals changed nothing" cmp -s "$WORK/before.csv" "$WORK/a/trials.csv"

# 3 ranks: the same table through the same extension.
if command -v "$MPIEXEC" >/dev/null; then
  run_rc 0 "$MPIEXEC" -n 3 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/m"
  run_rc 0 "$MPIEXEC" -n 3 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/m" --resume \
    --set study.trials=30
  table "$WORK/m/trials.csv" >"$WORK/m.t"
  check "3 ranks extend to the same 30 rows" cmp -s "$WORK/a30.t" "$WORK/m.t"
fi

# study.timeout: runs of about a second each until the study is done, then the same table.
SLOW=(--set study.objective.seconds=0.05 --set study.timeout=1)
"$FOXOPT" run "$WORK/f.yaml" -o "$WORK/t" "${SLOW[@]}" >/dev/null 2>"$WORK/t.err"
RC=$?
check "a timed-out run exits 75 (got $RC)" test "$RC" -eq 75
contains "$(cat "$WORK/t.err")" "stopped at study.timeout (1 s) with "
contains "$(cat "$WORK/t.err")" "continue with: foxopt run --resume -o $WORK/t"
made=$(tail -n +2 "$WORK/t/trials.csv" | wc -l)
check "it stopped part-way ($made rows)" test "$made" -lt 20
for i in $(seq 40); do
  "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/t" --resume "${SLOW[@]}" >/dev/null 2>&1
  RC=$?
  [ "$RC" -eq 75 ] || break
done
check "the last resume finishes (exit $RC)" test "$RC" -eq 0
same_table "study.timeout and resumes" "$WORK/ref/trials.csv" "$WORK/t/trials.csv"
# Without CONFIG.yaml the timeout may change too: 0 lifts it.
"$FOXOPT" run "$WORK/f.yaml" -o "$WORK/t2" "${SLOW[@]}" >/dev/null 2>&1
run_rc 0 "$FOXOPT" run -o "$WORK/t2" --resume --set study.timeout=0
same_table "study.timeout lifted on resume" "$WORK/ref/trials.csv" "$WORK/t2/trials.csv"
if command -v "$MPIEXEC" >/dev/null; then
  "$MPIEXEC" -n 3 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/tm" "${SLOW[@]}" >/dev/null 2>&1
  RC=$?
  check "3 ranks time out with 75 (got $RC)" test "$RC" -eq 75
  for i in $(seq 40); do
    "$MPIEXEC" -n 3 "$FOXOPT" run -o "$WORK/tm" --resume >/dev/null 2>&1
    RC=$?
    [ "$RC" -eq 75 ] || break
  done
  check "3 ranks: the last resume finishes (exit $RC)" test "$RC" -eq 0
  same_table "3 ranks with study.timeout" "$WORK/ref/trials.csv" "$WORK/tm/trials.csv"
fi

# enqueue: three sets first (Branin's three minima), then the sampler's; the same on 3 ranks.
sed -e 's/trials: 20/trials: 12/' "$WORK/f.yaml" >"$WORK/q.yaml"
cat >>"$WORK/q.yaml" <<YAML
enqueue:
  - {x0: 3.14159, x1: 2.275}
  - {x0: -3.14159, x1: 12.275}
  - {x0: 9.42478, x1: 2.475}
YAML
run_rc 0 "$FOXOPT" run "$WORK/q.yaml" -o "$WORK/q"
col() { # col NAME: the column NAME of trials.csv (found by name)
  awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next } { print $c }' "$WORK/q/trials.csv"
}
got=$(paste -d, <(col x0) <(col x1) | head -3 | tr '\n' ' ')
check "the enqueued sets are trials 0-2: $got" test "$got" = "3.14159,2.275 -3.14159,12.275 9.42478,2.475 "
check "12 trials" test "$(tail -n +2 "$WORK/q/trials.csv" | wc -l)" -eq 12
check "the enqueued trials reach Branin's minimum" test "$(col value | awk 'NR == 1 { print ($1 < 0.3979) }')" = 1
if command -v "$MPIEXEC" >/dev/null; then
  run_rc 0 "$MPIEXEC" -n 3 "$FOXOPT" run "$WORK/q.yaml" -o "$WORK/qm"
  same_table "enqueue on 3 ranks" "$WORK/q/trials.csv" "$WORK/qm/trials.csv"
fi
bad_q() { # bad_q NAME SED EXPECTED
  sed "$2" "$WORK/q.yaml" >"$WORK/$1.yaml"
  run_rc 2 "$FOXOPT" run "$WORK/$1.yaml" -o "$WORK/$1"
  contains "$ERR_TXT" "$3"
  check "$1: nothing made" test ! -e "$WORK/$1"
}
line=$(grep -n "x1: 2.475" "$WORK/q.yaml" | cut -d: -f1)
bad_q unknown 's/x1: 2.475}/x1: 2.475, x2: 1}/' "$WORK/unknown.yaml:$line: enqueue[2].x2: not a parameter of the study"
bad_q range 's/x1: 2.475}/x1: 20}/' "$WORK/range.yaml:$line: enqueue[2].x1 = 20: expected a number in [0, 15]"
bad_q missing 's/, x1: 2.475}/}/' "$WORK/missing.yaml:$line: enqueue[2]: parameters.x1 is not given"
bad_q notmap 's/^  - {x0: 9.42478, x1: 2.475}/  - 5/' "enqueue[2]: expected a mapping of parameters to values"
# An agent study: categorical and conditional keys.
"$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 --seed 5 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/ag.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 4, episode_bars: 128}
train: {epochs: 1, steps_per_epoch: 512, backend: cpu}
dqn: {hidden: [8], learning_starts: 64, buffer_size: 256, batch_size: 16}
ppo: {hidden: [8], n_steps: 32}
study: {name: ag, seed: 2, trials: 3, round_size: 3}
parameters:
  train.algo: {distribution: categorical, values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0e-2}
  ppo.hidden: {distribution: categorical, values: [[8], [16, 16]]}
enqueue:
  - {train.algo: ppo, ppo.hidden: [16, 16]}
  - {train.algo: dqn, dqn.lr: 0.005}
YAML
run_rc 0 "$FOXOPT" run "$WORK/ag.yaml" -o "$WORK/ag"
contains "$(sed -n 2p "$WORK/ag/trials.csv")" "ppo,,\"[16, 16]\""
contains "$(sed -n 3p "$WORK/ag/trials.csv")" "dqn,0.005,"
sed 's/{train.algo: dqn, dqn.lr: 0.005}/{train.algo: dqn, dqn.lr: 0.005, ppo.hidden: [8]}/' \
  "$WORK/ag.yaml" >"$WORK/ag2.yaml"
run_rc 2 "$FOXOPT" run "$WORK/ag2.yaml" -o "$WORK/ag2"
contains "$ERR_TXT" "enqueue[1].ppo.hidden: not active under this set's train.algo"
sed 's/ppo.hidden: \[16, 16\]}/ppo.hidden: [32]}/' "$WORK/ag.yaml" >"$WORK/ag3.yaml"
run_rc 2 "$FOXOPT" run "$WORK/ag3.yaml" -o "$WORK/ag3"
contains "$ERR_TXT" "enqueue[0].ppo.hidden = [32]: expected one of its values: [8], [16, 16]"

# A smaller count than the study runs is refused even while it has made fewer (the original
# command after an extension must not undo it), and a requeue script repeating its --set adds
# nothing to the stored overrides.
"$FOXOPT" run "$WORK/f.yaml" -o "$WORK/u" "${SLOW[@]}" >/dev/null 2>&1
run_rc 75 "$FOXOPT" run -o "$WORK/u" --resume --set study.trials=30
run_rc 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/u" --resume "${SLOW[@]}"
contains "$ERR_TXT" "study.trials 20: the study in $WORK/u runs 30 trials"
for i in 1 2 3; do "$FOXOPT" run -o "$WORK/u" --resume --set study.timeout=1 >/dev/null 2>&1; done
run_rc 0 "$FOXOPT" info "$WORK/u/study.h5"
check "one study.timeout line in the stored overrides" test "$(grep -c 'study.timeout=' "$WORK/out.txt")" -eq 1
check "one study.trials line in the stored overrides" test "$(grep -c 'study.trials=' "$WORK/out.txt")" -eq 1
# A timeout shorter than any step still makes a step a run: the study ends.
"$FOXOPT" run "$WORK/f.yaml" -o "$WORK/v" --set study.timeout=1e-9 >/dev/null 2>&1
for i in $(seq 60); do
  "$FOXOPT" run -o "$WORK/v" --resume >/dev/null 2>&1
  RC=$?
  [ "$RC" -eq 75 ] || break
done
check "a 1e-9 s timeout still ends (exit $RC after $i resumes)" test "$RC" -eq 0
same_table "a 1e-9 s timeout" "$WORK/ref/trials.csv" "$WORK/v/trials.csv"
# enqueue with the grid sampler: refused; a fixed parameter need not be named.
sed -e 's/sampler: {name: tpe, n_startup_trials: 6}/sampler: {name: grid}/' \
  -e 's/x0: {distribution: uniform, min: -5, max: 10}/x0: {values: [-5, 0, 5]}/' \
  -e 's/x1: {distribution: uniform, min: 0, max: 15}/x1: {values: [0, 15]}/' "$WORK/f.yaml" >"$WORK/g.yaml"
printf 'enqueue:\n  - {x0: 5, x1: 15}\n' >>"$WORK/g.yaml"
run_rc 2 "$FOXOPT" run "$WORK/g.yaml" -o "$WORK/g"
contains "$ERR_TXT" "enqueue: the grid sampler runs every point of the grid once"
sed -e 's/x1: {distribution: uniform, min: 0, max: 15}/x1: {value: 2.275}/' \
  -e 's/trials: 20/trials: 3/' "$WORK/f.yaml" >"$WORK/fx.yaml"
printf 'enqueue:\n  - {x0: 3.14159}\n' >>"$WORK/fx.yaml"
run_rc 0 "$FOXOPT" run "$WORK/fx.yaml" -o "$WORK/fx"
contains "$(sed -n 2p "$WORK/fx/trials.csv")" ",3.14159,2.275,"

# pbt: its trials are population x generations.
cat >"$WORK/p.yaml" <<YAML
train: {epochs: 4}
study:
  name: p
  seed: 1
  trials: 8
  objective: {function: branin, direction: minimize}
  scheduler: {name: pbt, population: 4, interval: 2}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
run_rc 0 "$FOXOPT" run "$WORK/p.yaml" -o "$WORK/p"
run_rc 2 "$FOXOPT" run -o "$WORK/p" --resume --set study.trials=12
contains "$ERR_TXT" "a pbt study's trials are its population x generations"

# An agent study extended on other bars at data.path: refused (exit 3) before anything of the
# run is written, naming the file; with its dataset back, it goes on.
tiny_agent_fixture
cp "$WORK/s.h5" "$WORK/d.h5"
sed "s|$WORK/s.h5|$WORK/d.h5|" "$WORK/t.yaml" >"$WORK/db.yaml"
cat >>"$WORK/db.yaml" <<YAML
study: {name: db, seed: 3, trials: 2, round_size: 2, sampler: random,
        objective: {metric: val.sharpe, direction: maximize}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
run_rc 0 "$FOXOPT" run "$WORK/db.yaml" -o "$WORK/db"
"$FOXOPT" synth -o "$WORK/o.csv" --bars 3000 --seed 4 >/dev/null
"$FOXOPT" import "$WORK/o.csv" -o "$WORK/d.h5" >/dev/null
sums() { (cd "$WORK/db" && cksum study.h5 trials.csv dataset-0000.h5 rank-0000.h5); }
before=$(sums)
run_rc 3 "$FOXOPT" run -o "$WORK/db" --resume --set study.trials=3
contains "$ERR_TXT" "$WORK/d.h5: not the bars this study began with"
check "other bars: the study's files untouched" test "$(sums)" = "$before"
# the same bars imported again with other splits: the normalisation, the train and val ranges
# differ (a sum of its own)
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/d.h5" --split 0.6,0.2,0.2 >/dev/null
run_rc 3 "$FOXOPT" run -o "$WORK/db" --resume --set study.trials=3
contains "$ERR_TXT" "$WORK/d.h5: the bars this study began with, but other splits"
check "other splits: the study's files untouched" test "$(sums)" = "$before"
cp "$WORK/s.h5" "$WORK/d.h5"
run_rc 0 "$FOXOPT" run -o "$WORK/db" --resume --set study.trials=3
check "its bars back: 3 trials" test "$(tail -n +2 "$WORK/db/trials.csv" | wc -l)" -eq 3
# a study made before study.h5 recorded its dataset: its copy (dataset-0000.h5) holds the bars
if "${FOX_PYTHON:-false}" -c 'import h5py' 2>/dev/null; then
  cp -r "$WORK/db" "$WORK/dbold"
  "$FOX_PYTHON" -c 'import h5py, sys
with h5py.File(sys.argv[1], "r+") as f:
    del f.attrs["data_bars"], f.attrs["data_crc32"]' "$WORK/dbold/study.h5"
  "$FOXOPT" import "$WORK/o.csv" -o "$WORK/d.h5" >/dev/null
  run_rc 3 "$FOXOPT" run -o "$WORK/dbold" --resume --set study.trials=4
  contains "$ERR_TXT" "not the bars of this study's copy $WORK/dbold/dataset-0000.h5"
  # its splits it cannot know (the copy holds bars and sums): a re-split is taken, but not
  # learnt as the study's, so its own dataset back is not refused afterwards
  "$FOXOPT" import "$WORK/s.csv" -o "$WORK/d.h5" --split 0.6,0.2,0.2 >/dev/null
  run_rc 0 "$FOXOPT" run -o "$WORK/dbold" --resume --set study.trials=4
  cp "$WORK/s.h5" "$WORK/d.h5"
  run_rc 0 "$FOXOPT" run -o "$WORK/dbold" --resume --set study.trials=5
fi
# 2 ranks: rank 0 refuses before either rank writes its file
if command -v "$MPIEXEC" >/dev/null; then
  run_rc 0 "$MPIEXEC" -n 2 "$FOXOPT" run "$WORK/db.yaml" -o "$WORK/db2"
  cp "$WORK/d.h5" "$WORK/keep.h5" && "$FOXOPT" import "$WORK/o.csv" -o "$WORK/d.h5" >/dev/null
  ranks=$(cd "$WORK/db2" && cksum rank-0000.h5 rank-0001.h5 dataset-0000.h5 study.h5)
  run_rc 3 "$MPIEXEC" -n 2 "$FOXOPT" run -o "$WORK/db2" --resume --set study.trials=3
  contains "$ERR_TXT" "not the bars this study began with"
  check "2 ranks, other bars: no rank file rewritten" \
    test "$(cd "$WORK/db2" && cksum rank-0000.h5 rank-0001.h5 dataset-0000.h5 study.h5)" = "$ranks"
  cp "$WORK/keep.h5" "$WORK/d.h5"
fi
done_
