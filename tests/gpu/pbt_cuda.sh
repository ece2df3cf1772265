#!/usr/bin/env bash
# PBT on the CUDA backend: the states a member copies live on the device (networks, Adam's
# moments, the replay ring): between segments on one rank they are copied within the device
# from the trial that made them, between ranks they go as the in-memory checkpoint image; with trials_per_device 4 a generation trains as one population. The lineage is whole, SIGTERM + --resume give the uninterrupted table, and (where two
# ranks can share the device or each has its own: the emulation, or 2+ GPUs) 2 ranks give the
# 1-rank table with states moved between them. Skips (77) without a CUDA build or device.
. "$(dirname "$0")/../e2e/lib.sh"
need_python
"$FOXOPT" synth -o "$WORK/s.csv" --bars 8000 --seed 4 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/p.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: dqn, steps_per_epoch: 512, epochs: 3, backend: cuda}
dqn: {hidden: [16], buffer_size: 1000, learning_starts: 100, batch_size: 32}
study:
  name: pbt
  seed: 2
  objective: {metric: val.total_return, direction: maximize}
  sampler: {name: random}
  scheduler: {name: pbt, population: 4, interval: 1}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1e-4, max: 1e-2}
  dqn.gamma: {distribution: uniform, min: 0.9, max: 0.999}
YAML
"$FOXOPT" run "$WORK/p.yaml" -o "$WORK/p1" >"$WORK/p1.out" 2>"$WORK/p1.err"
rc=$?
if [ $rc -ne 0 ] && grep -q "backend cuda:" "$WORK/p1.err"; then
  echo "skipped: $(cat "$WORK/p1.err")"
  exit 77
fi
check "pbt on cuda (exit $rc: $(tail -1 "$WORK/p1.err"))" test $rc -eq 0
check "12 rows" test "$(($(wc -l <"$WORK/p1/trials.csv") - 1))" -eq 12
"$FOX_PYTHON" - "$WORK/p1" <<'PY' && ok || bad "lineage on cuda"
import csv, sys
import h5py
rows = {int(r["id"]): r for r in csv.DictReader(open(f"{sys.argv[1]}/trials.csv"))}
if sum(r["exploited"] == "1" for r in rows.values()) != 2:
    sys.exit("expected one exploit in each of generations 1 and 2")
for i, r in rows.items():
    with h5py.File(f"{sys.argv[1]}/trials/{i}.h5") as f:
        if f.attrs["backend"] not in (b"cuda", "cuda"):
            sys.exit(f"row {i} ran on {f.attrs['backend']}")
PY
# The generation as one device population (4 members stepping together; the exploit between
# generations copies the states within the device): the same table.
run_rc 0 "$FOXOPT" run "$WORK/p.yaml" -o "$WORK/pp" --set study.trials_per_device=4
same_table "cuda: a generation as one population" "$WORK/p1/trials.csv" "$WORK/pp/trials.csv"
"$FOX_PYTHON" - "$WORK/pp" <<'PY' && ok || bad "the generations trained as populations of 4"
import glob, sys
import h5py
seen = set()
for p in glob.glob(f"{sys.argv[1]}/trials/*.h5"):
    with h5py.File(p) as f:
        seen |= set(int(m) for m in f["curve/members"][()])
if seen != {4}:
    sys.exit(f"populations of {sorted(seen)}")
PY
# As a population of 4 the states of generations 1 and 2 were copied on the device from the
# trials that made them (open since their segments, 4 held at most): 4 a generation. One at a
# time, one is held at a time (released after its last reader loaded it): some were.
copied() {
  "$FOX_PYTHON" -c 'import h5py, sys; print(h5py.File(sys.argv[1])["pbt/copied"][:].tolist())' \
    "$WORK/$1/study.h5"
}
check "cuda, a population of 4: 8 states copied on the device ($(copied pp))" \
  test "$(copied pp)" = "[0, 4, 4]"
check "cuda, one at a time: some copied on the device ($(copied p1))" "$FOX_PYTHON" -c '
import sys; c = eval(sys.argv[1]); sys.exit(not (c[0] == 0 and 1 <= sum(c) <= 8))' "$(copied p1)"

stop_when "$WORK/ps/trials/5.h5" "$FOXOPT" run "$WORK/p.yaml" -o "$WORK/ps"
check "SIGTERM exits 75 (got $RC)" test "$RC" -eq 75
run_rc 0 "$FOXOPT" run -o "$WORK/ps" --resume
same_table "cuda: SIGTERM, resumed" "$WORK/p1/trials.csv" "$WORK/ps/trials.csv"
# Two ranks: NCCL (the end-of-step sums on the CUDA backend) refuses two ranks on one real GPU.
devices=$("$FOX_PYTHON" - "$WORK/p1/rank-0000.h5" <<'PY'
import sys, h5py
print(h5py.File(sys.argv[1]).attrs["device"].decode())
PY
)
if [ -n "${FOX_CUDA_EMU:-}" ] || [ "${FOX_GPUS:-1}" -ge 2 ]; then
  run_rc 0 "$FOX_MPIEXEC" -n 2 "$FOXOPT" run "$WORK/p.yaml" -o "$WORK/p2"
  same_table "cuda: 2 ranks" "$WORK/p1/trials.csv" "$WORK/p2/trials.csv"
  # a state that came from the other rank came as bytes: not copied within the device
  check "cuda, 2 ranks: copied + moved <= 8" "$FOX_PYTHON" -c '
import h5py, sys
f = h5py.File(sys.argv[1])
c, t = int(f["pbt/copied"][:].sum()), int(f["pbt/transfers"][:].sum())
sys.exit(not (c + t <= 8 and c < 8 if t else c <= 8))' "$WORK/p2/study.h5"
else
  echo "# one device ($devices): the 2-rank run needs the emulation or 2 GPUs (FOX_GPUS=2)"
fi
done_
