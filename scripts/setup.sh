#!/usr/bin/env bash
# Installs the Debian packages foxopt needs (only those missing; quiet when all are there),
# optionally the Python test environment, then configures and builds.
#   scripts/setup.sh [--python] [--bench] [--slurm] [--preset NAME]...   (default preset: default;
#   the others: cpu, asan, cuda-emu, cuda-emu-asan)
# Without root (as on a cluster), or with --no-install, nothing is installed: the prerequisites
# are checked and each missing one is named with how to get it (`module load ...` or the Debian
# package); it stops with exit 2 when a required one is missing, and builds otherwise (--check:
# only the check, as root too).
# --python: .venv for the reference tests and benchmarks, and Chromium for e2e_report_html's
# look at the report page in a browser; --bench: --python plus torch,
# stable-baselines3 and gymnasium in .venv for tests/bench/bench_train.sh and bench_learn.sh (a
# large download: CI does not use it); --slurm: slurm-wlm and munge for the tests that start a
# one-machine SLURM
# cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

want_python=0
want_bench=0
want_slurm=0
install=1
check_only=0
[ "$(id -u)" -eq 0 ] || install=0
presets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --python) want_python=1 ;;
    --bench) want_python=1; want_bench=1 ;;
    --slurm) want_slurm=1 ;;
    --no-install) install=0 ;;
    --check) install=0; check_only=1 ;;
    --preset) [ $# -ge 2 ] || { echo "setup.sh: --preset needs a name (default, cpu, asan, cuda-emu, cuda-emu-asan)" >&2; exit 2; }
              presets+=("$2"); shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
[ ${#presets[@]} -gt 0 ] || presets=(default)

# Without root: what the build needs, looked for as a cluster provides it (modules put the
# tools on PATH and the libraries where pkg-config and CMake find them).
check_prerequisites() {
  local need=0 v
  have() { command -v "$1" >/dev/null 2>&1; }
  pc() { have pkg-config && pkg-config --exists "$1" 2>/dev/null; }
  lib() { ldconfig -p 2>/dev/null | grep -q "$1" || pc "$2"; }
  miss() { # miss required|optional WHAT MODULE DEBIAN
    echo "setup: missing ($1): $2 - on a cluster: module load $3 (or ask for it); on Debian:" \
      "apt-get install $4" >&2
    [ "$1" = required ] && need=1
    return 0
  }
  if have cmake; then
    v=$(cmake --version | sed -n '1s/.* \([0-9][0-9.]*\).*/\1/p')
    printf '3.25\n%s\n' "$v" | sort -V -C || miss required "CMake >= 3.25 (found $v)" cmake cmake
  else miss required "CMake >= 3.25" cmake cmake; fi
  have cc || have gcc || have clang || miss required "a C11 compiler (cc)" gcc build-essential
  have pkg-config || miss required "pkg-config" pkg-config pkg-config
  have mpicc || miss required "an MPI with mpicc" openmpi "openmpi-bin libopenmpi-dev"
  have h5cc || pc hdf5 || miss required "HDF5 with its C headers (h5cc)" hdf5 libhdf5-dev
  pc yaml-0.1 || miss required "libyaml (pkg-config yaml-0.1)" libyaml libyaml-dev
  pc jansson || miss required "jansson (pkg-config jansson)" jansson libjansson-dev
  lib libopenblas openblas || miss required "OpenBLAS" openblas libopenblas-dev
  pc zlib || lib "libz.so" zlib || miss required "zlib" zlib zlib1g-dev
  have nvcc || [ -x /usr/local/cuda/bin/nvcc ] ||
    miss optional "CUDA (nvcc; without it foxopt builds for the CPU)" cuda nvidia-cuda-toolkit
  pc libxsmm || miss optional "libxsmm (faster small GEMMs)" libxsmm libxsmm-dev
  pc librsvg-2.0 || miss required "librsvg (pkg-config librsvg-2.0: report's PNGs)" librsvg \
    "librsvg2-dev fonts-dejavu-core"
  { have protoc-c && pc libprotobuf-c; } ||
    miss optional "protobuf-c (export --onnx)" protobuf-c "protobuf-c-compiler libprotobuf-c-dev"
  if [ $need -ne 0 ]; then
    echo "setup: a required prerequisite is missing (above); nothing was built" >&2
    exit 2
  fi
  echo "setup: prerequisites found (nothing installed: not root, or --no-install)"
  [ $check_only -eq 0 ] || exit 0
}

pkgs=(build-essential cmake pkg-config gzip xz-utils ca-certificates
      openmpi-bin libopenmpi-dev libhdf5-dev hdf5-tools libyaml-dev libopenblas-dev zlib1g-dev
      libjansson-dev protobuf-c-compiler libprotobuf-c-dev
      librsvg2-dev fonts-dejavu-core clang libclang-rt-14-dev libxsmm-dev
      man-db environment-modules zsh)
# man-db, environment-modules and zsh: e2e_install reads the installed pages with man, loads
# the modulefile with `module load`, and e2e_cli checks the zsh completion's syntax.
# chromium: e2e_export_optuna screenshots optuna-dashboard's page of an exported study,
# e2e_report_html opens report.html (driven through websocket-client).
[ $want_python -eq 1 ] && pkgs+=(python3 python3-venv python3-pip chromium)
[ $want_slurm -eq 1 ] && pkgs+=(slurm-wlm munge)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ $install -eq 0 ]; then
  check_prerequisites
elif [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# The test references need numpy, h5py and scipy (selection_ref.py), and are judged against
# TA-Lib (PyPI's wheels bundle TA-Lib C 0.8) and empyrical; foxopt export's journal is loaded
# with Optuna and served by optuna-dashboard; websocket-client drives Chromium through the
# DevTools protocol.
if [ $want_python -eq 1 ]; then
  if ! .venv/bin/python -c 'import numpy, h5py, scipy, talib, empyrical, optuna' 2>/dev/null; then
    echo "setup: making .venv (numpy, h5py, scipy, ta-lib, empyrical-reloaded, optuna," \
      "optuna-dashboard)"
    rm -rf .venv
    /usr/bin/python3 -m venv .venv
    .venv/bin/pip install -q --disable-pip-version-check numpy h5py scipy ta-lib \
      empyrical-reloaded optuna optuna-dashboard
  elif ! .venv/bin/python -c 'import optuna_dashboard' 2>/dev/null; then
    echo "setup: adding optuna-dashboard to .venv"
    .venv/bin/pip install -q --disable-pip-version-check optuna-dashboard
  fi
  if ! .venv/bin/python -c 'import websocket' 2>/dev/null; then
    echo "setup: adding websocket-client to .venv (tests/e2e/html_browser.py)"
    .venv/bin/pip install -q --disable-pip-version-check websocket-client
  fi
  # export --onnx/--safetensors are judged by onnx's checker, onnxruntime and safetensors.
  if ! .venv/bin/python -c 'import onnx, onnxruntime, safetensors' 2>/dev/null; then
    echo "setup: adding onnx, onnxruntime and safetensors to .venv (tests/e2e/export_policy.py)"
    .venv/bin/pip install -q --disable-pip-version-check onnx onnxruntime safetensors
  fi
  # the live metrics' TensorBoard events are read back by TensorBoard's own EventAccumulator
  if ! .venv/bin/python -c 'import tensorboard' 2>/dev/null; then
    echo "setup: adding tensorboard to .venv (tests/e2e/live_metrics.py)"
    .venv/bin/pip install -q --disable-pip-version-check tensorboard
  fi
  # The learning benchmark trains Stable-Baselines3 (PyTorch) on foxopt's market.
  if [ $want_bench -eq 1 ] && ! .venv/bin/python -c 'import torch, stable_baselines3, gymnasium' \
      2>/dev/null; then
    echo "setup: adding torch, stable-baselines3, gymnasium to .venv (tests/bench/bench_learn.sh)"
    .venv/bin/pip install -q --disable-pip-version-check torch stable-baselines3 gymnasium
  fi
fi

# nvcc is found through PATH; the toolkit's usual home is added when present.
[ -d /usr/local/cuda/bin ] && export PATH="/usr/local/cuda/bin:$PATH"
jobs=$(nproc 2>/dev/null || echo 2)
for preset in "${presets[@]}"; do
  extra=()
  [ -x .venv/bin/python ] && extra+=(-DFOX_PYTHON="$PWD/.venv/bin/python")
  cmake --preset "$preset" "${extra[@]}" >/dev/null
  cmake --build --preset "$preset" -j "$jobs" >build/"$preset".log 2>&1 || {
    tail -40 build/"$preset".log; echo "setup: build of preset $preset failed" >&2; exit 1; }
  echo "setup: built build/$preset/foxopt"
done
