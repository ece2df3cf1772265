#!/usr/bin/env bash
# One live foxopt run per OUTDIR (OUTDIR/.lock): two runs started together, with the same or
# different configs, and two --resume at once: one is refused (exit 2, naming the other's pid
# and host), the other's table equals a lone run's, and none of its files is removed; a run, a
# run with another config or a --resume during a live study is refused the same way, while
# info, report, export and backtest --study read the live study; a lock left by a killed run
# does not block the next.
. "$(dirname "$0")/lib.sh"

HOST=$(hostname)
# wait_live DIR PID: until PID holds DIR's lock (its pid is in DIR/.lock).
wait_live() {
  local i
  for i in $(seq 1000); do
    grep -q "pid $2 on host" "$1/.lock" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}
# race NAME ARGS_A -- ARGS_B: starts `foxopt run ARGS_A` and `foxopt run ARGS_B` at once;
# sets RC_A, RC_B, PID_A, PID_B, and $WORK/NAME.{a,b}.{out,err}.
race() {
  local name=$1 a=() b=()
  shift
  while [ "$1" != "--" ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  # Each its own Open MPI session directory: two singletons started together race on a shared
  # one (Open MPI 4: "orte_session_dir failed", MPI_Init fails before foxopt runs).
  mkdir -p "$WORK/ompi.$name.a" "$WORK/ompi.$name.b"
  OMPI_MCA_orte_tmpdir_base="$WORK/ompi.$name.a" "$FOXOPT" run "${a[@]}" \
    >"$WORK/$name.a.out" 2>"$WORK/$name.a.err" &
  PID_A=$!
  OMPI_MCA_orte_tmpdir_base="$WORK/ompi.$name.b" "$FOXOPT" run "${b[@]}" \
    >"$WORK/$name.b.out" 2>"$WORK/$name.b.err" &
  PID_B=$!
  wait $PID_A; RC_A=$?
  wait $PID_B; RC_B=$?
}
# one_refused WHAT OUTDIR NAME: of race NAME, one exited 0 and the other 2 with the message
# naming the winner; sets WINNER (a or b).
one_refused() {
  local what=$1 dir=$2 lose pid
  if [ "$RC_A" -eq 0 ] && [ "$RC_B" -eq 2 ]; then WINNER=a lose=b pid=$PID_A
  elif [ "$RC_B" -eq 0 ] && [ "$RC_A" -eq 2 ]; then WINNER=b lose=a pid=$PID_B
  else
    bad "$what: exits $RC_A and $RC_B, expected 0 and 2: $(cat "$WORK"/$3.?.err)"
    WINNER=a
    return
  fi
  ok
  contains "$(cat "$WORK/$3.$lose.err")" \
    "$dir is in use by foxopt run, pid $pid on host $HOST, since "
  # Nothing of the winner's was taken for a dead run's or unreadable.
  check "$what: none of the winner's files removed" \
    not grep -q "removed" "$WORK/$3.$WINNER.err"
}

branin_sh_yaml lock 3 12 6 6 >"$WORK/f.yaml"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/ref"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/ref4" --set study.seed=4
check "a finished run leaves its lock empty" test -e "$WORK/ref/.lock" -a ! -s "$WORK/ref/.lock"
SLOW=(--set study.objective.seconds=0.03)

# --- Two runs started together ----------------------------------------------------------------
for k in 1 2; do
  race r$k "$WORK/f.yaml" -o "$WORK/r$k" "${SLOW[@]}" -- "$WORK/f.yaml" -o "$WORK/r$k" "${SLOW[@]}"
  one_refused "same config, race $k" "$WORK/r$k" r$k
  same_table "same config, race $k: the winner's table" "$WORK/ref/trials.csv" \
    "$WORK/r$k/trials.csv"
done
# Different configs: the loser used to delete the winner's fresh rank file as stale.
race d "$WORK/f.yaml" -o "$WORK/d" "${SLOW[@]}" -- "$WORK/f.yaml" -o "$WORK/d" "${SLOW[@]}" \
  --set study.seed=4
one_refused "different configs" "$WORK/d" d
[ "$WINNER" = a ] && want=ref || want=ref4
same_table "different configs: the winner's table" "$WORK/$want/trials.csv" "$WORK/d/trials.csv"
check "different configs: the winner's 12 trial files" test "$(ls "$WORK/d/trials" | wc -l)" -eq 12

# --- Runs during a live study; readers keep reading ---------------------------------------------
"$FOXOPT" run "$WORK/f.yaml" -o "$WORK/l" --set study.objective.seconds=0.05 \
  >"$WORK/l.out" 2>"$WORK/l.err" &
live=$!
check "the study is live" wait_live "$WORK/l" $live
# Paused, it holds the lock however slowly the runs below start (ASan, a loaded machine).
kill -STOP $live
msg="$WORK/l is in use by foxopt run, pid $live on host $HOST, since "
run_rc 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/l"
contains "$ERR_TXT" "$msg"
run_rc 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/l" --set study.seed=4
contains "$ERR_TXT" "$msg"
run_rc 2 "$FOXOPT" run -o "$WORK/l" --resume
contains "$ERR_TXT" "$msg"
kill -CONT $live
for i in $(seq 600); do [ -e "$WORK/l/study.h5" ] && break; sleep 0.02; done
reads=0 failed_reads=0
while kill -0 $live 2>/dev/null; do
  for cmd in "info $WORK/l/trials/0.h5" "info $WORK/l/study.h5" "report $WORK/l --no-plots" \
             "export $WORK/l --optuna $WORK/live.log"; do
    # shellcheck disable=SC2086
    "$FOXOPT" $cmd >/dev/null 2>"$WORK/read.err" || { failed_reads=$((failed_reads + 1));
      echo "read failed: $cmd: $(tail -1 "$WORK/read.err")" >&2; }
    reads=$((reads + 1))
  done
done
wait $live
RC=$?
check "the live study ends well (exit $RC) after $reads reads" test "$RC" -eq 0
check "$failed_reads of $reads reads during the study failed" test "$failed_reads" -eq 0
check "nothing of the live study's removed" not grep -q "removed" "$WORK/l.err"
same_table "the live study's table" "$WORK/ref/trials.csv" "$WORK/l/trials.csv"
check "the live study's 12 trial files" test "$(ls "$WORK/l/trials" | wc -l)" -eq 12

# An agent study, paused after its first round: backtest --study, report (with the best trial's
# equity) and info read it, a second run is refused, and it then ends as a lone run does.
"$FOXOPT" synth -o "$WORK/t.csv" --bars 6000 --seed 8 >/dev/null
"$FOXOPT" import "$WORK/t.csv" -o "$WORK/t.h5" >/dev/null
cat >"$WORK/a.yaml" <<YAML
data: {path: $WORK/t.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: ppo, epochs: 1, steps_per_epoch: 1024}
ppo: {n_steps: 32, hidden: [16, 16]}
study: {name: a, seed: 2, trials: 6, round_size: 2}
parameters:
  ppo.lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0e-2}
