#!/usr/bin/env python3
"""Optuna's side of bench_mo_propose: the time of one proposal (study.ask plus the 30
suggest_float calls that sample it) after `history` ZDT1 trials, NSGAIISampler (population 50)
and TPESampler with foxopt's defaults (multivariate, group, constant_liar, 10 startup trials,
24 candidates), the history made by the same sampler through ask/tell.
    bench_mo_propose.py [--history 300]"""
import argparse
import math
import time

import optuna


def zdt1(x):
    g = 1 + 9 * sum(x[1:]) / (len(x) - 1)
    return x[0], g * (1 - math.sqrt(x[0] / g))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--history", type=int, default=300)
    a = ap.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    samplers = {
        "nsga2": lambda: optuna.samplers.NSGAIISampler(population_size=50, seed=1),
        "tpe": lambda: optuna.samplers.TPESampler(multivariate=True, group=True,
                                                  constant_liar=True, n_startup_trials=10,
                                                  n_ei_candidates=24, seed=1),
    }
    print(f"# Optuna {optuna.__version__}: one proposal after {a.history} ZDT1 trials")
    print(f"{'sampler':<8} {'ms/proposal':>14} {'reps':>8}")
    for name, make in samplers.items():
        study = optuna.create_study(directions=["minimize", "minimize"], sampler=make())
        def ask():
            t = study.ask()
            x = [t.suggest_float(f"x{i}", 0, 1) for i in range(30)]
            return t, x
        for _ in range(a.history):
            t, x = ask()
            study.tell(t, zdt1(x))
        times = []
        t_end = time.perf_counter() + 3.0
        while len(times) < 5 or time.perf_counter() < t_end:
            t0 = time.perf_counter()
            t, x = ask()
            times.append(time.perf_counter() - t0)
            study.tell(t, state=optuna.trial.TrialState.FAIL)  # keeps the history the same size
        print(f"{name:<8} {1e3 * sorted(times)[len(times) // 2]:>14.3f} {len(times):>8}")


if __name__ == "__main__":
    main()
