#!/usr/bin/env bash
# The user's words (issue 25): every command given a damaged file (cut short, its superblock
# overwritten, empty, text, a directory) of each kind foxopt reads (dataset, study.h5, a trial
# file, trial.h5, a rank file, a checkpoint) exits 3 with one "foxopt CMD: error:" line that
# names the user's file in plain words: no path of this source tree, no temporary name, no
# HDF5 internals. A file foxopt cannot write names the user's file, not its temporary.
# Needs no Python: the damage is done with truncate and dd.
. "$(dirname "$0")/lib.sh"

# plain CMD FILE: the last command's stderr is one error line for CMD that names FILE, without
# a source path, a temporary name or HDF5's words.
plain() {
  local cmd=$1 file=$2
  contains "$ERR_TXT" "$file"
  check "$cmd $file: one 'foxopt $cmd: error:' line" \
    test "$(grep -c "^foxopt $cmd: error: " "$WORK/err.txt")" -eq 1
  check "$cmd $file: one error prefix" test "$(grep -o 'error:' "$WORK/err.txt" | wc -l)" -eq 1
  check "$cmd $file: no second prefix" not grep -q "error: \(foxopt\|$cmd\|h5io\|error\)[: ]" \
    "$WORK/err.txt"
  check "$cmd $file: no source path" not grep -q 'src/\|\.c:[0-9]' "$WORK/err.txt"
  check "$cmd $file: no temporary name" not grep -q '\.tmp' "$WORK/err.txt"
  check "$cmd $file: no HDF5 internals" not grep -q 'H5\|sblock\|eof =\|HDF5-DIAG' "$WORK/err.txt"
}
# bad3 FILE CMD ARGS...: foxopt CMD ARGS exits 3 naming FILE in plain words.
bad3() {
  local file=$1 cmd=$2
  shift
  run_rc 3 "$FOXOPT" "$@"
  plain "$cmd" "$file"
}
# damage HOW FILE: how a disk or a user spoils a file.
damage() {
  case $1 in
  cut) truncate -s $(($(stat -c %s "$2") / 2)) "$2" ;;
  stub) truncate -s 100 "$2" ;;
  superblock) printf '\007' | dd of="$2" bs=1 seek=8 conv=notrunc 2>/dev/null ;;
  empty) : >"$2" ;;
  text) echo "time,open,high,low,close,volume" >"$2" ;;
  dir) rm -f "$2" && mkdir "$2" ;;
  esac
}
WHOLE="not a complete foxopt file (truncated or corrupt)"

