#!/usr/bin/env bash
# Issue 28, defect 8: every dataset foxopt writes (dataset.h5, trial.h5, a backtest output,
# study.h5, trials/ID.h5, rank files, checkpoints) carries HDF5's Fletcher32 checksum per chunk,
# so one flipped byte inside a dataset's payload is exit 3 naming the file and the dataset,
# never a silently different number; `run --resume` treats a damaged trial file as a missing
# one (removed, named, the study goes on) and a damaged, missing or mislabelled checkpoint by
# training its trial again from the start, to the same table. Needs Python with h5py (to find a chunk's bytes).
. "$(dirname "$0")/lib.sh"
need_python

tiny_agent_fixture
cat "$WORK/t.yaml" - >"$WORK/st.yaml" <<YAML
study: {name: sum, seed: 3, trials: 6, round_size: 2, sampler: random,
        objective: {metric: val.sharpe, direction: maximize},
        scheduler: {name: successive_halving, min_epochs: 1, max_epochs: 3, eta: 3}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
YAML
sed -i 's/steps_per_epoch: 256/steps_per_epoch: 20000/' "$WORK/st.yaml"
run_rc 0 "$FOXOPT" train "$WORK/t.yaml" -o "$WORK/tr"
run_rc 0 "$FOXOPT" backtest "$WORK/s.h5" --actions "$WORK/a.csv" --output "$WORK/bt.h5"
run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/ref"

# 1. every dataset with a payload has the filter; a checkpoint from a study stopped mid-trial
stop_when "$WORK/st/state/trial-0-e1.h5" "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st"
check "the stopped study exits 75 ($RC)" [ "$RC" -eq 75 ]
ck=$(ls "$WORK/st/state"/*.h5 2>/dev/null | head -1)
"$FOX_PYTHON" - "$WORK/s.h5" "$WORK/tr/trial.h5" "$WORK/bt.h5" "$WORK/ref/study.h5" \
  "$WORK/ref/trials/0.h5" "$WORK/ref/dataset-0000.h5" $ck >"$WORK/filters.txt" <<'PY'
import sys, h5py
for path in sys.argv[1:]:
    bad, n = [], 0
    def visit(name, obj):
        global n
        if isinstance(obj, h5py.Dataset) and obj.size > 0 and obj.shape != ():
            n += 1
            if not obj.fletcher32:
                bad.append(name)
    with h5py.File(path, "r") as f:
        f.visititems(visit)
    print(path, n, "without:", " ".join(bad) if bad else "none")
PY
for f in s.h5 tr/trial.h5 bt.h5 ref/study.h5 ref/trials/0.h5 ref/dataset-0000.h5; do
  check "$f: every dataset checksummed ($(grep "$WORK/$f " "$WORK/filters.txt"))" \
    grep -q "^$WORK/$f [1-9][0-9]* without: none$" "$WORK/filters.txt"
done
if [ -n "$ck" ]; then
  check "a checkpoint: every dataset checksummed" grep -q "^$ck [1-9][0-9]* without: none$" \
    "$WORK/filters.txt"
else
  echo "note: the study finished before a checkpoint was kept: its check skipped"
fi

# flip FILE DATASET: one bit in the middle of the dataset's first chunk, the file's size kept
flip() {
  "$FOX_PYTHON" - "$1" "$2" <<'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    c = f[sys.argv[2]].id.get_chunk_info(0)
    at = c.byte_offset + c.size // 2
with open(sys.argv[1], "r+b") as g:
    g.seek(at); b = g.read(1); g.seek(at); g.write(bytes([b[0] ^ 0x10]))
PY
}
# damaged FILE DATASET CMD ARGS...: CMD exits 3 naming FILE and DATASET as damaged
damaged() {
  local file=$1 ds=$2
  shift 2
  run_rc 3 "$FOXOPT" "$@"
  contains "$ERR_TXT" "$file"
  contains "$ERR_TXT" "$ds: damaged: its checksum does not match what foxopt wrote"
}

# 2. one flipped byte in each kind of file
cp "$WORK/s.h5" "$WORK/d.h5" && flip "$WORK/d.h5" features
damaged "$WORK/d.h5" /features info "$WORK/d.h5"
damaged "$WORK/d.h5" /features train "$WORK/t.yaml" -o "$WORK/tr2" --set "data.path=$WORK/d.h5"
damaged "$WORK/d.h5" /features backtest "$WORK/d.h5" --actions "$WORK/a.csv"
cp "$WORK/s.h5" "$WORK/d2.h5" && flip "$WORK/d2.h5" bars/close
damaged "$WORK/d2.h5" /bars/close info "$WORK/d2.h5"
cp "$WORK/tr/trial.h5" "$WORK/p.h5" && flip "$WORK/p.h5" weights/q
damaged "$WORK/p.h5" /weights/q backtest "$WORK/s.h5" --policy "$WORK/p.h5"
damaged "$WORK/p.h5" /weights/q info "$WORK/p.h5"
cp "$WORK/bt.h5" "$WORK/b2.h5" && flip "$WORK/b2.h5" backtest/equity
damaged "$WORK/b2.h5" /backtest/equity info "$WORK/b2.h5"
cp -r "$WORK/ref" "$WORK/r1" && flip "$WORK/r1/study.h5" trials/metrics
damaged "$WORK/r1/study.h5" /trials/metrics report "$WORK/r1" --no-plots
damaged "$WORK/r1/study.h5" /trials/metrics run "$WORK/st.yaml" -o "$WORK/r1" --resume
cp -r "$WORK/ref" "$WORK/r2" && flip "$WORK/r2/trials/0.h5" weights/q
damaged "$WORK/r2/trials/0.h5" /weights/q backtest "$WORK/s.h5" --study "$WORK/r2" --trial 0
damaged "$WORK/r2/trials/0.h5" /weights/q info "$WORK/r2/trials/0.h5"
cp -r "$WORK/ref" "$WORK/r4" && flip "$WORK/r4/trials/0.h5" backtest/equity
damaged "$WORK/r4/trials/0.h5" /backtest/equity report "$WORK/r4" --no-plots
# a host's copy of the dataset (the rank files hold only its sums): read through by info, and
# checked against the rank's sums by a resumed run
cp -r "$WORK/ref" "$WORK/r3" && flip "$WORK/r3/dataset-0000.h5" features
damaged "$WORK/r3/dataset-0000.h5" /features info "$WORK/r3/dataset-0000.h5"
damaged "$WORK/r3/dataset-0000.h5" /features info "$WORK/r3/rank-0000.h5"

# 3. --resume: a damaged trial file is removed and named like a missing one, the study goes on
# to the uninterrupted table
t=$(ls "$WORK/st/trials" | head -1)
if [ -n "$t" ]; then
  cp -r "$WORK/st" "$WORK/st2"
  flip "$WORK/st2/trials/$t" backtest/equity
  run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st2" --resume
  contains "$ERR_TXT" "$WORK/st2/trials/$t: /backtest/equity: damaged: its checksum"
  contains "$ERR_TXT" "removed"
  contains "$ERR_TXT" "trials lacks 1 trial"
  same_table "resumed past a damaged trial file" "$WORK/ref/trials.csv" "$WORK/st2/trials.csv"
  # a damaged or missing checkpoint: its trial trains again from its start, which ends where
  # the checkpoint would have led (a checkpoint holds the whole state)
  if [ -n "$ck" ]; then
    for how in damaged missing wrong other; do
      rm -rf "$WORK/st3" && cp -r "$WORK/st" "$WORK/st3"
      c3=$WORK/st3/state/$(basename "$ck")
      case $how in
      damaged) flip "$c3" dqn/online/params ;;
      missing) rm "$c3" ;;
      wrong) # a whole, checksummed checkpoint of another epoch under this name
        "$FOX_PYTHON" - "$c3" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    for name in ("curve", "curve_members"):
        if name in f:
            d = f[name][...]
            d = np.concatenate([d, d[-1:]])
            if name == "curve":
                d[-1, 0] = d[-2, 0] + 1
            del f[name]
            f.create_dataset(name, data=d, chunks=True, fletcher32=True)
PY
        ;;
      other) # another trial's state under this one's name (its owner attribute says whose)
        "$FOX_PYTHON" - "$c3" <<'PY'
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["owner"] = np.array([5, 0], dtype=np.int32)
PY
        ;;
      esac
      run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st3" --resume
      contains "$ERR_TXT" "$c3: "
      [ "$how" = wrong ] && contains "$ERR_TXT" "holds 2 epochs, its name says 1"
      [ "$how" = other ] && contains "$ERR_TXT" "the state of trial 5 repeat 0, not of this trial's"
      contains "$ERR_TXT" "trains again from its start"
      same_table "resumed past a $how checkpoint" "$WORK/ref/trials.csv" "$WORK/st3/trials.csv"
      # the epochs trained again are not live twice: one line per trial-epoch, as the reference
      check "resumed past a $how checkpoint: metrics.jsonl's epochs are the reference's" \
        "$FOX_PYTHON" - "$WORK/ref/metrics.jsonl" "$WORK/st3/metrics.jsonl" <<'PY'
import json, sys
def keys(path):
    with open(path) as f:
        return sorted((r["trial"], r.get("repeat", 0), r["epoch"]) for r in map(json.loads, f))
a, b = keys(sys.argv[1]), keys(sys.argv[2])
sys.exit(0 if a == b and len(set(b)) == len(b) and b else 1)
PY
    done
  fi
  run_rc 0 "$FOXOPT" run "$WORK/st.yaml" -o "$WORK/st" --resume
  same_table "resumed" "$WORK/ref/trials.csv" "$WORK/st/trials.csv"
else
  bad "the stopped study left no trial file"
fi
done_
