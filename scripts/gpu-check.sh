#!/usr/bin/env bash
# The device check, for a machine with a CUDA GPU: every gpu-labelled test (each CUDA kernel
# against its CPU twin) and the GPU benchmark, with a short table last. Two ways:
#   bash scripts/gpu-check.sh                      build here with CUDA (needs the packages)
#   bash scripts/gpu-check.sh --bundle DIR         run binaries packed by scripts/gpu-bundle.sh
#                                                  (the lent device machine has no registry)
# Logs go under ${OUT:-build/gpu-check}.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
if [ "${1:-}" = --bundle ]; then
  dir=$2
  export LD_LIBRARY_PATH="$PWD/$dir/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}"
  bin=$dir/bin
else
  bash scripts/setup.sh --preset default >"$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
  bin=""
fi
status=0
rows=()
if [ -n "$bin" ]; then
  for t in "$bin"/test_gpu_*; do
    name=$(basename "$t")
    timeout 300 "$t" >"$out/$name.log" 2>&1
    rc=$?
    case $rc in 0) res=passed ;; 77) res=SKIPPED; status=1 ;; *) res="FAILED ($rc)"; status=1 ;; esac
    rows+=("$(printf '  %-24s %s  %s' "$name" "$res" "$(tail -1 "$out/$name.log")")")
  done
  bench=$bin/bench_gpu
else
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  ctest --test-dir build/default -L gpu --output-on-failure >"$out/ctest-gpu.log" 2>&1 || status=1
  grep -q "Skipped" "$out/ctest-gpu.log" && status=1
  while read -r line; do rows+=("  $line"); done < <(grep -E "Test +#" "$out/ctest-gpu.log")
  bench=build/default/tests/bench/bench_gpu
fi
timeout 300 "$bench" "$out/bench_gpu.json" >"$out/bench_gpu.txt" 2>&1 || status=1
echo "== gpu-check on $(cat "$out/gpu.txt")"
printf '%s\n' "${rows[@]}"
cat "$out/bench_gpu.txt"
[ $status -eq 0 ] && echo "gpu-check: all passed" || echo "gpu-check: FAILED (logs in $out)"
exit $status
