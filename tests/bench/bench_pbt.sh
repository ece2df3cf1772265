#!/usr/bin/env bash
# PBT benchmark, two parts.
# 1. Search quality at an equal budget of training epochs: PBT (study.scheduler pbt, POPULATION
#    members, generations of INTERVAL epochs) against successive halving and random search
#    (scheduler none, sampler random; the reference) on the noisy 120-bar wave market of
#    tests/e2e/learn.sh and report_selection.sh (a learnable edge), PPO, over SEEDS study seeds.
#    The searched space is wide (ppo.lr 1e-6 .. 1, ppo.ent_coef 0 .. 1, ppo.clip 0.02 .. 0.5) and
#    the training short (EPOCHS x STEPS env-steps), so only a band of learning rates learns the
#    wave in that budget (about 3e-4 .. 1.5e-3; measured with 60 random configurations).
#    Budgets: PBT = POPULATION x EPOCHS, random = RANDOM_TRIALS x EPOCHS, successive halving
#    (min_epochs 1, max_epochs EPOCHS, eta SH_ETA, one synchronous round) = the epochs its
#    trials trained, with SH_TRIALS chosen (unless set) so that it comes closest to PBT's; each
#    study's actual total, summed from trials.csv, is in the table. Figure: val.total_return of
#    study_best (the first row of `foxopt report --json`; for PBT the best member of the last
#    generation): median, min, max, IQR over the seeds; ratio of medians against random search.
#    Buy-nothing is 0; buy-and-hold on the same split is printed beside it.
# 2. PBT's per-generation overhead at RANKS MPI ranks against 1 rank (the reference), from
#    study.h5 /pbt: (plan + transfer) / wall, state save/restore / segment seconds, transfers
#    and MB moved; the same PBT study at seed 1 with OVH_STEPS env-steps per epoch (segments
#    long enough to measure against), one trial thread per rank. The two trials.csv must be
#    identical but for the rank and seconds columns (exit 1 otherwise).
#   tests/bench/bench_pbt.sh [OUT.json]        (default bench_pbt.json)
# Environment: FOXOPT (default build/default/foxopt, else build/cpu/foxopt), FOX_PYTHON (numpy,
# h5py; default .venv/bin/python), MPIEXEC (mpiexec), SEEDS (5), POPULATION (8), EPOCHS (8),
# INTERVAL (2), STEPS (2048: train.steps_per_epoch), ENVS (16), TPD (2: trials_per_device in
# part 1), RANDOM_TRIALS (POPULATION), SH_ETA (2), SH_TRIALS (auto), AMPLITUDE (0.01),
# OVH_STEPS (65536), RANKS (4), PARTS ("1 2").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
[[ -x $fox || -n ${FOXOPT:-} ]] || fox=$root/build/cpu/foxopt
py=${FOX_PYTHON:-$root/.venv/bin/python}
mpiexec=${MPIEXEC:-mpiexec}
json=${1:-bench_pbt.json}
seeds=${SEEDS:-5} pop=${POPULATION:-8} epochs=${EPOCHS:-8} interval=${INTERVAL:-2}
steps=${STEPS:-2048} envs=${ENVS:-16} tpd=${TPD:-2} rtrials=${RANDOM_TRIALS:-$pop}
eta=${SH_ETA:-2} amp=${AMPLITUDE:-0.01} ovh_steps=${OVH_STEPS:-65536} ranks=${RANKS:-4}
parts=${PARTS:-1 2}
[[ -x $fox ]] || { echo "bench_pbt.sh: $fox not built (or set FOXOPT)" >&2; exit 2; }
"$py" -c 'import numpy, h5py' 2>/dev/null ||
  { echo "bench_pbt.sh: $py lacks numpy or h5py (or set FOX_PYTHON)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/foxpbt.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The market of tests/e2e/report_selection.sh's market(): 30,000 one-minute bars, a 120-bar
# log-price wave of amplitude AMPLITUDE plus bar-level noise (srand(5): the same file as there).
awk -v N=30000 -v P=120 -v A="$amp" 'BEGIN { srand(5); print "timestamp,open,high,low,close,volume"
  prev = 100
  for (t = 0; t < N; t++) {
    lp = log(100) + A * sin(6.283185307179586 * t / P) + 0.0007 * (rand() + rand() + rand() - 1.5)
    c = exp(lp); o = prev; h = (o > c ? o : c) * 1.0002; l = (o < c ? o : c) * 0.9998
    printf "%d,%.6f,%.6f,%.6f,%.6f,%d\n", 1514764800 + 60 * t, o, h, l, c, 100 + int(rand() * 50)
    prev = c
  } }' >"$work/wave.csv"
