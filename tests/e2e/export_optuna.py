# Checks an Optuna journal written by `foxopt export OUTDIR --optuna FILE` against OUTDIR's
# study.h5 and trial files, read here with h5py, by loading it with Optuna 5:
#   export_optuna.py OUTDIR FILE KIND BEST VERSION
# KIND names the study of tests/e2e/export_optuna.sh (its expected distributions and the
# states it must hold), BEST is `foxopt info`'s best trial ("-" when none), VERSION foxopt's.
# Exits non-zero naming every mismatch.
import json
import math
import os
import re
import sys
from datetime import datetime

import h5py
import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution as Cat
from optuna.distributions import FloatDistribution as Float
from optuna.distributions import IntDistribution as Int
from optuna.study import StudyDirection
from optuna.trial import TrialState

optuna.logging.set_verbosity(optuna.logging.WARNING)
outdir, log, kind, best, version = sys.argv[1:6]
errors = []


def fail(msg):
    errors.append(msg)


AGENT = {
    "train.algo": Cat(("dqn", "ppo")),
    "dqn.lr": Float(1e-4, 1e-2, log=True),
    "dqn.hidden": Cat(("[16, 16]", "[32, 32]")),
    "dqn.batch_size": Int(16, 64, log=True),
    "dqn.double": Cat((True, False)),
    "ppo.lr": Float(1e-4, 1e-2, log=True),
    "ppo.clip": Float(0.1, 0.3, step=0.05),
    "ppo.n_steps": Cat((32, 100000)),
    "barrier.horizon": Int(15, 120),
    "barrier.pt": Float(1.0, 3.0),
    "env.episode_bars": Cat((256,)),
}
REPEATS = {"ppo.lr": Float(1e-4, 1e-2, log=True), "ppo.clip": Float(0.1, 0.3, step=0.05)}
EXPECT = {
    "branin": {"x0": Float(-5, 10), "x1": Float(0, 15, step=0.5)},
    "stopped": {"x0": Float(-5, 10), "x1": Int(0, 15)},
    "agent": AGENT,
    "repeats": REPEATS,
    "median": REPEATS,
}[kind]
STATE = {"complete": TrialState.COMPLETE, "pruned": TrialState.PRUNED,
         "failed": TrialState.FAIL, "running": TrialState.RUNNING}


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def choice(t):
    """A choice's text as the JSON scalar Optuna should hold: bool, int, float, else text."""
    if t in ("true", "false"):
        return t == "true"
    if re.fullmatch(r"[+-]?[0-9]+", t):
        return int(t)
    try:
        v = float(t)
        return v if math.isfinite(v) else t
    except ValueError:
        return t


def same(a, b, rel=0.0):
    return (a == b and type(a) is type(b)) or (
        rel > 0 and isinstance(a, float) and isinstance(b, float) and
        abs(a - b) <= rel * max(abs(a), abs(b)))


# --- the file itself: JSON lines as Python writes them, the operations in order -------------
lines = open(log, "rb").read().split(b"\n")
if lines[-1] != b"":
    fail("the journal does not end with a newline")
ops = []
for k, raw in enumerate(lines[:-1]):
    line = raw.decode("ascii")
    obj = json.loads(line)
    ops.append(obj["op_code"])
    # One compact object (no blank outside its strings), its numbers JSON's or the Python
    # literals json.loads takes; the digits are jansson's (17 significant), not repr's.
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    if re.search(r"\s", bare) or not re.fullmatch(
            r'(?:[{}\[\],:]|""|true|false|null|NaN|-?Infinity|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)*',
            bare):
        fail(f"line {k + 1} is not one compact JSON object: {line[:160]}")
    for key, d in obj.get("distributions", {}).items():
        again = optuna.distributions.distribution_to_json(
            optuna.distributions.json_to_distribution(d))
        if json.loads(again) != json.loads(d) or list(json.loads(again)["attributes"]) != list(
                json.loads(d)["attributes"]):
            fail(f"line {k + 1}: distribution of {key} is not distribution_to_json's: {d}")

