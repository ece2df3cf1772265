#!/usr/bin/env bash
# Learning benchmark: foxopt's DQN and PPO against Stable-Baselines3 (the independent reference)
# on the same market, at the same hyperparameters (foxopt's defaults, DESIGN.md s8, mapped onto
# SB3 in tests/bench/sb3_market.py), SEEDS seeds each, on three synthetic markets with different
# kinds of edge. Both libraries are scored by foxopt's backtest of their greedy policy on the
# validation split. Per market and algorithm: each library's mean, std and seeds that learn
# (val.total_return > 0), and Welch's 95% interval of foxopt's mean - SB3's; the verdict fails
# a cell whose interval lies wholly below 0 (SB3 better beyond the seeds' noise).
#   tests/bench/bench_learn.sh [--quick] [OUT.json]   (default bench_learn.json; --quick: 5 seeds)
# Environment: FOXOPT (binary, default build/default/foxopt), FOX_PYTHON (default .venv's; torch,
# stable-baselines3 and gymnasium are pip-installed into it when missing, as
# `scripts/setup.sh --bench` does), SEEDS (20, or 5 with --quick), FIRST_SEED (1: the seeds
# are FIRST_SEED onwards, so that a cell can be extended by further seeds), JOBS (runs at
# once, one core each; default the cores), ENVS (16), DQN_STEPS (65536) and PPO_STEPS (204800):
# train.steps_per_epoch of the 3 epochs; MARKETS ("wave ou regime") and ALGOS ("dqn ppo"): the
# cells to run (one cell at 20 seeds to settle a question); FOX_SET: extra foxopt keys for a
# switch, e.g. FOX_SET="ppo.value_loss=max" (SB3 follows the keys sb3_market.py maps). A seed
# of one market and algorithm takes about 70 s of a core (nine tenths in SB3): 20 seeds x 3
# markets x 2 algorithms about 70 minutes on 2 cores, --quick about 18, one PPO cell at 20
# seeds about 12.
# SB3 has no Double DQN: foxopt's DQN runs with dqn.double=false here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
py=${FOX_PYTHON:-$root/.venv/bin/python}
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
json=${1:-bench_learn.json}
seeds=${SEEDS:-$([ $quick = 1 ] && echo 5 || echo 20)}
first=${FIRST_SEED:-1}
case $first in '' | *[!0-9]*) echo "bench_learn: FIRST_SEED must be a number >= 1" >&2; exit 2 ;; esac
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
envs=${ENVS:-16}
dqn_steps=${DQN_STEPS:-65536}
ppo_steps=${PPO_STEPS:-204800}
read -r -a markets <<<"${MARKETS:-wave ou regime}"
read -r -a algos <<<"${ALGOS:-dqn ppo}"
fox_set=()
for kv in ${FOX_SET:-}; do fox_set+=(--set "$kv"); done
for m in "${markets[@]}"; do
  case $m in wave | ou | regime) ;; *) echo "bench_learn: MARKETS: no market $m (wave, ou," \
    "regime)" >&2; exit 2 ;; esac
done
for a in "${algos[@]}"; do
  case $a in dqn | ppo) ;; *) echo "bench_learn: ALGOS: no algorithm $a (dqn, ppo)" >&2; exit 2 ;;
  esac
