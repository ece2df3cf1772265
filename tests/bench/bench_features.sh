#!/usr/bin/env bash
# Feature-width benchmark (issue 26): what the state's width costs. One core, one dataset of
# synthetic bars with 3 user columns; DQN and PPO at the DESIGN.md s8 defaults train one epoch
# with 13 features (10 built-in + 3 user), the 51 built-in ones (the reference, as before user
# features) and all 54; env-steps/s and the ratio to the 51's, in the same script. Also the
# import of the CSV with and without the user columns (seconds, file bytes).
#   tests/bench/bench_features.sh [OUT.json]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
py=${FOX_PYTHON:-$root/.venv/bin/python}
json=${1:-bench_features.json}
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1
bars=${BENCH_BARS:-200000}
"$fox" synth -o "$work/s.csv" --bars "$bars" --seed 4 >/dev/null
awk -F, 'BEGIN { OFS = "," } NR == 1 { print $0, "u_a", "u_b", "u_c"; next }
  { print $0, sin(NR / 50.0), ($5 - $2) / $2 * 100, (NR % 7) - 3 }' "$work/s.csv" >"$work/u.csv"
secs() { # secs CMD...: wall seconds of CMD
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
imp_s=$(secs "$fox" import "$work/s.csv" -o "$work/s.h5")
imp_u=$(secs "$fox" import "$work/u.csv" -o "$work/u.h5")
size_s=$(stat -c %s "$work/s.h5") size_u=$(stat -c %s "$work/u.h5")
builtin10="ret_1, ret_5, ret_15, vol_60, ewm_vol, rsi_14, macd, bb_pctb, volume_z, tod_sin"
all54=$("$py" -c 'import sys, h5py; print(", ".join(x.decode() for x in h5py.File(sys.argv[1])["feature_names"][:]))' "$work/u.h5")
declare -A sel=([13]="[$builtin10, u_a, u_b, u_c]" [51]="" [54]="[$all54]")
printf '# feature-width benchmark: %d bars, one core (OMP_NUM_THREADS=1), DESIGN.md s8 defaults\n' "$bars"
printf '# import: %s s without user columns (%d bytes), %s s with 3 (%d bytes)\n' "$imp_s" \
  "$size_s" "$imp_u" "$size_u"
printf '# %-4s %8s %10s %12s %8s\n' algo features env-steps "env-steps/s" "vs 51"
out="{\"bars\": $bars, \"import_s\": $imp_s, \"import_user_s\": $imp_u, \"bytes\": $size_s, \"bytes_user\": $size_u"
for algo in dqn ppo; do
  declare -A sps=()
  n=$([ $algo = dqn ] && echo 40000 || echo 131072)
  for w in 51 13 54; do
    cfg="$work/$algo-$w.yaml"
    feats=${sel[$w]:+, features: ${sel[$w]}}
    printf 'data: {path: %s%s}\ntrain: {epochs: 1, algo: %s, steps_per_epoch: %d, backend: cpu}\n' \
      "$work/u.h5" "$feats" $algo "$n" >"$cfg"
    sps[$w]=$("$fox" train "$cfg" -o "$work/$algo-$w" --json 2>&1 >/dev/null |
      sed -n 's/.* \([0-9.]*\) env-steps\/s.*/\1/p' | tail -1)
  done
  for w in 13 51 54; do
    r=$(awk -v a="${sps[$w]}" -v b="${sps[51]}" 'BEGIN { printf "%.2f", a / b }')
    printf '  %-4s %8d %10d %12.0f %8s\n' $algo "$w" "$n" "${sps[$w]}" "$r"
    out="$out, \"${algo}_$w\": {\"env_steps_per_s\": ${sps[$w]}, \"vs_51\": $r}"
  done
done
echo "$out}" >"$json"
echo "# json: $json"
