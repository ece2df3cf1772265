#!/usr/bin/env bash
# foxopt export --optuna: small studies (Branin with TPE and successive halving; one stopped
# with trials running; an agent study with categorical, conditional, log, q, list-valued and
# fixed parameters and failed trials; repeats x folds with the mean and with the median) are
# exported and loaded with Optuna 5 (export_optuna.py checks every trial against study.h5 and
# the trial files); a two-objective journal from test_optuna_journal; the refusals and their
# exit codes; a rerun replaces the file whole. Then optuna-dashboard serves a journal (its
# JSON API must list the study's trials) and headless Chromium screenshots the study's page.
# Parts whose tools are missing (Optuna, optuna-dashboard, chromium) are skipped, named, and
# the test exits 77 when nothing failed.
. "$(dirname "$0")/lib.sh"
need_python
CHECKER="$(dirname "$0")/export_optuna.py"
SKIPPED=""
if ! "$FOX_PYTHON" -c 'import optuna, yaml' 2>/dev/null; then
  echo "skipped: no Optuna in $FOX_PYTHON (scripts/setup.sh --python installs it)"
  exit 77
fi
DASH_PID=""
stop_dashboard() {
  [ -n "$DASH_PID" ] || return 0
  kill "$DASH_PID" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$DASH_PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$DASH_PID" 2>/dev/null
  wait "$DASH_PID" 2>/dev/null
  DASH_PID=""
}
trap 'stop_dashboard; rm -rf "$WORK"' EXIT
VERSION=$("$FOXOPT" --version | awk '{ print $2 }')

# best OUTDIR: `foxopt info`'s best trial ("-" when it names none).
best() {
  local b
  b=$("$FOXOPT" info "$1/study.h5" | sed -n 's/^  best *trial \([0-9]*\):.*/\1/p')
  echo "${b:--}"
}
# export_check OUTDIR KIND: export, then the checker against study.h5 and the trial files.
export_check() {
  run_rc 0 "$FOXOPT" export "$1" --optuna "$1.log"
  contains "$OUT_TXT" "wrote $1.log: Optuna study"
  if "$FOX_PYTHON" "$CHECKER" "$1" "$1.log" "$2" "$(best "$1")" "$VERSION" >"$WORK/check.txt" \
       2>&1; then ok; else bad "$2: $(cat "$WORK/check.txt")"; fi
  echo "$(tail -1 "$WORK/check.txt")"
}

# --- Branin: TPE and successive halving over 1, 3, 9 epochs -----------------------------------
# branin_yaml NAME TRIALS: the study on stdout (NAME a YAML scalar, quoted as it needs).
branin_yaml() {
  cat <<YAML
study: {name: $1, seed: 3, trials: $2, round_size: 9, sampler: tpe,
        objective: {function: branin, direction: minimize},
        scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 9, eta: 3}}
train: {epochs: 9}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: q_uniform, min: 0, max: 15, q: 0.5}
YAML
}
branin_yaml br 27 >"$WORK/branin.yaml"
run_rc 0 "$FOXOPT" run "$WORK/branin.yaml" -o "$WORK/branin"
export_check "$WORK/branin" branin
contains "$OUT_TXT" "27 trials (3 complete, 24 pruned, 0 failed, 0 running)"
# A study.h5 from before foxopt recorded times: each trial ends at its last write instead.
cp -r "$WORK/branin" "$WORK/untimed"
"$FOX_PYTHON" - "$WORK/untimed/study.h5" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    for k in ("trials/start", "trials/end", "trials/repeats/start", "trials/repeats/end"):
        del f[k]
PY
export_check "$WORK/untimed" branin

# --- Stopped mid-study: trials left running ----------------------------------------------------
sed -e 's/name: br, seed: 3/name: brs, seed: 4, trials_per_device: 3/' \
    -e 's/direction: minimize}/direction: minimize, seconds: 0.2}/' \
    -e 's/x1: {distribution: q_uniform, min: 0, max: 15, q: 0.5}/x1: {min: 0, max: 15}/' \
    "$WORK/branin.yaml" >"$WORK/stop.yaml"
