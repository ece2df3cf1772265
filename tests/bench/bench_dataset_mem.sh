#!/usr/bin/env bash
# Dataset memory of a study (issue 28, item 11): the peak RSS of a 1-trial study of a tiny DQN
# agent on the CPU backend, in copies of the f32 dataset (bars x 51 x 4 bytes), and the bytes a
# RANKS-rank study leaves in its rank files and stored copies (rank-*.h5 + dataset-*.h5), for
# this build against a reference build (the one before: main's) run in the same script on the
# same dataset. Also says whether both gave the same trials.csv (the seconds column aside).
#   tests/bench/bench_dataset_mem.sh [OUT.json]
# Environment: FOXOPT (default build/default/foxopt), FOXOPT_REF (default build/ref/foxopt: a
# build of the reference commit, e.g. `git worktree add /tmp/ref main && cd /tmp/ref &&
# cmake --preset cpu && cmake --build --preset cpu`; without it the reference rows are left
# out), BARS ("1000000"; add 5000000 for the issue's 5M-bar figure: about 6 GB of RAM for the
# reference build, 2 minutes), RANK_BARS (bars of the RANKS-rank study, 1000000), RANKS (4),
# FOX_PYTHON (default .venv/bin/python), MPIEXEC (mpiexec). Peak RSS from /usr/bin/time -v.
set -euo pipefail
shopt -s nullglob
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
ref=${FOXOPT_REF:-$root/build/ref/foxopt}
py=${FOX_PYTHON:-$root/.venv/bin/python}
mpiexec=${MPIEXEC:-mpiexec}
json=${1:-bench_dataset_mem.json}
bars_list=${BARS:-1000000} rank_bars=${RANK_BARS:-1000000} ranks=${RANKS:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ -x /usr/bin/time ] || { echo "bench_dataset_mem: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
builds=(new)
if [ -x "$ref" ]; then builds+=(ref); else echo "# no reference build at $ref: this build only" >&2; fi
bin() { if [ "$1" = ref ]; then echo "$ref"; else echo "$fox"; fi; }

dataset() { # bars -> $work/dBARS.h5 (made by this build; the format is the reference's too)
  [ -e "$work/d$1.h5" ] && return
  "$fox" synth -o "$work/d$1.csv" --bars "$1" --seed 3 >/dev/null
  "$fox" import "$work/d$1.csv" -o "$work/d$1.h5" >/dev/null
  rm -f "$work/d$1.csv"
}
config() { # bars -> $work/cBARS.yaml: one trial, a tiny agent, a short epoch
  cat >"$work/c$1.yaml" <<YAML
data: {path: $work/d$1.h5}
env: {num_envs: 4, episode_bars: 256}
train: {algo: dqn, epochs: 1, steps_per_epoch: 512, backend: cpu}
dqn: {hidden: [8], buffer_size: 1000, learning_starts: 64, batch_size: 16, target_update: 50}
output: {experience: none}
study:
  name: mem
  seed: 1
  trials: 1
  round_size: 1
  objective: {metric: val.sharpe, direction: maximize}
  sampler: {name: random}
parameters:
  dqn.lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0e-3}
YAML
}

rows=()
# The floor: a 1-trial study of the built-in Branin function (no dataset) has the process's own
# pages (MPI, HDF5, and the CUDA libraries of a CUDA build: ~230 MB) that no dataset causes.
cat >"$work/f.yaml" <<YAML
train: {epochs: 1}
study:
  name: floor
  seed: 1
  trials: 1
  round_size: 1
  objective: {function: branin, direction: minimize}
  sampler: {name: random}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
for k in "${builds[@]}"; do
  /usr/bin/time -v "$(bin "$k")" run "$work/f.yaml" -o "$work/f$k" >/dev/null 2>"$work/tf$k.txt"
  rows+=("floor $k 0 $(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/tf$k.txt") -")
done
for b in $bars_list; do
  dataset "$b"
  config "$b"
  for k in "${builds[@]}"; do
    /usr/bin/time -v "$(bin "$k")" run "$work/c$b.yaml" -o "$work/o$k$b" >"$work/o$k$b.log" \
      2>"$work/t$k$b.txt"
    kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/t$k$b.txt")
    rows+=("rss $k $b $kb $work/o$k$b/trials.csv")
  done
