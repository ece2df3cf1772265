"""Judges foxopt export --onnx/--safetensors against tools foxopt did not write.

export_policy.py TRIAL.h5 BACKTEST.h5 DATA.h5 MODEL.onnx WEIGHTS.safetensors
  - onnx.checker accepts the model (full check, shapes inferred);
  - onnxruntime on every state of the backtest's experience (`output.experience: full`) gives
    foxopt's actions exactly, and Q-values/logits within 1e-5 of a float64 NumPy forward pass
    written here from the published layer formulas (Linear, ReLU/tanh, the dueling head);
  - the safetensors file loads with the safetensors package and equals the trial file's
    weights bit for bit;
  - the sidecar's means and stds are the dataset's /norm, and its recipe rebuilds the states'
    feature part from the dataset's raw /features.
Prints one line per check ("ok ..." or "FAIL ...") and exits 1 on any failure."""
import json
import sys

import h5py
import numpy as np
import onnx
import onnxruntime as ort
from safetensors.numpy import load_file

trial, backtest, data, model, weights = sys.argv[1:6]
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


onnx.checker.check_model(onnx.load(model), full_check=True)
check(True, "onnx.checker.check_model(full_check=True)")
side = json.load(open(model + ".json"))
st_side = json.load(open(weights + ".json"))
check(side["inputs"] == st_side["inputs"], "both sidecars describe the same inputs")

with h5py.File(trial, "r") as f:
    algo = "dqn" if "weights/q" in f else "ppo"
    name = "weights/q" if algo == "dqn" else "weights/actor"
    flat = f[name][...]
    dims = list(f[name].attrs["dims"])
    act = f[name].attrs["activation"]
    act = act.decode() if isinstance(act, bytes) else str(act)
    critic = f["weights/critic"][...] if algo == "ppo" else None
    cdims = list(f["weights/critic"].attrs["dims"]) if algo == "ppo" else None
check(side["algo"] == algo and side["network"]["dims"] == dims and
      side["network"]["activation"] == act, f"sidecar: {algo}, dims {dims}, {act}")


def layers(flat, dims):
    out, at = [], 0
    for i, o in zip(dims[:-1], dims[1:]):
        w = flat[at:at + o * i].reshape(o, i)
        b = flat[at + o * i:at + o * i + o]
        out.append((w, b))
        at += o * i + o
    return out


# safetensors: the trial file's weights, bit for bit
t = load_file(weights)
ok = True
for prefix, fl, dm in [("policy", flat, dims)] + ([("critic", critic, cdims)] if algo == "ppo"
                                                  else []):
    for l, (w, b) in enumerate(layers(fl, dm)):
        ok &= np.array_equal(t[f"{prefix}.{2 * l}.weight"].view(np.uint32), w.view(np.uint32))
        ok &= np.array_equal(t[f"{prefix}.{2 * l}.bias"].view(np.uint32), b.view(np.uint32))
check(ok and len(t) == 2 * (len(dims) - 1) + (2 * (len(cdims) - 1) if algo == "ppo" else 0),
      f"safetensors: {len(t)} tensors equal to {trial}'s weights bit for bit")

with h5py.File(backtest, "r") as f:
    states = f["experience/states"][...]
    actions = f["experience/actions"][...].astype(np.int64)
check(len(states) >= 1000, f"{len(states)} states of the backtest (at least 1,000)")

# a float64 forward pass from the published formulas
x = states.astype(np.float64)
ls = layers(flat.astype(np.float64), dims)
for l, (w, b) in enumerate(ls):
    x = x @ w.T + b
    if l < len(ls) - 1:
        x = np.maximum(x, 0) if act == "relu" else np.tanh(x)
if side["network"]["dueling"]:
    v, a = x[:, :1], x[:, 1:]
    x = v + a - a.mean(axis=1, keepdims=True)

sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
outs = {o.name: v for o, v in zip(sess.get_outputs(), sess.run(None, {"state": states}))}
head = outs["q_values" if algo == "dqn" else "logits"]
err = np.abs(head - x).max()
check(err <= 1e-5, f"onnxruntime's {'Q-values' if algo == 'dqn' else 'logits'} within 1e-5 of "
      f"NumPy float64 (max |diff| {err:.2e})")
same = int((outs["action"] == actions).sum())
check(same == len(actions), f"onnxruntime's actions equal foxopt's on {same}/{len(actions)} states")

# the sidecar's recipe: the dataset's /norm, and the states' feature part rebuilt from /features
with h5py.File(data, "r") as f:
    mean, std = f["norm/mean"][...], f["norm/std"][...]
    feats = f["features"][...]
nf = len(mean)
inputs = side["inputs"]
check(len(inputs) == dims[0] and [i["name"] for i in inputs[nf:]] ==
      ["in_position", "log_return_since_entry", "bars_held_over_horizon"],
      f"sidecar: {len(inputs)} inputs, the portfolio's three last")
check(np.array_equal(np.array([i["mean"] for i in inputs[:nf]], np.float32), mean) and
      np.array_equal(np.array([i["std"] for i in inputs[:nf]], np.float32), std),
      "sidecar: each feature's mean and std are the dataset's /norm, exactly")
c = side["normalisation"]["clamp"]
# the split's bars: the backtest's states are its bars in order; find them by the first state
with h5py.File(backtest, "r") as f:
    begin = int(f.attrs["begin"]) if "begin" in f.attrs else None
if begin is None:
    z = np.clip((feats - mean) / np.where(std > 0, std, 1), -c, c)
    z = np.where((std > 0) & ~np.isnan(feats), z, 0).astype(np.float32)
    hits = np.where((np.abs(z - states[0, :nf]).max(axis=1)) < 1e-6)[0]
    begin = int(hits[0]) if len(hits) else -1
rows = feats[begin:begin + len(states)]
with np.errstate(invalid="ignore", divide="ignore"):
    z = ((rows - mean) / std).astype(np.float32)
z = np.clip(z, -c, c)
z = np.where((std > 0) & ~np.isnan(rows), z, 0).astype(np.float32)
err = np.abs(z - states[:, :nf]).max() if begin >= 0 else np.inf
check(err <= 1e-6, f"sidecar's normalisation rebuilds the states' features from /features "
      f"(bars from {begin}, max |diff| {err:.1e})")
sys.exit(1 if failed else 0)
