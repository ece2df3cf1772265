#!/usr/bin/env bash
# Issue 28, defects 1 and 2: an output never replaces what its command reads (a study's own
# files, the CSV, dataset, config or policy given), nor anything that is not a regular file (a
# device or FIFO is written directly by the text writers and refused by the HDF5 ones, exit 2);
# a symbolic link's target is written and the link stays. Every input is checked to be a
# regular file before it is opened, so a FIFO given as an input is refused at once, never waited
# on. Needs no Python.
. "$(dirname "$0")/lib.sh"

"$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 --seed 3 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
{ echo action; for i in $(seq 233); do echo $((i % 3)); done; } >"$WORK/a.csv"
cat >"$WORK/t.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 4, episode_bars: 128}
train: {algo: dqn, epochs: 1, steps_per_epoch: 256, seed: 7, backend: cpu}
dqn: {hidden: [8], learning_starts: 64, buffer_size: 512, batch_size: 16, target_update: 50}
YAML
cat "$WORK/t.yaml" - >"$WORK/st.yaml" <<YAML
study: {name: out, seed: 3, trials: 2, round_size: 2, sampler: random,
        objective: {metric: val.sharpe, direction: maximize}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/tr"
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/A"
cp -a "$WORK/A" "$WORK/A.orig"
A=$WORK/A

# intact: the study reads as before and every file of it is byte for byte what it was
intact() {
  check "$1: the study's files unchanged" diff -r "$WORK/A.orig" "$A"
  run_rc 0 "$FOXOPT" report "$A" --no-plots
}
# refused WHAT: the last command exited 2 naming why, and left the study whole
refused() {
  contains "$ERR_TXT" "$2"
  intact "$1"
}

# 1. an output aimed at a file of the study it reads, by any spelling
ln -s "$A/study.h5" "$WORK/link-to-study"
for out in "$A/study.h5" "$A/trials/0.h5" "$A/trials.csv" "$A/rank-0000.h5" \
           "$WORK/A/../A/study.h5" "$WORK/link-to-study" "$A/trials/new.log" "$A/.lock"; do
  run_rc 2 "$FOXOPT" export "$A" --optuna "$out"
  refused "export --optuna $out" "would replace a file of the study this command reads"
done
run_rc 2 "$FOXOPT" report "$A" --csv "$A/study.h5" --no-plots
refused "report --csv study.h5" "would replace a file of the study this command reads"
run_rc 2 "$FOXOPT" report "$A" --csv "$A/trials/1.h5" --no-plots
refused "report --csv trials/1.h5" "would replace a file of the study this command reads"
# a file of its own beside the study is fine, and so is the report's page
run_rc 0 "$FOXOPT" export "$A" --optuna "$A/optuna.log"
check "export beside the study wrote its journal" test -s "$A/optuna.log"
rm -f "$A/optuna.log"
intact "export beside the study"

# ... or at one of the command's other inputs (a link to it too)
run_rc 2 "$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.csv"
contains "$ERR_TXT" "an input of this command"
ln -s s.csv "$WORK/s-link.csv"
run_rc 2 "$FOXOPT" import "$WORK/s.csv" -o "$WORK/s-link.csv"
contains "$ERR_TXT" "an input of this command"
check "import: the CSV is still a CSV" grep -q '^timestamp,open' "$WORK/s.csv"
cp "$WORK/tr/trial.h5" "$WORK/policy.h5"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/policy.h5" --output "$WORK/policy.h5"
contains "$ERR_TXT" "an input of this command"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/policy.h5" --output "$WORK/s.h5"
contains "$ERR_TXT" "an input of this command"
run_rc 0 "$FOXOPT" info "$WORK/policy.h5"
run_rc 0 "$FOXOPT" info "$WORK/s.h5"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --study "$A" --trial 0 --output "$A/trials/0.h5"
refused "backtest --study --output trials/0.h5" "would replace a file of the study"
mkdir -p "$WORK/tr2"
cp "$WORK/s.h5" "$WORK/tr2/trial.h5"
run_rc 2 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/tr2" --set "data.path=$WORK/tr2/trial.h5"
contains "$ERR_TXT" "an input of this command"
run_rc 0 "$FOXOPT" info "$WORK/tr2/trial.h5"
contains "$OUT_TXT" "dataset"

# 2. outputs that are not regular files: written directly (text) or refused (HDF5), never
# replaced by a rename
mknod "$WORK/null" c 1 3 2>/dev/null || cp -a /dev/null "$WORK/null" 2>/dev/null
if [ -c "$WORK/null" ]; then
  run_rc 0 "$FOXOPT" export "$A" --optuna "$WORK/null"
  check "export to a device node: still a device" test -c "$WORK/null"
  run_rc 0 "$FOXOPT" report "$A" --csv "$WORK/null" --no-plots
  check "report --csv to a device node: still a device" test -c "$WORK/null"
  run_rc 2 "$FOXOPT" import "$WORK/s.csv" -o "$WORK/null"
  contains "$ERR_TXT" "not a regular file"
  check "import to a device node: still a device" test -c "$WORK/null"
  run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/a.csv" --output "$WORK/null"
  contains "$ERR_TXT" "not a regular file"
  check "backtest --output to a device node: still a device" test -c "$WORK/null"
else
  bad "cannot make a device node (mknod, or a copy of /dev/null)"
fi
mkfifo "$WORK/fifo"
timeout 20 cat "$WORK/fifo" >"$WORK/fifo.out" &
reader=$!
run_rc 0 timeout 20 "$FOXOPT" export "$A" --optuna "$WORK/fifo"
wait "$reader"
check "export to a FIFO: still a FIFO" test -p "$WORK/fifo"
check "export to a FIFO: the journal came through it" grep -q '"op_code"' "$WORK/fifo.out"
# the CSV through /dev/stdout, and the note about it not mixed into it
run_rc 0 "$FOXOPT" report "$A" --csv /dev/stdout --no-plots --top 1
check "report --csv /dev/stdout: the table's header on stdout" grep -q '^id,status' "$WORK/out.txt"
check "report --csv /dev/stdout: its note on stderr" grep -q 'wrote /dev/stdout' "$WORK/err.txt"

# 3. symbolic links: the target is written, the link stays
echo old >"$WORK/target.log"
ln -s target.log "$WORK/j.log"
run_rc 0 "$FOXOPT" export "$A" --optuna "$WORK/j.log"
check "a link output stays a link" test -L "$WORK/j.log"
check "a link output: its target holds the journal" grep -q '"op_code"' "$WORK/target.log"
mkdir "$WORK/sub"
ln -s sub/new.log "$WORK/dangling.log"
run_rc 0 "$FOXOPT" export "$A" --optuna "$WORK/dangling.log"
check "a dangling link stays a link" test -L "$WORK/dangling.log"
check "a dangling link: its target is created" grep -q '"op_code"' "$WORK/sub/new.log"
ln -s "$WORK/s.h5" "$WORK/ds-link.h5"
run_rc 0 "$FOXOPT" import "$WORK/s.csv" -o "$WORK/ds-link.h5"
check "an HDF5 output through a link: the link stays" test -L "$WORK/ds-link.h5"
run_rc 0 "$FOXOPT" info "$WORK/s.h5"
check "no temporary left anywhere" test -z "$(find "$WORK" -name '*.tmp.*')"

# 4. inputs that are FIFOs: refused at once (timeout would make it 124)
cfg_fifo=$WORK/cfg.fifo
mkfifo "$cfg_fifo"
run_rc 2 timeout 20 "$FOXOPT" run "$cfg_fifo" -o "$WORK/B"
contains "$ERR_TXT" "$cfg_fifo: not a regular file"
run_rc 2 timeout 20 "$FOXOPT" train "$cfg_fifo"
contains "$ERR_TXT" "not a regular file"
run_rc 3 timeout 20 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/tr3" --set "data.path=$WORK/fifo"
contains "$ERR_TXT" "$WORK/fifo: not a regular file"
run_rc 3 timeout 20 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/C" --set "data.path=$WORK/fifo"
contains "$ERR_TXT" "not a regular file"
run_rc 3 timeout 20 "$FOXOPT" import "$WORK/fifo" -o "$WORK/x.h5"
contains "$ERR_TXT" "not a regular file"
run_rc 3 timeout 20 "$FOXOPT" info "$WORK/fifo"
contains "$ERR_TXT" "not a regular file"
run_rc 3 timeout 20 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/fifo"
contains "$ERR_TXT" "not a regular file"
run_rc 3 timeout 20 "$FOXOPT" backtest "$WORK/fifo" --actions "$WORK/a.csv"
contains "$ERR_TXT" "not a regular file"
run_rc 3 timeout 20 "$FOXOPT" backtest "$WORK/s.h5" --policy "$WORK/fifo"
contains "$ERR_TXT" "not a regular file"
rm "$A/study.h5" && mkfifo "$A/study.h5"
run_rc 3 timeout 20 "$FOXOPT" report "$A" --no-plots
contains "$ERR_TXT" "not a regular file"
done_
