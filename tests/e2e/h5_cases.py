"""Corrupted and foreign-written copies of the HDF5 files foxopt reads, made with h5py.

    h5_cases.py WORK

WORK holds files foxopt wrote: s.h5 (dataset), a.csv (an action per bar of its val split),
t.yaml (the trial's config), tr/trial.h5 (a DQN trial), st/ (a finished agent study: study.h5,
rank-0000.h5, trials/ID.h5, trials.csv; st.yaml its config) and bt.h5 (a backtest output with
full experience). Each case copies one of them into WORK/cases, changes it the way a user's h5py
session or a damaged disk would, and prints one tab-separated line for h5_files.sh:

    NAME  EXIT  TEXT  ARG...

`foxopt ARG...` must exit EXIT with TEXT in its stderr (in its stdout when EXIT is 0).
"""
import os
import shutil
import sys

import h5py
import numpy as np
from h5py import h5a, h5s, h5t

WORK = sys.argv[1]
CASES = os.path.join(WORK, "cases")
DATA = os.path.join(WORK, "s.h5")
ACTIONS = os.path.join(WORK, "a.csv")
os.makedirs(CASES, exist_ok=True)
LINES = []


def emit(name, rc, text, *args):
    for field in (name, text) + args:
        assert "\t" not in field and "\n" not in field, field
    LINES.append("\t".join([name, str(rc), text] + list(args)))


def copy(src, name):
    """A fresh copy of src (a file or a study directory) named for the case."""
    dst = os.path.join(CASES, name)
    if os.path.isdir(src):
        shutil.copytree(src, dst)
    else:
        dst += ".h5"
        shutil.copy(src, dst)
    return dst


# --- ways of writing a string that h5py users meet -----------------------------------------

def str_fixed(obj, name, value, pad, cset=h5t.CSET_ASCII):
    """A scalar fixed-length string attribute exactly as long as value, with the given padding
    (h5py writes numpy bytes as NULLPAD; SPACEPAD needs the low-level API)."""
    if name in obj.attrs:
        del obj.attrs[name]
    raw = value.encode()
    t = h5t.C_S1.copy()
    t.set_size(max(len(raw), 1))
    t.set_strpad(pad)
    t.set_cset(cset)
    a = h5a.create(obj.id, name.encode(), t, h5s.create(h5s.SCALAR))
    a.write(np.array(raw, dtype="S%d" % max(len(raw), 1)), mtype=t)


def str_vlen(obj, name, value):
    """h5py's default for a Python str: variable-length UTF-8."""
    if name in obj.attrs:
        del obj.attrs[name]
    obj.attrs[name] = value


def str_vlen_ascii(obj, name, value):
    if name in obj.attrs:
        del obj.attrs[name]
    obj.attrs.create(name, value.encode(), dtype=h5py.string_dtype("ascii"))


def replace(f, path, data):
    """A new dataset in place of path, with the old one's attributes."""
    attrs = dict(f[path].attrs)
    del f[path]
    f.create_dataset(path, data=data)
    for k, v in attrs.items():
        f[path].attrs[k] = v


def header_addr(path, obj):
    with h5py.File(path, "r") as f:
        return h5py.h5o.get_info(f[obj].id).addr


def flip(path, offset, count=16):
    """Inverts count bytes at offset: a damaged sector."""
    with open(path, "r+b") as fh:
        fh.seek(offset)
        raw = bytearray(fh.read(count))
        fh.seek(offset)
        fh.write(bytes(b ^ 0xFF for b in raw))


def damage_header(path, obj):
    flip(path, header_addr(path, obj))


# --- structural damage any reader must name (exit 3), applied to each kind of file ---------

