"""Checks a study's live metrics against its trial files and another run's.

live_metrics.py OUTDIR [REFDIR] [--tb]
  - every line of OUTDIR/metrics.jsonl is a JSON object with trial, repeat, epoch, time, rank,
    seconds, env_steps_per_s, loss and the 12 metrics; one line per (trial, repeat, epoch), none
    twice;
  - the lines of a trial are its trial file's curve (/curve/eval) exactly, for the epochs its
    file holds (a pbt row's inherited epochs are its parent's lines; its last must be its own);
  - with REFDIR: the same (trial, repeat, epoch) keys and metric values as REFDIR's lines (an
    uninterrupted run, or one on another number of ranks);
  - with --tb: TensorBoard's own reader (EventAccumulator) finds each trial's (or pbt member's)
    15 scalars (the 12 metrics, train/loss, train/env_steps_per_s, train/seconds) at steps 1..E
    once, each equal (as float32) to its line's value.
Prints "ok ..."/"FAIL ..." lines; exit 1 on a failure."""
import json
import math
import os
import sys

import h5py
import numpy as np

args = [a for a in sys.argv[1:] if not a.startswith("--")]
tb = "--tb" in sys.argv
out, ref = args[0], (args[1] if len(args) > 1 else None)
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def load(d):
    rows, bad = {}, 0
    with open(os.path.join(d, "metrics.jsonl")) as f:
        for line in f:
            o = json.loads(line)
            k = (o["trial"], o["repeat"], o["epoch"])
            bad += k in rows
            rows[k] = o
    return rows, bad


rows, dup = load(out)
check(dup == 0, f"{out}: {len(rows)} lines, none twice ({dup} duplicates)")
need = {"trial", "repeat", "epoch", "time", "rank", "seconds", "env_steps_per_s", "loss"}
metric_keys = sorted(k for k in next(iter(rows.values())) if "." in k)
check(all(need <= set(o) for o in rows.values()) and len(metric_keys) == 12,
      f"every line has {sorted(need)} and 12 metrics ({metric_keys[:2]}...)")

# the trial files' curves
seen = mism = 0
for name in os.listdir(os.path.join(out, "trials")):
    if not name.endswith(".h5"):
        continue
    tid, _, rep = name[:-3].partition("-r")
    tid, rep = int(tid), int(rep or 0)
    with h5py.File(os.path.join(out, "trials", name), "r") as f:
        if "curve" not in f:
            continue
        ev, epochs = f["curve/eval"][...], f["curve/epoch"][...]
        names = [n.decode() if isinstance(n, bytes) else str(n)
                 for n in f["curve/eval"].attrs["names"]]
    for i, ep in enumerate(epochs):
        o = rows.get((tid, rep, int(ep)))
        if o is None and i < len(epochs) - 1:
            continue  # a pbt row's curve begins with its parent's epochs, lines of the parent
        seen += 1
        if o is None:
            mism += 1
            continue
        for j, n in enumerate(names):
            v = o.get(f"{o and metric_keys[0].split('.')[0]}.{n}")
            if not (v == ev[i, j] or (v is None and not math.isfinite(ev[i, j]))):
                mism += 1
                break
check(seen > 0 and mism == 0, f"{seen} epochs of the trial files' curves are lines, value for "
      f"value ({mism} differ or are missing)")

if ref:
    rrows, _ = load(ref)
    same_keys = set(rows) == set(rrows)
    diff = sum(1 for k in rows if k in rrows and any(
        rows[k][m] != rrows[k][m] for m in metric_keys))
    check(same_keys and diff == 0, f"the same {len(rrows)} (trial, repeat, epoch) lines as {ref} "
          f"with equal metrics ({len(set(rows) ^ set(rrows))} keys differ, {diff} values)")

if tb:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    # every scalar foxopt writes: the 12 metrics (val.sharpe -> val/sharpe) and train/*
    tags = {k.replace(".", "/"): k for k in metric_keys}
    tags.update({"train/loss": "loss", "train/env_steps_per_s": "env_steps_per_s",
                 "train/seconds": "seconds"})

    def same32(got, want):
        if want is None:  # JSON has no inf or NaN: a line writes null for either
            return not math.isfinite(got)
        return np.float32(got) == np.float32(want) or (math.isnan(got) and math.isnan(want))

    runs = sorted(os.listdir(os.path.join(out, "tb")))
    bad = 0
    for run in runs:
        ea = EventAccumulator(os.path.join(out, "tb", run), size_guidance={"scalars": 0})
        ea.Reload()
        kind, _, rest = run.partition("-")
        num, _, rep = rest.partition("-r")
        num, rep = int(num), int(rep or 0)
        mine = sorted((k[2], o) for k, o in rows.items()
                      if k[1] == rep and (k[0] == num if kind == "trial" else
                                          o.get("member") == num))
        want = [m[0] for m in mine]
        have = set(ea.Tags()["scalars"])
        for tag, key in sorted(tags.items()):
            ev = ea.Scalars(tag) if tag in have else []
            steps = [e.step for e in ev]
            vals_ok = all(same32(e.value, o[key]) for e, (_, o) in zip(ev, mine))
            if steps != want or not vals_ok:
                bad += 1
                print(f"  {run} {tag}: steps {steps} want {want}" +
                      ("" if vals_ok else f", values {[e.value for e in ev]} want "
                                          f"{[o[key] for _, o in mine]}"))
    check(runs and bad == 0, f"TensorBoard reads {len(runs)} runs, each of their {len(tags)} "
          f"scalars at its epochs once, equal to the lines ({bad} differ)")
sys.exit(1 if failed else 0)
