#!/usr/bin/env bash
# foxopt report's selection figures and its final test, on a small agent study with repeats
# and folds: the deflated and probabilistic Sharpe ratios, the minimum track record and the
# PBO with its degradation, recomputed here from the trial files by the independent Python
# reference (tests/ref/selection_ref.py); `report --test` evaluates the best configurations
# on the test split (each test cell equal to backtest --study --repeat --split test), records
# the look in test.h5, and every later report says so; --test is refused while a run holds
# OUTDIR, for a test-function study, and damaged inputs are exit 3 naming the file. A study on
# a random walk reports a low DSR and a high PBO, one on a market with an edge the opposite.
. "$(dirname "$0")/lib.sh"
need_python
REF_DIR="$FOX_SRC/tests/ref"
# figure JSON KEY: a top-level member of report --json; below A B: A < B as numbers.
figure() { "$FOX_PYTHON" -c "import json, sys; print(json.load(sys.stdin)[sys.argv[1]])" "$2" <<<"$1"; }
below() { "$FOX_PYTHON" -c "import sys; sys.exit(not float(sys.argv[1]) < float(sys.argv[2]))" "$1" "$2"; }

"$FOXOPT" synth -o "$WORK/s.csv" --bars 16000 --seed 4 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/a.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: ppo, epochs: 3, steps_per_epoch: 2048}
ppo: {n_steps: 32, hidden: [16, 16]}
eval: {folds: 2}
study:
  name: sel
  seed: 3
  trials: 9
  round_size: 9
  repeats: 2
  objective: {metric: val.sharpe, direction: maximize}
  sampler: {name: random}
  scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}
parameters:
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 3e-2}
  ppo.ent_coef: {distribution: uniform, min: 0.0, max: 0.05}
YAML
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a"
run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots
contains "$OUT_TXT" "counted: 9 configurations that reached an evaluation (3 complete, 6 pruned"
contains "$OUT_TXT" "PSR(0) = "
contains "$OUT_TXT" "DSR = "
contains "$OUT_TXT" "PBO = "
# 3 complete configurations: the PBO says how little it rests on, in every form.
contains "$OUT_TXT" "PBO caveat: from only 3 complete configurations: the in-sample best has 3 ranks"
run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots --json
contains "$OUT_TXT" "\"pbo_caveat\": \"from only 3 complete configurations"
run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots --html
contains "$(cat "$WORK/a/report.html")" "<dt>caveat</dt><dd>from only 3 complete configurations"
for blocks in 16 4; do
  run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots --json --pbo-blocks $blocks
  echo "$OUT_TXT" >"$WORK/r$blocks.json"
  "$FOX_PYTHON" - "$WORK/a" "$WORK/r$blocks.json" "$REF_DIR" $blocks <<'PY' && ok || bad "report --json ($blocks blocks) differs from the reference"
import json, sys
import h5py, numpy as np
out, js, ref_dir, blocks = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, ref_dir)
import selection_ref as ref
rep = json.load(open(js))
for k in ("dsr", "psr", "min_track_record", "pbo", "degradation_slope", "n_trials_counted"):
    assert k in rep, k
with h5py.File(f"{out}/study.h5") as f:
    status = [s.decode() if isinstance(s, bytes) else s for s in f["trials/status"][:]]
    R = int(f.attrs["repeats"])
# Every configuration's per-bar returns: each repeat's equity cut at the folds, then the mean.
cols, st = {}, {}
for i, s in enumerate(status):
    series = []
    for r in range(R):
        name = f"{out}/trials/{i}.h5" if r == 0 else f"{out}/trials/{i}-r{r}.h5"
        with h5py.File(name) as t:
            eq, folds = t["backtest/equity"][:], t["backtest/folds"][:]
        b = folds[0, 0]
        series.append(np.concatenate([eq[lo - b + 1:hi - b] / eq[lo - b:hi - b - 1] - 1
                                      for lo, hi in folds]))
    cols[i], st[i] = np.mean(series, axis=0), s
ids = sorted(cols)
assert rep["n_trials_counted"] == len(ids), (rep["n_trials_counted"], len(ids))
best = rep["best"]
M = np.column_stack([cols[i] for i in ids])
srs = ref.sharpe(M)
var = srs.var(ddof=1)
t, sr, sk, ku = ref.moments(cols[best])
want = {"psr": ref.psr(t, sr, sk, ku, 0.0),
        "dsr": ref.psr(t, sr, sk, ku, ref.expected_max_sr(var, len(ids))),
        "min_track_record": ref.min_trl(sr, sk, ku, 0.0, 0.05)}
