#!/usr/bin/env bash
# Study scale benchmark (issue 28, items 9 and 10): the wall time of whole `foxopt run` studies on
# the built-in test functions, no agents, so that everything measured is foxopt's own overhead:
# proposals, Pareto ranks, the step loop and the study.h5 / trials.csv checkpoints.
#   nsga2  ZDT1 (30 parameters, population 50), rounds of 50 and of 1;
#   random Branin, rounds of 100 and of 1.
# Figures: wall seconds and milliseconds per trial at each size, and the ratio against a
# reference build (REF_FOXOPT, e.g. the commit before the change) run in the same script on the
# same machine; a reference run that would take longer than REF_MAX_S is skipped (its figure is
# the extrapolation of the last two sizes, marked ~). The two builds must write the same
# trials.csv (the seconds column aside): checked, and a difference is an error.
#   tests/bench/bench_study_scale.sh [OUT.json]
# Environment: FOXOPT (default build/default/foxopt), REF_FOXOPT (optional), SIZES ("1000 4000";
# add 16000 50000 for the issue's figures), CASES ("nsga2:50 nsga2:1 random:100 random:1"),
# REF_MAX_S (300).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
fox=${FOXOPT:-$root/build/default/foxopt}
ref=${REF_FOXOPT:-}
json=${1:-bench_study_scale.json}
sizes=${SIZES:-1000 4000}
cases=${CASES:-nsga2:50 nsga2:1 random:100 random:1}
ref_max=${REF_MAX_S:-300}
[[ -x $fox ]] || { echo "bench_study_scale.sh: $fox not built (or set FOXOPT)" >&2; exit 2; }
[[ -z $ref || -x $ref ]] || { echo "bench_study_scale.sh: REF_FOXOPT=$ref is not executable" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/foxbench.XXXXXX")
trap 'rm -rf "$work"' EXIT

config() { # config SAMPLER ROUND TRIALS
  if [[ $1 == nsga2 ]]; then
    printf '%s\n' "study:" "  seed: 7" "  trials: $3" "  round_size: $2" "  trials_per_device: 1" \
      "  objective: [{metric: f0, direction: minimize, function: zdt1}, {metric: f1, direction: minimize}]" \
      "  sampler: {name: nsga2, population_size: 50}" "parameters:"
    for i in $(seq 0 29); do echo "  x$i: {distribution: uniform, min: 0, max: 1}"; done
  else
    printf '%s\n' "study:" "  seed: 7" "  trials: $3" "  round_size: $2" "  trials_per_device: 1" \
      "  objective: {function: branin, direction: minimize}" "  sampler: {name: random}" \
      "parameters:" "  x0: {distribution: uniform, min: -5, max: 10}" \
      "  x1: {distribution: uniform, min: 0, max: 15}"
  fi
}
# The table without the seconds, start and end columns (wall time, never the same twice).
table() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = $i == "seconds" || $i == "start" || $i == "end" }
           { for (i = 1; i <= NF; i++) if (drop[i]) $i = ""; print }' OFS=, "$1"
}
timed() { # timed BIN DIR YAML: wall seconds of one run, or "fail"
  local t0 t1
  t0=$(date +%s.%N)
  "$1" run "$3" -o "$2" >"$2.log" 2>&1 || { echo fail; return; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}

printf '# foxopt study scale: whole runs on test functions (no agents), one trial thread\n'
printf '# new: %s\n# ref: %s\n' "$fox" "${ref:-none}"
printf '# %-7s %6s %7s %10s %12s %10s %12s %8s\n' sampler round trials "new_s" "new_ms/trial" \
  "ref_s" "ref_ms/trial" "ref/new"
echo "[" >"$work/rows.json"
first=1
for c in $cases; do
  s=${c%%:*} r=${c##*:}
  prev_n="" prev_t="" last_n="" last_t=""
  for n in $sizes; do
    config "$s" "$r" "$n" >"$work/$s-$r-$n.yaml"
    tn=$(timed "$fox" "$work/new-$s-$r-$n" "$work/$s-$r-$n.yaml")
    [[ $tn == fail ]] && { echo "bench_study_scale.sh: $fox failed: $(tail -3 "$work/new-$s-$r-$n.log")" >&2; exit 1; }
    tr="" mark=""
    if [[ -n $ref ]]; then
      est=""
      if [[ -n $last_t ]]; then # the next size's time by the last two sizes' power law (n^2 after one)
        est=$(python3 -c "import math; a,b,c,d,n=${prev_n:-0},${prev_t:-0},$last_n,$last_t,$n; p=math.log(d/b)/math.log(c/a) if a>0 and b>0 and d>0 and c!=a else 2; print(d*(n/c)**p)")
      fi
      if [[ -n $est ]] && python3 -c "import sys; sys.exit(0 if $est > $ref_max else 1)"; then
        tr=$est mark="~"
      else
        tr=$(timed "$ref" "$work/ref-$s-$r-$n" "$work/$s-$r-$n.yaml")
        [[ $tr == fail ]] && { echo "bench_study_scale.sh: $ref failed" >&2; exit 1; }
        if ! cmp -s <(table "$work/new-$s-$r-$n/trials.csv") <(table "$work/ref-$s-$r-$n/trials.csv"); then
          echo "bench_study_scale.sh: $s round $r $n trials: trials.csv differs between the builds" >&2
          exit 1
        fi
        rm -rf "$work/ref-$s-$r-$n"
      fi
      prev_n=$last_n prev_t=$last_t last_n=$n last_t=$tr
    fi
    rm -rf "$work/new-$s-$r-$n"
    python3 - "$s" "$r" "$n" "$tn" "${tr:-nan}" "$mark" "$first" >>"$work/rows.json" <<'PY'
import json, sys
s, r, n, tn, tr, mark, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), sys.argv[6], sys.argv[7]
row = {"sampler": s, "round_size": r, "trials": n, "new_seconds": tn, "new_ms_per_trial": 1e3 * tn / n}
if tr == tr:
    row.update(ref_seconds=tr, ref_ms_per_trial=1e3 * tr / n, ref_extrapolated=mark == "~", ratio=tr / tn)
sys.stderr.write("  %-7s %6d %7d %10.2f %12.3f %9s%1s %12s %8s\n" % (s, r, n, tn, 1e3 * tn / n,
    "%.2f" % tr if tr == tr else "-", mark, "%.3f" % (1e3 * tr / n) if tr == tr else "-",
    "%.1f" % (tr / tn) if tr == tr else "-"))
print(("" if first == "1" else ",") + json.dumps(row))
PY
    first=0
  done
done 2>&1
echo "]" >>"$work/rows.json"
python3 -c "import json,sys; json.dump({'benchmark': 'study_scale', 'results': json.load(open(sys.argv[1]))}, open(sys.argv[2], 'w'), indent=1)" "$work/rows.json" "$json"
echo "# wrote $json"
