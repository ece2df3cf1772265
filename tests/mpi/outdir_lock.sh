#!/usr/bin/env bash
# OUTDIR's lock in an MPI job: rank 0 alone takes it (the other ranks wait for its go), so a
# job's own ranks never refuse each other; a second job, or a singleton --resume, while the
# first is live is refused with one message naming rank 0's pid and host; the first job's table
# equals a lone run's, and the lock is left empty at its end.
. "$(dirname "$0")/../e2e/lib.sh"
MPIEXEC=${FOX_MPIEXEC:-mpiexec}

branin_sh_yaml lock 4 10 5 5 >"$WORK/f.yaml"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/ref"

"$MPIEXEC" -n 3 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/m" --set study.objective.seconds=0.05 \
  >"$WORK/m.out" 2>"$WORK/m.err" &
job=$!
holder=
for i in $(seq 1000); do
  holder=$(sed -n 's/.*, pid \([0-9]*\) on host.*/\1/p' "$WORK/m/.lock" 2>/dev/null)
  [ -n "$holder" ] && break
  sleep 0.01
done
check "the lock names one of the job's ranks ($holder)" grep -qx "$holder" <(pgrep -P $job)
check "the holder is rank 0" \
  grep -qx OMPI_COMM_WORLD_RANK=0 <(tr '\0' '\n' <"/proc/$holder/environ")
# Paused, rank 0 holds the lock however slowly the runs below start.
kill -STOP "$holder"
msg="$WORK/m is in use by foxopt run, pid $holder on host $(hostname), since "
run_rc 2 "$MPIEXEC" -n 2 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/m"
contains "$ERR_TXT" "$msg"
check "one message for the refused job" test "$(grep -c "is in use" "$WORK/err.txt")" -eq 1
run_rc 2 "$FOXOPT" run -o "$WORK/m" --resume
contains "$ERR_TXT" "$msg"
kill -CONT "$holder"
wait $job
RC=$?
check "the first job ends well (exit $RC)" test "$RC" -eq 0
check "nothing of the job's removed" not grep -q "removed" "$WORK/m.err"
same_table "the job's table" "$WORK/ref/trials.csv" "$WORK/m/trials.csv"
check "the lock is left empty" test -e "$WORK/m/.lock" -a ! -s "$WORK/m/.lock"
done_
