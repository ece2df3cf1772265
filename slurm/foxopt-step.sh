# Sourced by the sbatch scripts of slurm/: runs one foxopt study as a job step and survives
# preemption. SLURM sends USR1 to the batch shell (--signal=B:USR1@300, or scancel --signal);
# the trap forwards it to the step, whose ranks agree, checkpoint and exit 75; the script then
# requeues the job, and the next run continues with --resume (--open-mode=append keeps one log).
#
#   foxopt_study CONFIG OUTDIR [foxopt run args...]
#
# Environment: FOXOPT_BIN (default: an installed copy's own binary, PREFIX/bin/foxopt beside
# PREFIX/share/foxopt/slurm, else foxopt on PATH, else build/default/foxopt under the submit
# directory), FOXOPT_SRUN_ARGS (extra srun arguments).

# `cmake --install` sets this to 1 in the installed copy (cmake/FoxInstall.cmake); the binary is
# then found from this file's own place, so a prefix moved whole runs its own binary.
FOXOPT_INSTALLED=0
FOXOPT_STEP_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

foxopt_bin() {
  if [ -n "${FOXOPT_BIN:-}" ]; then echo "$FOXOPT_BIN"
  elif [ "$FOXOPT_INSTALLED" = 1 ] && [ -x "$FOXOPT_STEP_DIR/../../../bin/foxopt" ]; then
    echo "$FOXOPT_STEP_DIR/../../../bin/foxopt"
  elif command -v foxopt >/dev/null 2>&1; then command -v foxopt
  else echo "${SLURM_SUBMIT_DIR:-.}/build/default/foxopt"; fi
}

foxopt_study() {
  local config=$1 out=$2 fox rc step
  shift 2
  fox=$(foxopt_bin)
  # srun and the trial threads get the CPUs of the task (SLURM 22.05+ no longer passes them).
  export SRUN_CPUS_PER_TASK=${SLURM_CPUS_PER_TASK:-1}
  export OMP_NUM_THREADS=${SLURM_CPUS_PER_TASK:-1}
  local resume=()
  [ -e "$out/study.h5" ] && resume=(--resume)
  echo "[$(date -u +%FT%TZ)] job ${SLURM_JOB_ID:-?}${SLURM_ARRAY_TASK_ID:+ task $SLURM_ARRAY_TASK_ID}" \
       "restart ${SLURM_RESTART_COUNT:-0}: foxopt run $config -o $out ${resume[*]}"
  # A task that dies takes the step down at once (no rank waits on a dead peer).
  srun --kill-on-bad-exit=1 ${FOXOPT_SRUN_ARGS:-} "$fox" run "$config" -o "$out" \
    "${resume[@]}" "$@" &
  step=$!
  trap 'echo "[$(date -u +%FT%TZ)] signal: stopping the study at its next safe point"; kill -USR1 $step 2>/dev/null' USR1 TERM
  wait $step
  rc=$?
  # A trapped signal interrupts wait (status > 128): wait again for the step itself.
  while kill -0 $step 2>/dev/null; do
    wait $step
    rc=$?
  done
  trap - USR1 TERM
  if [ $rc -eq 75 ]; then
    echo "[$(date -u +%FT%TZ)] checkpointed (exit 75): requeueing job ${SLURM_JOB_ID:-?}"
    scontrol requeue "$SLURM_JOB_ID"
  fi
  return $rc
}
