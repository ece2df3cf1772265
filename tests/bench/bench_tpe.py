#!/usr/bin/env python3
"""TPE benchmark, Optuna's side: the same test functions, bounds, distributions and budgets as
tests/bench/bench_tpe.c (tests/study_spaces.h), run by Optuna's default TPESampler(seed=s), by
TPESampler(multivariate=True, group=True, constant_liar=True) and by TPESampler(multivariate=
False); median and quartiles of the best value over seeds, and the time of one proposal (ask()
plus the suggest calls) after a history of random trials.
  bench_tpe.py [--seeds 20] [--trials 100] [--history 1000] [--json OUT.json]"""
import argparse
import json
import math
import time
import warnings

import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution


def branin(x):
    b, c, t = 5.1 / (4 * math.pi**2), 5 / math.pi, 1 / (8 * math.pi)
    u = x[1] - b * x[0] ** 2 + c * x[0] - 6
    return u * u + 10 * (1 - t) * math.cos(x[0]) + 10


_A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8],
      [17, 8, 0.05, 10, 0.1, 14]]
_P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886], [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
      [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650], [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]
_ALPHA = [1.0, 1.2, 3.0, 3.2]


def hartmann6(x):
    return -sum(_ALPHA[i] * math.exp(-sum(_A[i][j] * (x[j] - _P[i][j]) ** 2 for j in range(6)))
                for i in range(4))


def mixed(x):
    cat = [0.5, 0.0, 1.0, 2.0]
    lr = math.log10(x[3]) + 3
    return branin(x) / 10 + cat[int(x[2])] + lr * lr / 4 + (x[4] - 7) ** 2 / 50


# The spaces of tests/study_spaces.h.
SPACES = {
    "branin": (branin, {"x0": FloatDistribution(-5, 10), "x1": FloatDistribution(0, 15)}),
    "hartmann6": (hartmann6, {f"x{i}": FloatDistribution(0, 1) for i in range(6)}),
    "mixed": (mixed, {"x0": FloatDistribution(-5, 10), "x1": FloatDistribution(0, 15),
                      "x2": CategoricalDistribution([0, 1, 2, 3]),
                      "x3": FloatDistribution(1e-6, 1, log=True), "x4": IntDistribution(0, 20)}),
}

SAMPLERS = {
    "optuna": lambda s: optuna.samplers.TPESampler(seed=s),
    "optuna-mv-group-cl": lambda s: optuna.samplers.TPESampler(
        seed=s, multivariate=True, group=True, constant_liar=True),
    "optuna-indep": lambda s: optuna.samplers.TPESampler(seed=s, multivariate=False),
}


def suggest(trial, space):
    x = []
    for name, d in space.items():
        if isinstance(d, CategoricalDistribution):
            x.append(trial.suggest_categorical(name, d.choices))
        elif isinstance(d, IntDistribution):
            x.append(trial.suggest_int(name, d.low, d.high, log=d.log))
        else:
            x.append(trial.suggest_float(name, d.low, d.high, log=d.log))
    return x


def run_study(make, seed, f, space, trials):
    study = optuna.create_study(sampler=make(seed))
    study.optimize(lambda t: f(suggest(t, space)), n_trials=trials)
    return study.best_value


def time_proposal(make, f, space, history):
    """Seconds per ask() + suggests after `history` uniformly random complete trials."""
    rng = np.random.RandomState(99)
    study = optuna.create_study(sampler=make(0))
    batch = []
    for _ in range(history):
        params = {}
        for name, d in space.items():
            if isinstance(d, CategoricalDistribution):
                params[name] = d.choices[rng.randint(len(d.choices))]
            elif isinstance(d, IntDistribution):
                params[name] = int(rng.randint(d.low, d.high + 1))
            elif d.log:
                params[name] = float(math.exp(rng.uniform(math.log(d.low), math.log(d.high))))
            else:
                params[name] = float(rng.uniform(d.low, d.high))
        batch.append(optuna.trial.create_trial(params=params, distributions=space,
                                               value=f(list(params.values()))))
    study.add_trials(batch)
    spent, reps = 0.0, 0
    while reps < 20 or spent < 1.0:
        t0 = time.perf_counter()
        trial = study.ask()
        x = suggest(trial, space)
        spent += time.perf_counter() - t0
        study.tell(trial, f(x))
        reps += 1
    return spent / reps


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--history", type=int, default=1000)
    ap.add_argument("--json")
    args = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    print(f"# Optuna {optuna.__version__} TPE benchmark: {args.seeds} seeds x {args.trials} "
          "trials (sequential), one core")
    print(f"# {'function':<10} {'sampler':<20} {'median best':>14} {'q25':>14} {'q75':>14} "
          f"{'ms/proposal':>16}")
    results = []
    for fname, (f, space) in SPACES.items():
        for sname, make in SAMPLERS.items():
            best = sorted(run_study(make, s, f, space, args.trials) for s in range(args.seeds))
            ms = 1e3 * time_proposal(make, f, space, args.history)
            med, q25, q75 = (float(np.percentile(best, p)) for p in (50, 25, 75))
            print(f"  {fname:<10} {sname:<20} {med:14.6f} {q25:14.6f} {q75:14.6f} {ms:16.3f}",
                  flush=True)
            results.append({"function": fname, "sampler": sname, "median": med, "q25": q25,
                            "q75": q75, "ms_per_proposal": ms, "best": best})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"optuna": optuna.__version__, "seeds": args.seeds, "trials": args.trials,
                       "history": args.history, "results": results}, fh, indent=1)


if __name__ == "__main__":
    main()