done
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
cleanup() { # a failed run stops the others
  local j
  j=$(jobs -p)
  [ -z "$j" ] || kill $j 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 FOXOPT=$fox   # one core each side

# Three markets of 30,000 one-minute bars (val: 4,283 bars), each with a real edge after the
# default costs (spread 5e-4, fee 4e-4 per fill: 0.13 % a round trip) that takes learning:
# - wave: a 131-bar price wave of amplitude 0.4 % (log) on a random walk (0.05 % a bar). The
#   period is prime, so time of day says nothing of the phase; no bar-level noise, so the only
#   edge is the wave (trading the known phase, trough to crest, makes about 18 % on val).
# - ou: an Ornstein-Uhlenbeck log price around 100: half-life 10 bars, stationary std 0.6 %
#   (buy below the level, sell above it: about 50 % on val).
# - regime: stretches of 400-1,200 bars, each a trend up, a trend down (0.03 % a bar on a
#   0.05 % walk) or a mean-reverting one (the ou market's, around where the stretch began),
#   drawn at random: the edge is to tell which one the market is in (hold up-trends, stay out
#   of down-trends, trade the swings of the mean-reverting stretches).
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

awk -v N=30000 -v D=0.0003 -v W=0.0005 -v HL=10 -v SD=0.006 'BEGIN { srand(13)
  print "timestamp,open,high,low,close,volume"; prev = 100; lvl = log(100); x = 0; end = 0
  pi2 = 6.283185307179586; phi = exp(-log(2) / HL); s = SD * sqrt(1 - phi * phi)
  for (t = 0; t < N; t++) {
    if (t >= end) { lvl += x; x = 0; r = rand(); kind = r < 1 / 3 ? 1 : r < 2 / 3 ? -1 : 0
                    end = t + 400 + int(rand() * 801) }
    g = sqrt(-2 * log(1 - rand())) * cos(pi2 * rand())
    if (kind != 0) lvl += kind * D + W * g; else x = phi * x + s * g
    c = exp(lvl + x)
    o = prev; h = (o > c ? o : c) * (1 + 0.0003 * rand()); l = (o < c ? o : c) * (1 - 0.0003 * rand())
    printf "%d,%.6f,%.6f,%.6f,%.6f,%d\n", 1514764800 + 60 * t, o, h, l, c, 100 + int(rand() * 50)
    prev = c } }' >"$work/regime.csv"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
num() { "$py" -c 'import json, sys; print(repr(json.loads(sys.stdin.read())[sys.argv[1]]))' "$1"; }
rows="$work/rows.tsv"   # market algo library seed total_return wall_s
: >"$rows"
meta="$work/meta.tsv"   # market reward_scale buy_and_hold
: >"$meta"
echo "bench_learn: $seeds seeds, $envs envs, steps/epoch dqn $dqn_steps ppo $ppo_steps (x3)," \
  "$jobs at once" >&2
# One seed of one market and algorithm, foxopt then SB3 (at the hyperparameters of the config
# foxopt resolved for this very run), its two rows into its own file.
one() {
  local m=$1 algo=$2 s=$3 steps=$dqn_steps extra=(--set dqn.double=false) # SB3: no Double DQN
  [ "$algo" = ppo ] && steps=$ppo_steps extra=()
  local dir="$work/$m-$algo-$s" scale t0 t1 t2 f g
  scale=$(cut -f2 <"$work/$m.scale")
  t0=$(now)
  "$fox" train "$work/$m.yaml" -o "$dir" --json --set train.algo="$algo" \
    --set env.num_envs="$envs" --set train.steps_per_epoch="$steps" --set train.seed="$s" \
    --set reward.scale="$scale" "${extra[@]}" "${fox_set[@]}" 2>"$dir.err" >"$dir.fox.json" ||
    { cat "$dir.err" >&2; return 1; }
  t1=$(now)
  "$py" "$here/sb3_market.py" run "$work/$m.h5" --trial "$dir/trial.h5" --seed "$s" \
    --work "$dir.sb3" >"$dir.sb3.json" || return 1
  t2=$(now)
  f=$(num val.total_return <"$dir.fox.json")
  g=$(num val.total_return <"$dir.sb3.json")
  printf '%s\t%s\tfoxopt\t%s\t%s\t%s\n%s\t%s\tsb3\t%s\t%s\t%s\n' "$m" "$algo" "$s" "$f" \
    "$(secs "$t0" "$t1")" "$m" "$algo" "$s" "$g" "$(secs "$t1" "$t2")" >"$dir.rows"
  echo "  $m $algo seed $s: foxopt $f, sb3 $g" >&2
}
for m in "${markets[@]}"; do
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
  printf '%s\t%s\t%s\n' "$m" "$scale" "$bh" >>"$meta"
  printf '%s\t%s\n' "$m" "$scale" >"$work/$m.scale"
  printf 'data: {path: %s}\n' "$work/$m.h5" >"$work/$m.yaml"