"$FOXOPT" run "$WORK/stop.yaml" -o "$WORK/stopped" >"$WORK/stop.out" 2>&1 &
pid=$!
for _ in $(seq 600); do [ -e "$WORK/stopped/study.h5" ] && break; sleep 0.05; done
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
check "stopped study: exit 75 (got $rc)" test "$rc" -eq 75
check "the stopped study has running trials" grep -q ',running,' "$WORK/stopped/trials.csv"
export_check "$WORK/stopped" stopped

# --- An agent study: every kind of parameter, failed trials ------------------------------------
"$FOXOPT" synth -o "$WORK/s.csv" --bars 12000 --seed 5 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/agent.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: ppo, epochs: 9, steps_per_epoch: 1024}
dqn: {learning_starts: 256, buffer_size: 4096, batch_size: 32, hidden: [16, 16]}
ppo: {n_steps: 32, hidden: [16, 16]}
study: {name: ag, seed: 8, trials: 9, round_size: 9, sampler: tpe,
        objective: {metric: val.sharpe, direction: maximize},
        scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 9, eta: 3}}
parameters:
  train.algo: {values: [dqn, ppo]}
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.hidden: {values: [[16, 16], [32, 32]]}
  dqn.batch_size: {distribution: log_uniform, min: 16, max: 64}
  dqn.double: {values: [true, false]}
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.clip: {distribution: q_uniform, min: 0.1, max: 0.3, q: 0.05}
  ppo.n_steps: {values: [32, 100000]}
  barrier.horizon: {distribution: int_uniform, min: 15, max: 120}
  barrier.pt: {distribution: uniform, min: 1.0, max: 3.0}
  env.episode_bars: {value: 256}
YAML
run_rc 0 "$FOXOPT" run "$WORK/agent.yaml" -o "$WORK/agent"
for st in complete pruned failed; do
  check "agent study has $st trials" grep -q ",$st," "$WORK/agent/trials.csv"
done
export_check "$WORK/agent" agent

# --- Odd text and numbers: report --json and the journal through Python and Optuna ----------
# A study name with quotes, backslashes, a JSON escape's own text, brackets and UTF-8 comes back
# as written from both; report --json is strict JSON (no NaN or Infinity: a failed trial's
# metrics are null), its parameters numbers of their kind (integers as ints, floats as
# floats), lists and words as their text.
odd='q"uote \back\slash \u0041 {[,:]} it'"'"'s füchse € 🦊'
branin_yaml "'q\"uote \\back\\slash \\u0041 {[,:]} it''s füchse € 🦊'" 9 >"$WORK/odd.yaml"
run_rc 0 "$FOXOPT" run "$WORK/odd.yaml" -o "$WORK/odd"
run_rc 0 "$FOXOPT" report "$WORK/odd" --json --no-plots --top 100
echo "$OUT_TXT" >"$WORK/odd.json"
run_rc 0 "$FOXOPT" report "$WORK/agent" --json --no-plots --top 100
echo "$OUT_TXT" >"$WORK/agent.json"
run_rc 0 "$FOXOPT" export "$WORK/odd" --optuna "$WORK/odd.log"
"$FOX_PYTHON" - "$odd" "$WORK/odd.json" "$WORK/agent.json" "$WORK/odd.log" <<'PY' && ok || bad "odd text and numbers"
import json, sys, optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
def strict(c):
    raise ValueError(f"{c} is not JSON")
name = sys.argv[1]
assert name.count("\\") == 3 and '"' in name and "\U0001F98A" in name, name
odd = json.loads(open(sys.argv[2], encoding="utf-8").read(), parse_constant=strict)
assert odd["study"] == name, (odd["study"], name)
assert len(odd["trials"]) == 9 and type(odd["best"]) is int, odd
for t in odd["trials"]:
    assert all(type(v) is float for v in t["params"].values()), t
    assert all(type(v) in (int, float) for v in t["metrics"].values()), t
