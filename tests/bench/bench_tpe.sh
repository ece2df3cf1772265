#!/usr/bin/env bash
# TPE benchmark: foxopt's TPE (tests/bench/bench_tpe.c) against Optuna's (bench_tpe.py) on
# Branin, Hartmann-6 and the mixed function, same bounds, distributions and budgets; random
# search as the floor. One after the other, so each has the core to itself.
#   tests/bench/bench_tpe.sh [OUT.json]
# Environment: BENCH_TPE (the C driver; default build/default/tests/bench/bench_tpe),
# FOX_PYTHON (a Python with optuna and numpy; default .venv/bin/python), SEEDS (20),
# TRIALS (100), HISTORY (1000: the history behind the timed proposals).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bench=${BENCH_TPE:-$root/build/default/tests/bench/bench_tpe}
py=${FOX_PYTHON:-$root/.venv/bin/python}
json=${1:-bench_tpe.json}
seeds=${SEEDS:-20} trials=${TRIALS:-100} history=${HISTORY:-1000}
if [[ ! -x $bench ]]; then
  echo "bench_tpe.sh: $bench not built (cmake --build ... --target bench_tpe, or set BENCH_TPE)" >&2
  exit 2
fi
if ! "$py" -c 'import optuna, numpy' 2>/dev/null; then
  echo "bench_tpe.sh: $py lacks optuna or numpy (scripts/setup.sh --python, or set FOX_PYTHON)" >&2
  exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
args=(--seeds "$seeds" --trials "$trials" --history "$history")
OMP_NUM_THREADS=1 "$bench" "${args[@]}" --json "$work/fox.json" >"$work/fox.txt"
OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$py" "$here/bench_tpe.py" "${args[@]}" \
  --json "$work/optuna.json" >"$work/optuna.txt"
"$py" - "$work/fox.json" "$work/optuna.json" "$json" <<'EOF'
import json, sys
fox, opt = (json.load(open(p)) for p in sys.argv[1:3])
# Each foxopt sampler against the Optuna sampler that does the same thing.
peer = {"tpe": "optuna", "tpe-indep": "optuna-indep", "random": "optuna"}
ref = {(r["function"], r["sampler"]): r for r in opt["results"]}
rows = [dict(r, sampler="foxopt " + r["sampler"], peer=peer[r["sampler"]]) for r in fox["results"]]
rows += [dict(r, peer=None) for r in opt["results"]]
rows.sort(key=lambda r: (["branin", "hartmann6", "mixed"].index(r["function"]),
                         not r["sampler"].startswith("foxopt"), r["sampler"]))
print(f"# TPE benchmark: best value found (lower is better) after {fox['trials']} sequential "
      f"trials, median and quartiles over {fox['seeds']} seeds;")
print(f"# d median: this median minus its Optuna peer's (negative: better); ms/proposal: one "
      f"proposal after {fox['history']} complete trials, one core (Optuna {opt['optuna']}: "
      "ask() + suggest calls)")
print(f"# {'function':<10} {'sampler':<20} {'median':>10} {'q25':>10} {'q75':>10} "
      f"{'d median':>9} {'peer':<13} {'ms/proposal':>11} {'speed-up':>8}")
for r in rows:
    p = ref.get((r["function"], r["peer"])) if r["peer"] else None
    d = f"{r['median'] - p['median']:+9.4f}" if p else f"{'':>9}"
    ms = r["ms_per_proposal"]  # None for random search
    ms_s = f"{ms:11.3f}" if ms else f"{'-':>11}"
    up = f"{p['ms_per_proposal'] / ms:7.1f}x" if p and ms else f"{'':>8}"
    print(f"  {r['function']:<10} {r['sampler']:<20} {r['median']:10.5f} {r['q25']:10.5f} "
          f"{r['q75']:10.5f} {d} {r['peer'] or '-':<13} {ms_s} {up}")
json.dump({"foxopt": fox, "optuna": opt}, open(sys.argv[3], "w"), indent=1)
print(f"# json: {sys.argv[3]}")
EOF
