#!/usr/bin/env bash
# The device check, for a machine with a CUDA GPU: build with CUDA, run every gpu-labelled test
# (each CUDA kernel against its CPU twin) and the GPU benchmark, and print a short table last.
# Writes logs under ${OUT:-build/gpu-check}. Run as one command: it installs what it needs.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/gpu-check}
mkdir -p "$out"
bash scripts/setup.sh --preset default >"$out/setup.log" 2>&1 || { tail -30 "$out/setup.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ctest --test-dir build/default -L gpu --output-on-failure >"$out/ctest-gpu.log" 2>&1
gpu_rc=$?
bench_rc=0
if [ -x build/default/tests/bench/bench_gpu ]; then
  build/default/tests/bench/bench_gpu "$out/bench_gpu.json" >"$out/bench_gpu.txt" 2>&1
  bench_rc=$?
fi
echo "== gpu-check: $(cat "$out/gpu.txt")"
grep -E "Test +#|tests passed|Skipped" "$out/ctest-gpu.log"
[ -s "$out/bench_gpu.txt" ] && cat "$out/bench_gpu.txt"
if grep -q "Skipped" "$out/ctest-gpu.log"; then
  echo "gpu-check: a gpu test skipped on a GPU machine: the device was not usable" >&2
  exit 1
fi
[ $gpu_rc -eq 0 ] && [ $bench_rc -eq 0 ]
