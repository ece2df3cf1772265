#!/usr/bin/env bash
# Coordinator overhead (DESIGN.md s9): a study of trivial trials (the built-in Branin function,
# each trial sleeping SECONDS) over R oversubscribed MPI ranks, one trial per rank per step.
# Reports trials/s and the share of the ranks' time spent outside trials, against a reference
# run in the same script (bench_coord_ref: the same ranks sleeping through the same steps and
# meeting in one all-reduce per step: the floor that the machine and MPI impose).
#   tests/bench/bench_coord.sh [OUT.json]
# Environment: FOXOPT (default build/default/foxopt), RANKS ("16 64"), TRIAL_SECONDS (1.0),
# STEPS (4), FOX_PYTHON (with h5py; default .venv/bin/python), MPIEXEC (mpiexec).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
ref=${BENCH_COORD_REF:-$root/build/default/tests/bench/bench_coord_ref}
py=${FOX_PYTHON:-$root/.venv/bin/python}
mpiexec=${MPIEXEC:-mpiexec}
json=${1:-bench_coord.json}
ranks=${RANKS:-16 64} secs=${TRIAL_SECONDS:-1.0} steps=${STEPS:-4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
rows=()
for r in $ranks; do
  cat >"$work/c$r.yaml" <<YAML
train: {epochs: 1}
study:
  name: coord
  seed: 1
  trials: $((r * steps))
  round_size: $r
  objective: {function: branin, direction: minimize, seconds: $secs}
  sampler: {name: ${SAMPLER:-tpe}, n_startup_trials: $r}
parameters:
  x0: {distribution: uniform, min: -5, max: 10}
  x1: {distribution: uniform, min: 0, max: 15}
YAML
  start=$(date +%s.%N)
  "$mpiexec" -n "$r" "$fox" run "$work/c$r.yaml" -o "$work/o$r" >"$work/o$r.log" 2>&1
  end=$(date +%s.%N)
  refout=$("$mpiexec" -n "$r" "$ref" "$steps" "$secs")
  rows+=("$r $work/o$r $(echo "$end - $start" | bc) ${refout// /,}")
done
"$py" - "$json" "$secs" "${rows[@]}" <<'PY'
import json, sys
import h5py
out, secs = sys.argv[1], float(sys.argv[2])
print("# coordinator overhead: trivial trials of %.2f s, one per rank per step, oversubscribed" % secs)
print("# outside = 1 - trial seconds / (ranks x wall): rank time not spent in a trial; ref = the")
print("# same steps slept through by bare MPI ranks with one all-reduce each (bench_coord_ref)")
print("# %6s %7s %6s %9s %9s %10s %9s %9s %9s %9s" % ("ranks", "trials", "steps", "wall_s",
      "ref_s", "wall/ref", "trials/s", "outside%", "ref_out%", "launch_s"))
res = []
for row in sys.argv[3:]:
    r, path, total, refout = row.split()
    r, total = int(r), float(total)
    ref_wall, ref_busy = (float(x) for x in refout.split(","))
    ref_out = 1 - ref_busy / (r * ref_wall)
    with h5py.File(path + "/study.h5") as f:
        wall, steps = float(f.attrs["wall_seconds"]), int(f.attrs["steps"])
        busy = float(f["trials/seconds"][:].sum())
        n = len(f["trials/id"])
    outside = 1 - busy / (r * wall)
    res.append(dict(ranks=r, trials=n, steps=steps, wall_s=wall, ref_wall_s=ref_wall,
                    wall_over_ref=wall / ref_wall, trials_per_s=n / wall,
                    outside_share=outside, ref_outside_share=ref_out,
                    launch_and_setup_s=total - wall))
    print("  %6d %7d %6d %9.3f %9.3f %10.4f %9.2f %9.3f %9.3f %9.2f" % (r, n, steps, wall,
          ref_wall, wall / ref_wall, n / wall, 100 * outside, 100 * ref_out, total - wall))
json.dump({"benchmark": "coordinator", "seconds_per_trial": secs, "runs": res}, open(out, "w"),
          indent=1)
print("# wrote", out)
PY
