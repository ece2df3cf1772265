#!/usr/bin/env bash
# Repeats and walk-forward folds (study.repeats, eval.folds, study.objective.aggregate): every
# configuration trained with the same K seeds; the table's value is the aggregate of its
# repeats x folds cells (checked here from study.h5's cells with numpy, for mean, median, iqm
# and lcb); each cell is what `backtest --study --trial ID --repeat R` replays fold by fold;
# the same table on 1 and 3 threads and after a stop and --resume; bad settings are refused.
# (Pruning on the aggregate: tests/unit/test_scheduler.c; 1 vs 3 ranks: tests/mpi/study.sh.)
. "$(dirname "$0")/lib.sh"
need_python

"$FOXOPT" synth -o "$WORK/s.csv" --bars 16000 --seed 8 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/a.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 16, episode_bars: 512}
train: {algo: ppo, steps_per_epoch: 4096}
ppo: {n_steps: 64, hidden: [16, 16]}
eval: {folds: 3}
study:
  name: rep
  seed: 5
  trials: 6
  round_size: 3
  repeats: 3
  objective: {metric: val.total_return, direction: maximize, aggregate: median}
  sampler: {name: random}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}
parameters:
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.clip: {distribution: uniform, min: 0.1, max: 0.3}
YAML
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a1"
check "6 rows" test "$(($(wc -l <"$WORK/a1/trials.csv") - 1))" -eq 6
check "18 trial files (6 configurations x 3 repeats)" test "$(ls "$WORK/a1/trials" | wc -l)" -eq 18
contains "$(head -1 "$WORK/a1/trials.csv")" "val.total_return.std"
check "no checkpoint left" test -z "$(ls "$WORK/a1/state")"

# The table from the cells, recomputed here; the seeds paired; the pruning on the aggregate.
verify() { # verify OUTDIR AGGREGATE
  "$FOX_PYTHON" - "$1" "$2" <<'PY'
import csv, re, sys
import h5py, numpy as np
out, agg = sys.argv[1], sys.argv[2]
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{out}/trials.csv"))}
with h5py.File(f"{out}/study.h5") as f:
    R, F, M = (int(v) for v in f["trials/cells"].attrs["repeats_folds_metrics"])
    cells = f["trials/cells"][:].reshape(-1, R, F, M)
    names = [n.decode() if isinstance(n, bytes) else n for n in f["trials/metrics"].attrs["names"]]
    seeds = f["trials/repeats/seed"][:]
    rep_epochs = f["trials/repeats/epochs"][:]
    status = [s.decode() if isinstance(s, bytes) else s for s in f["trials/status"][:]]
assert (R, F) == (3, 3), (R, F)
obj = names.index("val.total_return")
def aggregate(v, how, objective):
    v = v[~np.isnan(v)]
    if how == "mean" or (how == "lcb" and not objective): return v.mean()
    if how == "median": return np.median(v)
    if how == "iqm":
        v = np.sort(v); k = len(v) // 4          # scipy.stats.trim_mean(v, 0.25)
        return v[k:len(v) - k].mean()
    if how == "lcb": return v.mean() - v.std(ddof=1) / np.sqrt(len(v))
for i, r in rows.items():
    if r["status"] == "failed":
        continue
    for j, name in enumerate(names):
        if name in ("val.profit_factor",):
            continue  # inf in a fold makes the mean inf: compared below as text
        v = cells[i, :, :, j].ravel()
        want = aggregate(v, agg, j == obj)
        got = float(r[name]) if r[name] != "" else float("nan")
        if not np.isclose(got, want, rtol=1e-12, atol=1e-15, equal_nan=True):
            sys.exit(f"trial {i} {name}: trials.csv {got!r}, {agg} of the cells {want!r}")
        sd = np.std(v[~np.isnan(v)], ddof=1)
        got_sd = float(r[name + ".std"]) if r[name + ".std"] != "" else float("nan")
        if not np.isclose(got_sd, sd, rtol=1e-9, atol=1e-15, equal_nan=True):
            sys.exit(f"trial {i} {name}.std: {got_sd!r}, cells {sd!r}")
    if not (rep_epochs[i] == int(r["epochs"])).all():
        sys.exit(f"trial {i}: repeats trained {rep_epochs[i]}, the row says {r['epochs']}")
# Paired seeds: repeat r of every configuration trained with seed[r].
for i in rows:
    for rep in range(R):
        name = f"{out}/trials/{i}.h5" if rep == 0 else f"{out}/trials/{i}-r{rep}.h5"
        with h5py.File(name) as f:
            cfg = f.attrs["config"]
            cfg = cfg.decode() if isinstance(cfg, bytes) else cfg
        seed = int(re.search(r"^  seed: (\d+)", cfg.split("train:")[1], re.M).group(1))
        if seed != int(seeds[rep]):
            sys.exit(f"trial {i} repeat {rep}: seed {seed}, the study's stream {seeds[rep]}")
PY
}
check "median: the table is the aggregate of study.h5's cells, seeds paired" verify "$WORK/a1" median

