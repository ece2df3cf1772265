# Shared helpers for the shell tests: a scratch dir, counted checks, the summary line.
# Sourced by tests/e2e/*.sh; $FOXOPT, $FOX_SRC, $FOX_PYTHON, $FOX_SHARED_DATA come from CTest.
set -u
: "${FOXOPT:?FOXOPT must point at the foxopt binary}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/foxtest.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The test's own Open MPI session directory: singletons of tests that CTest runs in parallel
# race on the shared one (Open MPI 4: one's cleanup removes the top directory while another's
# MPI_Init creates under it, "orte_session_dir failed", exit 1 before foxopt runs).
mkdir -p "$WORK/ompi"
export OMPI_MCA_orte_tmpdir_base="$WORK/ompi"
PASSED=0
FAILED=0

ok() { PASSED=$((PASSED + 1)); }
bad() { FAILED=$((FAILED + 1)); echo "FAIL: $*" >&2; }
check() { # check DESCRIPTION CMD...
  local what=$1; shift
  if "$@"; then ok; else bad "$what"; fi
}
# run_rc EXPECTED_RC CMD...: runs CMD capturing $OUT_TXT and $ERR_TXT, checks the exit code.
run_rc() {
  local want=$1; shift
  "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
  RC=$?
  OUT_TXT=$(cat "$WORK/out.txt")
  ERR_TXT=$(cat "$WORK/err.txt")
  if [ "$RC" -eq "$want" ]; then ok; else bad "exit $RC, expected $want: $* :: $ERR_TXT"; fi
}
not() { ! "$@"; }
# branin_sh_yaml NAME SEED TRIALS ROUND STARTUP: the Branin study under successive halving (9
# epochs: rungs 1, 3, 9) that the study, lock and extend tests share, on stdout.
branin_sh_yaml() {
  cat <<YAML
train: {epochs: 9}
study:
  name: $1
  seed: $2
  trials: $3
  round_size: $4
  objective: {function: branin, direction: minimize}
  sampler: {name: tpe, n_startup_trials: $5}
  scheduler: {name: successive_halving, min_epochs: 1, eta: 3}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
}
contains() { # contains HAYSTACK NEEDLE
  case "$1" in *"$2"*) ok ;; *) bad "expected '$2' in: $1" ;; esac
}
need_python() {
  if [ -z "${FOX_PYTHON:-}" ] || ! "$FOX_PYTHON" -c 'import numpy, h5py' 2>/dev/null; then
    echo "skipped: no Python with numpy and h5py (run scripts/test.sh to make .venv)"
    exit 77
  fi
}
# table FILE.csv: a trials.csv without its rank, seconds, start and end columns (found by name:
# a pbt study's lineage columns come before them; never quoted), what must not depend on how
# many ranks or threads ran it, or when.
table() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++)
                       drop[i] = $i == "rank" || $i == "seconds" || $i == "start" || $i == "end" }
           { line = ""; for (i = 1; i <= NF; i++) if (!drop[i]) line = line (line == "" ? "" : ",") $i
             print line }' "$1"
}
same_table() { # same_table WHAT A.csv B.csv
  if diff <(table "$2") <(table "$3") >"$WORK/diff.txt"; then ok; else
    bad "$1: tables differ: $(head -5 "$WORK/diff.txt")"; fi
}
done_() {
  echo "$(basename "$0"): $PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}
# is_png FILE: the PNG signature, an IHDR of at least 320 x 200 pixels, more than 4 kB.
is_png() {
  local head w h
  [ -f "$1" ] || return 1
  head=$(head -c 24 "$1" | od -An -tx1 | tr -d ' \n')
  [ "${head:0:16}" = 89504e470d0a1a0a ] && [ "${head:24:8}" = 49484452 ] || return 1
  w=$((16#${head:32:8})); h=$((16#${head:40:8}))
  [ "$w" -ge 320 ] && [ "$h" -ge 200 ] && [ "$(wc -c <"$1")" -gt 4000 ]
}
# stop_when FILE CMD...: runs CMD and sends it SIGTERM as soon as FILE appears (the study's
# first checkpoint), so the stop lands mid-study on a fast or a loaded machine; sets RC.
stop_when() {
  local file=$1; shift
  "$@" >"$WORK/stop.out" 2>"$WORK/stop.err" &
  local pid=$! i
  for i in $(seq 600); do
    [ -e "$file" ] && break
    sleep 0.05
  done
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
  RC=$?
}
# tiny_agent_fixture: $WORK/s.csv (3000 synthetic bars), its dataset s.h5, a.csv (an action
# for each of the val split's 233 bars) and t.yaml (a tiny DQN on the CPU, one epoch of 256
# steps): what the file-handling tests train, run and spoil.
tiny_agent_fixture() {
  "$FOXOPT" synth -o "$WORK/s.csv" --bars 3000 --seed 3 >/dev/null
  "$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
  { echo action; for i in $(seq 233); do echo $((i % 3)); done; } >"$WORK/a.csv"
  cat >"$WORK/t.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 4, episode_bars: 128}
train: {algo: dqn, epochs: 1, steps_per_epoch: 256, seed: 7, backend: cpu}
dqn: {hidden: [8], learning_starts: 64, buffer_size: 512, batch_size: 16, target_update: 50}
YAML
}
