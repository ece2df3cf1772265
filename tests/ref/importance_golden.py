"""The golden figures of tests/unit/test_importance.c: Optuna 5.1's PedAnovaImportanceEvaluator
on 40 hand-made trials whose values are exact binary fractions (so C and Python see the same
numbers): uniform, log-uniform, integer, log-integer, q-uniform, a categorical parameter active
in two trials of three and a fixed one. Prints the raw and the normalised importances as C
arrays; run with the venv's Python (tests/unit/test_importance.c says which Optuna made them).
"""

import math

import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

N = 40
DISTS = {
    "a": FloatDistribution(0.0, 1.0),
    "b": FloatDistribution(1e-4, 1.0, log=True),
    "c": IntDistribution(1, 8),
    "d": IntDistribution(1, 1000, log=True),
    "e": FloatDistribution(0.0, 1.0, step=0.25),
    "f": CategoricalDistribution([0, 1, 2]),
    "g": CategoricalDistribution(["only"]),
}


def point(k):
    """The same formulas as test_importance.c's golden_point_ (f: None where inactive)."""
    a = ((k * 37) % 64) / 64 + 1 / 128
    m = (k * 7) % 13
    b = 2.0 ** -m
    c = 1 + (k * 5) % 8
    d = 1 + (k * k * 13) % 1000
    e = ((k * 3) % 5) * 0.25
    f = None if k % 3 == 0 else (k * 7) % 3
    y = 4 * ((a - 0.3) * (a - 0.3)) + 0.05 * c + (e - 0.5) * (e - 0.5) + 0.01 * m
    y += 0.15 if f is None else 0.0 if f == 1 else 0.3
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "f": f, "g": "only"}, y


def main():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    study = optuna.create_study()
    for k in range(N):
        p, y = point(k)
        if p["f"] is None:
            del p["f"]
        study.add_trial(optuna.trial.create_trial(
            params=p, distributions={n: DISTS[n] for n in p}, value=y))
    ev = optuna.importance.PedAnovaImportanceEvaluator()
    raw = ev.evaluate(study)
    imp = optuna.importance.get_param_importances(study, evaluator=ev)
    print(f"/* Optuna {optuna.__version__} */")
    for name, d in (("raw", raw), ("imp", imp)):
        print(f"static const double golden_{name}_[7] = {{" +
              ", ".join(repr(d.get(k, 0.0)) for k in DISTS) + "};")


if __name__ == "__main__":
    main()