# Each cell: the policy of (trial, repeat) replayed fold by fold.
replay() { # replay OUTDIR
  local out=$1 id rep
  for id in 0 1 2 3 4 5; do
    for rep in 0 1 2; do
      "$FOXOPT" backtest "$WORK/s.h5" --study "$out" --trial $id --repeat $rep --json \
        >"$WORK/bt-$id-$rep.json" || return 1
    done
  done
  "$FOX_PYTHON" - "$out" "$WORK" <<'PY'
import json, sys
import h5py, numpy as np
out, w = sys.argv[1], sys.argv[2]
with h5py.File(f"{out}/study.h5") as f:
    R, F, M = (int(v) for v in f["trials/cells"].attrs["repeats_folds_metrics"])
    cells = f["trials/cells"][:].reshape(-1, R, F, M)
    names = [n.decode() if isinstance(n, bytes) else n for n in f["trials/metrics"].attrs["names"]]
for i in range(cells.shape[0]):
    for r in range(R):
        bt = json.load(open(f"{w}/bt-{i}-{r}.json"))
        if len(bt["folds"]) != F:
            sys.exit(f"trial {i} repeat {r}: {len(bt['folds'])} folds replayed, {F} recorded")
        for k, fold in enumerate(bt["folds"]):
            for j, name in enumerate(names):
                m = name.split(".", 1)[1]
                got = fold[m] if fold[m] is not None else float("inf")
                if got != cells[i, r, k, j]:
                    sys.exit(f"trial {i} repeat {r} fold {k} {m}: backtest {got!r}, "
                             f"study.h5 {cells[i, r, k, j]!r}")
PY
}
check "every (trial, repeat, fold) cell replayed by backtest --study --repeat" replay "$WORK/a1"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/a1" --trial 0 --repeat 3
contains "$ERR_TXT" "--repeat 3: the study in $WORK/a1 runs 3 repeats (0 .. 2)"
run_rc 2 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/none.csv" --repeat 1
contains "$ERR_TXT" "--repeat goes with --study"

# Threads and stop/resume do not change the table.
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a3" --set study.trials_per_device=3
same_table "repeats: 1 vs 3 threads" "$WORK/a1/trials.csv" "$WORK/a3/trials.csv"
stop_when "$WORK/as/study.h5" "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/as" \
  --set study.trials_per_device=2
check "repeats: SIGTERM exits 75 (got $RC)" test "$RC" -eq 75
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/as" --resume --set study.trials_per_device=2
same_table "repeats: stop + resume" "$WORK/a1/trials.csv" "$WORK/as/trials.csv"

# The other aggregates, on the same cells (one epoch, no scheduler: every row complete).
for agg in mean iqm lcb; do
  run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/g-$agg" --set study.objective.aggregate=$agg \
    --set study.scheduler.name=none --set train.epochs=1 --set study.trials=3
  check "$agg: the table is the aggregate of study.h5's cells" verify "$WORK/g-$agg" $agg
done

# One repeat and one fold: no spread columns, trial files named as before repeats existed.
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/one" --set study.repeats=1 --set eval.folds=1 \
  --set study.trials=3 --set study.scheduler.name=none --set train.epochs=1
check "one cell: no .std columns" not grep -q '\.std' "$WORK/one/trials.csv"
check "one cell: trials/0.h5 .. 2.h5" test "$(ls "$WORK/one/trials" | tr '\n' ' ')" = "0.h5 1.h5 2.h5 "

# Refusals.
run_rc 2 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/b1" --set study.repeats=0
contains "$ERR_TXT" "study.repeats"
contains "$ERR_TXT" "an integer in [1, 64]"
run_rc 2 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/b2" --set study.objective.aggregate=max
contains "$ERR_TXT" "mean, median, iqm or lcb"
run_rc 2 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/b3" --set eval.folds=17
contains "$ERR_TXT" "an integer in [1, 16]"
# The folds make the cells: every configuration has the same, so they cannot be searched.
sed 's/^  ppo.clip.*/  eval.folds: {distribution: int_uniform, min: 1, max: 4}/' "$WORK/a.yaml" >"$WORK/ef.yaml"
run_rc 2 "$FOXOPT" run "$WORK/ef.yaml" -o "$WORK/b5"
contains "$ERR_TXT" "parameters.eval.folds: cannot be searched"
# More folds than the validation split can hold (2 bars each): exit 3 before any trial runs.
"$FOXOPT" synth -o "$WORK/t.csv" --bars 2000 --seed 8 >/dev/null
"$FOXOPT" import "$WORK/t.csv" -o "$WORK/t.h5" --split 0.96,0.01,0.03 >/dev/null
run_rc 3 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/b4" --set data.path="$WORK/t.h5" \
  --set eval.folds=16
contains "$ERR_TXT" "2 per fold (eval.folds 16)"
done_