done
dataset "$rank_bars"
config "$rank_bars"
for k in "${builds[@]}"; do
  "$mpiexec" -n "$ranks" "$(bin "$k")" run "$work/c$rank_bars.yaml" -o "$work/r$k" \
    >"$work/r$k.log" 2>&1
  kept=("$work/r$k"/rank-*.h5 "$work/r$k"/dataset-*.h5)
  rows+=("files $k $rank_bars $(cat "${kept[@]}" | wc -c) ${#kept[@]}")
done

"$py" - "$json" "$ranks" "${rows[@]}" <<'PY'
import json, sys
out, ranks = sys.argv[1], int(sys.argv[2])
def table(path):
    with open(path) as f:  # the seconds column (8th) is wall time, not a result
        return [",".join(c for i, c in enumerate(l.rstrip("\n").split(",")) if i != 7) for l in f]
rss, files, floor = {}, {}, {}
for row in sys.argv[3:]:
    kind, build, bars, value, extra = row.split(maxsplit=4)
    if kind == "floor":
        floor[build] = int(value) * 1024
    elif kind == "rss":
        rss[(build, int(bars))] = (int(value) * 1024, extra)
    else:
        files[(build, int(bars))] = (int(value), int(extra))
copy = lambda bars: bars * 51 * 4
print("# dataset memory of a 1-trial tiny-DQN study (CPU backend): peak RSS (/usr/bin/time -v)")
print("# in copies of the f32 dataset (bars x 51 x 4 B): _cp the whole peak, _ds the peak above")
print("# the build's floor (a Branin study's peak: %s MB); new = this build, ref = the reference" %
      ", ".join("%s %.1f" % (k, v / 1e6) for k, v in sorted(floor.items())))
print("# build (the one before); same = both wrote the same trials.csv (seconds aside)")
print("# %9s %9s %7s %7s %9s %7s %7s %8s %5s" % ("bars", "new_MB", "new_cp", "new_ds", "ref_MB",
                                                "ref_cp", "ref_ds", "new/ref", "same"))
res = {"floor_bytes": floor, "rss": [], "files": []}
for bars in sorted({b for _, b in rss}):
    n = rss[("new", bars)]
    r = rss.get(("ref", bars))
    same = None if r is None else table(n[1]) == table(r[1])
    row = {"bars": bars, "copy_bytes": copy(bars), "new_rss_bytes": n[0],
           "new_copies": n[0] / copy(bars), "new_dataset_copies": (n[0] - floor["new"]) / copy(bars)}
    if r:
        row.update(ref_rss_bytes=r[0], ref_copies=r[0] / copy(bars),
                   ref_dataset_copies=(r[0] - floor["ref"]) / copy(bars),
                   new_over_ref=n[0] / r[0], same_trials=same)
    res["rss"].append(row)
    print("  %9d %9.1f %7.2f %7.2f %9s %7s %7s %8s %5s" % (
        bars, n[0] / 1e6, row["new_copies"], row["new_dataset_copies"],
        "%.1f" % (r[0] / 1e6) if r else "-", "%.2f" % row["ref_copies"] if r else "-",
        "%.2f" % row["ref_dataset_copies"] if r else "-",
        "%.3f" % row["new_over_ref"] if r else "-", {None: "-", True: "yes", False: "NO"}[same]))
print("# rank files + stored copies of a %d-rank study (one host), bytes; copies = f32 datasets" % ranks)
print("# %9s %6s %13s %8s %6s %13s %8s %8s" % ("bars", "files", "new_bytes", "new_cp", "files",
                                               "ref_bytes", "ref_cp", "new/ref"))
for bars in sorted({b for _, b in files}):
    n, r = files[("new", bars)], files.get(("ref", bars))
    row = {"bars": bars, "ranks": ranks, "new_bytes": n[0], "new_files": n[1],
           "new_copies": n[0] / copy(bars)}
    if r:
        row.update(ref_bytes=r[0], ref_files=r[1], ref_copies=r[0] / copy(bars),
                   new_over_ref=n[0] / r[0])
    res["files"].append(row)
    print("  %9d %6d %13d %8.2f %6s %13s %8s %8s" % (
        bars, n[1], n[0], row["new_copies"], r[1] if r else "-", r[0] if r else "-",
        "%.2f" % row["ref_copies"] if r else "-", "%.3f" % row["new_over_ref"] if r else "-"))
with open(out, "w") as f:
    json.dump(res, f, indent=1)
PY
