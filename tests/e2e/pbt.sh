#!/usr/bin/env bash
# Population-based training (study.scheduler.name: pbt) end to end: every (member, generation)
# segment a row with its lineage, checked from trials.csv: exploits only from the top quantile
# into the bottom one and every failed member, the explored values a factor product clamped to
# the range or a resample, kept members' parameters unchanged; each segment's curve continuing
# its parent's (the state went with it); every segment's policy reproducing its row through
# backtest --study --trial; the same table on 1 and 2 threads and after SIGTERM + --resume;
# copy_buffers; the report's schedule (text, JSON, HTML, PNG); refusals (FILE:LINE where the
# YAML has one).
# (Ranks, state moves and a multi-host run: tests/mpi/study.sh and multihost.sh.)
. "$(dirname "$0")/lib.sh"
need_python

"$FOXOPT" synth -o "$WORK/s.csv" --bars 12000 --seed 9 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/a.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: dqn, steps_per_epoch: 1024, epochs: 4}
dqn: {hidden: [16], buffer_size: 2000, batch_size: 32}
study:
  name: pbt
  seed: 3
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: random}
  scheduler: {name: pbt, population: 6, interval: 1}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.gamma: {distribution: uniform, min: 0.9, max: 0.999}
  # 100000 is more than the 4096 transitions of a trial: a member drawing it fails, and is
  # replaced by an exploit at the next generation
  dqn.learning_starts: {values: [100, 200, 100000]}
YAML
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/a"
check "24 rows (6 members x 4 generations)" test "$(($(wc -l <"$WORK/a/trials.csv") - 1))" -eq 24
contains "$(head -1 "$WORK/a/trials.csv")" "id,status,round,member,generation,parent,exploited,"