done
# Every (market, algorithm, seed) as a job, JOBS at once; any failure stops the bench.
running=0
for s in $(seq "$first" $((first + seeds - 1))); do
  for m in "${markets[@]}"; do
    for algo in "${algos[@]}"; do
      if [ "$running" -ge "$jobs" ]; then
        wait -n || { echo "bench_learn: a run failed" >&2; exit 1; }
        running=$((running - 1))
      fi
      one "$m" "$algo" "$s" &
      running=$((running + 1))
    done
  done
done
while [ "$running" -gt 0 ]; do
  wait -n || { echo "bench_learn: a run failed" >&2; exit 1; }
  running=$((running - 1))
done
cat "$work"/*.rows >"$rows"

"$py" - "$rows" "$meta" "$json" "$first..$((first + seeds - 1))" "$envs" "$dqn_steps" "$ppo_steps" \
  "${FOX_SET:-}" <<'PY'
import json, math, sys
import numpy as np
from scipy import stats
import gymnasium, stable_baselines3, torch
rows, meta, out, seeds, envs, dqn_steps, ppo_steps, fox_set = sys.argv[1:]
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
print("# 3 epochs x %s (dqn) / %s (ppo) env-steps, seeds %s; greedy on val, measured by foxopt "
      "backtest; one core each" % (dqn_steps, ppo_steps, seeds))
if fox_set:
    print("# switches (FOX_SET, foxopt --set; SB3 where sb3_market.py maps them): %s" % fox_set)
print("# ret = val.total_return over the seeds: mean, median, std (ddof 1); pos = seeds with ret > 0;"
      " wall = mean seconds per run")
print("# diff: foxopt mean - sb3 mean, Welch's 95% interval (t at Welch-Satterthwaite's degrees "
      "of freedom); verdict: sb3 better (FAIL) when the interval lies wholly below 0, foxopt "
      "better when wholly above, else level")
for m, (scale, bh) in info.items():
    print("# %s: reward.scale auto = %.6g, buy-and-hold val.total_return %.4f" % (m, float(scale), float(bh)))
print("# %-6s %-4s %-7s %9s %9s %9s %5s %8s" % ("market", "algo", "library", "mean", "median", "std", "pos", "wall s"))
doc = {"seeds": seeds, "num_envs": int(envs), "epochs": 3, "interval": "welch95",
       "fox_set": fox_set.split(),
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
        diff = f["mean"] - s["mean"]
        if min(nf, ns) < 2:            # no standard error from one seed: no verdict
            lo = hi = None
            verdict = "n/a (one seed)"
        else:
            vf, vs = f["std"] ** 2 / nf, s["std"] ** 2 / ns
            se = math.sqrt(vf + vs)
            df = (vf + vs) ** 2 / ((vf ** 2 / (nf - 1) if vf else 0) + (vs ** 2 / (ns - 1) if vs else 0)) \
                if vf + vs > 0 else float("inf")
            half = float(stats.t.ppf(0.975, df)) * se if se > 0 else 0.0
            lo, hi = diff - half, diff + half
            verdict = "FAIL (sb3 better)" if hi < 0 else "foxopt better" if lo > 0 else "level"
        failed |= verdict.startswith("FAIL")
        da.update(difference=diff, welch95=None if lo is None else [lo, hi], verdict=verdict)
        verdicts.append("# %-6s %s: foxopt %.4f (%d/%d learn) vs sb3 %.4f (%d/%d), diff %+.4f, "
                        "95%% %s: %s" % (m, algo, f["mean"], f["positive"], nf, s["mean"],
                                         s["positive"], ns, diff,
                                         "-" if lo is None else "[%+.4f, %+.4f]" % (lo, hi),
                                         verdict))
print("\n".join(verdicts))
doc["verdict"] = "FAIL" if failed else "ok"
with open(out, "w") as fh:
    json.dump(doc, fh, indent=1)
print("# json: %s" % out)
sys.exit(1 if failed else 0)
PY