ag = json.loads(open(sys.argv[3], encoding="utf-8").read(), parse_constant=strict)
kinds = {"train.algo": str, "dqn.lr": float, "dqn.hidden": str, "dqn.batch_size": int,
         "dqn.double": str, "ppo.lr": float, "ppo.clip": float, "ppo.n_steps": int,
         "barrier.horizon": int, "barrier.pt": float, "env.episode_bars": int}
failed = 0
for t in ag["trials"]:
    for k, v in t["params"].items():
        assert type(v) is kinds[k], (k, v)
    if t["status"] == "failed":
        failed += 1
        assert t["metrics"]["val.sharpe"] is None, t
assert failed > 0 and ag["trials"][0]["params"]["env.episode_bars"] == 256, ag["trials"][0]
for line in open(sys.argv[4], encoding="ascii"):
    json.loads(line)
st = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(sys.argv[4]))
s = optuna.load_study(study_name=name, storage=st)
assert s.best_trial.number == odd["best"], (s.best_trial.number, odd["best"])
assert s.best_value == odd["trials"][0]["metrics"]["value"], (s.best_value, odd["trials"][0])
PY

# --- Repeats x folds: per-epoch means with aggregate mean, the last value with the median -----
cat >"$WORK/rep.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: ppo, epochs: 3, steps_per_epoch: 1024}
ppo: {n_steps: 32, hidden: [16, 16]}
eval: {folds: 2}
study: {name: rp, seed: 5, trials: 6, round_size: 6, repeats: 2, sampler: random,
        objective: {metric: val.total_return, direction: maximize, aggregate: mean},
        scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}}
parameters:
  ppo.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  ppo.clip: {distribution: q_uniform, min: 0.1, max: 0.3, q: 0.05}
YAML
run_rc 0 "$FOXOPT" run "$WORK/rep.yaml" -o "$WORK/repeats"
export_check "$WORK/repeats" repeats
run_rc 0 "$FOXOPT" run "$WORK/rep.yaml" -o "$WORK/median" --set study.objective.aggregate=median \
  --set study.trials=3 --set study.round_size=3 --set study.scheduler.name=none
export_check "$WORK/median" median
contains "$OUT_TXT" "0 with per-epoch intermediate values"

# --- Two objectives (test_optuna_journal's hand-made study): directions, values, Pareto front --
unit="${FOX_BUILD:-}/tests/unit/test_optuna_journal"
if [ -x "$unit" ]; then
  run_rc 0 "$unit" "$WORK/mo.log"
  "$FOX_PYTHON" - "$WORK/mo.log" <<'PY' && ok || bad "two-objective journal"
import sys, optuna
from optuna.study import StudyDirection as D
from optuna.trial import TrialState as S
optuna.logging.set_verbosity(optuna.logging.WARNING)
st = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(sys.argv[1]))
s = optuna.load_study(study_name="f\u00fcchse \U0001F98A \ufffd", storage=st)
cost, x1 = 'co"st\\\u00fc', 'x"1\\\u00e9'  # names with quotes, backslashes and UTF-8
got = (s.directions, s.metric_names, [t.state for t in s.trials], s.trials[0].values,
       s.trials[1].values, sorted(t.number for t in s.best_trials), s.trials[1].params,
       s.trials[0].user_attrs[cost], s.trials[0].user_attrs["pf"], s.trials[1].user_attrs["pf"],
       s.trials[5].user_attrs["foxopt.reason"])
want = ([D.MINIMIZE, D.MAXIMIZE], ["value", cost],
        [S.COMPLETE, S.COMPLETE, S.FAIL, S.PRUNED, S.RUNNING, S.FAIL], [1e-05, 123456789.0],
        [0.0001, 1e16], [0, 1], {"x0": -4.0, x1: 2.5}, 123456789.0, float("inf"),
        float("-inf"), 'diverged "quote" \\ back\nslash')
if got != want:
    sys.exit(f"got {got}\nwant {want}")
PY
else
  SKIPPED="$SKIPPED two-objective journal (no $unit),"
fi

