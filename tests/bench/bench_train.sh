#!/usr/bin/env bash
# Training benchmark: env-steps/s of a whole DQN and a whole PPO run on one CPU core, foxopt
# against a CleanRL-style PyTorch loop (tests/bench/torch_ref.py, torch from PyPI in .venv) with
# the same networks, hyperparameters (DESIGN.md s8 defaults) and market, same machine, same
# script; and the GFLOP/s each reaches against the GEMM rate at the same shapes (bench_gemm:
# the GEMMs of one DQN update and one PPO minibatch through foxopt's GEMM library).
#   tests/bench/bench_train.sh [OUT.json]      (installs torch into .venv when missing)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
gemm=${BENCH_GEMM:-$(dirname "$fox")/tests/bench/bench_gemm}
py=${FOX_PYTHON:-$root/.venv/bin/python}
json=${1:-bench_train.json}
if ! "$py" -c 'import torch, h5py' 2>/dev/null; then
  bash "$root/scripts/setup.sh" --python --bench >/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
"$fox" synth -o "$work/b.csv" --bars 60000 --seed 4 >/dev/null
"$fox" import "$work/b.csv" -o "$work/b.h5" >/dev/null
printf 'data: {path: %s}\ntrain: {epochs: 1}\n' "$work/b.h5" >"$work/cfg.yaml"
"$gemm" "$work/gemm.json" >"$work/gemm.txt"
rate() { sed -n "s/.*\"$1\": {[^}]*\"foxopt_gflops\": \([0-9.]*\).*/\1/p" "$work/gemm.json"; }
declare -A steps=([dqn]=60000 [ppo]=262144) gemm_rate=([dqn]=$(rate dqn_update) [ppo]=$(rate ppo_minibatch))
# GEMM flops per transition at the defaults (2 m n k per GEMM; backward: dW on every layer, dX
# on all but the first). DQN: one update of 128 per 4 transitions = target forward on s' (128
# rows), online forward on s and s' (256), backward (128), plus the acting forward (1 row).
# PPO: the acting forwards of actor and critic, then 4 epochs of forward + backward of both.
mlp_flops() { # mlp_flops ROWS BACKWARD DIMS...
  awk 'BEGIN { f = 0; for (l = 3; l < ARGC - 1; l++) {
    m = ARGV[l] * ARGV[l + 1]; f += 2 * ARGV[1] * m * (ARGV[2] ? (l > 3 ? 2 : 1) : 1) } print f }' "$@"
}
q="54 128 128 3"; a="54 64 64 3"; v="54 64 64 1"
# shellcheck disable=SC2086
dqn_f=$(awk -v t="$(mlp_flops 128 0 $q)" -v o="$(mlp_flops 256 0 $q)" -v bk="$(mlp_flops 128 1 $q)" \
  -v act="$(mlp_flops 1 0 $q)" 'BEGIN { print (t + o + bk) / 4 + act }')
# shellcheck disable=SC2086
ppo_f=$(awk -v fa="$(mlp_flops 1 0 $a)" -v fv="$(mlp_flops 1 0 $v)" -v ba="$(mlp_flops 1 1 $a)" \
  -v bv="$(mlp_flops 1 1 $v)" 'BEGIN { print fa + fv + 4 * (fa + fv + ba + bv) }')
declare -A flops=([dqn]=$dqn_f [ppo]=$ppo_f)
printf '# training benchmark, one core (OMP_NUM_THREADS=1, torch.set_num_threads(1)), 64 envs,\n'
printf '# DESIGN.md s8 defaults; torch %s (PyPI); foxopt GEMMs: %s\n' \
  "$("$py" -c 'import torch; print(torch.__version__)')" "$(sed -n 's/.*"library": "\([^"]*\)".*/\1/p' "$work/gemm.json")"
printf '# kflop/step: GEMM flops per transition; GFLOP/s: foxopt steps/s x kflop/step; gemm: the\n'
printf '# GEMM rate of the same shapes (bench_gemm); ceiling: steps/s if foxopt did nothing but\n'
printf '# those GEMMs at that rate, and its ratio to PyTorch\n'
printf '# %-4s %9s %12s %12s %7s %9s %8s %8s %10s %8s\n' algo env-steps "foxopt st/s" "pytorch st/s" \
  ratio kflop/step GFLOP/s gemm ceiling "ceil/pt"
out="{"
for algo in dqn ppo; do
  n=${steps[$algo]}
  fox_sps=$("$fox" train "$work/cfg.yaml" -o "$work/$algo" --set train.algo=$algo \
    --set train.steps_per_epoch=$n --json 2>&1 >/dev/null | sed -n 's/.* \([0-9.]*\) env-steps\/s.*/\1/p')
  torch_sps=$("$py" "$here/torch_ref.py" --algo $algo --h5 "$work/b.h5" --steps $n |
    sed -n 's/.*"env_steps_per_s": \([0-9.e+]*\).*/\1/p')
  read -r ratio kf gf ceil cr < <(awk -v a="$fox_sps" -v b="$torch_sps" -v f="${flops[$algo]}" \
    -v g="${gemm_rate[$algo]}" 'BEGIN { c = g * 1e9 / f
      printf "%.2f %.1f %.1f %.0f %.2f\n", a / b, f / 1e3, a * f / 1e9, c, c / b }')
  printf '  %-4s %9d %12.0f %12.0f %7s %9s %8s %8s %10s %8s\n' $algo "$n" "$fox_sps" "$torch_sps" \
    "$ratio" "$kf" "$gf" "${gemm_rate[$algo]}" "$ceil" "$cr"
  out="$out\"$algo\": {\"steps\": $n, \"foxopt_steps_per_s\": $fox_sps, \"torch_steps_per_s\": $torch_sps, \"ratio\": $ratio, \"kflop_per_step\": $kf, \"foxopt_gflops\": $gf, \"gemm_gflops\": ${gemm_rate[$algo]}, \"gemm_ceiling_steps_per_s\": $ceil, \"ceiling_ratio\": $cr}, "
done
echo "${out%, }}" >"$json"
sed 's/^/# bench_gemm: /' "$work/gemm.txt" | grep -v json
echo "# json: $json"
