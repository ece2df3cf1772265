"""foxopt report's parameter importance against Optuna's own PedAnovaImportanceEvaluator.

importance_ref.py SPACE OUTDIR REPORT_TXT: SPACE is the study's test function (branin,
hartmann6, mixed: the bounds of tests/study_spaces.h), OUTDIR/trials.csv its trials, REPORT_TXT
what `foxopt report OUTDIR` printed. Builds an in-memory Optuna study from the complete trials
with the same distributions (optuna.trial.create_trial), evaluates
optuna.importance.get_param_importances (PED-ANOVA, normalised) and prints, per parameter,
both importances and ranks, then `spearman S maxdiff D`. Exit 1 when the Spearman rank
correlation is below 0.8 or an importance differs by more than a unit of the report's 4th
decimal (its rounding, and Optuna's sum of the same terms in another order): PED-ANOVA has
no randomness, so the same trials must give the same numbers, not just a similar order.
"""

import csv
import re
import sys

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

UNIT = FloatDistribution(0.0, 1.0)
SPACES = {
    "branin": {"x0": FloatDistribution(-5.0, 10.0), "x1": FloatDistribution(0.0, 15.0)},
    "hartmann6": {f"x{i}": UNIT for i in range(6)},
    "mixed": {
        "x0": FloatDistribution(-5.0, 10.0),
        "x1": FloatDistribution(0.0, 15.0),
        "x2": CategoricalDistribution([0, 1, 2, 3]),
        "x3": FloatDistribution(1e-6, 1.0, log=True),
        "x4": IntDistribution(0, 20),
    },
}


def optuna_importance(space, path):
    dists = SPACES[space]
    study = optuna.create_study(direction="minimize")
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["status"] != "complete":
                continue
            params = {}
            for k, d in dists.items():
                if isinstance(d, CategoricalDistribution):
                    params[k] = int(row[k])
                elif isinstance(d, IntDistribution):
                    params[k] = int(float(row[k]))
                else:
                    params[k] = float(row[k])
            study.add_trial(
                optuna.trial.create_trial(
                    params=params, distributions=dists, value=float(row["value"])
                )
            )
    ev = optuna.importance.PedAnovaImportanceEvaluator()
    return optuna.importance.get_param_importances(study, evaluator=ev), len(study.trials)


def foxopt_importance(path):
    """The rows of the report's importance table: '#   NAME  IMPORTANCE  RANK [note]'."""
    got, inside = {}, False
    for line in open(path):
        if line.startswith("#   parameter  ") and "importance" in line:
            inside = True
            continue
        if inside:
            m = re.match(r"#   (\S+)\s+([0-9.]+)\s+(\d+)", line)
            if not m:
                break
            got[m.group(1)] = float(m.group(2))
    return got


def ranks(v):
    """Average ranks (1 = largest), as scipy.stats.rankdata on -v."""
    v = np.asarray(v)
    order = np.argsort(-v, kind="stable")
    r = np.empty(len(v))
    r[order] = np.arange(1, len(v) + 1)
    for x in np.unique(v):
        r[v == x] = r[v == x].mean()
    return r


def main():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    space, outdir, report = sys.argv[1:4]
    want, n = optuna_importance(space, f"{outdir}/trials.csv")
    got = foxopt_importance(report)
    keys = list(SPACES[space])
    if sorted(got) != sorted(keys):
        print(f"{space}: the report's importance table has {sorted(got)}, expected {keys}")
        return 1
    a = np.array([got[k] for k in keys])
    b = np.array([want[k] for k in keys])
    ra, rb = ranks(a), ranks(b)
    print(f"{space}: {n} complete trials")
    print("  param  foxopt    optuna    rank_fox rank_optuna")
    for k, x, y, p, q in zip(keys, a, b, ra, rb):
        print(f"  {k:5s}  {x:.6f}  {y:.6f}  {p:8.1f} {q:11.1f}")
    s = float(np.corrcoef(ra, rb)[0, 1])
    d = float(np.max(np.abs(a - b)))
    print(f"spearman {s:.4f} maxdiff {d:.2e}")
    return 0 if s >= 0.8 and d <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