with h5py.File(f"{outdir}/study.h5", "r") as f:
    name = text(f.attrs["name"])
    objective = text(f.attrs["objective"])
    maximize = text(f.attrs["direction"]) == "maximize"
    config = text(f.attrs["config"])
    R, F = int(f.attrs["repeats"]), int(f.attrs["folds"])
    g = f["trials"]
    n = len(g["id"])
    status = [text(s) for s in g["status"][:]]
    cols = {c: g[c][:] for c in ("id", "round", "rung", "epochs", "seed", "seconds", "bracket")}
    ran = (g["start"][:], g["end"][:]) if "start" in g else None
    names = [text(s) for s in g["metrics"].attrs["names"]]
    metrics = g["metrics"][:].reshape(n, len(names))
    spread = g["spread"][:].reshape(n, len(names)) if "spread" in g else None
    cells = g["cells"][:].reshape(n, R, F, len(names)) if R * F > 1 else None
    params = {k: g["params"][k][:] for k in g["params"]}
    choices = {k: [text(c) for c in g["params"][k].attrs["choices"]]
               for k in g["params"] if "choices" in g["params"][k].attrs}
m = names.index(objective)
mtime = datetime.fromtimestamp(os.stat(f"{outdir}/study.h5").st_mtime_ns / 1e9)

if ops[0] != 0 or ops.count(0) != 1:
    fail(f"expected one CREATE_STUDY first, got op codes {ops[:3]}")
if ops.count(4) != n or ops[-n:] != [4] * n:
    fail(f"expected {n} CREATE_TRIAL operations last, got {ops.count(4)}")
if set(ops) - {0, 2, 3, 4}:
    fail(f"unexpected op codes {sorted(set(ops))}")

storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(log))
study = optuna.load_study(study_name=name, storage=storage)
trials = study.trials
want_dir = StudyDirection.MAXIMIZE if maximize else StudyDirection.MINIMIZE
if study.directions != [want_dir]:
    fail(f"directions {study.directions}, expected [{want_dir}]")
if study.metric_names != [objective]:
    fail(f"metric_names {study.metric_names}, expected [{objective}]")
ua = study.user_attrs
for key, want in (("foxopt.config", config), ("foxopt.objectives", [objective]),
                  ("foxopt.version", version), ("foxopt.repeats", R), ("foxopt.folds", F)):
    if ua.get(key) != want:
        fail(f"study user attr {key} = {ua.get(key)!r}, expected {want!r}")
sys_attrs = storage.get_study_system_attrs(study._study_id)
note = sys_attrs.get("dashboard:note_str:0", "")
if sys_attrs.get("dashboard:note_ver") != 1 or f"`{name}`" not in note:
    fail(f"no dashboard note naming the study: {note[:80]!r}")
if len(trials) != n:
    fail(f"{len(trials)} trials, study.h5 has {n}")


def curve(tid, r):
    """Repeat r's per-epoch objective from its trial file (None when it has no curve)."""
    path = f"{outdir}/trials/{tid}.h5" if r == 0 else f"{outdir}/trials/{tid}-r{r}.h5"
    with h5py.File(path, "r") as f:
        if "curve" not in f:
            return None
        cn = [text(s) for s in f["curve/eval"].attrs["names"]]
        ep = f["curve/epoch"][:]
        assert list(ep) == list(range(1, len(ep) + 1)), path
        return f["curve/eval"][:, cn.index(objective.split(".", 1)[1])]