tiny_agent_fixture
cat "$WORK/t.yaml" - >"$WORK/st.yaml" <<YAML
study: {name: msg, seed: 3, trials: 2, round_size: 2, sampler: random,
        objective: {metric: val.sharpe, direction: maximize}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/tr"
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st"

for how in cut stub superblock empty text dir; do
  # dataset.h5, given on the command line and through the config
  d="$WORK/d-$how.h5"
  cp "$WORK/s.h5" "$d" && damage $how "$d"
  bad3 "$d" info "$d"
  bad3 "$d" backtest "$d" --actions "$WORK/a.csv"
  bad3 "$d" train "$WORK/t.yaml" -o "$WORK/tr-$how" --set "data.path=$d"
  # study.h5
  o="$WORK/st-$how"
  cp -r "$WORK/st" "$o" && damage $how "$o/study.h5"
  bad3 "$o/study.h5" info "$o/study.h5"
  bad3 "$o/study.h5" report "$o" --no-plots
  bad3 "$o/study.h5" export "$o" --optuna "$WORK/j-$how.log"
  bad3 "$o/study.h5" run "$WORK/st.yaml" -o "$o" --resume
  bad3 "$o/study.h5" backtest "$WORK/s.h5" --study "$o" --trial 0
  # a study's trial file, and its rank file
  o="$WORK/tf-$how"
  cp -r "$WORK/st" "$o" && damage $how "$o/trials/0.h5" && damage $how "$o/rank-0000.h5"
  bad3 "$o/trials/0.h5" info "$o/trials/0.h5"
  bad3 "$o/trials/0.h5" backtest "$WORK/s.h5" --study "$o" --trial 0
  bad3 "$o/trials/0.h5" report "$o" --no-plots
  bad3 "$o/trials/0.h5" export "$o" --optuna "$WORK/j-$how.log"
  bad3 "$o/rank-0000.h5" info "$o/rank-0000.h5"
  # trial.h5 of foxopt train
  t="$WORK/t-$how.h5"
  cp "$WORK/tr/trial.h5" "$t" && damage $how "$t"
  bad3 "$t" backtest "$WORK/s.h5" --policy "$t"
done
# What each kind of damage reads as.
run_rc 3 "$FOXOPT" info "$WORK/d-cut.h5"
contains "$ERR_TXT" "$WORK/d-cut.h5: $WHOLE"
run_rc 3 "$FOXOPT" report "$WORK/st-superblock" --no-plots
contains "$ERR_TXT" "$WORK/st-superblock/study.h5: $WHOLE"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/t-empty.h5"
contains "$ERR_TXT" "$WORK/t-empty.h5: not an HDF5 file"
run_rc 3 "$FOXOPT" info "$WORK/d-dir.h5"
contains "$ERR_TXT" "$WORK/d-dir.h5: is a directory"
run_rc 3 "$FOXOPT" info "$WORK/nothing.h5"
contains "$ERR_TXT" "$WORK/nothing.h5: cannot open"
contains "$ERR_TXT" "No such file or directory"
# A valid HDF5 file of another kind: foxopt's words for what it lacks.
bad3 "$WORK/tr/trial.h5" backtest "$WORK/tr/trial.h5" --actions "$WORK/a.csv"
bad3 "$WORK/s.h5" backtest "$WORK/s.h5" --policy "$WORK/s.h5"
# FOXOPT_DEBUG=1 keeps the developer's detail, for a bug report.
FOXOPT_DEBUG=1 "$FOXOPT" info "$WORK/d-cut.h5" 2>"$WORK/err.txt" >/dev/null
check "FOXOPT_DEBUG=1 adds where and HDF5's words" grep -q '\.c:[0-9]*: HDF5: ' "$WORK/err.txt"

# A checkpoint (state/trial-ID-eN.h5 of a study stopped mid-trial), damaged: --resume refuses it.
cat "$WORK/t.yaml" - >"$WORK/ck.yaml" <<YAML
study: {name: ck, seed: 3, trials: 3, round_size: 3, sampler: random,
        objective: {metric: val.sharpe, direction: maximize},
        scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
sed -i 's/steps_per_epoch: 256/steps_per_epoch: 20000/' "$WORK/ck.yaml"
"$FOXOPT" run "$WORK/ck.yaml" -o "$WORK/ck" >"$WORK/ck.out" 2>&1 &
pid=$!
for i in $(seq 1200); do
  [ -n "$(ls "$WORK/ck/state" 2>/dev/null)" ] && break
  sleep 0.05
done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
ck=$(ls "$WORK/ck/state" 2>/dev/null | head -1)
if [ -n "$ck" ]; then
  # info reads its own checkpoints (issue 28, defect 7)
  run_rc 0 "$FOXOPT" info "$WORK/ck/state/$ck"
  contains "$OUT_TXT" "$WORK/ck/state/$ck: foxopt trial checkpoint (version"
  contains "$OUT_TXT" "dqn agent, 1 epoch done, 20000 transitions"
  contains "$OUT_TXT" "  epoch 1        loss "
  # a spoilt checkpoint: --resume names it in plain words, once, and trains its trial again
  # from the start (e2e_checksums: to the uninterrupted table)
  for how in cut superblock empty dir; do
    rm -rf "$WORK/ck-$how" && cp -r "$WORK/ck" "$WORK/ck-$how"
    damage $how "$WORK/ck-$how/state/$ck"
    run_rc 0 "$FOXOPT" run "$WORK/ck.yaml" -o "$WORK/ck-$how" --resume
    contains "$ERR_TXT" "$WORK/ck-$how/state/$ck: "
    contains "$ERR_TXT" "trains again from its start"
    check "resume past a $how checkpoint: one warning line" \
      test "$(grep -c "^foxopt run: warning: $WORK/ck-$how/state/$ck: " "$WORK/err.txt")" -eq 1
    check "resume past a $how checkpoint: no error" not grep -q 'error' "$WORK/err.txt"
    check "resume past a $how checkpoint: no HDF5 internals" \
      not grep -q 'H5\|sblock\|eof =\|HDF5-DIAG\|src/\|\.tmp' "$WORK/err.txt"
  done
else
  echo "note: the study finished before a checkpoint was kept: the checkpoint cases skipped"
fi

# Writes name the user's file, not its temporary: a rank file that is a directory (exit 2, as
# any output that is a directory), a journal in a directory that is not there.
cp -r "$WORK/st" "$WORK/w" && rm "$WORK/w/rank-0000.h5" && mkdir "$WORK/w/rank-0000.h5"
run_rc 2 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/w" --resume
plain run "$WORK/w/rank-0000.h5"
run_rc 1 "$FOXOPT" export "$WORK/st" --optuna "$WORK/no/such/dir/j.log"
plain export "$WORK/no/such/dir/j.log"
run_rc 1 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/a.csv" --output "$WORK/no/bt.h5"
plain backtest "$WORK/no/bt.h5"

# Issue 28, defect 7: an empty config says so (not "cannot open dataset.h5"); an output path
# that is empty is refused in words, not as a temporary name; a grid sampler a pbt study cannot
# use names the file as well as the line, before the study starts.
for text in '' '# a comment only' '{}'; do
  printf '%s\n' "$text" >"$WORK/empty.yaml"
  for cmd in run train; do
    run_rc 2 "$FOXOPT" $cmd "$WORK/empty.yaml" -o "$WORK/empty-out"
    contains "$ERR_TXT" "$WORK/empty.yaml: the config is empty: expected YAML sections"
    plain $cmd "$WORK/empty.yaml"
  done
done
check "an empty config starts nothing" not test -e "$WORK/empty-out"
run_rc 2 "$FOXOPT" export "$WORK/st" --optuna ""
contains "$ERR_TXT" "--optuna needs a value (FILE), not an empty one"
check "export --optuna '': no temporary name" not grep -q 'tmp' "$WORK/err.txt"
# an empty word anywhere is refused before anything runs, named for what was expected
run_rc 2 "$FOXOPT" export "" --optuna "$WORK/x.json"
contains "$ERR_TXT" "an empty argument (expected OUTDIR"
run_rc 2 "$FOXOPT" run "$WORK/ck.yaml" -o ""
contains "$ERR_TXT" "-o needs a value (OUTDIR), not an empty one"
run_rc 2 "$FOXOPT" report "$WORK/st" --no-plots --csv=
contains "$ERR_TXT" "--csv= needs a value"
sed 's/sampler: random/sampler: grid/; s/name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3/name: pbt, population: 4, interval: 1/' \
  "$WORK/ck.yaml" >"$WORK/pbt-grid.yaml"
sed -i 's/steps_per_epoch: 20000/steps_per_epoch: 256/' "$WORK/pbt-grid.yaml"
run_rc 2 "$FOXOPT" run "$WORK/pbt-grid.yaml" -o "$WORK/pbt-grid"
contains "$ERR_TXT" "$WORK/pbt-grid.yaml: study.sampler.name = grid: parameters.dqn.lr (line "
check "grid under pbt: refused before the study starts" not test -e "$WORK/pbt-grid"

# -o naming a file (or a path through one): exit 2 saying so before any training, the file as
# it was (train trained every epoch first and failed writing trial.h5 into it)
echo mine >"$WORK/plain"
for cmd in train run; do
  run_rc 2 "$FOXOPT" $cmd "$WORK/t.yaml" -o "$WORK/plain"
  contains "$ERR_TXT" "$WORK/plain: not a directory"
  check "$cmd -o FILE: no epoch trained" not grep -q "epoch" "$WORK/out.txt"
done
run_rc 2 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/plain/sub"
contains "$ERR_TXT" "$WORK/plain: not a directory, on the way to $WORK/plain/sub"
check "-o FILE: the file as it was" test "$(cat "$WORK/plain")" = mine

# a full device: the user's file and the system's words (synth said "write failed at bar 76",
# the Optuna export "the Optuna journal: cannot write the JSON")
run_rc 1 "$FOXOPT" synth -o /dev/full --bars 3000
contains "$ERR_TXT" "/dev/full: writing it failed at bar"
contains "$ERR_TXT" "No space left on device"
run_rc 1 "$FOXOPT" export "$WORK/st" --optuna /dev/full
contains "$ERR_TXT" "/dev/full: the Optuna journal: cannot write the JSON: No space left on device"

# SIGTERM or SIGHUP ending a writer mid-write takes its temporary along (synth writes a 20M-bar
# CSV for 30 s: it is stopped as soon as its temporary grows; import and the others name their
# temporaries the same way), and the process ends as the signal would
for sig in TERM HUP; do
  "$FOXOPT" synth -o "$WORK/big.csv" --bars 20000000 --seed 1 >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 600); do [ -s "$WORK/big.csv.tmp.$pid" ] && break; sleep 0.05; done
  check "synth, SIG$sig: its temporary was written" test -s "$WORK/big.csv.tmp.$pid"
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  check "synth, SIG$sig mid-write: exit $rc, 128 + the signal" [ "$rc" -eq $((128 + $(kill -l "$sig"))) ]
  check "synth, SIG$sig mid-write: no temporary left" not test -e "$WORK/big.csv.tmp.$pid"
  check "synth, SIG$sig mid-write: no output" not test -e "$WORK/big.csv"
done
done_