complete = np.column_stack([cols[i] for i in ids if st[i] == "complete"])
pbo = ref.cscv(complete, blocks)
want["pbo"], want["degradation_slope"] = pbo["pbo"], pbo["slope"]
for k, v in want.items():
    got = rep[k]
    if got is None:
        got = float("nan")
    if not (np.isclose(got, v, rtol=1e-9, atol=1e-12) or (np.isnan(v) and np.isnan(got))
            or (np.isinf(v) and rep[k] is None)):
        sys.exit(f"{k}: report {rep[k]!r}, reference {v!r}")
if not np.allclose(rep["pbo_logits"], pbo["logits"], rtol=1e-9, atol=1e-12):
    sys.exit("the CSCV logits differ from the reference")
PY
done
run_rc 0 "$FOXOPT" report "$WORK/a"
check "pbo_logits.png is a PNG" is_png "$WORK/a/pbo_logits.png"
contains "$OUT_TXT" "wrote $WORK/a/pbo_logits.png"
run_rc 2 "$FOXOPT" report "$WORK/a" --pbo-blocks 5
contains "$ERR_TXT" "--pbo-blocks 5: expected an even number"

# The final test: the 2 best configurations, every repeat, the study's folds.
run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots
not_looked=$OUT_TXT
check "no note before a look" not grep -q "looked at" <<<"$not_looked"
run_rc 0 "$FOXOPT" report "$WORK/a" --test --top 2 --json --no-plots
echo "$OUT_TXT" >"$WORK/t1.json"
check "test.h5 written" test -s "$WORK/a/test.h5"
# info reads it as what it is: the look, and the look's trials in the report's order
rows=$("$FOX_PYTHON" -c "import json,sys; print(' '.join(str(r['id']) for r in json.load(open(sys.argv[1]))['test']['rows']))" "$WORK/t1.json")
run_rc 0 "$FOXOPT" info "$WORK/a/test.h5"
contains "$OUT_TXT" "test-split record"
contains "$OUT_TXT" "looks          1 (first"
check "info test.h5: the last look's trials ($rows)" \
  test "$(sed -n 's/^  last look .*trials*://p' "$WORK/out.txt" | grep -o ' [0-9]* (DSR' | tr -dc '0-9 \n' | xargs)" = "$rows"
for id in $("$FOX_PYTHON" -c "import json,sys; print(' '.join(str(r['id']) for r in json.load(open(sys.argv[1]))['test']['rows']))" "$WORK/t1.json"); do
  for rep in 0 1; do
    run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --study "$WORK/a" --trial $id --repeat $rep \
      --split test --json
    echo "$OUT_TXT" >"$WORK/bt-$id-$rep.json"
  done
done
"$FOX_PYTHON" - "$WORK" "$REF_DIR" <<'PY' && ok || bad "report --test differs from backtest --split test"
import json, sys
import numpy as np
w, ref_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, ref_dir)
import selection_ref as ref
t = json.load(open(f"{w}/t1.json"))["test"]
assert t["looks"] == 1 and t["configurations_looked_at"] == 2 and len(t["rows"]) == 2, t
rets = []
for row in t["rows"]:
    bts = [json.load(open(f"{w}/bt-{row['id']}-{r}.json")) for r in (0, 1)]
    for name, got in row["test"].items():
        m = name.split(".", 1)[1]
        cells = [f[m] if f[m] is not None else np.inf for b in bts for f in b["folds"]]
        if not np.isclose(got if got is not None else np.nan, np.mean(cells), rtol=1e-12,
                          equal_nan=True):
            sys.exit(f"trial {row['id']} {name}: report {got}, the folds' mean {np.mean(cells)}")
PY
run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots
contains "$OUT_TXT" "the test split of this study has been looked at 1 time"
contains "$OUT_TXT" "2 configurations): its figures are no longer an untouched estimate"
run_rc 0 "$FOXOPT" report "$WORK/a" --json --no-plots
check "test_looks 1 in --json" test "$(figure "$OUT_TXT" test_looks)" = 1
run_rc 0 "$FOXOPT" report "$WORK/a" --test --top 3 --no-plots
contains "$OUT_TXT" "the test split: look 2"
contains "$OUT_TXT" "the 3 configurations ever looked at on the test split"

