#!/usr/bin/env bash
# Sets everything up and runs the test suite: the default build (all labels but slow, gpu and
# slurm), the slurm tests (a one-machine SLURM cluster started by the test, root only), the gpu
# tests on the host emulation of CUDA (cuda-emu: no GPU needed, none may skip), the same tests
# on the emulation's asynchronous engine with its stream sanitizer under three delay seeds
# (cuda-emu-async), then the default suite and the emulated gpu tests again under ASan + UBSan.
# `--quick` skips the ASan pass.
set -euo pipefail
cd "$(dirname "$0")/.."
presets=(default cuda-emu asan cuda-emu-asan)
[ "${1:-}" = --quick ] && presets=(default cuda-emu)
args=()
for p in "${presets[@]}"; do args+=(--preset "$p"); done
bash scripts/setup.sh --python --slurm "${args[@]}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
status=0
for p in "${presets[@]}"; do
  echo "== ctest --preset $p"
  ctest --preset "$p" || status=1
  if [ "$p" = default ]; then
    echo "== ctest --preset slurm"
    ctest --preset slurm || status=1
  fi
  if [ "$p" = cuda-emu ]; then
    echo "== ctest --preset cuda-emu-async"
    ctest --preset cuda-emu-async || status=1
  fi
done
exit $status
