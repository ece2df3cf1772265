#!/usr/bin/env bash
# Multi-objective benchmark: foxopt's nsga2 and tpe (foxopt run on its built-in test functions)
# against Optuna's NSGAIISampler (population 50) and TPESampler (foxopt's defaults: multivariate
# and group, constant_liar, 10 startup trials, 24 candidates, gamma 0.1) on the same problems and
# bounds (constraints_func for Binh-Korn): ZDT1, ZDT2 (30 variables) and constrained Binh-Korn.
# Figures: the hypervolume of the feasible complete trials after 100 and 300 trials, median over
# SEEDS (nsga2) or TPE_SEEDS (tpe) seeds (20 each), and wall time per trial. foxopt's time is its whole
# run (nsga2: rounds of 50 proposals; tpe: rounds of 1, as Optuna's sequential optimize;
# study.h5 and trials.csv rewritten after every round, one trial thread) divided by the trials;
# Optuna's is study.optimize's, in memory. Hypervolumes are computed by the same Python code for
# both.
#   tests/bench/bench_mo.sh [OUT.json]
# Environment: FOXOPT (default build/cpu/foxopt), FOX_PYTHON (a Python with optuna and numpy;
# default .venv/bin/python), SEEDS (20), TPE_SEEDS (20), TRIALS (300), SAMPLERS ("nsga2 tpe").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/cpu/foxopt}
py=${FOX_PYTHON:-$root/.venv/bin/python}
json=${1:-bench_mo.json}
seeds=${SEEDS:-20} tpe_seeds=${TPE_SEEDS:-20} trials=${TRIALS:-300}
samplers=${SAMPLERS:-nsga2 tpe}
nseeds() { [[ $1 == tpe ]] && echo "$tpe_seeds" || echo "$seeds"; }
[[ -x $fox ]] || { echo "bench_mo.sh: $fox not built (or set FOXOPT)" >&2; exit 2; }
"$py" -c 'import optuna, numpy' 2>/dev/null ||
  { echo "bench_mo.sh: $py lacks optuna or numpy (or set FOX_PYTHON)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

config() { # config FUNCTION SEED SAMPLER
  local n=30 cons="" round=50 sampler="{name: nsga2, population_size: 50}"
  [[ $1 == binh_korn ]] && n=2 cons='  constraints: ["c0 <= 25", "c1 >= 7.7"]'
  [[ $3 == tpe ]] && round=1 sampler="{name: tpe}"
  printf '%s\n' "study:" "  seed: $2" "  trials: $trials" "  round_size: $round" \
    "  trials_per_device: 1" \
    "  objective: [{metric: f0, direction: minimize, function: $1}, {metric: f1, direction: minimize}]" \
    "  sampler: $sampler" "$cons" "parameters:"
  for i in $(seq 0 $((n - 1))); do
    local hi=1
    [[ $1 == binh_korn ]] && { [[ $i == 0 ]] && hi=5 || hi=3; }
    echo "  x$i: {distribution: uniform, min: 0, max: $hi}"
  done
}
for a in $samplers; do
  for f in zdt1 zdt2 binh_korn; do
    for s in $(seq 1 "$(nseeds "$a")"); do
      config "$f" "$s" "$a" >"$work/$a-$f-$s.yaml"
      t0=$(date +%s.%N)
      "$fox" run "$work/$a-$f-$s.yaml" -o "$work/$a-$f-$s" >/dev/null 2>&1
      t1=$(date +%s.%N)
      echo "$a $f $s $(echo "$t1 - $t0" | bc)" >>"$work/fox_times.txt"
    done
  done
done

OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 "$py" - "$work" "$seeds" "$tpe_seeds" "$trials" "$json" \
  $samplers <<'PY'
import csv, json, sys, time
import numpy as np
import optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
import warnings
warnings.filterwarnings("ignore", category=FutureWarning)  # constraints_func: deprecated in 5.0, still the NSGA-II path
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)  # group=True
work, out = sys.argv[1], sys.argv[5]
nseeds = {"nsga2": int(sys.argv[2]), "tpe": int(sys.argv[3])}
trials, samplers = int(sys.argv[4]), sys.argv[6:]
REF = {"zdt1": (11.0, 11.0), "zdt2": (11.0, 11.0), "binh_korn": (140.0, 50.0)}
CHECKS = [c for c in (100, 300) if c <= trials]

def f_zdt(x, two):
    g = 1 + 9 * sum(x[1:]) / 29
    f1 = g * (1 - (x[0] / g) ** 2) if two else g * (1 - np.sqrt(x[0] / g))
    return x[0], f1

def f_bk(x):
    return (4 * x[0] ** 2 + 4 * x[1] ** 2, (x[0] - 5) ** 2 + (x[1] - 5) ** 2,
            (x[0] - 5) ** 2 + x[1] ** 2 - 25, 7.7 - ((x[0] - 8) ** 2 + (x[1] + 3) ** 2))

