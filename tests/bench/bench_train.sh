#!/usr/bin/env bash
# Training benchmark: env-steps/s of a whole DQN and a whole PPO run on one CPU core, foxopt
# against a CleanRL-style PyTorch loop (tests/bench/torch_ref.py) with the same networks,
# hyperparameters (DESIGN.md s8 defaults) and market, same machine, same script.
#   tests/bench/bench_train.sh [OUT.json]     (installs Debian's python3-torch when missing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
json=${1:-bench_train.json}
if ! /usr/bin/python3 -c 'import torch, h5py' 2>/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3-torch python3-h5py >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$fox" synth -o "$work/b.csv" --bars 60000 --seed 4 >/dev/null
"$fox" import "$work/b.csv" -o "$work/b.h5" >/dev/null
printf 'data: {path: %s}\ntrain: {epochs: 1}\n' "$work/b.h5" >"$work/cfg.yaml"
declare -A steps=([dqn]=60000 [ppo]=262144)
printf '# training benchmark, one core (OMP_NUM_THREADS=1, torch.set_num_threads(1)), 64 envs,\n'
printf '# DESIGN.md s8 defaults; torch %s\n' "$(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
printf '# %-5s %12s %16s %16s %10s\n' algo env-steps "foxopt st/s" "pytorch st/s" ratio
out="{"
for algo in dqn ppo; do
  n=${steps[$algo]}
  fox_sps=$(OMP_NUM_THREADS=1 "$fox" train "$work/cfg.yaml" -o "$work/$algo" --set train.algo=$algo \
    --set train.steps_per_epoch=$n --json 2>&1 >/dev/null | sed -n 's/.* \([0-9.]*\) env-steps\/s.*/\1/p')
  torch_sps=$(/usr/bin/python3 "$here/torch_ref.py" --algo $algo --h5 "$work/b.h5" --steps $n |
    sed -n 's/.*"env_steps_per_s": \([0-9.e+]*\).*/\1/p')
  ratio=$(awk -v a="$fox_sps" -v b="$torch_sps" 'BEGIN { printf "%.2f", a / b }')
  printf '  %-5s %12d %16.0f %16.0f %10s\n' $algo $n "$fox_sps" "$torch_sps" "$ratio"
  out="$out\"$algo\": {\"steps\": $n, \"foxopt_steps_per_s\": $fox_sps, \"torch_steps_per_s\": $torch_sps, \"ratio\": $ratio}, "
done
echo "${out%, }}" >"$json"
echo "# json: $json"
