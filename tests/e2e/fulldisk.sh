#!/usr/bin/env bash
# A full disk in the middle of a study: foxopt run stops with exit 1 and the system's words
# ("No space left on device"), never a crash; every file it had written is still readable (each
# is written whole under a temporary name, then renamed); after space is freed, --resume ends
# with the table of an uninterrupted run. OUTDIR is a small tmpfs (needs root: skipped, 77,
# where mount is refused).
. "$(dirname "$0")/lib.sh"

DISK="$WORK/disk"
mkdir -p "$DISK"
mount -t tmpfs -o size=1400k tmpfs "$DISK" 2>/dev/null || { echo "skipped: cannot mount a tmpfs"; exit 77; }
trap 'umount "$DISK" 2>/dev/null; rm -rf "$WORK"' EXIT

"$FOXOPT" synth -o "$WORK/s.csv" --bars 5000 --seed 2 >/dev/null
"$FOXOPT" import "$WORK/s.csv" -o "$WORK/s.h5" >/dev/null
cat >"$WORK/d.yaml" <<YAML
data: {path: $WORK/s.h5}
env: {num_envs: 8, episode_bars: 256}
train: {algo: dqn, epochs: 2, steps_per_epoch: 1000, backend: cpu}
dqn: {hidden: [16, 16], learning_starts: 200, buffer_size: 2000, batch_size: 16}
study: {name: full, seed: 1, trials: 24, round_size: 4, sampler: {name: random}}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0e-2}
YAML
run_rc 0 "$FOXOPT" run "$WORK/d.yaml" -o "$WORK/lone"

# The disk fills at different moments: in the first step (no study.h5 yet: --resume with the
# config starts the study), mid-study, late.
for size in 1150k 1300k 1400k; do
  umount "$DISK" 2>/dev/null
  mount -t tmpfs -o size=$size tmpfs "$DISK"
  run_rc 1 "$FOXOPT" run "$WORK/d.yaml" -o "$DISK/run"
  contains "$ERR_TXT" "No space left on device"
  # the user's file, never the temporary one being written, nor this tree's or HDF5's insides
  check "$size: plain message: $ERR_TXT" not grep -Eq '\.tmp\.|src/|\.c:[0-9]|H5[A-Z]' "$WORK/err.txt"
  check "$size: no crash at exit" not grep -q "Segmentation\|Signal:" "$WORK/err.txt"
  for f in "$DISK"/run/study.h5 "$DISK"/run/rank-*.h5 "$DISK"/run/trials/*.h5; do
    [ -e "$f" ] || continue
    run_rc 0 "$FOXOPT" info "$f"
  done
  mount -o remount,size=20m "$DISK"
  run_rc 0 "$FOXOPT" run "$WORK/d.yaml" -o "$DISK/run" --resume
  same_table "$size: resume after the disk was freed" "$WORK/lone/trials.csv" \
    "$DISK/run/trials.csv"
  check "$size: every trial's file" test "$(ls "$DISK/run/trials" | wc -l)" -eq 24
  check "$size: no temporary file left" test -z "$(find "$DISK/run" -name '*.tmp.*')"
done
done_
