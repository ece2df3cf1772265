#!/usr/bin/env bash
# Learning benchmark: foxopt's DQN and PPO against Stable-Baselines3 (the independent reference)
# on the same market, at the same hyperparameters (foxopt's defaults, DESIGN.md s8, mapped onto
# SB3 in tests/bench/sb3_market.py), SEEDS seeds each, on two synthetic markets with different
# kinds of edge. Both libraries are scored by foxopt's backtest of their greedy policy on the
# validation split. Verdict per market and algorithm: foxopt's mean val.total_return >= SB3's
# - 2 x the standard error of the difference of the means.
#   tests/bench/bench_learn.sh [OUT.json]        (default bench_learn.json)
# Environment: FOXOPT (binary, default build/default/foxopt), FOX_PYTHON (default .venv's; torch,
# stable-baselines3 and gymnasium are pip-installed into it when missing, as
# `scripts/setup.sh --bench` does), SEEDS (5), ENVS (16), DQN_STEPS (65536) and PPO_STEPS
# (204800): train.steps_per_epoch of the 3 epochs. About 23 minutes on an idle core, nine tenths
# of it in SB3.
# SB3 has no Double DQN: foxopt's DQN runs with dqn.double=false here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
py=${FOX_PYTHON:-$root/.venv/bin/python}
json=${1:-bench_learn.json}
seeds=${SEEDS:-5}
envs=${ENVS:-16}
dqn_steps=${DQN_STEPS:-65536}
ppo_steps=${PPO_STEPS:-204800}
[ -x "$fox" ] || { echo "bench_learn: no foxopt at $fox (set FOXOPT)" >&2; exit 2; }
[ -x "$py" ] || { echo "bench_learn: no python at $py: run scripts/setup.sh --python --bench" \
  "or set FOX_PYTHON" >&2; exit 2; }
[ $((ppo_steps % (128 * envs))) -eq 0 ] || { echo "bench_learn: PPO_STEPS must be a multiple" \
  "of ppo.n_steps x ENVS = $((128 * envs)), so that SB3 and foxopt make the same updates" >&2
  exit 2; }
if ! "$py" -c 'import torch, stable_baselines3, gymnasium, h5py, yaml' 2>/dev/null; then
  echo "bench_learn: installing torch, stable-baselines3, gymnasium into $py's environment" >&2
  "$py" -m pip install -q --disable-pip-version-check torch stable-baselines3 gymnasium h5py \
    pyyaml
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/foxlearn.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 FOXOPT=$fox   # one core each side

# Two markets of 30,000 one-minute bars (val: 4,283 bars), both with a real edge after the
# default costs (spread 5e-4, fee 4e-4 per fill: 0.13 % a round trip) that takes learning:
# - wave: a 131-bar price wave of amplitude 0.4 % (log) on a random walk (0.05 % a bar). The
#   period is prime, so time of day says nothing of the phase; no bar-level noise, so the only
#   edge is the wave (trading the known phase, trough to crest, makes about 18 % on val).
# - ou: an Ornstein-Uhlenbeck log price around 100: half-life 10 bars, stationary std 0.6 %
#   (buy below the level, sell above it: about 50 % on val).
awk -v N=30000 -v P=131 -v A=0.004 -v W=0.0005 'BEGIN { srand(11)
  print "timestamp,open,high,low,close,volume"; prev = 100; rw = 0; pi2 = 6.283185307179586
  for (t = 0; t < N; t++) {
    rw += W * sqrt(-2 * log(1 - rand())) * cos(pi2 * rand())
    c = exp(log(100) + rw + A * sin(pi2 * t / P))
    o = prev; h = (o > c ? o : c) * (1 + 0.0003 * rand()); l = (o < c ? o : c) * (1 - 0.0003 * rand())
    printf "%d,%.6f,%.6f,%.6f,%.6f,%d\n", 1514764800 + 60 * t, o, h, l, c, 100 + int(rand() * 50)
    prev = c } }' >"$work/wave.csv"