def structural(kind, src, rel, args_for, header_obj, damaged_path):
    """Truncation, superblock damage, an empty file and a damaged object header of `rel` (the
    file inside a study directory, or the file itself); args_for(case) gives the command."""
    def target(c):
        return os.path.join(c, rel) if rel else c

    c = copy(src, kind + "_truncated")
    os.truncate(target(c), os.path.getsize(target(c)) // 2)
    emit(kind + "_truncated", 3, "not a complete foxopt file (truncated or corrupt)", *args_for(c))
    c = copy(src, kind + "_signature")
    flip(target(c), 1, 3)
    emit(kind + "_signature", 3, "not an HDF5 file", *args_for(c))
    c = copy(src, kind + "_superblock")
    flip(target(c), 8, 1)
    emit(kind + "_superblock", 3, "not a complete foxopt file (truncated or corrupt)",
         *args_for(c))
    c = copy(src, kind + "_empty")
    open(target(c), "w").close()
    emit(kind + "_empty", 3, "not an HDF5 file", *args_for(c))
    c = copy(src, kind + "_header")
    damage_header(target(c), header_obj)
    emit(kind + "_header", 3, damaged_path + ": ", *args_for(c))


# --- dataset.h5 ----------------------------------------------------------------------------

def dataset_cases():
    info = lambda c: ["info", c]
    structural("dataset", DATA, None, info, "/norm", "/norm/mean")

    def case(name, edit, rc, text, cmd=info):
        c = copy(DATA, "dataset_" + name)
        with h5py.File(c, "r+") as f:
            edit(f)
        emit("dataset_" + name, rc, text.replace("FILE", os.path.basename(c)), *cmd(c))

    def set_at(path, index, value):
        def edit(f):
            a = f[path][...]
            a[index] = value
            f[path][...] = a
        return edit

    # issue 12 class 5: invalid numbers, each with the dataset and the first bad index
    bt = lambda c: ["backtest", c, "--actions", ACTIONS]
    case("std_nan", set_at("norm/std", 5, np.nan), 3, "FILE: /norm/std[5] = nan, expected a "
         "finite number >= 0", bt)
    case("std_negative", set_at("norm/std", 7, -1), 3, "FILE: /norm/std[7] = -1, expected a "
         "finite number >= 0")
    case("std_zero", set_at("norm/std", 7, 0), 0, "features       51 raw f32")
    case("mean_inf", set_at("norm/mean", 50, np.inf), 3, "FILE: /norm/mean[50] = inf")
    case("features_nan", set_at("features", (2000, 3), np.nan), 3,
         "FILE: /features[2000, 3] = nan, expected a finite number from row 1441 on")
    case("features_inf", set_at("features", (1441, 0), -np.inf), 3,
         "FILE: /features[1441, 0] = -inf")
    case("features_warmup_nan", set_at("features", (1440, 3), np.nan), 0, "warm-up        1441")
    case("prices_inf", set_at("prices", (2600, 3), np.inf), 3, "FILE: /prices[2600, 3] = inf")
    case("bars_nan", set_at("bars/close", 10, np.nan), 3, "FILE: /bars/close[10] = nan")

    def ts_at(index, frm):  # timestamp[index] = timestamp[frm]: a repeat or a step back
        def edit(f):
            t = f["bars/timestamp"][...]
            t[index] = t[frm]
            f["bars/timestamp"][...] = t
        return edit
    case("ts_back", ts_at(2600, 0), 3, "FILE: /bars/timestamp[2600] = ")
    case("ts_repeat", ts_at(2700, 2699), 3, "FILE: /bars/timestamp[2700] = ")
    case("ts_back_backtest", ts_at(1, 0), 3, "is not after [0] = ",
         lambda c: ["backtest", c, "--buy-and-hold"])
    # issue 12 class 6: shapes as h5py shows them, damage never "missing"
    case("std_short", lambda f: replace(f, "norm/std", np.ones(50, "f4")), 3,
         "FILE: dataset /norm/std has shape [50], expected [51]")
    case("prices_1d", lambda f: replace(f, "prices", np.ones(3000, "f4")), 3,
         "FILE: dataset /prices has shape [3000], expected [3000, 4]")
    case("std_n0", lambda f: replace(f, "norm/std", np.ones((51, 0), "f4")), 3,
         "FILE: dataset /norm/std: has shape [51, 0], an empty second dimension")
    case("prices_3d", lambda f: replace(f, "prices", np.ones((3000, 4, 1), "f4")), 3,
         "FILE: dataset /prices: has 3 dimensions, expected 1 or 2")
    case("prices_scalar", lambda f: replace(f, "prices", 1.0), 3,
         "FILE: dataset /prices: holds a single value, expected an array")
    case("std_null", lambda f: replace(f, "norm/std", h5py.Empty("f4")), 3,
         "FILE: dataset /norm/std: is empty (h5py.Empty), expected an array")
    case("std_strings", lambda f: replace(f, "norm/std", np.array([b"1"] * 51)), 3,
         "FILE: reading /norm/std: holds strings, expected numbers")
    case("std_f64", lambda f: replace(f, "norm/std", f["norm/std"][...].astype("f8")), 0,
         "features       51")
    case("std_group", lambda f: (f.__delitem__("norm/std"), f.create_group("norm/std")), 3,
         "FILE: /norm/std is a group, expected a dataset")
    case("no_features", lambda f: f.__delitem__("features"), 3, "FILE: missing dataset /features")
    case("no_warmup", lambda f: f.attrs.__delitem__("warmup"), 3,
         "FILE: missing attribute 'warmup'")
    case("warmup_string", lambda f: str_vlen(f, "warmup", "1441"), 3,
         "FILE: attribute 'warmup': holds strings, expected numbers")
    case("warmup_bool", lambda f: f.attrs.__setitem__("warmup", True), 3,
         "FILE: attribute 'warmup': holds an enum")
    case("split_short", lambda f: f.attrs.__setitem__("split_val", np.array([2532])), 3,
         "FILE: attribute 'split_val': expected 2 values, got 1")
    case("source_array", lambda f: f.attrs.__setitem__("source", ["a.csv", "b.csv"]), 3,
         "FILE: attribute 'source': holds 2 strings, expected one")
    case("source_empty", lambda f: f.attrs.__setitem__("source", h5py.Empty("S4")), 3,
         "FILE: attribute 'source': holds 0 strings, expected one")
    case("source_number", lambda f: f.attrs.__setitem__("source", 7), 3,
         "FILE: attribute 'source': holds integers, expected a string")
    case("version_long", lambda f: str_vlen(f, "foxopt_version", "9" * 40), 3,
         "FILE: attribute 'foxopt_version': 40 characters, more than the 31 expected")
    case("kind_unknown", lambda f: str_vlen(f, "kind", "model"), 3,
         "FILE: attribute 'kind' is 'model', expected dataset, trial")
    # every string form h5py writes reads back whole
    case("source_vlen_utf8", lambda f: str_vlen(f, "source", "données-€.csv"), 0,
         "source         données-€.csv")
    case("source_vlen_ascii", lambda f: str_vlen_ascii(f, "source", "ascii.csv"), 0,
         "source         ascii.csv")
    case("source_nullpad", lambda f: str_fixed(f, "source", "pad.csv", h5t.STR_NULLPAD), 0,
         "source         pad.csv")
    case("source_spacepad", lambda f: str_fixed(f, "source", "sp.csv   ", h5t.STR_SPACEPAD), 0,
         "source         sp.csv")
    case("source_fixed_utf8",
         lambda f: str_fixed(f, "source", "é.csv", h5t.STR_NULLPAD, h5t.CSET_UTF8), 0,
         "source         é.csv")
    case("kind_vlen", lambda f: str_vlen(f, "kind", "dataset"), 0, "foxopt dataset")
    case("version_nullpad",
         lambda f: str_fixed(f, "foxopt_version", "0.1.0", h5t.STR_NULLPAD), 0, "(foxopt 0.1.0)")


# --- trial.h5 ------------------------------------------------------------------------------

def trial_cases():
    src = os.path.join(WORK, "tr", "trial.h5")
    policy = lambda c: ["backtest", DATA, "--policy", c]
    structural("trial", src, None, policy, "/weights", "/weights/q")

    def case(name, edit, rc, text, cmd=policy):
        c = copy(src, "trial_" + name)
        with h5py.File(c, "r+") as f:
            edit(f)
        emit("trial_" + name, rc, text.replace("FILE", os.path.basename(c)), *cmd(c))

    def nan_all(f):
        f["weights/q"][...] = np.nan

    def nan_one(f):
        w = f["weights/q"][...]
        w[17] = np.inf
        f["weights/q"][...] = w

    case("weights_nan", nan_all, 3, "FILE: /weights/q[0] = nan, expected a finite number")
    case("weights_inf", nan_one, 3, "FILE: /weights/q[17] = inf")
    with h5py.File(src, "r") as f:
        n = f["weights/q"].shape[0]
    case("weights_short", lambda f: replace(f, "weights/q", f["weights/q"][:-1]), 3,
         "FILE: dataset /weights/q has shape [%d], expected [%d]" % (n - 1, n))
    case("weights_missing", lambda f: f.__delitem__("weights/q"), 3, "FILE: missing weights/q")
    case("dims_missing", lambda f: f["weights/q"].attrs.__delitem__("dims"), 3,
         "FILE: missing attribute 'dims'")
    case("activation_bad", lambda f: str_vlen(f["weights/q"], "activation", "gelu"), 3,
         "FILE: weights/q has activation 'gelu', expected relu or tanh")
    case("status_missing", lambda f: f.attrs.__delitem__("status"), 3,
         "FILE: missing attribute 'status'")
    case("config_number", lambda f: f.attrs.__setitem__("config", 3.5), 3,
         "FILE: attribute 'config': holds floats, expected a string")
    case("backend_bad", lambda f: str_vlen(f, "backend", "tpu"), 3,
         "FILE: attribute 'backend' is 'tpu', expected cpu or cuda")
    case("kind_wrong", lambda f: str_vlen(f, "kind", "study"), 3,
         "FILE: not a trial file from foxopt train")
    # h5py's string forms: the NULLPAD one lost its last character ('cpu' -> 'cp', exit 2)
    case("backend_nullpad", lambda f: str_fixed(f, "backend", "cpu", h5t.STR_NULLPAD), 0,
         '"split": "val"', lambda c: policy(c) + ["--json"])
    case("strings_vlen_utf8", lambda f: [str_vlen(f, k, f.attrs[k].decode())
                                         for k in ("kind", "status", "backend", "config")],
         0, '"split": "val"', lambda c: policy(c) + ["--json"])
    case("status_spacepad", lambda f: str_fixed(f, "status", "complete  ", h5t.STR_SPACEPAD),
         0, "status         complete", lambda c: ["info", c])


# --- study.h5 ------------------------------------------------------------------------------

def study_facts(d):
    """Row of the first DQN trial, and the trial group's weights name in the rank file."""
    with h5py.File(os.path.join(d, "study.h5"), "r") as f:
        algo = f["trials/params/train.algo"]
        choices = [c.decode() if isinstance(c, bytes) else c for c in algo.attrs["choices"]]
        rows = [k for k, v in enumerate(algo[...]) if choices[int(v)] == "dqn"]
    return rows[0]


def study_cases():
    src = os.path.join(WORK, "st")
    config = os.path.join(WORK, "st.yaml")
    dqn = study_facts(src)
    report = lambda c: ["report", c, "--no-plots"]
    structural("study", src, "study.h5", report, "/trials/params",
               "/trials/params/train.algo")

    def case(name, edit, rc, text, cmd=report):
        c = copy(src, "study_" + name)
        with h5py.File(os.path.join(c, "study.h5"), "r+") as f:
            edit(f)
        emit("study_" + name, rc, text.replace("DIR", os.path.basename(c)), *cmd(c))

    def nan_active(f):
        d = f["trials/params/dqn.lr"]
        a = d[...]
        a[dqn] = np.nan
        d[...] = a

    msg = "DIR/study.h5: /trials/params/dqn.lr[%d] = nan, expected a value: the parameter is " \
          "active in trial %d" % (dqn, dqn)
    case("param_nan", nan_active, 3, msg)
    case("param_nan_info", nan_active, 3, msg, lambda c: ["info", os.path.join(c, "study.h5")])
    case("param_nan_policy", nan_active, 3, msg,
         lambda c: ["backtest", DATA, "--study", c, "--trial", str(dqn)])
    case("param_nan_resume", nan_active, 3, msg,
         lambda c: ["run", config, "-o", c, "--resume"])
    case("id_missing", lambda f: f.__delitem__("trials/id"), 3,
         "DIR/study.h5: missing dataset /trials/id")
    case("status_ints", lambda f: replace(f, "trials/status", np.zeros(4, "i4")), 3,
         "DIR/study.h5: dataset /trials/status: holds integers, expected strings")
    case("status_2d", lambda f: replace(f, "trials/status", np.array([[b"complete"]] * 4)), 3,
         "DIR/study.h5: dataset /trials/status has shape [4, 1], expected [4]")
    case("metrics_rows", lambda f: replace(f, "trials/metrics", f["trials/metrics"][:3]), 3,
         "DIR/study.h5: dataset /trials/metrics has shape [3, 12], expected [4, 12]")
    case("config_missing", lambda f: f.attrs.__delitem__("config"), 3,
         "DIR/study.h5: missing attribute 'config'")
    case("total_string", lambda f: str_vlen(f, "trials_total", "4"), 3,
         "DIR/study.h5: attribute 'trials_total': holds strings, expected numbers")
    # repeats and folds: the cells and every repeat's progress are checked like the rows
    case("cells_shape", lambda f: replace(f, "trials/cells", np.zeros((4, 5))), 3,
         "DIR/study.h5: /trials/cells is [4, 5], expected [4, 12] (1 repeat x 1 fold x 12 "
         "metrics)")
    case("repeat_rung", lambda f: replace(f, "trials/repeats/rung",
                                          np.full((4, 1), 7, dtype="i4")), 3,
         "DIR/study.h5: /trials/repeats/rung[0, 0] out of range")
    case("repeat_epochs_shape", lambda f: replace(f, "trials/repeats/epochs",
                                                  np.zeros((4, 2), dtype="i4")), 3,
         "DIR/study.h5: dataset /trials/repeats/epochs has shape [4, 2], expected [4, 1]")
    def zero_first(f):
        a = f["trials/repeats/epochs"][:]
        a[0, 0] = 0
        replace(f, "trials/repeats/epochs", a)
    case("repeat_epochs_disagree", zero_first, 3,
         "DIR/study.h5: /trials row 0: epochs")
    # a study.h5 from before repeats (no cells): its rows are its cells
    case("cells_absent", lambda f: (f.__delitem__("trials/cells"), f.__delitem__("trials/spread"),
                                    f.__delitem__("trials/repeats")), 0, "4 complete")
    # every string form h5py writes: status and reason as h5py would rewrite them
    case("status_vlen", lambda f: replace(
        f, "trials/status", [s.decode() for s in f["trials/status"][...]]), 0, "4 complete")
    case("strings_h5py", lambda f: (
        replace(f, "trials/reason", np.array([b""] * 4)),
        replace(f, "trials/status", np.array([s.rstrip(b"\0") for s in f["trials/status"][...]])),
        str_vlen(f, "config", f.attrs["config"].decode()),
        str_fixed(f, "kind", "study", h5t.STR_NULLPAD),
        str_fixed(f, "direction", "maximize", h5t.STR_SPACEPAD)), 0, "4 complete")


# --- rank-NNNN.h5 --------------------------------------------------------------------------

def rank_cases():
    src = os.path.join(WORK, "st")
    info = lambda c: ["info", os.path.join(c, "rank-0000.h5")]
    structural("rank", src, "rank-0000.h5", info, "/dataset", "/dataset")

    def case(name, edit, rc, text):
        c = copy(src, "rank_" + name)
        with h5py.File(os.path.join(c, "rank-0000.h5"), "r+") as f:
            edit(f)
        emit("rank_" + name, rc, text, *info(c))

    case("crc_string", lambda f: str_vlen(f["dataset"], "features_crc32", "0"), 3,
         "rank-0000.h5: attribute 'features_crc32': holds strings, expected numbers")
    # a device that received other bytes than its host stored (issue 28, item 11)
    case("crc_differs", lambda f: f["dataset"].attrs.modify(
        "prices_crc32", np.uint32(f["dataset"].attrs["prices_crc32"] ^ 1)), 3,
         "rank-0000.h5: /dataset: the device's prices have crc32")
    case("copy_elsewhere", lambda f: str_vlen(f["dataset"], "copy", "../dataset-0000.h5"), 3,
         "rank-0000.h5: /dataset: bars 3000 and copy '../dataset-0000.h5'")
    # a rank file of a foxopt before the stored copies: the arrays themselves
    def old_layout(f):
        for k in ("bars", "features_crc32", "prices_crc32", "copy"):
            del f["dataset"].attrs[k]
        f["dataset"].create_dataset("features", data=np.zeros((3000, 51), np.float32))
    case("old_layout", old_layout, 0, "3000 bars x 51 features (f32, as uploaded)")
    c = copy(src, "rank_copy_missing")
    os.remove(os.path.join(c, "dataset-0000.h5"))
    emit("rank_copy_missing", 3, "dataset-0000.h5", *info(c))
    # the host's stored copy damaged after the run: its arrays are read through
    c = copy(src, "rank_copy_damaged")
    with h5py.File(os.path.join(c, "dataset-0000.h5"), "r+") as f:
        f["features"][2000, 3] += 1
    emit("rank_copy_damaged", 3, "dataset-0000.h5: /features has crc32", *info(c))
    emit("copy_damaged", 3, "dataset-0000.h5: /features has crc32", "info",
         os.path.join(c, "dataset-0000.h5"))
    emit("copy_ok", 0, "3000 bars x 51 features (f32): crc32", "info",
         os.path.join(src, "dataset-0000.h5"))
    case("rank_string", lambda f: str_vlen(f, "rank", "0"), 3,
         "rank-0000.h5: attribute 'rank': holds strings, expected numbers")
    case("device_missing", lambda f: f.attrs.__delitem__("device"), 3,
         "rank-0000.h5: missing attribute 'device'")
    # the example: a 'cuda' written as NULLPAD read as 'cud'
    case("backend_cuda_nullpad", lambda f: str_fixed(f, "backend", "cuda", h5t.STR_NULLPAD), 0,
         "cuda backend)")
    case("host_vlen", lambda f: str_vlen(f, "host", "nœud-7"), 0, "rank 0 on nœud-7")


# --- OUTDIR/trials/ID.h5: a study's trial files, read by backtest --study -------------------

def study_trial_cases():
    src = os.path.join(WORK, "st")
    dqn = study_facts(src)
    rel = os.path.join("trials", "%d.h5" % dqn)
    replay = lambda c: ["backtest", DATA, "--study", c, "--trial", str(dqn)]
    info = lambda c: ["info", os.path.join(c, rel)]
    structural("studytrial", src, rel, replay, "/weights", "/weights/q")

    def case(name, edit, rc, text, cmd=replay):
        c = copy(src, "studytrial_" + name)
        with h5py.File(os.path.join(c, rel), "r+") as f:
            edit(f)
        emit("studytrial_" + name, rc, "%s: %s" % (rel, text) if rc else text, *cmd(c))

    def nan_weights(f):
        f["weights/q"][...] = np.nan

    case("weights_nan", nan_weights, 3, "/weights/q[0] = nan, expected a finite number")
    case("backend_array", lambda f: f.attrs.__setitem__("backend", ["cpu", "cpu"]), 3,
         "attribute 'backend': holds 2 strings, expected one")
    case("reward_nan", lambda f: f["experience/rewards"].__setitem__(5, np.nan), 3,
         "/experience/rewards[5] = nan", info)
    case("equity_2d", lambda f: replace(f, "backtest/equity", np.ones((233, 2))), 3,
         "/backtest/equity [233, 2]", info)
    case("backend_nullpad", lambda f: str_fixed(f, "backend", "cpu", h5t.STR_NULLPAD), 0,
         '"split": "val"', lambda c: replay(c) + ["--json"])
    # the report's returns come from the trial files' equity: a damaged one is named
    for name, edit, text in (
            ("equity_negative", lambda f: f["backtest/equity"].__setitem__(3, -1.0),
             "/backtest/equity[3] = -1, expected a finite number >= 0"),
            ("equity_nan", lambda f: f["backtest/equity"].__setitem__(2, np.nan),
             "/backtest/equity[2] = nan, expected a finite number >= 0"),
            ("folds_gap", lambda f: replace(f, "backtest/folds",
                                            np.array([[f["backtest/folds"][0, 0] + 1,
                                                       f["backtest/folds"][0, 1]]], "i4")),
             "/backtest/folds[0]")):
        c = copy(src, "studytrial_" + name)
        with h5py.File(os.path.join(c, rel), "r+") as f:
            edit(f)
        emit("studytrial_" + name, 3, "%s: %s" % (rel, text), "report", c, "--no-plots")
    c = copy(src, "studytrial_missing")
    os.remove(os.path.join(c, rel))
    emit("studytrial_missing", 3, "%s: missing (the study records trial %d, last run on rank 0)"
         % (rel, dqn), *replay(c))


# --- backtest output with experience ---------------------------------------------------------

def experience_cases():
    src = os.path.join(WORK, "bt.h5")
    info = lambda c: ["info", c]
    structural("experience", src, None, info, "/experience", "/experience")

    def case(name, edit, rc, text):
        c = copy(src, "experience_" + name)
        with h5py.File(c, "r+") as f:
            edit(f)
        emit("experience_" + name, rc, text.replace("FILE", os.path.basename(c)), *info(c))

    def set_at(path, index, value):
        def edit(f):
            a = f[path][...]
            a[index] = value
            replace(f, path, a)
        return edit

    case("action_7", set_at("experience/actions", 9, 7), 3,
         "FILE: /experience/actions[9] = 7, expected 0 to 2")
    case("label_neg", set_at("experience/barrier_labels", 4, -1), 3,
         "FILE: /experience/barrier_labels[4] = -1, expected 0 to 3")
    case("reward_nan", set_at("experience/rewards", 11, np.nan), 3,
         "FILE: /experience/rewards[11] = nan")
    case("states_inf", set_at("experience/states", (3, 53), np.inf), 3,
         "FILE: /experience/states[3, 53] = inf")
    case("states_wide", lambda f: replace(f, "experience/states", np.zeros((233, 55), "f4")), 3,
         "FILE: dataset /experience/states has shape [233, 55], expected [233, 54]")
    case("rewards_short", lambda f: replace(f, "experience/rewards", np.zeros(232, "f4")), 3,
         "FILE: dataset /experience/rewards has shape [232], expected [233]")
    case("actions_missing", lambda f: f.__delitem__("experience/actions"), 3,
         "FILE: missing dataset /experience/actions")
    case("folds_1d", lambda f: replace(f, "backtest/folds", np.zeros(2, "i4")), 3,
         "FILE: /backtest/equity [233] and /backtest/folds [2], expected [bars] and [folds, 2]")
    case("backtest_missing", lambda f: f.__delitem__("backtest"), 3,
         "FILE: missing group /backtest")
    case("split_vlen", lambda f: str_vlen(f["backtest"], "split", "val"), 0,
         "split          val, 233 bars")
    case("kind_nullpad", lambda f: str_fixed(f, "kind", "backtest", h5t.STR_NULLPAD), 0,
         "experience     full (with states)")
    case("summary", lambda f: f.__delitem__("experience/states"), 0, "experience     summary")


dataset_cases()
trial_cases()
study_cases()
rank_cases()
study_trial_cases()
experience_cases()
print("\n".join(LINES))