# Luck and edge. On a random walk without costs no configuration has an edge: the best one's
# deflated Sharpe is low and the in-sample best often lands in the bottom half out of sample
# (high PBO). On a market with a real, learnable edge (the noisy 120-bar wave of e2e_learn),
# with learning rates down to 1e-6 (configurations that cannot learn in one short epoch beside
# ones that do), the best one's DSR is near 1 and the in-sample best stays in the top half
# (low PBO). Measured at study seeds 1, 2, 3: walk DSR 0.04 / 0.04 / 0.05, PBO 0.38 / 0.29 /
# 0.30; wave DSR 1.00, PBO 0.00 / 0.00 / 0.09.
market() { # market NAME AMPLITUDE: 30000 bars, a wave of that amplitude or (0) a random walk
  awk -v N=30000 -v P=120 -v A=$2 'BEGIN { srand(5); print "timestamp,open,high,low,close,volume"
    prev = 100; lp = log(100)
    for (t = 0; t < N; t++) {
      if (A > 0) lp = log(100) + A * sin(6.283185307179586 * t / P) + 0.0007 * (rand() + rand() + rand() - 1.5)
      else lp = lp + 0.0007 * (rand() + rand() + rand() - 1.5)
      c = exp(lp); o = prev; h = (o > c ? o : c) * 1.0002; l = (o < c ? o : c) * 0.9998
      printf "%d,%.6f,%.6f,%.6f,%.6f,%d\n", 1514764800 + 60 * t, o, h, l, c, 100 + int(rand() * 50)
      prev = c
    } }' >"$WORK/$1.csv"
  "$FOXOPT" import "$WORK/$1.csv" -o "$WORK/$1.h5" >/dev/null
  cat >"$WORK/$1.yaml" <<YAML
data: {path: $WORK/$1.h5}
barrier: {enforce: false}
env: {num_envs: 16, episode_bars: 512}
train: {algo: ppo, epochs: 1, steps_per_epoch: 60000}
ppo: {n_steps: 64, hidden: [32, 32]}
eval: {folds: 2}
study: {name: $1, seed: 1, trials: 12, round_size: 12, sampler: random,
        objective: {metric: val.sharpe, direction: maximize}}
parameters:
  ppo.lr: {distribution: log_uniform, min: LR_MIN, max: 3e-3}
  ppo.ent_coef: {distribution: uniform, min: 0.0, max: 0.02}
YAML
}
market walk 0 && sed -i 's/LR_MIN/3e-4/' "$WORK/walk.yaml"
run_rc 0 "$FOXOPT" run "$WORK/walk.yaml" -o "$WORK/walk" --set market.fee=0 --set market.spread=0
run_rc 0 "$FOXOPT" report "$WORK/walk" --json --no-plots
dsr=$(figure "$OUT_TXT" dsr) pbo=$(figure "$OUT_TXT" pbo)
check "random walk: DSR $dsr < 0.3" below "$dsr" 0.3
check "random walk: PBO $pbo > 0.2" below 0.2 "$pbo"
check "12 complete configurations: no caveat" not grep -q pbo_caveat <<<"$OUT_TXT"
market wave 0.01 && sed -i 's/LR_MIN/1e-6/' "$WORK/wave.yaml"
run_rc 0 "$FOXOPT" run "$WORK/wave.yaml" -o "$WORK/wave"
run_rc 0 "$FOXOPT" report "$WORK/wave" --json --no-plots
dsr=$(figure "$OUT_TXT" dsr) pbo=$(figure "$OUT_TXT" pbo)
check "wave: DSR $dsr > 0.95" below 0.95 "$dsr"
check "wave: PBO $pbo < 0.15" below "$pbo" 0.15

# A configuration whose trial file is lost still counts in N (study.h5 records its evaluation);
# its Sharpe is left out of the variance, and the report says so.
cp -r "$WORK/a" "$WORK/lost" && rm "$WORK/lost/trials/1-r1.h5" "$WORK/lost/test.h5"
run_rc 0 "$FOXOPT" report "$WORK/lost" --no-plots
contains "$OUT_TXT" "1 of them have no returns in their trial files"
run_rc 0 "$FOXOPT" report "$WORK/lost" --no-plots --json
check "lost file: N stays 9" test "$(figure "$OUT_TXT" n_trials_counted)" = 9
check "lost file: 8 with returns" test "$(figure "$OUT_TXT" n_with_returns)" = 8
# A study.h5 removed and the study started afresh there: the old test looks go with it.
rm "$WORK/lost/study.h5"
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/lost" --set study.trials=3 --set study.round_size=3 \
  --set study.scheduler.name=none --set train.epochs=1
