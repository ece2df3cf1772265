"""The multi-objective TPE's parts against Optuna 5.1's own functions on the same points:
compute_hypervolume, _solve_hssp (with _get_reference_point), _split_trials and the Parzen
estimators' mixture weights (_build_parzen_estimator). Feeds tests/unit/mo_tpe_cli, compares:
hypervolumes to 1e-12 relative, chosen sets and splits exactly, weights to 1e-12.
    mo_tpe_ref.py MO_TPE_CLI
Exit 0 when everything agrees, 1 otherwise (each difference on stderr)."""
import math
import subprocess
import sys

import numpy as np
import optuna
from optuna._hypervolume import compute_hypervolume
from optuna._hypervolume.hssp import _solve_hssp
from optuna.distributions import FloatDistribution
from optuna.samplers._tpe.sampler import _get_reference_point, _split_trials
from optuna.trial import TrialState, create_trial

optuna.logging.set_verbosity(optuna.logging.WARNING)
rng = np.random.default_rng(20261203)


def points(n, m, kind):
    if kind == "grid":  # ties and duplicates
        return np.floor(rng.uniform(0, 5, (n, m)))
    if kind == "front":  # mutually non-dominated: on a simplex-like surface
        p = rng.dirichlet(np.ones(m), n)
        return np.sqrt(p) * rng.uniform(1, 3)
    return rng.uniform(-1, 4, (n, m))


def fmt(a):
    return " ".join(repr(float(v)) for v in np.ravel(a))


cmds, want = [], []
for case in range(240):
    m = 2 + case % 3
    kind = ("grid", "front", "uniform")[(case // 3) % 3]
    n = int(rng.integers(1, 26))
    p = points(n, m, kind)
    ref = _get_reference_point(p)
    ref = np.maximum(ref, p.max(axis=0))  # compute_hypervolume needs p <= ref
    cmds.append(f"hv {m} {n} {fmt(ref)} {fmt(p)}")
    want.append(("hv", case, compute_hypervolume(p, ref)))
    n = int(rng.integers(2, 41))
    p = points(n, m, kind)
    k = int(rng.integers(1, n))
    ref = _get_reference_point(p)
    cmds.append(f"hssp {m} {n} {k} {fmt(ref)} {fmt(p)}")
    got = _solve_hssp(p, np.arange(n), k, ref)
    want.append(("hssp", case, (sorted(int(i) for i in got), p, ref, kind)))

def same_quality(a, b, vals, feasible):
    """Two good groups of the same size that differ only among the feasible complete trials,
    and cover the same hypervolume there: equal contributions on the cut front, where rounding
    picks (grid points, several objectives)."""
    if sum(a) != sum(b) or any(x != y and not f for x, y, f in zip(a, b, feasible)):
        return False
    ref = vals.max(axis=0) + 1.0
    ha = compute_hypervolume(vals[[i for i, v in enumerate(a) if v == 1 and feasible[i]]], ref)
    hb = compute_hypervolume(vals[[i for i, v in enumerate(b) if v == 1 and feasible[i]]], ref)
    return abs(ha - hb) <= 1e-12 * max(1.0, abs(hb))


extra = {}
dist = {"x": FloatDistribution(0.0, 1.0)}
sampler = optuna.samplers.TPESampler(multivariate=True, seed=0)  # prior_weight 1, as foxopt
for case in range(120):
    m = 2 + case % 3
    kind = ("grid", "front", "uniform")[(case // 3) % 3]
    n = int(rng.integers(1, 120))
    gamma = (0.1, 0.25, 0.5)[case % 3]
    study = optuna.create_study(directions=["minimize"] * m)
    vals = points(n, m, kind)
    rows, trials = [], []
    for i in range(n):
        x = float(rng.uniform())
        r = rng.uniform()
        if r < 0.1:
            state, viol = 3, 0.0
            t = create_trial(state=TrialState.RUNNING, params={"x": x}, distributions=dist)
        else:
            viol = float(np.floor(rng.uniform(1, 4))) if r < 0.3 else 0.0
            t = create_trial(state=TrialState.COMPLETE, values=list(vals[i]), params={"x": x},
                             distributions=dist, system_attrs={"constraints": (viol,)})
            state = 0
        t.number = i
        trials.append(t)
        rows.append(f"{state} {viol!r} {fmt(vals[i])} {x!r}")
    cmds.append(f"split {m} {n} {gamma!r}\n" + "\n".join(rows))
    n_done = sum(t.state != TrialState.RUNNING for t in trials)
    below, above = _split_trials(study, trials, math.ceil(gamma * n_done))
    side = [0] * n
    for t in below:
        side[t.number] = 1
    wb = sampler._build_parzen_estimator(study, dist, below, handle_below=True)
    wa = sampler._build_parzen_estimator(study, dist, above, handle_below=False)
    extra[case] = (vals, [t.state == TrialState.COMPLETE and t.constraints["0"] <= 0
                          for t in trials])
    want.append(("split", case, (side, wb._mixture_distribution.weights,
                                 wa._mixture_distribution.weights)))

out = subprocess.run([sys.argv[1]], input="\n".join(cmds) + "\n", capture_output=True,
                     text=True, check=True).stdout.splitlines()
bad, ties, line = 0, 0, 0
for what, case, w in want:
    if what == "hv":
        g = float(out[line])
        line += 1
        if not abs(g - w) <= 1e-12 * max(1.0, abs(w)):
            print(f"hv case {case}: foxopt {g!r}, optuna {w!r}", file=sys.stderr)
            bad += 1
    elif what == "hssp":
        g = [int(v) for v in out[line].split()]
        line += 1
        w, p, ref, kind = w
        if g != w:
            hg, hw = compute_hypervolume(p[g], ref), compute_hypervolume(p[w], ref)
            if kind != "front" and abs(hg - hw) <= 1e-12 * max(1.0, abs(hw)):
                ties += 1  # zero contributions of dominated points: rounding picks among them
            else:
                print(f"hssp case {case}: foxopt {g}, optuna {w}, hv {hg!r} {hw!r}",
                      file=sys.stderr)
                bad += 1
    else:
        side, wb, wa = w
        g = [int(v) for v in out[line].split()]
        gb = np.array([float(v) for v in out[line + 1].split()])
        ga = np.array([float(v) for v in out[line + 2].split()])
        line += 3
        if g != side and not same_quality(g, side, *extra[case]):
            print(f"split case {case}: foxopt {g}\n  optuna {side}", file=sys.stderr)
            bad += 1
        elif g != side:
            ties += 1
        for name, gw, ow in (("good", gb, wb), ("rest", ga, wa)):
            if gw.shape != ow.shape or not np.allclose(gw, ow, rtol=1e-12, atol=1e-15):
                print(f"split case {case}: {name} weights foxopt {gw}, optuna {ow}",
                      file=sys.stderr)
                bad += 1
print(f"mo_tpe_ref: {len(want)} cases, {bad} differ, {ties} equal-hypervolume ties")
sys.exit(1 if bad else 0)