awk -v N=30000 -v HL=10 -v SD=0.006 'BEGIN { srand(12)
  print "timestamp,open,high,low,close,volume"; prev = 100; x = 0; pi2 = 6.283185307179586
  phi = exp(-log(2) / HL); s = SD * sqrt(1 - phi * phi)
  for (t = 0; t < N; t++) {
    x = phi * x + s * sqrt(-2 * log(1 - rand())) * cos(pi2 * rand())
    c = exp(log(100) + x)
    o = prev; h = (o > c ? o : c) * (1 + 0.0003 * rand()); l = (o < c ? o : c) * (1 - 0.0003 * rand())
    printf "%d,%.6f,%.6f,%.6f,%.6f,%d\n", 1514764800 + 60 * t, o, h, l, c, 100 + int(rand() * 50)
    prev = c } }' >"$work/ou.csv"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
num() { "$py" -c 'import json, sys; print(repr(json.loads(sys.stdin.read())[sys.argv[1]]))' "$1"; }
rows="$work/rows.tsv"   # market algo library seed total_return wall_s
: >"$rows"
meta="$work/meta.tsv"   # market reward_scale buy_and_hold
: >"$meta"
echo "bench_learn: $seeds seeds, $envs envs, steps/epoch dqn $dqn_steps ppo $ppo_steps (x3)" >&2
for m in wave ou; do
  "$fox" import "$work/$m.csv" -o "$work/$m.h5" >/dev/null
  # The wrapper first: one environment through the val split on random actions against
  # `foxopt backtest --actions` (default barriers, then tight ones that stop and take).
  "$py" "$here/sb3_market.py" check "$work/$m.h5" --work "$work/check" >&2
  "$py" "$here/sb3_market.py" check "$work/$m.h5" --work "$work/check" --seed 2 \
    --set barrier.pt=0.3 --set barrier.sl=0.3 >&2
  # reward.scale auto (1 / std of the train split's one-bar log returns), computed here and
  # passed as a number: the same on both sides whatever foxopt version runs
  scale=$("$py" "$here/sb3_market.py" scale "$work/$m.h5")
  n=$("$py" -c 'import h5py, sys; b, e = h5py.File(sys.argv[1]).attrs["split_val"]; print(e - b)' \
    "$work/$m.h5")
  { echo action; echo 1; for _ in $(seq $((n - 1))); do echo 0; done; } >"$work/bh.csv"
  bh=$("$fox" backtest "$work/$m.h5" --actions "$work/bh.csv" --json | num total_return)
  printf '%s\t%s\t%s\n' $m "$scale" "$bh" >>"$meta"
  printf 'data: {path: %s}\n' "$work/$m.h5" >"$work/$m.yaml"
  for algo in dqn ppo; do
    steps=$dqn_steps extra=(--set dqn.double=false)   # SB3 has no Double DQN
    [ $algo = ppo ] && steps=$ppo_steps extra=()
    for s in $(seq 1 "$seeds"); do
      dir="$work/$m-$algo-$s"
      t0=$(now)
      "$fox" train "$work/$m.yaml" -o "$dir" --json --set train.algo=$algo \
        --set env.num_envs="$envs" --set train.steps_per_epoch="$steps" --set train.seed="$s" \
        --set reward.scale="$scale" "${extra[@]}" 2>"$dir.err" >"$dir.fox.json" ||
        { cat "$dir.err" >&2; exit 1; }
      t1=$(now)
      # SB3 at the hyperparameters of the config foxopt resolved for this very run
      "$py" "$here/sb3_market.py" run "$work/$m.h5" --trial "$dir/trial.h5" --seed "$s" \
        --work "$work/sb3" >"$dir.sb3.json"
      t2=$(now)
      f=$(num val.total_return <"$dir.fox.json")
      g=$(num val.total_return <"$dir.sb3.json")
      printf '%s\t%s\tfoxopt\t%s\t%s\t%s\n' $m $algo "$s" "$f" "$(secs "$t0" "$t1")" >>"$rows"
      printf '%s\t%s\tsb3\t%s\t%s\t%s\n' $m $algo "$s" "$g" "$(secs "$t1" "$t2")" >>"$rows"
      echo "  $m $algo seed $s: foxopt $f, sb3 $g" >&2
    done
  done
done