check "fresh study: no test.h5 of the old one" test ! -e "$WORK/lost/test.h5"
cp "$WORK/a/test.h5" "$WORK/lost/test.h5" && rm "$WORK/lost/study.h5"
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/lost" --set study.trials=3 --set study.round_size=3 \
  --set study.scheduler.name=none --set train.epochs=1
contains "$ERR_TXT" "removed $WORK/lost/test.h5 (the test looks of a study whose study.h5 is gone)"
# A study that chose on the test split has no test left.
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/et" --set eval.split=test \
  --set study.objective.metric=test.sharpe --set study.trials=3 --set study.round_size=3 \
  --set study.scheduler.name=none --set train.epochs=1
run_rc 0 "$FOXOPT" report "$WORK/et" --no-plots
contains "$OUT_TXT" "this study chose its configurations on the test split"
run_rc 2 "$FOXOPT" report "$WORK/et" --test --no-plots
contains "$ERR_TXT" "(eval.split: test): there is no untouched test left to run"

# Refusals: a run holding OUTDIR; a test-function study; damaged inputs.
"$FOX_PYTHON" -c '
import fcntl, sys, time
f = open(sys.argv[1] + "/.lock", "a+")
fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[1] + "/held", "w").close()
time.sleep(30)' "$WORK/a" &
holder=$!
for _ in $(seq 100); do [ -e "$WORK/a/held" ] && break; sleep 0.05; done
run_rc 2 "$FOXOPT" report "$WORK/a" --test --no-plots
contains "$ERR_TXT" "$WORK/a"
kill $holder 2>/dev/null; wait $holder 2>/dev/null
cat >"$WORK/f.yaml" <<YAML
study: {name: br, seed: 3, trials: 4, sampler: random, objective: {function: branin, direction: minimize}}
parameters: {x0: {distribution: uniform, min: -5, max: 10}, x1: {distribution: uniform, min: 0, max: 15}}
YAML
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/f"
run_rc 0 "$FOXOPT" report "$WORK/f" --no-plots
check "no selection figures for a test function" not grep -q "DSR" <<<"$OUT_TXT"
run_rc 2 "$FOXOPT" report "$WORK/f" --test --no-plots
contains "$ERR_TXT" "test-function study: there is no test split"
run_rc 2 "$FOXOPT" report "$WORK/f" --backend cpu
contains "$ERR_TXT" "--backend goes with --test"
cp -r "$WORK/a" "$WORK/d"
"$FOX_PYTHON" -c 'import h5py, sys; f = h5py.File(sys.argv[1], "a"); f["backtest/equity"][5] = -1.0' "$WORK/d/trials/4-r1.h5"
run_rc 3 "$FOXOPT" report "$WORK/d" --no-plots
contains "$ERR_TXT" "$WORK/d/trials/4-r1.h5: /backtest/equity[5] = -1"
cp "$WORK/a/trials/4-r1.h5" "$WORK/d/trials/4-r1.h5"
printf 'not hdf5' >"$WORK/d/test.h5"
run_rc 3 "$FOXOPT" report "$WORK/d" --no-plots
contains "$ERR_TXT" "$WORK/d/test.h5"
cp "$WORK/a/test.h5" "$WORK/d/test.h5"
"$FOX_PYTHON" -c 'import h5py, sys; f = h5py.File(sys.argv[1], "a"); f["seen_sharpe"][0] = float("nan")' "$WORK/d/test.h5"
run_rc 3 "$FOXOPT" report "$WORK/d" --no-plots
contains "$ERR_TXT" "$WORK/d/test.h5: /seen_sharpe[0] = nan, expected a finite number"
cp "$WORK/a/test.h5" "$WORK/d/test.h5"
"$FOX_PYTHON" -c 'import h5py, sys; f = h5py.File(sys.argv[1], "a"); f["seen_trials"][0] = 99' "$WORK/d/test.h5"
run_rc 3 "$FOXOPT" report "$WORK/d" --no-plots
contains "$ERR_TXT" "$WORK/d/test.h5: /seen_trials[0] = 99, expected a trial id below 9"
done_