"$fox" import "$work/wave.csv" -o "$work/wave.h5" >/dev/null
n_val=$("$py" -c 'import h5py, sys; b, e = h5py.File(sys.argv[1]).attrs["split_val"]; print(e - b)' \
  "$work/wave.h5")
{ echo action; echo 1; for _ in $(seq $((n_val - 1))); do echo 0; done; } >"$work/bh.csv"
bh=$("$fox" backtest "$work/wave.h5" --actions "$work/bh.csv" --set barrier.enforce=false --json |
  "$py" -c 'import json, sys; print(json.load(sys.stdin)["total_return"])')

# config METHOD SEED STEPS TPD: the study's YAML on stdout
config() {
  local study sched
  case $1 in
    pbt) study="round_size: $pop"
         sched="{name: pbt, population: $pop, interval: $interval, quantile: 0.25,"
         sched+=" resample_probability: 0.25, factors: [0.8, 1.2], copy_buffers: true}" ;;
    sh) study="trials: $sh_trials, round_size: $sh_trials"
        sched="{name: successive_halving, min_epochs: 1, max_epochs: $epochs, eta: $eta}" ;;
    random) study="trials: $rtrials, round_size: $rtrials" sched="{name: none}" ;;
  esac
  cat <<YAML
data: {path: $work/wave.h5}
barrier: {enforce: false}
env: {num_envs: $envs, episode_bars: 512}
train: {algo: ppo, epochs: $epochs, steps_per_epoch: $3}
ppo: {n_steps: 64, hidden: [32, 32]}
study: {name: $1, seed: $2, $study, trials_per_device: $4, sampler: random,
        objective: {metric: val.total_return, direction: maximize}, scheduler: $sched}
parameters:
  ppo.lr: {distribution: log_uniform, min: 1.0e-6, max: 1.0}
  ppo.ent_coef: {distribution: uniform, min: 0.0, max: 1.0}
  ppo.clip: {distribution: uniform, min: 0.02, max: 0.5}
YAML
}

