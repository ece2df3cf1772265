#!/usr/bin/env bash
# Issue 28, defects 1 and 2: an output never replaces what its command reads (a study's own
# files, the CSV, dataset, config or policy given), nor anything that is not a regular file (a
# device or FIFO is written directly by the text writers and refused by the HDF5 ones, exit 2);
# a symbolic link's target is written and the link stays. Every input is checked to be a
# regular file before it is opened, so a FIFO given as an input is refused at once, never waited
# on. Needs no Python.
. "$(dirname "$0")/lib.sh"

tiny_agent_fixture
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

# 5. what a review found after the above (each once a hang, a replaced file or a stray byte)
fresh() { rm -rf "$A" && cp -a "$WORK/A.orig" "$A"; }
# --resume meets FIFOs among the study's own files: never blocks (timeout would be 124)
fresh && mkfifo "$A/trials/9.h5"
run_rc 0 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
contains "$ERR_TXT" "$A/trials/9.h5: not a regular file (a FIFO, device or socket): removed"
check "a FIFO among the trial files is removed" test ! -e "$A/trials/9.h5"
fresh && rm "$A/trials.csv" && mkfifo "$A/trials.csv"
run_rc 3 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
contains "$ERR_TXT" "$A/trials.csv: not a regular file (a FIFO, device or socket) where foxopt"
fresh && rm "$A/rank-0000.h5" && mkfifo "$A/rank-0000.h5"
run_rc 3 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
contains "$ERR_TXT" "$A/rank-0000.h5: not a regular file (a FIFO, device or socket) where foxopt"
fresh && mkfifo "$A/rank-0003.h5"
run_rc 0 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
fresh && rm -f "$A/.lock" && mkfifo "$A/.lock"
run_rc 3 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
contains "$ERR_TXT" "$A/.lock: not a regular file"
fresh && rm -f "$A/metrics.jsonl" && mkfifo "$A/metrics.jsonl"
run_rc 3 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
contains "$ERR_TXT" "$A/metrics.jsonl: not a regular file"
# a fresh study removes a dead run's metrics.jsonl, a FIFO too, and appends to its own
mkdir -p "$WORK/L" && mkfifo "$WORK/L/metrics.jsonl"
run_rc 0 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/L"
check "a fresh study's metrics.jsonl is a file of lines" test -f "$WORK/L/metrics.jsonl" -a -s "$WORK/L/metrics.jsonl"
# every spelling of a study's file reaches the guard: through /proc/self/cwd, /dev/fd/..
fresh
for out in /proc/self/cwd/A/study.h5 /dev/fd/../../self/cwd/A/trials.csv; do
  run_rc 2 bash -c 'cd "$1" && shift && exec "$@"' - "$WORK" "$FOXOPT" export A --optuna "$out"
  refused "export --optuna $out" "would replace a file of the study this command reads"
done
# a regular file under /dev is a file like any other: replaced whole, not appended to
shm=/dev/shm/foxopt-outputs-$$.log
if [ -d /dev/shm ] && echo old >"$shm" 2>/dev/null && ln "$shm" "$shm.hl" 2>/dev/null; then
  run_rc 0 "$FOXOPT" export "$A" --optuna "$shm"
  check "/dev/shm: the journal replaced the file" grep -q '^{"op_code"' "$shm"
  check "/dev/shm: the old file not appended to" grep -qx old "$shm.hl"
  check "/dev/shm: nothing but the journal" not grep -q '^old' "$shm"
  rm -f "$shm" "$shm.hl"
else
  echo "note: no writable /dev/shm: its check skipped"
fi
# /dev/stdout sent to a file (run_rc's out.txt): the journal alone there, the note on stderr
run_rc 0 "$FOXOPT" export "$A" --optuna /dev/stdout
check "export --optuna /dev/stdout: the journal first" grep -q '^{"op_code"' "$WORK/out.txt"
check "export --optuna /dev/stdout: no note inside it" not grep -q 'wrote' "$WORK/out.txt"
contains "$ERR_TXT" "wrote /dev/stdout: Optuna study"
# report.html and the plots: a link to a file of the study is refused, a FIFO too
ln -s study.h5 "$A/report.html"
run_rc 2 "$FOXOPT" report "$A" --no-plots --html
contains "$ERR_TXT" "$A/report.html: would replace a file of the study"
check "report.html a link to study.h5: the study intact" cmp "$A/study.h5" "$WORK/A.orig/study.h5"
fresh && ln -s trials.csv "$A/history.png"
run_rc 2 "$FOXOPT" report "$A"
contains "$ERR_TXT" "$A/history.png: would replace a file of the study"
check "history.png a link to trials.csv: the table intact" \
  cmp "$A/trials.csv" "$WORK/A.orig/trials.csv"
