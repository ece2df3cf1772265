#!/usr/bin/env bash
# foxopt report's parameter importance (src/report/importance.c) against Optuna 5.1's
# PedAnovaImportanceEvaluator on the same trials (importance_ref.py): Branin (2 parameters),
# Hartmann-6 (6) and the mixed function (categorical, log-scale and integer parameters of
# clearly unequal weight), each with the random and the TPE sampler. The issue's acceptance is
# a Spearman rank correlation >= 0.8; the checker also asks for the same numbers to within a
# unit of the report's 4th decimal, since PED-ANOVA draws nothing at random. Then the cases
# without a table (too few trials) and with two (a two-objective study).
. "$(dirname "$0")/lib.sh"
need_python
"$FOX_PYTHON" -c 'import optuna' 2>/dev/null || { echo "skipped: no optuna in $FOX_PYTHON"; exit 77; }
CHECKER="$(dirname "$0")/importance_ref.py"

space_() { # the parameters of tests/study_spaces.h
  case $1 in
  branin | mixed)
    printf '  x0: {distribution: uniform, min: -5, max: 10}\n'
    printf '  x1: {distribution: uniform, min: 0, max: 15}\n' ;;&
  mixed)
    printf '  x2: {values: [0, 1, 2, 3]}\n'
    printf '  x3: {distribution: log_uniform, min: 1e-6, max: 1}\n'
    printf '  x4: {distribution: int_uniform, min: 0, max: 20}\n' ;;
  hartmann6)
    for i in 0 1 2 3 4 5; do printf '  x%d: {distribution: uniform, min: 0, max: 1}\n' "$i"; done ;;
  esac
}
study_() { # study_ FUNCTION SAMPLER TRIALS: runs it into $WORK/FUNCTION_SAMPLER_TRIALS
  local dir="$WORK/$1_$2_$3"
  { printf 'study:\n  name: imp_%s_%s\n  seed: 5\n  trials: %d\n' "$1" "$2" "$3"
    printf '  objective: {function: %s, direction: minimize}\n  sampler: {name: %s}\n' "$1" "$2"
    printf 'parameters:\n'; space_ "$1"; } >"$dir.yaml"
  run_rc 0 "$FOXOPT" run "$dir.yaml" -o "$dir"
}

for fn in branin hartmann6 mixed; do
  for sampler in random tpe; do
    study_ "$fn" "$sampler" 200
    dir="$WORK/${fn}_${sampler}_200"
    run_rc 0 "$FOXOPT" report "$dir" --no-plots --top 1
    echo "$OUT_TXT" >"$dir.txt"
    contains "$OUT_TXT" "# parameter importance (PED-ANOVA"
    contains "$OUT_TXT" "the best 20 of 200 complete trials"
    run_rc 0 "$FOX_PYTHON" "$CHECKER" "$fn" "$dir" "$dir.txt"
    echo "$fn $sampler: $OUT_TXT"
    [ "$RC" -eq 0 ] || echo "$ERR_TXT" | tail -5
  done
done
# The mixed function's weights are far apart: whatever the sampler, the log-scale x3 (its
# term spans 0 .. 2.25 over the decades) and the categorical x2 (0 .. 2) lead Branin's /10.
top=$(awk '/^#   parameter  /{getline; print $2; exit}' "$WORK/mixed_random_200.txt")
check "mixed: x3 or x2 is the most important ($top)" test "$top" = x3 -o "$top" = x2

# Too few trials: said, not computed.
study_ branin random 12
run_rc 0 "$FOXOPT" report "$WORK/branin_random_12" --no-plots
contains "$OUT_TXT" "value: not computed: 12 complete trials with a value, fewer than 20"
check "no importance table under 20 trials" not grep -q '^#   parameter  ' "$WORK/out.txt"

# Two objectives: one table for each, under its own name.
cat >"$WORK/bk.yaml" <<YAML
study:
  name: imp_bk
  seed: 3
  trials: 60
  objective:
    - {function: binh_korn, metric: f0, direction: minimize}
    - {metric: f1, direction: minimize}
  sampler: {name: random}
parameters:
  x0: {distribution: uniform, min: 0, max: 5}
  x1: {distribution: uniform, min: 0, max: 3}
YAML
run_rc 0 "$FOXOPT" run "$WORK/bk.yaml" -o "$WORK/bk"
run_rc 0 "$FOXOPT" report "$WORK/bk" --no-plots
contains "$OUT_TXT" "#   f0 (minimize): the best 6 of 60 complete trials"
contains "$OUT_TXT" "#   f1 (minimize): the best 6 of 60 complete trials"
check "two importance tables" test "$(grep -c '^#   parameter  ' "$WORK/out.txt")" -eq 2

# report --json: the same figures, ranks and sentences as the text (its 4 decimals), a status
# where there are none, one entry per objective.
for d in mixed_random_200 branin_random_12 bk; do
  run_rc 0 "$FOXOPT" report "$WORK/$d" --no-plots --json
  printf '%s\n' "$OUT_TXT" >"$WORK/$d.json"
  run_rc 0 "$FOXOPT" report "$WORK/$d" --no-plots
  printf '%s\n' "$OUT_TXT" >"$WORK/$d.text"
done
"$FOX_PYTHON" - "$WORK" <<'PY' && ok || bad "report --json's importance"
import json, re, sys
w = sys.argv[1]
j = json.load(open(f"{w}/mixed_random_200.json"))["importance"]
text = open(f"{w}/mixed_random_200.text").read()
rows = re.findall(r"^#   (x\d)\s+([\d.]+)\s+(\d+)", text, re.M)
assert len(j) == 1 and j[0]["metric"] == "value" and j[0]["status"] == "done", j
assert j[0]["n"] == 200 and j[0]["n_top"] == 20, j[0]
got = sorted(((p["rank"], p["name"]), p["importance"]) for p in j[0]["params"])
assert [k[1] for k, _ in got] == [r[0] for r in rows], (got, rows)
for (k, v), r in zip(got, rows):
    assert abs(v - float(r[1])) <= 5e-5 and k[0] == int(r[2]), (k, v, r)
assert abs(sum(p["importance"] for p in j[0]["params"]) - 1) < 1e-12
few = json.load(open(f"{w}/branin_random_12.json"))["importance"]
assert few[0]["status"] == "few" and few[0]["params"] == [] and \
    few[0]["says"].startswith("not computed: 12 complete trials"), few
bk = json.load(open(f"{w}/bk.json"))["importance"]
assert [o["metric"] for o in bk] == ["f0", "f1"] and all(len(o["params"]) == 2 for o in bk), bk
PY
done_