YAML
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/aref"
"$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a" >"$WORK/a.out" 2>"$WORK/a.err" &
live=$!
for i in $(seq 1000); do [ -e "$WORK/a/study.h5" ] && break; sleep 0.005; done
kill -STOP $live
run_rc 0 "$FOXOPT" backtest "$WORK/t.h5" --study "$WORK/a" --trial 0
contains "$OUT_TXT" "total_return"
run_rc 0 "$FOXOPT" report "$WORK/a"
check "report drew the live study's best equity" test -s "$WORK/a/best_equity.png"
run_rc 0 "$FOXOPT" info "$WORK/a/trials/0.h5"
run_rc 2 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a"
contains "$ERR_TXT" "$WORK/a is in use by foxopt run, pid $live on host $HOST, since "
kill -CONT $live
wait $live
RC=$?
check "the agent study ends well (exit $RC)" test "$RC" -eq 0
same_table "the agent study's table" "$WORK/aref/trials.csv" "$WORK/a/trials.csv"

# --- Two --resume at once --------------------------------------------------------------------
"$FOXOPT" run "$WORK/f.yaml" -o "$WORK/s" "${SLOW[@]}" >/dev/null 2>"$WORK/s.err" &
pid=$!
for i in $(seq 600); do [ -e "$WORK/s/study.h5" ] && break; sleep 0.02; done
kill -TERM $pid
wait $pid
RC=$?
check "stopped for the resume race (exit $RC): $(tail -3 "$WORK/s.err")" test "$RC" -eq 75
for k in 1 2; do
  cp -r "$WORK/s" "$WORK/s$k"
  race s$k -o "$WORK/s$k" --resume -- -o "$WORK/s$k" --resume
  one_refused "two --resume, race $k" "$WORK/s$k" s$k
  same_table "two --resume, race $k: the table" "$WORK/ref/trials.csv" "$WORK/s$k/trials.csv"
done

# --- A lock left by a killed run ---------------------------------------------------------------
"$FOXOPT" run "$WORK/f.yaml" -o "$WORK/k" "${SLOW[@]}" >/dev/null 2>&1 &
pid=$!
wait_live "$WORK/k" $pid
kill -KILL $pid
wait $pid 2>/dev/null
check "the killed run's name stays in its lock" grep -q "pid $pid on host" "$WORK/k/.lock"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/k" "${SLOW[@]}" --resume
same_table "after a killed run" "$WORK/ref/trials.csv" "$WORK/k/trials.csv"
done_