fresh && ln -s study.h5 "$A/params.svg"
run_rc 2 "$FOXOPT" report "$A"
contains "$ERR_TXT" "$A/params.svg: would replace a file of the study"
check "params.svg a link to study.h5: the study intact" cmp "$A/study.h5" "$WORK/A.orig/study.h5"
fresh && mkfifo "$A/history.png"
run_rc 2 timeout 60 "$FOXOPT" report "$A"
contains "$ERR_TXT" "$A/history.png: not a regular file"
check "history.png a FIFO: still one" test -p "$A/history.png"
# terminal escapes from a name or a value never reach the terminal raw
{ echo action; echo 1; printf '2\033[31m\n'; } >"$WORK/esc.csv"
run_rc 3 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/esc.csv"
contains "$ERR_TXT" "esc.csv:3: expected an action"
check "backtest: no ESC echoed from the actions CSV" not grep -q $'\033' "$WORK/err.txt"
run_rc 2 "$FOXOPT" info "$WORK/no"$'\033'"[31mfile.h5"
contains "$ERR_TXT" "holds a control character or invalid UTF-8"
check "info: no ESC echoed from the file's name" not grep -q $'\033' "$WORK/err.txt"
run_rc 2 "$FOXOPT" $'he\033p'
check "an unknown command: no ESC echoed" not grep -q $'\033' "$WORK/err.txt"
run_rc 2 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/E"$'\033'"[31m"
check "an OUTDIR named with an ESC: refused before it is used" not test -e "$WORK/E"$'\033'"[31m"

# 6. the second review: every spelling of /dev/stdout (and a link to it) is the shell's file,
# appended to, never renamed over; a model is never sent to one (its sidecar would go in /dev)
ln -s /dev/stdout "$WORK/so.lnk"
for p in /dev/stdout //dev/stdout /dev//stdout /dev/fd//1 /proc/self/../self/fd/1 \
         /dev/fd/../fd/1 "$WORK/so.lnk"; do
  echo old >"$WORK/log.txt" && ln -f "$WORK/log.txt" "$WORK/log.hl"
  "$FOXOPT" export "$A" --optuna "$p" >>"$WORK/log.txt" 2>"$WORK/err.txt"
  check "export --optuna $p >> FILE: the file kept and appended to" \
    test "$(head -1 "$WORK/log.txt")" = old -a "$WORK/log.txt" -ef "$WORK/log.hl"
  check "export --optuna $p >> FILE: the journal in it" grep -q '^{"op_code"' "$WORK/log.txt"
  check "export --optuna $p >> FILE: no note in it" not grep -q wrote "$WORK/log.txt"
done
run_rc 2 "$FOXOPT" export "$A" --trial 0 --onnx /dev/stdout
contains "$ERR_TXT" "a model is written with its sidecar /dev/stdout.json beside it"
check "no sidecar made in /dev" not test -e /dev/stdout.json
# a link planted in a new OUTDIR never has the run write over an input through it
cp "$WORK/st.yaml" "$WORK/cfg.yaml"
for own in trials.csv .lock; do
  rm -rf "$WORK/N" && mkdir "$WORK/N" && ln -s ../cfg.yaml "$WORK/N/$own"
  run_rc 3 "$FOXOPT" run "$WORK/cfg.yaml" -o "$WORK/N"
  contains "$ERR_TXT" "$WORK/N/$own: "
  contains "$ERR_TXT" "where foxopt keeps"
  check "run -o with $own a link to an input: the config intact" cmp "$WORK/cfg.yaml" "$WORK/st.yaml"
done
rm -rf "$WORK/N" && mkdir "$WORK/N" && ln -s ../s.h5 "$WORK/N/rank-0000.h5"
run_rc 0 "$FOXOPT" run "$WORK/cfg.yaml" -o "$WORK/N" # a dead run's rank file: the link removed
run_rc 0 "$FOXOPT" info "$WORK/s.h5"
contains "$OUT_TXT" "dataset"
# the study's own names that are FIFOs: an error naming them, never a wait
fresh && rm -f "$A/dataset-0000.h5" && mkfifo "$A/dataset-0000.h5"
run_rc 3 timeout 60 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
contains "$ERR_TXT" "$A/dataset-0000.h5: not a regular file"
fresh && mkfifo "$A/report.html"
run_rc 2 timeout 60 "$FOXOPT" report "$A" --no-plots --html
contains "$ERR_TXT" "$A/report.html: not a regular file"

# 7. the third review: a run never removes through a link what foxopt did not write
mkdir -p "$WORK/home/docs" && echo precious >"$WORK/home/notes.txt"
for own in trials tb; do
  rm -rf "$WORK/N" && mkdir "$WORK/N" && ln -s "$WORK/home" "$WORK/N/$own"
  cp "$WORK/s.h5" "$WORK/home/0.h5" && echo p >"$WORK/home/0.h5.tmp.2024"
  run_rc 3 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/N"
  contains "$ERR_TXT" "$WORK/N/$own: a symbolic link where foxopt keeps a directory of its own"
  check "run -o with $own/ a link: what it names untouched" \
    test -f "$WORK/home/notes.txt" -a -d "$WORK/home/docs" -a -f "$WORK/home/0.h5" \
    -a -f "$WORK/home/0.h5.tmp.2024"
done
# 8. the fifth review: the dataset a report reads is an input too; a killed report's
# temporaries go with the next report, a live one's stay
cp "$WORK/s.h5" "$WORK/s.keep.h5"
fresh && ln -s "$WORK/s.h5" "$A/report.html"
run_rc 2 "$FOXOPT" report "$A" --html --no-plots
contains "$ERR_TXT" "$A/report.html: is $WORK/s.h5, an input of this command"
fresh && run_rc 2 "$FOXOPT" report "$A" --html --no-plots --csv "$WORK/s.h5"
contains "$ERR_TXT" "$WORK/s.h5: is an input of this command"
check "report --html: the dataset intact" cmp "$WORK/s.h5" "$WORK/s.keep.h5"
dead=$(sh -c 'echo $$') # a pid no process has now
fresh && mkdir "$A/report.tmp.$dead.AbC123" && echo x >"$A/report.tmp.$dead.AbC123/history.png"
echo x >"$A/report.html.tmp.$dead" && echo x >"$A/test.h5.tmp.$dead" && echo x >"$A/report.html.tmp.$$"
echo x >"$A/history.svg.tmp.$dead" && echo x >"$A/params.png.tmp.$dead" && echo x >"$A/my.svg.tmp.x"
run_rc 0 "$FOXOPT" report "$A" --test --no-plots
check "a killed report's temporaries removed" \
  test ! -e "$A/report.tmp.$dead.AbC123" -a ! -e "$A/report.html.tmp.$dead" -a ! -e "$A/test.h5.tmp.$dead" \
  -a ! -e "$A/history.svg.tmp.$dead" -a ! -e "$A/params.png.tmp.$dead"
check "not a temporary of foxopt's: my.svg.tmp.x kept" test -e "$A/my.svg.tmp.x"
check "a running report's temporary kept" test -e "$A/report.html.tmp.$$"
# a user's own NAME.tmp.N beside a study is not a temporary of foxopt's
fresh && echo mine >"$A/thesis.tmp.2024"
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$A" --resume
check "a user's thesis.tmp.2024 in OUTDIR kept" test -f "$A/thesis.tmp.2024"
rm -rf "$WORK/N" && mkdir -p "$WORK/N/tb" && ln -s "$WORK/home" "$WORK/N/tb/old-run"
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/N" # a dead run's tb/: the link removed, not followed
check "a link inside a dead run's tb/: what it names untouched" \
  test -f "$WORK/home/notes.txt" -a -d "$WORK/home/docs"
check "a link inside a dead run's tb/: the link gone" not test -L "$WORK/N/tb/old-run"
# a chain of links to /dev/stdout longer than the kernel follows: refused, the file kept
prev=/dev/stdout
for i in $(seq 38); do ln -sfn "$prev" "$WORK/c$i" && prev=$WORK/c$i; done
echo old >"$WORK/log.txt" && ln -f "$WORK/log.txt" "$WORK/log.hl"
"$FOXOPT" export "$A" --optuna "$WORK/c38" >>"$WORK/log.txt" 2>"$WORK/err.txt"
check "38 links to /dev/stdout: the shell's file kept" \
  test "$(head -1 "$WORK/log.txt")" = old -a "$WORK/log.txt" -ef "$WORK/log.hl"
# a plot whose link leads to another file system: its target written
shm=/dev/shm/foxopt-outputs-$$.png
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  fresh && ln -s "$shm" "$A/history.png"
  run_rc 0 "$FOXOPT" report "$A"
  check "history.png a link to /dev/shm: its target written" is_png "$shm"
  check "history.png a link to /dev/shm: still a link" test -L "$A/history.png"
  rm -f "$shm"
else
  echo "note: no /dev/shm: the cross-device plot's check skipped"
fi
done_