"$py" - "$rows" "$meta" "$json" "$seeds" "$envs" "$dqn_steps" "$ppo_steps" <<'PY'
import json, math, sys
import numpy as np
import gymnasium, stable_baselines3, torch
rows, meta, out, seeds, envs, dqn_steps, ppo_steps = sys.argv[1:]
res = {}
for line in open(rows):
    m, algo, lib, seed, ret, wall = line.split("\t")
    d = res.setdefault(m, {}).setdefault(algo, {}).setdefault(lib, {"seeds": [], "total_return": [], "wall_s": []})
    d["seeds"].append(int(seed)); d["total_return"].append(float(ret)); d["wall_s"].append(float(wall))
info = {l.split("\t")[0]: l.split("\t")[1:] for l in open(meta).read().splitlines()}
print("# learning benchmark: foxopt against Stable-Baselines3 %s (torch %s, gymnasium %s), same "
      "market (sb3_market.py's VecEnv," % (stable_baselines3.__version__, torch.__version__.split("+")[0],
                                          gymnasium.__version__))
print("# checked against foxopt backtest --actions), same hyperparameters (foxopt's defaults; "
      "dqn.double=false), %s envs," % envs)
print("# 3 epochs x %s (dqn) / %s (ppo) env-steps, seeds 1..%s; greedy on val, measured by foxopt "
      "backtest; one core each" % (dqn_steps, ppo_steps, seeds))
print("# ret = val.total_return over the seeds: mean, median, std (ddof 1); pos = seeds with ret > 0;"
      " wall = mean seconds per run")
print("# verdict: foxopt mean >= sb3 mean - noise, noise = 2 x the standard error of the "
      "difference of the means")
for m, (scale, bh) in info.items():
    print("# %s: reward.scale auto = %.6g, buy-and-hold val.total_return %.4f" % (m, float(scale), float(bh)))
print("# %-6s %-4s %-7s %9s %9s %9s %5s %8s" % ("market", "algo", "library", "mean", "median", "std", "pos", "wall s"))
doc = {"seeds": int(seeds), "num_envs": int(envs), "epochs": 3,
       "steps_per_epoch": {"dqn": int(dqn_steps), "ppo": int(ppo_steps)},
       "versions": {"stable_baselines3": stable_baselines3.__version__, "torch": torch.__version__,
                    "gymnasium": gymnasium.__version__}, "markets": {}}
verdicts, failed = [], False
for m, algos in res.items():
    dm = doc["markets"][m] = {"reward_scale": float(info[m][0]), "buy_and_hold": float(info[m][1])}
    for algo, libs in algos.items():
        da = dm[algo] = {}
        for lib in ("foxopt", "sb3"):
            d = libs[lib]
            r = np.array(d["total_return"])
            d.update(mean=float(r.mean()), median=float(np.median(r)),
                     std=float(r.std(ddof=1)) if len(r) > 1 else 0.0,
                     positive=int((r > 0).sum()), wall_s_mean=float(np.mean(d["wall_s"])))
            da[lib] = d
            print("  %-6s %-4s %-7s %9.4f %9.4f %9.4f %2d/%-2d %8.1f" % (m, algo, lib, d["mean"], d["median"],
                  d["std"], d["positive"], len(r), d["wall_s_mean"]))
        f, s = da["foxopt"], da["sb3"]
        nf, ns = len(f["total_return"]), len(s["total_return"])
        if min(nf, ns) < 2:            # no standard error from one seed: no verdict
            noise, verdict = None, "n/a (one seed)"
        else:
            noise = 2 * math.sqrt(f["std"] ** 2 / nf + s["std"] ** 2 / ns)
            verdict = "ok" if f["mean"] >= s["mean"] - noise else "FAIL"
        failed |= verdict == "FAIL"
        da.update(difference=f["mean"] - s["mean"], noise=noise, verdict=verdict)
        verdicts.append("# %s %s: foxopt %.4f vs sb3 %.4f, difference %+.4f, noise %s: %s"
                        % (m, algo, f["mean"], s["mean"], f["mean"] - s["mean"],
                           "-" if noise is None else "%.4f" % noise, verdict))
print("\n".join(verdicts))
doc["verdict"] = "FAIL" if failed else "ok"
with open(out, "w") as fh:
    json.dump(doc, fh, indent=1)
print("# json: %s" % out)
sys.exit(1 if failed else 0)
PY