per_epoch = 0
for i, t in enumerate(trials[:n]):
    st, obj, where = status[i], float(metrics[i, m]), f"trial {i}"
    if t.number != i or t.user_attrs.get("foxopt.id") != i:
        fail(f"{where}: number {t.number}, foxopt.id {t.user_attrs.get('foxopt.id')}")
    want_state = STATE[st]
    if st == "complete" and math.isnan(obj):
        want_state = TrialState.FAIL
    if t.state != want_state:
        fail(f"{where}: state {t.state}, foxopt {st}")
    try:
        t._validate()
    except ValueError as err:
        fail(f"{where}: Optuna refuses it: {err}")
    for key, want in (("foxopt.status", st), ("foxopt.round", int(cols["round"][i])),
                      ("foxopt.rung", int(cols["rung"][i])),
                      ("foxopt.epochs", int(cols["epochs"][i])),
                      ("foxopt.seed", str(int(cols["seed"][i])))):
        if t.user_attrs.get(key) != want:
            fail(f"{where}: user attr {key} = {t.user_attrs.get(key)!r}, expected {want!r}")
    for j, mn in enumerate(names):
        v = float(metrics[i, j])
        if math.isnan(v) and mn in t.user_attrs:
            fail(f"{where}: user attr {mn} for a metric it does not have")
        if not math.isnan(v) and t.user_attrs.get(mn) != v:
            fail(f"{where}: user attr {mn} = {t.user_attrs.get(mn)}, study.h5 {v}")
    # parameters: present exactly where active, with the expected distribution and value
    for key, col in params.items():
        v = float(col[i])
        if math.isnan(v):
            if key in t.params:
                fail(f"{where}: inactive {key} is there ({t.params[key]!r})")
            continue
        if key not in t.params:
            fail(f"{where}: active {key} is missing")
            continue
        if t.distributions[key] != EXPECT[key]:
            fail(f"{where}: {key} has {t.distributions[key]}, expected {EXPECT[key]}")
        if key in choices:
            want = choice(choices[key][int(v)])
        elif isinstance(EXPECT[key], Int):
            want = int(v)
        else:
            want = v
        if not same(t.params[key], want):
            fail(f"{where}: {key} = {t.params[key]!r}, study.h5 {want!r}")
    # the value: complete and pruned trials (a pruned one's is its last intermediate value)
    if t.state == TrialState.COMPLETE and t.value != obj:
        fail(f"{where}: value {t.value}, study.h5 {obj}")
    if t.state == TrialState.PRUNED:
        last = t.intermediate_values[max(t.intermediate_values)] if t.intermediate_values else None
        if t.value != obj or last != obj:
            fail(f"{where}: pruned value {t.value}, last intermediate {last}, study.h5 {obj}")
    if t.state in (TrialState.FAIL, TrialState.RUNNING) and t.value is not None:
        fail(f"{where}: {t.state} with value {t.value}")
    # intermediate values, recomputed from the rung plan or the trial files' curves
    ep, rung = int(cols["epochs"][i]), int(cols["rung"][i])
    settled = st != "failed" and rung >= 0 and not math.isnan(obj)
    want = {}
    if kind in ("branin", "stopped") and settled:
        rungs = ua["foxopt.rungs"]
        want = {rungs[k]: obj for k in range(int(cols["bracket"][i]), rung + 1)}
    elif kind == "median" and settled:
        want = {ep: obj}
    elif kind in ("agent", "repeats") and ep > 0:
        # every epoch the repeats' curves share (a trial that failed part-way has some)
        cs = [curve(i, r) for r in range(R)]
        if all(c is not None for c in cs):
            upto = ep - 1 if settled else min(ep, *(len(c) for c in cs))
            want = {e + 1: float(np.mean([c[e] for c in cs])) for e in range(upto)}
        if settled:
            want[ep] = obj
    if sorted(t.intermediate_values) != sorted(want):
        fail(f"{where}: intermediate steps {sorted(t.intermediate_values)}, "
             f"expected {sorted(want)}")
    else:
        for e, v in want.items():
            if not same(t.intermediate_values[e], v, 1e-12):
                fail(f"{where}: intermediate value at epoch {e} {t.intermediate_values[e]}, "
                     f"expected {v}")
    per_epoch += len(want) > 1 and kind in ("agent", "repeats")
    # repeats x folds: the objective's cells and every metric's spread
    if cells is not None:
        want_cells = [[None if math.isnan(c) else float(c) for c in row]
                      for row in cells[i, :, :, m]]
        if t.user_attrs.get(f"{objective}.cells") != want_cells:
            fail(f"{where}: cells {t.user_attrs.get(f'{objective}.cells')}, study.h5 {want_cells}")
        for j, mn in enumerate(names):
            v = float(spread[i, j])
            if not math.isnan(v) and t.user_attrs.get(f"{mn}.std") != v:
                fail(f"{where}: {mn}.std {t.user_attrs.get(f'{mn}.std')}, study.h5 {v}")
        if t.user_attrs.get("foxopt.repeats") != R or t.user_attrs.get("foxopt.folds") != F:
            fail(f"{where}: foxopt.repeats/folds not {R}/{F}")
    # times: when the trial ran (study.h5's /trials/start and /trials/end, to the
    # microsecond); a trial without them ends at study.h5's last write and lasts its seconds
    start, end = t.datetime_start, t.datetime_complete
    sec = float(cols["seconds"][i])
    if ran is not None and math.isfinite(ran[0][i]):
        want0 = datetime.fromtimestamp(round(float(ran[0][i]) * 1e6) / 1e6)
        want1 = datetime.fromtimestamp(round(float(ran[1][i]) * 1e6) / 1e6)
        if start is None or abs((start - want0).total_seconds()) > 1.5e-6:
            fail(f"{where}: datetime_start {start}, study.h5's start {want0}")
        if t.state != TrialState.RUNNING and abs((end - want1).total_seconds()) > 1.5e-6:
            fail(f"{where}: datetime_complete {end}, study.h5's end {want1}")
        if t.state == TrialState.RUNNING and end is not None:
            fail(f"{where}: a running trial with datetime_complete {end}")
        if not float(ran[1][i]) - float(ran[0][i]) >= sec - 2e-3:
            fail(f"{where}: ran {ran[0][i]} to {ran[1][i]}, shorter than its seconds {sec}")
    else:
        if t.state == TrialState.RUNNING:
            if end is not None:
                fail(f"{where}: a running trial with datetime_complete {end}")
            end = mtime
        elif abs((end - mtime).total_seconds()) > 2e-6:
            fail(f"{where}: datetime_complete {end}, study.h5 written {mtime}")
        if start is None or abs((end - start).total_seconds() - sec) > 2e-6:
            fail(f"{where}: from {start} to {end}, foxopt's seconds {sec}")

