#!/usr/bin/env bash
# The multi-objective TPE's parts (src/search/hypervolume.c and tpe.c's split, through
# tests/unit/mo_tpe_cli) against Optuna 5.1's own compute_hypervolume, _solve_hssp,
# _split_trials and Parzen weights on the same points (tests/e2e/mo_tpe_ref.py): 2-4
# objectives, grid points with ties, points on a front, infeasible and running trials.
. "$(dirname "$0")/lib.sh"
need_python
"$FOX_PYTHON" -c 'import optuna' 2>/dev/null || { echo "skipped: no optuna in $FOX_PYTHON"; exit 77; }
: "${MO_TPE_CLI:?MO_TPE_CLI must point at the mo_tpe_cli test driver}"
run_rc 0 "$FOX_PYTHON" "$FOX_SRC/tests/e2e/mo_tpe_ref.py" "$MO_TPE_CLI"
echo "$OUT_TXT"
[ "$RC" -eq 0 ] || echo "$ERR_TXT" | head -20
# One objective with constraints: the infeasible trial with the best value goes to the rest,
# as Optuna's _split_trials (feasibility first, whatever the number of objectives) puts it:
# below = [1, 2] for constraints (5,), (0,), (0,) and values 0, 1, 2 at gamma 0.5.
got=$(printf 'split 1 3 0.5\n0 5.0 0.0 0.1\n0 0 1.0 0.2\n0 0 2.0 0.3\n' | "$MO_TPE_CLI" | head -1)
check "one objective: the infeasible trial is not good ($got)" test "$got" = "0 1 1"
done_