# The lineage and the exploit / explore rules, from the table alone.
lineage() { # lineage OUTDIR POPULATION QUANTILE FACTORS...
  "$FOX_PYTHON" - "$@" <<'PY'
import csv, math, sys
out, P, q = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
factors = [float(f) for f in sys.argv[4:]]
rows = list(csv.DictReader(open(f"{out}/trials.csv")))
by = {int(r["id"]): r for r in rows}
G = len(rows) // P
k = min(math.ceil(P * q), P // 2)
bounds = {"dqn.lr": (1e-4, 1e-2), "dqn.gamma": (0.9, 0.999)}
stats = {"factor": 0, "resample": 0, "choice": 0}
for i, r in by.items():
    g, m = int(r["generation"]), int(r["member"])
    if (g, m, int(r["round"])) != (i // P, i % P, i // P):
        sys.exit(f"row {i}: generation {g} member {m} round {r['round']}")
    if g == 0:
        if r["parent"] or r["exploited"] != "0":
            sys.exit(f"row {i}: generation 0 with parent {r['parent']!r}")
        continue
    par = by[int(r["parent"])]
    if int(par["generation"]) != g - 1:
        sys.exit(f"row {i}: parent {r['parent']} is not of generation {g - 1}")
    prev = [by[(g - 1) * P + j] for j in range(P)]
    val = lambda x: float(x["val.total_return"]) if x["status"] != "failed" else math.nan
    order = sorted(range(P), key=lambda j: (math.isnan(val(prev[j])), -val(prev[j])
                                             if not math.isnan(val(prev[j])) else 0, j))
    healthy = [j for j in order if not math.isnan(val(prev[j]))]
    top = set(healthy[:k])
    bottom = set(order[-k:]) | {j for j in range(P) if math.isnan(val(prev[j]))}
    exploited = r["exploited"] == "1"
    if exploited != (m in bottom):
        sys.exit(f"row {i}: member {m} exploited {exploited}, bottom {sorted(bottom)} "
                 f"(generation {g - 1} values {[val(x) for x in prev]})")
    own = prev[m]
    if not exploited:
        if int(r["parent"]) != int(own["id"]):
            sys.exit(f"row {i}: kept member continues from {r['parent']}, not {own['id']}")
        for key in bounds:
            if r[key] != own[key]:
                sys.exit(f"row {i}: kept member's {key} changed {own[key]} -> {r[key]}")
        continue
    if int(par["member"]) not in top:
        sys.exit(f"row {i}: copied member {par['member']}, top {sorted(top)}")
    for key, (lo, hi) in bounds.items():
        v, pv = float(r[key]), float(par[key])
        if not lo <= v <= hi:
            sys.exit(f"row {i}: {key} {v} outside [{lo}, {hi}]")
        moved = [min(max(pv * f, lo), hi) for f in factors]
        stats["factor" if any(abs(v - w) <= 1e-12 * abs(w) for w in moved) else "resample"] += 1
    if r["dqn.learning_starts"] != par["dqn.learning_starts"]:
        stats["choice"] += 1
if len(rows) != P * G:
    sys.exit(f"{len(rows)} rows")
print(" ".join(f"{a}={b}" for a, b in stats.items()))
PY
}
st=$(lineage "$WORK/a" 6 0.25 0.8 1.2)
check "lineage and exploit rules" test -n "$st"
echo "# explored values: $st"
# the failures: a member with learning_starts 100000 fails, and is replaced
"$FOX_PYTHON" - "$WORK/a" <<'PY' && ok || bad "failed members and their replacement"
import csv, sys
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{sys.argv[1]}/trials.csv"))}
failed = [i for i, r in rows.items() if r["status"] == "failed"]
if not failed:
    sys.exit("no member failed: the test lost its failure")
for i in failed:
    if "learning_starts" not in rows[i]["reason"] or rows[i]["dqn.learning_starts"] != "100000":
        sys.exit(f"row {i} failed for {rows[i]['reason']!r}")
    nxt = rows.get(i + 6)
    if nxt and (nxt["exploited"] != "1" or rows[int(nxt["parent"])]["status"] == "failed"):
        sys.exit(f"failed row {i}: its member's next row {i + 6} is not an exploit of a healthy one")
PY

# Each segment continues its parent's state: its curve's first epochs are the parent's.
"$FOX_PYTHON" - "$WORK/a" <<'PY' && ok || bad "curves do not continue the parents'"
import csv, sys
import h5py, numpy as np
out = sys.argv[1]
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{out}/trials.csv"))}
seen = 0
for i, r in rows.items():
    if not r["parent"] or r["status"] == "failed":
        continue
    p = int(r["parent"])
    with h5py.File(f"{out}/trials/{i}.h5") as c, h5py.File(f"{out}/trials/{p}.h5") as f:
        n = f["curve/epoch"].shape[0]
        for name in ("epoch", "loss", "eval"):
            a, b = c[f"curve/{name}"][:n], f[f"curve/{name}"][:]
            if not np.array_equal(a, b, equal_nan=True):
                sys.exit(f"row {i}: curve/{name} of its first {n} epochs differs from row {p}'s")
        if c["curve/epoch"].shape[0] != n + 1:
            sys.exit(f"row {i}: {c['curve/epoch'].shape[0]} epochs, parent {n}")
    seen += 1
if seen < 12:
    sys.exit(f"only {seen} rows checked")
PY

# Every complete segment's policy reproduces its row.
"$FOX_PYTHON" - "$FOXOPT" "$WORK" <<'PY' && ok || bad "backtest --study --trial"
import csv, json, subprocess, sys
fox, w = sys.argv[1], sys.argv[2]
for r in csv.DictReader(open(f"{w}/a/trials.csv")):
    if r["status"] != "complete":
        continue
    got = json.loads(subprocess.run([fox, "backtest", f"{w}/s.h5", "--study", f"{w}/a", "--trial",
                                     r["id"], "--json"], capture_output=True, check=True,
                                    text=True).stdout)
    for key in ("total_return", "sharpe", "trades"):
        if float(got[key]) != float(r[f"val.{key}"]):
            sys.exit(f"row {r['id']}: {key} {got[key]} vs {r['val.' + key]}")
PY

# 2 threads, and SIGTERM + --resume at two points: the same table.
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/t2" --set study.trials_per_device=2
same_table "2 threads" "$WORK/a/trials.csv" "$WORK/t2/trials.csv"
# 6 at a time: every state a segment continued from was still open where its segment ran
# (6 held at most), so each was copied within the backend; a row failed before training
# loaded none
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/t6" --set study.trials_per_device=6
same_table "6 threads" "$WORK/a/trials.csv" "$WORK/t6/trials.csv"
"$FOX_PYTHON" - "$WORK/t6" <<'PY' && ok || bad "6 threads: the states copied"
import csv, sys
import h5py
rows = list(csv.DictReader(open(f"{sys.argv[1]}/trials.csv")))
copied = h5py.File(f"{sys.argv[1]}/study.h5")["pbt/copied"][:].tolist()
for g, c in enumerate(copied):
    n = sum(int(r["generation"]) == g for r in rows)
    failed = sum(int(r["generation"]) == g and r["status"] == "failed" for r in rows)
    lo, hi = (0, 0) if g == 0 else (n - failed, n)
    if not lo <= c <= hi:
        sys.exit(f"generation {g}: {c} states copied, not {lo}..{hi} ({copied})")
PY
for at in study.h5 trials/10.h5; do
  rm -rf "$WORK/st"
  stop_when "$WORK/st/$at" "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/st"
  check "SIGTERM after $at exits 75 (got $RC)" test "$RC" -eq 75
  run_rc 0 "$FOXOPT" run -o "$WORK/st" --resume
  same_table "SIGTERM after $at, resumed" "$WORK/a/trials.csv" "$WORK/st/trials.csv"
  check "no checkpoint left after $at" test -z "$(ls "$WORK/st/state")"
done

# Repeats x folds: each member trains 2 seeds (paired), ranked by the median of 4 cells; each
# repeat continues its parent's same repeat; 1 and 2 threads and a stop give the same table.
rep=(--set study.repeats=2 --set eval.folds=2 --set study.objective.aggregate=median
     --set study.scheduler.population=4)
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/r1" "${rep[@]}"
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/r2" "${rep[@]}" --set study.trials_per_device=2
same_table "repeats, 2 threads" "$WORK/r1/trials.csv" "$WORK/r2/trials.csv"
stop_when "$WORK/rs/trials/6-r1.h5" "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/rs" "${rep[@]}"
check "repeats: SIGTERM exits 75 (got $RC)" test "$RC" -eq 75
run_rc 0 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/rs" "${rep[@]}" --resume
same_table "repeats, stopped and resumed" "$WORK/r1/trials.csv" "$WORK/rs/trials.csv"
"$FOX_PYTHON" - "$WORK/r1" <<'PY' && ok || bad "repeats continue their parent's repeat"
import csv, sys
import h5py, numpy as np
out = sys.argv[1]
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{out}/trials.csv"))}
n = 0
for i, r in rows.items():
    if not r["parent"] or r["status"] != "complete":
        continue
    p = int(r["parent"])
    with h5py.File(f"{out}/trials/{i}-r1.h5") as c, h5py.File(f"{out}/trials/{p}-r1.h5") as f:
        k = f["curve/eval"].shape[0]
        if not np.array_equal(c["curve/eval"][:k], f["curve/eval"][:], equal_nan=True):
            sys.exit(f"row {i} repeat 1 does not continue row {p}'s repeat 1")
    n += 1
if n < 6:
    sys.exit(f"{n} rows checked")
PY

# copy_buffers false: an exploiting member keeps its own experience (a study without the
# failing choice, so that generation 1's exploits have buffers of their own): generation 0 and
# the kept members of generation 1 are the same, some exploited row differs.
sed 's/dqn.learning_starts: {values: .*/dqn.learning_starts: {value: 200}/' "$WORK/a.yaml" \
  >"$WORK/b.yaml"
run_rc 0 "$FOXOPT" run "$WORK/b.yaml" -o "$WORK/cb"
run_rc 0 "$FOXOPT" run "$WORK/b.yaml" -o "$WORK/nb" --set study.scheduler.copy_buffers=false
"$FOX_PYTHON" - "$WORK" <<'PY' && ok || bad "copy_buffers false"
import csv, sys
w = sys.argv[1]
a = {int(r["id"]): r for r in csv.DictReader(open(f"{w}/cb/trials.csv"))}
b = {int(r["id"]): r for r in csv.DictReader(open(f"{w}/nb/trials.csv"))}
key = "val.total_return"
for i in range(6):
    if a[i][key] != b[i][key]:
        sys.exit(f"generation 0 row {i} differs")
differ = 0
for i in range(6, 12):  # generation 1 makes the same decisions in both
    if a[i]["exploited"] != b[i]["exploited"] or a[i]["parent"] != b[i]["parent"]:
        sys.exit(f"row {i}: another decision")
    if a[i]["exploited"] == "0" and a[i][key] != b[i][key]:
        sys.exit(f"row {i}: kept member differs")
    differ += a[i]["exploited"] == "1" and a[i][key] != b[i][key]
if not differ:
    sys.exit("no exploited row of generation 1 differs with its own buffers")
PY

# Every member of generation 0 failing (learning_starts 10000, the default, is above the 4096
# transitions): nothing to continue from, the study ends there, and says so.
sed 's/dqn.learning_starts: {values: .*/dqn.learning_starts: {value: 10000}/' "$WORK/a.yaml" \
  >"$WORK/f.yaml"
run_rc 0 "$FOXOPT" run "$WORK/f.yaml" -o "$WORK/allf"
contains "$OUT_TXT" "pbt: every member of generation 0 failed"
check "6 failed rows" test "$(grep -c ',failed,' "$WORK/allf/trials.csv")" -eq 6
run_rc 0 "$FOXOPT" run -o "$WORK/allf" --resume

# copy_buffers false across a stop: a resumed exploit needs its member's own last checkpoint
# (the experience it keeps) as well as the donor's, so neither may be pruned meanwhile. Stops
# at several points of generations 1 and 2, with one repeat and with two.
for at in 7 9 11 14 16; do
  rm -rf "$WORK/ns"
  stop_when "$WORK/ns/trials/$at.h5" "$FOXOPT" run "$WORK/b.yaml" -o "$WORK/ns" \
    --set study.scheduler.copy_buffers=false
  run_rc 0 "$FOXOPT" run -o "$WORK/ns" --resume
  same_table "copy_buffers false, stopped after row $at" "$WORK/nb/trials.csv" "$WORK/ns/trials.csv"
done
# the experience an exploiting member keeps comes from its own last checkpoint: one that holds
# another trial's state (its 'owner' attribute) is refused naming the file, never used
rm -rf "$WORK/ns"
stop_when "$WORK/ns/trials/7.h5" "$FOXOPT" run "$WORK/b.yaml" -o "$WORK/ns" \
  --set study.scheduler.copy_buffers=false
own=$("$FOX_PYTHON" - "$WORK/nb" "$WORK/ns" <<'PY'
import csv, glob, os, sys
import h5py, numpy as np
ref, st = sys.argv[1:3]
rows = list(csv.DictReader(open(f"{ref}/trials.csv")))
by = {(r["member"], r["generation"]): r["id"] for r in rows}
for r in rows:
    if r["exploited"] != "1" or os.path.exists(f"{st}/trials/{r['id']}.h5"):
        continue
    prev = by.get((r["member"], str(int(r["generation"]) - 1)))
    if prev is None or prev == r["parent"]:
        continue
    for path in glob.glob(f"{st}/state/trial-{prev}-e*.h5"):
        with h5py.File(path, "r+") as f:
            f.attrs["owner"] = np.array([99, 0], dtype=np.int32)
        print(path)
        sys.exit(0)
PY
)
if [ -n "$own" ]; then
  run_rc 3 "$FOXOPT" run -o "$WORK/ns" --resume
  contains "$ERR_TXT" "$own: the state of trial 99 repeat 0, not of this trial's"
else
  echo "note: no exploiting row left to run after the stop: the owner check of kept experience skipped"
fi
nbr=(--set study.scheduler.copy_buffers=false --set study.repeats=2)
run_rc 0 "$FOXOPT" run "$WORK/b.yaml" -o "$WORK/nbr" "${nbr[@]}"
for at in 8-r1 10; do
  rm -rf "$WORK/ns"
  stop_when "$WORK/ns/trials/$at.h5" "$FOXOPT" run "$WORK/b.yaml" -o "$WORK/ns" "${nbr[@]}"
  run_rc 0 "$FOXOPT" run "$WORK/b.yaml" -o "$WORK/ns" "${nbr[@]}" --resume
  same_table "copy_buffers false, 2 repeats, stopped after $at" "$WORK/nbr/trials.csv" \
    "$WORK/ns/trials.csv"
done

# A member explored into a config that cannot run (learning_starts above the run's
# transitions) trained nothing: 0 epochs, and backtest says so.
"$FOX_PYTHON" - "$WORK/a" "$FOXOPT" "$WORK/s.h5" <<'PY' && ok || bad "a failed explored member"
import csv, subprocess, sys
out, fox, data = sys.argv[1:4]
for r in csv.DictReader(open(f"{out}/trials.csv")):
    if r["status"] != "failed":
        continue
    if r["epochs"] != "0":
        sys.exit(f"failed row {r['id']} claims {r['epochs']} epochs")
    p = subprocess.run([fox, "backtest", data, "--study", out, "--trial", r["id"]],
                       capture_output=True, text=True)
    if p.returncode != 3 or "has not trained" not in p.stderr:
        sys.exit(f"backtest of failed row {r['id']}: exit {p.returncode}: {p.stderr}")
PY
run_rc 0 "$FOXOPT" info "$WORK/a/study.h5"
contains "$OUT_TXT" "population 6 in 4 generations of 1 epochs"

# The report: the best member's schedule, JSON and PNG.
run_rc 0 "$FOXOPT" report "$WORK/a" --no-plots
contains "$OUT_TXT" "# pbt: the schedule of the best member"
contains "$OUT_TXT" "# pbt: what each generation cost"
run_rc 0 "$FOXOPT" report "$WORK/a" --json --no-plots
echo "$OUT_TXT" >"$WORK/r.json"
"$FOX_PYTHON" - "$WORK/a" "$WORK/r.json" <<'PY' && ok || bad "report --json pbt_schedule"
import csv, json, sys
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{sys.argv[1]}/trials.csv"))}
j = json.load(open(sys.argv[2]))
sched = j["pbt_schedule"]
best = j["trials"][0]["id"]
if best != j["best"] or rows[best]["generation"] != "3":
    sys.exit(f"best {best} / {j['best']} is not of the last generation")
ids = [s["trial"] for s in sched]
chain, i = [], best
while i >= 0:
    chain.append(i)
    i = int(rows[i]["parent"]) if rows[i]["parent"] else -1
if ids != chain[::-1] or [s["generation"] for s in sched] != [0, 1, 2, 3]:
    sys.exit(f"schedule {ids}, lineage {chain[::-1]}")
for s in sched:
    r = rows[s["trial"]]
    if s["params"]["dqn.lr"] != float(r["dqn.lr"]) or s["exploited"] != (r["exploited"] == "1"):
        sys.exit(f"row {s['trial']}: {s} vs {r}")
gens = j["pbt_generations"]
if len(gens) != 4 or not all(g["wall_seconds"] > 0 and g["transfers"] == 0 for g in gens):
    sys.exit(f"generations {gens}")
# one trial at a time: one trial held open at a time (more within a generation, as each is
# released after its last reader loaded it), so some states were copied within the backend
copied = [g["copied"] for g in gens]
if copied[0] != 0 or not all(c <= 6 for c in copied) or sum(copied) < 1:
    sys.exit(f"copied {copied}")
PY
run_rc 0 "$FOXOPT" report "$WORK/a"
check "pbt_schedule.png" is_png "$WORK/a/pbt_schedule.png"
# the schedule figure: a panel for the objective and each parameter, the lineage a red line
# through one point a generation
"$FOX_PYTHON" - "$WORK/a/pbt_schedule.svg" "$(tail -n +2 "$WORK/a.yaml" | grep -c '^  [a-z]')" <<'PY' && ok || bad "pbt_schedule.svg"
import re, sys
svg = open(sys.argv[1]).read()
panels = svg.count('<svg xmlns="http://www.w3.org/2000/svg" viewBox=')
lines = [d for d in re.findall(r'<path class="best" d="([^"]*)"', svg) if d != "M0 6h12"]
assert panels >= 2 and len(lines) == panels, (panels, len(lines))
assert all(len(re.findall(r"[ML]", d)) == 4 for d in lines), lines
PY
h5=$("$FOX_PYTHON" -c '
import sys, h5py
f = h5py.File(sys.argv[1])
print(sorted(f["pbt"]), [f["trials/" + k].shape[0] for k in ("member", "generation", "parent", "exploited")])
' "$WORK/a/study.h5")
contains "$h5" "'transfer_bytes', 'transfer_seconds', 'transfers', 'wall_seconds'] [24, 24, 24, 24]"
run_rc 0 "$FOXOPT" export "$WORK/a" --optuna "$WORK/a.log"
# Optuna's reading: the lineage as user attributes, earlier generations pruned (their members
# went on), so that Optuna's best trial is foxopt's.
if "$FOX_PYTHON" -c 'import optuna' 2>/dev/null; then
  "$FOX_PYTHON" - "$WORK/a" "$WORK/a.log" "$WORK/r.json" <<'PY' && ok || bad "export --optuna of a pbt study"
import csv, json, sys
import optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{sys.argv[1]}/trials.csv"))}
st = optuna.load_study(study_name=None, storage=optuna.storages.JournalStorage(
    optuna.storages.journal.JournalFileBackend(sys.argv[2])))
best = json.load(open(sys.argv[3]))["best"]
if st.best_trial.number != best:
    sys.exit(f"Optuna's best trial {st.best_trial.number}, foxopt's {best}")
for t in st.trials:
    r, u = rows[t.number], t.user_attrs
    want = (int(r["member"]), int(r["generation"]), int(r["parent"]) if r["parent"] else None,
            r["exploited"] == "1")
    got = (u["foxopt.member"], u["foxopt.generation"], u["foxopt.parent"], u["foxopt.exploited"])
    if got != want:
        sys.exit(f"trial {t.number}: {got} vs {want}")
    if r["status"] == "complete" and (t.state.name == "COMPLETE") != (r["generation"] == "3"):
        sys.exit(f"trial {t.number} of generation {r['generation']} is {t.state.name}")
PY
else
  echo "# no optuna in $FOX_PYTHON: the journal's reading by Optuna is not checked"
fi
run_rc 0 "$FOXOPT" report "$WORK/a" --html --no-plots
"$FOX_PYTHON" - "$WORK/a" "$WORK/r.json" <<'PY' && ok || bad "report.html's schedule"
import json, re, sys
h = open(f"{sys.argv[1]}/report.html").read()
sched = json.load(open(sys.argv[2]))["pbt_schedule"]
part = h[h.index('id="schedule"'):]
part = part[:part.index("</table>")]
rows = re.findall(r"<tr><td>(\d+)</td><td>(\d+)</td>", part)
if [(int(g), int(r)) for g, r in rows] != [(s["generation"], s["trial"]) for s in sched]:
    sys.exit(f"html schedule {rows}, json {[(s['generation'], s['trial']) for s in sched]}")
if 'id="generations"' not in h:
    sys.exit("no generation costs")
PY

# The shipped example runs (on this test's bars, smaller epochs).
run_rc 0 "$FOXOPT" run "$FOX_SRC/configs/pbt.yaml" -o "$WORK/example" --set "data.path=$WORK/s.h5" \
  --set train.steps_per_epoch=1024 --set env.num_envs=8 --set env.episode_bars=256
check "configs/pbt.yaml: 32 rows" test "$(($(wc -l <"$WORK/example/trials.csv") - 1))" -eq 32

# Refusals: a key that shapes the state, several objectives, one generation.
cp "$WORK/a.yaml" "$WORK/bad.yaml"
echo "  dqn.hidden: {values: [[16], [32]]}" >>"$WORK/bad.yaml"
run_rc 2 "$FOXOPT" run "$WORK/bad.yaml" -o "$WORK/bad"
contains "$ERR_TXT" "bad.yaml:"
contains "$ERR_TXT" "parameters.dqn.hidden: cannot be searched under study.scheduler.name = pbt"
run_rc 2 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/bad" --set study.scheduler.interval=4
contains "$ERR_TXT" "makes one generation"
run_rc 2 "$FOXOPT" run "$WORK/a.yaml" -o "$WORK/bad" --set study.scheduler.factors=[0.8,x]
contains "$ERR_TXT" "study.scheduler.factors"
check "nothing written for a refused study" test ! -e "$WORK/bad/study.h5"
done_