# --- Missing and damaged trial files -----------------------------------------------------------
cp -r "$WORK/agent" "$WORK/agent2"
c=$(awk -F, '$2 == "complete" { print $1; exit }' "$WORK/agent2/trials.csv")
rm "$WORK/agent2/trials/$c.h5"
run_rc 0 "$FOXOPT" export "$WORK/agent2" --optuna "$WORK/agent2.log"
contains "$ERR_TXT" "note: 1 trial file missing under $WORK/agent2/trials"
"$FOX_PYTHON" - "$WORK/agent2.log" "$c" <<'PY' && ok || bad "a trial without its file"
import sys, optuna
optuna.logging.set_verbosity(optuna.logging.WARNING)
st = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(sys.argv[1]))
t = optuna.load_study(study_name="ag", storage=st).trials[int(sys.argv[2])]
if list(t.intermediate_values) != [9] or t.intermediate_values[9] != t.value:
    sys.exit(f"trial {t.number}: {t.intermediate_values}, value {t.value}")
PY
p=$(awk -F, '$2 == "pruned" { print $1; exit }' "$WORK/agent2/trials.csv")
head -c 2000 "$WORK/agent/trials/$p.h5" >"$WORK/agent2/trials/$p.h5"
run_rc 3 "$FOXOPT" export "$WORK/agent2" --optuna "$WORK/agent2.log"
contains "$ERR_TXT" "$WORK/agent2/trials/$p.h5"

# --- Refusals, and a rerun that replaces the file whole ----------------------------------------
run_rc 3 "$FOXOPT" export "$WORK/nowhere" --optuna "$WORK/x.log"
contains "$ERR_TXT" "$WORK/nowhere/study.h5"
mkdir "$WORK/empty"
run_rc 3 "$FOXOPT" export "$WORK/empty" --optuna "$WORK/x.log"
contains "$ERR_TXT" "$WORK/empty/study.h5"
run_rc 3 "$FOXOPT" export "$WORK/s.h5" --optuna "$WORK/x.log"
contains "$ERR_TXT" "$WORK/s.h5: not a directory"
check "a refused export writes nothing" test ! -e "$WORK/x.log"
run_rc 1 "$FOXOPT" export "$WORK/branin" --optuna "$WORK/nodir/x.log"
contains "$ERR_TXT" "$WORK/nodir/x.log"
check "nothing made for a missing directory" test ! -e "$WORK/nodir"
run_rc 2 "$FOXOPT" export "$WORK/branin"
contains "$ERR_TXT" "what to write: --optuna FILE (a study)"
run_rc 2 "$FOXOPT" export --optuna "$WORK/x.log"
contains "$ERR_TXT" "OUTDIR or TRIAL.h5 is required"
run_rc 2 "$FOXOPT" export "$WORK/branin" --optuna
contains "$ERR_TXT" "--optuna needs a value"
run_rc 2 "$FOXOPT" export "$WORK/branin" "$WORK/agent" --optuna "$WORK/x.log"
run_rc 2 "$FOXOPT" export "$WORK/branin" --csv "$WORK/x.log"
contains "$ERR_TXT" "unknown option '--csv'"
run_rc 2 "$FOXOPT" export
run_rc 0 "$FOXOPT" export --help
contains "$OUT_TXT" "exit codes"
contains "$OUT_TXT" "JournalFileBackend"
check "help wrote nothing" test ! -e "$WORK/x.log"

# A rerun over an existing file (here: not a journal at all) replaces it through a rename.
cp "$WORK/branin.log" "$WORK/first.log"
echo "not a journal" >"$WORK/branin.log"
inode=$(stat -c %i "$WORK/branin.log")
run_rc 0 "$FOXOPT" export "$WORK/branin" --optuna "$WORK/branin.log"
check "rerun: the file is a new one (renamed over, not rewritten)" \
  test "$(stat -c %i "$WORK/branin.log")" != "$inode"
check "rerun: the same journal as the first export" cmp -s "$WORK/first.log" "$WORK/branin.log"
check "rerun: no temporary left" test -z "$(ls "$WORK" | grep '\.tmp\.')"
# A failed export leaves the old file as it was.
run_rc 3 "$FOXOPT" export "$WORK/agent2" --optuna "$WORK/branin.log"
check "a failed export keeps the old file" cmp -s "$WORK/first.log" "$WORK/branin.log"
check "a failed export leaves no temporary" test -z "$(ls "$WORK" | grep '\.tmp\.')"

