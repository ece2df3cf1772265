#!/usr/bin/env bash
# The sbatch scripts of slurm/ on a real one-machine SLURM cluster started here (munge,
# slurmctld, slurmd; MpiDefault=pmix): foxopt-cpu.sbatch with 2 tasks runs a study to the end
# with the table of a plain run and 2 rank files; foxopt-array.sbatch runs 3 studies (one per
# array task, %A_%a logs); a preemption (scancel --signal=USR1 -f) makes the job checkpoint,
# exit 75 and requeue itself, and the requeued run resumes to the uninterrupted table; the
# installed copy of foxopt-cpu.sbatch runs with no checkout.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/cluster.sh"
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "skipped: needs root, slurm-wlm and munge (scripts/setup.sh --slurm)"
  exit 77
fi
trap 'cluster_stop; rm -rf "$WORK"' EXIT
cluster_start "$WORK/cluster" || { echo "FAIL: could not start the cluster" >&2; exit 1; }
export FOXOPT_HOME=$FOX_SRC FOXOPT_BIN=$FOXOPT
cd "$WORK"
state_of() { scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1; }

cat >"$WORK/f.yaml" <<YAML
train: {epochs: 9}
study:
  name: slurm
  seed: 12
  trials: 12
  round_size: 4
  objective: {function: hartmann6, direction: minimize}
  sampler: {name: tpe, n_startup_trials: 4}
  scheduler: {name: successive_halving, min_epochs: 1, eta: 3}
parameters:
  x0: {distribution: uniform, min: 0, max: 1}
  x1: {distribution: uniform, min: 0, max: 1}
  x2: {distribution: uniform, min: 0, max: 1}
  x3: {distribution: uniform, min: 0, max: 1}
  x4: {distribution: uniform, min: 0, max: 1}
  x5: {distribution: uniform, min: 0, max: 1}
YAML
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/ref"

# The CPU script, 2 tasks (MPI ranks through srun + PMIx).
# Each epoch takes 20 ms, so that both ranks are free to pull some of the trials.
id=$(FOXOPT_CONFIG="$WORK/f.yaml" FOXOPT_OUT="$WORK/cpu" FOXOPT_ARGS="--set study.objective.seconds=0.02" \
  sbatch --parsable --nodes=1 \
  --ntasks-per-node=2 --cpus-per-task=1 --output="$WORK/cpu-%j.out" "$FOX_SRC/slurm/foxopt-cpu.sbatch")
check "cpu job $id left the queue" job_wait "$id" 180
contains "$(cat "$WORK/cpu-$id.out")" "2 rank files"
same_table "2-task sbatch" "$WORK/ref/trials.csv" "$WORK/cpu/trials.csv"
check "both tasks ran trials" test "$(cut -d, -f7 "$WORK/cpu/trials.csv" | sort -u | grep -c '^[01]$')" -eq 2

# The array script: 3 studies, seeds 0 1 2, logs %A_%a.
id=$(FOXOPT_CONFIG="$WORK/f.yaml" FOXOPT_OUT="$WORK/arr" sbatch --parsable --array=0-2 \
  --cpus-per-task=1 --output="$WORK/arr-%A_%a.out" "$FOX_SRC/slurm/foxopt-array.sbatch")
check "array job $id left the queue" job_wait "$id" 180
for i in 0 1 2; do
  check "array task $i: log" test -s "$WORK/arr-${id}_$i.out"
  check "array task $i: 12 trials" test "$(($(wc -l <"$WORK/arr-$i/trials.csv" 2>/dev/null || echo 0) - 1))" -eq 12
  run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/aref$i" --set study.seed=$i
  same_table "array task $i vs a plain run with seed $i" "$WORK/aref$i/trials.csv" "$WORK/arr-$i/trials.csv"
done
check "the array's studies differ" not cmp -s <(table "$WORK/arr-0/trials.csv") <(table "$WORK/arr-1/trials.csv")

# Preemption: USR1 to the batch shell and the step, checkpoint, exit 75, requeue, resume.
id=$(FOXOPT_CONFIG="$WORK/f.yaml" FOXOPT_OUT="$WORK/pre" FOXOPT_ARGS="--set study.objective.seconds=0.1" \
  sbatch --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 --output="$WORK/pre-%j.out" \
  "$FOX_SRC/slurm/foxopt-cpu.sbatch")
for i in $(seq 600); do [ -e "$WORK/pre/study.h5" ] && break; sleep 0.05; done
scancel --signal=USR1 -f "$id"
# slurmctld holds a requeued batch job back for two minutes (BeginTime); release it sooner, but
# only once slurmd has cleaned up the old run (its slurmstepd gone), or the new run's step can
# fail to launch under the same step id.
for i in $(seq 300); do [ "$(state_of "$id")" = PENDING ] && break; sleep 0.1; done
check "preempted job $id requeued" test "$(state_of "$id")" = PENDING
for i in $(seq 300); do pgrep -x slurmstepd >/dev/null || break; sleep 0.1; done
scontrol update JobId="$id" StartTime=now
check "requeued job $id finished" job_wait "$id" 180
log=$(cat "$WORK/pre-$id.out")
contains "$log" "stopped by signal 10 after a clean checkpoint"
contains "$log" "checkpointed (exit 75): requeueing job $id"
contains "$log" "restart 1: foxopt run $WORK/f.yaml -o $WORK/pre --resume"
same_table "preempted, requeued, resumed" "$WORK/ref/trials.csv" "$WORK/pre/trials.csv"
check "job $id COMPLETED (got $(state_of "$id"))" test "$(state_of "$id")" = COMPLETED
# A failure here has been rare and timing-bound: keep what tells which run did what.
if [ "$FAILED" -ne 0 ]; then
  { echo "--- job log ($WORK/pre-$id.out)"; cat "$WORK/pre-$id.out"
    echo "--- trials.csv"; cat "$WORK/pre/trials.csv"
    echo "--- scontrol show job $id"; scontrol show job "$id"
    echo "--- slurmctld.log"; tail -40 "$WORK/cluster/log/slurmctld.log"
    echo "--- slurmd.log"; tail -40 "$WORK/cluster/log/slurmd.log"; } >&2 2>/dev/null
fi
# The installed copy (cmake --install): submitted from a directory that is no checkout, with no
# FOXOPT_HOME or FOXOPT_BIN and no foxopt on PATH, it finds foxopt-step.sh and the binary in
# its prefix by itself.
run_rc 0 cmake --install "$FOX_BUILD" --prefix "$WORK/pfx"
mkdir -p "$WORK/submit"
id=$(cd "$WORK/submit" && env -u FOXOPT_HOME -u FOXOPT_BIN FOXOPT_CONFIG="$WORK/f.yaml" \
  FOXOPT_OUT="$WORK/inst" FOXOPT_ARGS="--set study.objective.seconds=0.02" \
  sbatch --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 \
  --output="$WORK/inst-%j.out" "$WORK/pfx/share/foxopt/slurm/foxopt-cpu.sbatch")
check "installed cpu job $id left the queue" job_wait "$id" 180
contains "$(cat "$WORK/inst-$id.out")" "2 rank files"
same_table "the installed sbatch script" "$WORK/ref/trials.csv" "$WORK/inst/trials.csv"
done_