# Successive halving's trials: the N whose planned total of epochs is closest to PBT's (ties: the
# smaller N). Rungs at eta^k (min_epochs 1) below EPOCHS, then EPOCHS; max(1, n / eta) go on.
sh_trials=${SH_TRIALS:-$("$py" - "$pop" "$epochs" "$eta" <<'PY'
import sys
pop, E, eta = (int(a) for a in sys.argv[1:])
rungs, r = [], 1
while r < E:
    rungs.append(r); r *= eta
rungs.append(E)
def total(n):
    t, prev = 0, 0
    for r in rungs:
        t += n * (r - prev); prev = r; n = max(1, n // eta)
    return t
print(min(range(1, 100 * pop), key=lambda n: (abs(total(n) - pop * E), n)))
PY
)}

now() { date +%s.%N; }
rows="$work/rows.tsv"   # method seed outdir wall_s
: >"$rows"
if [[ " $parts " == *" 1 "* ]]; then
  echo "bench_pbt: part 1: $seeds seeds; pbt population $pop, sh $sh_trials trials (eta $eta)," \
    "random $rtrials trials; $epochs epochs x $steps env-steps" >&2
  for m in pbt sh random; do
    for s in $(seq 1 "$seeds"); do
      config $m "$s" "$steps" "$tpd" >"$work/$m-$s.yaml"
      t0=$(now)
      "$fox" run "$work/$m-$s.yaml" -o "$work/$m-$s" >"$work/$m-$s.log" 2>&1 ||
        { cat "$work/$m-$s.log" >&2; exit 1; }
      t1=$(now)
      "$fox" report "$work/$m-$s" --json --no-plots >"$work/$m-$s.json"
      printf '%s\t%s\t%s\t%s\n' $m "$s" "$work/$m-$s" "$(echo "$t1 - $t0" | bc)" >>"$rows"
    done
  done
fi
ovh=()
if [[ " $parts " == *" 2 "* ]]; then
  echo "bench_pbt: part 2: pbt seed 1 at 1 and $ranks ranks, $ovh_steps env-steps an epoch" >&2
  config pbt 1 "$ovh_steps" 1 >"$work/ovh.yaml"
  for r in 1 "$ranks"; do
    launch=("$fox")
    [[ $r == 1 ]] || launch=("$mpiexec" -n "$r" "$fox")
    "${launch[@]}" run "$work/ovh.yaml" -o "$work/ovh$r" >"$work/ovh$r.log" 2>&1 ||
      { cat "$work/ovh$r.log" >&2; exit 1; }
    ovh+=("$r:$work/ovh$r")
  done
fi

"$py" - "$json" "$rows" "$bh" "$(nproc)" "$seeds" "$pop" "$epochs" "$interval" "$steps" "$envs" \
  "$tpd" "$rtrials" "$sh_trials" "$eta" "$amp" "$ovh_steps" "${ovh[@]}" <<'PY'
import csv, json, sys
import h5py
import numpy as np
(out, rows, bh, ncpu, seeds, pop, epochs, interval, steps, envs, tpd, rtrials, sh_trials, eta,
 amp, ovh_steps), ovh = sys.argv[1:17], sys.argv[17:]
bh, ncpu = float(bh), int(ncpu)
doc = {"benchmark": "pbt", "cores": ncpu, "market": {"wave_amplitude": float(amp), "period": 120,
       "bars": 30000, "buy_and_hold_val_total_return": bh},
       "agent": {"algo": "ppo", "num_envs": int(envs), "hidden": [32, 32], "n_steps": 64,
                 "epochs": int(epochs), "steps_per_epoch": int(steps)},
       "space": {"ppo.lr": "log_uniform 1e-6 .. 1", "ppo.ent_coef": "uniform 0 .. 1",
                 "ppo.clip": "uniform 0.02 .. 0.5"}}
failed = False

# Part 1
res = {}
for line in open(rows):
    m, s, path, wall = line.split("\t")
    trials = list(csv.DictReader(open(path + "/trials.csv")))
    rep = json.load(open(path + ".json"))
    best = rep["trials"][0]
    d = res.setdefault(m, {"seeds": [], "best": [], "epochs": [], "rows": [], "wall_s": [],
                           "best_id": [], "best_params": []})
    d["seeds"].append(int(s))
    d["best"].append(float(best["metrics"]["val.total_return"]))
    d["best_id"].append(best["id"]); d["best_params"].append(best["params"])
    # epochs trained by each row: its epochs less those of the row it continues from (a PBT
    # segment's parent; trials.csv's epochs are cumulative along a member's lineage)
    ep = {t["id"]: int(t["epochs"] or 0) for t in trials}
    d["epochs"].append(sum(ep[t["id"]] - (ep[t["parent"]] if t.get("parent") else 0)
                           for t in trials))
    d["rows"].append(len(trials))
    d["wall_s"].append(float(wall))
if res:
    names = {"pbt": "pbt (population %s, interval %s)" % (pop, interval),
             "sh": "successive halving (%s trials, eta %s)" % (sh_trials, eta),
             "random": "random search (%s trials)" % rtrials}
    print("# PBT against successive halving and random search at an equal budget of epochs: PPO on"
          " the noisy 120-bar wave (amplitude %s)," % amp)
    print("# %s env-steps an epoch, %s envs; space ppo.lr log 1e-6..1, ppo.ent_coef 0..1, "
          "ppo.clip 0.02..0.5; study seeds 1..%s, sampler random, %s trial threads on %d cores"
          % (steps, envs, seeds, tpd, ncpu))
    print("# best = val.total_return of study_best (report --json, first row); epochs = the study's"
          " total training epochs (min-max over seeds)")
    print("# baselines on val: buy-nothing 0, buy-and-hold %.4f; vs_random = median / random "
          "search's median" % bh)
    print("# %-6s %9s %6s %8s %8s %8s %8s %8s %8s %5s %9s %7s" % ("method", "epochs", "rows",
          "median", "min", "max", "q25", "q75", "iqr", ">0", "vs_random", "wall_s"))
    ref = float(np.median(res["random"]["best"])) if "random" in res else None
    doc["part1"] = {"seeds": int(seeds), "methods": {}}
    for m in ("pbt", "sh", "random"):
        if m not in res:
            continue
        d = res[m]
        b = np.array(d["best"])
        q25, q75 = (float(x) for x in np.percentile(b, [25, 75]))
        med = float(np.median(b))
        ep = "%d" % d["epochs"][0] if min(d["epochs"]) == max(d["epochs"]) else \
             "%d-%d" % (min(d["epochs"]), max(d["epochs"]))
        vs = med / ref if ref else float("nan")
        print("  %-6s %9s %6d %8.4f %8.4f %8.4f %8.4f %8.4f %8.4f %2d/%-2d %9.3f %7.1f" % (m, ep,
              d["rows"][0], med, b.min(), b.max(), q25, q75, q75 - q25, int((b > 0).sum()), len(b),
              vs, float(np.median(d["wall_s"]))))
        d.update(describe=names[m], median=med, min=float(b.min()), max=float(b.max()), q25=q25,
                 q75=q75, iqr=q75 - q25, mean=float(b.mean()), positive=int((b > 0).sum()),
                 median_over_random=vs)
        doc["part1"]["methods"][m] = d
    print("# per seed (best val.total_return): " + "; ".join(
        "%s %s" % (m, " ".join("%.4f" % x for x in res[m]["best"])) for m in ("pbt", "sh", "random")
        if m in res))
    # Paired by seed: the three studies of a seed draw the same first configurations (the same
    # sampler stream and trial seeds), so the per-seed difference is the sharper comparison.
    if "random" in res:
        r0 = dict(zip(res["random"]["seeds"], res["random"]["best"]))
        for m in ("pbt", "sh"):
            if m in res:
                dd = [b - r0[s] for s, b in zip(res[m]["seeds"], res[m]["best"]) if s in r0]
                res[m]["paired_minus_random"] = dd
                print("# %s - random, paired by seed: median %+.4f, wins %d, ties %d, losses %d"
                      % (m, float(np.median(dd)), sum(x > 0 for x in dd), sum(x == 0 for x in dd),
                         sum(x < 0 for x in dd)))
    budgets = {m: res[m]["epochs"] for m in res}
    print("# epochs per study: " + ", ".join("%s %s" % (m, sorted(set(v))) for m, v in budgets.items()))
    lo, hi = min(min(v) for v in budgets.values()), max(max(v) for v in budgets.values())
    print("# budgets: %s (largest / smallest %.3f)" % ("equal" if lo == hi else "unequal", hi / lo))

# Part 2
if ovh:
    doc["part2"] = {"steps_per_epoch": int(ovh_steps), "trials_per_device": 1, "runs": {}}
    tabs, per = {}, {}
    for item in ovh:
        r, path = item.split(":", 1)
        r = int(r)
        with h5py.File(path + "/study.h5") as f:
            g = {k: f["pbt/" + k][:].astype(float) for k in ("wall_seconds", "plan_seconds",
                 "transfer_seconds", "transfer_bytes", "state_seconds", "segment_seconds",
                 "transfers")}
        per[r] = g
        tabs[r] = list(csv.DictReader(open(path + "/trials.csv")))
    rs = sorted(per)
    hi = rs[-1]
    over = " (oversubscribed: %d ranks on %d cores)" % (hi, ncpu) if hi > ncpu else ""
    print("# PBT per-generation overhead, from study.h5 /pbt: the same study (seed 1, population %s,"
          " interval %s, %s env-steps an epoch)" % (pop, interval, ovh_steps))
    print("# at 1 rank (the reference) and %d ranks%s, one trial thread per rank" % (hi, over))
    print("# ctl% = (plan + transfer) / wall; state% = state save/restore / segment seconds; "
          "MB = state moved between ranks")
    print("# %5s %4s %9s %9s %7s %9s %7s %9s %9s" % ("ranks", "gen", "wall_s", "seg_s", "ctl%",
          "state_s", "state%", "transfers", "MB"))
    for r in rs:
        g = per[r]
        runs = []
        for i in range(len(g["wall_seconds"])):
            w, seg = g["wall_seconds"][i], g["segment_seconds"][i]
            ctl = g["plan_seconds"][i] + g["transfer_seconds"][i]
            row = {"generation": i, "wall_s": w, "segment_s": seg, "plan_s": g["plan_seconds"][i],
                   "transfer_s": g["transfer_seconds"][i], "control_share": ctl / w,
                   "state_s": g["state_seconds"][i], "state_share": g["state_seconds"][i] / seg,
                   "transfers": int(g["transfers"][i]), "mb": g["transfer_bytes"][i] / 1e6}
            runs.append(row)
            print("  %5d %4d %9.3f %9.3f %7.3f %9.4f %7.2f %9d %9.3f" % (r, i, w, seg,
                  100 * row["control_share"], row["state_s"], 100 * row["state_share"],
                  row["transfers"], row["mb"]))
        W, S = g["wall_seconds"].sum(), g["segment_seconds"].sum()
        tot = {"wall_s": W, "segment_s": S,
               "control_share": (g["plan_seconds"].sum() + g["transfer_seconds"].sum()) / W,
               "state_share": g["state_seconds"].sum() / S,
               "transfers_per_gen": g["transfers"].mean(),
               "mb_per_gen": g["transfer_bytes"].mean() / 1e6}
        print("  %5d %4s %9.3f %9.3f %7.3f %9.4f %7.2f %9.2f %9.3f" % (r, "all", W, S,
              100 * tot["control_share"], g["state_seconds"].sum(), 100 * tot["state_share"],
              tot["transfers_per_gen"], tot["mb_per_gen"]))
        doc["part2"]["runs"][str(r)] = {"generations": runs, "total": tot}
    if len(rs) > 1:
        a, b = doc["part2"]["runs"][str(hi)]["total"], doc["part2"]["runs"]["1"]["total"]
        ratio = {k: (a[k] / b[k] if b[k] else None) for k in ("wall_s", "control_share",
                 "state_share")}
        doc["part2"]["ratio_vs_1_rank"] = ratio
        fmt = lambda x: "n/a" if x is None else "%.3f" % x
        print("# %d ranks / 1 rank: wall %s, ctl share %s, state share %s" % (hi, fmt(ratio["wall_s"]),
              fmt(ratio["control_share"]), fmt(ratio["state_share"])))
        drop = ("rank", "seconds", "start", "end")
        strip = lambda t: [{k: v for k, v in row.items() if k not in drop} for row in t]
        same = strip(tabs[1]) == strip(tabs[hi]) and len(tabs[1]) > 0
        doc["part2"]["tables_identical"] = same
        print("# trials.csv at 1 and %d ranks (%d rows): %s" % (hi, len(tabs[1]),
              "identical but for rank and seconds" if same else "DIFFER beyond rank and seconds"))
        failed |= not same
json.dump(doc, open(out, "w"), indent=1)
print("# wrote", out)
sys.exit(1 if failed else 0)
PY