states = {t.state for t in trials}
need = {"branin": {TrialState.COMPLETE, TrialState.PRUNED},
        "stopped": {TrialState.RUNNING},
        "agent": {TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL},
        "repeats": {TrialState.COMPLETE, TrialState.PRUNED},
        "median": {TrialState.COMPLETE}}[kind]
if not need <= states:
    fail(f"the {kind} study should hold {sorted(s.name for s in need)}: it has "
         f"{sorted(s.name for s in states)}")
if kind in ("agent", "repeats") and per_epoch == 0:
    fail("no trial has per-epoch intermediate values")
if kind == "agent":
    hidden = [t for t in trials if "dqn.hidden" in t.params]
    if not hidden or len(hidden) == len(trials):
        fail("dqn.hidden should be active in some trials and absent in others")
if best != "-":
    bt = study.best_trial
    if bt.number != int(best) or bt.user_attrs["foxopt.id"] != int(best):
        fail(f"best trial {study.best_trial.number}, foxopt info's {best}")
elif TrialState.COMPLETE in states:
    fail("Optuna has a complete trial, foxopt info no best")

for err in errors[:40]:
    print("FAIL:", err, file=sys.stderr)
print(f"{kind}: {len(trials)} trials ({', '.join(sorted(s.name for s in states))}), "
      f"{per_epoch} with per-epoch values, {len(errors)} mismatches")
sys.exit(1 if errors else 0)
