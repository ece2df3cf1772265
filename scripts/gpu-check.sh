#!/usr/bin/env bash
# The device check, for a machine with a CUDA GPU: every gpu-labelled test (each CUDA kernel
# against its CPU twin), the GPU benchmark, two short studies on the device (one rank whose
# step results go through NCCL, and configs/l4-5trials.yaml's five trials at once on one GPU,
# each in its own thread and stream), and the headline run: five DQN trials at the defaults x
# 300,000 train bars x 1 epoch at once on one GPU, with its wall time, each trial's env-steps/s
# and the GPU's utilisation sampled by nvidia-smi while it runs, printed beside the device-time
# model's prediction for this GPU (tests/bench/bench_device_model, computed on the emulation);
# the model's counts measured on the device too (calibration); a short table last. Two ways:
#   bash scripts/gpu-check.sh                      build here with CUDA (needs the packages)
#   bash scripts/gpu-check.sh --bundle DIR         run binaries packed by scripts/gpu-bundle.sh
#   bash scripts/gpu-check.sh --bundle FILE.tar.xz (the lent device machine has no registry;
#                                                  the archive is unpacked beside it first)
# Logs go under ${OUT:-build/gpu-check}.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-build/gpu-check}
mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader >"$out/gpu.txt" 2>&1
if [ "${1:-}" = --bundle ]; then
  dir=$2
  case $dir in
  *.tar.xz) # unpacked by tar, or by Python's tarfile where there is no xz
    parent=$(dirname "$dir")
    { tar -C "$parent" -xJf "$dir" 2>/dev/null ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' \
        "$dir" "$parent"; } || { echo "gpu-check: cannot unpack $dir" >&2; exit 1; }
    dir=$parent/gpu-bundle ;;
  esac
  export LD_LIBRARY_PATH="$PWD/$dir/lib:/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}"
  bin=$dir/bin
else
  bash scripts/setup.sh --preset default --preset cuda-emu >"$out/setup.log" 2>&1 ||
    { tail -30 "$out/setup.log"; exit 1; }
  bin=""
  build/cuda-emu/tests/bench/bench_device_model "$out/model.json" >"$out/model.txt" 2>&1
fi
model=${dir:+$dir/model.json}
model=${model:-$out/model.json}
status=0
rows=()
if [ -n "$bin" ]; then
  for t in "$bin"/test_gpu_* "$bin"/test_pop; do
    name=$(basename "$t")
    args=()
    [ "$name" = test_pop ] && name=test_gpu_pop args=(cuda) # populations on the device
    timeout 300 "$t" "${args[@]}" >"$out/$name.log" 2>&1
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
# The device-resident loop's launches, syncs and memory (tests/bench/bench_device.c).
timeout 300 "${bench%/*}/bench_device" "$out/bench_device.json" >"$out/bench_device.txt" 2>&1 ||
  status=1
# The model's counts on the device, and each window timed (tests/bench/bench_device_model.c).
timeout 300 "${bench%/*}/bench_device_model" "$out/bench_device_model.json" \
  >"$out/bench_device_model.txt" 2>&1 || status=1

# Studies on the device: a small synthetic dataset, the l4 config cut down to a minute.
if [ -n "$bin" ]; then
  fox=$bin/foxopt cfg=$dir/l4-5trials.yaml
  [ -d "$dir/mca" ] && export OMPI_MCA_mca_base_component_path="$PWD/$dir/mca"
else
  fox=build/default/foxopt cfg=configs/l4-5trials.yaml
fi
study() { # study NAME ARGS...: one foxopt run on the device, a row for the table
  local name=$1 t0 rc
  shift
  t0=$(date +%s)
  timeout 240 "$fox" run "$cfg" -o "$out/$name" --backend cuda --set data.path="$out/gpu.h5" \
    --set study.trials=10 --set study.round_size=5 --set train.steps_per_epoch=65536 \
    --set study.scheduler.max_epochs=3 --set dqn.learning_starts=2000 "$@" \
    >"$out/$name.log" 2>&1
  rc=$?
  [ $rc -eq 0 ] || status=1
  rows+=("$(printf '  %-24s %s in %ss  %s' "$name" "$([ $rc -eq 0 ] && echo passed || echo "FAILED ($rc)")" \
    "$(($(date +%s) - t0))" "$(grep 'trial thread' "$out/$name.log")")")
}
if "$fox" synth -o "$out/gpu.csv" --bars 60000 --seed 3 >/dev/null 2>&1 &&
   "$fox" import "$out/gpu.csv" -o "$out/gpu.h5" >/dev/null 2>&1; then
  rm -rf "$out/study_nccl" "$out/study_5trials"
  study study_nccl --set study.trials_per_device=1   # one rank: its sums go through NCCL
  study study_5trials                                 # five trials at once on the GPU
else
  status=1
  rows+=("  studies                  FAILED: no dataset")
fi
# The headline: five DQN trials at the defaults, 300,000 train bars, one epoch, all at once.
headline() {
  local bars=430013 t0 rc smi # train = floor(0.7 (bars - 1441)) = 300,000
  "$fox" synth -o "$out/h.csv" --bars $bars --seed 5 >/dev/null 2>&1 &&
    "$fox" import "$out/h.csv" -o "$out/h.h5" >/dev/null 2>&1 || {
    rows+=("  headline                 FAILED: no dataset"); status=1; return; }
  cat >"$out/h.yaml" <<YAML
data: {path: $out/h.h5}
train: {algo: dqn, epochs: 1, backend: cuda}
study: {name: headline, seed: 1, trials: 5, round_size: 5, trials_per_device: 5,
        sampler: {name: random}}
parameters: {dqn.lr: {value: 2.5e-4}}
YAML
  rm -rf "$out/headline"
  nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader,nounits -lms 500 \
    >"$out/headline-smi.csv" 2>/dev/null &
  smi=$!
  t0=$(date +%s.%N)
  timeout 600 "$fox" run "$out/h.yaml" -o "$out/headline" >"$out/headline.log" 2>&1
  rc=$?
  local wall; wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  kill $smi 2>/dev/null
  [ $rc -eq 0 ] || status=1
  local util mem sps
  util=$(awk -F, '$1 + 0 > 0 { s += $1; n++ } END { printf "%.0f%% mean of %d busy samples", n ? s / n : 0, n }' "$out/headline-smi.csv")
  mem=$(awk -F, '{ m = $2 > m ? $2 : m } END { printf "%d MiB", m }' "$out/headline-smi.csv")
  sps=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seconds") c = i; next }
    c { printf "%s%.0f", NR > 2 ? ", " : "", 300000 / $c }' "$out/headline/trials.csv" 2>/dev/null)
  rows+=("$(printf '  %-24s %s in %ss; env-steps/s per trial: %s; GPU busy %s; peak %s' headline \
    "$([ $rc -eq 0 ] && echo passed || echo "FAILED ($rc)")" "$wall" "$sps" "$util" "$mem")")
  # The model's prediction for this GPU (the 5 trials as one population with graphs, the
  # default), from model.json's one line.
  local kind pred
  kind=$(grep -oE 'H200|H100|L4' "$out/gpu.txt" | head -1)
  if [ -n "$kind" ] && [ -f "$model" ]; then
    pred=$(grep -oE "\"${kind}_population\": \{[^}]*\}" "$model" |
      sed -E 's/.*"wall_lo": ([0-9.]+), "wall_hi": ([0-9.]+).*/\1 - \2/')
    rows+=("$(printf '  %-24s predicted %s s (%s, a population of 5 with graphs; tests/bench/bench_device_model), measured %s s' \
      "headline model" "$pred" "$kind" "$wall")")
  else
    rows+=("  headline model           no prediction for this GPU (model.json: L4, H100 and H200)")
  fi
}
headline

echo "== gpu-check on $(cat "$out/gpu.txt")"
printf '%s\n' "${rows[@]}"
cat "$out/bench_gpu.txt" "$out/bench_device.txt" "$out/bench_device_model.txt"
[ $status -eq 0 ] && echo "gpu-check: all passed" || echo "gpu-check: FAILED (logs in $out)"
exit $status