# --- optuna-dashboard: its JSON API, then a screenshot of the study's page ---------------------
DASH="$(dirname "$FOX_PYTHON")/optuna-dashboard"
if [ -x "$DASH" ] && "$FOX_PYTHON" -c 'import optuna_dashboard' 2>/dev/null; then
  port=$("$FOX_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])')
  "$DASH" "$WORK/agent.log" --host 127.0.0.1 --port "$port" >"$WORK/dash.txt" 2>&1 &
  DASH_PID=$!
  url="http://127.0.0.1:$port"
  b=$(best "$WORK/agent")
  "$FOX_PYTHON" - "$url" "$WORK/agent/trials.csv" "$b" <<'PY' && ok || bad "optuna-dashboard's API"
import csv, json, sys, time, urllib.request
url, table, best = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = list(csv.DictReader(open(table)))
def get(path):
    with urllib.request.urlopen(url + path, timeout=10) as r:
        return json.load(r)
for _ in range(300):  # at most 30 s for the server to answer
    try:
        studies = get("/api/studies")["study_summaries"]
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("optuna-dashboard did not answer within 30 s")
if [s["study_name"] for s in studies] != ["ag"]:
    sys.exit(f"/api/studies lists {studies}")
d = get(f"/api/studies/{studies[0]['study_id']}")
state = {"complete": "Complete", "pruned": "Pruned", "failed": "Fail", "running": "Running"}
got = [(t["number"], t["state"]) for t in d["trials"]]
want = [(int(r["id"]), state[r["status"]]) for r in rows]
if got != want:
    sys.exit(f"/api/studies/ID trials {got}, trials.csv {want}")
if [t["number"] for t in d["best_trials"]] != [best]:
    sys.exit(f"best trials {[t['number'] for t in d['best_trials']]}, foxopt info {best}")
if not d["has_intermediate_values"] or d.get("objective_names") != ["val.sharpe"]:
    sys.exit(f"intermediate values {d['has_intermediate_values']}, "
             f"names {d.get('objective_names')}")
hidden = {p["param_external_value"] for t in d["trials"] for p in t["params"]
          if p["name"] == "dqn.hidden"}
if not hidden <= {"[16, 16]", "[32, 32]"} or not hidden:
    sys.exit(f"dqn.hidden shows as {hidden}")
if "foxopt study `ag`" not in d["note"]["body"]:
    sys.exit(f"no study note: {d['note']}")
print(f"optuna-dashboard lists study ag with {len(got)} trials")
PY
  if command -v chromium >/dev/null; then
    timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$WORK/chromium" \
      --screenshot="$WORK/dashboard.png" --window-size=1280,900 --virtual-time-budget=20000 \
      "$url/dashboard/studies/0" >"$WORK/chromium.txt" 2>&1
    check "the dashboard's page is a PNG ($(tail -1 "$WORK/chromium.txt"))" \
      is_png "$WORK/dashboard.png"
    # Not a blank page: the plots put many colours on it.
    if "$FOX_PYTHON" "$(dirname "$0")/png_ink.py" "$WORK/dashboard.png" >"$WORK/ink.txt" 2>&1; then
      ok; else bad "the dashboard screenshot looks blank: $(cat "$WORK/ink.txt")"; fi
    cat "$WORK/ink.txt"
  else
    SKIPPED="$SKIPPED the dashboard screenshot (no chromium: apt-get install chromium),"
  fi
  stop_dashboard
else
  SKIPPED="$SKIPPED optuna-dashboard (not in $FOX_PYTHON: pip install optuna-dashboard),"
fi

if [ -n "$SKIPPED" ] && [ "$FAILED" -eq 0 ]; then
  echo "$(basename "$0"): $PASSED passed; skipped:${SKIPPED%,}"
  exit 77
fi
done_