def hv2(points, ref):
    p = sorted((a, b) for a, b in points if a < ref[0] and b < ref[1])
    hv, y = 0.0, ref[1]
    for a, b in p:
        if b < y:
            hv += (ref[0] - a) * (y - b)
            y = b
    return hv

def fox_hv(alg, fn, seed):
    rows = list(csv.DictReader(open(f"{work}/{alg}-{fn}-{seed}/trials.csv")))
    rows.sort(key=lambda r: int(r["id"]))
    res = {}
    for c in CHECKS:
        pts = [(float(r["f0"]), float(r["f1"])) for r in rows[:c] if r["status"] == "complete"
               and r.get("feasible", "1") in ("1", "")]
        res[c] = hv2(pts, REF[fn])
    return res

def optuna_run(alg, fn, seed):
    n = 2 if fn == "binh_korn" else 30
    hi = [5, 3] if fn == "binh_korn" else [1] * n
    def objective(trial):
        x = [trial.suggest_float(f"x{i}", 0, hi[i]) for i in range(n)]
        if fn == "binh_korn":
            v = f_bk(x)
            trial.set_user_attr("c", (v[2], v[3]))
            return v[0], v[1]
        return f_zdt(x, fn == "zdt2")
    cons = (lambda t: t.user_attrs["c"]) if fn == "binh_korn" else None
    if alg == "tpe":
        sampler = optuna.samplers.TPESampler(
            multivariate=True, group=True, constant_liar=True, n_startup_trials=10,
            n_ei_candidates=24, seed=seed, constraints_func=cons)
    else:
        sampler = optuna.samplers.NSGAIISampler(population_size=50, seed=seed,
                                                constraints_func=cons)
    study = optuna.create_study(directions=["minimize", "minimize"], sampler=sampler)
    t0 = time.perf_counter()
    study.optimize(objective, n_trials=trials)
    dt = time.perf_counter() - t0
    res = {}
    for c in CHECKS:
        pts = [tuple(t.values) for t in study.trials[:c]
               if fn != "binh_korn" or all(v <= 0 for v in t.user_attrs["c"])]
        res[c] = hv2(pts, REF[fn])
    return res, dt / trials

fox_t = {}
for line in open(f"{work}/fox_times.txt"):
    alg, fn, s, t = line.split()
    fox_t.setdefault((alg, fn), []).append(float(t) / trials)
results, times = [], {}
for alg in samplers:
    seeds = nseeds[alg]
    what = "nsga2 (population 50)" if alg == "nsga2" else "tpe (Optuna: TPESampler as foxopt's defaults)"
    print(f"# multi-objective benchmark: {what}, {seeds} seeds, {trials} trials; "
          "hypervolume of the feasible complete trials (ref: ZDT (11, 11), Binh-Korn (140, 50)), "
          "median over seeds; time: wall ms per trial")
    print(f"# {'sampler':<7} {'problem':<10} {'trials':>6} {'foxopt_hv':>10} {'optuna_hv':>10} {'ratio':>6}")
    for fn in ("zdt1", "zdt2", "binh_korn"):
        fh = {c: [] for c in CHECKS}
        oh = {c: [] for c in CHECKS}
        ot = []
        for s in range(1, seeds + 1):
            r = fox_hv(alg, fn, s)
            o, dt = optuna_run(alg, fn, s)
            ot.append(dt)
            for c in CHECKS:
                fh[c].append(r[c])
                oh[c].append(o[c])
        for c in CHECKS:
            a, b = float(np.median(fh[c])), float(np.median(oh[c]))
            print(f"  {alg:<7} {fn:<10} {c:>6} {a:>10.4f} {b:>10.4f} {a / b if b else float('nan'):>6.3f}")
            results.append({"sampler": alg, "problem": fn, "trials": c, "seeds": seeds,
                            "foxopt_hv": a, "optuna_hv": b,
                            "foxopt_hv_seeds": fh[c], "optuna_hv_seeds": oh[c]})
        times[(alg, fn)] = (1e3 * float(np.median(fox_t[(alg, fn)])), 1e3 * float(np.median(ot)))
print(f"# {'sampler':<7} {'problem':<10} {'foxopt_ms':>10} {'optuna_ms':>10} {'ratio':>6}")
for (alg, fn), (a, b) in times.items():
    print(f"  {alg:<7} {fn:<10} {a:>10.3f} {b:>10.3f} {a / b:>6.3f}")
json.dump({"seeds": nseeds, "trials": trials, "population_size": 50, "results": results,
           "ms_per_trial": {f"{alg}/{fn}": {"foxopt": a, "optuna": b}
                            for (alg, fn), (a, b) in times.items()}},
          open(out, "w"), indent=1)
PY
