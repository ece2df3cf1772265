# Shared helpers for the shell tests: a scratch dir, counted checks, the summary line.
# Sourced by tests/e2e/*.sh; $FOXOPT, $FOX_SRC, $FOX_PYTHON, $FOX_SHARED_DATA come from CTest.
set -u
: "${FOXOPT:?FOXOPT must point at the foxopt binary}"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/foxtest.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
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
contains() { # contains HAYSTACK NEEDLE
  case "$1" in *"$2"*) ok ;; *) bad "expected '$2' in: $1" ;; esac
}
need_python() {
  if [ -z "${FOX_PYTHON:-}" ] || ! "$FOX_PYTHON" -c 'import numpy, h5py' 2>/dev/null; then
    echo "skipped: no Python with numpy and h5py (run scripts/test.sh to make .venv)"
    exit 77
  fi
}
done_() {
  echo "$(basename "$0"): $PASSED passed, $FAILED failed"
  [ "$FAILED" -eq 0 ]
}
