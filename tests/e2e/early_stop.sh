#!/usr/bin/env bash
# A stop in foxopt run's first moments: SIGTERM or SIGUSR1 as soon as the process can catch it
# (its handlers show in /proc/PID/status), and 0.05 to 0.4 s later, is exit 75 every time, never
# a death by the signal (143); it leaves either a resumable study or nothing at all, and
# `--resume` with the config then finishes with the table of a lone run (starting afresh where
# nothing was written). --resume without a config where there is no study is exit 3, saying so.
. "$(dirname "$0")/lib.sh"

# caught PID SIG: whether PID has a handler for signal number SIG (its SigCgt mask).
caught() {
  local key val
  while read -r key val; do
    [ "$key" = "SigCgt:" ] && return $(((0x$val >> ($2 - 1) & 1) == 0))
  done <"/proc/$1/status"
  return 1
}
# stop_early OUTDIR SIGNAL DELAY ARGS...: starts foxopt run ARGS -o OUTDIR, sends SIGNAL DELAY
# seconds after its handlers are in (0: at once); sets RC, STOP_ERR.
stop_early() {
  local dir=$1 sig=$2 delay=$3 num i
  shift 3
  num=$(kill -l "$sig")
  "$FOXOPT" run "$@" -o "$dir" >"$WORK/early.out" 2>"$WORK/early.err" &
  local pid=$!
  for i in $(seq 20000); do caught $pid "$num" 2>/dev/null && break; done
  [ "$delay" != 0 ] && sleep "$delay"
  kill -s "$sig" $pid
  wait $pid
  RC=$?
  STOP_ERR=$(cat "$WORK/early.err")
}

cat >"$WORK/f.yaml" <<YAML
train: {epochs: 9}
study:
  name: early
  seed: 5
  trials: 12
  round_size: 6
  objective: {function: branin, direction: minimize, seconds: 0.01}
  sampler: {name: tpe, n_startup_trials: 6}
  scheduler: {name: successive_halving, min_epochs: 1, eta: 3}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/ref"

# stop_and_resume SIG DELAY: a stop, its checks, and the --resume that must finish the study.
n=0 nothing=0
stop_and_resume() {
  local sig=$1 delay=$2 d
  n=$((n + 1))
  d="$WORK/e$n"
  stop_early "$d" "$sig" "$delay" "$WORK/f.yaml"
  check "SIG$sig ${delay}s after the handlers: exit 75 (got $RC: $STOP_ERR)" test "$RC" -eq 75
  if [ -e "$d/study.h5" ]; then
    contains "$STOP_ERR" "after a clean checkpoint of $d"
    run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$d" --resume
  else
    nothing=$((nothing + 1))
    contains "$STOP_ERR" "before the study started: nothing was written to $d"
    check "SIG$sig ${delay}s: nothing written" test -z "$(ls "$d" 2>/dev/null)"
    run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$d" --resume
    contains "$ERR_TXT" "$d holds no study yet: --resume starts it"
  fi
  same_table "SIG$sig ${delay}s, then --resume" "$WORK/ref/trials.csv" "$d/trials.csv"
}
for sig in TERM USR1; do
  for delay in 0 0.05 0.1 0.2 0.4; do
    stop_and_resume $sig $delay
  done
done
# A stop at once lands before the run has touched OUTDIR, unless this machine was too busy to
# send it in the some 20 ms that takes: a few more tries.
for try in 1 2 3 4 5; do
  [ "$nothing" -gt 0 ] && break
  stop_and_resume TERM 0
done
check "a stop before the study started wrote nothing and was resumed ($nothing times)" \
  test "$nothing" -gt 0

# --resume where there is nothing to resume.
run_rc 3 "$FOXOPT" run -o "$WORK/none" --resume
contains "$ERR_TXT" "none: no such directory: there is no study to resume"
mkdir -p "$WORK/empty"
run_rc 3 "$FOXOPT" run -o "$WORK/empty" --resume
contains "$ERR_TXT" "empty/study.h5: no study to resume"
contains "$ERR_TXT" "give CONFIG.yaml to start it"
# Rank files of a run killed before its first checkpoint: --resume starts afresh without them.
mkdir -p "$WORK/killed/trials" && cp "$WORK/ref/rank-0000.h5" "$WORK/killed/rank-0003.h5"
cp "$WORK/ref/trials/11.h5" "$WORK/killed/trials/40.h5"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/killed" --resume
contains "$ERR_TXT" "removed $WORK/killed/rank-0003.h5"
contains "$ERR_TXT" "removed $WORK/killed/trials/40.h5"
same_table "--resume over a killed run's rank files" "$WORK/ref/trials.csv" \
  "$WORK/killed/trials.csv"
done_
