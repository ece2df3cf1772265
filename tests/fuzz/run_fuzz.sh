#!/usr/bin/env bash
# run_fuzz.sh FUZZER SECONDS NAME [SEED_DIR...]: a bounded libFuzzer run over a scratch copy of
# the seed corpus corpus/NAME (and of each SEED_DIR, e.g. the real configs), with NAME.dict.
# Exit 0 when nothing was found; libFuzzer's non-zero exit (and the crashing input) otherwise.
set -u
fuzzer=$1 seconds=$2 name=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/foxfuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$here/corpus/$name"/* "$work/"
for dir in "$@"; do
  cp "$dir"/* "$work/"
done
mkdir -p "$work/found"
# -error_exitcode=1: libFuzzer's own default is 77, which CTest reads as a skip, so a finding
# would have passed for a skipped test
"$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -error_exitcode=1 -timeout_exitcode=1 \
  -dict="$here/$name.dict" -artifact_prefix="$work/found/" -print_final_stats=1 "$work" \
  >"$work/log" 2>&1
rc=$?
grep -E '^stat::(number_of_executed_units|new_units_added|peak_rss_mb)|^#[0-9]+.*DONE' "$work/log"
if [ $rc -ne 0 ]; then
  tail -60 "$work/log"
  for f in "$work"/found/*; do
    [ -e "$f" ] && { echo "finding: $f"; od -c "$f" | head -20; }
  done
  echo "fuzz: 0 passed, 1 failed"
  exit $rc
fi
echo "fuzz: 1 passed, 0 failed"
